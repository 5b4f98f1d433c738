//! The key-hint footer (lazygit, gitui): one line naming the keys that work in the focused
//! pane, `key label` pairs, cut at the last pair that fits. The app builds the hints from the
//! keymap (`app::hints`); this only draws them.

use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::text::{sanitize_line, width};
use super::theme::Theme;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FooterHint {
    /// "ctrl-y", "/", "↓".
    pub keys: String,
    /// "copy map".
    pub label: String,
}

/// The spans of the hints that fit in `w` columns (whole pairs only).
pub fn footer_line(hints: &[FooterHint], w: usize, theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    for h in hints {
        let keys = sanitize_line(&h.keys);
        let label = sanitize_line(&h.label);
        let sep = if used > 1 { "  " } else { "" };
        let need = width(sep) + width(&keys) + 1 + width(&label);
        if used + need > w {
            break;
        }
        used += need;
        if !sep.is_empty() {
            spans.push(Span::raw(sep));
        }
        spans.push(Span::styled(
            keys,
            theme.title(true).add_modifier(Modifier::BOLD),
        ));
        spans.push(Span::styled(format!(" {label}"), theme.dim()));
    }
    Line::from(spans)
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, hints: &[FooterHint], theme: &Theme) {
    frame.render_widget(
        Paragraph::new(footer_line(hints, area.width as usize, theme)),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint(k: &str, l: &str) -> FooterHint {
        FooterHint {
            keys: k.into(),
            label: l.into(),
        }
    }

    #[test]
    fn only_whole_pairs_fit() {
        let hints = [hint("/", "search"), hint("q", "quit"), hint("?", "help")];
        let theme = Theme::default();
        let text = |w| -> String {
            footer_line(&hints, w, &theme)
                .spans
                .iter()
                .map(|s| s.content.to_string())
                .collect()
        };
        assert_eq!(text(80), " / search  q quit  ? help");
        assert_eq!(text(18), " / search  q quit");
        assert_eq!(text(5), " ");
    }
}
