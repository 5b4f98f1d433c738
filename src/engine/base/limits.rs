//! A build's budget: a stop flag, a deadline, and limits on the files and bytes its walk
//! finds. The walk checks it per directory and counts each file it keeps; the parse checks
//! it per file; a build over it ends with `EngineError::Stopped` instead of running to the
//! end. It rides in `WalkOptions::budget`; a build without one (the CLI, the TUI) is
//! unbounded.
//!
//! Why: a server indexes trees its clients name (`engine::live::sources`), and one of them
//! may be a whole disk; and a server told to stop must not wait for a build to finish.
//!
//! Checked and counted from whichever threads build (the calling thread, the walk's and the
//! parse's pool threads); stopped from any thread (a signal handler's flag).

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Why a build stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overrun {
    /// Its stop flag was set (the server is stopping).
    Cancelled,
    /// The walk found more files (code and docs) than this.
    Files(usize),
    /// The files the walk found hold more bytes than this.
    Bytes(u64),
    /// It was still running this long after it started.
    Time(Duration),
}

impl Overrun {
    /// The stable code: `BUILD_CANCELLED`, `TREE_TOO_LARGE` or `BUILD_TIMEOUT`.
    pub fn code(self) -> &'static str {
        match self {
            Overrun::Cancelled => "BUILD_CANCELLED",
            Overrun::Files(_) | Overrun::Bytes(_) => "TREE_TOO_LARGE",
            Overrun::Time(_) => "BUILD_TIMEOUT",
        }
    }
}

impl fmt::Display for Overrun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Overrun::Cancelled => write!(f, "the build was cancelled"),
            Overrun::Files(n) => write!(f, "more than {n} files to index"),
            Overrun::Bytes(n) => write!(f, "more than {n} bytes of files to index"),
            Overrun::Time(d) => write!(f, "not indexed within {} s", d.as_secs_f64()),
        }
    }
}

/// One build's budget (see the module header). Shared by `Arc`: the caller keeps a handle
/// to watch its counts or stop it.
pub struct BuildBudget {
    stop: Arc<AtomicBool>,
    started: Instant,
    time: Option<Duration>,
    max_files: usize,
    max_bytes: u64,
    files: AtomicUsize,
    bytes: AtomicU64,
    /// The first reason it ran out; set once.
    over: OnceLock<Overrun>,
}

impl BuildBudget {
    /// A budget that only `stop` ends: no limits, no deadline.
    pub fn stop_only(stop: Arc<AtomicBool>) -> BuildBudget {
        BuildBudget::new(stop, usize::MAX, u64::MAX, None)
    }

    /// A budget of `max_files` files holding `max_bytes` bytes, built within `time` of now;
    /// ended at once when `stop` is set.
    pub fn new(
        stop: Arc<AtomicBool>,
        max_files: usize,
        max_bytes: u64,
        time: Option<Duration>,
    ) -> BuildBudget {
        BuildBudget {
            stop,
            started: Instant::now(),
            time,
            max_files,
            max_bytes,
            files: AtomicUsize::new(0),
            bytes: AtomicU64::new(0),
            over: OnceLock::new(),
        }
    }

    /// Whether the build may go on: false once it is stopped, past its deadline or over a
    /// limit (and from then on).
    pub fn go_on(&self) -> bool {
        if self.over.get().is_some() {
            return false;
        }
        if self.stop.load(Ordering::Relaxed) {
            self.trip(Overrun::Cancelled);
            return false;
        }
        if let Some(time) = self.time.filter(|&t| self.started.elapsed() >= t) {
            self.trip(Overrun::Time(time));
            return false;
        }
        true
    }

    /// Counts one file the walk keeps, of `size` bytes (from its metadata).
    pub fn count(&self, size: u64) {
        let files = self.files.fetch_add(1, Ordering::Relaxed) + 1;
        let bytes = self
            .bytes
            .fetch_add(size, Ordering::Relaxed)
            .saturating_add(size);
        if files > self.max_files {
            self.trip(Overrun::Files(self.max_files));
        } else if bytes > self.max_bytes {
            self.trip(Overrun::Bytes(self.max_bytes));
        }
    }

    /// The files and bytes counted so far.
    pub fn counted(&self) -> (usize, u64) {
        (
            self.files.load(Ordering::Relaxed),
            self.bytes.load(Ordering::Relaxed),
        )
    }

    /// Why the budget ran out, once it has (`EngineError::Stopped` through `?`).
    pub fn check(&self) -> Result<(), Overrun> {
        if self.go_on() {
            return Ok(());
        }
        Err(self.over.get().copied().unwrap_or(Overrun::Cancelled))
    }

    fn trip(&self, why: Overrun) {
        let _ = self.over.set(why);
    }
}

/// Two budgets are equal only if they are the same one: a budget says how long a build may
/// run, not what it builds (`WalkOptions` compares the rest).
impl PartialEq for BuildBudget {
    fn eq(&self, other: &BuildBudget) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for BuildBudget {}

impl fmt::Debug for BuildBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (files, bytes) = self.counted();
        f.debug_struct("BuildBudget")
            .field("files", &files)
            .field("bytes", &bytes)
            .field("over", &self.over.get())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_ends_on_its_first_overrun_and_stays_ended() {
        let stop = Arc::new(AtomicBool::new(false));
        let b = BuildBudget::new(Arc::clone(&stop), 2, 100, None);
        b.count(40);
        b.count(50);
        assert!(b.check().is_ok());
        b.count(1);
        let e = b.check().unwrap_err();
        assert_eq!(e.code(), "TREE_TOO_LARGE");
        assert!(e.to_string().contains("more than 2 files"), "{e}");
        // The first reason stays, whatever comes after.
        stop.store(true, Ordering::Relaxed);
        assert_eq!(b.check().unwrap_err().code(), "TREE_TOO_LARGE");

        let b = BuildBudget::new(Arc::new(AtomicBool::new(false)), 10, 100, None);
        b.count(101);
        assert!(b.check().unwrap_err().to_string().contains("100 bytes"));

        let b = BuildBudget::stop_only(Arc::clone(&stop));
        assert_eq!(b.check().unwrap_err().code(), "BUILD_CANCELLED");

        let b = BuildBudget::new(
            Arc::new(AtomicBool::new(false)),
            10,
            10,
            Some(Duration::ZERO),
        );
        assert_eq!(b.check().unwrap_err().code(), "BUILD_TIMEOUT");
    }

    /// A real build: the walk stops at the limit, and so does the parse when the flag is
    /// set (the budget is shared with the caller, as a server shares its stop flag).
    #[test]
    fn a_build_over_its_budget_fails_with_the_reason() {
        use crate::engine::index::{Index, IndexOptions};
        let dir = tempfile::tempdir().unwrap();
        for i in 0..20 {
            let text = format!("def f{i}():\n    return {i}\n");
            std::fs::write(dir.path().join(format!("m{i}.py")), text).unwrap();
        }
        let opts = |budget: BuildBudget| {
            let mut opts = IndexOptions::default();
            opts.walk.budget = Some(Arc::new(budget));
            opts
        };
        let stop = Arc::new(AtomicBool::new(false));
        let roomy = opts(BuildBudget::new(Arc::clone(&stop), 20, 1 << 20, None));
        assert_eq!(Index::build(dir.path(), &roomy).unwrap().files.len(), 20);
        let tight = opts(BuildBudget::new(Arc::clone(&stop), 19, 1 << 20, None));
        let e = Index::build(dir.path(), &tight).err().unwrap();
        assert_eq!(e.code(), "TREE_TOO_LARGE", "{e}");
        stop.store(true, Ordering::Relaxed);
        let stopped = opts(BuildBudget::stop_only(stop));
        let e = Index::build(dir.path(), &stopped).err().unwrap();
        assert_eq!(e.code(), "BUILD_CANCELLED", "{e}");
    }
}
