//! The progress line of a long CLI build: once a command has run for `DELAY` and stderr is a
//! terminal, one line on stderr, redrawn in place (`mapscope: indexing: parsing 812/1930
//! files · 3.4 s`), and erased when the work ends, so the output and any error line after it
//! are as without it. Nothing when stderr is not a terminal (a pipe, a file, CI): scripts
//! read the same bytes as ever. The work runs on the calling (main) thread; a scoped
//! `mapscope-progress` thread redraws the line from what the work last reported.

use std::io::{IsTerminal, Write};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::engine::index::BuildProgress;

/// How long a command runs before its progress line appears: a warm map or search ends
/// well within it and prints nothing extra.
const DELAY: Duration = Duration::from_secs(1);
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(200);

/// When the command started (the first report, or `started`).
static START: OnceLock<Instant> = OnceLock::new();

/// Marks the command's start (`cli::main`): the delay counts from here, over every step.
pub(super) fn started() {
    START.get_or_init(Instant::now);
}

/// What the work reported last: a phase, and files done of total (0: no count).
#[derive(Debug, Clone, Copy)]
struct Status {
    phase: &'static str,
    done: usize,
    total: usize,
}

/// Where the work reports (shared with the redrawing thread).
pub(super) struct Progress {
    status: Mutex<Status>,
}

impl Progress {
    /// An index build's report.
    pub fn build(&self, p: BuildProgress) {
        self.set(p.phase.name(), p.done, p.total);
    }

    /// A step without a count (`building the search index`).
    pub fn step(&self, phase: &'static str) {
        self.set(phase, 0, 0);
    }

    fn set(&self, phase: &'static str, done: usize, total: usize) {
        if let Ok(mut s) = self.status.lock() {
            *s = Status { phase, done, total };
        }
    }
}

/// Runs `work`, drawing the progress line on stderr while it takes longer than `DELAY`
/// (counted from the command's start) when stderr is a terminal.
pub(super) fn with_progress<T>(work: impl FnOnce(&Progress) -> T) -> T {
    let progress = Progress {
        status: Mutex::new(Status {
            phase: "starting",
            done: 0,
            total: 0,
        }),
    };
    if !std::io::stderr().is_terminal() {
        return work(&progress);
    }
    let start = *START.get_or_init(Instant::now);
    let (stop_tx, stop) = crossbeam_channel::bounded::<()>(0);
    std::thread::scope(|s| {
        let progress = &progress;
        let drawer = std::thread::Builder::new()
            .name("mapscope-progress".into())
            .spawn_scoped(s, move || {
                let appear = (start + DELAY).saturating_duration_since(Instant::now());
                // Only the work's end disconnects the channel: before `DELAY`, no line.
                if !matches!(
                    stop.recv_timeout(appear),
                    Err(crossbeam_channel::RecvTimeoutError::Timeout)
                ) {
                    return;
                }
                let mut drawn = false;
                loop {
                    let status = progress.status.lock().map(|s| *s).ok();
                    if let Some(status) = status {
                        draw(&line(status, start.elapsed()));
                        drawn = true;
                    }
                    match stop.recv_timeout(TICK) {
                        Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                        _ => break,
                    }
                }
                if drawn {
                    draw("");
                }
            });
        let out = work(progress);
        drop(stop_tx);
        if let Ok(drawer) = drawer {
            let _ = drawer.join();
        }
        out
    })
}

/// The line's text: `indexing: parsing 812/1930 files · 3.4 s`.
fn line(s: Status, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    match (s.done, s.total) {
        (_, 0) => format!("mapscope: indexing: {}… · {secs:.1} s", s.phase),
        (done, total) => format!(
            "mapscope: indexing: {} {done}/{total} files · {secs:.1} s",
            s.phase
        ),
    }
}

/// Redraws the line in place (`\r`, then erase to its end); an empty text erases it.
fn draw(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r\x1b[2K{text}");
    let _ = err.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::index::BuildPhase;

    #[test]
    fn the_line_says_the_phase_and_the_count() {
        let s = Status {
            phase: "parsing",
            done: 812,
            total: 1930,
        };
        assert_eq!(
            line(s, Duration::from_millis(3400)),
            "mapscope: indexing: parsing 812/1930 files · 3.4 s"
        );
        let s = Status {
            phase: "building the search index",
            done: 0,
            total: 0,
        };
        assert_eq!(
            line(s, Duration::from_secs(2)),
            "mapscope: indexing: building the search index… · 2.0 s"
        );
    }

    #[test]
    fn work_runs_once_and_reports_land() {
        let out = with_progress(|p| {
            p.build(BuildProgress {
                phase: BuildPhase::Parse,
                done: 1,
                total: 2,
            });
            p.status.lock().map(|s| (s.phase, s.done)).unwrap()
        });
        assert_eq!(out, ("parsing", 1));
    }
}
