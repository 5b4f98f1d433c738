//! Fuzzy symbol-name matching for search (runs on the querying thread).
//!
//! `fuzzy_name_score` is the one entry point, so swapping this small matcher for
//! `nucleo-matcher` (preferred once it is a dependency) touches only this file. It scores a
//! query word against a definition name: a subsequence alignment that rewards word starts
//! (`cs` → `createServer`) and runs of consecutive characters, with a bounded
//! Damerau–Levenshtein fallback for typos (`craeteServer`). Case-insensitive, ASCII-aware;
//! anything non-ASCII only matches exactly.

/// Names longer than this are not fuzzy-matched (keeps the DP bounded).
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

/// A name prepared for repeated fuzzy matching.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct FuzzyTarget {
    /// Lowercased significant bytes (letters and digits; `_` and `$` dropped).
    lower: Vec<u8>,
    /// Whether each byte of `lower` starts a word in the original name.
    boundary: Vec<bool>,
    mask: u64,
}

impl FuzzyTarget {
    pub(crate) fn new(name: &str) -> Option<FuzzyTarget> {
        if !name.is_ascii() || name.len() > MAX_LEN {
            return None;
        }
        let bytes = name.as_bytes();
        let mut lower = Vec::with_capacity(bytes.len());
        let mut boundary = Vec::with_capacity(bytes.len());
        let mut prev: Option<u8> = None;
        for &b in bytes {
            if !b.is_ascii_alphanumeric() {
                prev = None;
                continue;
            }
            let starts = match prev {
                None => true,
                Some(p) => {
                    (p.is_ascii_lowercase() && b.is_ascii_uppercase())
                        || (p.is_ascii_digit() != b.is_ascii_digit())
                }
            };
            lower.push(b.to_ascii_lowercase());
            boundary.push(starts);
            prev = Some(b);
        }
        if lower.is_empty() {
            return None;
        }
        Some(FuzzyTarget {
            mask: char_mask(name),
            lower,
            boundary,
        })
    }
}

/// A query word prepared for matching against many targets.
#[derive(Debug, Clone)]
pub(crate) struct FuzzyNeedle {
    lower: Vec<u8>,
    mask: u64,
}

impl FuzzyNeedle {
    pub(crate) fn new(word: &str) -> Option<FuzzyNeedle> {
        if !word.is_ascii() {
            return None;
        }
        let lower: Vec<u8> = word
            .bytes()
            .filter(u8::is_ascii_alphanumeric)
            .map(|b| b.to_ascii_lowercase())
            .collect();
        if lower.len() < 3 || lower.len() > MAX_LEN {
            return None;
        }
        Some(FuzzyNeedle {
            mask: char_mask(word),
            lower,
        })
    }
}

/// The single matcher entry point: a score in (0, 1] when `needle` plausibly names `target`.
pub(crate) fn fuzzy_name_score(needle: &FuzzyNeedle, target: &FuzzyTarget) -> Option<f64> {
    let n = needle.lower.len();
    let m = target.lower.len();
    if needle.mask & !target.mask == 0 && n <= m {
        if let Some(q) = subsequence_quality(&needle.lower, target) {
            // Short needles against long names are weak evidence.
            return Some(q * (0.5 + 0.5 * n as f64 / m as f64));
        }
    }
    // Typo fallback: only for reasonably long words of similar length.
    if n >= 5 && n.abs_diff(m) <= 2 && (needle.mask & !target.mask).count_ones() <= 2 {
        let max_d = if n >= 8 { 2 } else { 1 };
        let d = osa_distance(&needle.lower, &target.lower, max_d)?;
        let s = 1.0 - 1.5 * d as f64 / n.max(m) as f64;
        return (s > 0.0).then_some(s);
    }
    None
}

/// Best subsequence alignment of `needle` in `target`, normalised so a contiguous match
/// starting at a word boundary scores 1.0.
fn subsequence_quality(needle: &[u8], t: &FuzzyTarget) -> Option<f64> {
    const CONSEC: f64 = 0.5;
    const BOUNDARY: f64 = 0.5;
    const GAP: f64 = 0.2;
    let n = needle.len();
    let m = t.lower.len();
    let neg = f64::NEG_INFINITY;
    // prev[j]: best score with needle[i-1] matched at target[j]; rolling rows.
    let mut prev = vec![neg; m];
    let mut cur = vec![neg; m];
    for (i, &nc) in needle.iter().enumerate() {
        let mut best_before = neg; // max prev[k] for k < j-1
        for j in 0..m {
            if j >= 2 {
                best_before = best_before.max(prev[j - 2]);
            }
            cur[j] = neg;
            if t.lower[j] != nc {
                continue;
            }
            let base = 1.0 + if t.boundary[j] { BOUNDARY } else { 0.0 };
            if i == 0 {
                cur[j] = base;
                continue;
            }
            let consec = if j >= 1 { prev[j - 1] + CONSEC } else { neg };
            let jump = best_before - GAP;
            let best = consec.max(jump);
            if best > neg {
                cur[j] = base + best;
            }
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let raw = prev.iter().copied().fold(neg, f64::max);
    if raw == neg {
        return None;
    }
    let ideal = n as f64 + (n as f64 - 1.0) * CONSEC + BOUNDARY;
    Some((raw / ideal).clamp(0.0, 1.0))
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
        fuzzy_name_score(&FuzzyNeedle::new(needle)?, &FuzzyTarget::new(name)?)
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
