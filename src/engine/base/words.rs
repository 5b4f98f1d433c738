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
