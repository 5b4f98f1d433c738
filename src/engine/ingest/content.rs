//! Loading one source file safely (`load_source`: size checked on the open file, invalid
//! UTF-8 replaced) and judging its content (`classify_content`: binary, minified, generated).
//! Pure per-file functions the index build calls from rayon workers.

use std::path::Path;

use crate::engine::base::guarded::{self, Follow};
use crate::engine::base::model::Lang;
use crate::engine::base::model::SkipReason;

/// A NUL byte in this many leading bytes marks a file as binary (git uses the same window).
const BINARY_SNIFF_LEN: usize = 8 * 1024;
/// A line longer than this (in bytes, `\r\n` excluded) marks a file as minified.
pub const MAX_LINE_LEN: usize = 5000;
/// An average line length above this marks a file as minified…
pub const MAX_AVG_LINE_LEN: usize = 300;
/// …but only from this size on: a short one-liner is not minified, just short.
const MIN_LEN_FOR_AVG: usize = 1024;
/// `@generated` and "generated … do not edit" markers count only in this many first lines.
const GENERATED_MARKER_LINES: usize = 10;
/// The Go `// Code generated` header is searched at most this far (license headers are long).
const GO_HEADER_MAX_LINES: usize = 200;

/// Reads one source file for parsing.
///
/// Not a regular file (a FIFO, device, symlink: see `guarded`), vanished since the walk, or
/// not readable → `Unreadable`; above `max_size` (by metadata, or because it grew while
/// being read) → `TooLarge`; then `classify_content`. Invalid UTF-8 is replaced (U+FFFD),
/// not skipped: one bad byte in a comment should not hide a file. A UTF-8 BOM is stripped.
pub fn load_source(abs_path: &Path, rel_path: &str, max_size: u64) -> Result<String, SkipReason> {
    let mut bytes = match guarded::read(abs_path, max_size, Follow::No) {
        Ok(bytes) => bytes,
        Err(guarded::OpenError::TooLarge(_)) => return Err(SkipReason::TooLarge),
        Err(_) => return Err(SkipReason::Unreadable),
    };
    if let Some(reason) = classify_content(rel_path, &bytes) {
        return Err(reason);
    }
    if bytes.starts_with(UTF8_BOM) {
        bytes.drain(..UTF8_BOM.len());
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
    })
}

/// Reads a file `classify_content` judges generated, for a look-up in it
/// (`index::generated`): `None` if it cannot be read, is above `max_size`, or is no longer
/// generated (it changed since the walk). Text as `load_source` gives it.
pub fn load_generated(abs_path: &Path, rel_path: &str, max_size: u64) -> Option<String> {
    let bytes = guarded::read(abs_path, max_size, Follow::No).ok()?;
    if classify_content(rel_path, &bytes) != Some(SkipReason::Generated) {
        return None;
    }
    let text = strip_bom(&bytes);
    Some(String::from_utf8_lossy(text).into_owned())
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

pub(crate) fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes)
}

/// Why a file's content should keep it out of the index, if it should.
///
/// - `Binary`: a NUL byte in the first 8 KiB.
/// - `Minified`: a minified file name (see `walk`), a line longer than `MAX_LINE_LEN` bytes,
///   or, for content of at least 1 KiB, an average line length above `MAX_AVG_LINE_LEN`.
///   Lengths are in bytes without the line terminator, so CRLF files judge like LF ones.
/// - `Generated`: in the leading comment block (before the first line of code), Go's
///   `// Code generated … DO NOT EDIT.` line (`#` in Python), or, within the first 10 lines,
///   an `@generated` marker or a "generated … do not edit" notice; in C or C++, flex's or
///   Bison's banner within the first 20 lines (`is_scanner_or_parser_output`).
pub fn classify_content(rel_path: &str, bytes: &[u8]) -> Option<SkipReason> {
    let sniff = &bytes[..bytes.len().min(BINARY_SNIFF_LEN)];
    if sniff.contains(&0) {
        return Some(SkipReason::Binary);
    }
    let name = rel_path.rsplit('/').next().unwrap_or(rel_path);
    if is_minified_name(name) {
        return Some(SkipReason::Minified);
    }
    let text = strip_bom(bytes);
    if is_generated(rel_path, text) || is_scanner_or_parser_output(rel_path, text) {
        return Some(SkipReason::Generated);
    }
    if looks_minified(text) {
        return Some(SkipReason::Minified);
    }
    None
}

/// Lines of `text` without their terminator (`\n` or `\r\n`); a final newline does not
/// start another line.
fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let empty = text.is_empty();
    // `body.split(|&b| b == b'\n')`, with the newlines found by memchr: every file a run
    // loads (warm ones included) is scanned here, so a byte-at-a-time split would weigh on a
    // warm map.
    let mut start = 0;
    memchr::memchr_iter(b'\n', body)
        .chain(std::iter::once(body.len()))
        .map(move |end| {
            let line = &body[start..end];
            start = end + 1;
            line.strip_suffix(b"\r").unwrap_or(line)
        })
        .filter(move |_| !empty)
}

fn looks_minified(text: &[u8]) -> bool {
    let mut count = 0usize;
    let mut total = 0usize;
    for line in lines(text) {
        if line.len() > MAX_LINE_LEN {
            return true;
        }
        count += 1;
        total += line.len();
    }
    text.len() >= MIN_LEN_FOR_AVG && total > MAX_AVG_LINE_LEN.saturating_mul(count)
}

fn is_generated(rel_path: &str, text: &[u8]) -> bool {
    let line_comment: &[&[u8]] = match Lang::from_path(rel_path) {
        Some(Lang::Python) => &[b"#"],
        Some(_) => &[b"//"],
        None => &[b"//", b"#", b"<!--"],
    };
    // Only the leading comment block counts: a marker after the package clause or the first
    // import is talking about something else (Go's rule, applied to every marker).
    let mut in_block = false;
    for (i, line) in lines(text).take(GO_HEADER_MAX_LINES).enumerate() {
        let trimmed = line.trim_ascii();
        let near_top = i < GENERATED_MARKER_LINES;
        if in_block {
            if near_top && has_generated_marker(trimmed) {
                return true;
            }
            if let Some(end) = find(trimmed, b"*/") {
                in_block = false;
                if !trimmed[end + 2..].trim_ascii().is_empty() {
                    return false;
                }
            }
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        if let Some(marker) = line_comment.iter().find(|m| trimmed.starts_with(m)) {
            let body = &trimmed[marker.len()..];
            if is_code_generated_line(body) || (near_top && has_generated_marker(body)) {
                return true;
            }
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix(b"/*") {
            if near_top && has_generated_marker(rest) {
                return true;
            }
            in_block = find(rest, b"*/").is_none();
            continue;
        }
        // The package clause, an import, the first statement: the header is over.
        return false;
    }
    false
}

/// The banner lines flex and Bison write into the C they generate: a lexer's `lexer.c` /
/// `lexer.h` and a parser's `parser.c` / `parser.h` hold the tables and the skeleton, not
/// the grammar a person edits (`lexer.l`, `parser.y`). flex writes its banner after a few
/// `#line` and `#define` lines, so it is looked for past the first line of code.
const GENERATOR_BANNERS: &[&[u8]] = &[
    b"/* A lexical scanner generated by flex */",
    b"/* A Bison parser, made by GNU Bison ",
];

/// The lines a generator's banner is looked for in.
const BANNER_LINES: usize = 20;

/// A C or C++ file flex or Bison wrote (`GENERATOR_BANNERS`).
fn is_scanner_or_parser_output(rel_path: &str, text: &[u8]) -> bool {
    if !matches!(Lang::from_path(rel_path), Some(Lang::C | Lang::Cpp)) {
        return false;
    }
    lines(text).take(BANNER_LINES).any(|line| {
        GENERATOR_BANNERS
            .iter()
            .any(|b| line.trim_ascii().starts_with(b))
    })
}

/// Go's convention (<https://go.dev/s/generatedcode>): a comment matching
/// `^// Code generated .* DO NOT EDIT\.$`. `body` is the comment after its marker.
fn is_code_generated_line(body: &[u8]) -> bool {
    const PREFIX: &[u8] = b"Code generated ";
    const SUFFIX: &[u8] = b" DO NOT EDIT.";
    let body = body.strip_prefix(b" ").unwrap_or(body);
    body.len() >= PREFIX.len() + SUFFIX.len() && body.starts_with(PREFIX) && body.ends_with(SUFFIX)
}

/// `@generated` (Meta's convention, used by Relay, protobuf-es, …) or a "generated … do not
/// edit" notice, in one comment line.
fn has_generated_marker(comment: &[u8]) -> bool {
    if let Some(i) = find(comment, b"@generated") {
        let next = comment.get(i + b"@generated".len()).copied();
        if !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_') {
            return true;
        }
    }
    let lower = comment.to_ascii_lowercase();
    find(&lower, b"generated").is_some_and(|i| find(&lower[i..], b"do not edit").is_some())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Names that bundlers and minifiers give their output.
pub(crate) fn is_minified_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".min.js", ".min.mjs", ".min.cjs", "-min.js", ".bundle.js"]
        .iter()
        .any(|suffix| lower.ends_with(suffix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(path: &str, text: &str) -> Option<SkipReason> {
        classify_content(path, text.as_bytes())
    }

    /// `n_short` short lines plus one line of `long` bytes.
    fn with_long_line(long: usize, n_short: usize, eol: &str) -> String {
        let mut s = String::new();
        for i in 0..n_short {
            s.push_str(&format!("const x{i} = {i};{eol}"));
        }
        s.push_str(&"a".repeat(long));
        s.push_str(eol);
        s
    }

    #[test]
    fn empty_file_is_fine() {
        assert_eq!(classify("a.ts", ""), None);
        assert_eq!(classify("a.py", "\n"), None);
        assert_eq!(classify("a.go", "\u{feff}"), None);
    }

    #[test]
    fn nul_in_first_8k_is_binary_after_is_not() {
        let mut bytes = b"export const a = 1;\n".to_vec();
        bytes.push(0);
        assert_eq!(classify_content("a.ts", &bytes), Some(SkipReason::Binary));

        let mut late = b"// x\n".repeat(BINARY_SNIFF_LEN / 5 + 1);
        assert!(late.len() > BINARY_SNIFF_LEN);
        late.push(0);
        assert_eq!(classify_content("a.ts", &late), None);
    }

    #[test]
    fn line_at_the_limit_is_kept_one_over_is_minified() {
        // Enough short lines that the average stays under its own limit.
        let at = with_long_line(MAX_LINE_LEN, 400, "\n");
        assert_eq!(classify("a.js", &at), None);
        let over = with_long_line(MAX_LINE_LEN + 1, 400, "\n");
        assert_eq!(classify("a.js", &over), Some(SkipReason::Minified));
    }

    #[test]
    fn crlf_does_not_count_towards_line_length() {
        let at = with_long_line(MAX_LINE_LEN, 400, "\r\n");
        assert_eq!(classify("a.js", &at), None);
        let over = with_long_line(MAX_LINE_LEN + 1, 400, "\r\n");
        assert_eq!(classify("a.js", &over), Some(SkipReason::Minified));
    }

    #[test]
    fn average_line_length_limit() {
        // 10 lines of exactly the average limit: kept; one byte more per line: minified.
        let line = "b".repeat(MAX_AVG_LINE_LEN);
        let at = format!("{line}\n").repeat(10);
        assert_eq!(classify("a.js", &at), None);
        let at_crlf = format!("{line}\r\n").repeat(10);
        assert_eq!(classify("a.js", &at_crlf), None);
        let over = format!("{line}b\n").repeat(10);
        assert_eq!(classify("a.js", &over), Some(SkipReason::Minified));
    }

    #[test]
    fn short_one_liner_is_not_minified() {
        let s = format!("export const s = \"{}\";", "x".repeat(500));
        assert!(s.len() < MIN_LEN_FOR_AVG);
        assert_eq!(classify("a.ts", &s), None);
    }

    #[test]
    fn minified_names() {
        for name in [
            "a.min.js",
            "x/A.MIN.JS",
            "a.min.mjs",
            "a-min.js",
            "app.bundle.js",
        ] {
            assert_eq!(
                classify(name, "var a;\n"),
                Some(SkipReason::Minified),
                "{name}"
            );
        }
        assert_eq!(classify("admin.js", "var a;\n"), None);
        assert_eq!(classify("bundle.js", "var a;\n"), None);
    }

    #[test]
    fn go_generated_header() {
        let gen = "// Code generated by stringer -type=Kind; DO NOT EDIT.\n\npackage k\n";
        assert_eq!(classify("k.go", gen), Some(SkipReason::Generated));
        let crlf = gen.replace('\n', "\r\n");
        assert_eq!(classify("k.go", &crlf), Some(SkipReason::Generated));
        let bom = format!("\u{feff}{gen}");
        assert_eq!(classify("k.go", &bom), Some(SkipReason::Generated));
        // After build tags and a license block.
        let later = "//go:build linux\n\n/*\n License\n*/\n// Code generated by x. DO NOT EDIT.\npackage k\n";
        assert_eq!(classify("k.go", later), Some(SkipReason::Generated));
    }

    #[test]
    fn go_generated_line_after_package_clause_does_not_count() {
        let text = "package k\n\n// Code generated by x. DO NOT EDIT.\n";
        assert_eq!(classify("k.go", text), None);
        // Below the first 10 lines (a long license header) only Go's exact form counts.
        let license = "// Copyright\n".repeat(GENERATED_MARKER_LINES);
        let exact = format!("{license}// Code generated by x. DO NOT EDIT.\npackage k\n");
        assert_eq!(classify("k.go", &exact), Some(SkipReason::Generated));
        let no_period = format!("{license}// Code generated by x; DO NOT EDIT\npackage k\n");
        assert_eq!(classify("k.go", &no_period), None);
        let not_start = format!("{license}// This Code generated by x DO NOT EDIT.\npackage k\n");
        assert_eq!(classify("k.go", &not_start), None);
    }

    #[test]
    fn python_hash_header_counts() {
        let text = "#!/usr/bin/env python\n# Code generated by protoc. DO NOT EDIT.\nimport x\n";
        assert_eq!(classify("a_pb2.py", text), Some(SkipReason::Generated));
    }

    #[test]
    fn flex_and_bison_output() {
        let lexer = "#line 2 \"src/lexer.c\"\n\n#define  YY_INT_ALIGNED short int\n\n/* A lexical scanner generated by flex */\n\n#define FLEX_SCANNER\n";
        assert_eq!(classify("src/lexer.c", lexer), Some(SkipReason::Generated));
        assert_eq!(classify("src/lexer.h", lexer), Some(SkipReason::Generated));
        let parser = "/* A Bison parser, made by GNU Bison 3.8.2.  */\n\n/* Bison implementation for Yacc-like parsers in C\n";
        assert_eq!(
            classify("src/parser.c", parser),
            Some(SkipReason::Generated)
        );
        // Not the banner: a mention, another language, or too far down.
        let mention = "/* This lexer is generated by flex from lexer.l */\nint x;\n";
        assert_eq!(classify("src/lexer.c", mention), None);
        assert_eq!(
            classify("notes.py", "# /* A lexical scanner generated by flex */\n"),
            None
        );
        let far = format!("{}{lexer}", "int x;\n".repeat(BANNER_LINES));
        assert_eq!(classify("src/lexer.c", &far), None);
    }

    #[test]
    fn at_generated_markers() {
        let relay = "/**\n * @generated SignedSource<<abc>>\n */\nexport const x = 1;\n";
        assert_eq!(classify("a.ts", relay), Some(SkipReason::Generated));
        let py = "# @generated\nx = 1\n";
        assert_eq!(classify("a.py", py), Some(SkipReason::Generated));
        let notice =
            "/* eslint-disable */\n// This file was automatically generated. Do not edit.\n";
        assert_eq!(classify("a.ts", notice), Some(SkipReason::Generated));
        // Not markers: partially generated, in code, or too far down.
        assert_eq!(classify("a.ts", "// @partially-generated\n"), None);
        assert_eq!(classify("a.ts", "// @generatedBy foo\n"), None);
        assert_eq!(classify("a.ts", "const s = '@generated';\n"), None);
        let far = format!(
            "{}// @generated\n",
            "let a = 1;\n".repeat(GENERATED_MARKER_LINES)
        );
        assert_eq!(classify("a.ts", &far), None);
    }
}
