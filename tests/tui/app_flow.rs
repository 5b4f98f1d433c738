//! The app driven by actions against the real engine, run inline (every request is answered
//! before `update` returns: no threads, no sleeps). Checks what the issue asks of the panes:
//! the map pane equals `mapscope map` for the same parameters, the query re-personalizes it,
//! focus/exclude/budget/tokenizer steer it, why/cut explain it, copies go out as OSC 52, and
//! engine failures end up in the status bar.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::fixture;

use base64::Engine as _;
use mapscope::app::action::Action;
use mapscope::app::clipboard::{Clipboard, ClipboardEnv};
use mapscope::app::config::{ClipboardMode, Config};
use mapscope::app::App;
use mapscope::engine::live::session::{
    EngineEvent, EngineRequest, Published, SessionEngine, SessionHandle,
};
use mapscope::engine::live::session_index::SessionIndex;
use mapscope::ui;
use mapscope::ui::Pane;
use ratatui::layout::Rect;

fn app_on(root: &Path, env: ClipboardEnv) -> App {
    let config = Config {
        debounce_ms: 0,
        ..Config::default()
    };
    app_with(config, SessionIndex::new(root.to_path_buf()), env)
}

/// A started 120×40 app on `service`, answering inline.
fn app_with(config: Config, service: SessionIndex, env: ClipboardEnv) -> App {
    let clipboard = Clipboard::new(ClipboardMode::Auto, env);
    let mut app = App::new(
        config,
        SessionHandle::inline(Box::new(service)),
        None,
        clipboard,
        "fixture".into(),
        Rect::new(0, 0, 120, 40),
    );
    app.start();
    app
}

fn ts_app() -> App {
    app_on(&fixture("ts-app"), ClipboardEnv::default())
}

fn type_query(app: &mut App, q: &str) {
    app.update(Action::FocusQuery);
    for c in q.chars() {
        app.update(Action::InsertChar(c));
    }
}

/// What `mapscope map` prints for the same parameters (the CLI adds a final newline if the
/// map lacks one).
fn cli_map(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mapscope"))
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .arg("map")
        .arg(fixture("ts-app"))
        .args(args)
        .output()
        .expect("run mapscope map");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The whole 120×40 screen `app` draws, cell by cell.
fn screen(app: &App) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
    t.draw(|f| mapscope::ui::draw(f, &app.view())).unwrap();
    t.backend()
        .buffer()
        .content()
        .iter()
        .map(ratatui::buffer::Cell::symbol)
        .collect()
}

fn shown_map(app: &App) -> String {
    let text = app.map_snapshot().expect("a map").text.clone();
    if text.ends_with('\n') {
        text
    } else {
        text + "\n"
    }
}

#[test]
fn map_pane_equals_the_cli_map() {
    let mut app = ts_app();
    assert_eq!(shown_map(&app), cli_map(&[]));
    // The pane knows where each file's header is (selection, clicks, why).
    let snap = app.map_snapshot().unwrap();
    assert!(!snap.files.is_empty());
    for f in &snap.files {
        let line = snap.text.lines().nth(f.header_line).unwrap();
        assert!(
            line.starts_with(&f.path),
            "{line:?} is not the header of {}",
            f.path
        );
    }

    app.update(Action::BudgetUp);
    app.update(Action::CycleTokenizer);
    assert_eq!(app.params().budget, 1536);
    assert_eq!(app.params().tokenizer, "cl100k");
    assert_eq!(
        shown_map(&app),
        cli_map(&["--tokens", "1536", "--tokenizer", "cl100k"])
    );

    type_query(&mut app, "session expiry");
    assert_eq!(
        shown_map(&app),
        cli_map(&[
            "--tokens",
            "1536",
            "--tokenizer",
            "cl100k",
            "--query",
            "session expiry"
        ])
    );
}

#[test]
fn focus_file_from_a_hit_matches_cli_focus() {
    let mut app = ts_app();
    type_query(&mut app, "UserService");
    let hit = app.selected_hit().expect("a hit").row.clone();
    assert_eq!(hit.path, "src/services/userService.ts");
    app.update(Action::Back);
    app.update(Action::ToggleFocusFile);
    assert_eq!(app.params().focus, vec![hit.path.clone()]);
    let map = shown_map(&app);
    assert_eq!(
        map,
        cli_map(&["--focus", &hit.path, "--query", "UserService"])
    );
    // A focus file is what the LLM already sees: it is left out of the map.
    assert!(!map.lines().any(|l| l == hit.path), "{map}");
    app.update(Action::ToggleFocusFile);
    assert!(app.params().focus.is_empty());
}

#[test]
fn query_finds_a_definition_and_previews_it() {
    let mut app = ts_app();
    type_query(&mut app, "User");
    let hits = app.hits_snapshot().expect("hits");
    assert!(!hits.hits.is_empty());
    let first = &hits.hits[0].row;
    assert_eq!(first.symbol, "User");
    assert_eq!(first.path, "src/models/user.ts");
    assert_eq!(app.preview_path(), Some("src/models/user.ts"));
    app.update(Action::SelectNext);
    let second = app.selected_hit().unwrap().row.path.clone();
    assert_eq!(app.preview_path(), Some(second.as_str()));
}

#[test]
fn excluding_a_file_and_a_symbol_removes_them_from_the_map() {
    let mut app = ts_app();
    app.update(Action::Back); // hits
    app.update(Action::NextPane); // preview
    app.update(Action::NextPane); // map
    assert_eq!(app.focus(), Pane::Map);
    let first = app.selected_map_file().expect("a map file").to_string();
    app.update(Action::ExcludeFile);
    assert_eq!(app.params().exclude_files, vec![first.clone()]);
    assert!(!app
        .map_snapshot()
        .unwrap()
        .files
        .iter()
        .any(|f| f.path == first));

    type_query(&mut app, "formatName");
    let hit = app.selected_hit().expect("a hit").row.clone();
    assert_eq!(hit.symbol, "formatName");
    app.update(Action::ExcludeSymbol);
    assert_eq!(app.params().exclude_symbols, vec!["formatName".to_string()]);
    let map = &app.map_snapshot().unwrap().text;
    assert!(!map.contains("function formatName"), "{map}");

    app.update(Action::ClearSteering);
    assert!(app.params().exclude_files.is_empty() && app.params().exclude_symbols.is_empty());
}

#[test]
fn budget_steps_stay_within_every_doors_range() {
    let mut app = ts_app();
    for _ in 0..30 {
        app.update(Action::BudgetDown);
    }
    assert_eq!(app.params().budget, mapscope::contract::MIN_MAP_TOKENS);
    assert!(app.map_snapshot().unwrap().tokens <= 16);
    for _ in 0..30 {
        app.update(Action::BudgetUp);
    }
    assert_eq!(app.params().budget, mapscope::contract::MAX_MAP_TOKENS);
}

#[test]
fn why_explains_the_selected_map_file() {
    let mut app = ts_app();
    type_query(&mut app, "User");
    app.update(Action::Back);
    app.update(Action::NextPane);
    app.update(Action::NextPane);
    let path = app.selected_map_file().unwrap().to_string();
    app.update(Action::Why);
    let why = app.why().expect("a why view");
    assert_eq!(why.path, path);
    assert!(why.rank > 0.0);
    assert!(why.position >= 1 && why.position <= why.total_files);
    assert!(why.in_map && why.tokens > 0);
    assert!(why.total_files >= 5);
}

#[test]
fn cut_lists_what_did_not_fit() {
    let mut app = ts_app();
    for _ in 0..2 {
        app.update(Action::BudgetDown);
    }
    let map = app.map_snapshot().unwrap();
    assert_eq!(map.budget, 512);
    for _ in 0..1 {
        app.update(Action::BudgetDown);
    }
    let map = app.map_snapshot().unwrap();
    assert_eq!(map.budget, 256);
    assert!(
        !map.cut.is_empty(),
        "a 256-token map must leave something out"
    );
    assert!(map.cut.iter().all(|r| r.tokens > 0));
    app.update(Action::Cut);
    assert!(app.overlay_open());
    app.update(Action::Back);
    assert!(!app.overlay_open());
}

#[test]
fn copies_go_out_as_osc52_without_a_display() {
    let mut app = app_on(
        &fixture("ts-app"),
        ClipboardEnv {
            tmux: false,
            ssh: false,
            display: false,
        },
    );
    app.update(Action::Back);
    app.update(Action::CopyMap);
    let out = app.take_terminal_output();
    assert_eq!(out.len(), 1);
    let map = app.map_snapshot().unwrap();
    let b64 = base64::engine::general_purpose::STANDARD.encode(map.text.as_bytes());
    assert_eq!(out[0], format!("\x1b]52;c;{b64}\x07"));
    let msg = app.message().unwrap();
    assert!(
        msg.contains("OSC 52") && msg.contains(&format!("{} tokens", map.tokens)),
        "{msg}"
    );

    type_query(&mut app, "User");
    app.update(Action::CopyCitation);
    let out = app.take_terminal_output();
    let citation = app.selected_hit().unwrap().row.location();
    assert!(citation.starts_with("src/models/user.ts:17-"), "{citation}");
    let b64 = base64::engine::general_purpose::STANDARD.encode(&citation);
    assert!(out[0].contains(&b64), "{:?}", app.message());
}

/// Inside tmux the copy is a plain OSC 52 (tmux keeps it with `set-clipboard on`; a
/// passthrough wrapping would be dropped or bypass its buffers), reported as sent, not
/// copied; and the markdown copy is counted and fitted to the budget as markdown.
#[test]
fn inside_tmux_the_copy_is_plain_osc52_and_markdown_fits_the_budget() {
    let mut app = app_on(
        &fixture("ts-app"),
        ClipboardEnv {
            tmux: true,
            ssh: true,
            display: true,
        },
    );
    app.update(Action::Back);
    // A budget the text map fills: the markdown's fences would push it over.
    for _ in 0..3 {
        app.update(Action::BudgetDown);
    }
    let budget = app.params().budget;
    app.update(Action::CopyMapMarkdown);
    let out = app.take_terminal_output();
    let b64 = out[0]
        .strip_prefix("\x1b]52;c;")
        .and_then(|s| s.strip_suffix('\x07'))
        .expect("a plain OSC 52");
    let copied = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap(),
    )
    .unwrap();
    let map = app.map_snapshot().unwrap();
    assert!(copied.contains("```"), "{copied}");
    let tok = mapscope::engine::base::tokenizer::tokenizer(
        mapscope::engine::base::tokenizer::TokenizerKind::O200k,
    );
    let counted = tok.count(&copied);
    assert!(counted <= budget, "{counted} > {budget}");
    // The text map's own markdown (same files, with fences) would be over the budget: the
    // copy was fitted as markdown, not rendered from the text map.
    let fenced: String = map
        .text
        .split("\n\n")
        .map(|block| format!("{block}\n```\n```\n"))
        .collect();
    assert!(
        tok.count(&fenced) > budget,
        "the test needs a budget the text map fills"
    );
    let msg = app.message().unwrap();
    assert!(msg.starts_with("sent map as markdown"), "{msg}");
    assert!(msg.contains(&format!("({counted} tokens)")), "{msg}");
    assert!(msg.contains("via OSC 52 to tmux"), "{msg}");
}

/// `C` copies the hit's whole line range from the file, not one line of it.
#[test]
fn copy_code_takes_the_whole_range() {
    let mut app = app_on(&fixture("ts-app"), ClipboardEnv::default());
    type_query(&mut app, "User");
    let hit = app.selected_hit().unwrap().row.clone();
    assert!(hit.end > hit.start, "{hit:?}");
    app.update(Action::CopyExcerpt);
    let out = app.take_terminal_output();
    let b64 = out[0]
        .strip_prefix("\x1b]52;c;")
        .and_then(|s| s.strip_suffix('\x07'))
        .unwrap();
    let copied = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap(),
    )
    .unwrap();
    let file = std::fs::read_to_string(fixture("ts-app").join(&hit.path)).unwrap();
    let expected: Vec<&str> = file
        .lines()
        .skip(hit.start as usize - 1)
        .take((hit.end - hit.start + 1) as usize)
        .collect();
    assert_eq!(copied, format!("{}\n", expected.join("\n")));
    let n = hit.end - hit.start + 1;
    assert!(
        app.message()
            .unwrap()
            .contains(&format!("{n} lines of code")),
        "{:?}",
        app.message()
    );
}

/// Typing into a fresh app: the query box has the focus, so every letter (q, y, s, …) is
/// text, through the same keymap the terminal's keys go through.
#[test]
fn a_fresh_app_types_letters_that_are_commands_elsewhere() {
    use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    let mut app = ts_app();
    assert_eq!(app.focus(), Pane::Query);
    let key = |c| Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    for c in "request quit css y?".chars() {
        let typing = app.focus() == Pane::Query;
        let action = app.config.keymap.action_for(&key(c), typing).unwrap();
        app.update(action);
    }
    assert!(!app.quit);
    assert_eq!(app.query(), "request quit css y?");
    assert!(app.hits_snapshot().is_some());
    // Esc leaves for the panes, where `q` quits; ctrl-c quits from the query box too.
    let esc = Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    let action = app.config.keymap.action_for(&esc, true).unwrap();
    app.update(action);
    assert_eq!(app.focus(), Pane::Hits);
    let action = app.config.keymap.action_for(&key('q'), false).unwrap();
    assert_eq!(action, Action::Quit);
    let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert_eq!(
        app.config.keymap.action_for(&ctrl_c, true),
        Some(Action::Quit)
    );
    let ctrl_y = Event::Key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::CONTROL));
    assert_eq!(
        app.config.keymap.action_for(&ctrl_y, true),
        Some(Action::CopyMap)
    );
}

/// Messages answer the last action: they go at the next one, or after a few seconds.
#[test]
fn messages_fade() {
    let mut app = ts_app();
    assert!(app.message().unwrap().starts_with("indexed "));
    app.tick(std::time::Instant::now() + mapscope::app::MESSAGE_TTL * 3);
    assert_eq!(app.message(), None);
    app.update(Action::Back);
    app.update(Action::BudgetUp);
    assert!(app.message().is_some());
    app.update(Action::SelectNext);
    assert_eq!(app.message(), None);
}

#[test]
fn editor_opens_the_hit_at_its_line() {
    let mut app = ts_app();
    type_query(&mut app, "User");
    app.update(Action::Back);
    app.update(Action::OpenEditor);
    let req = app.take_editor_request().expect("an editor request");
    assert!(req.path.ends_with("src/models/user.ts"));
    assert!(req.path.is_absolute());
    assert_eq!(req.line, app.selected_hit().unwrap().row.start);
}

#[test]
fn an_empty_repo_is_reported_in_the_ui() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "nothing to index").unwrap();
    std::fs::write(dir.path().join("blob.ts"), b"\0\0\0binary").unwrap();
    let app = app_on(dir.path(), ClipboardEnv::default());
    let view = app.view();
    let empty = view.empty.as_ref().expect("the nothing-to-map screen");
    assert_eq!(empty.code, "REPO_EMPTY");
    assert!(
        empty.reason.contains("skipped: 1 binary"),
        "{}",
        empty.reason
    );
    assert!(empty.supported.contains("typescript"));
    assert!(view.status.failed);
    // Single keys work there (r retries, q quits).
    assert_eq!(app.focus(), Pane::Hits);
    assert!(app.map_snapshot().is_none());
}

#[test]
fn a_panicking_engine_becomes_a_status_message() {
    struct Flaky(SessionIndex);
    impl SessionEngine for Flaky {
        fn handle(
            &mut self,
            req: EngineRequest,
            published: &Published,
            emit: &mut dyn FnMut(EngineEvent),
        ) {
            if matches!(&req, EngineRequest::Search { query, .. } if query == "boom") {
                panic!("search blew up");
            }
            self.0.handle(req, published, emit);
        }
    }
    let config = Config {
        debounce_ms: 0,
        ..Config::default()
    };
    let engine = SessionHandle::inline(Box::new(Flaky(SessionIndex::new(fixture("ts-app")))));
    let clipboard = Clipboard::new(ClipboardMode::Osc52, ClipboardEnv::default());
    let mut app = App::new(
        config,
        engine,
        None,
        clipboard,
        "x".into(),
        Rect::new(0, 0, 100, 30),
    );
    app.start();
    type_query(&mut app, "boom");
    assert_eq!(app.message(), Some("search failed: search blew up"));
    // The app goes on: the next query works.
    app.update(Action::ClearQuery);
    type_query(&mut app, "User");
    assert!(!app.hits_snapshot().unwrap().hits.is_empty());
}

#[test]
fn mouse_click_selects_a_hit() {
    let mut app = ts_app();
    type_query(&mut app, "User");
    assert!(app.hits_snapshot().unwrap().hits.len() >= 2);
    // 120x40: query rows 0-2, hits pane from row 3 (border), first row at 4.
    app.update(Action::Click { x: 5, y: 5 });
    assert_eq!(app.focus(), Pane::Hits);
    let second = app.hits_snapshot().unwrap().hits[1].row.clone();
    assert_eq!(app.selected_hit().unwrap().row, second);
    app.update(Action::Scroll {
        x: 5,
        y: 6,
        down: true,
    });
    let third = app
        .hits_snapshot()
        .unwrap()
        .hits
        .get(2)
        .map(|h| h.row.clone());
    if let Some(third) = third {
        assert_eq!(app.selected_hit().unwrap().row, third);
    }
}

#[test]
fn dragging_the_map_border_resizes_it() {
    let mut app = ts_app();
    app.update(Action::Back);
    // 120 columns, map at 50%: its left border is column 60.
    app.update(Action::Click { x: 60, y: 10 });
    app.update(Action::Drag { x: 30, y: 10 });
    app.update(Action::Release);
    assert_eq!(app.layout_spec().map_percent, 75);
    app.update(Action::Drag { x: 90, y: 10 });
    assert_eq!(app.layout_spec().map_percent, 75, "no drag after release");
    app.update(Action::MapNarrower);
    assert_eq!(app.layout_spec().map_percent, 70);
}

#[test]
fn changed_files_refresh_the_map_and_the_pending_count_clears() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[(
            "app.py",
            "from util import helper\n\ndef main():\n    return helper()\n",
        )],
    );
    let mut app = app_on(dir.path(), ClipboardEnv::default());
    assert!(shown_map(&app).contains("def main"));
    assert!(!shown_map(&app).contains("brand_new_function"));

    common::write_files(
        dir.path(),
        &[(
            "util.py",
            "def helper():\n    return 1\n\ndef brand_new_function():\n    pass\n",
        )],
    );
    app.on_files_changed(["util.py".to_string()].into(), false);
    // The message counts what changed, not the whole index.
    let msg = app.message().unwrap();
    assert!(msg.starts_with("re-read 1 changed file in "), "{msg}");
    // Inline engine: the refresh is done, the new index and map are shown, nothing pending.
    let map = shown_map(&app);
    assert!(map.contains("brand_new_function"), "{map}");
    assert_eq!(app.view().status.freshness.pending, 0);
    assert!(!app.view().status.freshness.rebuilding);

    // A deletion disappears from the map too.
    std::fs::remove_file(dir.path().join("util.py")).unwrap();
    app.on_files_changed(["util.py".to_string()].into(), false);
    assert!(!shown_map(&app).contains("brand_new_function"));

    // A rescan picks up a change the watcher did not name.
    common::write_files(dir.path(), &[("app.py", "def renamed_main():\n    pass\n")]);
    app.on_files_changed(Default::default(), true);
    assert!(shown_map(&app).contains("renamed_main"));
}

#[test]
fn an_empty_repo_gets_indexed_when_a_file_appears() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "nothing to index").unwrap();
    let mut app = app_on(dir.path(), ClipboardEnv::default());
    assert!(app.map_snapshot().is_none());
    common::write_files(
        dir.path(),
        &[("first.go", "package main\n\nfunc First() {}\n")],
    );
    assert_eq!(
        app.focus(),
        Pane::Hits,
        "nothing to search: keys are commands"
    );
    app.on_files_changed(["first.go".to_string()].into(), false);
    assert!(shown_map(&app).contains("func First"));
    // The explorer opens as a fresh start does: typing searches.
    assert_eq!(app.focus(), Pane::Query);
    app.update(Action::InsertChar('F'));
    assert_eq!(app.query(), "F");
    // One file: singular words.
    let view = app.view();
    let (info, _) = mapscope::ui::status::status_parts(&view.status);
    assert!(info.contains("1 code file ·"), "{info}");
    assert_eq!(app.message(), None, "the key cleared the message");
}

/// `F1` opens help while typing; `G` goes to its end and `g` back, without closing it.
#[test]
fn help_scrolls_to_its_end_with_g_and_stays_open() {
    let mut app = ts_app();
    assert_eq!(app.focus(), Pane::Query);
    app.update(Action::Help);
    assert!(app.overlay_open());
    app.update(Action::SelectLast);
    assert!(app.overlay_open(), "G closed help");
    let end = screen(&app);
    app.update(Action::SelectFirst);
    assert!(app.overlay_open());
    assert_ne!(screen(&app), end, "G scrolled");
    app.update(Action::Back);
    assert!(!app.overlay_open());
}

/// A pasted query (one change to the text) shows its map from the top: the pinned files
/// first, not the old first file wherever it moved.
#[test]
fn a_pasted_query_shows_its_map_from_the_first_file() {
    let mut app = ts_app();
    app.update(Action::Back);
    app.update(Action::NextPane);
    app.update(Action::NextPane);
    assert_eq!(app.focus(), Pane::Map);
    let general_first = app.selected_map_file().unwrap().to_string();
    app.update(Action::FocusQuery);
    app.update(Action::Paste("user session".into()));
    app.flush();
    let map = app.map_snapshot().unwrap();
    assert_eq!(map.params.query, "user session");
    assert_ne!(
        map.files[0].path, general_first,
        "the query reorders the map"
    );
    assert_eq!(
        app.selected_map_file(),
        Some(map.files[0].path.as_str()),
        "was {general_first}"
    );
}

#[test]
fn live_updates_off_is_shown() {
    let mut app = ts_app();
    app.set_live(Err("inotify watch limit reached".into()));
    assert_eq!(app.view().status.freshness.live, Some(false));
    let msg = app.message().unwrap_or_default().to_string();
    assert!(msg.contains("live updates off: inotify"), "{msg}");
}

/// The TUI saves the tag cache on a thread of its own after a build (so a query right after
/// a refresh does not wait for the write), and still saves it when the app quits at once.
#[test]
fn the_tag_cache_is_saved_in_the_background_and_before_the_engine_ends() {
    let cache = tempfile::tempdir().unwrap();
    // Only this test turns the cache on; the others build with it off.
    std::env::set_var("MAPSCOPE_CACHE_DIR", cache.path());
    let root = fixture("ts-app");
    let build = |events: &mut Vec<String>| {
        let mut service = SessionIndex::new(root.clone()).with_cache(true);
        let published = Published::default();
        let mut emit = |e: EngineEvent| events.push(format!("{e:?}"));
        service.handle(
            EngineRequest::Build { generation: 1 },
            &published,
            &mut emit,
        );
        let reuse = service.index().unwrap().reuse;
        // Dropping the service (the worker ending) waits for the save.
        drop(service);
        reuse
    };
    let mut events = Vec::new();
    let first = build(&mut events);
    assert!(first.parsed > 0);
    assert!(events.iter().any(|e| e.starts_with("IndexReady")));
    assert!(
        !events.iter().any(|e| e.contains("could not save")),
        "{events:?}"
    );
    // The next start finds every file in the cache.
    let second = build(&mut Vec::new());
    assert_eq!(second.parsed, 0, "{second:?}");
    assert!(second.hash_hits > 0);
}

/// The config's `[scope]` narrows the hits as it narrows the map.
#[test]
fn the_config_scope_narrows_the_hits() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "server/report.py",
                "def export_report(rows):\n    return rows\n",
            ),
            (
                "web/report.ts",
                "export function exportReport(rows: string[]) { return rows }\n",
            ),
        ],
    );
    let paths = |scope: mapscope::engine::base::scope::ScopeSpec| -> Vec<String> {
        let config = Config {
            debounce_ms: 0,
            scope: scope.clone(),
            ..Config::default()
        };
        let service = SessionIndex::new(dir.path().to_path_buf()).with_scope(scope);
        let mut app = app_with(config, service, ClipboardEnv::default());
        type_query(&mut app, "export report");
        let hits = app.hits_snapshot().expect("hits");
        hits.hits.iter().map(|h| h.row.path.clone()).collect()
    };
    let all = paths(Default::default());
    assert!(all.iter().any(|p| p.starts_with("web/")), "{all:?}");
    let scoped = paths(mapscope::engine::base::scope::ScopeSpec {
        exclude: vec!["web/".into()],
        ..Default::default()
    });
    assert!(!scoped.is_empty(), "the server file is still found");
    assert!(scoped.iter().all(|p| !p.starts_with("web/")), "{scoped:?}");
}

/// `[sources]`: an extra root's hits come after the project's, labelled `NAME:path` in the
/// hits pane; the preview shows the source's file; such a file cannot steer the map.
#[test]
fn extra_sources_are_searched_after_the_project_and_labelled() {
    let project = tempfile::tempdir().unwrap();
    let library = tempfile::tempdir().unwrap();
    common::write_files(
        project.path(),
        &[(
            "app/report.py",
            "def export_report(rows):\n    return rows\n",
        )],
    );
    common::write_files(
        library.path(),
        &[(
            "lib/report_tools.py",
            "def export_report_csv(rows):\n    return ','.join(rows)\n",
        )],
    );
    let sources = mapscope::engine::search::sources::check_sources(
        project.path(),
        &[
            mapscope::engine::search::sources::SourceSpec::parse(&format!(
                "lib={}",
                library.path().display()
            ))
            .unwrap(),
        ],
    )
    .unwrap();
    let config = Config {
        debounce_ms: 0,
        ..Config::default()
    };
    let service = SessionIndex::new(project.path().to_path_buf()).with_sources(sources);
    let mut app = app_with(config, service, ClipboardEnv::default());
    type_query(&mut app, "export report");
    let paths: Vec<String> = app
        .hits_snapshot()
        .expect("hits")
        .hits
        .iter()
        .map(|h| h.row.path.clone())
        .collect();
    let first_source = paths.iter().position(|p| p.starts_with("lib:"));
    let last_project = paths.iter().rposition(|p| !p.starts_with("lib:"));
    assert!(
        matches!((first_source, last_project), (Some(s), Some(p)) if p < s),
        "{paths:?}"
    );
    assert!(
        paths.contains(&"lib:lib/report_tools.py".to_string()),
        "{paths:?}"
    );
    // The label is on screen, and the preview shows the source's text.
    let source_at = first_source.unwrap();
    for _ in 0..source_at {
        app.update(Action::SelectNext);
    }
    let screen = screen(&app);
    assert!(screen.contains("lib:lib/report_tools.py"), "{screen}");
    assert_eq!(app.preview_path(), Some("lib:lib/report_tools.py"));
    assert!(screen.contains("export_report_csv"), "{screen}");
    // A source's file is not the project's: it cannot become a focus file.
    app.update(Action::ToggleFocusFile);
    assert!(app.params().focus.is_empty());
}

/// `S` asks where to save the map shown, offers a path outside the repository, writes the
/// map's exact text where the user says, and replaces an existing file only on a second
/// Enter.
#[test]
fn the_map_is_saved_where_the_user_says() {
    let mut app = ts_app();
    app.update(Action::Back);
    app.update(Action::SaveMap);
    assert!(app.typing(), "the prompt takes text");
    let offered = match app.view().overlay {
        Some(mapscope::ui::Overlay::Prompt { input, .. }) => input.text.to_string(),
        _ => panic!("no save prompt"),
    };
    let repo = fixture("ts-app").canonicalize().unwrap();
    assert!(!Path::new(&offered).starts_with(&repo), "{offered}");
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("saved.txt");
    app.update(Action::ClearQuery);
    app.update(Action::Paste(target.display().to_string()));
    app.update(Action::Confirm);
    assert!(!app.typing(), "saved: the prompt closes");
    let map = app.map_snapshot().unwrap().text.clone();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), map);
    assert!(
        app.message().unwrap().starts_with("saved the map ("),
        "{:?}",
        app.message()
    );
    // Again on the same file: the first Enter asks, the second replaces.
    std::fs::write(&target, "old").unwrap();
    app.update(Action::SaveMap);
    app.update(Action::ClearQuery);
    app.update(Action::Paste(target.display().to_string()));
    app.update(Action::Confirm);
    assert!(app.typing(), "an existing file: asked first");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    app.update(Action::Confirm);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), map);
    // Esc cancels without writing.
    app.update(Action::SaveMap);
    app.update(Action::Back);
    assert!(!app.typing() || app.focus() == Pane::Query);
}

/// The start flags (`mapscope . --tokens 2048 --query … --focus … --ident … --tokenizer
/// cl100k`) shape the first map as `mapscope map` with the same flags would.
#[test]
fn start_flags_shape_the_first_map() {
    let config = Config {
        debounce_ms: 0,
        ..Config::default()
    };
    let clipboard = Clipboard::new(ClipboardMode::Auto, ClipboardEnv::default());
    let mut app = App::new(
        config,
        SessionHandle::inline(Box::new(SessionIndex::new(fixture("ts-app")))),
        None,
        clipboard,
        "fixture".into(),
        Rect::new(0, 0, 120, 40),
    );
    app.apply_start(mapscope::app::run::Start {
        budget: Some(2048),
        query: Some("user session".into()),
        focus: vec!["src/util.ts".into()],
        idents: vec!["Button".into()],
        tokenizer: Some(mapscope::engine::base::tokenizer::TokenizerKind::Cl100k),
    });
    app.start();
    app.flush();
    assert_eq!(app.query(), "user session");
    assert_eq!(app.params().budget, 2048);
    assert_eq!(app.params().tokenizer, "cl100k");
    let expected = cli_map(&[
        "--tokens",
        "2048",
        "--query",
        "user session",
        "--focus",
        "src/util.ts",
        "--ident",
        "Button",
        "--tokenizer",
        "cl100k",
    ]);
    assert_eq!(shown_map(&app), expected);
}

/// The index message adds up with the gauge: the files read that held nothing to map are
/// said beside the code files (the gauge counted 3 files read, the status bar 2).
#[test]
fn the_index_message_says_what_the_files_read_became() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("a.ts", "export function a(): number {\n  return 1;\n}\n"),
            ("b.ts", "export function b(): number {\n  return 2;\n}\n"),
        ],
    );
    common::write_bytes(dir.path(), "blob.ts", b"\x00\x01\x02binary\x00");
    let app = app_on(dir.path(), ClipboardEnv::default());
    let message = app.message().unwrap_or_default().to_string();
    assert!(message.starts_with("indexed 2 code files in "), "{message}");
    assert!(message.contains("(1 of the 3 read left out"), "{message}");
}

/// The text of the references pane's lines, one string each (`callers (1)`, `call
/// app/services/users.py:22 register import`).
fn refs_lines(app: &App) -> Vec<String> {
    let view = app.view();
    let refs = view.refs.expect("the references pane is open");
    refs.lines
        .iter()
        .map(|l| match l {
            ui::RefsLine::Definition { name, location, .. } => format!("{name} {location}"),
            ui::RefsLine::Section(s) => s.clone(),
            ui::RefsLine::Use(r) => {
                format!("{} {}:{} {} {}", r.kind, r.path, r.line, r.what, r.binding)
            }
        })
        .collect()
}

#[test]
fn references_open_on_a_hit_follow_a_caller_and_come_back() {
    let mut app = app_on(&fixture("py-app"), ClipboardEnv::default());
    type_query(&mut app, "slugify");
    app.update(Action::Back);
    let hit = app.selected_hit().expect("a hit").row.clone();
    assert_eq!(
        (hit.path.as_str(), hit.symbol.as_str()),
        ("app/util.py", "slugify")
    );
    assert_eq!(app.preview_path(), Some("app/util.py"));

    app.update(Action::References);
    assert_eq!(app.focus(), Pane::Hits);
    let lines = refs_lines(&app);
    assert_eq!(lines[0], "slugify app/util.py:19-20", "{lines:#?}");
    assert_eq!(lines[1], "callers (1)");
    assert_eq!(
        lines[2],
        "call app/services/users.py:22 UserService.register import"
    );
    assert!(lines[3].starts_with("callees: none"), "{lines:#?}");
    // The preview follows the selected use site.
    assert_eq!(app.preview_path(), Some("app/services/users.py"));
    assert_eq!(app.view().refs.unwrap().title_note, "1/1");

    // Enter goes into the use site; Back comes out of it to the list.
    app.update(Action::Confirm);
    assert_eq!(app.focus(), Pane::Preview);
    app.update(Action::Back);
    assert_eq!(app.focus(), Pane::Hits);
    assert!(app.view().refs.is_some());

    // The key on a use site follows it: who uses `register`, and what it uses.
    app.update(Action::References);
    let lines = refs_lines(&app);
    assert!(
        lines[0].starts_with("UserService.register app/services/users.py:19-25"),
        "{lines:#?}"
    );
    let callees_at = lines.iter().position(|l| l.starts_with("callees")).unwrap();
    assert!(
        lines[callees_at..]
            .iter()
            .any(|l| l == "call app/services/users.py:22 slugify → app/util.py:19 import"),
        "{lines:#?}"
    );
    // A guessed binding says so (the test calls `register` on a receiver of unknown type).
    let guessed = app.view().refs.unwrap().lines.iter().any(
        |l| matches!(l, ui::RefsLine::Use(r) if r.path == "tests/test_models.py" && r.ambiguous),
    );
    assert!(guessed, "{lines:#?}");
    // `self.conn` is the attribute `__init__` sets: a field of the class, in the same file.
    assert!(
        lines.iter().any(|l| {
            l
            == "ref app/services/users.py:23 UserService.conn → app/services/users.py:16 same file"
        }),
        "{lines:#?}"
    );
    // Down moves over use sites only, the preview following.
    app.update(Action::SelectNext);
    assert_eq!(app.view().refs.unwrap().title_note, "2/12 · 2 deep");
    assert_eq!(app.preview_path(), Some("tests/test_models.py"));

    // Back: to `slugify`'s view, then to the hits, the preview back on the hit.
    app.update(Action::Back);
    assert_eq!(refs_lines(&app)[0], "slugify app/util.py:19-20");
    assert_eq!(app.preview_path(), Some("app/services/users.py"));
    app.update(Action::Back);
    assert!(app.view().refs.is_none());
    assert_eq!(app.focus(), Pane::Hits);
    assert_eq!(app.preview_path(), Some("app/util.py"));
    assert_eq!(app.selected_hit().unwrap().row, hit);
}

#[test]
fn references_of_a_map_file_answer_for_the_definitions_it_shows() {
    let mut app = app_on(&fixture("py-app"), ClipboardEnv::default());
    app.update(Action::Back);
    app.update(Action::NextPane);
    app.update(Action::NextPane);
    assert_eq!(app.focus(), Pane::Map);
    let file = app.selected_map_file().unwrap().to_string();
    app.update(Action::References);
    assert_eq!(app.focus(), Pane::Hits);
    let view = app.view();
    let refs = view.refs.unwrap();
    assert!(refs.title.starts_with(&file), "{} vs {file}", refs.title);
    let definitions = refs
        .lines
        .iter()
        .filter(|l| matches!(l, ui::RefsLine::Definition { location, .. } if location.starts_with(&file)))
        .count();
    assert!(definitions >= 1, "{:#?}", refs.lines);
    // Back returns to the map.
    app.update(Action::Back);
    assert_eq!(app.focus(), Pane::Map);
    assert!(app.view().refs.is_none());
}

#[test]
fn typing_over_the_references_brings_the_hits_back_with_the_query_focused() {
    let mut app = app_on(&fixture("py-app"), ClipboardEnv::default());
    type_query(&mut app, "slugify");
    app.update(Action::Back);
    app.update(Action::References);
    assert!(app.view().refs.is_some());
    // Into the query box: the pane stays until something is typed; Back leaves the box.
    app.update(Action::PrevPane);
    assert_eq!(app.focus(), Pane::Query);
    assert!(app.view().refs.is_some());
    app.update(Action::Back);
    assert_eq!(app.focus(), Pane::Hits);
    assert!(
        app.view().refs.is_some(),
        "Back from the box keeps the view"
    );
    app.update(Action::PrevPane);
    app.update(Action::InsertChar('x'));
    assert!(app.view().refs.is_none());
    assert_eq!(app.focus(), Pane::Query, "typing goes on in the box");
    assert!(app.typing());
}

/// A method `area` of two classes, called on two receivers of unknown type: each definition
/// is answered on its own, and every use of it is marked ambiguous (a guess, shared by 2).
#[test]
fn references_of_a_method_of_two_classes_show_the_guess_as_ambiguous() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "shapes/circle.py",
                "class Circle:\n    def area(self):\n        return 3\n",
            ),
            (
                "shapes/square.py",
                "class Square:\n    def area(self):\n        return 4\n",
            ),
            (
                "report.py",
                "def total(c, s):\n    return c.area() + s.area()\n\n\nimport shapes.circle\nimport shapes.square\n",
            ),
        ],
    );
    let mut app = app_on(dir.path(), ClipboardEnv::default());
    type_query(&mut app, "area");
    app.update(Action::Back);
    let hit = app.selected_hit().expect("a hit").row.clone();
    assert_eq!(hit.symbol, "area", "{hit:?}");
    app.update(Action::References);
    let lines = refs_lines(&app);
    let defs: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("Circle.area shapes/") || l.starts_with("Square.area shapes/"))
        .collect();
    assert_eq!(
        defs.len(),
        1,
        "a definition hit answers for itself: {lines:#?}"
    );
    let view = app.view();
    let uses: Vec<&ui::RefsRow> = view
        .refs
        .as_ref()
        .unwrap()
        .lines
        .iter()
        .filter_map(|l| match l {
            ui::RefsLine::Use(r) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(uses.len(), 2, "{lines:#?}");
    for u in uses {
        assert_eq!((u.path.as_str(), u.line), ("report.py", 2));
        assert!(u.ambiguous, "{u:?}");
        assert_eq!(u.binding, "method guess ×2");
        assert_eq!(u.what, "total");
    }
    drop(view);
    // `c` and `C` copy the use site, not the hit under the pane.
    app.take_terminal_output();
    for (action, copied) in [
        (Action::CopyCitation, "report.py:2"),
        (Action::CopyExcerpt, "    return c.area() + s.area()"),
    ] {
        app.update(action);
        let out = app.take_terminal_output();
        let b64 = base64::engine::general_purpose::STANDARD.encode(copied);
        assert_eq!(out, [format!("\x1b]52;c;{b64}\x07")], "{copied}");
    }

    // The caller's row follows to `total`, whose callees are the two `area`s (one use,
    // two candidates: the first listed, the count shown).
    app.update(Action::References);
    let lines = refs_lines(&app);
    assert!(lines[0].starts_with("total report.py:1-2"), "{lines:#?}");
    let callees: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("call report.py:2 ") && l.contains(".area → shapes/"))
        .collect();
    assert_eq!(callees.len(), 2, "{lines:#?}");
    assert!(
        callees.iter().all(|l| l.ends_with("method guess ×2")),
        "{lines:#?}"
    );

    // Back twice: to `area`, then to the hits.
    app.update(Action::Back);
    app.update(Action::Back);
    assert!(app.view().refs.is_none());
}

/// A file edited while the pane is open: the view shown is asked again at once, the one
/// under it when Back shows it again.
#[test]
fn references_follow_the_index_when_files_change() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("util.py", "def helper():\n    return 1\n"),
            (
                "app.py",
                "from util import helper\n\n\ndef main():\n    return helper()\n",
            ),
        ],
    );
    let mut app = app_on(dir.path(), ClipboardEnv::default());
    type_query(&mut app, "helper");
    app.update(Action::Back);
    app.update(Action::References);
    assert!(refs_lines(&app).contains(&"callers (2)".to_string()));
    // Follow the caller's row: `main`'s own view, then a second caller appears.
    app.update(Action::References);
    assert!(refs_lines(&app)[0].starts_with("main app.py:4-5"));
    common::write_files(
        dir.path(),
        &[(
            "cli.py",
            "from util import helper\n\n\ndef run():\n    return helper()\n",
        )],
    );
    app.on_files_changed(["cli.py".to_string()].into(), false);
    assert!(refs_lines(&app)[0].starts_with("main app.py:4-5"));
    app.update(Action::Back);
    let lines = refs_lines(&app);
    assert!(lines.contains(&"callers (4)".to_string()), "{lines:#?}");
    assert!(
        lines.iter().any(|l| l == "call cli.py:5 run import"),
        "{lines:#?}"
    );
}

/// A look-up answered by a generated file (which the index leaves out) lists it first and
/// previews its text, as the CLI finds it; the map still leaves the file out.
#[test]
fn a_generated_files_definition_is_found_and_previewed() {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            (
                "src/main.c",
                "extern int yylex(void);\n\nint scan_all(void) {\n  return yylex();\n}\n",
            ),
            (
                "src/lexer.c",
                "/* A lexical scanner generated by flex */\n\nstatic int yy_init = 0;\n\nint yylex(void)\n{\n  return yy_init + 41;\n}\n",
            ),
        ],
    );
    let mut app = app_on(dir.path(), ClipboardEnv::default());
    type_query(&mut app, "yylex");
    let hits = app.hits_snapshot().expect("hits");
    let first = &hits.hits[0].row;
    assert_eq!((first.path.as_str(), first.start), ("src/lexer.c", 5));
    assert_eq!(app.preview_path(), Some("src/lexer.c"));
    let screen = screen(&app);
    assert!(screen.contains("yy_init + 41"), "{screen}");
    assert!(!shown_map(&app).contains("lexer.c"));
}
