//! The `mapscope` binary: sets the allocators, then hands over to the CLI.

/// mimalloc for Rust allocations and, below, for tree-sitter's C allocations: parsing is
/// allocation-heavy (glibc's malloc/free were ~16% of a cold index in `perf`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_e` values from mimalloc v2's `mimalloc.h` (the version libmimalloc-sys builds
/// by default; its Rust bindings do not name these two).
const MI_OPTION_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() {
    // Give freed memory back at once and commit arenas lazily: peak RSS is one of our
    // targets, and with mimalloc's defaults a cold index peaked ~35% higher than with glibc
    // (with these, ~15% lower, and still ~8% less CPU).
    // SAFETY: plain option setters, called before any other thread exists.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0);
    }
    // SAFETY: called first, before any tree-sitter object exists, so nothing allocated with
    // one allocator is ever freed by the other; the mimalloc functions are thread-safe.
    unsafe {
        tree_sitter::set_allocator(
            Some(libmimalloc_sys::mi_malloc),
            Some(libmimalloc_sys::mi_calloc),
            Some(libmimalloc_sys::mi_realloc),
            Some(libmimalloc_sys::mi_free),
        );
    }
    std::process::exit(mapscope::cli::main());
}
