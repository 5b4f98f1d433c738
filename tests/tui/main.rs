//! The TUI's integration tests in one binary: the app driven by actions, screens drawn on
//! ratatui's `TestBackend` (insta snapshots), the X11 clipboard and the tmux end-to-end runs.

#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test

#[path = "../common/mod.rs"]
mod common;

mod app_clipboard_x11;
mod app_flow;
mod e2e_tmux;
mod ui_path_only;
mod ui_screens;
