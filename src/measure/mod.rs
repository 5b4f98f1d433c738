//! Measurement, apart from the product: the retrieval and map evals on `../shared/eval`
//! (`mapscope eval`), symbol look-ups against universal-ctags (`eval --symbols`) and the
//! benches behind `mapscope bench` (search latency, typing cost, live refresh, the parse
//! floor). The engine never depends on this folder; the CLI calls it.

pub mod bench_stats;
pub mod eval;
pub mod eval_map;
pub mod live_bench;
pub mod parse_floor;
pub mod search_bench;
pub mod symbols;
pub mod typing_bench;
