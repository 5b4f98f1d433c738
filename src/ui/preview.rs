//! The preview pane: the selected hit's file with line numbers, the hit's line range marked.
//! Lines arrive already sanitized (plain) and, when the highlighter is done, styled; a line
//! without a styled version is drawn plain, so a frame never waits for colour.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::text::{fit_path, sanitize_line, width};
use super::theme::Theme;

/// One visible line: raw text from the file (sanitized here, when drawn) or a line the
/// highlighter already styled (and sanitized).
pub enum PreviewRow<'a> {
    Plain(&'a str),
    Styled(&'a Line<'static>),
}

pub struct PreviewView<'a> {
    /// The file's path (title).
    pub title: &'a str,
    /// The visible window of the file, starting at line `first` (0-based). The app passes
    /// only what fits, so a huge file costs nothing per frame.
    pub rows: Vec<PreviewRow<'a>>,
    pub first: usize,
    /// Lines in the whole file (for the gutter width).
    pub total: usize,
    /// Marked line range, 1-based inclusive.
    pub mark: Option<(u32, u32)>,
    /// Shown when there is no file.
    pub note: &'a str,
    /// "plain" until the colours arrive.
    pub highlighted: bool,
}

/// The scroll offset that centres lines `start..=end` (1-based) in a pane of `height` rows.
pub fn center_scroll(start: u32, end: u32, height: usize, total: usize) -> usize {
    let start = start.max(1) as usize - 1;
    let len = (end.max(start as u32 + 1) as usize).saturating_sub(start);
    let top = if len >= height {
        // Taller than the pane: its first line near the top, one line of context above.
        start.saturating_sub(1)
    } else {
        start.saturating_sub((height - len) / 2)
    };
    top.min(total.saturating_sub(height.min(total)))
}

/// Rows of text the preview shows inside `area` (its border excluded).
pub fn inner_height(area: Rect) -> usize {
    area.height.saturating_sub(2) as usize
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, v: &PreviewView<'_>, focused: bool, theme: &Theme) {
    let title_w = (area.width as usize).saturating_sub(6);
    let mut block = Block::bordered()
        .border_style(theme.border(focused))
        .title(Span::styled(
            format!(" {} ", fit_path(&sanitize_line(v.title), "", title_w)),
            theme.title(focused),
        ));
    if let Some((s, e)) = v.mark {
        let range = if e > s {
            format!("lines {s}-{e}")
        } else {
            format!("line {s}")
        };
        let note = if v.highlighted {
            format!(" {range} ")
        } else {
            format!(" {range} · plain ")
        };
        block = block.title_bottom(Line::from(Span::styled(note, theme.dim())).right_aligned());
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
    let digits = v.total.max(1).to_string().len();
    let mut lines = Vec::with_capacity(v.rows.len());
    for (i, row) in v.rows.iter().enumerate().take(inner.height as usize) {
        let no = (v.first + i) as u32 + 1;
        let marked = v.mark.is_some_and(|(s, e)| s <= no && no <= e);
        let gutter_style = if marked {
            theme.mark().fg(theme.accent)
        } else {
            theme.dim()
        };
        let mut spans = vec![Span::styled(
            format!("{no:>digits$}{}", if marked { "▌" } else { " " }),
            gutter_style,
        )];
        match row {
            PreviewRow::Styled(styled) => spans.extend(styled.spans.iter().cloned()),
            PreviewRow::Plain(text) => spans.push(Span::styled(sanitize_line(text), theme.text())),
        }
        let mut line = Line::from(spans);
        if marked {
            // Pad so the mark's background spans the whole row.
            let used: usize = line.spans.iter().map(|s| width(&s.content)).sum();
            let pad = (inner.width as usize).saturating_sub(used);
            line.spans.push(Span::raw(" ".repeat(pad)));
            line = line.patch_style(theme.mark());
        }
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centring_puts_the_range_mid_pane() {
        // lines 50..=52 in a 11-row pane of a 200-line file: 4 rows above.
        assert_eq!(center_scroll(50, 52, 11, 200), 45);
        // near the top: no negative scroll
        assert_eq!(center_scroll(2, 2, 11, 200), 0);
        // near the end: the last page
        assert_eq!(center_scroll(199, 199, 11, 200), 189);
        // range taller than the pane: start at its first line
        assert_eq!(center_scroll(10, 40, 11, 200), 8);
        // short file
        assert_eq!(center_scroll(3, 3, 20, 5), 0);
    }
}
