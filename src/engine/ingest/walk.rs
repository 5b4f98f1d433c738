//! The file walk: which files of a repository are indexed as code, which are kept as docs
//! for text search, which are skipped and why, which Go modules the repository declares, and
//! which TS/JS path aliases its `tsconfig.json`/`jsconfig.json` files configure.
//! Loading one source file and judging its content is `content`.
//!
//! `walk` is called from the engine worker thread (the CLI's main thread) and fans out over
//! rayon's pool, one job per directory, for its duration (one `lstat` per candidate file is
//! most of its cost); its output is sorted, so it is deterministic anyway. The `ignore`
//! crate supplies the gitignore matchers, not the walker.
//!
//! The walk never reads file contents (sizes come from metadata), except `go.mod` files,
//! which are tiny and needed to resolve Go imports, `tsconfig.json`/`jsconfig.json` files
//! (bounded, `tsconfig`), needed to resolve TS/JS path aliases, the heads of licence files
//! (`licences`), which tell another project's copy kept in a folder, and the ignore files
//! (`IgnoreRules`), which it reads itself through `guarded` rather than letting the `ignore`
//! crate open them.
//!
//! `PathFilter` applies the same rules to one path at a time, for the file watcher (see
//! `watch`); it runs on the watcher's coalescing thread.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::engine::base::error::EngineError;
use crate::engine::base::guarded::{self, Follow};
use crate::engine::base::model::{GoModule, Lang, SkipReason, Skipped, TsPaths};

pub(crate) mod headers;
pub mod licences;
pub mod tsconfig;
use crate::engine::ingest::content::{is_minified_name, strip_bom};
use tsconfig::{is_ts_config_name, read_ts_config};

/// The per-directory ignore file that mapscope honours on top of the git ones.
pub const CUSTOM_IGNORE_FILE: &str = ".mapscopeignore";
/// Git's per-directory ignore file.
pub const GIT_IGNORE_FILE: &str = ".gitignore";
/// The Go module file: read by the walk for import resolution.
pub const GO_MOD: &str = "go.mod";

/// `go.mod` files above this size are not parsed (real ones are a few KiB).
const MAX_GO_MOD_SIZE: u64 = 1024 * 1024;

/// Directory names that are build output when sources sit beside them (see `is_build_output`).
const BUILD_DIR_NAMES: [&str; 4] = ["dist", "build", "out", "lib"];
/// Project manifests that mark a directory as a JS/TS/Python project root.
const PROJECT_MANIFESTS: [&str; 5] = [
    "package.json",
    "tsconfig.json",
    "setup.py",
    "setup.cfg",
    "pyproject.toml",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkOptions {
    /// Code files above this size are skipped as `TooLarge` (decided from metadata).
    pub max_file_size: u64,
    /// Doc files above this size are skipped as `TooLarge`.
    pub max_doc_size: u64,
    /// Stops the walk (and the build's parse) when set and run out: see `base::limits`.
    pub budget: Option<Arc<crate::engine::base::limits::BuildBudget>>,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            max_file_size: 1024 * 1024,
            max_doc_size: 256 * 1024,
            budget: None,
        }
    }
}

/// A source file in a supported language, to be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkedFile {
    /// Path relative to the repo root, with `/` separators.
    pub rel_path: String,
    pub abs_path: PathBuf,
    pub lang: Lang,
    /// Size from metadata at walk time (the file may change before it is read).
    pub size: u64,
    /// Modification time from the same metadata (ns since the epoch; 0 when unavailable).
    pub mtime_ns: i64,
}

/// A prose or config file (README, markdown, JSON, YAML, TOML, …) kept for text search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocFile {
    pub rel_path: String,
    pub abs_path: PathBuf,
    pub size: u64,
    /// Modification time (ns since the epoch, 0 when unknown): a refresh keeps the text of
    /// a doc whose size and mtime did not change instead of reading it again.
    pub mtime_ns: i64,
}

/// A code file in a language mapscope has no grammar for (`lang::unsupported_language`):
/// counted, never read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsupportedFile {
    pub rel_path: String,
    /// The language's name (`kotlin`).
    pub language: &'static str,
}

/// Everything the walk found. Every list is sorted (by path; `go_modules` by dir then module,
/// `ts_paths` by dir).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkOutput {
    pub files: Vec<WalkedFile>,
    pub docs: Vec<DocFile>,
    /// Skipped candidates with their reason. A skipped directory is one entry (its path).
    /// Files and directories excluded by `.gitignore`-style rules are not listed: the walk
    /// drops them unlisted, as git does, and listing `target/` or a virtualenv file by file
    /// would swamp the list.
    pub skipped: Vec<Skipped>,
    /// Code files in languages without a grammar, under the same rules as indexed files
    /// (ignored, hidden, vendored and build-output files are not listed).
    pub unsupported: Vec<UnsupportedFile>,
    pub go_modules: Vec<GoModule>,
    /// The `paths`/`baseUrl` settings of each `tsconfig.json`/`jsconfig.json` that has any.
    /// The config stays a doc as well.
    pub ts_paths: Vec<TsPaths>,
    /// Folders holding another project's copy, told by their own licence
    /// (`licences::vendored_dirs`); the licence files stay docs where they are docs.
    pub vendored_dirs: Vec<String>,
    /// Ignore files and git metadata that were not read (not a regular file, a symbolic
    /// link, too large): one line each, paths relative to the root where they are below it.
    /// Raw repository text: sanitise before printing.
    pub warnings: Vec<String>,
}

/// Walks the repository at `root`.
///
/// Honours `.gitignore` (with or without a `.git` directory), `.git/info/exclude`, the global
/// git excludes file and `.mapscopeignore` files, each read only if it is a regular file
/// (not a symlink) of at most `MAX_IGNORE_FILE` bytes; any other is skipped with a warning
/// (`WalkOutput::warnings`), as git skips a symlinked `.gitignore`. Never follows symlinks,
/// so a symlink loop cannot trap the walk; symlinks themselves are not indexed and not
/// listed. Only regular files are indexed: a FIFO, socket or device with a code or doc name
/// is listed as `Unreadable` (opening a FIFO would block).
///
/// Skipped, with the reason recorded:
/// - `Hidden`: any file or directory whose name starts with `.` (`.git`, `.github`, `.env`…).
/// - `NodeModules`: a `node_modules` directory; `Vendor`: a `vendor` directory.
/// - `BuildOutput`: a directory named `dist`, `build`, `out` or `lib` whose parent also holds
///   a `src` directory (compiled from it), or — for `dist`, `build` and `out` only — whose
///   parent holds a project manifest (`package.json`, `tsconfig.json`, `setup.py`, `setup.cfg`,
///   `pyproject.toml`). `lib` is exempt from the manifest rule because many JS and Python
///   projects keep their hand-written sources in `lib/`.
/// - `Minified`: files named `*.min.js`, `*.min.mjs`, `*.min.cjs`, `*-min.js`, `*.bundle.js`.
/// - `TooLarge`: code files above `max_file_size`, docs above `max_doc_size` (metadata only).
/// - `Unreadable`: a directory that cannot be listed, a non-regular file with a code/doc name.
pub fn walk(root: &Path, opts: &WalkOptions) -> Result<WalkOutput, EngineError> {
    walk_observed(root, opts, &|_| {})
}

/// `walk`, calling `observe` with each code file as the walk finds it (from rayon's pool
/// threads or the calling thread, in no particular order), before the lists are sorted: an
/// index build starts compiling each language's tags query then (see
/// `index::prefetch::QueryPrefetch`).
pub fn walk_observed(
    root: &Path,
    opts: &WalkOptions,
    observe: &(dyn Fn(&WalkedFile) + Sync),
) -> Result<WalkOutput, EngineError> {
    // Absolute paths for `abs_path`, and a root that is no longer a symlink, so that no
    // symlink is followed anywhere below it.
    let root = canonical_root(root)?;

    // The ignore files are read through `guarded` (`IgnoreRules`): a FIFO named `.gitignore`
    // must not block the walk, nor `/dev/zero` be read without end, nor a link lead out of
    // the tree.
    let rules = IgnoreRules::new();
    let found: Mutex<Vec<Found>> = Mutex::default();
    let walk = TreeWalk {
        root: &root,
        opts,
        rules: &rules,
        observe,
        found: &found,
    };
    // Each directory is one job on rayon's pool, the pool the parse runs on next: no walker
    // threads to start, and the walk ends when its last directory does (a walker with
    // threads of its own puts an idle one to sleep, and its walk ends when the last sleeper
    // wakes).
    // The visiting order is not deterministic; the sort below is. The root is listed on the
    // calling thread, which then only waits: a pool thread waiting for the scope would take
    // other jobs meanwhile (a tags query's compile, tens of ms) and end the walk only after.
    rayon::in_place_scope(|scope| walk.dir(scope, root.clone()));
    if let Some(budget) = &opts.budget {
        budget.check()?;
    }

    let mut out = WalkOutput::default();
    let mut ts_configs: Vec<(String, bool, Option<TsPaths>)> = Vec::new();
    let mut licence_holders: Vec<(String, Vec<String>)> = Vec::new();
    let mut build_dirs: Vec<String> = Vec::new();
    let found = found.into_inner().unwrap_or_else(PoisonError::into_inner);
    for item in found {
        match item {
            Found::File(f) => out.files.push(f),
            Found::Doc(d) => out.docs.push(d),
            Found::Skip(s) => out.skipped.push(s),
            Found::GoMod(m) => out.go_modules.push(m),
            Found::TsConfig { dir, js, paths } => ts_configs.push((dir, js, paths)),
            Found::Licence { dir, holders } => licence_holders.push((dir, holders)),
            Found::BuildFile { dir } => build_dirs.push(dir),
            Found::Unsupported(u) => out.unsupported.push(u),
        }
    }
    build_dirs.sort_unstable();
    build_dirs.dedup();
    out.vendored_dirs = licences::vendored_dirs(&licence_holders, &build_dirs);
    out.unsupported
        .sort_unstable_by(|a, b| a.rel_path.cmp(&b.rel_path));
    // Ties on `rel_path` only happen between non-UTF-8 names made equal by the lossy
    // conversion; the exact path breaks them.
    out.files.sort_unstable_by(|a, b| {
        (a.rel_path.as_str(), &a.abs_path).cmp(&(b.rel_path.as_str(), &b.abs_path))
    });
    headers::settle(&mut out.files);
    for file in out
        .files
        .iter()
        .filter(|f| headers::is_shared_header(&f.rel_path))
    {
        observe(file);
    }
    out.docs.sort_unstable_by(|a, b| {
        (a.rel_path.as_str(), &a.abs_path).cmp(&(b.rel_path.as_str(), &b.abs_path))
    });
    out.skipped
        .sort_unstable_by(|a, b| a.path.cmp(&b.path).then(a.reason.cmp(&b.reason)));
    out.skipped.dedup();
    out.go_modules.sort_unstable();
    // `tsc` reads a folder's `jsconfig.json` only when it has no `tsconfig.json`, even one
    // without aliases: the folder's first config (`false` < `true`) is the one that counts.
    ts_configs.sort_unstable_by(|a, b| (a.0.as_str(), a.1).cmp(&(b.0.as_str(), b.1)));
    ts_configs.dedup_by(|later, first| later.0 == first.0);
    out.ts_paths = ts_configs.into_iter().filter_map(|(_, _, t)| t).collect();
    out.warnings = rules.take_warnings(&root);
    Ok(out)
}

/// `root` checked (it exists and is a directory) and canonicalized: the root both `walk` and
/// `PathFilter` work from.
fn canonical_root(root: &Path) -> Result<PathBuf, EngineError> {
    let meta = match fs::metadata(root) {
        Ok(meta) => meta,
        // `file.ts/sub` does not exist either.
        Err(err)
            if matches!(
                err.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
            ) =>
        {
            return Err(EngineError::RepoNotFound(root.to_path_buf()))
        }
        Err(source) => {
            return Err(EngineError::Io {
                path: root.to_path_buf(),
                source,
            })
        }
    };
    if !meta.is_dir() {
        return Err(EngineError::InvalidRepo(root.to_path_buf()));
    }
    fs::canonicalize(root).map_err(|source| EngineError::Io {
        path: root.to_path_buf(),
        source,
    })
}

/// One finding of the walk, before the lists are split and sorted.
enum Found {
    File(WalkedFile),
    Doc(DocFile),
    Skip(Skipped),
    GoMod(GoModule),
    /// Found beside the config's own `Doc` (or `Skip`) entry: its folder, whether it is a
    /// `jsconfig.json`, and its aliases (`None` when it sets none, or cannot be read).
    TsConfig {
        dir: String,
        js: bool,
        paths: Option<TsPaths>,
    },
    /// Found beside the licence's own `Doc` entry, if any: its folder and holder words.
    Licence {
        dir: String,
        holders: Vec<String>,
    },
    /// A build file's folder (`licences::is_build_file_name`), beside the file's own entry.
    BuildFile {
        dir: String,
    },
    Unsupported(UnsupportedFile),
}

/// One walk's shared state; each directory's job reads what it needs from here.
struct TreeWalk<'w> {
    root: &'w Path,
    opts: &'w WalkOptions,
    rules: &'w IgnoreRules,
    observe: &'w (dyn Fn(&WalkedFile) + Sync),
    /// A directory's findings are appended at once: one lock per directory, not per file.
    found: &'w Mutex<Vec<Found>>,
}

impl<'w> TreeWalk<'w> {
    /// Lists `dir` and judges each entry; a subdirectory to walk becomes a job of its own.
    /// Each job reads its directory to the end and closes it, so the walk holds at most one
    /// directory open per pool thread however deep the tree is, and recurses on no stack.
    fn dir<'s>(&'s self, scope: &rayon::Scope<'s>, dir: PathBuf)
    where
        'w: 's,
    {
        if self.opts.budget.as_ref().is_some_and(|b| !b.go_on()) {
            return;
        }
        let mut local = Vec::new();
        match fs::read_dir(&dir) {
            Ok(entries) => {
                for entry in entries {
                    let Ok(entry) = entry else {
                        // A listing that fails part way: the entries read so far are kept.
                        self.unreadable(&dir, &mut local);
                        break;
                    };
                    if let Some(subdir) = self.entry(&entry, &mut local) {
                        scope.spawn(move |scope| self.dir(scope, subdir));
                    }
                }
            }
            Err(_) => self.unreadable(&dir, &mut local),
        }
        if !local.is_empty() {
            self.found
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .append(&mut local);
        }
    }

    /// One entry of a listed directory: ignored (dropped unlisted, as git drops it), pruned
    /// (listed with its reason), a file (`visit_file`), or a directory to walk (returned).
    fn entry(&self, entry: &fs::DirEntry, local: &mut Vec<Found>) -> Option<PathBuf> {
        let path = entry.path();
        // The type comes from the listing itself where the file system gives it.
        let Ok(file_type) = entry.file_type() else {
            self.unreadable(&path, local);
            return None;
        };
        let is_dir = file_type.is_dir();
        if self.rules.is_ignored(&path, is_dir) {
            return None;
        }
        // Read once: each `file_name` call copies the name out of the listing.
        let name = entry.file_name();
        if let Some(reason) = prune_reason_of(&path, &name, is_dir) {
            if let Some(path) = rel_path_of(self.root, &path) {
                local.push(Found::Skip(Skipped { path, reason }));
            }
            return None;
        }
        if is_dir {
            return Some(path);
        }
        if file_type.is_file() {
            // The folder of a file the walk reads to judge others (`""` for the root).
            let folder = || {
                rel_path_of(self.root, &path)
                    .map(|rel| rel.rsplit_once('/').map_or("", |(dir, _)| dir).to_string())
            };
            if let Some(config) = name.to_str().filter(|n| is_ts_config_name(n)) {
                let dir = folder().unwrap_or_default();
                let paths = read_ts_config(self.root, &path, &dir);
                local.push(Found::TsConfig {
                    dir,
                    js: config == "jsconfig.json",
                    paths,
                });
            }
            if name.to_str().is_some_and(licences::is_licence_name) {
                if let Some(dir) = folder() {
                    let holders = licences::read_holders(&path);
                    local.push(Found::Licence { dir, holders });
                }
            }
            if name.to_str().is_some_and(licences::is_build_file_name) {
                if let Some(dir) = folder() {
                    local.push(Found::BuildFile { dir });
                }
            }
        }
        let found = visit_file(self.root, self.opts, entry, &name, path, file_type)?;
        // A shared header's language is settled after the walk (`headers::settle`), and
        // observed then.
        if let Found::File(file) = &found {
            if !headers::is_shared_header(&file.rel_path) {
                (self.observe)(file);
            }
        }
        if let (
            Some(budget),
            Found::File(WalkedFile { size, .. }) | Found::Doc(DocFile { size, .. }),
        ) = (&self.opts.budget, &found)
        {
            budget.count(*size);
        }
        local.push(found);
        None
    }

    /// A directory that cannot be listed, or an entry whose type cannot be read: recorded,
    /// and the walk carries on with the rest. (The root itself is not listed.)
    fn unreadable(&self, path: &Path, local: &mut Vec<Found>) {
        if let Some(path) = rel_path_of(self.root, path).filter(|p| !p.is_empty()) {
            local.push(Found::Skip(Skipped {
                path,
                reason: SkipReason::Unreadable,
            }));
        }
    }
}

/// What one entry that is not a directory and survived the ignore rules and
/// `prune_reason_of` is: `None` for a symbolic link (never followed, never listed) or a name
/// the walk passes over.
fn visit_file(
    root: &Path,
    opts: &WalkOptions,
    entry: &fs::DirEntry,
    name: &OsStr,
    path: PathBuf,
    file_type: fs::FileType,
) -> Option<Found> {
    if file_type.is_symlink() {
        return None;
    }
    // A non-UTF-8 name gets a lossy `rel_path`; `abs_path` stays exact, so it still loads.
    let name = name.to_string_lossy();
    let name = name.as_ref();
    let lang = Lang::from_path(name);
    let is_go_mod = name == GO_MOD;
    if !is_candidate_name(name) {
        let language = crate::engine::ingest::lang::unsupported_language(name)?;
        if !file_type.is_file() {
            return None;
        }
        return Some(Found::Unsupported(UnsupportedFile {
            rel_path: rel_path_of(root, &path)?,
            language,
        }));
    }
    let rel_path = rel_path_of(root, &path)?;
    let skip = |reason| {
        Some(Found::Skip(Skipped {
            path: rel_path.clone(),
            reason,
        }))
    };
    if !file_type.is_file() {
        return if is_go_mod {
            None
        } else {
            skip(SkipReason::Unreadable)
        };
    }
    if is_go_mod {
        let module = read_go_mod(&path)?;
        let dir = rel_path.rsplit_once('/').map_or("", |(dir, _)| dir);
        return Some(Found::GoMod(GoModule {
            dir: dir.to_string(),
            module,
        }));
    }
    if lang.is_some() && is_minified_name(name) {
        return skip(SkipReason::Minified);
    }
    // Not following a symbolic link (it is none): `fstatat` beside the listing's handle.
    let Ok(meta) = entry.metadata() else {
        return skip(SkipReason::Unreadable);
    };
    let size = meta.len();
    let limit = if lang.is_some() {
        opts.max_file_size
    } else {
        opts.max_doc_size
    };
    if size > limit {
        return skip(SkipReason::TooLarge);
    }
    let abs_path = path;
    Some(match lang {
        Some(lang) => Found::File(WalkedFile {
            rel_path,
            abs_path,
            lang,
            size,
            mtime_ns: mtime_ns(&meta),
        }),
        None => Found::Doc(DocFile {
            rel_path,
            abs_path,
            size,
            mtime_ns: mtime_ns(&meta),
        }),
    })
}

/// Why the walk prunes an entry below the root, given by path, name and type, before
/// looking at it as a file: the name-based rules (hidden, node_modules, vendor, build
/// output). `None` keeps it. Shared with `PathFilter` so that the walk and the watcher
/// cannot disagree.
fn prune_reason_of(path: &Path, name: &OsStr, is_dir: bool) -> Option<SkipReason> {
    if is_hidden_name(name) {
        return Some(SkipReason::Hidden);
    }
    if !is_dir {
        return None;
    }
    let name = name.to_str()?;
    match name {
        "node_modules" => Some(SkipReason::NodeModules),
        "vendor" => Some(SkipReason::Vendor),
        _ if is_build_output(path, name) => Some(SkipReason::BuildOutput),
        _ => None,
    }
}

fn is_hidden_name(name: &OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

/// The file names the walk looks at: code in a supported language, docs, `go.mod`. Any other
/// file is passed over without being listed.
fn is_candidate_name(name: &str) -> bool {
    Lang::from_path(name).is_some() || is_doc_name(name) || name == GO_MOD
}

/// The build-output rule documented on `walk`: a `dist`/`build`/`out`/`lib` directory is
/// compiled output when its parent also has `src/`; `dist`/`build`/`out` also when the parent
/// has a JS/TS/Python project manifest.
fn is_build_output(dir: &Path, name: &str) -> bool {
    if !BUILD_DIR_NAMES.contains(&name) {
        return false;
    }
    let Some(parent) = dir.parent() else {
        return false;
    };
    if parent.join("src").is_dir() {
        return true;
    }
    name != "lib"
        && PROJECT_MANIFESTS
            .iter()
            .any(|manifest| parent.join(manifest).is_file())
}

/// `path` relative to `root`, with `/` separators; `None` when it is not under `root`.
fn rel_path_of(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let rel = rel.to_string_lossy();
    Some(if std::path::MAIN_SEPARATOR == '/' {
        rel.into_owned()
    } else {
        rel.replace(std::path::MAIN_SEPARATOR, "/")
    })
}

/// What the walk makes of one path; see `PathFilter::classify`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkClass {
    /// Not part of the walk: outside the root, under a pruned or ignored directory, hidden,
    /// ignored, a symlink, or a file name the walk passes over without listing it.
    Outside,
    /// A file the walk reports: code, a doc or `go.mod`, indexed or listed as skipped for
    /// its size, name or type. (Hidden files, which the walk lists as pruned, are `Outside`:
    /// editors' swap files come and go all the time and are never indexed.)
    File,
    /// A directory the walk descends into (the root included).
    Dir,
    /// A rules file the walk reads in a walked directory (`.gitignore`, `.mapscopeignore`,
    /// `.git/info/exclude`): when it changes, what the walk covers changes.
    Rules,
}

/// The walk's rules applied to one path at a time, without walking: for the file watcher,
/// which must tell which changed paths matter to the index.
///
/// It applies the same rules as `walk`, through the same helpers for the name-based ones
/// (hidden, node_modules, vendor, build output, candidate file names) and the `ignore`
/// crate's own matchers for the ignore files, combined the way its walker combines them:
/// for each category, the nearest directory whose file has a matching pattern (ignore or
/// `!`whitelist) decides; `.mapscopeignore` beats `.gitignore`, which beats
/// `.git/info/exclude`, which beats the global excludes file; and a path is walked only if
/// every directory above it is (git cannot re-include a file under an excluded directory).
/// A unit test checks on a fixture tree that it agrees with `walk` for every entry.
///
/// It reads the file system as it is when asked (the path's type, whether a `src` sibling
/// exists, the ignore files), so a path that vanished is judged by its name. Parsed ignore
/// files are cached per directory; call `invalidate` when one changes. Single-threaded
/// (`&mut self`): the watcher's coalescing thread owns it.
#[derive(Debug)]
pub struct PathFilter {
    root: PathBuf,
    rules: IgnoreRules,
}

/// The ignore files of one directory, parsed.
#[derive(Debug)]
struct DirRules {
    custom: Gitignore,
    git: Gitignore,
    exclude: Gitignore,
}

impl DirRules {
    fn is_empty(&self) -> bool {
        self.custom.is_empty() && self.git.is_empty() && self.exclude.is_empty()
    }
}

impl PathFilter {
    /// A filter for the repository at `root`; fails like `walk` on a missing root or a file.
    pub fn new(root: &Path) -> Result<PathFilter, EngineError> {
        // Files the walk skipped with a warning are skipped here silently: the walk of the
        // same tree has reported them.
        Ok(PathFilter {
            root: canonical_root(root)?,
            rules: IgnoreRules::new(),
        })
    }

    /// The canonical root: paths handed to `classify` should start with it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` relative to the root with `/` separators, as the walk spells `rel_path`.
    pub fn rel_path(&self, path: &Path) -> Option<String> {
        rel_path_of(&self.root, path)
    }

    /// Forgets the parsed ignore files, after one of them changed.
    pub fn invalidate(&mut self) {
        self.rules = IgnoreRules::new();
    }

    /// What the walk makes of the absolute path `path`. `is_dir` is the entry's type when
    /// the caller knows it (a removal event says so); otherwise it is read from the file
    /// system, and a path that no longer exists is judged first as a file, then as a
    /// directory.
    pub fn classify(&mut self, path: &Path, is_dir: Option<bool>) -> WalkClass {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return WalkClass::Outside;
        };
        let mut names = Vec::new();
        for comp in rel.components() {
            match comp {
                Component::Normal(name) => names.push(name),
                // `..` or a second root: not a path the watcher reports under the root.
                _ => return WalkClass::Outside,
            }
        }
        let Some((&name, parents)) = names.split_last() else {
            return WalkClass::Dir;
        };
        if let [walked @ .., git, info] = parents {
            if *git == ".git" && *info == "info" && name == "exclude" {
                let dir = walked.iter().fold(self.root.clone(), |dir, n| dir.join(n));
                return if self.dir_is_walked(&dir) {
                    WalkClass::Rules
                } else {
                    WalkClass::Outside
                };
            }
        }
        let Some(parent) = path.parent() else {
            return WalkClass::Outside;
        };
        if !self.dir_is_walked(parent) {
            return WalkClass::Outside;
        }
        // The walker reads these in every directory it enters, ignored or not.
        if name == GIT_IGNORE_FILE || name == CUSTOM_IGNORE_FILE {
            return WalkClass::Rules;
        }
        match fs::symlink_metadata(path) {
            // The walk never follows nor lists symlinks.
            Ok(meta) if meta.file_type().is_symlink() => WalkClass::Outside,
            Ok(meta) => self.classify_entry(path, name, meta.is_dir()),
            Err(_) => match is_dir {
                Some(is_dir) => self.classify_entry(path, name, is_dir),
                None => match self.classify_entry(path, name, false) {
                    WalkClass::Outside => self.classify_entry(path, name, true),
                    class => class,
                },
            },
        }
    }

    /// True when creating or removing `path` can flip the build-output rule for a sibling
    /// directory (a `src` directory or a project manifest beside `dist/`, `build/`, `out/`
    /// or `lib/`): the walk's coverage changes without any ignore file changing.
    pub fn affects_build_output(&self, path: &Path) -> bool {
        let (Some(name), Some(parent)) = (path.file_name(), path.parent()) else {
            return false;
        };
        let marker = name == "src" || PROJECT_MANIFESTS.iter().any(|m| name == *m);
        marker && BUILD_DIR_NAMES.iter().any(|dir| parent.join(dir).is_dir())
    }

    /// An entry whose parent is walked, by its type.
    fn classify_entry(&mut self, path: &Path, name: &OsStr, is_dir: bool) -> WalkClass {
        if prune_reason_of(path, name, is_dir).is_some() || self.rules.is_ignored(path, is_dir) {
            return WalkClass::Outside;
        }
        if is_dir {
            return WalkClass::Dir;
        }
        let name = name.to_string_lossy();
        // A source file without a grammar is in the map by its path: its coming and going is
        // a change too.
        // A licence and a build file decide whether their folder is vendored (`licences`).
        if is_candidate_name(&name)
            || licences::is_licence_name(&name)
            || licences::is_build_file_name(&name)
            || crate::engine::ingest::lang::unsupported_language(&name).is_some()
        {
            WalkClass::File
        } else {
            WalkClass::Outside
        }
    }

    /// Whether the walk enters `dir`: the root, or a directory below it each of whose
    /// components is kept. A component that no longer exists is judged as the directory it
    /// was (it had children); one that is now a file or a symlink is not entered.
    fn dir_is_walked(&mut self, dir: &Path) -> bool {
        let Ok(rel) = dir.strip_prefix(&self.root) else {
            return false;
        };
        let mut current = self.root.clone();
        for comp in rel.components() {
            let Component::Normal(name) = comp else {
                return false;
            };
            current.push(name);
            if let Ok(meta) = fs::symlink_metadata(&current) {
                if !meta.is_dir() {
                    return false;
                }
            }
            if prune_reason_of(&current, name, true).is_some()
                || self.rules.is_ignored(&current, true)
            {
                return false;
            }
        }
        true
    }
}

/// The ignore files of a tree, read on demand through `guarded` and kept per directory:
/// `.mapscopeignore`, `.gitignore`, `.git/info/exclude` (a linked worktree's in its common
/// dir) of each directory, including the root's ancestors, and the global git excludes
/// file. Shared by the walk's threads (`filter_entry`) and owned by a `PathFilter`.
///
/// A file that is not a regular file, is a symbolic link or is over `MAX_IGNORE_FILE` is
/// not read: it contributes no rules and one warning (`take_warnings`). A missing file is
/// no warning.
#[derive(Debug)]
struct IgnoreRules {
    global: Gitignore,
    /// Keyed by directory. A map lookup only: its order never shows.
    dirs: RwLock<HashMap<PathBuf, Arc<DirRules>>>,
    /// `chain_of`'s answers, by directory.
    chains: RwLock<HashMap<PathBuf, Arc<Vec<Arc<DirRules>>>>>,
    warnings: Mutex<Vec<(PathBuf, String)>>,
}

impl IgnoreRules {
    fn new() -> IgnoreRules {
        let warnings = Mutex::default();
        let global = global_excludes(&warnings);
        IgnoreRules {
            global,
            dirs: RwLock::default(),
            chains: RwLock::default(),
            warnings,
        }
    }

    /// The ignore files' verdict on `path` alone (its directories are checked separately),
    /// combined as the `ignore` crate's walker does (see `PathFilter`'s doc): for each
    /// category the nearest directory with a matching pattern decides; `.mapscopeignore`
    /// beats `.gitignore`, which beats `.git/info/exclude`, which beats the global file.
    fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        let (mut custom, mut git, mut exclude) = (Verdict::None, Verdict::None, Verdict::None);
        let chain = path
            .parent()
            .map(|dir| self.chain_of(dir))
            .unwrap_or_default();
        for rules in chain.iter() {
            if custom == Verdict::None {
                custom = Verdict::of(rules.custom.matched(path, is_dir));
            }
            if git == Verdict::None {
                git = Verdict::of(rules.git.matched(path, is_dir));
            }
            if exclude == Verdict::None {
                exclude = Verdict::of(rules.exclude.matched(path, is_dir));
            }
        }
        let global = Verdict::of(self.global.matched(path, is_dir));
        [custom, git, exclude, global]
            .into_iter()
            .find(|v| *v != Verdict::None)
            == Some(Verdict::Ignore)
    }

    /// The rules that apply below `dir`, nearest first: its own and its ancestors', only
    /// those of directories that have any. Cached per directory, so the walk's check of an
    /// entry is one lookup however deep it is; built iteratively (no recursion to exhaust
    /// on a deeply nested tree).
    fn chain_of(&self, dir: &Path) -> Arc<Vec<Arc<DirRules>>> {
        let cached = |d: &Path| {
            self.chains
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .get(d)
                .cloned()
        };
        let mut missing = Vec::new();
        let mut chain: Arc<Vec<Arc<DirRules>>> = Arc::default();
        for d in dir.ancestors() {
            if let Some(c) = cached(d) {
                chain = c;
                break;
            }
            missing.push(d);
        }
        for d in missing.into_iter().rev() {
            let rules = self.rules_of(d);
            if !rules.is_empty() {
                let mut longer = Vec::with_capacity(chain.len() + 1);
                longer.push(rules);
                longer.extend(chain.iter().cloned());
                chain = Arc::new(longer);
            }
            self.chains
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(d.to_path_buf(), Arc::clone(&chain));
        }
        chain
    }

    fn rules_of(&self, dir: &Path) -> Arc<DirRules> {
        if let Some(rules) = self
            .dirs
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(dir)
        {
            return Arc::clone(rules);
        }
        // Read outside the lock; two threads may read the same directory's files once each
        // (the warnings are deduplicated by path).
        let rules = Arc::new(DirRules {
            custom: read_ignore_file(dir, &dir.join(CUSTOM_IGNORE_FILE), &self.warnings),
            git: read_ignore_file(dir, &dir.join(GIT_IGNORE_FILE), &self.warnings),
            exclude: git_common_dir(dir, &self.warnings).map_or_else(Gitignore::empty, |git_dir| {
                read_ignore_file(dir, &git_dir.join("info").join("exclude"), &self.warnings)
            }),
        });
        let mut dirs = self.dirs.write().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(dirs.entry(dir.to_path_buf()).or_insert(rules))
    }

    /// The warnings so far, one per file, sorted, with paths below `root` made relative.
    fn take_warnings(&self, root: &Path) -> Vec<String> {
        let mut found =
            std::mem::take(&mut *self.warnings.lock().unwrap_or_else(PoisonError::into_inner));
        found.sort();
        found.dedup_by(|a, b| a.0 == b.0);
        found
            .into_iter()
            .map(|(path, why)| {
                let shown = rel_path_of(root, &path)
                    .filter(|p| !p.is_empty())
                    .unwrap_or_else(|| path.display().to_string());
                format!("{shown} not read: {why}")
            })
            .collect()
    }
}

/// One matcher's answer, without the borrowed glob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    None,
    Ignore,
    Whitelist,
}

impl Verdict {
    fn of<T>(m: ignore::Match<T>) -> Verdict {
        match m {
            ignore::Match::None => Verdict::None,
            ignore::Match::Ignore(_) => Verdict::Ignore,
            ignore::Match::Whitelist(_) => Verdict::Whitelist,
        }
    }
}

/// The largest ignore file or git metadata file read (real ones are a few KiB; git's own
/// test suite's biggest `.gitignore` is far below this).
pub const MAX_IGNORE_FILE: u64 = 1024 * 1024;

/// Reads a rules or git metadata file through `guarded` (regular file, no symlink, at most
/// `MAX_IGNORE_FILE`): `None` when it is missing (silently) or refused (with a warning
/// recorded in `warnings`).
fn read_rules_file(
    file: &Path,
    follow: Follow,
    warnings: &Mutex<Vec<(PathBuf, String)>>,
) -> Option<Vec<u8>> {
    match guarded::read(file, MAX_IGNORE_FILE, follow) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.is_not_found() => None,
        Err(e) => {
            warnings
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((file.to_path_buf(), e.to_string()));
            None
        }
    }
}

/// Parses gitignore-syntax `bytes` read from `file`, with patterns relative to `root`, as
/// `GitignoreBuilder::add` would (a leading BOM dropped, a line that is not UTF-8 or a bad
/// glob costs only that line).
fn parse_rules(root: &Path, file: &Path, bytes: &[u8]) -> Gitignore {
    let mut builder = GitignoreBuilder::new(root);
    let bytes = strip_bom(bytes);
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Ok(line) = std::str::from_utf8(line) {
            let _ = builder.add_line(Some(file.to_path_buf()), line);
        }
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The ignore file at `file`, with patterns relative to `dir`. A missing or refused file
/// (see `read_rules_file`), or a bad pattern, costs only that file or pattern.
fn read_ignore_file(
    dir: &Path,
    file: &Path,
    warnings: &Mutex<Vec<(PathBuf, String)>>,
) -> Gitignore {
    match read_rules_file(file, Follow::No, warnings) {
        Some(bytes) => parse_rules(dir, file, &bytes),
        None => Gitignore::empty(),
    }
}

/// The global git excludes file, found the way the `ignore` crate finds it
/// (`core.excludesFile` in `$GIT_CONFIG_GLOBAL`, `~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`,
/// the system config; else `$XDG_CONFIG_HOME/git/ignore`), every file read through
/// `guarded`. The user's own files, so links are followed (dotfile managers link them).
fn global_excludes(warnings: &Mutex<Vec<(PathBuf, String)>>) -> Gitignore {
    let nonempty = |v: Option<std::ffi::OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    let xdg = nonempty(std::env::var_os("XDG_CONFIG_HOME"))
        .or_else(|| dirs::home_dir().map(|h| h.join(".config")));
    let configs = [
        nonempty(std::env::var_os("GIT_CONFIG_GLOBAL")),
        dirs::home_dir().map(|h| h.join(".gitconfig")),
        xdg.as_ref().map(|x| x.join("git/config")),
        Some(
            nonempty(std::env::var_os("GIT_CONFIG_SYSTEM"))
                .unwrap_or_else(|| PathBuf::from("/etc/gitconfig")),
        ),
    ];
    let configured = configs.iter().flatten().find_map(|config| {
        let bytes = read_rules_file(config, Follow::Yes, warnings)?;
        parse_excludes_file(&String::from_utf8_lossy(&bytes))
    });
    let Some(file) = configured.or_else(|| xdg.map(|x| x.join("git/ignore"))) else {
        return Gitignore::empty();
    };
    let Some(bytes) = read_rules_file(&file, Follow::Yes, warnings) else {
        return Gitignore::empty();
    };
    // Relative to the current directory, as `Gitignore::global` roots it.
    let cwd = std::env::current_dir().unwrap_or_default();
    parse_rules(&cwd, &file, &bytes)
}

/// `core.excludesFile` in a git config file's text, the way the `ignore` crate reads it: the
/// first `excludesfile = value` line, in any section, case-insensitive, with quotes and a
/// leading `~` undone.
fn parse_excludes_file(text: &str) -> Option<PathBuf> {
    text.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        if !key.trim().eq_ignore_ascii_case("excludesfile") {
            return None;
        }
        let value = value.trim().trim_matches('"').trim();
        if value.is_empty() || value.contains(char::is_whitespace) {
            return None;
        }
        Some(match value.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                dirs::home_dir()?.join(rest.trim_start_matches('/'))
            }
            _ => PathBuf::from(value),
        })
    })
}

/// The git directory holding `info/exclude` for a repository rooted at `dir`: `dir/.git`,
/// or for a linked worktree (`.git` is a file `gitdir: …`) the main repository's common
/// dir, as the `ignore` crate resolves it. `None` when `dir` has no `.git`, or when the
/// `.git` file or `commondir` cannot be read as a regular file (a warning then).
fn git_common_dir(dir: &Path, warnings: &Mutex<Vec<(PathBuf, String)>>) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    // A `.git` linking to a directory (Android's `repo` makes them) is that directory.
    let meta = fs::metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git);
    }
    let first_line = |path: &Path| -> Option<String> {
        let bytes = read_rules_file(path, Follow::No, warnings)?;
        let text = String::from_utf8_lossy(&bytes);
        text.lines().next().map(str::to_string)
    };
    let line = first_line(&dot_git)?;
    let real_git_dir = PathBuf::from(line.strip_prefix("gitdir: ")?);
    let real_git_dir = if real_git_dir.is_relative() {
        dir.join(real_git_dir)
    } else {
        real_git_dir
    };
    let common = first_line(&real_git_dir.join("commondir"))?;
    Some(if common.starts_with('.') {
        real_git_dir.join(common)
    } else {
        PathBuf::from(common)
    })
}

/// Prose and config files kept for text search. Lockfiles are data, not prose: left out.
fn is_doc_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("readme") {
        return true;
    }
    let Some((stem, ext)) = lower.rsplit_once('.') else {
        return false;
    };
    let doc_ext = matches!(
        ext,
        "md" | "mdx" | "markdown" | "rst" | "txt" | "json" | "yaml" | "yml" | "toml"
    );
    doc_ext && !is_lockfile(&lower, stem)
}

fn is_lockfile(lower_name: &str, lower_stem: &str) -> bool {
    matches!(
        lower_name,
        "package-lock.json" | "npm-shrinkwrap.json" | "pnpm-lock.yaml" | "composer.lock"
    ) || lower_stem.ends_with("-lock")
        || lower_stem.ends_with(".lock")
}

/// Reads `go.mod` (bounded) and returns the module path it declares.
fn read_go_mod(path: &Path) -> Option<String> {
    let bytes = guarded::read(path, MAX_GO_MOD_SIZE, Follow::No).ok()?;
    parse_go_mod_module(&String::from_utf8_lossy(strip_bom(&bytes)))
}

/// The module path of a `go.mod`: the `module` directive, either `module path` or the block
/// form `module ( path )`, with `//` comments removed and `"…"` or `` `…` `` quotes undone.
pub fn parse_go_mod_module(text: &str) -> Option<String> {
    let mut in_block = false;
    for line in text.trim_start_matches('\u{feff}').lines() {
        let line = match line.find("//") {
            Some(i) => &line[..i],
            None => line,
        };
        let line = line.trim();
        if in_block {
            if line.starts_with(')') {
                in_block = false;
                continue;
            }
            if let Some(path) = unquote_module_path(line) {
                return Some(path);
            }
            continue;
        }
        let Some(rest) = line.strip_prefix("module") else {
            continue;
        };
        // `modulefoo` is not the directive.
        if !(rest.is_empty() || rest.starts_with(|c: char| c.is_whitespace() || c == '(')) {
            continue;
        }
        let rest = rest.trim();
        if let Some(inner) = rest.strip_prefix('(') {
            let inner = inner.trim();
            if let Some(path) = inner.strip_suffix(')').and_then(unquote_module_path) {
                return Some(path);
            }
            if let Some(path) = unquote_module_path(inner) {
                return Some(path);
            }
            in_block = true;
            continue;
        }
        if let Some(path) = unquote_module_path(rest) {
            return Some(path);
        }
    }
    None
}

fn unquote_module_path(s: &str) -> Option<String> {
    let s = s.trim();
    let unquoted = ['"', '`']
        .iter()
        .find_map(|&q| s.strip_prefix(q).and_then(|r| r.strip_suffix(q)))
        .unwrap_or(s)
        .trim();
    if unquoted.is_empty() || unquoted.contains(char::is_whitespace) {
        return None;
    }
    Some(unquoted.to_string())
}

/// A file's modification time in nanoseconds since the Unix epoch; 0 when the platform or
/// filesystem cannot say (then only the content hash decides whether a file changed).
pub fn mtime_ns(meta: &fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_mod_module_line() {
        let parse = parse_go_mod_module;
        assert_eq!(
            parse("module example.com/m\n").as_deref(),
            Some("example.com/m")
        );
        assert_eq!(
            parse("// comment\nmodule \"example.com/q\" // trailing\n\ngo 1.22\n").as_deref(),
            Some("example.com/q")
        );
        assert_eq!(
            parse("module `example.com/b`\n").as_deref(),
            Some("example.com/b")
        );
        assert_eq!(
            parse("module (\n  example.com/blk\n)\n").as_deref(),
            Some("example.com/blk")
        );
        assert_eq!(
            parse("module (example.com/one)\n").as_deref(),
            Some("example.com/one")
        );
        assert_eq!(parse("\u{feff}module x\r\n").as_deref(), Some("x"));
        assert_eq!(parse("modulex y\n"), None);
        assert_eq!(parse("go 1.22\n"), None);
        assert_eq!(parse("module\n"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn doc_names() {
        for name in [
            "README",
            "readme.rst",
            "README.md",
            "a.mdx",
            "c.json",
            "d.yml",
            "Cargo.toml",
            "notes.txt",
        ] {
            assert!(is_doc_name(name), "{name}");
        }
        for name in [
            "package-lock.json",
            "pnpm-lock.yaml",
            "deno.lock.json",
            "a.png",
            "Makefile",
            "go.sum",
        ] {
            assert!(!is_doc_name(name), "{name}");
        }
    }

    /// Writes `files` under `root`, creating parent directories.
    fn write_tree(root: &Path, files: &[(&str, &str)]) {
        for (rel, text) in files {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
    }

    /// A tree exercising every walk rule: nested `.gitignore`s with negations, anchored and
    /// directory patterns, `.mapscopeignore` overriding `.gitignore`, `.git/info/exclude`,
    /// hidden entries, node_modules, vendor, both build-output rules, symlinks, minified and
    /// too-large files, docs, lockfiles, `go.mod`.
    fn rules_fixture() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let big = "x".repeat(300);
        write_tree(
            root,
            &[
                (
                    ".gitignore",
                    "*.log\nignored_dir/\n/anchored.ts\ngen_*\n!keep.ts\ndata/*\n!data/keep/\n",
                ),
                (".mapscopeignore", "skipme.go\n!gen_special.ts\n"),
                (".git/info/exclude", "excluded.ts\n"),
                (".git/HEAD", "ref: refs/heads/main\n"),
                (".git/objects/ab/cdef", "blob"),
                ("a.ts", "export const a = 1;\n"),
                ("b.py", "b = 1\n"),
                ("c.go", "package c\n"),
                ("go.mod", "module example.com/root\n"),
                ("README.md", "# hi\n"),
                ("notes.txt", "notes\n"),
                ("package-lock.json", "{}\n"),
                ("Makefile", "all:\n"),
                ("x.log", "log\n"),
                ("anchored.ts", "x\n"),
                ("keep.ts", "x\n"),
                ("excluded.ts", "x\n"),
                ("skipme.go", "package s\n"),
                ("gen_a.ts", "x\n"),
                ("gen_special.ts", "x\n"),
                ("big.ts", &big),
                ("a.min.js", "x\n"),
                ("ignored_dir/a.ts", "x\n"),
                ("ignored_dir/keep.ts", "x\n"),
                ("data/x.ts", "x\n"),
                ("data/keep/y.ts", "x\n"),
                ("sub/.gitignore", "*.js\n!keep.js\nlocal.ts\n"),
                ("sub/anchored.ts", "x\n"),
                ("sub/a.js", "x\n"),
                ("sub/keep.js", "x\n"),
                ("sub/local.ts", "x\n"),
                ("sub/go.mod", "module example.com/sub\n"),
                ("sub/deep/.mapscopeignore", "d2.ts\n"),
                ("sub/deep/d.ts", "x\n"),
                ("sub/deep/d2.ts", "x\n"),
                ("sub/deep/deeper/e.py", "x\n"),
                ("node_modules/p/index.js", "x\n"),
                ("vendor/v.go", "package v\n"),
                (".hidden/h.ts", "x\n"),
                (".env.json", "{}\n"),
                ("pkg/package.json", "{}\n"),
                ("pkg/dist/out.js", "x\n"),
                ("pkg/lib/l.js", "x\n"),
                ("app/src/main.ts", "x\n"),
                ("app/lib/x.js", "x\n"),
                ("app/build/y.js", "x\n"),
            ],
        );
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(root.join("a.ts"), root.join("link.ts")).unwrap();
            std::os::unix::fs::symlink(root.join("sub"), root.join("linkdir")).unwrap();
        }
        dir
    }

    fn small_opts() -> WalkOptions {
        WalkOptions {
            max_file_size: 100,
            max_doc_size: 100,
            ..WalkOptions::default()
        }
    }

    /// Every path the walk reports as a file: indexed, kept as a doc, skipped after a look
    /// at it, or `go.mod`.
    fn walked_files(out: &WalkOutput) -> std::collections::BTreeSet<String> {
        let mut set: std::collections::BTreeSet<String> = out
            .files
            .iter()
            .map(|f| f.rel_path.clone())
            .chain(out.docs.iter().map(|d| d.rel_path.clone()))
            // Source files without a grammar: listed for the map by their paths.
            .chain(out.unsupported.iter().map(|u| u.rel_path.clone()))
            .chain(out.go_modules.iter().map(|m| {
                if m.dir.is_empty() {
                    GO_MOD.to_string()
                } else {
                    format!("{}/{GO_MOD}", m.dir)
                }
            }))
            .collect();
        // Pruned entries (hidden, node_modules, …) are listed too, but are not walked.
        let pruned = [
            SkipReason::Hidden,
            SkipReason::NodeModules,
            SkipReason::Vendor,
            SkipReason::BuildOutput,
        ];
        set.extend(
            out.skipped
                .iter()
                .filter(|s| !pruned.contains(&s.reason))
                .map(|s| s.path.clone()),
        );
        set
    }

    /// Every entry under `dir` (not following symlinks): (absolute path, is_dir).
    fn all_entries(dir: &Path, out: &mut Vec<(PathBuf, bool)>) {
        for entry in fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let is_dir = entry.file_type().unwrap().is_dir();
            out.push((entry.path(), is_dir));
            if is_dir {
                all_entries(&entry.path(), out);
            }
        }
    }

    #[test]
    fn walk_observed_sees_each_code_file_once_and_nothing_else() {
        let dir = rules_fixture();
        let seen = Mutex::new(Vec::new());
        let out = walk_observed(dir.path(), &small_opts(), &|f| {
            seen.lock().unwrap().push((f.rel_path.clone(), f.lang));
        })
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        let listed: Vec<(String, Lang)> = out
            .files
            .iter()
            .map(|f| (f.rel_path.clone(), f.lang))
            .collect();
        assert!(!listed.is_empty());
        // Docs, skipped files and go.mod are not code files: never observed.
        assert_eq!(seen, listed);
    }

    #[test]
    fn path_filter_agrees_with_walk_on_every_entry() {
        let dir = rules_fixture();
        let out = walk(dir.path(), &small_opts()).unwrap();
        let walked = walked_files(&out);
        // The fixture exercises each rule; spot-check the walk itself first.
        for expected in [
            "a.ts",
            "keep.ts",
            "gen_special.ts",
            "big.ts",
            "a.min.js",
            "data/keep/y.ts",
            "sub/keep.js",
            "sub/go.mod",
            "pkg/lib/l.js",
            "app/src/main.ts",
            "Makefile",
        ] {
            assert!(
                walked.contains(expected),
                "{expected} not walked: {walked:?}"
            );
        }
        for excluded in [
            "anchored.ts",
            "excluded.ts",
            "skipme.go",
            "gen_a.ts",
            "x.log",
            "ignored_dir/keep.ts",
            "data/x.ts",
            "sub/a.js",
            "sub/local.ts",
            "sub/deep/d2.ts",
            "pkg/dist/out.js",
            "app/lib/x.js",
            "app/build/y.js",
            "node_modules/p/index.js",
            "link.ts",
            "package-lock.json",
        ] {
            assert!(!walked.contains(excluded), "{excluded} walked");
        }
        let mut filter = PathFilter::new(dir.path()).unwrap();
        let root = filter.root().to_path_buf();
        let mut entries = Vec::new();
        all_entries(&root, &mut entries);
        let mut files_seen = 0;
        for (path, is_dir) in entries {
            let rel = filter.rel_path(&path).unwrap();
            let class = filter.classify(&path, None);
            if is_dir {
                if out.skipped.iter().any(|s| s.path == rel) {
                    assert_eq!(class, WalkClass::Outside, "{rel}");
                }
                continue;
            }
            if class == WalkClass::Rules {
                let name = rel.rsplit('/').next().unwrap();
                assert!(
                    [GIT_IGNORE_FILE, CUSTOM_IGNORE_FILE].contains(&name)
                        || rel == ".git/info/exclude",
                    "{rel} is not a rules file"
                );
                continue;
            }
            assert_eq!(
                class == WalkClass::File,
                walked.contains(&rel),
                "{rel}: filter says {class:?}"
            );
            files_seen += usize::from(class == WalkClass::File);
        }
        assert_eq!(files_seen, walked.len());
        // The rules files that matter, and the ones that do not (inside an ignored dir).
        assert_eq!(
            filter.classify(&root.join(".git/info/exclude"), None),
            WalkClass::Rules
        );
        assert_eq!(
            filter.classify(&root.join("sub/deep/.mapscopeignore"), None),
            WalkClass::Rules
        );
        assert_eq!(
            filter.classify(&root.join("node_modules/.gitignore"), None),
            WalkClass::Outside
        );
        assert_eq!(
            filter.classify(&root.join(".git/objects/ab/cdef"), None),
            WalkClass::Outside
        );
        // Not entered through a symlink.
        #[cfg(unix)]
        assert_eq!(
            filter.classify(&root.join("linkdir/keep.js"), None),
            WalkClass::Outside
        );
    }

    #[test]
    fn path_filter_judges_vanished_paths_by_name_and_rules() {
        let dir = rules_fixture();
        let mut filter = PathFilter::new(dir.path()).unwrap();
        let root = filter.root().to_path_buf();
        fs::remove_dir_all(root.join("sub/deep")).unwrap();
        fs::remove_file(root.join("x.log")).unwrap();
        let class = |f: &mut PathFilter, rel: &str, is_dir| f.classify(&root.join(rel), is_dir);
        assert_eq!(class(&mut filter, "sub/deep/d.ts", None), WalkClass::File);
        assert_eq!(
            class(&mut filter, "sub/deep/deeper/e.py", None),
            WalkClass::File
        );
        assert_eq!(class(&mut filter, "sub/deep", Some(true)), WalkClass::Dir);
        // A vanished name that is not a candidate file may have been a directory.
        assert_eq!(class(&mut filter, "sub/deep", None), WalkClass::Dir);
        assert_eq!(class(&mut filter, "x.log", Some(false)), WalkClass::Outside);
        assert_eq!(class(&mut filter, "sub/local.ts", None), WalkClass::Outside);
        assert_eq!(
            class(&mut filter, "node_modules/q/new.ts", None),
            WalkClass::Outside
        );
        assert_eq!(
            class(&mut filter, "ignored_dir/new.ts", None),
            WalkClass::Outside
        );
        assert_eq!(
            class(&mut filter, "../outside.ts", None),
            WalkClass::Outside
        );
        assert_eq!(
            filter.classify(Path::new("/elsewhere/a.ts"), None),
            WalkClass::Outside
        );
        assert_eq!(class(&mut filter, "", None), WalkClass::Dir);
    }

    #[test]
    fn path_filter_rereads_rules_after_invalidate() {
        let dir = rules_fixture();
        let mut filter = PathFilter::new(dir.path()).unwrap();
        let a = filter.root().join("a.ts");
        assert_eq!(filter.classify(&a, None), WalkClass::File);
        fs::write(filter.root().join(".gitignore"), "a.ts\n").unwrap();
        // Cached until told.
        assert_eq!(filter.classify(&a, None), WalkClass::File);
        filter.invalidate();
        assert_eq!(filter.classify(&a, None), WalkClass::Outside);
    }

    #[test]
    fn build_output_markers() {
        let dir = rules_fixture();
        let filter = PathFilter::new(dir.path()).unwrap();
        let root = filter.root();
        assert!(filter.affects_build_output(&root.join("app/src")));
        assert!(filter.affects_build_output(&root.join("pkg/package.json")));
        assert!(!filter.affects_build_output(&root.join("sub/package.json")));
        assert!(!filter.affects_build_output(&root.join("pkg/index.ts")));
    }
}
