//! A file's multipliers in one query's pass (`run`): its path-class penalty, the size
//! normalisation of its chunk scores and its graph prior. On the caller's thread.

use super::*;
use crate::engine::base::paths;
use crate::engine::base::words::normalize_name;

pub(super) fn penalty(idx: &SearchIndex, u: usize, plan: &QueryPlan) -> f32 {
    let w = &idx.weights;
    let wants_tests = plan.wants_tests;
    let unit = &idx.units[u];
    let doc = u >= idx.n_files;
    // A query naming a vendored copy by its folder (`clar`, `zlib`, `jemalloc`) is about
    // that copy: it ranks as the project's code does.
    if unit.vendored && !doc && names_a_folder_of(plan, &unit.path) {
        return 1.0;
    }
    let class = match unit.class {
        // A query about tests wants the tests first (commits described that way mostly
        // touch tests); the code they exercise stays close behind.
        PathClass::Impl if wants_tests && !doc => w.test_query_impl,
        PathClass::Impl => 1.0,
        PathClass::Test if wants_tests => 1.0,
        PathClass::Test => w.penalty_test,
        // A README under docs/ is what a prose query wants; only code there is secondary.
        PathClass::Secondary if doc => 1.0,
        // A query naming examples, playgrounds or benchmarks is about that code (not about
        // the type stubs that are secondary too).
        PathClass::Secondary
            if plan.wants_examples && w.example_query_lift && !paths::is_type_stub(&unit.path) =>
        {
            1.0
        }
        PathClass::Secondary => w.penalty_secondary,
    };
    let doc_w = if doc { w.doc_chunk } else { 1.0 };
    let fixture = if unit.fixture && !wants_tests {
        w.penalty_fixture
    } else {
        1.0
    };
    let vendored = if unit.vendored {
        w.penalty_vendored
    } else {
        1.0
    };
    (class * doc_w * fixture * vendored) as f32
}

/// Whether a word of the query, as typed, is one of `path`'s folder names (compared in
/// lowercase letters and digits, as names are).
fn names_a_folder_of(plan: &QueryPlan, path: &str) -> bool {
    let Some((dirs, _)) = path.rsplit_once('/') else {
        return false;
    };
    dirs.split('/').any(|dir| {
        let norm = normalize_name(dir);
        !norm.is_empty() && plan.names.iter().any(|n| n.typed && n.norm == norm)
    })
}

/// `(chunks / mean chunks)^-chunk_len_norm` for code files: a file with many definitions
/// has many chances to hold one chunk that happens to match, so its best chunk says less.
pub(super) fn len_norm(idx: &SearchIndex, u: usize) -> f32 {
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

pub(super) fn prior_mult(ctx: &SearchContext, u: usize, n_files: usize, weight: f64) -> f32 {
    if u >= n_files {
        return 1.0;
    }
    let n = n_files as f64;
    let p = ctx.prior.get(u).copied().unwrap_or(0.0);
    let p = if p.is_finite() && p > 0.0 { p } else { 0.0 };
    (1.0 + weight * (1.0 + n * p).ln()) as f32
}
