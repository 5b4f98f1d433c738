//! Exact token counting with OpenAI's BPE encodings (`o200k_base`, `cl100k_base`).
//!
//! Owns the process-wide tokenizer tables. Building one takes a noticeable fraction of a second
//! (the vocabulary is embedded in `tiktoken-rs` and parsed at first use), so each encoding is
//! built once per process behind a `OnceLock`, on whichever thread asks first — the engine
//! worker, never the UI thread. After that, `count` is safe to call from any thread.

use serde::Serialize;
use std::sync::OnceLock;
use tiktoken_rs::CoreBPE;

/// Which BPE encoding counts the map's tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum TokenizerKind {
    /// GPT-4o / GPT-4.1 / o-series / GPT-5.
    #[default]
    #[serde(rename = "o200k_base")]
    O200k,
    /// GPT-4 / GPT-3.5.
    #[serde(rename = "cl100k_base")]
    Cl100k,
}

impl TokenizerKind {
    pub const ALL: [TokenizerKind; 2] = [TokenizerKind::O200k, TokenizerKind::Cl100k];

    /// The encoding's canonical name, as tiktoken spells it.
    pub fn name(self) -> &'static str {
        match self {
            TokenizerKind::O200k => "o200k_base",
            TokenizerKind::Cl100k => "cl100k_base",
        }
    }

    /// Accepts the canonical name or its short form, case-insensitively.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "o200k" | "o200k_base" => Some(TokenizerKind::O200k),
            "cl100k" | "cl100k_base" => Some(TokenizerKind::Cl100k),
            _ => None,
        }
    }

    /// The following encoding, wrapping around (the TUI cycles with one key).
    pub fn next(self) -> Self {
        match self {
            TokenizerKind::O200k => TokenizerKind::Cl100k,
            TokenizerKind::Cl100k => TokenizerKind::O200k,
        }
    }
}

impl std::fmt::Display for TokenizerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A loaded encoding. Obtain one with [`tokenizer`].
pub struct Tokenizer {
    kind: TokenizerKind,
    bpe: CoreBPE,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl Tokenizer {
    pub fn kind(&self) -> TokenizerKind {
        self.kind
    }

    /// The exact number of tokens `text` encodes to. Special-token strings such as
    /// `<|endoftext|>` are counted as ordinary text: repository content is data, never control.
    pub fn count(&self, text: &str) -> usize {
        if text.is_empty() {
            return 0;
        }
        self.bpe.encode_ordinary(text).len()
    }
}

/// The process-wide tokenizer for `kind`, built on first use.
pub fn tokenizer(kind: TokenizerKind) -> &'static Tokenizer {
    static O200K: OnceLock<Tokenizer> = OnceLock::new();
    static CL100K: OnceLock<Tokenizer> = OnceLock::new();
    let (cell, build): (&OnceLock<Tokenizer>, fn() -> anyhow::Result<CoreBPE>) = match kind {
        TokenizerKind::O200k => (&O200K, tiktoken_rs::o200k_base),
        TokenizerKind::Cl100k => (&CL100K, tiktoken_rs::cl100k_base),
    };
    cell.get_or_init(|| Tokenizer {
        kind,
        // The vocabulary and regex are compiled into the binary: this cannot fail at run time
        // unless the build itself is broken, and no input reaches it.
        bpe: build().expect("embedded tiktoken vocabulary must load"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_cycle() {
        for kind in TokenizerKind::ALL {
            assert_eq!(TokenizerKind::parse(kind.name()), Some(kind));
            assert_eq!(kind.next().next(), kind);
            assert_ne!(kind.next(), kind);
        }
        assert_eq!(TokenizerKind::parse("o200k"), Some(TokenizerKind::O200k));
        assert_eq!(TokenizerKind::parse("CL100K"), Some(TokenizerKind::Cl100k));
        assert_eq!(TokenizerKind::parse("gpt2"), None);
        assert_eq!(
            serde_json::to_string(&TokenizerKind::Cl100k).unwrap(),
            "\"cl100k_base\""
        );
    }

    #[test]
    fn counts_known_strings() {
        // Reference values from Python tiktoken.
        let o = tokenizer(TokenizerKind::O200k);
        let c = tokenizer(TokenizerKind::Cl100k);
        assert_eq!(o.count(""), 0);
        assert_eq!(c.count(""), 0);
        assert_eq!(c.count("hello world"), 2);
        assert_eq!(o.count("hello world"), 2);
        // Special tokens are plain text here, not one control token.
        assert!(o.count("<|endoftext|>") > 1);
        assert!(c.count("<|endoftext|>") > 1);
        assert_eq!(o.kind(), TokenizerKind::O200k);
    }
}
