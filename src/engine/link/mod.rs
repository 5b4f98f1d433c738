//! Linking files: which indexed files an import statement refers to (`resolve`), and the
//! weighted cross-file graph of who uses what (`graph`). Imports `base` and `ingest`.

pub mod graph;
pub mod resolve;
