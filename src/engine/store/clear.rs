//! `mapscope cache clear`: removes only what mapscope can tell it wrote (`owned_files`: a
//! directory of mapscope's file names, at least one proven by its content), file by file,
//! and refuses a cache root that is or holds a repository or a source tree (`check_root`).
//! Runs on the caller's thread.

use std::fs;
use std::path::{Path, PathBuf};

use crate::engine::base::error::EngineError;
use crate::engine::base::guarded::{self, Follow};
use crate::engine::base::model::Lang;
use crate::engine::store::blob::{self, BlobKind};
use crate::engine::store::dir::{cache_root, DiskCache, HISTORY_FILE, TAGS_FILE};
use crate::engine::store::files::temp_pid;
use crate::engine::store::tags::{self, io_error};

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
                proven |= guarded::read_head(&path, tags::MAGIC.len(), Follow::No)
                    .is_ok_and(|head| head == tags::MAGIC);
            }
            Some(CacheFileKind::History) => {
                proven |= guarded::read(&path, tags::MAX_CACHE_FILE, Follow::No)
                    .is_ok_and(|bytes| crate::engine::store::history::is_cache_file(&bytes));
            }
            Some(CacheFileKind::Derived(kind)) => {
                proven |= guarded::read_head(&path, 8, Follow::No)
                    .is_ok_and(|head| blob::has_magic(&kind, &head));
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
    /// A derived structure's cache (`store::blob`: the graph, the search index).
    Derived(BlobKind),
    Temp,
}

fn cache_file_kind(name: &str) -> Option<CacheFileKind> {
    match name {
        TAGS_FILE => Some(CacheFileKind::Tags),
        HISTORY_FILE => Some(CacheFileKind::History),
        _ if temp_pid(name).is_some() => Some(CacheFileKind::Temp),
        _ => blob::ALL
            .into_iter()
            .find(|k| k.file_name == name)
            .map(CacheFileKind::Derived),
    }
}

impl DiskCache {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::model::{FileTags, ParsedFile};
    use crate::engine::store::tags::now_ns;

    fn cache_in(base: &Path) -> DiskCache {
        let repo = base.join("repo");
        fs::create_dir_all(&repo).unwrap();
        DiskCache::under(&base.join("cache"), &repo.canonicalize().unwrap()).unwrap()
    }

    fn parsed(path: &str, text: &str) -> ParsedFile {
        ParsedFile::new(
            path.into(),
            Lang::Python,
            text.len() as u64,
            text.into(),
            FileTags::default(),
        )
    }

    #[test]
    fn only_folders_of_mapscope_files_count_as_owned() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = cache_in(tmp.path());
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
}
