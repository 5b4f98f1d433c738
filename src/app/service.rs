//! `IndexService`: the engine behind the TUI. It owns the `Index` and answers the app's
//! requests — build (with progress), map (rank + fit, re-using the ranking when only the
//! budget or tokenizer changed), search, and "why" — converting engine results into the
//! app's snapshot types. Runs on the engine worker thread (or inline in tests).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use super::engine::{
    EngineEvent, EngineRequest, EngineService, Generation, Hit, HitsSnapshot, IndexSnapshot,
    MapFile, MapParams, MapSnapshot, Published,
};
use crate::engine::error::EngineError;
use crate::engine::explain::explain_file;
use crate::engine::history::HistorySource;
use crate::engine::index::{BuildProgress, Index, IndexOptions, MapRequest};
use crate::engine::rank::RankOutput;
use crate::engine::repo_map::{render, MapFormat, RepoMap};
use crate::engine::tokenizer::TokenizerKind;
use crate::ui::{CutRow, CutView, Evidence, HitRow, WhyEdge, WhyView};

/// Hits kept per query (the pane scrolls).
pub const TOP_HITS: usize = 50;
/// Definitions listed in the cut view.
pub const CUT_ROWS: usize = 200;

/// The part of a request that decides the ranking (budget and tokenizer only re-fit).
#[derive(Debug, Clone, PartialEq, Eq)]
struct RankKey {
    focus: Vec<String>,
    query: String,
    exclude_files: Vec<String>,
    exclude_symbols: Vec<String>,
    scope: crate::engine::scope::ScopeSpec,
}

impl RankKey {
    fn of(p: &MapParams) -> RankKey {
        RankKey {
            focus: p.focus.clone(),
            query: p.query.clone(),
            exclude_files: p.exclude_files.clone(),
            exclude_symbols: p.exclude_symbols.clone(),
            scope: p.scope.clone(),
        }
    }
}

pub struct IndexService {
    root: PathBuf,
    opts: IndexOptions,
    index: Option<Arc<Index>>,
    search: search::Backend,
    /// The config's `[scope]`: what search ranks and shows, as for the map.
    scope: crate::engine::scope::ScopeSpec,
    last_rank: Option<(RankKey, Arc<RankOutput>)>,
    /// The cache save after a build, on its own thread so the next request (a query typed
    /// right after a refresh) does not wait for the write. At most one runs at a time.
    saving: Option<std::thread::JoinHandle<Result<bool, EngineError>>>,
}

impl IndexService {
    pub fn new(root: PathBuf) -> IndexService {
        IndexService {
            root,
            opts: IndexOptions::default(),
            index: None,
            search: search::Backend,
            scope: crate::engine::scope::ScopeSpec::default(),
            last_rank: None,
            saving: None,
        }
    }

    /// Uses the persistent tag cache (the CLI's `--no-cache` turns it off).
    pub fn with_cache(mut self, use_cache: bool) -> IndexService {
        self.opts.use_cache = use_cache;
        self
    }

    /// Reads the repository's commit history for search's history signal (`git log`, on a
    /// thread beside the parse). Off by default so tests on fixtures inside this project's
    /// own repository do not depend on its commits.
    pub fn with_history(mut self, read: bool) -> IndexService {
        self.opts.history = if read {
            HistorySource::Repo
        } else {
            HistorySource::Off
        };
        self
    }

    /// Narrows search to the config's `[scope]` (the map request carries it on its own).
    pub fn with_scope(mut self, scope: crate::engine::scope::ScopeSpec) -> IndexService {
        self.scope = scope;
        self
    }

    /// The index, once built (tests).
    pub fn index(&self) -> Option<&Arc<Index>> {
        self.index.as_ref()
    }

    /// A full build, or with `changed` (and an index to start from) an incremental refresh.
    fn build(
        &mut self,
        generation: Generation,
        changed: Option<BTreeSet<String>>,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let t0 = Instant::now();
        if super::run::test_panic() == Some(super::run::TestPanic::Worker) {
            panic!("test panic in the engine worker");
        }
        // The build runs on a scoped thread and reports through a channel, so this worker
        // thread can forward progress (throttled) through `emit`, which is not `Sync`.
        let (tx, rx) = crossbeam_channel::unbounded::<BuildProgress>();
        let (root, opts) = (&self.root, &self.opts);
        let previous = self.index.clone().filter(|_| changed.is_some());
        let refreshing = previous.is_some();
        let built = std::thread::scope(|scope| {
            let handle = scope.spawn(move || {
                let report = move |p: BuildProgress| {
                    let _ = tx.send(p);
                };
                match (&previous, &changed) {
                    (Some(prev), Some(changed)) => prev.refresh(opts, changed, &report),
                    _ => Index::build_with_progress(root, opts, &report),
                }
            });
            let mut last_sent: Option<Instant> = None;
            for p in rx.iter() {
                let due = last_sent.is_none_or(|t| t.elapsed().as_millis() >= 50);
                if due || p.done == p.total {
                    emit(EngineEvent::Progress {
                        phase: p.phase.name(),
                        done: p.done,
                        total: p.total,
                    });
                    last_sent = Some(Instant::now());
                }
            }
            handle.join()
        });
        let built = match built {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        let index = match built {
            Ok(i) => Arc::new(i),
            Err(e) => {
                emit(EngineEvent::IndexFailed {
                    generation,
                    code: e.code(),
                    message: e.to_string(),
                });
                return;
            }
        };
        if let Some(warning) = &index.cache_warning {
            emit(EngineEvent::Notice(warning.clone()));
        }
        // Every refresh walks again and finds the same files: told at the first build.
        if !refreshing {
            for warning in &index.walk_warnings {
                emit(EngineEvent::Notice(crate::ui::text::sanitize_line(warning)));
            }
        }
        // The first build prepares search before saying "ready"; a refresh publishes the
        // new index at once and lets the next query build the search index.
        if !refreshing {
            emit(EngineEvent::Progress {
                phase: "search index",
                done: index.files.len(),
                total: index.files.len(),
            });
            self.search = search::Backend::build(&index);
        }
        self.last_rank = None;
        let mut texts = BTreeMap::new();
        let mut symbols = 0;
        for f in &index.files {
            if let Some(source) = f.source() {
                texts.insert(f.path.clone(), source.clone());
            }
            symbols += f.tags.defs.len();
        }
        for d in &index.docs {
            texts.insert(d.path.clone(), d.text.clone());
        }
        published.store_index(IndexSnapshot {
            generation,
            root: index.root.display().to_string(),
            files: index.files.len(),
            docs: index.docs.len(),
            symbols,
            built_at: Instant::now(),
            build_ms: t0.elapsed().as_secs_f64() * 1000.0,
            texts,
        });
        self.index = Some(index.clone());
        emit(EngineEvent::IndexReady { generation });
        // After the UI has what it needs: a failed save only costs the next start its speed.
        self.start_save(index, emit);
    }

    /// Saves `index`'s tags in the background, after the previous save has finished (two
    /// writers would race for the same cache file).
    fn start_save(&mut self, index: Arc<Index>, emit: &mut dyn FnMut(EngineEvent)) {
        self.finish_save(true, emit);
        let saver = index.clone();
        match std::thread::Builder::new()
            .name("mapscope-cache-save".into())
            .spawn(move || saver.save_cache())
        {
            Ok(handle) => self.saving = Some(handle),
            // No thread to be had: save here rather than not at all.
            Err(_) => report_save(Ok(index.save_cache()), emit),
        }
    }

    /// Reports the background save's outcome once it is done; with `wait`, waits for it.
    fn finish_save(&mut self, wait: bool, emit: &mut dyn FnMut(EngineEvent)) {
        if self
            .saving
            .as_ref()
            .is_some_and(|h| wait || h.is_finished())
        {
            if let Some(handle) = self.saving.take() {
                report_save(handle.join(), emit);
            }
        }
    }

    fn ranked(&mut self, index: &Index, params: &MapParams) -> Arc<RankOutput> {
        let key = RankKey::of(params);
        if let Some((k, r)) = &self.last_rank {
            if *k == key {
                return r.clone();
            }
        }
        let r = Arc::new(index.rank(&map_request(params)));
        self.last_rank = Some((key, r.clone()));
        r
    }

    fn map(
        &mut self,
        generation: Generation,
        params: MapParams,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let Some(index) = self.index.clone() else {
            return;
        };
        let t = Instant::now();
        let ranked = self.ranked(&index, &params);
        let map = index.fit(&ranked, &map_request(&params));
        let snapshot = map_snapshot(&index, &map, generation, params, t);
        if published.store_map(snapshot) {
            emit(EngineEvent::MapReady { generation });
        }
    }

    fn search(
        &mut self,
        generation: Generation,
        query: String,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let Some(index) = self.index.clone() else {
            return;
        };
        let t = Instant::now();
        let (hits, confidence, low_score, answer) = self.search.search(&index, &query, &self.scope);
        let snapshot = HitsSnapshot {
            generation,
            query,
            hits,
            confidence,
            low_score,
            answer,
            latency_ms: t.elapsed().as_secs_f64() * 1000.0,
        };
        if published.store_hits(snapshot) {
            emit(EngineEvent::HitsReady { generation });
        }
    }

    /// The markdown copy: the map fitted so that its markdown is within the budget.
    fn markdown(
        &mut self,
        generation: Generation,
        params: &MapParams,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let Some(index) = self.index.clone() else {
            return;
        };
        let ranked = self.ranked(&index, params);
        let req = map_request(params);
        let map = index.fit(&ranked, &req);
        let (text, tokens) = markdown_within_budget(&index, &ranked, &req, &map);
        emit(EngineEvent::MarkdownReady {
            generation,
            text,
            tokens,
        });
    }

    fn why(
        &mut self,
        generation: Generation,
        path: &str,
        params: &MapParams,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        let Some(index) = self.index.clone() else {
            return;
        };
        let ranked = self.ranked(&index, params);
        let view = why_view(&index, &ranked, params, path);
        emit(EngineEvent::WhyReady {
            generation,
            view: Box::new(view),
        });
    }
}

impl EngineService for IndexService {
    fn handle(
        &mut self,
        req: EngineRequest,
        published: &Published,
        emit: &mut dyn FnMut(EngineEvent),
    ) {
        self.finish_save(false, emit);
        match req {
            EngineRequest::Build { generation } => self.build(generation, None, published, emit),
            EngineRequest::Refresh {
                generation,
                changed,
            } => self.build(generation, Some(changed), published, emit),
            EngineRequest::Map { generation, params } => {
                self.map(generation, params, published, emit)
            }
            EngineRequest::Search { generation, query } => {
                self.search(generation, query, published, emit)
            }
            EngineRequest::Why {
                generation,
                path,
                params,
            } => self.why(generation, &path, &params, emit),
            EngineRequest::Markdown { generation, params } => {
                self.markdown(generation, &params, emit)
            }
        }
    }
}

impl Drop for IndexService {
    /// The worker is ending (the app quits): the cache still gets written.
    fn drop(&mut self) {
        if let Some(handle) = self.saving.take() {
            let _ = handle.join();
        }
    }
}

/// A failed save only costs the next start its speed: say so, and go on.
fn report_save(
    outcome: std::thread::Result<Result<bool, EngineError>>,
    emit: &mut dyn FnMut(EngineEvent),
) {
    match outcome {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => emit(EngineEvent::Notice(format!(
            "could not save the cache: {e}"
        ))),
        Err(_) => emit(EngineEvent::Notice(
            "could not save the cache: the save failed".into(),
        )),
    }
}

/// The engine request for the app's parameters: the same fields `mapscope map` fills from
/// its flags (`--tokens`, `--tokenizer`, `--focus`, `--query`), so the two maps are equal.
pub fn map_request(p: &MapParams) -> MapRequest {
    MapRequest {
        budget: p.budget,
        tokenizer: TokenizerKind::parse(&p.tokenizer).unwrap_or(TokenizerKind::O200k),
        focus: p.focus.clone(),
        idents: Vec::new(),
        query: if p.query.trim().is_empty() {
            None
        } else {
            Some(p.query.clone())
        },
        exclude_files: p.exclude_files.clone(),
        exclude_symbols: p.exclude_symbols.clone(),
        scope: p.scope.clone(),
        ..MapRequest::default()
    }
}

/// The map as markdown whose own token count (path lines, fences and all) is within the
/// budget, with that count. The fences cost tokens the text map does not have, so when the
/// text map's markdown is over, the map is fitted again to a budget smaller by the excess
/// until its markdown fits (a fit re-uses the ranking and cached line costs: cheap).
pub fn markdown_within_budget(
    index: &Index,
    ranked: &RankOutput,
    req: &MapRequest,
    text_map: &RepoMap,
) -> (String, usize) {
    let tok = crate::engine::tokenizer::tokenizer(req.tokenizer);
    let mut markdown = render(text_map, &index.files, MapFormat::Markdown);
    let mut tokens = tok.count(&markdown);
    let mut budget = req.budget;
    while tokens > req.budget && budget > 0 {
        // At least an eighth less each round, so a stubborn excess still ends quickly.
        let excess = (tokens - req.budget).max(budget / 8).max(1);
        budget = budget.saturating_sub(excess);
        let smaller = MapRequest {
            budget,
            ..req.clone()
        };
        let map = index.fit(ranked, &smaller);
        markdown = render(&map, &index.files, MapFormat::Markdown);
        tokens = tok.count(&markdown);
    }
    (markdown, tokens)
}

fn map_snapshot(
    index: &Index,
    map: &RepoMap,
    generation: Generation,
    params: MapParams,
    t: Instant,
) -> MapSnapshot {
    let text = render(map, &index.files, MapFormat::Text);
    let files = header_lines(&text, map);
    let cut = CutView {
        budget: map.budget,
        used: map.tokens,
        rows: map
            .cut
            .iter()
            .take(CUT_ROWS)
            .map(|c| CutRow {
                path: c.path.clone(),
                symbol: c.name.clone(),
                kind: c.kind.name().to_string(),
                line: c.line,
                rank: c.score,
                tokens: c.tokens,
            })
            .collect(),
    };
    MapSnapshot {
        generation,
        params,
        tokens: map.tokens,
        text,
        files,
        cut,
        fit_ms: t.elapsed().as_secs_f64() * 1000.0,
    }
}

/// Where each file's header line is in the map text: the text is each file's path line,
/// its lines, then a blank separator.
fn header_lines(text: &str, map: &RepoMap) -> Vec<MapFile> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::with_capacity(map.files.len());
    let mut expected = 0usize;
    let mut cursor = 0usize;
    for f in &map.files {
        // Trust the layout, but re-synchronise on the path if the format ever changes.
        let is_header = |l: &str| l == f.path || l.strip_suffix(':') == Some(f.path.as_str());
        let line = if lines.get(expected).is_some_and(|l| is_header(l)) {
            expected
        } else {
            (cursor..lines.len())
                .find(|&i| is_header(lines[i]))
                .unwrap_or(expected.min(lines.len().saturating_sub(1)))
        };
        out.push(MapFile {
            path: f.path.clone(),
            rank: f.rank,
            tokens: f.tokens,
            header_line: line,
        });
        cursor = line + 1;
        expected = line + 1 + f.lines.len() + 1;
    }
    out
}

fn why_view(index: &Index, ranked: &RankOutput, params: &MapParams, path: &str) -> WhyView {
    let req = map_request(params);
    let map = index.fit(ranked, &req);
    let explained = explain_file(index, &req, ranked, &map, path);
    let Some(fi) = index.file_index(&explained.path) else {
        return WhyView {
            path: path.to_string(),
            reasons: explained.reasons,
            total_files: index.files.len(),
            ..WhyView::default()
        };
    };
    let mut incoming: Vec<WhyEdge> = index
        .graph
        .incoming(fi)
        .into_iter()
        .map(|(src, e)| {
            let mut idents = index.graph.edge_idents(e);
            idents.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
            WhyEdge {
                path: index.files[src].path.clone(),
                weight: e.weight,
                idents: idents
                    .into_iter()
                    .take(8)
                    .map(|(n, _)| n.to_string())
                    .collect(),
            }
        })
        .collect();
    incoming.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.path.cmp(&b.path)));
    WhyView {
        path: explained.path,
        rank: explained.rank,
        position: explained.rank_position,
        total_files: explained.total_files,
        personalization: explained.personalization,
        reasons: explained.reasons,
        in_map: explained.in_map,
        map_position: explained.map_position,
        map_files: explained.map_files,
        tokens: explained.tokens,
        incoming,
    }
}

/// Search behind the hits pane.
mod search {
    use super::*;
    use crate::engine::answer::{extractive_answer, AnswerStyle};
    use crate::engine::search::{Confidence, Evidence as SearchEvidence, SearchHit, SearchOptions};

    /// The engine's search (BM25F over symbol chunks, name, path and graph signals), whose
    /// index lives in the `Index`; `build` only makes sure it is built here, on the worker,
    /// rather than on the first keystroke.
    pub struct Backend;

    impl Backend {
        pub fn build(index: &Index) -> Backend {
            let _ = index.search_index();
            Backend
        }

        /// (hits, confidence, low_score, the concise extractive answer).
        pub fn search(
            &self,
            index: &Index,
            query: &str,
            scope: &crate::engine::scope::ScopeSpec,
        ) -> (Vec<Hit>, String, bool, String) {
            let opts = SearchOptions {
                top: TOP_HITS,
                langs: scope.langs.clone(),
                include: scope.include.clone(),
                exclude: scope.exclude.clone(),
                ..SearchOptions::default()
            };
            let resp = index.search(query, &opts);
            let users =
                |h: &SearchHit| index.symbol_users(&h.file_path, h.symbol.as_deref().unwrap_or(""));
            let answer = if resp.hits.is_empty() {
                String::new()
            } else {
                extractive_answer(&resp, &resp.hits, AnswerStyle::Concise, &users)
            };
            let confidence = match resp.confidence {
                Confidence::High => "high",
                Confidence::Medium => "medium",
                Confidence::Low => "low",
            };
            (
                resp.hits.into_iter().map(hit).collect(),
                confidence.to_string(),
                resp.low_score,
                answer,
            )
        }
    }

    fn hit(h: SearchHit) -> Hit {
        let evidence = match h.evidence {
            SearchEvidence::Definition => Evidence::Definition,
            SearchEvidence::Reference => Evidence::Reference,
            SearchEvidence::Call => Evidence::Call,
            SearchEvidence::Import => Evidence::Import,
            SearchEvidence::Text => Evidence::Text,
        };
        let s = h.signals;
        Hit {
            row: HitRow {
                evidence,
                kind: h.kind.unwrap_or_default(),
                // A text hit names no symbol: its column shows the matched line instead.
                symbol: h.symbol.unwrap_or_else(|| {
                    h.excerpt
                        .lines()
                        .map(str::trim)
                        .find(|l| !l.is_empty())
                        .unwrap_or_default()
                        .to_string()
                }),
                path: h.file_path,
                start: h.line_range.start,
                end: h.line_range.end,
                score: h.score,
                signals: vec![
                    ("bm25".into(), s.bm25),
                    ("name".into(), s.name),
                    ("path".into(), s.path),
                    ("graph".into(), s.graph),
                    ("prior".into(), s.prior),
                    ("penalty".into(), s.penalty),
                    ("history".into(), s.history),
                ],
                focus: false,
            },
            excerpt: h.excerpt,
        }
    }
}
