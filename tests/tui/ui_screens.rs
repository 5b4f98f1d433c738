//! Snapshot tests of the TUI's main screens, drawn on ratatui's `TestBackend` from a real
//! `App` driven by actions, with a scripted engine answering inline (fixed data, so the
//! snapshots do not move when the ranking is tuned). Colours of key cells are checked
//! explicitly, since the text snapshot drops styles.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use mapscope::app::action::Action;
use mapscope::app::clipboard::{Clipboard, ClipboardEnv};
use mapscope::app::config::{ClipboardMode, Config};
use mapscope::app::App;
use mapscope::engine::base::model::RefKind;
use mapscope::engine::base::model::{DefKind, LineRange};
use mapscope::engine::index::explain::FileExplanation;
use mapscope::engine::index::refs::{
    DefSite, Direction, Enclosing, RefTarget, RefsAnswer, RefsGroup, UseBinding, UseSite,
};
use mapscope::engine::live::session::{
    EngineEvent, EngineRequest, HitsSnapshot, IncomingEdge, IndexSnapshot, MapFile, MapSnapshot,
    Published, RefsSnapshot, SessionEngine, SessionHandle, WhyData,
};
use mapscope::engine::rank::repo_map::CutDef;
use mapscope::engine::search::{Confidence, Evidence, SearchHit, Signals};
use mapscope::ui;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;
use ratatui::Terminal;

const USER_TS: &str = "import { formatName } from '../util';\n\nexport type UserId = string;\n\nexport enum Role {\n  Admin = 'admin',\n  Member = 'member',\n}\n\nexport interface Person {\n  id: UserId;\n  firstName: string;\n  lastName: string;\n  greet(): string;\n}\n\nexport class User implements Person {\n  constructor(\n    public id: UserId,\n    public firstName: string,\n    public lastName: string,\n    public role: Role = Role.Member,\n  ) {}\n\n  get fullName(): string {\n    return formatName(this.firstName, this.lastName);\n  }\n\n  greet(): string {\n    return `Hello, ${this.fullName}`;\n  }\n\n  isAdmin(): boolean {\n    return this.role === Role.Admin;\n  }\n}\n";

const MAP_TEXT: &str = "src/models/user.ts\n⋮\nexport class User implements Person {\n⋮\n  greet(): string {\n⋮\n\nsrc/util.ts\n⋮\nexport function formatName(first: string, last: string): string {\n⋮\n";

/// An engine with fixed answers. `finish_build: false` leaves the index building forever.
struct Scripted {
    finish_build: bool,
}

impl SessionEngine for Scripted {
    fn handle(
        &mut self,
        req: EngineRequest,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        match req {
            // Left unanswered: the screen shows the refresh in progress.
            EngineRequest::Refresh { .. } => {}
            EngineRequest::Build { generation } => {
                emit(EngineEvent::Progress {
                    phase: "parsing",
                    done: 4,
                    total: 10,
                });
                if !self.finish_build {
                    return;
                }
                let mut texts = BTreeMap::new();
                texts.insert("src/models/user.ts".to_string(), Arc::from(USER_TS));
                texts.insert(
                    "src/services/userService.ts".to_string(),
                    Arc::from("import { User } from '../models/user';\n\nexport class UserService {\n  private users = new Map<string, User>();\n\n  add(user: User): void {\n    this.users.set(user.id, user);\n  }\n}\n"),
                );
                texts.insert(
                    "src/util.ts".to_string(),
                    Arc::from("export function formatName(first: string, last: string): string {\n  return `${first} ${last}`;\n}\n"),
                );
                published.store_index(IndexSnapshot {
                    generation,
                    root: "/repo".into(),
                    files: 10,
                    docs: 1,
                    symbols: 42,
                    built_at: Instant::now(),
                    build_ms: 12.0,
                    texts,
                    sources: Vec::new(),
                });
                emit(EngineEvent::IndexReady { generation });
            }
            EngineRequest::Map { generation, params } => {
                published.store_map(MapSnapshot {
                    generation,
                    params: params.clone(),
                    text: MAP_TEXT.to_string(),
                    tokens: 57,
                    files: vec![
                        MapFile {
                            path: "src/models/user.ts".into(),
                            rank: 0.31,
                            tokens: 30,
                            header_line: 0,
                            def_lines: vec![17, 29],
                            path_only: false,
                        },
                        MapFile {
                            path: "src/util.ts".into(),
                            rank: 0.12,
                            tokens: 27,
                            header_line: 7,
                            def_lines: vec![1],
                            path_only: false,
                        },
                    ],
                    budget: params.budget,
                    cut: vec![
                        CutDef {
                            path: "src/services/userService.ts".into(),
                            name: "UserService".into(),
                            kind: DefKind::Class,
                            line: 8,
                            score: 0.0412,
                            tokens: 14,
                        },
                        CutDef {
                            path: "src/components/UserCard.tsx".into(),
                            name: "UserCard".into(),
                            kind: DefKind::Function,
                            line: 5,
                            score: 0.0218,
                            tokens: 19,
                        },
                    ],
                    fit_ms: 1.0,
                });
                emit(EngineEvent::MapReady { generation });
            }
            EngineRequest::Refs {
                generation,
                targets,
            } => {
                published.store_refs(RefsSnapshot {
                    generation,
                    answer: Ok(format_name_refs(&targets)),
                    targets,
                });
                emit(EngineEvent::RefsReady { generation });
            }
            EngineRequest::Markdown { generation, .. } => emit(EngineEvent::MarkdownReady {
                generation,
                text: format!("```\n{MAP_TEXT}```\n"),
                tokens: 61,
            }),
            EngineRequest::Search { generation, query } if query == LONG_QUERY => {
                published.store_hits(long_hits(generation, query));
                emit(EngineEvent::HitsReady { generation });
            }
            EngineRequest::Search { generation, query } => {
                let hit =
                    |evidence, kind: &str, symbol: &str, path: &str, start, end, score| SearchHit {
                        evidence,
                        kind: Some(kind.into()),
                        symbol: Some(symbol.into()),
                        file_path: path.into(),
                        line_range: LineRange { start, end },
                        score,
                        signals: Signals {
                            bm25: 4.2,
                            name: 3.0,
                            path: 0.5,
                            graph: 0.12,
                            prior: 0.03,
                            penalty: 0.0,
                            history: 0.0,
                        },
                        excerpt: "export class User implements Person {".into(),
                    };
                published.store_hits(HitsSnapshot {
                    generation,
                    query,
                    hits: vec![
                        hit(
                            Evidence::Definition,
                            "class",
                            "User",
                            "src/models/user.ts",
                            17,
                            37,
                            9.81,
                        ),
                        hit(
                            Evidence::Call,
                            "call",
                            "formatName",
                            "src/models/user.ts",
                            26,
                            26,
                            4.5,
                        ),
                        hit(
                            Evidence::Import,
                            "import",
                            "User",
                            "src/services/userService.ts",
                            1,
                            1,
                            2.25,
                        ),
                        hit(
                            Evidence::Reference,
                            "reference",
                            "Role",
                            "src/models/user.ts",
                            22,
                            22,
                            1.5,
                        ),
                        hit(Evidence::Text, "text", "", "README.md", 3, 4, 0.8),
                        hit(
                            Evidence::Definition,
                            "method",
                            "PlanGraphBuilder",
                            "internal/terraform/graph_builder_plan.go",
                            32,
                            141,
                            1.5,
                        ),
                        hit(
                            Evidence::Text,
                            "",
                            "// users are formatted by formatName",
                            "docs/guide/formatting-users.md",
                            1041,
                            1126,
                            1.25,
                        ),
                    ],
                    source_hits: Vec::new(),
                    confidence: Confidence::High,
                    low_score: false,
                    answer: "`User` is defined in `src/models/user.ts:17–37` (class) and used in 3 files.".into(),
                    latency_ms: 2.0,
                    texts: Default::default(),
                });
                emit(EngineEvent::HitsReady { generation });
            }
            EngineRequest::Why {
                generation, path, ..
            } => emit(EngineEvent::WhyReady {
                generation,
                why: Box::new(WhyData {
                    explained: FileExplanation {
                        path,
                        indexed: true,
                        rank: 0.3102,
                        rank_position: 1,
                        total_files: 10,
                        personalization: 0.25,
                        best_def_position: None,
                        cutoff_position: None,
                        cheapest: None,
                        budget_needed: None,
                        bindings: Vec::new(),
                        reasons: vec![
                            "search ranks it #1 for the query (score 12.40, best hit: definition \
                         `User` at line 3; matched words: user): pinned, its matching \
                         definitions go first"
                                .into(),
                        ],
                        in_map: true,
                        map_position: Some(1),
                        map_files: 4,
                        tokens: 30,
                    },
                    incoming: vec![
                        IncomingEdge {
                            path: "src/services/userService.ts".into(),
                            weight: 3.0,
                            idents: vec!["User".into(), "Role".into()],
                        },
                        IncomingEdge {
                            path: "src/components/UserCard.tsx".into(),
                            weight: 1.0,
                            idents: vec!["User".into()],
                        },
                    ],
                }),
            }),
        }
    }
}

/// Who uses `formatName` and what it uses, as the scripted engine answers any target: an
/// import-bound call, the import, and a guessed call shared by two definitions.
fn format_name_refs(targets: &[RefTarget]) -> RefsAnswer {
    let def = |path: &str, name: &str, kind, start, end| DefSite {
        path: path.into(),
        name: name.into(),
        kind,
        lines: LineRange { start, end },
        parent: None,
        container: None,
        qualified_name: None,
        test: false,
    };
    let site =
        |path: &str, line, kind, caller: Option<(&str, DefKind, u32, u32)>, binding| UseSite {
            path: path.into(),
            line,
            kind,
            name: "formatName".into(),
            qualifier: None,
            enclosing: caller.map(|(name, kind, start, end)| Enclosing {
                name: name.into(),
                // The methods' classes, as the scope-aware tags qualify them.
                qualified_name: match name {
                    "fullName" => Some("User.fullName".into()),
                    "add" => Some("UserService.add".into()),
                    _ => None,
                },
                kind,
                lines: LineRange { start, end },
            }),
            binding,
            ambiguous: false,
            candidates: 1,
            strength: 1.0,
            test: false,
            definitions: Vec::new(),
        };
    let mut guessed = site(
        "src/services/userService.ts",
        7,
        RefKind::Call,
        Some(("add", DefKind::Method, 6, 8)),
        UseBinding::MethodGuess,
    );
    guessed.ambiguous = true;
    guessed.candidates = 2;
    let mut callee = site(
        "src/util.ts",
        2,
        RefKind::Reference,
        None,
        UseBinding::SameFile,
    );
    callee.name = "first".into();
    callee.definitions = vec![def("src/util.ts", "first", DefKind::Variable, 2, 2)];
    RefsAnswer {
        target: targets.first().cloned().unwrap_or(RefTarget::Name {
            path: None,
            name: "formatName".into(),
        }),
        direction: Direction::Both,
        top: 100,
        groups: vec![RefsGroup {
            definition: def("src/util.ts", "formatName", DefKind::Function, 1, 3),
            callers: vec![
                site(
                    "src/models/user.ts",
                    26,
                    RefKind::Call,
                    Some(("fullName", DefKind::Method, 25, 27)),
                    UseBinding::Import,
                ),
                site(
                    "src/models/user.ts",
                    1,
                    RefKind::Import,
                    None,
                    UseBinding::Import,
                ),
                guessed,
            ],
            callers_total: 3,
            callees: vec![callee],
            callees_total: 1,
            callees_unbound: 2,
        }],
        definitions_total: 1,
        notes: Vec::new(),
    }
}

/// The query whose hits have the long names and deep paths of a real repository (vite's).
const LONG_QUERY: &str = "html middleware";

/// (symbol, path, start, end) of the long hits, and their evidence.
const LONG: [(&str, &str, u32, u32, Evidence); 7] = [
    (
        "transformIndexHtmlMiddleware",
        "packages/vite/src/node/server/middlewares/indexHtml.ts",
        378,
        452,
        Evidence::Definition,
    ),
    (
        "createDevHtmlTransformFn",
        "packages/vite/src/node/server/middlewares/indexHtml.ts",
        66,
        118,
        Evidence::Definition,
    ),
    (
        "applyHtmlTransforms",
        "packages/vite/src/node/plugins/html.ts",
        1201,
        1287,
        Evidence::Call,
    ),
    (
        "htmlFallbackMiddleware",
        "packages/vite/src/node/server/middlewares/htmlFallback.ts",
        9,
        83,
        Evidence::Definition,
    ),
    (
        "// the html middleware serves index.html for SPA routes",
        "docs/guide/api-javascript.md",
        212,
        214,
        Evidence::Text,
    ),
    (
        "StatefulHtmlProxyCache",
        "packages/vite/src/node/plugins/html.ts",
        88,
        140,
        Evidence::Reference,
    ),
    (
        "resolveHtmlTransforms",
        "packages/vite/src/node/plugins/html.ts",
        1152,
        1199,
        Evidence::Import,
    ),
];

fn long_hits(generation: u64, query: String) -> HitsSnapshot {
    HitsSnapshot {
        generation,
        query,
        hits: LONG
            .iter()
            .enumerate()
            .map(|(i, &(symbol, path, start, end, evidence))| SearchHit {
                evidence,
                kind: Some(
                    match evidence {
                        Evidence::Definition => "function",
                        Evidence::Text => "",
                        _ => "call",
                    }
                    .into(),
                ),
                symbol: Some(symbol.into()),
                file_path: path.into(),
                line_range: LineRange { start, end },
                score: 12.0 - i as f64,
                signals: Signals::default(),
                excerpt: String::new(),
            })
            .collect(),
        source_hits: Vec::new(),
        confidence: Confidence::Medium,
        low_score: false,
        answer: String::new(),
        latency_ms: 3.0,
        texts: Default::default(),
    }
}

fn app(finish_build: bool, w: u16, h: u16) -> App {
    let config = Config {
        debounce_ms: 0,
        ..Config::default()
    };
    let engine = SessionHandle::inline(Box::new(Scripted { finish_build }));
    let clipboard = Clipboard::new(ClipboardMode::Osc52, ClipboardEnv::default());
    let mut app = App::new(
        config,
        engine,
        None,
        clipboard,
        "ts-app".into(),
        Rect::new(0, 0, w, h),
    );
    app.freeze_clock();
    app.start();
    app
}

fn type_query(app: &mut App, q: &str) {
    app.update(Action::FocusQuery);
    for c in q.chars() {
        app.update(Action::InsertChar(c));
    }
}

fn render(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| ui::draw(f, &app.view())).unwrap();
    t
}

#[test]
fn indexing_screen() {
    let app = app(false, 100, 24);
    let t = render(&app, 100, 24);
    insta::assert_snapshot!("ui_indexing", t.backend());
}

#[test]
fn results_with_preview() {
    let mut app = app(true, 110, 30);
    type_query(&mut app, "User");
    app.update(Action::Back); // to the hits
    let t = render(&app, 110, 30);
    insta::assert_snapshot!("ui_results", t.backend());
    let buf = t.backend().buffer();
    let theme = &app.config.theme;
    // The first hit's badge carries the "def" colour, the call hit's the "call" colour.
    let badge_row = (0..30)
        .find(|&y| {
            buf[(1, y)].symbol() == " "
                && buf[(2, y)].symbol() == "d"
                && buf[(3, y)].symbol() == "e"
        })
        .unwrap();
    assert_eq!(buf[(2, badge_row)].bg, theme.badge_def);
    assert_eq!(buf[(2, badge_row + 1)].bg, theme.badge_call);
    // The hit's range (lines 17-37) is marked in the preview.
    let marked = (0..30)
        .any(|y| (0..110).any(|x| buf[(x, y)].symbol() == "▌" && buf[(x, y)].bg == theme.mark_bg));
    assert!(marked, "no marked line in the preview");
}

#[test]
fn refresh_in_progress_shows_pending_changes() {
    let mut app = app(true, 110, 16);
    app.set_live(Ok(()));
    app.on_files_changed(
        ["src/a.ts", "src/b.ts", "src/c.ts"]
            .map(String::from)
            .into(),
        false,
    );
    let t = render(&app, 110, 16);
    insta::assert_snapshot!("ui_refreshing", t.backend());
    let status = (0..110)
        .map(|x| t.backend().buffer()[(x, 15)].symbol().to_string())
        .collect::<String>();
    assert!(status.contains("indexed 0s ago"), "{status}");
    assert!(status.contains("⠋ 3 changes pending"), "{status}");
}

#[test]
fn signal_breakdown() {
    let mut app = app(true, 110, 30);
    type_query(&mut app, "User");
    app.update(Action::Back);
    app.update(Action::ToggleSignals);
    let t = render(&app, 110, 30);
    insta::assert_snapshot!("ui_signals", t.backend());
}

#[test]
fn full_screen_map() {
    let mut app = app(true, 80, 20);
    app.update(Action::Back);
    app.update(Action::ToggleMapFull);
    let t = render(&app, 80, 20);
    insta::assert_snapshot!("ui_map_full", t.backend());
}

#[test]
fn why_view() {
    let mut app = app(true, 100, 30);
    type_query(&mut app, "User");
    app.update(Action::Back);
    app.update(Action::NextPane); // preview
    app.update(Action::NextPane); // map
    app.update(Action::Why);
    let t = render(&app, 100, 30);
    insta::assert_snapshot!("ui_why", t.backend());
}

#[test]
fn cut_view() {
    let mut app = app(true, 100, 24);
    app.update(Action::Back);
    app.update(Action::Cut);
    let t = render(&app, 100, 24);
    insta::assert_snapshot!("ui_cut", t.backend());
}

#[test]
fn help_lists_the_keymap() {
    let mut app = app(true, 100, 50);
    app.update(Action::Back);
    app.update(Action::Help);
    let t = render(&app, 100, 50);
    insta::assert_snapshot!("ui_help", t.backend());
}

#[test]
fn tiny_terminal() {
    let app = app(true, 40, 10);
    let t = render(&app, 40, 10);
    insta::assert_snapshot!("ui_tiny", t.backend());
}

#[test]
fn narrow_terminal_swaps_map_and_preview() {
    let mut app = app(true, 80, 30);
    type_query(&mut app, "User");
    app.update(Action::Back);
    let t = render(&app, 80, 30);
    insta::assert_snapshot!("ui_narrow_map", t.backend());
    app.update(Action::NextPane); // preview takes the lower slot
    let t = render(&app, 80, 30);
    insta::assert_snapshot!("ui_narrow_preview", t.backend());
}

#[test]
fn control_characters_in_the_map_are_harmless() {
    struct Hostile;
    impl SessionEngine for Hostile {
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
                        files: 1,
                        docs: 0,
                        symbols: 1,
                        built_at: Instant::now(),
                        build_ms: 1.0,
                        texts: BTreeMap::new(),
                        sources: Vec::new(),
                    });
                    emit(EngineEvent::IndexReady { generation });
                }
                EngineRequest::Map { generation, params } => {
                    published.store_map(MapSnapshot {
                        generation,
                        params,
                        text: "evil.ts\nconst s = \"\x1b]52;c;AAAA\x07\x1b[2J\u{202e}\";\n".into(),
                        tokens: 9,
                        files: vec![MapFile {
                            path: "evil.ts".into(),
                            rank: 1.0,
                            tokens: 9,
                            header_line: 0,
                            def_lines: Vec::new(),
                            path_only: false,
                        }],
                        budget: 0,
                        cut: Vec::new(),
                        fit_ms: 0.0,
                    });
                    emit(EngineEvent::MapReady { generation });
                }
                _ => {}
            }
        }
    }
    let config = Config {
        debounce_ms: 0,
        ..Config::default()
    };
    let clipboard = Clipboard::new(ClipboardMode::Osc52, ClipboardEnv::default());
    let mut app = App::new(
        config,
        SessionHandle::inline(Box::new(Hostile)),
        None,
        clipboard,
        "r".into(),
        Rect::new(0, 0, 100, 20),
    );
    app.freeze_clock();
    app.start();
    let t = render(&app, 100, 20);
    let buf = t.backend().buffer();
    for cell in buf.content() {
        assert!(
            ui::text::is_safe(cell.symbol()),
            "unsafe cell {:?}",
            cell.symbol()
        );
    }
    // The copy is still the exact text (what the LLM is fed), not the display version.
    app.update(Action::CopyMap);
    let out = app.take_terminal_output();
    assert_eq!(out.len(), 1);
}

/// The text of row `y`.
fn row(t: &Terminal<TestBackend>, y: u16) -> String {
    let buf = t.backend().buffer();
    (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect()
}

/// A fresh TUI at 80×24: the query box has the focus, typing shows hits, the preview of the
/// first hit and a footer of the keys that work while typing.
#[test]
fn typing_at_80x24_shows_hits_and_preview() {
    let mut app = app(true, 80, 24);
    let t = render(&app, 80, 24);
    insta::assert_snapshot!("ui_80x24_start", t.backend());
    assert!(row(&t, 22).contains("ctrl-y copy map"), "{}", row(&t, 22));
    for c in "User".chars() {
        app.update(Action::InsertChar(c));
    }
    let t = render(&app, 80, 24);
    insta::assert_snapshot!("ui_80x24_typing", t.backend());
    assert_eq!(app.query(), "User");
    assert_eq!(app.preview_path(), Some("src/models/user.ts"));
}

/// Browsing hits at 80×24: the preview stays beside the hits and follows the selection.
#[test]
fn browsing_hits_at_80x24_keeps_the_preview() {
    let mut app = app(true, 80, 24);
    type_query(&mut app, "User");
    app.update(Action::Back); // to the hits
    app.update(Action::SelectNext);
    app.update(Action::SelectNext);
    let t = render(&app, 80, 24);
    insta::assert_snapshot!("ui_80x24_hits", t.backend());
    assert_eq!(app.preview_path(), Some("src/services/userService.ts"));
    // The map is a key away, and `m` still gives it the whole screen.
    app.update(Action::ToggleMapFull);
    let t = render(&app, 80, 24);
    assert!(row(&t, 0).contains("map"), "{}", row(&t, 0));
}

#[test]
fn results_at_120x40() {
    let mut app = app(true, 120, 40);
    type_query(&mut app, "User");
    let t = render(&app, 120, 40);
    insta::assert_snapshot!("ui_120x40_typing", t.backend());
    app.update(Action::Back);
    let t = render(&app, 120, 40);
    insta::assert_snapshot!("ui_120x40_hits", t.backend());
    let screen: String = (0..40).map(|y| row(&t, y)).collect::<Vec<_>>().join("\n");
    // A deep path keeps its file name: directories shorten first.
    assert!(
        screen.contains("graph_builder_plan.go:32"),
        "file name lost:\n{screen}"
    );
    // A text hit shows the matched line in the symbol column.
    assert!(screen.contains("// users ar"), "{screen}");
}

/// At 80 columns a long message is cut before the map's tokens/budget and the index's age.
#[test]
fn status_bar_keeps_tokens_and_freshness_at_80_columns() {
    let mut app = app(true, 80, 24);
    app.set_live(Ok(()));
    app.update(Action::Back);
    app.update(Action::CopyMapMarkdown);
    let msg = app.message().unwrap().to_string();
    assert!(
        msg.contains("61 tokens") && msg.starts_with("sent"),
        "{msg}"
    );
    let t = render(&app, 80, 24);
    let status = row(&t, 23);
    assert!(status.contains("57/1024 tok"), "{status}");
    assert!(status.contains("indexed 0s ago · live"), "{status}");
    assert!(status.contains("sent map as markdown"), "{status}");
    // The next action clears the message.
    app.update(Action::SelectNext);
    assert_eq!(app.message(), None);
}

#[test]
fn help_groups_keys_and_explains_the_screen_at_80x24() {
    let mut app = app(true, 80, 24);
    app.update(Action::Help);
    let t = render(&app, 80, 24);
    insta::assert_snapshot!("ui_80x24_help", t.backend());
}

/// NO_COLOR: not one cell carries a colour, and the selected hit is still visible.
#[test]
fn no_color_draws_without_colour() {
    let mut config = Config {
        debounce_ms: 0,
        ..Config::default()
    };
    config.theme.monochrome = true;
    let engine = SessionHandle::inline(Box::new(Scripted { finish_build: true }));
    let clipboard = Clipboard::new(ClipboardMode::Osc52, ClipboardEnv::default());
    let mut app = App::new(
        config,
        engine,
        None,
        clipboard,
        "ts-app".into(),
        Rect::new(0, 0, 120, 40),
    );
    app.freeze_clock();
    app.start();
    type_query(&mut app, "User");
    app.update(Action::Back);
    let t = render(&app, 120, 40);
    let buf = t.backend().buffer();
    for cell in buf.content() {
        assert_eq!(cell.fg, ratatui::style::Color::Reset);
        assert_eq!(cell.bg, ratatui::style::Color::Reset);
    }
    let reversed = buf
        .content()
        .iter()
        .any(|c| c.modifier.contains(ratatui::style::Modifier::REVERSED));
    assert!(reversed, "selection not shown");
}

/// A repository with nothing supported: one readable screen, not an error cut off in every
/// pane and "indexing…" forever.
#[test]
fn empty_repository_gets_one_readable_screen() {
    struct Empty;
    impl SessionEngine for Empty {
        fn handle(
            &mut self,
            req: EngineRequest,
            _published: &Published,
            emit: &mut dyn FnMut(EngineEvent),
        ) {
            if let EngineRequest::Build { generation } = req {
                emit(EngineEvent::IndexFailed {
                    generation,
                    code: "REPO_EMPTY",
                    message: "nothing to index in /repo: skipped: 3 binary, 1 too large".into(),
                });
            }
        }
    }
    let config = Config {
        debounce_ms: 0,
        ..Config::default()
    };
    let clipboard = Clipboard::new(ClipboardMode::Osc52, ClipboardEnv::default());
    let mut app = App::new(
        config,
        SessionHandle::inline(Box::new(Empty)),
        None,
        clipboard,
        "empty".into(),
        Rect::new(0, 0, 80, 24),
    );
    app.freeze_clock();
    app.start();
    let t = render(&app, 80, 24);
    insta::assert_snapshot!("ui_80x24_empty", t.backend());
    let screen: String = (0..24).map(|y| row(&t, y)).collect::<Vec<_>>().join("\n");
    assert!(
        screen.contains("skipped: 3 binary, 1 too large"),
        "{screen}"
    );
    assert!(screen.contains("typescript"), "{screen}");
    assert!(!screen.contains("indexing…"), "{screen}");
}

/// The hits pane at the three sizes a terminal usually has (alone at 80 columns, beside the
/// map at 100 and 120): every hit row shows its symbol's first 20 characters (whole when
/// it is no longer) and its whole line range; the path gives way first.
#[test]
fn hits_show_long_symbols_and_line_ranges_at_80_100_and_120_columns() {
    for (w, h) in [(80, 24), (100, 30), (120, 40)] {
        let mut app = app(true, w, h);
        type_query(&mut app, LONG_QUERY);
        app.update(Action::Back);
        let t = render(&app, w, h);
        insta::assert_snapshot!(format!("ui_{w}x{h}_long_hits"), t.backend());
        let screen: Vec<String> = (0..h).map(|y| row(&t, y)).collect();
        // Six rows fit at 80×24; the seventh is a key away.
        for &(symbol, _, start, end, evidence) in LONG.iter().take(6) {
            let shown: String = symbol.chars().take(20).collect();
            let range = format!(":{start}-{end}");
            // A text hit's symbol is its matched line: only the range is promised.
            let found = screen.iter().any(|line| {
                line.contains(&range) && (evidence == Evidence::Text || line.contains(&shown))
            });
            assert!(
                found,
                "{w}x{h}: no row with `{shown}` and `{range}`:\n{}",
                screen.join("\n")
            );
        }
    }
}

#[test]
fn references_of_a_hit_at_80x24() {
    let mut app = app(true, 80, 24);
    type_query(&mut app, "User");
    app.update(Action::Back);
    app.update(Action::SelectNext); // the `formatName` call
    app.update(Action::References);
    let t = render(&app, 80, 24);
    insta::assert_snapshot!("ui_80x24_refs", t.backend());
    // The guessed, ambiguous use's binding is drawn in the warning colour.
    let buf = t.backend().buffer();
    let theme = &app.config.theme;
    let row = (0..24)
        .find(|&y| {
            (0..80)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
                .contains("userService.ts:7")
        })
        .expect("the guessed use is listed");
    let q = (0..80)
        .rev()
        .find(|&x| buf[(x, row)].symbol() == "?")
        .expect("marked ambiguous");
    assert_eq!(buf[(q, row)].fg, theme.warning);
    // Down moves to the next use site; the preview follows it.
    app.update(Action::SelectNext);
    assert_eq!(app.preview_path(), Some("src/models/user.ts"));
    app.update(Action::SelectNext);
    assert_eq!(app.preview_path(), Some("src/services/userService.ts"));
}
