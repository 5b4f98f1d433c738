//! The `mapscope` binary: process-wide settings, then the CLI.

fn main() {
    tune_malloc();
    std::process::exit(mapscope::cli::main());
}

/// glibc tuning for peak RSS, both measured on `mapscope map REPO --no-cache`:
/// - Each thread that allocates gets its own arena (up to 8 per core), and freed memory
///   scattered over them keeps peak RSS up. The work is parallel over rayon's pool, one
///   thread per core: one arena per pool thread (two on a 2-core machine) measured ~2.5 MB
///   (6%) less peak RSS on vite than glibc's default, at equal speed. Fewer arenas than pool
///   threads make them take turns on an arena's lock. With `RAYON_NUM_THREADS=4` on the
///   2-core machine, four pool threads in two arenas waited on it 14–126 times per cold
///   javapoet map and in four arenas 1–4 times (CPU −4 to −6%, wall within noise, javapoet's
///   peak +2 MB); with four real cores they would stall the parse itself. Each pool thread
///   gets its own arena from `engine::heap::attach_pool_arenas`.
/// - A fixed mmap threshold (glibc's initial 128 KiB): by default glibc raises it to the size
///   of any mmapped block that is freed, so after one big file's parse tree (tree-sitter's
///   node arrays reach MBs) later big blocks land in the arenas and stay as fragmentation.
///   Fixed, they are always returned to the system: prometheus 52 → 46 MB, mypy 49 → 47 MB,
///   vite 28.8 → 27.5 MB, at equal speed.
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

/// The threads rayon's global pool will have, as rayon counts them by default:
/// `RAYON_NUM_THREADS` when it is a positive number, else the available parallelism.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn pool_threads() -> libc::c_int {
    let threads = std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .or_else(|| {
            std::thread::available_parallelism()
                .ok()
                .map(std::num::NonZero::get)
        })
        .unwrap_or(1);
    libc::c_int::try_from(threads).unwrap_or(libc::c_int::MAX)
}
