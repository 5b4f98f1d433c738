//! The status bar (repo, files, symbols, index generation and age, tokenizer, tokens used /
//! budget, focus files, last message) and the indexing progress gauge.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Gauge, Paragraph};
use ratatui::Frame;

use super::text::{count, sanitize_line, truncate, width};
use super::theme::Theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Ok,
    Warning,
    Error,
}

pub struct StatusView<'a> {
    pub repo: &'a str,
    /// `None` until the index is built.
    pub files: Option<usize>,
    pub symbols: Option<usize>,
    pub generation: u64,
    /// "3s", "2m".
    pub age: String,
    pub tokenizer: &'a str,
    pub tokens: usize,
    pub budget: usize,
    pub focus: &'a [String],
    pub excluded: usize,
    /// The index could not be built (the panes say why).
    pub failed: bool,
    pub message: Option<(&'a str, Level)>,
    pub freshness: FreshnessView,
}

/// How fresh the index is: what the watcher saw that is not indexed yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FreshnessView {
    /// Changed files not reflected in the shown index.
    pub pending: usize,
    /// A refresh is running (the spinner turns).
    pub rebuilding: bool,
    /// Frame of the spinner (advances about ten times a second).
    pub spinner: usize,
    /// `Some(false)` when live updates are off (the watcher failed); `None` when unknown.
    pub live: Option<bool>,
    /// Out of inotify watches: the watcher polls the tree every this many seconds.
    pub polling_secs: Option<u64>,
}

const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// "⠙ 3 changes pending" while a refresh runs; otherwise "live" (the watcher keeps the
/// index fresh), "live (polling 2s)" (out of inotify watches, the tree is polled) or "live
/// off"; nothing when unknown (no watcher was started).
pub fn freshness_label(f: &FreshnessView) -> Option<String> {
    let spin = SPINNER[f.spinner % SPINNER.len()];
    match (f.rebuilding, f.pending, f.live) {
        (true, 0, _) => Some(format!("{spin} updating")),
        (true, 1, _) => Some(format!("{spin} 1 change pending")),
        (true, n, _) => Some(format!("{spin} {n} changes pending")),
        (false, _, Some(false)) => Some("live off".to_string()),
        (false, _, Some(true)) => Some(match f.polling_secs {
            Some(secs) => format!("live (polling {secs}s)"),
            None => "live".to_string(),
        }),
        (false, _, None) => None,
    }
}

pub struct ProgressView<'a> {
    pub phase: &'a str,
    pub done: usize,
    /// 0 when unknown.
    pub total: usize,
    pub elapsed_ms: u64,
}

/// Formats an age in seconds compactly.
pub fn format_age(secs: u64) -> String {
    match secs {
        0..=59 => format!("{secs}s"),
        60..=3599 => format!("{}m", secs / 60),
        _ => format!("{}h", secs / 3600),
    }
}

/// The status bar's text: (facts that may be cut, facts that never are). The map's tokens /
/// budget and the index's freshness are what a user acts on, so a message or a narrow
/// terminal cuts the others first.
pub fn status_parts(s: &StatusView<'_>) -> (String, String) {
    let sep = " · ";
    let mut info: Vec<String> = vec![s.repo.to_string()];
    let mut essential: Vec<String> = vec![format!("{}/{} tok", s.tokens, s.budget)];
    match (s.files, s.symbols) {
        (Some(f), Some(n)) => {
            info.push(count(f, "code file", "code files"));
            info.push(count(n, "symbol", "symbols"));
            let mut fresh = format!("gen {} · indexed {} ago", s.generation, s.age);
            if let Some(label) = freshness_label(&s.freshness) {
                fresh = format!("{fresh}{sep}{label}");
            }
            essential.push(fresh);
        }
        _ if s.failed => essential.push("not indexed".to_string()),
        _ => essential.push("indexing…".to_string()),
    }
    info.push(s.tokenizer.to_string());
    if !s.focus.is_empty() {
        let first = s.focus[0].rsplit('/').next().unwrap_or(&s.focus[0]);
        if s.focus.len() == 1 {
            info.push(format!("focus {first}"));
        } else {
            info.push(format!("focus {first} +{}", s.focus.len() - 1));
        }
    }
    if s.excluded > 0 {
        info.push(format!("{} excluded", s.excluded));
    }
    (
        sanitize_line(&info.join(sep)),
        sanitize_line(&essential.join(sep)),
    )
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, s: &StatusView<'_>, theme: &Theme) {
    let (info, essential) = status_parts(s);
    let w = area.width as usize;
    let essential = truncate(&format!(" {essential}"), w);
    let after_essential = w.saturating_sub(width(&essential));
    // The message gets what the essential facts leave; the other facts what it leaves.
    let msg = s.message.map(|(m, level)| {
        let color = match level {
            Level::Info => theme.status_fg,
            Level::Ok => theme.ok,
            Level::Warning => theme.warning,
            Level::Error => theme.error,
        };
        let text = truncate(&sanitize_line(m), after_essential.saturating_sub(3));
        (format!(" {text} "), color)
    });
    let msg_w = msg.as_ref().map_or(0, |(t, _)| width(t));
    let info_room = after_essential.saturating_sub(msg_w + 3);
    let info = if info_room >= 6 {
        format!(" {} ·", truncate(&info, info_room - 3))
    } else {
        String::new()
    };
    let pad = w.saturating_sub(width(&info) + width(&essential) + msg_w);
    let mut spans = vec![
        Span::styled(info, theme.status()),
        Span::styled(essential, theme.status().add_modifier(Modifier::BOLD)),
        Span::styled(" ".repeat(pad), theme.status()),
    ];
    if let Some((text, color)) = msg {
        spans.push(Span::styled(
            text,
            theme.status().fg(color).add_modifier(Modifier::BOLD),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub fn draw_progress(frame: &mut Frame<'_>, area: Rect, p: &ProgressView<'_>, theme: &Theme) {
    let block = Block::bordered()
        .border_style(theme.border(false))
        .title(Span::styled(" indexing ", theme.title(true)));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 {
        return;
    }
    let [label_area, gauge_area, _] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(inner);
    let secs = p.elapsed_ms as f64 / 1000.0;
    // The parse counts the files it reads; the link counts the code files they gave (the
    // status bar's number), so the last count on the gauge is the one the status bar shows.
    let label = match (p.done, p.total) {
        (_, 0) => format!("{}…  {secs:.1} s", p.phase),
        (0, total) => format!("{} {total} files…  {secs:.1} s", p.phase),
        (done, total) if done == total && p.phase == "linking" => format!(
            "{} {}…  {secs:.1} s",
            p.phase,
            count(total, "code file", "code files")
        ),
        (done, total) => format!("{} {done}/{total} files  {secs:.1} s", p.phase),
    };
    frame.render_widget(
        Paragraph::new(Line::from(Span::styled(label, theme.text()))),
        label_area,
    );
    if p.done == 0 {
        // No count to show (the phase reports none): a block sweeping across says "working".
        let w = gauge_area.width as usize;
        let block = 6.min(w);
        let span = (w - block).max(1);
        let step = (p.elapsed_ms / 60) as usize % (2 * span);
        let pos = if step < span { step } else { 2 * span - step };
        let line = format!(
            "{}{}{}",
            "░".repeat(pos),
            "█".repeat(block),
            "░".repeat(w.saturating_sub(pos + block))
        );
        frame.render_widget(
            Paragraph::new(Line::from(Span::styled(
                line,
                Style::default().fg(theme.gauge),
            ))),
            gauge_area,
        );
        return;
    }
    let ratio = if p.total > 0 {
        (p.done as f64 / p.total as f64).clamp(0.0, 1.0)
    } else {
        0.0
    };
    frame.render_widget(
        Gauge::default()
            .gauge_style(Style::default().fg(theme.gauge).bg(Color::Reset))
            .ratio(ratio)
            .label(format!("{:.0}%", ratio * 100.0)),
        gauge_area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freshness_says_what_is_pending() {
        let mut f = FreshnessView::default();
        assert_eq!(freshness_label(&f), None);
        f.live = Some(true);
        assert_eq!(freshness_label(&f).as_deref(), Some("live"));
        let polling = FreshnessView {
            polling_secs: Some(2),
            ..f
        };
        assert_eq!(
            freshness_label(&polling).as_deref(),
            Some("live (polling 2s)")
        );
        f.live = Some(false);
        assert_eq!(freshness_label(&f).as_deref(), Some("live off"));
        f.rebuilding = true;
        f.pending = 3;
        assert_eq!(freshness_label(&f).as_deref(), Some("⠋ 3 changes pending"));
        f.pending = 1;
        f.spinner = 1;
        assert_eq!(freshness_label(&f).as_deref(), Some("⠙ 1 change pending"));
        f.pending = 0;
        assert_eq!(freshness_label(&f).as_deref(), Some("⠙ updating"));
    }

    #[test]
    fn ages_are_compact() {
        assert_eq!(format_age(5), "5s");
        assert_eq!(format_age(125), "2m");
        assert_eq!(format_age(7300), "2h");
    }
}
