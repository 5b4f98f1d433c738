//! The output contract every front door shares (CLI `--json`, MCP tools, HTTP): the
//! arguments a map or search request takes (typed in `args`, which also yields the MCP input
//! schemas), how they are checked (unknown ones refused, each bad one named in one line), and
//! the JSON documents that answer them. Front doors only add their framing (JSON-RPC
//! content, HTTP statuses, stdout). Runs on whichever thread answers: the CLI's main thread,
//! the live-index service's engine thread.

use serde_json::{Map, Value};

use crate::engine::base::scope::{Scope, ScopeSpec};
use crate::engine::base::stats::IndexStats;
use crate::engine::index::{BuildProgress, Index, MapRequest};
use crate::engine::live::session_index::markdown_within_budget;
use crate::engine::live::Freshness;
use crate::engine::rank::pagerank::RankOutput;
use crate::engine::rank::repo_map::{render, MapFormat, RepoMap};
use std::collections::BTreeMap;

mod args;
pub use args::{
    field_names, input_schema, parse_args, Bounded, Choice, Flag, Langs, Named, NonBlank,
    RepoMapArgs, RepoStatsArgs, SearchArgs, Strings, SymbolAnswerArgs, SymbolAnswerOptions, Text,
};
mod refs;
pub use args::RepoReferencesArgs;
pub use refs::{refs_error, RefsCall, RefsDoc};
mod search;
pub use search::{
    answer, no_words_note, SearchCall, SearchDoc, SearchTimes, SourceHits, ANSWER_SOURCES,
    MAX_ANSWER_SOURCES,
};
mod sources;
pub use sources::{
    requested_sources, RepoRefusal, RepoTarget, SourcePolicy, SourceRefusal, SourceRequest,
    SourceRoots,
};

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
/// The map budget when none is given (every door, and the TUI's built-in config).
pub const MAP_DEFAULT_TOKENS: usize = 1024;
/// Hits (or files) a search returns: `search` `top`, `/search?top=`, `search --top`; and
/// its default.
pub const SEARCH_TOP: (usize, usize) = (1, crate::engine::search::MAX_TOP);
pub const SEARCH_DEFAULT_TOP: usize = 8;
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
    /// `true` for a source file without a grammar, which the map shows by its path alone
    /// (no symbols); left out for every other file, so a map without one is unchanged.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    path_only: bool,
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
                    path_only: f.is_path_only(),
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
    vendored_files: usize,
    vendored_by_licence: &'a [String],
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
            vendored_files: s.vendored_files,
            vendored_by_licence: &s.vendored_by_licence,
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
    use crate::engine::answer::AnswerStyle;
    use crate::engine::search::sources::SourceSpec;
    use crate::engine::search::SearchOptions;
    use serde_json::json;
    use std::path::Path;

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
        let times = SearchTimes::default();
        let document =
            SearchDoc::of(&index, "area", &response, times, AnswerStyle::Concise, &[]).into_value();
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
}
