//! The retrieval eval behind `mapscope eval` (method: `../shared/eval/README.md`): for each
//! commit of a JSONL dataset, materialise the parent tree from a bare git mirror, ask a
//! ranker for files given the commit message, and score the ranking against the files the
//! commit changed. Metrics reproduce `run_eval.py` exactly (same dedup, same `is_impl`
//! filter, same averaging). Runs on the calling thread; spawns `git` and `tar`.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::engine::search::is_impl_path;

/// The ranking kept per query in the report (as `run_eval.py`: at least 50).
const KEEP_RANKED: usize = 50;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalOptions {
    pub dataset: PathBuf,
    pub git_dir: PathBuf,
    /// Only the first N commits of the dataset.
    pub limit: Option<usize>,
    /// Cut-offs for recall/hit (default 4, 8, 16, 32).
    pub ks: Vec<usize>,
    /// Query field: `query` (headline), `query_full` or `message_raw`.
    pub field: String,
    /// A blob store to materialise trees from (`materialize_cached`), kept between runs.
    pub blob_cache: Option<PathBuf>,
}

impl EvalOptions {
    pub fn new(dataset: impl Into<PathBuf>, git_dir: impl Into<PathBuf>) -> EvalOptions {
        EvalOptions {
            dataset: dataset.into(),
            git_dir: git_dir.into(),
            limit: None,
            ks: vec![4, 8, 16, 32],
            field: "query".into(),
            blob_cache: None,
        }
    }
}

/// One scored commit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryResult {
    pub commit: String,
    pub parent: String,
    pub query: String,
    pub gold_files: Vec<String>,
    pub gold_impl_files: Vec<String>,
    /// Distinct ranked files (first occurrence wins), the first 50 or max k.
    pub ranked: Vec<String>,
    pub n_returned: usize,
    /// 1-based rank of each gold file in the full ranking.
    pub gold_ranks: BTreeMap<String, Option<usize>>,
    /// `None` where `run_eval.py` has `None` (no gold of that kind).
    pub metrics: BTreeMap<String, Option<f64>>,
    /// Wall time of the ranker call.
    pub call_ms: f64,
    /// The first query on this parent tree (its call includes building the index when the
    /// ranker caches per tree).
    pub first_on_tree: bool,
    pub error: Option<String>,
}

/// How a parent tree was materialised when `git archive` was not enough.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeCaveat {
    /// `cat-file-fallback` or `failed`.
    pub method: String,
    pub error: String,
    /// Blobs absent from the mirror (fallback only).
    pub missing: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalTiming {
    #[serde(deserialize_with = "f64_or_nan")]
    pub mean_call_ms: f64,
    #[serde(deserialize_with = "f64_or_nan")]
    pub median_call_ms: f64,
    /// First query per tree: index + query when the ranker caches its index per tree.
    #[serde(deserialize_with = "f64_or_nan")]
    pub mean_first_call_ms: f64,
    /// Later queries on an already seen tree: query time alone with a caching ranker.
    #[serde(deserialize_with = "f64_or_nan")]
    pub mean_other_call_ms: f64,
    #[serde(deserialize_with = "f64_or_nan")]
    pub mean_materialize_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EvalReport {
    pub repo: String,
    pub dataset: String,
    pub field: String,
    pub n: usize,
    pub n_with_impl_gold: usize,
    pub ks: Vec<usize>,
    /// Macro averages over commits; `None` values are skipped, NaN when nothing is left.
    #[serde(deserialize_with = "map_or_nan")]
    pub summary: BTreeMap<String, f64>,
    pub timing: EvalTiming,
    /// Parent → caveat, for trees that needed the fallback or failed.
    pub tree_caveats: BTreeMap<String, TreeCaveat>,
    pub per_query: Vec<QueryResult>,
}

/// NaN is written as JSON `null`; reading a report back turns it into NaN again.
fn f64_or_nan<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    Option::<f64>::deserialize(d).map(|v| v.unwrap_or(f64::NAN))
}

fn map_or_nan<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<BTreeMap<String, f64>, D::Error> {
    BTreeMap::<String, Option<f64>>::deserialize(d).map(|m| {
        m.into_iter()
            .map(|(k, v)| (k, v.unwrap_or(f64::NAN)))
            .collect()
    })
}

impl EvalReport {
    /// The summary table, laid out like `run_eval.py`'s.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{}  n={} (impl-gold n={})  query_field={}\n",
            self.repo, self.n, self.n_with_impl_gold, self.field
        );
        out.push_str(&format!("{:<22}", "metric"));
        for k in &self.ks {
            out.push_str(&format!("{:>8}", format!("@{k}")));
        }
        out.push('\n');
        for base in ["recall", "impl_recall", "impl_recall_filt", "hit"] {
            out.push_str(&format!("{base:<22}"));
            for k in &self.ks {
                let v = self
                    .summary
                    .get(&format!("{base}@{k}"))
                    .copied()
                    .unwrap_or(f64::NAN);
                out.push_str(&format!("{v:>8.3}"));
            }
            out.push('\n');
        }
        let mrr = self.summary.get("mrr").copied().unwrap_or(f64::NAN);
        out.push_str(&format!("{:<22}{mrr:>8.3}\n", "mrr"));
        let t = &self.timing;
        out.push_str(&format!(
            "timing: mean_call_ms={:.1}, median_call_ms={:.1}, mean_first_call_ms={:.1}, \
             mean_other_call_ms={:.1}, mean_materialize_ms={:.1}\n",
            t.mean_call_ms,
            t.median_call_ms,
            t.mean_first_call_ms,
            t.mean_other_call_ms,
            t.mean_materialize_ms
        ));
        if !self.tree_caveats.is_empty() {
            out.push_str(&format!(
                "tree caveats: {} parents needed fallback/failed materialization\n",
                self.tree_caveats.len()
            ));
        }
        let errors = self.per_query.iter().filter(|q| q.error.is_some()).count();
        if errors > 0 {
            out.push_str(&format!("tool errors: {errors}\n"));
        }
        out
    }
}

/// Named variants from a tuning file (`--weights`, `--map-variants`): `{"variants": {"name":
/// {…}, …}}`, or a single object, which is named `single`. `parse` turns one variant's object
/// into its options (and refuses what it does not know).
pub fn read_variant_file<T>(
    path: &Path,
    what: &str,
    single: &str,
    parse: impl Fn(&str, &serde_json::Value) -> Result<T>,
) -> Result<Vec<(String, T)>> {
    let text = crate::engine::base::guarded::read_user_text(path, 1 << 30)
        .with_context(|| format!("reading {what} {}", path.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{}: invalid JSON", path.display()))?;
    match value.get("variants").and_then(|v| v.as_object()) {
        Some(map) if !map.is_empty() => map
            .iter()
            .map(|(k, v)| Ok((k.clone(), parse(k, v)?)))
            .collect(),
        Some(_) => bail!("{}: `variants` is empty", path.display()),
        None => Ok(vec![(single.to_string(), parse(single, &value)?)]),
    }
}

/// `run_eval.score`: metrics of one ranking (already deduplicated) against its gold.
pub fn score(
    ranked: &[String],
    gold: &[String],
    gold_impl: &[String],
    ks: &[usize],
) -> BTreeMap<String, Option<f64>> {
    let count_in = |set: &[String], top: &[String]| set.iter().filter(|g| top.contains(g)).count();
    let gold = dedup(gold);
    let gold_impl = dedup(gold_impl);
    let ranked_impl: Vec<String> = ranked.iter().filter(|f| is_impl_path(f)).cloned().collect();
    let mut m = BTreeMap::new();
    for &k in ks {
        let top = &ranked[..k.min(ranked.len())];
        let hits = count_in(&gold, top);
        m.insert(
            format!("recall@{k}"),
            (!gold.is_empty()).then(|| hits as f64 / gold.len() as f64),
        );
        m.insert(format!("hit@{k}"), Some(if hits > 0 { 1.0 } else { 0.0 }));
        let (ir, irf) = if gold_impl.is_empty() {
            (None, None)
        } else {
            let top_impl = &ranked_impl[..k.min(ranked_impl.len())];
            let n = gold_impl.len() as f64;
            (
                Some(count_in(&gold_impl, top) as f64 / n),
                Some(count_in(&gold_impl, top_impl) as f64 / n),
            )
        };
        m.insert(format!("impl_recall@{k}"), ir);
        m.insert(format!("impl_recall_filt@{k}"), irf);
    }
    let rr = ranked
        .iter()
        .position(|f| gold.contains(f))
        .map_or(0.0, |i| 1.0 / (i + 1) as f64);
    m.insert("mrr".into(), Some(rr));
    m
}

fn dedup(v: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(v.len());
    for x in v {
        if !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}

/// `run_eval.mean`: skips `None`, NaN when empty.
fn mean(xs: impl Iterator<Item = Option<f64>>) -> f64 {
    let v: Vec<f64> = xs.flatten().collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        f64::midpoint(v[n / 2 - 1], v[n / 2])
    }
}

/// `run_eval.parse_output`'s path clean-up: `/` separators, no leading `./`, paths under
/// the tree made relative, duplicates dropped (first occurrence wins).
pub fn normalize_ranking(paths: &[String], tree: &Path) -> Vec<String> {
    let tree_abs = fs::canonicalize(tree).unwrap_or_else(|_| tree.to_path_buf());
    let mut out: Vec<String> = Vec::new();
    for p in paths {
        let mut p = p.replace('\\', "/");
        if Path::new(&p).is_absolute() {
            let real = fs::canonicalize(&p).unwrap_or_else(|_| PathBuf::from(&p));
            if let Ok(rel) = real.strip_prefix(&tree_abs) {
                p = rel.to_string_lossy().replace('\\', "/");
            }
        }
        while let Some(rest) = p.strip_prefix("./") {
            p = rest.to_string();
        }
        if !p.is_empty() && !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

struct Row {
    repo: String,
    commit: String,
    parent: String,
    query: String,
    gold: Vec<String>,
    gold_impl: Vec<String>,
}

fn read_dataset(opts: &EvalOptions) -> Result<Vec<Row>> {
    let text = crate::engine::base::guarded::read_user_text(&opts.dataset, 1 << 30)
        .with_context(|| format!("reading dataset {}", opts.dataset.display()))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(line)
            .with_context(|| format!("{}:{}: invalid JSON", opts.dataset.display(), i + 1))?;
        let s = |k: &str| -> Result<String> {
            v.get(k)
                .and_then(|x| x.as_str())
                .map(str::to_string)
                .with_context(|| {
                    format!("{}:{}: missing string `{k}`", opts.dataset.display(), i + 1)
                })
        };
        let list = |k: &str| -> Result<Vec<String>> {
            let arr = v.get(k).and_then(|x| x.as_array()).with_context(|| {
                format!("{}:{}: missing list `{k}`", opts.dataset.display(), i + 1)
            })?;
            Ok(arr
                .iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect())
        };
        rows.push(Row {
            repo: s("repo").unwrap_or_default(),
            commit: s("commit")?,
            parent: s("parent")?,
            query: s(&opts.field)?,
            gold: list("gold_files")?,
            gold_impl: list("gold_impl_files")?,
        });
        if opts.limit.is_some_and(|n| rows.len() >= n) {
            break;
        }
    }
    Ok(rows)
}

/// A temporary directory removed on drop (the crate has no `tempfile` dependency).
struct TempDir(PathBuf);

impl TempDir {
    fn new(label: &str) -> Result<TempDir> {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let safe: String = label
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(12)
            .collect();
        let dir = std::env::temp_dir().join(format!(
            "mapscope-eval-{}-{nanos}-{n}-{safe}",
            std::process::id()
        ));
        fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// `git archive REV | tar -x -C dest`.
fn archive(git_dir: &Path, rev: &str, dest: &Path) -> Result<()> {
    let mut git = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["archive", "--format=tar", rev])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running git archive")?;
    let stdout = git.stdout.take().context("git archive stdout")?;
    let tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(dest)
        .stdin(Stdio::from(stdout))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("running tar")?;
    let git_out = git.wait_with_output().context("waiting for git archive")?;
    if !git_out.status.success() || !tar.status.success() {
        let mut err = String::from_utf8_lossy(&git_out.stderr).trim().to_string();
        if !tar.status.success() {
            err.push_str(&format!(
                " tar: {}",
                String::from_utf8_lossy(&tar.stderr).trim()
            ));
        }
        let tail: String = err
            .chars()
            .rev()
            .take(500)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        bail!("git archive failed: {tail}");
    }
    Ok(())
}

/// A repository-relative path that stays inside the tree.
fn safe_relative(path: &str) -> bool {
    let p = Path::new(path);
    !path.is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// Fallback for mirrors that lack some blobs: list the tree and write every blob that is
/// present, one by one. Returns the paths of missing blobs.
/// The blobs of `rev` as (mode, sha, path), paths checked to stay inside the tree.
fn ls_tree(git_dir: &Path, rev: &str) -> Result<Vec<(String, String, String)>> {
    let ls = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["ls-tree", "-r", "-z", rev])
        .stdin(Stdio::null())
        .output()
        .context("running git ls-tree")?;
    if !ls.status.success() {
        bail!(
            "git ls-tree failed: {}",
            String::from_utf8_lossy(&ls.stderr).trim()
        );
    }
    let mut entries: Vec<(String, String, String)> = Vec::new(); // mode, sha, path
    for rec in ls.stdout.split(|&b| b == 0) {
        if rec.is_empty() {
            continue;
        }
        let Some(tab) = rec.iter().position(|&b| b == b'\t') else {
            continue;
        };
        let meta = String::from_utf8_lossy(&rec[..tab]).to_string();
        let path = String::from_utf8_lossy(&rec[tab + 1..]).to_string();
        let mut parts = meta.split_whitespace();
        let (Some(mode), Some(kind), Some(sha)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if kind == "blob" && safe_relative(&path) {
            entries.push((mode.to_string(), sha.to_string(), path));
        }
    }
    Ok(entries)
}

fn cat_file_tree(git_dir: &Path, rev: &str, dest: &Path) -> Result<Vec<String>> {
    let entries = ls_tree(git_dir, rev)?;
    let shas: Vec<String> = entries.iter().map(|e| e.1.clone()).collect();
    let mut missing = Vec::new();
    cat_blobs(git_dir, shas, |i, data| {
        let (mode, _, path) = &entries[i];
        match data {
            None => missing.push(path.clone()),
            Some(data) => write_entry(dest, mode, path, data)?,
        }
        Ok(())
    })?;
    Ok(missing)
}

/// Writes one blob of a tree under `dest` (a symlink for mode 120000).
fn write_entry(dest: &Path, mode: &str, path: &str, data: &[u8]) -> Result<()> {
    let full = dest.join(path);
    if let Some(parent) = full.parent() {
        fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    if mode == "120000" {
        #[cfg(unix)]
        {
            let target = String::from_utf8_lossy(data).to_string();
            let _ = std::os::unix::fs::symlink(target, &full);
        }
    } else {
        fs::write(&full, data).with_context(|| format!("writing {}", full.display()))?;
        #[cfg(unix)]
        if mode == "100755" {
            use std::os::unix::fs::PermissionsExt;
            let _ = fs::set_permissions(&full, fs::Permissions::from_mode(0o755));
        }
    }
    Ok(())
}

/// Streams blobs through one `git cat-file --batch`: `each(i, Some(bytes))` for the i-th
/// name, `None` when the mirror lacks it.
fn cat_blobs(
    git_dir: &Path,
    shas: Vec<String>,
    mut each: impl FnMut(usize, Option<&[u8]>) -> Result<()>,
) -> Result<()> {
    if shas.is_empty() {
        return Ok(());
    }
    let n = shas.len();
    let mut child = Command::new("git")
        .arg("--git-dir")
        .arg(git_dir)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("running git cat-file")?;
    let mut stdin = child.stdin.take().context("cat-file stdin")?;
    // Feed object names from another thread so neither pipe can fill up and deadlock.
    let feeder = std::thread::spawn(move || {
        for sha in shas {
            if writeln!(stdin, "{sha}").is_err() {
                break;
            }
        }
    });
    let mut out = BufReader::new(child.stdout.take().context("cat-file stdout")?);
    let mut header = String::new();
    let mut result = Ok(());
    for i in 0..n {
        header.clear();
        if out.read_line(&mut header).context("reading cat-file")? == 0 {
            result = Err(anyhow::anyhow!("git cat-file ended early"));
            break;
        }
        let fields: Vec<&str> = header.split_whitespace().collect();
        if fields.len() < 3 || fields[1] == "missing" {
            if let Err(e) = each(i, None) {
                result = Err(e);
                break;
            }
            continue;
        }
        let size: usize = fields[2].parse().context("cat-file size")?;
        let mut data = vec![0u8; size];
        out.read_exact(&mut data).context("reading blob")?;
        let mut nl = [0u8; 1];
        out.read_exact(&mut nl).context("reading blob terminator")?;
        if let Err(e) = each(i, Some(&data)) {
            result = Err(e);
            break;
        }
    }
    drop(out);
    let _ = feeder.join();
    let _ = child.wait();
    result
}

/// Materialises `rev` from a content-addressed blob store under `cache` (filled from the
/// mirror on first sight of a blob), hard-linking each file into `dest`: consecutive
/// commits share nearly all blobs, so repeated eval runs skip `git archive` entirely.
/// Blobs the mirror lacks are left out and reported, as in the `cat-file` fallback.
pub fn materialize_cached(
    git_dir: &Path,
    rev: &str,
    dest: &Path,
    cache: &Path,
) -> Result<Option<TreeCaveat>> {
    let entries = ls_tree(git_dir, rev)?;
    let objects = cache.join("objects");
    let absent = cache.join("absent");
    fs::create_dir_all(&objects).with_context(|| format!("creating {}", objects.display()))?;
    fs::create_dir_all(&absent).with_context(|| format!("creating {}", absent.display()))?;
    let object = |sha: &str| objects.join(sha);
    let mut need: Vec<String> = entries
        .iter()
        .map(|e| e.1.clone())
        .filter(|sha| !object(sha).exists() && !absent.join(sha).exists())
        .collect();
    need.sort();
    need.dedup();
    let fetched = need.clone();
    cat_blobs(git_dir, need, |i, data| {
        let sha = &fetched[i];
        match data {
            None => {
                fs::write(absent.join(sha), b"")?;
            }
            Some(data) => {
                // Write then rename, so an interrupted run never leaves a truncated blob.
                let tmp = objects.join(format!("{sha}.tmp{}", std::process::id()));
                fs::write(&tmp, data)?;
                fs::rename(&tmp, object(sha))?;
            }
        }
        Ok(())
    })?;
    let mut missing = Vec::new();
    for (mode, sha, path) in &entries {
        let src = object(sha);
        if !src.exists() {
            missing.push(path.clone());
            continue;
        }
        let full = dest.join(path);
        if mode == "120000" {
            // A symlink's target path, from the blob cache (bounded: it is a path).
            let target = crate::engine::base::guarded::read(
                &src,
                1 << 20,
                crate::engine::base::guarded::Follow::No,
            )
            .map_err(|e| anyhow::anyhow!("reading {}: {e}", src.display()))?;
            write_entry(dest, mode, path, &target)?;
            continue;
        }
        if let Some(parent) = full.parent() {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        if fs::hard_link(&src, &full).is_err() {
            fs::copy(&src, &full).with_context(|| format!("writing {}", full.display()))?;
        }
    }
    Ok((!missing.is_empty()).then(|| TreeCaveat {
        method: "cat-file-fallback".into(),
        error: "blobs missing from the mirror".into(),
        missing,
    }))
}

/// Materialises `rev` of a bare mirror into the existing directory `dest` (`git archive`,
/// falling back to writing the blobs present one by one); a caveat when the fallback was
/// needed. Public so tuning tools can cache trees between runs.
pub fn materialize(git_dir: &Path, rev: &str, dest: &Path) -> Result<Option<TreeCaveat>> {
    match archive(git_dir, rev, dest) {
        Ok(()) => Ok(None),
        Err(e) => {
            let _ = fs::remove_dir_all(dest);
            fs::create_dir_all(dest).with_context(|| format!("creating {}", dest.display()))?;
            let missing = cat_file_tree(git_dir, rev, dest)?;
            Ok(Some(TreeCaveat {
                method: "cat-file-fallback".into(),
                error: format!("{e:#}"),
                missing,
            }))
        }
    }
}

/// A parent tree materialised for the eval: where it is and which commit it is.
#[derive(Debug, Clone, Copy)]
pub struct EvalTree<'a> {
    pub path: &'a Path,
    pub parent: &'a str,
}

/// Runs the eval; `ranker(tree, query)` returns ranked file paths (relative to the tree).
pub fn run_eval(
    opts: &EvalOptions,
    ranker: &mut dyn FnMut(&EvalTree, &str) -> Result<Vec<String>>,
) -> Result<EvalReport> {
    run_eval_with_progress(opts, ranker, &mut |_, _, _| {})
}

/// `run_eval` with a callback after each commit: `(done, total, result)`.
pub fn run_eval_with_progress(
    opts: &EvalOptions,
    ranker: &mut dyn FnMut(&EvalTree, &str) -> Result<Vec<String>>,
    progress: &mut dyn FnMut(usize, usize, &QueryResult),
) -> Result<EvalReport> {
    let mut one = |tree: &EvalTree, q: &str| ranker(tree, q).map(|r| vec![r]);
    let mut reports = run_eval_variants(opts, 1, &mut one, progress)?;
    reports.pop().context("no report")
}

/// Ranks a query on a materialised tree once per weight variant: one file ranking each.
pub type VariantRanker<'a> = dyn FnMut(&EvalTree, &str) -> Result<Vec<Vec<String>>> + 'a;

/// The eval for several rankers at once (weight variants while tuning): each parent tree
/// is materialised once and `ranker(tree, query)` returns one ranking per variant, in
/// order. Gives one report per variant; `progress` sees the first variant's results.
pub fn run_eval_variants(
    opts: &EvalOptions,
    variants: usize,
    ranker: &mut VariantRanker<'_>,
    progress: &mut dyn FnMut(usize, usize, &QueryResult),
) -> Result<Vec<EvalReport>> {
    if opts.ks.is_empty() || opts.ks.contains(&0) {
        bail!("k values must be positive");
    }
    if variants == 0 {
        bail!("at least one variant is needed");
    }
    if !["query", "query_full", "message_raw"].contains(&opts.field.as_str()) {
        bail!(
            "unknown query field {:?} (query, query_full or message_raw)",
            opts.field
        );
    }
    let rows = read_dataset(opts)?;
    let keep = opts.ks.iter().copied().max().unwrap_or(0).max(KEEP_RANKED);

    // Parent → rows, in first-seen order.
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let mut group_of: BTreeMap<String, usize> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        let g = *group_of.entry(r.parent.clone()).or_insert_with(|| {
            groups.push((r.parent.clone(), Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }

    let mut results: Vec<Vec<Option<QueryResult>>> = vec![vec![None; rows.len()]; variants];
    let mut caveats = BTreeMap::new();
    let mut materialize_ms = Vec::new();
    let mut done = 0;
    for (parent, idxs) in &groups {
        let t0 = Instant::now();
        let tmp = TempDir::new(parent)?;
        let tree = tmp.0.join("tree");
        fs::create_dir_all(&tree)?;
        let made = match &opts.blob_cache {
            Some(cache) => materialize_cached(&opts.git_dir, parent, &tree, cache),
            None => materialize(&opts.git_dir, parent, &tree),
        };
        let tree_ok = match made {
            Ok(caveat) => {
                if let Some(c) = caveat {
                    caveats.insert(parent.clone(), c);
                }
                Ok(())
            }
            Err(e) => {
                caveats.insert(
                    parent.clone(),
                    TreeCaveat {
                        method: "failed".into(),
                        error: format!("{e:#}"),
                        missing: Vec::new(),
                    },
                );
                Err(format!("tree materialization failed: {e:#}"))
            }
        };
        materialize_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
        for (n, &i) in idxs.iter().enumerate() {
            let r = &rows[i];
            let (rankings, call_ms, error) = if let Err(e) = &tree_ok {
                (vec![Vec::new(); variants], 0.0, Some(e.clone()))
            } else {
                let t = Instant::now();
                let at = EvalTree {
                    path: &tree,
                    parent,
                };
                let out = ranker(&at, &r.query);
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                match out {
                    Ok(mut v) => {
                        v.resize(variants, Vec::new());
                        let v = v.iter().map(|x| normalize_ranking(x, &tree)).collect();
                        (v, ms, None)
                    }
                    Err(e) => (vec![Vec::new(); variants], ms, Some(format!("{e:#}"))),
                }
            };
            for (vi, ranked) in rankings.into_iter().enumerate() {
                let metrics = score(&ranked, &r.gold, &r.gold_impl, &opts.ks);
                let gold_ranks = r
                    .gold
                    .iter()
                    .map(|g| (g.clone(), ranked.iter().position(|f| f == g).map(|p| p + 1)))
                    .collect();
                let res = QueryResult {
                    commit: r.commit.clone(),
                    parent: parent.clone(),
                    query: r.query.clone(),
                    gold_files: r.gold.clone(),
                    gold_impl_files: r.gold_impl.clone(),
                    n_returned: ranked.len(),
                    ranked: ranked.into_iter().take(keep).collect(),
                    gold_ranks,
                    metrics,
                    call_ms,
                    first_on_tree: n == 0 && tree_ok.is_ok(),
                    error: error.clone(),
                };
                if vi == 0 {
                    done += 1;
                    progress(done, rows.len(), &res);
                }
                results[vi][i] = Some(res);
            }
        }
        drop(tmp);
    }
    let materialize_mean = mean(materialize_ms.into_iter().map(Some));
    Ok(results
        .into_iter()
        .map(|res| {
            let per_query: Vec<QueryResult> = res.into_iter().flatten().collect();
            report(opts, &rows, per_query, caveats.clone(), materialize_mean)
        })
        .collect())
}

fn report(
    opts: &EvalOptions,
    rows: &[Row],
    per_query: Vec<QueryResult>,
    caveats: BTreeMap<String, TreeCaveat>,
    mean_materialize_ms: f64,
) -> EvalReport {
    let mut summary = BTreeMap::new();
    if let Some(first) = per_query.first() {
        for name in first.metrics.keys() {
            let v = mean(
                per_query
                    .iter()
                    .map(|q| q.metrics.get(name).copied().flatten()),
            );
            summary.insert(name.clone(), v);
        }
    }
    let called: Vec<&QueryResult> = per_query
        .iter()
        .filter(|q| q.call_ms > 0.0 || q.error.is_none())
        .collect();
    let calls: Vec<f64> = called.iter().map(|q| q.call_ms).collect();
    let timing = EvalTiming {
        mean_call_ms: mean(calls.iter().map(|&x| Some(x))),
        median_call_ms: median(calls),
        mean_first_call_ms: mean(
            called
                .iter()
                .filter(|q| q.first_on_tree)
                .map(|q| Some(q.call_ms)),
        ),
        mean_other_call_ms: mean(
            called
                .iter()
                .filter(|q| !q.first_on_tree)
                .map(|q| Some(q.call_ms)),
        ),
        mean_materialize_ms,
    };
    EvalReport {
        repo: rows.first().map(|r| r.repo.clone()).unwrap_or_default(),
        dataset: opts.dataset.display().to_string(),
        field: opts.field.clone(),
        n: per_query.len(),
        n_with_impl_gold: per_query
            .iter()
            .filter(|q| !q.gold_impl_files.is_empty())
            .count(),
        ks: opts.ks.clone(),
        summary,
        timing,
        tree_caveats: caveats,
        per_query,
    }
}

/// Objective for choosing weights over several datasets (lower is better): the mean over
/// datasets of `ln(1 − hit@8) + ln(1 − recall@8)`, each floored at 0.005. A log of the miss
/// rate makes a relative gain count the same on every dataset (cutting misses from 20% to
/// 10% weighs as much as from 40% to 20%), so no dataset dominates because it is hard, and
/// no baseline figures are needed to compare variants.
pub fn objective(reports: &[&EvalReport]) -> f64 {
    if reports.is_empty() {
        return f64::INFINITY;
    }
    let term = |r: &EvalReport, k: &str| {
        let v = r.summary.get(k).copied().unwrap_or(0.0);
        let v = if v.is_finite() { v } else { 0.0 };
        (1.0 - v).max(0.005).ln()
    };
    reports
        .iter()
        .map(|r| term(r, "hit@8") + term(r, "recall@8"))
        .sum::<f64>()
        / reports.len() as f64
}

/// One dataset's line of a leave-one-dataset-out table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HeldOut {
    pub repo: String,
    /// The variant chosen on the other datasets (`objective`), by index and name.
    pub chosen: usize,
    pub chosen_name: String,
    /// That variant's summary on this (held-out) dataset.
    pub summary: BTreeMap<String, f64>,
    /// The variant best on this dataset alone, for comparison (in-sample).
    pub best_in_sample: usize,
    pub best_in_sample_name: String,
}

/// Leave one dataset out: `reports[d][v]` is variant `v` on dataset `d`. For each dataset,
/// the variant with the lowest `objective` over the other datasets (first on ties) and its
/// figures on the held-out one. With a single dataset the choice is made on that dataset.
pub fn leave_one_out(reports: &[Vec<EvalReport>], names: &[String]) -> Vec<HeldOut> {
    let n_var = reports.iter().map(Vec::len).min().unwrap_or(0);
    let pick = |use_d: &dyn Fn(usize) -> bool| -> usize {
        let mut best = (f64::INFINITY, 0);
        for v in 0..n_var {
            let rs: Vec<&EvalReport> = (0..reports.len())
                .filter(|&d| use_d(d))
                .map(|d| &reports[d][v])
                .collect();
            let o = objective(&rs);
            if o < best.0 {
                best = (o, v);
            }
        }
        best.1
    };
    (0..reports.len())
        .filter(|_| n_var > 0)
        .map(|held| {
            let chosen = if reports.len() > 1 {
                pick(&|d| d != held)
            } else {
                pick(&|_| true)
            };
            let best_in_sample = pick(&|d| d == held);
            let name = |v: usize| names.get(v).cloned().unwrap_or_else(|| format!("#{v}"));
            HeldOut {
                repo: reports[held][chosen].repo.clone(),
                chosen,
                chosen_name: name(chosen),
                summary: reports[held][chosen].summary.clone(),
                best_in_sample,
                best_in_sample_name: name(best_in_sample),
            }
        })
        .collect()
}

/// The per-dataset table of several datasets: one line per dataset (one variant's figures).
pub fn dataset_table(title: &str, rows: &[(&str, &BTreeMap<String, f64>, &str)]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "{title}");
    let _ = writeln!(
        s,
        "{:<24}{:>7}{:>7}{:>7}{:>7}{:>7}{:>9}{:>7}  variant",
        "dataset", "R@4", "R@8", "R@16", "R@32", "hit@8", "implF@8", "MRR"
    );
    let get = |m: &BTreeMap<String, f64>, k: &str| m.get(k).copied().unwrap_or(f64::NAN);
    let mut mean = [0.0f64; 7];
    for (repo, m, variant) in rows {
        let v = [
            get(m, "recall@4"),
            get(m, "recall@8"),
            get(m, "recall@16"),
            get(m, "recall@32"),
            get(m, "hit@8"),
            get(m, "impl_recall_filt@8"),
            get(m, "mrr"),
        ];
        for (a, x) in mean.iter_mut().zip(v) {
            *a += x / rows.len() as f64;
        }
        let _ = writeln!(
            s,
            "{:<24}{:>7.3}{:>7.3}{:>7.3}{:>7.3}{:>7.3}{:>9.3}{:>7.3}  {variant}",
            repo, v[0], v[1], v[2], v[3], v[4], v[5], v[6]
        );
    }
    if rows.len() > 1 {
        let _ = writeln!(
            s,
            "{:<24}{:>7.3}{:>7.3}{:>7.3}{:>7.3}{:>7.3}{:>9.3}{:>7.3}",
            "mean", mean[0], mean[1], mean[2], mean[3], mean[4], mean[5], mean[6]
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::git;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(std::string::ToString::to_string).collect()
    }

    fn close(a: Option<f64>, b: Option<f64>) -> bool {
        match (a, b) {
            (Some(x), Some(y)) => (x - y).abs() < 1e-12,
            (None, None) => true,
            _ => false,
        }
    }

    #[test]
    fn score_matches_run_eval_py() {
        // Expected values printed by run_eval.score on the same input.
        let m = score(
            &s(&[
                "a.ts",
                "tests/a.test.ts",
                "b.ts",
                "docs/x.py",
                "c.ts",
                "d.ts",
            ]),
            &s(&["b.ts", "tests/a.test.ts", "d.ts"]),
            &s(&["b.ts", "d.ts"]),
            &[1, 2, 4, 8],
        );
        let want: &[(&str, Option<f64>)] = &[
            ("recall@1", Some(0.0)),
            ("hit@1", Some(0.0)),
            ("impl_recall@1", Some(0.0)),
            ("impl_recall_filt@1", Some(0.0)),
            ("recall@2", Some(1.0 / 3.0)),
            ("hit@2", Some(1.0)),
            ("impl_recall@2", Some(0.0)),
            ("impl_recall_filt@2", Some(0.5)),
            ("recall@4", Some(2.0 / 3.0)),
            ("hit@4", Some(1.0)),
            ("impl_recall@4", Some(0.5)),
            ("impl_recall_filt@4", Some(1.0)),
            ("recall@8", Some(1.0)),
            ("hit@8", Some(1.0)),
            ("impl_recall@8", Some(1.0)),
            ("impl_recall_filt@8", Some(1.0)),
            ("mrr", Some(0.5)),
        ];
        assert_eq!(m.len(), want.len());
        for (k, v) in want {
            assert!(close(m[*k], *v), "{k}: {:?} vs {v:?}", m[*k]);
        }

        let m = score(&[], &s(&["b.ts"]), &[], &[1, 2]);
        assert_eq!(m["recall@1"], Some(0.0));
        assert_eq!(m["hit@2"], Some(0.0));
        assert_eq!(m["impl_recall@1"], None);
        assert_eq!(m["impl_recall_filt@2"], None);
        assert_eq!(m["mrr"], Some(0.0));

        let m = score(&s(&["x.ts", "y.ts"]), &[], &[], &[1]);
        assert_eq!(m["recall@1"], None);
        assert_eq!(m["hit@1"], Some(0.0));
    }

    #[test]
    fn mean_and_median_follow_python() {
        assert_eq!(mean([None, Some(0.5), Some(1.0)].into_iter()), 0.75);
        assert!(mean([None].into_iter()).is_nan());
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn rankings_are_cleaned_and_deduplicated() {
        let dir = tempfile::tempdir().unwrap();
        let abs = dir.path().join("src/a.ts");
        fs::create_dir_all(abs.parent().unwrap()).unwrap();
        fs::write(&abs, "x").unwrap();
        let got = normalize_ranking(
            &s(&[
                "./src/a.ts",
                "src\\b.ts",
                abs.to_str().unwrap(),
                "",
                "src/b.ts",
                "././c.go",
            ]),
            dir.path(),
        );
        assert_eq!(got, s(&["src/a.ts", "src/b.ts", "c.go"]));
    }

    /// A two-commit repository and a dataset naming its second commit.
    fn fixture() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        fs::create_dir_all(repo.join("src")).unwrap();
        git(&repo, &["init", "-q"]);
        fs::write(
            repo.join("src/orders.ts"),
            "export function exportOrders() {}\n",
        )
        .unwrap();
        fs::write(repo.join("src/other.ts"), "export const x = 1\n").unwrap();
        fs::write(repo.join("README.md"), "# demo\n").unwrap();
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-qm", "init"]);
        let parent = git(&repo, &["rev-parse", "HEAD"]);
        fs::write(
            repo.join("src/orders.ts"),
            "export function exportOrders(a) {}\n",
        )
        .unwrap();
        git(&repo, &["commit", "-qam", "export orders with args"]);
        let commit = git(&repo, &["rev-parse", "HEAD"]);
        let row = serde_json::json!({
            "repo": "demo/repo", "commit": commit, "parent": parent,
            "query": "export orders", "query_full": "export orders with args",
            "gold_files": ["src/orders.ts"], "gold_impl_files": ["src/orders.ts"],
        });
        let bad = serde_json::json!({
            "repo": "demo/repo", "commit": "c2", "parent": "0000000000000000000000000000000000000000",
            "query": "nothing", "gold_files": ["src/other.ts"], "gold_impl_files": [],
        });
        let dataset = dir.path().join("d.jsonl");
        fs::write(&dataset, format!("{row}\n\n{row}\n{bad}\n")).unwrap();
        (dir, repo.join(".git"), dataset)
    }

    #[test]
    fn end_to_end_on_a_tiny_repository() {
        let (_dir, git_dir, dataset) = fixture();
        let mut opts = EvalOptions::new(&dataset, &git_dir);
        opts.ks = vec![1, 2];
        let mut seen_trees = Vec::new();
        let mut seen_parents = Vec::new();
        let mut ranker = |at: &EvalTree, q: &str| -> Result<Vec<String>> {
            let tree = at.path;
            seen_parents.push(at.parent.to_string());
            // The parent tree, not the commit: no argument yet.
            let src = fs::read_to_string(tree.join("src/orders.ts"))?;
            assert_eq!(src, "export function exportOrders() {}\n");
            assert!(tree.join("README.md").exists());
            assert_eq!(q, "export orders");
            seen_trees.push(tree.to_path_buf());
            Ok(s(&["./src/other.ts", "src/orders.ts", "src/orders.ts"]))
        };
        let report = run_eval(&opts, &mut ranker).unwrap();
        assert_eq!(report.n, 3);
        assert_eq!(report.repo, "demo/repo");
        assert_eq!(report.n_with_impl_gold, 2);
        let q = &report.per_query[0];
        assert_eq!(q.ranked, s(&["src/other.ts", "src/orders.ts"]));
        assert_eq!(q.metrics["recall@1"], Some(0.0));
        assert_eq!(q.metrics["recall@2"], Some(1.0));
        assert_eq!(q.metrics["mrr"], Some(0.5));
        assert!(q.first_on_tree && !report.per_query[1].first_on_tree);
        // The ranker is told which commit the tree is (the history signal reads only its
        // ancestors); the bad parent never reaches it.
        assert_eq!(seen_parents, [q.parent.clone(), q.parent.clone()]);
        // The bad parent fails to materialise: an error, empty ranking, metrics still counted.
        let bad = &report.per_query[2];
        assert!(bad.error.as_deref().unwrap().contains("materialization"));
        assert_eq!(bad.metrics["recall@1"], Some(0.0));
        assert_eq!(report.summary["recall@2"], 2.0 / 3.0);
        assert_eq!(report.summary["impl_recall@2"], 1.0);
        assert_eq!(report.summary["mrr"], 1.0 / 3.0);
        assert_eq!(report.tree_caveats.len(), 1);
        // Trees are removed afterwards.
        assert!(seen_trees.iter().all(|t| !t.exists()));
        let table = report.table();
        assert!(table.contains("recall"));
        assert!(table.contains("impl_recall_filt"));
        assert!(table.contains("tool errors: 1"));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["per_query"][0]["metrics"]["hit@2"], 1.0);

        // --limit and query_full.
        opts.limit = Some(1);
        opts.field = "query_full".into();
        let mut ranker = |_: &EvalTree, q: &str| -> Result<Vec<String>> {
            assert_eq!(q, "export orders with args");
            anyhow::bail!("ranker failed")
        };
        let report = run_eval(&opts, &mut ranker).unwrap();
        assert_eq!(report.n, 1);
        assert_eq!(report.per_query[0].error.as_deref(), Some("ranker failed"));
    }

    #[test]
    fn cat_file_fallback_writes_the_tree() {
        let (_dir, git_dir, _) = fixture();
        let dest = tempfile::tempdir().unwrap();
        let missing = cat_file_tree(&git_dir, "HEAD~1", dest.path()).unwrap();
        assert!(missing.is_empty());
        assert_eq!(
            fs::read_to_string(dest.path().join("src/orders.ts")).unwrap(),
            "export function exportOrders() {}\n"
        );
        assert!(dest.path().join("README.md").exists());
        assert!(cat_file_tree(&git_dir, "nope", dest.path()).is_err());
    }

    /// Every file under `dir` (relative path → content; a symlink → its target), sorted.
    fn tree_listing(dir: &Path) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                let rel = p
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let meta = fs::symlink_metadata(&p).unwrap();
                if meta.file_type().is_symlink() {
                    let target = fs::read_link(&p).unwrap();
                    out.push((rel, format!("-> {}", target.display())));
                } else if meta.is_dir() {
                    stack.push(p);
                } else {
                    out.push((rel, fs::read_to_string(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    #[test]
    fn blob_cache_materialises_the_same_tree_as_git_archive() {
        let (_dir, git_dir, _) = fixture();
        let repo = git_dir.parent().unwrap();
        fs::create_dir_all(repo.join("pkg/deep")).unwrap();
        fs::write(repo.join("pkg/deep/x.py"), "def x():\n    pass\n").unwrap();
        // Same content as another file: one blob, two paths.
        fs::write(repo.join("pkg/same.ts"), "export const x = 1\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("deep/x.py", repo.join("pkg/link.py")).unwrap();
        git(repo, &["add", "."]);
        git(repo, &["commit", "-qm", "more"]);
        let cache = tempfile::tempdir().unwrap();
        // HEAD twice: the second time every blob comes from the store.
        for rev in ["HEAD~2", "HEAD~1", "HEAD", "HEAD"] {
            let want = tempfile::tempdir().unwrap();
            let got = tempfile::tempdir().unwrap();
            assert!(materialize(&git_dir, rev, want.path()).unwrap().is_none());
            let caveat = materialize_cached(&git_dir, rev, got.path(), cache.path()).unwrap();
            assert!(caveat.is_none(), "{rev}: {caveat:?}");
            let listing = tree_listing(got.path());
            assert_eq!(listing, tree_listing(want.path()), "{rev}");
            assert!(listing.iter().any(|(p, _)| p == "src/orders.ts"));
        }
        let dest = tempfile::tempdir().unwrap();
        materialize_cached(&git_dir, "HEAD", dest.path(), cache.path()).unwrap();
        let head = tree_listing(dest.path());
        assert!(head.contains(&("pkg/deep/x.py".into(), "def x():\n    pass\n".into())));
        #[cfg(unix)]
        assert!(head.contains(&("pkg/link.py".into(), "-> deep/x.py".into())));
        // An unknown revision is an error, not an empty tree.
        let dest = tempfile::tempdir().unwrap();
        assert!(materialize_cached(&git_dir, "nope", dest.path(), cache.path()).is_err());
    }

    #[test]
    fn bad_options_are_errors() {
        let mut opts = EvalOptions::new("/nonexistent.jsonl", "/nonexistent");
        let mut ranker = |_: &EvalTree, _: &str| -> Result<Vec<String>> { Ok(vec![]) };
        assert!(run_eval(&opts, &mut ranker).is_err());
        opts.field = "subject".into();
        assert!(run_eval(&opts, &mut ranker).is_err());
        opts.field = "query".into();
        opts.ks = vec![0];
        assert!(run_eval(&opts, &mut ranker).is_err());
    }

    fn fake(repo: &str, hit8: f64, r8: f64) -> EvalReport {
        let mut summary = BTreeMap::new();
        summary.insert("hit@8".to_string(), hit8);
        summary.insert("recall@8".to_string(), r8);
        EvalReport {
            repo: repo.into(),
            dataset: format!("{repo}.jsonl"),
            field: "query".into(),
            n: 10,
            n_with_impl_gold: 10,
            ks: vec![8],
            summary,
            timing: EvalTiming {
                mean_call_ms: 0.0,
                median_call_ms: 0.0,
                mean_first_call_ms: 0.0,
                mean_other_call_ms: 0.0,
                mean_materialize_ms: 0.0,
            },
            tree_caveats: BTreeMap::new(),
            per_query: Vec::new(),
        }
    }

    #[test]
    fn leave_one_out_chooses_on_the_other_datasets() {
        let names = s(&["a", "b"]);
        // Variant b is much better on x, a little worse on y and z.
        let reports = vec![
            vec![fake("x", 0.50, 0.40), fake("x", 0.90, 0.80)],
            vec![fake("y", 0.80, 0.70), fake("y", 0.78, 0.68)],
            vec![fake("z", 0.80, 0.70), fake("z", 0.78, 0.68)],
        ];
        let loo = leave_one_out(&reports, &names);
        assert_eq!(loo.len(), 3);
        // Held out x: chosen on y and z → a, although b is best on x itself.
        assert_eq!(loo[0].chosen_name, "a");
        assert_eq!(loo[0].best_in_sample_name, "b");
        assert_eq!(loo[0].summary["hit@8"], 0.50);
        // Held out y: x and z together prefer b (x's gain is larger in log terms).
        assert_eq!(loo[1].chosen_name, "b");
        assert_eq!(loo[1].best_in_sample_name, "a");
        assert!(objective(&[&reports[0][1]]) < objective(&[&reports[0][0]]));
        assert!(objective(&[]).is_infinite());
        // One dataset: chosen on itself.
        let one = leave_one_out(&reports[..1], &names);
        assert_eq!(one[0].chosen_name, "b");
        let table = dataset_table(
            "held out",
            &[("x", &loo[0].summary, "a"), ("y", &loo[1].summary, "b")],
        );
        assert!(table.contains("held out") && table.contains("mean"));
    }
}
