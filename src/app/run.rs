//! The event loop of the interactive TUI (`mapscope [PATH]` on a terminal).
//!
//! Threads: this one (UI: owns the terminal and the `App`), the input reader, the engine's
//! session thread (`engine::live::session`: index, watcher, cache saves) and the
//! highlighter. The UI thread waits with `crossbeam_channel::select!` on
//! input, engine events, highlighted files and a deadline (only when something is due —
//! debounced requests, a pending frame, the progress gauge; otherwise it sleeps), drains
//! everything queued, then draws at most ~60 times a second.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use crossbeam_channel::{after, never, select, Receiver};
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::Event;
use ratatui::Terminal;

use super::clipboard::{Clipboard, ClipboardEnv};
use super::config::Config;
use super::editor;
use super::highlight::{HighlightWorker, Highlighted};
use super::input::InputThread;
use super::terminal::TerminalGuard;
use super::App;
use crate::engine::live::session::{EngineEvent, SessionHandle};
use crate::engine::live::session_index::SessionIndex;
use crate::engine::EngineError;

const FRAME: Duration = Duration::from_millis(16);

/// What the explorer starts with, from the command line (`mapscope . --tokens 2048 --query
/// "…" --focus FILE --ident NAME --tokenizer cl100k`); `None` and empty keep the config's.
#[derive(Debug, Clone, Default)]
pub struct Start {
    pub budget: Option<usize>,
    pub query: Option<String>,
    pub focus: Vec<String>,
    pub idents: Vec<String>,
    pub tokenizer: Option<crate::engine::base::tokenizer::TokenizerKind>,
}

/// Runs the TUI on `root` until the user quits. Problems that can be seen before the
/// terminal is taken over (bad config, missing path) are returned as errors and printed by
/// the CLI; everything after that is shown inside the UI.
pub fn run(root: &Path, use_cache: bool, start: Start) -> anyhow::Result<()> {
    let mut config = Config::load()?;
    for warning in &config.warnings {
        crate::contract::warn(warning);
    }
    if crate::ui::theme::no_color_requested() {
        config.theme.monochrome = true;
    }
    if !root.exists() {
        return Err(EngineError::RepoNotFound(root.to_path_buf()).into());
    }
    if !root.is_dir() {
        return Err(EngineError::InvalidRepo(root.to_path_buf()).into());
    }
    let label = repo_label(root);
    // `[sources]` is checked against this repository before the terminal is taken over.
    let sources =
        crate::engine::search::sources::check_sources(root, &config.sources).map_err(|e| {
            super::config::ConfigError::Key {
                file: super::config::user_config_path()
                    .map_or_else(|| "config".into(), |p| p.display().to_string()),
                key: "sources".into(),
                message: e.to_string(),
            }
        })?;

    let (engine_tx, engine_rx) = crossbeam_channel::unbounded::<EngineEvent>();
    let (hl_tx, hl_rx) = crossbeam_channel::unbounded::<Highlighted>();
    let (input_tx, input_rx) = crossbeam_channel::unbounded::<Event>();

    let engine = SessionHandle::spawn(
        Box::new(
            SessionIndex::new(root.to_path_buf())
                .with_cache(use_cache)
                .with_history(true)
                .with_watch(true)
                .with_scope(config.scope.clone())
                .with_sources(sources),
        ),
        engine_tx,
    );
    // NO_COLOR: the preview stays plain, so there is nothing to highlight. `hl_tx` itself
    // lives to the end of `run`: a closed channel would wake the loop's `select!` forever.
    let highlighter = (!config.theme.monochrome)
        .then(|| HighlightWorker::spawn(config.theme.syntax_theme.clone(), hl_tx.clone()));
    let clipboard = Clipboard::new(config.clipboard, ClipboardEnv::from_process());
    let mouse = config.mouse;

    let guard = TerminalGuard::enter(mouse).context("could not set up the terminal")?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    let size = terminal.size()?;
    let mut app = App::new(
        config,
        engine,
        highlighter,
        clipboard,
        label,
        ratatui::layout::Rect::new(0, 0, size.width, size.height),
    );
    app.apply_start(start);
    // The first frame goes out before any indexing work is waited for.
    terminal.draw(|f| crate::ui::draw(f, &app.view()))?;
    assert!(
        test_panic() != Some(TestPanic::Ui),
        "test panic on the UI thread"
    );
    app.start();
    let input = InputThread::spawn(input_tx);

    let result = event_loop(
        &mut app,
        &mut terminal,
        &guard,
        &input,
        &input_rx,
        &engine_rx,
        &hl_rx,
    );

    drop(input);
    if let Ok(exe) = std::env::current_exe() {
        app.finish(&exe);
    }
    guard.restore();
    drop(terminal);
    result
}

#[allow(clippy::too_many_arguments)]
fn event_loop(
    app: &mut App,
    terminal: &mut Terminal<CrosstermBackend<io::Stdout>>,
    guard: &TerminalGuard,
    input: &InputThread,
    input_rx: &Receiver<Event>,
    engine_rx: &Receiver<EngineEvent>,
    hl_rx: &Receiver<Highlighted>,
) -> anyhow::Result<()> {
    let mut last_draw = Instant::now();
    loop {
        let now = Instant::now();
        let frame_due = app.dirty.then(|| last_draw + FRAME);
        let deadline = [frame_due, app.next_deadline()].into_iter().flatten().min();
        let timer = match deadline {
            Some(d) => after(d.saturating_duration_since(now)),
            None => never(),
        };
        select! {
            recv(input_rx) -> ev => match ev {
                Ok(ev) => handle_input(app, &ev),
                Err(_) => return Ok(()),
            },
            recv(engine_rx) -> ev => if let Ok(ev) = ev { app.on_engine_event(ev) },
            recv(hl_rx) -> h => if let Ok(h) = h { app.on_highlighted(h) },
            recv(timer) -> _ => {},
        }
        // Drain whatever else is queued before drawing once.
        while let Ok(ev) = input_rx.try_recv() {
            handle_input(app, &ev);
        }
        while let Ok(ev) = engine_rx.try_recv() {
            app.on_engine_event(ev);
        }
        while let Ok(h) = hl_rx.try_recv() {
            app.on_highlighted(h);
        }
        app.tick(Instant::now());

        let out = app.take_terminal_output();
        if !out.is_empty() {
            let mut stdout = io::stdout();
            for seq in out {
                stdout.write_all(seq.as_bytes())?;
            }
            stdout.flush()?;
        }
        if let Some(req) = app.take_editor_request() {
            let cmd = editor::editor_command(&app.config.editor);
            input.pause();
            guard.restore();
            let outcome = editor::open(&cmd, &req.path, req.line);
            guard.resume()?;
            input.resume();
            terminal.clear()?;
            app.editor_finished(outcome);
        }
        if app.quit {
            return Ok(());
        }
        if app.dirty && last_draw.elapsed() >= FRAME {
            terminal.draw(|f| crate::ui::draw(f, &app.view()))?;
            app.dirty = false;
            last_draw = Instant::now();
        }
    }
}

fn handle_input(app: &mut App, ev: &Event) {
    if let Some(action) = app.config.keymap.action_for(ev, app.typing()) {
        app.update(action);
    }
}

/// Where the end-to-end tests make mapscope panic on purpose (`MAPSCOPE_TEST_PANIC=ui`; the
/// engine's `=worker` is in `engine::live::session_index`), to check that the terminal is
/// restored. Only in a build with debug assertions (the one `cargo test` runs): a release
/// build never reads the variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestPanic {
    Ui,
}

pub fn test_panic() -> Option<TestPanic> {
    if !cfg!(debug_assertions) {
        return None;
    }
    match std::env::var("MAPSCOPE_TEST_PANIC").ok()?.as_str() {
        "ui" => Some(TestPanic::Ui),
        _ => None,
    }
}

/// "name (~/path)" for the status bar.
fn repo_label(root: &Path) -> String {
    let abs = root.canonicalize().unwrap_or_else(|_| PathBuf::from(root));
    let name = abs.file_name().map_or_else(
        || abs.display().to_string(),
        |n| n.to_string_lossy().to_string(),
    );
    crate::ui::text::sanitize_line(&name)
}
