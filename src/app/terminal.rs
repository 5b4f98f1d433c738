//! The terminal's state while the TUI runs: raw mode, alternate screen, mouse capture,
//! bracketed paste, hidden cursor. `TerminalGuard` turns them on and `restore()` turns every
//! one of them off again; it is idempotent and runs on drop, before `$EDITOR`, and from the
//! panic hook — but only for a panic on the UI thread (a worker's panic is reported in the
//! status bar and the UI keeps running). Owned by the UI thread.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::ThreadId;

use ratatui::crossterm::cursor::Show;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};

/// Whether the terminal is currently in TUI mode (shared with the panic hook).
static ACTIVE: AtomicBool = AtomicBool::new(false);
static MOUSE: AtomicBool = AtomicBool::new(false);
/// The thread whose panic must restore the terminal.
static UI_THREAD: OnceLock<Mutex<Option<ThreadId>>> = OnceLock::new();
static HOOK_INSTALLED: AtomicBool = AtomicBool::new(false);

pub struct TerminalGuard {
    _private: (),
}

impl TerminalGuard {
    /// Enters TUI mode and installs the panic hook (once per process).
    pub fn enter(mouse: bool) -> io::Result<TerminalGuard> {
        install_panic_hook();
        *UI_THREAD
            .get_or_init(|| Mutex::new(None))
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(std::thread::current().id());
        MOUSE.store(mouse, Ordering::SeqCst);
        let guard = TerminalGuard { _private: () };
        guard.resume()?;
        Ok(guard)
    }

    /// Turns TUI mode back on after `restore` (e.g. when `$EDITOR` exits).
    pub fn resume(&self) -> io::Result<()> {
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = io::stdout();
        execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
        if MOUSE.load(Ordering::SeqCst) {
            execute!(out, EnableMouseCapture)?;
        }
        Ok(())
    }

    /// Undoes everything `enter` did; safe to call any number of times.
    pub fn restore(&self) {
        restore_terminal();
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Leaves TUI mode if it is on. Each step is attempted even if an earlier one fails.
pub fn restore_terminal() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    if MOUSE.load(Ordering::SeqCst) {
        let _ = execute!(out, DisableMouseCapture);
    }
    let _ = execute!(out, DisableBracketedPaste);
    let _ = execute!(out, LeaveAlternateScreen);
    let _ = execute!(out, Show);
    let _ = disable_raw_mode();
    let _ = out.flush();
}

fn on_ui_thread() -> bool {
    UI_THREAD
        .get()
        .and_then(|m| m.lock().ok().and_then(|g| *g))
        .is_some_and(|id| id == std::thread::current().id())
}

/// Chains a hook before the existing one. On the UI thread it restores the terminal first,
/// so the previous hook's message is readable on the normal screen. On other threads it
/// stays silent while the TUI is up (their panics are caught and shown in the status bar;
/// printing would scribble over the alternate screen).
fn install_panic_hook() {
    if HOOK_INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if on_ui_thread() {
            restore_terminal();
            previous(info);
        } else if !ACTIVE.load(Ordering::SeqCst) {
            previous(info);
        }
    }));
}
