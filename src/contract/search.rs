//! The search document: a `search` or `repo_symbol_answer` call's arguments (`SearchCall`),
//! the JSON that answers it, the seed's evidence names, and the model's answer written into
//! it (`synthesize`). Runs where `contract` does; `synthesize` off the engine thread.

use serde_json::{Map, Value};

use super::args::{parse_args, SearchArgs, Strings, SymbolAnswerArgs};
use super::sources::{
    requested_sources, RepoRefusal, RepoTarget, SourcePolicy, SourceRefusal, SourceRequest,
};
use super::{mark, ArgError};
use crate::engine::answer::llm::{self, AnswerRequest, Evidence, LlmError, LlmSetting};
use crate::engine::answer::{extractive_answer, AnswerStyle};
use crate::engine::base::text::sanitize;
use crate::engine::index::Index;
use crate::engine::live::{Freshness, SourceIndex};
use crate::engine::search::sources::{match_reason, relevance, SourceSpec, PROJECT};
use crate::engine::search::{SearchHit, SearchOptions, SearchResponse};

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
