//! The status bar's state: the repository label, the last message and when it fades, whether
//! live updates run (and how the watcher learns about changes), and the clock that snapshot
//! tests freeze. Builds the `ui::status` view model from it, the index and the map. Runs on
//! the UI thread.

use std::time::{Duration, Instant};

use super::App;
use crate::engine::live::watch::WatchMode;
use crate::ui::{status::format_age, FreshnessView, Level, StatusView};

/// How long a status-bar message stays without a new action.
pub const MESSAGE_TTL: Duration = Duration::from_secs(5);

/// A status-bar message.
struct Message {
    text: String,
    level: Level,
    /// When it was set: it fades after `MESSAGE_TTL` (errors and warnings after twice that)
    /// or at the next user action, whichever comes first.
    at: Instant,
}

impl Message {
    fn expires(&self) -> Instant {
        let ttl = match self.level {
            Level::Warning | Level::Error => MESSAGE_TTL * 2,
            Level::Info | Level::Ok => MESSAGE_TTL,
        };
        self.at + ttl
    }
}

pub(super) struct StatusState {
    /// Shown in the status bar.
    repo_label: String,
    message: Option<Message>,
    /// Live updates: `Ok` while the watcher runs, `Err(why)` when it could not start or
    /// stopped; `None` before it is started (and in tests that never start one).
    live: Option<Result<(), String>>,
    /// The watcher polls every this many seconds (out of inotify watches); None: events.
    polling_secs: Option<u64>,
    /// Fixed clock for snapshot tests: ages and elapsed times show as zero.
    pub frozen_clock: bool,
}

impl StatusState {
    pub fn new(repo_label: String) -> StatusState {
        StatusState {
            repo_label,
            message: None,
            live: None,
            polling_secs: None,
            frozen_clock: false,
        }
    }

    pub fn repo_label(&self) -> &str {
        &self.repo_label
    }

    pub fn message(&self) -> Option<&str> {
        self.message.as_ref().map(|m| m.text.as_str())
    }

    pub fn clear_message(&mut self) {
        self.message = None;
    }

    /// When the message fades (`None` without one).
    pub fn message_expiry(&self) -> Option<Instant> {
        self.message.as_ref().map(Message::expires)
    }

    /// Drops the message if it has expired at `now`; returns whether it did.
    pub fn expire_message(&mut self, now: Instant) -> bool {
        if !self.frozen_clock && self.message_expiry().is_some_and(|e| e <= now) {
            self.message = None;
            return true;
        }
        false
    }
}

impl App {
    pub(super) fn set_message(&mut self, text: impl Into<String>, level: Level) {
        self.status.message = Some(Message {
            text: text.into(),
            level,
            at: Instant::now(),
        });
        self.dirty = true;
    }

    /// A warning for the status bar that changes nothing else (a directory the watcher
    /// skips). `text` is already sanitised.
    pub fn notice(&mut self, text: String) {
        self.set_message(text, Level::Warning);
        self.dirty = true;
    }

    /// How the watcher learns about changes now (events, or polling when out of watches).
    pub fn set_watch_mode(&mut self, mode: WatchMode) {
        self.status.polling_secs = match mode {
            WatchMode::Events => None,
            WatchMode::Polling { interval } => Some(interval.as_secs().max(1)),
        };
        self.dirty = true;
    }

    /// Whether live updates run (`Ok`) or why not.
    pub fn set_live(&mut self, live: Result<(), String>) {
        if let Err(why) = &live {
            self.set_message(format!("live updates off: {why}"), Level::Warning);
        }
        self.status.live = Some(live);
        self.dirty = true;
    }

    /// The status bar: the repository, the index, the map's budget and steering, the message.
    pub(super) fn status_view(&self) -> StatusView<'_> {
        let status = &self.status;
        let index = &self.index;
        let params = &self.map.params;
        StatusView {
            repo: &status.repo_label,
            files: index.snapshot.as_ref().map(|i| i.files),
            symbols: index.snapshot.as_ref().map(|i| i.symbols),
            generation: index.builds_done,
            age: match &index.snapshot {
                Some(i) if !status.frozen_clock => format_age(i.built_at.elapsed().as_secs()),
                _ => format_age(0),
            },
            tokenizer: &params.tokenizer,
            tokens: self.map.snapshot().map_or(0, |m| m.tokens),
            budget: params.budget,
            focus: &params.focus,
            excluded: params.exclude_files.len() + params.exclude_symbols.len(),
            failed: index.failed(),
            message: status.message.as_ref().map(|m| (m.text.as_str(), m.level)),
            freshness: FreshnessView {
                pending: index.pending_changes(),
                rebuilding: index.refreshing(),
                spinner: if status.frozen_clock {
                    0
                } else {
                    (index.build_started.elapsed().as_millis() / 100) as usize
                },
                live: status.live.as_ref().map(Result::is_ok),
                polling_secs: status.polling_secs,
            },
        }
    }
}
