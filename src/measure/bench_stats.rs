//! Summary statistics and CPU clocks shared by the `bench` subcommands (`bench`, `bench
//! --live`, `bench --search`, `bench --parse-floor`, the typing bench). Any thread.

/// The median of a sample (the upper one of an even sample; 0 when empty). Benchmarks on a
/// noisy machine quote medians, not means.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// CPU time of the calling thread in milliseconds (`CLOCK_THREAD_CPUTIME_ID`).
pub fn thread_cpu_ms() -> Option<f64> {
    cpu_ms(CpuClock::Thread)
}

/// CPU time of the whole process (every thread) in milliseconds (`CLOCK_PROCESS_CPUTIME_ID`):
/// what a phase that fans out on rayon costs, whatever else runs on the machine.
pub fn process_cpu_ms() -> Option<f64> {
    cpu_ms(CpuClock::Process)
}

enum CpuClock {
    Thread,
    Process,
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn cpu_ms(clock: CpuClock) -> Option<f64> {
    let id = match clock {
        CpuClock::Thread => libc::CLOCK_THREAD_CPUTIME_ID,
        CpuClock::Process => libc::CLOCK_PROCESS_CPUTIME_ID,
    };
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes into it.
    let r = unsafe { libc::clock_gettime(id, &raw mut ts) };
    (r == 0).then(|| ts.tv_sec as f64 * 1000.0 + ts.tv_nsec as f64 / 1e6)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn cpu_ms(_clock: CpuClock) -> Option<f64> {
    None
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_even_and_empty_samples() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 3.0);
        assert_eq!(median(&[]), 0.0);
    }
}
