//! The references pane, drawn in the hits pane's place while it is open: who uses a
//! definition and what it uses. Per definition a header line, then its `callers` and
//! `callees` sections, one row per use site (badge, `path:line`, the caller or the callee,
//! and how the use was bound, marked `?` when ambiguous).

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::hits::{visible_offset, EvidenceBadge};
use super::text::{fit_path, sanitize_line, truncate, width};
use super::theme::Theme;

/// One line of the pane: only `Use` lines can be selected.
#[derive(Debug, Clone, PartialEq)]
pub enum RefsLine {
    /// A definition answered: its name, kind and `path:start-end`.
    Definition {
        name: String,
        kind: String,
        location: String,
    },
    /// `callers (3)`, `callees (first 100 of 240; 4 bound to nothing)`.
    Section(String),
    /// A use site.
    Use(RefsRow),
}

/// One use site, reduced to what the pane shows.
#[derive(Debug, Clone, PartialEq)]
pub struct RefsRow {
    pub badge: EvidenceBadge,
    /// `call`, `ref`, `type`, `inh`, `imp`.
    pub kind: &'static str,
    pub path: String,
    pub line: u32,
    /// A caller's row: the definition the use is in (`(top level)`); a callee's: the name
    /// and where it went (`helper → pkg/util.py:1`).
    pub what: String,
    /// `import`, `same file`, `guess by name`…
    pub binding: String,
    pub ambiguous: bool,
    /// In supporting code (tests, fixtures, examples): drawn dimmer.
    pub test: bool,
}

pub struct RefsPaneView<'a> {
    /// What was asked: `helper`, `src/app.py (3 definitions)`.
    pub title: String,
    pub lines: &'a [RefsLine],
    /// The selected line (a `Use`).
    pub selected: Option<usize>,
    pub offset: usize,
    /// Shown when there are no lines: looking up, or why there is no answer.
    pub note: &'a str,
    /// "3/12".
    pub title_note: String,
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, v: &RefsPaneView<'_>, focused: bool, theme: &Theme) {
    let title = format!(" refs: {} ", sanitize_line(&v.title));
    let room = (area.width as usize).saturating_sub(width(&v.title_note) + 6);
    let mut block = Block::bordered()
        .border_style(theme.border(focused))
        .title(Span::styled(truncate(&title, room), theme.title(focused)));
    if !v.title_note.is_empty() {
        block = block.title_top(
            Line::from(Span::styled(format!(" {} ", v.title_note), theme.dim())).right_aligned(),
        );
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if v.lines.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(sanitize_line(v.note), theme.dim()))),
            inner,
        );
        return;
    }
    let visible = (inner.height as usize).max(1);
    let off = visible_offset(v.offset, v.selected, visible, v.lines.len());
    let w = inner.width as usize;
    let lines: Vec<Line<'static>> = v
        .lines
        .iter()
        .enumerate()
        .skip(off)
        .take(visible)
        .map(|(i, line)| match line {
            RefsLine::Definition {
                name,
                kind,
                location,
            } => {
                let text = format!(
                    "{}  {}  {}",
                    sanitize_line(name),
                    kind,
                    sanitize_line(location)
                );
                Line::from(Span::styled(
                    truncate(&text, w),
                    Style::default()
                        .fg(theme.map_path)
                        .add_modifier(Modifier::BOLD),
                ))
            }
            RefsLine::Section(text) => Line::from(Span::styled(
                truncate(&format!(" {}", sanitize_line(text)), w),
                theme.title(false),
            )),
            RefsLine::Use(row) => row_line(row, w, v.selected == Some(i), theme),
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Columns the location and `what` need before the binding's words get a place.
const ROOM_FOR_BINDING: usize = 24;

/// `  call  path:line  what            binding?`: the binding keeps its room at the right
/// (only its `?` on a narrow pane), the location its file name and line, the rest goes to
/// `what`.
fn row_line(row: &RefsRow, w: usize, selected: bool, theme: &Theme) -> Line<'static> {
    let base = if selected {
        theme.selected()
    } else {
        Style::default()
    };
    let text_fg = if row.test { theme.dim } else { theme.fg };
    let badge = Span::styled(
        format!("{:^6}", row.kind),
        theme.badge(row.badge.color(theme)),
    );
    let mark = if row.ambiguous { " ?" } else { "" };
    let mut binding = format!(" {}{mark} ", sanitize_line(&row.binding));
    // The badge and a space before the location, two spaces before `what`; on a narrow
    // pane the binding keeps only its mark, so that the location keeps its line.
    let fixed = 6 + 1 + 2;
    if w.saturating_sub(fixed + width(&binding)) < ROOM_FOR_BINDING {
        binding = format!("{mark} ");
    }
    let rest = w.saturating_sub(fixed + width(&binding));
    let range = format!(":{}", row.line);
    let path = sanitize_line(&row.path);
    let loc_need = width(&path) + range.len();
    let location = fit_path(&path, &range, loc_need.min((rest * 3 / 5).max(rest / 2)));
    let what_room = rest.saturating_sub(width(&location));
    let what = truncate(&sanitize_line(&row.what), what_room);
    let pad = what_room.saturating_sub(width(&what));
    let binding_style = if row.ambiguous {
        base.fg(theme.warning)
    } else {
        base.fg(theme.dim)
    };
    Line::from(vec![
        badge,
        Span::styled(" ", base),
        Span::styled(location, base.fg(text_fg)),
        Span::styled("  ", base),
        Span::styled(
            format!("{what}{}", " ".repeat(pad)),
            base.fg(theme.accent).add_modifier(Modifier::BOLD),
        ),
        Span::styled(binding, binding_style),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(what: &str, path: &str, ambiguous: bool) -> RefsRow {
        RefsRow {
            badge: EvidenceBadge::Call,
            kind: "call",
            path: path.into(),
            line: 1041,
            what: what.into(),
            binding: "guess by name".into(),
            ambiguous,
            test: false,
        }
    }

    #[test]
    fn a_row_fills_its_width_and_keeps_the_line_and_the_binding() {
        let long = row(
            "transformIndexHtmlMiddleware",
            "packages/vite/src/node/server/middlewares/indexHtml.ts",
            true,
        );
        for w in [40, 58, 78, 118] {
            let line = row_line(&long, w, false, &Theme::default());
            let text: String = line.spans.iter().map(|s| s.content.to_string()).collect();
            assert_eq!(width(&text), w, "{w}: {text:?}");
            assert!(text.contains("Html.ts:1041"), "{w}: {text:?}");
            let binding = if w < 50 { " ? " } else { " guess by name ? " };
            assert!(text.ends_with(binding), "{w}: {text:?}");
        }
        let short = row("run", "a.py", false);
        let line = row_line(&short, 78, true, &Theme::default());
        let text: String = line.spans.iter().map(|s| s.content.to_string()).collect();
        assert!(text.contains("a.py:1041  run"), "{text:?}");
        assert!(!text.contains('?'));
    }

    #[test]
    fn control_characters_from_the_repository_never_reach_a_cell() {
        use ratatui::backend::TestBackend;
        use ratatui::Terminal;
        let evil = "\x1b]0;pwned\x07\x1b[31m\u{9b}2J";
        let lines = vec![
            RefsLine::Section(format!("note {evil}")),
            RefsLine::Definition {
                name: format!("run{evil}"),
                kind: "function".into(),
                location: format!("a{evil}.py:1-2"),
            },
            RefsLine::Use(row(&format!("caller{evil}"), &format!("b{evil}.py"), true)),
        ];
        let view = RefsPaneView {
            title: format!("run{evil}"),
            lines: &lines,
            selected: Some(2),
            offset: 0,
            note: "",
            title_note: "1/1".into(),
        };
        let mut t = Terminal::new(TestBackend::new(60, 8)).unwrap();
        t.draw(|f| draw(f, f.area(), &view, true, &Theme::default()))
            .unwrap();
        let buf = t.backend().buffer();
        for cell in buf.content() {
            assert!(
                !cell.symbol().chars().any(char::is_control),
                "{:?}",
                cell.symbol()
            );
        }
        let text: String = buf
            .content()
            .iter()
            .map(ratatui::buffer::Cell::symbol)
            .collect();
        assert!(text.contains("run"), "{text}");
    }
}
