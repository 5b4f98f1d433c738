//! The search document: a `search` or `repo_symbol_answer` call's arguments (`SearchCall`),
//! the JSON that answers it, the seed's evidence names, and the model's answer written into
//! it (`synthesize`). Runs where `contract` does; `synthesize` off the engine thread.

use serde_json::{Map, Value};

use super::args::{parse_args, SearchArgs, Strings, SymbolAnswerArgs};
use super::sources::{
    requested_sources, RepoRefusal, RepoTarget, SourcePolicy, SourceRefusal, SourceRequest,
};
use super::ArgError;
use crate::engine::answer::llm::{self, AnswerRequest, CitedSource, LlmError, LlmSetting};
use crate::engine::answer::{extractive_answer, AnswerStyle};
use crate::engine::base::text::sanitize;
use crate::engine::index::Index;
use crate::engine::live::{Freshness, SourceIndex};
use crate::engine::search::sources::{match_reason, relevance, SourceSpec, PROJECT};
use crate::engine::search::{Evidence, SearchHit, SearchOptions, SearchResponse};
use std::collections::BTreeMap;

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
    /// An answer call: its sources' `evidence_type` in the seed's values
    /// (`SearchDoc::seed_evidence`).
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

    /// The search document (with `changes_pending`): the project's hits, then each extra
    /// source's.
    pub fn run(&self, index: &Index, call: &Freshness, sources: &[&SourceIndex]) -> SearchDoc {
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
        let times = SearchTimes {
            index_ms: call.index_ms,
            search_index_ms: search_build_ms,
        };
        let mut document = SearchDoc::of(index, &self.query, &response, times, self.style, &extra);
        document.changes_pending = Some(call.changes_pending);
        if self.seed_evidence {
            document.seed_evidence();
        }
        document
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
fn seed_evidence_name(name: &str) -> &str {
    match name {
        "import" => "reference",
        "text" => "grep",
        other => other,
    }
}

/// The extractive answer for a search's hits (`engine::answer`), with who uses each
/// definition from the index's file graph.
pub fn answer(index: &Index, r: &SearchResponse, style: AnswerStyle) -> String {
    extractive_answer(r, &r.hits, style, &index.links())
}

/// The search document (README, "search"; `search --json`, MCP `search` and
/// `repo_symbol_answer`, HTTP `/search` and `/answer`): this module alone names its fields.
/// The doors send it as a JSON value (`into_value`), whose keys are in sorted order.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SearchDoc {
    success: bool,
    repo_path: String,
    question: String,
    answer: String,
    confidence: &'static str,
    sources: Vec<SourceDoc>,
    files: Vec<FileDoc>,
    diagnostics: DiagnosticsDoc,
    /// How the question was read when it names one symbol: its container and file as typed,
    /// and what a phrase asked of it ("who calls X": `callers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    lookup: Option<LookupDoc>,
    /// A server's answer: whether edits are waiting to be indexed (`Freshness`).
    #[serde(skip_serializing_if = "Option::is_none")]
    changes_pending: Option<bool>,
}

/// One hit, the project's or an extra source's.
#[derive(Debug, Clone, Default, serde::Serialize)]
struct SourceDoc {
    file_path: String,
    line_range: [u32; 2],
    excerpt: String,
    /// `definition`, `reference`, `call`, `import`, `text` (`search::Evidence`); an answer
    /// call's are in the seed's values (`seed_evidence_name`).
    evidence_type: &'static str,
    score: f64,
    signals: SignalsDoc,
    /// `project` or the extra source's name.
    source: String,
    relevance: u8,
    match_reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    symbol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    /// A definition's container and its name qualified by it (`FileTags::container`).
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qualified_name: Option<String>,
    /// A definition declared without a body (a C/C++ prototype, an interface, trait or
    /// abstract member, an overload signature): its implementation, if any, is elsewhere.
    /// Left out when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    declaration: bool,
}

/// A hit's score breakdown (`search::Signals`).
#[derive(Debug, Clone, Default, serde::Serialize)]
struct SignalsDoc {
    bm25: f64,
    name: f64,
    path: f64,
    graph: f64,
    prior: f64,
    penalty: f64,
    history: f64,
}

/// A file of `--files` mode (or of the files a search ranked).
#[derive(Debug, Clone, Default, serde::Serialize)]
struct FileDoc {
    file_path: String,
    score: f64,
    source: String,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
struct DiagnosticsDoc {
    /// Hits per evidence type (every type, zero included).
    retrieval_counts: BTreeMap<&'static str, usize>,
    latency_ms: f64,
    index_ms: f64,
    search_index_ms: f64,
    parsed_files: usize,
    ast_parsed_files: usize,
    used_llm: bool,
    used_reranker: bool,
    low_score: bool,
    history: HistoryDoc,
    matched: MatchedDoc,
    /// Why nothing was searched (`no_words_note`).
    note: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra_sources: Option<Vec<ExtraSourceDoc>>,
    /// The model's answer (`synthesize`): which model, how long it took.
    #[serde(skip_serializing_if = "Option::is_none")]
    llm_model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    llm_ms: Option<f64>,
    /// Why the answer stayed extractive: a stable code and the message.
    #[serde(skip_serializing_if = "Option::is_none")]
    llm_error: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    llm_error_message: Option<String>,
}

/// What search knew of the commit history (`index::HistoryStatus`).
#[derive(Debug, Clone, Default, serde::Serialize)]
struct HistoryDoc {
    commits: usize,
    files: usize,
    read_ms: f64,
    cached: bool,
    error: Option<String>,
}

/// How much of the index a query touched (`search::RetrievalCounts`).
#[derive(Debug, Clone, Default, serde::Serialize)]
struct MatchedDoc {
    query_terms: usize,
    expanded_terms: usize,
    chunks_matched: usize,
    files_matched: usize,
    name_matches: usize,
    fuzzy_matches: usize,
    path_matches: usize,
    history_matches: usize,
    graph_only_files: usize,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
struct LookupDoc {
    symbol: String,
    name: String,
    container: Vec<String>,
    file: Option<String>,
    intent: Option<&'static str>,
}

#[derive(Debug, Clone, Default, serde::Serialize)]
struct ExtraSourceDoc {
    name: String,
    root: String,
    parsed_files: usize,
    low_score: bool,
}

/// The timings a search document reports beside the search's own.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchTimes {
    /// Building or loading the index.
    pub index_ms: f64,
    /// Building or loading the search index.
    pub search_index_ms: f64,
}

impl SearchDoc {
    /// The document for `r`, the project's answer to `query` in `index`, then each extra
    /// source's hits.
    pub fn of(
        index: &Index,
        query: &str,
        r: &SearchResponse,
        times: SearchTimes,
        style: AnswerStyle,
        extra: &[SourceHits],
    ) -> SearchDoc {
        let mut counts = BTreeMap::new();
        for e in Evidence::ALL {
            counts.insert(e.name(), 0usize);
        }
        let mut sources = Vec::new();
        let mut files = Vec::new();
        let project = hit_definitions(index, r);
        let all = std::iter::once((PROJECT, r, &project)).chain(
            extra
                .iter()
                .map(|x| (x.name.as_str(), &x.response, &x.definitions)),
        );
        for (source, response, containers) in all {
            let best = response.hits.first().map_or(0.0, |h| h.score);
            for (h, facts) in response.hits.iter().zip(containers) {
                let evidence = h.evidence.name();
                *counts.entry(evidence).or_default() += 1;
                let DefinitionFacts {
                    container,
                    qualified_name,
                    declaration,
                } = facts.clone();
                sources.push(SourceDoc {
                    file_path: h.file_path.clone(),
                    line_range: [h.line_range.start, h.line_range.end],
                    excerpt: h.excerpt.clone(),
                    evidence_type: evidence,
                    score: h.score,
                    signals: SignalsDoc::of(&h.signals),
                    source: source.to_string(),
                    relevance: relevance(h.score, best, response.low_score),
                    match_reason: match_reason(h),
                    symbol: h.symbol.clone(),
                    kind: h.kind.clone(),
                    container,
                    qualified_name,
                    declaration,
                });
            }
            files.extend(response.files.iter().map(|(path, score)| FileDoc {
                file_path: path.clone(),
                score: *score,
                source: source.to_string(),
            }));
        }
        let h = &index.history_status;
        let c = &r.retrieval_counts;
        SearchDoc {
            success: true,
            repo_path: index.root.display().to_string(),
            question: query.to_string(),
            answer: answer(index, r, style),
            confidence: r.confidence.name(),
            sources,
            files,
            diagnostics: DiagnosticsDoc {
                retrieval_counts: counts,
                latency_ms: r.latency_ms,
                index_ms: times.index_ms,
                search_index_ms: times.search_index_ms,
                parsed_files: index.files.len(),
                ast_parsed_files: index.files.len(),
                used_llm: false,
                used_reranker: false,
                low_score: r.low_score,
                history: HistoryDoc {
                    commits: h.commits,
                    files: h.files,
                    read_ms: h.read_ms,
                    cached: h.cached,
                    error: h.error.clone(),
                },
                matched: MatchedDoc {
                    query_terms: c.query_terms,
                    expanded_terms: c.expanded_terms,
                    chunks_matched: c.chunks_matched,
                    files_matched: c.files_matched,
                    name_matches: c.name_matches,
                    fuzzy_matches: c.fuzzy_matches,
                    path_matches: c.path_matches,
                    history_matches: c.history_matches,
                    graph_only_files: c.graph_only_files,
                },
                note: no_words_note(r),
                extra_sources: (!extra.is_empty()).then(|| {
                    extra
                        .iter()
                        .map(|x| ExtraSourceDoc {
                            name: x.name.clone(),
                            root: x.root.clone(),
                            parsed_files: x.parsed_files,
                            low_score: x.response.low_score,
                        })
                        .collect()
                }),
                llm_model: None,
                llm_ms: None,
                llm_error: None,
                llm_error_message: None,
            },
            lookup: r.read.lookup.as_ref().map(|l| LookupDoc {
                symbol: l.qualified(&l.name),
                name: l.name.clone(),
                container: l.container.clone(),
                file: l.file.clone(),
                intent: r.read.intent.map(crate::engine::search::Intent::name),
            }),
            changes_pending: None,
        }
    }

    /// The document as a JSON value, for the doors to send.
    pub fn into_value(self) -> Value {
        // Plain structs of strings, numbers and maps with string keys: serialization cannot
        // fail (NaN becomes null).
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The answer: extractive, or the model's after `synthesize`.
    pub fn answer(&self) -> &str {
        &self.answer
    }

    /// Why the model's answer was not used (`synthesize`): its stable code and message.
    pub fn llm_error(&self) -> Option<(&'static str, &str)> {
        let d = &self.diagnostics;
        Some((
            d.llm_error?,
            d.llm_error_message.as_deref().unwrap_or_default(),
        ))
    }

    /// The `evidence_type`s and evidence counts in the seed's values
    /// (`repo_symbol_answer`'s contract).
    fn seed_evidence(&mut self) {
        for s in &mut self.sources {
            s.evidence_type = seed_evidence_name(s.evidence_type);
        }
        let mut seeded = BTreeMap::new();
        for (k, n) in std::mem::take(&mut self.diagnostics.retrieval_counts) {
            *seeded.entry(seed_evidence_name(k)).or_default() += n;
        }
        self.diagnostics.retrieval_counts = seeded;
    }

    /// With an LLM endpoint configured (`engine::answer::llm`), replaces the extractive
    /// `answer` with the one the model writes from the top `sources` (`diagnostics.used_llm:
    /// true`, `llm_model`, `llm_ms`); on any failure the extractive answer stays and
    /// `diagnostics.llm_error` (a stable code) and `llm_error_message` say why. Without
    /// configuration the document is untouched. Call it off the live-index service's engine
    /// thread: it waits for the model.
    pub fn synthesize(&mut self, style: AnswerStyle, setting: &LlmSetting) {
        let Some(setting) = setting else {
            return;
        };
        let result = match setting {
            Err(e) => Err(e.clone()),
            Ok(config) => {
                let request = self.answer_request(style);
                if request.sources.is_empty() {
                    Err(LlmError::NoSources)
                } else {
                    llm::synthesize(config, &request)
                }
            }
        };
        let diagnostics = &mut self.diagnostics;
        match result {
            Ok(s) => {
                diagnostics.used_llm = true;
                diagnostics.llm_model = Some(s.model);
                diagnostics.llm_ms = Some(s.latency_ms);
                self.answer = s.answer;
            }
            Err(e) => {
                diagnostics.llm_error = Some(e.code());
                diagnostics.llm_error_message = Some(sanitize(&e.to_string()).into_owned());
            }
        }
    }

    /// What the model is asked: the question, the extractive answer and the first
    /// `LLM_SOURCES` sources.
    fn answer_request(&self, style: AnswerStyle) -> AnswerRequest<'_> {
        let sources = self
            .sources
            .iter()
            .take(LLM_SOURCES)
            .map(|s| CitedSource {
                path: &s.file_path,
                lines: (u64::from(s.line_range[0]), u64::from(s.line_range[1])),
                evidence: s.evidence_type,
                symbol: s.symbol.as_deref(),
                source: &s.source,
                excerpt: &s.excerpt,
            })
            .collect();
        AnswerRequest {
            question: &self.question,
            style,
            extractive: &self.answer,
            sources,
        }
    }
}

impl SignalsDoc {
    fn of(s: &crate::engine::search::Signals) -> SignalsDoc {
        SignalsDoc {
            bm25: s.bm25,
            name: s.name,
            path: s.path,
            graph: s.graph,
            prior: s.prior,
            penalty: s.penalty,
            history: s.history,
        }
    }
}

/// What a hit that is a definition says of it beyond its name (all empty for other hits).
#[derive(Debug, Clone, Default)]
struct DefinitionFacts {
    /// Its container and its name qualified by it (`FileTags::container`,
    /// `FileTags::qualified_name`), when it has one.
    container: Option<String>,
    qualified_name: Option<String>,
    /// `Definition::declaration`.
    declaration: bool,
}

/// Each hit's `DefinitionFacts`, from the index it came from.
fn hit_definitions(index: &Index, r: &SearchResponse) -> Vec<DefinitionFacts> {
    let of = |h: &SearchHit| {
        let name = h.symbol.as_deref().filter(|_| h.kind.is_some())?;
        let tags = index.hit_tags(&h.file_path)?;
        let def = tags
            .defs
            .iter()
            .find(|d| d.name == name && d.lines == h.line_range)?;
        let (container, qualified_name) = tags.container(def).zip(tags.qualified_name(def)).unzip();
        Some(DefinitionFacts {
            container,
            qualified_name,
            declaration: def.declaration,
        })
    };
    r.hits.iter().map(|h| of(h).unwrap_or_default()).collect()
}

/// One extra source's answer to a search (`engine::search::sources`), listed after the project's.
pub struct SourceHits {
    pub name: String,
    pub root: String,
    pub parsed_files: usize,
    pub response: SearchResponse,
    /// `hit_definitions` of the response.
    definitions: Vec<DefinitionFacts>,
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
            definitions: hit_definitions(index, &response),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn document(sources: Vec<SourceDoc>) -> SearchDoc {
        SearchDoc {
            success: true,
            question: "q".into(),
            answer: "extractive".into(),
            sources,
            ..SearchDoc::default()
        }
    }

    fn source(evidence_type: &'static str) -> SourceDoc {
        SourceDoc {
            file_path: "a.py".into(),
            line_range: [1, 2],
            evidence_type,
            ..SourceDoc::default()
        }
    }

    #[test]
    fn synthesis_changes_nothing_unconfigured_and_falls_back_with_a_code() {
        let mut doc = document(vec![]);
        let before = doc.clone().into_value();
        doc.synthesize(AnswerStyle::Default, &None);
        assert_eq!(doc.into_value(), before, "no endpoint: untouched");

        let mut doc = document(vec![source("definition")]);
        let bad = Some(Err(LlmError::Config(
            "MAPSCOPE_LLM_MODEL is not set".into(),
        )));
        doc.synthesize(AnswerStyle::Default, &bad);
        assert_eq!(doc.answer(), "extractive");
        assert_eq!(doc.llm_error().map(|e| e.0), Some("LLM_CONFIG"));
        let v = doc.into_value();
        assert_eq!(v["diagnostics"]["used_llm"], false);
        assert_eq!(v["diagnostics"]["llm_error"], "LLM_CONFIG");
        assert!(v["diagnostics"].get("llm_model").is_none());

        // Nothing to cite: no model is asked (the endpoint here does not exist).
        let config = llm::LlmConfig::from_vars(|k| match k {
            llm::URL_VAR => Some("http://127.0.0.1:9/v1".into()),
            llm::MODEL_VAR => Some("m".into()),
            _ => None,
        });
        let mut doc = document(vec![]);
        doc.synthesize(AnswerStyle::Default, &config);
        assert_eq!(doc.llm_error().map(|e| e.0), Some("LLM_NO_SOURCES"));
        assert_eq!(doc.answer(), "extractive");
    }

    #[test]
    fn the_seed_names_imports_references_and_text_grep() {
        let mut doc = document(vec![source("import"), source("text"), source("call")]);
        for (e, n) in [
            ("definition", 0),
            ("reference", 2),
            ("call", 1),
            ("import", 1),
            ("text", 1),
        ] {
            doc.diagnostics.retrieval_counts.insert(e, n);
        }
        doc.seed_evidence();
        let types: Vec<&str> = doc.sources.iter().map(|s| s.evidence_type).collect();
        assert_eq!(types, ["reference", "grep", "call"]);
        let counts: Vec<(&str, usize)> = doc.diagnostics.retrieval_counts.into_iter().collect();
        assert_eq!(
            counts,
            [
                ("call", 1),
                ("definition", 0),
                ("grep", 1),
                ("reference", 3)
            ]
        );
    }
}
