//! Text for terminal cells: long strings cut to a display width. What may reach a cell at
//! all (control characters and escape sequences made visible, tabs expanded) is decided in
//! `engine::base::text`, re-exported here.
//! Pure functions; called on the UI thread (view building) and on the highlighter thread.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

pub use crate::engine::base::text::{is_safe, safe_char, sanitize_line, sanitize_lines};

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

/// `path` and its line range (`:12-40`, `:12` or empty) in at most `width` columns, keeping
/// what tells the hit apart longest: the directories are shortened first, to their first
/// letter from the top down (`internal/terraform/context_plan.go` →
/// `i/terraform/context_plan.go` → `i/t/context_plan.go`), then dropped from the top
/// (`…/t/context_plan.go`, `…/context_plan.go`, `context_plan.go`); then the file name is cut
/// from the left (its extension stays: `…_plan.go:1041-1126`) down to `FILE_FLOOR` columns;
/// only then does the range lose its end (`:1041`), then itself.
pub fn fit_path(path: &str, range: &str, width_limit: usize) -> String {
    let fits = |s: &str| width(s) <= width_limit;
    let full = format!("{path}{range}");
    if fits(&full) {
        return full;
    }
    let mut parts: Vec<String> = path.split('/').map(str::to_string).collect();
    let file = parts.pop().unwrap_or_default();
    let join = |dirs: &[String], skipped: bool, range: &str| -> String {
        let mut s = String::new();
        if skipped {
            s.push_str("…/");
        }
        for d in dirs {
            s.push_str(d);
            s.push('/');
        }
        s.push_str(&file);
        s.push_str(range);
        s
    };
    for i in 0..parts.len() {
        parts[i] = abbreviate(&parts[i]);
        let candidate = join(&parts, false, range);
        if fits(&candidate) {
            return candidate;
        }
    }
    for k in 1..=parts.len() {
        let candidate = join(&parts[k..], true, range);
        if fits(&candidate) {
            return candidate;
        }
    }
    let start_only = range.split('-').next().unwrap_or(range);
    for r in [range, start_only, ""] {
        let bare = format!("{file}{r}");
        if fits(&bare) {
            return bare;
        }
        let room = width_limit.saturating_sub(width(r));
        if room >= FILE_FLOOR.min(width(&file)) {
            return format!("{}{r}", truncate_left(&file, room));
        }
    }
    truncate_left(&file, width_limit)
}

/// Columns of a file name kept before a hit's line range loses its end.
pub const FILE_FLOOR: usize = 6;

/// A directory name cut to its first character (a leading dot kept: `.github` → `.g`).
fn abbreviate(dir: &str) -> String {
    let mut chars = dir.chars();
    match chars.next() {
        Some('.') => chars.next().map_or(".".to_string(), |c| format!(".{c}")),
        Some(c) => c.to_string(),
        None => String::new(),
    }
}

/// `n` and the noun, singular for one: "1 hit", "3 hits", "1 code file".
pub fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Display width of `s` in terminal columns.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_singular_for_one() {
        assert_eq!(count(1, "hit", "hits"), "1 hit");
        assert_eq!(count(0, "hit", "hits"), "0 hits");
        assert_eq!(count(2, "code file", "code files"), "2 code files");
    }

    #[test]
    fn truncation_respects_width() {
        assert_eq!(truncate("hello world", 5), "hell…");
        assert_eq!(truncate("hi", 5), "hi");
        assert_eq!(truncate("导出订单", 5), "导出…");
        assert_eq!(truncate_left("src/a/b/file.ts", 8), "…file.ts");
        assert_eq!(truncate("abc", 0), "");
    }

    #[test]
    fn paths_keep_their_file_name() {
        let p = "internal/terraform/context_plan.go";
        let r = ":1041-1126";
        assert_eq!(
            fit_path(p, r, 80),
            "internal/terraform/context_plan.go:1041-1126"
        );
        assert_eq!(fit_path(p, r, 40), "i/terraform/context_plan.go:1041-1126");
        assert_eq!(fit_path(p, r, 30), "i/t/context_plan.go:1041-1126");
        assert_eq!(fit_path(p, r, 28), "…/context_plan.go:1041-1126");
        assert_eq!(fit_path(p, r, 26), "context_plan.go:1041-1126");
        // The range stays whole while the file name keeps 6 columns; then it loses its end.
        assert_eq!(fit_path(p, r, 21), "…xt_plan.go:1041-1126");
        assert_eq!(fit_path(p, r, 18), "…plan.go:1041-1126");
        assert_eq!(fit_path(p, r, 16), "…an.go:1041-1126");
        assert_eq!(fit_path(p, r, 14), "…_plan.go:1041");
        assert_eq!(
            fit_path("src/long_name/x/file.ts", "", 20),
            "s/l/x/file.ts",
            "directories shorten from the top"
        );
        assert_eq!(
            fit_path("src/long_name/x/file.ts", "", 21),
            "s/long_name/x/file.ts"
        );
        assert_eq!(fit_path(p, r, 10), "…t_plan.go");
        assert_eq!(fit_path(".github/x.yml", "", 9), ".g/x.yml");
        assert_eq!(fit_path("a.go", ":3", 4), "a.go");
        for w in 0..50 {
            assert!(width(&fit_path(p, r, w)) <= w, "{w}");
        }
    }
}
