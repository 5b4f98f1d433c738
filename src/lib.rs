//! mapscope: a terminal explorer for repo maps.
//!
//! `engine` owns everything that reads the repository and computes maps (no terminal code),
//! including the live index every front door uses. The front doors: `cli` (the headless
//! subcommands), `mcp` (agents over the Model Context Protocol) and `http`, sharing one
//! output contract (`contract`). The TUI is `ui` (pure drawing from view models) and `app`
//! (event loop, actions, keymap, config, terminal, clipboard). `measure` holds the evals and
//! benches. See ARCHITECTURE.md.
pub mod app;
pub mod cli;
pub mod contract;
pub mod engine;
pub mod http;
pub mod launch;
pub mod mcp;
pub mod measure;
#[cfg(test)]
pub(crate) mod test_support;
pub mod ui;
