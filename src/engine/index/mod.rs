//! The index: one full pass over a repository, and the queries answered from it. This
//! file holds the `Index` and what it is built from and asked with (`IndexOptions`,
//! `MapRequest`); the work lives beside it:
//!
//! - `build`: walk → load and parse in parallel → graph → history, and the refresh;
//!   `prefetch` compiles the tags queries during the walk, `memory` is the heap policy,
//!   `history_job` reads `git log` beside the parse;
//! - `derived`: the graph, search index and history index loaded from or saved to the
//!   derived caches, and the tag cache's save;
//! - `queries`: ranked and fitted maps, the task, search, who uses a definition;
//! - `refs`: callers and callees of a definition, use by use (`mapscope refs`);
//! - `stats`: what the index counts; `explain`: why a file is in the map or not;
//! - `once`: a one-shot call (`mapscope map`, `search`, `stats`) that answers while the
//!   cache is saved beside it.
//!
//! `Index::build` runs on the caller's thread (the CLI's main thread, or the engine worker
//! in the TUI); the parse phase fans out over rayon's pool, one tree-sitter parser per thread.
//! An `Index` is immutable once built and is shared read-only (`Send + Sync`).

pub mod build;
pub mod derived;
pub mod explain;
mod generated;
pub mod history_job;
pub mod memory;
pub mod once;
pub mod parts;
pub mod prefetch;
pub mod queries;
pub mod refs;
pub mod stats;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;

use crate::engine::base::model::{GoModule, ParsedFile, Skipped, TsPaths};
use crate::engine::base::scope::ScopeSpec;
use crate::engine::base::stats::PhaseTimes;
use crate::engine::base::tokenizer::TokenizerKind;
use crate::engine::index::parts::{
    BuiltSearch, DerivedSaved, DocStamp, DocTable, GraphSignals, SearchAhead,
};
use crate::engine::ingest::history::{CommitHistory, HistorySource};
use crate::engine::ingest::walk::{UnsupportedFile, WalkOptions};
use crate::engine::link::graph::FileGraph;
use crate::engine::rank::repo_map::LineCostCache;
use crate::engine::rank::task::TaskOptions;
use crate::engine::search::{HistoryIndex, TextDoc};
use crate::engine::store::blob::InputKey;
use crate::engine::store::dir::DiskCache;
use crate::engine::store::tags::{CacheWriter, TagStore};

/// How to build an index.
#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    pub walk: WalkOptions,
    /// Use the persistent tag cache in the user's cache dir (see `cache`). Off by default so
    /// tests and the eval (which indexes hundreds of throwaway trees) leave no trace; the
    /// CLI and the TUI turn it on unless `--no-cache` is given.
    pub use_cache: bool,
    /// Leave prose/config files unread. They only feed search's text evidence, so a
    /// map-only run (`mapscope map`) skips them to save time and memory.
    pub skip_docs: bool,
    /// Keep of each file only the lines a map renders (signatures, scope headers) and which
    /// lines are blank, instead of the whole source (see `ParsedFile::for_map`). For a
    /// map-only run (`mapscope map`): search, previews and anything else that reads source
    /// text need it off.
    pub map_lines_only: bool,
    /// For a one-shot map (`mapscope map`, ranked once): hand each file's references and
    /// imports to the graph build, which frees them as soon as they are used (see
    /// `build_graph_consuming`), trim the heap between phases, and keep of each definition
    /// only what a map reads. The index then has no references, imports or definition
    /// parents (stats, search, the TUI and a refresh need this off). With `use_cache` it applies when the cache holds nothing (a first run):
    /// each file's full tags are then written to a new cache file as soon as the file is
    /// parsed (`Index::take_cache_write`). A cache with entries is read as usual, and this
    /// is ignored: its tags are shared with the index and are saved again if stale.
    pub consume_refs: bool,
    /// With `use_cache`, take a file unchanged by size and mtime from the tag cache without
    /// reading it (as a map-only build does), and read its text only when something asks
    /// for a line the cache did not keep (`ParsedFile::lazy`): a warm search reads only the
    /// files it shows. For a one-shot call (the CLI); the TUI and the servers, which show
    /// any file's text, read them all while they build.
    pub lazy_sources: bool,
    /// The caller searches the index as soon as it is built (`mapscope search`): with
    /// `use_cache`, the search index is read from the derived cache beside the build.
    pub search_soon: bool,
    /// With `lazy_sources`, a file taken from the tag cache unread keeps its references and
    /// imports encoded too (`Decode::LinksUnread`), each file's decoded when first asked
    /// for (`ParsedFile::refs`): a search reads those of the files it shows, unless the
    /// graph must be linked again or an answer names callers or callees (then all). For a
    /// one-shot search (the CLI).
    pub lazy_links: bool,
    /// Where to read the commit history search uses (`history`); off by default. It is read
    /// by `git` on a thread of its own while the files parse. A refresh keeps the history
    /// its previous index read.
    pub history: HistorySource,
}

/// What became of the commit history an index asked for.
#[derive(Debug, Clone, Default)]
pub struct HistoryStatus {
    /// Commits whose subjects are indexed, and the code files they touched.
    pub commits: usize,
    pub files: usize,
    /// Wall time of `git log` (it runs beside the parse), or of the cache read.
    pub read_ms: f64,
    /// Taken from the history cache (`HEAD` had not moved since it was written).
    pub cached: bool,
    /// Why there is none, when it was asked for.
    pub error: Option<String>,
}

/// Where a build may take already extracted tags from instead of parsing.
#[derive(Clone, Copy)]
pub enum Reuse<'a> {
    Nothing,
    /// Tags from the persistent cache, matched by path, language, size and content hash.
    Store(&'a TagStore),
    /// A previous index of the same root. A file that is not in `changed` and whose size and
    /// mtime are what the previous index saw is taken over without being read; any other
    /// file is read and its tags reused only if its content hash is unchanged.
    Previous {
        index: &'a Index,
        changed: &'a BTreeSet<String>,
    },
}

/// How the files of a build were obtained.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct ReuseCounts {
    /// Read and parsed.
    pub parsed: usize,
    /// Read, and tags reused because the content hash matched.
    pub hash_hits: usize,
    /// Taken over from the previous index without reading (unchanged size and mtime).
    pub unchanged: usize,
}

/// What a map is asked for: the budget and everything that steers the ranking.
#[derive(Debug, Clone)]
pub struct MapRequest {
    pub budget: usize,
    pub tokenizer: TokenizerKind,
    /// Repo-relative paths of focus files (aider's "chat files").
    pub focus: Vec<String>,
    pub idents: Vec<String>,
    pub query: Option<String>,
    pub exclude_files: Vec<String>,
    pub exclude_symbols: Vec<String>,
    /// How the query and identifiers steer the map (`task`).
    pub task: TaskOptions,
    /// Also find the smallest budget that would include the first definition that did not
    /// fit (`RepoMap::next_budget`): a binary search over a dozen or so extra fits.
    pub next_budget: bool,
    /// Which files the map may rank and show (`--include`, `--exclude`, `--lang`); the graph
    /// still holds every file. Checked by the front doors (`Scope::new`); a bad one that gets
    /// here is ignored with a note.
    pub scope: ScopeSpec,
}

/// A query longer than this is cut before it is searched: a pasted log or diff says where
/// to look in its first lines, and search's cost grows with the number of terms.
pub const MAX_QUERY_CHARS: usize = 2000;

impl MapRequest {
    /// The same request at another budget, without the next-budget search (what the budget
    /// searches fit at each step).
    pub fn at_budget(&self, budget: usize) -> MapRequest {
        MapRequest {
            budget,
            next_budget: false,
            ..self.clone()
        }
    }
}

impl Default for MapRequest {
    fn default() -> Self {
        MapRequest {
            budget: 1024,
            tokenizer: TokenizerKind::O200k,
            focus: Vec::new(),
            idents: Vec::new(),
            query: None,
            exclude_files: Vec::new(),
            exclude_symbols: Vec::new(),
            task: TaskOptions::default(),
            next_budget: false,
            scope: ScopeSpec::default(),
        }
    }
}

/// A fully built index of one repository.
pub struct Index {
    /// Canonical repository root.
    pub root: PathBuf,
    /// Parsed code files, sorted by path.
    pub files: Vec<ParsedFile>,
    /// Prose/config files for text search, sorted by path.
    pub docs: Vec<TextDoc>,
    /// Each doc's size and mtime when read (same order as `docs`), for a refresh.
    doc_stamps: Vec<DocStamp>,
    pub skipped: Vec<Skipped>,
    /// Code files in languages without a grammar (`WalkOutput::unsupported`), sorted by path.
    pub unsupported: Vec<UnsupportedFile>,
    pub go_modules: Vec<GoModule>,
    /// The TS/JS path aliases of the `tsconfig.json`/`jsconfig.json` files (`WalkOutput`).
    pub ts_paths: Vec<TsPaths>,
    /// The folders the walk found vendored by their licence (`WalkOutput::vendored_dirs`);
    /// their files are marked `ParsedFile::vendored`.
    pub vendored_dirs: Vec<String>,
    pub graph: FileGraph,
    pub times: PhaseTimes,
    pub reuse: ReuseCounts,
    /// The persistent cache this index was loaded from and saves to (`use_cache`).
    pub cache: Option<DiskCache>,
    /// Why the cache was not used or was ignored (see `warnings`).
    pub(super) cache_warning: Option<String>,
    /// For a refresh: how many files were bound again (`graph::build_graph_relinking`); the
    /// others' bindings were taken from the previous graph.
    pub relinked: Option<usize>,
    /// A derived cache (graph, history index) that did not check out and was rebuilt (see
    /// `warnings`; the search index's is kept with it, `BuiltSearch::warning`).
    pub(super) derived_warnings: Vec<String>,
    /// Ignore files and git metadata the walk did not read (`WalkOutput::warnings`; see
    /// `warnings`).
    pub(super) walk_warnings: Vec<String>,
    /// Search's graph signals (see `graph_signals`), computed on first use: a map never
    /// needs them, and their transient edge lists would raise a map-only run's peak memory.
    signals: OnceLock<GraphSignals>,
    by_path: BTreeMap<String, usize>,
    /// Whether the persistent cache lacks something this index parsed.
    cache_stale: bool,
    /// A one-shot build's new cache file, holding every file's tags, to be finished (see
    /// `IndexOptions::consume_refs`).
    cache_write: Option<CacheWriter>,
    /// When the earliest of the files' contents was read (wall clock, ns): what the tag
    /// cache records to know which entries it may trust by size and mtime (`store::tags`).
    read_since_ns: i64,
    /// `map_once` gives the graph's memory back to the system before the fit: false only for
    /// a small one-shot build (`trims_heap_after_parse`).
    trim_heap: bool,
    line_costs: LineCostCache,
    /// The key of the graph's inputs when the derived cache lacks this graph (it was
    /// linked, not loaded): `save_cache` stores it, once (`derived_saved`).
    graph_unsaved: Option<InputKey>,
    /// The same for the history index, and the commit its history is of.
    history_unsaved: Option<InputKey>,
    history_head: Option<String>,
    /// The doc table (`parts::DocTable`) of what this build found, when the derived cache
    /// holds another.
    docs_unsaved: Option<(InputKey, DocTable)>,
    /// Built (or loaded from the derived cache) on first use: `map` never pays for it.
    search: OnceLock<BuiltSearch>,
    /// The search index being read beside the build (`IndexOptions::search_soon`), taken by
    /// the first use.
    search_ahead: Mutex<Option<SearchAhead>>,
    /// Copies of `files` with every reference and import decoded, made for the binding
    /// re-run when the build left some undecoded (`IndexOptions::lazy_links`).
    linked: OnceLock<Vec<ParsedFile>>,
    /// Which derived structures `save_cache` has stored already.
    derived_saved: DerivedSaved,
    /// The generated files left out of it, read for look-ups on first need.
    generated: generated::GeneratedFiles,
    /// The commit history read for search (see `IndexOptions::history`), and its postings.
    history: Option<Arc<CommitHistory>>,
    history_index: Option<HistoryIndex>,
    pub history_status: HistoryStatus,
}

/// Which phase a build is in, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BuildPhase {
    Walk,
    Parse,
    Graph,
}

impl BuildPhase {
    pub fn name(self) -> &'static str {
        match self {
            BuildPhase::Walk => "walking",
            BuildPhase::Parse => "parsing",
            BuildPhase::Graph => "linking",
        }
    }
}

/// A progress report from `Index::build_with_progress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildProgress {
    pub phase: BuildPhase,
    pub done: usize,
    pub total: usize,
}

impl Index {
    /// Everything this index has to tell the user, one line each, in this order: why the
    /// tag cache was not used, the derived caches that did not check out (the search
    /// index's once search has run), the ignore files and git metadata the walk could not
    /// read. Raw repository text: sanitise before printing. Every build of the same tree
    /// repeats the walk's; a front end that rebuilds shows each once.
    pub fn warnings(&self) -> Vec<&str> {
        let mut out: Vec<&str> = self.cache_warning.iter().map(String::as_str).collect();
        out.extend(self.derived_warnings.iter().map(String::as_str));
        out.extend(self.search_cache_warning());
        out.extend(self.walk_warnings.iter().map(String::as_str));
        out
    }
    /// The index of a repo-relative path, if it is an indexed code file.
    pub fn file_index(&self, rel_path: &str) -> Option<usize> {
        self.by_path.get(rel_path).copied()
    }

    /// Turns a user-given path (absolute, relative to the current directory, or relative to
    /// the repo root) into an indexed file's position.
    pub fn resolve_user_path(&self, given: &str) -> Option<usize> {
        let normalized = given.trim_start_matches("./").replace('\\', "/");
        if let Some(i) = self.file_index(&normalized) {
            return Some(i);
        }
        let canonical = Path::new(given).canonicalize().ok()?;
        let rel = canonical.strip_prefix(&self.root).ok()?;
        self.file_index(&rel.to_string_lossy().replace('\\', "/"))
    }
}
