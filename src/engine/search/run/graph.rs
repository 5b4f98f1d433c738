//! Graph diffusion for one query: each code file's total edge weight (cached in the
//! thread's `Scratch`) and the spread of a score to its neighbours. Part of a query's pass
//! (`run`), on the caller's thread.

use super::*;

/// Total positive edge weight of a code file, cached in the scratch for this query.
pub(super) fn degree(ctx: &SearchContext, s: &mut Scratch, u: u32) -> f32 {
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
pub(super) fn spread(
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
