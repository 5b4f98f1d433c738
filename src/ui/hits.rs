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
}

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
    let per = row_height(v.show_signals);
    let visible = (inner.height as usize / per).max(1);
    let off = visible_offset(v.offset, v.selected, visible, v.rows.len());
    // The symbol column is as wide as the longest visible symbol, up to 40% of the row.
    let longest = v
        .rows
        .iter()
        .skip(off)
        .take(visible)
        .map(|r| width(&r.symbol))
        .max()
        .unwrap_or(0);
    let mut lines = Vec::new();
    for (i, row) in v.rows.iter().enumerate().skip(off).take(visible) {
        let selected = v.selected == Some(i);
        lines.push(row_line(
            row,
            inner.width as usize,
            longest,
            selected,
            theme,
        ));
        if v.show_signals {
            lines.push(signal_line(row, inner.width as usize, selected, theme));
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn row_line(
    row: &HitRow,
    w: usize,
    longest: usize,
    selected: bool,
    theme: &Theme,
) -> Line<'static> {
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
    let kind = format!(" {:<9} ", truncate(&row.kind, 9));
    let marker = if row.focus { "●" } else { " " };
    let fixed = 6 + kind.chars().count() + score.len() + 2;
    let rest = w.saturating_sub(fixed);
    // The location keeps room for its file name and first line before the symbol gets more.
    let path = sanitize_line(&row.path);
    let file = path.rsplit('/').next().unwrap_or(&path);
    let loc_min = (width(file) + 2 + row.start.to_string().len() + 1).min(rest * 3 / 5);
    let sym_w = longest
        .clamp(4, (rest * 2 / 5).max(8))
        .min(rest.saturating_sub(loc_min + 1));
    let loc_w = rest.saturating_sub(sym_w + 1);
    let symbol = truncate(&sanitize_line(&row.symbol), sym_w);
    let location = fit_path(&path, &row.range(), loc_w);
    let pad_sym = sym_w.saturating_sub(width(&symbol));
    let pad_loc = loc_w.saturating_sub(width(&location));
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
