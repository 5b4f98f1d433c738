//! Giving freed heap memory back to the system, tying a thread to its malloc arena, and
//! tree-sitter's allocator. Called on whichever thread runs a build (`mapscope map`'s main
//! thread, the TUI's engine worker) between phases, and on each pool thread before a build
//! (`take_arena`); the allocator runs on whichever thread tree-sitter allocates on (query
//! compiles and parses, on the pool). Nothing here allocates through Rust's allocator but
//! `take_arena`'s one block and the allocator's list of its live blocks.
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

/// Makes tree-sitter's `calloc`, `realloc` and `free` those of `parser_alloc` (its `malloc`
/// stays its own: glibc's, stopping the process when memory runs out). Process-wide: the
/// binary calls it first thing in `main`, before any parser or query exists, as tree-sitter
/// requires (a block allocated before it would be freed by the wrong function). Without it
/// (the library's tests) tree-sitter allocates as it always did. A no-op where the
/// allocator is not glibc's on Linux.
pub fn install_parser_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called once, by `main`, before any tree-sitter object exists (its only
    // requirement); the three functions keep malloc's contract for every block they get.
    unsafe {
        tree_sitter::set_allocator(
            None,
            Some(parser_alloc::calloc),
            Some(parser_alloc::realloc),
            Some(parser_alloc::free),
        );
    }
}

/// tree-sitter's allocator: glibc's, except that a zeroed block of `BIG_BLOCK` or more gets a
/// mapping of its own, in whole huge pages, advised onto transparent huge pages and unmapped
/// when freed.
///
/// Why: compiling a tags query builds a table of every parse state's predecessors with
/// `calloc` (`state_count × 257 × 2` bytes: MBs for C++ and PHP), then writes to nearly all
/// of it. glibc maps such a block fresh, so each of its 4 KiB pages costs a page fault, and
/// in a VM a fault costs microseconds: on a small C++ tree most of a cold map's faults are
/// that table's. On 2 MiB pages it takes a few (BENCHMARKS.md, "tree-sitter's big tables on
/// huge pages"). A block is rounded up to whole huge pages, since PHP's tables are just
/// over one; the rounding is resident only while a query compiles.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod parser_alloc {
    use std::ffi::c_void;
    use std::sync::{Mutex, MutexGuard};

    /// A transparent huge page on x86-64 and on aarch64 with 4 KiB pages.
    pub(super) const HUGE_PAGE: usize = 2 << 20;
    /// Where a block starts in its mapping: this far past a huge-page boundary, so that
    /// `free` tells glibc's blocks from ours by one remainder before looking at the list.
    /// A multiple of 16 keeps the alignment malloc promises.
    pub(super) const OFFSET: usize = 64;
    /// The smallest zeroed block that gets a mapping of its own. Java's, Ruby's and
    /// JavaScript's tables are 0.5–1 MiB, and on a huge page their compiles end sooner, for
    /// a little more peak while a compile runs. Under 512 KiB a block would leave most of its
    /// page unused.
    pub(super) const BIG_BLOCK: usize = 512 << 10;

    /// (block address, mapping length) of each live block of ours: one per query being
    /// compiled, and the rare zeroed parse array of `BIG_BLOCK` or more.
    static BLOCKS: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

    fn blocks() -> MutexGuard<'static, Vec<(usize, usize)>> {
        // A panic cannot happen while the list is held; a poisoned lock would still hold a
        // valid list.
        BLOCKS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The mapping length of `p` if it is a live block of ours; `forget` drops it from the
    /// list.
    pub(super) fn ours(p: *mut c_void, forget: bool) -> Option<usize> {
        let address = p as usize;
        if address % HUGE_PAGE != OFFSET {
            return None;
        }
        let mut blocks = blocks();
        let at = blocks.iter().position(|&(block, _)| block == address)?;
        let len = blocks[at].1;
        if forget {
            blocks.swap_remove(at);
        }
        Some(len)
    }

    /// A zeroed block of `size` bytes at `OFFSET` past a huge-page boundary, in a mapping of
    /// its own advised onto huge pages; null if the system has no room for it.
    fn map_block(size: usize) -> *mut c_void {
        let Some(len) = size
            .checked_add(OFFSET)
            .and_then(|n| n.checked_next_multiple_of(HUGE_PAGE))
        else {
            return std::ptr::null_mut();
        };
        let Some(reserve) = len.checked_add(HUGE_PAGE) else {
            return std::ptr::null_mut();
        };
        // SAFETY: a fresh anonymous mapping; only the parts of it this function mapped are
        // unmapped or advised.
        unsafe {
            let raw = libc::mmap(
                std::ptr::null_mut(),
                reserve,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if raw == libc::MAP_FAILED {
                return std::ptr::null_mut();
            }
            // Keep the huge-page-aligned `len` bytes of the reservation, give back the rest.
            let raw = raw as usize;
            let start = raw.next_multiple_of(HUGE_PAGE);
            if start > raw {
                libc::munmap(raw as *mut c_void, start - raw);
            }
            let tail = raw + reserve - (start + len);
            if tail > 0 {
                libc::munmap((start + len) as *mut c_void, tail);
            }
            // Advice only: without transparent huge pages the block still works, on small
            // pages.
            libc::madvise(start as *mut c_void, len, libc::MADV_HUGEPAGE);
            blocks().push((start + OFFSET, len));
            (start + OFFSET) as *mut c_void
        }
    }

    /// tree-sitter's own allocator stops the process when memory runs out (it has no way
    /// to go on without the block); this does the same, through Rust's own out-of-memory
    /// path, which says in one line how many bytes could not be had.
    fn out_of_memory(size: usize) -> ! {
        let layout = std::alloc::Layout::from_size_align(size, 16)
            .unwrap_or_else(|_| std::alloc::Layout::new::<u8>());
        std::alloc::handle_alloc_error(layout)
    }

    pub(super) unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
        let total = count.saturating_mul(size);
        let block = if total >= BIG_BLOCK {
            map_block(total)
        } else {
            std::ptr::null_mut()
        };
        let block = if block.is_null() {
            // SAFETY: plain calloc.
            unsafe { libc::calloc(count, size) }
        } else {
            block
        };
        if count > 0 && block.is_null() {
            out_of_memory(total);
        }
        block
    }

    pub(super) unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
        let moved = match ours(p, false) {
            // SAFETY: `p` is glibc's (or null).
            None => unsafe { libc::realloc(p, size) },
            Some(len) => {
                // SAFETY: plain malloc; `p` holds `len - OFFSET` bytes, `fresh` `size`.
                unsafe {
                    let fresh = libc::malloc(size.max(1));
                    if !fresh.is_null() {
                        std::ptr::copy_nonoverlapping(
                            p as *const u8,
                            fresh.cast::<u8>(),
                            (len - OFFSET).min(size),
                        );
                        free(p);
                    }
                    fresh
                }
            }
        };
        if size > 0 && moved.is_null() {
            out_of_memory(size);
        }
        moved
    }

    pub(super) unsafe extern "C" fn free(p: *mut c_void) {
        match ours(p, true) {
            // SAFETY: a mapping `map_block` made, of this length, at `p - OFFSET`.
            Some(len) => unsafe {
                libc::munmap((p as usize - OFFSET) as *mut c_void, len);
            },
            // SAFETY: `p` is glibc's (or null).
            None => unsafe { libc::free(p) },
        }
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::parser_alloc::{calloc, free, ours, realloc, BIG_BLOCK, HUGE_PAGE, OFFSET};

    /// The tests share the list of live blocks (one test's freed address can be the next
    /// mapping of another), so they take turns.
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn is_ours(p: *mut std::ffi::c_void) -> bool {
        p as usize % HUGE_PAGE == OFFSET
    }

    #[test]
    fn big_zeroed_blocks_are_mapped_on_a_huge_page_boundary_and_small_ones_are_glibcs() {
        let _turn = ONE_AT_A_TIME.lock();
        // SAFETY: every block is used within its size and freed once, by the same allocator.
        unsafe {
            let big = calloc(HUGE_PAGE / 2 + 1, 2).cast::<u8>();
            assert!(is_ours(big.cast()));
            assert_eq!(ours(big.cast(), false), Some(2 * HUGE_PAGE));
            let bytes = std::slice::from_raw_parts_mut(big, HUGE_PAGE + 2);
            assert!(bytes.iter().all(|&b| b == 0));
            bytes[HUGE_PAGE + 1] = 7;
            free(big.cast());

            let small = calloc(BIG_BLOCK / 8 - 1, 8);
            assert!(!small.is_null());
            assert_eq!(ours(small, false), None);
            free(small);
        }
    }

    #[test]
    fn a_big_block_keeps_its_contents_when_reallocated_either_way() {
        let _turn = ONE_AT_A_TIME.lock();
        // SAFETY: as above; `realloc` takes each block over.
        unsafe {
            let big = calloc(HUGE_PAGE, 1).cast::<u8>();
            assert!(is_ours(big.cast()));
            for i in 0..64 {
                *big.add(i) = i as u8;
            }
            *big.add(HUGE_PAGE - 1) = 9;
            // Smaller: the first 64 bytes come along, into a glibc block.
            let smaller = realloc(big.cast(), 64).cast::<u8>();
            assert_eq!(ours(smaller.cast(), false), None);
            assert_eq!(
                std::slice::from_raw_parts(smaller, 64),
                (0..64).collect::<Vec<u8>>()
            );
            free(smaller.cast());

            let big = calloc(HUGE_PAGE, 1).cast::<u8>();
            *big.add(HUGE_PAGE - 1) = 9;
            let larger = realloc(big.cast(), 3 * HUGE_PAGE).cast::<u8>();
            assert_eq!(*larger.add(HUGE_PAGE - 1), 9);
            free(larger.cast());
        }
    }

    #[test]
    fn a_freed_block_is_forgotten_and_glibc_blocks_pass_through() {
        let _turn = ONE_AT_A_TIME.lock();
        // SAFETY: as above.
        unsafe {
            let block = calloc(BIG_BLOCK, 1);
            assert_eq!(ours(block, false), Some(HUGE_PAGE));
            free(block);
            // Whatever a later mapping puts at that address is not taken for this block.
            assert_eq!(ours(block, false), None);
            let grown = realloc(std::ptr::null_mut(), 100);
            assert_eq!(ours(grown, false), None);
            let grown = realloc(grown, 100_000).cast::<u8>();
            assert!(!grown.is_null());
            *grown.add(99_999) = 1;
            free(grown.cast());
            free(std::ptr::null_mut());
        }
    }
}
