//! A file's text as an index holds it: whole, only the lines a map renders (`MapLines`,
//! which the tag cache stores), or those lines now and the whole text when first asked for
//! (`LazyText`, a file a warm search took from the tag cache unread). Plain data; a lazy
//! text is read on whichever thread first asks for it.

use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};

/// How many lines of a signature a map shows at most (`repo_map` renders this many).
pub(crate) const MAP_SIGNATURE_LINES: u32 = 16;

#[derive(Debug, Clone)]
pub(super) enum SourceText {
    /// Source text (invalid UTF-8 replaced), kept for rendering maps, search and previews,
    /// with the byte offset of the start of each line, so `line(n)` is O(1).
    Full {
        source: Arc<str>,
        line_starts: Arc<[u32]>,
    },
    /// Only what a map renders: see [`MapLines`].
    MapOnly(Arc<MapLines>),
    /// Taken from the tag cache unread: see [`LazyText`].
    Lazy(Arc<LazyText>),
}

impl SourceText {
    /// The whole text, with its line starts.
    pub(super) fn full(source: Arc<str>) -> SourceText {
        let line_starts = line_starts_of(&source).into();
        SourceText::Full {
            source,
            line_starts,
        }
    }

    pub(super) fn lazy(
        lines: Arc<MapLines>,
        read: impl Fn() -> Option<String> + Send + Sync + 'static,
    ) -> SourceText {
        SourceText::Lazy(Arc::new(LazyText {
            lines,
            read: Box::new(read),
            full: OnceLock::new(),
        }))
    }

    /// The kept lines of a text that has them.
    pub(super) fn map_lines(&self) -> Option<&Arc<MapLines>> {
        match self {
            SourceText::Full { .. } => None,
            SourceText::MapOnly(m) => Some(m),
            SourceText::Lazy(l) => Some(&l.lines),
        }
    }

    pub(super) fn source(&self) -> Option<&Arc<str>> {
        match self {
            SourceText::Full { source, .. } => Some(source),
            SourceText::MapOnly(_) => None,
            SourceText::Lazy(l) => l.full().map(|(s, _)| s),
        }
    }

    pub(super) fn line_count(&self) -> u32 {
        match self {
            SourceText::Full {
                source,
                line_starts,
            } => line_count_of(source, line_starts),
            SourceText::MapOnly(m) => m.line_count,
            SourceText::Lazy(l) => l.lines.line_count,
        }
    }

    pub(super) fn line(&self, n: u32) -> Option<&str> {
        match self {
            SourceText::Full {
                source,
                line_starts,
            } => line_of(source, line_starts, n),
            SourceText::MapOnly(m) => m.line(n),
            // The kept lines are the text's own (the tag cache stored them from it).
            SourceText::Lazy(l) => l.lines.kept_line(n).or_else(|| {
                let (source, line_starts) = l.full()?;
                line_of(source, line_starts, n)
            }),
        }
    }

    pub(super) fn is_nonblank(&self, n: u32) -> bool {
        match self {
            SourceText::Full { .. } => self.line(n).is_some_and(|l| !l.trim().is_empty()),
            SourceText::MapOnly(m) => m.is_nonblank(n),
            SourceText::Lazy(l) => l.lines.is_nonblank(n),
        }
    }
}

/// The text of a file taken from the tag cache without reading it (a warm search): the
/// lines a map renders, from the cache, and the whole text read the first time something
/// asks for a line or the source beyond them (an excerpt, a preview). Reading is left to
/// the build that made it (`read`, which also checks the content is still the one the tags
/// came from); a file that changed or vanished since then has no text beyond those lines.
/// Shared by the clones of the file, so it is read at most once.
pub struct LazyText {
    lines: Arc<MapLines>,
    read: Box<dyn Fn() -> Option<String> + Send + Sync>,
    full: OnceLock<Option<WholeText>>,
}

/// A whole text and the byte offset of each of its lines' starts.
type WholeText = (Arc<str>, Arc<[u32]>);

impl LazyText {
    fn full(&self) -> Option<(&Arc<str>, &[u32])> {
        self.full
            .get_or_init(|| {
                let source: Arc<str> = Arc::from((self.read)()?);
                let line_starts = line_starts_of(&source).into();
                Some((source, line_starts))
            })
            .as_ref()
            .map(|(s, l)| (s, &l[..]))
    }
}

impl std::fmt::Debug for LazyText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyText")
            .field("lines", &self.lines)
            .field("read", &self.full.get().map(Option::is_some))
            .finish_non_exhaustive()
    }
}

/// The lines of a file a map can render (every definition's signature and scope header
/// lines) and which lines are blank, nothing else. `mapscope map` keeps a file this way: a
/// map-only run then holds a few percent of the sources instead of all of them. The tag
/// cache stores them beside the tags, so a warm map need not read an unchanged file.
#[derive(Debug, Serialize, Deserialize)]
pub struct MapLines {
    line_count: u32,
    /// Kept line numbers (1-based), ascending.
    numbers: Box<[u32]>,
    /// End of each kept line in `text` (the kept lines are concatenated, without terminators).
    ends: Box<[u32]>,
    text: Box<str>,
    /// Bit `n` set when line `n` (1-based) has a non-whitespace character.
    nonblank: Box<[u64]>,
}

/// Byte offsets of the start of each line of `source`.
fn line_starts_of(source: &str) -> Vec<u32> {
    let mut line_starts = vec![0u32];
    // memchr: every loaded file is scanned here, warm runs included.
    line_starts.extend(memchr::memchr_iter(b'\n', source.as_bytes()).map(|i| (i + 1) as u32));
    line_starts
}

/// Number of lines (a trailing newline does not start a new line).
fn line_count_of(source: &str, line_starts: &[u32]) -> u32 {
    let n = line_starts.len() as u32;
    if source.ends_with('\n') {
        n - 1
    } else {
        n
    }
}

/// Line `n` (1-based) of `source`, without its line terminator.
fn line_of<'a>(source: &'a str, line_starts: &[u32], n: u32) -> Option<&'a str> {
    if n == 0 || n > line_count_of(source, line_starts) {
        return None;
    }
    let start = line_starts[(n - 1) as usize] as usize;
    let end = line_starts
        .get(n as usize)
        .map_or(source.len(), |&e| e as usize - 1);
    let line = source.get(start..end)?;
    Some(line.strip_suffix('\r').unwrap_or(line))
}

/// `!line.trim().is_empty()`, without decoding characters for the common case: a line with
/// a byte that is ASCII and not whitespace is not blank; only a line of whitespace and
/// non-ASCII bytes needs `trim` (Unicode whitespace such as U+3000 counts as blank).
fn is_nonblank_line(line: &str) -> bool {
    let bytes = line.as_bytes();
    if bytes
        .iter()
        .any(|&b| b.is_ascii() && !b.is_ascii_whitespace() && b != 0x0b)
    {
        return true;
    }
    !bytes.is_ascii() && !line.trim().is_empty()
}

impl MapLines {
    /// One pass over the lines, without a table of line starts: this runs on every file a
    /// cold map parses. `numbers`: the lines to keep, ascending, without repeats or 0 (those
    /// past the last line are dropped).
    pub(super) fn new(source: &str, mut numbers: Vec<u32>) -> MapLines {
        let mut text = String::new();
        let mut ends = Vec::with_capacity(numbers.len());
        let mut nonblank: Vec<u64> = Vec::new();
        let mut kept = 0;
        let mut line_count = 0u32;
        let mut visit = |n: u32, line: &str| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if is_nonblank_line(line) {
                let word = n as usize / 64;
                if word >= nonblank.len() {
                    nonblank.resize(word + 1, 0);
                }
                nonblank[word] |= 1 << (n % 64);
            }
            if numbers.get(kept) == Some(&n) {
                text.push_str(line);
                ends.push(text.len() as u32);
                kept += 1;
            }
            line_count = n;
        };
        let mut start = 0;
        let mut n = 0u32;
        for newline in memchr::memchr_iter(b'\n', source.as_bytes()) {
            n += 1;
            visit(n, source.get(start..newline).unwrap_or(""));
            start = newline + 1;
        }
        // A trailing newline does not start a line; an empty file has one empty line.
        if start < source.len() || source.is_empty() {
            visit(n + 1, source.get(start..).unwrap_or(""));
        }
        numbers.truncate(kept);
        nonblank.resize((line_count as usize + 1).div_ceil(64), 0);
        MapLines {
            line_count,
            numbers: numbers.into(),
            ends: ends.into(),
            text: text.into(),
            nonblank: nonblank.into(),
        }
    }

    /// Line `n` if it was kept, without the debug check of `line` (a lazily read file asks
    /// here first, then reads its text).
    fn kept_line(&self, n: u32) -> Option<&str> {
        let i = self.numbers.binary_search(&n).ok()?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.text.get(start..self.ends[i] as usize)
    }

    fn is_nonblank(&self, n: u32) -> bool {
        n >= 1
            && n <= self.line_count
            && self
                .nonblank
                .get(n as usize / 64)
                .is_some_and(|w| w & (1 << (n % 64)) != 0)
    }

    pub fn line(&self, n: u32) -> Option<&str> {
        let kept = self.kept_line(n);
        debug_assert!(
            kept.is_some() || n == 0 || n > self.line_count,
            "line {n} was not kept for the map"
        );
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `MapLines::new` by its definition: line starts first, then each kept line and each
    /// line's blankness looked up through them.
    fn map_lines_by_line_starts(source: &str, numbers: &[u32]) -> MapLines {
        let starts = line_starts_of(source);
        let line_count = line_count_of(source, &starts);
        let numbers: Vec<u32> = numbers
            .iter()
            .copied()
            .filter(|&n| n <= line_count)
            .collect();
        let mut text = String::new();
        let mut ends = Vec::new();
        for &n in &numbers {
            text.push_str(line_of(source, &starts, n).unwrap_or(""));
            ends.push(text.len() as u32);
        }
        let mut nonblank = vec![0u64; (line_count as usize + 1).div_ceil(64)];
        for n in 1..=line_count {
            if line_of(source, &starts, n).is_some_and(is_nonblank_line) {
                nonblank[n as usize / 64] |= 1 << (n % 64);
            }
        }
        MapLines {
            line_count,
            numbers: numbers.into(),
            ends: ends.into(),
            text: text.into(),
            nonblank: nonblank.into(),
        }
    }

    fn pieces() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(
            proptest::sample::select(vec![
                "a", "  ", "\t", "\n", "\r\n", "\r", "\u{3000}", "é", "\x0b", "x y", "\n\n",
            ]),
            0..200,
        )
        .prop_map(|p| p.concat())
    }

    use proptest::strategy::Strategy;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]

        /// The one-pass `MapLines::new` keeps exactly what the line-starts form kept (the
        /// tag cache stores it, so equal down to the bytes), for any text: CRLF, blank and
        /// whitespace-only lines, Unicode whitespace, no trailing newline, empty files, and
        /// lines past the end.
        #[test]
        fn map_lines_in_one_pass_equal_those_by_line_starts(
            source in pieces(),
            numbers in proptest::collection::btree_set(1u32..90, 0..20),
        ) {
            let numbers: Vec<u32> = numbers.into_iter().collect();
            let one_pass = MapLines::new(&source, numbers.clone());
            let reference = map_lines_by_line_starts(&source, &numbers);
            proptest::prop_assert_eq!(
                postcard::to_allocvec(&one_pass).unwrap(),
                postcard::to_allocvec(&reference).unwrap(),
                "{:?} vs {:?}", one_pass, reference
            );
        }

        /// A lazy text answers every line, the line count and each line's blankness as the
        /// whole text does, reading it only for a line it did not keep; one whose read
        /// fails answers only its kept lines.
        #[test]
        fn a_lazy_text_answers_as_the_whole_text(
            source in pieces(),
            numbers in proptest::collection::btree_set(1u32..90, 0..20),
        ) {
            let numbers: Vec<u32> = numbers.into_iter().collect();
            let lines = Arc::new(MapLines::new(&source, numbers.clone()));
            let whole = SourceText::full(Arc::from(source.as_str()));
            let given = source.clone();
            let lazy = SourceText::lazy(lines.clone(), move || Some(given.clone()));
            let gone = SourceText::lazy(lines, || None);
            let count = whole.line_count();
            proptest::prop_assert_eq!(lazy.line_count(), count);
            for n in 0..=count + 1 {
                proptest::prop_assert_eq!(lazy.is_nonblank(n), whole.is_nonblank(n));
                proptest::prop_assert_eq!(lazy.line(n), whole.line(n));
                let kept = numbers.contains(&n) && n <= count;
                proptest::prop_assert_eq!(gone.line(n).is_some(), kept);
            }
            proptest::prop_assert_eq!(lazy.source(), whole.source());
            proptest::prop_assert_eq!(gone.source(), None);
        }
    }

    /// A lazy text is read once, and only when a line it did not keep is asked for.
    #[test]
    fn a_lazy_text_is_read_once_and_only_when_needed() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let source = "fn a() {}\n\nlet x = 1;\n";
        let reads = Arc::new(AtomicUsize::new(0));
        let counter = reads.clone();
        let lazy = SourceText::lazy(Arc::new(MapLines::new(source, vec![1])), move || {
            counter.fetch_add(1, Ordering::SeqCst);
            Some(source.to_string())
        });
        assert_eq!((lazy.line(1), lazy.line_count()), (Some("fn a() {}"), 3));
        assert!(lazy.is_nonblank(3) && !lazy.is_nonblank(2));
        assert_eq!(reads.load(Ordering::SeqCst), 0, "kept lines need no read");
        assert_eq!(lazy.line(3), Some("let x = 1;"));
        assert_eq!(lazy.line(2), Some(""));
        assert_eq!(reads.load(Ordering::SeqCst), 1);
    }
}
