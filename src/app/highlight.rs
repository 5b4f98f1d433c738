//! Syntax highlighting for the preview, off the UI thread. `Highlighter` turns a file into
//! ratatui lines with syntect (syntaxes and themes from two-face, which adds TypeScript/TSX);
//! `HighlightWorker` owns one on its own thread, takes requests by ticket (a newer request
//! makes an older one stale: it is abandoned between lines) and sends finished files back.
//! The syntax set takes a while to load, so it is built once, on the worker thread.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme as SynTheme};
use syntect::parsing::{SyntaxReference, SyntaxSet};

use crate::ui::text::sanitize_line;

/// Files longer than this are highlighted only this far (the rest stays plain).
pub const MAX_LINES: usize = 20_000;
/// Lines longer than this are not highlighted (minified code would stall the regexes).
pub const MAX_LINE_LEN: usize = 2_000;

pub struct Highlighter {
    syntaxes: SyntaxSet,
    theme: SynTheme,
}

impl Highlighter {
    /// Loads two-face's syntaxes and the named theme (falling back to base16-ocean.dark).
    pub fn new(theme_name: &str) -> Highlighter {
        let themes: two_face::theme::LazyThemeSet = two_face::theme::extra().into();
        let theme = themes
            .get(theme_name)
            .or_else(|| themes.get("base16-ocean.dark"))
            .cloned()
            .unwrap_or_default();
        Highlighter {
            syntaxes: two_face::syntax::extra_newlines(),
            theme,
        }
    }

    fn syntax_for(&self, path: &str) -> Option<&SyntaxReference> {
        let file = path.rsplit('/').next().unwrap_or(path);
        let ext = file.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
        let by_name = |n: &str| self.syntaxes.find_syntax_by_name(n);
        match ext.as_str() {
            "ts" | "mts" | "cts" => by_name("TypeScript"),
            "tsx" => by_name("TypeScriptReact"),
            "js" | "mjs" | "cjs" => by_name("JavaScript"),
            "jsx" => by_name("JavaScript (Babel)").or_else(|| by_name("JavaScript")),
            "py" | "pyi" => by_name("Python"),
            "go" => by_name("Go"),
            _ => None,
        }
        .or_else(|| self.syntaxes.find_syntax_by_extension(&ext))
    }

    /// Highlights `text` line by line. Returns `None` when `stale()` turns true (checked
    /// every 64 lines) or when there is no syntax for the path.
    pub fn highlight(
        &self,
        path: &str,
        text: &str,
        stale: &dyn Fn() -> bool,
    ) -> Option<Vec<Line<'static>>> {
        let syntax = self.syntax_for(path)?;
        let mut h = HighlightLines::new(syntax, &self.theme);
        let mut out = Vec::new();
        for (i, raw) in text.lines().enumerate().take(MAX_LINES) {
            if i % 64 == 0 && stale() {
                return None;
            }
            let clean = sanitize_line(raw);
            if clean.len() > MAX_LINE_LEN {
                // Keep the parser's state moving without the cost; show the line plain.
                out.push(Line::from(clean));
                continue;
            }
            let with_nl = format!("{clean}\n");
            match h.highlight_line(&with_nl, &self.syntaxes) {
                Ok(ranges) => out.push(Line::from(
                    ranges
                        .into_iter()
                        .map(|(style, piece)| {
                            Span::styled(piece.trim_end_matches('\n').to_string(), convert(style))
                        })
                        .filter(|s| !s.content.is_empty())
                        .collect::<Vec<_>>(),
                )),
                Err(_) => out.push(Line::from(clean)),
            }
        }
        Some(out)
    }
}

fn convert(s: syntect::highlighting::Style) -> Style {
    let mut style = Style::default().fg(Color::Rgb(s.foreground.r, s.foreground.g, s.foreground.b));
    if s.font_style.contains(FontStyle::BOLD) {
        style = style.add_modifier(Modifier::BOLD);
    }
    if s.font_style.contains(FontStyle::ITALIC) {
        style = style.add_modifier(Modifier::ITALIC);
    }
    if s.font_style.contains(FontStyle::UNDERLINE) {
        style = style.add_modifier(Modifier::UNDERLINED);
    }
    style
}

pub struct HighlightRequest {
    pub ticket: u64,
    pub path: String,
    pub text: Arc<str>,
}

/// A finished file: lines index-aligned with the file's lines (a prefix when cut).
pub struct Highlighted {
    pub ticket: u64,
    pub path: String,
    pub lines: Vec<Line<'static>>,
}

/// The highlighter thread.
pub struct HighlightWorker {
    tx: Option<Sender<HighlightRequest>>,
    latest: Arc<AtomicU64>,
    join: Option<JoinHandle<()>>,
}

impl HighlightWorker {
    /// Starts the thread; results go to `done`.
    pub fn spawn(theme_name: String, done: Sender<Highlighted>) -> HighlightWorker {
        let (tx, rx) = crossbeam_channel::unbounded::<HighlightRequest>();
        let latest = Arc::new(AtomicU64::new(0));
        let latest2 = latest.clone();
        let join = std::thread::Builder::new()
            .name("mapscope-highlight".into())
            .spawn(move || run(theme_name, rx, latest2, done))
            .ok();
        HighlightWorker {
            tx: Some(tx),
            latest,
            join,
        }
    }

    /// Asks for `text` to be highlighted; any earlier request becomes stale.
    pub fn request(&self, req: HighlightRequest) {
        self.latest.store(req.ticket, Ordering::SeqCst);
        if let Some(tx) = &self.tx {
            let _ = tx.send(req);
        }
    }
}

impl Drop for HighlightWorker {
    fn drop(&mut self) {
        self.latest.store(u64::MAX, Ordering::SeqCst);
        self.tx = None;
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
    }
}

fn run(
    theme_name: String,
    rx: Receiver<HighlightRequest>,
    latest: Arc<AtomicU64>,
    done: Sender<Highlighted>,
) {
    // A panic in syntect (a pathological file) must not take the preview down for good:
    // catch it per request and keep serving.
    let Ok(h) = std::panic::catch_unwind(|| Highlighter::new(&theme_name)) else {
        return;
    };
    while let Ok(mut req) = rx.recv() {
        while let Ok(newer) = rx.try_recv() {
            req = newer;
        }
        if req.ticket != latest.load(Ordering::SeqCst) {
            continue;
        }
        let ticket = req.ticket;
        let stale = || latest.load(Ordering::SeqCst) != ticket;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            h.highlight(&req.path, &req.text, &stale)
        }));
        if let Ok(Some(lines)) = result {
            if done
                .send(Highlighted {
                    ticket,
                    path: req.path,
                    lines,
                })
                .is_err()
            {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typescript_and_tsx_get_colour() {
        let h = Highlighter::new("base16-ocean.dark");
        let ts = h
            .highlight(
                "a.ts",
                "export function f(x: number): string {\n  return 'a';\n}\n",
                &|| false,
            )
            .unwrap();
        assert_eq!(ts.len(), 3);
        let colours: std::collections::BTreeSet<String> = ts[0]
            .spans
            .iter()
            .map(|s| format!("{:?}", s.style.fg))
            .collect();
        assert!(
            colours.len() > 1,
            "expected several colours, got {colours:?}"
        );
        let text: String = ts[0].spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "export function f(x: number): string {");
        let tsx = h
            .highlight(
                "a.tsx",
                "const A = () => <div className=\"x\">hi</div>;\n",
                &|| false,
            )
            .unwrap();
        assert!(tsx[0].spans.len() > 3);
    }

    #[test]
    fn control_characters_are_neutralised_in_colour_too() {
        let h = Highlighter::new("base16-ocean.dark");
        let lines = h
            .highlight("a.py", "x = '\x1b[31mred'\n", &|| false)
            .unwrap();
        let text: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
        assert!(!text.contains('\x1b'));
        assert!(text.contains('␛'));
    }

    #[test]
    fn stale_requests_are_abandoned() {
        let h = Highlighter::new("base16-ocean.dark");
        assert!(h.highlight("a.go", "package a\n", &|| true).is_none());
        assert!(h.highlight("README", "text", &|| false).is_none());
    }

    #[test]
    fn worker_answers_the_latest_ticket() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let w = HighlightWorker::spawn("base16-ocean.dark".into(), tx);
        w.request(HighlightRequest {
            ticket: 1,
            path: "a.go".into(),
            text: Arc::from("package a\n"),
        });
        let got = rx.recv_timeout(std::time::Duration::from_secs(30)).unwrap();
        assert_eq!(got.ticket, 1);
        assert_eq!(got.lines.len(), 1);
    }
}
