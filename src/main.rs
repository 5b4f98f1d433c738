//! The `mapscope` binary: process-wide settings, then the CLI.

fn main() {
    limit_malloc_arenas();
    std::process::exit(mapscope::cli::main());
}

/// glibc gives each thread that allocates its own arena (up to 8 per core), and freed
/// memory scattered over them keeps peak RSS up. The work is parallel over a handful of
/// rayon threads; two arenas measured ~2.5 MB (6%) less peak RSS on vite at equal speed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn limit_malloc_arenas() {
    // SAFETY: mallopt only adjusts allocator tuning; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_malloc_arenas() {}
