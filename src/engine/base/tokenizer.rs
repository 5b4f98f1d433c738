//! Exact token counting with OpenAI's BPE encodings (`o200k_base`, `cl100k_base`).
//!
//! Owns the process-wide tokenizers. Counts are tiktoken's `encode_ordinary(text).len()`, token
//! for token, without tiktoken-rs's start-up (decoding 200k base64 tokens into hash maps: 0.4 s
//! and 50 MB for o200k): `build.rs` lays each vocabulary out as flat tables with a ready-made
//! hash table ([`vocab`]), which the binary embeds and reads in place. Plain text (ASCII and
//! common symbols) is split into pieces by hand ([`plain`]); other text by the pre-tokenizer
//! regex (tiktoken's own pattern, run by the same `fancy-regex`), built behind a `OnceLock` on
//! the first such text, on whichever thread asks first (an engine worker, never the UI
//! thread); `count` is safe to call from any thread.

mod merge;
mod plain;
mod vocab;

use fancy_regex::Regex;
use serde::Serialize;
use std::sync::OnceLock;
use vocab::Vocab;

/// tiktoken's `cl100k_base` pre-tokenizer pattern.
const CL100K_PATTERN: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+",
    r"| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s",
);

/// tiktoken's `o200k_base` pre-tokenizer pattern.
const O200K_PATTERN: &str = concat!(
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*",
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
    r"|\p{N}{1,3}",
    r"| ?[^\s\p{L}\p{N}]+[\r\n/]*",
    r"|\s*[\r\n]+",
    r"|\s+(?!\S)",
    r"|\s+",
);

macro_rules! embedded_vocab {
    ($name:literal) => {
        Vocab::new(
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".tokens")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".offsets")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".table")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".pairs")),
        )
    };
}

static O200K_VOCAB: Vocab<'static> = embedded_vocab!("o200k_base");
static CL100K_VOCAB: Vocab<'static> = embedded_vocab!("cl100k_base");

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
}

impl std::fmt::Display for TokenizerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

thread_local! {
    /// Pieces this thread has counted, per encoding (`TokenizerKind as usize`; one slot per
    /// kind in `TokenizerKind::ALL`, which lists them in declaration order).
    static PIECE_COUNTS: std::cell::RefCell<[PieceMemo; TokenizerKind::ALL.len()]> =
        Default::default();
}

/// Token counts of pieces already counted on this thread. A map's lines repeat the same
/// words (keywords, type names, indentation) hundreds of times, and a repeated piece then
/// costs one probe of this small, cache-resident table instead of the vocabulary lookups of
/// its merge (the vocabulary's tables are MBs, so each of those misses the cache).
#[derive(Default)]
struct PieceMemo {
    counts: rustc_hash::FxHashMap<Box<[u8]>, u32>,
}

impl PieceMemo {
    /// Pieces longer than this are counted every time: they rarely repeat.
    const MAX_PIECE: usize = 32;
    /// Entries before the memo starts over, so a long-lived thread's memo stays small
    /// (~1 MB at most).
    const MAX_ENTRIES: usize = 1 << 14;

    fn count(&mut self, piece: &[u8], count: impl FnOnce(&[u8]) -> usize) -> usize {
        if piece.len() > Self::MAX_PIECE {
            return count(piece);
        }
        if let Some(&n) = self.counts.get(piece) {
            return n as usize;
        }
        let n = count(piece);
        if self.counts.len() >= Self::MAX_ENTRIES {
            self.counts.clear();
        }
        self.counts
            .insert(piece.into(), u32::try_from(n).unwrap_or(u32::MAX));
        n
    }
}

/// A loaded encoding. Obtain one with [`tokenizer`].
pub struct Tokenizer {
    kind: TokenizerKind,
    vocab: &'static Vocab<'static>,
    /// Splits text that is not plain (`plain::is_plain`) into the pieces BPE runs on (merges
    /// never cross a piece boundary); built from `pattern` on first use (`regex`), as
    /// building it costs ~10 ms of CPU.
    pre: OnceLock<Regex>,
    pattern: &'static str,
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
        let mut scratch = merge::Scratch::default();
        let mut total = 0;
        PIECE_COUNTS.with_borrow_mut(|memo| {
            let memo = &mut memo[self.kind as usize];
            self.for_each_piece(text, &mut |piece| {
                total += memo.count(piece, |p| merge::count_piece(self.vocab, p, &mut scratch));
            });
        });
        total
    }

    /// Calls `piece` with each pre-tokenizer piece of `text`, in order.
    fn for_each_piece(&self, text: &str, piece: &mut dyn FnMut(&[u8])) {
        if plain::is_plain(text) {
            plain::for_each_piece(self.kind, text.as_bytes(), piece);
            return;
        }
        let mut end = 0;
        for found in self.regex().find_iter(text) {
            match found {
                Ok(m) => {
                    piece(m.as_str().as_bytes());
                    end = m.end();
                }
                // fancy-regex gave up (its backtracking limit; no input we know of reaches it).
                // tiktoken-rs panics here; we count the rest as one piece, which stays close and
                // never panics.
                Err(_) => {
                    piece(text.get(end..).unwrap_or_default().as_bytes());
                    return;
                }
            }
        }
    }

    /// tiktoken's pre-tokenizer regex for this encoding, built on first use.
    fn regex(&self) -> &Regex {
        self.pre.get_or_init(|| {
            // The patterns are constants, checked by the tests: this cannot fail at run time,
            // and no input reaches it.
            Regex::new(self.pattern).expect("tiktoken's pre-tokenizer pattern must compile")
        })
    }
}

static O200K: Tokenizer = Tokenizer {
    kind: TokenizerKind::O200k,
    vocab: &O200K_VOCAB,
    pre: OnceLock::new(),
    pattern: O200K_PATTERN,
};

static CL100K: Tokenizer = Tokenizer {
    kind: TokenizerKind::Cl100k,
    vocab: &CL100K_VOCAB,
    pre: OnceLock::new(),
    pattern: CL100K_PATTERN,
};

/// The process-wide tokenizer for `kind` (its vocabulary is embedded; its regex is built on
/// the first text that needs it).
pub fn tokenizer(kind: TokenizerKind) -> &'static Tokenizer {
    match kind {
        TokenizerKind::O200k => &O200K,
        TokenizerKind::Cl100k => &CL100K,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A piece counted once is answered from the memo with the same count; long pieces are
    /// not kept, and the memo starts over instead of growing past its bound.
    #[test]
    fn the_piece_memo_answers_what_it_counted_and_stays_bounded() {
        let mut memo = PieceMemo::default();
        let counted = std::cell::Cell::new(0);
        let mut count = |piece: &[u8]| {
            memo.count(piece, |p| {
                counted.set(counted.get() + 1);
                p.len()
            })
        };
        assert_eq!(count(b" Builder"), 8);
        assert_eq!(count(b" Builder"), 8);
        assert_eq!(counted.get(), 1);
        let long = [b'x'; PieceMemo::MAX_PIECE + 1];
        assert_eq!(count(&long), long.len());
        assert_eq!(count(&long), long.len());
        assert_eq!(counted.get(), 3);
        for i in 0..PieceMemo::MAX_ENTRIES + 10 {
            count(format!("p{i}").as_bytes());
        }
        assert!(memo.counts.len() <= PieceMemo::MAX_ENTRIES);
        assert!(!memo.counts.is_empty());

        // Through the tokenizer: a text counted again on the same thread (the memo now holds
        // its pieces) counts the same, for each encoding.
        let text = "    public static TypeSpec.Builder classBuilder(ClassName className) {";
        for kind in TokenizerKind::ALL {
            let first = tokenizer(kind).count(text);
            assert_eq!(tokenizer(kind).count(text), first);
            assert_eq!(first, reference(kind).encode_ordinary(text).len());
        }
    }

    #[test]
    fn names_parse_and_cycle() {
        for kind in TokenizerKind::ALL {
            assert_eq!(TokenizerKind::parse(kind.name()), Some(kind));
        }
        assert_eq!(TokenizerKind::parse("o200k"), Some(TokenizerKind::O200k));
        assert_eq!(TokenizerKind::parse("CL100K"), Some(TokenizerKind::Cl100k));
        assert_eq!(TokenizerKind::parse("gpt2"), None);
        assert_eq!(
            serde_json::to_string(&TokenizerKind::Cl100k).unwrap(),
            "\"cl100k_base\""
        );
    }

    use proptest::prelude::*;
    use std::collections::HashSet;
    use std::path::Path;
    use tiktoken_rs::CoreBPE;

    /// tiktoken-rs, the reference every count must equal.
    fn reference(kind: TokenizerKind) -> &'static CoreBPE {
        match kind {
            TokenizerKind::O200k => tiktoken_rs::o200k_base_singleton(),
            TokenizerKind::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        }
    }

    /// The byte length of each token of `text`: ours, through the same pre-tokenizer and merge
    /// as `count`.
    fn split(kind: TokenizerKind, text: &str) -> Vec<usize> {
        let t = tokenizer(kind);
        let mut lengths = Vec::new();
        t.for_each_piece(text, &mut |piece| {
            lengths.extend(merge::split_piece(t.vocab, piece));
        });
        lengths
    }

    /// tiktoken-rs's token lengths for `text`.
    fn reference_split(kind: TokenizerKind, text: &str) -> Vec<usize> {
        let bpe = reference(kind);
        bpe.encode_ordinary(text)
            .into_iter()
            .map(|r| bpe.decode_bytes(&[r]).unwrap().len())
            .collect()
    }

    /// Same count and the same tokens (as byte lengths) as tiktoken-rs.
    fn assert_same(kind: TokenizerKind, text: &str) {
        let want = reference_split(kind, text);
        assert_eq!(
            tokenizer(kind).count(text),
            want.len(),
            "{kind} on {text:?}"
        );
        assert_eq!(split(kind, text), want, "{kind} on {text:?}");
    }

    #[test]
    fn o200k_pattern_is_tiktokens() {
        assert_eq!(O200K_PATTERN, tiktoken_rs::O200K_BASE_PAT_STR);
    }

    /// The two-byte shortcut answers exactly what the hash table does, on every two-byte
    /// string, in both encodings (`build.rs` checks the same before writing the tables).
    #[test]
    fn embedded_pairs_agree_with_the_hash_table() {
        for vocab in [&O200K_VOCAB, &CL100K_VOCAB] {
            assert_eq!(vocab.pair_mismatch(), None);
            let tokens = vocab.pair_tokens();
            assert!(tokens > 1000, "two-byte tokens found: {tokens}");
        }
    }

    #[test]
    fn embedded_vocab_is_tiktokens() {
        for (kind, vocab) in [
            (TokenizerKind::O200k, &O200K_VOCAB),
            (TokenizerKind::Cl100k, &CL100K_VOCAB),
        ] {
            let bpe = reference(kind);
            let special: HashSet<u32> = bpe
                .special_tokens()
                .into_iter()
                .flat_map(|t| bpe.encode_with_special_tokens(t))
                .collect();
            let mut ranks = 0;
            for rank in 0..(1 << vocab::RANK_BITS) {
                match bpe.decode_bytes(&[rank]) {
                    // Left out on purpose: their text counts as ordinary text.
                    Ok(_) if special.contains(&rank) => assert!(vocab.token(rank).is_empty()),
                    Ok(bytes) => {
                        assert_eq!(vocab.token(rank), bytes.as_slice(), "{kind} rank {rank}");
                        assert_eq!(vocab.rank(&bytes), Some(rank), "{kind} rank {rank}");
                        ranks += 1;
                    }
                    Err(_) => assert!(vocab.token(rank).is_empty(), "{kind} rank {rank}"),
                }
            }
            let expected = match kind {
                TokenizerKind::O200k => 199_998,
                TokenizerKind::Cl100k => 100_256,
            };
            assert_eq!(ranks, expected, "{kind}");
            // Special tokens are not in the table: their text is ordinary text.
            assert_eq!(vocab.rank(b"<|endoftext|>"), None);
            assert_eq!(vocab.rank(b"not a single token at all"), None);
        }
    }

    #[test]
    fn same_counts_as_tiktoken_on_every_fixture_file() {
        fn walk(dir: &Path, out: &mut Vec<String>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            entries.sort();
            for path in entries {
                if path.is_dir() {
                    walk(&path, out);
                } else if let Ok(text) = std::fs::read_to_string(&path) {
                    out.push(text);
                }
            }
        }
        let mut files = Vec::new();
        walk(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
            &mut files,
        );
        assert!(files.len() > 20, "fixtures not found");
        for kind in TokenizerKind::ALL {
            for text in &files {
                assert_same(kind, text);
                // The map fit counts line by line, so lines must agree too.
                for line in text.split_inclusive('\n') {
                    assert_same(kind, line);
                }
            }
        }
    }

    #[test]
    fn same_counts_as_tiktoken_on_tricky_strings() {
        let long_letters = "a".repeat(10_000);
        let long_spaces = " ".repeat(10_000);
        let long_digits = "7".repeat(10_000);
        let long_mixed = "ab".repeat(5_000);
        let long_cjk = "中".repeat(3_000);
        let long_punct = "=-".repeat(3_000);
        let spaces_then_word = format!("{}x", " ".repeat(5_000));
        let newlines = "\n \n\t\r\n".repeat(2_000);
        let cases: Vec<&str> = vec![
            "",
            " ",
            "\n",
            "\r\n",
            "a",
            "hello world",
            "Hello, World! HELLO world",
            "don't won't I'M you'RE they've we'll she'd it's",
            "DON'T Won'T",
            "  leading and trailing spaces   ",
            "tabs\tand\t\tmore\n\n\n  \n",
            "line one\r\nline two\r\n\r\n",
            "1234567890 3.14159 1e10 0x1F 1,000,000",
            "日本語のテキストと中文字符和한국어",
            "emoji 😀👍🏽👨‍👩‍👧‍👦 flags 🇫🇷🇯🇵",
            "café naïve résumé Ångström façade",
            "e\u{301}\u{301}\u{301} combining \u{300}\u{301}",
            "Ελληνικά русский العربية עברית हिन्दी",
            "control \u{0}\u{1}\u{7}\u{1b}[31m\u{7f}\u{85}\u{a0}\u{2028}\u{feff}",
            "<|endoftext|> <|fim_prefix|><|endofprompt|>",
            "fn main() { println!(\"{}\", x.iter().map(|y| y * 2).sum::<i32>()); }",
            "// comment\n/* block */\n/// doc\n#!/usr/bin/env python\n",
            "a//b ///c \n/path/to/file.rs\n//\n",
            "x = {\"key\": [1, 2, 3], 'k2': None}  # trailing",
            "    def f(self, *args, **kwargs) -> Dict[str, Any]:\n        ...\n",
            "snake_case camelCase PascalCase SCREAMING_CASE kebab-case",
            "\u{10ffff}\u{fffd}\u{e000}",
            &long_letters,
            &long_spaces,
            &long_digits,
            &long_mixed,
            &long_cjk,
            &long_punct,
            &spaces_then_word,
            &newlines,
        ];
        for kind in TokenizerKind::ALL {
            for text in &cases {
                assert_same(kind, text);
            }
        }
    }

    #[test]
    fn long_runs_stay_fast() {
        // A quadratic merge would take minutes here even in release; the heap takes a moment.
        let text = "ab".repeat(200_000);
        let start = std::time::Instant::now();
        for kind in TokenizerKind::ALL {
            assert!(tokenizer(kind).count(&text) > 1_000);
        }
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    }

    /// Fragments that exercise every branch of both pre-tokenizers and the merge.
    const FRAGMENTS: &[&str] = &[
        "a",
        "e",
        "z",
        "Q",
        "the",
        "The",
        "THE",
        "ing",
        "tion",
        "é",
        "ß",
        "Ω",
        "ж",
        "中",
        "文",
        "の",
        "한",
        "ا",
        "\u{301}",
        "😀",
        "👍🏽",
        "\u{200d}",
        "0",
        "7",
        "42",
        "123",
        "4567",
        " ",
        "  ",
        "\t",
        "\n",
        "\r",
        "\r\n",
        "\n\n",
        "\u{a0}",
        "\u{3000}",
        "'",
        "'s",
        "'T",
        "'ll",
        "'re",
        "\"",
        "/",
        "//",
        "\\",
        ".",
        ",",
        ";",
        ":",
        "!",
        "?",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "<",
        ">",
        "=",
        "==",
        "->",
        "=>",
        "_",
        "-",
        "+",
        "*",
        "&",
        "|",
        "#",
        "@",
        "$",
        "%",
        "^",
        "~",
        "`",
        "\u{0}",
        "\u{1b}",
        "\u{7f}",
        "<|endoftext|>",
    ];

    fn mixed_text() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..160).prop_map(|v| v.concat())
    }

    /// Long runs with no space: single pieces past the heap threshold.
    fn long_word() -> impl Strategy<Value = String> {
        let letters: &[&str] = &["a", "b", "e", "r", "s", "t", "é", "中", "X", "\u{301}"];
        prop::collection::vec(prop::sample::select(letters), 90..400).prop_map(|v| v.concat())
    }

    /// Plain fragments around every branch of the hand-written pre-tokenizers, beyond the
    /// plain ones of `FRAGMENTS`: word prefixes (plain symbols of two and three bytes among
    /// them), case runs, contractions in any case, digit runs, symbol runs with line breaks
    /// and slashes after them, white space runs, control bytes.
    const MORE_PLAIN_FRAGMENTS: &[&str] = &[
        "HTTPServer",
        "x1",
        "'S",
        "'t",
        "'RE",
        "'Ve",
        "'m",
        "'lL",
        "'d",
        "'x",
        "'l",
        "1234",
        " \n ",
        "\x0b",
        "\x0c",
        "\u{1}",
        "\u{1f}",
        "⋮",
        "…",
        "—",
        "→",
        "│",
        "■",
        "\u{2010}",
        "\u{205e}",
        "\u{25ff}",
    ];

    fn plain_fragments() -> Vec<&'static str> {
        let plain = FRAGMENTS.iter().filter(|f| plain::is_plain(f));
        plain.chain(MORE_PLAIN_FRAGMENTS).copied().collect()
    }

    /// The pieces of `text` by the regex alone.
    fn regex_pieces(kind: TokenizerKind, text: &str) -> Vec<String> {
        tokenizer(kind)
            .regex()
            .find_iter(text)
            .map(|m| m.unwrap().as_str().to_string())
            .collect()
    }

    /// The pieces of plain `text` by `plain::for_each_piece`.
    fn plain_pieces(kind: TokenizerKind, text: &str) -> Vec<String> {
        let mut pieces = Vec::new();
        plain::for_each_piece(kind, text.as_bytes(), &mut |piece| {
            pieces.push(String::from_utf8(piece.to_vec()).unwrap());
        });
        pieces
    }

    #[test]
    fn plain_pieces_are_the_regexs_on_tricky_strings() {
        let cases = [
            "",
            "don't DON'T it's I'M we'll WE'LL they've you're she'd 'sup 'llama 'x",
            "HTTPServer parseHTTP URLs aB Ab ABC abc",
            "\tfoo \rbar \nbaz .qux ,Quux 9lives",
            "a\n\n  b \t\n\t c   \r\n  ",
            "x  ",
            "x \n",
            "   ",
            "+\n/x -//\r\n/ y ;\x0b",
            "\u{1}\u{1f}abc \u{7f}\u{0}",
            "12345 1 22 333 4444 a1b22c333",
            "fn main() { println!(\"{}\", x.iter().map(|y| y * 2).sum::<i32>()); }",
            "⋮\n⋮abc …x —Word →1 ⋮⋮ \u{2026}\n/ a⋮'s │ ■\r\n",
        ];
        for kind in TokenizerKind::ALL {
            for text in cases {
                assert_eq!(
                    plain_pieces(kind, text),
                    regex_pieces(kind, text),
                    "{kind} on {text:?}"
                );
                assert_same(kind, text);
            }
        }
    }

    /// Every plain symbol is, by the regex's own Unicode tables, neither a letter, a mark, a
    /// digit nor white space; the white space beside the ranges and a letter are not plain.
    #[test]
    fn plain_symbols_are_punctuation_to_the_regex() {
        let other = Regex::new(r"^[^\p{L}\p{M}\p{N}\s]$").unwrap();
        let mut plain = 0;
        for c in (0x80..=0x10_FFFF).filter_map(char::from_u32) {
            if plain::is_plain_symbol(c) {
                assert!(
                    other.is_match(&c.to_string()).unwrap(),
                    "U+{:04X}",
                    c as u32
                );
                plain += 1;
            }
        }
        assert_eq!(plain, 24 + 47 + 624 + 256);
        for excluded in [
            '\u{2028}', '\u{2029}', '\u{202F}', '\u{205F}', '\u{a0}', 'é',
        ] {
            let text = excluded.to_string();
            assert!(!other.is_match(&text).unwrap(), "{excluded:?}");
            assert!(!plain::is_plain(&text), "{excluded:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn plain_pieces_are_the_regexs(
            parts in prop::collection::vec(prop::sample::select(plain_fragments()), 0..80),
            bytes in "[ -~\t\n\r\x0b\x0c\x00-\x1f]{0,40}",
        ) {
            for text in [parts.concat(), bytes] {
                for kind in TokenizerKind::ALL {
                    prop_assert_eq!(
                        plain_pieces(kind, &text),
                        regex_pieces(kind, &text),
                        "{} on {:?}",
                        kind,
                        &text
                    );
                    prop_assert_eq!(
                        tokenizer(kind).count(&text),
                        reference_split(kind, &text).len(),
                        "{} on {:?}",
                        kind,
                        &text
                    );
                }
            }
        }

        #[test]
        fn same_counts_as_tiktoken_on_mixed_text(text in mixed_text()) {
            for kind in TokenizerKind::ALL {
                let want = reference_split(kind, &text);
                prop_assert_eq!(tokenizer(kind).count(&text), want.len(), "{} on {:?}", kind, text);
                prop_assert_eq!(split(kind, &text), want, "{} on {:?}", kind, text);
            }
        }

        #[test]
        fn same_counts_as_tiktoken_on_long_words(text in long_word()) {
            for kind in TokenizerKind::ALL {
                let want = reference_split(kind, &text);
                prop_assert_eq!(tokenizer(kind).count(&text), want.len(), "{} on {:?}", kind, text);
                prop_assert_eq!(split(kind, &text), want, "{} on {:?}", kind, text);
            }
        }

        #[test]
        fn same_counts_as_tiktoken_on_any_string(text in "\\PC{0,64}") {
            for kind in TokenizerKind::ALL {
                let want = reference_split(kind, &text);
                prop_assert_eq!(tokenizer(kind).count(&text), want.len(), "{} on {:?}", kind, text);
                prop_assert_eq!(split(kind, &text), want, "{} on {:?}", kind, text);
            }
        }
    }

    /// Start-up and throughput against tiktoken-rs; numbers are only meaningful in release:
    /// `cargo test --release --lib engine::base::tokenizer::tests::bench -- --ignored --nocapture`.
    /// `MAPSCOPE_TOK_BENCH` may name a big file to count; the fixtures are used otherwise.
    #[test]
    #[ignore = "a benchmark, not a check"]
    fn bench_against_tiktoken() {
        use std::time::Instant;
        let text = if let Ok(path) = std::env::var("MAPSCOPE_TOK_BENCH") {
            std::fs::read_to_string(path).unwrap()
        } else {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repos/py-app");
            let mut one = String::new();
            for e in std::fs::read_dir(dir).unwrap() {
                one += &std::fs::read_to_string(e.unwrap().path()).unwrap_or_default();
            }
            one.repeat((4 << 20) / one.len().max(1) + 1)
        };
        let mb = text.len() as f64 / 1e6;
        // Ours first: freeing tiktoken-rs's million small allocations makes the next large
        // allocation pay for malloc's consolidation, which would be billed to our start-up.
        let inits = TokenizerKind::ALL.map(|kind| {
            let t = Instant::now();
            tokenizer(kind);
            t.elapsed()
        });
        for (kind, ours_init) in TokenizerKind::ALL.into_iter().zip(inits) {
            let ours = tokenizer(kind);
            let t = Instant::now();
            let theirs = match kind {
                TokenizerKind::O200k => tiktoken_rs::o200k_base().unwrap(),
                TokenizerKind::Cl100k => tiktoken_rs::cl100k_base().unwrap(),
            };
            let theirs_init = t.elapsed();
            let t = Instant::now();
            let n = ours.count(&text);
            let ours_secs = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let m = theirs.encode_ordinary(&text).len();
            let theirs_secs = t.elapsed().as_secs_f64();
            assert_eq!(n, m);
            let t = Instant::now();
            let lines: usize = text.lines().map(|l| ours.count(l)).sum();
            let ours_lines = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let lines2: usize = text.lines().map(|l| theirs.encode_ordinary(l).len()).sum();
            let theirs_lines = t.elapsed().as_secs_f64();
            assert_eq!(lines, lines2);
            println!(
                "{kind}: init ours {ours_init:?} tiktoken-rs {theirs_init:?}; {mb:.1} MB, \
                 {n} tokens: ours {:.1} MB/s tiktoken-rs {:.1} MB/s; per line: ours {:.1} MB/s \
                 tiktoken-rs {:.1} MB/s",
                mb / ours_secs,
                mb / theirs_secs,
                mb / ours_lines,
                mb / theirs_lines,
            );
        }
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
