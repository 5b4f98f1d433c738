//! Where each pane goes for a terminal size. A pure function, shared by `draw` and by the
//! app's mouse handling so a click lands on the pane that was drawn there.

use ratatui::layout::{Constraint, Layout, Rect};

use super::Pane;

/// Below this size the normal layout would be garbled: a message is shown instead.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 14;
/// The full-screen map needs less.
pub const MIN_WIDTH_FULL: u16 = 30;
pub const MIN_HEIGHT_FULL: u16 = 6;
/// From this width on, the map sits beside the hits and preview instead of sharing a slot.
pub const WIDE: u16 = 100;

/// The user-controlled part of the layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutSpec {
    /// The map pane fills the screen (only the status bar stays).
    pub map_full: bool,
    /// Width of the map pane in percent of the terminal, in wide terminals.
    pub map_percent: u16,
    /// The preview has a file to show (set by the app from its state, not by the user): in
    /// a narrow terminal it then takes the lower slot, so hits and preview are seen together.
    pub preview_open: bool,
}

impl Default for LayoutSpec {
    fn default() -> Self {
        LayoutSpec {
            map_full: false,
            map_percent: 50,
            preview_open: false,
        }
    }
}

impl LayoutSpec {
    pub const MIN_PERCENT: u16 = 25;
    pub const MAX_PERCENT: u16 = 75;
}

/// The rectangle of every visible pane; `None` for a pane not shown at this size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PaneRects {
    pub query: Option<Rect>,
    pub hits: Option<Rect>,
    pub preview: Option<Rect>,
    pub map: Option<Rect>,
    pub status: Rect,
    /// The key-hint line above the status bar (`None` when the terminal is too small).
    pub footer: Option<Rect>,
    /// Everything above the footer (where overlays go).
    pub body: Rect,
    pub too_small: bool,
}

impl PaneRects {
    /// The pane under a screen position, if any.
    pub fn pane_at(&self, x: u16, y: u16) -> Option<Pane> {
        let inside = |r: Option<Rect>| {
            r.is_some_and(|r| x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)
        };
        if inside(self.query) {
            Some(Pane::Query)
        } else if inside(self.hits) {
            Some(Pane::Hits)
        } else if inside(self.preview) {
            Some(Pane::Preview)
        } else if inside(self.map) {
            Some(Pane::Map)
        } else {
            None
        }
    }
}

/// Lays out the panes. In a narrow terminal the map and the preview share the lower slot:
/// the map while it has the focus or while there is nothing to preview, else the preview (it
/// follows the selected hit; `m` still gives the full-screen map).
pub fn layout(area: Rect, spec: &LayoutSpec, focus: Pane) -> PaneRects {
    let (min_w, min_h) = if spec.map_full {
        (MIN_WIDTH_FULL, MIN_HEIGHT_FULL)
    } else {
        (MIN_WIDTH, MIN_HEIGHT)
    };
    let [body, footer, status] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let mut rects = PaneRects {
        status,
        body,
        ..PaneRects::default()
    };
    if area.width < min_w || area.height < min_h {
        rects.too_small = true;
        let [body, status] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
        rects.body = body;
        rects.status = status;
        return rects;
    }
    rects.footer = Some(footer);
    if spec.map_full {
        rects.map = Some(body);
        return rects;
    }
    let percent = spec
        .map_percent
        .clamp(LayoutSpec::MIN_PERCENT, LayoutSpec::MAX_PERCENT);
    if area.width >= WIDE {
        let [left, right] = Layout::horizontal([
            Constraint::Percentage(100 - percent),
            Constraint::Percentage(percent),
        ])
        .areas(body);
        let [query, hits, preview] = Layout::vertical([
            Constraint::Length(3),
            Constraint::Percentage(40),
            Constraint::Min(3),
        ])
        .areas(left);
        rects.query = Some(query);
        rects.hits = Some(hits);
        rects.preview = Some(preview);
        rects.map = Some(right);
    } else {
        let [query, hits, lower] = Layout::vertical([
            Constraint::Length(3),
            Constraint::Percentage(35),
            Constraint::Min(3),
        ])
        .areas(body);
        rects.query = Some(query);
        rects.hits = Some(hits);
        let show_preview = focus == Pane::Preview || (focus != Pane::Map && spec.preview_open);
        if show_preview {
            rects.preview = Some(lower);
        } else {
            rects.map = Some(lower);
        }
    }
    rects
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_terminal_shows_every_pane() {
        let r = layout(
            Rect::new(0, 0, 120, 40),
            &LayoutSpec::default(),
            Pane::Query,
        );
        assert!(!r.too_small);
        assert!(r.query.is_some() && r.hits.is_some() && r.preview.is_some());
        let map = r.map.unwrap();
        assert_eq!(map.width, 60);
        assert_eq!(r.status.y, 39);
        assert_eq!(r.footer.map(|f| f.y), Some(38));
        assert_eq!(r.pane_at(100, 10), Some(Pane::Map));
        assert_eq!(r.pane_at(5, 1), Some(Pane::Query));
    }

    #[test]
    fn narrow_terminal_shares_the_lower_slot() {
        let r = layout(Rect::new(0, 0, 80, 30), &LayoutSpec::default(), Pane::Hits);
        assert!(r.map.is_some() && r.preview.is_none());
        // With a file to preview, the hits and the preview are seen together…
        let open = LayoutSpec {
            preview_open: true,
            ..LayoutSpec::default()
        };
        for focus in [Pane::Query, Pane::Hits] {
            let r = layout(Rect::new(0, 0, 80, 24), &open, focus);
            assert!(r.hits.is_some() && r.preview.is_some() && r.map.is_none());
        }
        // …until the map takes the focus.
        let r = layout(Rect::new(0, 0, 80, 24), &open, Pane::Map);
        assert!(r.map.is_some() && r.preview.is_none());
        let r = layout(
            Rect::new(0, 0, 80, 30),
            &LayoutSpec::default(),
            Pane::Preview,
        );
        assert!(r.map.is_none() && r.preview.is_some());
    }

    #[test]
    fn tiny_terminal_is_flagged() {
        let r = layout(Rect::new(0, 0, 40, 10), &LayoutSpec::default(), Pane::Query);
        assert!(r.too_small);
        let full = LayoutSpec {
            map_full: true,
            ..LayoutSpec::default()
        };
        let r = layout(Rect::new(0, 0, 40, 10), &full, Pane::Map);
        assert!(!r.too_small);
        assert_eq!(r.map, Some(Rect::new(0, 0, 40, 8)));
    }

    #[test]
    fn map_width_is_clamped() {
        let spec = LayoutSpec {
            map_percent: 99,
            ..LayoutSpec::default()
        };
        let r = layout(Rect::new(0, 0, 200, 40), &spec, Pane::Map);
        assert_eq!(r.map.unwrap().width, 150);
    }
}
