//! Terminal-safe text: the one place that decides what repository text may reach a terminal.
//! File names, symbols, comments, queries and arguments are data; a control character in
//! them (ESC starting a CSI or an OSC 52 clipboard write, BEL ending one, a C1 introducer
//! such as U+009B) must be shown, never acted on. Every text output goes through here: the
//! map's lines, the CLI's stdout and stderr, MCP text content and TUI cells; JSON output
//! escapes the same characters instead (`engine::base::json`).
//!
//! Pure functions, called from any thread (CLI main thread, MCP engine thread, TUI and
//! highlighter threads).

use std::borrow::Cow;

use unicode_width::UnicodeWidthChar;

/// Tab stops every 4 columns, as most editors show TypeScript and Go.
pub const TAB_WIDTH: usize = 4;

/// The character to display for `c` (identity for ordinary text): C0 controls become their
/// Unicode "control picture" (`ESC` → `␛`, `BEL` → `␇`), DEL → `␡`; C1 controls (U+0080–
/// U+009F, which some terminals take as CSI/OSC introducers) and the bidirectional
/// overrides and isolates (the "Trojan Source" characters) → `�`.
pub fn safe_char(c: char) -> char {
    match c {
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
        '\u{7f}' => '\u{2421}',
        '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => '\u{fffd}',
        _ => c,
    }
}

/// True when `c` is one a terminal could act on (what `safe_char` replaces).
pub fn is_unsafe(c: char) -> bool {
    safe_char(c) != c
}

/// True when `s` holds nothing a terminal could interpret (and no tab).
pub fn is_safe(s: &str) -> bool {
    s.chars().all(|c| !is_unsafe(c))
}

/// One line of text for a terminal: every unsafe character replaced (a newline too, so a
/// name cannot break the line structure), tabs kept. Borrows when nothing needs replacing,
/// which is always for ordinary text.
pub fn sanitize(s: &str) -> Cow<'_, str> {
    replace_unsafe(s, &['\t'])
}

/// A block of lines for a terminal (a whole command output): like `sanitize`, but newlines
/// are kept.
pub fn sanitize_block(s: &str) -> Cow<'_, str> {
    replace_unsafe(s, &['\t', '\n'])
}

fn replace_unsafe<'a>(s: &'a str, keep: &[char]) -> Cow<'a, str> {
    let bad = |c: char| is_unsafe(c) && !keep.contains(&c);
    if !s.chars().any(bad) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .map(|c| if bad(c) { safe_char(c) } else { c })
            .collect(),
    )
}

/// A line for a terminal cell: unsafe characters replaced, tabs expanded to the next tab
/// stop so cell positions stay predictable, a trailing `\r` (CRLF files) dropped.
pub fn sanitize_line(line: &str) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut out = String::with_capacity(line.len());
    let mut col = 0usize;
    for c in line.chars() {
        if c == '\t' {
            let n = TAB_WIDTH - (col % TAB_WIDTH);
            out.extend(std::iter::repeat_n(' ', n));
            col += n;
        } else {
            let shown = safe_char(c);
            out.push(shown);
            col += UnicodeWidthChar::width(shown).unwrap_or(0);
        }
    }
    out
}

/// A multi-line string as sanitized display lines.
pub fn sanitize_lines(text: &str) -> Vec<String> {
    text.lines().map(sanitize_line).collect()
}

/// A path as one safe line (`Path::display` with unsafe characters replaced).
pub fn display_path(path: &std::path::Path) -> String {
    sanitize(&path.display().to_string()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible() {
        let s = sanitize_line("a\x1b[2Jb\x07c\u{9b}31m");
        assert_eq!(s, "a␛[2Jb␇c�31m");
        assert!(is_safe(&s));
        assert_eq!(sanitize("a\x1b]52;c;QQ==\x07b\u{7f}"), "a␛]52;c;QQ==␇b␡");
    }

    #[test]
    fn osc_and_bidi_are_neutralised() {
        let s = sanitize_line("x\x1b]52;c;AAAA\x07 \u{202e}evil\u{2066}");
        assert!(is_safe(&s));
        assert!(!s.contains('\x1b'));
        assert!(!s.contains('\u{202e}'));
    }

    #[test]
    fn one_line_replaces_newlines_a_block_keeps_them() {
        assert_eq!(sanitize("a\nb\tc\r"), "a␊b\tc␍");
        assert_eq!(sanitize_block("a\nb\tc\x1b"), "a\nb\tc␛");
    }

    #[test]
    fn tabs_expand_to_stops_and_crlf_is_dropped() {
        assert_eq!(sanitize_line("\tx\r"), "    x");
        assert_eq!(sanitize_line("ab\tc"), "ab  c");
        assert_eq!(sanitize_line("abcd\te"), "abcd    e");
    }

    #[test]
    fn ordinary_text_is_untouched_and_borrowed() {
        let s = "fn 导出订单() -> Result<(), E> { \"é\" }\tx";
        assert!(matches!(sanitize(s), Cow::Borrowed(_)));
        assert!(matches!(sanitize_block("a\nb"), Cow::Borrowed(_)));
        assert_eq!(
            sanitize_line("fn 导出订单() { \"é\" }"),
            "fn 导出订单() { \"é\" }"
        );
    }
}
