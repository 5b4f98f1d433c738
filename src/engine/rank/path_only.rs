//! The rank of path-only files: source files without a grammar (`.sql`, `.proto`,
//! `Makefile`: `ingest::lang::unsupported_language`), which the map shows by their path alone.
//!
//! Such a file has no definitions, so no use binds to it and the graph has no node for it.
//! What ranks it is what aider's map cannot tag either way, made explicit: the code that
//! names it (`FileTags::mentions`: `include_str!("schema.sql")`, `import q from
//! './q.graphql'`) and the query's words in its path. Its score is the rank it would get as
//! a node of the same PageRank that passes nothing on, in the units of a definition's score
//! (`pagerank::definition_scores`): each code file naming it gives it the share a bare-name
//! guess would carry out of that file (`file_rank × 0.1 / (out-weight + its names)`, the
//! out-weight counted as at least ten calls'), to the nearest of the files of that name
//! (a vendored one at a fifth, as vendored definitions), and a query matching its path gives it the
//! teleport a code file with the same match would get (`(1 - damping) × personalization`).
//! The code files' own ranks are not touched (the extra node is not fed back into the
//! iteration), so a map gains path lines and otherwise keeps its order; a file nobody names
//! and no query reaches scores 0 and comes after every definition, as aider lists files it
//! cannot tag after its ranked ones. Pure functions, on the engine worker thread.

use crate::engine::base::model::{ParsedFile, RankedPath};
use crate::engine::base::paths::{classify, PathClass};
use crate::engine::base::words::split_words;
use crate::engine::link::graph::FileGraph;
use crate::engine::rank::pagerank::{
    distinct_words, query_tokens, query_word_weights, wants_supporting, PageRankOptions,
    RankOutput, SUPPORTING_PRIOR, UNIFORM_SHARE,
};
use std::collections::HashMap;

/// What a name in a file weighs against its out-edges: a bare-name guess's (the graph's
/// fallback class, `graph::binding`): a file name in text is matched by name, not resolved.
const MENTION_WEIGHT: f64 = 0.1;
/// A file's out-weight counts as at least ten calls' in the share a name gets, so a name
/// takes at most about a hundredth of the naming file's rank: a file with few or no edges (a
/// config header every file includes, whose rank is a tenth of the repository's) would
/// otherwise hand all of it to a file name in a comment.
const MIN_OUT_WEIGHT: f64 = 10.0;

/// Ranks `paths` (relative, `/`-separated) for a request already ranked as `ranked` over
/// `files` and `graph`; `allowed[i]` says whether `paths[i]` may be listed (scope, excluded
/// files). Best first; ties by path.
pub fn rank_path_only(
    files: &[ParsedFile],
    graph: &FileGraph,
    paths: &[&str],
    vendored: &[bool],
    allowed: &[bool],
    query: Option<&str>,
    ranked: &RankOutput,
) -> Vec<RankedPath> {
    if paths.is_empty() {
        return Vec::new();
    }
    let mut score = mention_scores(files, graph, paths, vendored, &ranked.file_rank);
    let damping = PageRankOptions::default().damping;
    for (s, p) in score
        .iter_mut()
        .zip(query_personalization(graph, paths, query))
    {
        *s += (1.0 - damping) * p;
    }
    let mut out: Vec<RankedPath> = (0..paths.len())
        .filter(|&i| allowed.get(i).copied().unwrap_or(false))
        .map(|i| RankedPath {
            path: i,
            score: score[i],
        })
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| paths[a.path].cmp(paths[b.path]))
    });
    out
}

/// Per path: what the code files naming it pass on (see the module header).
fn mention_scores(
    files: &[ParsedFile],
    graph: &FileGraph,
    paths: &[&str],
    vendored: &[bool],
    file_rank: &[f64],
) -> Vec<f64> {
    let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
    // Vendored copies weigh as their definitions do (`pagerank::ranked_definitions`).
    let scale: Vec<f64> = (0..paths.len())
        .map(|i| {
            if vendored.get(i).copied().unwrap_or(false) {
                SUPPORTING_PRIOR
            } else {
                1.0
            }
        })
        .collect();
    for (i, p) in paths.iter().enumerate() {
        let name = p.rsplit('/').next().unwrap_or(p);
        by_name.entry(name.to_lowercase()).or_default().push(i);
    }
    let mut score = vec![0.0; paths.len()];
    for (fi, f) in files.iter().enumerate() {
        let rank = file_rank.get(fi).copied().unwrap_or(0.0);
        if rank <= 0.0 || f.tags.mentions.is_empty() {
            continue;
        }
        let named: Vec<&Vec<usize>> = f
            .tags
            .mentions
            .iter()
            .filter_map(|m| by_name.get(&m.to_lowercase()))
            .collect();
        if named.is_empty() {
            continue;
        }
        let out_weight: f64 = graph
            .edges
            .range(fi)
            .filter_map(|e| graph.edge_w.get(e))
            .sum();
        let per_name = rank * MENTION_WEIGHT
            / (out_weight.max(MIN_OUT_WEIGHT) + MENTION_WEIGHT * named.len() as f64);
        for namesakes in named {
            let targets = nearest(&f.path, namesakes, paths);
            for &t in &targets {
                score[t] += scale[t] * per_name / targets.len() as f64;
            }
        }
    }
    score
}

/// Of the files named alike (`Makefile` in nineteen folders), those nearest to the file that
/// names one: the most leading directories in common with it. A bare file name in a comment
/// or string means the one beside the code, as a relative path would.
fn nearest(from: &str, namesakes: &[usize], paths: &[&str]) -> Vec<usize> {
    if namesakes.len() < 2 {
        return namesakes.to_vec();
    }
    let dirs = |p: &str| -> Vec<String> {
        let mut parts: Vec<String> = p.split('/').map(str::to_string).collect();
        parts.pop();
        parts
    };
    let from_dirs = dirs(from);
    let depth: Vec<usize> = namesakes
        .iter()
        .map(|&t| {
            from_dirs
                .iter()
                .zip(dirs(paths[t]))
                .take_while(|(a, b)| **a == *b)
                .count()
        })
        .collect();
    let best = depth.iter().copied().max().unwrap_or(0);
    namesakes
        .iter()
        .zip(&depth)
        .filter(|(_, &d)| d == best)
        .map(|(&t, _)| t)
        .collect()
}

/// Per path: the personalization the query's words give it, on the scale of the code
/// files' (`pagerank::query_word_weights`): the words of its path weighted by rarity among
/// the code files' paths and its own, squared, a supporting path (test, fixture, example)
/// down-weighted unless the query asks for one; then its share of the query's mass as if
/// word matching carried the query alone.
fn query_personalization(graph: &FileGraph, paths: &[&str], query: Option<&str>) -> Vec<f64> {
    let mut out = vec![0.0; paths.len()];
    let tokens = query_tokens(query.unwrap_or(""));
    if tokens.is_empty() {
        return out;
    }
    let words = distinct_words(&tokens);
    let path_words: Vec<Vec<String>> = paths
        .iter()
        .map(|p| {
            let mut w: Vec<String> = p.split('/').flat_map(split_words).collect();
            w.sort_unstable();
            w.dedup();
            w
        })
        .collect();
    let n = graph.n + paths.len();
    let supporting_weight = if wants_supporting(&tokens) {
        1.0
    } else {
        SUPPORTING_PRIOR
    };
    for w in words {
        let in_paths: Vec<usize> = (0..paths.len())
            .filter(|&i| {
                path_words[i]
                    .binary_search_by(|x| x.as_str().cmp(w))
                    .is_ok()
            })
            .collect();
        if in_paths.is_empty() {
            continue;
        }
        let in_code = graph.path_words.get(w).map_or(0, Vec::len);
        let idf = (1.0 + n as f64 / (in_code + in_paths.len()) as f64).ln();
        for i in in_paths {
            out[i] += idf;
        }
    }
    let code_mass: f64 = query_word_weights(graph, &tokens).iter().sum();
    for (i, q) in out.iter_mut().enumerate() {
        if *q <= 0.0 {
            continue;
        }
        let support = if classify(paths[i]) == PathClass::Impl {
            1.0
        } else {
            supporting_weight
        };
        let raw = *q * *q * support;
        *q = (1.0 - UNIFORM_SHARE) * raw / (code_mass + raw);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::model::{FileTags, Lang};
    use crate::engine::base::paths::is_vendored;
    use crate::engine::link::graph::build_graph;
    use crate::engine::rank::pagerank::{rank, Personalization};
    use std::sync::Arc;

    fn file(path: &str, mentions: &[&str]) -> ParsedFile {
        let tags = FileTags {
            mentions: mentions.iter().map(|m| (*m).to_string()).collect(),
            ..FileTags::default()
        };
        ParsedFile::new(
            path.into(),
            Lang::Python,
            1,
            Arc::from("x = 1\n"),
            Arc::new(tags),
        )
    }

    fn ranked_paths(
        files: &[ParsedFile],
        paths: &[&str],
        query: Option<&str>,
    ) -> Vec<(String, f64)> {
        let graph = build_graph(files, &[], &[]);
        let p = Personalization {
            query: query.map(str::to_string),
            ..Personalization::default()
        };
        let ranked = rank(files, &graph, &p);
        let allowed = vec![true; paths.len()];
        let vendored: Vec<bool> = paths.iter().map(|p| is_vendored(p, 0)).collect();
        rank_path_only(files, &graph, paths, &vendored, &allowed, query, &ranked)
            .into_iter()
            .map(|r| (paths[r.path].to_string(), r.score))
            .collect()
    }

    #[test]
    fn a_named_file_ranks_above_an_unnamed_one() {
        let files = [file("app/db.py", &["schema.sql"]), file("app/main.py", &[])];
        let out = ranked_paths(&files, &["db/schema.sql", "db/other.sql"], None);
        assert_eq!(out[0].0, "db/schema.sql");
        assert!(out[0].1 > 0.0);
        assert_eq!(out[1], ("db/other.sql".to_string(), 0.0));
    }

    #[test]
    fn the_query_reaches_a_path() {
        let files = [file("app/db.py", &[]), file("app/main.py", &[])];
        let out = ranked_paths(
            &files,
            &["proto/billing.proto", "db/other.sql"],
            Some("billing"),
        );
        assert_eq!(out[0].0, "proto/billing.proto");
        assert!(out[0].1 > 0.0);
        assert_eq!(out[1].1, 0.0);
        // Without the query neither is reached.
        let out = ranked_paths(&files, &["proto/billing.proto", "db/other.sql"], None);
        assert!(out.iter().all(|(_, s)| *s == 0.0));
        // Ties by path.
        assert_eq!(out[0].0, "db/other.sql");
    }

    #[test]
    fn excluded_paths_are_left_out_and_names_split_over_namesakes() {
        let files = [file("app/db.py", &["schema.sql"])];
        let graph = build_graph(&files, &[], &[]);
        let ranked = rank(&files, &graph, &Personalization::default());
        let paths = ["a/schema.sql", "b/schema.sql", "c/x.sql"];
        let all = rank_path_only(
            &files,
            &graph,
            &paths,
            &[false; 3],
            &[true; 3],
            None,
            &ranked,
        );
        assert_eq!(all[0].score, all[1].score);
        assert!(all[0].score > 0.0);
        // Beside the code that names it, one namesake takes it all.
        let near = ["app/schema.sql", "b/schema.sql"];
        let out = rank_path_only(
            &files,
            &graph,
            &near,
            &[false; 2],
            &[true; 2],
            None,
            &ranked,
        );
        assert_eq!(near[out[0].path], "app/schema.sql");
        assert!(out[0].score > 0.0);
        assert_eq!(out[1].score, 0.0);
        let some = rank_path_only(
            &files,
            &graph,
            &paths,
            &[false; 3],
            &[true, false, true],
            None,
            &ranked,
        );
        assert_eq!(some.len(), 2);
        assert!(some.iter().all(|r| r.path != 1));
    }
}
