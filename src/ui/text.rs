//! Text for terminal cells: long strings cut to a display width. What may reach a cell at
//! all (control characters and escape sequences made visible, tabs expanded) is decided in
//! `engine::text`, re-exported here.
//! Pure functions; called on the UI thread (view building) and on the highlighter thread.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

pub use crate::engine::text::{is_safe, safe_char, sanitize_line, sanitize_lines};

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
    fn truncation_respects_width() {
        assert_eq!(truncate("hello world", 5), "hell…");
        assert_eq!(truncate("hi", 5), "hi");
        assert_eq!(truncate("导出订单", 5), "导出…");
        assert_eq!(truncate_left("src/a/b/file.ts", 8), "…file.ts");
        assert_eq!(truncate("abc", 0), "");
    }
}
