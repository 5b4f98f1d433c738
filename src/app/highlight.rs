//! Syntax highlighting for the preview, off the UI thread. `Highlighter` turns a file into
//! ratatui lines with syntect (syntaxes and themes from two-face, which adds TypeScript/TSX);
//! `HighlightWorker` owns one on its own thread, takes requests by ticket (a newer request
//! makes an older one stale: it is abandoned between lines) and sends finished files back.
//! The syntax set takes a while to load, so it is built once, on the worker thread.
//!
//! syntect with the pure-Rust regex engine takes about a millisecond a line, several times
//! that while the index builds on the other cores, so a long file's colours would arrive
//! only seconds after its text. So a file longer than a screen is done twice: first
//! the lines in view, from the nearest line above them that starts a top-level statement (a
//! fresh parser state is right there, short of a multi-line string or comment spanning it),
//! sent at once; then the whole file from its first line, which replaces it.
//!
//! Most of a first file's time is not its lines but syntect's one-time work for its syntax
//! (the syntax's contexts decoded, each pattern's regex compiled on first use), many times
//! what its lines cost once another file of its syntax was done. So once the index is ready the app hands the worker one sample file per main language
//! (`warm`); the worker highlights it for nothing but that work, and drops it the moment a
//! real request arrives (what it compiled stays compiled).

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
            // A component is HTML around its scripts and styles, which HTML's syntax embeds.
            "vue" | "svelte" => by_name("HTML"),
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
        self.highlight_lines(path, text, 0, MAX_LINES, stale)
    }

    /// `highlight` of lines `start..end` only, the parser starting fresh at `start`.
    pub fn highlight_lines(
        &self,
        path: &str,
        text: &str,
        start: usize,
        end: usize,
        stale: &dyn Fn() -> bool,
    ) -> Option<Vec<Line<'static>>> {
        let syntax = self.syntax_for(path)?;
        let mut h = HighlightLines::new(syntax, &self.theme);
        let mut out = Vec::new();
        let end = end.min(MAX_LINES);
        for (i, raw) in text
            .lines()
            .enumerate()
            .skip(start)
            .take(end.saturating_sub(start))
        {
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
    /// The first line in view and how many are: done first when the file is longer.
    pub view: (usize, usize),
}

/// Colours for the lines from `first` on, index-aligned with the file's lines from there
/// (a prefix of the file when cut); `complete` once the whole file is done from its start.
pub struct Highlighted {
    pub ticket: u64,
    pub path: String,
    pub first: usize,
    pub lines: Vec<Line<'static>>,
    pub complete: bool,
}

/// The ticket of a warm-up request (never a real one's: those count up from 1).
const WARM: u64 = u64::MAX;

/// Lines looked back from the view for a top-level statement to start the first pass at.
const RESTART_LOOKBACK: usize = 100;
/// Lines past the view the first pass also does (a little scrolling stays coloured).
const VIEW_MARGIN: usize = 30;

/// The line at or above `from` (at most `RESTART_LOOKBACK` above) where a parser can start
/// fresh: one that begins in column 0 with a letter, `@`, `#` or `_` (a declaration, a
/// decorator, a directive), not inside a comment's or a string's continuation.
pub fn restart_line(text: &str, from: usize) -> usize {
    let lines: Vec<&str> = text.lines().take(from + 1).collect();
    let from = from.min(lines.len().saturating_sub(1));
    (from.saturating_sub(RESTART_LOOKBACK)..=from)
        .rev()
        .find(|&i| {
            lines.get(i).is_some_and(|l| {
                l.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || matches!(c, '@' | '#' | '_'))
            })
        })
        .unwrap_or(from.saturating_sub(RESTART_LOOKBACK))
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

    /// Does syntect's one-time work for `path`'s syntax (see the module header) while no
    /// real request waits; nothing is sent back.
    pub fn warm(&self, path: String, text: Arc<str>) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(HighlightRequest {
                ticket: WARM,
                path,
                text,
                view: (0, 0),
            });
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
        if req.ticket == WARM {
            // Stopped as soon as anything else is asked for; its result is not wanted.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                h.highlight(&req.path, &req.text, &|| !rx.is_empty())
            }));
            continue;
        }
        while let Ok(newer) = rx.try_recv() {
            if newer.ticket != WARM {
                req = newer;
            }
        }
        if req.ticket != latest.load(Ordering::SeqCst) {
            continue;
        }
        let ticket = req.ticket;
        let stale = || latest.load(Ordering::SeqCst) != ticket;
        let (top, rows) = req.view;
        let total = req.text.lines().count();
        // Passes: the lines in view (a file longer than them), then the whole file.
        let mut passes = Vec::new();
        if total > rows + VIEW_MARGIN {
            let start = restart_line(&req.text, top);
            passes.push((start, top + rows + VIEW_MARGIN, false));
        }
        passes.push((0, MAX_LINES, true));
        for (start, end, complete) in passes {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                h.highlight_lines(&req.path, &req.text, start, end, &stale)
            }));
            let Ok(Some(lines)) = result else {
                break;
            };
            let sent = done.send(Highlighted {
                ticket,
                path: req.path.clone(),
                first: start,
                lines,
                complete,
            });
            if sent.is_err() {
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
    fn components_get_colour_line_for_line() {
        let h = Highlighter::new("base16-ocean.dark");
        let src = "<template>\n  <div>{{ a }}</div>\n</template>\n<script setup lang=\"ts\">\nconst a = 1\n</script>\n";
        for path in ["src/App.vue", "src/Counter.svelte"] {
            let lines = h.highlight(path, src, &|| false).unwrap();
            assert_eq!(lines.len(), 6, "{path}");
            let text: String = lines[4].spans.iter().map(|s| s.content.as_ref()).collect();
            assert_eq!(text, "const a = 1");
            assert!(lines[4].spans.len() > 1, "{path}");
        }
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
            view: (0, 20),
        });
        let got = rx.recv_timeout(std::time::Duration::from_secs(30)).unwrap();
        assert_eq!(got.ticket, 1);
        assert_eq!(got.lines.len(), 1);
        assert!(got.complete, "a short file is done in one pass");
    }

    /// A file longer than the view: its lines in view come first (from a line where a
    /// statement starts), then the whole file.
    #[test]
    fn a_long_file_gets_its_view_first() {
        let mut text = String::new();
        for i in 0..2000 {
            text.push_str(&format!(
                "export function f{i}(x: number): number {{\n  return x;\n}}\n"
            ));
        }
        let (tx, rx) = crossbeam_channel::unbounded();
        let w = HighlightWorker::spawn("base16-ocean.dark".into(), tx);
        w.request(HighlightRequest {
            ticket: 7,
            path: "big.ts".into(),
            text: Arc::from(text.as_str()),
            view: (4000, 30),
        });
        let wait = std::time::Duration::from_mins(1);
        let first = rx.recv_timeout(wait).unwrap();
        assert!(!first.complete);
        assert!(
            first.first <= 4000 && first.first >= 3900,
            "{}",
            first.first
        );
        assert!(first.first + first.lines.len() >= 4030);
        assert!(first.lines.len() < 200, "{}", first.lines.len());
        let colours: std::collections::BTreeSet<String> = first.lines[4000 - first.first]
            .spans
            .iter()
            .map(|s| format!("{:?}", s.style.fg))
            .collect();
        assert!(colours.len() > 1, "{colours:?}");
        let full = rx.recv_timeout(wait).unwrap();
        assert!(full.complete && full.first == 0);
        assert_eq!(full.lines.len(), 6000);
    }

    /// A warm-up never holds up a real request: it stops when one is queued.
    #[test]
    fn a_warm_up_gives_way_to_a_request() {
        let (tx, rx) = crossbeam_channel::unbounded();
        let w = HighlightWorker::spawn("base16-ocean.dark".into(), tx);
        let small = |ticket| HighlightRequest {
            ticket,
            path: "a.ts".into(),
            text: Arc::from("export const a = 1;\n"),
            view: (0, 20),
        };
        // The worker's own start (loading syntect's syntaxes and theme: seconds in a debug
        // build on a loaded machine) is not what is measured: it is done before the warm-up.
        w.request(small(1));
        let ready = rx.recv_timeout(std::time::Duration::from_secs(30)).unwrap();
        assert_eq!(ready.ticket, 1);
        while rx.try_recv().is_ok() {}
        let huge: String = (0..200_000)
            .map(|i| format!("const v{i} = `${{a}} b` + /* c */ f({i});\n"))
            .collect();
        w.warm("huge.ts".into(), Arc::from(huge.as_str()));
        std::thread::sleep(std::time::Duration::from_millis(50));
        let t = std::time::Instant::now();
        w.request(small(2));
        let got = rx.recv_timeout(std::time::Duration::from_secs(30)).unwrap();
        assert_eq!(got.ticket, 2);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn restarts_are_at_top_level_statements() {
        let text = "import x from 'y';\n\nfunction f() {\n  /* a\n  comment */\n  return 1;\n}\n";
        assert_eq!(restart_line(text, 5), 2);
        assert_eq!(restart_line(text, 0), 0);
        assert_eq!(restart_line(text, 99), 2);
    }
}
