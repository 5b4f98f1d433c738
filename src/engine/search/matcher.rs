//! Fuzzy symbol-name matching for search (runs on the querying thread).
//!
//! `FuzzyMatcher::score` is the one entry point. The alignment itself is `nucleo-matcher`'s
//! (helix's and television's fzf-style matcher: rewards word starts and runs of consecutive
//! characters, penalises gaps), normalised so a query word that equals the name scores 1.
//! A bounded Damerau–Levenshtein fallback catches typos (`craeteServer`), which no
//! subsequence matcher can; `SearchWeights::fuzzy_typos` switches it off for the eval. It
//! is kept although it moves no eval figure (identical on all six datasets: commit messages
//! carry no misspelt identifiers) because typing in the query box is where typos happen.
//! Names are the index's normalised ones (lowercase ASCII letters and digits); anything
//! non-ASCII only matches exactly.

use nucleo_matcher::{Config, Matcher, Utf32Str};

/// Names longer than this are not fuzzy-matched (keeps the alignment bounded).
const MAX_LEN: usize = 96;

/// Bit set of the ASCII letters and digits in a string, lowercase-folded: a cheap filter
/// that rejects most names before any alignment runs.
pub(crate) fn char_mask(s: &str) -> u64 {
    let mut m = 0u64;
    for b in s.bytes() {
        let b = b.to_ascii_lowercase();
        m |= match b {
            b'a'..=b'z' => 1 << (b - b'a'),
            b'0'..=b'9' => 1 << (26 + b - b'0'),
            _ => 0,
        };
    }
    m
}

/// The ASCII letters and digits of `s` (`_`, `$` and other separators dropped), or None
/// when `s` is not ASCII or is too long to align.
fn significant(s: &str) -> Option<Vec<u8>> {
    if !s.is_ascii() || s.len() > MAX_LEN {
        return None;
    }
    Some(s.bytes().filter(u8::is_ascii_alphanumeric).collect())
}

/// A name prepared for repeated fuzzy matching. Its case is kept: nucleo compares
/// case-insensitively but rewards camelCase word starts.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct FuzzyTarget {
    chars: Vec<u8>,
    mask: u64,
}

impl FuzzyTarget {
    pub(crate) fn new(name: &str) -> Option<FuzzyTarget> {
        let chars = significant(name)?;
        (!chars.is_empty()).then(|| FuzzyTarget {
            mask: char_mask(name),
            chars,
        })
    }
}

/// A query word prepared for matching against many targets (lowercase, as nucleo wants a
/// case-insensitive needle).
#[derive(Debug, Clone)]
pub(crate) struct FuzzyNeedle {
    lower: Vec<u8>,
    mask: u64,
}

impl FuzzyNeedle {
    pub(crate) fn new(word: &str) -> Option<FuzzyNeedle> {
        let mut lower = significant(word)?;
        lower.make_ascii_lowercase();
        (lower.len() >= 3).then(|| FuzzyNeedle {
            mask: char_mask(word),
            lower,
        })
    }
}

/// nucleo's matcher (it keeps scratch space, hence `&mut`) and the typo switch.
pub(crate) struct FuzzyMatcher {
    matcher: Matcher,
    typos: bool,
}

impl FuzzyMatcher {
    pub(crate) fn new(typos: bool) -> FuzzyMatcher {
        FuzzyMatcher {
            matcher: Matcher::new(Config::DEFAULT),
            typos,
        }
    }

    /// A score in (0, 1] when `needle` plausibly names `target`.
    pub(crate) fn score(&mut self, needle: &FuzzyNeedle, target: &FuzzyTarget) -> Option<f64> {
        let n = needle.lower.len();
        let m = target.chars.len();
        if needle.mask & !target.mask == 0 && n <= m {
            if let Some(q) = self.alignment_quality(&needle.lower, &target.chars) {
                // Short needles against long names are weak evidence.
                return Some(q * (0.5 + 0.5 * n as f64 / m as f64));
            }
        }
        // Typo fallback: only for reasonably long words of similar length.
        if self.typos
            && n >= 5
            && n.abs_diff(m) <= 2
            && (needle.mask & !target.mask).count_ones() <= 2
        {
            let max_d = if n >= 8 { 2 } else { 1 };
            let lower = target.chars.to_ascii_lowercase();
            let d = osa_distance(&needle.lower, &lower, max_d)?;
            let s = 1.0 - 1.5 * d as f64 / n.max(m) as f64;
            return (s > 0.0).then_some(s);
        }
        None
    }

    /// nucleo's score for `needle` in `target`, over its score for `needle` against itself
    /// (a contiguous match from the start), clamped to 1.
    fn alignment_quality(&mut self, needle: &[u8], target: &[u8]) -> Option<f64> {
        let got = self
            .matcher
            .fuzzy_match(Utf32Str::Ascii(target), Utf32Str::Ascii(needle))?;
        let ideal = self
            .matcher
            .fuzzy_match(Utf32Str::Ascii(needle), Utf32Str::Ascii(needle))?;
        Some((f64::from(got) / f64::from(ideal.max(1))).clamp(0.0, 1.0))
    }
}

/// Optimal-string-alignment distance, or None when it exceeds `max`.
fn osa_distance(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        let mut row_min = usize::MAX;
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
            row_min = row_min.min(v);
        }
        if row_min > max {
            return None;
        }
    }
    (d[n][m] <= max).then_some(d[n][m])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(needle: &str, name: &str) -> Option<f64> {
        FuzzyMatcher::new(true).score(&FuzzyNeedle::new(needle)?, &FuzzyTarget::new(name)?)
    }

    #[test]
    fn exact_and_prefix_matches_score_high() {
        assert!(score("createServer", "createServer").unwrap() > 0.99);
        assert!(score("createserver", "create_server").unwrap() > 0.99);
        let prefix = score("createServ", "createServer").unwrap();
        assert!(prefix > 0.85, "{prefix}");
    }

    #[test]
    fn word_starts_beat_scattered_letters() {
        let starts = score("crsv", "createServer").unwrap();
        let scattered = score("rtev", "createServer").unwrap();
        assert!(starts > scattered, "{starts} vs {scattered}");
        assert!(score("xyz", "createServer").is_none());
    }

    #[test]
    fn typos_match_through_edit_distance() {
        let s = score("craeteServer", "createServer").unwrap();
        assert!(s > 0.8, "{s}");
        assert!(score("helo", "hello").is_some()); // subsequence
        assert!(score("hxllo", "hello").is_some());
        assert!(score("abcde", "vwxyz").is_none());
    }

    #[test]
    fn the_typo_fallback_can_be_switched_off() {
        let needle = FuzzyNeedle::new("craeteServer").unwrap();
        let target = FuzzyTarget::new("createServer").unwrap();
        assert!(FuzzyMatcher::new(false).score(&needle, &target).is_none());
        // Subsequence matches do not depend on the switch.
        let needle = FuzzyNeedle::new("createServ").unwrap();
        assert!(FuzzyMatcher::new(false).score(&needle, &target).is_some());
    }

    #[test]
    fn short_needles_and_non_ascii_are_rejected() {
        assert!(FuzzyNeedle::new("ab").is_none());
        assert!(FuzzyNeedle::new("导出订单").is_none());
        assert!(FuzzyTarget::new("名字").is_none());
        assert!(FuzzyTarget::new("___").is_none());
    }

    #[test]
    fn longer_targets_score_lower() {
        let short = score("render", "renderer").unwrap();
        let long = score("render", "renderToStringWithManifest").unwrap();
        assert!(short > long);
    }
}
