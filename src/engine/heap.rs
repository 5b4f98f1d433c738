//! Giving memory a one-shot build (`mapscope map`) is done with back to the system: freed
//! heap pages, and the executable's pages the parse phase touched. Called on whichever
//! thread runs the build, between phases.
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

/// Drops this process's resident pages of its own executable's read-only mappings (code,
/// read-only data): they are clean copies of the file, so the kernel reads them back from
/// the page cache on the next touch. Called once a one-shot build's parse phase is done:
/// the parser's code and grammar tables (and the 64 KiB the kernel maps around every page
/// it faults in) would otherwise count in the resident set until exit. Mappings holding any
/// private copy (the relocated read-only data) are left alone. Best effort: no-op off Linux
/// or when `/proc` is unreadable.
pub fn release_executable_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let Ok(exe) = std::fs::read_link("/proc/self/exe") else {
            return;
        };
        let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
            return;
        };
        let exe = exe.to_string_lossy();
        let mut range: Option<(usize, usize)> = None;
        for line in smaps.lines() {
            let mut parts = line.split_whitespace();
            let first = parts.next().unwrap_or("");
            if let Some((a, b)) = first.split_once('-') {
                // A mapping's header: "start-end perms offset dev inode path".
                let perms = parts.next().unwrap_or("");
                let path = parts.nth(3).unwrap_or("");
                let parsed = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16));
                range = match parsed {
                    (Ok(start), Ok(end)) if !perms.contains('w') && path == exe => {
                        Some((start, end))
                    }
                    _ => None,
                };
            } else if first == "Anonymous:" {
                let anon = parts.next().unwrap_or("1");
                if let (Some((start, end)), "0") = (range.take(), anon) {
                    // SAFETY: the range is a whole read-only, file-backed mapping of our own
                    // executable with no private pages; dropping its pages only makes the
                    // next access fault them back in from the same file.
                    unsafe {
                        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
                    }
                }
            }
        }
    }
}
