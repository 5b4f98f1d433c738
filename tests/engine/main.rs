//! The engine's integration tests in one binary (each test binary links every grammar, so
//! fewer binaries build faster): tags, walk, graph, rank, map, search, the live index, and
//! the architecture's import rules.

#![allow(clippy::unwrap_used)] // a failed unwrap in a test is a failed test

#[path = "../common/mod.rs"]
mod common;

mod architecture;
mod engine_bind_receivers;
mod engine_bind_scope;
mod engine_budget;
mod engine_containers;
mod engine_definition_forms;
mod engine_fuzz;
mod engine_languages;
mod engine_lazy_sources;
mod engine_live;
mod engine_map_lines;
mod engine_map_task;
mod engine_nesting;
mod engine_path_only;
mod engine_rank;
mod engine_search;
mod engine_search_evidence;
mod engine_search_exact;
mod engine_search_mixed;
mod engine_search_order;
mod engine_tags;
mod engine_vendored;
mod engine_walk;
