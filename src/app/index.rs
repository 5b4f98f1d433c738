//! The index the panes show and its lifecycle: build and refresh requests, progress, the
//! failure that leaves nothing to show, and the files the watcher reported that no published
//! index reflects yet. Builds the progress gauge (`ui::status`) and the empty-repository page
//! (`ui::empty`). Runs on the UI thread; the engine session builds in the background.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use super::App;
use crate::engine::live::session::{EngineRequest, Generation, IndexSnapshot};
use crate::ui::{EmptyView, Level, Pane, ProgressView};

pub(super) struct IndexState {
    pub snapshot: Option<Arc<IndexSnapshot>>,
    /// The last build failed: (code, message).
    pub error: Option<(String, String)>,
    /// The running build's phase, files done and total.
    pub progress: Option<(&'static str, usize, usize)>,
    /// Files the running build's parse set out to read (its gauge's total): some turn out
    /// to be nothing to map (minified, generated, binary), so the code files are fewer.
    read_total: usize,
    /// The focus left the query box because there was nothing to search (`r`/`q` are then
    /// commands): it goes back when an index arrives (an empty directory gained a file).
    pub query_left_for_failure: bool,
    /// The newest build or refresh request; an older index is stale.
    pub build_generation: Generation,
    pub builds_done: u64,
    pub build_started: Instant,
    /// Changed files waiting for a refresh; `None` when none runs.
    refresh: Option<Refresh>,
}

/// Files reported changed on disk that no published index reflects yet.
struct Refresh {
    pending: BTreeSet<String>,
    /// The newest refresh request; its `IndexReady` clears the pending set.
    generation: Generation,
}

impl IndexState {
    pub fn new() -> IndexState {
        IndexState {
            snapshot: None,
            error: None,
            progress: None,
            read_total: 0,
            query_left_for_failure: false,
            build_generation: 0,
            builds_done: 0,
            build_started: Instant::now(),
            refresh: None,
        }
    }

    /// Nothing to show: the index could not be built.
    pub fn failed(&self) -> bool {
        self.snapshot.is_none() && self.error.is_some()
    }

    pub fn pending_changes(&self) -> usize {
        self.refresh.as_ref().map_or(0, |r| r.pending.len())
    }

    pub fn refreshing(&self) -> bool {
        self.refresh.is_some()
    }

    /// A build or a refresh runs (the gauge or the spinner moves).
    pub fn busy(&self) -> bool {
        self.progress.is_some() || self.refresh.is_some()
    }

    /// The refresh that `generation` completes, if any: how many files it re-read.
    fn finish_refresh(&mut self, generation: Generation) -> Option<usize> {
        let r = self.refresh.take_if(|r| generation >= r.generation)?;
        Some(r.pending.len())
    }

    pub fn progress_view(&self, frozen_clock: bool) -> Option<ProgressView<'static>> {
        self.progress.map(|(phase, done, total)| ProgressView {
            phase,
            done,
            total,
            elapsed_ms: if frozen_clock {
                0
            } else {
                self.build_started.elapsed().as_millis() as u64
            },
        })
    }

    /// The one-page screen for a repository that could not be indexed at all.
    pub fn empty_view(&self) -> Option<EmptyView<'_>> {
        if self.snapshot.is_some() {
            return None;
        }
        let (code, reason) = self.error.as_ref()?;
        let supported: Vec<&str> = crate::engine::base::model::Lang::ALL
            .iter()
            .map(|l| l.name())
            .collect();
        Some(EmptyView {
            code,
            reason,
            supported: supported.join(", "),
            skipped: &[],
        })
    }
}

impl App {
    pub(super) fn request_build(&mut self) {
        let g = self.generation();
        self.index.build_generation = g;
        self.index.build_started = Instant::now();
        self.index.progress = Some(("starting", 0, 0));
        self.index.error = None;
        self.engine.send(EngineRequest::Build { generation: g });
        self.pump();
    }

    /// The watcher reported changed files (repo-relative). They are re-read in the
    /// background; the status bar counts them as pending until a new index is published.
    /// `rescan` (ignore rules changed, or the watcher lost events) re-reads every file.
    pub fn on_files_changed(&mut self, paths: BTreeSet<String>, rescan: bool) {
        self.dirty = true;
        let Some(index) = &self.index.snapshot else {
            // No index yet: a first build in flight will see the files; a failed one (e.g.
            // an empty repo that just got its first file) is retried.
            if self.index.error.is_some() && self.index.progress.is_none() {
                self.request_build();
            }
            return;
        };
        let mut changed = paths;
        if rescan {
            changed.extend(index.texts.keys().cloned());
        }
        if changed.is_empty() {
            return;
        }
        let g = self.generation();
        self.index.build_generation = g;
        let refresh = self.index.refresh.get_or_insert_with(|| Refresh {
            pending: BTreeSet::new(),
            generation: g,
        });
        refresh.pending.extend(changed.iter().cloned());
        refresh.generation = g;
        self.engine.send(EngineRequest::Refresh {
            generation: g,
            changed,
        });
        self.pump();
    }

    pub(super) fn on_progress(&mut self, phase: &'static str, done: usize, total: usize) {
        if self.index.snapshot.is_none() || self.index.progress.is_some() {
            self.index.progress = Some((phase, done, total));
            if phase == crate::engine::index::BuildPhase::Parse.name() {
                self.index.read_total = total;
            }
        }
    }

    /// A new index is published: show it, then refit the map and search again on it.
    pub(super) fn on_index_ready(&mut self, generation: Generation) {
        let Some(snap) = self.engine.published.index.load_full() else {
            return;
        };
        let index = &mut self.index;
        if generation < index.build_generation || snap.generation < index.build_generation {
            return;
        }
        index.progress = None;
        index.builds_done += 1;
        let refreshed = index.finish_refresh(generation);
        let first = index.snapshot.is_none();
        index.snapshot = Some(snap.clone());
        if std::mem::take(&mut index.query_left_for_failure) && self.layout.focus == Pane::Hits {
            self.layout.focus = Pane::Query;
        }
        let index = &mut self.index;
        // One file count everywhere: code files, the files whose definitions feed
        // the map (docs are searched but not counted). The gauge counted the files read;
        // those that held nothing to map are said, so the two numbers add up.
        let count = crate::ui::text::count;
        let text = match refreshed {
            Some(n) => format!(
                "re-read {} in {:.0} ms",
                count(n, "changed file", "changed files"),
                snap.build_ms
            ),
            None => {
                let mut text = format!(
                    "indexed {} in {:.0} ms",
                    count(snap.files, "code file", "code files"),
                    snap.build_ms
                );
                let left_out = index.read_total.saturating_sub(snap.files);
                if left_out > 0 {
                    text.push_str(&format!(
                        " ({left_out} of the {} read left out: minified, generated, binary or \
                         too large; `mapscope stats` lists them)",
                        index.read_total
                    ));
                }
                text
            }
        };
        self.set_message(text, Level::Ok);
        if first {
            self.preview.warm_up(&snap.texts);
        } else {
            // Texts may have changed: reload the preview.
            self.reload_preview();
        }
        self.request_map_now();
        self.request_search_now();
        // The references pane answers from the new index too.
        self.refs_on_new_index();
    }

    pub(super) fn on_index_failed(&mut self, code: &str, message: String) {
        self.index.progress = None;
        self.index.refresh = None;
        if self.index.snapshot.is_some() {
            // A refresh failed: the last good index stays on screen.
            self.set_message(format!("{code}: {message}"), Level::Error);
        } else if self.layout.focus == Pane::Query {
            // Nothing to search: single keys (r retries, q quits) are commands.
            self.layout.focus = Pane::Hits;
            self.index.query_left_for_failure = true;
        }
        self.index.error = Some((code.to_string(), message));
    }

    /// The engine failed at `what` (a panic caught on its thread).
    pub(super) fn on_engine_failed(&mut self, what: &str, message: &str) {
        let text = format!("{what} failed: {message}");
        if what == "index" {
            self.index.progress = None;
            self.index.error = Some(("INTERNAL_ERROR".to_string(), text.clone()));
            if self.index.snapshot.is_none() && self.layout.focus == Pane::Query {
                self.layout.focus = Pane::Hits;
                self.index.query_left_for_failure = true;
            }
        }
        self.set_message(text, Level::Error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_refresh_clears_the_pending_files() {
        let mut i = IndexState::new();
        assert_eq!(i.finish_refresh(5), None, "no refresh: a plain build");
        i.refresh = Some(Refresh {
            pending: ["a.rs".to_string(), "b.rs".to_string()].into(),
            generation: 7,
        });
        assert!(i.busy() && i.refreshing());
        assert_eq!(
            i.finish_refresh(6),
            None,
            "an older index leaves them pending"
        );
        assert_eq!(i.pending_changes(), 2);
        assert_eq!(i.finish_refresh(7), Some(2));
        assert!(!i.refreshing());
        assert_eq!(i.pending_changes(), 0);
    }

    #[test]
    fn a_failed_first_build_shows_the_empty_page() {
        let mut i = IndexState::new();
        assert!(i.empty_view().is_none());
        i.error = Some(("REPO_EMPTY".into(), "nothing to map".into()));
        assert!(i.failed());
        let page = i
            .empty_view()
            .map(|e| (e.code.to_string(), e.reason.to_string()));
        assert_eq!(
            page,
            Some(("REPO_EMPTY".to_string(), "nothing to map".to_string()))
        );
    }
}
