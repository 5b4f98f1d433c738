//! The smallest budget whose map shows something (a file, the first definition cut): what
//! `map --explain` and the JSON map's `next_budget` say would bring it in. The fit is given
//! as a function of the budget, so this knows nothing of where the ranking comes from. Runs
//! on the thread that asks.

use crate::engine::rank::repo_map::RepoMap;

/// The largest budget tried when looking for the one that would show something.
pub const MAX_BUDGET_TRIED: usize = 262_144;

/// The smallest budget whose map (`fit(budget)`, one ranking) includes the first definition
/// that did not fit in `map` (`cut[0]`), the map at `budget`; `None` when nothing was cut or
/// no budget up to `MAX_BUDGET_TRIED` tokens would include it.
pub fn budget_for_next_cut(
    budget: usize,
    map: &RepoMap,
    fit: impl Fn(usize) -> RepoMap,
) -> Option<usize> {
    let next = map.cut.first()?;
    smallest_budget_where(budget, next.tokens, |b| {
        fit(b).files.iter().any(|f| {
            f.path == next.path
                && f.symbols
                    .iter()
                    .any(|s| s.name == next.name && s.line_range.start == next.line)
        })
    })
}

/// The smallest budget above `budget` at which `shows` holds: exact because a larger budget
/// never drops what a smaller one showed. Gallops up from `budget` by `guess` tokens (what
/// the missing part costs on its own, usually enough), doubling the step until `shows`
/// holds, then bisects: a handful of fits instead of a search over the whole range. `None`
/// if even `MAX_BUDGET_TRIED` tokens would not do.
pub fn smallest_budget_where(
    budget: usize,
    guess: usize,
    shows: impl Fn(usize) -> bool,
) -> Option<usize> {
    let max = MAX_BUDGET_TRIED.max(budget);
    let mut lo = budget;
    let mut step = guess.max(1);
    let mut hi;
    loop {
        hi = lo.saturating_add(step).min(max);
        if shows(hi) {
            break;
        }
        if hi >= max {
            return None;
        }
        lo = hi;
        step = step.saturating_mul(2);
    }
    // Invariant: the map at `lo` lacks it, the map at `hi` shows it.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if shows(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}
