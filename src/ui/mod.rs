//! The TUI's drawing: `draw(frame, &ViewModel)` is a pure function of a borrowed view model,
//! with one module per pane. No threads, channels or engine types here: `app` builds the
//! view model from its state and the engine's snapshots, and owns every mutation.
//! Runs on the UI thread only.

pub mod empty;
pub mod footer;
pub mod hits;
pub mod layout;
pub mod map;
pub mod overlay;
pub mod preview;
pub mod query;
pub mod refs;
pub mod status;
pub mod text;
pub mod theme;

use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

pub use empty::EmptyView;
pub use footer::FooterHint;
pub use hits::{EvidenceBadge, HitRow, HitsView};
pub use layout::{layout, LayoutSpec, PaneRects};
pub use map::MapPaneView;
pub use overlay::{CutRow, CutView, HelpLine, HelpRow, Overlay, WhyEdge, WhyView};
pub use preview::{PreviewRow, PreviewView};
pub use query::QueryView;
pub use refs::{RefsLine, RefsPaneView, RefsRow};
pub use status::{FreshnessView, Level, ProgressView, StatusView};
pub use theme::Theme;

/// The panes that can hold the keyboard focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Query,
    Hits,
    Preview,
    Map,
}

impl Pane {
    pub fn name(self) -> &'static str {
        match self {
            Pane::Query => "query",
            Pane::Hits => "hits",
            Pane::Preview => "preview",
            Pane::Map => "map",
        }
    }
}

/// Everything one frame shows, borrowed from the app's state.
pub struct ViewModel<'a> {
    pub theme: &'a Theme,
    pub focus: Pane,
    pub layout: LayoutSpec,
    pub query: QueryView<'a>,
    pub hits: HitsView<'a>,
    /// Who uses a definition and what it uses: drawn in the hits pane's place while open.
    pub refs: Option<RefsPaneView<'a>>,
    pub preview: PreviewView<'a>,
    pub map: MapPaneView<'a>,
    pub status: StatusView<'a>,
    /// Shown over the hits pane while the index is being built.
    pub progress: Option<ProgressView<'a>>,
    pub overlay: Option<Overlay<'a>>,
    /// The keys that work in the focused pane (or the pop-up).
    pub footer: Vec<FooterHint>,
    /// Set when the repository has nothing to map: one page replaces the panes.
    pub empty: Option<EmptyView<'a>>,
}

/// Draws one frame. Each pane sanitizes the repository text it shows (`text::sanitize_line`);
/// a last pass over the cells makes sure nothing a terminal could act on is left whatever a
/// pane forgot.
pub fn draw(frame: &mut Frame<'_>, vm: &ViewModel<'_>) {
    draw_panes(frame, vm);
    let monochrome = vm.theme.monochrome;
    for cell in &mut frame.buffer_mut().content {
        if !text::is_safe(cell.symbol()) {
            let shown: String = cell.symbol().chars().map(text::safe_char).collect();
            cell.set_symbol(&shown);
        }
        // NO_COLOR: whatever a pane or the highlighter coloured, no colour reaches the
        // terminal; the theme marks selection and focus with bold and reverse instead.
        if monochrome {
            cell.fg = ratatui::style::Color::Reset;
            cell.bg = ratatui::style::Color::Reset;
            cell.underline_color = ratatui::style::Color::Reset;
        }
    }
}

fn draw_panes(frame: &mut Frame<'_>, vm: &ViewModel<'_>) {
    let area = frame.area();
    let rects = layout(area, &vm.layout, vm.focus);
    if rects.too_small {
        draw_too_small(frame, area, vm.theme, &vm.layout);
        return;
    }
    if let Some(r) = rects.footer {
        footer::draw(frame, r, &vm.footer, vm.theme);
    }
    if let Some(empty) = &vm.empty {
        empty::draw(frame, rects.body, empty, vm.theme);
        status::draw(frame, rects.status, &vm.status, vm.theme);
        if let Some(o) = &vm.overlay {
            overlay::draw(frame, rects.body, o, vm.theme);
        }
        return;
    }
    if let Some(r) = rects.query {
        query::draw(frame, r, &vm.query, vm.focus == Pane::Query, vm.theme);
    }
    if let Some(r) = rects.hits {
        match (&vm.refs, &vm.progress) {
            (Some(refs), _) => refs::draw(frame, r, refs, vm.focus == Pane::Hits, vm.theme),
            (None, Some(p)) if vm.hits.rows.is_empty() => {
                status::draw_progress(frame, r, p, vm.theme);
            }
            _ => hits::draw(frame, r, &vm.hits, vm.focus == Pane::Hits, vm.theme),
        }
    }
    if let Some(r) = rects.preview {
        preview::draw(frame, r, &vm.preview, vm.focus == Pane::Preview, vm.theme);
    }
    if let Some(r) = rects.map {
        map::draw(frame, r, &vm.map, vm.focus == Pane::Map, vm.theme);
    }
    status::draw(frame, rects.status, &vm.status, vm.theme);
    if let Some(o) = &vm.overlay {
        overlay::draw(frame, rects.body, o, vm.theme);
    }
}

fn draw_too_small(frame: &mut Frame<'_>, area: Rect, theme: &Theme, spec: &LayoutSpec) {
    let (w, h) = if spec.map_full {
        (layout::MIN_WIDTH_FULL, layout::MIN_HEIGHT_FULL)
    } else {
        (layout::MIN_WIDTH, layout::MIN_HEIGHT)
    };
    let lines = vec![
        Line::from(Span::styled("terminal too small", theme.title(true))),
        Line::from(format!("{}x{}, need {w}x{h}", area.width, area.height)),
        Line::from(Span::styled("enlarge it, or q to quit", theme.dim())),
    ];
    let top = area.height.saturating_sub(lines.len() as u16) / 2;
    let r = Rect {
        y: area.y + top,
        height: area.height.saturating_sub(top),
        ..area
    };
    frame.render_widget(
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true })
            .block(Block::default()),
        r,
    );
}
