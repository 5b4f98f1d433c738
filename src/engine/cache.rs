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
//! (postcard), then one postcard entry per file (path, language, size, mtime, content hash,
//! tags) back to back, in no particular order, and an xxh3 checksum of everything before it.
//! No entry count up front: a `CacheWriter` appends entries while the files are still being
//! parsed, before it knows how many will load. Anything that does not check out — short,
//! garbage, another version, another repo — is ignored with one warning and rebuilt.
//!
//! Writes are atomic: a uniquely named temporary file in the same directory, then `rename`.
//! Two processes saving at once each rename a complete file; the last one wins and readers
//! never see a partial file.
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
use super::lang;
use super::model::{FileTags, Lang, ParsedFile};

/// Bumped whenever the file layout or the meaning of the tags changes in a way the
/// fingerprint (crate version + query texts) cannot see, e.g. a change in `tags/refs.rs`.
/// 4: entries back to back without a count (was a postcard sequence), see `CacheWriter`.
/// 5: `FileTags::module_scoped` (TS/JS module or script).
/// 6: TS/JS plain uses of a name the file binds itself are no longer references.
/// 7: a definition keeps at most `tags::MAX_SCOPE_LINES` scope lines (a deeply nested file
///    written by 6 holds quadratic chains).
pub const FORMAT_VERSION: u32 = 7;
const MAGIC: &[u8; 8] = b"MSCACHE\0";
const FILE_NAME: &str = "tags.bin";
/// Temporary files older than this were left by a killed process and are removed on save.
const STALE_TEMP: Duration = Duration::from_secs(600);

/// Tags of one file as cached, with what identifies the content they came from.
#[derive(Debug, Clone)]
pub struct CachedTags {
    pub lang: Lang,
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: u64,
    pub tags: Arc<FileTags>,
}

/// Cached tags by repo-relative path, loaded from disk (or taken from a previous index).
#[derive(Debug, Clone, Default)]
pub struct TagStore {
    files: HashMap<String, CachedTags>,
}

impl TagStore {
    /// The cached tags of `path` if they were extracted from exactly this content.
    pub fn lookup(&self, path: &str, lang: Lang, size: u64, hash: u64) -> Option<Arc<FileTags>> {
        let hit = self.files.get(path)?;
        (hit.lang == lang && hit.size == size && hit.hash == hash).then(|| hit.tags.clone())
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
                };
                (f.path.clone(), entry)
            })
            .collect();
        TagStore { files }
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

/// Removes every repository's cache. Returns the directory removed, if there was one.
pub fn clear_all() -> Result<Option<PathBuf>, EngineError> {
    let Some(root) = cache_root() else {
        return Ok(None);
    };
    match fs::remove_dir_all(&root) {
        Ok(()) => Ok(Some(root)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(EngineError::Io { path: root, source }),
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

    pub fn file(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    /// Reads the cache. A missing file is an empty store without a warning; a file that
    /// does not check out is an empty store with one.
    pub fn load(&self) -> Loaded {
        let path = self.file();
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::default(),
            Err(e) => return ignored(&path, &format!("unreadable ({e})")),
        };
        match decode(&bytes, &self.root) {
            Ok(store) => Loaded {
                store,
                warning: None,
            },
            Err(why) => ignored(&path, &why),
        }
    }

    /// Saves the tags of `files`, atomically.
    pub fn save(&self, files: &[ParsedFile]) -> Result<(), EngineError> {
        let writer = self.writer()?;
        for f in files {
            writer.add_file(f);
        }
        writer.finish()
    }

    /// A new cache file for this repository, filled entry by entry (`CacheWriter::add`) and
    /// replacing the current one only when finished.
    pub fn writer(&self) -> Result<CacheWriter, EngineError> {
        fs::create_dir_all(&self.dir).map_err(io_error(&self.dir))?;
        remove_stale_temps(&self.dir);
        let tmp = self.dir.join(temp_name());
        let file = fs::File::create(&tmp).map_err(io_error(&tmp))?;
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
        let head = postcard::to_allocvec(&*root).map_err(std::io::Error::other);
        match head {
            Ok(head) => writer.append(&[&prefix(), &head]),
            Err(e) => writer.fail(e),
        }
        Ok(writer)
    }

    /// Removes this repository's cache. Returns whether there was one.
    pub fn clear(&self) -> Result<bool, EngineError> {
        match fs::remove_dir_all(&self.dir) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(source) => Err(EngineError::Io {
                path: self.dir.clone(),
                source,
            }),
        }
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
    /// Appends the entry of an indexed file (see `add`).
    pub fn add_file(&self, f: &ParsedFile) {
        self.add(&f.path, f.lang, f.size, f.mtime_ns, f.hash, &f.tags);
    }

    /// Appends one file's entry. A failed write is kept for `finish` to report.
    pub fn add(
        &self,
        path: &str,
        lang: Lang,
        size: u64,
        mtime_ns: i64,
        hash: u64,
        tags: &FileTags,
    ) {
        let entry = EntryRef {
            path,
            lang,
            size,
            mtime_ns,
            hash,
            tags,
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
        fs::rename(&self.tmp, &self.target).map_err(io_error(&self.tmp))
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
    let file = out.inner.into_inner().map_err(|e| e.into_error())?;
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
fn fingerprint() -> u64 {
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
    tags: &'a FileTags,
}

#[derive(Deserialize)]
struct Entry {
    path: String,
    lang: Lang,
    size: u64,
    mtime_ns: i64,
    hash: u64,
    tags: FileTags,
}

/// The fixed-size prefix: magic, format version, fingerprint.
fn prefix() -> Vec<u8> {
    let mut p = Vec::with_capacity(20);
    p.extend_from_slice(MAGIC);
    p.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    p.extend_from_slice(&fingerprint().to_le_bytes());
    p
}

fn decode(bytes: &[u8], root: &Path) -> Result<TagStore, String> {
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
    let (cached_root, mut rest): (String, &[u8]) =
        postcard::take_from_bytes(&body[prefix.len()..]).map_err(undecodable)?;
    if Path::new(&cached_root) != root {
        return Err(format!("belongs to another repository ({cached_root})"));
    }
    let mut files = HashMap::new();
    while !rest.is_empty() {
        let (e, after): (Entry, &[u8]) = postcard::take_from_bytes(rest).map_err(undecodable)?;
        rest = after;
        let tags = CachedTags {
            lang: e.lang,
            size: e.size,
            mtime_ns: e.mtime_ns,
            hash: e.hash,
            tags: Arc::new(e.tags),
        };
        files.insert(e.path, tags);
    }
    Ok(TagStore { files })
}

fn temp_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{FILE_NAME}.{}.{nanos}.{n}.tmp", std::process::id())
}

fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for ent in entries.flatten() {
        let name = ent.file_name();
        if !name.to_string_lossy().ends_with(".tmp") {
            continue;
        }
        let old = ent
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMP);
        if old {
            let _ = fs::remove_file(ent.path());
        }
    }
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
    fn round_trip_keeps_tags_and_validates_by_content() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        let files = vec![parsed("a.py", "def f(): pass\n"), parsed("b.py", "x = 1\n")];
        cache.save(&files).unwrap();
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
        let writer = cache.writer().unwrap();
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
        cache.save(&files).unwrap();
        assert_eq!(fs::metadata(cache.file()).unwrap().len(), streamed_len);
        let names: Vec<_> = fs::read_dir(cache.dir()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn an_unfinished_writer_leaves_the_old_cache_and_no_temporary_file() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        cache.save(&[parsed("a.py", "x = 1\n")]).unwrap();
        let before = fs::read(cache.file()).unwrap();
        let writer = cache.writer().unwrap();
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
        cache.save(&[parsed("a.py", "def f(): pass\n")]).unwrap();
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
        cache.save(&[parsed("a.py", "def f(): pass\n")]).unwrap();
        assert_eq!(cache.load().store.len(), 1);
    }

    #[test]
    fn another_repos_cache_is_ignored() {
        let tmp = tempfile::tempdir().unwrap();
        let (cache, _) = cache_in(tmp.path());
        cache.save(&[parsed("a.py", "x = 1\n")]).unwrap();
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
                        cache.save(files).unwrap();
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
