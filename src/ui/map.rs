//! The repo-map pane: the budgeted map exactly as `mapscope map` prints it (sanitized for the
//! terminal only), with file headers coloured (a path-only file's in italics, not bold) and
//! the selected file highlighted.

use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use ratatui::Frame;

use super::text::width;
use super::theme::Theme;

pub struct MapPaneView<'a> {
    /// The map text's lines, sanitized.
    pub lines: &'a [String],
    /// Line indices of the file headers, ascending.
    pub headers: &'a [usize],
    /// Those of files shown by their path alone (a source file without a grammar),
    /// ascending: drawn in the header colour, not bold, in italics.
    pub path_only: &'a [usize],
    /// Header line of the selected file.
    pub selected: Option<usize>,
    pub scroll: usize,
    /// "987/1024 tokens · o200k".
    pub title_note: String,
    /// Shown when there is no map yet.
    pub note: &'a str,
    /// A newer map is being computed.
    pub updating: bool,
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, v: &MapPaneView<'_>, focused: bool, theme: &Theme) {
    let height = area.height.saturating_sub(2) as usize;
    let scroll = v.scroll.min(v.lines.len().saturating_sub(1));
    let mut block = Block::bordered()
        .border_style(theme.border(focused))
        .title(Span::styled(" map ", theme.title(focused)))
        .title_top(
            Line::from(Span::styled(
                format!(
                    " {}{} ",
                    v.title_note,
                    if v.updating { " · updating…" } else { "" }
                ),
                theme.dim(),
            ))
            .right_aligned(),
        );
    if !v.lines.is_empty() {
        let last = (scroll + height).min(v.lines.len());
        block = block.title_bottom(
            Line::from(Span::styled(
                format!(" {}-{} of {} ", scroll + 1, last, v.lines.len()),
                theme.dim(),
            ))
            .right_aligned(),
        );
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if v.lines.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(v.note.to_string(), theme.dim()))),
            inner,
        );
        return;
    }
    let mut lines = Vec::with_capacity(height);
    for idx in scroll..(scroll + height).min(v.lines.len()) {
        let text = &v.lines[idx];
        let is_header = v.headers.binary_search(&idx).is_ok();
        let mut style = if v.path_only.binary_search(&idx).is_ok() {
            Style::default()
                .fg(theme.map_path)
                .add_modifier(Modifier::ITALIC)
        } else if is_header {
            Style::default()
                .fg(theme.map_path)
                .add_modifier(Modifier::BOLD)
        } else if text.trim_start().starts_with('⋮') {
            theme.dim()
        } else {
            theme.text()
        };
        let mut content = text.clone();
        if v.selected == Some(idx) {
            style = style.patch(theme.selected());
            let pad = (inner.width as usize).saturating_sub(width(text));
            content.push_str(&" ".repeat(pad));
        }
        lines.push(Line::from(Span::styled(content, style)));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
