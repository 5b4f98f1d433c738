//! The embedded vocabulary: its binary layout and the hash table that maps a byte string to its
//! rank without building anything at run time.
//!
//! This file is compiled twice: by `build.rs`, which writes the tables into `OUT_DIR` from
//! tiktoken-rs's vocabulary, and by the tokenizer, which reads them from `include_bytes!`. Sharing
//! one source is what guarantees that both sides hash identically. It must therefore stay
//! self-contained (std only, no `crate::` paths). Any thread may read a [`Vocab`]: it is
//! immutable static data.
//!
//! Layout (all integers little-endian `u32`):
//! - `tokens`: every token's bytes, concatenated in rank order;
//! - `offsets`: `n + 1` offsets into `tokens`; token `r` is `tokens[offsets[r]..offsets[r + 1]]`
//!   (an unused rank is an empty range and is not in the table);
//! - `table`: an open-addressing (linear probing) table of a power-of-two number of slots, each
//!   `0` when empty or `tag << RANK_BITS | (rank + 1)`, where `tag` is the top bits of the
//!   token's hash, so that most probes of an absent pair are rejected without touching the
//!   token bytes;
//! - `pairs`: `rank + 1` (or `0`) of every two-byte string, indexed by `first << 8 | second`.
//!   The byte-pair merge starts by looking up every adjacent byte pair of a piece that is not
//!   a token whole; this answers those with one read of a 256 KiB array instead of a hash, a
//!   slot and the token's bytes in three tables of megabytes (javapoet's one-shot fit: CPU
//!   2.3–2.6 → 2.0–2.1 ms).

/// Bits of a slot holding `rank + 1`; o200k's 200k ranks need 18.
pub const RANK_BITS: u32 = 18;
const RANK_MASK: u32 = (1 << RANK_BITS) - 1;
const TAG_BITS: u32 = 32 - RANK_BITS;

/// A fast, well-mixed hash of a short byte string (tokens average ~7 bytes). Not DoS-resistant,
/// and does not need to be: the table's keys are fixed at build time, and a lookup probes at
/// most until the first empty slot whatever the query.
#[inline]
pub fn hash(bytes: &[u8]) -> u64 {
    // rustc-hash's multiplier; a multiply-rotate per 8-byte word, then murmur3's finalizer so
    // that both the low bits (slot) and the high bits (tag) depend on every input bit.
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        h = (h ^ u64::from_le_bytes(a)).wrapping_mul(K).rotate_left(26);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut a = [0u8; 8];
        a[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(a)).wrapping_mul(K).rotate_left(26);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

#[inline]
fn tag(h: u64) -> u32 {
    (h >> (64 - TAG_BITS)) as u32
}

/// A read-only view of one encoding's embedded tables.
#[derive(Clone, Copy)]
pub struct Vocab<'a> {
    tokens: &'a [u8],
    offsets: &'a [u8],
    table: &'a [u8],
    pairs: &'a [u8],
    mask: usize,
}

/// Entries of the `pairs` table: one per two-byte string.
pub const PAIRS: usize = 1 << 16;

/// Where the two-byte string `[first, second]` sits in the `pairs` table.
#[inline]
fn pair_index(first: u8, second: u8) -> usize {
    usize::from(first) << 8 | usize::from(second)
}

/// Every two-byte string, in `pairs` order.
#[cfg_attr(not(test), allow(dead_code))]
fn every_pair() -> impl Iterator<Item = [u8; 2]> {
    (0..PAIRS).map(|p| [(p >> 8) as u8, p as u8])
}

/// The `i`-th little-endian `u32` of `bytes`, or 0 past the end (the tables are ours, built and
/// checked by `build.rs`, so that never happens; 0 reads as "empty slot" / "empty token").
#[inline]
fn word(bytes: &[u8], i: usize) -> u32 {
    match bytes.get(i * 4..i * 4 + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

impl<'a> Vocab<'a> {
    /// Wraps tables laid out as described in the module docs. `table.len() / 4` must be a power
    /// of two and `pairs` hold `PAIRS` words (`build.rs` writes them so; anything else would
    /// only make lookups miss).
    pub const fn new(
        tokens: &'a [u8],
        offsets: &'a [u8],
        table: &'a [u8],
        pairs: &'a [u8],
    ) -> Self {
        let slots = table.len() / 4;
        let mask = if slots.is_power_of_two() {
            slots - 1
        } else {
            0
        };
        Vocab {
            tokens,
            offsets,
            table,
            pairs,
            mask,
        }
    }

    /// Rank `rank`'s bytes (empty for an unused or out-of-range rank).
    #[inline]
    pub fn token(&self, rank: u32) -> &'a [u8] {
        let r = rank as usize;
        let (start, end) = (word(self.offsets, r), word(self.offsets, r + 1));
        self.tokens
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    /// The rank of the token whose bytes are exactly `piece`, if there is one.
    #[inline]
    pub fn rank(&self, piece: &[u8]) -> Option<u32> {
        if let [first, second] = *piece {
            return word(self.pairs, pair_index(first, second)).checked_sub(1);
        }
        self.rank_hashed(piece)
    }

    /// The first two-byte string on which the `pairs` table and the hash table disagree, if
    /// any: `build.rs` checks this before writing the tables, a test on the embedded ones.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pair_mismatch(&self) -> Option<[u8; 2]> {
        every_pair().find(|key| self.rank(key) != self.rank_hashed(key))
    }

    /// The number of two-byte tokens (as the `pairs` table reads them).
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn pair_tokens(&self) -> usize {
        every_pair().filter(|key| self.rank(key).is_some()).count()
    }

    /// `rank` through the hash table alone (which holds every token, two-byte ones too).
    #[inline]
    pub fn rank_hashed(&self, piece: &[u8]) -> Option<u32> {
        let h = hash(piece);
        let want = tag(h);
        let mut i = h as usize & self.mask;
        // Bounded by the table size so that even a (never built) full table cannot loop.
        for _ in 0..=self.mask {
            let slot = word(self.table, i);
            if slot == 0 {
                return None;
            }
            if slot >> RANK_BITS == want {
                let rank = (slot & RANK_MASK).wrapping_sub(1);
                if self.token(rank) == piece {
                    return Some(rank);
                }
            }
            i = (i + 1) & self.mask;
        }
        None
    }
}

/// The writer half: used by `build.rs`, and by the tests that rebuild the tables to compare.
#[cfg_attr(not(test), allow(dead_code))]
pub mod write {
    use super::{hash, tag, RANK_BITS, RANK_MASK};

    /// The largest rank a table can hold (`rank + 1` must fit in `RANK_BITS`).
    pub const MAX_RANK: u32 = RANK_MASK - 1;

    /// The number of slots for `n` tokens: a power of two at least twice `n`, so the load factor
    /// stays under 1/2 and absent keys end their probe after about two slots.
    pub fn table_len(n: usize) -> usize {
        (n.max(1) * 2).next_power_of_two()
    }

    /// Builds the table for `tokens` (`tokens[r]` is rank `r`'s bytes; empty means unused).
    /// Insertion is in rank order, so the output is deterministic.
    pub fn build_table(tokens: &[Vec<u8>]) -> Result<Vec<u32>, String> {
        let len = table_len(tokens.len());
        let mask = len - 1;
        let mut table = vec![0u32; len];
        for (rank, token) in tokens.iter().enumerate() {
            if token.is_empty() {
                continue;
            }
            let rank = u32::try_from(rank)
                .ok()
                .filter(|r| *r <= MAX_RANK)
                .ok_or_else(|| format!("rank {rank} does not fit in {RANK_BITS} bits"))?;
            let h = hash(token);
            let mut i = h as usize & mask;
            while table[i] != 0 {
                let other = ((table[i] & RANK_MASK) - 1) as usize;
                if tokens[other] == *token {
                    return Err(format!("ranks {other} and {rank} have the same bytes"));
                }
                i = (i + 1) & mask;
            }
            table[i] = (tag(h) << RANK_BITS) | (rank + 1);
        }
        Ok(table)
    }

    /// The `pairs` table for `tokens`: `rank + 1` of each two-byte token at `first << 8 |
    /// second`, `0` elsewhere.
    pub fn pair_table(tokens: &[Vec<u8>]) -> Result<Vec<u32>, String> {
        let mut pairs = vec![0u32; super::PAIRS];
        for (rank, token) in tokens.iter().enumerate() {
            if let [first, second] = token[..] {
                let rank = u32::try_from(rank)
                    .ok()
                    .filter(|r| *r <= MAX_RANK)
                    .ok_or_else(|| format!("rank {rank} does not fit in {RANK_BITS} bits"))?;
                pairs[super::pair_index(first, second)] = rank + 1;
            }
        }
        Ok(pairs)
    }

    /// Concatenated bytes and `n + 1` offsets for `tokens`, in rank order.
    pub fn pack_tokens(tokens: &[Vec<u8>]) -> Result<(Vec<u8>, Vec<u32>), String> {
        let mut bytes = Vec::new();
        let mut offsets = vec![0u32];
        for token in tokens {
            bytes.extend_from_slice(token);
            offsets
                .push(u32::try_from(bytes.len()).map_err(|_| "vocabulary over 4 GiB".to_string())?);
        }
        Ok((bytes, offsets))
    }

    /// Little-endian bytes of a `u32` array, as `include_bytes!` will hand them back.
    pub fn to_le_bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::write::*;
    use super::*;

    fn tiny() -> (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>) {
        let tokens: Vec<Vec<u8>> = ["a", "b", "", "ab", "abc", "longer than eight bytes"]
            .iter()
            .map(|t| t.as_bytes().to_vec())
            .collect();
        let table = build_table(&tokens).unwrap();
        assert_eq!(table.len(), table_len(tokens.len()));
        let pairs = pair_table(&tokens).unwrap();
        let (bytes, offsets) = pack_tokens(&tokens).unwrap();
        (
            bytes,
            to_le_bytes(&offsets),
            to_le_bytes(&table),
            to_le_bytes(&pairs),
        )
    }

    #[test]
    fn built_tables_read_back() {
        let (bytes, offsets, table, pairs) = tiny();
        let v = Vocab::new(&bytes, &offsets, &table, &pairs);
        assert_eq!(v.rank(b"a"), Some(0));
        assert_eq!(v.rank(b"ab"), Some(3));
        assert_eq!(v.rank_hashed(b"ab"), Some(3));
        assert_eq!(v.rank(b"ba"), None);
        assert_eq!(v.pair_mismatch(), None);
        assert_eq!(v.pair_tokens(), 1);
        assert_eq!(v.rank(b"a\0"), None);
        assert_eq!(v.rank(b"longer than eight bytes"), Some(5));
        assert_eq!(v.token(4), b"abc");
        // Unused and out-of-range ranks are empty; absent strings miss.
        assert_eq!(v.token(2), b"");
        assert_eq!(v.token(99), b"");
        assert_eq!(v.rank(b""), None);
        assert_eq!(v.rank(b"abcd"), None);
        assert_eq!(v.rank(b"longer than eight bytes\0"), None);
    }

    #[test]
    fn duplicates_and_huge_ranks_are_rejected() {
        let dup = vec![b"x".to_vec(), b"y".to_vec(), b"x".to_vec()];
        assert!(build_table(&dup).is_err());
        let mut many = vec![Vec::new(); MAX_RANK as usize + 1];
        many.push(b"z".to_vec());
        assert!(build_table(&many).is_err());
    }

    #[test]
    fn broken_tables_miss_instead_of_panicking() {
        let (bytes, offsets, table, pairs) = tiny();
        // Truncated offsets and pairs, and a table whose size is not a power of two.
        let v = Vocab::new(&bytes, &offsets[..6], &table[..12], &pairs[..6]);
        assert_eq!(v.token(3), b"");
        assert_eq!(v.rank(b"zz"), None);
        assert_eq!(v.rank(b"ab"), None);
        let v = Vocab::new(&bytes, &offsets, &[], &[]);
        assert_eq!(v.rank(b"a"), None);
        assert_eq!(v.rank(b"ab"), None);
    }

    #[test]
    fn hash_depends_on_length_and_every_byte() {
        assert_ne!(hash(b"a"), hash(b"a\0"));
        assert_ne!(hash(b""), hash(b"\0"));
        assert_ne!(hash(b"12345678x"), hash(b"12345678y"));
        assert_ne!(hash(b"x2345678"), hash(b"y2345678"));
    }
}
