//! The map pane with a file shown by its path alone (a source file without a grammar): its
//! line is a header (selectable, in the path colour) drawn in italics, not bold, so it
//! reads as a file the map lists rather than one whose code it shows.

use std::collections::BTreeMap;
use std::time::Instant;

use mapscope::app::action::Action;
use mapscope::app::clipboard::{Clipboard, ClipboardEnv};
use mapscope::app::config::{ClipboardMode, Config};
use mapscope::app::App;
use mapscope::engine::live::session::{
    EngineEvent, EngineRequest, IndexSnapshot, MapFile, MapSnapshot, Published, SessionEngine,
    SessionHandle,
};
use mapscope::ui;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::Terminal;

/// What `mapscope map` prints for a repository whose `db.py` names `db/schema.sql`.
const MAP_TEXT: &str =
    "app/db.py:\n⋮\ndef load_schema(conn):\n⋮\n\ndb/schema.sql\n\napp/main.py:\n⋮\ndef main():\n";

struct WithSql;

impl SessionEngine for WithSql {
    fn handle(
        &mut self,
        req: EngineRequest,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        match req {
            EngineRequest::Build { generation } => {
                published.store_index(IndexSnapshot {
                    generation,
                    root: "/r".into(),
                    files: 2,
                    docs: 0,
                    symbols: 2,
                    built_at: Instant::now(),
                    build_ms: 1.0,
                    texts: BTreeMap::new(),
                    sources: Vec::new(),
                });
                emit(EngineEvent::IndexReady { generation });
            }
            EngineRequest::Map { generation, params } => {
                let file = |path: &str, header_line, def_lines: Vec<u32>, path_only| MapFile {
                    path: path.into(),
                    rank: 0.1,
                    tokens: 8,
                    header_line,
                    def_lines,
                    path_only,
                };
                published.store_map(MapSnapshot {
                    generation,
                    params,
                    text: MAP_TEXT.into(),
                    tokens: 27,
                    files: vec![
                        file("app/db.py", 0, vec![3], false),
                        file("db/schema.sql", 5, Vec::new(), true),
                        file("app/main.py", 7, vec![1], false),
                    ],
                    budget: 1024,
                    cut: Vec::new(),
                    fit_ms: 0.0,
                });
                emit(EngineEvent::MapReady { generation });
            }
            _ => {}
        }
    }
}

#[test]
fn a_path_only_file_is_an_italic_header_in_the_map() {
    let config = Config {
        debounce_ms: 0,
        ..Config::default()
    };
    let clipboard = Clipboard::new(ClipboardMode::Osc52, ClipboardEnv::default());
    let mut app = App::new(
        config,
        SessionHandle::inline(Box::new(WithSql)),
        None,
        clipboard,
        "r".into(),
        Rect::new(0, 0, 80, 16),
    );
    app.freeze_clock();
    app.start();
    app.update(Action::Back);
    app.update(Action::ToggleMapFull);
    let mut t = Terminal::new(TestBackend::new(80, 16)).unwrap();
    t.draw(|f| ui::draw(f, &app.view())).unwrap();
    insta::assert_snapshot!("ui_map_path_only", t.backend());
    let buf = t.backend().buffer();
    let row_of = |text: &str| {
        (0..buf.area.height)
            .find(|&y| {
                (0..buf.area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
                    .contains(text)
            })
            .unwrap()
    };
    let col_of = |y: u16, text: &str| {
        let row: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        row.find(text).unwrap() as u16
    };
    let sql = row_of("db/schema.sql");
    let cell = &buf[(col_of(sql, "db/schema.sql"), sql)];
    assert!(cell.modifier.contains(Modifier::ITALIC), "{cell:?}");
    assert!(!cell.modifier.contains(Modifier::BOLD), "{cell:?}");
    let py = row_of("app/main.py:");
    let header = &buf[(col_of(py, "app/main.py:"), py)];
    assert!(header.modifier.contains(Modifier::BOLD), "{header:?}");
    assert_eq!(cell.fg, header.fg);
    // The path-only file is one of the map's files: selecting down reaches it.
    app.update(Action::SelectNext);
    assert_eq!(app.view().map.selected, Some(5));
}
