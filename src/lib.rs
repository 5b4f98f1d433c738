//! mapscope: a terminal explorer for repo maps.
//!
//! `engine` owns everything that reads the repository and computes maps (no terminal code);
//! `cli` holds the headless subcommands. The TUI (`ui`, `app`) builds on the same engine.
pub mod cli;
pub mod engine;
pub mod eval;
