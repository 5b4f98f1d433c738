//! Whether a definition is in the container a look-up typed (`Router` in `Router::fallback`,
//! `shared` in `shared.updatePullRequest`, `fmt::detail::buffer` in
//! `fmt::detail::buffer::append`). Pure functions on the querying thread, run only for the
//! definitions whose name matched.
//!
//! A definition's container path is, outermost first, its module then its scopes.
//! [`container_of`] builds it from the tags' container chain (`FileTags::containers`,
//! `Definition::container`): namespaces and packages (a Go or Java package, a C++, C# or
//! PHP namespace, a Rust `mod` with a body) extend the module the file's path gives (its
//! folders, and its stem unless it is an entry file like `mod.rs` or `index.ts`); types,
//! functions and object literals are its scopes. A container's name may hold several
//! segments (`Polly.Retry`, `Slim\Routing`, `A::B`): each is one. A definition with no
//! container but an enclosing definition (`Definition::parent`) has that as its scope.
//!
//! The match: the innermost typed segment must be the definition's innermost scope (or, for
//! a definition with no scope, one of its module's innermost names: the file's stem, its
//! folder, its package or namespace); the outer typed segments are looked for further out,
//! in order, each one missing counting against the match. Names are compared exactly
//! first, then up to case and `_`.

use crate::engine::base::model::{ContainerKind, Definition, ParsedFile};
use crate::engine::base::words::normalize_name;

/// A file's stems that name their folder's module rather than a module of their own.
const ENTRY_STEMS: &[&str] = &["mod", "lib", "index", "__init__", "__main__", "init"];

/// Where a definition lives, as segments, outermost first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ContainerPath<'a> {
    /// The file's module: folders, stem (not an entry file's), `package`/`namespace` names.
    module: Vec<&'a str>,
    /// The module's innermost names, which a look-up of a top-level definition may type
    /// (`shared.Func`, `utils.parse`, `main.run`).
    module_names: Vec<&'a str>,
    /// The enclosing scopes inside the file, innermost last.
    scopes: Vec<&'a str>,
}

impl<'a> ContainerPath<'a> {
    /// The innermost enclosing scope's name (a constructor's is its own).
    pub(super) fn innermost(&self) -> Option<&'a str> {
        self.scopes.last().copied()
    }

    /// Inside a module or scope named `test` or `tests` (a Rust `mod tests { … }` beside
    /// the code it tests): test code, as a file under `tests/` is.
    pub(super) fn in_test_module(&self) -> bool {
        self.module
            .iter()
            .chain(&self.scopes)
            .any(|s| matches!(*s, "test" | "tests"))
    }
}

/// The container path of `def` in `file`.
pub(super) fn container_of<'a>(def: &'a Definition, file: &'a ParsedFile) -> ContainerPath<'a> {
    let path = file.path.as_str();
    let (dirs, base) = path.rsplit_once('/').unwrap_or(("", path));
    let stem = base.split_once('.').map_or(base, |(s, _)| s);
    let mut module: Vec<&str> = dirs.split('/').filter(|d| !d.is_empty()).collect();
    let mut module_names: Vec<&str> = Vec::new();
    if let Some(dir) = module.last() {
        module_names.push(dir);
    }
    if !ENTRY_STEMS.contains(&stem) && !stem.is_empty() {
        module.push(stem);
        module_names.push(stem);
    }
    // The tags' chain, innermost first; then outermost first, split into segments.
    let tags = &file.tags;
    let mut chain = Vec::new();
    let mut at = def.container;
    while let Some(c) = tags.container_at(at) {
        // Parents come earlier in the table; bounded in case a damaged one loops.
        if chain.len() == MAX_CHAIN {
            break;
        }
        chain.push(c);
        at = c.parent;
    }
    let mut scopes: Vec<&str> = Vec::new();
    let mut namespace_last = None;
    for c in chain.iter().rev() {
        let segments = c.name.split(['.', '\\', ':']).filter(|s| !s.is_empty());
        match c.kind {
            ContainerKind::Singleton => {}
            // A namespace inside a type is a scope; one at the top extends the module.
            ContainerKind::Namespace if scopes.is_empty() => {
                for seg in segments {
                    module.push(seg);
                    namespace_last = Some(seg);
                }
            }
            _ => scopes.extend(segments),
        }
    }
    if let Some(last) = namespace_last {
        module_names.push(last);
    }
    if chain.is_empty() {
        scopes.extend(def.parent.as_deref());
    }
    ContainerPath {
        module,
        module_names,
        scopes,
    }
}

/// Containers followed out from a definition at most.
const MAX_CHAIN: usize = 32;

/// How well a definition's container path matches the typed container.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct ContainerMatch {
    /// Typed segments (outside the innermost) not found further out.
    pub(super) outer_missing: u8,
    /// Some segment matched only up to case and `_`.
    pub(super) folded: bool,
}

/// How `segment` names `name`: Some(false) exactly, Some(true) up to case and `_`.
fn names(segment: &str, name: &str) -> Option<bool> {
    if segment == name {
        Some(false)
    } else {
        (normalize_name(segment) == normalize_name(name) && !normalize_name(name).is_empty())
            .then_some(true)
    }
}

/// Whether `path` is in the container `typed` (outermost first, not empty).
pub(super) fn match_container(typed: &[String], path: &ContainerPath) -> Option<ContainerMatch> {
    let (innermost, outer) = typed.split_last()?;
    // The chain of names further out than the anchor, innermost first.
    let (anchor_folded, further_out): (bool, Vec<&str>) = match path.scopes.split_last() {
        Some((scope, above)) => {
            let folded = names(innermost, scope)?;
            let out = above
                .iter()
                .rev()
                .chain(path.module.iter().rev())
                .copied()
                .collect();
            (folded, out)
        }
        None => {
            // The innermost of the module names that matches; the chain is what is above it.
            let (at, folded) = path
                .module
                .iter()
                .enumerate()
                .rev()
                .filter(|(_, m)| path.module_names.contains(m))
                .find_map(|(i, m)| names(innermost, m).map(|f| (i, f)))?;
            (folded, path.module[..at].iter().rev().copied().collect())
        }
    };
    Some(find_outer(outer, &further_out, anchor_folded))
}

/// How many of `outer` (typed segments, outermost first) are found in `path`, innermost
/// outward and in order: for a container typed with more segments than its own name
/// (`axum::routing::Router` for the struct `Router`).
pub(super) fn outer_match(outer: &[String], path: &ContainerPath) -> ContainerMatch {
    let chain: Vec<&str> = path
        .scopes
        .iter()
        .rev()
        .chain(path.module.iter().rev())
        .copied()
        .collect();
    find_outer(outer, &chain, false)
}

/// `outer`'s segments, innermost first, found in order along `chain` (innermost first).
fn find_outer(outer: &[String], chain: &[&str], folded: bool) -> ContainerMatch {
    let mut folded = folded;
    let mut missing = 0u8;
    let mut from = 0;
    for seg in outer.iter().rev() {
        match chain[from..]
            .iter()
            .enumerate()
            .find_map(|(i, name)| names(seg, name).map(|f| (i, f)))
        {
            Some((i, f)) => {
                folded |= f;
                from += i + 1;
            }
            None => missing = missing.saturating_add(1),
        }
    }
    ContainerMatch {
        outer_missing: missing,
        folded,
    }
}

/// Whether `path` (repo-relative) is the file `typed` names: the same path, or one ending
/// with it after a `/`.
pub(super) fn file_matches(path: &str, typed: &str) -> bool {
    let typed = typed.trim_start_matches("./");
    path == typed
        || path
            .strip_suffix(typed)
            .is_some_and(|head| head.ends_with('/'))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::engine::base::model::Lang;
    use crate::engine::ingest::tags::extract_tags;
    use std::sync::Arc;

    /// `src` parsed as the file `path` (Go when its extension names no language).
    pub(in crate::engine::search) fn file(path: &str, src: &str) -> ParsedFile {
        let lang = Lang::from_path(path).unwrap_or(Lang::Go);
        ParsedFile::new(
            path.into(),
            lang,
            src.len() as u64,
            Arc::from(src),
            extract_tags(lang, src),
        )
    }

    fn typed(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| (*x).to_string()).collect()
    }

    /// The container path of the definition named `name` (the last of that name).
    fn path_of<'a>(f: &'a ParsedFile, name: &str) -> ContainerPath<'a> {
        let d = f
            .tags
            .defs
            .iter()
            .rev()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("no {name} in {:?}", f.tags.defs));
        container_of(d, f)
    }

    #[test]
    fn the_innermost_scope_is_the_anchor() {
        let f = file(
            "axum/src/routing/mod.rs",
            "pub struct Router;\nimpl Router {\n    pub fn fallback(self) {}\n}\n",
        );
        let p = path_of(&f, "fallback");
        assert_eq!(p.innermost(), Some("Router"));
        let m = match_container(&typed(&["Router"]), &p).unwrap();
        assert_eq!((m.outer_missing, m.folded), (0, false));
        assert!(match_container(&typed(&["MethodRouter"]), &p).is_none());
        // Case-folded, and outer segments found in the path (in order) or missing.
        assert!(match_container(&typed(&["router"]), &p).unwrap().folded);
        let m = match_container(&typed(&["axum", "routing", "Router"]), &p).unwrap();
        assert_eq!(m.outer_missing, 0);
        let m = match_container(&typed(&["routing", "axum", "Router"]), &p).unwrap();
        assert_eq!(m.outer_missing, 1);
        let m = match_container(&typed(&["nope", "Router"]), &p).unwrap();
        assert_eq!(m.outer_missing, 1);
        // A member is not in its module's name alone.
        assert!(match_container(&typed(&["routing"]), &p).is_none());
    }

    #[test]
    fn top_level_definitions_are_in_their_folder_stem_or_package() {
        let go = file(
            "pkg/cmd/pr/shared/editable.go",
            "// Copyright\npackage shared\n\nfunc updatePullRequest() {}\n",
        );
        let p = path_of(&go, "updatePullRequest");
        assert!(match_container(&typed(&["shared"]), &p).is_some());
        assert!(match_container(&typed(&["editable"]), &p).is_some());
        assert!(match_container(&typed(&["pr"]), &p).is_none());
        let m = match_container(&typed(&["pr", "shared"]), &p).unwrap();
        assert_eq!(m.outer_missing, 0);
        let main = file(
            "cmd/promtool/tsdb.go",
            "package main\n\nfunc checkErr() {}\n",
        );
        assert!(match_container(&typed(&["main"]), &path_of(&main, "checkErr")).is_some());
        let py = file("httpx/_utils.py", "def parse():\n    pass\n");
        assert!(match_container(&typed(&["_utils"]), &path_of(&py, "parse")).is_some());
        let init = file("httpx/__init__.py", "def parse():\n    pass\n");
        let p = path_of(&init, "parse");
        assert!(match_container(&typed(&["httpx"]), &p).is_some());
        assert!(match_container(&typed(&["__init__"]), &p).is_none());
        let php = file(
            "src/Command/Command.php",
            "<?php\n\nnamespace Symfony\\Component\\Console\\Command;\n\nclass Command\n{\n    public function run() {}\n}\n",
        );
        let p = path_of(&php, "Command");
        let m = match_container(&typed(&["Console", "Command"]), &p).unwrap();
        assert_eq!(m.outer_missing, 0);
        let p = path_of(&php, "run");
        let m = match_container(&typed(&["Console", "Command"]), &p).unwrap();
        assert_eq!(m.outer_missing, 0);
    }

    #[test]
    fn go_methods_are_in_their_receiver_inside_their_package() {
        let go = file(
            "tsdb/index/index.go",
            "package index\n\ntype Writer struct{}\n\nfunc (w *Writer) Close() error {\n\treturn nil\n}\n",
        );
        let p = path_of(&go, "Close");
        assert_eq!(p.innermost(), Some("Writer"));
        let m = match_container(&typed(&["index", "Writer"]), &p).unwrap();
        assert_eq!(m.outer_missing, 0);
    }

    #[test]
    fn files_match_by_path_suffix() {
        assert!(file_matches(
            "pkg/cmd/pr/shared/editable.go",
            "shared/editable.go"
        ));
        assert!(file_matches("pkg/a.go", "pkg/a.go"));
        assert!(file_matches("pkg/a.go", "./pkg/a.go"));
        assert!(!file_matches("pkg/xa.go", "a.go"));
        assert!(file_matches("pkg/a.go", "a.go"));
    }
}
