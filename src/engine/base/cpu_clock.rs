//! Deadlines on the calling thread's CPU clock, for the work whose length an input decides
//! (a parse, a tags query, a reference walk). A wall-clock deadline made the result depend on
//! the machine's load: on a busy two-core box a 2,000-line header that parses in 0.2 s of CPU
//! could pass a one-second wall budget, lose its tags, and that truncated result was cached
//! until the file changed. The thread's own CPU time is what the input costs, whatever else
//! the machine runs, so the same file gives the same tags.
//!
//! Pure apart from reading the clock; used on whichever thread does the work (rayon workers,
//! the live service's workers). A deadline belongs to the thread that made it: to carry what
//! is left to another thread, take [`CpuDeadline::left`] and make a new one there.

use std::time::Duration;

/// A point on the calling thread's CPU clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuDeadline {
    at: Duration,
}

impl CpuDeadline {
    /// When this thread has used `budget` more CPU time than now.
    pub fn after(budget: Duration) -> Self {
        CpuDeadline {
            at: thread_cpu_time().saturating_add(budget),
        }
    }

    /// A deadline that has already passed (what a test of the out-of-budget path uses).
    pub fn passed_already() -> Self {
        CpuDeadline { at: Duration::ZERO }
    }

    /// Whether this thread has used its budget.
    pub fn passed(&self) -> bool {
        thread_cpu_time() >= self.at
    }

    /// The budget this thread has left (zero once passed).
    pub fn left(&self) -> Duration {
        self.at.saturating_sub(thread_cpu_time())
    }
}

/// CPU time the calling thread has used. `libc` directly rather than a crate: it is one call
/// the crate already links (the guarded open uses it), and the crates that wrap it add
/// nothing on Linux or macOS.
#[cfg(unix)]
pub fn thread_cpu_time() -> Duration {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid, writable timespec; CLOCK_THREAD_CPUTIME_ID exists on every
    // Unix mapscope builds for (Linux, macOS, the BSDs).
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut now) };
    if rc != 0 {
        return fallback_clock();
    }
    Duration::new(
        u64::try_from(now.tv_sec).unwrap_or(0),
        u32::try_from(now.tv_nsec).unwrap_or(0),
    )
}

#[cfg(not(unix))]
pub fn thread_cpu_time() -> Duration {
    fallback_clock()
}

/// Where no thread clock answers: the process's monotonic time, which bounds the work as
/// the wall clock did.
fn fallback_clock() -> Duration {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(d: Duration) {
        let start = thread_cpu_time();
        while thread_cpu_time().saturating_sub(start) < d {
            std::hint::black_box(0u64.wrapping_add(1));
        }
    }

    #[test]
    fn a_deadline_passes_when_the_thread_has_used_its_budget() {
        let deadline = CpuDeadline::after(Duration::from_millis(20));
        assert!(!deadline.passed());
        assert!(deadline.left() > Duration::ZERO);
        spin(Duration::from_millis(25));
        assert!(deadline.passed());
        assert_eq!(deadline.left(), Duration::ZERO);
        assert!(CpuDeadline::passed_already().passed());
    }

    /// Sleeping uses no CPU: the budget is what the work costs, not how long it waited.
    #[cfg(unix)]
    #[test]
    fn waiting_does_not_use_the_budget() {
        let deadline = CpuDeadline::after(Duration::from_millis(50));
        std::thread::sleep(Duration::from_millis(120));
        assert!(!deadline.passed());
    }
}
