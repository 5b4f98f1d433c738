//! The screen for a repository with nothing to map (`REPO_EMPTY`): one readable page with the
//! reason the engine gave, the languages mapscope reads, and what was skipped, instead of an
//! error cut off in every pane.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

use super::text::sanitize_line;
use super::theme::Theme;

pub struct EmptyView<'a> {
    /// The stable error code ("REPO_EMPTY").
    pub code: &'a str,
    /// The engine's message: what was skipped and why.
    pub reason: &'a str,
    /// The languages mapscope reads ("typescript, tsx, javascript, python, go").
    pub supported: String,
    /// Skipped files by extension or reason ("120 .rs", "3 too large"), when the engine
    /// reports them; empty otherwise.
    pub skipped: &'a [String],
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, v: &EmptyView<'_>, theme: &Theme) {
    let block = Block::bordered()
        .border_style(theme.border(true))
        .title(Span::styled(" nothing to map ", theme.title(true)));
    let mut lines = vec![
        Line::from(Span::styled(
            if v.code == "REPO_EMPTY" {
                "No supported source code was found here."
            } else {
                "The repository could not be indexed."
            },
            theme.title(true),
        )),
        Line::from(""),
        Line::from(vec![
            Span::styled(format!("{}: ", sanitize_line(v.code)), theme.dim()),
            Span::styled(sanitize_line(v.reason), theme.text()),
        ]),
    ];
    if !v.skipped.is_empty() {
        lines.push(Line::from(vec![
            Span::styled("skipped: ", theme.dim()),
            Span::styled(sanitize_line(&v.skipped.join(", ")), theme.text()),
        ]));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(vec![
        Span::styled("mapscope reads: ", theme.dim()),
        Span::styled(v.supported.clone(), theme.text()),
    ]));
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "Open a folder with code in one of these languages. This screen updates by itself \
         when such a file appears; r retries, q quits.",
        theme.dim(),
    )));
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(block),
        area,
    );
}
