//! Giving freed heap memory back to the system, and giving rayon's pool threads their malloc
//! arenas before a build's other threads exist. Called on whichever thread runs a build
//! (`mapscope map`'s main thread, the TUI's engine worker), between phases; nothing here
//! allocates but the one block each pool thread allocates and frees.
//!
//! Why: glibc keeps freed small blocks in its arenas, so memory a phase is done with still
//! counts in the process's resident set while the next phase allocates its own. A map-only
//! run frees the references once the graph is bound and the graph once the map is ranked;
//! trimming then lets the next phase's peak not stack on the previous one's.

/// Returns the free pages of every malloc arena to the system (`malloc_trim(0)`). A no-op
/// where the allocator is not glibc's.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory the allocator already owns as free; it is
    // thread-safe (takes each arena's lock).
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Has each thread of rayon's pool allocate once, now, and waits for all of them. Call it
/// before a build starts its walk.
///
/// Why: glibc ties a thread to a malloc arena at its first allocation, for good: a new arena
/// while fewer than `M_ARENA_MAX` exist (one per pool thread, see `main.rs`), else the
/// first arena it finds unlocked at that moment. The pool's threads used to allocate first
/// during the walk, while the walker's threads allocated too, and two of them could land in
/// the same arena; the whole parse then took turns on that arena's lock (in 2 of 10 cold
/// javapoet maps, ~200 waits each). In the CLI, where the only other thread waits here,
/// this gives each pool thread but one a new arena and that one the main thread's (idle
/// while the pool parses); elsewhere (the TUI) the arenas exist already and the pool's
/// threads take them in turn. Measured against the build before it, 20 interleaved pairs
/// of cold `map`s: wall −4% on javapoet and `tr1`, −2 to −3% on guzzle and ripgrep
/// (BENCHMARKS.md, "Each parse thread in its own malloc arena"). Later calls cost one
/// wake-up of the pool; its threads keep their arenas.
pub fn attach_pool_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    rayon::broadcast(|_| {
        // SAFETY: a block from malloc, freed once, used for nothing else.
        unsafe { libc::free(libc::malloc(1)) }
    });
}
