//! `mapscope eval --map`: the eval of the map itself. For each commit of a dataset, the map
//! at the parent for the commit's message (`--query`, a token budget), scored by where the
//! files the commit changed appear in it: anywhere in the map, or among its first 1, 4 and 8
//! files (the map's reading order). Runs on the calling thread, like `eval`.

use std::fmt::Write as _;
use std::time::Instant;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::engine::base::tokenizer::TokenizerKind;
use crate::engine::index::{Index, IndexOptions, MapRequest};
use crate::engine::ingest::history::HistorySource;
use crate::engine::rank::task::TaskOptions;
use crate::measure::eval::{run_eval_variants, EvalOptions, EvalReport, EvalTree};

/// What `eval --map` runs.
#[derive(Debug, Clone)]
pub struct MapEvalOptions {
    pub eval: EvalOptions,
    pub budget: usize,
    pub tokenizer: TokenizerKind,
    /// Read each parent's own history for the search behind the query.
    pub history: bool,
    /// Named variants of the task options (one `default` without `--map-variants`).
    pub variants: Vec<(String, TaskOptions)>,
}

/// The map's figures on one dataset, for one variant.
#[derive(Debug, Clone, Serialize)]
pub struct MapEvalSummary {
    pub variant: String,
    pub repo: String,
    pub n: usize,
    pub budget: usize,
    /// A changed file anywhere in the map.
    pub hit_in_map: f64,
    /// Changed files in the map ÷ changed files.
    pub recall_in_map: f64,
    /// A changed file among the map's first k files (k = 1, 4, 8).
    pub hit_at: [f64; 3],
    pub recall_at: [f64; 3],
    /// Files in the map, and its exact token count (means).
    pub mean_files: f64,
    pub mean_tokens: f64,
    /// Rank + fit for the query on a built index (mean ms).
    pub mean_map_ms: f64,
    /// Index build of the parent tree plus rank + fit (mean ms per task).
    pub mean_task_ms: f64,
}

/// The `--json` document: one summary per variant and the first variant's per-commit report.
#[derive(Debug, Clone, Serialize)]
pub struct MapEvalOutput {
    pub summaries: Vec<MapEvalSummary>,
    pub report: EvalReport,
}

/// Runs the map eval.
pub fn run(opts: &MapEvalOptions, progress: &mut dyn FnMut(usize, usize)) -> Result<MapEvalOutput> {
    let n_variants = opts.variants.len().max(1);
    let mut eval = opts.eval.clone();
    eval.ks = vec![1, 4, 8];
    // Per variant, per call: (files, tokens, map ms).
    let mut sizes: Vec<Vec<(usize, usize, f64)>> = vec![Vec::new(); n_variants];
    let mut ranker = |tree: &EvalTree, query: &str| -> Result<Vec<Vec<String>>> {
        let history = if opts.history {
            HistorySource::GitDir {
                git_dir: opts.eval.git_dir.clone(),
                rev: tree.parent.to_string(),
            }
        } else {
            HistorySource::Off
        };
        let index = Index::build(
            tree.path,
            &IndexOptions {
                history,
                ..IndexOptions::default()
            },
        )
        .context("indexing the parent tree")?;
        let mut out = Vec::with_capacity(n_variants);
        for (vi, (_, task)) in opts.variants.iter().enumerate() {
            let req = MapRequest {
                budget: opts.budget,
                tokenizer: opts.tokenizer,
                query: Some(query.to_string()),
                task: *task,
                ..MapRequest::default()
            };
            let t = Instant::now();
            let (map, _) = index.map(&req);
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            sizes[vi].push((map.files.len(), map.tokens, ms));
            out.push(map.files.iter().map(|f| f.path.clone()).collect());
        }
        Ok(out)
    };
    let reports = run_eval_variants(&eval, n_variants, &mut ranker, &mut |done, total, _| {
        progress(done, total);
    })?;
    let summaries = opts
        .variants
        .iter()
        .zip(&reports)
        .zip(&sizes)
        .map(|(((name, _), report), sizes)| summarize(name, report, sizes, opts.budget))
        .collect();
    let report = reports.into_iter().next().context("no report")?;
    Ok(MapEvalOutput { summaries, report })
}

fn summarize(
    name: &str,
    report: &EvalReport,
    sizes: &[(usize, usize, f64)],
    budget: usize,
) -> MapEvalSummary {
    let get = |k: &str| report.summary.get(k).copied().unwrap_or(f64::NAN);
    let mean = |xs: &mut dyn Iterator<Item = f64>| -> f64 {
        let v: Vec<f64> = xs.collect();
        if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let scored: Vec<_> = report
        .per_query
        .iter()
        .filter(|q| !q.gold_files.is_empty())
        .collect();
    let in_map = |q: &crate::measure::eval::QueryResult| {
        q.gold_ranks.values().filter(|r| r.is_some()).count()
    };
    MapEvalSummary {
        variant: name.to_string(),
        repo: report.repo.clone(),
        n: report.n,
        budget,
        hit_in_map: mean(&mut scored.iter().map(|q| if in_map(q) > 0 { 1.0 } else { 0.0 })),
        recall_in_map: mean(
            &mut scored
                .iter()
                .map(|q| in_map(q) as f64 / q.gold_ranks.len().max(1) as f64),
        ),
        hit_at: [get("hit@1"), get("hit@4"), get("hit@8")],
        recall_at: [get("recall@1"), get("recall@4"), get("recall@8")],
        mean_files: mean(&mut sizes.iter().map(|s| s.0 as f64)),
        mean_tokens: mean(&mut sizes.iter().map(|s| s.1 as f64)),
        mean_map_ms: mean(&mut sizes.iter().map(|s| s.2)),
        mean_task_ms: report.timing.mean_call_ms,
    }
}

/// The text table: one line per variant.
pub fn table(out: &MapEvalOutput) -> String {
    let mut s = String::new();
    if let Some(first) = out.summaries.first() {
        let _ = writeln!(
            s,
            "{}  n={}  map of {} tokens  query_field={}",
            first.repo, first.n, first.budget, out.report.field
        );
    }
    let _ = writeln!(
        s,
        "{:<22}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}{:>8}{:>9}{:>9}",
        "variant",
        "in map",
        "R map",
        "@1",
        "@4",
        "@8",
        "R@8",
        "files",
        "tokens",
        "map ms",
        "task ms"
    );
    for m in &out.summaries {
        let _ = writeln!(
            s,
            "{:<22}{:>8.3}{:>8.3}{:>8.3}{:>8.3}{:>8.3}{:>8.3}{:>8.1}{:>8.0}{:>9.1}{:>9.0}",
            m.variant,
            m.hit_in_map,
            m.recall_in_map,
            m.hit_at[0],
            m.hit_at[1],
            m.hit_at[2],
            m.recall_at[2],
            m.mean_files,
            m.mean_tokens,
            m.mean_map_ms,
            m.mean_task_ms,
        );
    }
    s.push_str(
        "in map / @k: a changed file anywhere in the map / among its first k files (hit rate)\n",
    );
    s
}

/// Named task-option variants from `--map-variants` (`{"variants": {"name": {…}}}` or one
/// object), defaults filling what a variant leaves out; unknown keys are refused.
pub fn read_variants(path: Option<&std::path::Path>) -> Result<Vec<(String, TaskOptions)>> {
    let Some(path) = path else {
        return Ok(vec![("default".into(), TaskOptions::default())]);
    };
    crate::measure::eval::read_variant_file(path, "map variants", "variant", |name, v| {
        serde_json::from_value(v.clone())
            .with_context(|| format!("{}: variant {name:?}", path.display()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("variants.json");
        std::fs::write(&path, text).expect("write");
        (dir, path)
    }

    #[test]
    fn variant_files_name_each_variant_fill_defaults_and_refuse_typos() {
        let (_d, p) = file(r#"{"variants": {"a": {"pin_files": 2}, "b": {}}}"#);
        let v = read_variants(Some(&p)).expect("reads");
        assert_eq!(v.len(), 2);
        assert_eq!((v[0].0.as_str(), v[0].1.pin_files), ("a", 2));
        assert_eq!(v[1].1, TaskOptions::default());

        let (_d, p) = file(r#"{"tail_files": 3}"#);
        let v = read_variants(Some(&p)).expect("one object");
        assert_eq!((v[0].0.as_str(), v[0].1.tail_files), ("variant", 3));

        for bad in [r#"{"variants": {}}"#, r#"{"pin_filez": 1}"#, "not json"] {
            let (_d, p) = file(bad);
            assert!(read_variants(Some(&p)).is_err(), "{bad}");
        }
        assert_eq!(read_variants(None).expect("default")[0].0, "default");
    }
}
