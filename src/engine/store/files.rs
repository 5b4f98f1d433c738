//! Atomic writes into a cache directory: a uniquely named temporary file in the same
//! directory, locked (`flock`) while written, synced, then renamed over the target. Two
//! processes saving at once each rename a complete file; the last one wins and readers
//! never see a partial file. A temporary file carries its writer's pid in its name; one
//! whose lock is free and whose writer is gone (a killed run) is removed by the next load
//! or save (`remove_orphaned_temps`). Runs on whichever thread writes.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use crate::engine::base::guarded::{self, Follow};
use crate::engine::store::dir::OWNED_FILES;

/// A temporary file older than this whose lock is free was left by a killed process, even if
/// its writer's pid is in use again (see `remove_orphaned_temps`).
const STALE_TEMP: Duration = Duration::from_mins(10);

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

/// An exclusive lock on `dir/name` (created empty if missing, `dir` too), held until the
/// returned file is dropped or the process ends, however it ends; `None` while another
/// process holds it. With `wait`, blocks until the lock is free instead. A symbolic link
/// in its place is refused, like every file mapscope opens in a cache.
pub fn lock_file(dir: &Path, name: &str, wait: bool) -> std::io::Result<Option<fs::File>> {
    fs::create_dir_all(dir)?;
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let file = options.open(dir.join(name))?;
    if wait {
        file.lock()?;
        return Ok(Some(file));
    }
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Renames the finished temporary file `tmp` over `target`. An empty directory in the way
/// is removed first: `rename` replaces a FIFO or a link there itself, but not a directory,
/// so a cache file replaced by one would be ignored (with a warning) and rebuilt on every
/// run. A directory holding anything is not mapscope's to delete: the error names it.
pub(super) fn rename_over(tmp: &Path, target: &Path) -> std::io::Result<()> {
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
pub(super) fn temp_pid(name: &str) -> Option<u32> {
    if let Some(pid) = name.strip_prefix("history.json.tmp-") {
        return pid.parse().ok();
    }
    let rest = name.strip_suffix(".tmp")?;
    let rest = OWNED_FILES
        .iter()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::store::dir::TAGS_FILE;

    #[test]
    fn a_held_temporary_file_is_kept_and_an_orphan_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let (held, _file) = create_temp(tmp.path(), TAGS_FILE).unwrap();
        // Unlocked, and its writer is gone.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let orphan = tmp.path().join(format!("{TAGS_FILE}.{dead}.1.2.tmp"));
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
}
