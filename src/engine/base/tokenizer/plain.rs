//! The pre-tokenizers of `o200k_base` and `cl100k_base` written out for plain text (ASCII,
//! plus the punctuation and symbols of `is_plain_symbol`, such as the map's own `⋮` and `…`):
//! the same pieces as tiktoken's regex (the tests check both against fancy-regex and
//! tiktoken-rs), with no regex to build. Why: building the Unicode regex costs ~10 ms of CPU,
//! on the fit's critical path when its first line is counted, and running it was most of a
//! count; code, and nearly every line a map counts, is plain. Other text goes to the regex.
//! Any thread.
//!
//! In plain text the patterns' classes are simple: `\p{L}` is `[A-Za-z]` (upper case `\p{Lu}`,
//! lower case `\p{Ll}`; no `Lt`, `Lm`, `Lo` or `M`), `\p{N}` is `[0-9]`, `\s` is
//! `[\t\n\x0B\x0C\r ]` (Unicode White_Space), and every other byte, those of a plain symbol
//! included, is "other". Each function below follows its pattern's alternatives in order, with
//! the backtracking the regex would do spelt out where it changes a piece's end. Only the word
//! prefix (`[^\r\n\p{L}\p{N}]?`, one character) needs to know where a character ends.

use super::TokenizerKind;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Upper,
    Lower,
    Digit,
    Space,
    /// Neither a letter, a digit nor white space: punctuation, symbols, control bytes.
    Other,
}

fn class(b: u8) -> Class {
    match b {
        b'A'..=b'Z' => Class::Upper,
        b'a'..=b'z' => Class::Lower,
        b'0'..=b'9' => Class::Digit,
        b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ' => Class::Space,
        _ => Class::Other,
    }
}

fn class_at(text: &[u8], at: usize) -> Option<Class> {
    text.get(at).map(|&b| class(b))
}

fn is_letter(text: &[u8], at: usize) -> bool {
    matches!(class_at(text, at), Some(Class::Upper | Class::Lower))
}

/// `[^\r\n\p{L}\p{N}]`: what may stand before a word.
fn is_word_prefix(b: u8) -> bool {
    b != b'\r' && b != b'\n' && matches!(class(b), Class::Space | Class::Other)
}

/// The end of the run of bytes from `at` for which `keep` holds.
fn run_end(text: &[u8], mut at: usize, keep: impl Fn(u8) -> bool) -> usize {
    while text.get(at).is_some_and(|&b| keep(b)) {
        at += 1;
    }
    at
}

fn run_of(text: &[u8], at: usize, wanted: Class) -> usize {
    run_end(text, at, |b| class(b) == wanted)
}

/// Whether `text` is plain: every character ASCII or a plain symbol.
pub(super) fn is_plain(text: &str) -> bool {
    text.is_ascii() || text.chars().all(|c| c.is_ascii() || is_plain_symbol(c))
}

/// Non-ASCII characters that are neither letters, marks, digits nor white space in any
/// Unicode version, so that both patterns treat them as ASCII punctuation: General
/// Punctuation (dashes, quotes, bullets, `…`, `‰`, primes; not its spaces U+2028/9, U+202F,
/// U+205F, nor U+2060 onwards), Arrows, Mathematical Operators (`⋮`), Miscellaneous
/// Technical, Box Drawing, Block Elements and Geometric Shapes. A test checks each one against
/// the regex's own classes.
pub(super) fn is_plain_symbol(c: char) -> bool {
    matches!(c, '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205E}' | '\u{2190}'..='\u{23FF}' | '\u{2500}'..='\u{25FF}')
}

/// The byte length of the character starting at `at` (a lead byte of valid UTF-8).
fn char_len(text: &[u8], at: usize) -> usize {
    match text[at] {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Calls `piece` with each piece of `text` (plain: see `is_plain`), in order; together they
/// are `text`.
pub(super) fn for_each_piece(kind: TokenizerKind, text: &[u8], piece: &mut dyn FnMut(&[u8])) {
    let mut at = 0;
    while at < text.len() {
        let end = match kind {
            TokenizerKind::O200k => o200k_piece_end(text, at),
            TokenizerKind::Cl100k => cl100k_piece_end(text, at),
        };
        // Every byte starts a piece of at least itself (the last alternatives take any white
        // space, the others any other byte); `max` only guards the loop's progress.
        let end = end.max(at + 1).min(text.len());
        piece(&text[at..end]);
        at = end;
    }
}

/// `'s`, `'t`, `'re`, `'ve`, `'m`, `'ll`, `'d` at `at`, any case: the end after it.
fn contraction_end(text: &[u8], at: usize) -> Option<usize> {
    if text.get(at) != Some(&b'\'') {
        return None;
    }
    let next = |i: usize| text.get(at + i).map(u8::to_ascii_lowercase);
    match (next(1)?, next(2)) {
        (b's' | b't' | b'm' | b'd', _) => Some(at + 2),
        (b'r' | b'v', Some(b'e')) | (b'l', Some(b'l')) => Some(at + 3),
        _ => None,
    }
}

/// ` ?[^\s\p{L}\p{N}]+` at `at`: the end of the symbol run, if there is one.
fn symbols_end(text: &[u8], at: usize) -> Option<usize> {
    let start = match (text.get(at), class_at(text, at + 1)) {
        (Some(b' '), Some(Class::Other)) => at + 1,
        _ if class_at(text, at) == Some(Class::Other) => at,
        _ => return None,
    };
    Some(run_of(text, start, Class::Other))
}

/// The end of the last `\r` or `\n` in the white space run `at..run_end`, plus one.
fn after_last_newline(text: &[u8], at: usize, run_end: usize) -> Option<usize> {
    text[at..run_end]
        .iter()
        .rposition(|&b| b == b'\r' || b == b'\n')
        .map(|i| at + i + 1)
}

/// `o200k_base`: `[^\r\n\p{L}\p{N}]?[Lu…]*[Ll…]+(contraction)? | [^\r\n\p{L}\p{N}]?[Lu…]+
/// [Ll…]*(contraction)? | \p{N}{1,3} | ?[^\s\p{L}\p{N}]+[\r\n/]* | \s*[\r\n]+ | \s+(?!\S) | \s+`.
fn o200k_piece_end(text: &[u8], at: usize) -> usize {
    // The two word alternatives: upper case letters, then lower case ones, at least one
    // letter in all (in ASCII no letter is both, so neither run gives any back).
    let word = if is_letter(text, at) {
        Some(at)
    } else if is_word_prefix(text[at]) && is_letter(text, at + char_len(text, at)) {
        Some(at + char_len(text, at))
    } else {
        None
    };
    if let Some(start) = word {
        let end = run_of(text, run_of(text, start, Class::Upper), Class::Lower);
        return contraction_end(text, end).unwrap_or(end);
    }
    if class(text[at]) == Class::Digit {
        return run_of(text, at, Class::Digit).min(at + 3);
    }
    if let Some(end) = symbols_end(text, at) {
        return run_end(text, end, |b| matches!(b, b'\r' | b'\n' | b'/'));
    }
    white_space_end(text, at, false)
}

/// `cl100k_base`: `'(?i:[sdmt]|ll|ve|re) | [^\r\n\p{L}\p{N}]?+\p{L}++ | \p{N}{1,3}+ |
/// ?[^\s\p{L}\p{N}]++[\r\n]*+ | \s++$ | \s*[\r\n] | \s+(?!\S) | \s`.
fn cl100k_piece_end(text: &[u8], at: usize) -> usize {
    if let Some(end) = contraction_end(text, at) {
        return end;
    }
    // The prefix is possessive: once taken it is not given back (no letter could follow
    // without it anyway, as it is not a letter).
    let start = if is_word_prefix(text[at]) {
        at + char_len(text, at)
    } else {
        at
    };
    if is_letter(text, start) {
        return run_end(text, start, |b| b.is_ascii_alphabetic());
    }
    if class(text[at]) == Class::Digit {
        return run_of(text, at, Class::Digit).min(at + 3);
    }
    if let Some(end) = symbols_end(text, at) {
        return run_end(text, end, |b| matches!(b, b'\r' | b'\n'));
    }
    white_space_end(text, at, true)
}

/// The white space alternatives, at a white space byte (anything else is one piece):
/// `\s++$` (cl100k only: a run to the end of the text), then a run up to its last line break,
/// then a run but its last byte when a non-space follows (`\s+(?!\S)`: that byte goes with
/// the next word), then a single byte.
fn white_space_end(text: &[u8], at: usize, whole_run_at_end: bool) -> usize {
    if class(text[at]) != Class::Space {
        return at + 1;
    }
    let run = run_of(text, at, Class::Space);
    if whole_run_at_end && run == text.len() {
        return run;
    }
    if let Some(end) = after_last_newline(text, at, run) {
        return end;
    }
    if run == text.len() {
        run
    } else if run - at >= 2 {
        run - 1
    } else {
        run
    }
}
