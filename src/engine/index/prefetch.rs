//! The tags queries a build will need, compiled while the walk runs: the walk names each
//! code file's language as it finds it (`during_walk`), and one query compiles at a time on
//! a rayon worker so the walk keeps a thread; the rest compile each on its own job once the
//! walk ends (`walk_done`).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::engine::ingest::lang::{claim_tags_query_prefetch, compiled_tags_query};

/// Compiling the tags queries of the languages a build's walk finds, ahead of their first
/// parse: compiling takes tens of milliseconds per language, and the first parse of a language would otherwise compile it while the other
/// parse threads wait on the same query.
///
/// The walk runs on rayon's pool too, so while it runs one compile job at a time takes the
/// languages in the order found and the other threads walk on; a compile job spawned per
/// language would take every pool thread while the walk's directories waited behind them.
/// Languages still
/// waiting when the walk ends get a job each (`walk_done`), in parallel with the parse.
/// `compiled_tags_query` waits for a compile under way or finds it done.
pub(super) struct QueryPrefetch {
    state: Arc<PrefetchQueue>,
}

#[derive(Default)]
pub(super) struct PrefetchQueue {
    /// Claimed languages not compiling yet, in the order the walk found them.
    waiting: Mutex<VecDeque<crate::engine::base::model::Lang>>,
    /// Whether the walk's one compile job is running (it takes from `waiting` until empty).
    compiling: AtomicBool,
}

impl QueryPrefetch {
    pub(super) fn new() -> QueryPrefetch {
        QueryPrefetch {
            state: Arc::default(),
        }
    }

    /// A file of `lang` found by the walk (on a pool thread): queues its query, unless this
    /// process claimed it before, and starts the compile job if none runs.
    pub(super) fn during_walk(&self, lang: crate::engine::base::model::Lang) {
        // A component's scripts are TS or JS, which its file decides: its first parse compiles.
        if lang.is_component() || !claim_tags_query_prefetch(lang) {
            return;
        }
        self.state.waiting().push_back(lang);
        if !self.state.compiling.swap(true, Ordering::AcqRel) {
            let queue = Arc::clone(&self.state);
            rayon::spawn(move || queue.compile_all());
        }
    }

    /// The walk is over: each language still waiting gets a compile job of its own.
    pub(super) fn walk_done(&self) {
        for lang in std::mem::take(&mut *self.state.waiting()) {
            rayon::spawn(move || compile_ahead(lang));
        }
    }
}

/// Compiles `lang`'s tags query ahead of its first parse. A query that fails to compile
/// fails each file's tags, as without the compile ahead.
pub(super) fn compile_ahead(lang: crate::engine::base::model::Lang) {
    let _ = compiled_tags_query(lang);
}

impl PrefetchQueue {
    pub(super) fn waiting(
        &self,
    ) -> std::sync::MutexGuard<'_, VecDeque<crate::engine::base::model::Lang>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The walk's compile job: compiles what waits until nothing does.
    pub(super) fn compile_all(&self) {
        loop {
            let next = self.waiting().pop_front();
            match next {
                Some(lang) => compile_ahead(lang),
                None => {
                    self.compiling.store(false, Ordering::Release);
                    // A language queued between the empty pop and the store above would
                    // have seen the job running and not started one: take it now.
                    if self.waiting().is_empty() || self.compiling.swap(true, Ordering::AcqRel) {
                        return;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk's compile job takes the languages in the order found and leaves nothing
    /// queued and no job marked running; once the walk ends, what still waits gets a job
    /// each and leaves the queue. (Only the queue is driven here: the process-wide claims
    /// in `lang` belong to the builds other tests run at the same time.)
    #[test]
    fn the_walks_compile_job_drains_its_queue_and_the_walks_end_takes_the_rest() {
        use crate::engine::base::model::Lang;
        let queue = PrefetchQueue::default();
        queue.waiting().extend([Lang::Python, Lang::Go]);
        queue.compiling.store(true, Ordering::Release);
        queue.compile_all();
        assert!(queue.waiting().is_empty());
        assert!(!queue.compiling.load(Ordering::Acquire));
        assert!(compiled_tags_query(Lang::Python).is_ok() && compiled_tags_query(Lang::Go).is_ok());

        let prefetch = QueryPrefetch::new();
        prefetch.state.waiting().extend([Lang::Java, Lang::Ruby]);
        prefetch.walk_done();
        assert!(prefetch.state.waiting().is_empty());
        // The jobs `walk_done` started finish on the pool.
        assert!(compiled_tags_query(Lang::Java).is_ok() && compiled_tags_query(Lang::Ruby).is_ok());
    }
}
