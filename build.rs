//! Writes the tokenizer's vocabularies into `OUT_DIR` as flat binary tables (see
//! `src/engine/base/tokenizer/vocab.rs` for the layout), so the binary embeds them ready to use
//! instead of decoding 200k base64 tokens into hash maps at every start.
//!
//! The vocabulary comes from tiktoken-rs (a build-dependency) through its public API: each rank
//! is decoded with `decode_bytes`, special tokens are left out (the tokenizer counts their text
//! as ordinary text, like `encode_ordinary`).

#[path = "src/engine/base/tokenizer/vocab.rs"]
#[allow(dead_code)]
mod vocab;

use std::collections::HashSet;
use std::path::Path;
use tiktoken_rs::CoreBPE;

/// Past the last rank of both encodings (o200k's ordinary tokens end at 199_997).
const RANK_SCAN: u32 = 1 << vocab::RANK_BITS;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/engine/base/tokenizer/vocab.rs");
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    for (name, bpe) in [
        ("o200k_base", tiktoken_rs::o200k_base()),
        ("cl100k_base", tiktoken_rs::cl100k_base()),
    ] {
        let bpe = bpe.unwrap_or_else(|e| panic!("tiktoken-rs {name}: {e}"));
        if let Err(e) = write_vocab(out, name, &bpe) {
            panic!("writing the {name} vocabulary: {e}");
        }
    }
}

fn write_vocab(out: &Path, name: &str, bpe: &CoreBPE) -> Result<(), String> {
    let special: HashSet<u32> = bpe
        .special_tokens()
        .into_iter()
        .flat_map(|s| bpe.encode_with_special_tokens(s))
        .collect();
    // tokens[r] = rank r's bytes; a rank that does not decode (a gap) or is special stays empty.
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    for rank in 0..RANK_SCAN {
        if special.contains(&rank) {
            continue;
        }
        if let Ok(bytes) = bpe.decode_bytes(&[rank]) {
            if bytes.is_empty() {
                return Err(format!("rank {rank} is empty"));
            }
            tokens.resize(rank as usize, Vec::new());
            tokens.push(bytes);
        }
    }
    if bpe.decode_bytes(&[RANK_SCAN]).is_ok() && !special.contains(&RANK_SCAN) {
        return Err(format!("ranks go past {RANK_SCAN}"));
    }
    // The byte-pair merge relies on every single byte being a token.
    let mut seen = [false; 256];
    for t in tokens.iter().filter(|t| t.len() == 1) {
        seen[t[0] as usize] = true;
    }
    if seen.iter().any(|s| !s) {
        return Err("not every byte is a token".into());
    }

    let table = vocab::write::build_table(&tokens)?;
    let pairs = vocab::write::pair_table(&tokens)?;
    let (bytes, offsets) = vocab::write::pack_tokens(&tokens)?;
    let offsets = vocab::write::to_le_bytes(&offsets);
    let table = vocab::write::to_le_bytes(&table);
    let pairs = vocab::write::to_le_bytes(&pairs);

    // Self-check through the reader the tokenizer uses: every token reads back, and the pairs
    // table agrees with the hash table on every two-byte string.
    let v = vocab::Vocab::new(&bytes, &offsets, &table, &pairs);
    for (rank, t) in tokens.iter().enumerate() {
        if !t.is_empty() && v.rank(t) != Some(rank as u32) {
            return Err(format!("rank {rank} does not read back"));
        }
    }
    if let Some(key) = v.pair_mismatch() {
        return Err(format!(
            "pair {key:?} reads differently from the two tables"
        ));
    }

    for (ext, data) in [
        ("tokens", &bytes),
        ("offsets", &offsets),
        ("table", &table),
        ("pairs", &pairs),
    ] {
        let path = out.join(format!("{name}.{ext}"));
        std::fs::write(&path, data).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}
