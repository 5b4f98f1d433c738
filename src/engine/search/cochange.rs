//! Co-change: which code files the history changes together. A change to one file often
//! needs one to another that shares none of its words (a handler and the router that lists
//! it, a parser and its tokeniser), and the commits that touched both say so. Search lends
//! a share of a strongly matched file's score to the files most often changed with it
//! (`SearchWeights::cochange`).
//!
//! Built with the history's postings (`HistoryIndex::build`) on the thread that builds the
//! index; immutable afterwards.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Commits touching more files than this say little about any one pair of them (a rename
/// across a folder, a sweeping cleanup): they are left out of the pairs.
const MAX_FILES: usize = 12;
/// A pair must have changed together at least this often: once is chance.
const MIN_SHARED: u32 = 2;
/// The partners kept per file, strongest first.
const PER_FILE: usize = 8;

/// Per code file, its strongest co-change partners: `(file, partner, strength)` sorted by
/// file then partner, strength in (0, 1] (shared commits over the geometric mean of each
/// file's commits).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CoChange {
    pairs: Vec<(u32, u32, f32)>,
}

impl CoChange {
    /// From the commits each file took part in: `per_file` holds, per code file (by unit),
    /// the ids of the commits that touched it.
    pub(super) fn build(per_file: &[(u32, &[u32])]) -> CoChange {
        let mut by_commit: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut commits_of: HashMap<u32, u32> = HashMap::new();
        for &(unit, ids) in per_file {
            *commits_of.entry(unit).or_insert(0) += ids.len() as u32;
            for &id in ids {
                by_commit.entry(id).or_default().push(unit);
            }
        }
        let mut shared: HashMap<(u32, u32), u32> = HashMap::new();
        for units in by_commit.values_mut() {
            if units.len() < 2 || units.len() > MAX_FILES {
                continue;
            }
            units.sort_unstable();
            units.dedup();
            for (i, &a) in units.iter().enumerate() {
                for &b in &units[i + 1..] {
                    *shared.entry((a, b)).or_insert(0) += 1;
                }
            }
        }
        let mut partners: HashMap<u32, Vec<(u32, f32)>> = HashMap::new();
        for (&(a, b), &n) in &shared {
            if n < MIN_SHARED {
                continue;
            }
            let na = commits_of.get(&a).copied().unwrap_or(n);
            let nb = commits_of.get(&b).copied().unwrap_or(n);
            let strength = (f64::from(n) / (f64::from(na) * f64::from(nb)).sqrt()) as f32;
            partners.entry(a).or_default().push((b, strength));
            partners.entry(b).or_default().push((a, strength));
        }
        let mut pairs: Vec<(u32, u32, f32)> = Vec::new();
        for (a, mut list) in partners {
            list.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
            list.truncate(PER_FILE);
            pairs.extend(list.into_iter().map(|(b, s)| (a, b, s)));
        }
        pairs.sort_unstable_by_key(|p| (p.0, p.1));
        CoChange { pairs }
    }

    /// `unit`'s partners and their strengths.
    pub(super) fn partners(&self, unit: u32) -> impl Iterator<Item = (u32, f32)> + '_ {
        let lo = self.pairs.partition_point(|p| p.0 < unit);
        let hi = self.pairs.partition_point(|p| p.0 <= unit);
        self.pairs[lo..hi].iter().map(|p| (p.1, p.2))
    }

    /// Whether every file named is below `n_files`.
    pub(super) fn fits(&self, n_files: usize) -> bool {
        self.pairs
            .iter()
            .all(|p| (p.0 as usize) < n_files && (p.1 as usize) < n_files)
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_changed_together_twice_are_partners() {
        // Commits 0 and 1 change files 0 and 1 together; commit 2 changes 0 and 2 once.
        let c = CoChange::build(&[(0, &[0, 1, 2]), (1, &[0, 1]), (2, &[2])]);
        let of0: Vec<(u32, f32)> = c.partners(0).collect();
        assert_eq!(of0.len(), 1, "{of0:?}");
        assert_eq!(of0[0].0, 1);
        // Shared 2 over sqrt(3 commits of file 0 × 2 of file 1).
        assert!((of0[0].1 - 2.0 / 6f32.sqrt()).abs() < 1e-6);
        assert_eq!(c.partners(1).map(|p| p.0).collect::<Vec<_>>(), [0]);
        assert_eq!(c.partners(2).count(), 0);
        assert!(c.fits(3) && !c.fits(1));
    }

    #[test]
    fn sweeping_commits_make_no_pairs() {
        let units: Vec<u32> = (0..=MAX_FILES as u32).collect();
        let ids = [0u32, 1];
        let per_file: Vec<(u32, &[u32])> = units.iter().map(|&u| (u, &ids[..])).collect();
        assert!(CoChange::build(&per_file).is_empty());
    }
}
