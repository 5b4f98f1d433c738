//! The index build's memory policy: when a one-shot build gives freed memory back to the
//! system (every so many parsed files, after the parse), and one malloc arena per pool
//! thread. Called from the build (`build`); the trims run on rayon's workers.

use crate::engine::base::heap::take_arena;

/// A one-shot build gives freed memory back to the system every this many parsed files:
/// each parse tree is freed once its tags are extracted, and without a trim the pages it
/// leaves in the allocator's arenas count in the resident set until the end of the phase.
/// A trim takes well under a millisecond.
pub(super) const TRIM_EVERY: usize = 16;

/// Past this many parsed files, a one-shot build trims every `TRIM_EVERY_LATER` files
/// instead. Each trim hands back pages the next parses fault in again, and a large tree's
/// peak is its tags and graph, not the trees freed between two trims, so fewer trims make
/// large cold maps faster at the same peak (BENCHMARKS.md). The first files keep the short
/// interval: on a small tree the trims are what hold the peak.
pub(super) const TRIM_EVERY_AFTER: usize = 256;

pub(super) const TRIM_EVERY_LATER: usize = 64;

/// Whether a one-shot build trims the heap before parsing its `n`-th file (from 1).
pub(super) fn trims_before_file(n: usize) -> bool {
    let every = if n > TRIM_EVERY_AFTER {
        TRIM_EVERY_LATER
    } else {
        TRIM_EVERY
    };
    n.is_multiple_of(every)
}

/// After the parse, a one-shot build gives freed memory back to the system (around binding
/// and before the fit) only when its code files total at least this many bytes. On a small
/// tree those trims hold the peak down by a few hundred KB at most, and each is serial time
/// at the end of the run (BENCHMARKS.md, "Small trees: the fit's piece memo"). The trims
/// during the parse (`trims_before_file`) stay at every size: they are what hold a small
/// tree's peak.
pub(super) const TRIM_AFTER_PARSE_MIN_BYTES: u64 = 2 << 20;

/// Whether a one-shot build of `code_bytes` of code trims the heap after its parse.
pub(super) fn trims_heap_after_parse(code_bytes: u64) -> bool {
    code_bytes >= TRIM_AFTER_PARSE_MIN_BYTES
}

/// Has each thread of rayon's pool allocate once, now, and waits for all of them. Call it
/// before a build starts its walk.
///
/// Why: glibc ties a thread to a malloc arena at its first allocation, for good: a new
/// arena while fewer than `M_ARENA_MAX` exist (one per pool thread, see `main.rs`), else
/// the first arena it finds unlocked at that moment. A pool thread whose first allocation
/// came during the walk, while the calling thread (which lists the root) allocated too,
/// could land in another's arena, and the whole parse then took turns on that arena's
/// lock. In the CLI, where the only other thread waits here, this gives each pool thread
/// but one a new arena and that one the main thread's (idle while the pool parses);
/// elsewhere (the TUI) the arenas exist already and the pool's threads take them in turn
/// (BENCHMARKS.md, "Each parse thread in its own malloc arena"). Later calls cost one
/// wake-up of the pool; its threads keep their arenas.
pub fn attach_pool_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    rayon::broadcast(|_| take_arena());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::index::{Index, IndexOptions, MapRequest};

    /// The parse trims every 16 files up to the 256th, every 64 after it.
    #[test]
    fn the_parse_trims_less_often_past_its_first_files() {
        let trims: Vec<usize> = (1..=400).filter(|&n| trims_before_file(n)).collect();
        let mut want: Vec<usize> = (1..=16).map(|k| k * TRIM_EVERY).collect();
        want.extend([320, 384]);
        assert_eq!(trims, want);
    }

    /// Only a one-shot build of a small tree skips the heap trims after its parse; a build
    /// that keeps its index (the TUI, the servers) trims at every size.
    #[test]
    fn only_a_small_one_shot_build_skips_the_trims_after_its_parse() {
        assert!(!trims_heap_after_parse(0));
        assert!(!trims_heap_after_parse(TRIM_AFTER_PARSE_MIN_BYTES - 1));
        assert!(trims_heap_after_parse(TRIM_AFTER_PARSE_MIN_BYTES));
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a.py"), "def alpha():\n    return beta()\n").unwrap();
        std::fs::write(tmp.path().join("b.py"), "def beta():\n    return 1\n").unwrap();
        let one_shot = IndexOptions {
            use_cache: false,
            consume_refs: true,
            map_lines_only: true,
            ..IndexOptions::default()
        };
        let mut index = Index::build(tmp.path(), &one_shot).unwrap();
        assert!(!index.trim_heap);
        // The map is the same either way.
        let kept = Index::build(
            tmp.path(),
            &IndexOptions {
                use_cache: false,
                ..IndexOptions::default()
            },
        )
        .unwrap();
        assert!(kept.trim_heap);
        let req = MapRequest::default();
        assert_eq!(index.map_once(&req).text, kept.map(&req).0.text);
    }
}
