//! The `mapscope` binary: process-wide settings, then the CLI.

fn main() {
    tune_malloc();
    // Before anything can make a parser or compile a query.
    mapscope::engine::base::heap::install_parser_allocator();
    std::process::exit(mapscope::cli::main());
}

/// glibc tuning for peak RSS, both measured on `mapscope map REPO --no-cache`:
/// - Each thread that allocates gets its own arena (up to 8 per core), and freed memory
///   scattered over them keeps peak RSS up. The work is parallel over rayon's pool, one
///   thread per core: one arena per pool thread keeps the peak lower than glibc's default,
///   at equal speed (BENCHMARKS.md, "Memory (peak RSS)"). Fewer arenas than pool threads
///   make them take turns on an arena's lock, which on real cores would stall the parse
///   itself. Each pool thread gets its own arena from
///   `engine::index::memory::attach_pool_arenas`.
/// - A fixed mmap threshold (glibc's initial 128 KiB): by default glibc raises it to the size
///   of any mmapped block that is freed, so after one big file's parse tree (tree-sitter's
///   node arrays reach MBs) later big blocks land in the arenas and stay as fragmentation.
///   Fixed, they are always returned to the system: a lower peak at equal speed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune_malloc() {
    // SAFETY: mallopt only adjusts allocator tuning; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, pool_threads().max(2));
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_malloc() {}

/// At least the threads rayon's global pool will have: `RAYON_NUM_THREADS` when it is a
/// positive number, else the CPUs this process may run on. Rayon's own default (std's
/// `available_parallelism`) is at most that: it also applies the cgroup's CPU quota, which
/// it finds by reading `/proc/self/cgroup` and `/proc/self/mountinfo` at every start; the
/// affinity mask is one system call. Under a quota this allows more arenas than
/// pool threads, which costs nothing until more threads allocate at once.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn pool_threads() -> libc::c_int {
    if let Some(n) = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<libc::c_int>().ok())
        .filter(|&n| n > 0)
    {
        return n;
    }
    // SAFETY: `set` is a plain bit set, zeroed, and sized for the call.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &raw mut set) == 0 {
            libc::CPU_COUNT(&set)
        } else {
            1
        }
    }
}
