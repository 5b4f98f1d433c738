//! The file names a source text mentions: the references a file without a grammar gets.
//!
//! A `.sql`, `.proto` or `Makefile` is never parsed (`lang::unsupported_language`), so no
//! definition binds a use to it; what code says about it is its name, in a string
//! (`open("db/schema.sql")`, `include_str!("users.sql")`), an import (`import q from
//! './q.graphql'`), a directive (`//go:embed schema.sql`) or a comment. This scans a file's
//! text once for words that could name such a file: runs of file-name characters ending in
//! an extension of `UNSUPPORTED`, or a name of `UNSUPPORTED_NAMES` (`Makefile`). What it
//! keeps depends only on the text and that table, never on which files the repository has,
//! so the tag cache can hold it beside the tags; `rank` matches the names against the
//! repository's path-only files. Runs on the parse thread that read the file.

use crate::engine::ingest::lang::unsupported_language;

/// At most this many distinct names per file: a generated file listing thousands of paths
/// says no more about each than a few do, and the list is stored with the file's tags.
pub const MAX_MENTIONS: usize = 64;
/// A run longer than this is not a file name (a base64 blob, a minified line).
const MAX_NAME_LEN: usize = 128;

/// The file names (`schema.sql`, `Makefile`: the last path segment, as written) that
/// `source` mentions, sorted, without duplicates, at most `MAX_MENTIONS`.
pub fn file_mentions(source: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let bytes = source.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !is_name_byte(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_name_byte(bytes[i]) {
            i += 1;
        }
        // A sentence's full stop is not part of the name (`see schema.sql.`).
        let run = source[start..i].trim_end_matches('.');
        // Most runs are plain words: only one with a `.` or of a length `UNSUPPORTED_NAMES`
        // has (`Makefile`, `Dockerfile`, `GNUmakefile`) can name such a file.
        if !(run.contains('.') || matches!(run.len(), 8 | 10 | 11)) || run.len() > MAX_NAME_LEN {
            continue;
        }
        if !run.bytes().any(|b| b.is_ascii_alphabetic()) {
            continue;
        }
        // `x.m` in `self.m` or `a.r` would match an extension: a name needs a stem of two
        // characters or more, or no extension at all (`Makefile`).
        let stem_ok = run
            .rsplit_once('.')
            .is_none_or(|(stem, _)| stem.trim_start_matches('.').len() >= 2);
        if stem_ok && unsupported_language(run).is_some() && !out.iter().any(|m| m == run) {
            out.push(run.to_string());
            if out.len() == MAX_MENTIONS {
                break;
            }
        }
    }
    out.sort_unstable();
    out
}

/// Bytes of a file name's last segment: letters, digits, `_`, `-`, `.`; a `/` or a quote
/// ends it, so `"./db/schema.sql"` yields `schema.sql`.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_names_in_strings_imports_and_comments() {
        let src = r#"
import users from './queries/users.graphql';
const SCHEMA = include_str!("../db/schema.sql");
//go:embed migrations/001_init.SQL
// run `make` (see Makefile).
obj.proto = 1; self.m(); x.sql; see notes.txt and the picture.png
"#;
        assert_eq!(
            file_mentions(src),
            // A member use reads like a name (`obj.proto`); it only counts where a file of
            // that name exists.
            [
                "001_init.SQL",
                "Makefile",
                "obj.proto",
                "schema.sql",
                "self.m",
                "users.graphql"
            ]
        );
    }

    #[test]
    fn bounded_and_deduplicated() {
        let mut src = String::new();
        for i in 0..200 {
            src.push_str(&format!("\"q{i}.sql\" \"q{i}.sql\"\n"));
        }
        let found = file_mentions(&src);
        assert_eq!(found.len(), MAX_MENTIONS);
        assert!(found.windows(2).all(|w| w[0] < w[1]));
        let long = format!("{}.sql", "a".repeat(300));
        assert!(file_mentions(&long).is_empty());
        assert!(file_mentions("").is_empty());
    }
}
