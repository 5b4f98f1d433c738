//! Personalized PageRank over the file graph, and the ranking of definitions from it.
//!
//! Owns the power iteration (sparse CSR, weighted, personalized; petgraph's `page_rank` is
//! dense and unweighted, and the graph is the CSR tables of `graph` alone), the personalization vector (focus files, mentioned identifiers,
//! free-text query) and the distribution of file rank onto definitions. Pure functions of an
//! immutable `FileGraph`, called on the engine worker thread for every map request; all heavy
//! preparation happened in `graph::build_graph`, so a call only re-personalizes, iterates,
//! distributes and sorts.

use crate::engine::base::model::{ParsedFile, RankedDef, RankedPath};
use crate::engine::base::stopwords::is_stopword_or_change_word;
use crate::engine::base::words::{
    has_inner_capital, normalize_name, query_pieces, split_words, QueryChar, QueryPiece,
};
use crate::engine::link::graph::FileGraph;
use crate::engine::rank::task::Pin;
use std::collections::HashSet;

/// Share of the personalization mass the focus files get when other signals exist too.
const FOCUS_SHARE: f64 = 0.6;
/// A small uniform share, so files no signal reaches are still ordered by structure.
pub(crate) const UNIFORM_SHARE: f64 = 0.01;
/// Weight of a supporting file (test, fixture, example, playground; `graph::FileGraph::
/// supporting`) in the uniform share, against 1 for implementation. Why: an unpersonalized
/// map is about the project's code, and small closed import cycles among fixtures keep the
/// rank they receive (a 2-file cycle holds ~1/n each, several times a plain leaf), so at
/// full weight a repo's playgrounds crowd its core out of the map. Explicit signals (focus
/// files, identifiers) are not weighted; the words of a query are, unless the query is about
/// tests or examples (`wants_supporting`): "server" names vite's `server/` folder and also
/// forty playgrounds' `server.js`, and the map asked for is the project's server.
pub const SUPPORTING_PRIOR: f64 = 0.2;

/// Query words that ask for supporting code, besides search's test words.
const SUPPORTING_WORDS: &[&str] = &[
    "playground",
    "playgrounds",
    "example",
    "examples",
    "demo",
    "demos",
    "benchmark",
    "benchmarks",
];

/// Whether a query's words ask for tests, fixtures, examples or playgrounds.
pub(crate) fn wants_supporting(tokens: &[QueryToken]) -> bool {
    tokens
        .iter()
        .flat_map(|t| &t.words)
        .any(|w| crate::engine::search::is_test_word(w) || SUPPORTING_WORDS.contains(&w.as_str()))
}

/// Share of its rank an external stub (`graph::FileGraph::external_stubs`: `.pyi` of code not
/// in the repository) passes along its edges; the rest teleports. Why: hundreds of stdlib
/// stubs a type checker ships (`mypy/typeshed`) all import `typing.pyi`, and without this
/// their circulation alone fills a map of mypy with the standard library's declarations.
pub const EXTERNAL_STUB_PASS: f64 = 0.2;
/// Edges carrying a mentioned identifier count this many times more (as in aider).
const MENTION_BOOST: f64 = 10.0;
/// Fraction of a file's rank spread evenly over its definitions, so every definition is
/// ranked and definitions of a highly ranked file that nobody references still show.
const DEF_BASELINE: f64 = 0.1;
/// Only this many best query-matching files are personalized: a query word that matches a
/// thousand files says little, and spreading mass that thin just flattens the ranking.
const QUERY_TOP_FILES: usize = 64;

/// What the user cares about right now.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Personalization {
    /// Files in the conversation (aider's chat files): most of the personalization mass, so
    /// the files they use rise; their own definitions are left out of `defs`.
    pub focus_files: Vec<usize>,
    /// Identifiers mentioned by the user: files defining them, or named like them, are
    /// personalized and edges carrying them weigh ×10.
    pub idents: Vec<String>,
    /// Free text (a question, a commit message), read through `query_terms`.
    pub query: Option<String>,
    /// Files whose definitions must not be listed.
    pub exclude_files: Vec<usize>,
    /// Definition names that must not be listed.
    pub exclude_symbols: Vec<String>,
    /// Search's best code files for the query with their scores (`task::Task::
    /// search_files`): when present, they carry the query's personalization mass.
    pub task_files: Vec<(usize, f64)>,
    /// Share of the query's mass left to word matching when `task_files` is present.
    pub word_share: f64,
    /// Definitions that go first in the ranking, in this order (`task::Task::pins`); a pin
    /// without a definition stands for its file's best-ranked definition.
    pub pins: Vec<Pin>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PageRankOptions {
    pub damping: f64,
    /// Stop when the L1 change of an iteration is below this.
    pub tolerance: f64,
    pub max_iterations: usize,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions {
            damping: 0.85,
            tolerance: 1e-9,
            max_iterations: 100,
        }
    }
}

/// Weighted personalized PageRank over `n` nodes. Edges with an out-of-range node or a
/// weight that is not a positive finite number are ignored; parallel edges add up; self-loops
/// count. Out-weights are normalized per node; a node without out-weight (dangling) gives its
/// mass back through the personalization vector, which is normalized (negative or non-finite
/// entries count as 0; none, or all zero, means uniform). The result is non-negative and sums
/// to 1 (empty for `n == 0`).
pub fn pagerank(
    n: usize,
    edges: &[(usize, usize, f64)],
    personalization: Option<&[f64]>,
    opts: &PageRankOptions,
) -> Vec<f64> {
    if n == 0 {
        return Vec::new();
    }
    let mut sorted: Vec<(usize, usize, f64)> = edges
        .iter()
        .copied()
        .filter(|&(s, d, w)| s < n && d < n && w.is_finite() && w > 0.0)
        .collect();
    sorted.sort_by_key(|&(s, d, _)| (s, d));
    let mut ptr = vec![0u32; n + 1];
    for &(s, _, _) in &sorted {
        ptr[s + 1] += 1;
    }
    for i in 0..n {
        ptr[i + 1] += ptr[i];
    }
    let dst: Vec<u32> = sorted.iter().map(|&(_, d, _)| d as u32).collect();
    let w: Vec<f64> = sorted.iter().map(|&(_, _, w)| w).collect();
    let norm = normalize_rows(n, &ptr, &w);
    let p = normalize_personalization(n, personalization);
    power_iterate(n, &ptr, &dst, &norm, &p, opts)
}

/// Each edge weight divided by its source's total out-weight.
fn normalize_rows(n: usize, ptr: &[u32], w: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; w.len()];
    for i in 0..n {
        let r = ptr[i] as usize..ptr[i + 1] as usize;
        let sum: f64 = w[r.clone()].iter().sum();
        if sum > 0.0 && sum.is_finite() {
            for e in r {
                out[e] = w[e] / sum;
            }
        }
    }
    out
}

fn normalize_personalization(n: usize, p: Option<&[f64]>) -> Vec<f64> {
    let uniform = || vec![1.0 / n as f64; n];
    let Some(p) = p else {
        return uniform();
    };
    let mut v: Vec<f64> = (0..n)
        .map(|i| {
            p.get(i)
                .copied()
                .filter(|x| x.is_finite() && *x > 0.0)
                .unwrap_or(0.0)
        })
        .collect();
    let sum: f64 = v.iter().sum();
    if !(sum.is_finite() && sum > 0.0) {
        return uniform();
    }
    for x in &mut v {
        *x /= sum;
    }
    v
}

/// Power iteration on row-normalized CSR weights (`w` of a row sums to at most 1; an
/// empty/zero row is dangling). What a row does not pass on teleports like a dangling node's
/// rank. `p` must be a probability vector.
fn power_iterate(
    n: usize,
    ptr: &[u32],
    dst: &[u32],
    w: &[f64],
    p: &[f64],
    opts: &PageRankOptions,
) -> Vec<f64> {
    let d = if opts.damping.is_finite() {
        opts.damping.clamp(0.0, 1.0)
    } else {
        0.85
    };
    let tol = if opts.tolerance.is_finite() {
        opts.tolerance
    } else {
        1e-9
    };
    // A row whose weights are all zero (e.g. NaN filtered out) is dangling too.
    let dangling: Vec<bool> = (0..n)
        .map(|i| {
            !w[ptr[i] as usize..ptr[i + 1] as usize]
                .iter()
                .any(|&x| x > 0.0)
        })
        .collect();
    // What each row keeps back (0 for a full row, up to float error; 1 for a dangling one).
    let held: Vec<f64> = (0..n)
        .map(|i| {
            if dangling[i] {
                return 1.0;
            }
            let passed: f64 = w[ptr[i] as usize..ptr[i + 1] as usize]
                .iter()
                .filter(|x| **x > 0.0)
                .sum();
            if passed < 1.0 - 1e-9 {
                1.0 - passed
            } else {
                0.0
            }
        })
        .collect();
    let mut x = p.to_vec();
    let mut next = vec![0.0; n];
    for _ in 0..opts.max_iterations {
        next.fill(0.0);
        let mut lost = 0.0;
        for i in 0..n {
            let xi = x[i];
            if dangling[i] {
                lost += xi;
                continue;
            }
            if xi == 0.0 {
                continue;
            }
            lost += xi * held[i];
            let r = ptr[i] as usize..ptr[i + 1] as usize;
            for (&t, &we) in dst[r.clone()].iter().zip(&w[r]) {
                next[t as usize] += xi * we;
            }
        }
        let teleport = d * lost + (1.0 - d);
        let mut diff = 0.0;
        for i in 0..n {
            let v = d * next[i] + teleport * p[i];
            diff += (v - x[i]).abs();
            next[i] = v;
        }
        std::mem::swap(&mut x, &mut next);
        if diff < tol {
            break;
        }
    }
    // Renormalize: float drift over many iterations must not leak into "sums to 1".
    let sum: f64 = x.iter().map(|v| v.max(0.0)).sum();
    if sum > 0.0 && sum.is_finite() {
        for v in &mut x {
            *v = v.max(0.0) / sum;
        }
    } else {
        x = p.to_vec();
    }
    x
}

/// File ranks, the personalization used, and every rankable definition, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct RankOutput {
    pub file_rank: Vec<f64>,
    pub personalization: Vec<f64>,
    pub defs: Vec<RankedDef>,
    /// Path-only files (`Index::unsupported`), best first (`rank::path_only`; filled by
    /// `Index::rank`).
    pub paths: Vec<RankedPath>,
    /// How many of `defs` are pins (at the front, in pin order).
    pub pinned: usize,
    /// What the request's query and identifiers pointed at (filled by `Index::rank`).
    pub task: crate::engine::rank::task::Task,
}

/// Rank files and definitions for one request. `files` must be the files `graph` was built
/// from.
pub fn rank(files: &[ParsedFile], graph: &FileGraph, p: &Personalization) -> RankOutput {
    let n = graph.n;
    let tokens = query_tokens(p.query.as_deref().unwrap_or(""));
    let (mentions, boosted) = mentions(graph, p, &tokens);
    let is_boosted = |id: u32| boosted.get(id as usize).copied().unwrap_or(false);
    let (norm, out_sum) = normalized_edges(graph, &boosted);
    let pers = personalization_vector(graph, p, &mentions, &tokens);
    let file_rank = power_iterate(
        n,
        &graph.edges.ptr,
        &graph.edges.items,
        &norm,
        &pers,
        &PageRankOptions::default(),
    );
    let score = definition_scores(graph, &file_rank, &out_sum, is_boosted);
    let mut defs = ranked_definitions(files, graph, p, &file_rank, &score);
    let pinned = apply_pins(&mut defs, &p.pins);
    RankOutput {
        file_rank,
        personalization: pers,
        defs,
        paths: Vec::new(),
        pinned,
        task: crate::engine::rank::task::Task::default(),
    }
}

/// The identifiers the request mentions: the explicit ones, plus code-looking query tokens
/// that are defined somewhere (plain English words are left to word matching); and, per
/// identifier id, whether its edges are boosted (empty when none is).
fn mentions<'p>(
    graph: &FileGraph,
    p: &'p Personalization,
    tokens: &'p [QueryToken],
) -> (Vec<&'p str>, Vec<bool>) {
    let mut mentions: Vec<&str> = p.idents.iter().map(String::as_str).collect();
    for t in tokens {
        if t.code {
            mentions.push(&t.text);
        }
    }
    mentions.sort_unstable();
    mentions.dedup();
    let mut boosted: Vec<bool> = Vec::new();
    for m in &mentions {
        if let Some(id) = graph.ident_id(m) {
            if graph.ident_files.row(id as usize).is_empty() && p.idents.iter().all(|i| i != m) {
                continue;
            }
            if boosted.is_empty() {
                boosted = vec![false; graph.ident_files.ptr.len().saturating_sub(1)];
            }
            if let Some(b) = boosted.get_mut(id as usize) {
                *b = true;
            }
        }
    }
    (mentions, boosted)
}

/// Each edge's weight, mentioned identifiers boosted, as a share of its source's out-weight
/// (an external stub passes on only part of its rank); and each file's out-weight.
fn normalized_edges(graph: &FileGraph, boosted: &[bool]) -> (Vec<f64>, Vec<f64>) {
    let mut edge_w = graph.edge_w.clone();
    for (id, &b) in boosted.iter().enumerate() {
        if b {
            for &(e, t) in graph.ident_trips.row(id) {
                edge_w[e as usize] += (MENTION_BOOST - 1.0) * graph.trips.items[t as usize].1;
            }
        }
    }
    let out_sum: Vec<f64> = (0..graph.n)
        .map(|i| edge_w[graph.edges.range(i)].iter().sum())
        .collect();
    let mut norm = vec![0.0; edge_w.len()];
    for (i, &s) in out_sum.iter().enumerate() {
        if s > 0.0 && s.is_finite() {
            let pass = if graph.is_external_stub(i) {
                EXTERNAL_STUB_PASS
            } else {
                1.0
            };
            for e in graph.edges.range(i) {
                norm[e] = pass * edge_w[e] / s;
            }
        }
    }
    (norm, out_sum)
}

/// Each file's rank distributed over its out-edges ∝ weight, within an edge over its
/// identifiers ∝ weight, onto the definitions of that name in the target: a score per
/// global definition id.
fn definition_scores(
    graph: &FileGraph,
    file_rank: &[f64],
    out_sum: &[f64],
    is_boosted: impl Fn(u32) -> bool,
) -> Vec<f64> {
    let n_defs = graph.def_offset.last().copied().unwrap_or(0) as usize;
    let mut score = vec![0.0; n_defs];
    for src in 0..graph.n {
        let s = out_sum[src];
        if !(s > 0.0 && s.is_finite()) {
            continue;
        }
        let r = file_rank[src] / s;
        for e in graph.edges.range(src) {
            for t in graph.trips.range(e) {
                let (id, w) = graph.trips.items[t];
                let w = if is_boosted(id) { w * MENTION_BOOST } else { w };
                let defs = graph.trip_defs.row(t);
                if defs.is_empty() {
                    continue;
                }
                let share = r * w / defs.len() as f64;
                for &d in defs {
                    if let Some(x) = score.get_mut(d as usize) {
                        *x += share;
                    }
                }
            }
        }
    }
    score
}

/// Every definition the request may show with its score (a share of its file's rank as a
/// baseline, plus what the edges brought), best first.
fn ranked_definitions(
    files: &[ParsedFile],
    graph: &FileGraph,
    p: &Personalization,
    file_rank: &[f64],
    score: &[f64],
) -> Vec<RankedDef> {
    let n = graph.n;
    let mut excluded = vec![false; n];
    for &f in p.focus_files.iter().chain(&p.exclude_files) {
        if let Some(x) = excluded.get_mut(f) {
            *x = true;
        }
    }
    let skip_names: HashSet<&str> = p.exclude_symbols.iter().map(String::as_str).collect();
    // Nothing steers the map: no query, identifier, focus file or search result.
    let untargeted = p.query.is_none()
        && p.idents.is_empty()
        && p.focus_files.is_empty()
        && p.task_files.is_empty();
    let mut defs: Vec<RankedDef> = Vec::new();
    for (fi, file) in files.iter().enumerate().take(n) {
        if excluded[fi] {
            continue;
        }
        // Markers (`#define FOO_H_`) and fields are not shown, and take no share of the file's
        // rank.
        let nd = file.tags.defs.iter().filter(|d| !d.lookup_only).count();
        // Vendored code is reached through the tests that use it, not through the project:
        // its definitions weigh as a supporting file's prior does. So do tests', examples'
        // and fixtures' when nothing steers the map: a newcomer's first view is the project,
        // not the test library a thousand tests share (git's `t/test-lib.sh`).
        let scale = if file.vendored || (untargeted && graph.is_supporting(fi)) {
            SUPPORTING_PRIOR
        } else {
            1.0
        };
        let base = DEF_BASELINE * file_rank[fi] / nd.max(1) as f64;
        let off = graph.def_offset[fi] as usize;
        for (di, d) in file.tags.defs.iter().enumerate() {
            if d.lookup_only || skip_names.contains(d.name.as_str()) {
                continue;
            }
            let s = scale * (score.get(off + di).copied().unwrap_or(0.0) + base);
            defs.push(RankedDef {
                file: fi,
                def: di,
                score: s,
            });
        }
    }
    // Best first; ties by path, line, name, then position (a total order, so the unstable
    // sort is deterministic). The path's order and the line sit beside each definition so
    // that comparisons do not chase into the files' tags (mypy: ~40k definitions).
    let mut keyed: Vec<(RankedDef, u32, u32)> = defs
        .into_iter()
        .map(|d| {
            let line = files[d.file].tags.defs[d.def].lines.start;
            (d, graph.path_order[d.file], line)
        })
        .collect();
    keyed.sort_unstable_by(|(a, a_path, a_line), (b, b_path, b_line)| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a_path.cmp(b_path))
            .then_with(|| a_line.cmp(b_line))
            .then_with(|| {
                let da = &files[a.file].tags.defs[a.def];
                let db = &files[b.file].tags.defs[b.def];
                da.name.cmp(&db.name)
            })
            .then_with(|| a.def.cmp(&b.def))
    });
    keyed.into_iter().map(|(d, _, _)| d).collect()
}

/// Moves the pinned definitions to the front of `defs` (best first), in pin order; a pin
/// without a definition takes its file's best-ranked one not pinned yet. Pins of excluded
/// files or symbols (absent from `defs`) are skipped. Returns how many were moved.
fn apply_pins(defs: &mut Vec<RankedDef>, pins: &[Pin]) -> usize {
    if pins.is_empty() {
        return 0;
    }
    let pinned_files: HashSet<usize> = pins.iter().map(|p| p.file).collect();
    // Position of each definition of a pinned file, in ranking order per file.
    let mut by_file: std::collections::HashMap<usize, Vec<usize>> =
        std::collections::HashMap::new();
    for (i, d) in defs.iter().enumerate() {
        if pinned_files.contains(&d.file) {
            by_file.entry(d.file).or_default().push(i);
        }
    }
    let mut taken = vec![false; defs.len()];
    let mut front: Vec<usize> = Vec::new();
    for pin in pins {
        let Some(positions) = by_file.get(&pin.file) else {
            continue;
        };
        let pos = match pin.def {
            Some(d) => positions.iter().copied().find(|&i| defs[i].def == d),
            None => positions.iter().copied().find(|&i| !taken[i]),
        };
        if let Some(i) = pos {
            if !taken[i] {
                taken[i] = true;
                front.push(i);
            }
        }
    }
    let mut out: Vec<RankedDef> = Vec::with_capacity(defs.len());
    out.extend(front.iter().map(|&i| defs[i]));
    out.extend(
        defs.iter()
            .zip(&taken)
            .filter(|(_, &t)| !t)
            .map(|(d, _)| *d),
    );
    *defs = out;
    front.len()
}

/// Focus files get `FOCUS_SHARE` when other signals exist (all of it otherwise, minus the
/// uniform share); mentions and query matches share the rest; excluded non-focus files get
/// nothing.
fn personalization_vector(
    graph: &FileGraph,
    p: &Personalization,
    mentions: &[&str],
    tokens: &[QueryToken],
) -> Vec<f64> {
    let n = graph.n;
    if n == 0 {
        return Vec::new();
    }
    let mut focus = vec![0.0; n];
    for &f in &p.focus_files {
        if let Some(x) = focus.get_mut(f) {
            *x = 1.0;
        }
    }
    let mut blocked = vec![false; n];
    for &f in &p.exclude_files {
        if f < n && focus[f] == 0.0 {
            blocked[f] = true;
        }
    }
    let mut mention = mention_weights(graph, mentions);
    let mut kept = query_word_weights(graph, tokens);
    let normalize = |v: &mut Vec<f64>| -> bool {
        for (x, &b) in v.iter_mut().zip(&blocked) {
            if b || !x.is_finite() {
                *x = 0.0;
            }
        }
        let s: f64 = v.iter().sum();
        if s > 0.0 {
            for x in v.iter_mut() {
                *x /= s;
            }
            true
        } else {
            false
        }
    };
    let has_focus = normalize(&mut focus);
    let has_mention = normalize(&mut mention);
    let has_words = normalize(&mut kept);
    // Search's files carry the query when it found any: one personalization for map and
    // search. Plain word matching keeps `word_share` of it.
    let mut searched = vec![0.0; n];
    for &(f, score) in &p.task_files {
        if let Some(x) = searched.get_mut(f) {
            *x += score;
        }
    }
    let has_search = normalize(&mut searched);
    let has_query = has_search || has_words;
    if has_search {
        let ws = if has_words {
            p.word_share.clamp(0.0, 1.0)
        } else {
            0.0
        };
        for i in 0..n {
            kept[i] = (1.0 - ws) * searched[i] + ws * kept[i];
        }
    }
    let mut other = vec![0.0; n];
    let groups = f64::from(u8::from(has_mention) + u8::from(has_query));
    if groups > 0.0 {
        for i in 0..n {
            other[i] = (mention[i] + kept[i]) / groups;
        }
    }
    let has_other = groups > 0.0;
    let uniform = uniform_prior(graph, &blocked);
    let (fw, ow, uw) = match (has_focus, has_other) {
        (true, true) => (
            FOCUS_SHARE,
            1.0 - FOCUS_SHARE - UNIFORM_SHARE,
            UNIFORM_SHARE,
        ),
        (true, false) => (1.0 - UNIFORM_SHARE, 0.0, UNIFORM_SHARE),
        (false, true) => (0.0, 1.0 - UNIFORM_SHARE, UNIFORM_SHARE),
        (false, false) => (0.0, 0.0, 1.0),
    };
    let v: Vec<f64> = (0..n)
        .map(|i| fw * focus[i] + ow * other[i] + uw * uniform[i])
        .collect();
    normalize_personalization(n, Some(&v))
}

/// Mentions: files defining the identifier (split among them) and files named like it.
fn mention_weights(graph: &FileGraph, mentions: &[&str]) -> Vec<f64> {
    let mut mention = vec![0.0; graph.n];
    for m in mentions {
        if let Some(id) = graph.ident_id(m) {
            let definers = graph.ident_files.row(id as usize);
            for &f in definers {
                mention[f as usize] += 1.0 / definers.len() as f64;
            }
        }
        if let Some(fs) = graph.stem_files.get(&normalize_name(m)) {
            for &f in fs {
                mention[f as usize] += 1.0;
            }
        }
    }
    mention
}

/// The distinct words of a query's tokens, sorted.
pub(crate) fn distinct_words(tokens: &[QueryToken]) -> Vec<&str> {
    let mut words: Vec<&str> = tokens
        .iter()
        .flat_map(|t| t.words.iter().map(String::as_str))
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// Query words: path components, file stems and definition-name words, weighted by rarity
/// (idf) so a specific word outweighs a common one, squared (a file matching several words
/// pulls clearly ahead of one matching one), supporting files down-weighted unless the query
/// asks for them; only the best `QUERY_TOP_FILES` kept.
pub(crate) fn query_word_weights(graph: &FileGraph, tokens: &[QueryToken]) -> Vec<f64> {
    let n = graph.n;
    let mut query = vec![0.0; n];
    for w in distinct_words(tokens) {
        let in_path = graph.path_words.get(w).map_or(&[][..], Vec::as_slice);
        let in_defs = graph.def_words.get(w).map_or(&[][..], Vec::as_slice);
        let stems = graph.stem_files.get(w).map_or(&[][..], Vec::as_slice);
        let mut all: Vec<u32> = in_path
            .iter()
            .copied()
            .chain(in_defs.iter().map(|&(f, _)| f))
            .collect();
        all.sort_unstable();
        all.dedup();
        if all.is_empty() {
            continue;
        }
        let idf = (1.0 + n as f64 / all.len() as f64).ln();
        for &f in in_path {
            query[f as usize] += idf;
        }
        for &f in stems {
            query[f as usize] += idf;
        }
        for &(f, c) in in_defs {
            query[f as usize] += idf * (0.5 + 0.1 * f64::from(c.min(5)));
        }
    }
    let supporting_weight = if wants_supporting(tokens) {
        1.0
    } else {
        SUPPORTING_PRIOR
    };
    for (f, q) in query.iter_mut().enumerate() {
        *q = *q
            * *q
            * if graph.is_supporting(f) {
                supporting_weight
            } else {
                1.0
            };
    }
    let mut order: Vec<usize> = (0..n).filter(|&f| query[f] > 0.0).collect();
    order.sort_by(|&a, &b| {
        query[b]
            .total_cmp(&query[a])
            .then(graph.path_order[a].cmp(&graph.path_order[b]))
    });
    let mut kept = vec![0.0; n];
    for &f in order.iter().take(QUERY_TOP_FILES) {
        kept[f] = query[f];
    }
    kept
}

/// Every file not blocked (every file, when all are), supporting files at
/// `SUPPORTING_PRIOR`, summing to one.
fn uniform_prior(graph: &FileGraph, blocked: &[bool]) -> Vec<f64> {
    let n = graph.n;
    let open = blocked.iter().filter(|&&b| !b).count();
    let mut uniform = vec![0.0; n];
    for i in 0..n {
        if !blocked[i] || open == 0 {
            uniform[i] = if graph.is_supporting(i) {
                SUPPORTING_PRIOR
            } else {
                1.0
            };
        }
    }
    let uniform_sum: f64 = uniform.iter().sum();
    if uniform_sum > 0.0 {
        for x in &mut uniform {
            *x /= uniform_sum;
        }
    }
    uniform
}

/// One token of a query: the text as written, whether it looks like code (inside backticks,
/// or camelCase / snake_case / letters+digits), and its lowercase words worth matching.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueryToken {
    text: String,
    code: bool,
    pub(crate) words: Vec<String>,
}

pub(crate) fn query_tokens(query: &str) -> Vec<QueryToken> {
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' || c == '$' {
            QueryChar::Word
        } else {
            QueryChar::Other
        }
    };
    let mut out = Vec::new();
    for piece in query_pieces(query, class) {
        let QueryPiece::Word(text, in_ticks) = piece else {
            continue;
        };
        let parts = split_words(&text);
        let structured = parts.len() > 1 || text.contains('_') || has_inner_capital(&text);
        let lower = text.to_lowercase();
        let len = text.chars().count();
        let code = ((in_ticks && len >= 2) || (structured && len >= 3))
            && text.chars().any(char::is_alphabetic)
            && !is_stopword_or_change_word(&lower);
        let words: Vec<String> = parts
            .into_iter()
            .filter(|w| {
                w.chars().count() >= 3
                    && !is_stopword_or_change_word(w)
                    && !w.chars().all(|c| c.is_ascii_digit())
            })
            .collect();
        if code || !words.is_empty() {
            out.push(QueryToken { text, code, words });
        }
    }
    out
}

/// Identifiers and words pulled from free text: code-looking tokens (backticked,
/// camelCase, snake_case) kept whole as written, then every token split into lowercase words;
/// words shorter than 3 characters, numbers and stop words dropped; first occurrence order,
/// no duplicates.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for t in query_tokens(query) {
        if t.code && seen.insert(t.text.clone()) {
            out.push(t.text);
        }
        for w in t.words {
            if seen.insert(w.clone()) {
                out.push(w);
            }
        }
    }
    out
}

/// The code-looking tokens of a query (inside backticks, camelCase, snake_case, letters and
/// digits): identifiers the user named.
pub fn query_identifiers(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in query_tokens(query) {
        if t.code && !out.contains(&t.text) {
            out.push(t.text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_from_commit_message() {
        let t = query_terms("fix: use `urlId` of `import.meta.ROLLDOWN_FILE_URL` in wasm plugin");
        assert_eq!(
            t,
            [
                "urlId",
                "url",
                "import",
                "meta",
                "ROLLDOWN_FILE_URL",
                "rolldown",
                "file",
                "wasm",
                "plugin"
            ]
        );
        let t = query_terms("Handle parseHTTPHeader errors in http_server.go v2");
        assert_eq!(
            t,
            [
                "handle",
                "parseHTTPHeader",
                "parse",
                "http",
                "header",
                "errors",
                "http_server",
                "server"
            ]
        );
        assert!(query_terms("").is_empty());
        assert!(query_terms("a an of to").is_empty());
        assert_eq!(query_terms("`ab`"), ["ab"]);
    }

    #[test]
    fn empty_repo() {
        let g = crate::engine::link::graph::build_graph(&[], &[], &[]);
        let p = Personalization {
            focus_files: vec![3],
            idents: vec!["x".into()],
            query: Some("anything at all".into()),
            exclude_files: vec![7],
            exclude_symbols: vec!["y".into()],
            ..Personalization::default()
        };
        let out = rank(&[], &g, &p);
        assert!(out.file_rank.is_empty() && out.defs.is_empty() && out.personalization.is_empty());
        assert_eq!(g.edge_count(), 0);
        assert!(g.incoming(0).is_empty());
    }

    #[test]
    fn pagerank_simple_chain() {
        // 0 → 1 → 2, 2 dangling.
        let r = pagerank(
            3,
            &[(0, 1, 1.0), (1, 2, 1.0)],
            None,
            &PageRankOptions::default(),
        );
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(r[2] > r[1] && r[1] > r[0]);
        assert!(pagerank(0, &[], None, &PageRankOptions::default()).is_empty());
    }

    #[test]
    fn pagerank_ignores_bad_edges_and_personalization() {
        let opts = PageRankOptions::default();
        let clean = pagerank(2, &[(0, 1, 1.0)], None, &opts);
        let noisy = pagerank(
            2,
            &[
                (0, 1, 1.0),
                (0, 5, 1.0),
                (1, 0, f64::NAN),
                (1, 0, -1.0),
                (1, 0, 0.0),
            ],
            Some(&[f64::NAN, -3.0]),
            &opts,
        );
        assert_eq!(clean, noisy);
    }

    #[test]
    fn pagerank_weights_matter() {
        let r = pagerank(
            3,
            &[(0, 1, 9.0), (0, 2, 1.0), (1, 0, 1.0), (2, 0, 1.0)],
            None,
            &PageRankOptions::default(),
        );
        assert!(r[1] > 2.0 * r[2]);
    }
}
