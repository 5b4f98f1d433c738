//! Relinking after an edit (a live refresh): binding, the expensive part of a graph build,
//! is redone only for the files an edit can have changed; every other file's bindings are
//! taken from the previous graph. The result equals `build_graph` of the new files (the
//! tables, the ids, the float sums: every table is still built from all files' bindings, in
//! file order), which `tests/engine/engine_live.rs` checks over random edit scripts.
//!
//! Which files an edit touches. What a file binds to depends on its own references and
//! imports, on where imports resolve (the set of paths, the Go modules and the TS/JS path
//! aliases of `tsconfig.json` files), on which files
//! define each name (and which of them as methods), and on which TS/JS files are modules.
//! So when the paths, languages, Go modules and TS/JS path aliases are unchanged and the edited files kept their
//! imports and module kind, a file's bindings can change only if it is edited itself or
//! mentions (in a reference, a qualifier or an import) a name whose definers changed: one
//! that an edited file started or stopped defining, or defining as a method, or (Ruby, whose
//! constants bind through the modules they are nested in) a class, module or constant it
//! moved into or out of a module. Anything else
//! (a file added, removed or renamed, an import edited, many files at once) relinks in full.
//!
//! Threads: the engine worker (or whichever thread refreshes the index); binding fans out on
//! rayon as in a full build.

use super::build::{enclosing_classes, heritage_holder, members_by_name, types_by_name};
use super::words::{def_word_counts, PathTables};
use super::*;
use rayon::prelude::*;
use std::collections::HashSet;

/// Past this share of edited files a full relink costs about as much: the check is skipped.
const MAX_EDITED_SHARE: usize = 4;

/// What a relink reuses: the previous graph, and which files must be bound again.
pub(super) struct Prior<'g> {
    graph: &'g FileGraph,
    /// Per file (same order as before): bind again.
    affected: Vec<bool>,
    /// The files before the edit (same paths, same order).
    previous_files: &'g [ParsedFile],
    /// The files whose tags the edit changed.
    edited: Vec<usize>,
}

impl Prior<'_> {
    /// File `fi`'s (target, identifier, weight) triples as the previous graph holds them,
    /// with identifier ids mapped to `interner`'s, in `file_triples` order; `None` when the
    /// file must be bound again (or a name is missing: then binding decides).
    pub(super) fn triples(&self, fi: usize, interner: &Interner) -> Option<Vec<FileTriple>> {
        if *self.affected.get(fi)? {
            return None;
        }
        let g = self.graph;
        let mut out = Vec::new();
        for e in g.edges.range(fi) {
            let dst = g.edges.items[e];
            for &(old, w) in g.trips.row(e) {
                let name = g.ident_names.get(old as usize)?;
                out.push((dst, interner.get(name)?, w));
            }
        }
        // `file_triples` sorts by (target, identifier); the ids may have moved.
        out.sort_unstable_by_key(|&(d, id, _)| (d, id));
        Some(out)
    }

    /// The tables that depend only on the paths (the same before and after: a relink
    /// requires it), taken from the previous graph rather than split from every path again.
    pub(super) fn path_tables(&self) -> PathTables {
        let g = self.graph;
        PathTables {
            stem_files: g.stem_files.clone(),
            path_words: g.path_words.clone(),
            path_order: g.path_order.clone(),
        }
    }

    /// `def_words` of `files`: the previous graph's, with the edited files' entries
    /// replaced (each word's list stays in file order, as a full build makes it).
    pub(super) fn def_words(&self, files: &[ParsedFile]) -> FastMap<String, Vec<(u32, u32)>> {
        let mut words = self.graph.def_words.clone();
        for &fi in &self.edited {
            let fi32 = fi as u32;
            for w in def_word_counts(&self.previous_files[fi]).into_keys() {
                if let Some(list) = words.get_mut(&w) {
                    list.retain(|&(f, _)| f != fi32);
                    if list.is_empty() {
                        words.remove(&w);
                    }
                }
            }
            for (w, c) in def_word_counts(&files[fi]) {
                let list = words.entry(w).or_default();
                let at = list.partition_point(|&(f, _)| f < fi32);
                list.insert(at, (fi32, c));
            }
        }
        words
    }
}

/// `build_graph` of `files` after an edit, reusing `previous_graph` (built from
/// `previous_files`, `previous_go_modules`) where the edit cannot have changed the
/// bindings. Also returns how many files were bound again (all of them when it could not
/// reuse anything).
pub fn build_graph_relinking(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
    previous_files: &[ParsedFile],
    previous_go_modules: &[GoModule],
    previous_ts_paths: &[TsPaths],
    previous_graph: &FileGraph,
) -> (FileGraph, usize) {
    let affected = affected_files(
        files,
        go_modules,
        ts_paths,
        previous_files,
        previous_go_modules,
        previous_ts_paths,
        previous_graph,
    );
    match affected {
        Some((affected, edited)) => {
            let count = affected.iter().filter(|&&a| a).count();
            let prior = Prior {
                graph: previous_graph,
                affected,
                previous_files,
                edited,
            };
            (
                build_with_prior(files, go_modules, ts_paths, Some(&prior)),
                count,
            )
        }
        None => (build_graph(files, go_modules, ts_paths), files.len()),
    }
}

/// The names `f` defines (only as methods, with `methods`).
fn defined(f: &ParsedFile, methods: bool) -> HashSet<&str> {
    f.tags
        .defs
        .iter()
        .filter(|d| !methods || d.kind == DefKind::Method)
        .map(|d| d.name.as_str())
        .collect()
}

fn set<T: std::hash::Hash + Eq>(items: Vec<T>) -> HashSet<T> {
    items.into_iter().collect()
}

/// Each heritage use of `f` with the type it names a base of (`build::heritage_holder`).
fn heritage(f: &ParsedFile) -> HashSet<(Option<&str>, &str, Option<&str>)> {
    f.tags
        .refs
        .iter()
        .filter(|r| r.kind == RefKind::Heritage)
        .map(|r| (heritage_holder(&f.tags, r.line), r.name, r.qualifier))
        .collect()
}

/// Ruby: each class, module and constant `f` defines, with the names of the classes and
/// modules it is nested in (`build::enclosing_classes`). Empty for other languages.
fn nested(f: &ParsedFile) -> HashSet<(&str, Vec<&str>)> {
    if f.lang != Lang::Ruby {
        return HashSet::new();
    }
    let defs = &f.tags.defs;
    (0..defs.len())
        .filter(|&d| matches!(defs[d].kind, DefKind::Class | DefKind::Constant))
        .map(|d| {
            let path = enclosing_classes(defs, d)
                .into_iter()
                .map(|c| defs[c].name.as_str())
                .collect();
            (defs[d].name.as_str(), path)
        })
        .collect()
}

/// Per file, whether it must be bound again, and the files whose tags changed; `None`:
/// everything must be bound again (see the module header for when).
fn affected_files(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
    previous_files: &[ParsedFile],
    previous_go_modules: &[GoModule],
    previous_ts_paths: &[TsPaths],
    previous_graph: &FileGraph,
) -> Option<(Vec<bool>, Vec<usize>)> {
    let n = files.len();
    let whole_graph = previous_graph.n == n && previous_graph.edges.ptr.len() == n + 1;
    if !whole_graph || previous_files.len() != n || go_modules != previous_go_modules
        // Path aliases decide how bare TS/JS imports resolve, in any file.
        || ts_paths != previous_ts_paths
    {
        return None;
    }
    let mut edited = vec![false; n];
    let mut edited_list = Vec::new();
    let mut changed_names: HashSet<&str> = HashSet::new();
    let mut edits = 0;
    for (i, (new, old)) in files.iter().zip(previous_files).enumerate() {
        // A vendored file's uses weigh less everywhere (`build`'s `supporting`).
        if new.path != old.path || new.lang != old.lang || new.vendored != old.vendored {
            return None;
        }
        if Arc::ptr_eq(&new.tags, &old.tags) || new.tags == old.tags {
            continue;
        }
        if new.tags.imports != old.tags.imports || new.tags.module_scoped != old.tags.module_scoped
        {
            return None;
        }
        edits += 1;
        if edits > (n / MAX_EDITED_SHARE).max(1) {
            return None;
        }
        edited[i] = true;
        edited_list.push(i);
        // Borrowed from both versions: each name is in `files` or `previous_files`.
        for methods in [false, true] {
            let (before, after) = (defined(old, methods), defined(new, methods));
            changed_names.extend(before.symmetric_difference(&after).copied());
        }
        // Ruby binds a constant through the modules it is nested in: a class that moved
        // into or out of a module changes what the files naming it bind to.
        let (before, after) = (nested(old), nested(new));
        changed_names.extend(before.symmetric_difference(&after).map(|(name, _)| *name));
        // A typed member use reads which names are types, which type each method is a
        // member of, and each type's bases. A base reaches every type derived from it,
        // however far: a change of bases relinks in full.
        if heritage(old) != heritage(new) {
            return None;
        }
        let (before, after) = (set(types_by_name(&old.tags)), set(types_by_name(&new.tags)));
        changed_names.extend(before.symmetric_difference(&after).copied());
        let (before, after) = (
            set(members_by_name(&old.tags)),
            set(members_by_name(&new.tags)),
        );
        for &(method, ty) in before.symmetric_difference(&after) {
            changed_names.insert(method);
            changed_names.insert(ty);
        }
    }
    if changed_names.is_empty() {
        return Some((edited, edited_list));
    }
    // A receiver is named as written (`http.Client`): its type's name is the last segment.
    let mentions = |f: &ParsedFile| {
        f.tags.refs.names().any(|name| {
            changed_names.contains(name)
                || name
                    .rsplit_once('.')
                    .is_some_and(|(_, last)| changed_names.contains(last))
        }) || f.tags.imports.iter().any(|imp| {
            imp.names.iter().any(|nm| {
                changed_names.contains(nm.name.as_str())
                    || nm
                        .alias
                        .as_deref()
                        .is_some_and(|a| changed_names.contains(a))
            }) || imp
                .namespace
                .as_deref()
                .is_some_and(|ns| changed_names.contains(ns))
        })
    };
    let mentioned: Vec<bool> = files.par_iter().map(mentions).collect();
    let affected = edited.iter().zip(mentioned).map(|(&e, m)| e || m).collect();
    Some((affected, edited_list))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::model::{
        ContainerRef, Definition, FileTags, ImportedName, LineRange, Reference,
    };

    fn def(name: &str, kind: DefKind) -> Definition {
        Definition {
            name: name.into(),
            kind,
            lines: LineRange::new(1, 1),
            signature: LineRange::new(1, 1),
            parent: None,
            scope_lines: Vec::new(),
            container: ContainerRef::NONE,
            declaration: false,
            lookup_only: false,
        }
    }
    fn call(name: &str, qualifier: Option<&str>) -> Reference {
        Reference {
            name: name.into(),
            kind: RefKind::Call,
            line: 1,
            qualifier: qualifier.map(str::to_string),
            receiver: None,
        }
    }
    fn file(
        path: &str,
        defs: Vec<Definition>,
        refs: Vec<Reference>,
        imports: Vec<Import>,
    ) -> ParsedFile {
        let tags = FileTags {
            defs,
            refs: refs.into(),
            imports,
            ..FileTags::default()
        };
        ParsedFile::new(path.into(), Lang::Python, 0, Arc::from(""), tags)
    }
    fn import(spec: &str, name: &str) -> Import {
        Import {
            specifier: spec.into(),
            names: vec![ImportedName {
                name: name.into(),
                alias: None,
            }],
            namespace: None,
            wildcard: false,
            reexport: false,
            line: 1,
        }
    }

    /// A small project: `a` imports `helper` from `b`, calls names defined in several files
    /// (fallbacks), `c` uses methods; `d` mentions nothing `b` defines.
    fn project(b_defs: Vec<Definition>, b_refs: Vec<Reference>) -> Vec<ParsedFile> {
        vec![
            file(
                "a.py",
                vec![def("main", DefKind::Function)],
                vec![
                    call("helper", None),
                    call("shared", None),
                    call("run", Some("x")),
                ],
                vec![import("b", "helper")],
            ),
            file("b.py", b_defs, b_refs, vec![]),
            file(
                "c.py",
                vec![
                    def("run", DefKind::Method),
                    def("shared", DefKind::Function),
                ],
                vec![call("main", None)],
                vec![],
            ),
            file(
                "d.py",
                vec![def("alone", DefKind::Function)],
                vec![call("print", None)],
                vec![],
            ),
        ]
    }

    /// Every table, the edges into each file and the identifier ids of two graphs.
    fn assert_same(a: &FileGraph, b: &FileGraph) {
        for f in 0..a.node_count().max(b.node_count()) {
            assert_eq!(a.incoming(f), b.incoming(f));
        }
        assert_eq!(a.ident_names, b.ident_names);
        assert_eq!(a.edges.ptr, b.edges.ptr);
        assert_eq!(a.edges.items, b.edges.items);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.edge_w), bits(&b.edge_w));
        assert_eq!(a.trips.ptr, b.trips.ptr);
        let trips = |g: &FileGraph| {
            g.trips
                .items
                .iter()
                .map(|&(id, w)| (id, w.to_bits()))
                .collect::<Vec<_>>()
        };
        assert_eq!(trips(a), trips(b));
        assert_eq!(a.trip_defs.items, b.trip_defs.items);
        assert_eq!(a.ident_trips.items, b.ident_trips.items);
        assert_eq!(a.ident_files.items, b.ident_files.items);
        assert_eq!(a.def_offset, b.def_offset);
        // Taken from the previous graph (paths) or patched (definition words) by a relink.
        assert_eq!(a.stem_files, b.stem_files);
        assert_eq!(a.path_words, b.path_words);
        assert_eq!(a.path_order, b.path_order);
        assert_eq!(a.def_words, b.def_words);
    }

    #[test]
    fn a_body_edit_relinks_only_the_edited_file() {
        let before = project(vec![def("helper", DefKind::Function)], vec![]);
        let old = build_graph(&before, &[], &[]);
        let after = project(
            vec![def("helper", DefKind::Function)],
            vec![call("shared", None), call("alone", None)],
        );
        let (relinked, bound) = build_graph_relinking(&after, &[], &[], &before, &[], &[], &old);
        assert_eq!(bound, 1);
        assert_same(&relinked, &build_graph(&after, &[], &[]));
    }

    #[test]
    fn a_new_or_removed_definition_relinks_the_files_that_mention_it() {
        let before = project(vec![def("helper", DefKind::Function)], vec![]);
        let old = build_graph(&before, &[], &[]);
        // `shared` and the method `run` are now defined in b too: a's fallbacks split, and
        // its ids move (b's names are interned before a's references).
        let after = project(
            vec![
                def("shared", DefKind::Function),
                def("helper", DefKind::Function),
                def("run", DefKind::Method),
            ],
            vec![],
        );
        let (relinked, bound) = build_graph_relinking(&after, &[], &[], &before, &[], &[], &old);
        assert_eq!(
            bound, 2,
            "b itself and a, which calls shared and run; not c nor d"
        );
        assert_same(&relinked, &build_graph(&after, &[], &[]));
        // And back: removed again.
        let (back, _) = build_graph_relinking(&before, &[], &[], &after, &[], &[], &relinked);
        assert_same(&back, &old);
    }

    /// A type whose method a typed use reaches (through the receiver's type's base) moves
    /// to another file: the relink binds the use to its new file, as a full build does,
    /// binding again only the files that name what moved.
    #[test]
    fn a_moved_type_rebinds_its_typed_uses() {
        let go = |path: &str, src: &str| {
            let tags = crate::engine::ingest::tags::extract_tags(Lang::Go, src);
            ParsedFile::new(path.into(), Lang::Go, 0, Arc::from(src), tags)
        };
        let alpha = "package app\n\ntype Alpha struct{ Base }\n\nfunc (a *Alpha) SaveRecord() int { return 1 }\n";
        let base =
            "package app\n\ntype Base struct{}\n\nfunc (b *Base) HelperMethod() int { return 1 }\n";
        let beta = "package app\n\ntype Beta struct{}\n\nfunc (b *Beta) SaveRecord() int { return 2 }\n\nfunc (b *Beta) HelperMethod() int { return 2 }\n";
        let user =
            "package app\n\nfunc Run(x *Alpha) int { return x.SaveRecord() + x.HelperMethod() }\n";
        let empty = "package app\n\nfunc Other() int { return 0 }\n";
        let project = |base_at: usize| -> Vec<ParsedFile> {
            let pick = |i: usize| if i == base_at { base } else { empty };
            let mut files = vec![
                go("app/a.go", alpha),
                go("app/b.go", beta),
                go("app/base.go", pick(2)),
                go("app/c.go", pick(3)),
                go("app/use.go", user),
            ];
            // Files naming nothing that moved (and enough of them that two edits are few).
            for k in 0..4 {
                let src = format!("package app\n\nfunc Z{k}() int {{ return {k} }}\n");
                files.push(go(&format!("app/z{k}.go"), &src));
            }
            files
        };
        let (before, after) = (project(2), project(3));
        let old = build_graph(&before, &[], &[]);
        let (relinked, bound) = build_graph_relinking(&after, &[], &[], &before, &[], &[], &old);
        assert_same(&relinked, &build_graph(&after, &[], &[]));
        assert!(
            bound < after.len(),
            "{bound}: the z files are not bound again"
        );
        let targets =
            |g: &FileGraph| -> Vec<usize> { g.outgoing(4).into_iter().map(|(t, _)| t).collect() };
        assert_eq!(targets(&old), vec![0, 2], "Alpha's method, and its base's");
        assert_eq!(targets(&relinked), vec![0, 3], "the base's, now in c.go");
    }

    #[test]
    fn an_edited_import_or_a_new_file_relinks_everything() {
        let before = project(vec![def("helper", DefKind::Function)], vec![]);
        let old = build_graph(&before, &[], &[]);
        let mut after = before.clone();
        after[1] = file(
            "b.py",
            vec![def("helper", DefKind::Function)],
            vec![],
            vec![import("c", "run")],
        );
        let (relinked, bound) = build_graph_relinking(&after, &[], &[], &before, &[], &[], &old);
        assert_eq!(bound, after.len());
        assert_same(&relinked, &build_graph(&after, &[], &[]));
        let mut more = before.clone();
        more.push(file("e.py", vec![], vec![], vec![]));
        let (relinked, bound) = build_graph_relinking(&more, &[], &[], &before, &[], &[], &old);
        assert_eq!(bound, more.len());
        assert_same(&relinked, &build_graph(&more, &[], &[]));
    }
}
