//! Giving freed heap memory back to the system, and tying a thread to its malloc arena.
//! Called on whichever thread runs a build (`mapscope map`'s main thread, the TUI's engine
//! worker) between phases, and on each pool thread before a build (`take_arena`); nothing
//! here allocates but the one block `take_arena` allocates and frees.
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

/// Ties the calling thread to its malloc arena now: glibc does it at a thread's first
/// allocation, for good. `index::attach_pool_arenas` calls this on every pool thread before
/// a build's walk; its doc says why.
pub fn take_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: a block from malloc, freed once, used for nothing else.
    unsafe {
        libc::free(libc::malloc(1));
    }
}
