//! The references pane's state: who uses a definition and what it uses, opened with a key
//! on a selected hit, a map file (its definitions the map shows) or the preview's line, in
//! the hits pane's place. A stack of views: a key on a use site follows it (to its caller's
//! or its callee's own callers and callees), Back returns to the view before, and from the
//! first to where the user was (focus, preview). The preview follows the selected use site;
//! Enter moves into it. Builds the `ui::refs` view model. Runs on the UI thread; the answer
//! comes from the engine session (`EngineRequest::Refs`, latest wins).

use super::views;
use super::App;
use crate::engine::index::refs::RefTarget;
use crate::engine::live::session::{EngineRequest, Generation};
use crate::ui::hits::{visible_offset, EvidenceBadge};
use crate::ui::{Level, Pane, RefsLine, RefsPaneView};

#[derive(Default)]
pub(super) struct RefsState {
    /// The views opened, the shown one last.
    stack: Vec<RefsEntry>,
    /// Where the first view was opened from, to go back to.
    origin: Option<Origin>,
}

/// Where the user was: the focused pane, the full-screen map, the file the preview showed.
struct Origin {
    focus: Pane,
    map_full: bool,
    preview: Option<(String, Option<(u32, u32)>)>,
}

/// One view: what was asked, and the answer once it is there.
struct RefsEntry {
    title: String,
    targets: Vec<RefTarget>,
    /// The request it answers; a newer one replaces it.
    generation: Generation,
    lines: Vec<RefsLine>,
    /// Per line: the use site's place, and what a key on it follows (`None` for headers).
    sites: Vec<Option<views::RefsSite>>,
    selected: Option<usize>,
    offset: usize,
    /// While there are no lines: looking up, or why there is no answer.
    note: String,
    /// Answered from an index older than the current one: asked again when shown again.
    stale: bool,
}

impl RefsState {
    pub fn is_open(&self) -> bool {
        !self.stack.is_empty()
    }

    fn top(&self) -> Option<&RefsEntry> {
        self.stack.last()
    }

    fn top_mut(&mut self) -> Option<&mut RefsEntry> {
        self.stack.last_mut()
    }

    /// The selected use site of the view shown.
    pub fn selected_site(&self) -> Option<&views::RefsSite> {
        let top = self.top()?;
        top.sites.get(top.selected?)?.as_ref()
    }

    /// Moves the selection by `delta` use sites (clamped), keeping it in `visible` rows;
    /// returns whether it moved.
    fn step(&mut self, delta: isize, visible: usize) -> bool {
        let Some(top) = self.top_mut() else {
            return false;
        };
        let uses: Vec<usize> = (0..top.sites.len())
            .filter(|&i| top.sites[i].is_some())
            .collect();
        let Some(last) = uses.len().checked_sub(1) else {
            return false;
        };
        let at = top
            .selected
            .and_then(|s| uses.iter().position(|&i| i == s))
            .unwrap_or(0);
        let next = (at as isize).saturating_add(delta).clamp(0, last as isize) as usize;
        let line = uses[next];
        if top.selected == Some(line) {
            return false;
        }
        top.selected = Some(line);
        // The definition's header and the section's title stay in view above the first use.
        let shown = if next == 0 { 0 } else { line };
        top.offset = visible_offset(top.offset, Some(shown), visible, top.lines.len());
        top.offset = visible_offset(top.offset, Some(line), visible, top.lines.len());
        true
    }

    /// Selects the use site drawn on `row` (from the first row in view); returns whether
    /// there is one.
    fn select_row(&mut self, row: usize, visible: usize) -> bool {
        let Some(top) = self.top_mut() else {
            return false;
        };
        let off = visible_offset(top.offset, top.selected, visible, top.lines.len());
        let i = off + row;
        if top.sites.get(i).is_some_and(Option::is_some) {
            top.offset = off;
            top.selected = Some(i);
            return true;
        }
        false
    }

    fn view(&self) -> Option<RefsPaneView<'_>> {
        let top = self.top()?;
        let uses = top.sites.iter().filter(|s| s.is_some()).count();
        let at = top.selected.map_or(0, |s| {
            top.sites[..=s].iter().filter(|x| x.is_some()).count()
        });
        let depth = if self.stack.len() > 1 {
            format!(" · {} deep", self.stack.len())
        } else {
            String::new()
        };
        Some(RefsPaneView {
            title: top.title.clone(),
            lines: &top.lines,
            selected: top.selected,
            offset: top.offset,
            note: &top.note,
            title_note: if uses > 0 {
                format!("{at}/{uses}{depth}")
            } else {
                depth.trim_start_matches(" · ").to_string()
            },
        })
    }
}

impl App {
    pub(super) fn refs_open(&self) -> bool {
        self.refs.is_open()
    }

    /// The references key: on a use site of the pane, follows it; elsewhere opens the pane
    /// for the selected hit's definition (or name), the map file's definitions the map
    /// shows, or the definition at the preview's line.
    pub(super) fn open_refs(&mut self) {
        if self.index.snapshot.is_none() {
            self.set_message("no index yet", Level::Warning);
            return;
        }
        let asked = if self.refs_open() && self.layout.focus == Pane::Hits {
            match self.refs.selected_site() {
                Some(site) => match &site.follow {
                    Some((title, target)) => Ok((title.clone(), vec![target.clone()])),
                    None => Err("a use at the top level of its file: no definition to follow"),
                },
                None => Err("select a use site first"),
            }
        } else {
            self.refs_targets()
        };
        let (title, targets) = match asked {
            Ok(asked) => asked,
            Err(why) => {
                self.set_message(why, Level::Warning);
                return;
            }
        };
        if self.refs.origin.is_none() {
            self.refs.origin = Some(Origin {
                focus: self.layout.focus,
                map_full: self.layout.spec.map_full,
                preview: self.preview.shown(),
            });
        }
        self.layout.spec.map_full = false;
        self.layout.focus = Pane::Hits;
        self.refs.stack.push(RefsEntry {
            title,
            targets,
            generation: 0,
            lines: Vec::new(),
            sites: Vec::new(),
            selected: None,
            offset: 0,
            note: "looking up who uses it and what it uses…".into(),
            stale: false,
        });
        self.request_refs();
    }

    /// What the references key asks for outside the pane: (title, targets).
    fn refs_targets(&self) -> Result<(String, Vec<RefTarget>), &'static str> {
        let at = |path: &str, line: u32| RefTarget::At {
            path: path.to_string(),
            line,
        };
        if self.layout.focus == Pane::Map || self.layout.spec.map_full {
            let Some(map) = self.map.snapshot() else {
                return Err("no map yet");
            };
            let Some(file) = map.files.get(self.map.selected_index()) else {
                return Err("select a map file first");
            };
            if file.def_lines.is_empty() {
                return Err("the map shows no definition of this file");
            }
            let n = file.def_lines.len();
            let title = if n == 1 {
                file.path.clone()
            } else {
                format!("{} ({n} definitions)", file.path)
            };
            let targets = file.def_lines.iter().map(|&l| at(&file.path, l)).collect();
            return Ok((title, targets));
        }
        if self.layout.focus == Pane::Preview {
            return match self.preview.editor_target() {
                Some((path, _)) if self.is_source_key(&path) => {
                    Err("an extra source's file is not the project's")
                }
                Some((path, line)) => Ok((format!("{path}:{line}"), vec![at(&path, line)])),
                None => Err("nothing in the preview"),
            };
        }
        let Some(hit) = self.hits.selected_hit() else {
            return Err("select a hit first");
        };
        if hit.source.is_some() {
            return Err("an extra source's hit is not the project's");
        }
        match hit.row.evidence {
            EvidenceBadge::Definition => Ok((
                hit.row.symbol.clone(),
                vec![at(&hit.row.path, hit.row.start)],
            )),
            EvidenceBadge::Text => Err("a text hit names no definition"),
            _ if hit.row.symbol.is_empty() => Err("select a hit with a symbol first"),
            _ => Ok((
                hit.row.symbol.clone(),
                vec![RefTarget::Name {
                    path: None,
                    name: hit.row.symbol.clone(),
                }],
            )),
        }
    }

    /// A new index: the shown view is asked again at once, the ones under it when Back
    /// shows them again.
    pub(super) fn refs_on_new_index(&mut self) {
        for entry in &mut self.refs.stack {
            entry.stale = true;
        }
        self.request_refs();
    }

    /// Asks for the shown view's answer (again, after a new index).
    pub(super) fn request_refs(&mut self) {
        let Some(targets) = self.refs.top().map(|t| t.targets.clone()) else {
            return;
        };
        let g = self.generation();
        if let Some(top) = self.refs.top_mut() {
            top.generation = g;
            top.stale = false;
        }
        self.engine.send(EngineRequest::Refs {
            generation: g,
            targets,
        });
        self.pump();
    }

    /// The session published an answer: the shown view takes it if it is the one asked.
    pub(super) fn on_refs_ready(&mut self, generation: Generation) {
        let Some(snap) = self.engine.published.refs.load_full() else {
            return;
        };
        let Some(top) = self.refs.top_mut() else {
            return;
        };
        if generation != top.generation || snap.generation != top.generation {
            return;
        }
        let again = !top.lines.is_empty();
        let kept = top.selected;
        match &snap.answer {
            Ok(answer) => {
                let (lines, sites) = views::refs_lines(answer);
                top.lines = lines;
                top.sites = sites;
                top.note = "nothing uses it, and it uses nothing of the repository".into();
            }
            Err(e) => {
                top.lines = Vec::new();
                top.sites = Vec::new();
                top.note = format!("{}: {e}", e.code());
            }
        }
        // A refreshed answer keeps the selection where it was, if it is still a use.
        top.selected = kept
            .filter(|&s| again && top.sites.get(s).is_some_and(Option::is_some))
            .or_else(|| top.sites.iter().position(Option::is_some));
        if top.selected.is_none() {
            top.offset = 0;
        }
        self.preview_selected_site();
    }

    pub(super) fn move_refs_selection(&mut self, delta: isize) {
        let visible = self.refs_visible_rows();
        if self.refs.step(delta, visible) {
            self.preview_selected_site();
        }
    }

    pub(super) fn click_refs_row(&mut self, row: usize) {
        let visible = self.refs_visible_rows();
        if self.refs.select_row(row, visible) {
            self.preview_selected_site();
        }
    }

    fn refs_visible_rows(&self) -> usize {
        self.rects()
            .hits
            .map_or(10, |r| r.height.saturating_sub(2) as usize)
            .max(1)
    }

    /// Shows the selected use site in the preview, its line marked.
    fn preview_selected_site(&mut self) {
        if let Some(site) = self.refs.selected_site() {
            let (path, line) = (site.path.clone(), site.line);
            self.open_preview(&path, Some((line, line)));
        }
    }

    /// Back with the pane open: out of the full-screen map, from the preview (or the query
    /// box) to the pane, else to the view before, and from the first one to where the user
    /// was.
    pub(super) fn refs_back(&mut self) {
        if self.layout.spec.map_full {
            self.layout.spec.map_full = false;
            return;
        }
        if matches!(self.layout.focus, Pane::Preview | Pane::Query) {
            self.layout.focus = Pane::Hits;
            return;
        }
        self.refs.stack.pop();
        if self.refs.is_open() {
            self.preview_selected_site();
            if self.refs.top().is_some_and(|t| t.stale) {
                self.request_refs();
            }
            return;
        }
        self.close_refs();
    }

    /// Closes every view and goes back to where the first was opened from.
    pub(super) fn close_refs(&mut self) {
        self.refs.stack.clear();
        let Some(origin) = self.refs.origin.take() else {
            return;
        };
        self.layout.focus = origin.focus;
        self.layout.spec.map_full = origin.map_full;
        match origin.preview {
            Some((path, mark)) => self.open_preview(&path, mark),
            None => self.preview.close(),
        }
    }

    /// The selected use site, as `(path, line)` for the verbs that act on a place.
    pub(super) fn refs_place(&self) -> Option<(String, u32)> {
        (self.refs_open() && self.layout.focus == Pane::Hits)
            .then(|| self.refs.selected_site())
            .flatten()
            .map(|s| (s.path.clone(), s.line))
    }

    pub(super) fn refs_view(&self) -> Option<RefsPaneView<'_>> {
        self.refs.view()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::RefsRow;

    fn entry(lines: usize) -> RefsEntry {
        let mut e = RefsEntry {
            title: "x".into(),
            targets: Vec::new(),
            generation: 1,
            lines: Vec::new(),
            sites: Vec::new(),
            selected: None,
            offset: 0,
            note: String::new(),
            stale: false,
        };
        e.lines.push(RefsLine::Section("callers".into()));
        e.sites.push(None);
        for i in 0..lines {
            e.lines.push(RefsLine::Use(RefsRow {
                badge: EvidenceBadge::Call,
                kind: "call",
                path: format!("f{i}.py"),
                line: 1,
                what: String::new(),
                binding: String::new(),
                ambiguous: false,
                test: false,
            }));
            e.sites.push(Some(views::RefsSite {
                path: format!("f{i}.py"),
                line: 1,
                follow: None,
            }));
        }
        e.selected = Some(1);
        e
    }

    #[test]
    fn the_selection_moves_over_use_sites_only_and_stops_at_the_ends() {
        let mut r = RefsState::default();
        assert!(!r.step(1, 5), "nothing open");
        r.stack.push(entry(3));
        assert!(!r.step(-1, 5), "already at the first use");
        assert!(r.step(1, 5));
        assert_eq!(r.selected_site().map(|s| s.path.as_str()), Some("f1.py"));
        assert!(r.step(10, 5));
        assert_eq!(r.selected_site().map(|s| s.path.as_str()), Some("f2.py"));
        assert!(!r.select_row(0, 5), "a section title is not a use");
        assert!(r.select_row(1, 5));
        assert_eq!(r.selected_site().map(|s| s.path.as_str()), Some("f0.py"));
        assert_eq!(r.view().map(|v| v.title_note), Some("1/3".to_string()));
    }
}
