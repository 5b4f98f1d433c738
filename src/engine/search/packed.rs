//! The search index's large tables as the derived cache stores them (`store::blob`): each
//! one byte string of fixed-width little-endian records, which a warm search decodes in one
//! tight loop per table instead of a varint and a serde call per field (postcard's encoding
//! of a `Vec` of structs, which made decoding a large repository's index a quarter of its
//! warm search). Used as `#[serde(with = "packed")]` on `SearchIndex`'s fields. Plain
//! functions; they run on whichever thread loads or saves the index.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, Visitor};
use serde::Serializer;

use super::{Chunk, ChunkKind, PathPosting, Posting, TermEntry};

/// A value stored as `SIZE` bytes.
pub(super) trait Record: Sized {
    const SIZE: usize;
    fn put(&self, out: &mut Vec<u8>);
    /// The value of `b` (`SIZE` bytes); `None` when they are no such value.
    fn get(b: &[u8]) -> Option<Self>;
}

#[allow(clippy::ptr_arg)] // serde's `with` hands the field itself
pub(super) fn serialize<T: Record, S: Serializer>(v: &Vec<T>, s: S) -> Result<S::Ok, S::Error> {
    let mut out = Vec::with_capacity(v.len() * T::SIZE);
    for r in v {
        r.put(&mut out);
    }
    s.serialize_bytes(&out)
}

pub(super) fn deserialize<'de, T: Record, D: Deserializer<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    d.deserialize_bytes(Records(PhantomData))
}

struct Records<T>(PhantomData<T>);

impl<T: Record> Visitor<'_> for Records<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "records of {} bytes", T::SIZE)
    }

    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Vec<T>, E> {
        if !b.len().is_multiple_of(T::SIZE) {
            return Err(E::invalid_length(b.len(), &self));
        }
        b.chunks_exact(T::SIZE)
            .map(|r| T::get(r).ok_or_else(|| E::custom("a record out of range")))
            .collect()
    }

    fn visit_byte_buf<E: de::Error>(self, b: Vec<u8>) -> Result<Vec<T>, E> {
        self.visit_bytes(&b)
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

impl Record for u32 {
    const SIZE: usize = 4;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
    fn get(b: &[u8]) -> Option<Self> {
        Some(u32_at(b, 0))
    }
}

impl Record for (u64, u32) {
    const SIZE: usize = 12;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
        out.extend_from_slice(&self.1.to_le_bytes());
    }
    fn get(b: &[u8]) -> Option<Self> {
        Some((u64_at(b, 0), u32_at(b, 8)))
    }
}

impl Record for (u32, u32, f32) {
    const SIZE: usize = 12;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
        out.extend_from_slice(&self.1.to_le_bytes());
        out.extend_from_slice(&self.2.to_bits().to_le_bytes());
    }
    fn get(b: &[u8]) -> Option<Self> {
        Some((u32_at(b, 0), u32_at(b, 4), f32::from_bits(u32_at(b, 8))))
    }
}

impl Record for Posting {
    const SIZE: usize = 9;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.chunk.to_le_bytes());
        out.extend_from_slice(&self.impact.to_bits().to_le_bytes());
        out.push(self.fields);
    }
    fn get(b: &[u8]) -> Option<Self> {
        Some(Posting {
            chunk: u32_at(b, 0),
            impact: f32::from_bits(u32_at(b, 4)),
            fields: b[8],
        })
    }
}

impl Record for PathPosting {
    const SIZE: usize = 8;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.unit.to_le_bytes());
        out.extend_from_slice(&self.impact.to_bits().to_le_bytes());
    }
    fn get(b: &[u8]) -> Option<Self> {
        Some(PathPosting {
            unit: u32_at(b, 0),
            impact: f32::from_bits(u32_at(b, 4)),
        })
    }
}

impl Record for TermEntry {
    const SIZE: usize = 16;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.hash.to_le_bytes());
        out.extend_from_slice(&self.start.to_le_bytes());
        out.extend_from_slice(&self.len.to_le_bytes());
    }
    fn get(b: &[u8]) -> Option<Self> {
        Some(TermEntry {
            hash: u64_at(b, 0),
            start: u32_at(b, 8),
            len: u32_at(b, 12),
        })
    }
}

impl Record for Chunk {
    const SIZE: usize = 17;
    fn put(&self, out: &mut Vec<u8>) {
        for v in [self.unit, self.def, self.start, self.end] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.push(match self.kind {
            ChunkKind::Def => 0,
            ChunkKind::File => 1,
            ChunkKind::Doc => 2,
        });
    }
    fn get(b: &[u8]) -> Option<Self> {
        let kind = match b[16] {
            0 => ChunkKind::Def,
            1 => ChunkKind::File,
            2 => ChunkKind::Doc,
            _ => return None,
        };
        Some(Chunk {
            unit: u32_at(b, 0),
            def: u32_at(b, 4),
            start: u32_at(b, 8),
            end: u32_at(b, 12),
            kind,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Table {
        #[serde(with = "super")]
        postings: Vec<Posting>,
        #[serde(with = "super")]
        chunks: Vec<Chunk>,
        #[serde(with = "super")]
        names: Vec<(u64, u32)>,
    }

    impl PartialEq for Posting {
        fn eq(&self, o: &Self) -> bool {
            (self.chunk, self.impact.to_bits(), self.fields)
                == (o.chunk, o.impact.to_bits(), o.fields)
        }
    }

    impl PartialEq for Chunk {
        fn eq(&self, o: &Self) -> bool {
            (self.unit, self.def, self.start, self.end, self.kind)
                == (o.unit, o.def, o.start, o.end, o.kind)
        }
    }

    #[test]
    fn tables_round_trip_exactly_and_a_bad_record_is_refused() {
        let table = Table {
            postings: vec![
                Posting {
                    chunk: 7,
                    impact: 0.1 + 0.2,
                    fields: 9,
                },
                Posting {
                    chunk: u32::MAX,
                    impact: f32::MIN_POSITIVE,
                    fields: 0,
                },
            ],
            chunks: vec![Chunk {
                unit: 1,
                def: super::super::NO_DEF,
                start: 3,
                end: 9,
                kind: ChunkKind::Doc,
            }],
            names: vec![(u64::MAX - 1, 42)],
        };
        let bytes = postcard::to_allocvec(&table).unwrap();
        assert_eq!(postcard::from_bytes::<Table>(&bytes).unwrap(), table);
        // A chunk kind that is none: refused, not guessed.
        let mut bad = bytes.clone();
        let kind_at = 1 + 2 * Posting::SIZE + 1 + Chunk::SIZE - 1;
        assert_eq!(bad[kind_at], 2);
        bad[kind_at] = 3;
        assert!(postcard::from_bytes::<Table>(&bad).is_err());
    }
}
