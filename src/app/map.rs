//! The map pane's state: what shapes the map (budget, tokenizer, focus files, exclusions:
//! the steering verbs change them), the map request in flight (debounced while typing), the
//! map shown with its selected file and scroll, and the map copies. Builds the `ui::map`
//! view model. Runs on the UI thread; the map is fitted in the engine session.

use std::sync::Arc;
use std::time::Instant;

use super::action::Action;
use super::config::{MAX_BUDGET, MIN_BUDGET};
use super::{views, App};
use crate::engine::live::session::{EngineRequest, Generation, MapParams, MapSnapshot};
use crate::ui::{self, CutView, Level, MapPaneView, Pane};

/// The budget ladder `+`/`-` walk (tokens), over the range every door takes
/// (`contract::MAP_TOKENS`, 16 … 131072): powers of two with a step between from 512 on.
pub const BUDGET_STEPS: &[usize] = &[
    16, 32, 64, 128, 256, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576,
    32768, 49152, 65536, 98304, 131_072,
];
pub const TOKENIZERS: &[&str] = &["o200k", "cl100k"];

pub(super) struct MapState {
    /// What the next map request asks for (its `query` is the query box's text).
    pub params: MapParams,
    /// The newest map request; the map shown is updating while it is older.
    pub requested: Generation,
    /// When the map for the text being typed is asked for (debounce).
    pub due: Option<Instant>,
    /// The markdown copy asked for (its answer is copied when it arrives).
    markdown_requested: Generation,
    shown: Option<ShownMap>,
    /// The selected file (an index into the map's files).
    selected: usize,
    /// The first line in view.
    scroll: usize,
}

/// A published map and what is drawn from it.
struct ShownMap {
    snapshot: Arc<MapSnapshot>,
    /// The cut overlay's rows.
    cut: CutView,
    /// The map's text, sanitized for the terminal, one entry per line.
    lines: Vec<String>,
    /// The line of each file's header.
    headers: Vec<usize>,
    /// The header lines of the files shown by their path alone, ascending.
    path_only: Vec<usize>,
}

impl MapState {
    pub fn new(params: MapParams) -> MapState {
        MapState {
            params,
            requested: 0,
            due: None,
            markdown_requested: 0,
            shown: None,
            selected: 0,
            scroll: 0,
        }
    }

    pub fn snapshot(&self) -> Option<&Arc<MapSnapshot>> {
        self.shown.as_ref().map(|s| &s.snapshot)
    }

    pub fn cut(&self) -> Option<&CutView> {
        self.shown.as_ref().map(|s| &s.cut)
    }

    /// The selected file's index into the map's files.
    pub fn selected_index(&self) -> usize {
        self.selected
    }

    pub fn selected_file(&self) -> Option<&str> {
        self.snapshot()?
            .files
            .get(self.selected)
            .map(|f| f.path.as_str())
    }

    fn lines(&self) -> &[String] {
        self.shown.as_ref().map_or(&[], |s| &s.lines)
    }

    fn headers(&self) -> &[usize] {
        self.shown.as_ref().map_or(&[], |s| &s.headers)
    }

    fn path_only(&self) -> &[usize] {
        self.shown.as_ref().map_or(&[], |s| &s.path_only)
    }

    /// Shows `m`, keeping the selected file selected if it is still in the map, unless `m`
    /// answers another query: a query's map is a new reading order (its pinned files at the
    /// top), shown from its first file. Following the selection would scroll the pane to
    /// wherever that file moved, often the bottom, after a pasted query.
    fn show(&mut self, m: Arc<MapSnapshot>) {
        let same_query = self
            .snapshot()
            .is_some_and(|old| old.params.query == m.params.query);
        if !same_query {
            self.scroll = 0;
        }
        let selected_path = self
            .selected_file()
            .filter(|_| same_query)
            .map(str::to_string);
        self.selected = selected_path
            .and_then(|p| m.files.iter().position(|f| f.path == p))
            .unwrap_or(0);
        self.shown = Some(ShownMap {
            cut: views::cut_view(&m),
            lines: ui::text::sanitize_lines(&m.text),
            headers: m.files.iter().map(|f| f.header_line).collect(),
            path_only: path_only_lines(&m),
            snapshot: m,
        });
    }

    /// Moves the selected file by `delta` (clamped); returns whether there is a map.
    fn step(&mut self, delta: isize) -> bool {
        let n = self.snapshot().map_or(0, |m| m.files.len());
        if n == 0 {
            return false;
        }
        self.selected = (self.selected as isize)
            .saturating_add(delta)
            .clamp(0, n as isize - 1) as usize;
        true
    }

    /// Selects the file whose section holds the line drawn on `row` (counted from the
    /// first line in view).
    pub fn select_row(&mut self, row: usize) {
        let line = self.scroll + row;
        if let Some(i) = self.headers().iter().rposition(|h| *h <= line) {
            self.selected = i;
        }
    }

    fn scroll(&mut self, delta: isize, height: usize) {
        let max = self.lines().len().saturating_sub(height);
        self.scroll = (self.scroll as isize)
            .saturating_add(delta)
            .clamp(0, max as isize) as usize;
    }

    /// Selects the first file whose header is in view.
    fn select_first_in_view(&mut self) {
        if let Some(i) = self.headers().iter().position(|l| *l >= self.scroll) {
            self.selected = i;
        }
    }

    /// Scrolls so the selected file's header is in `height` lines.
    fn reveal(&mut self, height: usize) {
        if let Some(&line) = self.headers().get(self.selected) {
            if line < self.scroll || line >= self.scroll + height {
                self.scroll = line;
            }
        }
        let max = self.lines().len().saturating_sub(height);
        self.scroll = self.scroll.min(max);
    }

    /// The next budget on the ladder up or down (`None`: already at the end).
    fn next_budget(&self, up: bool) -> Option<usize> {
        let b = self.params.budget;
        let next = if up {
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
        (next != b).then_some(next)
    }

    fn title(&self) -> String {
        match self.snapshot() {
            Some(m) => format!(
                "{}/{} tokens · {} · {}",
                m.tokens,
                m.params.budget,
                m.params.tokenizer,
                crate::ui::text::count(m.files.len(), "file", "files")
            ),
            None => format!("budget {} · {}", self.params.budget, self.params.tokenizer),
        }
    }

    fn view<'a>(&'a self, note: &'a str) -> MapPaneView<'a> {
        MapPaneView {
            lines: self.lines(),
            headers: self.headers(),
            path_only: self.path_only(),
            selected: self.headers().get(self.selected).copied(),
            scroll: self.scroll,
            title_note: self.title(),
            note,
            updating: self
                .snapshot()
                .is_some_and(|m| m.generation < self.requested)
                || self.due.is_some(),
        }
    }
}

/// The header lines of `m`'s path-only files, ascending (headers are in map order).
fn path_only_lines(m: &MapSnapshot) -> Vec<usize> {
    let mut lines: Vec<usize> = m
        .files
        .iter()
        .filter(|f| f.path_only)
        .map(|f| f.header_line)
        .collect();
    lines.sort_unstable();
    lines
}

impl App {
    pub(super) fn request_map_now(&mut self) {
        self.map.due = None;
        if self.index.snapshot.is_none() {
            return;
        }
        let g = self.generation();
        self.map.requested = g;
        self.map.params.query = self.query.text.clone();
        self.engine.send(EngineRequest::Map {
            generation: g,
            params: self.map.params.clone(),
        });
        self.dirty = true;
        self.pump();
    }

    pub(super) fn on_map_ready(&mut self) {
        if let Some(m) = self.engine.published.map.load_full() {
            self.map.show(m);
            self.reveal_map_selection();
        }
    }

    /// The verbs that shape the map: budget, tokenizer, focus files and exclusions.
    pub(super) fn steer(&mut self, action: &Action) {
        match action {
            Action::BudgetUp | Action::BudgetDown => {
                if let Some(next) = self.map.next_budget(*action == Action::BudgetUp) {
                    self.map.params.budget = next;
                    self.set_message(format!("budget {next} tokens"), Level::Info);
                    self.request_map_now();
                }
            }
            Action::CycleTokenizer => {
                let params = &mut self.map.params;
                let i = TOKENIZERS
                    .iter()
                    .position(|t| *t == params.tokenizer)
                    .unwrap_or(0);
                params.tokenizer = TOKENIZERS[(i + 1) % TOKENIZERS.len()].to_string();
                let text = format!("tokenizer {}", params.tokenizer);
                self.set_message(text, Level::Info);
                self.request_map_now();
            }
            Action::ToggleFocusFile => {
                if let Some(path) = self.target_file() {
                    let on = toggle(&mut self.map.params.focus, &path);
                    self.set_message(
                        format!("{} focus file {path}", if on { "added" } else { "removed" }),
                        Level::Info,
                    );
                    self.hits.mark_focus(&self.map.params.focus);
                    self.request_map_now();
                } else {
                    self.set_message("select a hit or a map file first", Level::Warning);
                }
            }
            Action::ExcludeFile => {
                if let Some(path) = self.target_file() {
                    let on = toggle(&mut self.map.params.exclude_files, &path);
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
                    .hits
                    .selected_hit()
                    .filter(|h| h.row.evidence != crate::ui::hits::EvidenceBadge::Text)
                    .map(|h| h.row.symbol.clone())
                    .filter(|s| !s.is_empty());
                if let Some(sym) = symbol {
                    let on = toggle(&mut self.map.params.exclude_symbols, &sym);
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
                let params = &mut self.map.params;
                params.focus.clear();
                params.exclude_files.clear();
                params.exclude_symbols.clear();
                self.hits.mark_focus(&self.map.params.focus);
                self.set_message("focus files and exclusions cleared", Level::Info);
                self.request_map_now();
            }
            _ => {}
        }
    }

    /// The file a file-level command acts on: the selected map file when the map has the
    /// focus, else the selected hit's file (or the file shown).
    pub(super) fn target_file(&self) -> Option<String> {
        if let Some((path, _)) = self.refs_place() {
            return Some(path);
        }
        if self.layout.focus == Pane::Map || self.layout.spec.map_full {
            self.map.selected_file().map(str::to_string)
        } else {
            // An extra source's file is not the project's: it cannot steer the map.
            match self.hits.selected_hit() {
                Some(h) if h.source.is_some() => None,
                Some(h) => Some(h.row.path.clone()),
                None => self
                    .preview
                    .path()
                    .filter(|p| !self.is_source_key(p))
                    .map(str::to_string),
            }
        }
    }

    pub(super) fn copy_map(&mut self) {
        let Some(m) = self.map.snapshot().cloned() else {
            self.set_message("no map yet", Level::Warning);
            return;
        };
        self.copy(&m.text, &format!("map ({} tokens)", m.tokens));
    }

    pub(super) fn copy_map_markdown(&mut self) {
        if self.map.snapshot().is_none() {
            self.set_message("no map yet", Level::Warning);
            return;
        }
        // The markdown is fitted to the budget as markdown (its fences cost tokens),
        // by the engine, on demand; the copy goes out when it answers.
        self.map.params.query = self.query.text.clone();
        let g = self.generation();
        self.map.markdown_requested = g;
        self.engine.send(EngineRequest::Markdown {
            generation: g,
            params: self.map.params.clone(),
        });
        self.pump();
    }

    pub(super) fn on_markdown_ready(&mut self, generation: Generation, text: &str, tokens: usize) {
        if generation == self.map.markdown_requested {
            self.copy(text, &format!("map as markdown ({tokens} tokens)"));
        }
    }

    /// `S`: asks where to save the map shown, offering a path outside the repository (the
    /// current directory when it is not inside the repository, else the home directory,
    /// else the temporary directory). mapscope writes into the repository only when the
    /// user types a path there.
    pub(super) fn open_save_prompt(&mut self) {
        let (Some(m), Some(index)) = (self.map.snapshot(), &self.index.snapshot) else {
            self.set_message("no map yet", Level::Warning);
            return;
        };
        let name = format!(
            "{}-map-{}.txt",
            file_name_part(self.status.repo_label()),
            m.params.budget
        );
        let text = default_save_path(std::path::Path::new(&index.root), &name);
        let mut input = super::query::QueryState { text, cursor: 0 };
        input.cursor_to_end();
        self.overlay.prompt = Some(super::overlay::Prompt {
            input,
            replace: None,
        });
    }

    /// A key while the save prompt is open: editing, Enter (save), Esc (cancel).
    pub(super) fn on_prompt_action(&mut self, action: Action) {
        let Some(prompt) = &mut self.overlay.prompt else {
            return;
        };
        match action {
            Action::Back => self.overlay.prompt = None,
            Action::Quit => {
                self.overlay.prompt = None;
                self.update(Action::Quit);
            }
            Action::Confirm => {
                let typed = prompt.input.text.trim().to_string();
                let path = expand_path(&typed);
                if typed.is_empty() {
                    self.set_message("type a path to save the map to", Level::Warning);
                } else if path.exists() && prompt.replace.as_ref() != Some(&path) {
                    // Enter again on the same path replaces the file.
                    prompt.replace = Some(path);
                } else {
                    self.overlay.prompt = None;
                    self.save_map_to(&typed, &path);
                }
            }
            Action::Resize(..) => self.on_layout_action(action),
            edit => {
                if prompt.input.edit(edit) {
                    prompt.replace = None;
                }
            }
        }
    }

    /// Writes the map shown (its exact text, as `y` copies it) to `path`.
    fn save_map_to(&mut self, typed: &str, path: &std::path::Path) {
        let Some(m) = self.map.snapshot().cloned() else {
            self.set_message("no map yet", Level::Warning);
            return;
        };
        let shown = crate::ui::text::sanitize_line(typed);
        match std::fs::write(path, m.text.as_bytes()) {
            Ok(()) => self.set_message(
                format!("saved the map ({} tokens) to {shown}", m.tokens),
                Level::Ok,
            ),
            Err(e) => self.set_message(format!("could not save to {shown}: {e}"), Level::Error),
        }
    }

    pub(super) fn move_map_selection(&mut self, delta: isize) {
        if self.map.step(delta) {
            self.reveal_map_selection();
        }
    }

    pub(super) fn scroll_map(&mut self, delta: isize) {
        let height = self.map_height();
        self.map.scroll(delta, height);
    }

    /// One page down or up, selecting the first file in view.
    pub(super) fn page_map(&mut self, dir: isize) {
        let h = self.map_height() as isize;
        self.scroll_map(dir * (h - 2).max(1));
        self.map.select_first_in_view();
    }

    pub(super) fn reveal_map_selection(&mut self) {
        let height = self.map_height();
        self.map.reveal(height);
    }

    /// The map pane, with a note saying why it is empty when it is.
    pub(super) fn map_view(&self) -> MapPaneView<'_> {
        let note = if let Some((_, e)) = &self.index.error {
            e.as_str()
        } else if self.index.snapshot.is_none() {
            "building the index…"
        } else {
            "fitting the map…"
        };
        self.map.view(note)
    }
}

/// The repository's name as a file-name part (letters, digits, `-`, `_`, `.` kept).
fn file_name_part(label: &str) -> String {
    let name: String = label
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if name.trim_matches(['-', '.']).is_empty() {
        "repo".to_string()
    } else {
        name
    }
}

/// Where the save prompt proposes to write `name`: never inside the repository at `root`.
fn default_save_path(root: &std::path::Path, name: &str) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let outside = |dir: &std::path::Path| {
        dir.canonicalize()
            .is_ok_and(|d| !d.starts_with(&root) && !d.as_os_str().is_empty())
    };
    if let Ok(cwd) = std::env::current_dir() {
        if outside(&cwd) {
            return format!("./{name}");
        }
    }
    if dirs::home_dir().is_some_and(|h| outside(&h)) {
        return format!("~/{name}");
    }
    std::env::temp_dir().join(name).display().to_string()
}

/// A typed path: `~/…` under the home directory, anything else as written (relative to the
/// directory mapscope was started in).
fn expand_path(typed: &str) -> std::path::PathBuf {
    match (typed.strip_prefix("~/"), dirs::home_dir()) {
        (Some(rest), Some(home)) => home.join(rest),
        _ => std::path::PathBuf::from(typed),
    }
}

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

    /// A map of `files` files of `len` lines each (a header line, then its signatures).
    fn map_of(files: usize, len: usize) -> Arc<MapSnapshot> {
        let text: String = (0..files * len).map(|i| format!("line {i}\n")).collect();
        Arc::new(MapSnapshot {
            generation: 1,
            params: MapParams::default(),
            text,
            tokens: 0,
            files: (0..files)
                .map(|i| crate::engine::live::session::MapFile {
                    path: format!("f{i}.rs"),
                    rank: 0.0,
                    tokens: 0,
                    header_line: i * len,
                    def_lines: Vec::new(),
                    path_only: false,
                })
                .collect(),
            budget: 0,
            cut: Vec::new(),
            fit_ms: 0.0,
        })
    }

    #[test]
    fn a_new_map_keeps_the_selected_file_selected() {
        let mut m = MapState::new(MapParams::default());
        m.show(map_of(3, 4));
        assert!(m.step(2));
        assert_eq!(m.selected_file(), Some("f2.rs"));
        m.show(map_of(5, 4));
        assert_eq!(m.selected_file(), Some("f2.rs"));
        m.show(map_of(1, 4));
        assert_eq!(
            m.selected_file(),
            Some("f0.rs"),
            "gone: back to the first file"
        );
    }

    #[test]
    fn the_save_prompt_never_offers_a_path_inside_the_repository() {
        let cwd = std::env::current_dir().unwrap();
        // Started inside the repository: the home directory (or the temporary one).
        let inside = default_save_path(&cwd, "r-map-1024.txt");
        assert!(!inside.starts_with("./"), "{inside}");
        assert!(!expand_path(&inside).starts_with(&cwd), "{inside}");
        // Started outside it: the current directory.
        let other = tempfile::tempdir().unwrap();
        assert_eq!(
            default_save_path(other.path(), "r-map-1024.txt"),
            "./r-map-1024.txt"
        );
        assert_eq!(file_name_part("my repo/x"), "my-repo-x");
        assert_eq!(file_name_part("../"), "repo");
    }

    #[test]
    fn a_map_for_another_query_starts_at_its_first_file() {
        let mut m = MapState::new(MapParams::default());
        m.show(map_of(6, 10));
        assert!(m.step(5));
        m.reveal(5);
        assert!(m.scroll > 0);
        let mut other = (*map_of(6, 10)).clone();
        other.params.query = "route fallback".into();
        m.show(Arc::new(other));
        assert_eq!(
            (m.selected, m.scroll),
            (0, 0),
            "a new query's map from its top"
        );
    }

    #[test]
    fn selection_scrolls_into_view_and_clicks_select_the_section() {
        let mut m = MapState::new(MapParams::default());
        assert!(!m.step(1), "no map, nothing to select");
        m.show(map_of(4, 10));
        assert!(m.step(isize::MAX / 2));
        m.reveal(5);
        assert_eq!((m.selected, m.scroll), (3, 30));
        m.scroll(-100, 5);
        assert_eq!(m.scroll, 0);
        m.select_row(14);
        assert_eq!(m.selected_file(), Some("f1.rs"));
        m.scroll(100, 5);
        assert_eq!(m.scroll, 35, "never past the last screenful");
        m.select_first_in_view();
        assert_eq!(
            m.selected_file(),
            Some("f1.rs"),
            "no header in view: it stays"
        );
        m.scroll(-8, 5);
        m.select_first_in_view();
        assert_eq!(m.selected_file(), Some("f3.rs"));
    }

    #[test]
    fn the_budget_ladder_stops_at_its_ends() {
        let mut m = MapState::new(MapParams {
            budget: 300,
            ..MapParams::default()
        });
        assert_eq!(m.next_budget(true), Some(512));
        assert_eq!(m.next_budget(false), Some(256));
        m.params.budget = MIN_BUDGET;
        assert_eq!(m.next_budget(false), None);
    }
}
