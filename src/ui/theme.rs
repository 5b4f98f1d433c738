//! Colours of every pane. Plain data built once from the config (`app::config`) and borrowed by
//! `draw`; the UI thread only reads it.

use ratatui::style::{Color, Modifier, Style};

/// The palette. Every field can be overridden in the user's config (`[colors]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub fg: Color,
    pub dim: Color,
    pub accent: Color,
    pub border: Color,
    pub border_focused: Color,
    pub selection_bg: Color,
    pub mark_bg: Color,
    pub status_bg: Color,
    pub status_fg: Color,
    pub error: Color,
    pub warning: Color,
    pub ok: Color,
    pub badge_def: Color,
    pub badge_ref: Color,
    pub badge_call: Color,
    pub badge_import: Color,
    pub badge_text: Color,
    pub map_path: Color,
    pub gauge: Color,
    /// A syntect theme name (from two-face's set) for the preview.
    pub syntax_theme: String,
    /// No colour at all (`NO_COLOR`): `draw` clears every cell's colours, and selection,
    /// focus, badges and marks are shown with bold, underline and reverse instead.
    pub monochrome: bool,
}

impl Default for Theme {
    /// The dark palette, also written out in `assets/themes/dark.toml`.
    fn default() -> Self {
        Theme {
            fg: Color::Reset,
            dim: Color::DarkGray,
            accent: Color::Cyan,
            border: Color::DarkGray,
            border_focused: Color::Cyan,
            selection_bg: Color::Rgb(0x2a, 0x3a, 0x4f),
            mark_bg: Color::Rgb(0x3b, 0x33, 0x1a),
            status_bg: Color::Rgb(0x22, 0x22, 0x2a),
            status_fg: Color::Gray,
            error: Color::LightRed,
            warning: Color::Yellow,
            ok: Color::LightGreen,
            badge_def: Color::LightGreen,
            badge_ref: Color::LightBlue,
            badge_call: Color::LightMagenta,
            badge_import: Color::Yellow,
            badge_text: Color::Gray,
            map_path: Color::LightCyan,
            gauge: Color::Cyan,
            syntax_theme: "base16-ocean.dark".to_string(),
            monochrome: false,
        }
    }
}

/// Whether the user asked for no colour (<https://no-color.org>: `NO_COLOR` set and not
/// empty).
pub fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

impl Theme {
    pub fn text(&self) -> Style {
        Style::default().fg(self.fg)
    }
    pub fn dim(&self) -> Style {
        Style::default().fg(self.dim)
    }
    pub fn border(&self, focused: bool) -> Style {
        let s = Style::default().fg(if focused {
            self.border_focused
        } else {
            self.border
        });
        if self.monochrome && focused {
            s.add_modifier(Modifier::BOLD)
        } else {
            s
        }
    }
    pub fn title(&self, focused: bool) -> Style {
        let s = Style::default().fg(if focused { self.accent } else { self.fg });
        if focused {
            s.add_modifier(Modifier::BOLD)
        } else {
            s
        }
    }
    pub fn selected(&self) -> Style {
        if self.monochrome {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default().bg(self.selection_bg)
        }
    }
    pub fn status(&self) -> Style {
        if self.monochrome {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default().fg(self.status_fg).bg(self.status_bg)
        }
    }
    /// The marked lines of the preview.
    pub fn mark(&self) -> Style {
        if self.monochrome {
            Style::default().add_modifier(Modifier::UNDERLINED)
        } else {
            Style::default().bg(self.mark_bg)
        }
    }
    /// An evidence badge on a background of `color`.
    pub fn badge(&self, color: Color) -> Style {
        if self.monochrome {
            Style::default().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            Style::default()
                .fg(Color::Black)
                .bg(color)
                .add_modifier(Modifier::BOLD)
        }
    }
}
