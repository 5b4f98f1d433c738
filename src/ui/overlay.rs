//! Pop-ups drawn over the panes: help (generated from the keymap), "why" (why a file is in
//! the map) and "cut" (what did not fit the budget).

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::text::{fit_path, sanitize_line, truncate};
use super::theme::Theme;

pub enum Overlay<'a> {
    Help {
        lines: &'a [HelpLine],
        scroll: usize,
    },
    Why {
        view: &'a WhyView,
        scroll: usize,
    },
    Cut {
        view: &'a CutView,
        scroll: usize,
    },
    /// A one-line question (where to save the map): its input and what Enter will do.
    Prompt {
        title: &'a str,
        input: super::QueryView<'a>,
    },
}

/// One line of the help pop-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelpLine {
    /// A group's title ("hits", "status bar").
    Heading(String),
    Key(HelpRow),
    /// A paragraph, wrapped to the pop-up's width.
    Note(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpRow {
    /// "j, down".
    pub keys: String,
    /// The action's config name, "select_next".
    pub action: String,
    pub description: String,
}

/// Why a file is (or is not) in the map.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WhyView {
    pub path: String,
    pub rank: f64,
    /// 1-based position among all files by rank.
    pub position: usize,
    pub total_files: usize,
    /// This file's share of the personalization vector (0 when unpersonalized).
    pub personalization: f64,
    /// Plain-language reasons: "focus file", "defines `parseConfig` (query)".
    pub reasons: Vec<String>,
    pub in_map: bool,
    /// 1-based position among the map's files, when in the map.
    pub map_position: Option<usize>,
    pub map_files: usize,
    /// Tokens the file's part of the map costs.
    pub tokens: usize,
    /// Files that point at this one, heaviest first.
    pub incoming: Vec<WhyEdge>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct WhyEdge {
    pub path: String,
    pub weight: f64,
    /// Identifiers through which `path` uses the file.
    pub idents: Vec<String>,
}

/// The highest-ranked definitions that did not fit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CutView {
    pub budget: usize,
    pub used: usize,
    pub rows: Vec<CutRow>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CutRow {
    pub path: String,
    pub symbol: String,
    pub kind: String,
    pub line: u32,
    pub rank: f64,
    /// What adding it would cost.
    pub tokens: usize,
}

/// A centred rectangle taking `pw`% × `ph`% of `area`.
pub fn centered(area: Rect, pw: u16, ph: u16) -> Rect {
    let [_, mid, _] = Layout::vertical([
        Constraint::Percentage((100 - ph) / 2),
        Constraint::Percentage(ph),
        Constraint::Percentage((100 - ph) / 2),
    ])
    .areas(area);
    let [_, c, _] = Layout::horizontal([
        Constraint::Percentage((100 - pw) / 2),
        Constraint::Percentage(pw),
        Constraint::Percentage((100 - pw) / 2),
    ])
    .areas(mid);
    c
}

/// Where the pop-up goes in `body`. Small terminals give it the whole body: its lines are
/// long.
fn area(body: Rect) -> Rect {
    let pw = if body.width < 100 { 100 } else { 86 };
    let ph = if body.height < 30 { 100 } else { 86 };
    centered(body, pw, ph)
}

/// The largest scroll that still fills the pop-up drawn in `body` (its last line at the
/// bottom): where `G` goes.
pub fn max_scroll(body: Rect, o: &Overlay<'_>, theme: &Theme) -> usize {
    if matches!(o, Overlay::Prompt { .. }) {
        return 0;
    }
    let area = area(body);
    let (_, lines, _) = content(o, area.width.saturating_sub(2) as usize, theme);
    lines
        .len()
        .saturating_sub(area.height.saturating_sub(2) as usize)
}

/// The pop-up's title, its lines at width `w`, and its scroll.
fn content(o: &Overlay<'_>, w: usize, theme: &Theme) -> (&'static str, Vec<Line<'static>>, usize) {
    match o {
        Overlay::Prompt { .. } => ("", Vec::new(), 0),
        Overlay::Help { lines, scroll } => {
            (" keys (Esc closes) ", help_lines(lines, w, theme), *scroll)
        }
        Overlay::Why { view, scroll } => (
            " why in the map, or why not (Esc closes) ",
            why_lines(view, w, theme),
            *scroll,
        ),
        Overlay::Cut { view, scroll } => (
            " cut: ranked but over the budget (Esc closes) ",
            cut_lines(view, w, theme),
            *scroll,
        ),
    }
}

pub fn draw(frame: &mut Frame<'_>, body: Rect, o: &Overlay<'_>, theme: &Theme) {
    if let Overlay::Prompt { title, input } = o {
        // Three lines across the middle of the screen, the input's note in its border.
        let width = body.width.saturating_sub(4).min(100);
        let area = Rect {
            x: body.x + (body.width - width) / 2,
            y: body.y + body.height.saturating_sub(3) / 2,
            width,
            height: 3.min(body.height),
        };
        frame.render_widget(Clear, area);
        super::query::draw_input(frame, area, title, input, true, theme);
        return;
    }
    let area = area(body);
    let w = area.width.saturating_sub(2) as usize;
    let (title, lines, scroll) = content(o, w, theme);
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_style(theme.border(true))
        .title(Span::styled(title, theme.title(true)));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let scroll = scroll.min(lines.len().saturating_sub(inner.height as usize));
    let shown: Vec<Line<'static>> = lines.into_iter().skip(scroll).collect();
    frame.render_widget(Paragraph::new(shown), inner);
}

fn help_lines(lines: &[HelpLine], w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let kw = lines
        .iter()
        .filter_map(|l| match l {
            HelpLine::Key(r) => Some(r.keys.chars().count()),
            _ => None,
        })
        .max()
        .unwrap_or(4)
        .min(22)
        .min(w / 3);
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match line {
            HelpLine::Heading(h) => {
                if i > 0 {
                    out.push(Line::from(""));
                }
                out.push(Line::from(Span::styled(
                    truncate(h, w),
                    theme
                        .title(false)
                        .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                )));
            }
            HelpLine::Key(r) => {
                let rest = w.saturating_sub(kw + 2);
                out.push(Line::from(vec![
                    Span::styled(
                        format!("{:<kw$}  ", truncate(&r.keys, kw)),
                        theme.title(true),
                    ),
                    Span::styled(truncate(&r.description, rest), theme.text()),
                ]));
            }
            HelpLine::Note(text) => {
                for part in wrap(text, w.max(8)) {
                    out.push(Line::from(Span::styled(part, theme.text())));
                }
            }
        }
    }
    out
}

fn why_lines(v: &WhyView, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    if v.path.is_empty() {
        return vec![Line::from(Span::styled("working it out…", theme.dim()))];
    }
    let mut out = vec![
        Line::from(Span::styled(
            fit_path(&sanitize_line(&v.path), "", w),
            theme.title(true),
        )),
        Line::from(format!(
            "rank {:.4}  (#{} of {} files)   personalization {:.4}",
            v.rank, v.position, v.total_files, v.personalization
        )),
        Line::from(match (v.in_map, v.map_position) {
            (true, Some(p)) => format!(
                "in the map: file {p} of {}, {} tokens",
                v.map_files, v.tokens
            ),
            (true, None) => format!("in the map: {} tokens", v.tokens),
            (false, _) => "not in the map".to_string(),
        }),
    ];
    if !v.reasons.is_empty() {
        out.push(Line::from(""));
        out.push(Line::from(Span::styled("why", theme.dim())));
        for r in &v.reasons {
            for (i, part) in wrap(&sanitize_line(r), w.saturating_sub(4).max(8))
                .into_iter()
                .enumerate()
            {
                let bullet = if i == 0 { "  • " } else { "    " };
                out.push(Line::from(format!("{bullet}{part}")));
            }
        }
    }
    out.push(Line::from(""));
    out.push(Line::from(Span::styled(
        format!(
            "pointed at by {}",
            super::text::count(v.incoming.len(), "file", "files")
        ),
        theme.dim(),
    )));
    for e in &v.incoming {
        let idents = e.idents.join(", ");
        let head = format!("  {:>6.2}  {}", e.weight, sanitize_line(&e.path));
        let head = truncate(&head, w);
        let room = w.saturating_sub(head.chars().count() + 3);
        let mut spans = vec![Span::styled(head, theme.text())];
        if !idents.is_empty() && room > 3 {
            spans.push(Span::styled(
                format!("  {}", truncate(&sanitize_line(&idents), room)),
                theme.dim(),
            ));
        }
        out.push(Line::from(spans));
    }
    out
}

/// Splits `s` into lines of at most `w` characters at spaces (a longer word is cut).
fn wrap(s: &str, w: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in s.split(' ') {
        let need = cur.chars().count() + usize::from(!cur.is_empty()) + word.chars().count();
        if need > w && !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
        while cur.chars().count() > w {
            let head: String = cur.chars().take(w).collect();
            cur = cur.chars().skip(w).collect();
            lines.push(head);
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

fn cut_lines(v: &CutView, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(format!(
        "budget {} · used {} · {} definitions did not fit (highest rank first)",
        v.budget,
        v.used,
        v.rows.len()
    ))];
    out.push(Line::from(Span::styled(
        format!(
            "{:>7}  {:>8}  {:<10} symbol  location",
            "tokens", "rank", "kind"
        ),
        theme.dim().add_modifier(Modifier::BOLD),
    )));
    for r in &v.rows {
        let left = format!(
            "{:>7}  {:>8.5}  {:<10} ",
            format!("+{}", r.tokens),
            r.rank,
            truncate(&r.kind, 10)
        );
        let room = w.saturating_sub(left.chars().count());
        let sym_w = (room / 2).max(6).min(room);
        let sym = truncate(&sanitize_line(&r.symbol), sym_w);
        let loc_w = room.saturating_sub(sym.chars().count() + 2);
        out.push(Line::from(vec![
            Span::styled(left, theme.text()),
            Span::styled(sym.clone(), theme.title(true)),
            Span::styled(
                format!(
                    "  {}",
                    fit_path(&sanitize_line(&r.path), &format!(":{}", r.line), loc_w)
                ),
                theme.dim(),
            ),
        ]));
    }
    out
}
