//! The persistent caches, in the user's cache directory, from the bottom up: where a
//! repository's cache lives and what it holds (`dir`), atomic writes (`files`), each file's
//! tags (`tags`), the derived structures kept beside them (`blob`: the graph, the search
//! index, the history index), the commit history (`history`), and clearing them (`clear`).
//! Imports every layer below it, never `index` or `live`.

pub mod blob;
pub mod clear;
pub mod dir;
pub mod files;
pub mod history;
pub mod tags;
