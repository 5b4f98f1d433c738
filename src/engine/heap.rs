//! Giving freed heap memory back to the system. Called on whichever thread runs a one-shot
//! build (`mapscope map`), between phases; nothing here allocates.
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
