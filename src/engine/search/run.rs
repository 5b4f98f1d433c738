//! Running one query against a built `SearchIndex` (on the caller's thread): accumulate
//! postings, name and path matches into thread-local score arrays, aggregate per file,
//! diffuse over the graph, pick hits and explain each one with its evidence line.
//!
//! Per-query work is proportional to the matched postings; the only corpus-sized memory is
//! the reusable score arrays, which are reset through their touched lists.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::time::Instant;

use crate::engine::scope::{Scope, ScopeSpec};
use globset::{Glob, GlobSet, GlobSetBuilder};

use super::glossary::Glossary;
use super::lex::{self, Seg};
use super::matcher::{FuzzyMatcher, FuzzyNeedle};
use super::query::{self, QueryPlan};
use super::tokenize::{term_hash, Tokenizer};
use super::{
    field, ChunkKind, Confidence, Evidence, RetrievalCounts, SearchContext, SearchError, SearchHit,
    SearchIndex, SearchOptions, SearchResponse, Signals, TermEntry, Unit, MAX_TOP, NO_DEF,
};
use crate::engine::model::{Definition, LineRange, ParsedFile, RefKind};
use crate::engine::paths::PathClass;
use crate::engine::text::safe_char;
use crate::engine::words::normalize_name;

const NO_CHUNK: u32 = u32::MAX;
/// How many chunks after the best one count toward a file's score.
const RUNNERS_UP: usize = 3;
/// The best this-many implementation files lend score to their tests.
const COMPANION_SOURCES: usize = 16;
/// Longest excerpt, in characters.
const MAX_EXCERPT: usize = 160;
/// Lines scanned to find a hit's evidence line.
const MAX_SCAN_LINES: u32 = 4000;

/// Path globs and the scope (`--include`, `--exclude`, `--lang`) from `SearchOptions`.
pub(crate) struct Filter {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
    scope: Scope,
}

impl Filter {
    pub(crate) fn new(opts: &SearchOptions) -> Result<Filter, SearchError> {
        let mut inc = GlobSetBuilder::new();
        let mut exc = GlobSetBuilder::new();
        let (mut n_inc, mut n_exc) = (0, 0);
        for raw in &opts.path_globs {
            let (negated, pat) = match raw.strip_prefix('!') {
                Some(p) => (true, p),
                None => (false, raw.as_str()),
            };
            let pat = pat.trim().trim_start_matches("./").trim_end_matches('/');
            if pat.is_empty() {
                continue;
            }
            let mut globs = vec![pat.to_string()];
            if !pat.contains(['*', '?', '[', '{']) {
                // A plain folder name also means everything under it.
                globs.push(format!("{pat}/**"));
            }
            for g in globs {
                let glob = Glob::new(&g).map_err(|e| SearchError::BadGlob {
                    glob: raw.clone(),
                    message: e.kind().to_string(),
                })?;
                if negated {
                    exc.add(glob);
                    n_exc += 1;
                } else {
                    inc.add(glob);
                    n_inc += 1;
                }
            }
        }
        let bad = |e: globset::Error| SearchError::BadGlob {
            glob: opts.path_globs.join(","),
            message: e.kind().to_string(),
        };
        let include = if n_inc > 0 {
            Some(inc.build().map_err(bad)?)
        } else {
            None
        };
        let exclude = if n_exc > 0 {
            Some(exc.build().map_err(bad)?)
        } else {
            None
        };
        let scope = Scope::new(&ScopeSpec {
            include: opts.include.clone(),
            exclude: opts.exclude.clone(),
            langs: opts.langs.clone(),
        })?;
        Ok(Filter {
            include,
            exclude,
            scope,
        })
    }

    fn allows(&self, unit: &Unit) -> bool {
        if unit.hidden {
            return false;
        }
        let path: &str = &unit.path;
        if !self.scope.allows(path, unit.lang) {
            return false;
        }
        if let Some(inc) = &self.include {
            if !inc.is_match(path) {
                return false;
            }
        }
        if let Some(exc) = &self.exclude {
            if exc.is_match(path) {
                return false;
            }
        }
        true
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct ChunkAcc {
    bm25: f32,
    /// Name-match strength before the `name` weight.
    name: f32,
    concepts: u64,
    fields: u8,
    touched: bool,
    /// A typed identifier equals this definition's name.
    exact_typed: bool,
}

#[derive(Debug, Clone, Copy)]
struct UnitAcc {
    best: f32,
    /// The next best chunk scores, best first (a file's score counts only a few of them,
    /// so a large file matching a little everywhere does not outrank a focused one).
    runners_up: [f32; RUNNERS_UP],
    best_chunk: u32,
    /// Total edge weight of this file in the graph, computed on first use (NaN before).
    degree: f32,
    path: f32,
    /// File-level BM25.
    file: f32,
    /// BM25 over the file's past commit subjects.
    hist: f32,
    /// Query concepts found anywhere in the file (chunks, file postings).
    concepts: u64,
    path_concepts: u64,
    g1: f32,
    g2: f32,
    touched: bool,
    has_text: bool,
    /// `allowed`, `penalty` and `prior_mult` are computed.
    prepared: bool,
    allowed: bool,
    penalty: f32,
    prior_mult: f32,
    /// Size normalisation of the chunk-based score (see `SearchWeights::chunk_len_norm`).
    len_norm: f32,
    graph: f32,
    score: f32,
    /// Best share of an implementation file's score lent to this test file.
    companion: f32,
    /// For a test file ranked under its implementation file: that file's unit + 1 (0 = none).
    pair: u32,
    /// An implementation file with a test ranked under it.
    tested: bool,
    /// The score of the last hit of this file that would be shown (hit mode, for
    /// `cap_test_hits`).
    hit_floor: f32,
}

impl Default for UnitAcc {
    fn default() -> Self {
        UnitAcc {
            best: 0.0,
            runners_up: [0.0; RUNNERS_UP],
            best_chunk: NO_CHUNK,
            degree: f32::NAN,
            path: 0.0,
            file: 0.0,
            hist: 0.0,
            concepts: 0,
            path_concepts: 0,
            g1: 0.0,
            g2: 0.0,
            touched: false,
            has_text: false,
            prepared: false,
            allowed: false,
            penalty: 1.0,
            prior_mult: 1.0,
            len_norm: 1.0,
            graph: 0.0,
            score: 0.0,
            companion: 0.0,
            pair: 0,
            tested: false,
            hit_floor: 0.0,
        }
    }
}

/// Reusable per-thread score arrays.
#[derive(Default)]
struct Scratch {
    chunks: Vec<ChunkAcc>,
    units: Vec<UnitAcc>,
    touched_chunks: Vec<u32>,
    touched_units: Vec<u32>,
}

impl Scratch {
    /// Clears what the previous query touched (also after a panic mid-query) and makes
    /// room for this index.
    fn prepare(&mut self, n_chunks: usize, n_units: usize) {
        for &c in &self.touched_chunks {
            self.chunks[c as usize] = ChunkAcc::default();
        }
        for &u in &self.touched_units {
            self.units[u as usize] = UnitAcc::default();
        }
        self.touched_chunks.clear();
        self.touched_units.clear();
        if self.chunks.len() < n_chunks {
            self.chunks.resize(n_chunks, ChunkAcc::default());
        }
        if self.units.len() < n_units {
            self.units.resize(n_units, UnitAcc::default());
        }
    }

    fn chunk(&mut self, c: u32) -> &mut ChunkAcc {
        let a = &mut self.chunks[c as usize];
        if !a.touched {
            a.touched = true;
            self.touched_chunks.push(c);
        }
        a
    }

    fn unit(&mut self, u: u32) -> &mut UnitAcc {
        let a = &mut self.units[u as usize];
        if !a.touched {
            a.touched = true;
            self.touched_units.push(u);
        }
        a
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

fn lookup(terms: &[TermEntry], hash: u64) -> Option<(usize, usize)> {
    let i = terms.binary_search_by_key(&hash, |e| e.hash).ok()?;
    let e = terms[i];
    Some((e.start as usize, e.start as usize + e.len as usize))
}

fn by_score_desc(a: &(f32, u32), b: &(f32, u32)) -> Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1))
}

pub(super) fn search(
    idx: &SearchIndex,
    ctx: &SearchContext,
    query: &str,
    opts: &SearchOptions,
) -> SearchResponse {
    let t0 = Instant::now();
    let elapsed = || t0.elapsed().as_secs_f64() * 1000.0;
    let consistent =
        ctx.files.len() == idx.n_files && ctx.docs.len() == idx.units.len() - idx.n_files;
    let Ok(filter) = Filter::new(opts) else {
        return SearchResponse::empty(elapsed());
    };
    if !consistent {
        return SearchResponse::empty(elapsed());
    }
    let plan = query::parse(query, &idx.weights, Glossary::embedded());
    if plan.terms.is_empty() && plan.names.is_empty() {
        return SearchResponse::empty(elapsed());
    }
    let mut resp = SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut s) => run(idx, ctx, &plan, opts, &filter, &mut s),
        Err(_) => run(idx, ctx, &plan, opts, &filter, &mut Scratch::default()),
    });
    resp.latency_ms = elapsed();
    resp
}

fn def_of<'a>(idx: &SearchIndex, ctx: &SearchContext<'a>, c: u32) -> Option<&'a Definition> {
    let ch = idx.chunks.get(c as usize)?;
    if ch.def == NO_DEF {
        return None;
    }
    ctx.files
        .get(ch.unit as usize)?
        .tags
        .defs
        .get(ch.def as usize)
}

fn run(
    idx: &SearchIndex,
    ctx: &SearchContext,
    plan: &QueryPlan,
    opts: &SearchOptions,
    filter: &Filter,
    s: &mut Scratch,
) -> SearchResponse {
    let w = &idx.weights;
    s.prepare(idx.chunks.len(), idx.units.len());
    let mut counts = RetrievalCounts {
        query_terms: plan.literal_terms(),
        expanded_terms: plan.terms.len() - plan.literal_terms(),
        ..Default::default()
    };

    // 1. BM25F postings and path tokens.
    for t in &plan.terms {
        if let Some((a, b)) = lookup(&idx.terms, t.hash) {
            for p in &idx.postings[a..b] {
                let acc = s.chunk(p.chunk);
                acc.bm25 += t.weight * p.impact;
                acc.concepts |= t.concepts;
                acc.fields |= p.fields;
            }
        }
        if let Some((a, b)) = lookup(&idx.file_terms, t.hash) {
            for p in &idx.file_postings[a..b] {
                let ua = s.unit(p.unit);
                ua.file += t.weight * p.impact;
                ua.concepts |= t.concepts;
            }
        }
        if let Some(h) = ctx
            .history
            .filter(|_| w.history > 0.0 || w.history_post > 0.0)
        {
            if let Some((a, b)) = lookup(&h.terms, t.hash) {
                for p in &h.postings[a..b] {
                    if (p.unit as usize) < idx.n_files {
                        let ua = s.unit(p.unit);
                        ua.hist += t.weight * p.impact;
                        if w.history_covers {
                            ua.concepts |= t.concepts;
                        }
                    }
                }
            }
        }
        if let Some((a, b)) = lookup(&idx.path_terms, t.hash) {
            for p in &idx.path_postings[a..b] {
                let acc = s.unit(p.unit);
                acc.path += t.weight * p.impact;
                acc.path_concepts |= t.concepts;
            }
        }
    }

    // 2. Symbol names: exact (case/underscore-insensitive, stemmed), else fuzzy.
    let content = plan.content_words().max(1);
    // Made on the first fuzzy lookup: most queries match names exactly or not at all.
    let mut fuzzy: Option<FuzzyMatcher> = None;
    for cand in &plan.names {
        let whole_query = cand.typed && content <= 1;
        let cover = if cand.identifier_like || whole_query {
            1.0
        } else {
            (cand.words as f32 / content as f32).sqrt().min(1.0)
        };
        let lo = idx.names.partition_point(|x| x.0 < cand.key);
        let hi = idx.names.partition_point(|x| x.0 <= cand.key);
        if hi > lo {
            let spec = 1.0 / (1.0 + 0.5 * ((hi - lo) as f32).ln());
            counts.name_matches += hi - lo;
            for &(_, c) in &idx.names[lo..hi] {
                let Some(def) = def_of(idx, ctx, c) else {
                    continue;
                };
                let folded = normalize_name(&def.name) == cand.norm;
                let strength = if def.name == cand.text {
                    1.0
                } else if folded {
                    w.name_folded as f32
                } else {
                    w.name_folded as f32 * 0.85
                };
                let acc = s.chunk(c);
                acc.name = acc.name.max(strength * spec * cover);
                acc.concepts |= cand.concepts;
                acc.exact_typed |= folded && cand.typed && (cand.identifier_like || whole_query);
            }
            continue;
        }
        if !(cand.typed && (cand.identifier_like || whole_query)) {
            continue;
        }
        let Some(needle) = FuzzyNeedle::new(&cand.text) else {
            continue;
        };
        let matcher = fuzzy.get_or_insert_with(|| FuzzyMatcher::new(w.fuzzy_typos));
        let mut found: Vec<(f32, u32)> = idx
            .fuzzy
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let sc = matcher.score(&needle, &f.target)?;
                (sc >= w.fuzzy_min).then_some((sc as f32, i as u32))
            })
            .collect();
        found.sort_by(by_score_desc);
        found.truncate(w.fuzzy_max_matches);
        for (sc, i) in found {
            let f = &idx.fuzzy[i as usize];
            let spec = 1.0 / (1.0 + 0.5 * (f.len as f32).ln());
            for k in f.start..f.start + f.len {
                let c = idx.fuzzy_chunks[k as usize];
                counts.fuzzy_matches += 1;
                let acc = s.chunk(c);
                acc.name = acc.name.max(w.name_fuzzy as f32 * sc * spec * cover);
                if sc >= 0.8 {
                    acc.concepts |= cand.concepts;
                }
            }
        }
    }
    counts.chunks_matched = s.touched_chunks.len();

    // 3. Files: best chunk + a little of the rest + path.
    let name_w = w.name as f32;
    for i in 0..s.touched_chunks.len() {
        let c = s.touched_chunks[i];
        let acc = s.chunks[c as usize];
        let total = acc.bm25 + name_w * acc.name;
        let u = idx.chunks[c as usize].unit;
        let ua = s.unit(u);
        ua.has_text = true;
        ua.concepts |= acc.concepts;
        let mut x = total;
        if ua.best_chunk == NO_CHUNK || x > ua.best {
            if ua.best_chunk == NO_CHUNK {
                ua.best = x;
                x = 0.0;
            } else {
                std::mem::swap(&mut x, &mut ua.best);
            }
            ua.best_chunk = c;
        }
        for slot in &mut ua.runners_up {
            if x > *slot {
                std::mem::swap(&mut x, slot);
            }
        }
    }
    let prepare = |s: &mut Scratch, u: usize| {
        if s.units[u].prepared {
            return;
        }
        let ua = UnitAcc {
            prepared: true,
            allowed: filter.allows(&idx.units[u]),
            penalty: penalty(idx, u, plan.wants_tests),
            prior_mult: prior_mult(ctx, u, idx.n_files, w.prior),
            len_norm: len_norm(idx, u),
            ..s.units[u]
        };
        s.units[u] = ua;
    };
    for i in 0..s.touched_units.len() {
        let u = s.touched_units[i] as usize;
        prepare(s, u);
    }
    // Coordination: a file that covers more of the query's concepts (anywhere in its text
    // or path) is worth more than its best-scoring terms alone say.
    let total_concepts = plan.total_concept_weight();
    let coord = w.coord as f32;
    let base = |ua: &UnitAcc| -> f32 {
        let text = (ua.best + w.file_rest as f32 * ua.runners_up.iter().sum::<f32>()) * ua.len_norm
            + w.path as f32 * ua.path
            + w.file_bm25 as f32 * ua.file
            + w.history as f32 * ua.hist;
        if coord > 0.0 && total_concepts > 0.0 {
            let cov = plan.concept_weight(ua.concepts | ua.path_concepts) / total_concepts;
            text * cov.clamp(0.0, 1.0).powf(coord)
        } else {
            text
        }
    };

    // 4. Graph diffusion, one and two hops, from the best allowed code files.
    let mut sources: Vec<(f32, u32)> = s
        .touched_units
        .iter()
        .filter_map(|&u| {
            let ua = &s.units[u as usize];
            let v = base(ua) * ua.penalty;
            ((u as usize) < idx.n_files && ua.allowed && v > 0.0).then_some((v, u))
        })
        .collect();
    sources.sort_by(by_score_desc);
    sources.truncate(w.graph_sources);
    if w.graph_hop1 > 0.0 {
        for &(v, u) in &sources {
            spread(ctx, idx.n_files, u, v, s, |a, x| a.g1 += x);
        }
        if w.graph_hop2 > 0.0 {
            let mut second: Vec<(f32, u32)> = s
                .touched_units
                .iter()
                .filter_map(|&u| {
                    let g = s.units[u as usize].g1;
                    (g > 0.0).then_some((g, u))
                })
                .collect();
            second.sort_by(by_score_desc);
            second.truncate(w.graph_sources);
            for &(v, u) in &second {
                spread(ctx, idx.n_files, u, v, s, |a, x| a.g2 += x);
            }
        }
    }

    // 5. File scores.
    let mut files: Vec<(f32, u32)> = Vec::new();
    for i in 0..s.touched_units.len() {
        let u = s.touched_units[i];
        prepare(s, u as usize);
        let ua = &mut s.units[u as usize];
        if !ua.allowed {
            continue;
        }
        ua.graph = (w.graph_hop1 as f32) * ua.g1 + (w.graph_hop2 as f32) * ua.g2;
        ua.score =
            (base(ua) + ua.graph) * ua.penalty * ua.prior_mult + w.history_post as f32 * ua.hist;
        if ua.score > 0.0 {
            files.push((ua.score, u));
            if ua.has_text {
                counts.files_matched += 1;
            }
            if ua.path > 0.0 {
                counts.path_matches += 1;
            }
            if ua.hist > 0.0 {
                counts.history_matches += 1;
            }
            if !ua.has_text && ua.path == 0.0 && ua.hist == 0.0 {
                counts.graph_only_files += 1;
            }
        }
    }
    // 5b. Tests follow what they test: the best implementation files lend part of their
    // score to their test files (`python.py` → `test_python.py`, `head.go` → `head_test.go`).
    if w.test_companion > 0.0 {
        files.sort_by(by_score_desc);
        let sources: Vec<(f32, u32)> = files
            .iter()
            .filter(|&&(_, u)| {
                (u as usize) < idx.n_files && idx.units[u as usize].class == PathClass::Impl
            })
            .take(COMPANION_SOURCES)
            .copied()
            .collect();
        let mut lifted: Vec<u32> = Vec::new();
        for (sc, u) in sources {
            let lo = idx.companions.partition_point(|x| x.0 < u);
            let hi = idx.companions.partition_point(|x| x.0 <= u);
            for k in lo..hi {
                let (_, t, share) = idx.companions[k];
                prepare(s, t as usize);
                let add = sc * w.test_companion as f32 * share;
                let ua = s.unit(t);
                if !ua.allowed || add <= ua.companion {
                    continue;
                }
                if ua.companion == 0.0 {
                    lifted.push(t);
                }
                ua.companion = add;
            }
        }
        // A test that also matches on its own text keeps part of that score on top.
        let own_mix = w.test_companion_own as f32;
        for t in lifted {
            let ua = &mut s.units[t as usize];
            let own = ua.score.max(0.0);
            let lifted_score = ua.companion + own_mix * own;
            if lifted_score <= own {
                continue;
            }
            if own <= 0.0 {
                files.push((lifted_score, t));
            } else if let Some(f) = files.iter_mut().find(|f| f.1 == t) {
                f.0 = lifted_score;
            }
            ua.score = lifted_score;
        }
    }
    // 5c. Tests under the code they test (unless the query is about tests).
    let pairs = if w.test_under_impl && !plan.wants_tests {
        test_pairs(idx, s, |u| filter.allows(&idx.units[u as usize]))
    } else {
        Vec::new()
    };
    for &(_, i) in &pairs {
        s.unit(i);
        prepare(s, i as usize);
    }
    if !pairs.is_empty() {
        order_pairs(s, &mut files, &pairs, w.test_impl_lift as f32);
    }
    files.sort_by(|a, b| {
        b.0.total_cmp(&a.0).then_with(|| {
            idx.units[a.1 as usize]
                .path
                .cmp(&idx.units[b.1 as usize].path)
        })
    });
    let top = opts.top.clamp(1, MAX_TOP);
    files.truncate(top);

    // 6. Hits.
    let hit_score = |s: &Scratch, c: u32| -> f32 {
        let acc = &s.chunks[c as usize];
        let ua = &s.units[idx.chunks[c as usize].unit as usize];
        (acc.bm25
            + name_w * acc.name
            + w.path as f32 * ua.path
            + w.history as f32 * ua.hist
            + ua.graph)
            * ua.penalty
            * ua.prior_mult
            + w.history_post as f32 * ua.hist
    };
    // (hit score, chunk), best first.
    let chosen: Vec<(f32, u32)> = if opts.files_mode {
        files
            .iter()
            .map(|&(_, u)| s.units[u as usize].best_chunk)
            .filter(|&c| c != NO_CHUNK)
            .map(|c| (hit_score(s, c), c))
            .collect()
    } else {
        let mut cands: Vec<(f32, u32)> = s
            .touched_chunks
            .iter()
            .filter(|&&c| s.units[idx.chunks[c as usize].unit as usize].allowed)
            .map(|&c| (hit_score(s, c), c))
            .filter(|x| x.0 > 0.0)
            .collect();
        if !pairs.is_empty() {
            cap_test_hits(idx, s, &mut cands, w.max_hits_per_file.max(1));
        }
        pick_hits(idx, &mut cands, top, w.max_hits_per_file.max(1))
    };

    let mut tok = Tokenizer::default();
    let mut term_index: Vec<(u64, f32)> = plan.terms.iter().map(|t| (t.hash, t.weight)).collect();
    term_index.sort_by_key(|x| x.0);
    let hits: Vec<SearchHit> = chosen
        .iter()
        .map(|&(score, c)| {
            let acc = s.chunks[c as usize];
            let ua = s.units[idx.chunks[c as usize].unit as usize];
            let ev = describe(idx, ctx, c, &acc, &term_index, &mut tok);
            let signals = Signals {
                bm25: f64::from(acc.bm25),
                name: f64::from(name_w * acc.name),
                path: w.path * f64::from(ua.path),
                graph: f64::from(ua.graph),
                prior: f64::from(ua.prior_mult) - 1.0,
                penalty: f64::from(ua.penalty),
                history: (w.history + w.history_post) * f64::from(ua.hist),
            };
            SearchHit {
                file_path: idx.units[idx.chunks[c as usize].unit as usize]
                    .path
                    .to_string(),
                line_range: ev.lines,
                excerpt: ev.excerpt,
                evidence: ev.evidence,
                symbol: ev.symbol,
                kind: ev.kind,
                score: f64::from(score),
                signals,
            }
        })
        .collect();

    // 7. Confidence.
    let total = plan.total_concept_weight();
    let coverage = |concepts: u64| -> f32 {
        if total > 0.0 {
            plan.concept_weight(concepts) / total
        } else {
            0.0
        }
    };
    let mut best_cov = 0.0f32;
    for &(_, c) in chosen.iter().take(3) {
        let acc = &s.chunks[c as usize];
        let ua = &s.units[idx.chunks[c as usize].unit as usize];
        best_cov = best_cov.max(coverage(acc.concepts | ua.path_concepts));
    }
    for &(_, u) in files.iter().take(3) {
        best_cov = best_cov.max(coverage(s.units[u as usize].path_concepts));
    }
    let exact_top = chosen
        .first()
        .is_some_and(|&(_, c)| s.chunks[c as usize].exact_typed)
        && hits
            .first()
            .is_some_and(|h| h.evidence == Evidence::Definition);
    // Text in tests, fixtures and other secondary code is data (sample strings, placeholders:
    // `asdf`, `aaa bbb ccc`), not words about the code: hits that are all such text, with
    // no name or path matching, say nothing of where the query's subject lives.
    let only_test_data = !chosen.is_empty()
        && chosen.iter().zip(&hits).all(|(&(_, c), hit)| {
            let u = idx.chunks[c as usize].unit as usize;
            let unit = &idx.units[u];
            hit.evidence == Evidence::Text
                && u < idx.n_files
                && (unit.class != PathClass::Impl || unit.fixture)
                && s.units[u].path_concepts == 0
        });
    let confidence = if exact_top {
        Confidence::High
    } else if (hits.is_empty() && files.is_empty())
        || f64::from(best_cov) < w.low_coverage
        || only_test_data
    {
        Confidence::Low
    } else {
        Confidence::Medium
    };

    SearchResponse {
        hits,
        files: files
            .iter()
            .map(|&(sc, u)| (idx.units[u as usize].path.to_string(), f64::from(sc)))
            .collect(),
        confidence,
        low_score: confidence == Confidence::Low,
        retrieval_counts: counts,
        latency_ms: 0.0,
    }
}

/// Just under: a test file's score relative to the implementation it follows.
const UNDER: f32 = 0.999;

/// (test unit, implementation unit) for each scored test file with a paired implementation
/// file that is allowed: the best-scoring one when the test has several.
fn test_pairs(idx: &SearchIndex, s: &Scratch, allowed: impl Fn(u32) -> bool) -> Vec<(u32, u32)> {
    let mut best: Vec<(u32, u32, f32)> = Vec::new();
    for &(i, t, _) in &idx.companions {
        let (ti, ii) = (&s.units[t as usize], &s.units[i as usize]);
        if !ti.touched || ti.score <= 0.0 || !allowed(i) {
            continue;
        }
        let si = if ii.touched { ii.score.max(0.0) } else { 0.0 };
        match best.iter_mut().find(|b| b.0 == t) {
            Some(b) if si > b.2 => *b = (t, i, si),
            Some(_) => {}
            None => best.push((t, i, si)),
        }
    }
    best.into_iter().map(|(t, i, _)| (t, i)).collect()
}

/// Puts each test file just under its implementation file in `files`: the implementation
/// first takes `lift` × the test's score if that is more than its own, then the test is
/// capped just under it. A test whose implementation scores nothing (and is not lifted)
/// keeps its place. Marks each test with its implementation (`UnitAcc::pair`).
fn order_pairs(s: &mut Scratch, files: &mut Vec<(f32, u32)>, pairs: &[(u32, u32)], lift: f32) {
    for &(t, i) in pairs {
        let want = lift * s.units[t as usize].score;
        let ia = s.unit(i);
        let was = ia.score.max(0.0);
        if want > was {
            ia.score = want;
            if was <= 0.0 {
                files.push((want, i));
            }
        }
    }
    for &(t, i) in pairs {
        let si = s.units[i as usize].score;
        s.units[i as usize].tested = true;
        let ta = &mut s.units[t as usize];
        ta.pair = i + 1;
        if si > 0.0 && ta.score > si * UNDER {
            ta.score = si * UNDER;
        }
    }
    for f in files.iter_mut() {
        f.0 = s.units[f.1 as usize].score;
    }
}

/// In hit mode, a test file's hits rank under the hits of its implementation file that
/// would be shown (its best `per_file`), when that file has any.
fn cap_test_hits(idx: &SearchIndex, s: &mut Scratch, cands: &mut [(f32, u32)], per_file: usize) {
    let unit_of = |c: u32| idx.chunks[c as usize].unit;
    let mut tested: Vec<(u32, f32)> = cands
        .iter()
        .filter(|x| s.units[unit_of(x.1) as usize].tested)
        .map(|&(sc, c)| (unit_of(c), sc))
        .collect();
    tested.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
    for group in tested.chunk_by(|a, b| a.0 == b.0) {
        let last = group[group.len().min(per_file) - 1];
        s.units[last.0 as usize].hit_floor = last.1;
    }
    for x in cands.iter_mut() {
        let pair = s.units[unit_of(x.1) as usize].pair;
        if pair == 0 {
            continue;
        }
        let cap = s.units[(pair - 1) as usize].hit_floor * UNDER;
        if cap > 0.0 && x.0 > cap {
            x.0 = cap;
        }
    }
}

fn penalty(idx: &SearchIndex, u: usize, wants_tests: bool) -> f32 {
    let w = &idx.weights;
    let unit = &idx.units[u];
    let doc = u >= idx.n_files;
    let class = match unit.class {
        // A query about tests wants the tests first (commits described that way mostly
        // touch tests); the code they exercise stays close behind.
        PathClass::Impl if wants_tests && !doc => w.test_query_impl,
        PathClass::Impl => 1.0,
        PathClass::Test if wants_tests => 1.0,
        PathClass::Test => w.penalty_test,
        // A README under docs/ is what a prose query wants; only code there is secondary.
        PathClass::Secondary if doc => 1.0,
        PathClass::Secondary => w.penalty_secondary,
    };
    let doc_w = if doc { w.doc_chunk } else { 1.0 };
    let fixture = if unit.fixture && !wants_tests {
        w.penalty_fixture
    } else {
        1.0
    };
    (class * doc_w * fixture) as f32
}

/// `(chunks / mean chunks)^-chunk_len_norm` for code files: a file with many definitions
/// has many chances to hold one chunk that happens to match, so its best chunk says less.
fn len_norm(idx: &SearchIndex, u: usize) -> f32 {
    let alpha = idx.weights.chunk_len_norm as f32;
    if alpha == 0.0 || u >= idx.n_files || idx.avg_chunks <= 0.0 {
        return 1.0;
    }
    let (a, b) = (
        idx.unit_chunks.get(u).copied().unwrap_or(0),
        idx.unit_chunks.get(u + 1).copied().unwrap_or(0),
    );
    let n = b.saturating_sub(a).max(1) as f32;
    (n / idx.avg_chunks).powf(-alpha)
}

fn prior_mult(ctx: &SearchContext, u: usize, n_files: usize, weight: f64) -> f32 {
    if u >= n_files {
        return 1.0;
    }
    let n = n_files as f64;
    let p = ctx.prior.get(u).copied().unwrap_or(0.0);
    let p = if p.is_finite() && p > 0.0 { p } else { 0.0 };
    (1.0 + weight * (1.0 + n * p).ln()) as f32
}

/// Total positive edge weight of a code file, cached in the scratch for this query.
fn degree(ctx: &SearchContext, s: &mut Scratch, u: u32) -> f32 {
    let d = s.unit(u).degree;
    if !d.is_nan() {
        return d;
    }
    let total: f64 = ctx.neighbors.get(u as usize).map_or(0.0, |n| {
        n.iter()
            .map(|e| e.1)
            .filter(|&x| x.is_finite() && x > 0.0)
            .sum()
    });
    s.unit(u).degree = total as f32;
    total as f32
}

/// Spreads `v` from code file `u` to its neighbours with symmetric normalisation
/// (`w_uj / sqrt(W_u · W_j)`), so hubs imported by everything do not collect the score of
/// every file that matched.
fn spread(
    ctx: &SearchContext,
    n_files: usize,
    u: u32,
    v: f32,
    s: &mut Scratch,
    add: impl Fn(&mut UnitAcc, f32),
) {
    let Some(nbrs) = ctx.neighbors.get(u as usize) else {
        return;
    };
    let du = degree(ctx, s, u);
    if du <= 0.0 {
        return;
    }
    for &(j, wt) in nbrs {
        if j < n_files && j != u as usize && wt.is_finite() && wt > 0.0 {
            let dj = degree(ctx, s, j as u32).max(wt as f32);
            add(s.unit(j as u32), v * wt as f32 / (du * dj).sqrt());
        }
    }
}

/// Best hits with at most `per_file` from one file; partial selection keeps this cheap when
/// a common word touches most of the index.
fn pick_hits(
    idx: &SearchIndex,
    cands: &mut [(f32, u32)],
    top: usize,
    per_file: usize,
) -> Vec<(f32, u32)> {
    let take = |sorted: &[(f32, u32)]| -> Vec<(f32, u32)> {
        let mut out = Vec::with_capacity(top);
        let mut per: Vec<(u32, usize)> = Vec::new();
        for &(sc, c) in sorted {
            let u = idx.chunks[c as usize].unit;
            let n = if let Some(x) = per.iter_mut().find(|x| x.0 == u) {
                x.1 += 1;
                x.1
            } else {
                per.push((u, 1));
                1
            };
            if n <= per_file {
                out.push((sc, c));
                if out.len() == top {
                    break;
                }
            }
        }
        out
    };
    let k = (top * 8).max(256);
    if cands.len() > k {
        cands.select_nth_unstable_by(k, by_score_desc);
        let head = &mut cands[..k];
        head.sort_by(by_score_desc);
        let out = take(head);
        if out.len() == top {
            return out;
        }
    }
    cands.sort_by(by_score_desc);
    take(cands)
}

struct Described {
    lines: LineRange,
    excerpt: String,
    evidence: Evidence,
    symbol: Option<String>,
    kind: Option<String>,
}

fn sanitize(line: &str) -> String {
    let mut out = String::new();
    for (n, c) in line.trim().chars().enumerate() {
        if n == MAX_EXCERPT {
            out.pop();
            out.push('…');
            break;
        }
        // One helper decides what may reach a terminal (`engine::text`); a tab is a space
        // here, where an excerpt is one short line.
        out.push(if c == '\t' { ' ' } else { safe_char(c) });
    }
    out
}

fn doc_line<'a>(idx: &SearchIndex, text: &'a str, doc: usize, n: u32) -> Option<&'a str> {
    let starts = idx.doc_lines.get(doc)?;
    let start = *starts.get(n.checked_sub(1)? as usize)? as usize;
    let end = starts
        .get(n as usize)
        .map_or(text.len(), |&e| (e as usize).saturating_sub(1));
    let line = text.get(start..end.max(start))?;
    Some(line.strip_suffix('\r').unwrap_or(line))
}

/// Weight of the distinct query terms in `text`.
fn line_weight(text: &str, terms: &[(u64, f32)], tok: &mut Tokenizer, seen: &mut Vec<u64>) -> f32 {
    seen.clear();
    let mut wsum = 0.0;
    tok.terms(text, |t, _| {
        let h = term_hash(t);
        if let Ok(i) = terms.binary_search_by_key(&h, |x| x.0) {
            if !seen.contains(&h) {
                seen.push(h);
                wsum += terms[i].1;
            }
        }
    });
    wsum
}

fn definition_excerpt(file: &ParsedFile, def: &Definition) -> String {
    let end = def.signature.end.min(def.signature.start + 2);
    let line = (def.signature.start..=end)
        .filter_map(|n| file.line(n))
        .find(|l| l.contains(def.name.as_str()))
        .or_else(|| file.line(def.signature.start))
        .unwrap_or("");
    sanitize(line)
}

fn describe(
    idx: &SearchIndex,
    ctx: &SearchContext,
    c: u32,
    acc: &ChunkAcc,
    terms: &[(u64, f32)],
    tok: &mut Tokenizer,
) -> Described {
    let ch = &idx.chunks[c as usize];
    let u = ch.unit as usize;
    let def = def_of(idx, ctx, c);
    let file = ctx.files.get(u);
    if let (Some(def), Some(file)) = (def, file) {
        if acc.name > 0.0 || acc.fields & field::NAME != 0 {
            return Described {
                lines: def.lines,
                excerpt: definition_excerpt(file, def),
                evidence: Evidence::Definition,
                symbol: Some(def.name.clone()),
                kind: Some(def.kind.name().to_string()),
            };
        }
    }

    // Find the line that carries the most query weight.
    let doc_text = (u >= idx.n_files)
        .then(|| ctx.docs.get(u - idx.n_files))
        .flatten();
    let get_line = |n: u32| -> Option<&str> {
        match (file, doc_text) {
            (Some(f), _) => f.line(n),
            (None, Some(d)) => doc_line(idx, &d.text, u - idx.n_files, n),
            _ => None,
        }
    };
    // Lines that belong to definitions nested in this chunk are theirs, not this chunk's.
    let (a, b) = (
        idx.unit_chunks.get(u).copied().unwrap_or(0) as usize,
        idx.unit_chunks.get(u + 1).copied().unwrap_or(0) as usize,
    );
    let mut nested: Vec<(u32, u32)> = idx.chunks[a.min(b)..b]
        .iter()
        .enumerate()
        .filter(|(i, o)| {
            a + i != c as usize
                && o.kind == ChunkKind::Def
                && o.start >= ch.start
                && o.end <= ch.end
        })
        .map(|(_, o)| (o.start, o.end))
        .collect();
    nested.sort_unstable();
    let mut seen = Vec::new();
    let mut best: Option<(f32, u32)> = None;
    let last = ch.end.min(ch.start.saturating_add(MAX_SCAN_LINES));
    let mut skip = nested.iter().peekable();
    let mut skip_until = 0;
    for n in ch.start..=last {
        while let Some(&&(s0, e0)) = skip.peek() {
            if s0 > n {
                break;
            }
            skip_until = skip_until.max(e0);
            skip.next();
        }
        if n <= skip_until {
            continue;
        }
        let Some(text) = get_line(n) else { continue };
        let wsum = line_weight(text, terms, tok, &mut seen);
        if wsum > 0.0 && best.is_none_or(|b| wsum > b.0) {
            best = Some((wsum, n));
        }
    }
    let line = best.map_or(ch.start, |b| b.1);
    let text = get_line(line).unwrap_or("");
    let mut out = Described {
        lines: LineRange::new(line, line),
        excerpt: sanitize(text),
        evidence: Evidence::Text,
        symbol: None,
        kind: None,
    };
    let Some(file) = file.filter(|_| ch.kind != ChunkKind::Doc) else {
        // Prose: text evidence, with the word that matched.
        out.symbol = best_word(text, terms, tok, &mut seen);
        return out;
    };
    let matches =
        |s: &str, tok: &mut Tokenizer, seen: &mut Vec<u64>| line_weight(s, terms, tok, seen) > 0.0;

    for imp in file.tags.imports.iter().filter(|i| i.line == line) {
        let name = imp
            .names
            .iter()
            .find(|n| {
                matches(&n.name, tok, &mut seen)
                    || n.alias
                        .as_deref()
                        .is_some_and(|a| matches(a, tok, &mut seen))
            })
            .map(|n| n.alias.clone().unwrap_or_else(|| n.name.clone()));
        let ns = imp
            .namespace
            .as_deref()
            .filter(|n| matches(n, tok, &mut seen))
            .map(str::to_string);
        let spec = matches(&imp.specifier, tok, &mut seen).then(|| imp.specifier.clone());
        if let Some(sym) = name.or(ns).or(spec) {
            out.evidence = Evidence::Import;
            out.symbol = Some(sym);
            return out;
        }
    }
    let mut best_ref: Option<(u8, &str, RefKind)> = None;
    for r in file.tags.refs.iter().filter(|r| r.line == line) {
        if !matches(r.name, tok, &mut seen) {
            continue;
        }
        let rank = match r.kind {
            RefKind::Call => 0,
            RefKind::Import => 1,
            _ => 2,
        };
        if best_ref.is_none_or(|b| rank < b.0) {
            best_ref = Some((rank, r.name, r.kind));
        }
    }
    if let Some((_, name, kind)) = best_ref {
        out.evidence = match kind {
            RefKind::Call => Evidence::Call,
            RefKind::Import => Evidence::Import,
            _ => Evidence::Reference,
        };
        out.symbol = Some(name.to_string());
        return out;
    }
    // No tagged use on the line: is the match in code or in a comment/string? Lexed from
    // the chunk's first line, so a line inside a block comment, a docstring or a template
    // literal is known to be one.
    let mut code_word: Option<String> = None;
    let mut text_word: Option<(f32, String)> = None;
    let from = ch.start.min(line);
    lex::lex_lines(
        (from..=line).map(|n| get_line(n).unwrap_or("")),
        from,
        file.lang,
        |n, seg, piece| {
            if n != line {
                return;
            }
            for word in words(piece) {
                let wt = line_weight(word, terms, tok, &mut seen);
                if wt <= 0.0 {
                    continue;
                }
                if seg == Seg::Code {
                    if code_word.is_none() {
                        code_word = Some(word.to_string());
                    }
                } else if text_word.as_ref().is_none_or(|b| wt > b.0) {
                    text_word = Some((wt, word.to_string()));
                }
            }
        },
    );
    if let Some(word) = code_word {
        if let Some(def) = def.filter(|d| d.signature.contains(line)) {
            out.evidence = Evidence::Definition;
            out.symbol = Some(def.name.clone());
            out.kind = Some(def.kind.name().to_string());
            out.lines = def.lines;
            out.excerpt = definition_excerpt(file, def);
        } else {
            out.evidence = Evidence::Reference;
            out.symbol = Some(word);
        }
    } else {
        // Only in a comment or a string: text, showing the word that matched.
        out.symbol = text_word
            .map(|(_, w)| w)
            .or_else(|| best_word(text, terms, tok, &mut seen));
    }
    out
}

/// The words of a line as an identifier scanner sees them (`$` and `_` are word characters).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$'))
        .filter(|w| !w.is_empty())
}

/// The word of `text` that carries the most query weight (first on ties), for the symbol
/// column of a text hit.
fn best_word(
    text: &str,
    terms: &[(u64, f32)],
    tok: &mut Tokenizer,
    seen: &mut Vec<u64>,
) -> Option<String> {
    let mut best: Option<(f32, &str)> = None;
    for word in words(text) {
        let wt = line_weight(word, terms, tok, seen);
        if wt > 0.0 && best.is_none_or(|b| wt > b.0) {
            best = Some((wt, word));
        }
    }
    best.map(|(_, w)| w.to_string())
}
