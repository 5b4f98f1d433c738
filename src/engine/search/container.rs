//! Whether a definition is in the container a look-up typed (`Router` in `Router::fallback`,
//! `shared` in `shared.updatePullRequest`, `fmt::detail::buffer` in
//! `fmt::detail::buffer::append`). Pure functions on the querying thread, run only for the
//! definitions whose name matched.
//!
//! A definition's container path is, outermost first, its file's module (the folders of
//! its path, the file's stem unless it is an entry file like `mod.rs` or `index.ts`, the
//! `package`/`namespace` line at its top) then its scopes. [`container_of`] builds it, and
//! is the one place that knows where scopes come from: today the innermost enclosing
//! definition's name (`Definition::parent`: a Go receiver type, a Rust impl type, a C++
//! out-of-line owner, a class), tomorrow the tags' full container path (`fmt::detail::
//! buffer`, `pkg.T`), which replaces `scopes` there and nothing else.
//!
//! The match: the innermost typed segment must be the definition's innermost scope (or, for
//! a definition with no scope, one of its module's innermost names: the file's stem, its
//! folder, its package); the outer typed segments are looked for further out, in order,
//! each one missing counting against the match. Names are compared exactly first, then up
//! to case and `_`.

use crate::engine::base::model::{Definition, ParsedFile};
use crate::engine::base::words::normalize_name;

/// A file's stems that name their folder's module rather than a module of their own.
const ENTRY_STEMS: &[&str] = &["mod", "lib", "index", "__init__", "__main__", "init"];

/// Lines read from a file's top for its `package` or `namespace` line.
const MODULE_LINE_SCAN: usize = 64;

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
}

/// The container path of `def` in `file`: THE place to switch to the tags' container path
/// when definitions carry it (`scopes` from its segments instead of `parent`).
pub(super) fn container_of<'a>(def: &'a Definition, file: &'a ParsedFile) -> ContainerPath<'a> {
    let scopes: Vec<&str> = def.parent.as_deref().into_iter().collect();
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
    let declared = module_line(file);
    if let Some(last) = declared.last() {
        module_names.push(last);
    }
    module.extend(declared);
    ContainerPath {
        module,
        module_names,
        scopes,
    }
}

/// The names of a file's `package a.b;` (Go, Java) or `namespace A\B;` / `namespace A.B`
/// (PHP, C#) line, when one of its first lines is one.
fn module_line(file: &ParsedFile) -> Vec<&str> {
    for n in 1..=MODULE_LINE_SCAN as u32 {
        let Some(line) = file.line(n) else { break };
        let line = line.trim();
        let rest = line
            .strip_prefix("package ")
            .or_else(|| line.strip_prefix("namespace "));
        if let Some(rest) = rest {
            let name = rest.split([';', '{', ' ', '\t']).next().unwrap_or_default();
            return name.split(['.', '\\']).filter(|s| !s.is_empty()).collect();
        }
    }
    Vec::new()
}

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
mod tests {
    use super::*;
    use crate::engine::base::model::{DefKind, FileTags, Lang, LineRange};
    use std::sync::Arc;

    fn def(name: &str, parent: Option<&str>) -> Definition {
        Definition {
            name: name.into(),
            kind: DefKind::Function,
            lines: LineRange::new(3, 4),
            signature: LineRange::new(3, 3),
            parent: parent.map(Into::into),
            scope_lines: vec![],
        }
    }

    fn file(path: &str, src: &str) -> ParsedFile {
        let lang = Lang::from_path(path).unwrap_or(Lang::Go);
        ParsedFile::new(
            path.into(),
            lang,
            src.len() as u64,
            Arc::from(src),
            FileTags::default(),
        )
    }

    fn typed(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| (*x).to_string()).collect()
    }

    #[test]
    fn the_innermost_scope_is_the_anchor() {
        let f = file("axum/src/routing/mod.rs", "");
        let d = def("fallback", Some("Router"));
        let p = container_of(&d, &f);
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
        let d = def("updatePullRequest", None);
        let p = container_of(&d, &go);
        assert!(match_container(&typed(&["shared"]), &p).is_some());
        assert!(match_container(&typed(&["editable"]), &p).is_some());
        assert!(match_container(&typed(&["pr"]), &p).is_none());
        let m = match_container(&typed(&["pr", "shared"]), &p).unwrap();
        assert_eq!(m.outer_missing, 0);
        let main = file(
            "cmd/promtool/tsdb.go",
            "package main\n\nfunc checkErr() {}\n",
        );
        assert!(match_container(&typed(&["main"]), &container_of(&d, &main)).is_some());
        let py = file("httpx/_utils.py", "");
        assert!(match_container(&typed(&["_utils"]), &container_of(&d, &py)).is_some());
        let init = file("httpx/__init__.py", "");
        let p = container_of(&d, &init);
        assert!(match_container(&typed(&["httpx"]), &p).is_some());
        assert!(match_container(&typed(&["__init__"]), &p).is_none());
        let php = file(
            "src/Command/Command.php",
            "<?php\n\nnamespace Symfony\\Component\\Console\\Command;\n",
        );
        let p = container_of(&d, &php);
        let m = match_container(&typed(&["Console", "Command"]), &p).unwrap();
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
