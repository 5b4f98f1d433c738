//! The front doors' integration tests in one binary: the CLI, the MCP server and the HTTP
//! server, each driven through the real `mapscope` executable.

#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test

#[path = "../common/mod.rs"]
mod common;

mod cli_cache;
mod cli_components;
mod cli_errors;
mod cli_eval_symbols;
mod cli_generated;
mod cli_map;
mod cli_output_safety;
mod cli_path_only;
mod cli_refs;
mod cli_search;
mod cli_special_files;
mod http_hostile;
mod http_serve;
mod mcp_stdio;
