//! Text hygiene for anything that reaches a terminal cell: repository text is data, so
//! control characters and escape sequences are made visible instead of being interpreted,
//! tabs are expanded, and long strings are cut to a display width.
//! Pure functions; called on the UI thread (view building) and on the highlighter thread.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Tab stops every 4 columns, as most editors show TypeScript and Go.
pub const TAB_WIDTH: usize = 4;

/// Replaces what a terminal would act on with something it only displays:
/// C0 controls become their Unicode "control picture" (`ESC` → `␛`), DEL → `␡`, C1
/// controls (U+0080–U+009F, which some terminals treat as CSI/OSC introducers) → `�`, and
/// bidirectional overrides/isolates (the "Trojan Source" characters) → `�`.
/// Tabs are expanded to the next tab stop so cell positions stay predictable.
/// A trailing `\r` (CRLF files) is dropped.
pub fn sanitize_line(line: &str) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut out = String::with_capacity(line.len());
    let mut col = 0usize;
    for c in line.chars() {
        match c {
            '\t' => {
                let n = TAB_WIDTH - (col % TAB_WIDTH);
                out.extend(std::iter::repeat_n(' ', n));
                col += n;
            }
            _ => {
                let shown = safe_char(c);
                out.push(shown);
                col += UnicodeWidthChar::width(shown).unwrap_or(0);
            }
        }
    }
    out
}

/// Sanitizes a multi-line string into display lines.
pub fn sanitize_lines(text: &str) -> Vec<String> {
    text.lines().map(sanitize_line).collect()
}

/// The character to display for `c` (identity for ordinary text).
pub fn safe_char(c: char) -> char {
    match c {
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
        '\u{7f}' => '\u{2421}',
        '\u{80}'..='\u{9f}' => '\u{fffd}',
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => '\u{fffd}',
        _ => c,
    }
}

/// True when `s` holds nothing a terminal could interpret.
pub fn is_safe(s: &str) -> bool {
    s.chars().all(|c| c != '\t' && safe_char(c) == c)
}

/// Cuts `s` to at most `width` display columns, ending with `…` when cut.
pub fn truncate(s: &str, width: usize) -> String {
    if UnicodeWidthStr::width(s) <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// Cuts `s` from the left to at most `width` columns (`…/src/deep/file.ts`): for paths,
/// whose end matters most.
pub fn truncate_left(s: &str, width: usize) -> String {
    if UnicodeWidthStr::width(s) <= width {
        return s.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 0;
    for c in s.chars().rev() {
        let w = UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        kept.push(c);
        used += w;
    }
    let mut out = String::from("…");
    out.extend(kept.into_iter().rev());
    out
}

/// Display width of `s` in terminal columns.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible() {
        let s = sanitize_line("a\x1b[2Jb\x07c\u{9b}31m");
        assert_eq!(s, "a␛[2Jb␇c�31m");
        assert!(is_safe(&s));
    }

    #[test]
    fn osc_and_bidi_are_neutralised() {
        let s = sanitize_line("x\x1b]52;c;AAAA\x07 \u{202e}evil\u{2066}");
        assert!(is_safe(&s));
        assert!(!s.contains('\x1b'));
        assert!(!s.contains('\u{202e}'));
    }

    #[test]
    fn tabs_expand_to_stops_and_crlf_is_dropped() {
        assert_eq!(sanitize_line("\tx\r"), "    x");
        assert_eq!(sanitize_line("ab\tc"), "ab  c");
        assert_eq!(sanitize_line("abcd\te"), "abcd    e");
    }

    #[test]
    fn ordinary_text_is_untouched() {
        let s = "fn 导出订单() -> Result<(), E> { \"é\" }";
        assert_eq!(sanitize_line(s), s);
    }

    #[test]
    fn truncation_respects_width() {
        assert_eq!(truncate("hello world", 5), "hell…");
        assert_eq!(truncate("hi", 5), "hi");
        assert_eq!(truncate("导出订单", 5), "导出…");
        assert_eq!(truncate_left("src/a/b/file.ts", 8), "…file.ts");
        assert_eq!(truncate("abc", 0), "");
    }
}
