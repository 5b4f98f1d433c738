//! The Chinese → English programming glossary (`assets/glossary.toml`, embedded) that expands
//! CJK query text into the English words code is written with. Parsed once, lazily, on
//! whichever thread first searches; immutable afterwards.
//!
//! The file uses a tiny TOML subset (one `"term" = ["word", …]` per line under `[terms]`),
//! parsed here because the crate has no TOML dependency; anything outside that subset is a
//! clear error with its line number, caught by a unit test, never a panic at runtime.

use std::collections::BTreeMap;
use std::sync::OnceLock;

const GLOSSARY_TOML: &str = include_str!("../../../assets/glossary.toml");

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("glossary line {line}: {message}")]
pub(crate) struct GlossaryError {
    pub line: usize,
    pub message: String,
}

/// Term → expansion words, plus the longest key (in chars) for bounded longest-match.
#[derive(Debug, Default)]
pub(crate) struct Glossary {
    entries: BTreeMap<String, Vec<String>>,
    max_key_chars: usize,
}

impl Glossary {
    /// The embedded glossary. If it ever failed to parse, search still works without
    /// expansion (the unit test makes sure it does parse).
    pub(crate) fn embedded() -> &'static Glossary {
        static G: OnceLock<Glossary> = OnceLock::new();
        G.get_or_init(|| Glossary::parse(GLOSSARY_TOML).unwrap_or_default())
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn get(&self, key: &str) -> Option<&[String]> {
        self.entries.get(key).map(Vec::as_slice)
    }

    pub(crate) fn max_key_chars(&self) -> usize {
        self.max_key_chars
    }

    /// Segments a CJK run by greedy longest match and calls `f` with each matched key and
    /// its expansions, left to right. Characters no key covers are skipped. (Queries use
    /// their own segmentation, which also knows stop phrases.)
    #[cfg(test)]
    pub(crate) fn expand_run(&self, run: &[char], mut f: impl FnMut(&str, &[String])) {
        let mut key = String::new();
        let mut i = 0;
        while i < run.len() {
            let longest = self.max_key_chars.min(run.len() - i);
            let mut matched = 0;
            for len in (1..=longest).rev() {
                key.clear();
                key.extend(&run[i..i + len]);
                if let Some(words) = self.entries.get(&key) {
                    f(&key, words);
                    matched = len;
                    break;
                }
            }
            i += matched.max(1);
        }
    }

    pub(crate) fn parse(text: &str) -> Result<Glossary, GlossaryError> {
        let mut g = Glossary::default();
        let mut in_terms = false;
        for (idx, raw) in text.lines().enumerate() {
            let line_no = idx + 1;
            let err = |message: &str| GlossaryError {
                line: line_no,
                message: message.to_string(),
            };
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if line.starts_with('[') && !line.contains('=') {
                if strip_comment(line) != "[terms]" {
                    return Err(err("only a [terms] table is supported"));
                }
                in_terms = true;
                continue;
            }
            if !in_terms {
                return Err(err("entry outside the [terms] table"));
            }
            let (key, rest) = parse_string(line).ok_or_else(|| err("expected a quoted key"))?;
            let rest = rest.trim_start();
            let rest = rest
                .strip_prefix('=')
                .ok_or_else(|| err("expected `=` after the key"))?
                .trim_start();
            let mut rest = rest
                .strip_prefix('[')
                .ok_or_else(|| err("expected an array of strings"))?;
            let mut words = Vec::new();
            loop {
                rest = rest.trim_start();
                if let Some(after) = rest.strip_prefix(']') {
                    if !strip_comment(after).is_empty() {
                        return Err(err("unexpected text after the array"));
                    }
                    break;
                }
                let (word, after) =
                    parse_string(rest).ok_or_else(|| err("expected a quoted word or `]`"))?;
                if word.trim().is_empty() {
                    return Err(err("empty word"));
                }
                words.push(word);
                rest = after.trim_start();
                if let Some(after) = rest.strip_prefix(',') {
                    rest = after;
                } else if !rest.starts_with(']') {
                    return Err(err("expected `,` or `]`"));
                }
            }
            if key.is_empty() || words.is_empty() {
                return Err(err("empty key or no words"));
            }
            g.max_key_chars = g.max_key_chars.max(key.chars().count());
            if g.entries.insert(key, words).is_some() {
                return Err(err("duplicate key"));
            }
        }
        Ok(g)
    }
}

fn strip_comment(s: &str) -> &str {
    s.split('#').next().unwrap_or("").trim()
}

/// Parses a TOML basic string at the start of `s`; returns it and the rest.
fn parse_string(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &body[i + 1..])),
            '\\' => match chars.next()?.1 {
                '"' => out.push('"'),
                '\\' => out.push('\\'),
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'u' => {
                    let hex: String = (0..4).filter_map(|_| chars.next().map(|x| x.1)).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                _ => return None,
            },
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_glossary_parses_and_is_large() {
        let g = Glossary::parse(GLOSSARY_TOML).unwrap();
        assert!(g.len() >= 150, "only {} entries", g.len());
        assert_eq!(Glossary::embedded().len(), g.len());
        assert_eq!(g.get("导出").unwrap(), ["export"]);
        assert_eq!(g.get("订单").unwrap(), ["order"]);
        assert_eq!(g.get("分页").unwrap(), ["paginate", "pagination", "page"]);
        assert!(g.get("认证").unwrap().contains(&"auth".to_string()));
        for (k, words) in &g.entries {
            assert!(k.chars().all(super::super::tokenize::is_cjk), "key {k}");
            for w in words {
                assert!(w.chars().all(|c| c.is_ascii_alphanumeric()), "{k}: {w}");
            }
        }
    }

    #[test]
    fn longest_match_segmentation() {
        let g = Glossary::parse(GLOSSARY_TOML).unwrap();
        let mut seen = Vec::new();
        let run: Vec<char> = "导出订单数据库的缓存".chars().collect();
        g.expand_run(&run, |k, _| seen.push(k.to_string()));
        assert_eq!(seen, ["导出", "订单", "数据库", "缓存"]);
    }

    #[test]
    fn parse_errors_name_the_line() {
        let e = Glossary::parse("[terms]\n\"a\" = [\"x\"\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(Glossary::parse("\"a\" = [\"x\"]").is_err());
        assert!(Glossary::parse("[other]\n").is_err());
        assert!(Glossary::parse("[terms]\n\"a\" = [\"x\"]\n\"a\" = [\"y\"]").is_err());
        let ok = Glossary::parse("[terms] # c\n\"\\u5bfc\" = [ \"x\", \"y\" ] # c\n").unwrap();
        assert_eq!(ok.get("导").unwrap(), ["x", "y"]);
    }
}
