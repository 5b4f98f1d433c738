//! Block comments inside a `#define`, blanked before the parse of a C or C++ file (part of
//! `tags::parser_view`). tree-sitter's C grammar lexes a macro's value as one token and
//! loses its way when a comment sits inside it: `#define jq_yywrap(s) (/*CONSTCOND*/1)` or
//! `#define f(x) x /* why */ + 1` parse as an ERROR (the macro is then no definition, and
//! the error can swallow what follows), while a comment at the end of the value is fine.
//! A comment in a directive is whitespace to the preprocessor, so blanking it changes
//! nothing the code means. A blanked comment becomes spaces, so the text keeps its length
//! and lines and positions are the file's.
//!
//! Only a comment with more of the value after it on its line is blanked: one that ends
//! the directive parses well already, and as spaces it would not (the grammar then reads
//! the next line as the value of a `#define` whose name is followed by blanks). A comment
//! over several lines is left too: its newlines, which must stay, would end the directive
//! early. Only `#define` lines are touched; a file with no comment in one is borrowed as is.
//! Runs on rayon workers, before a file's parse.

use std::borrow::Cow;

use memchr::memmem;

/// `source` with the block comments of its `#define` directives blanked.
pub fn without_define_comments(source: &str) -> Cow<'_, str> {
    let bytes = source.as_bytes();
    if memmem::find(bytes, b"/*").is_none() || memmem::find(bytes, b"define").is_none() {
        return Cow::Borrowed(source);
    }
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut line = 0;
    while line < bytes.len() {
        let next = match define_body(bytes, line) {
            Some(body) => blank_directive(bytes, body, &mut blanks),
            None => memchr::memchr(b'\n', &bytes[line..]).map_or(bytes.len(), |n| line + n),
        };
        line = next + 1;
    }
    if blanks.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut out = bytes.to_vec();
    for (start, end) in blanks {
        for b in &mut out[start..end] {
            if !matches!(*b, b'\n' | b'\r') {
                *b = b' ';
            }
        }
    }
    // Only whole comments were blanked, and each of their bytes became ASCII: the text is
    // still UTF-8.
    String::from_utf8(out).map_or(Cow::Borrowed(source), Cow::Owned)
}

/// Where the directive's text after `define` starts, when the line at `line` is a
/// `#define` (spaces allowed around `#`).
fn define_body(bytes: &[u8], line: usize) -> Option<usize> {
    let skip_blanks = |mut i: usize| {
        while bytes.get(i).is_some_and(|&b| b == b' ' || b == b'\t') {
            i += 1;
        }
        i
    };
    let hash = skip_blanks(line);
    if bytes.get(hash) != Some(&b'#') {
        return None;
    }
    let word = skip_blanks(hash + 1);
    let end = word + b"define".len();
    (bytes.get(word..end) == Some(b"define")
        && bytes
            .get(end)
            .is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'_')))
    .then_some(end)
}

/// Records the block comments of the directive whose text continues at `i` (over lines
/// ended by `\`, and inside comments), and returns where it ends (its newline, or the end).
fn blank_directive(bytes: &[u8], mut i: usize, blanks: &mut Vec<(usize, usize)>) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                let before = bytes[..i].strip_suffix(b"\r").unwrap_or(&bytes[..i]);
                if !before.ends_with(b"\\") {
                    return i;
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = comment_end(bytes, i);
                if !bytes[i..end].contains(&b'\n') && value_follows(bytes, end) {
                    blanks.push((i, end));
                }
                i = end;
            }
            // A line comment runs to the end of the line, which it cannot continue.
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                return memchr::memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |n| i + n);
            }
            quote @ (b'"' | b'\'') => {
                i += 1;
                while i < bytes.len() && bytes[i] != quote && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Where the block comment starting at `i` ends (after its `*/`, or at the end).
fn comment_end(bytes: &[u8], i: usize) -> usize {
    memmem::find(&bytes[i + 2..], b"*/").map_or(bytes.len(), |n| i + n + 4)
}

/// Whether more of a directive's text than blanks and comments follows `i` on its line.
fn value_follows(bytes: &[u8], mut i: usize) -> bool {
    loop {
        while bytes
            .get(i)
            .is_some_and(|&b| matches!(b, b' ' | b'\t' | b'\r'))
        {
            i += 1;
        }
        match (bytes.get(i), bytes.get(i + 1)) {
            (None | Some(b'\n'), _) | (Some(b'/'), Some(b'/')) => return false,
            (Some(b'/'), Some(b'*')) => i = comment_end(bytes, i),
            _ => return true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `src` with each of `comments` (verbatim in it) blanked as the module does.
    fn blanked(src: &str, comments: &[&str]) -> String {
        let mut out = src.to_string();
        for c in comments {
            // Byte for byte, as the module blanks.
            let spaces: String = c
                .chars()
                .map(|ch| {
                    if ch == '\n' {
                        "\n".to_string()
                    } else {
                        " ".repeat(ch.len_utf8())
                    }
                })
                .collect();
            out = out.replacen(c, &spaces, 1);
        }
        out
    }

    #[test]
    fn comments_inside_a_define_are_blanked_in_place() {
        let src = "#define w(s) (/*CONSTCOND*/1)\nint x; /* kept */\n";
        assert_eq!(
            without_define_comments(src),
            blanked(src, &["/*CONSTCOND*/"])
        );
        let src = "  #  define f(x) x /* why */ + 1 \\\n  /* more */ + 2\n/* after */\n";
        assert_eq!(
            without_define_comments(src),
            blanked(src, &["/* why */", "/* more */"])
        );
    }

    #[test]
    fn a_comment_that_ends_the_directive_or_runs_over_lines_is_kept() {
        for src in [
            "#define A 1 /* a long\n   note */\nint a; /* c */\n",
            "#define B /* a long\n   note */ 2\n",
            "#define C /* c */\n#define D 1\n",
            "#define E 1 /* c */ /* d */ \r\n",
        ] {
            assert_eq!(without_define_comments(src), src, "{src:?}");
        }
        let src = "#define F /* c */ /* d */ 2\n";
        assert_eq!(
            without_define_comments(src),
            blanked(src, &["/* c */", "/* d */"])
        );
    }

    #[test]
    fn other_text_is_left_alone() {
        for src in [
            "int x; /* c */\n#include <a.h> /* c */\n",
            "#define S \"/* not a comment */\"\n",
            "#define C '/'\n/* c */\n",
            "#define L 1 // a /* line comment\nint y; /* c */\n",
            "#defined_not 1 /* c */\n",
            "#define N 1\n",
        ] {
            assert_eq!(without_define_comments(src), src, "{src:?}");
        }
        assert!(matches!(
            without_define_comments("int x; /* c */\n"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn unterminated_and_multibyte_comments_stay_valid_text() {
        let src = "#define A (/* é 注释 */ 1)\n#define B (/* é";
        let out = without_define_comments(src);
        assert_eq!(out, blanked(src, &["/* é 注释 */"]));
        assert_eq!(out.len(), src.len());
    }
}
