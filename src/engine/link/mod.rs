//! Linking files: which indexed files an import statement refers to (`resolve`), and the
//! weighted cross-file graph of who uses what (`graph`), and the names each language provides
//! without an import (`builtins`). Imports `base` and `ingest`.

pub mod builtins;
pub mod graph;
pub mod resolve;
