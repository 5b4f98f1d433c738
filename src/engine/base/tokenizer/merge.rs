//! Tiktoken's byte-pair merge, reduced to counting: how many tokens one pre-tokenized piece
//! splits into. Runs on whichever thread calls `Tokenizer::count`; holds no state between calls.
//!
//! The rule (tiktoken's, and what makes the count exact): start from single bytes, repeatedly
//! merge the adjacent pair whose concatenation has the lowest rank, the leftmost such pair on a
//! tie, until no adjacent pair is a token. Ranks are looked up by *bytes*, exactly as tiktoken
//! does, so the partition is tiktoken's by construction. Short pieces use a linear scan per merge
//! (cheap and cache-friendly below ~100 bytes); longer ones a heap, so a 10k-letter run with no
//! long tokens costs O(n log n), not O(n²).

use super::vocab::Vocab;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// "No token": larger than every rank, so it never wins a merge.
const NONE: u32 = u32::MAX;
/// Pieces at least this long use the heap (tiktoken switches at the same length).
const LARGE: usize = 100;

/// Buffers reused across the pieces of one text, so counting a text allocates once, not per
/// piece.
#[derive(Default)]
pub struct Scratch {
    /// Short pieces: `(start, rank of the pair starting here)` for each current token, plus a
    /// sentinel at the end.
    parts: Vec<(usize, u32)>,
    /// Long pieces: per byte position, the start of the following token (`n` at the end).
    next: Vec<usize>,
    /// Long pieces: per byte position, the start of the preceding token.
    prev: Vec<usize>,
    /// Long pieces: per byte position, the rank of merging the token starting there with its
    /// right neighbour (`NONE` if not a token, or if no token starts there any more).
    pair: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, usize)>>,
}

/// The number of tokens `piece` encodes to.
pub fn count_piece(vocab: &Vocab<'_>, piece: &[u8], scratch: &mut Scratch) -> usize {
    if piece.is_empty() {
        return 0;
    }
    // The common case: the whole piece is one token (every single byte is one).
    if vocab.rank(piece).is_some() {
        return 1;
    }
    if piece.len() < LARGE {
        count_small(vocab, piece, &mut scratch.parts)
    } else {
        count_large(vocab, piece, scratch)
    }
}

/// The byte length of each token of `piece`, in order: the partition itself, which the tests
/// compare with tiktoken's (equal counts alone could hide a different tie-break).
#[cfg(test)]
pub fn split_piece(vocab: &Vocab<'_>, piece: &[u8]) -> Vec<usize> {
    let mut s = Scratch::default();
    let starts: Vec<usize> = if piece.is_empty() {
        Vec::new()
    } else if vocab.rank(piece).is_some() {
        vec![0]
    } else if piece.len() < LARGE {
        count_small(vocab, piece, &mut s.parts);
        s.parts[..s.parts.len() - 1].iter().map(|p| p.0).collect()
    } else {
        count_large(vocab, piece, &mut s);
        std::iter::successors(Some(0), |&i| Some(s.next[i]).filter(|&j| j < piece.len())).collect()
    };
    starts
        .iter()
        .zip(starts.iter().skip(1).chain([&piece.len()]))
        .map(|(a, b)| b - a)
        .collect()
}

fn count_small(vocab: &Vocab<'_>, piece: &[u8], parts: &mut Vec<(usize, u32)>) -> usize {
    let rank = |a: usize, b: usize| vocab.rank(&piece[a..b]).unwrap_or(NONE);
    parts.clear();
    parts.extend((0..piece.len() - 1).map(|i| (i, rank(i, i + 2))));
    parts.push((piece.len() - 1, NONE));
    parts.push((piece.len(), NONE));
    loop {
        // The lowest-ranked pair, leftmost on a tie (strict `<`).
        let mut best = (NONE, 0);
        for (i, &(_, r)) in parts[..parts.len() - 1].iter().enumerate() {
            if r < best.0 {
                best = (r, i);
            }
        }
        if best.0 == NONE {
            break;
        }
        let i = best.1;
        parts.remove(i + 1);
        // The pairs that changed: the merged token with its new right neighbour, and its left
        // neighbour with the merged token. Entry j's pair spans parts[j].0..parts[j + 2].0.
        let pair_at = |parts: &[(usize, u32)], j: usize| match parts.get(j + 2) {
            Some(&(end, _)) => rank(parts[j].0, end),
            None => NONE,
        };
        parts[i].1 = pair_at(parts, i);
        if i > 0 {
            parts[i - 1].1 = pair_at(parts, i - 1);
        }
    }
    parts.len() - 1
}

fn count_large(vocab: &Vocab<'_>, piece: &[u8], s: &mut Scratch) -> usize {
    let n = piece.len();
    let rank = |a: usize, b: usize| {
        if b <= n {
            vocab.rank(&piece[a..b]).unwrap_or(NONE)
        } else {
            NONE
        }
    };
    s.next.clear();
    s.next.extend(1..=n);
    s.prev.clear();
    s.prev.extend((0..n).map(|i| i.wrapping_sub(1)));
    s.pair.clear();
    s.pair.extend((0..n).map(|i| rank(i, i + 2)));
    s.heap.clear();
    s.heap.extend(
        s.pair
            .iter()
            .enumerate()
            .filter(|(_, &r)| r != NONE)
            .map(|(i, &r)| Reverse((r, i))),
    );
    let mut count = n;
    // Lowest rank first, then leftmost start. An entry is stale when its start no longer begins
    // a token with that pair rank; a stale entry with the *same* rank as the live one would be
    // the identical merge (same rank means same bytes), so the check is exact.
    while let Some(Reverse((r, i))) = s.heap.pop() {
        if s.pair[i] != r {
            continue;
        }
        let right = s.next[i];
        let end = s.next[right];
        s.next[i] = end;
        s.pair[right] = NONE;
        if end < n {
            s.prev[end] = i;
        }
        count -= 1;
        let after = if end < n { s.next[end] } else { n + 1 };
        s.pair[i] = rank(i, after);
        if s.pair[i] != NONE {
            s.heap.push(Reverse((s.pair[i], i)));
        }
        if i > 0 {
            let p = s.prev[i];
            s.pair[p] = rank(p, end);
            if s.pair[p] != NONE {
                s.heap.push(Reverse((s.pair[p], p)));
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::tokenizer::{CL100K_VOCAB, O200K_VOCAB};

    /// Both merge strategies must split identically, whatever the length.
    #[test]
    fn heap_and_scan_agree() {
        let texts = [
            "abcdefghij".repeat(12),
            "aaaa".repeat(40),
            "a".repeat(101),
            "a".repeat(333),
            "0".repeat(155),
            "supercalifragilisticexpialidocious".repeat(4),
            "中文字符和한국어".repeat(8),
            "=-=+".repeat(30),
        ];
        let mut s = Scratch::default();
        for vocab in [&O200K_VOCAB, &CL100K_VOCAB] {
            for text in &texts {
                for len in [2, 3, 10, 50, 99, 100, text.len()] {
                    let piece = &text.as_bytes()[..len.min(text.len())];
                    let small = count_small(vocab, piece, &mut s.parts);
                    let small_starts: Vec<usize> =
                        s.parts[..s.parts.len() - 1].iter().map(|p| p.0).collect();
                    let large = count_large(vocab, piece, &mut s);
                    let large_starts: Vec<usize> = std::iter::successors(Some(0), |&i| {
                        Some(s.next[i]).filter(|&j| j < piece.len())
                    })
                    .collect();
                    assert_eq!(small, large, "{piece:?}");
                    assert_eq!(small_starts, large_starts, "{piece:?}");
                    assert!(small >= 1 && small <= piece.len());
                }
            }
        }
    }

    #[test]
    fn single_tokens_and_bytes() {
        let mut s = Scratch::default();
        assert_eq!(count_piece(&O200K_VOCAB, b"", &mut s), 0);
        assert_eq!(count_piece(&O200K_VOCAB, b"\xff", &mut s), 1);
        assert_eq!(count_piece(&O200K_VOCAB, b" hello", &mut s), 1);
        // Invalid UTF-8 still counts (every byte is a token).
        assert!(count_piece(&CL100K_VOCAB, b"\xff\xfe\xfd\xfc", &mut s) >= 1);
    }
}
