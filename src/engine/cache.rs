//! The persistent tag cache: every parsed file's tags, saved in the user's cache directory so
//! a later run re-parses only the files that changed.
//!
//! Where: `$MAPSCOPE_CACHE_DIR` if set, else the platform cache dir (`$XDG_CACHE_HOME` or
//! `~/.cache` on Linux) + `mapscope/`, then one directory per repository named after the
//! canonical root (`<name>-<hash>`). A cache location inside the repository itself is refused:
//! mapscope never writes into the user's tree.
//!
//! Format of `tags.bin`: magic, format version, tags fingerprint (crate version + the tags
//! queries, so a grammar or query change invalidates old entries), the canonical root
//! (postcard), the time the writer's files were read from (`read_since_ns`), then one
//! postcard entry per file (path, language, size, mtime, content hash, definitions, the
//! references and imports as one byte string, the lines a map renders) back to back, in no
//! particular order, and an xxh3 checksum of everything before it. A map-only load leaves
//! each entry's byte string undecoded until the graph needs it (`Decode`).
//! No entry count up front: a `CacheWriter` appends entries while the files are still being
//! parsed, before it knows how many will load. Anything that does not check out — short,
//! garbage, another version, another repo — is ignored with one warning and rebuilt.
//!
//! Writes are atomic: a uniquely named temporary file in the same directory, then `rename`.
//! Two processes saving at once each rename a complete file; the last one wins and readers
//! never see a partial file. A temporary file carries its writer's pid in its name and is
//! locked (`flock`) while written; one whose lock is free and whose writer is gone (a
//! killed run) is removed by the next load or save (`remove_orphaned_temps`).
//!
//! `cache clear` removes only what this module can tell it wrote (`owned_files`), and
//! refuses a cache root that is or holds a repository or a source tree (`check_root`).
//!
//! Threads: `load` runs on the thread that builds the index; `save` may run on a side thread
//! while the caller renders its output. A `CacheWriter` takes entries from the parse
//! phase's rayon workers and is finished on any one thread.

use std::collections::HashMap;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::error::EngineError;
use super::guarded::{self, Follow};
use super::lang;
use super::model::{
    Definition, FileTags, Import, Lang, MapLines, ParsedFile, RefList, UnreadLinks,
};

/// Bumped whenever the file layout or the meaning of the tags changes in a way the
/// fingerprint (crate version + query texts) cannot see, e.g. a change in `tags/refs.rs`.
/// 4: entries back to back without a count (was a postcard sequence), see `CacheWriter`.
/// 5: `FileTags::module_scoped` (TS/JS module or script).
/// 6: TS/JS plain uses of a name the file binds itself are no longer references.
/// 7: a definition keeps at most `tags::MAX_SCOPE_LINES` scope lines (a deeply nested file
///    written by 6 holds quadratic chains).
/// 8: C# files are parsed with only the first branch of each `#if` chain (`tags::conditional`),
///    and no segment of a C# namespace name is a reference or a binding.
/// 9: the header's `read_since_ns` and each entry's `MapLines` (a warm map reads no
///    unchanged file, see `TagStore::unchanged_for_map`).
/// 10: an entry's references and imports are one length-prefixed byte string (`Links`), so a
///    map-only load can keep them undecoded (`Decode::MapOnly`).
pub const FORMAT_VERSION: u32 = 10;
const MAGIC: &[u8; 8] = b"MSCACHE\0";
const FILE_NAME: &str = "tags.bin";
/// A temporary file older than this whose lock is free was left by a killed process, even if
/// its writer's pid is in use again (see `remove_orphaned_temps`).
const STALE_TEMP: Duration = Duration::from_mins(10);
/// Cache files above this size are not read (a tags file of a huge repository is a few
/// hundred MB).
const MAX_CACHE_FILE: u64 = 4 << 30;
/// An entry's size and mtime stand for its content only if the file was last modified this
/// long before its content was read (git's "racily clean" rule): a file rewritten within the
/// same timestamp tick as its read keeps its mtime, and coarse file systems tick every 2 s.
const RACY_NS: i64 = 2_000_000_000;

/// Tags of one file as cached, with what identifies the content they came from.
#[derive(Debug, Clone)]
pub struct CachedTags {
    pub lang: Lang,
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: u64,
    pub tags: Arc<FileTags>,
    /// What a map renders of the file (from the cache file; `None` from a previous index).
    pub lines: Option<Arc<MapLines>>,
    /// `tags`' references and imports, still encoded (`Decode::MapOnly`): `tags` has none.
    pub unread_links: Option<UnreadLinks>,
}

/// How much of each entry `DiskCache::load_for` decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decode {
    /// Everything.
    Full,
    /// All but the references and imports, which stay encoded in the file's buffer
    /// (`CachedTags::unread_links`) until something asks for them (`read_links`). A warm
    /// map whose graph comes from the derived cache never does: their decoding was a fifth
    /// of such a map's CPU on mypy.
    MapOnly,
}

/// Cached tags by repo-relative path, loaded from disk (or taken from a previous index).
#[derive(Debug, Clone, Default)]
pub struct TagStore {
    files: HashMap<String, CachedTags>,
    /// When the cache file's writer read its files (wall clock, ns): entries modified
    /// `RACY_NS` before are trusted by size and mtime. `None`: never (a previous index's).
    /// An entry a map-only build carried over unread was itself trusted by this rule
    /// against an earlier writer's time, so the rule holds for it under a later one too.
    read_since_ns: Option<i64>,
}

impl TagStore {
    /// The cached tags of `path` if they were extracted from exactly this content.
    pub fn lookup(&self, path: &str, lang: Lang, size: u64, hash: u64) -> Option<Arc<FileTags>> {
        let hit = self.files.get(path)?;
        if hit.lang != lang || hit.size != size || hit.hash != hash {
            return None;
        }
        match &hit.unread_links {
            None => Some(hit.tags.clone()),
            // Undecodable (never, behind the checksum): a miss, so the file is parsed.
            Some(links) => with_links(&hit.tags, links).ok().map(Arc::new),
        }
    }

    /// The cached entry of `path` if the file is unchanged by language, size and mtime and
    /// the entry has the lines a map renders, so a map-only build need not read it. Only a
    /// cache file's entries qualify, and only those modified well before the writer read
    /// them (`RACY_NS`); anything else is read and looked up by content (`lookup`).
    pub fn unchanged_for_map(
        &self,
        path: &str,
        lang: Lang,
        size: u64,
        mtime_ns: i64,
    ) -> Option<&CachedTags> {
        let read_since = self.read_since_ns?;
        let hit = self.files.get(path)?;
        let same = hit.lang == lang && hit.size == size && hit.mtime_ns == mtime_ns;
        (same
            && mtime_ns != 0
            && mtime_ns < read_since.saturating_sub(RACY_NS)
            && hit.lines.is_some())
        .then_some(hit)
    }

    /// A store holding the tags of already parsed files (sharing them, not copying).
    pub fn from_files(files: &[ParsedFile]) -> TagStore {
        let files = files
            .iter()
            .map(|f| {
                let entry = CachedTags {
                    lang: f.lang,
                    size: f.size,
                    mtime_ns: f.mtime_ns,
                    hash: f.hash,
                    tags: f.tags.clone(),
                    lines: None,
                    unread_links: f.unread_links.clone(),
                };
                (f.path.clone(), entry)
            })
            .collect();
        TagStore {
            files,
            read_since_ns: None,
        }
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// The hash the cache and refreshes compare file contents by.
pub fn content_hash(text: &str) -> u64 {
    xxh3_64(text.as_bytes())
}

/// Now, in ns since the epoch: when a build starts reading files (`read_since_ns`).
pub fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// What `DiskCache::load` found.
#[derive(Debug, Default)]
pub struct Loaded {
    pub store: TagStore,
    /// Set when a cache file existed but was ignored (corrupt, truncated, other version):
    /// one line for the user's log or status bar.
    pub warning: Option<String>,
}

/// One repository's cache directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskCache {
    dir: PathBuf,
    root: PathBuf,
}

/// The directory holding every repository's cache, if the platform has one.
pub fn cache_root() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("MAPSCOPE_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    Some(dirs::cache_dir()?.join("mapscope"))
}

/// What `clear_all` or `DiskCache::clear` did.
#[derive(Debug, Default)]
pub struct Cleared {
    /// The cache root looked at (`None`: the platform has no cache directory).
    pub root: Option<PathBuf>,
    /// Each repository cache directory removed, with the number of files and bytes it held.
    pub removed: Vec<(PathBuf, usize, u64)>,
    /// Directories named like a repository cache but left in place, and why.
    pub kept: Vec<(PathBuf, String)>,
    /// How many other entries of the root were left alone (not mapscope's).
    pub others: usize,
}

/// Removes every repository's cache under the cache root, and nothing else.
///
/// The root is refused (`EngineError::UnsafeCacheDir`) when it is or looks like something
/// mapscope must never delete from: see `check_root`. Below it, only directories that
/// `owned_files` recognises as a mapscope repository cache are removed, file by file (never
/// `remove_dir_all`), and the directory last, only once it is empty: a file that appears
/// meanwhile keeps it. Anything else in the root, file or directory, is not touched.
pub fn clear_all() -> Result<Cleared, EngineError> {
    let Some(root) = cache_root() else {
        return Ok(Cleared::default());
    };
    clear_all_under(&root)
}

/// `clear_all` with an explicit root.
pub fn clear_all_under(root: &Path) -> Result<Cleared, EngineError> {
    let mut out = Cleared {
        root: Some(root.to_path_buf()),
        ..Cleared::default()
    };
    let entries = match fs::read_dir(root) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(source) => {
            return Err(EngineError::Io {
                path: root.to_path_buf(),
                source,
            })
        }
    };
    check_root(root)?;
    let mut dirs: Vec<PathBuf> = Vec::new();
    for ent in entries {
        let ent = ent.map_err(io_error(root))?;
        let is_dir = ent.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && is_cache_dir_name(&ent.file_name()) {
            dirs.push(ent.path());
        } else {
            out.others += 1;
        }
    }
    dirs.sort();
    for dir in dirs {
        match remove_owned(&dir) {
            Ok(Some((files, bytes))) => out.removed.push((dir, files, bytes)),
            Ok(None) => {}
            Err(why) => out.kept.push((dir, why)),
        }
    }
    Ok(out)
}

/// Refuses a cache root that `clear_all` must not delete from: the file-system root, the
/// home directory, a git repository (a `.git` entry), one that holds a repository (a
/// direct subdirectory with a `.git` entry), or one that looks like a source tree (a
/// project manifest or a source file mapscope would index, directly in it). A cache
/// root mapscope made holds none of these.
pub fn check_root(root: &Path) -> Result<(), EngineError> {
    let refuse = |why: String| {
        Err(EngineError::UnsafeCacheDir {
            path: root.to_path_buf(),
            why,
        })
    };
    let canonical = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    if canonical.parent().is_none() {
        return refuse("it is the file-system root".into());
    }
    if dirs::home_dir().is_some_and(|home| home.canonicalize().unwrap_or(home) == canonical) {
        return refuse("it is the home directory".into());
    }
    if fs::symlink_metadata(root.join(".git")).is_ok() {
        return refuse("it is a git repository (it has a .git)".into());
    }
    let Ok(entries) = fs::read_dir(root) else {
        return Ok(());
    };
    for ent in entries.flatten() {
        let name = ent.file_name();
        let shown = name.to_string_lossy();
        let Ok(kind) = ent.file_type() else { continue };
        if kind.is_dir() && fs::symlink_metadata(ent.path().join(".git")).is_ok() {
            return refuse(format!("it holds a git repository ({shown}/.git)"));
        }
        if kind.is_file()
            && (SOURCE_TREE_MARKERS.contains(&&*shown) || Lang::from_path(&shown).is_some())
        {
            return refuse(format!("it looks like a source tree (it holds {shown})"));
        }
    }
    Ok(())
}

/// Files whose presence directly in a directory makes it a project, not a cache.
const SOURCE_TREE_MARKERS: [&str; 12] = [
    "package.json",
    "tsconfig.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "go.mod",
    "Cargo.toml",
    "Makefile",
    "CMakeLists.txt",
    "pom.xml",
    "build.gradle",
    "Gemfile",
];

/// A repository cache directory's name, as `DiskCache::under` makes it: up to 40 of
/// `[A-Za-z0-9_-]`, a dash, 16 lowercase hex digits.
fn is_cache_dir_name(name: &std::ffi::OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    let Some((stem, key)) = name.rsplit_once('-') else {
        return false;
    };
    stem.len() <= 40
        && stem
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && key.len() == 16
        && key.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f'))
}

/// The files of `dir` if it is a mapscope repository cache: a real directory (not a
/// symlink) holding only regular files with the names mapscope writes there (`tags.bin`,
/// `history.json`, the derived `graph.bin` and `search.bin`, and their temporary files), at
/// least one of which proves it: a tags or derived file starting with its magic, or a
/// history cache that parses as one. `Err` says why
/// not; `Ok(None)`: it does not exist.
pub fn owned_files(dir: &Path) -> Result<Option<Vec<(PathBuf, u64)>>, String> {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err("not a directory".into()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    }
    let entries = fs::read_dir(dir).map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    let mut proven = false;
    for ent in entries {
        let ent = ent.map_err(|e| e.to_string())?;
        let name = ent.file_name();
        let shown = name.to_string_lossy();
        let meta = fs::symlink_metadata(ent.path()).map_err(|e| e.to_string())?;
        if !meta.is_file() {
            return Err(format!("holds {shown}, which mapscope did not write"));
        }
        let path = ent.path();
        match cache_file_kind(&shown) {
            Some(CacheFileKind::Tags) => {
                proven |= guarded::read_head(&path, MAGIC.len(), Follow::No)
                    .is_ok_and(|head| head == MAGIC);
            }
            Some(CacheFileKind::History) => {
                proven |= guarded::read(&path, MAX_CACHE_FILE, Follow::No)
                    .is_ok_and(|bytes| super::history::is_cache_file(&bytes));
            }
            Some(CacheFileKind::Derived(kind)) => {
                proven |= guarded::read_head(&path, 8, Follow::No)
                    .is_ok_and(|head| super::cache_blob::has_magic(&kind, &head));
            }
            Some(CacheFileKind::Temp) => {}
            None => return Err(format!("holds {shown}, which mapscope did not write")),
        }
        files.push((path, meta.len()));
    }
    if !proven && !files.is_empty() {
        return Err("holds no valid mapscope cache file".into());
    }
    files.sort();
    Ok(Some(files))
}

/// Removes `dir` if `owned_files` recognises it: its files one by one, then the directory
/// if nothing else appeared meanwhile. `Ok(None)`: there was nothing to remove.
fn remove_owned(dir: &Path) -> Result<Option<(usize, u64)>, String> {
    let Some(files) = owned_files(dir)? else {
        return Ok(None);
    };
    let mut bytes = 0;
    for (file, len) in &files {
        match fs::remove_file(file) {
            Ok(()) => bytes += len,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("could not remove {}: {e}", file.display())),
        }
    }
    match fs::remove_dir(dir) {
        Ok(()) => Ok(Some((files.len(), bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Some((files.len(), bytes))),
        Err(e) => Err(format!("emptied of its cache files but not removed: {e}")),
    }
}

/// The files mapscope writes in a repository cache directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CacheFileKind {
    Tags,
    History,
    /// A derived structure's cache (`cache_blob`: the graph, the search index).
    Derived(super::cache_blob::BlobKind),
    Temp,
}

fn cache_file_kind(name: &str) -> Option<CacheFileKind> {
    match name {
        FILE_NAME => Some(CacheFileKind::Tags),
        super::history::CACHE_FILE => Some(CacheFileKind::History),
        _ if temp_pid(name).is_some() => Some(CacheFileKind::Temp),
        _ => super::cache_blob::ALL
            .into_iter()
            .find(|k| k.file_name == name)
            .map(CacheFileKind::Derived),
    }
}

impl DiskCache {
    /// The cache of the repository at `canonical_root` under the default cache root. An error
    /// says why there is none (no cache dir on this platform, or it lies inside the repo).
    pub fn for_repo(canonical_root: &Path) -> Result<DiskCache, String> {
        let base = cache_root().ok_or("no cache directory on this platform")?;
        Self::under(&base, canonical_root)
    }

    /// The cache of `canonical_root` under `base`.
    pub fn under(base: &Path, canonical_root: &Path) -> Result<DiskCache, String> {
        let resolved_base = resolve_lexically(base);
        if resolved_base.starts_with(canonical_root) {
            return Err(format!(
                "cache dir {} is inside the repository; not caching",
                base.display()
            ));
        }
        let name: String = canonical_root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        let key = xxh3_64(canonical_root.as_os_str().as_encoded_bytes());
        Ok(DiskCache {
            dir: base.join(format!("{name}-{key:016x}")),
            root: canonical_root.to_path_buf(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The canonical root of the repository this cache belongs to.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn file(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    /// Reads the cache. A missing file is an empty store without a warning; a file that
    /// does not check out is an empty store with one.
    pub fn load(&self) -> Loaded {
        self.load_for(Decode::Full)
    }

    /// `load`, decoding as much of each entry as `decode` says.
    pub fn load_for(&self, decode: Decode) -> Loaded {
        let path = self.file();
        // Temporary files of writers killed since the last run go first.
        remove_orphaned_temps(&self.dir);
        let bytes = match guarded::read(&path, MAX_CACHE_FILE, Follow::No) {
            Ok(b) => b,
            Err(e) if e.is_not_found() => return Loaded::default(),
            Err(e) => return ignored(&path, &format!("unreadable ({e})")),
        };
        match decode_store(bytes, &self.root, decode) {
            Ok(store) => Loaded {
                store,
                warning: None,
            },
            Err(why) => ignored(&path, &why),
        }
    }

    /// Saves the tags of `files`, atomically; their contents were read at `read_since_ns` or
    /// later (see `Index::read_since_ns`).
    pub fn save(&self, files: &[ParsedFile], read_since_ns: i64) -> Result<(), EngineError> {
        let writer = self.writer(read_since_ns)?;
        for f in files {
            writer.add_file(f);
        }
        writer.finish()
    }

    /// A new cache file for this repository, filled entry by entry (`CacheWriter::add`) and
    /// replacing the current one only when finished. Every file it gets was read at
    /// `read_since_ns` or later.
    pub fn writer(&self, read_since_ns: i64) -> Result<CacheWriter, EngineError> {
        fs::create_dir_all(&self.dir).map_err(io_error(&self.dir))?;
        remove_orphaned_temps(&self.dir);
        let (tmp, file) = create_temp(&self.dir, FILE_NAME).map_err(io_error(&self.dir))?;
        let writer = CacheWriter {
            out: Mutex::new(Sink {
                out: Some(Hashing {
                    inner: BufWriter::with_capacity(1 << 16, file),
                    hash: Xxh3::new(),
                }),
                error: None,
                finished: false,
            }),
            tmp,
            target: self.file(),
        };
        // From here on the writer's drop removes the temporary file on any failure.
        let root = self.root.to_string_lossy();
        let head = postcard::to_allocvec(&(&*root, read_since_ns)).map_err(std::io::Error::other);
        match head {
            Ok(head) => writer.append(&[&prefix(), &head]),
            Err(e) => writer.fail(e),
        }
        Ok(writer)
    }

    /// Removes this repository's cache, if `owned_files` recognises the directory as one
    /// (anything else there keeps it, and is an error naming it).
    pub fn clear(&self) -> Result<Cleared, EngineError> {
        let mut out = Cleared {
            root: self.dir.parent().map(Path::to_path_buf),
            ..Cleared::default()
        };
        match remove_owned(&self.dir) {
            Ok(Some((files, bytes))) => out.removed.push((self.dir.clone(), files, bytes)),
            Ok(None) => {}
            Err(why) => {
                return Err(EngineError::UnsafeCacheDir {
                    path: self.dir.clone(),
                    why,
                })
            }
        }
        Ok(out)
    }
}

/// A cache file being written: entries are appended as they come (from any thread, in any
/// order) to a temporary file, which `finish` checksums, syncs and renames over the cache.
/// Dropped unfinished, it removes the temporary file and the cache stays as it was.
///
/// Why entry by entry: a one-shot map can then free each file's references as soon as the
/// file is parsed, instead of keeping every file's until the end of the build to save them.
pub struct CacheWriter {
    out: Mutex<Sink>,
    tmp: PathBuf,
    target: PathBuf,
}

/// The open temporary file, or the first error writing it (after which nothing is written).
struct Sink {
    out: Option<Hashing<BufWriter<fs::File>>>,
    error: Option<std::io::Error>,
    finished: bool,
}

impl CacheWriter {
    /// Appends the entry of an indexed file (tags, stamp, the lines a map renders). A
    /// failed write is kept for `finish` to report.
    pub fn add_file(&self, f: &ParsedFile) {
        let lines = f.map_lines();
        let encoded;
        let links = match &f.unread_links {
            Some(links) => links.bytes(),
            None => match encode_links(&f.tags) {
                Ok(bytes) => {
                    encoded = bytes;
                    &encoded
                }
                Err(e) => return self.fail(std::io::Error::other(e)),
            },
        };
        let entry = EntryRef {
            path: &f.path,
            lang: f.lang,
            size: f.size,
            mtime_ns: f.mtime_ns,
            hash: f.hash,
            defs: &f.tags.defs,
            parse_errors: f.tags.parse_errors,
            module_scoped: f.tags.module_scoped,
            links: Bytes(links),
            lines: &lines,
        };
        // Encoded before taking the lock, so parse workers only queue for the copy.
        match postcard::to_allocvec(&entry) {
            Ok(bytes) => self.append(&[&bytes]),
            Err(e) => self.fail(std::io::Error::other(e)),
        }
    }

    fn append(&self, chunks: &[&[u8]]) {
        let mut sink = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(out) = sink.out.as_mut() else {
            return;
        };
        if let Err(e) = chunks.iter().try_for_each(|c| out.write_all(c)) {
            sink.out = None;
            sink.error = Some(e);
        }
    }

    fn fail(&self, e: std::io::Error) {
        let mut sink = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        if sink.out.take().is_some() {
            sink.error = Some(e);
        }
    }

    /// Writes the checksum, syncs, and atomically replaces the cache file; or reports the
    /// first error met since the writer was made (the cache then stays as it was). Only the
    /// first call does anything; entries added later are dropped.
    pub fn finish(&self) -> Result<(), EngineError> {
        let mut sink = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        if std::mem::replace(&mut sink.finished, true) {
            return Ok(());
        }
        let written = match (sink.out.take(), sink.error.take()) {
            (Some(out), None) => seal(out),
            (_, Some(e)) => Err(e),
            (None, None) => Err(std::io::Error::other("cache writer closed")),
        };
        written.map_err(io_error(&self.tmp))?;
        // A failed rename leaves the temporary file to the drop.
        rename_over(&self.tmp, &self.target).map_err(io_error(&self.target))
    }
}

impl Drop for CacheWriter {
    fn drop(&mut self) {
        // After a successful `finish` the file was renamed away and this fails harmlessly.
        let _ = fs::remove_file(&self.tmp);
        // An abandoned first write (e.g. the repo had nothing to index) leaves no empty
        // directory behind; one holding a cache file stays.
        if let Some(dir) = self.tmp.parent() {
            let _ = fs::remove_dir(dir);
        }
    }
}

/// Appends the checksum of everything written and syncs the file to disk.
fn seal(mut out: Hashing<BufWriter<fs::File>>) -> std::io::Result<()> {
    let checksum = out.hash.digest();
    out.inner.write_all(&checksum.to_le_bytes())?;
    let file = out
        .inner
        .into_inner()
        .map_err(std::io::IntoInnerError::into_error)?;
    file.sync_all()
}

/// Hashes what it writes, so the checksum costs no second pass over the file.
struct Hashing<W: Write> {
    inner: W,
    hash: Xxh3,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> EngineError {
    let path = path.to_path_buf();
    move |source| EngineError::Io { path, source }
}

fn ignored(path: &Path, why: &str) -> Loaded {
    Loaded {
        store: TagStore::default(),
        warning: Some(format!(
            "cache {} ignored: {why}; rebuilding",
            path.display()
        )),
    }
}

/// What identifies the tags a build would produce: a change of version or queries means
/// cached tags are stale even for unchanged files.
pub(crate) fn fingerprint() -> u64 {
    let mut h = Xxh3::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    for lang in Lang::ALL {
        h.update(lang::tags_query_source(lang).as_bytes());
    }
    h.digest()
}

#[derive(Serialize)]
struct EntryRef<'a> {
    path: &'a str,
    lang: Lang,
    size: u64,
    mtime_ns: i64,
    hash: u64,
    defs: &'a [Definition],
    parse_errors: u32,
    module_scoped: bool,
    /// `encode_links` of the tags (or the bytes a map-only load left undecoded).
    links: Bytes<'a>,
    lines: &'a MapLines,
}

#[derive(Deserialize)]
struct Entry<'a> {
    path: String,
    lang: Lang,
    size: u64,
    mtime_ns: i64,
    hash: u64,
    defs: Vec<Definition>,
    parse_errors: u32,
    module_scoped: bool,
    #[serde(borrow)]
    links: &'a [u8],
    lines: MapLines,
}

/// A byte string serialised as one (postcard: length, then the bytes), which `&[u8]`
/// deserialises from without copying.
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

/// A file's references and imports as an entry stores them: encoded apart from the rest of
/// its tags, so that a load can leave them undecoded.
#[derive(Serialize)]
struct LinksRef<'a> {
    refs: &'a RefList,
    imports: &'a [Import],
}

#[derive(Deserialize)]
struct Links {
    refs: RefList,
    imports: Vec<Import>,
}

fn encode_links(tags: &FileTags) -> Result<Vec<u8>, postcard::Error> {
    postcard::to_allocvec(&LinksRef {
        refs: &tags.refs,
        imports: &tags.imports,
    })
}

/// `tags` (whose references and imports are `links`, undecoded) with them decoded.
fn with_links(tags: &FileTags, links: &UnreadLinks) -> Result<FileTags, String> {
    let decoded: Links =
        postcard::from_bytes(links.bytes()).map_err(|e| format!("undecodable ({e})"))?;
    Ok(FileTags {
        defs: tags.defs.clone(),
        refs: decoded.refs,
        imports: decoded.imports,
        parse_errors: tags.parse_errors,
        module_scoped: tags.module_scoped,
    })
}

/// Decodes the references and imports `file` took undecoded from the cache
/// (`Decode::MapOnly`) into its tags. An entry that does not decode (which its checksum
/// makes a bug, not damage) leaves the file without references, and says so.
pub fn read_links(file: &mut ParsedFile) -> Result<(), String> {
    let Some(links) = file.unread_links.take() else {
        return Ok(());
    };
    let tags = with_links(&file.tags, &links)
        .map_err(|why| format!("cache entry of {}: references {why}", file.path))?;
    file.tags = Arc::new(tags);
    Ok(())
}

/// The fixed-size prefix: magic, format version, fingerprint.
fn prefix() -> Vec<u8> {
    let mut p = Vec::with_capacity(20);
    p.extend_from_slice(MAGIC);
    p.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    p.extend_from_slice(&fingerprint().to_le_bytes());
    p
}

fn decode_store(bytes: Vec<u8>, root: &Path, decode: Decode) -> Result<TagStore, String> {
    let bytes = Arc::new(bytes);
    let prefix = prefix();
    if !bytes.starts_with(&MAGIC[..bytes.len().min(MAGIC.len())]) {
        return Err("not a mapscope cache".into());
    }
    if bytes.len() < prefix.len() + 8 {
        return Err("truncated".into());
    }
    if bytes[..prefix.len()] != prefix[..] {
        return Err("written by another mapscope version".into());
    }
    let (body, tail) = bytes.split_at(bytes.len() - 8);
    let mut stored = [0u8; 8];
    stored.copy_from_slice(tail);
    if xxh3_64(body) != u64::from_le_bytes(stored) {
        return Err("checksum mismatch (truncated or corrupt)".into());
    }
    let undecodable = |e: postcard::Error| format!("undecodable ({e})");
    let ((cached_root, read_since_ns), mut rest): ((String, i64), &[u8]) =
        postcard::take_from_bytes(&body[prefix.len()..]).map_err(undecodable)?;
    if Path::new(&cached_root) != root {
        return Err(format!("belongs to another repository ({cached_root})"));
    }
    let mut files = HashMap::new();
    while !rest.is_empty() {
        let (e, after): (Entry, &[u8]) = postcard::take_from_bytes(rest).map_err(undecodable)?;
        rest = after;
        let (refs, imports, unread_links) = match decode {
            Decode::Full => {
                let links: Links = postcard::from_bytes(e.links).map_err(undecodable)?;
                (links.refs, links.imports, None)
            }
            Decode::MapOnly => {
                // Where the borrowed bytes sit in the buffer they were borrowed from.
                let start = (e.links.as_ptr() as usize)
                    .checked_sub(bytes.as_ptr() as usize)
                    .filter(|start| start + e.links.len() <= bytes.len())
                    .ok_or("undecodable (references outside the file)")?;
                let links = UnreadLinks {
                    buf: Arc::clone(&bytes),
                    range: start..start + e.links.len(),
                };
                (RefList::default(), Vec::new(), Some(links))
            }
        };
        let tags = CachedTags {
            lang: e.lang,
            size: e.size,
            mtime_ns: e.mtime_ns,
            hash: e.hash,
            tags: Arc::new(FileTags {
                defs: e.defs,
                refs,
                imports,
                parse_errors: e.parse_errors,
                module_scoped: e.module_scoped,
            }),
            lines: Some(Arc::new(e.lines)),
            unread_links,
        };
        files.insert(e.path, tags);
    }
    Ok(TagStore {
        files,
        read_since_ns: Some(read_since_ns),
    })
}

/// Creates a new temporary file for `target_name` in `dir`, named
/// `<target_name>.<pid>.<nanos>.<n>.tmp` and locked (`flock`) for as long as this process
/// holds it open: a killed writer's lock goes with it, which is how `remove_orphaned_temps`
/// knows the file is orphaned. Never follows or reuses an existing file (`create_new`).
pub fn create_temp(dir: &Path, target_name: &str) -> std::io::Result<(PathBuf, fs::File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(
        "{target_name}.{}.{nanos}.{n}.tmp",
        std::process::id()
    ));
    let file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)?;
    lock_exclusive(&file);
    Ok((tmp, file))
}

/// Writes `bytes` to `dir/name` atomically (a locked temporary file, synced, renamed over
/// it), creating `dir` if needed; the temporary file is removed on failure.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    remove_orphaned_temps(dir);
    let (tmp, mut file) = create_temp(dir, name)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| rename_over(&tmp, &dir.join(name)));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// Renames the finished temporary file `tmp` over `target`. An empty directory in the way
/// is removed first: `rename` replaces a FIFO or a link there itself, but not a directory,
/// so a cache file replaced by one would be ignored (with a warning) and rebuilt on every
/// run. A directory holding anything is not mapscope's to delete: the error names it.
fn rename_over(tmp: &Path, target: &Path) -> std::io::Result<()> {
    match fs::rename(tmp, target) {
        Err(e) if fs::symlink_metadata(target).is_ok_and(|m| m.is_dir()) => {
            fs::remove_dir(target).map_err(|_| {
                std::io::Error::other(format!("{e}: a directory holding files is in the way"))
            })?;
            fs::rename(tmp, target)
        }
        done => done,
    }
}

/// The writer's pid in a temporary file's name (`create_temp`'s, or the older
/// `history.json.tmp-<pid>`); `None` for any other name.
fn temp_pid(name: &str) -> Option<u32> {
    if let Some(pid) = name.strip_prefix("history.json.tmp-") {
        return pid.parse().ok();
    }
    let rest = name.strip_suffix(".tmp")?;
    let derived = super::cache_blob::ALL.map(|k| k.file_name);
    let rest = [FILE_NAME, "history.json"]
        .iter()
        .chain(&derived)
        .find_map(|target| rest.strip_prefix(target)?.strip_prefix('.'))?;
    let mut parts = rest.split('.');
    let pid = parts.next()?.parse().ok()?;
    let numbers = parts.all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    numbers.then_some(pid)
}

/// Removes the temporary files in `dir` that no writer holds any more: their lock is free
/// (a writer holds it until it renames or removes the file; the kernel drops it when the
/// writer dies, even by SIGKILL) and either their writer's pid is not a live process or
/// they are older than `STALE_TEMP` (the pid was reused). Both conditions, because a
/// writer takes its lock just after creating the file, and a pid can be alive in another
/// pid namespace sharing this cache. Files of other names are never touched.
pub fn remove_orphaned_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for ent in entries.flatten() {
        let name = ent.file_name();
        let Some(pid) = temp_pid(&name.to_string_lossy()) else {
            continue;
        };
        let path = ent.path();
        let Ok((file, meta)) = guarded::open(&path, Follow::No) else {
            continue;
        };
        if !try_lock_exclusive(&file) {
            continue;
        }
        let old = meta
            .modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMP);
        if old || !process_alive(pid) {
            let _ = fs::remove_file(&path);
        }
    }
}

#[cfg(unix)]
fn lock_exclusive(file: &fs::File) {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a descriptor this function borrows; no memory is involved. A
    // failure (a file system without locks) only makes the file look orphaned sooner to
    // `remove_orphaned_temps`, which then still needs the writer's pid to be gone.
    unsafe {
        libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB);
    }
}

/// False only when another open file holds the lock. A file system that cannot lock (some
/// NFS setups refuse an exclusive lock on a read-only descriptor) says nothing: true, and
/// the pid and age decide.
#[cfg(unix)]
fn try_lock_exclusive(file: &fs::File) -> bool {
    use std::os::unix::io::AsRawFd;
    // SAFETY: as in `lock_exclusive`. The lock is released when `file` is closed.
    let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EWOULDBLOCK)
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks whether the process exists; nothing is sent.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn lock_exclusive(_file: &fs::File) {}

#[cfg(not(unix))]
fn try_lock_exclusive(_file: &fs::File) -> bool {
    true
}

#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    // Without a way to ask, only the age rule removes a temporary file.
    true
}

/// `base` made absolute and with `.`/`..` folded, without touching the filesystem (the
/// directory may not exist yet), so "inside the repo" can be judged before creating it.
fn resolve_lexically(base: &Path) -> PathBuf {
    let absolute = if base.is_absolute() {
        base.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(base)
    };
    // Canonicalize the longest existing ancestor so symlinked cache dirs are judged by
    // where they really point.
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut out = existing
        .canonicalize()
        .unwrap_or_else(|_| existing.to_path_buf());
    for part in rest.iter().rev() {
        match part.to_str() {
            Some("..") => {
                out.pop();
            }
            Some(".") => {}
            _ => out.push(part),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{DefKind, Definition, LineRange};

    fn parsed(path: &str, text: &str) -> ParsedFile {
        let tags = FileTags {
            defs: vec![Definition {
                name: "f".into(),
                kind: DefKind::Function,
                lines: LineRange::new(1, 1),
                signature: LineRange::new(1, 1),
                parent: None,
                scope_lines: vec![],
            }],
            ..FileTags::default()
        };
        ParsedFile::new(
            path.into(),
            Lang::Python,
            text.len() as u64,
            text.into(),
            tags,
        )
        .with_stamp(7, content_hash(text))
    }

    fn cache_in(base: &Path) -> (DiskCache, PathBuf) {
        let repo = base.join("repo");
        fs::create_dir_all(&repo).unwrap();
        let root = repo.canonicalize().unwrap();
        (DiskCache::under(&base.join("cache"), &root).unwrap(), root)
    }

    #[test]
    fn size_and_mtime_stand_for_the_content_only_well_before_the_read() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        let f = parsed("a.py", "def f(): pass\n").with_stamp(1_000_000_000_000, 7);
        let (lang, size, mtime) = (f.lang, f.size, f.mtime_ns);
        // Read an hour after the last modification: trusted, with the map's lines.
        cache
            .save(std::slice::from_ref(&f), mtime + 3_600_000_000_000)
            .unwrap();
        let store = cache.load().store;
        let hit = store
            .unchanged_for_map("a.py", lang, size, mtime)
            .expect("trusted");
        assert_eq!(hit.hash, 7);
        assert_eq!(
            hit.lines.as_ref().map(|l| l.as_ref().line(1)),
            Some(Some("def f(): pass"))
        );
        assert!(store
            .unchanged_for_map("a.py", lang, size, mtime + 1)
            .is_none());
        assert!(store
            .unchanged_for_map("a.py", lang, size + 1, mtime)
            .is_none());
        assert!(store.unchanged_for_map("b.py", lang, size, mtime).is_none());
        // Read within the racy window of the modification: not trusted.
        cache
            .save(std::slice::from_ref(&f), mtime + RACY_NS / 2)
            .unwrap();
        let store = cache.load().store;
        assert!(store.unchanged_for_map("a.py", lang, size, mtime).is_none());
        // A previous index's store is never trusted by mtime.
        let store = TagStore::from_files(&[f]);
        assert!(store.unchanged_for_map("a.py", lang, size, mtime).is_none());
    }

    #[test]
    fn a_map_only_load_leaves_links_encoded_until_read_and_saves_them_as_they_were() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        let text = "import os\nfrom b import g\n\ndef f():\n    return g(os.sep)\n";
        let tags = crate::engine::tags::extract_tags(Lang::Python, text);
        assert!(!tags.refs.is_empty() && !tags.imports.is_empty());
        let file = ParsedFile::new(
            "a.py".into(),
            Lang::Python,
            text.len() as u64,
            text.into(),
            tags,
        )
        .with_stamp(7, content_hash(text));
        cache.save(std::slice::from_ref(&file), now_ns()).unwrap();

        let lazy = cache.load_for(Decode::MapOnly).store;
        let entry = &lazy.files["a.py"];
        assert!(entry.tags.refs.is_empty() && entry.tags.imports.is_empty());
        assert_eq!(entry.tags.defs, file.tags.defs);
        let links = entry.unread_links.clone().expect("links left encoded");
        // A lookup by content needs whole tags: it decodes them.
        let hit = lazy.lookup("a.py", Lang::Python, file.size, file.hash);
        assert_eq!(hit.as_deref(), Some(&*file.tags));
        // So does whatever asks a map-only file for them.
        let mut taken = ParsedFile::from_map_lines(
            "a.py".into(),
            Lang::Python,
            file.size,
            entry.lines.clone().unwrap(),
            entry.tags.clone(),
        )
        .with_stamp(7, file.hash);
        taken.unread_links = Some(links);
        let mut read = taken.clone();
        read_links(&mut read).unwrap();
        assert_eq!(*read.tags, *file.tags);
        assert!(read.unread_links.is_none());
        // Saved while still encoded, the entry is what it was: a full load gets the tags back.
        cache.save(&[taken], now_ns()).unwrap();
        let full = cache.load_for(Decode::Full).store;
        assert_eq!(*full.files["a.py"].tags, *file.tags);
        assert!(full.files["a.py"].unread_links.is_none());
    }

    #[test]
    fn round_trip_keeps_tags_and_validates_by_content() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        let files = vec![parsed("a.py", "def f(): pass\n"), parsed("b.py", "x = 1\n")];
        cache.save(&files, now_ns()).unwrap();
        let loaded = cache.load();
        assert!(loaded.warning.is_none(), "{:?}", loaded.warning);
        assert_eq!(loaded.store.len(), 2);
        let a = &files[0];
        let hit = loaded.store.lookup("a.py", Lang::Python, a.size, a.hash);
        assert_eq!(hit.as_deref(), Some(&*a.tags));
        // Other content, other language or other path: no hit.
        assert!(loaded
            .store
            .lookup("a.py", Lang::Python, a.size, a.hash ^ 1)
            .is_none());
        assert!(loaded
            .store
            .lookup("a.py", Lang::Go, a.size, a.hash)
            .is_none());
        assert!(loaded
            .store
            .lookup("c.py", Lang::Python, a.size, a.hash)
            .is_none());
        // No temporary file is left behind.
        let names: Vec<_> = fs::read_dir(cache.dir()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_writer_fed_from_threads_in_any_order_saves_what_save_does() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        let files: Vec<ParsedFile> = (0..200)
            .map(|i| parsed(&format!("m{i}.py"), &format!("def f{i}(): pass\n")))
            .collect();
        let writer = cache.writer(now_ns()).unwrap();
        std::thread::scope(|s| {
            for part in files.chunks(37).rev() {
                let writer = &writer;
                s.spawn(move || {
                    for f in part.iter().rev() {
                        writer.add_file(f);
                    }
                });
            }
        });
        // Nothing replaces the cache before `finish`.
        assert!(!cache.file().exists());
        writer.finish().unwrap();
        writer.finish().unwrap();
        drop(writer);
        let streamed = cache.load();
        assert!(streamed.warning.is_none(), "{:?}", streamed.warning);
        assert_eq!(streamed.store.len(), files.len());
        for f in &files {
            let hit = streamed.store.lookup(&f.path, f.lang, f.size, f.hash);
            assert_eq!(hit.as_deref(), Some(&*f.tags), "{}", f.path);
        }
        // The same entries in another order: the same size, only the order differs.
        let streamed_len = fs::metadata(cache.file()).unwrap().len();
        cache.save(&files, now_ns()).unwrap();
        assert_eq!(fs::metadata(cache.file()).unwrap().len(), streamed_len);
        let names: Vec<_> = fs::read_dir(cache.dir()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn an_unfinished_writer_leaves_the_old_cache_and_no_temporary_file() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        cache.save(&[parsed("a.py", "x = 1\n")], now_ns()).unwrap();
        let before = fs::read(cache.file()).unwrap();
        let writer = cache.writer(now_ns()).unwrap();
        let f = parsed("b.py", "y = 2\n");
        writer.add_file(&f);
        drop(writer);
        assert_eq!(fs::read(cache.file()).unwrap(), before);
        let names: Vec<_> = fs::read_dir(cache.dir()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn missing_cache_is_empty_without_warning() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        let loaded = cache.load();
        assert!(loaded.store.is_empty());
        assert!(loaded.warning.is_none());
    }

    fn assert_ignored(cache: &DiskCache, needle: &str) {
        let loaded = cache.load();
        assert!(loaded.store.is_empty());
        let warning = loaded.warning.expect("a warning");
        assert!(warning.contains(needle), "{warning}");
    }

    #[test]
    fn truncated_garbage_and_other_version_are_ignored_with_a_warning() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        cache
            .save(&[parsed("a.py", "def f(): pass\n")], now_ns())
            .unwrap();
        let good = fs::read(cache.file()).unwrap();

        for cut in [1, 10, good.len() / 2, good.len() - 1] {
            fs::write(cache.file(), &good[..cut]).unwrap();
            let loaded = cache.load();
            assert!(loaded.store.is_empty(), "cut at {cut}");
            assert!(loaded.warning.is_some(), "cut at {cut}");
        }

        fs::write(cache.file(), b"garbage garbage garbage garbage").unwrap();
        assert_ignored(&cache, "not a mapscope cache");

        let mut flipped = good.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0xff;
        fs::write(cache.file(), &flipped).unwrap();
        assert_ignored(&cache, "checksum");

        let mut other = good.clone();
        other[8] = other[8].wrapping_add(1); // format version
        fs::write(cache.file(), &other).unwrap();
        assert_ignored(&cache, "another mapscope version");

        // After a save, the cache is good again.
        cache
            .save(&[parsed("a.py", "def f(): pass\n")], now_ns())
            .unwrap();
        assert_eq!(cache.load().store.len(), 1);
    }

    #[test]
    fn another_repos_cache_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        cache.save(&[parsed("a.py", "x = 1\n")], now_ns()).unwrap();
        let other_root = tmp.path().join("elsewhere");
        let impostor = DiskCache {
            dir: cache.dir().to_path_buf(),
            root: other_root,
        };
        assert_ignored(&impostor, "another repository");
    }

    #[test]
    fn concurrent_writers_never_leave_a_corrupt_file() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        let big: Vec<ParsedFile> = (0..300)
            .map(|i| parsed(&format!("m{i}.py"), &format!("def f{i}(): pass\n")))
            .collect();
        let small = vec![parsed("a.py", "x = 1\n")];
        std::thread::scope(|s| {
            for w in 0..4 {
                let cache = cache.clone();
                let files = if w % 2 == 0 { &big } else { &small };
                s.spawn(move || {
                    for _ in 0..10 {
                        cache.save(files, now_ns()).unwrap();
                    }
                });
            }
            let reader = cache.clone();
            s.spawn(move || {
                for _ in 0..40 {
                    let loaded = reader.load();
                    assert!(loaded.warning.is_none(), "{:?}", loaded.warning);
                    assert!(matches!(loaded.store.len(), 0 | 1 | 300));
                }
            });
        });
        let n = cache.load().store.len();
        assert!(n == 1 || n == 300);
    }

    #[test]
    fn a_held_temporary_file_is_kept_and_an_orphan_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let (held, _file) = create_temp(tmp.path(), FILE_NAME).unwrap();
        // Unlocked, and its writer is gone.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let orphan = tmp.path().join(format!("{FILE_NAME}.{dead}.1.2.tmp"));
        fs::write(&orphan, b"x").unwrap();
        remove_orphaned_temps(tmp.path());
        assert!(held.exists());
        assert!(!orphan.exists());
        assert_eq!(temp_pid("tags.bin.12.3.4.tmp"), Some(12));
        assert_eq!(temp_pid("history.json.tmp-77"), Some(77));
        for other in ["tags.bin", "tags.bin.tmp", "x.12.3.tmp", "tags.bin.a.3.tmp"] {
            assert_eq!(temp_pid(other), None, "{other}");
        }
    }

    #[test]
    fn only_folders_of_mapscope_files_count_as_owned() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        cache.save(&[parsed("a.py", "x = 1\n")], now_ns()).unwrap();
        assert!(owned_files(cache.dir()).unwrap().is_some());
        fs::create_dir(cache.dir().join(".git")).unwrap();
        let err = owned_files(cache.dir()).unwrap_err();
        assert!(err.contains(".git"), "{err}");
        fs::remove_dir(cache.dir().join(".git")).unwrap();
        fs::write(cache.file(), b"MSCACHX\0 not ours").unwrap();
        let err = owned_files(cache.dir()).unwrap_err();
        assert!(err.contains("no valid"), "{err}");
        assert!(is_cache_dir_name(std::ffi::OsStr::new(
            "app-0123456789abcdef"
        )));
        assert!(!is_cache_dir_name(std::ffi::OsStr::new(
            "app-0123456789ABCDEF"
        )));
        assert!(!is_cache_dir_name(std::ffi::OsStr::new("photos")));
    }

    #[test]
    fn a_cache_dir_inside_the_repo_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        fs::create_dir_all(&repo).unwrap();
        let root = repo.canonicalize().unwrap();
        let err = DiskCache::under(&root.join(".cache/x/../mapscope"), &root).unwrap_err();
        assert!(err.contains("inside the repository"), "{err}");
        assert!(DiskCache::under(&tmp.path().join("cache"), &root).is_ok());
    }

    #[test]
    fn repos_get_distinct_directories() {
        let base = Path::new("/tmp/cache-base");
        let a = DiskCache::under(base, Path::new("/src/a/app")).unwrap();
        let b = DiskCache::under(base, Path::new("/src/b/app")).unwrap();
        assert_ne!(a.dir(), b.dir());
        assert!(a
            .dir()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("app-"));
    }
}
