//! The one way mapscope opens a file to read it: sources, docs, ignore files, git metadata,
//! `go.mod`, the config file and the caches all come through `open`/`read` here.
//!
//! What it guarantees, whatever the path turns out to be:
//! - only a regular file is read: a FIFO, socket, device or directory is refused before it
//!   is opened (its type from `lstat`), and again after (`fstat` on the open descriptor), so
//!   a file swapped for a FIFO in between cannot block: the open itself is non-blocking
//!   (`O_NONBLOCK`), there is no check-then-open race;
//! - with `Follow::No` a symbolic link is refused (`O_NOFOLLOW`), so a committed
//!   `.gitignore -> /etc/passwd` or `-> /dev/zero` is never read (git refuses symlinked
//!   `.gitignore` files since 2.32 for the same reason);
//! - at most `limit` bytes are read: a file over it (by size, or because it grows while it
//!   is read) is refused, so `/dev/zero`-like content cannot eat memory.
//!
//! Pure functions, called from any thread.

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// Whether a symbolic link as the last component of the path is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Follow {
    /// Refused: repository files (sources, ignore files, git metadata) and cache files.
    No,
    /// Followed, to a regular file only: the user's own config file, which dotfile managers
    /// often link.
    Yes,
}

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("not found")]
    NotFound,
    #[error("a symbolic link (not followed)")]
    Symlink,
    #[error("not a regular file (a {0})")]
    NotRegular(&'static str),
    #[error("larger than {0} bytes")]
    TooLarge(u64),
    #[error("{0}")]
    Io(#[source] io::Error),
}

impl OpenError {
    /// A missing file is the ordinary case for optional files (no `.gitignore` here).
    pub fn is_not_found(&self) -> bool {
        matches!(self, OpenError::NotFound)
    }
}

impl From<io::Error> for OpenError {
    fn from(e: io::Error) -> OpenError {
        match e.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => OpenError::NotFound,
            _ if is_symlink_refusal(&e) => OpenError::Symlink,
            _ => OpenError::Io(e),
        }
    }
}

/// `O_NOFOLLOW` on a symlink fails with `ELOOP`.
fn is_symlink_refusal(e: &io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ELOOP)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// What kind of non-regular file `meta` describes, for messages.
fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "directory";
    }
    if t.is_symlink() {
        return "symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_socket() {
            return "socket";
        }
        if t.is_char_device() {
            return "character device";
        }
        if t.is_block_device() {
            return "block device";
        }
    }
    "special file"
}

/// Opens `path` for reading if it is a regular file (see the module doc), with its metadata
/// from the open descriptor.
pub fn open(path: &Path, follow: Follow) -> Result<(File, Metadata), OpenError> {
    // Refuse what is visibly not a regular file before opening it: opening some devices
    // has side effects even without a read.
    let before = match follow {
        Follow::No => fs::symlink_metadata(path)?,
        Follow::Yes => fs::metadata(path)?,
    };
    if before.file_type().is_symlink() {
        return Err(OpenError::Symlink);
    }
    if !before.is_file() {
        return Err(OpenError::NotRegular(kind_of(&before)));
    }
    let file = open_nonblocking(path, follow)?;
    // The descriptor's own type: the path may have been swapped since the check above.
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(OpenError::NotRegular(kind_of(&meta)));
    }
    Ok((file, meta))
}

#[cfg(unix)]
fn open_nonblocking(path: &Path, follow: Follow) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC | libc::O_NOCTTY;
    if follow == Follow::No {
        flags |= libc::O_NOFOLLOW;
    }
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path, _follow: Follow) -> io::Result<File> {
    File::open(path)
}

/// The bytes of the regular file at `path`, at most `limit` of them (see the module doc).
pub fn read(path: &Path, limit: u64, follow: Follow) -> Result<Vec<u8>, OpenError> {
    let (file, meta) = open(path, follow)?;
    if meta.len() > limit {
        return Err(OpenError::TooLarge(limit));
    }
    let capacity = usize::try_from(meta.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity.saturating_add(1));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(OpenError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(OpenError::TooLarge(limit));
    }
    Ok(bytes)
}

/// The first `n` bytes (or fewer) of the regular file at `path`: to check a magic number
/// without reading the whole file.
pub fn read_head(path: &Path, n: usize, follow: Follow) -> Result<Vec<u8>, OpenError> {
    let (file, _) = open(path, follow)?;
    let mut bytes = Vec::with_capacity(n);
    file.take(n as u64)
        .read_to_end(&mut bytes)
        .map_err(OpenError::Io)?;
    Ok(bytes)
}

/// A UTF-8 text file the user named on the command line (a dataset, a query list): links
/// followed, regular files only, at most `limit` bytes; refusals as `io::Error`s for the
/// callers' `anyhow` context.
pub fn read_user_text(path: &Path, limit: u64) -> io::Result<String> {
    let bytes = read(path, limit, Follow::Yes).map_err(|e| match e {
        OpenError::Io(e) => e,
        OpenError::NotFound => io::Error::from(io::ErrorKind::NotFound),
        other => io::Error::other(other.to_string()),
    })?;
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::time::{Duration, Instant};

    fn mkfifo(path: &Path) {
        let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
            .expect("a temporary path has no NUL byte");
        // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }

    #[test]
    fn regular_files_are_read_up_to_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a");
        fs::write(&f, "hello").unwrap();
        assert_eq!(read(&f, 5, Follow::No).unwrap(), b"hello");
        assert!(matches!(
            read(&f, 4, Follow::No),
            Err(OpenError::TooLarge(4))
        ));
        assert_eq!(read_head(&f, 2, Follow::No).unwrap(), b"he");
        assert!(read(&dir.path().join("missing"), 5, Follow::No)
            .unwrap_err()
            .is_not_found());
    }

    #[test]
    fn fifos_devices_directories_and_symlinks_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let to_zero = dir.path().join("zero");
        symlink("/dev/zero", &to_zero).unwrap();
        let to_fifo = dir.path().join("to-fifo");
        symlink(&fifo, &to_fifo).unwrap();
        let real = dir.path().join("real");
        fs::write(&real, "x").unwrap();
        let to_real = dir.path().join("to-real");
        symlink(&real, &to_real).unwrap();
        let t = Instant::now();
        assert!(matches!(
            read(&fifo, 10, Follow::No),
            Err(OpenError::NotRegular("FIFO"))
        ));
        assert!(matches!(
            read(&to_fifo, 10, Follow::Yes),
            Err(OpenError::NotRegular("FIFO"))
        ));
        assert!(matches!(
            read(&to_zero, 10, Follow::No),
            Err(OpenError::Symlink)
        ));
        assert!(matches!(
            read(&to_zero, 10, Follow::Yes),
            Err(OpenError::NotRegular("character device"))
        ));
        assert!(matches!(
            read(Path::new("/dev/zero"), 10, Follow::No),
            Err(OpenError::NotRegular(_))
        ));
        assert!(matches!(
            read(dir.path(), 10, Follow::No),
            Err(OpenError::NotRegular("directory"))
        ));
        assert!(matches!(
            read(&to_real, 10, Follow::No),
            Err(OpenError::Symlink)
        ));
        assert_eq!(read(&to_real, 10, Follow::Yes).unwrap(), b"x");
        assert!(t.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn the_open_itself_never_blocks_on_a_fifo() {
        // The race the pre-check cannot close: the open of a FIFO, with no writer, returns.
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        mkfifo(&fifo);
        let file = open_nonblocking(&fifo, Follow::No).unwrap();
        assert!(!file.metadata().unwrap().is_file());
    }
}
