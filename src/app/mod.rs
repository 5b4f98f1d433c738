//! The TUI application: state, `App::update(Action)`, and the view model handed to
//! `ui::draw`. All mutation happens here, on the UI thread; the engine, the highlighter and
//! the input reader run elsewhere and talk to the app through small events (`run` wires
//! them together). `App` itself never blocks: engine requests are fire-and-forget and results
//! are picked up from published snapshots when their event arrives.

pub mod action;
pub mod clipboard;
pub mod config;
pub mod editor;
pub mod highlight;
pub mod hints;
pub mod input;
pub mod keymap;
pub mod run;
pub mod terminal;
pub mod views;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::engine::live::session::{
    EngineEvent, EngineHandle, EngineRequest, Generation, IndexSnapshot, MapParams, MapSnapshot,
};
use crate::ui::{
    self, hits::row_height, hits::visible_offset, preview::center_scroll, status::format_age,
    EmptyView, Freshness, HelpLine, HitsView, LayoutSpec, Level, MapPaneView, Overlay, Pane,
    PreviewRow, PreviewView, ProgressView, QueryView, StatusView, ViewModel, WhyView,
};
use action::Action;
use clipboard::Clipboard;
use config::{Config, MAX_BUDGET, MIN_BUDGET};
use highlight::{HighlightRequest, HighlightWorker, Highlighted};
use views::{Hit, Hits};

/// The budget ladder `+`/`-` walk (tokens).
pub const BUDGET_STEPS: &[usize] = &[
    256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384,
];
pub const TOKENIZERS: &[&str] = &["o200k", "cl100k"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OverlayKind {
    Help,
    Why,
    Cut,
}

/// The file shown in the preview.
struct PreviewState {
    path: String,
    text: Arc<str>,
    /// Byte offset of each line's start.
    starts: Vec<usize>,
    mark: Option<(u32, u32)>,
    scroll: usize,
    styled: Option<Vec<Line<'static>>>,
    ticket: u64,
}

impl PreviewState {
    fn line_count(&self) -> usize {
        if self.text.is_empty() {
            0
        } else if self.text.ends_with('\n') {
            self.starts.len() - 1
        } else {
            self.starts.len()
        }
    }

    fn line(&self, i: usize) -> &str {
        let start = self.starts.get(i).copied().unwrap_or(self.text.len());
        let end = self
            .starts
            .get(i + 1)
            .map_or(self.text.len(), |e| e.saturating_sub(1));
        self.text.get(start..end.max(start)).unwrap_or("")
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(
        text.bytes()
            .enumerate()
            .filter(|(_, b)| *b == b'\n')
            .map(|(i, _)| i + 1),
    );
    v
}

/// A status-bar message.
struct Message {
    text: String,
    level: Level,
    /// When it was set: it fades after `MESSAGE_TTL` (errors and warnings after twice that)
    /// or at the next user action, whichever comes first.
    at: Instant,
}

/// How long a status-bar message stays without a new action.
pub const MESSAGE_TTL: Duration = Duration::from_secs(5);

impl Message {
    fn expires(&self) -> Instant {
        let ttl = match self.level {
            Level::Warning | Level::Error => MESSAGE_TTL * 2,
            Level::Info | Level::Ok => MESSAGE_TTL,
        };
        self.at + ttl
    }
}

/// Where `$EDITOR` should open (the run loop suspends the TUI for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorRequest {
    pub path: PathBuf,
    pub line: u32,
}

pub struct App {
    pub config: Config,
    engine: EngineHandle,
    highlighter: Option<HighlightWorker>,
    clipboard: Clipboard,
    /// Shown in the status bar.
    repo_label: String,
    size: Rect,

    focus: Pane,
    layout: LayoutSpec,
    overlay: Option<OverlayKind>,
    overlay_scroll: usize,
    help_lines: Vec<HelpLine>,
    show_signals: bool,
    /// The map pane's left border is being dragged.
    resizing: bool,

    query: String,
    cursor: usize,

    next_generation: Generation,
    build_generation: Generation,
    builds_done: u64,
    index: Option<Arc<IndexSnapshot>>,
    /// The last build failed: (code, message).
    index_error: Option<(String, String)>,
    progress: Option<(&'static str, usize, usize)>,
    build_started: Instant,
    /// Files reported changed on disk that no published index reflects yet.
    pending_changes: BTreeSet<String>,
    /// The generation of the newest refresh request; its `IndexReady` clears the pending set.
    refresh_generation: Option<Generation>,
    /// Live updates: `Ok` while the watcher runs, `Err(why)` when it could not start or
    /// stopped; `None` before it is started (and in tests that never start one).
    live: Option<Result<(), String>>,
    /// The watcher polls every this many seconds (out of inotify watches); None: events.
    polling_secs: Option<u64>,

    params: MapParams,
    map_requested: Generation,
    map: Option<Arc<MapSnapshot>>,
    /// The cut overlay's rows for `map`.
    cut: ui::CutView,
    map_lines: Vec<String>,
    map_headers: Vec<usize>,
    map_selected: usize,
    map_scroll: usize,

    search_requested: Generation,
    hits: Option<Arc<Hits>>,
    hit_selected: usize,
    hit_offset: usize,

    why_requested: Generation,
    why: Option<WhyView>,
    /// The markdown copy asked for (its answer is copied when it arrives).
    markdown_requested: Generation,

    search_due: Option<Instant>,
    map_due: Option<Instant>,

    preview: Option<PreviewState>,
    next_ticket: u64,

    message: Option<Message>,
    /// Escape sequences (OSC 52) for the run loop to write to the terminal.
    terminal_output: Vec<String>,
    editor_request: Option<EditorRequest>,
    /// Fixed clock for snapshot tests: ages and elapsed times show as zero.
    frozen_clock: bool,
    pub quit: bool,
    /// Something changed since the last frame.
    pub dirty: bool,
}

impl App {
    pub fn new(
        config: Config,
        engine: EngineHandle,
        highlighter: Option<HighlightWorker>,
        clipboard: Clipboard,
        repo_label: String,
        size: Rect,
    ) -> App {
        let help_lines = hints::help(&config.keymap);
        let params = MapParams {
            budget: config.budget,
            tokenizer: config.tokenizer.clone(),
            scope: config.scope.clone(),
            ..MapParams::default()
        };
        let layout = LayoutSpec {
            map_percent: config.map_width,
            ..LayoutSpec::default()
        };
        App {
            config,
            engine,
            highlighter,
            clipboard,
            repo_label,
            size,
            // Type to search: the query box has the focus at start (as in fzf); Esc or Tab
            // leave it for the panes, where single keys are commands.
            focus: Pane::Query,
            layout,
            overlay: None,
            overlay_scroll: 0,
            help_lines,
            show_signals: false,
            resizing: false,
            query: String::new(),
            cursor: 0,
            next_generation: 1,
            build_generation: 0,
            builds_done: 0,
            index: None,
            index_error: None,
            progress: None,
            build_started: Instant::now(),
            pending_changes: BTreeSet::new(),
            refresh_generation: None,
            live: None,
            polling_secs: None,
            params,
            map_requested: 0,
            map: None,
            cut: ui::CutView::default(),
            map_lines: Vec::new(),
            map_headers: Vec::new(),
            map_selected: 0,
            map_scroll: 0,
            search_requested: 0,
            hits: None,
            hit_selected: 0,
            hit_offset: 0,
            why_requested: 0,
            why: None,
            markdown_requested: 0,
            search_due: None,
            map_due: None,
            preview: None,
            next_ticket: 1,
            message: None,
            terminal_output: Vec::new(),
            editor_request: None,
            frozen_clock: false,
            quit: false,
            dirty: true,
        }
    }

    /// Starts indexing. The first frame can be drawn right away.
    pub fn start(&mut self) {
        self.request_build();
    }

    /// Snapshot tests: show ages and elapsed times as zero.
    pub fn freeze_clock(&mut self) {
        self.frozen_clock = true;
    }

    fn generation(&mut self) -> Generation {
        let g = self.next_generation;
        self.next_generation += 1;
        g
    }

    fn request_build(&mut self) {
        let g = self.generation();
        self.build_generation = g;
        self.build_started = Instant::now();
        self.progress = Some(("starting", 0, 0));
        self.index_error = None;
        self.engine.send(EngineRequest::Build { generation: g });
        self.pump();
    }

    /// The watcher reported changed files (repo-relative). They are re-read in the
    /// background; the status bar counts them as pending until a new index is published.
    /// `rescan` (ignore rules changed, or the watcher lost events) re-reads every file.
    pub fn on_files_changed(&mut self, paths: BTreeSet<String>, rescan: bool) {
        self.dirty = true;
        let Some(index) = &self.index else {
            // No index yet: a first build in flight will see the files; a failed one (e.g.
            // an empty repo that just got its first file) is retried.
            if self.index_error.is_some() && self.progress.is_none() {
                self.request_build();
            }
            return;
        };
        let mut changed = paths;
        if rescan {
            changed.extend(index.texts.keys().cloned());
        }
        if changed.is_empty() {
            return;
        }
        self.pending_changes.extend(changed.iter().cloned());
        let g = self.generation();
        self.build_generation = g;
        self.refresh_generation = Some(g);
        self.engine.send(EngineRequest::Refresh {
            generation: g,
            changed,
        });
        self.pump();
    }

    /// A warning for the status bar that changes nothing else (a directory the watcher
    /// skips). `text` is already sanitised.
    pub fn notice(&mut self, text: String) {
        self.set_message(text, Level::Warning);
        self.dirty = true;
    }

    /// How the watcher learns about changes now (events, or polling when out of watches).
    pub fn set_watch_mode(&mut self, mode: crate::engine::watch::WatchMode) {
        self.polling_secs = match mode {
            crate::engine::watch::WatchMode::Events => None,
            crate::engine::watch::WatchMode::Polling { interval } => {
                Some(interval.as_secs().max(1))
            }
        };
        self.dirty = true;
    }

    /// Whether live updates run (`Ok`) or why not.
    pub fn set_live(&mut self, live: Result<(), String>) {
        if let Err(why) = &live {
            self.set_message(format!("live updates off: {why}"), Level::Warning);
        }
        self.live = Some(live);
        self.dirty = true;
    }

    fn request_map_now(&mut self) {
        self.map_due = None;
        if self.index.is_none() {
            return;
        }
        let g = self.generation();
        self.map_requested = g;
        self.params.query = self.query.clone();
        self.engine.send(EngineRequest::Map {
            generation: g,
            params: self.params.clone(),
        });
        self.dirty = true;
        self.pump();
    }

    fn request_search_now(&mut self) {
        self.search_due = None;
        if self.index.is_none() {
            return;
        }
        let g = self.generation();
        self.search_requested = g;
        if self.query.trim().is_empty() {
            self.hits = None;
            self.hit_selected = 0;
            self.hit_offset = 0;
            // Nothing to follow: a narrow terminal gives the lower slot back to the map.
            self.preview = None;
            self.dirty = true;
            return;
        }
        self.engine.send(EngineRequest::Search {
            generation: g,
            query: self.query.clone(),
        });
        self.pump();
    }

    /// After a keystroke in the query: search and re-personalize the map once typing pauses.
    fn query_changed(&mut self) {
        self.dirty = true;
        if self.config.debounce_ms == 0 {
            self.request_search_now();
            self.request_map_now();
            return;
        }
        let due = Instant::now() + Duration::from_millis(self.config.debounce_ms);
        self.search_due = Some(due);
        self.map_due = Some(due);
    }

    /// Fires debounced requests that are due. The run loop calls it when it wakes.
    pub fn tick(&mut self, now: Instant) {
        if !self.frozen_clock && self.message.as_ref().is_some_and(|m| m.expires() <= now) {
            self.message = None;
            self.dirty = true;
        }
        if self.search_due.is_some_and(|d| d <= now) {
            self.request_search_now();
        }
        if self.map_due.is_some_and(|d| d <= now) {
            self.request_map_now();
        }
        if (self.progress.is_some() || self.refresh_generation.is_some()) && !self.frozen_clock {
            // The gauge shows elapsed time; the spinner turns.
            self.dirty = true;
        }
    }

    /// Fires every pending debounced request now (tests; and nothing is lost on quit).
    pub fn flush(&mut self) {
        if self.search_due.is_some() {
            self.request_search_now();
        }
        if self.map_due.is_some() {
            self.request_map_now();
        }
    }

    /// When the run loop must wake up next even without input.
    pub fn next_deadline(&self) -> Option<Instant> {
        let expiry = self.message.as_ref().map(Message::expires);
        let mut d = [self.search_due, self.map_due, expiry]
            .into_iter()
            .flatten()
            .min();
        if self.progress.is_some() || self.refresh_generation.is_some() {
            // The gauge or the status bar's spinner moves.
            let tick = Instant::now() + Duration::from_millis(100);
            d = Some(d.map_or(tick, |x| x.min(tick)));
        } else if self.index.is_some() {
            // The status bar shows the index's age.
            let tick = Instant::now() + Duration::from_secs(1);
            d = Some(d.map_or(tick, |x| x.min(tick)));
        }
        d
    }

    /// Handles engine events queued by an inline engine (no-op when threaded).
    fn pump(&mut self) {
        loop {
            let events = self.engine.take_events();
            if events.is_empty() {
                return;
            }
            for e in events {
                self.on_engine_event(e);
            }
        }
    }

    pub fn on_engine_event(&mut self, e: EngineEvent) {
        self.dirty = true;
        match e {
            EngineEvent::Progress { phase, done, total } => {
                if self.index.is_none() || self.progress.is_some() {
                    self.progress = Some((phase, done, total));
                }
            }
            EngineEvent::IndexReady { generation } => {
                let Some(snap) = self.engine.published.index.load_full() else {
                    return;
                };
                if generation < self.build_generation || snap.generation < self.build_generation {
                    return;
                }
                self.progress = None;
                self.builds_done += 1;
                let mut refreshed = None;
                if self.refresh_generation.is_some_and(|r| generation >= r) {
                    refreshed = Some(self.pending_changes.len());
                    self.pending_changes.clear();
                    self.refresh_generation = None;
                }
                let first = self.index.is_none();
                self.index = Some(snap.clone());
                // One file count everywhere: code files, the files whose definitions feed
                // the map (docs are searched but not counted).
                let text = match refreshed {
                    Some(n) => format!(
                        "re-read {n} changed file{} in {:.0} ms",
                        if n == 1 { "" } else { "s" },
                        snap.build_ms
                    ),
                    None => format!(
                        "indexed {} code files in {:.0} ms",
                        snap.files, snap.build_ms
                    ),
                };
                self.set_message(text, Level::Ok);
                if !first {
                    // Texts may have changed: reload the preview.
                    if let Some(p) = &self.preview {
                        let path = p.path.clone();
                        let mark = p.mark;
                        self.preview = None;
                        self.open_preview(&path, mark);
                    }
                }
                self.request_map_now();
                self.request_search_now();
            }
            EngineEvent::IndexFailed { code, message, .. } => {
                self.progress = None;
                self.pending_changes.clear();
                self.refresh_generation = None;
                if self.index.is_some() {
                    // A refresh failed: the last good index stays on screen.
                    self.set_message(format!("{code}: {message}"), Level::Error);
                } else if self.focus == Pane::Query {
                    // Nothing to search: single keys (r retries, q quits) are commands.
                    self.focus = Pane::Hits;
                }
                self.index_error = Some((code.to_string(), message));
            }
            EngineEvent::MapReady { .. } => {
                if let Some(m) = self.engine.published.map.load_full() {
                    self.set_map(m);
                }
            }
            EngineEvent::HitsReady { generation } => {
                if generation < self.search_requested || self.query.trim().is_empty() {
                    return;
                }
                if let Some(h) = self.engine.published.hits.load_full() {
                    if h.generation < self.search_requested {
                        return;
                    }
                    self.hits = Some(Arc::new(Hits::from_snapshot(&h)));
                    self.hit_selected = 0;
                    self.hit_offset = 0;
                    if !self.params.focus.is_empty() {
                        self.refresh_hit_focus_marks();
                    }
                    if self.hit_count() == 0 {
                        self.preview = None;
                    }
                    self.preview_selected_hit();
                }
            }
            EngineEvent::MarkdownReady {
                generation,
                text,
                tokens,
            } => {
                if generation == self.markdown_requested {
                    self.copy(&text, &format!("map as markdown ({tokens} tokens)"));
                }
            }
            EngineEvent::WhyReady { generation, why } => {
                if generation == self.why_requested {
                    self.why = Some(views::why_view(&why));
                }
            }
            EngineEvent::Notice(text) => self.set_message(text, Level::Warning),
            EngineEvent::Watching(mode) => {
                self.set_live(Ok(()));
                self.set_watch_mode(mode);
            }
            EngineEvent::NotWatching(why) => self.set_live(Err(why)),
            EngineEvent::FilesChanged { paths, rescan } => self.on_files_changed(paths, rescan),
            EngineEvent::Failed { what, message } => {
                let text = format!("{what} failed: {message}");
                if what == "index" {
                    self.progress = None;
                    self.index_error = Some(("INTERNAL_ERROR".to_string(), text.clone()));
                    if self.index.is_none() && self.focus == Pane::Query {
                        self.focus = Pane::Hits;
                    }
                }
                self.set_message(text, Level::Error);
            }
        }
    }

    pub fn on_highlighted(&mut self, h: Highlighted) {
        if let Some(p) = &mut self.preview {
            if p.ticket == h.ticket && p.path == h.path {
                p.styled = Some(h.lines);
                self.dirty = true;
            }
        }
    }

    fn set_map(&mut self, m: Arc<MapSnapshot>) {
        let selected_path = self
            .map
            .as_ref()
            .and_then(|old| old.files.get(self.map_selected))
            .map(|f| f.path.clone());
        self.map_lines = ui::text::sanitize_lines(&m.text);
        self.map_headers = m.files.iter().map(|f| f.header_line).collect();
        self.map_selected = selected_path
            .and_then(|p| m.files.iter().position(|f| f.path == p))
            .unwrap_or(0);
        self.cut = views::cut_view(&m);
        self.map = Some(m);
        self.reveal_map_selection();
    }

    fn set_message(&mut self, text: impl Into<String>, level: Level) {
        self.message = Some(Message {
            text: text.into(),
            level,
            at: Instant::now(),
        });
        self.dirty = true;
    }

    /// The status-bar message (tests).
    pub fn message(&self) -> Option<&str> {
        self.message.as_ref().map(|m| m.text.as_str())
    }
    pub fn query(&self) -> &str {
        &self.query
    }
    pub fn focus(&self) -> Pane {
        self.focus
    }
    pub fn map_snapshot(&self) -> Option<&Arc<MapSnapshot>> {
        self.map.as_ref()
    }
    pub fn hits_snapshot(&self) -> Option<&Arc<Hits>> {
        self.hits.as_ref()
    }
    pub fn params(&self) -> &MapParams {
        &self.params
    }
    pub fn layout_spec(&self) -> LayoutSpec {
        self.layout
    }
    pub fn selected_hit(&self) -> Option<&Hit> {
        self.hits.as_ref()?.hits.get(self.hit_selected)
    }
    pub fn preview_path(&self) -> Option<&str> {
        self.preview.as_ref().map(|p| p.path.as_str())
    }
    pub fn preview_is_highlighted(&self) -> bool {
        self.preview.as_ref().is_some_and(|p| p.styled.is_some())
    }
    pub fn why(&self) -> Option<&WhyView> {
        self.why.as_ref()
    }
    pub fn selected_map_file(&self) -> Option<&str> {
        self.map
            .as_ref()?
            .files
            .get(self.map_selected)
            .map(|f| f.path.as_str())
    }

    /// OSC 52 sequences for the terminal (the run loop writes them after the frame).
    pub fn take_terminal_output(&mut self) -> Vec<String> {
        std::mem::take(&mut self.terminal_output)
    }

    pub fn take_editor_request(&mut self) -> Option<EditorRequest> {
        self.editor_request.take()
    }

    /// The editor has exited (the TUI is back).
    pub fn editor_finished(&mut self, outcome: Result<(), String>) {
        self.dirty = true;
        match outcome {
            Ok(()) => self.set_message("back from the editor", Level::Info),
            Err(e) => self.set_message(e, Level::Error),
        }
    }

    pub fn overlay_open(&self) -> bool {
        self.overlay.is_some()
    }

    /// Quit-time clean-up that must outlive the app (the clipboard hand-off).
    pub fn finish(&mut self, exe: &std::path::Path) {
        let _ = self.clipboard.handoff(exe);
    }

    fn rects(&self) -> ui::PaneRects {
        ui::layout(self.size, &self.layout_now(), self.focus)
    }

    fn hits_visible_rows(&self) -> usize {
        let h = self
            .rects()
            .hits
            .map_or(10, |r| r.height.saturating_sub(2) as usize);
        (h / row_height(self.show_signals)).max(1)
    }

    fn preview_height(&self) -> usize {
        let r = ui::layout(self.size, &self.layout_now(), Pane::Preview);
        r.preview.map_or(10, ui::preview::inner_height).max(1)
    }

    fn map_height(&self) -> usize {
        let r = ui::layout(self.size, &self.layout_now(), Pane::Map);
        r.map
            .map_or(10, |r| r.height.saturating_sub(2) as usize)
            .max(1)
    }

    fn hit_count(&self) -> usize {
        self.hits.as_ref().map_or(0, |h| h.hits.len())
    }

    /// Applies one user action.
    pub fn update(&mut self, action: Action) {
        self.dirty = true;
        // A message answers the last action: the next one clears it (a resize or a mouse
        // release is not the user doing something new).
        if !matches!(
            action,
            Action::Resize(..) | Action::Release | Action::Drag { .. }
        ) {
            self.message = None;
        }
        if self.overlay.is_some() && self.overlay_action(&action) {
            return;
        }
        match action {
            Action::Quit => {
                self.flush_nothing();
                self.quit = true;
            }
            Action::FocusQuery => {
                self.focus = Pane::Query;
                self.layout.map_full = false;
                self.cursor = self.query.chars().count();
            }
            Action::Back => {
                if self.layout.map_full {
                    self.layout.map_full = false;
                } else {
                    // Out of the query box (or any pane) back to the hits list.
                    self.focus = Pane::Hits;
                }
            }
            Action::NextPane | Action::PrevPane => {
                if !self.layout.map_full {
                    let order = [Pane::Query, Pane::Hits, Pane::Preview, Pane::Map];
                    let i = order.iter().position(|p| *p == self.focus).unwrap_or(0);
                    let n = order.len();
                    let j = if action == Action::NextPane {
                        (i + 1) % n
                    } else {
                        (i + n - 1) % n
                    };
                    self.focus = order[j];
                }
            }
            Action::Help => self.open_overlay(OverlayKind::Help),
            Action::SelectNext => self.move_selection(1),
            Action::SelectPrev => self.move_selection(-1),
            Action::PageDown => self.page(1),
            Action::PageUp => self.page(-1),
            Action::SelectFirst => self.move_selection(isize::MIN / 2),
            Action::SelectLast => self.move_selection(isize::MAX / 2),
            Action::Confirm => match self.focus {
                Pane::Query => self.focus = Pane::Hits,
                Pane::Hits => {
                    self.preview_selected_hit();
                    self.focus = Pane::Preview;
                }
                Pane::Map => self.update(Action::Why),
                Pane::Preview => {}
            },
            Action::BudgetUp | Action::BudgetDown => {
                let b = self.params.budget;
                let next = if action == Action::BudgetUp {
                    BUDGET_STEPS
                        .iter()
                        .copied()
                        .find(|s| *s > b)
                        .unwrap_or(MAX_BUDGET)
                } else {
                    BUDGET_STEPS
                        .iter()
                        .rev()
                        .copied()
                        .find(|s| *s < b)
                        .unwrap_or(MIN_BUDGET)
                };
                if next != b {
                    self.params.budget = next;
                    self.set_message(format!("budget {next} tokens"), Level::Info);
                    self.request_map_now();
                }
            }
            Action::CycleTokenizer => {
                let i = TOKENIZERS
                    .iter()
                    .position(|t| *t == self.params.tokenizer)
                    .unwrap_or(0);
                self.params.tokenizer = TOKENIZERS[(i + 1) % TOKENIZERS.len()].to_string();
                self.set_message(format!("tokenizer {}", self.params.tokenizer), Level::Info);
                self.request_map_now();
            }
            Action::ToggleFocusFile => {
                if let Some(path) = self.target_file() {
                    let on = toggle(&mut self.params.focus, &path);
                    self.set_message(
                        format!("{} focus file {path}", if on { "added" } else { "removed" }),
                        Level::Info,
                    );
                    self.refresh_hit_focus_marks();
                    self.request_map_now();
                } else {
                    self.set_message("select a hit or a map file first", Level::Warning);
                }
            }
            Action::ExcludeFile => {
                if let Some(path) = self.target_file() {
                    let on = toggle(&mut self.params.exclude_files, &path);
                    self.set_message(
                        format!("{} {path}", if on { "excluded" } else { "re-included" }),
                        Level::Info,
                    );
                    self.request_map_now();
                } else {
                    self.set_message("select a hit or a map file first", Level::Warning);
                }
            }
            Action::ExcludeSymbol => {
                // A text hit's symbol column is the word that matched, not a symbol.
                let symbol = self
                    .selected_hit()
                    .filter(|h| h.row.evidence != crate::ui::hits::Evidence::Text)
                    .map(|h| h.row.symbol.clone())
                    .filter(|s| !s.is_empty());
                if let Some(sym) = symbol {
                    let on = toggle(&mut self.params.exclude_symbols, &sym);
                    self.set_message(
                        format!(
                            "{} symbol {sym}",
                            if on { "excluded" } else { "re-included" }
                        ),
                        Level::Info,
                    );
                    self.request_map_now();
                } else {
                    self.set_message("select a hit with a symbol first", Level::Warning);
                }
            }
            Action::ClearSteering => {
                self.params.focus.clear();
                self.params.exclude_files.clear();
                self.params.exclude_symbols.clear();
                self.refresh_hit_focus_marks();
                self.set_message("focus files and exclusions cleared", Level::Info);
                self.request_map_now();
            }
            Action::Why => {
                let path = if self.focus == Pane::Map || self.layout.map_full {
                    self.selected_map_file().map(str::to_string)
                } else {
                    self.target_file()
                };
                match path {
                    Some(path) if self.index.is_some() => {
                        self.params.query = self.query.clone();
                        let g = self.generation();
                        self.why_requested = g;
                        self.why = None;
                        self.open_overlay(OverlayKind::Why);
                        self.engine.send(EngineRequest::Why {
                            generation: g,
                            path,
                            params: self.params.clone(),
                        });
                        self.pump();
                    }
                    _ => self.set_message("select a map file or a hit first", Level::Warning),
                }
            }
            Action::Cut => {
                if self.map.is_some() {
                    self.open_overlay(OverlayKind::Cut);
                } else {
                    self.set_message("no map yet", Level::Warning);
                }
            }
            Action::ToggleSignals => self.show_signals = !self.show_signals,
            Action::ToggleMapFull => {
                self.layout.map_full = !self.layout.map_full;
                if self.layout.map_full {
                    self.focus = Pane::Map;
                }
                self.reveal_map_selection();
            }
            Action::MapWider => {
                self.layout.map_percent =
                    (self.layout.map_percent + 5).min(LayoutSpec::MAX_PERCENT);
            }
            Action::MapNarrower => {
                self.layout.map_percent = self
                    .layout
                    .map_percent
                    .saturating_sub(5)
                    .max(LayoutSpec::MIN_PERCENT);
            }
            Action::OpenEditor => self.open_editor(),
            Action::CopyMap => {
                let Some(m) = self.map.clone() else {
                    self.set_message("no map yet", Level::Warning);
                    return;
                };
                self.copy(&m.text, &format!("map ({} tokens)", m.tokens));
            }
            Action::CopyMapMarkdown => {
                if self.map.is_none() {
                    self.set_message("no map yet", Level::Warning);
                    return;
                }
                // The markdown is fitted to the budget as markdown (its fences cost tokens),
                // by the engine, on demand; the copy goes out when it answers.
                self.params.query = self.query.clone();
                let g = self.generation();
                self.markdown_requested = g;
                self.engine.send(EngineRequest::Markdown {
                    generation: g,
                    params: self.params.clone(),
                });
                self.pump();
            }
            Action::CopyCitation => match self.selected_hit().map(|h| h.row.location()) {
                Some(c) => {
                    let what = format!("citation {c}");
                    self.copy(&c, &what);
                }
                None => self.set_message("select a hit first", Level::Warning),
            },
            Action::CopyExcerpt => match self.hit_source() {
                Some(e) => {
                    let n = e.lines().count();
                    let what = format!("{n} line{} of code", if n == 1 { "" } else { "s" });
                    self.copy(&e, &what);
                }
                None => self.set_message("select a hit first", Level::Warning),
            },
            Action::Reload => {
                self.set_message("re-indexing…", Level::Info);
                self.request_build();
            }
            Action::ClearQuery => {
                self.query.clear();
                self.cursor = 0;
                self.query_changed();
            }
            Action::InsertChar(c) => {
                self.insert_str(&c.to_string());
            }
            Action::Paste(s) => {
                // One line only: a pasted newline would otherwise end up in the query.
                let line: String = s.chars().filter(|c| !c.is_control()).collect();
                self.insert_str(&line);
            }
            Action::DeleteBack => {
                if self.cursor > 0 {
                    let at = byte_at(&self.query, self.cursor - 1);
                    self.query.remove(at);
                    self.cursor -= 1;
                    self.query_changed();
                }
            }
            Action::DeleteForward => {
                if self.cursor < self.query.chars().count() {
                    let at = byte_at(&self.query, self.cursor);
                    self.query.remove(at);
                    self.query_changed();
                }
            }
            Action::DeleteWord => {
                let chars: Vec<char> = self.query.chars().collect();
                let mut start = self.cursor;
                while start > 0 && chars[start - 1] == ' ' {
                    start -= 1;
                }
                while start > 0 && chars[start - 1] != ' ' {
                    start -= 1;
                }
                if start < self.cursor {
                    let (a, b) = (
                        byte_at(&self.query, start),
                        byte_at(&self.query, self.cursor),
                    );
                    self.query.replace_range(a..b, "");
                    self.cursor = start;
                    self.query_changed();
                }
            }
            Action::CursorLeft => self.cursor = self.cursor.saturating_sub(1),
            Action::CursorRight => self.cursor = (self.cursor + 1).min(self.query.chars().count()),
            Action::CursorHome => self.cursor = 0,
            Action::CursorEnd => self.cursor = self.query.chars().count(),
            Action::Resize(w, h) => {
                self.size = Rect::new(0, 0, w, h);
                self.reveal_map_selection();
            }
            Action::Click { x, y } => self.click(x, y),
            Action::Drag { x, .. } => {
                if self.resizing && self.size.width > 0 {
                    let w = self.size.width as u32;
                    let pct = ((w.saturating_sub(x as u32)) * 100 / w) as u16;
                    self.layout.map_percent =
                        pct.clamp(LayoutSpec::MIN_PERCENT, LayoutSpec::MAX_PERCENT);
                }
            }
            Action::Release => self.resizing = false,
            Action::Scroll { x, y, down } => self.scroll_at(x, y, down),
        }
    }

    fn flush_nothing(&mut self) {
        self.search_due = None;
        self.map_due = None;
    }

    /// Keys while a pop-up is open: Esc/q-like keys close it, movement scrolls it.
    /// Returns true when the action was consumed.
    fn overlay_action(&mut self, action: &Action) -> bool {
        match action {
            Action::Back | Action::Confirm => {
                self.overlay = None;
                true
            }
            Action::Help if self.overlay == Some(OverlayKind::Help) => {
                self.overlay = None;
                true
            }
            Action::SelectNext => {
                self.overlay_scroll += 1;
                true
            }
            Action::SelectPrev => {
                self.overlay_scroll = self.overlay_scroll.saturating_sub(1);
                true
            }
            Action::PageDown => {
                self.overlay_scroll += 10;
                true
            }
            Action::PageUp => {
                self.overlay_scroll = self.overlay_scroll.saturating_sub(10);
                true
            }
            Action::SelectFirst => {
                self.overlay_scroll = 0;
                true
            }
            Action::Click { .. } => {
                self.overlay = None;
                true
            }
            Action::Drag { .. } | Action::Release => true,
            Action::Scroll { down, .. } => {
                if *down {
                    self.overlay_scroll += 3;
                } else {
                    self.overlay_scroll = self.overlay_scroll.saturating_sub(3);
                }
                true
            }
            Action::Quit | Action::Resize(..) => false,
            Action::InsertChar(_) | Action::Paste(_) => true,
            _ => {
                // Any other command closes the pop-up first, then runs.
                self.overlay = None;
                false
            }
        }
    }

    fn open_overlay(&mut self, kind: OverlayKind) {
        if self.overlay == Some(kind) && kind != OverlayKind::Why {
            self.overlay = None;
        } else {
            self.overlay = Some(kind);
            self.overlay_scroll = 0;
        }
    }

    fn insert_str(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        let at = byte_at(&self.query, self.cursor);
        self.query.insert_str(at, s);
        self.cursor += s.chars().count();
        self.focus = Pane::Query;
        self.query_changed();
    }

    /// The selected hit's whole line range from the indexed file (what `C` copies); the
    /// search excerpt when the file's text is not at hand.
    fn hit_source(&self) -> Option<String> {
        let hit = self.selected_hit()?;
        let text = self.index.as_ref().and_then(|i| i.texts.get(&hit.row.path));
        let Some(text) = text else {
            return Some(hit.excerpt.clone());
        };
        let start = hit.row.start.max(1) as usize - 1;
        let end = hit.row.end.max(hit.row.start).max(1) as usize;
        let lines: Vec<&str> = text.lines().skip(start).take(end - start).collect();
        if lines.is_empty() {
            return Some(hit.excerpt.clone());
        }
        let mut out = lines.join("\n");
        out.push('\n');
        Some(out)
    }

    /// The file a file-level command acts on: the selected map file when the map has the
    /// focus, else the selected hit's file.
    fn target_file(&self) -> Option<String> {
        if self.focus == Pane::Map || self.layout.map_full {
            self.selected_map_file().map(str::to_string)
        } else {
            self.selected_hit()
                .map(|h| h.row.path.clone())
                .or_else(|| self.preview.as_ref().map(|p| p.path.clone()))
        }
    }

    fn refresh_hit_focus_marks(&mut self) {
        if let Some(h) = &self.hits {
            let mut snap = (**h).clone();
            for hit in &mut snap.hits {
                hit.row.focus = self.params.focus.contains(&hit.row.path);
            }
            self.hits = Some(Arc::new(snap));
        }
    }

    fn move_selection(&mut self, delta: isize) {
        match self.focus {
            Pane::Query | Pane::Hits => {
                let n = self.hit_count();
                if n == 0 {
                    return;
                }
                let next = (self.hit_selected as isize)
                    .saturating_add(delta)
                    .clamp(0, n as isize - 1) as usize;
                if next != self.hit_selected {
                    self.hit_selected = next;
                    self.hit_offset =
                        visible_offset(self.hit_offset, Some(next), self.hits_visible_rows(), n);
                    self.preview_selected_hit();
                }
            }
            Pane::Preview => self.scroll_preview(delta),
            Pane::Map => {
                let n = self.map.as_ref().map_or(0, |m| m.files.len());
                if n == 0 {
                    return;
                }
                self.map_selected = (self.map_selected as isize)
                    .saturating_add(delta)
                    .clamp(0, n as isize - 1) as usize;
                self.reveal_map_selection();
            }
        }
    }

    fn page(&mut self, dir: isize) {
        match self.focus {
            Pane::Query | Pane::Hits => {
                let rows = self.hits_visible_rows() as isize;
                self.move_selection(dir * rows.max(1));
            }
            Pane::Preview => {
                let h = self.preview_height() as isize;
                self.scroll_preview(dir * (h - 2).max(1));
            }
            Pane::Map => {
                let h = self.map_height() as isize;
                self.scroll_map(dir * (h - 2).max(1));
                // Select the first file whose header is in view.
                if let Some(i) = self.map_headers.iter().position(|l| *l >= self.map_scroll) {
                    self.map_selected = i;
                }
            }
        }
    }

    fn scroll_preview(&mut self, delta: isize) {
        let h = self.preview_height();
        if let Some(p) = &mut self.preview {
            let max = p.line_count().saturating_sub(h);
            p.scroll = (p.scroll as isize)
                .saturating_add(delta)
                .clamp(0, max as isize) as usize;
        }
    }

    fn scroll_map(&mut self, delta: isize) {
        let h = self.map_height();
        let max = self.map_lines.len().saturating_sub(h);
        self.map_scroll = (self.map_scroll as isize)
            .saturating_add(delta)
            .clamp(0, max as isize) as usize;
    }

    fn reveal_map_selection(&mut self) {
        let h = self.map_height();
        if let Some(&line) = self.map_headers.get(self.map_selected) {
            if line < self.map_scroll || line >= self.map_scroll + h {
                self.map_scroll = line;
            }
        }
        let max = self.map_lines.len().saturating_sub(h);
        self.map_scroll = self.map_scroll.min(max);
    }

    fn preview_selected_hit(&mut self) {
        let Some(hit) = self.selected_hit() else {
            return;
        };
        let path = hit.row.path.clone();
        let mark = Some((hit.row.start, hit.row.end.max(hit.row.start)));
        self.open_preview(&path, mark);
    }

    /// Shows `path` in the preview with `mark` centred: plain text at once, colour when the
    /// highlighter is done.
    fn open_preview(&mut self, path: &str, mark: Option<(u32, u32)>) {
        let h = self.preview_height();
        if let Some(p) = &mut self.preview {
            if p.path == path {
                p.mark = mark;
                if let Some((s, e)) = mark {
                    p.scroll = center_scroll(s, e, h, p.line_count());
                }
                return;
            }
        }
        let Some(text) = self.index.as_ref().and_then(|i| i.texts.get(path).cloned()) else {
            self.preview = None;
            return;
        };
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        let mut p = PreviewState {
            path: path.to_string(),
            starts: line_starts(&text),
            text: text.clone(),
            mark,
            scroll: 0,
            styled: None,
            ticket,
        };
        if let Some((s, e)) = mark {
            p.scroll = center_scroll(s, e, h, p.line_count());
        }
        self.preview = Some(p);
        if let Some(hl) = &self.highlighter {
            hl.request(HighlightRequest {
                ticket,
                path: path.to_string(),
                text,
            });
        }
    }

    fn open_editor(&mut self) {
        let target = match self.focus {
            Pane::Map => self.selected_map_file().map(|p| (p.to_string(), 1)),
            Pane::Preview => self
                .preview
                .as_ref()
                .map(|p| (p.path.clone(), p.mark.map_or(p.scroll as u32 + 1, |m| m.0))),
            _ => self
                .selected_hit()
                .map(|h| (h.row.path.clone(), h.row.start)),
        };
        let (Some((path, line)), Some(index)) = (target, &self.index) else {
            self.set_message("select a hit first", Level::Warning);
            return;
        };
        self.editor_request = Some(EditorRequest {
            path: PathBuf::from(&index.root).join(path),
            line: line.max(1),
        });
    }

    fn copy(&mut self, text: &str, what: &str) {
        match self.clipboard.copy(text) {
            Ok((route, seq)) => {
                // Only the system clipboard confirms a copy; an OSC 52 is sent and may or
                // may not be kept by the terminal.
                let level = if seq.is_none() {
                    Level::Ok
                } else {
                    Level::Info
                };
                if let Some(seq) = seq {
                    self.terminal_output.push(seq);
                }
                self.set_message(route.report(what), level);
            }
            Err(e) => self.set_message(format!("copy failed: {e}"), Level::Error),
        }
    }

    fn click(&mut self, x: u16, y: u16) {
        let rects = self.rects();
        // A press on the map pane's left border starts resizing it (wide layout only).
        if let (Some(map), Some(_)) = (rects.map, rects.hits) {
            if x == map.x && map.x > 0 && y >= map.y && y < map.y + map.height {
                self.resizing = true;
                return;
            }
        }
        let Some(pane) = rects.pane_at(x, y) else {
            return;
        };
        self.focus = pane;
        match pane {
            Pane::Hits => {
                let r = rects.hits.unwrap_or_default();
                if y > r.y && y < r.y + r.height.saturating_sub(1) {
                    let row = (y - r.y - 1) as usize / row_height(self.show_signals);
                    let n = self.hit_count();
                    let off = visible_offset(
                        self.hit_offset,
                        Some(self.hit_selected),
                        self.hits_visible_rows(),
                        n,
                    );
                    let i = off + row;
                    if i < n {
                        self.hit_offset = off;
                        self.hit_selected = i;
                        self.preview_selected_hit();
                    }
                }
            }
            Pane::Map => {
                let r = rects.map.unwrap_or_default();
                if y > r.y {
                    let line = self.map_scroll + (y - r.y - 1) as usize;
                    // The file whose section holds the clicked line.
                    if let Some(i) = self.map_headers.iter().rposition(|h| *h <= line) {
                        self.map_selected = i;
                    }
                }
            }
            Pane::Query => {
                self.cursor = self.query.chars().count();
            }
            Pane::Preview => {}
        }
    }

    fn scroll_at(&mut self, x: u16, y: u16, down: bool) {
        let d: isize = if down { 3 } else { -3 };
        match self.rects().pane_at(x, y) {
            Some(Pane::Hits) => {
                let prev = self.focus;
                self.focus = Pane::Hits;
                self.move_selection(d.signum());
                if prev != Pane::Query {
                    self.focus = Pane::Hits;
                } else {
                    self.focus = prev;
                }
            }
            Some(Pane::Preview) => self.scroll_preview(d),
            Some(Pane::Map) => self.scroll_map(d),
            _ => {}
        }
    }

    /// The view model for one frame.
    pub fn view(&self) -> ViewModel<'_> {
        let theme = &self.config.theme;
        let no_hits_note = if let Some((_, e)) = &self.index_error {
            e.as_str()
        } else if self.index.is_none() {
            "indexing…"
        } else if self.query.trim().is_empty() {
            if self.focus == Pane::Query {
                "type a symbol, a path or words: hits appear as you type"
            } else {
                "press / to search: a symbol, a path or words"
            }
        } else if self.search_due.is_some() || self.hits.is_none() {
            "searching…"
        } else if self.hits.as_ref().is_some_and(|h| h.low_score) {
            "no confident hits"
        } else {
            "no hits"
        };
        ViewModel {
            theme,
            focus: self.focus,
            layout: self.layout_now(),
            query: QueryView {
                text: &self.query,
                cursor: self.cursor,
                note: self.query_note(),
            },
            hits: HitsView {
                rows: self
                    .hits
                    .as_ref()
                    .map(|h| h.hits.iter().map(|h| &h.row).collect())
                    .unwrap_or_default(),
                selected: if self.hit_count() > 0 {
                    Some(self.hit_selected)
                } else {
                    None
                },
                offset: self.hit_offset,
                show_signals: self.show_signals,
                note: no_hits_note,
                title_note: self.hits_title(),
                answer: self.hits.as_ref().map_or("", |h| h.answer.as_str()),
            },
            preview: self.preview_view(),
            map: MapPaneView {
                lines: &self.map_lines,
                headers: &self.map_headers,
                selected: self.map_headers.get(self.map_selected).copied(),
                scroll: self.map_scroll,
                title_note: self.map_title(),
                note: if let Some((_, e)) = &self.index_error {
                    e.as_str()
                } else if self.index.is_none() {
                    "building the index…"
                } else {
                    "fitting the map…"
                },
                updating: self
                    .map
                    .as_ref()
                    .is_some_and(|m| m.generation < self.map_requested)
                    || self.map_due.is_some(),
            },
            status: StatusView {
                repo: &self.repo_label,
                files: self.index.as_ref().map(|i| i.files),
                symbols: self.index.as_ref().map(|i| i.symbols),
                generation: self.builds_done,
                age: self.age(),
                tokenizer: &self.params.tokenizer,
                tokens: self.map.as_ref().map_or(0, |m| m.tokens),
                budget: self.params.budget,
                focus: &self.params.focus,
                excluded: self.params.exclude_files.len() + self.params.exclude_symbols.len(),
                failed: self.index.is_none() && self.index_error.is_some(),
                message: self.message.as_ref().map(|m| (m.text.as_str(), m.level)),
                freshness: Freshness {
                    pending: self.pending_changes.len(),
                    rebuilding: self.refresh_generation.is_some(),
                    spinner: if self.frozen_clock {
                        0
                    } else {
                        (self.build_started.elapsed().as_millis() / 100) as usize
                    },
                    live: self.live.as_ref().map(Result::is_ok),
                    polling_secs: self.polling_secs,
                },
            },
            progress: self.progress.map(|(phase, done, total)| ProgressView {
                phase,
                done,
                total,
                elapsed_ms: if self.frozen_clock {
                    0
                } else {
                    self.build_started.elapsed().as_millis() as u64
                },
            }),
            overlay: self.overlay_view(),
            footer: if self.index.is_none() && self.index_error.is_some() && self.overlay.is_none()
            {
                hints::footer_empty(&self.config.keymap)
            } else {
                hints::footer(&self.config.keymap, self.focus, self.overlay.is_some())
            },
            empty: self.empty_view(),
        }
    }

    /// The layout as drawn now: the user's choices plus whether the preview has a file.
    fn layout_now(&self) -> LayoutSpec {
        LayoutSpec {
            // While there are hits the preview keeps its slot, even for a hit whose file
            // has no text to show.
            preview_open: self.preview.is_some() || self.hit_count() > 0,
            ..self.layout
        }
    }

    /// The one-page screen for a repository that could not be indexed at all.
    fn empty_view(&self) -> Option<EmptyView<'_>> {
        if self.index.is_some() {
            return None;
        }
        let (code, reason) = self.index_error.as_ref()?;
        let supported: Vec<&str> = crate::engine::model::Lang::ALL
            .iter()
            .map(|l| l.name())
            .collect();
        Some(EmptyView {
            code,
            reason,
            supported: supported.join(", "),
            skipped: &[],
        })
    }

    fn query_note(&self) -> String {
        match &self.hits {
            Some(h) if !self.query.trim().is_empty() => format!(
                "{} hits · {} · {:.0} ms",
                h.hits.len(),
                h.confidence,
                h.latency_ms
            ),
            _ => String::new(),
        }
    }

    fn hits_title(&self) -> String {
        match &self.hits {
            Some(h) if !h.hits.is_empty() => {
                format!("{}/{}", self.hit_selected + 1, h.hits.len())
            }
            _ => String::new(),
        }
    }

    fn map_title(&self) -> String {
        match &self.map {
            Some(m) => format!(
                "{}/{} tokens · {} · {} files",
                m.tokens,
                m.params.budget,
                m.params.tokenizer,
                m.files.len()
            ),
            None => format!("budget {} · {}", self.params.budget, self.params.tokenizer),
        }
    }

    fn age(&self) -> String {
        match &self.index {
            Some(i) if !self.frozen_clock => format_age(i.built_at.elapsed().as_secs()),
            _ => format_age(0),
        }
    }

    fn preview_view(&self) -> PreviewView<'_> {
        let Some(p) = &self.preview else {
            return PreviewView {
                title: "preview",
                rows: Vec::new(),
                first: 0,
                total: 0,
                mark: None,
                note: if self.index.is_none() {
                    "indexing…"
                } else {
                    "select a hit to see its source"
                },
                highlighted: false,
            };
        };
        let h = self.preview_height();
        let total = p.line_count();
        let first = p.scroll.min(total.saturating_sub(1));
        let last = (first + h).min(total);
        let rows = (first..last)
            .map(|i| match p.styled.as_ref().and_then(|s| s.get(i)) {
                Some(line) => PreviewRow::Styled(line),
                None => PreviewRow::Plain(p.line(i)),
            })
            .collect();
        PreviewView {
            title: &p.path,
            rows,
            first,
            total,
            mark: p.mark,
            note: "empty file",
            highlighted: p.styled.is_some(),
        }
    }

    fn overlay_view(&self) -> Option<Overlay<'_>> {
        let scroll = self.overlay_scroll;
        match self.overlay? {
            OverlayKind::Help => Some(Overlay::Help {
                lines: &self.help_lines,
                scroll,
            }),
            OverlayKind::Why => Some(match &self.why {
                Some(view) => Overlay::Why { view, scroll },
                None => Overlay::Why {
                    view: &PENDING_WHY,
                    scroll,
                },
            }),
            OverlayKind::Cut => self.map.as_ref().map(|_| Overlay::Cut {
                view: &self.cut,
                scroll,
            }),
        }
    }
}

/// Shown while a "why" answer is on its way.
static PENDING_WHY: WhyView = WhyView {
    path: String::new(),
    rank: 0.0,
    position: 0,
    total_files: 0,
    personalization: 0.0,
    reasons: Vec::new(),
    in_map: false,
    map_position: None,
    map_files: 0,
    tokens: 0,
    incoming: Vec::new(),
};

/// Adds `item` if absent, removes it if present; returns whether it is now present.
fn toggle(list: &mut Vec<String>, item: &str) -> bool {
    if let Some(i) = list.iter().position(|x| x == item) {
        list.remove(i);
        false
    } else {
        list.push(item.to_string());
        list.sort();
        true
    }
}

/// Byte offset of the `n`th character.
fn byte_at(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toggling_adds_and_removes() {
        let mut v = vec![];
        assert!(toggle(&mut v, "b"));
        assert!(toggle(&mut v, "a"));
        assert_eq!(v, ["a", "b"]);
        assert!(!toggle(&mut v, "b"));
        assert_eq!(v, ["a"]);
    }

    #[test]
    fn byte_offsets_handle_wide_characters() {
        assert_eq!(byte_at("导出a", 1), 3);
        assert_eq!(byte_at("导出a", 5), 7);
    }

    #[test]
    fn preview_lines_split_like_the_engine() {
        let text: Arc<str> = Arc::from("a\nbb\n\nc");
        let p = PreviewState {
            path: String::new(),
            starts: line_starts(&text),
            text,
            mark: None,
            scroll: 0,
            styled: None,
            ticket: 0,
        };
        assert_eq!(p.line_count(), 4);
        assert_eq!(
            (0..4).map(|i| p.line(i)).collect::<Vec<_>>(),
            ["a", "bb", "", "c"]
        );
    }
}
