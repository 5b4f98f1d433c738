//! The repo map: ranked definitions fitted to a token budget, and the text an LLM is fed.
//!
//! Owns the fitting (which ranked definitions make it into the map), the line rendering rules
//! (`⋮` for elided spans, `…` for cut lines) and the output formats (text, markdown, JSON).
//! Runs on the engine worker thread; a fit is synchronous and reads only the parsed files.
//!
//! How the fit stays exact *and* fast: tiktoken's pre-tokenizers (o200k and cl100k) never
//! merge text across a `"\n"` that ends a non-blank line without trailing whitespace, with one
//! exception handled explicitly (o200k glues `"\n"` and following `/` to a preceding
//! punctuation run). So the token count of the map is the sum of per-line counts
//! (`count(line + "\n")`, cached across fits in [`LineCostCache`]), plus a correction for each
//! pair of lines whose second line starts with `/`, plus the exact in-context cost of each
//! blank separator between files. Adding a definition changes only the lines around the
//! inserted ones, so the cost of every prefix of the ranking is computed incrementally in one
//! pass; the final text is then counted once in full to verify, and the fit steps back if the
//! verification ever disagrees (it never returns a map over budget).
//!
//! Tightness: the fit stops at the first ranked definition that does not fit, so the map
//! falls short of the budget by less than that one definition's cost (usually 10–30 tokens,
//! within 5% from a few hundred tokens up). Skipping it to squeeze in cheaper ones would let a
//! larger budget drop symbols a smaller one showed; stability across budgets wins.

use crate::engine::base::model::{DefKind, Lang, LineRange, ParsedFile, RankedDef, RankedPath};
use crate::engine::base::text::sanitize;
use crate::engine::base::tokenizer::{tokenizer, Tokenizer, TokenizerKind};

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound::{Excluded, Unbounded};
use std::sync::{Mutex, MutexGuard};

use crate::engine::base::lock;

/// The line standing for an elided span of source.
const ELISION: &str = "⋮";
/// Appended to a line cut at `max_line_chars`.
const CUT_MARK: char = '…';
/// How many of the best definitions that did not fit are reported in [`RepoMap::cut`].
const MAX_CUT: usize = 20;
/// Definitions past the incremental fit that are tried against the exact count (each try
/// renders and counts the whole map once).
const MAX_EXACT_TRIES: usize = 4;
/// Signatures are "a few lines"; a tags bug or a pathological file must not let one
/// definition swallow the whole budget.
const MAX_SIGNATURE_LINES: u32 = crate::engine::base::model::MAP_SIGNATURE_LINES;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MapOptions {
    /// Maximum number of tokens of the rendered text (exact count).
    pub budget: usize,
    pub tokenizer: TokenizerKind,
    /// Lines longer than this many characters are cut and end with `…` (0 = never cut).
    pub max_line_chars: usize,
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions {
            budget: 1024,
            tokenizer: TokenizerKind::O200k,
            max_line_chars: 120,
        }
    }
}

/// A definition shown in the map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapSymbol {
    pub name: String,
    pub kind: DefKind,
    /// The whole definition (`Definition::lines`).
    pub line_range: LineRange,
    /// `FileTags::container` and `FileTags::qualified_name`: `None` at top level.
    pub container: Option<String>,
    pub qualified_name: Option<String>,
}

/// One file's block in the map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapFile {
    pub path: String,
    /// The file's rank (from `file_rank`; a path-only file's score), for display.
    pub rank: f64,
    /// Tokens of this file's block (path line and its lines; the blank separator excluded).
    pub tokens: usize,
    /// Selected definitions, in source order.
    pub symbols: Vec<MapSymbol>,
    /// Index into the `files` the map was built from; for a path-only file, `files.len()`
    /// plus its index in the path list.
    pub file: usize,
    /// `None` for a path-only file: a source file without a grammar, shown by its path line
    /// alone (no `:`, no lines, no symbols), as aider lists the files it cannot tag.
    pub lang: Option<Lang>,
    /// The rendered lines under the path line, `⋮` included, exactly as in the text.
    pub lines: Vec<String>,
    /// The source line numbers (1-based) shown, ascending.
    pub shown_lines: Vec<u32>,
}

/// A ranked definition that did not fit, with the tokens adding it would have cost.
#[derive(Debug, Clone, PartialEq)]
pub struct CutDef {
    pub path: String,
    pub name: String,
    pub kind: DefKind,
    /// First line of its signature.
    pub line: u32,
    pub score: f64,
    pub tokens: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RepoMap {
    /// The map in text format: what the LLM sees.
    pub text: String,
    /// Exact token count of `text`; never more than `budget`.
    pub tokens: usize,
    pub budget: usize,
    pub tokenizer: TokenizerKind,
    /// Files in map order (best selected definition first).
    pub files: Vec<MapFile>,
    /// The highest-ranked definitions (up to 20) that did not fit, best first.
    pub cut: Vec<CutDef>,
    /// The smallest budget whose map (same ranking) includes `cut[0]`, when the request asked
    /// for it (`MapRequest::next_budget`; found by `budget::budget_for_next_cut`). `None`
    /// otherwise, or when nothing is cut, or when no budget up to 262,144 tokens would.
    pub next_budget: Option<usize>,
    /// Parts of the request that were ignored or matched nothing, one line each (see
    /// `task::Task::notes`).
    pub notes: Vec<String>,
}

impl RepoMap {
    /// Number of definitions in the map.
    pub fn symbol_count(&self) -> usize {
        self.files.iter().map(|f| f.symbols.len()).sum()
    }
}

impl MapFile {
    /// Whether the map shows this file by its path alone (see `lang`).
    pub fn is_path_only(&self) -> bool {
        self.lang.is_none()
    }
}

/// The path-only files a fit may show (`rank::path_only`): their paths, and those ranked,
/// best first.
#[derive(Debug, Clone, Copy, Default)]
pub struct PathOnly<'a> {
    pub paths: &'a [&'a str],
    pub ranked: &'a [RankedPath],
}

/// One entry of the ranking the fit takes a prefix of.
#[derive(Debug, Clone, Copy)]
enum Item {
    Def(RankedDef),
    /// Index into `PathOnly::paths`, with its score.
    Path(usize, f64),
}

/// The definitions and the path-only files in one ranking: the first `pinned` definitions,
/// then both by score, a definition before a path on a tie (so a path nobody names, score
/// 0, comes after every definition).
fn merge_ranking(ranked: &[RankedDef], pinned: usize, paths: &PathOnly<'_>) -> Vec<Item> {
    let pinned = pinned.min(ranked.len());
    let mut out: Vec<Item> = Vec::with_capacity(ranked.len() + paths.ranked.len());
    out.extend(ranked[..pinned].iter().copied().map(Item::Def));
    let mut defs = ranked[pinned..].iter().peekable();
    let mut rest = paths
        .ranked
        .iter()
        .filter(|p| p.path < paths.paths.len())
        .peekable();
    loop {
        let take_def = match (defs.peek(), rest.peek()) {
            (Some(d), Some(p)) => d.score >= p.score || !p.score.is_finite(),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if take_def {
            out.extend(defs.next().copied().map(Item::Def));
        } else {
            out.extend(rest.next().map(|p| Item::Path(p.path, p.score)));
        }
    }
    out
}

/// Output format of [`render`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MapFormat {
    Text,
    Markdown,
}

impl MapFormat {
    pub const ALL: [MapFormat; 2] = [MapFormat::Text, MapFormat::Markdown];

    pub fn name(self) -> &'static str {
        match self {
            MapFormat::Text => "text",
            MapFormat::Markdown => "markdown",
        }
    }

    /// `text`, `markdown` (or `md`), case-insensitively. (`json` is the front doors' own
    /// document: `contract::MapOutput`.)
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "text" | "txt" => Some(MapFormat::Text),
            "markdown" | "md" => Some(MapFormat::Markdown),
            _ => None,
        }
    }
}

impl std::str::FromStr for MapFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        MapFormat::parse(s).ok_or_else(|| format!("unknown map format {s:?} (text, markdown)"))
    }
}

/// Token counts of rendered lines, shared across fits so a re-rank only tokenizes lines it
/// has never seen. Keyed by the exact text counted minus its final `"\n"`: a rendered line,
/// a line followed by the blank separator (`"line\n"`), or a risky pair (`"a\n/b"`). Lines
/// never contain `"\n"`, so the three kinds cannot collide. One table per encoding.
#[derive(Default)]
pub struct LineCostCache {
    tables: [Mutex<HashMap<Box<str>, u32>>; 2],
}

impl std::fmt::Debug for LineCostCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineCostCache")
            .field("entries", &self.len())
            .finish()
    }
}

impl LineCostCache {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of cached counts (all encodings).
    pub fn len(&self) -> usize {
        self.tables.iter().map(|t| lock(t).len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every cached count (e.g. when the repository changes a lot).
    pub fn clear(&self) {
        for t in &self.tables {
            lock(t).clear();
        }
    }

    fn table(&self, kind: TokenizerKind) -> MutexGuard<'_, HashMap<Box<str>, u32>> {
        let i = match kind {
            TokenizerKind::O200k => 0,
            TokenizerKind::Cl100k => 1,
        };
        lock(&self.tables[i])
    }
}

/// Fits `ranked` (best first) into `opts.budget` tokens and renders the map.
///
/// The selection is the longest prefix of `ranked` whose every sub-prefix fits (definitions
/// with no renderable line are ignored), plus any later definition whose lines are all
/// already shown (it costs nothing). A larger budget therefore never drops a definition a
/// smaller one included.
pub fn build_map(
    files: &[ParsedFile],
    ranked: &[RankedDef],
    file_rank: &[f64],
    opts: &MapOptions,
    cache: &LineCostCache,
) -> RepoMap {
    build_map_with_paths(
        files,
        ranked,
        0,
        &PathOnly::default(),
        file_rank,
        opts,
        cache,
    )
}

/// `build_map` over the definitions (the first `pinned` of them first whatever their
/// score) and the path-only files in one ranking (`merge_ranking`): a path-only file is one
/// path line, counted in the budget like any line.
pub fn build_map_with_paths(
    files: &[ParsedFile],
    ranked: &[RankedDef],
    pinned: usize,
    paths: &PathOnly<'_>,
    file_rank: &[f64],
    opts: &MapOptions,
    cache: &LineCostCache,
) -> RepoMap {
    let ranked = merge_ranking(ranked, pinned, paths);
    let ranked = ranked.as_slice();
    let tok = tokenizer(opts.tokenizer);
    let mut fit = Fitter::new(files, paths.paths, opts, tok, cache.table(opts.tokenizer));
    let budget = i64::try_from(opts.budget).unwrap_or(i64::MAX);
    let mut stop = fit.fit_prefix(ranked, budget);
    let (mut text, mut tokens) = fit.trim_to_exact(tok, opts.budget, &mut stop);
    let first_cut_cost =
        fit.fill_exactly(tok, ranked, opts.budget, &mut stop, &mut text, &mut tokens);
    let (selected, cut) = fit.selected_and_cut(files, ranked, stop, first_cut_cost);
    let map_files = fit.map_files(file_rank, &selected);
    RepoMap {
        text,
        tokens,
        budget: opts.budget,
        tokenizer: opts.tokenizer,
        files: map_files,
        cut,
        next_budget: None,
        notes: Vec::new(),
    }
}

/// The parts of `build_map`, in order.
impl Fitter<'_, '_> {
    /// Inserts the longest prefix of `ranked` whose every sub-prefix fits `budget` by the
    /// incremental count; returns the position of the first definition that did not fit.
    fn fit_prefix(&mut self, ranked: &[Item], budget: i64) -> usize {
        let mut stop = ranked.len();
        for (pos, item) in ranked.iter().enumerate() {
            let Some((f, lines)) = self.item_lines(item) else {
                continue;
            };
            let added = self.insert_lines(f, &lines);
            if self.total() > budget {
                self.remove_lines(f, &added);
                stop = pos;
                break;
            }
            self.journal.push(Entry {
                pos,
                file: f,
                added,
            });
        }
        stop
    }

    /// The text and its exact count, definitions dropped from the end until it fits.
    fn trim_to_exact(
        &mut self,
        tok: &Tokenizer,
        budget: usize,
        stop: &mut usize,
    ) -> (String, usize) {
        // The incremental sum is exact for everything its analysis covers; if some exotic
        // input breaks it, definitions are dropped from the end until the real count fits.
        let mut text = self.render_text();
        let mut tokens = tok.count(&text);
        while tokens > budget {
            let Some(entry) = self.journal.pop() else {
                break;
            };
            self.remove_lines(entry.file, &entry.added);
            *stop = entry.pos;
            if !entry.added.is_empty() {
                text = self.render_text();
                tokens = tok.count(&text);
            }
        }
        (text, tokens)
    }

    /// Tries the next definitions against the exact count; returns the first cut one's
    /// position and exact cost when it was tried.
    fn fill_exactly(
        &mut self,
        tok: &Tokenizer,
        ranked: &[Item],
        budget: usize,
        stop: &mut usize,
        text: &mut String,
        tokens: &mut usize,
    ) -> Option<(usize, usize)> {
        // The incremental sum can also overestimate (e.g. around cut lines): try the next
        // definitions against the exact count, a few at most, so the map is as full as the
        // budget allows and the first cut definition's cost is exact ("it would not have fit").
        let mut first_cut_cost = None;
        let mut tries = 0;
        while *stop < ranked.len() && tries < MAX_EXACT_TRIES {
            let Some((f, lines)) = self.item_lines(&ranked[*stop]) else {
                *stop += 1;
                continue;
            };
            tries += 1;
            let added = self.insert_lines(f, &lines);
            let candidate = self.render_text();
            let n = tok.count(&candidate);
            if n > budget {
                self.remove_lines(f, &added);
                first_cut_cost = Some((*stop, n - *tokens));
                break;
            }
            (*text, *tokens) = (candidate, n);
            self.journal.push(Entry {
                pos: *stop,
                file: f,
                added,
            });
            *stop += 1;
        }
        first_cut_cost
    }

    /// The selected definitions (the prefix, then free riders) and the best ones that were
    /// cut, each with what it would add.
    fn selected_and_cut(
        &mut self,
        files: &[ParsedFile],
        ranked: &[Item],
        stop: usize,
        first_cut_cost: Option<(usize, usize)>,
    ) -> (BTreeSet<(usize, usize)>, Vec<CutDef>) {
        let mut selected: BTreeSet<(usize, usize)> = self
            .journal
            .iter()
            .filter_map(|e| match ranked[e.pos] {
                Item::Def(rd) => Some((rd.file, rd.def)),
                Item::Path(..) => None,
            })
            .collect();
        let mut cut = Vec::new();
        let mut cut_seen = BTreeSet::new();
        let before = self.total();
        // The tail can be most of a 60k-definition ranking: test a compact per-file flag first
        // so skipping a definition whose file is not in the map touches one byte.
        let mut in_map = vec![false; files.len()];
        for &f in &self.order {
            if let Some(x) = in_map.get_mut(f) {
                *x = true;
            }
        }
        for (pos, item) in ranked.iter().enumerate().skip(stop) {
            // A path-only file left out is not a definition cut: `cut` lists definitions.
            let Item::Def(rd) = item else {
                continue;
            };
            let in_map = in_map.get(rd.file).copied().unwrap_or(false);
            if !in_map && cut.len() >= MAX_CUT {
                continue;
            }
            if selected.contains(&(rd.file, rd.def)) {
                continue;
            }
            let Some((f, lines)) = self.def_lines(rd) else {
                continue;
            };
            if in_map && self.all_shown(f, &lines) {
                selected.insert((rd.file, rd.def));
                continue;
            }
            if cut.len() < MAX_CUT && cut_seen.insert((rd.file, rd.def)) {
                let cost = match first_cut_cost {
                    Some((at, exact)) if at == pos => exact,
                    _ => {
                        let added = self.insert_lines(f, &lines);
                        let cost = self.total() - before;
                        self.remove_lines(f, &added);
                        usize::try_from(cost).unwrap_or(0)
                    }
                };
                let def = &files[f].tags.defs[rd.def];
                cut.push(CutDef {
                    path: files[f].path.clone(),
                    name: def.name.clone(),
                    kind: def.kind,
                    line: def.signature.start,
                    score: rd.score,
                    tokens: cost,
                });
            }
        }
        (selected, cut)
    }
}

/// Renders a built map. `files` is the slice the map was built from; the current formats
/// need nothing beyond the map itself, but callers pass it so richer formats can be added
/// without changing every call site.
pub fn render(map: &RepoMap, files: &[ParsedFile], format: MapFormat) -> String {
    let _ = files;
    match format {
        MapFormat::Text => map.text.clone(),
        MapFormat::Markdown => render_markdown(map),
    }
}

fn render_markdown(map: &RepoMap) -> String {
    let mut out = String::new();
    for (i, f) in map.files.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let Some(lang) = f.lang else {
            // A path-only file: its path, no block.
            out.push_str(&sanitize(&f.path));
            out.push('\n');
            continue;
        };
        // A fence longer than any backtick run inside, so source cannot close it early.
        let longest = f
            .lines
            .iter()
            .map(|l| longest_backtick_run(l))
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        out.push_str(&sanitize(&f.path));
        out.push('\n');
        out.push_str(&fence);
        out.push_str(lang.fence_tag());
        out.push('\n');
        for line in &f.lines {
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&fence);
        out.push('\n');
    }
    out
}

fn longest_backtick_run(s: &str) -> usize {
    let mut best = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// A source line as the map shows it: trailing whitespace stripped, sanitized, cut.
fn render_line(raw: &str, max_chars: usize) -> String {
    // Control characters (tab excepted) can neither break the line structure the token
    // accounting relies on nor smuggle terminal escapes.
    let line = sanitize(raw.trim_end()).into_owned();
    if max_chars == 0 || line.chars().count() <= max_chars {
        return line;
    }
    let keep = max_chars.saturating_sub(1);
    let mut out: String = line.chars().take(keep).collect();
    out.push(CUT_MARK);
    out
}

/// A definition in the prefix: where it is in `ranked` and which lines it added.
struct Entry {
    pos: usize,
    file: usize,
    added: Vec<u32>,
}

struct Shown {
    text: Box<str>,
}

/// Per-file fit state, created when a definition of the file is first looked at.
struct FileState {
    path_line: Box<str>,
    line_count: u32,
    /// `nonblank[n]` = non-blank lines among 1..=n; blank lines are invisible, so only a
    /// span holding at least one non-blank line is elided with `⋮`.
    nonblank: Vec<u32>,
    shown: BTreeMap<u32, Shown>,
    /// Tokens of the block (path line included) while `shown` is non-empty.
    block: i64,
    /// Tokens the blank separator after this block costs, in context.
    sep: i64,
    /// A path-only file's score: its block is the path line alone, shown while `shown`
    /// holds `PATH_ONLY_LINE`.
    path_only: Option<f64>,
}

/// The key a path-only file's block is shown under in `FileState::shown` (no source line
/// is 0).
const PATH_ONLY_LINE: u32 = 0;

impl FileState {
    fn new(file: &ParsedFile) -> Self {
        let line_count = file.line_count();
        let mut nonblank = Vec::with_capacity(line_count as usize + 1);
        nonblank.push(0u32);
        let mut acc = 0u32;
        for n in 1..=line_count {
            if file.is_nonblank(n) {
                acc += 1;
            }
            nonblank.push(acc);
        }
        FileState {
            path_line: format!("{}:", sanitize(&file.path)).into_boxed_str(),
            line_count,
            nonblank,
            shown: BTreeMap::new(),
            block: 0,
            sep: 0,
            path_only: None,
        }
    }

    /// A path-only file's state: its path line has no `:`, as it heads no lines.
    fn path_only(path: &str, score: f64) -> Self {
        FileState {
            path_line: sanitize(path).into_owned().into_boxed_str(),
            line_count: 0,
            nonblank: vec![0],
            shown: BTreeMap::new(),
            block: 0,
            sep: 0,
            path_only: Some(score),
        }
    }

    /// The virtual line after the last one.
    fn end(&self) -> u32 {
        self.line_count.saturating_add(1)
    }

    fn is_nonblank(&self, n: u32) -> bool {
        n >= 1 && n <= self.line_count && self.nonblank[n as usize] > self.nonblank[n as usize - 1]
    }

    /// Whether a non-blank line lies strictly between `a` and `b` (0 and line_count+1 stand
    /// for the file's edges).
    fn gap(&self, a: u32, b: u32) -> bool {
        if b <= a.saturating_add(1) {
            return false;
        }
        let hi = (b - 1).min(self.line_count) as usize;
        let lo = (a as usize).min(hi);
        self.nonblank[hi] > self.nonblank[lo]
    }

    fn items(&self) -> Vec<&str> {
        if self.path_only.is_some() {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(self.shown.len() * 2 + 1);
        let mut prev = 0;
        for (&n, sh) in &self.shown {
            if self.gap(prev, n) {
                out.push(ELISION);
            }
            out.push(&*sh.text);
            prev = n;
        }
        if self.gap(prev, self.end()) {
            out.push(ELISION);
        }
        out
    }

    fn last_item(&self) -> Option<&str> {
        if self.path_only.is_some() {
            return Some(&self.path_line);
        }
        let (&n, sh) = self.shown.last_key_value()?;
        Some(if self.gap(n, self.end()) {
            ELISION
        } else {
            &sh.text
        })
    }
}

/// Cached token costs for one encoding, locked for the duration of a fit.
struct Costs<'c> {
    tok: &'static Tokenizer,
    table: MutexGuard<'c, HashMap<Box<str>, u32>>,
}

impl Costs<'_> {
    /// `count(key + "\n")`, cached.
    fn cost(&mut self, key: &str) -> i64 {
        if let Some(&c) = self.table.get(key) {
            return i64::from(c);
        }
        let mut s = String::with_capacity(key.len() + 1);
        s.push_str(key);
        s.push('\n');
        let c = u32::try_from(self.tok.count(&s)).unwrap_or(u32::MAX);
        self.table.insert(key.into(), c);
        i64::from(c)
    }

    /// Extra tokens when `b` follows `a`: o200k glues `"\n/"` onto a punctuation run ending
    /// `a`. Only lines starting with `/` can be affected, so only they are checked; the
    /// correction is exact for isolated pairs.
    fn pair(&mut self, a: &str, b: &str) -> i64 {
        if !b.starts_with('/') {
            return 0;
        }
        let joined = format!("{a}\n{b}");
        self.cost(&joined) - self.cost(a) - self.cost(b)
    }

    /// Tokens of `mid` placed between anchors `a` and `b` (`None` = end of text), anchors'
    /// own costs excluded, pair corrections included.
    fn window(&mut self, a: &str, mid: &[&str], b: Option<&str>) -> i64 {
        let mut total = 0;
        let mut prev = a;
        for &m in mid {
            total += self.cost(m) + self.pair(prev, m);
            prev = m;
        }
        if let Some(b) = b {
            total += self.pair(prev, b);
        }
        total
    }

    /// What the blank line after a block ending with `last` costs: `"last\n\n"` can tokenize
    /// differently from `"last\n"` + `"\n"`, so it is counted in context.
    fn separator(&mut self, last: &str) -> i64 {
        let with_blank = format!("{last}\n");
        self.cost(&with_blank) - self.cost(last)
    }
}

struct Fitter<'a, 'c> {
    files: &'a [ParsedFile],
    /// Path-only files; state `files.len() + k` is `paths[k]`'s.
    paths: &'a [&'a str],
    max_line_chars: usize,
    costs: Costs<'c>,
    states: Vec<Option<FileState>>,
    /// Files with shown lines, in the order they entered the map.
    order: Vec<usize>,
    /// Sum of `block + sep` over `order`.
    sum: i64,
    journal: Vec<Entry>,
}

impl<'a, 'c> Fitter<'a, 'c> {
    fn new(
        files: &'a [ParsedFile],
        paths: &'a [&'a str],
        opts: &MapOptions,
        tok: &'static Tokenizer,
        table: MutexGuard<'c, HashMap<Box<str>, u32>>,
    ) -> Self {
        Fitter {
            files,
            paths,
            max_line_chars: opts.max_line_chars,
            costs: Costs { tok, table },
            states: (0..files.len() + paths.len()).map(|_| None).collect(),
            order: Vec::new(),
            sum: 0,
            journal: Vec::new(),
        }
    }

    /// Exact tokens of the text as it stands (under the line-sum identity).
    fn total(&self) -> i64 {
        let last_sep = self
            .order
            .last()
            .and_then(|&f| self.states[f].as_ref())
            .map_or(0, |s| s.sep);
        self.sum - last_sep
    }

    fn all_shown(&self, f: usize, lines: &[u32]) -> bool {
        self.states[f]
            .as_ref()
            .is_some_and(|s| lines.iter().all(|n| s.shown.contains_key(n)))
    }

    /// What showing a ranked item takes: a definition's lines (`def_lines`), or a path-only
    /// file's path line (`PATH_ONLY_LINE` of its state).
    fn item_lines(&mut self, item: &Item) -> Option<(usize, Vec<u32>)> {
        match *item {
            Item::Def(ref rd) => self.def_lines(rd),
            Item::Path(k, score) => {
                let path = self.paths.get(k)?;
                let f = self.files.len() + k;
                self.states[f].get_or_insert_with(|| FileState::path_only(path, score));
                Some((f, vec![PATH_ONLY_LINE]))
            }
        }
    }

    /// The renderable lines of a definition (scope headers and signature, non-blank, in
    /// range), sorted; `None` for an invalid index or nothing to show.
    fn def_lines(&mut self, rd: &RankedDef) -> Option<(usize, Vec<u32>)> {
        let file = self.files.get(rd.file)?;
        let def = file.tags.defs.get(rd.def)?;
        let st = self.states[rd.file].get_or_insert_with(|| FileState::new(file));
        let sig_start = def.signature.start.max(1);
        let sig_end = def
            .signature
            .end
            .min(sig_start.saturating_add(MAX_SIGNATURE_LINES - 1))
            .min(st.line_count);
        let mut lines: Vec<u32> = def
            .scope_lines
            .iter()
            .copied()
            .chain(sig_start..=sig_end)
            .filter(|&n| st.is_nonblank(n))
            .collect();
        lines.sort_unstable();
        lines.dedup();
        if lines.is_empty() {
            None
        } else {
            Some((rd.file, lines))
        }
    }

    /// Shows `lines` of file `f`; returns those that were not shown before.
    fn insert_lines(&mut self, f: usize, lines: &[u32]) -> Vec<u32> {
        let mut added = Vec::new();
        for &n in lines {
            if self.insert(f, n) {
                added.push(n);
            }
        }
        added
    }

    /// Undoes `insert_lines` (in reverse, restoring the exact previous state).
    fn remove_lines(&mut self, f: usize, added: &[u32]) {
        for &n in added.iter().rev() {
            self.remove(f, n);
        }
    }

    fn insert(&mut self, f: usize, n: u32) -> bool {
        if f >= self.files.len() {
            return self.insert_path_only(f);
        }
        let Some(raw) = self.files[f].line(n) else {
            return false;
        };
        let text = render_line(raw, self.max_line_chars).into_boxed_str();
        let Fitter {
            costs,
            states,
            order,
            sum,
            ..
        } = self;
        let Some(st) = states[f].as_mut() else {
            return false;
        };
        if st.shown.contains_key(&n) {
            return false;
        }
        let was_empty = st.shown.is_empty();
        let p = st.shown.range(..n).next_back();
        let s = st.shown.range((Excluded(n), Unbounded)).next();
        let is_last = s.is_none();
        let a_line = p.map_or(0, |(&k, _)| k);
        let b_line = s.map_or(st.end(), |(&k, _)| k);
        let a_text: &str = p.map_or(&st.path_line, |(_, v)| &v.text);
        let b_text: Option<&str> = s.map(|(_, v)| &*v.text);

        let mut old_mid: Vec<&str> = Vec::new();
        if !was_empty && st.gap(a_line, b_line) {
            old_mid.push(ELISION);
        }
        let mut new_mid: Vec<&str> = Vec::with_capacity(3);
        if st.gap(a_line, n) {
            new_mid.push(ELISION);
        }
        new_mid.push(&text);
        if st.gap(n, b_line) {
            new_mid.push(ELISION);
        }
        let delta = costs.window(a_text, &new_mid, b_text) - costs.window(a_text, &old_mid, b_text);
        let path_cost = if was_empty {
            costs.cost(&st.path_line)
        } else {
            0
        };

        let old_contrib = if was_empty { 0 } else { st.block + st.sep };
        st.block += delta + path_cost;
        st.shown.insert(n, Shown { text });
        if is_last {
            // n is now the last shown line: the separator after the block may change.
            let last = st.last_item().unwrap_or(ELISION);
            st.sep = costs.separator(last);
        }
        *sum += st.block + st.sep - old_contrib;
        if was_empty {
            order.push(f);
        }
        true
    }

    /// Shows path-only file state `f`: its path line, then the separator.
    fn insert_path_only(&mut self, f: usize) -> bool {
        let Fitter {
            costs,
            states,
            order,
            sum,
            ..
        } = self;
        let Some(st) = states.get_mut(f).and_then(Option::as_mut) else {
            return false;
        };
        if st.path_only.is_none() || !st.shown.is_empty() {
            return false;
        }
        st.block = costs.cost(&st.path_line);
        st.sep = costs.separator(&st.path_line);
        st.shown.insert(
            PATH_ONLY_LINE,
            Shown {
                text: Box::from(""),
            },
        );
        *sum += st.block + st.sep;
        order.push(f);
        true
    }

    /// Undoes `insert_path_only`.
    fn remove_path_only(&mut self, f: usize) {
        let Some(st) = self.states.get_mut(f).and_then(Option::as_mut) else {
            return;
        };
        if st.shown.remove(&PATH_ONLY_LINE).is_none() {
            return;
        }
        self.sum -= st.block + st.sep;
        st.block = 0;
        st.sep = 0;
        if let Some(i) = self.order.iter().rposition(|&x| x == f) {
            self.order.remove(i);
        }
    }

    fn remove(&mut self, f: usize, n: u32) {
        if f >= self.files.len() {
            return self.remove_path_only(f);
        }
        let Fitter {
            costs,
            states,
            order,
            sum,
            ..
        } = self;
        let Some(st) = states[f].as_mut() else {
            return;
        };
        let Some(this) = st.shown.get(&n) else {
            return;
        };
        let will_be_empty = st.shown.len() == 1;
        let p = st.shown.range(..n).next_back();
        let s = st.shown.range((Excluded(n), Unbounded)).next();
        let was_last = s.is_none();
        let a_line = p.map_or(0, |(&k, _)| k);
        let b_line = s.map_or(st.end(), |(&k, _)| k);
        let a_text: &str = p.map_or(&st.path_line, |(_, v)| &v.text);
        let b_text: Option<&str> = s.map(|(_, v)| &*v.text);

        let mut with_mid: Vec<&str> = Vec::with_capacity(3);
        if st.gap(a_line, n) {
            with_mid.push(ELISION);
        }
        with_mid.push(&this.text);
        if st.gap(n, b_line) {
            with_mid.push(ELISION);
        }
        let mut without_mid: Vec<&str> = Vec::new();
        if !will_be_empty && st.gap(a_line, b_line) {
            without_mid.push(ELISION);
        }
        let delta =
            costs.window(a_text, &without_mid, b_text) - costs.window(a_text, &with_mid, b_text);
        let path_cost = if will_be_empty {
            costs.cost(&st.path_line)
        } else {
            0
        };

        let old_contrib = st.block + st.sep;
        st.shown.remove(&n);
        st.block += delta - path_cost;
        if will_be_empty {
            st.block = 0;
            st.sep = 0;
            *sum -= old_contrib;
            if let Some(i) = order.iter().rposition(|&x| x == f) {
                order.remove(i);
            }
            return;
        }
        if was_last {
            let last = st.last_item().unwrap_or(ELISION);
            st.sep = costs.separator(last);
        }
        *sum += st.block + st.sep - old_contrib;
    }

    fn render_text(&self) -> String {
        let mut out = String::new();
        for (i, &f) in self.order.iter().enumerate() {
            let Some(st) = self.states[f].as_ref() else {
                continue;
            };
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&st.path_line);
            out.push('\n');
            for item in st.items() {
                out.push_str(item);
                out.push('\n');
            }
        }
        out
    }

    fn map_files(&self, file_rank: &[f64], selected: &BTreeSet<(usize, usize)>) -> Vec<MapFile> {
        let mut by_file: BTreeMap<usize, Vec<MapSymbol>> = BTreeMap::new();
        for &(f, d) in selected {
            let Some(pf) = self.files.get(f) else {
                continue;
            };
            if let Some(def) = pf.tags.defs.get(d) {
                by_file.entry(f).or_default().push(MapSymbol {
                    name: def.name.clone(),
                    kind: def.kind,
                    line_range: def.lines,
                    container: pf.tags.container(def),
                    qualified_name: pf.tags.qualified_name(def),
                });
            }
        }
        let mut out = Vec::with_capacity(self.order.len());
        for &f in &self.order {
            let Some(st) = self.states[f].as_ref() else {
                continue;
            };
            if let Some(score) = st.path_only {
                out.push(MapFile {
                    path: self.paths[f - self.files.len()].to_string(),
                    rank: score,
                    tokens: usize::try_from(st.block).unwrap_or(0),
                    symbols: Vec::new(),
                    file: f,
                    lang: None,
                    lines: Vec::new(),
                    shown_lines: Vec::new(),
                });
                continue;
            }
            let pf = &self.files[f];
            let mut symbols = by_file.remove(&f).unwrap_or_default();
            symbols.sort_by(|a, b| {
                (a.line_range, &a.name, a.kind).cmp(&(b.line_range, &b.name, b.kind))
            });
            out.push(MapFile {
                path: pf.path.clone(),
                rank: file_rank.get(f).copied().unwrap_or(0.0),
                tokens: usize::try_from(st.block).unwrap_or(0),
                symbols,
                file: f,
                lang: Some(pf.lang),
                lines: st.items().into_iter().map(str::to_owned).collect(),
                shown_lines: st.shown.keys().copied().collect(),
            });
        }
        out
    }
}

#[cfg(test)]
mod tests;
