//! Two query-time signals beside BM25 and exact names, each off at weight 0
//! (`SearchWeights::stem_match`, `SearchWeights::name_words`): a file whose stem is a word of
//! the query (or two or three adjacent ones joined), and a definition whose name is made of
//! the query's words in any order, weighted by how rare that name is in the repository.
//! On the caller's thread, inside one query's pass.

use super::*;
use crate::engine::base::paths::impl_subject;
use crate::engine::base::words::split_words;
use crate::engine::search::tokenize::stem_in_place;

fn stemmed(word: &str) -> String {
    let mut s = word.to_string();
    stem_in_place(&mut s);
    s
}

impl Pass<'_, '_> {
    /// How much of the query a name candidate stands for, as `score_names` counts it.
    fn cover(&self, cand: &query::NameCand) -> f32 {
        let content = self.plan.content_words().max(1);
        if cand.identifier_like || (cand.typed && content <= 1) {
            1.0
        } else {
            (cand.words as f32 / content as f32).sqrt().min(1.0)
        }
    }

    /// Files named like a query word or join (`list.go` for "pr list"; `index.ts` counts as
    /// its folder): the best candidate's cover, into `UnitAcc::stem`.
    pub(super) fn match_stems(&self, s: &mut Scratch) {
        if self.w.stem_match <= 0.0 {
            return;
        }
        let cands: Vec<(String, f32)> = self
            .plan
            .names
            .iter()
            .map(|c| (stemmed(&c.norm), self.cover(c)))
            .collect();
        for i in 0..s.touched_units.len() {
            let u = s.touched_units[i] as usize;
            if u >= self.idx.n_files || s.units[u].path <= 0.0 {
                continue;
            }
            let stem = stemmed(&normalize_name(&impl_subject(&self.idx.units[u].path)));
            let best = cands
                .iter()
                .filter(|(c, _)| *c == stem)
                .map(|(_, cover)| *cover)
                .fold(0.0f32, f32::max);
            s.units[u].stem = best;
        }
    }

    /// Definitions named with two or more of the query's words, in any order
    /// (`computeDiscount` for "discount computation"): a name match of strength
    /// `name_words` × the name's rarity among the repository's definitions × its cover.
    pub(super) fn match_name_words(&self, s: &mut Scratch) {
        let weight = self.w.name_words as f32;
        if weight <= 0.0 {
            return;
        }
        let words: HashSet<String> = self
            .plan
            .names
            .iter()
            .filter(|c| c.words == 1)
            .map(|c| stemmed(&c.norm))
            .collect();
        if words.len() < 2 {
            return;
        }
        let content = self.plan.content_words().max(1) as f32;
        let (idx, ctx) = (self.idx, self.ctx);
        for i in 0..s.touched_chunks.len() {
            let c = s.touched_chunks[i];
            if s.chunks[c as usize].concepts.count_ones() < 2 {
                continue;
            }
            let Some(def) = def_of(idx, ctx, c) else {
                continue;
            };
            let parts = split_words(&def.name);
            if parts.len() < 2 || !parts.iter().all(|p| words.contains(&stemmed(p))) {
                continue;
            }
            let key = crate::engine::search::build::name_key(&normalize_name(&def.name));
            let lo = idx.names.partition_point(|x| x.0 < key);
            let hi = idx.names.partition_point(|x| x.0 <= key);
            let rarity = 1.0 / (1.0 + 0.5 * ((hi - lo).max(1) as f32).ln());
            let cover = (parts.len() as f32 / content).sqrt().min(1.0);
            let acc = s.chunk(c);
            acc.name = acc.name.max(weight * rarity * cover);
        }
    }
}
