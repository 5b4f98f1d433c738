//! One-shot calls: a command that builds an index, answers once and exits (`mapscope map`,
//! `search`, `stats`). The answer is computed and written while the cache is saved on a
//! side thread (a large repository's tags take tens of milliseconds to write; the user need
//! not wait for that before seeing the output). A one-shot map also frees what only the
//! ranking needed before it fits (the graph, references and imports), and the index is not
//! freed at all: the process exits right after, freeing every file's tags one by one is a
//! tenth of a warm map's CPU, and the system takes the pages back at exit anyway.
//!
//! Threads: the caller's, and one scoped thread that saves the cache.

use crate::engine::base::error::EngineError;
use crate::engine::index::{Index, MapRequest};
use crate::engine::rank::repo_map::RepoMap;

/// What a one-shot call returns: its output, and why the cache could not be saved, if it
/// could not (the output is right either way; the next run is only slower).
pub struct Answered<T> {
    pub output: T,
    pub save_error: Option<String>,
}

impl Index {
    /// Runs `answer` on this index while its cache is saved beside it.
    pub fn answer_saving<T>(&self, answer: impl FnOnce(&Index) -> T) -> Answered<T> {
        beside(|| self.save_cache(), || answer(self))
    }

    /// `mapscope map`: the map for `req`, handed to `show` with the index, while the cache
    /// is saved beside it. Consumes the index and does not free it (see the module header):
    /// only for a process that exits after.
    pub fn map_once_saving<T>(
        mut self,
        req: &MapRequest,
        show: impl FnOnce(&RepoMap, &Index) -> T,
    ) -> Answered<T> {
        let answered = if let Some(write) = self.take_cache_write() {
            // A first run wrote the cache while parsing: only its sync and rename are left,
            // and the index has no references to keep. The graph is encoded now, before
            // `map_once` drops it, and written beside.
            let graph_save = self.take_graph_save();
            let index = &mut self;
            beside(
                move || {
                    write.finish()?;
                    graph_save.map_or(Ok(true), |save| save())
                },
                move || {
                    let map = index.map_once(req);
                    show(&map, index)
                },
            )
        } else if self.cache_pending() {
            // The save reads the graph: the map keeps it.
            self.answer_saving(|index| {
                let (map, _) = index.map(req);
                show(&map, index)
            })
        } else {
            // Nothing to save: the graph and the references can go before the fit.
            let map = self.map_once(req);
            Answered {
                output: show(&map, &self),
                save_error: None,
            }
        };
        std::mem::forget(self);
        answered
    }
}

/// Runs `output` on this thread while `save` runs on a scoped one.
fn beside<T>(
    save: impl FnOnce() -> Result<bool, EngineError> + Send,
    output: impl FnOnce() -> T,
) -> Answered<T> {
    std::thread::scope(|s| {
        let saver = s.spawn(save);
        let output = output();
        let save_error = match saver.join() {
            Ok(Ok(_)) => None,
            Ok(Err(e)) => Some(format!("could not save the cache: {e}")),
            Err(_) => Some("could not save the cache".into()),
        };
        Answered { output, save_error }
    })
}
