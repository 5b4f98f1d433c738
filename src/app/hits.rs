//! The hits pane's state: the newest query's hits, the selection and scroll offset, whether
//! the score's signals show, and the search request in flight (debounced while typing).
//! Handles the verbs on a hit (move, copy its citation or code) and builds the `ui::hits`
//! view model. Runs on the UI thread; the search itself runs in the engine session.

use std::sync::Arc;
use std::time::Instant;

use super::views::{Hit, Hits};
use super::App;
use crate::engine::live::session::{EngineRequest, Generation};
use crate::ui::hits::visible_offset;
use crate::ui::{HitsView, Level, Pane};

#[derive(Default)]
pub(super) struct HitsState {
    /// The shown query's hits; `None` before its answer and for an empty query.
    pub list: Option<Arc<Hits>>,
    pub selected: usize,
    /// The first row in view.
    pub offset: usize,
    pub show_signals: bool,
    /// The newest search request; an answer to an older one is stale.
    pub requested: Generation,
    /// When the search for the text being typed goes out (debounce).
    pub due: Option<Instant>,
}

impl HitsState {
    pub fn count(&self) -> usize {
        self.list.as_ref().map_or(0, |h| h.hits.len())
    }

    pub fn selected_hit(&self) -> Option<&Hit> {
        self.list.as_ref()?.hits.get(self.selected)
    }

    /// Shows `list` with the first hit selected (`None`: no hits).
    fn show(&mut self, list: Option<Arc<Hits>>) {
        self.list = list;
        self.selected = 0;
        self.offset = 0;
    }

    /// Marks the hits in a focus file (the focus files changed, or new hits arrived).
    pub fn mark_focus(&mut self, focus: &[String]) {
        if let Some(h) = &self.list {
            let mut snap = (**h).clone();
            for hit in &mut snap.hits {
                hit.row.focus = focus.contains(&hit.row.path);
            }
            self.list = Some(Arc::new(snap));
        }
    }

    /// Moves the selection by `delta` (clamped), keeping it in view in `visible` rows;
    /// returns whether it moved.
    fn step(&mut self, delta: isize, visible: usize) -> bool {
        let n = self.count();
        if n == 0 {
            return false;
        }
        let next = (self.selected as isize)
            .saturating_add(delta)
            .clamp(0, n as isize - 1) as usize;
        if next == self.selected {
            return false;
        }
        self.selected = next;
        self.offset = visible_offset(self.offset, Some(next), visible, n);
        true
    }

    /// Selects the hit drawn on `row` (counted from the first row in view); returns
    /// whether a hit is there.
    pub fn select_row(&mut self, row: usize, visible: usize) -> bool {
        let n = self.count();
        let off = visible_offset(self.offset, Some(self.selected), visible, n);
        let i = off + row;
        if i >= n {
            return false;
        }
        self.offset = off;
        self.selected = i;
        true
    }

    fn title(&self) -> String {
        match &self.list {
            // Weak hits are still listed (what a partial query meant is often among them),
            // and the title says so, as the CLI's "no confident hits … the nearest:" does.
            Some(h) if !h.hits.is_empty() => format!(
                "{}/{}{}",
                self.selected + 1,
                h.hits.len(),
                if h.low_score {
                    " · low confidence"
                } else {
                    ""
                }
            ),
            _ => String::new(),
        }
    }

    fn view<'a>(&'a self, note: &'a str) -> HitsView<'a> {
        HitsView {
            rows: self
                .list
                .as_ref()
                .map(|h| h.hits.iter().map(|h| &h.row).collect())
                .unwrap_or_default(),
            selected: if self.count() > 0 {
                Some(self.selected)
            } else {
                None
            },
            offset: self.offset,
            show_signals: self.show_signals,
            note,
            title_note: self.title(),
            answer: self.list.as_ref().map_or("", |h| h.answer.as_str()),
        }
    }
}

impl App {
    pub(super) fn request_search_now(&mut self) {
        self.hits.due = None;
        if self.index.snapshot.is_none() {
            return;
        }
        let g = self.generation();
        self.hits.requested = g;
        if self.query.text.trim().is_empty() {
            self.hits.show(None);
            // Nothing to follow: a narrow terminal gives the lower slot back to the map.
            self.preview.close();
            self.dirty = true;
            return;
        }
        self.engine.send(EngineRequest::Search {
            generation: g,
            query: self.query.text.clone(),
        });
        self.pump();
    }

    /// The session published hits: show them unless a newer search is on its way.
    pub(super) fn on_hits_ready(&mut self, generation: Generation) {
        if generation < self.hits.requested || self.query.text.trim().is_empty() {
            return;
        }
        let Some(h) = self.engine.published.hits.load_full() else {
            return;
        };
        if h.generation < self.hits.requested {
            return;
        }
        self.hits.show(Some(Arc::new(Hits::from_snapshot(&h))));
        if !self.map.params.focus.is_empty() {
            self.hits.mark_focus(&self.map.params.focus);
        }
        if self.hits.count() == 0 {
            self.preview.close();
        }
        self.preview_selected_hit();
    }

    pub(super) fn move_hit_selection(&mut self, delta: isize) {
        let visible = self.hits_visible_rows();
        if self.hits.step(delta, visible) {
            self.preview_selected_hit();
        }
    }

    pub(super) fn copy_citation(&mut self) {
        // In the references pane: the selected use site's `path:line`.
        let cited = match self.refs_place() {
            Some((path, line)) => Some(format!("{path}:{line}")),
            None => self.hits.selected_hit().map(|h| h.row.location()),
        };
        match cited {
            Some(c) => {
                let what = format!("citation {c}");
                self.copy(&c, &what);
            }
            None => self.set_message("select a hit first", Level::Warning),
        }
    }

    pub(super) fn copy_excerpt(&mut self) {
        match self.hit_source() {
            Some(e) => {
                let n = e.lines().count();
                let what = format!("{n} line{} of code", if n == 1 { "" } else { "s" });
                self.copy(&e, &what);
            }
            None => self.set_message("select a hit first", Level::Warning),
        }
    }

    /// The selected hit's whole line range from the indexed file (what `C` copies); the
    /// search excerpt when the file's text is not at hand. In the references pane, the
    /// selected use site's line.
    fn hit_source(&self) -> Option<String> {
        // In the references pane: the selected use site's line.
        if let Some((path, line)) = self.refs_place() {
            let text = self.index.snapshot.as_ref()?.texts.get(&path)?;
            let at = (line.max(1) - 1) as usize;
            return text.lines().nth(at).map(str::to_string);
        }
        let hit = self.hits.selected_hit()?;
        let Some(text) = self.file_text(&hit.row.path) else {
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

    /// The hits pane, with a note saying why it is empty when it is.
    pub(super) fn hits_view(&self) -> HitsView<'_> {
        let note = if let Some((_, e)) = &self.index.error {
            e.as_str()
        } else if self.index.snapshot.is_none() {
            "indexing…"
        } else if self.query.text.trim().is_empty() {
            if self.layout.focus == Pane::Query {
                "type a symbol, a path or words: hits appear as you type"
            } else {
                "press / to search: a symbol, a path or words"
            }
        } else if self.hits.due.is_some() || self.hits.list.is_none() {
            "searching…"
        } else if self.hits.list.as_ref().is_some_and(|h| h.low_score) {
            "no confident hits"
        } else {
            "no hits"
        };
        self.hits.view(note)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::{EvidenceBadge, HitRow};

    fn hits(n: usize) -> HitsState {
        hits_of(n, false)
    }

    fn hits_of(n: usize, low_score: bool) -> HitsState {
        let hit = |i: usize| Hit {
            row: HitRow {
                evidence: EvidenceBadge::Definition,
                kind: "function".into(),
                symbol: format!("s{i}"),
                path: format!("f{}.rs", i % 2),
                start: 1,
                end: 1,
                score: 1.0,
                signals: Vec::new(),
                focus: false,
            },
            excerpt: String::new(),
            source: None,
        };
        let mut h = HitsState::default();
        h.show(Some(Arc::new(Hits {
            generation: 1,
            query: "q".into(),
            hits: (0..n).map(hit).collect(),
            confidence: if low_score { "low" } else { "high" }.into(),
            low_score,
            answer: String::new(),
            latency_ms: 0.0,
            texts: Default::default(),
        })));
        h
    }

    #[test]
    fn the_selection_is_clamped_and_kept_in_view() {
        let mut h = hits(10);
        assert!(!h.step(-1, 3), "already at the first hit");
        assert!(h.step(isize::MAX / 2, 3));
        assert_eq!((h.selected, h.offset), (9, 7));
        assert_eq!(h.title(), "10/10");
        assert!(!HitsState::default().step(1, 3), "no hits");
    }

    #[test]
    fn the_title_says_when_the_hits_are_low_confidence() {
        assert_eq!(hits_of(3, true).title(), "1/3 · low confidence");
        assert_eq!(hits_of(3, false).title(), "1/3");
    }

    #[test]
    fn a_click_selects_the_row_drawn_there_and_below_the_last_nothing() {
        let mut h = hits(4);
        assert!(h.select_row(2, 3));
        assert_eq!(h.selected_hit().map(|x| x.row.symbol.as_str()), Some("s2"));
        assert!(!h.select_row(5, 3));
        assert_eq!(h.selected, 2);
    }

    #[test]
    fn focus_marks_follow_the_focus_files() {
        let mut h = hits(3);
        h.mark_focus(&["f1.rs".to_string()]);
        let marked: Vec<bool> = h.view("").rows.iter().map(|r| r.focus).collect();
        assert_eq!(marked, [false, true, false]);
    }
}
