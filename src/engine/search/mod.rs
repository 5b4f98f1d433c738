//! Search over one index snapshot: ranked hits with evidence, for English, Chinese and mixed
//! queries. `SearchIndex::build` runs once per snapshot on the engine worker (tokenising in
//! parallel on rayon); `SearchIndex::search` runs on any thread (the index is immutable,
//! `Send + Sync`; per-query scratch space is thread-local).
//!
//! Signals, all precomputed at build time: BM25F over symbol-level chunks (each definition
//! is a chunk with name / signature / doc comment / body identifiers / comments and strings
//! as fields, plus one chunk per file for top-level code and sections of prose documents),
//! exact and fuzzy symbol-name match, path-token match, diffusion over the file graph, the
//! PageRank prior, and a demotion of tests and other secondary files. Chinese text is
//! indexed as character bigrams and queries are expanded through an embedded glossary.
//! Every weight lives in [`SearchWeights`].
//!
//! A query that is one symbol (`getRoute`, `Router::fallback`, `(*T).M`, `a/b.go:Run`, also
//! inside "where is X defined" or "who calls X") is a look-up ([`read_query`]): its hits are
//! ranked exact first, in tiers (`run`'s `Tier`: the name in the typed container, case-exact
//! then case-folded; the container itself; the name elsewhere, case-exact then case-folded;
//! then everything else by score), implementation before tests within a tier.

mod build;
mod container;
mod describe;
pub mod generated;
mod glossary;
mod history;
mod lex;
mod matcher;
mod packed;
mod phrase;
mod query;
mod run;
pub mod sources;
mod tokenize;
mod weights;

use std::sync::{Arc, OnceLock};

use serde::Serialize;

use crate::engine::base::model::{Lang, LineRange, ParsedFile};

pub use crate::engine::base::paths::{is_code_path, is_impl_path};
pub use history::HistoryIndex;
pub(crate) use query::is_test_word;
pub use query::{read as read_query, QueryRead};
pub use weights::SearchWeights;

/// What a phrase around a symbol asked for ("where is X defined", "who calls X", "what does
/// X call", and their Chinese forms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Intent {
    Definition,
    Callers,
    Callees,
}

impl Intent {
    /// `definition`, `callers` or `callees`: the name every output uses.
    pub fn name(self) -> &'static str {
        match self {
            Intent::Definition => "definition",
            Intent::Callers => "callers",
            Intent::Callees => "callees",
        }
    }
}

/// A query read as one symbol: its name, the containers and file typed before it.
/// `Router::fallback` is `fallback` in `["Router"]`; `fmt::detail::buffer::append` is
/// `append` in `["fmt", "detail", "buffer"]`; `(*T).M` is `M` in `["T"]`; `pkg/a.go:Run` is
/// `Run` in the file `pkg/a.go`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    pub name: String,
    /// Outermost first; empty for a bare name.
    pub container: Vec<String>,
    /// A file (or the end of a path) typed before the symbol, as typed.
    pub file: Option<String>,
    /// Everything typed before the name (`Router::`, `(*T).`, `pkg/a.go:`), to show the
    /// symbol as it was asked for.
    pub qualifier: String,
}

/// How a hit's definition answers a look-up, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NameMatch {
    /// The name, exactly as typed, in the typed container (or file).
    InContainer,
    /// The name up to case and `_`, in the typed container.
    InContainerFolded,
    /// The typed container itself, when nothing of that name is known in it.
    Container,
    /// The name exactly as typed (for a qualified look-up: in another container).
    Exact,
    /// The name up to case and `_` (`_truncate` for `Truncate`).
    Folded,
}

impl NameMatch {
    /// Whether the hit is a definition of the name asked for (not its container).
    pub fn is_name(self) -> bool {
        self != NameMatch::Container
    }

    /// Whether the hit is in the container (or file) the look-up typed.
    pub fn in_container(self) -> bool {
        matches!(self, NameMatch::InContainer | NameMatch::InContainerFolded)
    }
}

/// A prose or config document searched as text (README, `.md`, `.json`, `.yaml`, `.toml`).
#[derive(Debug, Clone)]
pub struct TextDoc {
    /// Path relative to the repo root, with `/` separators.
    pub path: String,
    /// xxh3 of the text (what the search index's key is made of).
    pub hash: u64,
    text: DocText,
}

#[derive(Clone)]
enum DocText {
    Read(Arc<str>),
    /// Not read yet: a doc a build took as unchanged (by size and mtime) from the last
    /// one, read when its text is first asked for (shared by the clones).
    Lazy(Arc<LazyDoc>),
}

struct LazyDoc {
    /// Reads the text, if the file still holds the content `hash` names.
    read: Box<dyn Fn() -> Option<String> + Send + Sync>,
    text: OnceLock<Arc<str>>,
}

impl std::fmt::Debug for DocText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DocText::Read(text) => write!(f, "Read({} bytes)", text.len()),
            DocText::Lazy(lazy) => match lazy.text.get() {
                Some(text) => write!(f, "Lazy({} bytes)", text.len()),
                None => f.write_str("Lazy(unread)"),
            },
        }
    }
}

impl TextDoc {
    /// A doc whose text is read.
    pub fn new(path: String, text: Arc<str>) -> TextDoc {
        let hash = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        TextDoc {
            path,
            hash,
            text: DocText::Read(text),
        }
    }

    /// A doc of text `hash` not read yet: `read` reads it the first time it is asked for,
    /// and gives `None` when the file no longer holds that text (its text is then empty).
    pub fn lazy(
        path: String,
        hash: u64,
        read: impl Fn() -> Option<String> + Send + Sync + 'static,
    ) -> TextDoc {
        TextDoc {
            path,
            hash,
            text: DocText::Lazy(Arc::new(LazyDoc {
                read: Box::new(read),
                text: OnceLock::new(),
            })),
        }
    }

    /// The text, read now if it was not.
    pub fn text(&self) -> &Arc<str> {
        match &self.text {
            DocText::Read(text) => text,
            DocText::Lazy(lazy) => lazy
                .text
                .get_or_init(|| (lazy.read)().map_or_else(|| Arc::from(""), Arc::from)),
        }
    }

    /// Whether the text has been read (a lazy doc's, once asked for).
    pub fn is_read(&self) -> bool {
        match &self.text {
            DocText::Read(_) => true,
            DocText::Lazy(lazy) => lazy.text.get().is_some(),
        }
    }
}

/// What a search runs against: the same files and docs the index was built from, plus the
/// graph signals of the snapshot.
#[derive(Debug, Clone, Copy)]
pub struct SearchContext<'a> {
    pub files: &'a [ParsedFile],
    pub docs: &'a [TextDoc],
    /// PageRank per file (index = file index, sums to 1). Missing entries count as 0.
    pub prior: &'a [f64],
    /// Undirected weighted adjacency over code files (import/reference graph).
    pub neighbors: &'a [Vec<(usize, f64)>],
    /// Past commit subjects per file (see `HistoryIndex`), when the repository's history
    /// could be read.
    pub history: Option<&'a HistoryIndex>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchOptions {
    /// Number of hits (or files in `files_mode`); default 8, clamped to 1..=50.
    pub top: usize,
    /// Rank distinct files instead of hits.
    pub files_mode: bool,
    /// Keep only paths matching one of these globs (`src/**`, `*.ts`); a glob starting with
    /// `!` excludes. A glob without wildcards also matches everything under it as a folder.
    pub path_globs: Vec<String>,
    /// Keep only these language families (`ts`, `js`, `py`, `go`, `rs`, `java`, `c`, `cs`,
    /// `rb`, `php`, or full names like `typescript`). Prose documents are left out when this
    /// is set.
    pub langs: Vec<String>,
    /// The scope's gitignore-syntax patterns (`engine::base::scope`): only paths matching one of
    /// `include`, none of `exclude`.
    pub include: Vec<String>,
    pub exclude: Vec<String>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            top: 8,
            files_mode: false,
            path_globs: Vec::new(),
            langs: Vec::new(),
            include: Vec::new(),
            exclude: Vec::new(),
        }
    }
}

pub const MAX_TOP: usize = 50;

/// A bad search option (the CLI reports it as a usage error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SearchError {
    #[error("invalid path glob {glob:?}: {message}")]
    BadGlob { glob: String, message: String },
    #[error("unknown language {0:?} (expected {list})", list = crate::engine::base::scope::lang_list())]
    UnknownLang(String),
}

impl From<crate::engine::base::scope::ScopeError> for SearchError {
    fn from(e: crate::engine::base::scope::ScopeError) -> Self {
        use crate::engine::base::scope::ScopeError;
        match e {
            ScopeError::BadGlob { glob, message } => SearchError::BadGlob { glob, message },
            ScopeError::UnknownLang(l) => SearchError::UnknownLang(l),
        }
    }
}

impl SearchOptions {
    /// Checks globs and language names, so the CLI can report a bad flag instead of
    /// silently matching nothing.
    pub fn validate(&self) -> Result<(), SearchError> {
        run::Filter::new(self).map(|_| ())
    }
}

/// Why a hit matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Evidence {
    /// A definition whose name (or signature) matches.
    Definition,
    /// A non-call use of a matching name.
    Reference,
    /// A call of a matching name.
    Call,
    /// An import of a matching name or module.
    Import,
    /// Comments, strings or prose documents.
    Text,
}

impl Evidence {
    pub const ALL: [Evidence; 5] = [
        Evidence::Definition,
        Evidence::Reference,
        Evidence::Call,
        Evidence::Import,
        Evidence::Text,
    ];

    /// The name used in every output (`definition`, `reference`, `call`, `import`, `text`).
    pub fn name(self) -> &'static str {
        match self {
            Evidence::Definition => "definition",
            Evidence::Reference => "reference",
            Evidence::Call => "call",
            Evidence::Import => "import",
            Evidence::Text => "text",
        }
    }
}

/// The parts of a hit's score, for explanations and tuning:
/// `score = (bm25 + name + path + graph) × penalty × (1 + prior)`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Signals {
    pub bm25: f64,
    pub name: f64,
    pub path: f64,
    pub graph: f64,
    /// Relative boost from the PageRank prior (0.05 = +5 %).
    pub prior: f64,
    /// Multiplier from demotions (1 = none; tests, examples and prose docs are below 1).
    pub penalty: f64,
    /// From the file's past commit subjects (0 without history).
    pub history: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub file_path: String,
    pub line_range: LineRange,
    pub excerpt: String,
    pub evidence: Evidence,
    /// The matched definition, or the used / imported name.
    pub symbol: Option<String>,
    /// The definition kind (`function`, `class`, …) for definition hits.
    pub kind: Option<String>,
    pub score: f64,
    pub signals: Signals,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confidence {
    High,
    Medium,
    Low,
}

impl Confidence {
    /// `high`, `medium` or `low`.
    pub fn name(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Medium => "medium",
            Confidence::Low => "low",
        }
    }
}

/// How much of the index a query touched (for `--explain` and tuning).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RetrievalCounts {
    /// Distinct terms from the query text itself.
    pub query_terms: usize,
    /// Distinct terms added by glossary expansion and adjacent-word joins.
    pub expanded_terms: usize,
    pub chunks_matched: usize,
    pub files_matched: usize,
    /// Definitions whose name matched a query word exactly (case/underscore-insensitive).
    pub name_matches: usize,
    pub fuzzy_matches: usize,
    pub path_matches: usize,
    /// Files whose past commit subjects matched (the history signal).
    pub history_matches: usize,
    /// Files that scored only through graph diffusion.
    pub graph_only_files: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchResponse {
    /// Hits best first. In `files_mode`, the best hit of each listed file that has one.
    pub hits: Vec<SearchHit>,
    /// Distinct files best first, with their aggregated score (at most `top`).
    pub files: Vec<(String, f64)>,
    pub confidence: Confidence,
    /// True when nothing cleared the confidence cutoff ("no confident hits").
    pub low_score: bool,
    pub retrieval_counts: RetrievalCounts,
    pub latency_ms: f64,
    /// How the query was read: a look-up's symbol, a phrase's intent.
    pub read: QueryRead,
    /// Per hit (same order as `hits`): how its definition answers the look-up, if it does.
    pub matches: Vec<Option<NameMatch>>,
}

impl SearchResponse {
    fn empty(latency_ms: f64, read: QueryRead) -> SearchResponse {
        SearchResponse {
            hits: Vec::new(),
            files: Vec::new(),
            confidence: Confidence::Low,
            low_score: true,
            retrieval_counts: RetrievalCounts::default(),
            latency_ms,
            read,
            matches: Vec::new(),
        }
    }

    /// How hit `i` answers the look-up, if it does.
    pub fn match_of(&self, i: usize) -> Option<NameMatch> {
        self.matches.get(i).copied().flatten()
    }
}

/// Sizes of a built index.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct SearchIndexStats {
    pub files: usize,
    pub docs: usize,
    pub chunks: usize,
    pub terms: usize,
    pub postings: usize,
    pub build_ms: f64,
}

/// Where a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum ChunkKind {
    /// One definition (its lines minus nested definitions, plus its doc comment).
    Def,
    /// A code file's top-level code outside definitions.
    File,
    /// A section of a prose or config document.
    Doc,
}

const NO_DEF: u32 = u32::MAX;

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Chunk {
    unit: u32,
    /// Index into the file's `tags.defs`, or `NO_DEF`.
    def: u32,
    start: u32,
    end: u32,
    kind: ChunkKind,
}

/// A searchable file: code files first (unit = file index), then prose documents.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Unit {
    path: Box<str>,
    lang: Option<Lang>,
    class: crate::engine::base::paths::PathClass,
    /// Under a fixture or test-data folder: material tests read, rarely what a change edits.
    fixture: bool,
    /// Vendored code (`paths::is_vendored`): another project's, demoted even for a query
    /// about tests.
    vendored: bool,
    /// Build output or dependency folders: indexed by mistake, never shown.
    hidden: bool,
}

/// A term's slice of the postings, sorted by hash for binary search.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct TermEntry {
    hash: u64,
    start: u32,
    len: u32,
}

/// Field bits recorded per posting, so a hit can tell a name match from a body match.
mod field {
    pub const NAME: u8 = 1;
    pub const SIGNATURE: u8 = 2;
    pub const DOC: u8 = 4;
    pub const BODY: u8 = 8;
    pub const TEXT: u8 = 16;
    pub const COUNT: usize = 5;
    /// Field index → bit.
    pub const BITS: [u8; COUNT] = [NAME, SIGNATURE, DOC, BODY, TEXT];
}

#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Posting {
    chunk: u32,
    /// Precomputed `idf × saturated field-weighted tf`: a query only sums these.
    impact: f32,
    fields: u8,
}

#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
struct PathPosting {
    unit: u32,
    impact: f32,
}

/// One distinct definition name (lowercased, `_`/`$` dropped) for fuzzy matching.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct FuzzyName {
    target: matcher::FuzzyTarget,
    /// Range into `SearchIndex::fuzzy_chunks`.
    start: u32,
    len: u32,
}

/// The search index of one snapshot. Immutable once built.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct SearchIndex {
    weights: SearchWeights,
    n_files: usize,
    units: Vec<Unit>,
    /// Chunks of unit `u` are `unit_chunks[u]..unit_chunks[u + 1]` (chunks are in unit order).
    #[serde(with = "packed")]
    unit_chunks: Vec<u32>,
    /// Mean number of chunks of the code files that have any.
    avg_chunks: f32,
    #[serde(with = "packed")]
    chunks: Vec<Chunk>,
    #[serde(with = "packed")]
    terms: Vec<TermEntry>,
    #[serde(with = "packed")]
    postings: Vec<Posting>,
    #[serde(with = "packed")]
    path_terms: Vec<TermEntry>,
    #[serde(with = "packed")]
    path_postings: Vec<PathPosting>,
    /// File-level BM25 over code files (unit, impact).
    #[serde(with = "packed")]
    file_terms: Vec<TermEntry>,
    #[serde(with = "packed")]
    file_postings: Vec<PathPosting>,
    /// (hash of stemmed normalised name, def chunk), sorted.
    #[serde(with = "packed")]
    names: Vec<(u64, u32)>,
    fuzzy: Vec<FuzzyName>,
    #[serde(with = "packed")]
    fuzzy_chunks: Vec<u32>,
    /// (implementation unit, its test unit, share), sorted: tests paired with what they test.
    #[serde(with = "packed")]
    companions: Vec<(u32, u32, f32)>,
    /// Per prose document, the byte offset of each line start.
    doc_lines: Vec<Vec<u32>>,
    build_ms: f64,
}

impl SearchIndex {
    /// Builds the index with default weights.
    pub fn build(files: &[ParsedFile], docs: &[TextDoc]) -> SearchIndex {
        Self::build_with(files, docs, SearchWeights::default())
    }

    /// Builds the index with explicit weights (for tuning).
    pub fn build_with(files: &[ParsedFile], docs: &[TextDoc], weights: SearchWeights) -> Self {
        build::build(files, docs, weights)
    }

    pub fn weights(&self) -> &SearchWeights {
        &self.weights
    }

    /// Replaces the query-time weights; build-time ones (BM25 fields, k1, b) keep the values
    /// the index was built with.
    pub fn set_query_weights(&mut self, weights: SearchWeights) {
        let keep = self.weights.clone();
        self.weights = SearchWeights {
            k1: keep.k1,
            field_name: keep.field_name,
            field_signature: keep.field_signature,
            field_doc: keep.field_doc,
            field_body: keep.field_body,
            field_text: keep.field_text,
            b_name: keep.b_name,
            b_signature: keep.b_signature,
            b_doc: keep.b_doc,
            b_body: keep.b_body,
            b_text: keep.b_text,
            path_dir_token: keep.path_dir_token,
            path_compound: keep.path_compound,
            b_file: keep.b_file,
            ..weights
        };
    }

    pub fn stats(&self) -> SearchIndexStats {
        SearchIndexStats {
            files: self.n_files,
            docs: self.units.len() - self.n_files,
            chunks: self.chunks.len(),
            terms: self.terms.len(),
            postings: self.postings.len(),
            build_ms: self.build_ms,
        }
    }

    /// Whether this index (loaded from the derived cache) was built from `files` and `docs`
    /// and its tables point only inside themselves, so a search over it cannot index out of
    /// bounds. `Err` names the table that does not fit.
    pub fn check_fits(&self, files: &[ParsedFile], docs: &[TextDoc]) -> Result<(), String> {
        let fail = |what: &str| Err(format!("its {what} do not fit the files"));
        let n_units = files.len() + docs.len();
        let paths = files.iter().map(|f| f.path.as_str());
        let same_units = self.n_files == files.len()
            && self.units.len() == n_units
            && self
                .units
                .iter()
                .map(|u| &*u.path)
                .eq(paths.chain(docs.iter().map(|d| d.path.as_str())));
        if !same_units {
            return fail("files");
        }
        let n_chunks = self.chunks.len() as u64;
        let bounds_ok = self.unit_chunks.len() == n_units + 1
            && self.unit_chunks.first() == Some(&0)
            && self.unit_chunks.windows(2).all(|w| w[0] <= w[1])
            && self.unit_chunks.last().map(|&c| u64::from(c)) == Some(n_chunks);
        if !bounds_ok {
            return fail("unit bounds");
        }
        let chunks_ok = self.chunks.iter().all(|c| {
            let unit = c.unit as usize;
            unit < n_units
                && (c.def == NO_DEF
                    || files
                        .get(unit)
                        .is_some_and(|f| (c.def as usize) < f.tags.defs.len()))
        });
        if !chunks_ok {
            return fail("chunks");
        }
        let entries_ok = |terms: &[TermEntry], len: usize| {
            terms
                .iter()
                .all(|t| t.start as usize + t.len as usize <= len)
        };
        let postings_ok = entries_ok(&self.terms, self.postings.len())
            && self.postings.iter().all(|p| u64::from(p.chunk) < n_chunks)
            && entries_ok(&self.path_terms, self.path_postings.len())
            && self
                .path_postings
                .iter()
                .all(|p| (p.unit as usize) < n_units)
            && entries_ok(&self.file_terms, self.file_postings.len())
            && self
                .file_postings
                .iter()
                .all(|p| (p.unit as usize) < n_units);
        if !postings_ok {
            return fail("postings");
        }
        let names_ok = self.names.iter().all(|&(_, c)| u64::from(c) < n_chunks)
            && self
                .fuzzy
                .iter()
                .all(|f| f.start as usize + f.len as usize <= self.fuzzy_chunks.len())
            && self.fuzzy_chunks.iter().all(|&c| u64::from(c) < n_chunks);
        let others_ok = self
            .companions
            .iter()
            .all(|&(a, b, _)| (a as usize) < n_units && (b as usize) < n_units)
            && self.doc_lines.len() == docs.len();
        if !names_ok || !others_ok {
            return fail("name tables");
        }
        Ok(())
    }

    /// Runs one query. Never fails: a context that does not match the index (other file
    /// count) or an empty query gives an empty, low-confidence response.
    pub fn search(&self, ctx: &SearchContext, query: &str, opts: &SearchOptions) -> SearchResponse {
        run::search(self, ctx, query, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<SearchIndex>();
    }

    #[test]
    fn options_validate() {
        let mut o = SearchOptions::default();
        assert!(o.validate().is_ok());
        o.langs = vec!["ts".into(), "python".into()];
        assert!(o.validate().is_ok());
        o.langs = vec!["cobol".into()];
        assert!(o.validate().is_err());
        o.langs.clear();
        o.path_globs = vec!["src/{a".into()];
        assert!(o.validate().is_err());
    }
}
