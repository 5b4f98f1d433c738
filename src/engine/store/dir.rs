//! One repository's cache directory: where it is (`$MAPSCOPE_CACHE_DIR`, else the platform
//! cache dir + `mapscope/`, then `<name>-<hash>` of the canonical root), refused when it
//! would lie inside the repository (mapscope never writes into the user's tree), and the
//! names of the files mapscope writes there. Pure path logic: nothing here touches a file
//! but to resolve symlinks of a directory's existing ancestors.

use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::xxh3_64;

/// The tag cache (`store::tags`).
pub const TAGS_FILE: &str = "tags.bin";
/// The commit history cache (`store::history`).
pub const HISTORY_FILE: &str = "history.json";
/// The derived caches (`store::blob`).
pub const GRAPH_FILE: &str = "graph.bin";
pub const SEARCH_FILE: &str = "search.bin";
pub const HISTORY_INDEX_FILE: &str = "history-index.bin";
pub const DOCS_FILE: &str = "docs.bin";
/// Held (`store::files::try_lock`) by the one `cache warm` running for this repository.
pub const WARM_LOCK_FILE: &str = "warm.lock";
/// Every file mapscope writes in a repository's cache directory, besides the temporary
/// files it writes them through (`store::files`): `cache clear` removes these and no other.
pub const OWNED_FILES: [&str; 7] = [
    TAGS_FILE,
    HISTORY_FILE,
    GRAPH_FILE,
    SEARCH_FILE,
    HISTORY_INDEX_FILE,
    DOCS_FILE,
    WARM_LOCK_FILE,
];

/// One repository's cache directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiskCache {
    pub(super) dir: PathBuf,
    pub(super) root: PathBuf,
}

/// The directory holding every repository's cache, if the platform has one.
pub fn cache_root() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("MAPSCOPE_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    Some(dirs::cache_dir()?.join("mapscope"))
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

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
