//! Identifier words, one home for the engine: how `parseHTTPRequest`, `parse_http_request`
//! and `parse-http-request` split into `parse`, `http`, `request`, and the separator-free
//! lowercase form by which names and file stems are compared. Used by the search
//! tokenizer, the graph's word tables, rank and the task rules. Pure functions.

/// Splits an identifier-like word (letters, digits, `_`) into its parts, as byte ranges:
/// `[A-Z]+(?=[A-Z][a-z]) | [A-Z]?[a-z]+ | [A-Z]+ | [0-9]+`, with any other letter counted as
/// lowercase. Underscores separate parts.
pub(crate) fn split_identifier(word: &str, out: &mut Vec<(usize, usize)>) {
    let mut scratch = Vec::new();
    split_identifier_with(word, out, &mut scratch);
}

#[derive(PartialEq, Clone, Copy)]
enum CharClass {
    Upper,
    Lower,
    Digit,
    Sep,
}

fn classify_char(c: char) -> CharClass {
    if c.is_ascii_digit() || (c.is_numeric() && !c.is_alphabetic()) {
        CharClass::Digit
    } else if c.is_uppercase() {
        CharClass::Upper
    } else if c.is_alphanumeric() {
        CharClass::Lower
    } else {
        CharClass::Sep
    }
}

/// `split_identifier` with a reusable buffer; ASCII words (nearly all) take a byte path.
pub(crate) fn split_identifier_with(
    word: &str,
    out: &mut Vec<(usize, usize)>,
    chars: &mut Vec<(usize, char)>,
) {
    out.clear();
    if word.is_ascii() {
        split_ascii(word.as_bytes(), out);
        return;
    }
    split_chars(word, out, chars);
}

/// The general (Unicode) splitter.
pub(crate) fn split_chars(
    word: &str,
    out: &mut Vec<(usize, usize)>,
    chars: &mut Vec<(usize, char)>,
) {
    out.clear();
    chars.clear();
    chars.extend(word.char_indices());
    let end_of = |chars: &[(usize, char)], i: usize| chars.get(i).map_or(word.len(), |&(b, _)| b);
    let n = chars.len();
    let class = |i: usize| classify_char(chars[i].1);
    let mut i = 0;
    while i < n {
        match class(i) {
            CharClass::Sep => i += 1,
            c @ (CharClass::Digit | CharClass::Lower) => {
                let s = i;
                while i < n && class(i) == c {
                    i += 1;
                }
                out.push((chars[s].0, end_of(chars, i)));
            }
            CharClass::Upper => {
                let s = i;
                while i < n && class(i) == CharClass::Upper {
                    i += 1;
                }
                if i < n && class(i) == CharClass::Lower {
                    if i - s > 1 {
                        // Acronym, then a capitalised word: HTTPRequest → HTTP | Request.
                        out.push((chars[s].0, end_of(chars, i - 1)));
                    }
                    let ws = i - 1;
                    while i < n && class(i) == CharClass::Lower {
                        i += 1;
                    }
                    out.push((chars[ws].0, end_of(chars, i)));
                } else {
                    out.push((chars[s].0, end_of(chars, i)));
                }
            }
        }
    }
}

/// The same rules over ASCII bytes (offsets are byte offsets).
pub(crate) fn split_ascii(b: &[u8], out: &mut Vec<(usize, usize)>) {
    let class = |x: u8| {
        if x.is_ascii_digit() {
            CharClass::Digit
        } else if x.is_ascii_uppercase() {
            CharClass::Upper
        } else if x.is_ascii_alphabetic() {
            CharClass::Lower
        } else {
            CharClass::Sep
        }
    };
    let n = b.len();
    let mut i = 0;
    while i < n {
        match class(b[i]) {
            CharClass::Sep => i += 1,
            c @ (CharClass::Digit | CharClass::Lower) => {
                let s = i;
                while i < n && class(b[i]) == c {
                    i += 1;
                }
                out.push((s, i));
            }
            CharClass::Upper => {
                let s = i;
                while i < n && class(b[i]) == CharClass::Upper {
                    i += 1;
                }
                if i < n && class(b[i]) == CharClass::Lower {
                    if i - s > 1 {
                        out.push((s, i - 1));
                    }
                    let ws = i - 1;
                    while i < n && class(b[i]) == CharClass::Lower {
                        i += 1;
                    }
                    out.push((ws, i));
                } else {
                    out.push((s, i));
                }
            }
        }
    }
}

/// Lowercase words of an identifier or path component: split on non-alphanumerics, on
/// camelCase humps and acronym ends (`HTTPServer` → `http`, `server`) and between letters
/// and digits.
pub(crate) fn split_words(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    split_identifier(s, &mut parts);
    parts.iter().map(|&(a, b)| s[a..b].to_lowercase()).collect()
}

/// Lowercase with separators removed, so `FileGraph`, `file_graph` and `file-graph` agree.
pub(crate) fn normalize_name(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// One piece of a query as typed (`query_pieces`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum QueryPiece {
    /// A word, and whether it was inside `backticks` (written as code).
    Word(String, bool),
    /// A run of the characters the caller keeps apart from words (search: CJK text).
    Run(Vec<char>),
}

/// What a character is to `query_pieces`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QueryChar {
    Word,
    Run,
    /// Ends a word or a run; a backtick also toggles code.
    Other,
}

/// The one query tokenizer: a query's words and runs, in order, as `class` tells its
/// characters apart. A backtick ends a word and toggles code, so `` `parseHeader` `` is a
/// word written as code. Search and rank read queries through it, each with its own word
/// characters.
pub(crate) fn query_pieces(query: &str, class: impl Fn(char) -> QueryChar) -> Vec<QueryPiece> {
    let mut pieces = Vec::new();
    let mut word = String::new();
    let mut run: Vec<char> = Vec::new();
    let mut in_code = false;
    for c in query.chars().chain(std::iter::once(' ')) {
        let kind = if c == '`' { QueryChar::Other } else { class(c) };
        if kind != QueryChar::Word && !word.is_empty() {
            pieces.push(QueryPiece::Word(std::mem::take(&mut word), in_code));
        }
        if c == '`' {
            in_code = !in_code;
        }
        if kind != QueryChar::Run && !run.is_empty() {
            pieces.push(QueryPiece::Run(std::mem::take(&mut run)));
        }
        match kind {
            QueryChar::Word => word.push(c),
            QueryChar::Run => run.push(c),
            QueryChar::Other => {}
        }
    }
    pieces
}

/// Whether `word` has a camelCase hump: a lowercase letter directly followed by an uppercase
/// one (`parseHeader`), not just a capital (`Validate`, `URL`). One pass, no allocation.
pub(crate) fn has_hump(word: &str) -> bool {
    let mut after_lower = false;
    for c in word.chars() {
        if after_lower && c.is_uppercase() {
            return true;
        }
        after_lower = c.is_lowercase();
    }
    false
}

/// Whether `word` has a capital after its first character: a hump (`parseHeader`), a second
/// capitalized word after an acronym (`URLParser`) or an acronym alone (`URL`).
pub(crate) fn has_inner_capital(word: &str) -> bool {
    word.chars().skip(1).any(char::is_uppercase)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_identifiers_and_paths() {
        assert_eq!(split_words("HTTPServer_v2"), ["http", "server", "v", "2"]);
        assert_eq!(split_words("parseURLQuery"), ["parse", "url", "query"]);
        assert_eq!(split_words("plugin-legacy"), ["plugin", "legacy"]);
        assert_eq!(
            split_words("src/file_graph.rs"),
            ["src", "file", "graph", "rs"]
        );
        assert_eq!(normalize_name("File-Graph_2"), "filegraph2");
    }

    #[test]
    fn queries_split_into_words_code_and_runs() {
        let class = |c: char| match c {
            '中' | '文' => QueryChar::Run,
            c if c.is_alphanumeric() || c == '_' => QueryChar::Word,
            _ => QueryChar::Other,
        };
        let word = |w: &str, code| QueryPiece::Word(w.into(), code);
        assert_eq!(
            query_pieces("fix `parse_x`(a) 中文b, c`d", class),
            [
                word("fix", false),
                word("parse_x", true),
                word("a", false),
                QueryPiece::Run(vec!['中', '文']),
                word("b", false),
                word("c", false),
                word("d", true),
            ]
        );
        assert!(query_pieces("", class).is_empty());
        assert!(query_pieces("``  ..", class).is_empty());
    }

    /// Words by a loop over the characters, a backtick flushing the word and toggling code:
    /// the tokenizer rank had of its own.
    fn words_by_loop(query: &str, word_char: impl Fn(char) -> bool) -> Vec<(String, bool)> {
        let (mut out, mut cur, mut ticks) = (Vec::new(), String::new(), false);
        for c in query.chars() {
            if c == '`' {
                if !cur.is_empty() {
                    out.push((std::mem::take(&mut cur), ticks));
                }
                ticks = !ticks;
            } else if word_char(c) {
                cur.push(c);
            } else if !cur.is_empty() {
                out.push((std::mem::take(&mut cur), ticks));
            }
        }
        if !cur.is_empty() {
            out.push((cur, ticks));
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn words_alone_are_the_loops_words(query in "[a-zA-Z_$` .é中-]{0,24}") {
            let word_char = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
            let class = |c: char| if word_char(c) { QueryChar::Word } else { QueryChar::Other };
            let pieces: Vec<(String, bool)> = query_pieces(&query, class)
                .into_iter()
                .filter_map(|p| match p {
                    QueryPiece::Word(w, code) => Some((w, code)),
                    QueryPiece::Run(_) => None,
                })
                .collect();
            proptest::prop_assert_eq!(pieces, words_by_loop(&query, word_char));
        }
    }

    #[test]
    fn humps_and_inner_capitals() {
        for w in ["parseHeader", "HttpServer", "getURL", "ÿÄ", "a_bC"] {
            assert!(has_hump(w) && has_inner_capital(w), "{w}");
        }
        for w in ["XML", "URL", "Validate_X"] {
            assert!(!has_hump(w) && has_inner_capital(w), "{w}");
        }
        for w in ["Validate", "parse_header", "x", ""] {
            assert!(!has_hump(w) && !has_inner_capital(w), "{w}");
        }
    }
}
