//! Running one query against a built `SearchIndex` (on the caller's thread): accumulate
//! postings, name and path matches into thread-local score arrays, aggregate per file,
//! diffuse over the graph, pick hits and explain each one with its evidence line.
//!
//! Per-query work is proportional to the matched postings; the only corpus-sized memory is
//! the reusable score arrays, which are reset through their touched lists.
//!
//! A look-up (`query::read`: one symbol, bare or qualified, alone or in a phrase) ranks in
//! tiers ([`Tier`]): each definition of its name gets one (how its name and container match,
//! then implementation before tests, a test module's definitions among the tests, a class
//! before its own constructor, code before a field of the same name, a C/C++ body before its
//! header declaration, an implementation before its signature), and a hit or file in a
//! better tier is lifted above every one in a worse tier, keeping the score order within
//! each. What is not a definition of the name (its uses, text, stem and fuzzy matches) stays
//! below, by score. Queries that are not look-ups (words, sentences, commit messages) have no
//! tiers: score order alone.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

use crate::engine::base::scope::{Scope, ScopeSpec};
use globset::{Glob, GlobSet, GlobSetBuilder};

use super::container::{container_of, file_matches, match_container, outer_match};
use super::describe::{def_of, describe, is_declaration, is_import_binding};
use super::glossary::Glossary;
use super::matcher::{FuzzyMatcher, FuzzyNeedle};
use super::query::{self, QueryPlan, QueryRead};
use super::tokenize::Tokenizer;
use super::{
    field, Confidence, Evidence, Intent, NameMatch, RetrievalCounts, SearchContext, SearchError,
    SearchHit, SearchIndex, SearchOptions, SearchResponse, SearchWeights, Signals, TermEntry, Unit,
    MAX_TOP,
};
use crate::engine::base::model::{DefKind, Definition, ParsedFile};
use crate::engine::base::paths::PathClass;
use crate::engine::base::words::normalize_name;

mod factors;
mod filter;
mod graph;
mod pairs;

use factors::{len_norm, penalty, prior_mult};
pub(crate) use filter::Filter;
use graph::spread;
use pairs::{cap_test_hits, order_pairs, test_pairs};

const NO_CHUNK: u32 = u32::MAX;
/// How many chunks after the best one count toward a file's score.
const RUNNERS_UP: usize = 3;
/// The best this-many implementation files lend score to their tests.
const COMPANION_SOURCES: usize = 16;
/// Hits considered for "who calls X" before its uses are put first.
const CALLERS_POOL: usize = 32;

/// Where a definition stands in a look-up's ranking; smaller is better, field by field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Tier {
    level: NameMatch,
    /// Outer container segments typed but not found (`axum::routing::Router`).
    outer_missing: u8,
    /// The container matched only up to case.
    container_folded: bool,
    /// A test, example, fixture or other demoted file, or a definition in a test module
    /// (unless the query is about tests).
    secondary: bool,
    /// A member named like its own container: a constructor, after its class.
    own_member: bool,
    /// A data member (`DefKind::Field`), after code of the same name: `routes` is the method
    /// before the field it returns.
    field: bool,
    /// A declaration without a body (a C/C++ prototype, an overload's signature), after the
    /// definition with the body.
    declaration: bool,
    /// The same qualified name defined again further down the same file (a macro under
    /// another `#if` branch, a conditional redefinition): after the first, which is where a
    /// reader meets it.
    redefinition: bool,
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
    /// A look-up's tier, for the definitions it names.
    tier: Option<Tier>,
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
    /// A look-up's best tier among the file's chunks, and that chunk.
    tier: Option<Tier>,
    tier_chunk: u32,
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
            tier: None,
            tier_chunk: NO_CHUNK,
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
    let read = query::read(query);
    let Ok(filter) = Filter::new(opts) else {
        return SearchResponse::empty(elapsed(), read);
    };
    if !consistent {
        return SearchResponse::empty(elapsed(), read);
    }
    let plan = query::parse(read.search_text(query), &idx.weights, Glossary::embedded());
    if plan.terms.is_empty() && plan.names.is_empty() {
        return SearchResponse::empty(elapsed(), read);
    }
    // A file qualifier restricts the search to the files it names, when it names any.
    let only_file = read
        .lookup
        .as_ref()
        .and_then(|l| l.file.as_deref())
        .filter(|f| {
            idx.units
                .iter()
                .any(|u| !u.hidden && file_matches(&u.path, f))
        });
    let mut resp = SCRATCH.with(|cell| {
        let args = (&plan, &read, only_file, opts, &filter);
        match cell.try_borrow_mut() {
            Ok(mut s) => run(idx, ctx, args, &mut s),
            Err(_) => run(idx, ctx, args, &mut Scratch::default()),
        }
    });
    resp.latency_ms = elapsed();
    resp.read = read;
    resp
}

type RunArgs<'q> = (
    &'q QueryPlan,
    &'q QueryRead,
    Option<&'q str>,
    &'q SearchOptions,
    &'q Filter,
);

fn run(idx: &SearchIndex, ctx: &SearchContext, args: RunArgs, s: &mut Scratch) -> SearchResponse {
    let (plan, read, only_file, opts, filter) = args;
    s.prepare(idx.chunks.len(), idx.units.len());
    let pass = Pass {
        idx,
        ctx,
        plan,
        read,
        only_file,
        opts,
        filter,
        w: &idx.weights,
    };
    let mut counts = RetrievalCounts {
        query_terms: plan.literal_terms(),
        expanded_terms: plan.terms.len() - plan.literal_terms(),
        ..Default::default()
    };
    pass.score_terms(s);
    pass.score_names(s, &mut counts);
    pass.tier_lookup(s);
    pass.weigh_fields(s);
    counts.chunks_matched = s.touched_chunks.len();
    pass.gather_files(s);
    pass.diffuse(s);
    let mut files = pass.score_files(s, &mut counts);
    if pass.w.test_companion > 0.0 {
        pass.lift_companions(s, &mut files);
    }
    let pairs = pass.tests_under_impl(s, &mut files);
    lift_tiers(&mut files, |u| s.units[u as usize].tier);
    files.sort_by(|a, b| {
        b.0.total_cmp(&a.0).then_with(|| {
            idx.units[a.1 as usize]
                .path
                .cmp(&idx.units[b.1 as usize].path)
        })
    });
    let top = opts.top.clamp(1, MAX_TOP);
    files.truncate(top);
    let callers = read.intent == Some(Intent::Callers) && !opts.files_mode;
    let pool = if callers { top.max(CALLERS_POOL) } else { top };
    let mut chosen = pass.choose_hits(s, &files, &pairs, pool);
    let mut hits = pass.hits(s, &chosen);
    if callers {
        uses_first(read, s, &mut chosen, &mut hits, top);
    }
    let confidence = pass.confidence(s, &chosen, &files, &hits);
    let matches = chosen
        .iter()
        .map(|&(_, c)| s.chunks[c as usize].tier.map(|t| t.level))
        .collect();
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
        read: QueryRead::default(),
        matches,
    }
}

/// "Who calls X": the best definition of X first, then the hits that use X (calls,
/// references, imports), then the rest, cut to `top`.
fn uses_first(
    read: &QueryRead,
    s: &Scratch,
    chosen: &mut Vec<(f32, u32)>,
    hits: &mut Vec<SearchHit>,
    top: usize,
) {
    let Some(lookup) = &read.lookup else {
        hits.truncate(top);
        chosen.truncate(top);
        return;
    };
    let name = normalize_name(&lookup.name);
    let rank = |i: usize, h: &SearchHit| -> u8 {
        let c = chosen[i].1;
        let uses = matches!(
            h.evidence,
            Evidence::Call | Evidence::Reference | Evidence::Import
        ) && h
            .symbol
            .as_deref()
            .is_some_and(|sym| normalize_name(sym) == name);
        if i == 0 && s.chunks[c as usize].tier.is_some() {
            0
        } else if uses {
            1
        } else {
            2
        }
    };
    let mut order: Vec<(u8, usize)> = hits
        .iter()
        .enumerate()
        .map(|(i, h)| (rank(i, h), i))
        .collect();
    order.sort_unstable();
    order.truncate(top);
    let mut new_hits = Vec::with_capacity(order.len());
    let mut new_chosen = Vec::with_capacity(order.len());
    for &(_, i) in &order {
        new_hits.push(hits[i].clone());
        new_chosen.push(chosen[i]);
    }
    *hits = new_hits;
    *chosen = new_chosen;
}

/// Lifts each tier's items above every item of a worse tier (and above the untiered),
/// adding one offset per tier so that the score order within it is kept: after this, score
/// order is tier order.
fn lift_tiers(items: &mut [(f32, u32)], tier_of: impl Fn(u32) -> Option<Tier>) {
    let mut tiers: Vec<Tier> = items.iter().filter_map(|x| tier_of(x.1)).collect();
    if tiers.is_empty() {
        return;
    }
    tiers.sort_unstable();
    tiers.dedup();
    let mut floor = items
        .iter()
        .filter(|x| tier_of(x.1).is_none())
        .map(|x| x.0)
        .fold(0.0f32, f32::max);
    for tier in tiers.iter().rev() {
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for x in items.iter().filter(|x| tier_of(x.1) == Some(*tier)) {
            lo = lo.min(x.0);
            hi = hi.max(x.0);
        }
        let margin = (floor.abs() * 0.01).max(1e-3);
        let offset = (floor + margin - lo).max(0.0);
        if offset > 0.0 {
            for x in items.iter_mut().filter(|x| tier_of(x.1) == Some(*tier)) {
                x.0 += offset;
            }
        }
        floor = floor.max(hi + offset);
    }
}

/// One query's pass over the index, stage by stage: terms, names, files, graph diffusion,
/// file scores (with tests beside their code), hits, confidence. The scores accumulate in
/// the thread's `Scratch`.
struct Pass<'a, 'c> {
    idx: &'a SearchIndex,
    ctx: &'a SearchContext<'c>,
    plan: &'a QueryPlan,
    read: &'a QueryRead,
    /// A look-up's file qualifier, when some file matches it: the only files searched.
    only_file: Option<&'a str>,
    opts: &'a SearchOptions,
    filter: &'a Filter,
    w: &'a SearchWeights,
}

impl Pass<'_, '_> {
    /// BM25F postings, whole-file postings, the history's and the path tokens'.
    fn score_terms(&self, s: &mut Scratch) {
        let (idx, w) = (self.idx, self.w);
        for t in &self.plan.terms {
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
            if let Some(h) = self
                .ctx
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
    }

    /// Symbol names: exact (case/underscore-insensitive, stemmed), else fuzzy.
    fn score_names(&self, s: &mut Scratch, counts: &mut RetrievalCounts) {
        let (idx, w) = (self.idx, self.w);
        let content = self.plan.content_words().max(1);
        // Made on the first fuzzy lookup: most queries match names exactly or not at all.
        let mut fuzzy: Option<FuzzyMatcher> = None;
        for cand in &self.plan.names {
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
                    let Some(def) = def_of(idx, self.ctx, c) else {
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
                    acc.exact_typed |=
                        folded && cand.typed && (cand.identifier_like || whole_query);
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
    }

    /// A look-up's tiers: each definition of its name (and, qualified, of its innermost
    /// container) gets the `Tier` its name, container and place give it. Import bindings
    /// (`const x = require('./x').x`) are uses, not definitions: they get none.
    fn tier_lookup(&self, s: &mut Scratch) {
        let Some(lookup) = &self.read.lookup else {
            return;
        };
        let (idx, ctx) = (self.idx, self.ctx);
        let qualified = !lookup.container.is_empty() || self.only_file.is_some();
        let defs_named = |name: &str| -> Vec<u32> {
            let norm = normalize_name(name);
            let key = super::build::name_key(&norm);
            let lo = idx.names.partition_point(|x| x.0 < key);
            let hi = idx.names.partition_point(|x| x.0 <= key);
            idx.names[lo..hi]
                .iter()
                .map(|&(_, c)| c)
                .filter(|&c| def_of(idx, ctx, c).is_some_and(|d| normalize_name(&d.name) == norm))
                .collect()
        };
        let place = |c: u32| {
            let u = idx.chunks[c as usize].unit as usize;
            let def = def_of(idx, ctx, c)?;
            let file = ctx.files.get(u)?;
            (!is_import_binding(file, def)).then_some((u, def, file))
        };
        let named = defs_named(&lookup.name);
        // What the tags say is declared without a body (`Definition::declaration`) goes below
        // a definition of the same qualified name that has one: an overload's or a `declare`d
        // function's implementation. An interface's or abstract member, whose
        // implementations are other types' members, keeps its place by score.
        let qualified_key = |file: &ParsedFile, def: &Definition| {
            file.tags
                .qualified_name(def)
                .unwrap_or_else(|| def.name.clone())
        };
        // Each definition's place and qualified name, once: `place` reads the file's lines
        // (an import binding's test) and the key is a string.
        let placed: Vec<(u32, usize, &Definition, &ParsedFile, String)> = named
            .iter()
            .filter_map(|&c| {
                place(c).map(|(u, def, file)| (c, u, def, file, qualified_key(file, def)))
            })
            .collect();
        let with_body: HashSet<&str> = placed
            .iter()
            .filter(|(_, _, def, _, _)| !def.declaration)
            .map(|(_, _, _, _, key)| key.as_str())
            .collect();
        let mut first_line: HashMap<(usize, &str), u32> = HashMap::new();
        for (_, u, def, _, key) in &placed {
            let line = first_line.entry((*u, key.as_str())).or_insert(u32::MAX);
            *line = (*line).min(def.lines.start);
        }
        for (c, u, def, file, key) in &placed {
            let (c, u, def, file) = (*c, *u, *def, *file);
            let path = container_of(def, file);
            let in_container = if lookup.container.is_empty() {
                self.only_file.map(|_| Default::default())
            } else {
                match_container(&lookup.container, &path)
            };
            let exact = def.name == lookup.name;
            let level = match (qualified && in_container.is_some(), exact) {
                (true, true) => NameMatch::InContainer,
                (true, false) => NameMatch::InContainerFolded,
                (false, true) => NameMatch::Exact,
                (false, false) => NameMatch::Folded,
            };
            let m = in_container.unwrap_or_default();
            let tier = Tier {
                level,
                outer_missing: m.outer_missing,
                container_folded: m.folded,
                secondary: penalty(idx, u, self.plan) < 1.0
                    || (path.in_test_module() && !self.plan.wants_tests),
                own_member: matches!(def.kind, DefKind::Function | DefKind::Method)
                    && path.innermost() == Some(def.name.as_str()),
                field: def.kind == DefKind::Field,
                declaration: is_declaration(file, def)
                    || (def.declaration && with_body.contains(key.as_str())),
                redefinition: first_line
                    .get(&(u, key.as_str()))
                    .is_some_and(|&first| def.lines.start > first),
            };
            let acc = s.chunk(c);
            acc.tier = Some(acc.tier.map_or(tier, |t| t.min(tier)));
        }
        let Some((inner, outer)) = lookup.container.split_last() else {
            return;
        };
        // The container itself: below its members of the name, above that name elsewhere.
        for c in defs_named(inner) {
            let Some((u, def, file)) = place(c) else {
                continue;
            };
            let m = outer_match(outer, &container_of(def, file));
            let tier = Tier {
                level: NameMatch::Container,
                outer_missing: m.outer_missing,
                container_folded: m.folded || def.name != *inner,
                secondary: penalty(idx, u, self.plan) < 1.0,
                own_member: false,
                field: false,
                declaration: is_declaration(file, def),
                redefinition: false,
            };
            let strength = self.w.name_container as f32;
            let acc = s.chunk(c);
            acc.name = acc.name.max(strength);
            acc.tier = Some(acc.tier.map_or(tier, |t| t.min(tier)));
        }
    }

    /// A field's chunk (its name only) in a query that is not a look-up: weighed by
    /// `SearchWeights::field_chunks`. Its line is its type's text either way.
    fn weigh_fields(&self, s: &mut Scratch) {
        let f = self.w.field_chunks as f32;
        if self.read.lookup.is_some() || f == 1.0 {
            return;
        }
        for i in 0..s.touched_chunks.len() {
            let c = s.touched_chunks[i];
            if def_of(self.idx, self.ctx, c).is_some_and(|d| d.kind == DefKind::Field) {
                let acc = s.chunk(c);
                acc.bm25 *= f;
                acc.name *= f;
            }
        }
    }

    /// Each touched chunk's score to its file: the best chunk, and the runners-up a little.
    fn gather_files(&self, s: &mut Scratch) {
        let name_w = self.w.name as f32;
        for i in 0..s.touched_chunks.len() {
            let c = s.touched_chunks[i];
            let acc = s.chunks[c as usize];
            let total = acc.bm25 + name_w * acc.name;
            let u = self.idx.chunks[c as usize].unit;
            let ua = s.unit(u);
            ua.has_text = true;
            ua.concepts |= acc.concepts;
            if let Some(t) = acc.tier {
                let shown = ua.tier_chunk;
                let better = match ua.tier {
                    None => true,
                    Some(b) if t != b => t < b,
                    Some(_) => {
                        let was = s.chunks[shown as usize];
                        total > was.bm25 + name_w * was.name
                    }
                };
                if better {
                    let ua = s.unit(u);
                    ua.tier = Some(t);
                    ua.tier_chunk = c;
                }
            }
            let ua = s.unit(u);
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
        for i in 0..s.touched_units.len() {
            let u = s.touched_units[i] as usize;
            self.prepare(s, u);
        }
    }

    /// A unit's filter verdict and static multipliers, once.
    fn prepare(&self, s: &mut Scratch, u: usize) {
        if s.units[u].prepared {
            return;
        }
        let idx = self.idx;
        let unit = &idx.units[u];
        let ua = UnitAcc {
            prepared: true,
            allowed: self.filter.allows(unit)
                && self.only_file.is_none_or(|f| file_matches(&unit.path, f)),
            penalty: penalty(idx, u, self.plan),
            prior_mult: prior_mult(self.ctx, u, idx.n_files, self.w.prior),
            len_norm: len_norm(idx, u),
            ..s.units[u]
        };
        s.units[u] = ua;
    }

    /// A file's score from its own text, path, whole-file terms and history. Coordination:
    /// a file that covers more of the query's concepts (anywhere in its text or path) is
    /// worth more than its best-scoring terms alone say.
    fn base(&self, ua: &UnitAcc) -> f32 {
        let w = self.w;
        let text = (ua.best + w.file_rest as f32 * ua.runners_up.iter().sum::<f32>()) * ua.len_norm
            + w.path as f32 * ua.path
            + w.file_bm25 as f32 * ua.file
            + w.history as f32 * ua.hist;
        let total_concepts = self.plan.total_concept_weight();
        let coord = w.coord as f32;
        if coord > 0.0 && total_concepts > 0.0 {
            let cov = self.plan.concept_weight(ua.concepts | ua.path_concepts) / total_concepts;
            text * cov.clamp(0.0, 1.0).powf(coord)
        } else {
            text
        }
    }

    /// Graph diffusion, one and two hops, from the best allowed code files.
    fn diffuse(&self, s: &mut Scratch) {
        let (idx, w) = (self.idx, self.w);
        let mut sources: Vec<(f32, u32)> = s
            .touched_units
            .iter()
            .filter_map(|&u| {
                let ua = &s.units[u as usize];
                let v = self.base(ua) * ua.penalty;
                ((u as usize) < idx.n_files && ua.allowed && v > 0.0).then_some((v, u))
            })
            .collect();
        sources.sort_by(by_score_desc);
        sources.truncate(w.graph_sources);
        if w.graph_hop1 <= 0.0 {
            return;
        }
        for &(v, u) in &sources {
            spread(self.ctx, idx.n_files, u, v, s, |a, x| a.g1 += x);
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
                spread(self.ctx, idx.n_files, u, v, s, |a, x| a.g2 += x);
            }
        }
    }

    /// File scores: text, graph, penalty and prior; (score, unit) of each file that scored.
    fn score_files(&self, s: &mut Scratch, counts: &mut RetrievalCounts) -> Vec<(f32, u32)> {
        let w = self.w;
        let mut files: Vec<(f32, u32)> = Vec::new();
        for i in 0..s.touched_units.len() {
            let u = s.touched_units[i];
            self.prepare(s, u as usize);
            let base = self.base(&s.units[u as usize]);
            let ua = &mut s.units[u as usize];
            if !ua.allowed {
                continue;
            }
            ua.graph = (w.graph_hop1 as f32) * ua.g1 + (w.graph_hop2 as f32) * ua.g2;
            ua.score =
                (base + ua.graph) * ua.penalty * ua.prior_mult + w.history_post as f32 * ua.hist;
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
        files
    }

    /// Tests follow what they test: the best implementation files lend part of their score
    /// to their test files (`python.py` → `test_python.py`, `head.go` → `head_test.go`).
    fn lift_companions(&self, s: &mut Scratch, files: &mut Vec<(f32, u32)>) {
        let (idx, w) = (self.idx, self.w);
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
                self.prepare(s, t as usize);
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

    /// Tests under the code they test (unless the query is about tests): the (test,
    /// implementation) pairs ordered in `files`.
    fn tests_under_impl(&self, s: &mut Scratch, files: &mut Vec<(f32, u32)>) -> Vec<(u32, u32)> {
        let idx = self.idx;
        let pairs = if self.w.test_under_impl && !self.plan.wants_tests {
            test_pairs(idx, s, |u| self.filter.allows(&idx.units[u as usize]))
        } else {
            Vec::new()
        };
        for &(_, i) in &pairs {
            s.unit(i);
            self.prepare(s, i as usize);
        }
        if !pairs.is_empty() {
            order_pairs(s, files, &pairs, self.w.test_impl_lift as f32);
        }
        pairs
    }

    /// A chunk's score as a hit: its own text and name, its file's path, history and graph.
    fn hit_score(&self, s: &Scratch, c: u32) -> f32 {
        let w = self.w;
        let acc = &s.chunks[c as usize];
        let ua = &s.units[self.idx.chunks[c as usize].unit as usize];
        (acc.bm25
            + w.name as f32 * acc.name
            + w.path as f32 * ua.path
            + w.history as f32 * ua.hist
            + ua.graph)
            * ua.penalty
            * ua.prior_mult
            + w.history_post as f32 * ua.hist
    }

    /// (hit score, chunk) of the hits shown, best first: each file's best chunk in files
    /// mode, else the best chunks (a few per file).
    fn choose_hits(
        &self,
        s: &mut Scratch,
        files: &[(f32, u32)],
        pairs: &[(u32, u32)],
        top: usize,
    ) -> Vec<(f32, u32)> {
        let idx = self.idx;
        if self.opts.files_mode {
            return files
                .iter()
                .map(|&(_, u)| {
                    let ua = &s.units[u as usize];
                    if ua.tier.is_some() {
                        ua.tier_chunk
                    } else {
                        ua.best_chunk
                    }
                })
                .filter(|&c| c != NO_CHUNK)
                .map(|c| (self.hit_score(s, c), c))
                .collect();
        }
        let mut cands: Vec<(f32, u32)> = s
            .touched_chunks
            .iter()
            .filter(|&&c| s.units[idx.chunks[c as usize].unit as usize].allowed)
            .map(|&c| (self.hit_score(s, c), c))
            .filter(|x| x.0 > 0.0)
            .collect();
        let per_file = self.w.max_hits_per_file.max(1);
        if !pairs.is_empty() {
            cap_test_hits(idx, s, &mut cands, per_file);
        }
        lift_tiers(&mut cands, |c| s.chunks[c as usize].tier);
        pick_hits(idx, &mut cands, top, per_file)
    }

    /// The chosen chunks as hits, each with its evidence and the signals that scored it.
    fn hits(&self, s: &Scratch, chosen: &[(f32, u32)]) -> Vec<SearchHit> {
        let (idx, w) = (self.idx, self.w);
        let mut tok = Tokenizer::default();
        let mut term_index: Vec<(u64, f32)> =
            self.plan.terms.iter().map(|t| (t.hash, t.weight)).collect();
        term_index.sort_by_key(|x| x.0);
        chosen
            .iter()
            .map(|&(score, c)| {
                let acc = s.chunks[c as usize];
                let ua = s.units[idx.chunks[c as usize].unit as usize];
                let matched_name = acc.name > 0.0 || acc.fields & field::NAME != 0;
                let ev = describe(idx, self.ctx, c, matched_name, &term_index, &mut tok);
                let signals = Signals {
                    bm25: f64::from(acc.bm25),
                    name: f64::from(w.name as f32 * acc.name),
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
            .collect()
    }

    /// High when the top hit is the definition of the identifier typed; low when nothing
    /// matched or the best hits cover too little of the query; else medium.
    fn confidence(
        &self,
        s: &Scratch,
        chosen: &[(f32, u32)],
        files: &[(f32, u32)],
        hits: &[SearchHit],
    ) -> Confidence {
        let (idx, plan) = (self.idx, self.plan);
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
        // Text in tests, fixtures and other secondary code is data (sample strings,
        // placeholders: `asdf`, `aaa bbb ccc`), not words about the code: hits that are all
        // such text, with no name or path matching, say nothing of where the query's subject
        // lives.
        let only_test_data = !chosen.is_empty()
            && chosen.iter().zip(hits).all(|(&(_, c), hit)| {
                let u = idx.chunks[c as usize].unit as usize;
                let unit = &idx.units[u];
                hit.evidence == Evidence::Text
                    && u < idx.n_files
                    && (unit.class != PathClass::Impl || unit.fixture)
                    && s.units[u].path_concepts == 0
            });
        if exact_top {
            Confidence::High
        } else if (hits.is_empty() && files.is_empty())
            || f64::from(best_cov) < self.w.low_coverage
            || only_test_data
        {
            Confidence::Low
        } else {
            Confidence::Medium
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
