//! `mapscope eval`: the retrieval and map evals on `../shared/eval`, and symbol look-ups
//! against universal-ctags (`eval/symbols.rs`); the code is in `measure/`.
//! Runs on the main thread.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::contract::warn;
use crate::engine::base::json;
use crate::engine::base::text::sanitize;
use crate::engine::base::tokenizer::TokenizerKind;
use crate::engine::index::{Index, IndexOptions};
use crate::engine::ingest::history::HistorySource;
use crate::engine::search::{SearchContext, SearchIndex, SearchOptions, SearchWeights, MAX_TOP};

use super::*;

mod symbols;

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The dataset (JSON lines: commit, parent, query, gold_files, …). Repeat
    /// `--dataset D --git-dir G` to run several datasets in one pass (paired in order).
    #[arg(long, required_unless_present_any = ["from_report", "symbols"])]
    pub dataset: Vec<PathBuf>,
    /// A bare git directory (or a repo's .git) holding the dataset's commits; one per
    /// `--dataset`.
    #[arg(long, required_unless_present_any = ["from_report", "symbols"])]
    pub git_dir: Vec<PathBuf>,
    /// Leave one dataset out: for each dataset, the `--weights` variant chosen on the other
    /// datasets (lowest mean of ln(1 − hit@8) + ln(1 − recall@8)) and its figures on the
    /// held-out one, next to the in-sample table.
    #[arg(long)]
    pub leave_one_out: bool,
    /// With several datasets: also write the JSON report (every variant on every dataset)
    /// to this file while printing the tables (with --symbols: the symbol eval's report).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Instead of running, read the datasets of earlier `--report` files (several runs in
    /// parallel make one table) and print their tables.
    #[arg(long, value_name = "FILE", num_args = 1.., conflicts_with_all = ["dataset", "git_dir"])]
    pub from_report: Vec<PathBuf>,
    /// Keep only the variants whose names start with this (e.g. the ones that leave the
    /// history out); a leading `!` keeps the others.
    #[arg(long, value_name = "PREFIX")]
    pub variants_named: Option<String>,
    /// Only the first N commits.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Cut-offs, e.g. 4,8,16,32.
    #[arg(long = "k", value_delimiter = ',', default_value = "4,8,16,32")]
    pub ks: Vec<usize>,
    /// Query field: query or query_full.
    #[arg(long, default_value = "query")]
    pub field: String,
    /// Search weights for tuning: a JSON object with the weights to change (the rest keep
    /// their defaults), or `{"variants": {"name": {…}, …}}` to compare several in one pass
    /// (each tree is indexed once; a summary line per variant).
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Leave out the history signal (each parent's own `git log`).
    #[arg(long)]
    pub no_history: bool,
    /// Keep the parent trees' blobs in this directory between runs (materialising a tree
    /// is then a matter of hard links instead of `git archive`). Once for all datasets, or
    /// once per `--dataset`, in the same order.
    #[arg(long, value_name = "DIR")]
    pub blob_cache: Vec<PathBuf>,
    /// Score the map instead of search: for each commit, the map at the parent for the
    /// commit's message (`map --query`), and where the changed files appear in it.
    #[arg(long)]
    pub map: bool,
    /// The map's token budget with `--map`.
    #[arg(long, default_value_t = 4096)]
    pub tokens: usize,
    /// With `--map`: task options to compare (`{"variants": {"name": {"pin_files": 8, …}}}`).
    #[arg(long, value_name = "FILE", requires = "map")]
    pub map_variants: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub symbols: symbols::SymbolArgs,
}

/// `eval --map`: the map's own figures on a dataset.
/// Each `--dataset` in turn: a table each, or a JSON array of their documents.
pub(super) fn cmd_eval_map(args: &EvalArgs) -> anyhow::Result<()> {
    use crate::measure::eval_map::{read_variants, run, table, MapEvalOptions};
    let variants = read_variants(args.map_variants.as_deref())?;
    let mut outs = Vec::with_capacity(args.dataset.len());
    for i in 0..args.dataset.len() {
        let opts = MapEvalOptions {
            eval: crate::measure::eval::EvalOptions {
                dataset: args.dataset[i].clone(),
                git_dir: args.git_dir[i].clone(),
                limit: args.limit,
                ks: args.ks.clone(),
                field: args.field.clone(),
                blob_cache: args.blob_cache.get(i).or(args.blob_cache.first()).cloned(),
            },
            budget: args.tokens,
            tokenizer: TokenizerKind::O200k,
            history: !args.no_history,
            variants: variants.clone(),
        };
        let out = run(&opts, &mut |done, total| {
            if !args.json {
                eprint!("\r{done}/{total}");
            }
        })?;
        if !args.json {
            eprintln!();
            print(&table(&out))?;
        }
        outs.push(out);
    }
    if args.json {
        return match outs.as_slice() {
            [one] => print(&json::to_string_pretty(one)?),
            _ => print(&json::to_string_pretty(&outs)?),
        };
    }
    Ok(())
}

/// Named weight sets from `--weights` (one unnamed set when the flag is absent).
pub(super) fn eval_variants(
    path: Option<&std::path::Path>,
) -> anyhow::Result<Vec<(String, SearchWeights)>> {
    let Some(path) = path else {
        return Ok(vec![("default".into(), SearchWeights::default())]);
    };
    crate::measure::eval::read_variant_file(path, "weights", "weights", |name, v| {
        // Unknown keys are typos in a tuning file: refuse them rather than ignore them.
        let known = serde_json::to_value(SearchWeights::default())?;
        if let (Some(obj), Some(known)) = (v.as_object(), known.as_object()) {
            if let Some(k) = obj.keys().find(|k| !known.contains_key(k.as_str())) {
                anyhow::bail!("{}: variant {name:?}: unknown weight {k:?}", path.display());
            }
        }
        serde_json::from_value(v.clone())
            .with_context(|| format!("{}: variant {name:?}", path.display()))
    })
}

/// One dataset of `mapscope eval` (the `i`th `--dataset`): one report per weight variant,
/// each parent tree indexed once (and once more per distinct set of build-time weights).
pub(super) fn eval_dataset(
    args: &EvalArgs,
    i: usize,
    variants: &[(String, SearchWeights)],
) -> anyhow::Result<Vec<crate::measure::eval::EvalReport>> {
    let opts = crate::measure::eval::EvalOptions {
        dataset: args.dataset[i].clone(),
        git_dir: args.git_dir[i].clone(),
        limit: args.limit,
        ks: args.ks.clone(),
        field: args.field.clone(),
        blob_cache: args.blob_cache.get(i).or(args.blob_cache.first()).cloned(),
    };
    let search_opts = SearchOptions {
        top: MAX_TOP,
        files_mode: true,
        ..SearchOptions::default()
    };
    let mut ranker =
        |tree: &crate::measure::eval::EvalTree, query: &str| -> anyhow::Result<Vec<Vec<String>>> {
            // Only the parent's own history: `git log PARENT` reaches its ancestors, never the
            // commit whose files are the answer.
            let history = if args.no_history {
                HistorySource::Off
            } else {
                HistorySource::GitDir {
                    git_dir: opts.git_dir.clone(),
                    rev: tree.parent.to_string(),
                }
            };
            let opts = IndexOptions {
                history,
                ..IndexOptions::default()
            };
            let index = Index::build(tree.path, &opts)?;
            if let Some(error) = &index.history_status.error {
                warn(&format!("no history for {}: {error}", tree.parent));
            }
            let ctx = SearchContext {
                files: &index.files,
                docs: &index.docs,
                prior: index.prior(),
                neighbors: index.neighbors(),
                history: index.history_index(),
            };
            let mut out = Vec::with_capacity(variants.len());
            let mut built: Option<SearchIndex> = None;
            for (_, w) in variants {
                // Build-time weights shape the postings; query-time ones can reuse the index.
                match built.as_mut() {
                    Some(si) if si.weights().same_build(w) => si.set_query_weights(w.clone()),
                    _ => {
                        built = Some(SearchIndex::build_with(
                            &index.files,
                            &index.docs,
                            w.clone(),
                        ));
                    }
                }
                let Some(si) = built.as_ref() else { continue };
                let response = si.search(&ctx, query, &search_opts);
                out.push(response.files.into_iter().map(|(path, _)| path).collect());
            }
            Ok(out)
        };
    crate::measure::eval::run_eval_variants(
        &opts,
        variants.len(),
        &mut ranker,
        &mut |done, total, _| {
            if !args.json {
                eprint!("\r{done}/{total}");
            }
        },
    )
    .inspect(|_| {
        if !args.json {
            eprintln!();
        }
    })
}

/// Datasets from earlier `--report` files, in order: (variant names, reports per dataset
/// per variant). Every file must hold the same variants.
pub(super) fn read_eval_reports(
    paths: &[PathBuf],
) -> anyhow::Result<(Vec<String>, Vec<Vec<crate::measure::eval::EvalReport>>)> {
    let mut names: Option<Vec<String>> = None;
    let mut all = Vec::new();
    for path in paths {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut v: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{}: invalid JSON", path.display()))?;
        let recorded: Option<Vec<String>> = v["variant_order"].as_array().map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        });
        let datasets = v["datasets"]
            .as_array_mut()
            .with_context(|| format!("{}: no `datasets` (not an eval --report)", path.display()))?;
        for d in datasets {
            let Some(map) = d["variants"].as_object_mut() else {
                anyhow::bail!("{}: a dataset without `variants`", path.display());
            };
            // The run's order when recorded (ties go to the first), else by name.
            let order: Vec<String> = map.keys().cloned().collect();
            let order = names.clone().or_else(|| recorded.clone()).unwrap_or(order);
            let mut reports = Vec::with_capacity(order.len());
            for n in &order {
                let r = map
                    .remove(n)
                    .with_context(|| format!("{}: variant {n:?} missing", path.display()))?;
                reports.push(serde_json::from_value(r)?);
            }
            names.get_or_insert(order);
            all.push(reports);
        }
    }
    Ok((names.unwrap_or_default(), all))
}

/// `mapscope eval` over several datasets: a per-dataset table (the variant chosen on all of
/// them), and with `--leave-one-out` the held-out table beside it.
pub(super) fn cmd_eval_datasets(
    args: &EvalArgs,
    variants: &[(String, SearchWeights)],
) -> anyhow::Result<()> {
    use crate::measure::eval::{dataset_table, leave_one_out, objective, EvalReport};
    use std::fmt::Write as _;
    let (mut names, mut all) = if args.from_report.is_empty() {
        let mut all: Vec<Vec<EvalReport>> = Vec::new();
        for i in 0..args.dataset.len() {
            if !args.json {
                eprintln!("{}", args.dataset[i].display());
            }
            all.push(eval_dataset(args, i, variants)?);
        }
        let names: Vec<String> = variants.iter().map(|(n, _)| n.clone()).collect();
        (names, all)
    } else {
        read_eval_reports(&args.from_report)?
    };
    if let Some(prefix) = &args.variants_named {
        let keep: Vec<bool> = names
            .iter()
            .map(|n| match prefix.strip_prefix('!') {
                Some(p) => !n.starts_with(p),
                None => n.starts_with(prefix.as_str()),
            })
            .collect();
        if !keep.contains(&true) {
            anyhow::bail!("no variant is named {prefix:?}");
        }
        let pick = |v: Vec<String>| v.into_iter().zip(&keep).filter(|x| *x.1).map(|x| x.0);
        names = pick(names).collect();
        for d in &mut all {
            *d = std::mem::take(d)
                .into_iter()
                .zip(&keep)
                .filter(|x| *x.1)
                .map(|x| x.0)
                .collect();
        }
    }
    let objectives: Vec<f64> = (0..names.len())
        .map(|v| objective(&all.iter().map(|d| &d[v]).collect::<Vec<_>>()))
        .collect();
    let chosen = (0..names.len())
        .min_by(|&a, &b| objectives[a].total_cmp(&objectives[b]).then(a.cmp(&b)))
        .unwrap_or(0);
    let held = args.leave_one_out.then(|| leave_one_out(&all, &names));
    if args.json || args.report.is_some() {
        let datasets: Vec<serde_json::Value> = all
            .iter()
            .map(|d| {
                let named: serde_json::Map<String, serde_json::Value> = names
                    .iter()
                    .zip(d)
                    .map(|(n, r)| Ok((n.clone(), serde_json::to_value(r)?)))
                    .collect::<anyhow::Result<_>>()?;
                Ok(serde_json::json!({
                    "repo": d.first().map(|r| r.repo.clone()),
                    "dataset": d.first().map(|r| r.dataset.clone()),
                    "variants": named,
                }))
            })
            .collect::<anyhow::Result<_>>()?;
        let json = json::to_string_pretty(&serde_json::json!({
            "objective": "mean over datasets of ln(1 - hit@8) + ln(1 - recall@8), lower is better",
            "variant_objectives": names.iter().zip(&objectives).map(|(n, o)| (n.clone(), *o))
                .collect::<std::collections::BTreeMap<String, f64>>(),
            "chosen_on_all": names.get(chosen),
            "variant_order": names,
            "datasets": datasets,
            "held_out": held,
        }))?;
        if let Some(path) = &args.report {
            std::fs::write(path, &json).with_context(|| format!("writing {}", path.display()))?;
        }
        if args.json {
            return print(&json);
        }
    }
    let mut s = String::new();
    if names.len() > 1 {
        let _ = writeln!(
            s,
            "hit@8/recall@8 per variant (objective: mean ln(1 - hit@8) + ln(1 - recall@8), \
             lower is better)"
        );
        let _ = write!(s, "{:<28}{:>9}", "variant", "objective");
        for d in &all {
            let repo = d.first().map_or("", |r| r.repo.as_str());
            let short = repo.rsplit('/').next().unwrap_or(repo);
            let _ = write!(s, "{:>12}", short.chars().take(10).collect::<String>());
        }
        s.push('\n');
        for (v, name) in names.iter().enumerate() {
            let _ = write!(s, "{name:<28}{:>9.3}", objectives[v]);
            for d in &all {
                let get = |k: &str| d[v].summary.get(k).copied().unwrap_or(f64::NAN);
                let _ = write!(s, " {:>5.3}/{:>5.3}", get("hit@8"), get("recall@8"));
            }
            s.push('\n');
        }
        s.push('\n');
    }
    let rows: Vec<(&str, &std::collections::BTreeMap<String, f64>, &str)> = all
        .iter()
        .map(|d| {
            (
                d[chosen].repo.as_str(),
                &d[chosen].summary,
                names[chosen].as_str(),
            )
        })
        .collect();
    s.push_str(&dataset_table(
        "in-sample: the variant chosen on all datasets",
        &rows,
    ));
    if let Some(held) = &held {
        s.push('\n');
        let rows: Vec<(&str, &std::collections::BTreeMap<String, f64>, &str)> = held
            .iter()
            .map(|h| (h.repo.as_str(), &h.summary, h.chosen_name.as_str()))
            .collect();
        s.push_str(&dataset_table(
            "held out: each dataset scored with the variant chosen on the others",
            &rows,
        ));
    }
    print(&s)
}

pub(super) fn cmd_eval(args: &EvalArgs) -> anyhow::Result<()> {
    use std::fmt::Write as _;
    if !args.symbols.repos.is_empty() {
        return symbols::cmd_eval_symbols(&args.symbols, args.json, args.report.as_deref());
    }
    if args.dataset.len() != args.git_dir.len() {
        return Err(InvalidArgument(format!(
            "{} --dataset but {} --git-dir: give one git directory per dataset",
            args.dataset.len(),
            args.git_dir.len()
        ))
        .into());
    }
    if args.blob_cache.len() > 1 && args.blob_cache.len() != args.dataset.len() {
        return Err(InvalidArgument(
            "give one --blob-cache for all datasets or one per --dataset".into(),
        )
        .into());
    }
    // A file named on the command line that is not there is the user's to fix, said before
    // any work (not an INTERNAL_ERROR from deep in the run).
    let files = (args.dataset.iter().map(|f| ("--dataset", f)))
        .chain(args.from_report.iter().map(|f| ("--from-report", f)))
        .chain(args.weights.iter().map(|f| ("--weights", f)))
        .chain(args.map_variants.iter().map(|f| ("--map-variants", f)));
    for (flag, file) in files {
        if !file.is_file() {
            return Err(InvalidArgument(format!(
                "{flag} {}: no such file",
                sanitize(&file.display().to_string())
            ))
            .into());
        }
    }
    if let Some(dir) = args.git_dir.iter().find(|d| !d.is_dir()) {
        return Err(InvalidArgument(format!(
            "--git-dir {}: no such directory",
            sanitize(&dir.display().to_string())
        ))
        .into());
    }
    if !args.from_report.is_empty() {
        return cmd_eval_datasets(args, &[]);
    }
    if args.map {
        return cmd_eval_map(args);
    }
    let variants = eval_variants(args.weights.as_deref())?;
    if args.dataset.len() > 1 || args.leave_one_out {
        return cmd_eval_datasets(args, &variants);
    }
    let reports = eval_dataset(args, 0, &variants)?;
    if reports.len() == 1 {
        let report = &reports[0];
        if args.json {
            return print(&json::to_string_pretty(report)?);
        }
        return print(&report.table());
    }
    if args.json {
        let named: serde_json::Map<String, serde_json::Value> = variants
            .iter()
            .zip(&reports)
            .map(|((name, _), r)| Ok((name.clone(), serde_json::to_value(r)?)))
            .collect::<anyhow::Result<_>>()?;
        return print(&json::to_string_pretty(
            &serde_json::json!({ "variants": named }),
        )?);
    }
    let mut s = String::new();
    let get = |r: &crate::measure::eval::EvalReport, k: &str| {
        r.summary.get(k).copied().unwrap_or(f64::NAN)
    };
    let _ = writeln!(
        s,
        "{:<28}{:>7}{:>7}{:>7}{:>7}{:>7}{:>9}{:>7}",
        "variant", "R@4", "R@8", "R@16", "R@32", "hit@8", "implF@8", "MRR"
    );
    for ((name, _), r) in variants.iter().zip(&reports) {
        let _ = writeln!(
            s,
            "{:<28}{:>7.3}{:>7.3}{:>7.3}{:>7.3}{:>7.3}{:>9.3}{:>7.3}",
            name,
            get(r, "recall@4"),
            get(r, "recall@8"),
            get(r, "recall@16"),
            get(r, "recall@32"),
            get(r, "hit@8"),
            get(r, "impl_recall_filt@8"),
            get(r, "mrr"),
        );
    }
    print(&s)
}
