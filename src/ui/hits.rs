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
pub enum EvidenceBadge {
    Definition,
    Reference,
    Call,
    Import,
    Text,
}

impl EvidenceBadge {
    pub fn badge(self) -> &'static str {
        match self {
            EvidenceBadge::Definition => "def",
            EvidenceBadge::Reference => "ref",
            EvidenceBadge::Call => "call",
            EvidenceBadge::Import => "imp",
            EvidenceBadge::Text => "text",
        }
    }

    pub fn color(self, theme: &Theme) -> Color {
        match self {
            EvidenceBadge::Definition => theme.badge_def,
            EvidenceBadge::Reference => theme.badge_ref,
            EvidenceBadge::Call => theme.badge_call,
            EvidenceBadge::Import => theme.badge_import,
            EvidenceBadge::Text => theme.badge_text,
        }
    }

    /// From the search contract's `evidence_type` names.
    pub fn from_name(name: &str) -> EvidenceBadge {
        match name {
            "definition" | "def" => EvidenceBadge::Definition,
            "reference" | "ref" => EvidenceBadge::Reference,
            "call" => EvidenceBadge::Call,
            "import" | "imp" => EvidenceBadge::Import,
            _ => EvidenceBadge::Text,
        }
    }
}

/// One hit, already reduced to what the pane shows.
#[derive(Debug, Clone, PartialEq)]
pub struct HitRow {
    pub evidence: EvidenceBadge,
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
    let mut inner = Block::bordered().inner(area);
    let answer_shown =
        !v.rows.is_empty() && !v.answer.is_empty() && inner.height >= ANSWER_MIN_HEIGHT;
    if answer_shown {
        inner.y += 1;
        inner.height -= 1;
    }
    let per = row_height(v.show_signals);
    let visible = (inner.height as usize / per).max(1);
    let off = visible_offset(v.offset, v.selected, visible, v.rows.len());
    let shown = &v.rows[off.min(v.rows.len())..(off + visible).min(v.rows.len())];
    let cols = columns(shown, inner.width as usize);
    // Without room for the score column, the selected hit's score goes in the title.
    let mut note = v.title_note.clone();
    if !cols.score {
        if let Some(row) = v.selected.and_then(|i| v.rows.get(i)) {
            note = format!("{note} · score {:.2}", row.score);
        }
    }
    let mut block = Block::bordered()
        .border_style(theme.border(focused))
        .title(Span::styled(" hits ", theme.title(focused)));
    if !note.trim().is_empty() {
        block = block.title_top(
            Line::from(Span::styled(
                format!(" {} ", note.trim_start_matches(" · ")),
                theme.dim(),
            ))
            .right_aligned(),
        );
    }
    let whole = block.inner(area);
    frame.render_widget(block, area);
    if v.rows.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(v.note.to_string(), theme.dim()))),
            whole,
        );
        return;
    }
    if answer_shown {
        let line = Line::from(Span::styled(
            crate::ui::text::truncate(v.answer, whole.width as usize),
            theme.dim(),
        ));
        frame.render_widget(Paragraph::new(line), Rect { height: 1, ..whole });
    }
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
    /// The score column is drawn (a narrow pane gives its columns to the symbol and the
    /// line range; the selected hit's score is then in the title).
    score: bool,
}

/// Columns a symbol keeps before anything of the location but its file name and range: a
/// name up to this long is shown whole at 80, 100 and 120 columns.
const SYMBOL_FLOOR: usize = 21;

/// The badge (6), the space after the symbol, the focus marker.
const FIXED: usize = 8;
/// The score (6) and the trailing space.
const SCORE: usize = 7;

/// Shares a row of `w` columns, in this order of need: the symbol's first `SYMBOL_FLOOR`
/// columns, the file name with the hit's whole line range (`fit_path` cuts the directories
/// first, then the file name's start, the range last), the rest of the symbol, then the
/// directories; whatever is left pads the location so the scores line up. The score column
/// is drawn only when the symbol's floor and the file name with its range fit beside it,
/// and the kind column only when the pane is wide (the badge already says what kind of hit
/// it is).
fn columns(rows: &[&HitRow], w: usize) -> Columns {
    let longest = |f: &dyn Fn(&HitRow) -> usize| rows.iter().map(|r| f(r)).max().unwrap_or(0);
    let kind_need = longest(&|r| width(&r.kind)).min(9);
    let sym_need = longest(&|r| width(&r.symbol)).max(4);
    // A text hit's symbol column holds the line that matched, not a name: only names
    // claim the floor.
    let name_need = rows
        .iter()
        .filter(|r| r.evidence != EvidenceBadge::Text)
        .map(|r| width(&r.symbol))
        .max()
        .unwrap_or(0)
        .max(4);
    let sym_floor = name_need.min(SYMBOL_FLOOR);
    let loc_need = longest(&|r| width(&r.path) + r.range().len());
    let file_need = longest(&|r| {
        let file = r.path.rsplit_once('/').map_or(r.path.as_str(), |(_, f)| f);
        width(file) + r.range().len()
    });
    let room = |score: bool, kind: usize| {
        w.saturating_sub(
            FIXED + if kind > 0 { kind + 2 } else { 1 } + if score { SCORE } else { 1 },
        )
    };
    let score = room(true, 0) >= sym_floor + file_need;
    let mut kind = kind_need;
    if kind > 0 && (room(score, kind) < 40 || room(score, kind) < sym_floor + file_need) {
        kind = 0;
    }
    let rest = room(score, kind);
    // However narrow, the range and the end of the file name (`…_plan.go:32-141`).
    let range_need = longest(&|r| r.range().len());
    let loc_floor = file_need.min(range_need + super::text::FILE_FLOOR);
    let location = loc_need
        .min(rest.saturating_sub(sym_need))
        .max(file_need.min(rest.saturating_sub(sym_floor)))
        .max(loc_floor.min(rest.saturating_sub(4)));
    // A shortened path is often narrower than its column (`…/` drops whole directories):
    // what it leaves goes back to the symbol.
    let used = rows
        .iter()
        .map(|r| width(&fit_path(&sanitize_line(&r.path), &r.range(), location)))
        .max()
        .unwrap_or(0);
    let symbol = sym_need.min(rest.saturating_sub(used.min(location)));
    Columns {
        kind,
        symbol,
        location: rest.saturating_sub(symbol),
        score,
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
    let score = if cols.score {
        format!("{:>6.2} ", row.score)
    } else {
        " ".to_string()
    };
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
        Span::styled(format!("{marker}{score}"), base.fg(theme.dim)),
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
            evidence: EvidenceBadge::Definition,
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
        let long = hit(
            "function",
            "transformIndexHtmlMiddleware",
            "packages/vite/src/node/server/middlewares/indexHtml.ts",
        );
        // The hits pane's inner width at 100, 120 and 240 columns (beside the map), and
        // at 80 (alone): a symbol's first 20 characters and the whole line range always.
        for w in [48, 58, 80, 118] {
            let cols = columns(&[&a, &b, &long], w);
            for row in [&a, &long] {
                let line = row_line(row, &cols, false, &Theme::default());
                let text: String = line.spans.iter().map(|s| s.content.to_string()).collect();
                assert_eq!(width(&text), w, "{w}: {text:?}");
                assert!(text.contains(":32-141"), "{w}: {text:?}");
                assert!(
                    text.contains(&row.symbol[..row.symbol.len().min(20)]),
                    "{w}: {text:?}"
                );
            }
            assert_eq!(cols.score, w >= 80, "{w}: {cols:?}");
        }
        // Very narrow: the file name still shows, its start cut before its extension.
        let cols = columns(&[&a, &b], 36);
        let line = row_line(&a, &cols, false, &Theme::default());
        let text: String = line.spans.iter().map(|s| s.content.to_string()).collect();
        assert_eq!(width(&text), 36);
        assert!(text.contains("PlanGraph"), "{text:?}");
        assert!(text.contains(".go:32-141"), "{text:?}");
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
            ("definition", EvidenceBadge::Definition),
            ("reference", EvidenceBadge::Reference),
            ("call", EvidenceBadge::Call),
            ("import", EvidenceBadge::Import),
            ("text", EvidenceBadge::Text),
        ] {
            assert_eq!(EvidenceBadge::from_name(n), e);
        }
    }
}
