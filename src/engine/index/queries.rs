//! The queries answered from a built index: ranked and budget-fitted maps, the task a
//! query points at, search, and who uses a definition. Read-only: run from any thread that
//! holds the index (the CLI's main thread, the engine worker).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use crate::engine::answer::SymbolLinks;
use crate::engine::base::heap::release_free_memory;
use crate::engine::base::model::{FileTags, ParsedFile, RefKind, RefList};
use crate::engine::base::paths::is_vendored;
use crate::engine::base::scope::Scope;
use crate::engine::index::parts::GraphSignals;
use crate::engine::index::refs::{Direction, RefTarget, RefsRequest};
use crate::engine::index::{Index, MapRequest, MAX_QUERY_CHARS};
use crate::engine::ingest::walk::licences;
use crate::engine::link::graph::FileGraph;
use crate::engine::rank::budget::budget_for_next_cut;
use crate::engine::rank::pagerank::{
    pagerank, query_identifiers, query_terms, rank, PageRankOptions, Personalization, RankOutput,
};
use crate::engine::rank::path_only::rank_path_only;
use crate::engine::rank::repo_map::{build_map_with_paths, MapOptions, PathOnly, RepoMap};
use crate::engine::rank::task::Task;
use crate::engine::search::generated;
use crate::engine::search::{
    HistoryIndex, SearchContext, SearchHit, SearchOptions, SearchResponse, MAX_TOP,
};

impl Index {
    /// Runs a search query against this index: its files, then, for a look-up they do not
    /// answer, the generated files left out of it (`search::generated`).
    pub fn search(&self, query: &str, opts: &SearchOptions) -> SearchResponse {
        let mut response = self.search_indexed(query, opts);
        let declared = |h: &SearchHit| self.is_declared(h);
        if let Some(name) = generated::wanted(&response, &declared).map(|l| l.name.clone()) {
            let files = self.generated.holding(self, &name);
            if !files.is_empty() {
                let files: Vec<&ParsedFile> = files.iter().map(AsRef::as_ref).collect();
                generated::merge(&mut response, &files, opts, &declared);
            }
        }
        response
    }

    /// The tags of a file a search hit may name: an indexed file's, or a generated file's
    /// that a look-up read (`search`).
    pub fn hit_tags(&self, path: &str) -> Option<Arc<FileTags>> {
        match self.file_index(path).and_then(|i| self.files.get(i)) {
            Some(file) => Some(Arc::clone(&file.tags)),
            None => self.generated.parsed(path).map(|f| Arc::clone(&f.tags)),
        }
    }

    /// Whether a definition hit is declared there without a body (a C prototype).
    fn is_declared(&self, hit: &SearchHit) -> bool {
        let (Some(name), Some(file)) = (
            hit.symbol.as_deref(),
            self.file_index(&hit.file_path)
                .and_then(|i| self.files.get(i)),
        ) else {
            return false;
        };
        file.tags
            .defs
            .iter()
            .any(|d| d.name == name && d.lines == hit.line_range && d.declaration)
    }

    /// The text of a generated file a look-up read (`search`), for a preview of its hits:
    /// an indexed file's text is in the index already.
    pub fn generated_text(&self, path: &str) -> Option<Arc<str>> {
        self.generated.parsed(path)?.source().cloned()
    }

    /// Runs a search query against the indexed files only (what a map's task follows).
    fn search_indexed(&self, query: &str, opts: &SearchOptions) -> SearchResponse {
        let (search, _) = self.search_index();
        let ctx = SearchContext {
            files: &self.files,
            docs: &self.docs,
            prior: self.prior(),
            neighbors: self.neighbors(),
            history: self.history_index(),
        };
        search.search(&ctx, query, opts)
    }

    /// Search's history postings, when the commit history was read and touches indexed files.
    pub fn history_index(&self) -> Option<&HistoryIndex> {
        self.history_index.as_ref().filter(|h| !h.is_empty())
    }

    /// Unpersonalized PageRank per file: the search prior.
    pub fn prior(&self) -> &[f64] {
        &self.signals().prior
    }

    /// Undirected, weighted adjacency over files, for search's graph diffusion.
    pub fn neighbors(&self) -> &[Vec<(usize, f64)>] {
        &self.signals().neighbors
    }

    pub(super) fn signals(&self) -> &GraphSignals {
        self.signals
            .get_or_init(|| graph_signals(&self.graph, self.files.len()))
    }

    /// The files that use identifier `name` defined in `def_path`: the sources of the file
    /// graph's edges into it that this identifier produced; code before tests and other
    /// supporting files, then strongest edge first, then by path. Empty when the file is not
    /// indexed or nothing links to it by that name.
    pub fn symbol_users(&self, def_path: &str, name: &str) -> Vec<String> {
        let Some(target) = self.file_index(def_path) else {
            return Vec::new();
        };
        let mut users: Vec<(bool, f64, &str)> = self
            .graph
            .incoming(target)
            .into_iter()
            .filter(|(src, _)| *src != target)
            .filter_map(|(src, edge)| {
                let w = self
                    .graph
                    .edge_idents(edge)
                    .into_iter()
                    .find(|(ident, _)| *ident == name)?
                    .1;
                let path = self.files.get(src)?.path.as_str();
                Some((self.graph.is_supporting(src), w, path))
            })
            .collect();
        users.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(b.2)));
        users.into_iter().map(|(_, _, p)| p.to_string()).collect()
    }

    /// The distinct names called inside lines `lines` of `def_path` (a definition's body),
    /// in order of first call, leaving out `own` (recursion): what "what does X call"
    /// answers when none of those calls bound to a repository definition.
    pub fn symbol_callees(
        &self,
        def_path: &str,
        lines: crate::engine::base::model::LineRange,
        own: &str,
    ) -> Vec<String> {
        let Some(file) = self.file_index(def_path).and_then(|i| self.files.get(i)) else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for r in file.refs() {
            if r.kind == RefKind::Call
                && lines.contains(r.line)
                && r.name != own
                && !out.iter().any(|n| n == r.name)
            {
                out.push(r.name.to_string());
            }
        }
        out
    }

    /// Who uses a definition hit and what it calls, for the extractive answer.
    pub fn links(&self) -> IndexLinks<'_> {
        IndexLinks(self)
    }

    /// Ranks definitions for `req` (personalized PageRank over the file graph), with the
    /// files search finds for its query and the definitions of its identifiers first (see
    /// `task`).
    pub fn rank(&self, req: &MapRequest) -> RankOutput {
        let resolve_all = |paths: &[String]| -> Vec<usize> {
            paths
                .iter()
                .filter_map(|p| self.resolve_user_path(p))
                .collect()
        };
        let mut task = self.task(req);
        let mut exclude_files = resolve_all(&req.exclude_files);
        let mut paths_allowed: Vec<bool> = self
            .unsupported
            .iter()
            .map(|u| {
                !req.exclude_files
                    .iter()
                    .any(|x| is_same_path(x, &u.rel_path))
            })
            .collect();
        // Out of scope: no definitions listed and no personalization, edges kept.
        match Scope::new(&req.scope) {
            Ok(scope) if !scope.is_empty() => {
                for (allowed, u) in paths_allowed.iter_mut().zip(&self.unsupported) {
                    *allowed &= scope.allows(&u.rel_path, None);
                }
                exclude_files.extend(
                    self.files
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| !scope.allows(&f.path, Some(f.lang)))
                        .map(|(i, _)| i),
                );
                if exclude_files.len() >= self.files.len() {
                    task.notes
                        .push("the scope leaves out every indexed code file".to_string());
                }
            }
            Ok(_) => {}
            Err(e) => task.notes.push(format!("scope ignored: {e}")),
        }
        let personalization = Personalization {
            focus_files: resolve_all(&req.focus),
            idents: req.idents.clone(),
            query: req.query.clone(),
            exclude_files,
            exclude_symbols: req.exclude_symbols.clone(),
            task_files: task
                .search_files
                .iter()
                .map(|t| (t.file, t.score))
                .collect(),
            word_share: req.task.word_share,
            pins: task.pins.clone(),
        };
        let mut out = rank(&self.files, &self.graph, &personalization);
        let paths: Vec<&str> = self
            .unsupported
            .iter()
            .map(|u| u.rel_path.as_str())
            .collect();
        let vendored: Vec<bool> = paths
            .iter()
            .map(|p| is_vendored(p, 0) || licences::in_any(p, &self.vendored_dirs))
            .collect();
        out.paths = rank_path_only(
            &self.files,
            &self.graph,
            &paths,
            &vendored,
            &paths_allowed,
            req.query.as_deref(),
            &out,
        );
        out.task = task;
        out
    }

    /// What the request's query and identifiers point at: search's files for the query and
    /// the definitions to pin, with a note for each part that was ignored.
    pub fn task(&self, req: &MapRequest) -> Task {
        let mut task = Task::default();
        for f in &req.focus {
            if self.resolve_user_path(f).is_none() {
                task.notes.push(format!(
                    "focus file `{f}` is not an indexed code file of the repository; ignored"
                ));
            }
        }
        task.add_idents(&self.files, &self.graph, &req.idents, true, &req.task);
        let Some(query) = req.query.as_deref().filter(|q| !q.trim().is_empty()) else {
            return task;
        };
        let query = match query.char_indices().nth(MAX_QUERY_CHARS) {
            Some((cut, _)) => {
                task.notes.push(format!(
                    "the query was cut to its first {MAX_QUERY_CHARS} characters"
                ));
                &query[..cut]
            }
            None => query,
        };
        let terms = query_terms(query);
        if terms.is_empty() {
            task.notes.push(
                "the query has no words to look for (only common words or punctuation); the \
                 map is the map without it"
                    .into(),
            );
            return task;
        }
        if self.graph.n == self.files.len() && !self.files.is_empty() {
            let opts = SearchOptions {
                top: MAX_TOP,
                files_mode: true,
                // The query's files come from the scope too (a bad scope is noted by `rank`).
                include: req.scope.include.clone(),
                exclude: req.scope.exclude.clone(),
                langs: req.scope.langs.clone(),
                ..SearchOptions::default()
            };
            let response = self.search_indexed(query, &opts);
            let by_path = |p: &str| self.file_index(p);
            task.add_search(&self.files, &response, &terms, &by_path, &req.task);
            if task.search_files.is_empty() {
                task.notes.push(
                    "search found no code file for the query; the map follows its words alone"
                        .into(),
                );
            }
        }
        let idents: Vec<String> = query_identifiers(query)
            .into_iter()
            .filter(|i| !req.idents.contains(i))
            .collect();
        task.add_idents(&self.files, &self.graph, &idents, false, &req.task);
        task
    }

    /// Ranks and fits a map to the request's budget.
    pub fn map(&self, req: &MapRequest) -> (RepoMap, RankOutput) {
        let ranked = self.rank(req);
        let mut map = self.fit(&ranked, req);
        self.find_next_budget(req, &ranked, &mut map);
        (map, ranked)
    }

    /// Sets `map.next_budget` when the request asks for it.
    pub(super) fn find_next_budget(
        &self,
        req: &MapRequest,
        ranked: &RankOutput,
        map: &mut RepoMap,
    ) {
        if req.next_budget {
            map.next_budget = budget_for_next_cut(req.budget, map, |budget| {
                self.fit(ranked, &req.at_budget(budget))
            });
        }
    }

    /// `map` for an index that ranks only once (`mapscope map`): after ranking, frees what
    /// only the ranking needed (the graph; references and imports) and, unless the build was
    /// a small one-shot one, gives it back to the system, so the fit's peak memory (tokenizer
    /// tables, line costs) does not stack on it.
    /// The index can still render the map it returns, but further ranks see an empty graph.
    pub fn map_once(&mut self, req: &MapRequest) -> RepoMap {
        let ranked = self.rank(req);
        self.graph = FileGraph::default();
        self.signals = OnceLock::new();
        for f in &mut self.files {
            if let Some(tags) = Arc::get_mut(&mut f.tags) {
                tags.refs = RefList::new();
                tags.imports = Vec::new();
            }
        }
        if self.trim_heap {
            release_free_memory();
        }
        let mut map = self.fit(&ranked, req);
        self.find_next_budget(req, &ranked, &mut map);
        map
    }

    /// Fits an already ranked list to the request's budget (cheap: per-line token counts are
    /// cached across calls).
    pub fn fit(&self, ranked: &RankOutput, req: &MapRequest) -> RepoMap {
        let opts = MapOptions {
            budget: req.budget,
            tokenizer: req.tokenizer,
            ..MapOptions::default()
        };
        let paths: Vec<&str> = self
            .unsupported
            .iter()
            .map(|u| u.rel_path.as_str())
            .collect();
        let path_only = PathOnly {
            paths: &paths,
            ranked: &ranked.paths,
        };
        let mut map = build_map_with_paths(
            &self.files,
            &ranked.defs,
            ranked.pinned,
            &path_only,
            &ranked.file_rank,
            &opts,
            &self.line_costs,
        );
        map.notes.clone_from(&ranked.task.notes);
        map.notes.extend(self.unsupported_note());
        map
    }

    /// One line naming the languages the map shows by path alone, when their files are at least
    /// `UNSUPPORTED_NOTE_SHARE` of the code (and `UNSUPPORTED_NOTE_MIN_FILES` files).
    pub fn unsupported_note(&self) -> Option<String> {
        let unsupported = self.unsupported.len();
        let code = unsupported + self.files.len();
        if unsupported < UNSUPPORTED_NOTE_MIN_FILES
            || (unsupported as f64) < UNSUPPORTED_NOTE_SHARE * code as f64
        {
            return None;
        }
        let mut by_language: BTreeMap<&str, usize> = BTreeMap::new();
        for u in &self.unsupported {
            *by_language.entry(u.language).or_default() += 1;
        }
        let mut counts: Vec<(&str, usize)> = by_language.into_iter().collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let skipped: Vec<String> = counts.iter().map(|(l, n)| format!("{l} {n}")).collect();
        Some(format!(
            "{unsupported} of {code} code files are in languages without a grammar: the map \
             lists them by path alone, after the code unless code names them ({}); \
             supported: {}",
            skipped.join(", "),
            crate::engine::ingest::lang::supported_language_names().join(", ")
        ))
    }
}

/// Whether a path the user typed (`./db/schema.sql`) names the repository path `path`.
fn is_same_path(typed: &str, path: &str) -> bool {
    typed.trim_start_matches("./").trim_end_matches('/') == path
}

/// The map notes the languages without a grammar when their files are at least this share of
/// the repository's code files…
pub(super) const UNSUPPORTED_NOTE_SHARE: f64 = 0.1;

/// …and at least this many files.
pub(super) const UNSUPPORTED_NOTE_MIN_FILES: usize = 5;

/// The unpersonalized PageRank (search prior) and an undirected adjacency list with the
/// weights of both directions summed (search diffusion runs both ways).
pub(super) fn graph_signals(graph: &FileGraph, n: usize) -> GraphSignals {
    let mut edges = Vec::with_capacity(graph.edge_count());
    let mut undirected: BTreeMap<(usize, usize), f64> = BTreeMap::new();
    for (a, b, e) in graph.all_edges() {
        let w = e.weight;
        edges.push((a, b, w));
        if a != b {
            *undirected.entry((a.min(b), a.max(b))).or_default() += w;
        }
    }
    let prior = pagerank(n, &edges, None, &PageRankOptions::default());
    let mut neighbors = vec![Vec::new(); n];
    for ((a, b), w) in undirected {
        neighbors[a].push((b, w));
        neighbors[b].push((a, w));
    }
    GraphSignals { prior, neighbors }
}

/// An index as the answer's [`SymbolLinks`]: users from the file graph; callees from the
/// refs engine (the repository definitions the body's uses bound to, by qualified name), or,
/// when none bound, the names the body calls.
pub struct IndexLinks<'a>(&'a Index);

/// Callee uses the answer asks the refs engine for (it names a few; the count is whole).
const ANSWER_CALLEE_USES: usize = 50;
/// Caller uses the answer asks the refs engine for.
const ANSWER_CALLER_USES: usize = crate::engine::index::refs::MAX_TOP;

impl SymbolLinks for IndexLinks<'_> {
    fn users(&self, def: &SearchHit) -> Vec<String> {
        self.0
            .symbol_users(&def.file_path, def.symbol.as_deref().unwrap_or(""))
    }

    fn callers(&self, def: &SearchHit) -> Vec<String> {
        let req = RefsRequest {
            target: RefTarget::At {
                path: def.file_path.clone(),
                line: def.line_range.start,
            },
            direction: Direction::Callers,
            top: ANSWER_CALLER_USES,
        };
        let Ok(answer) = self.0.references(&req) else {
            return Vec::new();
        };
        let mut seen: Vec<String> = Vec::new();
        let mut out: Vec<String> = Vec::new();
        for group in answer.groups.iter().take(1) {
            for site in &group.callers {
                let place = format!("{}:{}", site.path, site.line);
                let caller = site
                    .enclosing
                    .as_ref()
                    .map(|e| e.qualified_name.clone().unwrap_or_else(|| e.name.clone()));
                // One entry per calling definition (its first use); top-level uses each.
                let key = match &caller {
                    Some(c) => format!("{}\0{c}", site.path),
                    None => place.clone(),
                };
                if seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                let guess = if site.ambiguous { ", ambiguous" } else { "" };
                out.push(match caller {
                    Some(c) => format!("`{c}` (`{place}`{guess})"),
                    None => format!(
                        "`{place}`{}",
                        if guess.is_empty() { "" } else { " (ambiguous)" }
                    ),
                });
            }
        }
        out
    }

    fn callees(&self, def: &SearchHit) -> Vec<String> {
        let bound = self.bound_callees(def);
        if !bound.is_empty() {
            return bound;
        }
        self.0.symbol_callees(
            &def.file_path,
            def.line_range,
            def.symbol.as_deref().unwrap_or(""),
        )
    }
}

impl IndexLinks<'_> {
    /// The definitions `def`'s calls bound to, in source order, each once, by qualified
    /// name (`Square.area`) where the call bound to one: "what does X call" in the
    /// repository's terms, not the names as written (`s.area`).
    fn bound_callees(&self, def: &SearchHit) -> Vec<String> {
        let req = RefsRequest {
            target: RefTarget::At {
                path: def.file_path.clone(),
                line: def.line_range.start,
            },
            direction: Direction::Callees,
            top: ANSWER_CALLEE_USES,
        };
        let Ok(answer) = self.0.references(&req) else {
            return Vec::new();
        };
        let own = def.symbol.as_deref().unwrap_or("");
        let mut out: Vec<String> = Vec::new();
        for group in answer.groups.iter().take(1) {
            for site in group.callees.iter().filter(|u| u.kind == RefKind::Call) {
                // One definition: its qualified name. Several (a guess shared among
                // them): the name as written, since naming one would pick for the reader.
                let name = match site.definitions.as_slice() {
                    [] => continue,
                    [d] => d.qualified_name.clone().unwrap_or_else(|| d.name.clone()),
                    _ => site.name.clone(),
                };
                if site.name != own && !out.contains(&name) {
                    out.push(name);
                }
            }
        }
        out
    }
}
