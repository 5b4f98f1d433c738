//! Reading a repository: which files are indexed (`walk`), their languages and tags queries
//! (`lang`), the file names a text mentions (`mentions`), the tree-sitter tags of each file (`tags`; the scripts of Vue and Svelte components:
//! `component`) and the commit history search reads
//! (`history`). Imports only `base`. The walk and the parse run on rayon's pool.

pub mod captures;
pub mod component;
pub mod content;
pub mod file_tags;
pub mod history;
pub mod lang;
pub mod mentions;
pub mod tags;
pub mod walk;
