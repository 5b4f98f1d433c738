//! Text → search terms, shared by index building (rayon workers) and queries (caller's
//! thread). Pure functions plus a small reusable scratch struct; no global state.
//!
//! Terms are lowercase and lightly stemmed so that `orders`, `order` and `Ordered` meet, and
//! identifiers are split into their words (`parseHTTPRequest` → `parse`, `http`, `request`)
//! plus the joined form (`parsehttprequest`) so a query typed as one word still finds them.
//! CJK text has no spaces, so runs of CJK characters become overlapping character bigrams
//! (a lone character stays a unigram): `导出订单` → `导出`, `出订`, `订单`.
//! Terms are identified by a 64-bit hash, so the index never stores term strings.

/// Parts longer than this are hashes, base64 or minified noise, not words.
const MAX_PART_LEN: usize = 48;

/// True for characters written without spaces between words (Han, kana, Hangul).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F) // CJK Extensions B.. and compatibility supplement
}

/// A character that belongs to an identifier-like word (CJK excluded: it has its own path).
fn is_word_char(c: char) -> bool {
    (c.is_alphanumeric() || c == '_') && !is_cjk(c)
}

/// FNV-1a: tiny, deterministic across runs and platforms, good enough for short terms.
pub(crate) fn term_hash(term: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in term.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Light, deterministic suffix stripping applied to every ASCII term on both sides (index
/// and query). It only has to conflate the forms commit messages and code use for the same
/// word (`caching`/`cache`, `modules`/`module`, `mapped`/`map`); it never has to produce a
/// real word. Non-ASCII terms are left alone.
pub(crate) fn stem_in_place(w: &mut String) {
    if !w.is_ascii() || w.len() < 3 {
        return;
    }
    // Plurals.
    if w.ends_with("sses") {
        w.truncate(w.len() - 2);
    } else if w.len() >= 4 && w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.truncate(w.len() - 1);
    }
    // -ing / -ed, only when a reasonable stem remains (`string`, `need` stay).
    let mut cut = false;
    if w.len() >= 7 && w.ends_with("ing") {
        w.truncate(w.len() - 3);
        cut = true;
    } else if w.len() >= 6 && w.ends_with("ed") && !w.ends_with("eed") {
        w.truncate(w.len() - 2);
        cut = true;
    }
    if cut {
        let b = w.as_bytes();
        let n = b.len();
        // `mapped` → `mapp` → `map`, but `install` keeps its `ll`.
        if n >= 4 && b[n - 1] == b[n - 2] && !matches!(b[n - 1], b'l' | b's' | b'z' | b'e') {
            w.truncate(n - 1);
        }
    }
    // Final silent `e`: `cache`/`caches`/`caching` → `cach`.
    if w.len() >= 4 && w.ends_with('e') {
        w.truncate(w.len() - 1);
    }
}

use crate::engine::base::words::split_identifier_with;
#[cfg(test)]
use crate::engine::base::words::{split_ascii, split_chars, split_identifier};

/// Where a term came from; the index weights them differently in places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TermClass {
    /// One word of an identifier or of prose.
    Part,
    /// The whole identifier joined (`create_server` → `createserver`), only for multi-part ones.
    Joined,
    /// A CJK bigram or lone character.
    Cjk,
}

/// Reusable scratch buffers for turning text into terms without allocating per word.
#[derive(Default)]
pub(crate) struct Tokenizer {
    parts: Vec<(usize, usize)>,
    chars: Vec<(usize, char)>,
    term: String,
    joined: String,
    cjk: Vec<char>,
}

impl Tokenizer {
    /// Calls `f(term, class)` for every term of `text`, in order. Terms are lowercase and
    /// stemmed; one-character parts are dropped (except lone CJK characters).
    pub(crate) fn terms<F: FnMut(&str, TermClass)>(&mut self, text: &str, mut f: F) {
        // Byte-oriented: source text is nearly all ASCII, and only non-ASCII bytes need a
        // char decode.
        let bytes = text.as_bytes();
        let mut word_start: Option<usize> = None;
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let (c, len) = if b < 0x80 {
                (b as char, 1)
            } else {
                match text.get(i..).and_then(|t| t.chars().next()) {
                    Some(c) => (c, c.len_utf8()),
                    None => (char::REPLACEMENT_CHARACTER, 1),
                }
            };
            let word_char = if b < 0x80 {
                b.is_ascii_alphanumeric() || b == b'_'
            } else {
                is_word_char(c)
            };
            if word_char {
                if word_start.is_none() {
                    self.flush_cjk(&mut f);
                    word_start = Some(i);
                }
                i += len;
                continue;
            }
            if let Some(s) = word_start.take() {
                self.word(&text[s..i], &mut f);
            }
            if b >= 0x80 && is_cjk(c) {
                self.cjk.push(c);
            } else {
                self.flush_cjk(&mut f);
            }
            i += len;
        }
        if let Some(s) = word_start {
            self.word(&text[s..], &mut f);
        }
        self.flush_cjk(&mut f);
    }

    /// Emits the parts of one identifier-like word and, if it has several, the joined form.
    fn word<F: FnMut(&str, TermClass)>(&mut self, word: &str, f: &mut F) {
        if word.len() > 4 * MAX_PART_LEN {
            return;
        }
        split_identifier_with(word, &mut self.parts, &mut self.chars);
        self.joined.clear();
        for &(s, e) in &self.parts {
            let part = &word[s..e];
            self.term.clear();
            if part.is_ascii() {
                self.term.push_str(part);
                self.term.make_ascii_lowercase();
            } else {
                for c in part.chars() {
                    self.term.extend(c.to_lowercase());
                }
            }
            self.joined.push_str(&self.term);
            let short = if self.term.is_ascii() {
                self.term.len() < 2
            } else {
                self.term.chars().nth(1).is_none()
            };
            if short || self.term.len() > MAX_PART_LEN {
                continue;
            }
            stem_in_place(&mut self.term);
            f(&self.term, TermClass::Part);
        }
        if self.parts.len() > 1 && self.joined.len() <= 2 * MAX_PART_LEN {
            stem_in_place(&mut self.joined);
            f(&self.joined, TermClass::Joined);
        }
    }

    fn flush_cjk<F: FnMut(&str, TermClass)>(&mut self, f: &mut F) {
        if self.cjk.is_empty() {
            return;
        }
        self.term.clear();
        if self.cjk.len() == 1 {
            self.term.push(self.cjk[0]);
            f(&self.term, TermClass::Cjk);
        } else {
            for pair in self.cjk.windows(2) {
                self.term.clear();
                self.term.push(pair[0]);
                self.term.push(pair[1]);
                f(&self.term, TermClass::Cjk);
            }
        }
        self.cjk.clear();
    }

    /// All terms of `text` as owned strings (tests and query parsing; not the hot path).
    pub(crate) fn collect(&mut self, text: &str) -> Vec<(String, TermClass)> {
        let mut out = Vec::new();
        self.terms(text, |t, c| out.push((t.to_string(), c)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(word: &str) -> Vec<&str> {
        let mut v = Vec::new();
        split_identifier(word, &mut v);
        v.iter().map(|&(s, e)| &word[s..e]).collect()
    }

    fn terms(text: &str) -> Vec<String> {
        Tokenizer::default()
            .collect(text)
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    fn stem(w: &str) -> String {
        let mut s = w.to_string();
        stem_in_place(&mut s);
        s
    }

    #[test]
    fn splits_camel_snake_and_acronyms() {
        assert_eq!(parts("parseHTTPRequest"), ["parse", "HTTP", "Request"]);
        assert_eq!(parts("create_server"), ["create", "server"]);
        assert_eq!(parts("__init__"), ["init"]);
        assert_eq!(parts("HTMLElement"), ["HTML", "Element"]);
        assert_eq!(parts("XMLHttpRequest2"), ["XML", "Http", "Request", "2"]);
        assert_eq!(parts("URL"), ["URL"]);
        assert_eq!(parts("v2Config"), ["v", "2", "Config"]);
        assert_eq!(parts("getID"), ["get", "ID"]);
        assert_eq!(parts("SCREAMING_CASE"), ["SCREAMING", "CASE"]);
        assert_eq!(parts("café_Über"), ["café", "Über"]);
        assert!(parts("___").is_empty());
    }

    #[test]
    fn identifier_terms_include_joined_form() {
        assert_eq!(
            terms("parseHTTPRequest"),
            ["pars", "http", "request", "parsehttprequest"]
        );
        assert_eq!(terms("exportOrders()"), ["export", "order", "exportorder"]);
        // One-letter parts are dropped, but still count toward the joined form.
        assert_eq!(terms("a_b"), ["ab"]);
        assert_eq!(terms("x"), Vec::<String>::new());
    }

    #[test]
    fn stemming_conflates_common_forms() {
        for (a, b) in [
            ("cache", "caching"),
            ("caches", "cached"),
            ("module", "modules"),
            ("map", "mapped"),
            ("match", "matches"),
            ("class", "classes"),
            ("query", "queries"),
            ("load", "loading"),
            ("resolve", "resolved"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} vs {b}");
        }
        assert_eq!(stem("string"), "string");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("install"), "install");
        assert_eq!(stem("installing"), "install");
        assert_eq!(stem("need"), "need");
        assert_eq!(stem("导出"), "导出");
    }

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(terms("导出订单"), ["导出", "出订", "订单"]);
        assert_eq!(terms("的"), ["的"]);
        // Punctuation and ASCII break runs.
        assert_eq!(terms("会话，过滤"), ["会话", "过滤"]);
        assert_eq!(terms("日本語のテキスト")[0], "日本");
    }

    #[test]
    fn mixed_strings() {
        assert_eq!(terms("notify session 过滤"), ["notify", "session", "过滤"]);
        assert_eq!(
            terms("导出订单CSV文件"),
            ["导出", "出订", "订单", "csv", "文件"]
        );
        assert_eq!(
            terms("// 获取用户getUserName"),
            ["获取", "取用", "用户", "get", "user", "nam", "getusernam"]
        );
        assert_eq!(terms(""), Vec::<String>::new());
        assert_eq!(terms("  !!! ... "), Vec::<String>::new());
    }

    #[test]
    fn hostile_input_does_not_panic() {
        let long = "a".repeat(10_000);
        assert!(terms(&long).is_empty());
        let _ = terms("\u{0}\u{FFFF}\u{10FFFF}ǅǈ Ⅻ ٣٤ ‿");
    }

    proptest::proptest! {
        #[test]
        fn ascii_fast_path_matches_unicode_path(word in "[A-Za-z0-9_]{0,24}") {
            let (mut a, mut b, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
            split_ascii(word.as_bytes(), &mut a);
            split_chars(&word, &mut b, &mut scratch);
            proptest::prop_assert_eq!(a, b);
        }

        #[test]
        fn any_text_tokenizes(text in "\\PC{0,64}") {
            let mut tok = Tokenizer::default();
            tok.terms(&text, |t, _| assert!(!t.is_empty()));
        }
    }

    #[test]
    fn hash_is_stable() {
        assert_eq!(term_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_ne!(term_hash("order"), term_hash("orders"));
    }
}
