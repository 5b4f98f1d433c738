//! mapscope: a terminal explorer for repo maps.
//!
//! `engine` owns everything that reads the repository and computes maps (no terminal code);
//! `cli` holds the headless subcommands (and `eval` the retrieval evaluation), `mcp` the
//! server that gives agents the same map and search over the Model Context Protocol. The TUI is
//! `ui` (pure drawing from a view model) and `app` (event loop, actions, keymap, config,
//! terminal, clipboard, engine worker).
pub mod app;
pub mod bench_stats;
pub mod cli;
pub mod contract;
pub mod engine;
pub mod eval;
pub mod eval_map;
pub mod http;
pub mod live_bench;
pub mod mcp;
pub mod parse_floor;
pub mod search_bench;
#[cfg(test)]
pub(crate) mod test_support;
pub mod typing_bench;
pub mod ui;
