//! The TUI application: `App` composes one state per feature, each in the module named like
//! the `ui` pane it feeds (`query`, `hits`, `refs`, `preview`, `map`, `overlay`, `status`,
//! `layout`) plus the index they all show (`index`). `App::update(Action)` and
//! `App::on_engine_event` dispatch to those modules, and `App::view` gathers their view models
//! for `ui::draw`. Every mutation of the TUI's state happens in `app`, on the UI thread; the
//! engine, the highlighter and the input reader run elsewhere and talk to the app through
//! small events (`run` wires them together). `App` itself never blocks: engine requests are
//! fire-and-forget and results are picked up from published snapshots when their event
//! arrives.

pub mod action;
pub mod clipboard;
pub mod config;
pub mod editor;
pub mod highlight;
pub mod hints;
mod hits;
mod index;
pub mod input;
pub mod keymap;
mod layout;
mod map;
mod overlay;
mod preview;
mod query;
mod refs;
pub mod run;
mod status;
pub mod terminal;
pub mod views;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::layout::Rect;

use crate::engine::live::session::{
    EngineEvent, Generation, MapParams, MapSnapshot, SessionHandle,
};
use crate::ui::{LayoutSpec, Level, Pane, ViewModel, WhyView};
use action::Action;
use clipboard::Clipboard;
use config::Config;
use highlight::{HighlightWorker, Highlighted};
use hits::HitsState;
use index::IndexState;
use layout::LayoutState;
use map::MapState;
pub use map::{BUDGET_STEPS, TOKENIZERS};
use overlay::{OverlayKind, OverlayState};
use preview::PreviewState;
use query::QueryState;
use refs::RefsState;
use status::StatusState;
pub use status::MESSAGE_TTL;
use views::{Hit, Hits};

/// Where `$EDITOR` should open (the run loop suspends the TUI for it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorRequest {
    pub path: PathBuf,
    pub line: u32,
}

pub struct App {
    pub config: Config,
    engine: SessionHandle,
    /// The next request's number (one sequence for every kind of request).
    next_generation: Generation,
    clipboard: Clipboard,
    layout: LayoutState,
    query: QueryState,
    hits: HitsState,
    refs: RefsState,
    preview: PreviewState,
    map: MapState,
    overlay: OverlayState,
    index: IndexState,
    status: StatusState,
    /// Escape sequences (OSC 52) for the run loop to write to the terminal.
    terminal_output: Vec<String>,
    editor_request: Option<EditorRequest>,
    pub quit: bool,
    /// Something changed since the last frame.
    pub dirty: bool,
}

impl App {
    pub fn new(
        config: Config,
        engine: SessionHandle,
        highlighter: Option<HighlightWorker>,
        clipboard: Clipboard,
        repo_label: String,
        size: Rect,
    ) -> App {
        let params = MapParams {
            budget: config.budget,
            tokenizer: config.tokenizer.clone(),
            scope: config.scope.clone(),
            ..MapParams::default()
        };
        App {
            layout: LayoutState::new(config.map_width, size),
            overlay: OverlayState::new(hints::help(&config.keymap)),
            config,
            engine,
            next_generation: 1,
            clipboard,
            query: QueryState::default(),
            hits: HitsState::default(),
            refs: RefsState::default(),
            preview: PreviewState::new(highlighter),
            map: MapState::new(params),
            index: IndexState::new(),
            status: StatusState::new(repo_label),
            terminal_output: Vec::new(),
            editor_request: None,
            quit: false,
            dirty: true,
        }
    }

    /// The command line's start flags over the config's: budget and tokenizer, focus files
    /// and identifiers for the map, a query typed in the box (searched and steering the map
    /// as soon as the index is ready).
    pub fn apply_start(&mut self, start: run::Start) {
        let params = &mut self.map.params;
        if let Some(budget) = start.budget {
            params.budget = budget.clamp(config::MIN_BUDGET, config::MAX_BUDGET);
        }
        if let Some(kind) = start.tokenizer {
            // The short names the status bar shows and `t` cycles through.
            let short = kind.name().trim_end_matches("_base");
            params.tokenizer = TOKENIZERS
                .iter()
                .find(|t| **t == short)
                .map_or_else(|| short.to_string(), ToString::to_string);
        }
        params.focus.extend(start.focus);
        params.focus.sort();
        params.focus.dedup();
        params.idents = start.idents;
        self.hits.mark_focus(&self.map.params.focus);
        for warning in std::mem::take(&mut self.config.warnings) {
            self.set_message(warning, Level::Warning);
        }
        if let Some(query) = start.query.filter(|q| !q.trim().is_empty()) {
            self.update(Action::Paste(query));
        }
    }

    /// Starts indexing. The first frame can be drawn right away.
    pub fn start(&mut self) {
        self.request_build();
    }

    /// Snapshot tests: show ages and elapsed times as zero.
    pub fn freeze_clock(&mut self) {
        self.status.frozen_clock = true;
    }

    fn generation(&mut self) -> Generation {
        let g = self.next_generation;
        self.next_generation += 1;
        g
    }

    /// Fires debounced requests that are due. The run loop calls it when it wakes.
    pub fn tick(&mut self, now: Instant) {
        if self.status.expire_message(now) {
            self.dirty = true;
        }
        if self.hits.due.is_some_and(|d| d <= now) {
            self.request_search_now();
        }
        if self.map.due.is_some_and(|d| d <= now) {
            self.request_map_now();
        }
        if self.index.busy() && !self.status.frozen_clock {
            // The gauge shows elapsed time; the spinner turns.
            self.dirty = true;
        }
    }

    /// Fires every pending debounced request now (tests; and nothing is lost on quit).
    pub fn flush(&mut self) {
        if self.hits.due.is_some() {
            self.request_search_now();
        }
        if self.map.due.is_some() {
            self.request_map_now();
        }
    }

    /// When the run loop must wake up next even without input.
    pub fn next_deadline(&self) -> Option<Instant> {
        let mut d = [self.hits.due, self.map.due, self.status.message_expiry()]
            .into_iter()
            .flatten()
            .min();
        if self.index.busy() {
            // The gauge or the status bar's spinner moves.
            let tick = Instant::now() + Duration::from_millis(100);
            d = Some(d.map_or(tick, |x| x.min(tick)));
        } else if self.index.snapshot.is_some() {
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
            EngineEvent::Progress { phase, done, total } => self.on_progress(phase, done, total),
            EngineEvent::IndexReady { generation } => self.on_index_ready(generation),
            EngineEvent::IndexFailed { code, message, .. } => self.on_index_failed(code, message),
            EngineEvent::MapReady { .. } => self.on_map_ready(),
            EngineEvent::HitsReady { generation } => self.on_hits_ready(generation),
            EngineEvent::RefsReady { generation } => self.on_refs_ready(generation),
            EngineEvent::MarkdownReady {
                generation,
                text,
                tokens,
            } => self.on_markdown_ready(generation, &text, tokens),
            EngineEvent::WhyReady { generation, why } => self.on_why_ready(generation, &why),
            EngineEvent::Notice(text) => self.set_message(text, Level::Warning),
            EngineEvent::Watching(mode) => {
                self.set_live(Ok(()));
                self.set_watch_mode(mode);
            }
            EngineEvent::NotWatching(why) => self.set_live(Err(why)),
            EngineEvent::FilesChanged { paths, rescan } => self.on_files_changed(paths, rescan),
            EngineEvent::Failed { what, message } => self.on_engine_failed(what, &message),
        }
    }

    pub fn on_highlighted(&mut self, h: Highlighted) {
        if self.preview.on_highlighted(h) {
            self.dirty = true;
        }
    }

    /// The status-bar message (tests).
    pub fn message(&self) -> Option<&str> {
        self.status.message()
    }
    pub fn query(&self) -> &str {
        &self.query.text
    }
    pub fn focus(&self) -> Pane {
        self.layout.focus
    }
    pub fn map_snapshot(&self) -> Option<&Arc<MapSnapshot>> {
        self.map.snapshot()
    }
    pub fn hits_snapshot(&self) -> Option<&Arc<Hits>> {
        self.hits.list.as_ref()
    }
    pub fn params(&self) -> &MapParams {
        &self.map.params
    }
    pub fn layout_spec(&self) -> LayoutSpec {
        self.layout.spec
    }
    pub fn selected_hit(&self) -> Option<&Hit> {
        self.hits.selected_hit()
    }
    pub fn preview_path(&self) -> Option<&str> {
        self.preview.path()
    }
    pub fn why(&self) -> Option<&WhyView> {
        self.overlay.why()
    }
    pub fn selected_map_file(&self) -> Option<&str> {
        self.map.selected_file()
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
        self.overlay.is_open()
    }

    /// Keys are text: the query box has the focus (and no pop-up is over it), or the save
    /// prompt is open.
    pub fn typing(&self) -> bool {
        self.overlay.prompt.is_some()
            || (self.layout.focus == crate::ui::Pane::Query && !self.overlay.is_open())
    }

    /// Quit-time clean-up that must outlive the app (the clipboard hand-off).
    pub fn finish(&mut self, exe: &std::path::Path) {
        let _ = self.clipboard.handoff(exe);
    }

    /// Applies one user action: the feature it belongs to handles it.
    pub fn update(&mut self, action: Action) {
        self.dirty = true;
        // A message answers the last action: the next one clears it (a resize or a mouse
        // release is not the user doing something new).
        if !matches!(
            action,
            Action::Resize(..) | Action::Release | Action::Drag { .. }
        ) {
            self.status.clear_message();
        }
        if self.overlay.prompt.is_some() {
            self.on_prompt_action(action);
            return;
        }
        if self.overlay.is_open() && action == Action::SelectLast {
            let body = self.rects().body;
            if let Some(view) = self.overlay.view(self.map.cut()) {
                let end = crate::ui::overlay::max_scroll(body, &view, &self.config.theme);
                self.overlay.scroll_to(end);
            }
            return;
        }
        if self.overlay.is_open() && self.overlay.on_action(&action) {
            return;
        }
        if self.refs_open() {
            match action {
                Action::Back => {
                    self.refs_back();
                    return;
                }
                // A new search: the hits come back in the pane's place, the query box
                // keeps the focus.
                Action::FocusQuery
                | Action::ClearQuery
                | Action::InsertChar(_)
                | Action::Paste(_)
                | Action::DeleteBack
                | Action::DeleteWord => {
                    let typing = self.layout.focus == Pane::Query;
                    self.close_refs();
                    if typing {
                        self.layout.focus = Pane::Query;
                    }
                }
                _ => {}
            }
        }
        match action {
            Action::Quit => {
                // Debounced requests still waiting are not sent on the way out.
                self.hits.due = None;
                self.map.due = None;
                self.quit = true;
            }
            Action::Help => self.overlay.toggle(OverlayKind::Help),
            Action::Why => self.request_why(),
            Action::Cut => self.open_cut(),
            Action::References => self.open_refs(),
            Action::SelectNext => self.move_selection(1),
            Action::SelectPrev => self.move_selection(-1),
            Action::PageDown => self.page(1),
            Action::PageUp => self.page(-1),
            Action::SelectFirst => self.move_selection(isize::MIN / 2),
            Action::SelectLast => self.move_selection(isize::MAX / 2),
            Action::Confirm => self.confirm(),
            Action::BudgetUp
            | Action::BudgetDown
            | Action::CycleTokenizer
            | Action::ToggleFocusFile
            | Action::ExcludeFile
            | Action::ExcludeSymbol
            | Action::ClearSteering => self.steer(&action),
            Action::ToggleSignals => self.hits.show_signals = !self.hits.show_signals,
            Action::FocusQuery
            | Action::Back
            | Action::NextPane
            | Action::PrevPane
            | Action::ToggleMapFull
            | Action::MapWider
            | Action::MapNarrower
            | Action::Resize(..)
            | Action::Click { .. }
            | Action::Drag { .. }
            | Action::Release
            | Action::Scroll { .. } => self.on_layout_action(action),
            Action::OpenEditor => self.open_editor(),
            Action::CopyMap => self.copy_map(),
            Action::CopyMapMarkdown => self.copy_map_markdown(),
            Action::CopyCitation => self.copy_citation(),
            Action::CopyExcerpt => self.copy_excerpt(),
            Action::SaveMap => self.open_save_prompt(),
            Action::Reload => {
                self.set_message("re-indexing…", Level::Info);
                self.request_build();
            }
            Action::ClearQuery
            | Action::InsertChar(_)
            | Action::Paste(_)
            | Action::DeleteBack
            | Action::DeleteForward
            | Action::DeleteWord
            | Action::CursorLeft
            | Action::CursorRight
            | Action::CursorHome
            | Action::CursorEnd => self.edit_query(action),
        }
    }

    /// Moves within the focused pane: the hit selection, the preview's scroll, the map file.
    fn move_selection(&mut self, delta: isize) {
        match self.layout.focus {
            Pane::Query | Pane::Hits if self.refs_open() => self.move_refs_selection(delta),
            Pane::Query | Pane::Hits => self.move_hit_selection(delta),
            Pane::Preview => self.scroll_preview(delta),
            Pane::Map => self.move_map_selection(delta),
        }
    }

    fn page(&mut self, dir: isize) {
        match self.layout.focus {
            Pane::Query | Pane::Hits => {
                let rows = self.hits_visible_rows() as isize;
                self.move_selection(dir * rows.max(1));
            }
            Pane::Preview => {
                let h = self.preview_height() as isize;
                self.scroll_preview(dir * (h - 2).max(1));
            }
            Pane::Map => self.page_map(dir),
        }
    }

    /// Enter: from the query to the hits, from a hit to its source, from a map file to why
    /// it is in the map.
    fn confirm(&mut self) {
        match self.layout.focus {
            Pane::Query => self.layout.focus = Pane::Hits,
            // Into the use site the preview shows.
            Pane::Hits if self.refs_open() => {
                if self.refs_place().is_some() {
                    self.layout.focus = Pane::Preview;
                }
            }
            Pane::Hits => {
                self.preview_selected_hit();
                self.layout.focus = Pane::Preview;
            }
            Pane::Map => self.request_why(),
            Pane::Preview => {}
        }
    }

    fn open_editor(&mut self) {
        let target = match self.layout.focus {
            Pane::Hits if self.refs_open() => self.refs_place(),
            Pane::Map => self.map.selected_file().map(|p| (p.to_string(), 1)),
            Pane::Preview => self.preview.editor_target(),
            _ => self
                .hits
                .selected_hit()
                .map(|h| (h.row.path.clone(), h.row.start)),
        };
        let (Some((path, line)), Some(index)) = (target, &self.index.snapshot) else {
            self.set_message("select a hit first", Level::Warning);
            return;
        };
        // An extra source's file (`NAME:path`) opens under that source's root.
        let source_file = index.sources.iter().find_map(|(name, root)| {
            let rest = path.strip_prefix(name.as_str())?.strip_prefix(':')?;
            Some(root.join(rest))
        });
        self.editor_request = Some(EditorRequest {
            path: source_file.unwrap_or_else(|| PathBuf::from(&index.root).join(&path)),
            line: line.max(1),
        });
    }

    /// `path` names an extra source's file (`NAME:path`), not the project's.
    fn is_source_key(&self, path: &str) -> bool {
        self.index.snapshot.as_ref().is_some_and(|i| {
            i.sources.iter().any(|(name, _)| {
                path.strip_prefix(name.as_str())
                    .is_some_and(|rest| rest.starts_with(':'))
            })
        })
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

    /// The view model for one frame: each feature's view, the footer and the empty page.
    pub fn view(&self) -> ViewModel<'_> {
        let failed = self.index.failed();
        ViewModel {
            theme: &self.config.theme,
            focus: self.layout.focus,
            layout: self.layout_now(),
            query: self.query.view(self.hits.list.as_deref()),
            hits: self.hits_view(),
            refs: self.refs_view(),
            preview: self.preview_view(),
            map: self.map_view(),
            status: self.status_view(),
            progress: self.index.progress_view(self.status.frozen_clock),
            overlay: self.overlay.view(self.map.cut()),
            footer: if failed && !self.overlay.is_open() {
                hints::footer_empty(&self.config.keymap)
            } else if self.refs_open() && self.layout.focus == Pane::Hits && !self.overlay.is_open()
            {
                hints::footer_refs(&self.config.keymap)
            } else {
                hints::footer(
                    &self.config.keymap,
                    self.layout.focus,
                    self.overlay.is_open(),
                )
            },
            empty: self.index.empty_view(),
        }
    }
}
