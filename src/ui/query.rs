//! The query box: one line of input with a cursor, and a hint when empty.

use ratatui::layout::{Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::text::{sanitize_line, width};
use super::theme::Theme;

pub struct QueryView<'a> {
    pub text: &'a str,
    /// Cursor position in characters.
    pub cursor: usize,
    /// Right-aligned note in the title, e.g. "12 hits · 3 ms".
    pub note: String,
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, q: &QueryView<'_>, focused: bool, theme: &Theme) {
    draw_input(frame, area, " query ", q, focused, theme);
}

/// One line of input in a titled box: the query box, and the save prompt (`ui::overlay`).
pub fn draw_input(
    frame: &mut Frame<'_>,
    area: Rect,
    title: &str,
    q: &QueryView<'_>,
    focused: bool,
    theme: &Theme,
) {
    let mut block = Block::bordered()
        .border_style(theme.border(focused))
        .title(Span::styled(title.to_string(), theme.title(focused)));
    if !q.note.is_empty() {
        block = block.title_top(
            Line::from(Span::styled(format!(" {} ", q.note), theme.dim())).right_aligned(),
        );
    }
    let inner = block.inner(area);
    let shown = sanitize_line(q.text);
    let line = if shown.is_empty() && !focused {
        Line::from(Span::styled(
            "press / to search: a symbol, a path or words",
            theme.dim(),
        ))
    } else if shown.is_empty() {
        frame.set_cursor_position(Position::new(inner.x + 2, inner.y));
        Line::from(vec![
            Span::styled("› ", theme.title(true)),
            Span::styled("type a symbol, a path or words", theme.dim()),
        ])
    } else {
        let prompt = Span::styled("› ", theme.title(true));
        // Keep the cursor visible: scroll the text horizontally when it is longer than the box.
        let before: String = shown.chars().take(q.cursor).collect();
        let room = (inner.width as usize).saturating_sub(3);
        let skip_cols = width(&before).saturating_sub(room);
        let mut skipped = 0;
        let visible: String = shown
            .chars()
            .skip_while(|c| {
                let w = unicode_width::UnicodeWidthChar::width(*c).unwrap_or(0);
                if skipped < skip_cols {
                    skipped += w;
                    true
                } else {
                    false
                }
            })
            .collect();
        if focused {
            let x = inner.x + 2 + (width(&before) - skipped) as u16;
            frame.set_cursor_position(Position::new(
                x.min(inner.right().saturating_sub(1)),
                inner.y,
            ));
        }
        Line::from(vec![prompt, Span::styled(visible, theme.text())])
    };
    frame.render_widget(Paragraph::new(line).block(block), area);
}
