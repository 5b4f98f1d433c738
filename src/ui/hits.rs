//! The hits pane: ranked search results, one row each (evidence badge, kind, symbol,
//! path:line, score), with an optional second line showing the score's signal breakdown.

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::text::{fit_path, sanitize_line, truncate, width};
use super::theme::Theme;

/// Why a hit was found; the badge's colour comes from the theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    Definition,
    Reference,
    Call,
    Import,
    Text,
}

impl Evidence {
    pub fn badge(self) -> &'static str {
        match self {
            Evidence::Definition => "def",
            Evidence::Reference => "ref",
            Evidence::Call => "call",
            Evidence::Import => "imp",
            Evidence::Text => "text",
        }
    }

    pub fn color(self, theme: &Theme) -> Color {
        match self {
            Evidence::Definition => theme.badge_def,
            Evidence::Reference => theme.badge_ref,
            Evidence::Call => theme.badge_call,
            Evidence::Import => theme.badge_import,
            Evidence::Text => theme.badge_text,
        }
    }

    /// From the search contract's `evidence_type` names.
    pub fn from_name(name: &str) -> Evidence {
        match name {
            "definition" | "def" => Evidence::Definition,
            "reference" | "ref" => Evidence::Reference,
            "call" => Evidence::Call,
            "import" | "imp" => Evidence::Import,
            _ => Evidence::Text,
        }
    }
}

/// One hit, already reduced to what the pane shows.
#[derive(Debug, Clone, PartialEq)]
pub struct HitRow {
    pub evidence: Evidence,
    pub kind: String,
    pub symbol: String,
    pub path: String,
    pub start: u32,
    pub end: u32,
    pub score: f64,
    /// Signal name and value, in display order.
    pub signals: Vec<(String, f64)>,
    /// The hit's file is a focus file of the map.
    pub focus: bool,
}

impl HitRow {
    pub fn location(&self) -> String {
        format!("{}{}", self.path, self.range())
    }

    /// `:start-end`, or `:start` for one line.
    pub fn range(&self) -> String {
        if self.end > self.start {
            format!(":{}-{}", self.start, self.end)
        } else {
            format!(":{}", self.start)
        }
    }
}

pub struct HitsView<'a> {
    pub rows: Vec<&'a HitRow>,
    pub selected: Option<usize>,
    /// First row shown (the app keeps it; `visible_offset` adjusts it to show the selection).
    pub offset: usize,
    pub show_signals: bool,
    /// Shown when there are no rows ("type to search", "no confident hits").
    pub note: &'a str,
    /// "12 hits", "searching…".
    pub title_note: String,
    /// The search's one-sentence answer, drawn above the rows when the pane has room.
    pub answer: &'a str,
}

/// Inner height a pane needs before it gives a line to the answer.
const ANSWER_MIN_HEIGHT: u16 = 4;

/// Lines each row takes.
pub fn row_height(show_signals: bool) -> usize {
    if show_signals {
        2
    } else {
        1
    }
}

/// The first row to show so that `selected` is visible in a window of `visible` rows,
/// moving the window as little as possible from `offset`.
pub fn visible_offset(offset: usize, selected: Option<usize>, visible: usize, len: usize) -> usize {
    let visible = visible.max(1);
    let mut off = offset.min(len.saturating_sub(1));
    if let Some(sel) = selected {
        if sel < off {
            off = sel;
        } else if sel >= off + visible {
            off = sel + 1 - visible;
        }
    }
    off
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, v: &HitsView<'_>, focused: bool, theme: &Theme) {
    let mut block = Block::bordered()
        .border_style(theme.border(focused))
        .title(Span::styled(" hits ", theme.title(focused)));
    if !v.title_note.is_empty() {
        block = block.title_top(
            Line::from(Span::styled(format!(" {} ", v.title_note), theme.dim())).right_aligned(),
        );
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if v.rows.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(v.note.to_string(), theme.dim()))),
            inner,
        );
        return;
    }
    let mut inner = inner;
    if !v.answer.is_empty() && inner.height >= ANSWER_MIN_HEIGHT {
        let line = Line::from(Span::styled(
            crate::ui::text::truncate(v.answer, inner.width as usize),
            theme.dim(),
        ));
        frame.render_widget(Paragraph::new(line), Rect { height: 1, ..inner });
        inner.y += 1;
        inner.height -= 1;
    }
    let per = row_height(v.show_signals);
    let visible = (inner.height as usize / per).max(1);
    let off = visible_offset(v.offset, v.selected, visible, v.rows.len());
    let cols = columns(
        &v.rows[off.min(v.rows.len())..(off + visible).min(v.rows.len())],
        inner.width as usize,
    );
    let mut lines = Vec::new();
    for (i, row) in v.rows.iter().enumerate().skip(off).take(visible) {
        let selected = v.selected == Some(i);
        lines.push(row_line(row, &cols, selected, theme));
        if v.show_signals {
            lines.push(signal_line(row, inner.width as usize, selected, theme));
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Widths of the variable columns for the visible rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Columns {
    /// 0: no kind column (no visible hit has a kind, or the pane is too narrow for it).
    kind: usize,
    symbol: usize,
    location: usize,
}

/// Columns the symbol keeps before the location takes what it needs.
const SYMBOL_MIN: usize = 16;

/// Badge (6) and the marker, score and trailing space (8).
const FIXED: usize = 14;

/// Shares a row of `w` columns: the location (which keeps its file name, `fit_path`) gets
/// what it needs once the symbol has up to `SYMBOL_MIN` columns, the symbol the rest of its need, and
/// whatever is left pads the location so the scores line up. The kind column goes first
/// when the pane is narrow: the badge already says what kind of hit it is.
fn columns(rows: &[&HitRow], w: usize) -> Columns {
    let longest = |f: &dyn Fn(&HitRow) -> usize| rows.iter().map(|r| f(r)).max().unwrap_or(0);
    let kind_need = longest(&|r| width(&r.kind)).min(9);
    let sym_need = longest(&|r| width(&r.symbol)).max(4);
    let loc_need = longest(&|r| width(&r.path) + r.range().len());
    let room = |kind: usize| w.saturating_sub(FIXED + if kind > 0 { kind + 2 } else { 1 } + 1);
    let mut kind = kind_need;
    if kind > 0 && room(kind) < 40 {
        kind = 0;
    }
    let rest = room(kind);
    // The file name and first line are worth more than the symbol's tail (`fit_path`).
    let file_need = longest(&|r| {
        // `…/` stands for the directories, when there are any.
        let (dirs, file) = match r.path.rsplit_once('/') {
            Some((_, file)) => (2, file),
            None => (0, r.path.as_str()),
        };
        dirs + width(file) + 1 + r.start.to_string().len()
    });
    let location = loc_need
        .min(rest.saturating_sub(sym_need.min(SYMBOL_MIN)))
        .max(file_need.min(rest.saturating_sub(5)));
    let symbol = sym_need.min(rest.saturating_sub(location));
    Columns {
        kind,
        symbol,
        location: rest.saturating_sub(symbol),
    }
}

fn row_line(row: &HitRow, cols: &Columns, selected: bool, theme: &Theme) -> Line<'static> {
    let base = if selected {
        theme.selected()
    } else {
        Style::default()
    };
    let badge = Span::styled(
        format!("{:^6}", row.evidence.badge()),
        theme.badge(row.evidence.color(theme)),
    );
    let score = format!("{:>6.2}", row.score);
    let kind = if cols.kind > 0 {
        let k = truncate(&row.kind, cols.kind);
        format!(" {k}{} ", " ".repeat(cols.kind.saturating_sub(width(&k))))
    } else {
        " ".to_string()
    };
    let marker = if row.focus { "●" } else { " " };
    let symbol = truncate(&sanitize_line(&row.symbol), cols.symbol);
    let location = fit_path(&sanitize_line(&row.path), &row.range(), cols.location);
    let pad_sym = cols.symbol.saturating_sub(width(&symbol));
    let pad_loc = cols.location.saturating_sub(width(&location));
    Line::from(vec![
        badge,
        Span::styled(kind, base.fg(theme.dim)),
        Span::styled(
            format!("{symbol}{} ", " ".repeat(pad_sym)),
            base.fg(theme.accent).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!("{location}{}", " ".repeat(pad_loc)),
            base.fg(theme.fg),
        ),
        Span::styled(format!("{marker}{score} "), base.fg(theme.dim)),
    ])
}

fn signal_line(row: &HitRow, w: usize, selected: bool, theme: &Theme) -> Line<'static> {
    let base = if selected {
        theme.selected()
    } else {
        Style::default()
    };
    let parts: Vec<String> = row
        .signals
        .iter()
        .map(|(name, v)| format!("{name} {v:.2}"))
        .collect();
    let text = format!("      {}", parts.join("  "));
    let text = truncate(&text, w);
    let pad = w.saturating_sub(width(&text));
    Line::from(Span::styled(
        format!("{text}{}", " ".repeat(pad)),
        base.fg(theme.dim),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(kind: &str, symbol: &str, path: &str) -> HitRow {
        HitRow {
            evidence: Evidence::Definition,
            kind: kind.into(),
            symbol: symbol.into(),
            path: path.into(),
            start: 32,
            end: 141,
            score: 1.5,
            signals: Vec::new(),
            focus: false,
        }
    }

    #[test]
    fn columns_fill_the_row_and_keep_the_file_name() {
        let a = hit(
            "method",
            "PlanGraphBuilder",
            "internal/terraform/graph_builder_plan.go",
        );
        let b = hit(
            "",
            "// a long comment line that matched the query words",
            "x.md",
        );
        for w in [48, 58, 80, 118] {
            let cols = columns(&[&a, &b], w);
            let line = row_line(&a, &cols, false, &Theme::default());
            let text: String = line.spans.iter().map(|s| s.content.to_string()).collect();
            assert_eq!(width(&text), w, "{w}: {text:?}");
            assert!(text.contains("graph_builder_plan.go:32"), "{w}: {text:?}");
        }
        // Very narrow: the file name still shows, its start cut before its extension.
        let cols = columns(&[&a, &b], 36);
        let line = row_line(&a, &cols, false, &Theme::default());
        let text: String = line.spans.iter().map(|s| s.content.to_string()).collect();
        assert_eq!(width(&text), 36);
        assert!(text.contains("_plan.go"), "{text:?}");
        // Wide: the whole path and range, and the kind.
        let cols = columns(&[&a], 118);
        let line = row_line(&a, &cols, false, &Theme::default());
        let text: String = line.spans.iter().map(|s| s.content.to_string()).collect();
        assert!(
            text.contains("method")
                && text.contains("internal/terraform/graph_builder_plan.go:32-141")
        );
    }

    #[test]
    fn offset_follows_selection() {
        assert_eq!(visible_offset(0, Some(3), 5, 10), 0);
        assert_eq!(visible_offset(0, Some(7), 5, 10), 3);
        assert_eq!(visible_offset(6, Some(2), 5, 10), 2);
        assert_eq!(visible_offset(20, None, 5, 10), 9);
        assert_eq!(visible_offset(0, None, 5, 0), 0);
    }

    #[test]
    fn evidence_names_match_the_search_contract() {
        for (n, e) in [
            ("definition", Evidence::Definition),
            ("reference", Evidence::Reference),
            ("call", Evidence::Call),
            ("import", Evidence::Import),
            ("text", Evidence::Text),
        ] {
            assert_eq!(Evidence::from_name(n), e);
        }
    }
}
