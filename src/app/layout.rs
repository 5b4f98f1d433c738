//! Where the panes are: the terminal size, the pane with the keyboard focus, the user's
//! layout choices (map width, map full screen) and a drag of the map's border. Handles the
//! verbs that move the focus or reshape the panes, and the mouse, which lands on the pane
//! `ui::layout` drew there. Runs on the UI thread.

use ratatui::layout::Rect;

use super::action::Action;
use super::App;
use crate::ui::{self, hits::row_height, LayoutSpec, Pane, PaneRects};

pub(super) struct LayoutState {
    pub focus: Pane,
    /// The user's choices; whether the preview has a slot is decided at each frame.
    pub spec: LayoutSpec,
    pub size: Rect,
    /// The map pane's left border is being dragged.
    resizing: bool,
}

impl LayoutState {
    pub fn new(map_percent: u16, size: Rect) -> LayoutState {
        LayoutState {
            // Type to search: the query box has the focus at start (as in fzf); Esc or Tab
            // leave it for the panes, where single keys are commands.
            focus: Pane::Query,
            spec: LayoutSpec {
                map_percent,
                ..LayoutSpec::default()
            },
            size,
            resizing: false,
        }
    }

    fn cycle_focus(&mut self, forward: bool) {
        if self.spec.map_full {
            return;
        }
        let order = [Pane::Query, Pane::Hits, Pane::Preview, Pane::Map];
        let i = order.iter().position(|p| *p == self.focus).unwrap_or(0);
        let n = order.len();
        let j = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        self.focus = order[j];
    }

    /// The map's border dragged to column `x`.
    fn drag(&mut self, x: u16) {
        if self.resizing && self.size.width > 0 {
            let w = u32::from(self.size.width);
            let pct = ((w.saturating_sub(u32::from(x))) * 100 / w) as u16;
            self.spec.map_percent = pct.clamp(LayoutSpec::MIN_PERCENT, LayoutSpec::MAX_PERCENT);
        }
    }
}

impl App {
    /// The layout as drawn now: the user's choices plus whether the preview has a file.
    pub(super) fn layout_now(&self) -> LayoutSpec {
        LayoutSpec {
            // While there are hits the preview keeps its slot, even for a hit whose file
            // has no text to show.
            preview_open: self.preview.is_open() || self.hits.count() > 0 || self.refs_open(),
            ..self.layout.spec
        }
    }

    pub(super) fn rects(&self) -> PaneRects {
        ui::layout(self.layout.size, &self.layout_now(), self.layout.focus)
    }

    pub(super) fn hits_visible_rows(&self) -> usize {
        let h = self
            .rects()
            .hits
            .map_or(10, |r| r.height.saturating_sub(2) as usize);
        (h / row_height(self.hits.show_signals)).max(1)
    }

    pub(super) fn preview_height(&self) -> usize {
        let r = ui::layout(self.layout.size, &self.layout_now(), Pane::Preview);
        r.preview.map_or(10, ui::preview::inner_height).max(1)
    }

    pub(super) fn map_height(&self) -> usize {
        let r = ui::layout(self.layout.size, &self.layout_now(), Pane::Map);
        r.map
            .map_or(10, |r| r.height.saturating_sub(2) as usize)
            .max(1)
    }

    /// The verbs that move the focus or reshape the panes, and the mouse.
    pub(super) fn on_layout_action(&mut self, action: Action) {
        let layout = &mut self.layout;
        match action {
            Action::FocusQuery => {
                layout.focus = Pane::Query;
                layout.spec.map_full = false;
                self.query.cursor_to_end();
            }
            Action::Back => {
                if layout.spec.map_full {
                    layout.spec.map_full = false;
                } else {
                    // Out of the query box (or any pane) back to the hits list.
                    layout.focus = Pane::Hits;
                }
            }
            Action::NextPane => layout.cycle_focus(true),
            Action::PrevPane => layout.cycle_focus(false),
            Action::ToggleMapFull => {
                layout.spec.map_full = !layout.spec.map_full;
                if layout.spec.map_full {
                    layout.focus = Pane::Map;
                }
                self.reveal_map_selection();
            }
            Action::MapWider => {
                layout.spec.map_percent =
                    (layout.spec.map_percent + 5).min(LayoutSpec::MAX_PERCENT);
            }
            Action::MapNarrower => {
                layout.spec.map_percent =
                    (layout.spec.map_percent.saturating_sub(5)).max(LayoutSpec::MIN_PERCENT);
            }
            Action::Resize(w, h) => {
                layout.size = Rect::new(0, 0, w, h);
                self.reveal_map_selection();
            }
            Action::Click { x, y } => self.click(x, y),
            Action::Drag { x, .. } => layout.drag(x),
            Action::Release => layout.resizing = false,
            Action::Scroll { x, y, down } => self.scroll_at(x, y, down),
            _ => {}
        }
    }

    fn click(&mut self, x: u16, y: u16) {
        let rects = self.rects();
        // A press on the map pane's left border starts resizing it (wide layout only).
        if let (Some(map), Some(_)) = (rects.map, rects.hits) {
            if x == map.x && map.x > 0 && y >= map.y && y < map.y + map.height {
                self.layout.resizing = true;
                return;
            }
        }
        let Some(pane) = rects.pane_at(x, y) else {
            return;
        };
        self.layout.focus = pane;
        match pane {
            Pane::Hits if self.refs_open() => {
                let r = rects.hits.unwrap_or_default();
                if y > r.y && y < r.y + r.height.saturating_sub(1) {
                    self.click_refs_row((y - r.y - 1) as usize);
                }
            }
            Pane::Hits => {
                let r = rects.hits.unwrap_or_default();
                if y > r.y && y < r.y + r.height.saturating_sub(1) {
                    let row = (y - r.y - 1) as usize / row_height(self.hits.show_signals);
                    let visible = self.hits_visible_rows();
                    if self.hits.select_row(row, visible) {
                        self.preview_selected_hit();
                    }
                }
            }
            Pane::Map => {
                let r = rects.map.unwrap_or_default();
                if y > r.y {
                    self.map.select_row((y - r.y - 1) as usize);
                }
            }
            Pane::Query => self.query.cursor_to_end(),
            Pane::Preview => {}
        }
    }

    fn scroll_at(&mut self, x: u16, y: u16, down: bool) {
        let d: isize = if down { 3 } else { -3 };
        match self.rects().pane_at(x, y) {
            Some(Pane::Hits) if self.refs_open() => self.move_refs_selection(d.signum()),
            Some(Pane::Hits) => {
                // The wheel moves the hit selection; in the query box the focus stays
                // there (typing goes on), elsewhere it goes to the hits.
                let prev = self.layout.focus;
                self.layout.focus = Pane::Hits;
                self.move_hit_selection(d.signum());
                if prev == Pane::Query {
                    self.layout.focus = prev;
                }
            }
            Some(Pane::Preview) => self.scroll_preview(d),
            Some(Pane::Map) => self.scroll_map(d),
            _ => {}
        }
    }
}
