//! Tests beside the code they test, in one query's pass (`run`): each scored test file paired
//! with its implementation file, ranked just under it, and its hits capped under that file's.
//! On the caller's thread.

use super::*;

/// Just under: a test file's score relative to the implementation it follows.
const UNDER: f32 = 0.999;

/// (test unit, implementation unit) for each scored test file with a paired implementation
/// file that is allowed: the best-scoring one when the test has several.
pub(super) fn test_pairs(
    idx: &SearchIndex,
    s: &Scratch,
    allowed: impl Fn(u32) -> bool,
) -> Vec<(u32, u32)> {
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
pub(super) fn order_pairs(
    s: &mut Scratch,
    files: &mut Vec<(f32, u32)>,
    pairs: &[(u32, u32)],
    lift: f32,
) {
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
pub(super) fn cap_test_hits(
    idx: &SearchIndex,
    s: &mut Scratch,
    cands: &mut [(f32, u32)],
    per_file: usize,
) {
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
