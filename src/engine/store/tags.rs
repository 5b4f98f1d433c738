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
//! Threads: `load` runs on the thread that builds the index (a full load decodes the
//! entries' references on rayon's pool); `save` may run on a side thread
//! while the caller renders its output. A `CacheWriter` takes entries from the parse
//! phase's rayon workers and is finished on any one thread.

use std::collections::HashMap;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::engine::base::error::EngineError;
use crate::engine::base::guarded::{self, Follow};
use crate::engine::base::model::{
    Container, DecodedLinks, Definition, FileTags, Import, Lang, MapLines, ParsedFile, RefList,
    UnreadLinks,
};
use crate::engine::ingest::lang;
use crate::engine::store::dir::{DiskCache, TAGS_FILE};
use crate::engine::store::files::{create_temp, remove_orphaned_temps, rename_over};

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
///    map-only load can keep them undecoded (`Decode::LinksUnread`).
/// 11: each definition's `container` and the entry's table of them (`FileTags::containers`);
///    scope lines include the headers of containers that are not definitions.
/// 12: `Definition::declaration` and `DefKind::Module`; C++ files are parsed with their
///    attribute and scope macros blanked (`tags::macros`); JS members assigned a function
///    are definitions.
/// 13: each reference's receiver type (`RefView::receiver`).
/// 14: a C++ class template specialization (`struct formatter<T, C> { … }`) defines its
///    template's name and holds its members.
/// 15: a file whose syntax error swallowed a large part of it is parsed again with the
///    broken statement blanked (`tags::recover`).
/// 16: a C++ member defined out of line through a nested type or a namespace
///    (`bool A<K>::B::f() {}`) is a definition, in the container `A::B`.
/// 17: the file names each file mentions (`FileTags::mentions`).
/// 18: C/C++ object-like macros without a value are definitions (`Definition::lookup_only`).
/// 19: a C/C++ typedef of a pointer type (`typedef struct s *P`) defines its name; block
///    comments inside a `#define` are blanked before the parse (`tags::define_comments`).
/// 20: struct and class fields (Go, Rust, TypeScript, Java, C#, C, C++) are look-up-only
///    definitions (`DefKind::Field`).
/// 21: fields in Python (a class's own variables), PHP (properties, promoted or not), Ruby
///    (`attr_accessor` and kin) and TypeScript constructor parameter properties.
/// 22: a TS/JS class field whose value is a function is a method.
/// 23: JavaScript class fields holding data are look-up-only fields, as TypeScript's are.
pub const FORMAT_VERSION: u32 = 23;
pub(super) const MAGIC: &[u8; 8] = b"MSCACHE\0";
/// Cache files above this size are not read (a tags file of a huge repository is a few
/// hundred MB).
pub(super) const MAX_CACHE_FILE: u64 = 4 << 30;
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
    /// `tags`' references and imports, still encoded (`Decode::LinksUnread`): `tags` has none.
    pub unread_links: Option<UnreadLinks>,
}

/// How much of each entry `DiskCache::load_for` decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decode {
    /// Everything.
    Full,
    /// All but the references and imports, which stay encoded in the file's buffer
    /// (`CachedTags::unread_links`) until something asks for them (`read_links`, or one
    /// file's `ParsedFile::refs`). A warm map whose graph comes from the derived cache never
    /// does, a warm search only for the files it shows, and their decoding would be a large
    /// share of either's CPU.
    LinksUnread,
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
        (same && stamp_trusted(mtime_ns, read_since) && hit.lines.is_some()).then_some(hit)
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

/// Whether a file last modified at `mtime_ns` (known: not 0) kept the content it had when
/// read at `read_since_ns` or later, as long as its size and mtime have not changed:
/// modified well before the read (`RACY_NS`).
pub fn stamp_trusted(mtime_ns: i64, read_since_ns: i64) -> bool {
    mtime_ns != 0 && mtime_ns < read_since_ns.saturating_sub(RACY_NS)
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

impl DiskCache {
    pub fn file(&self) -> PathBuf {
        self.dir.join(TAGS_FILE)
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
        let (tmp, file) = create_temp(&self.dir, TAGS_FILE).map_err(io_error(&self.dir))?;
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
            containers: &f.tags.containers,
            parse_errors: f.tags.parse_errors,
            module_scoped: f.tags.module_scoped,
            mentions: &f.tags.mentions,
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

pub(super) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> EngineError {
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
    containers: &'a [Container],
    parse_errors: u32,
    module_scoped: bool,
    mentions: &'a [String],
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
    containers: Vec<Container>,
    parse_errors: u32,
    module_scoped: bool,
    mentions: Vec<String>,
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

/// An entry's references and imports, decoded (`UnreadLinks::decode`).
fn decode_links(bytes: &[u8]) -> Option<DecodedLinks> {
    let links: Links = postcard::from_bytes(bytes).ok()?;
    Some(DecodedLinks {
        refs: links.refs,
        imports: links.imports,
    })
}

/// `tags` (whose references and imports are `links`, undecoded) with them decoded (a copy
/// of those a clone of `links` decoded already).
fn with_links(tags: &FileTags, links: &UnreadLinks) -> Result<FileTags, String> {
    let decoded = match links.decoded_if_done() {
        Some(done) => Links {
            refs: done.refs.clone(),
            imports: done.imports.clone(),
        },
        None => postcard::from_bytes(links.bytes()).map_err(|e| format!("undecodable ({e})"))?,
    };
    Ok(FileTags {
        defs: tags.defs.clone(),
        refs: decoded.refs,
        imports: decoded.imports,
        parse_errors: tags.parse_errors,
        module_scoped: tags.module_scoped,
        containers: tags.containers.clone(),
        mentions: tags.mentions.clone(),
    })
}

/// Decodes the references and imports `file` took undecoded from the cache
/// (`Decode::LinksUnread`) into its tags. An entry that does not decode (which its checksum
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
    let mut entries: Vec<Entry> = Vec::new();
    while !rest.is_empty() {
        let (e, after): (Entry, &[u8]) = postcard::take_from_bytes(rest).map_err(undecodable)?;
        rest = after;
        entries.push(e);
    }
    // The entries follow one another without an index, so they are taken apart in order;
    // their references, the bulk of a large repository's tags, are decoded in parallel.
    let cached = |e: Entry| -> Result<(String, CachedTags), String> {
        let (refs, imports, unread_links) = match decode {
            Decode::Full => {
                let links: Links = postcard::from_bytes(e.links).map_err(undecodable)?;
                (links.refs, links.imports, None)
            }
            Decode::LinksUnread => {
                // Where the borrowed bytes sit in the buffer they were borrowed from.
                let start = (e.links.as_ptr() as usize)
                    .checked_sub(bytes.as_ptr() as usize)
                    .filter(|start| start + e.links.len() <= bytes.len())
                    .ok_or("undecodable (references outside the file)")?;
                let links = UnreadLinks::new(
                    Arc::clone(&bytes),
                    start..start + e.links.len(),
                    decode_links,
                );
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
                containers: e.containers,
                mentions: e.mentions,
            }),
            lines: Some(Arc::new(e.lines)),
            unread_links,
        };
        Ok((e.path, tags))
    };
    let files: HashMap<String, CachedTags> = match decode {
        Decode::Full => entries
            .into_par_iter()
            .with_min_len(64)
            .map(cached)
            .collect::<Result<Vec<_>, String>>()?
            .into_iter()
            .collect(),
        Decode::LinksUnread => entries.into_iter().map(cached).collect::<Result<_, _>>()?,
    };
    Ok(TagStore {
        files,
        read_since_ns: Some(read_since_ns),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::model::{ContainerRef, DefKind, Definition, LineRange};

    fn parsed(path: &str, text: &str) -> ParsedFile {
        let tags = FileTags {
            defs: vec![Definition {
                name: "f".into(),
                kind: DefKind::Function,
                lines: LineRange::new(1, 1),
                signature: LineRange::new(1, 1),
                parent: None,
                scope_lines: vec![],
                container: ContainerRef::NONE,
                declaration: false,
                lookup_only: false,
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
        let tags = crate::engine::ingest::tags::extract_tags(Lang::Python, text);
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

        let lazy = cache.load_for(Decode::LinksUnread).store;
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
}
