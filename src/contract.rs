//! The output contract every front door shares (CLI `--json`, MCP tools, HTTP): the
//! arguments a map or search request takes (typed in `args`, which also yields the MCP input
//! schemas), how they are checked (unknown ones refused, each bad one named in one line), and
//! the JSON documents that answer them. Front doors only add their framing (JSON-RPC
//! content, HTTP statuses, stdout). Runs on whichever thread answers: the CLI's main thread,
//! the live-index service's engine thread.

use serde_json::{Map, Value};

use std::path::{Path, PathBuf};

use crate::engine::answer::llm::{self, AnswerRequest, Evidence, LlmError, LlmSetting};
use crate::engine::answer::{extractive_answer, AnswerStyle};
use crate::engine::base::scope::{Scope, ScopeSpec};
use crate::engine::base::stats::IndexStats;
use crate::engine::base::text::sanitize;
use crate::engine::index::{BuildProgress, Index, MapRequest};
use crate::engine::live::session_index::markdown_within_budget;
use crate::engine::live::{Freshness, SourceIndex};
use crate::engine::rank::pagerank::RankOutput;
use crate::engine::rank::repo_map::{render, MapFormat, RepoMap};
use crate::engine::search::sources::{
    check_sources, match_reason, relevance, SourceError, SourceSpec, PROJECT,
};
use crate::engine::search::{SearchHit, SearchOptions, SearchResponse};
use std::collections::BTreeMap;

mod args;
pub use args::{
    field_names, input_schema, parse_args, Bounded, Choice, Flag, Langs, Named, NonBlank,
    RepoMapArgs, RepoStatsArgs, SearchArgs, Strings, SymbolAnswerArgs, SymbolAnswerOptions, Text,
};
mod refs;
pub use args::RepoReferencesArgs;
pub use refs::{refs_error, RefsCall, RefsDoc};

/// The bounds of every numeric request argument, one table for every door: the MCP tools'
/// and HTTP routes' arguments (`args::Bounded`), the CLI's options and the TUI's budget (its
/// start flag, its config and its `+`/`-` ladder). Each is (smallest, largest), inclusive.
///
/// The map budget (`repo_map` `tokens`, `/map?tokens=`, `mapscope . --tokens`, the TUI's
/// `ui.budget`). `mapscope map --tokens` alone takes any budget from 0: it is also the
/// measuring tool (`--explain` looks up to 262,144 tokens, whole rankings are compared at
/// 200,000), and a map too small for anything says so in a note.
pub const MIN_MAP_TOKENS: usize = 16;
pub const MAX_MAP_TOKENS: usize = 131_072;
pub const MAP_TOKENS: (usize, usize) = (MIN_MAP_TOKENS, MAX_MAP_TOKENS);
/// Hits (or files) a search returns: `search` `top`, `/search?top=`, `search --top`.
pub const SEARCH_TOP: (usize, usize) = (1, crate::engine::search::MAX_TOP);
/// Use sites per section and definition of a callers/callees answer: `repo_references`
/// `top`, `/refs?top=`, `refs --top`; and its default.
pub const REFS_TOP: (usize, usize) = (1, crate::engine::index::refs::MAX_TOP);
pub const REFS_DEFAULT_TOP: usize = 20;

/// `text` as an integer within `(min, max)`, or the one line that says what is allowed (the
/// words the MCP and HTTP refusals use: "must be an integer from 1 to 50").
pub fn bounded(text: &str, (min, max): (usize, usize)) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| (min..=max).contains(n))
        .ok_or_else(|| format!("must be an integer from {min} to {max}"))
}

/// A request argument that is missing, of the wrong type, out of range or unknown: one line
/// naming it (`INVALID_ARGUMENT`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ArgError(pub String);

impl ArgError {
    pub fn new(message: impl Into<String>) -> ArgError {
        ArgError(message.into())
    }

    /// The refusal in a door's own names: `names` pairs each of its parameters with the
    /// argument it fills (HTTP's `q` is `query`), so the line names what the caller wrote
    /// (`` `q` must be a non-empty string ``, not `` `query` ``).
    pub fn in_terms_of<'a>(self, names: impl IntoIterator<Item = (&'a str, &'a str)>) -> ArgError {
        for (param, arg) in names {
            if param == arg {
                continue;
            }
            if let Some(rest) = self.0.strip_prefix(&format!("`{arg}`")) {
                return ArgError(format!("`{param}`{rest}"));
            }
        }
        self
    }
}

/// Adds `changes_pending` to a tool's JSON document (an object).
pub fn mark(freshness: &Freshness, document: &mut Value) {
    if let Value::Object(fields) = document {
        fields.insert("changes_pending".into(), freshness.changes_pending.into());
    }
}

/// A `repo_map` call's arguments.
#[derive(Debug)]
pub struct MapCall {
    request: MapRequest,
    format: MapFormat,
}

impl MapCall {
    /// A `repo_map` call from its JSON arguments (MCP's, or HTTP's query parameters).
    pub fn parse(args: &Map<String, Value>) -> Result<MapCall, ArgError> {
        MapCall::new(parse_args(args)?)
    }

    /// The call `args` ask for; a bad pattern or language is refused.
    pub fn new(args: RepoMapArgs) -> Result<MapCall, ArgError> {
        let scope = ScopeSpec {
            include: args.include.0,
            exclude: args.exclude.0,
            langs: args.lang.0,
        };
        Scope::new(&scope).map_err(|e| ArgError::new(e.to_string()))?;
        Ok(MapCall {
            request: MapRequest {
                budget: args.tokens.get(),
                tokenizer: args.tokenizer.0,
                focus: args.focus_files.0,
                idents: args.identifiers.0,
                query: args.query.0,
                scope,
                ..MapRequest::default()
            },
            format: args.format.0,
        })
    }

    /// The map in the asked format, its JSON rendering (`mapscope map --format json`, with
    /// `changes_pending`) and the parts of the request that were ignored.
    pub fn run(&self, index: &Index, freshness: &Freshness) -> MapAnswer {
        let (map, ranked) = index.map(&self.request);
        let map = match self.format {
            MapFormat::Markdown => markdown_map(index, &ranked, &self.request, &map),
            MapFormat::Text => map,
        };
        let text = map.text.clone();
        let mut document = serde_json::to_value(MapDoc::of(&map)).unwrap_or(Value::Null);
        mark(freshness, &mut document);
        MapAnswer {
            text,
            document,
            notes: map.notes,
        }
    }
}

/// The map as markdown within its budget, as a map document describes it: `text` is the
/// markdown and `tokens` its own count with the request's tokenizer (path lines and fences
/// included), never over `budget`. The fences cost tokens, so the markdown may hold a
/// definition or two fewer than `text_map` (`markdown_within_budget` fits it again).
pub fn markdown_map(
    index: &Index,
    ranked: &RankOutput,
    req: &MapRequest,
    text_map: &RepoMap,
) -> RepoMap {
    let (markdown, tokens, mut map) = markdown_within_budget(index, ranked, req, text_map);
    map.text = markdown;
    map.tokens = tokens;
    map.budget = req.budget;
    map.notes.clone_from(&text_map.notes);
    map
}

/// What the first index build is doing, in words: `parsing 812/1930 files`.
pub fn build_progress_line(p: &BuildProgress) -> String {
    match (p.done, p.total) {
        (_, 0) => format!("{}…", p.phase.name()),
        (done, total) => format!("{} {done}/{total} files", p.phase.name()),
    }
}

/// `/stats` while the first index builds (answered at once, without waiting for it):
/// `building: true` and what the build is doing; the stats document follows once it is
/// done (without `building`).
pub fn building_stats(p: &BuildProgress) -> Value {
    serde_json::json!({
        "success": true,
        "building": true,
        "phase": p.phase.name(),
        "files_done": p.done,
        "files_total": p.total,
        "message": format!("the index is still building: {}", build_progress_line(p)),
    })
}

/// A map call's answer.
pub struct MapAnswer {
    /// The map as an LLM is fed it (text or markdown).
    pub text: String,
    /// `mapscope map --format json`'s document, with `changes_pending`.
    pub document: Value,
    /// One line per part of the request that was ignored.
    pub notes: Vec<String>,
}

/// A `search` or `repo_symbol_answer` call's arguments.
#[derive(Debug)]
pub struct SearchCall {
    query: String,
    opts: SearchOptions,
    style: AnswerStyle,
    /// The request's `sources`; `None` when absent (every source the server was started
    /// with).
    sources: Option<Vec<SourceRequest>>,
    /// `repo_symbol_answer`'s `repo_path`, as given (checked by `SourcePolicy::repo`).
    repo_path: Option<String>,
    /// The configured source `repo_path` named: searched alone, as the project.
    repo_source: Option<String>,
    /// An answer call: its sources' `evidence_type` in the seed's values (`evidence_seed`).
    seed_evidence: bool,
}

/// `repo_symbol_answer`'s default and largest number of sources (its contract).
pub const ANSWER_SOURCES: usize = 6;
pub const MAX_ANSWER_SOURCES: usize = 12;

impl SearchCall {
    /// A `search` call from its JSON arguments (MCP's, or HTTP's query parameters).
    pub fn parse(args: &Map<String, Value>) -> Result<SearchCall, ArgError> {
        SearchCall::search(parse_args(args)?)
    }

    /// A `repo_symbol_answer` call from its JSON arguments, flat or in the seed's shape
    /// (`options: {…}`): an option given both beside `question` and in `options` is refused.
    pub fn parse_answer(args: &Map<String, Value>) -> Result<SearchCall, ArgError> {
        if let Some(Value::Object(options)) = args.get("options") {
            if let Some(k) = options.keys().find(|k| args.contains_key(k.as_str())) {
                return Err(ArgError::new(format!(
                    "`{k}` given twice: beside `question` and in `options` (give it once)"
                )));
            }
        }
        SearchCall::answer(parse_args(args)?)
    }

    pub fn search(args: SearchArgs) -> Result<SearchCall, ArgError> {
        let opts = SearchOptions {
            top: args.top.get(),
            files_mode: args.files.0,
            path_globs: args.paths.0,
            langs: args.lang.0,
            include: args.include.0,
            exclude: args.exclude.0,
        };
        SearchCall::new(args.query.0, opts, args.answer_style.0, args.sources)
    }

    /// `repo_symbol_answer`: the retrieval tools' contract names over the same search, the
    /// seed's `options` taking the place of the flat arguments they name.
    pub fn answer(args: SymbolAnswerArgs) -> Result<SearchCall, ArgError> {
        let (paths, languages, max_sources, style) = match args.options {
            Some(o) => (
                pick(o.paths, args.paths),
                pick(o.languages, args.languages),
                pick(o.max_sources, args.max_sources),
                pick(o.answer_style, args.answer_style),
            ),
            None => (
                args.paths,
                args.languages,
                args.max_sources,
                args.answer_style,
            ),
        };
        let opts = SearchOptions {
            top: max_sources.get(),
            files_mode: false,
            path_globs: paths.0,
            langs: languages.0,
            include: Vec::new(),
            exclude: Vec::new(),
        };
        let mut call = SearchCall::new(args.question.0, opts, style.0, args.sources)?;
        call.repo_path = args.repo_path.0;
        call.seed_evidence = true;
        Ok(call)
    }

    fn new(
        query: String,
        opts: SearchOptions,
        style: AnswerStyle,
        sources: Option<Strings>,
    ) -> Result<SearchCall, ArgError> {
        opts.validate().map_err(|e| ArgError::new(e.to_string()))?;
        Ok(SearchCall {
            query,
            opts,
            style,
            sources: requested_sources(sources.map(|s| s.0))?,
            repo_path: None,
            repo_source: None,
            seed_evidence: false,
        })
    }

    /// Checks `repo_path` under `policy` (the served root, or a configured source's folder,
    /// which is then searched alone); the refusal is the seed's `{success: false, error,
    /// code}` with `REPO_NOT_FOUND` or `INVALID_REPO`.
    pub fn check_repo(&mut self, policy: &SourcePolicy) -> Result<(), RepoRefusal> {
        let Some(path) = &self.repo_path else {
            return Ok(());
        };
        if let RepoTarget::Source(name) = policy.repo(path)? {
            if self.sources.as_ref().is_some_and(|s| !s.is_empty()) {
                return Err(RepoRefusal {
                    code: "INVALID_REPO",
                    message: format!(
                        "repo_path {} is the source `{}`: it is searched alone, so `sources` \
                         cannot name others",
                        sanitize(path),
                        sanitize(&name)
                    ),
                });
            }
            self.sources = Some(vec![SourceRequest::Named(name.clone())]);
            self.repo_source = Some(name);
        }
        Ok(())
    }

    /// How much the answer says.
    pub fn style(&self) -> AnswerStyle {
        self.style
    }

    /// The extra sources this request searches under `policy`: `None` for every source the
    /// server was started with.
    pub fn selected_sources(
        &self,
        policy: &SourcePolicy,
    ) -> Result<Option<Vec<SourceSpec>>, SourceRefusal> {
        policy.resolve(self.sources.as_deref())
    }

    /// The search JSON contract (with `changes_pending`): the project's hits, then each
    /// extra source's.
    pub fn run(&self, index: &Index, call: &Freshness, sources: &[&SourceIndex]) -> Value {
        // `repo_path` named a source: it is the project of this answer.
        let target = self
            .repo_source
            .as_ref()
            .and_then(|name| sources.iter().find(|s| &s.name == name));
        let (index, sources) = match target {
            Some(source) => (&source.index, &[][..]),
            None => (index, sources),
        };
        let (_, search_build_ms) = index.search_index();
        let response = index.search(&self.query, &self.opts);
        let extra: Vec<SourceHits> = sources
            .iter()
            .map(|s| SourceHits::search(&s.name, &s.root, &s.index, &self.query, &self.opts))
            .collect();
        let mut contract = search_json(
            index,
            &self.query,
            &response,
            call.index_ms,
            search_build_ms,
            self.style,
            &extra,
        );
        mark(call, &mut contract);
        if self.seed_evidence {
            evidence_seed(&mut contract);
        }
        contract
    }
}

/// `options`' value of an option when `options` gave it (not its default), else the flat one.
fn pick<T: PartialEq + Default>(option: T, flat: T) -> T {
    if option == T::default() {
        flat
    } else {
        option
    }
}

/// The seed's `evidence_type` for a search evidence name: `definition`, `reference` (an
/// import is one), `call`, and `grep` for a lexical hit (`text`).
pub fn seed_evidence_name(name: &str) -> &str {
    match name {
        "import" => "reference",
        "text" => "grep",
        other => other,
    }
}

/// A search document's `evidence_type`s and evidence counts in the seed's values
/// (`repo_symbol_answer`'s contract).
fn evidence_seed(document: &mut Value) {
    if let Some(sources) = document.get_mut("sources").and_then(Value::as_array_mut) {
        for s in sources {
            let seed = seed_evidence_name(text(s, "evidence_type")).to_string();
            s["evidence_type"] = seed.into();
        }
    }
    if let Some(Value::Object(counts)) = document
        .get_mut("diagnostics")
        .and_then(|d| d.get_mut("retrieval_counts"))
    {
        let mut seeded: Map<String, Value> = Map::new();
        for (k, v) in std::mem::take(counts) {
            let n = v.as_u64().unwrap_or(0)
                + seeded
                    .get(seed_evidence_name(&k))
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
            seeded.insert(seed_evidence_name(&k).to_string(), n.into());
        }
        *counts = seeded;
    }
}

/// Which index a `repo_path` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoTarget {
    Project,
    /// A source the server was started with, by name.
    Source(String),
}

/// Why a `repo_path` is refused: `REPO_NOT_FOUND` (nothing there) or `INVALID_REPO` (not a
/// folder, or not one this server serves).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoRefusal {
    pub code: &'static str,
    pub message: String,
}

/// Refuses an argument not in `known`, naming it and those that are.
pub fn known_arguments(args: &Map<String, Value>, known: &[&str]) -> Result<(), ArgError> {
    match args.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(ArgError::new(format!(
            "unknown argument `{k}` (expected: {})",
            if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            }
        ))),
        None => Ok(()),
    }
}

/// The extractive answer for a search's hits (`engine::answer`), with who uses each
/// definition from the index's file graph.
pub fn answer(index: &Index, r: &SearchResponse, style: AnswerStyle) -> String {
    extractive_answer(r, &r.hits, style, &index.links())
}

/// What search knew of the commit history, as the search document names it.
fn history_json(h: &crate::engine::index::HistoryStatus) -> Value {
    serde_json::json!({
        "commits": h.commits,
        "files": h.files,
        "read_ms": h.read_ms,
        "cached": h.cached,
        "error": h.error,
    })
}

/// A hit's score breakdown, as the search document names it.
fn signals_json(s: &crate::engine::search::Signals) -> Value {
    serde_json::json!({
        "bm25": s.bm25,
        "name": s.name,
        "path": s.path,
        "graph": s.graph,
        "prior": s.prior,
        "penalty": s.penalty,
        "history": s.history,
    })
}

/// How much of the index a query touched, as the search document names it.
fn matched_json(c: &crate::engine::search::RetrievalCounts) -> Value {
    serde_json::json!({
        "query_terms": c.query_terms,
        "expanded_terms": c.expanded_terms,
        "chunks_matched": c.chunks_matched,
        "files_matched": c.files_matched,
        "name_matches": c.name_matches,
        "fuzzy_matches": c.fuzzy_matches,
        "path_matches": c.path_matches,
        "history_matches": c.history_matches,
        "graph_only_files": c.graph_only_files,
    })
}

/// The search JSON contract (README, "search"; MCP `search` and `repo_symbol_answer`).
pub fn search_json(
    index: &Index,
    query: &str,
    r: &SearchResponse,
    index_ms: f64,
    search_build_ms: f64,
    style: AnswerStyle,
    extra: &[SourceHits],
) -> serde_json::Value {
    let mut counts = std::collections::BTreeMap::new();
    for e in ["definition", "reference", "call", "import", "text"] {
        counts.insert(e, 0usize);
    }
    let mut sources: Vec<serde_json::Value> = Vec::new();
    let mut files: Vec<serde_json::Value> = Vec::new();
    let project = hit_containers(index, r);
    let all = std::iter::once((PROJECT, r, &project)).chain(
        extra
            .iter()
            .map(|x| (x.name.as_str(), &x.response, &x.containers)),
    );
    for (source, response, containers) in all {
        let best = response.hits.first().map_or(0.0, |h| h.score);
        for (h, container) in response.hits.iter().zip(containers) {
            let evidence = h.evidence.name();
            *counts.entry(evidence).or_default() += 1;
            let mut v = serde_json::json!({
                "file_path": h.file_path,
                "line_range": [h.line_range.start, h.line_range.end],
                "excerpt": h.excerpt,
                "evidence_type": evidence,
                "score": h.score,
                "signals": signals_json(&h.signals),
                "source": source,
                "relevance": relevance(h.score, best, response.low_score),
                "match_reason": match_reason(h),
            });
            if let Some(symbol) = &h.symbol {
                v["symbol"] = symbol.clone().into();
            }
            if let Some(kind) = &h.kind {
                v["kind"] = kind.clone().into();
            }
            if let Some((container, qualified)) = container {
                v["container"] = container.clone().into();
                v["qualified_name"] = qualified.clone().into();
            }
            sources.push(v);
        }
        files.extend(response.files.iter().map(|(path, score)| {
            serde_json::json!({"file_path": path, "score": score, "source": source})
        }));
    }
    let mut document = serde_json::json!({
        "success": true,
        "repo_path": index.root.display().to_string(),
        "question": query,
        "answer": answer(index, r, style),
        "confidence": r.confidence.name(),
        "sources": sources,
        "files": files,
        "diagnostics": {
            "retrieval_counts": counts,
            "latency_ms": r.latency_ms,
            "index_ms": index_ms,
            "search_index_ms": search_build_ms,
            "parsed_files": index.files.len(),
            "ast_parsed_files": index.files.len(),
            "used_llm": false,
            "used_reranker": false,
            "low_score": r.low_score,
            "history": history_json(&index.history_status),
            "matched": matched_json(&r.retrieval_counts),
            "note": no_words_note(r),
        },
    });
    if let Some(l) = &r.read.lookup {
        // How the question was read: one symbol, its container and file as typed, and what
        // a phrase asked of it ("who calls X": `callers`).
        document["lookup"] = serde_json::json!({
            "symbol": l.qualified(&l.name),
            "name": l.name,
            "container": l.container,
            "file": l.file,
            "intent": r.read.intent.map(crate::engine::search::Intent::name),
        });
    }
    if !extra.is_empty() {
        document["diagnostics"]["extra_sources"] = extra
            .iter()
            .map(|x| {
                serde_json::json!({
                    "name": x.name, "root": x.root, "parsed_files": x.parsed_files,
                    "low_score": x.response.low_score,
                })
            })
            .collect();
    }
    document
}

/// Each hit's container and qualified name when it is a definition that has one
/// (`FileTags::container`, `FileTags::qualified_name`), from the index it came from.
fn hit_containers(index: &Index, r: &SearchResponse) -> Vec<Option<(String, String)>> {
    let of = |h: &SearchHit| {
        let name = h.symbol.as_deref().filter(|_| h.kind.is_some())?;
        let tags = &index.files.get(index.file_index(&h.file_path)?)?.tags;
        let def = tags
            .defs
            .iter()
            .find(|d| d.name == name && d.lines == h.line_range)?;
        Some((tags.container(def)?, tags.qualified_name(def)?))
    };
    r.hits.iter().map(of).collect()
}

/// One extra source's answer to a search (`engine::search::sources`), listed after the project's.
pub struct SourceHits {
    pub name: String,
    pub root: String,
    pub parsed_files: usize,
    pub response: SearchResponse,
    /// `hit_containers` of the response.
    containers: Vec<Option<(String, String)>>,
}

impl SourceHits {
    /// `query` searched in source `name`'s index, rooted at `root`.
    pub fn search(
        name: &str,
        root: &std::path::Path,
        index: &Index,
        query: &str,
        opts: &SearchOptions,
    ) -> SourceHits {
        let response = index.search(query, opts);
        SourceHits {
            name: name.to_string(),
            root: crate::engine::base::text::display_path(root),
            parsed_files: index.files.len(),
            containers: hit_containers(index, &response),
            response,
        }
    }
}

/// Why nothing was searched, when the query had no word to search for (only stop words,
/// punctuation, emoji or control characters).
pub fn no_words_note(r: &SearchResponse) -> Option<&'static str> {
    let c = &r.retrieval_counts;
    (r.hits.is_empty() && r.files.is_empty() && c.query_terms == 0 && c.expanded_terms == 0)
        .then_some("no searchable words in the query (only stop words, punctuation or symbols)")
}

/// One entry of a request's `sources`: a source the server was started with, by name, or
/// another read-only root for this request (`NAME=PATH`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceRequest {
    Named(String),
    Root(SourceSpec),
}

/// The `sources` argument: absent (or null) is `None`, every source the server was started
/// with; an empty list is the project only. Over HTTP a list item without `=` may name
/// several sources separated by commas (`sources=lib,examples`).
pub fn requested_sources(
    items: Option<Vec<String>>,
) -> Result<Option<Vec<SourceRequest>>, ArgError> {
    let Some(items) = items else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for item in items {
        if item.contains('=') {
            let spec = SourceSpec::parse(&item).map_err(|e| ArgError::new(e.to_string()))?;
            out.push(SourceRequest::Root(spec));
        } else {
            out.extend(
                item.split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(|n| SourceRequest::Named(n.to_string())),
            );
        }
    }
    Ok(Some(out))
}

/// Which folders a request's `NAME=PATH` source may name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceRoots {
    /// Any directory outside the project (MCP: its one client is the local agent that
    /// started it).
    Any,
    /// None: a request picks among the sources the server was started with (HTTP's
    /// default: any web page or machine that reaches the port could name a folder).
    Nothing,
    /// Directories at or under these canonical folders only (HTTP's `--source-root`); a
    /// path is compared once canonical, so a link out of them leads nowhere.
    Under(Vec<PathBuf>),
}

/// Why a request's `sources` were refused: a bad entry (`INVALID_ARGUMENT`), or a folder the
/// server does not let requests name (`SOURCE_NOT_ALLOWED`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceRefusal {
    Invalid(ArgError),
    NotAllowed(String),
}

impl SourceRefusal {
    pub fn code(&self) -> &'static str {
        match self {
            SourceRefusal::Invalid(_) => "INVALID_ARGUMENT",
            SourceRefusal::NotAllowed(_) => "SOURCE_NOT_ALLOWED",
        }
    }

    pub fn message(&self) -> &str {
        match self {
            SourceRefusal::Invalid(e) => &e.0,
            SourceRefusal::NotAllowed(why) => why,
        }
    }
}

impl From<ArgError> for SourceRefusal {
    fn from(e: ArgError) -> SourceRefusal {
        SourceRefusal::Invalid(e)
    }
}

impl From<SourceRefusal> for ArgError {
    fn from(r: SourceRefusal) -> ArgError {
        ArgError::new(r.message())
    }
}

/// What a server lets a request's `sources` name: the sources it was started with, and
/// the folders `roots` allows, checked like `--source`.
#[derive(Debug, Clone)]
pub struct SourcePolicy {
    pub project_root: PathBuf,
    pub configured: Vec<SourceSpec>,
    pub roots: SourceRoots,
}

impl SourcePolicy {
    pub fn new(project_root: &Path, configured: Vec<SourceSpec>, roots: SourceRoots) -> Self {
        SourcePolicy {
            project_root: project_root.to_path_buf(),
            configured,
            roots,
        }
    }

    /// The sources `requested` names, in order: each name one the server was started with,
    /// each root an existing directory outside the project, no name twice (nor a root named
    /// like a configured source).
    pub fn resolve(
        &self,
        requested: Option<&[SourceRequest]>,
    ) -> Result<Option<Vec<SourceSpec>>, SourceRefusal> {
        let Some(requested) = requested else {
            return Ok(None);
        };
        let mut out: Vec<SourceSpec> = Vec::with_capacity(requested.len());
        for entry in requested {
            let spec = match entry {
                SourceRequest::Named(name) => self
                    .configured
                    .iter()
                    .find(|s| &s.name == name)
                    .cloned()
                    .ok_or_else(|| self.unknown(name))?,
                SourceRequest::Root(spec) => {
                    if self.roots == SourceRoots::Nothing {
                        return Err(SourceRefusal::NotAllowed(format!(
                            "source `{}`: this server reads no folder a request names (start \
                             it with --source-root DIR to allow the folders under DIR); \
                             configured sources: {}",
                            sanitize(&spec.name),
                            self.names()
                        )));
                    }
                    if self.configured.iter().any(|s| s.name == spec.name) {
                        return Err(source_error(&SourceError::Duplicate(spec.name.clone())).into());
                    }
                    let checked = check_sources(&self.project_root, std::slice::from_ref(spec))
                        .map_err(|e| source_error(&e))?;
                    let checked = checked
                        .into_iter()
                        .next()
                        .ok_or_else(|| self.unknown(&spec.name))?;
                    if let SourceRoots::Under(roots) = &self.roots {
                        if !roots.iter().any(|root| checked.path.starts_with(root)) {
                            return Err(SourceRefusal::NotAllowed(format!(
                                "source `{}`: {} is not under a folder this server lets \
                                 requests name (--source-root)",
                                sanitize(&spec.name),
                                crate::engine::base::text::display_path(&spec.path)
                            )));
                        }
                    }
                    checked
                }
            };
            if out.iter().any(|s| s.name == spec.name) {
                return Err(source_error(&SourceError::Duplicate(spec.name)).into());
            }
            out.push(spec);
        }
        Ok(Some(out))
    }

    /// Which index `repo_path` names: the served root or a configured source's folder (the
    /// same folder however it is spelt: relative to the current directory, through links).
    pub fn repo(&self, repo_path: &str) -> Result<RepoTarget, RepoRefusal> {
        let shown = sanitize(repo_path);
        let given = Path::new(repo_path);
        let Ok(real) = std::fs::canonicalize(given) else {
            return Err(RepoRefusal {
                code: "REPO_NOT_FOUND",
                message: format!("repo_path {shown}: no such folder"),
            });
        };
        let same = |p: &Path| std::fs::canonicalize(p).is_ok_and(|p| p == real);
        if same(&self.project_root) {
            return Ok(RepoTarget::Project);
        }
        if let Some(s) = self.configured.iter().find(|s| same(&s.path)) {
            return Ok(RepoTarget::Source(s.name.clone()));
        }
        let what = if real.is_dir() {
            "is not the folder this server serves nor one of its sources"
        } else {
            "is not a folder"
        };
        Err(RepoRefusal {
            code: "INVALID_REPO",
            message: format!(
                "repo_path {shown} {what} (serving {}; sources: {})",
                crate::engine::base::text::display_path(&self.project_root),
                self.names()
            ),
        })
    }

    fn names(&self) -> String {
        if self.configured.is_empty() {
            "none configured".into()
        } else {
            let names: Vec<&str> = self.configured.iter().map(|s| s.name.as_str()).collect();
            names.join(", ")
        }
    }

    fn unknown(&self, name: &str) -> ArgError {
        ArgError::new(format!(
            "unknown source `{}` (configured: {}; NAME=PATH adds another root)",
            sanitize(name),
            self.names()
        ))
    }
}

fn source_error(e: &SourceError) -> ArgError {
    ArgError::new(sanitize(&e.to_string()).into_owned())
}

/// The sources the model sees at most (`repo_symbol_answer`'s largest `max_sources`).
const LLM_SOURCES: usize = MAX_ANSWER_SOURCES;

/// With an LLM endpoint configured (`engine::answer::llm`), replaces a search document's
/// extractive `answer` with the one the model writes from the document's top `sources`
/// (`diagnostics.used_llm: true`, `llm_model`, `llm_ms`); on any failure the extractive
/// answer stays and `diagnostics.llm_error` (a stable code) and `llm_error_message` say why.
/// Without configuration the document is untouched. Call it off the live-index service's
/// engine thread: it waits for the model.
pub fn synthesize(document: &mut Value, style: AnswerStyle, setting: &LlmSetting) {
    let Some(setting) = setting else {
        return;
    };
    if document.get("success") != Some(&Value::Bool(true)) {
        return;
    }
    let result = match setting {
        Err(e) => Err(e.clone()),
        Ok(config) => {
            let request = answer_request(document, style);
            if request.evidence.is_empty() {
                Err(LlmError::NoSources)
            } else {
                llm::synthesize(config, &request)
            }
        }
    };
    let diagnostics = &mut document["diagnostics"];
    match result {
        Ok(s) => {
            diagnostics["used_llm"] = true.into();
            diagnostics["llm_model"] = s.model.into();
            diagnostics["llm_ms"] = s.latency_ms.into();
            document["answer"] = s.answer.into();
        }
        Err(e) => {
            diagnostics["llm_error"] = e.code().into();
            diagnostics["llm_error_message"] = sanitize(&e.to_string()).into_owned().into();
        }
    }
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// What the model is asked: the document's question, its extractive answer and its first
/// `LLM_SOURCES` sources.
fn answer_request(document: &Value, style: AnswerStyle) -> AnswerRequest<'_> {
    let evidence = document
        .get("sources")
        .and_then(Value::as_array)
        .map(|sources| {
            sources
                .iter()
                .take(LLM_SOURCES)
                .map(|s| {
                    let line = |i: usize| s["line_range"][i].as_u64().unwrap_or(0);
                    Evidence {
                        path: text(s, "file_path"),
                        lines: (line(0), line(1)),
                        evidence: text(s, "evidence_type"),
                        symbol: s.get("symbol").and_then(Value::as_str),
                        source: text(s, "source"),
                        excerpt: text(s, "excerpt"),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    AnswerRequest {
        question: text(document, "question"),
        style,
        extractive: text(document, "answer"),
        evidence,
    }
}

/// `mapscope: CODE: message` on stderr, on one line whatever the message holds: the one
/// format every front door uses for its errors outside the JSON it answers with.
pub fn error_line(code: &str, message: &str) {
    stderr_line(&format!(
        "mapscope: {code}: {}",
        crate::engine::base::text::sanitize(message)
    ));
}

/// Writes one line to stderr, ignoring a failed write. Not `eprintln!`: it panics when
/// stderr is a closed pipe, and the panic hook's own line then aborts the process, so a
/// server whose stderr went away would die on its next warning or bad request.
pub fn stderr_line(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// `mapscope: warning: message` on stderr, on one line whatever the message holds (paths
/// and arguments are echoed as data, never as escape sequences).
pub fn warn(message: &str) {
    stderr_line(&format!(
        "mapscope: warning: {}",
        crate::engine::base::text::sanitize(message)
    ));
}

/// `mapscope: note: message` on stderr, as `warn` writes warnings.
pub fn note(message: &str) {
    stderr_line(&format!(
        "mapscope: note: {}",
        crate::engine::base::text::sanitize(message)
    ));
}

/// What `mapscope map --format` writes: the map as text or markdown (the engine's
/// renderings), or the JSON map document (`MapDoc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapOutput {
    Map(MapFormat),
    Json,
}

impl MapOutput {
    /// `text`, `markdown` (or `md`), `json`, case-insensitively.
    pub fn parse(s: &str) -> Option<MapOutput> {
        if s.trim().eq_ignore_ascii_case("json") {
            return Some(MapOutput::Json);
        }
        MapFormat::parse(s).map(MapOutput::Map)
    }

    /// The map in this output.
    pub fn render(self, map: &RepoMap, index: &Index) -> String {
        match self {
            MapOutput::Map(format) => render(map, &index.files, format),
            MapOutput::Json => map_json(map),
        }
    }
}

/// The JSON map document (`map --format json`, MCP `repo_map`'s structured content, HTTP
/// `/map`): this module alone names its fields.
#[derive(serde::Serialize)]
pub struct MapDoc<'a> {
    tokens: usize,
    budget: usize,
    tokenizer: &'static str,
    files: Vec<MapFileDoc<'a>>,
    text: &'a str,
    /// The best-ranked definitions that did not fit (at most 20), best first.
    cut: Vec<CutDoc<'a>>,
    /// The smallest budget that would include `cut[0]` (null: nothing cut, not asked, or
    /// more than 262,144 tokens).
    next_budget: Option<usize>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
}

#[derive(serde::Serialize)]
struct MapFileDoc<'a> {
    path: &'a str,
    rank: f64,
    tokens: usize,
    symbols: Vec<SymbolDoc<'a>>,
}

#[derive(serde::Serialize)]
struct SymbolDoc<'a> {
    name: &'a str,
    kind: &'static str,
    /// The whole definition, `[start, end]`.
    line_range: [u32; 2],
    /// Its container (`Router`, `org.jsoup.Jsoup`) and its name qualified by it
    /// (`Router::fallback`), in its language's notation; left out at top level.
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qualified_name: Option<&'a str>,
}

/// A definition that did not fit: `tokens` is what it would add to this map.
#[derive(serde::Serialize)]
struct CutDoc<'a> {
    path: &'a str,
    symbol: &'a str,
    kind: &'static str,
    line: u32,
    tokens: usize,
}

impl<'a> MapDoc<'a> {
    pub fn of(map: &'a RepoMap) -> MapDoc<'a> {
        MapDoc {
            tokens: map.tokens,
            budget: map.budget,
            tokenizer: map.tokenizer.name(),
            files: map
                .files
                .iter()
                .map(|f| MapFileDoc {
                    path: &f.path,
                    rank: f.rank,
                    tokens: f.tokens,
                    symbols: f
                        .symbols
                        .iter()
                        .map(|s| SymbolDoc {
                            name: &s.name,
                            kind: s.kind.name(),
                            line_range: [s.line_range.start, s.line_range.end],
                            container: s.container.as_deref(),
                            qualified_name: s.qualified_name.as_deref(),
                        })
                        .collect(),
                })
                .collect(),
            text: &map.text,
            cut: map
                .cut
                .iter()
                .map(|c| CutDoc {
                    path: &c.path,
                    symbol: &c.name,
                    kind: c.kind.name(),
                    line: c.line,
                    tokens: c.tokens,
                })
                .collect(),
            next_budget: map.next_budget,
            notes: &map.notes,
        }
    }
}

/// The JSON map document, pretty-printed through `engine::base::json` (control bytes escaped).
pub fn map_json(map: &RepoMap) -> String {
    // Plain structs of strings and numbers: serialization cannot fail (NaN becomes null).
    crate::engine::base::json::to_string_pretty(&MapDoc::of(map))
        .unwrap_or_else(|_| String::from("{}"))
}

/// The JSON stats document (`stats --json`, MCP `repo_stats`, HTTP `/stats`): this module
/// alone names its fields.
#[derive(serde::Serialize)]
pub struct StatsDoc<'a> {
    root: &'a str,
    files: usize,
    docs: usize,
    files_by_language: &'a BTreeMap<&'static str, usize>,
    definitions: usize,
    definitions_by_kind: &'a BTreeMap<&'static str, usize>,
    references: usize,
    references_by_kind: &'a BTreeMap<&'static str, usize>,
    imports: usize,
    graph_edges: usize,
    skipped_by_reason: &'a BTreeMap<&'static str, usize>,
    files_with_parse_errors: usize,
    parse_errors: usize,
    times: TimesDoc,
    skipped_files: Vec<SkippedDoc<'a>>,
    parse_error_files: Vec<ParseErrorDoc<'a>>,
    unsupported_files: usize,
    unsupported_by_extension: &'a BTreeMap<String, usize>,
    unsupported_by_language: &'a BTreeMap<&'static str, usize>,
}

#[derive(serde::Serialize)]
struct TimesDoc {
    walk_ms: f64,
    parse_ms: f64,
    graph_ms: f64,
    graph_cached: bool,
}

#[derive(serde::Serialize)]
struct SkippedDoc<'a> {
    path: &'a str,
    reason: &'static str,
}

#[derive(serde::Serialize)]
struct ParseErrorDoc<'a> {
    path: &'a str,
    errors: u32,
}

impl<'a> StatsDoc<'a> {
    pub fn of(s: &'a IndexStats) -> StatsDoc<'a> {
        StatsDoc {
            root: &s.root,
            files: s.files,
            docs: s.docs,
            files_by_language: &s.files_by_language,
            definitions: s.definitions,
            definitions_by_kind: &s.definitions_by_kind,
            references: s.references,
            references_by_kind: &s.references_by_kind,
            imports: s.imports,
            graph_edges: s.graph_edges,
            skipped_by_reason: &s.skipped_by_reason,
            files_with_parse_errors: s.files_with_parse_errors,
            parse_errors: s.parse_errors,
            times: TimesDoc {
                walk_ms: s.times.walk_ms,
                parse_ms: s.times.parse_ms,
                graph_ms: s.times.graph_ms,
                graph_cached: s.times.graph_cached,
            },
            skipped_files: s
                .skipped_files
                .iter()
                .map(|k| SkippedDoc {
                    path: &k.path,
                    reason: k.reason.name(),
                })
                .collect(),
            parse_error_files: s
                .parse_error_files
                .iter()
                .map(|p| ParseErrorDoc {
                    path: &p.path,
                    errors: p.errors,
                })
                .collect(),
            unsupported_files: s.unsupported_files,
            unsupported_by_extension: &s.unsupported_by_extension,
            unsupported_by_language: &s.unsupported_by_language,
        }
    }

    /// The document as a JSON value (for the servers, which add `changes_pending`).
    pub fn value(s: &IndexStats) -> Value {
        serde_json::to_value(StatsDoc::of(s)).unwrap_or(Value::Null)
    }
}

/// The JSON document of `map --explain FILE… --format json`: one per file, named here.
#[derive(serde::Serialize)]
pub struct ExplainDoc<'a> {
    path: &'a str,
    indexed: bool,
    in_map: bool,
    map_position: Option<usize>,
    map_files: usize,
    tokens: usize,
    rank: f64,
    rank_position: usize,
    total_files: usize,
    personalization: f64,
    best_def_position: Option<usize>,
    cutoff_position: Option<usize>,
    cheapest: Option<DefCostDoc<'a>>,
    budget_needed: Option<usize>,
    /// How uses of the file's names elsewhere were bound or dropped, per identifier.
    bindings: Vec<BindingDoc<'a>>,
    reasons: &'a [String],
}

#[derive(serde::Serialize)]
struct BindingDoc<'a> {
    name: &'a str,
    /// `import`, `same_package`, `member`, `method_guess`, `name_guess`; dropped:
    /// `language_name`, `not_visible`.
    how: &'static str,
    uses: u32,
    files: u32,
}

/// The JSON name of a way a use was bound.
fn bound_by_name(how: crate::engine::link::graph::BoundBy) -> &'static str {
    use crate::engine::link::graph::BoundBy;
    match how {
        BoundBy::Import => "import",
        BoundBy::SamePackage => "same_package",
        BoundBy::Member => "member",
        BoundBy::MethodGuess => "method_guess",
        BoundBy::NameGuess => "name_guess",
        BoundBy::LanguageName => "language_name",
        BoundBy::NotVisible => "not_visible",
        BoundBy::Typed => "typed",
        BoundBy::ForeignReceiver => "foreign_receiver",
    }
}

#[derive(serde::Serialize)]
struct DefCostDoc<'a> {
    name: &'a str,
    kind: &'static str,
    line: u32,
    tokens: usize,
}

impl<'a> ExplainDoc<'a> {
    pub fn of(e: &'a crate::engine::index::explain::FileExplanation) -> ExplainDoc<'a> {
        ExplainDoc {
            path: &e.path,
            indexed: e.indexed,
            in_map: e.in_map,
            map_position: e.map_position,
            map_files: e.map_files,
            tokens: e.tokens,
            rank: e.rank,
            rank_position: e.rank_position,
            total_files: e.total_files,
            personalization: e.personalization,
            best_def_position: e.best_def_position,
            cutoff_position: e.cutoff_position,
            cheapest: e.cheapest.as_ref().map(|c| DefCostDoc {
                name: &c.name,
                kind: c.kind.name(),
                line: c.line,
                tokens: c.tokens,
            }),
            budget_needed: e.budget_needed,
            bindings: e
                .bindings
                .iter()
                .map(|b| BindingDoc {
                    name: &b.name,
                    how: bound_by_name(b.how),
                    uses: b.uses,
                    files: b.files,
                })
                .collect(),
            reasons: &e.reasons,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The JSON map document's shape: its fields, a file's and a definition's.
    #[test]
    fn the_map_document_has_its_fields() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("util.py"),
            "def helper(x):\n    return x\n\n\ndef other():\n    return 1\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("main.py"),
            "from util import helper\n\n\ndef run():\n    return helper(1)\n",
        )
        .unwrap();
        let opts = crate::engine::index::IndexOptions {
            use_cache: false,
            ..Default::default()
        };
        let index = Index::build(dir.path(), &opts).unwrap();
        let req = MapRequest {
            budget: 500,
            ..MapRequest::default()
        };
        let (map, _) = index.map(&req);
        let v: Value = serde_json::from_str(&map_json(&map)).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "budget",
                "cut",
                "files",
                "next_budget",
                "text",
                "tokenizer",
                "tokens"
            ]
        );
        assert_eq!(v["budget"], 500);
        assert_eq!(v["tokenizer"], "o200k_base");
        assert_eq!(v["cut"], json!([]));
        let f0 = &v["files"][0];
        assert_eq!(f0.as_object().unwrap().len(), 4, "{f0}");
        assert_eq!(f0["path"], "util.py");
        let s0 = &f0["symbols"][0];
        assert_eq!(s0["name"], "helper");
        assert_eq!(s0["kind"], "function");
        assert_eq!(s0["line_range"], json!([1, 2]));
        assert_eq!(MapOutput::parse("JSON"), Some(MapOutput::Json));
        assert_eq!(
            MapOutput::parse("md"),
            Some(MapOutput::Map(MapFormat::Markdown))
        );
        assert_eq!(MapOutput::parse("yaml"), None);
    }

    /// Map symbols and definition hits carry `container` and `qualified_name` when the
    /// definition has a container, and leave both out at top level; what a name holds
    /// reaches the JSON escaped.
    #[test]
    fn symbols_and_hits_carry_their_container() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("shapes.py"),
            "class Square:\n    def area(self):\n        return 4\n\n\ndef area_of(s):\n    return s.area()\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("lib.rs"),
            "pub trait Tr { fn f(); }\nimpl Tr for [/*\u{1b}[2J*/ u8] {\n    fn f() {}\n}\n",
        )
        .unwrap();
        let opts = crate::engine::index::IndexOptions {
            use_cache: false,
            ..Default::default()
        };
        let index = Index::build(dir.path(), &opts).unwrap();
        let (map, _) = index.map(&MapRequest {
            budget: 2000,
            ..MapRequest::default()
        });
        let text = map_json(&map);
        assert!(!text.contains('\u{1b}'), "{text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        let symbols: Vec<&Value> = v["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["symbols"].as_array().unwrap())
            .collect();
        let symbol = |name: &str| *symbols.iter().find(|s| s["name"] == name).unwrap();
        assert_eq!(symbol("area")["container"], "Square");
        assert_eq!(symbol("area")["qualified_name"], "Square.area");
        assert!(symbol("area_of").get("container").is_none());
        assert!(symbol("area_of").get("qualified_name").is_none());
        assert_eq!(symbol("f")["container"], "Tr");
        let impl_f = symbols
            .iter()
            .find(|s| s["name"] == "f" && s["container"] != "Tr")
            .unwrap();
        assert_eq!(impl_f["container"], "[/*\u{1b}[2J*/u8]");

        let response = index.search("area", &SearchOptions::default());
        let document = search_json(
            &index,
            "area",
            &response,
            0.0,
            0.0,
            AnswerStyle::Concise,
            &[],
        );
        let hit = document["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["symbol"] == "area" && h["evidence_type"] == "definition")
            .unwrap();
        assert_eq!(hit["container"], "Square");
        assert_eq!(hit["qualified_name"], "Square.area");
        let top = document["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["symbol"] == "area_of")
            .unwrap();
        assert!(top.get("container").is_none() && top.get("qualified_name").is_none());
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn refusals_name_the_doors_own_parameter() {
        let names = [("q", "query"), ("top", "top")];
        let e = ArgError::new("`query` must be a non-empty string").in_terms_of(names);
        assert_eq!(e.0, "`q` must be a non-empty string");
        let e = ArgError::new("`top` must be an integer from 1 to 50").in_terms_of(names);
        assert_eq!(e.0, "`top` must be an integer from 1 to 50");
        let e = ArgError::new("`queryx` is odd").in_terms_of(names);
        assert_eq!(e.0, "`queryx` is odd");
    }

    #[test]
    fn sources_are_absent_empty_names_or_roots() {
        let requested = |v: Value| {
            parse_args::<SearchArgs>(&args(json!({"query": "q", "sources": v})))
                .and_then(|a| requested_sources(a.sources.map(|s| s.0)))
        };
        assert_eq!(requested_sources(None), Ok(None));
        assert_eq!(requested(Value::Null), Ok(None));
        assert_eq!(requested(json!([])), Ok(Some(vec![])));
        assert_eq!(
            requested(json!(["lib, examples", "x=/a,b"])),
            Ok(Some(vec![
                SourceRequest::Named("lib".into()),
                SourceRequest::Named("examples".into()),
                SourceRequest::Root(SourceSpec {
                    name: "x".into(),
                    path: "/a,b".into()
                }),
            ]))
        );
        assert!(requested(json!(["bad name=/x"])).is_err());
        assert_eq!(
            requested(json!(3)),
            Err(ArgError::new("`sources` must be an array of strings"))
        );
    }

    #[test]
    fn a_policy_resolves_names_and_checks_roots_like_the_cli() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("app");
        let lib = dir.path().join("lib");
        let other = dir.path().join("other");
        for d in [&project.join("src"), &lib, &other] {
            std::fs::create_dir_all(d).unwrap();
        }
        let spec = |name: &str, path: &Path| SourceSpec {
            name: name.into(),
            path: path.to_path_buf(),
        };
        let configured = vec![spec("lib", &lib.canonicalize().unwrap())];
        let local = SourcePolicy::new(&project, configured.clone(), SourceRoots::Any);
        let named = |n: &str| SourceRequest::Named(n.into());
        let root = |n: &str, p: &Path| SourceRequest::Root(spec(n, p));
        assert_eq!(local.resolve(None), Ok(None));
        assert_eq!(local.resolve(Some(&[])), Ok(Some(vec![])));
        let both = local
            .resolve(Some(&[root("more", &other), named("lib")]))
            .unwrap()
            .unwrap();
        assert_eq!(
            both,
            vec![
                spec("more", &other.canonicalize().unwrap()),
                configured[0].clone()
            ]
        );
        for (bad, says) in [
            (
                vec![named("nope")],
                "unknown source `nope` (configured: lib;",
            ),
            (vec![named("lib"), named("lib")], "given twice"),
            (vec![root("lib", &other)], "given twice"),
            (
                vec![root("gone", &dir.path().join("gone"))],
                "not a directory",
            ),
            (
                vec![root("inner", &project.join("src"))],
                "inside the project",
            ),
            (vec![root("up", dir.path())], "inside the project"),
        ] {
            let e = local.resolve(Some(&bad)).unwrap_err();
            assert_eq!(e.code(), "INVALID_ARGUMENT");
            assert!(e.message().contains(says), "{bad:?}: {e:?}");
        }
        // HTTP's default: names only.
        let closed = SourcePolicy::new(&project, configured.clone(), SourceRoots::Nothing);
        assert!(closed.resolve(Some(&[named("lib")])).is_ok());
        let e = closed.resolve(Some(&[root("more", &other)])).unwrap_err();
        assert_eq!(e.code(), "SOURCE_NOT_ALLOWED");
        assert!(e.message().contains("--source-root"), "{e:?}");
        // Under a root: there only, a link out of it refused.
        let under = SourcePolicy::new(
            &project,
            configured,
            SourceRoots::Under(vec![dir.path().join("other").canonicalize().unwrap()]),
        );
        std::fs::create_dir_all(other.join("deep")).unwrap();
        assert!(under.resolve(Some(&[root("more", &other)])).is_ok());
        assert!(under
            .resolve(Some(&[root("deep", &other.join("deep"))]))
            .is_ok());
        #[cfg(unix)]
        std::os::unix::fs::symlink(&lib, other.join("out")).unwrap();
        for outside in [lib.clone(), other.join("out"), other.join("deep/../../lib")] {
            if !outside.exists() {
                continue;
            }
            let e = under.resolve(Some(&[root("x", &outside)])).unwrap_err();
            assert_eq!(e.code(), "SOURCE_NOT_ALLOWED", "{outside:?}: {e:?}");
        }
    }

    fn document(sources: Value) -> Value {
        json!({"success": true, "question": "q", "answer": "extractive",
               "sources": sources, "diagnostics": {"used_llm": false}})
    }

    #[test]
    fn synthesis_changes_nothing_unconfigured_and_falls_back_with_a_code() {
        let mut doc = document(json!([]));
        let before = doc.clone();
        synthesize(&mut doc, AnswerStyle::Default, &None);
        assert_eq!(doc, before, "no endpoint: untouched");

        let mut doc = document(json!([{"file_path": "a.py", "line_range": [1, 2]}]));
        let bad = Some(Err(LlmError::Config(
            "MAPSCOPE_LLM_MODEL is not set".into(),
        )));
        synthesize(&mut doc, AnswerStyle::Default, &bad);
        assert_eq!(doc["answer"], "extractive");
        assert_eq!(doc["diagnostics"]["used_llm"], false);
        assert_eq!(doc["diagnostics"]["llm_error"], "LLM_CONFIG");

        // Nothing to cite: no model is asked (the endpoint here does not exist).
        let config = llm::LlmConfig::from_vars(|k| match k {
            llm::URL_VAR => Some("http://127.0.0.1:9/v1".into()),
            llm::MODEL_VAR => Some("m".into()),
            _ => None,
        });
        let mut doc = document(json!([]));
        synthesize(&mut doc, AnswerStyle::Default, &config);
        assert_eq!(doc["diagnostics"]["llm_error"], "LLM_NO_SOURCES");
        assert_eq!(doc["answer"], "extractive");

        let mut error = json!({"success": false, "error": "x", "code": "REPO_EMPTY"});
        let before = error.clone();
        synthesize(&mut error, AnswerStyle::Default, &config);
        assert_eq!(error, before);
    }
}
