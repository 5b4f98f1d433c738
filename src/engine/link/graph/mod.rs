//! The weighted file graph: edge A→B means "A uses something defined in B".
//!
//! Owns reference binding (which file a use points at) and the edge weights, plus everything
//! `rank` needs precomputed: edges as CSR with per-edge (identifier, weight) triples, the
//! definitions each triple credits, an identifier → triples index for boosting mentioned
//! names, and word/stem tables for query personalization. Built once per index on the engine
//! worker thread (per-file binding fans out on rayon, results merged in file order);
//! immutable afterwards, so `rank` only re-personalizes and iterates.
//!
//! How a reference is bound, most specific first (only the first rule that applies is used):
//! 1. Its name (or its qualifier, for `ns.foo` / `pkg.Foo` / `mod.func`) is bound by an import
//!    of the file: follow the import to the files that really define the name, through
//!    re-export chains (`export * from`, `export {x} from`, names a Python `__init__.py`
//!    imports) up to `REEXPORT_DEPTH`. An import that resolves to nothing (npm package, stdlib)
//!    drops the reference: it is not the repo's. Where a file's whole-file imports reach only
//!    files that import whole files too (C/C++ includes, Ruby requires), the files they reach
//!    are listed once per file (`Builder::reach_of`) and a name none of them defines is not
//!    searched for at all: the search could only have found definitions there.
//! 2. Defined in its own file: no edge.
//!
//!    Then a member use whose receiver's type the file states (`RefView::receiver`, read at
//!    tag time: the enclosing type for `self.m()` / `this.m()` / `$this->m()` / `Self::m()`
//!    and for Ruby's, Java's, C#'s and C++'s calls without a receiver; a declared parameter,
//!    local or field type, `c *http.Client`; a plain construction, `x = Client()`): the type
//!    is resolved from the file as a name is (import, package, namespace, Ruby's nesting, a
//!    type only one file defines), and the use binds to the method of that name whose
//!    container is the type (in the type's files, or a file holding its members without
//!    defining a type of that name: a Go method in another file of the package, a Rust
//!    `impl`, a C++ member out of line), else to the nearest ancestor's (the heritage the
//!    type's files or the use's file name for it, up to 4 generations: `build::typed`). A
//!    type that is the language's own or an external package's, or that inherits the method
//!    from one, drops the use; a type nothing resolves leaves it to the rules below (a call
//!    without a receiver only ever binds this way when it finds the method).
//! 3. Go: an unqualified name → the files of the same package (directory) defining it, or a
//!    dot-import; never anything else. Python `from m import *` likewise. Java: a
//!    capitalized unqualified name → the same directory's files defining it (its package),
//!    else rule 5; C/C++ includes, Ruby requires and PHP includes are wildcards that reach
//!    what the included file includes (`includes_are_transitive`). A type's member (a
//!    method, a member alias, a C++ specialization's `format`) is not a bare name another
//!    file reaches, through a wildcard or a guess (rule 5), except where the language's
//!    static imports or mixins can make it one (Java, C#, Kotlin, Scala, Ruby:
//!    `wildcards_reach_members`).
//! 4. The language's own names (`link::builtins`, one table per language in
//!    `assets/builtins/`: Ruby's `File`, Python's `len`, Go's `error`, Java's `String`) are
//!    never guessed: a bare one binds to a repository definition only where rules 1-3 or the
//!    language's scope make it visible (C#, PHP, Java: a definition in the file's own
//!    namespace or package; Ruby: a constant that the file's own nesting reaches,
//!    `module Jekyll; class LiquidRenderer` → `Jekyll::LiquidRenderer::File`), else it is
//!    the language's and dropped. A member of one (`File.join`, `JSON.parse`, `std::move`)
//!    is the runtime's unless Ruby's nesting makes the qualifier the repository's.
//! 5. Fallback: the bare name in every file of the same language family defining it, split
//!    over those files and down-weighted; in TS/JS only scripts and `.d.ts` files count (a
//!    module's names are out of scope unless imported: `const Object` in some module is not
//!    what `Object.keys` means elsewhere); names with more than `FALLBACK_MAX_DEFINERS`
//!    definers and single-character names are skipped. A member use with a qualifier that is
//!    not an import (`x.Close()`, `self.m()`) only matches method definitions, much weaker,
//!    and in Go first the same package's methods; where the receiver's type is not known,
//!    the guess lands only in files the use's file has in view (`Builder::in_view`: what its
//!    imports reach, transitively where includes are, or its own directory, its package by
//!    convention), split among them: `client.Do` on a stdlib `*http.Client` is not any
//!    repository `Do` the file cannot see. A method every value has (`to_s`, `equals`,
//!    `toString`, Go's `Error`, Rust's prelude traits' `clone`) is never guessed. Ruby
//!    `A::B` binds to a constant `B` defined directly in a class or module `A`. A guess from
//!    implementation never lands in supporting code (tests, fixtures, examples, external
//!    `.pyi` stubs: `Builder::may_guess`).
//!
//! `map --explain` binds the uses of a file's names again with a census
//! (`explain_bindings`): per name, how many uses reached it by each rule (`BoundBy`), and how
//! many a rule dropped.
//!
//! Weights (see the constants): per (source, target, identifier, binding class) the kind
//! weights of the references are summed, then
//! `weight = sqrt(sum) × class weight × identifier multiplier / number of target files`.
//! The sqrt (as in aider) keeps a file that calls one helper 50 times from drowning the rest;
//! splitting over targets makes one ambiguous reference worth as much as an unambiguous one
//! in total.
//! - kind: Heritage 2, Call 1, Type 1, Reference 0.5, the import statement's own name 0.5;
//! - class: resolved (import, Go package) 1, a member of the receiver's stated type 0.8,
//!   `Imported.member` 0.7, module without the definition 0.5, Go same-package method 0.5,
//!   bare-name fallback 0.1, method fallback 0.02 (so a resolved use outweighs a guess
//!   10-50×, before the split over definers);
//! - identifier: `_private` ×0.1; a long camelCase/snake_case name ×3 on guesses only (it makes
//!   a bare-name match more likely right; on resolved edges it says nothing). Mentioned
//!   identifiers (×10) are applied per request in `rank`.
//!
//! Where each part lives: this file holds the graph as `rank` reads it (`FileGraph`, CSR
//! tables, queries); `binding` the rules' weights and classes; `build` the binding itself
//! and the tables; `words` the stem and word tables; `relink` the incremental rebuild;
//! `store` the derived-cache form.

use crate::engine::base::model::{
    unpack_name_kind, DefKind, GoModule, Import, Lang, NameTable, ParsedFile, RefKind, RefList,
    TsPaths,
};
use crate::engine::base::paths::{classify_place, is_declaration_file, PathClass};
use crate::engine::link::resolve::{
    go_package_names, split_dir, ResolvedImport, Resolver, REEXPORT_DEPTH,
};
use std::collections::HashSet;
use std::sync::Arc;

mod binding;
mod build;
mod relink;
mod store;
mod words;
pub(crate) use binding::Binding;
pub use binding::{BindingCount, BoundBy, FALLBACK_MAX_DEFINERS};
pub(crate) use build::*;
pub use build::{build_graph, build_graph_consuming, explain_bindings, TakenUses, UseCounts};
pub use relink::build_graph_relinking;
pub use store::StoredGraph;

pub(crate) use crate::engine::base::{FastMap, FastSet};

/// One edge of the file graph.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FileEdge {
    pub weight: f64,
    /// The edge's row in `FileGraph::trips`, where its identifiers are: read them with
    /// `FileGraph::edge_idents` (a copy per edge was a few MB on a large repository).
    trips_row: u32,
}

/// Compressed rows: row `i` is `items[ptr[i]..ptr[i + 1]]`.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Csr<T> {
    pub ptr: Vec<u32>,
    pub items: Vec<T>,
}

impl<T> Csr<T> {
    pub fn row(&self, i: usize) -> &[T] {
        match (self.ptr.get(i), self.ptr.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.items[a as usize..b as usize],
            _ => &[],
        }
    }
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        match (self.ptr.get(i), self.ptr.get(i + 1)) {
            (Some(&a), Some(&b)) => a as usize..b as usize,
            _ => 0..0,
        }
    }
}

/// Build rows from (row, item) pairs already sorted by row.
fn csr_from_sorted<T>(rows: usize, pairs: impl Iterator<Item = (usize, T)>) -> Csr<T> {
    let mut ptr = vec![0u32; rows + 1];
    let mut items = Vec::new();
    for (r, item) in pairs {
        if r < rows {
            ptr[r + 1] += 1;
            items.push(item);
        }
    }
    for i in 0..rows {
        ptr[i + 1] += ptr[i];
    }
    Csr { ptr, items }
}

/// The file graph plus the tables `rank` reads. The default is the graph of no files.
#[derive(Debug, Clone, Default)]
pub struct FileGraph {
    /// Node `i` holds file index `i`; edge `e` is `edges` entry `e` of the CSR below. Has
    /// no edges in a one-shot graph (`build_graph_consuming`).
    /// Per file: the edges into it (edge ids, by source), made on the first `incoming`
    /// call: a one-shot map never asks.
    pub(crate) incoming_edges: std::sync::OnceLock<Csr<u32>>,
    pub(crate) n: usize,
    pub(crate) ident_ids: FastMap<Arc<str>, u32>,
    /// Per identifier id: its name (shared with `ident_ids`).
    ident_names: Vec<Arc<str>>,
    /// Per source file: target file of each out-edge (edges sorted by (source, target)).
    pub(crate) edges: Csr<u32>,
    pub(crate) edge_w: Vec<f64>,
    /// Per edge: (identifier id, weight) triples; `edge_w[e]` is the sum of their weights.
    pub(crate) trips: Csr<(u32, f64)>,
    /// Per triple: global ids of the definitions it credits (same name, in the target).
    pub(crate) trip_defs: Csr<u32>,
    /// Per identifier id: (edge, triple) pairs carrying it.
    pub(crate) ident_trips: Csr<(u32, u32)>,
    /// Global definition id of `files[f].tags.defs[d]` is `def_offset[f] + d`.
    pub(crate) def_offset: Vec<u32>,
    /// Per identifier id: files defining it.
    pub(crate) ident_files: Csr<u32>,
    /// Normalized file stem (`file_graph` → `filegraph`; `index`/`__init__`/`mod` take the
    /// directory name) → files.
    pub(crate) stem_files: FastMap<String, Vec<u32>>,
    /// Lowercase word of a path component → files.
    pub(crate) path_words: FastMap<String, Vec<u32>>,
    /// Lowercase word of a definition name → (file, number of its definitions with it).
    pub(crate) def_words: FastMap<String, Vec<(u32, u32)>>,
    /// Position of each file in path order, for tie-breaks.
    pub(crate) path_order: Vec<u32>,
    /// Per file: a test, fixture, example, playground… (see `is_supporting_path`), or an
    /// external stub.
    pub(crate) supporting: Vec<bool>,
    /// Per file: a Python stub of code outside the repository (see `external_stub_files`).
    pub(crate) external_stubs: Vec<bool>,
}

impl FileGraph {
    /// Whether file `i` is supporting code (see `supporting`); false out of range.
    pub(crate) fn is_supporting(&self, i: usize) -> bool {
        self.supporting.get(i).copied().unwrap_or(false)
    }

    /// Whether file `i` is an external stub (see `external_stubs`); false out of range.
    pub(crate) fn is_external_stub(&self, i: usize) -> bool {
        self.external_stubs.get(i).copied().unwrap_or(false)
    }

    pub fn edge_count(&self) -> usize {
        self.edge_w.len()
    }

    pub fn node_count(&self) -> usize {
        self.n
    }

    /// Edges into `file` as (source, edge), by source.
    pub fn incoming(&self, file: usize) -> Vec<(usize, FileEdge)> {
        if file >= self.n {
            return Vec::new();
        }
        let incoming = self.incoming_edges.get_or_init(|| self.reverse_edges());
        incoming
            .row(file)
            .iter()
            .map(|&e| (self.edge_source(e as usize), self.edge(e as usize)))
            .collect()
    }

    /// Every edge as (source, target, edge), by source then target.
    pub fn all_edges(&self) -> impl Iterator<Item = (usize, usize, FileEdge)> + '_ {
        (0..self.n).flat_map(move |src| {
            self.outgoing(src)
                .into_iter()
                .map(move |(dst, e)| (src, dst, e))
        })
    }

    /// Edges out of `file` as (target, edge), by target.
    pub fn outgoing(&self, file: usize) -> Vec<(usize, FileEdge)> {
        self.edges
            .range(file)
            .zip(self.edges.row(file))
            .map(|(e, &dst)| (dst as usize, self.edge(e)))
            .collect()
    }

    fn edge(&self, e: usize) -> FileEdge {
        FileEdge {
            weight: self.edge_w.get(e).copied().unwrap_or(0.0),
            trips_row: e as u32,
        }
    }

    /// The file edge `e` leaves (edges are stored by source).
    fn edge_source(&self, e: usize) -> usize {
        // The first row whose end is past `e`.
        self.edges.ptr[1..].partition_point(|&end| end as usize <= e)
    }

    /// Edge ids per target file, by source: a stable counting sort of the edges by target.
    fn reverse_edges(&self) -> Csr<u32> {
        let mut ptr = vec![0u32; self.n + 1];
        for &dst in &self.edges.items {
            if let Some(count) = ptr.get_mut(dst as usize + 1) {
                *count += 1;
            }
        }
        for i in 0..self.n {
            ptr[i + 1] += ptr[i];
        }
        let mut next: Vec<u32> = ptr[..self.n].to_vec();
        let mut items = vec![0u32; self.edges.items.len()];
        for (e, &dst) in self.edges.items.iter().enumerate() {
            if let Some(slot) = next.get_mut(dst as usize) {
                items[*slot as usize] = e as u32;
                *slot += 1;
            }
        }
        Csr { ptr, items }
    }

    /// The identifiers that produced an edge with their weights, sorted by name.
    pub fn edge_idents(&self, edge: FileEdge) -> Vec<(&str, f64)> {
        let mut idents: Vec<(&str, f64)> = self
            .trips
            .row(edge.trips_row as usize)
            .iter()
            .filter_map(|&(id, w)| self.ident_names.get(id as usize).map(|n| (&**n, w)))
            .collect();
        idents.sort_by(|a, b| a.0.cmp(b.0));
        idents
    }

    /// The id of an identifier that appears in some definition, reference or import.
    pub(crate) fn ident_id(&self, name: &str) -> Option<u32> {
        self.ident_ids.get(name).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::binding::*;
    use super::words::file_stem_key;
    use super::*;
    use crate::engine::base::model::{
        ContainerRef, Definition, FileTags, Import, ImportedName, LineRange, Reference,
    };
    use std::sync::Arc;

    pub(crate) fn def(name: &str, kind: DefKind, line: u32) -> Definition {
        Definition {
            name: name.into(),
            kind,
            lines: LineRange::new(line, line + 2),
            signature: LineRange::new(line, line),
            parent: None,
            scope_lines: Vec::new(),
            container: ContainerRef::NONE,
            declaration: false,
            lookup_only: false,
        }
    }
    fn rf(name: &str, kind: RefKind, qualifier: Option<&str>) -> Reference {
        Reference {
            name: name.into(),
            kind,
            line: 1,
            qualifier: qualifier.map(str::to_string),
            receiver: None,
        }
    }
    fn named(spec: &str, names: &[(&str, Option<&str>)]) -> Import {
        Import {
            specifier: spec.into(),
            names: names
                .iter()
                .map(|(n, a)| ImportedName {
                    name: n.to_string(),
                    alias: a.map(str::to_string),
                })
                .collect(),
            namespace: None,
            wildcard: false,
            reexport: false,
            line: 1,
        }
    }
    fn ns(spec: &str, ns: Option<&str>) -> Import {
        Import {
            namespace: ns.map(str::to_string),
            ..named(spec, &[])
        }
    }
    fn pf(
        path: &str,
        defs: Vec<Definition>,
        refs: Vec<Reference>,
        imports: Vec<Import>,
    ) -> ParsedFile {
        let lang = Lang::from_path(path).unwrap_or(Lang::TypeScript);
        ParsedFile::new(
            path.into(),
            lang,
            0,
            Arc::from(""),
            FileTags {
                defs,
                refs: refs.into(),
                imports,
                ..FileTags::default()
            },
        )
    }
    fn fun(name: &str) -> Definition {
        def(name, DefKind::Function, 1)
    }
    fn call(name: &str) -> Reference {
        rf(name, RefKind::Call, None)
    }
    fn edge_idents(g: &FileGraph, a: usize, b: usize) -> Option<Vec<String>> {
        g.outgoing(a)
            .into_iter()
            .find(|(t, _)| *t == b)
            .map(|(_, e)| {
                g.edge_idents(e)
                    .into_iter()
                    .map(|(n, _)| n.to_string())
                    .collect()
            })
    }
    fn edge_w(g: &FileGraph, a: usize, b: usize) -> f64 {
        g.outgoing(a)
            .into_iter()
            .find(|(t, _)| *t == b)
            .map_or(0.0, |(_, e)| e.weight)
    }

    #[test]
    fn named_import_binds_only_the_imported_module() {
        let files = vec![
            pf(
                "src/app.ts",
                vec![],
                vec![call("helper"), call("parse")],
                vec![named("./util", &[("helper", None)])],
            ),
            pf("src/util.ts", vec![fun("helper")], vec![], vec![]),
            // Defines `helper` too, but app imports it from util.
            pf(
                "src/other.ts",
                vec![fun("helper"), fun("parseThing")],
                vec![],
                vec![],
            ),
        ];
        let g = build_graph(&files, &[], &[]);
        assert_eq!(edge_idents(&g, 0, 1), Some(vec!["helper".into()]));
        assert_eq!(edge_idents(&g, 0, 2), None);
        // `parse` is defined nowhere: no edge at all.
        assert_eq!(g.edge_count(), 1);
        assert_eq!(g.incoming(1).len(), 1);
        assert!(g.incoming(0).is_empty());
        assert!(g.outgoing(99).is_empty());
    }

    #[test]
    fn external_import_drops_the_reference() {
        let files = vec![
            pf(
                "a.ts",
                vec![],
                vec![call("useState"), rf("join", RefKind::Call, Some("path"))],
                vec![
                    named("react", &[("useState", None)]),
                    ns("node:path", Some("path")),
                ],
            ),
            pf(
                "b.ts",
                vec![fun("useState"), def("join", DefKind::Method, 3)],
                vec![],
                vec![],
            ),
        ];
        let g = build_graph(&files, &[], &[]);
        assert_eq!(g.edge_count(), 0);
    }

    #[test]
    fn alias_and_namespace_bindings() {
        let files = vec![
            pf(
                "a.ts",
                vec![],
                vec![call("h"), rf("parse", RefKind::Call, Some("ns"))],
                vec![
                    named("./b", &[("helper", Some("h"))]),
                    ns("./c", Some("ns")),
                ],
            ),
            pf("b.ts", vec![fun("helper")], vec![], vec![]),
            pf("c.ts", vec![fun("parse")], vec![], vec![]),
        ];
        let g = build_graph(&files, &[], &[]);
        assert_eq!(edge_idents(&g, 0, 1), Some(vec!["helper".into()]));
        assert_eq!(edge_idents(&g, 0, 2), Some(vec!["parse".into()]));
    }

    #[test]
    fn reexport_barrel_chain_reaches_the_definer() {
        let mut star = ns("./impl", None);
        star.wildcard = true;
        star.reexport = true;
        let mut named_re = named("./more.js", &[("thing", Some("renamed"))]);
        named_re.reexport = true;
        let files = vec![
            pf(
                "app.ts",
                vec![],
                vec![call("deep"), call("renamed")],
                vec![named("./lib", &[("deep", None), ("renamed", None)])],
            ),
            pf("lib/index.ts", vec![], vec![], vec![star, named_re]),
            pf("lib/impl.ts", vec![fun("deep")], vec![], vec![]),
            pf("lib/more.ts", vec![fun("thing")], vec![], vec![]),
        ];
        let g = build_graph(&files, &[], &[]);
        assert_eq!(edge_idents(&g, 0, 2), Some(vec!["deep".into()]));
        assert_eq!(edge_idents(&g, 0, 3), Some(vec!["thing".into()]));
        assert_eq!(edge_idents(&g, 0, 1), None);
        // The barrel links to what it re-exports.
        assert!(edge_idents(&g, 1, 2).is_some());
        assert_eq!(edge_idents(&g, 1, 3), Some(vec!["thing".into()]));
    }

    #[test]
    fn default_import_and_go_dot_import() {
        let files = vec![
            pf(
                "a.ts",
                vec![],
                vec![rf("Foo", RefKind::Type, None), call("Bar")],
                vec![
                    named("./foo", &[("default", Some("Foo"))]),
                    named("./bar", &[("default", Some("Bar"))]),
                ],
            ),
            pf(
                "foo.ts",
                vec![def("Foo", DefKind::Class, 1)],
                vec![],
                vec![],
            ),
            // An anonymous default export: the edge still goes to the module.
            pf("bar.ts", vec![], vec![], vec![]),
            pf(
                "cmd/main.go",
                vec![],
                vec![call("Helper")],
                vec![Import {
                    wildcard: true,
                    ..ns("example.com/m/lib", Some("."))
                }],
            ),
            pf("lib/lib.go", vec![fun("Helper")], vec![], vec![]),
        ];
        let g = build_graph(&files, &go_mod(), &[]);
        assert_eq!(edge_idents(&g, 0, 1), Some(vec!["Foo".into()]));
        assert_eq!(edge_idents(&g, 0, 2), Some(vec!["Bar".into()]));
        assert!(edge_w(&g, 0, 1) > edge_w(&g, 0, 2));
        assert_eq!(edge_idents(&g, 3, 4), Some(vec!["Helper".into()]));
    }

    fn include(spec: &str) -> Import {
        Import {
            wildcard: true,
            ..named(spec, &[])
        }
    }

    /// Edges with their identifiers, and weights, of every file: what two builds of the same
    /// files must agree on.
    fn whole_graph(g: &FileGraph, n: usize) -> (Vec<String>, Vec<f64>) {
        let edges = (0..n)
            .map(|a| {
                let mut out: Vec<String> = g
                    .outgoing(a)
                    .into_iter()
                    .map(|(b, e)| format!("{a}->{b} {:?} {}", g.edge_idents(e), e.weight))
                    .collect();
                out.sort();
                out.join("; ")
            })
            .collect();
        (edges, g.edge_w.clone())
    }

    #[test]
    fn includes_reach_a_definer_through_a_chain_and_skip_what_they_cannot_reach() {
        // main.c → a.h → b.h defines `deep`; c.h (not included) defines `elsewhere`.
        let files = vec![
            pf(
                "main.c",
                vec![],
                vec![call("deep"), call("elsewhere"), call("nowhere")],
                vec![include("a.h")],
            ),
            pf("a.h", vec![], vec![], vec![include("b.h")]),
            pf("b.h", vec![fun("deep")], vec![], vec![]),
            pf("c.h", vec![fun("elsewhere")], vec![], vec![]),
        ];
        let g = build_graph(&files, &[], &[]);
        assert_eq!(edge_idents(&g, 0, 2), Some(vec!["deep".into()]));
        assert_eq!(
            whole_graph(&g, files.len()),
            whole_graph(
                &build::build_graph_searching_every_name(&files, &[], &[]),
                files.len()
            )
        );
    }

    #[test]
    fn an_include_chain_is_searched_as_deep_as_reexports_are() {
        // main.c → f1.h → … → f7.h; fK.h defines `atK`. The search looks `REEXPORT_DEPTH`
        // includes deep: the reach must hold the file at that depth, not stop one short.
        let mut files = vec![pf(
            "main.c",
            vec![],
            (1..=7).map(|k| call(&format!("at{k}"))).collect(),
            vec![include("f1.h")],
        )];
        for k in 1..=7 {
            let next = if k < 7 {
                vec![include(&format!("f{}.h", k + 1))]
            } else {
                vec![]
            };
            files.push(pf(
                &format!("f{k}.h"),
                vec![fun(&format!("at{k}"))],
                vec![],
                next,
            ));
        }
        let g = build_graph(&files, &[], &[]);
        let full = build::build_graph_searching_every_name(&files, &[], &[]);
        assert_eq!(
            whole_graph(&g, files.len()),
            whole_graph(&full, files.len())
        );
        let deepest = REEXPORT_DEPTH;
        assert_eq!(
            edge_idents(&g, 0, deepest),
            Some(vec![format!("at{deepest}")])
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// Skipping the re-export searches that cannot find a definer changes nothing: random
        /// C and Ruby trees (chains longer than `REEXPORT_DEPTH`, cycles, names defined in
        /// several files or none), and a Python file whose named import makes its reach
        /// unknown, give the same graph as searching every name.
        #[test]
        fn skipping_hopeless_include_searches_changes_no_edge(
            spec in proptest::collection::vec(
                (
                    proptest::collection::vec(0usize..9, 0..3),
                    proptest::collection::vec(0usize..6, 0..3),
                    proptest::collection::vec(0usize..6, 0..4),
                ),
                2..9,
            ),
            ruby in proptest::bool::ANY,
            python in proptest::bool::ANY,
        ) {
            let names = ["alpha", "beta", "gamma", "delta", "eps", "zeta"];
            let ext = if ruby { "rb" } else { "h" };
            let n = spec.len();
            let mut files: Vec<ParsedFile> = spec
                .iter()
                .enumerate()
                .map(|(i, (includes, defs, calls))| {
                    let path = if i == 0 && !ruby { "main.c".to_string() } else { format!("f{i}.{ext}") };
                    let imports = includes
                        .iter()
                        .filter(|&&j| j < n && j != i)
                        .map(|&j| {
                            if ruby {
                                include(&format!("./f{j}"))
                            } else {
                                include(&format!("f{j}.h"))
                            }
                        })
                        .collect();
                    pf(
                        &path,
                        defs.iter().map(|&d| fun(names[d])).collect(),
                        calls.iter().map(|&c| call(names[c])).collect(),
                        imports,
                    )
                })
                .collect();
            if python {
                files.push(pf(
                    "p.py",
                    vec![fun("beta")],
                    vec![call("alpha"), call("beta")],
                    vec![named("q", &[("alpha", None)])],
                ));
                files.push(pf("q.py", vec![fun("alpha")], vec![], vec![]));
                // A star import of `p`: a search from `p` follows its named import.
                files.push(pf(
                    "r.py",
                    vec![],
                    vec![call("alpha"), call("gamma")],
                    vec![Import { wildcard: true, ..named("p", &[]) }],
                ));
            }
            let fast = build_graph(&files, &[], &[]);
            let full = build::build_graph_searching_every_name(&files, &[], &[]);
            proptest::prop_assert_eq!(whole_graph(&fast, files.len()), whole_graph(&full, files.len()));
        }
    }

    #[test]
    fn reexport_cycle_terminates() {
        let mut a = ns("./b", None);
        a.wildcard = true;
        a.reexport = true;
        let mut b = ns("./a", None);
        b.wildcard = true;
        b.reexport = true;
        let files = vec![
            pf("a.ts", vec![], vec![], vec![a]),
            pf("b.ts", vec![], vec![], vec![b]),
            pf(
                "c.ts",
                vec![],
                vec![call("x")],
                vec![named("./a", &[("x", None)])],
            ),
        ];
        let g = build_graph(&files, &[], &[]);
        // x is defined nowhere: c still depends on the module it imports from.
        assert_eq!(edge_idents(&g, 2, 0), Some(vec!["x".into()]));
    }

    #[test]
    fn python_imports_bind_modules_and_init_reexports() {
        let files = vec![
            pf(
                "app/main.py",
                vec![],
                vec![
                    rf("load", RefKind::Call, Some("config")),
                    call("Model"),
                    rf("run", RefKind::Call, Some("pkg")),
                ],
                vec![
                    named("app", &[("config", None)]),
                    named(".models", &[("Model", None)]),
                    ns("app.pkg", Some("pkg")),
                ],
            ),
            pf("app/__init__.py", vec![], vec![], vec![]),
            pf("app/config.py", vec![fun("load")], vec![], vec![]),
            pf(
                "app/models/__init__.py",
                vec![],
                vec![],
                vec![named(".base", &[("Model", None)])],
            ),
            pf(
                "app/models/base.py",
                vec![def("Model", DefKind::Class, 1)],
                vec![],
                vec![],
            ),
            pf("app/pkg/__init__.py", vec![fun("run")], vec![], vec![]),
        ];
        let g = build_graph(&files, &[], &[]);
        assert!(edge_idents(&g, 0, 2).is_some_and(|v| v.contains(&"load".to_string())));
        assert_eq!(edge_idents(&g, 0, 4), Some(vec!["Model".into()]));
        assert_eq!(edge_idents(&g, 0, 5), Some(vec!["run".into()]));
        assert_eq!(edge_idents(&g, 0, 3), None);
    }

    #[test]
    fn ts_bare_names_reach_only_scripts_and_declaration_files() {
        let module = |path: &str, name: &str| {
            let mut f = pf(path, vec![fun(name)], vec![], vec![]);
            if let Some(tags) = Arc::get_mut(&mut f.tags) {
                tags.module_scoped = true;
            }
            f
        };
        let files = vec![
            pf(
                "src/use.ts",
                vec![],
                vec![call("Object"), call("__DEV__"), call("legacyGlobal")],
                vec![],
            ),
            // `const Object = …; export { Object }` in a fixture is not the global `Object`.
            module("fixtures/top-level-object.js", "Object"),
            module("types/env.d.ts", "__DEV__"),
            pf(
                "public/legacy.js",
                vec![fun("legacyGlobal")],
                vec![],
                vec![],
            ),
        ];
        let g = build_graph(&files, &[], &[]);
        assert_eq!(edge_idents(&g, 0, 1), None);
        assert_eq!(edge_idents(&g, 0, 2), Some(vec!["__DEV__".into()]));
        assert_eq!(edge_idents(&g, 0, 3), Some(vec!["legacyGlobal".into()]));
    }

    #[test]
    fn js_runtime_members_are_not_repo_methods() {
        let method = |name: &str| def(name, DefKind::Method, 2);
        let files = vec![
            pf(
                "src/use.ts",
                vec![],
                vec![
                    rf("log", RefKind::Call, Some("console")),
                    rf("render", RefKind::Call, Some("view")),
                ],
                vec![],
            ),
            pf(
                "src/logger.ts",
                vec![method("log"), method("render")],
                vec![],
                vec![],
            ),
        ];
        let g = build_graph(&files, &[], &[]);
        assert_eq!(edge_idents(&g, 0, 1), Some(vec!["render".into()]));
    }

    #[test]
    fn fallback_is_down_weighted_by_definers() {
        let mut files = vec![
            pf(
                "a.py",
                vec![],
                vec![call("compute_total"), call("render_all")],
                vec![named("b", &[("compute_total", None)])],
            ),
            pf("b.py", vec![fun("compute_total")], vec![], vec![]),
            pf("c.py", vec![fun("render_all")], vec![], vec![]),
            pf("d.py", vec![fun("render_all")], vec![], vec![]),
        ];
        let g = build_graph(&files, &[], &[]);
        let bound = edge_w(&g, 0, 1);
        let guess = edge_w(&g, 0, 2);
        assert!(
            guess > 0.0 && bound > 5.0 * guess,
            "bound {bound} guess {guess}"
        );
        assert_eq!(guess, edge_w(&g, 0, 3));
        // A third definer lowers each guess.
        files.push(pf("e.py", vec![fun("render_all")], vec![], vec![]));
        let g2 = build_graph(&files, &[], &[]);
        assert!(edge_w(&g2, 0, 2) < guess);
        // Too many definers: no guess at all.
        for i in 0..FALLBACK_MAX_DEFINERS {
            files.push(pf(
                &format!("x{i}.py"),
                vec![fun("render_all")],
                vec![],
                vec![],
            ));
        }
        let g3 = build_graph(&files, &[], &[]);
        assert_eq!(edge_w(&g3, 0, 2), 0.0);
        assert!(edge_w(&g3, 0, 1) > 0.0);
    }

    #[test]
    fn guesses_from_the_project_do_not_land_in_tests_or_external_stubs() {
        let files = vec![
            pf(
                "pkg/core.py",
                vec![],
                vec![call("render_all"), call("is_protocol"), call("parse_args")],
                vec![],
            ),
            pf("pkg/render.py", vec![fun("render_all")], vec![], vec![]),
            pf("tests/helpers.py", vec![fun("render_all")], vec![], vec![]),
            // A stub of code outside the repository, and one of a module it has.
            pf(
                "pkg/stdlib/typing.pyi",
                vec![fun("is_protocol")],
                vec![],
                vec![],
            ),
            pf("pkg/cli.py", vec![], vec![], vec![]),
            pf("pkg/cli.pyi", vec![fun("parse_args")], vec![], vec![]),
            pf(
                "tests/test_core.py",
                vec![],
                vec![call("render_all")],
                vec![],
            ),
            pf(
                "pkg/stdlib/abc.pyi",
                vec![],
                vec![call("is_protocol")],
                vec![],
            ),
        ];
        let g = build_graph(&files, &[], &[]);
        assert!(edge_w(&g, 0, 1) > 0.0);
        assert_eq!(edge_w(&g, 0, 2), 0.0, "implementation → test helper");
        assert_eq!(edge_w(&g, 0, 3), 0.0, "implementation → external stub");
        assert!(
            edge_w(&g, 0, 5) > 0.0,
            "a stub of the repository's own module"
        );
        // Tests and stubs still guess among themselves and into the implementation.
        assert!(edge_w(&g, 6, 1) > 0.0 && edge_w(&g, 6, 2) > 0.0);
        assert!(edge_w(&g, 7, 3) > 0.0);
        assert_eq!(
            g.external_stubs,
            [false, false, false, true, false, false, false, true]
        );
        assert_eq!(
            g.supporting,
            [false, false, true, true, false, false, true, true]
        );
    }

    #[test]
    fn shipped_stubs_do_not_outrank_the_project_by_their_own_circulation() {
        // Thirty stdlib stubs all using `typing.pyi`, three project files using `render.py`.
        let mut files = vec![
            pf("pkg/render.py", vec![fun("render_all")], vec![], vec![]),
            pf(
                "pkg/stdlib/typing.pyi",
                vec![fun("is_protocol")],
                vec![],
                vec![],
            ),
        ];
        for i in 0..3 {
            files.push(pf(
                &format!("pkg/use{i}.py"),
                vec![],
                vec![call("render_all")],
                vec![],
            ));
        }
        for i in 0..30 {
            files.push(pf(
                &format!("pkg/stdlib/mod{i}.pyi"),
                vec![],
                vec![call("is_protocol")],
                vec![],
            ));
        }
        let g = build_graph(&files, &[], &[]);
        assert!(edge_w(&g, 5, 1) > 0.0);
        let out = crate::engine::rank::pagerank::rank(&files, &g, &Default::default());
        assert!((out.file_rank.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(
            out.file_rank[0] > out.file_rank[1],
            "render.py {} typing.pyi {}",
            out.file_rank[0],
            out.file_rank[1]
        );
    }

    #[test]
    fn a_repository_of_stubs_is_its_stubs() {
        let files = vec![
            pf(
                "stdlib/typing.pyi",
                vec![fun("is_protocol")],
                vec![],
                vec![],
            ),
            pf("stdlib/abc.pyi", vec![], vec![call("is_protocol")], vec![]),
            pf("tests/check.py", vec![], vec![], vec![]),
        ];
        let g = build_graph(&files, &[], &[]);
        assert_eq!(g.external_stubs, [false, false, false]);
        assert!(edge_w(&g, 1, 0) > 0.0);
    }

    #[test]
    fn kinds_and_private_names_weigh_differently() {
        let files = vec![
            pf(
                "a.ts",
                vec![],
                vec![
                    rf("Base", RefKind::Heritage, None),
                    rf("value", RefKind::Reference, None),
                ],
                vec![
                    named("./b", &[("Base", None)]),
                    named("./c", &[("value", None)]),
                ],
            ),
            pf("b.ts", vec![def("Base", DefKind::Class, 1)], vec![], vec![]),
            pf(
                "c.ts",
                vec![def("value", DefKind::Constant, 1)],
                vec![],
                vec![],
            ),
            pf(
                "d.ts",
                vec![],
                vec![call("_hidden")],
                vec![named("./e", &[("_hidden", None)])],
            ),
            pf("e.ts", vec![fun("_hidden")], vec![], vec![]),
        ];
        let g = build_graph(&files, &[], &[]);
        assert!(edge_w(&g, 0, 1) > edge_w(&g, 0, 2));
        assert!(edge_w(&g, 3, 4) < 0.2 * edge_w(&g, 0, 2));
    }

    fn go_mod() -> Vec<GoModule> {
        vec![GoModule {
            dir: String::new(),
            module: "example.com/m".into(),
        }]
    }

    #[test]
    fn go_same_package_and_qualified_imports() {
        let files = vec![
            pf(
                "svc/a.go",
                vec![],
                vec![
                    call("helper"),
                    rf("Open", RefKind::Call, Some("store")),
                    rf("Open", RefKind::Call, Some("db")),
                    call("Println"),
                ],
                vec![
                    ns("example.com/m/store", None),
                    ns("example.com/m/dbx", Some("db")),
                ],
            ),
            pf("svc/b.go", vec![fun("helper")], vec![], vec![]),
            pf("store/s.go", vec![fun("Open")], vec![], vec![]),
            pf("dbx/d.go", vec![fun("Open")], vec![], vec![]),
            pf(
                "other/o.go",
                vec![fun("helper"), fun("Println")],
                vec![],
                vec![],
            ),
        ];
        let g = build_graph(&files, &go_mod(), &[]);
        assert_eq!(edge_idents(&g, 0, 1), Some(vec!["helper".into()]));
        assert_eq!(edge_idents(&g, 0, 2), Some(vec!["Open".into()]));
        assert_eq!(edge_idents(&g, 0, 3), Some(vec!["Open".into()]));
        // No cross-package bare-name edges.
        assert_eq!(edge_idents(&g, 0, 4), None);
        assert_eq!(g.edge_count(), 3);
    }

    #[test]
    fn go_method_calls_are_weak_and_prefer_the_package() {
        let files = vec![
            pf(
                "a/a.go",
                vec![],
                vec![
                    rf("Flush", RefKind::Call, Some("w")),
                    rf("Validate", RefKind::Call, Some("cfg")),
                    rf("Close", RefKind::Call, Some("f")),
                ],
                vec![ns("example.com/m/c", None)],
            ),
            pf(
                "a/b.go",
                vec![def("Flush", DefKind::Method, 1)],
                vec![],
                vec![],
            ),
            pf(
                "c/c.go",
                vec![
                    def("Flush", DefKind::Method, 1),
                    def("Validate", DefKind::Method, 5),
                ],
                vec![],
                vec![],
            ),
            // A function named Close is not a method: no match for `f.Close()`.
            pf("d/d.go", vec![fun("Close")], vec![], vec![]),
            // A package `a/a.go` does not import: its `Validate` is no receiver's in view.
            pf(
                "e/e.go",
                vec![def("Validate", DefKind::Method, 5)],
                vec![],
                vec![],
            ),
        ];
        let g = build_graph(&files, &go_mod(), &[]);
        assert_eq!(edge_idents(&g, 0, 1), Some(vec!["Flush".into()]));
        assert_eq!(edge_idents(&g, 0, 2), Some(vec!["Validate".into()]));
        assert_eq!(edge_idents(&g, 0, 3), None);
        assert_eq!(edge_idents(&g, 0, 4), None);
        assert!(edge_w(&g, 0, 2) < 0.1 * edge_w(&g, 0, 1));
    }

    #[test]
    fn go_test_files_visibility() {
        let files = vec![
            pf("p/p.go", vec![], vec![call("helperT")], vec![]),
            pf(
                "p/p_test.go",
                vec![fun("helperT")],
                vec![call("helperT2")],
                vec![],
            ),
            pf("p/util_test.go", vec![fun("helperT2")], vec![], vec![]),
        ];
        let g = build_graph(&files, &go_mod(), &[]);
        assert_eq!(edge_idents(&g, 0, 1), None);
        assert_eq!(edge_idents(&g, 1, 2), Some(vec!["helperT2".into()]));
    }

    #[test]
    fn file_stems() {
        assert_eq!(
            file_stem_key("src/file_graph.rs").as_deref(),
            Some("filegraph")
        );
        assert_eq!(
            file_stem_key("src/store/index.ts").as_deref(),
            Some("store")
        );
        assert_eq!(file_stem_key("x.test.ts").as_deref(), Some("x"));
    }

    #[test]
    fn deterministic() {
        let files = vec![
            pf(
                "a.py",
                vec![fun("alpha")],
                vec![call("beta"), call("gamma")],
                vec![],
            ),
            pf(
                "b.py",
                vec![fun("beta"), fun("gamma")],
                vec![call("alpha")],
                vec![],
            ),
            pf("c.py", vec![fun("gamma")], vec![call("beta")], vec![]),
        ];
        let g1 = build_graph(&files, &[], &[]);
        let g2 = build_graph(&files, &[], &[]);
        let dump = |g: &FileGraph| {
            (0..3)
                .map(|i| format!("{:?}", g.outgoing(i)))
                .collect::<Vec<_>>()
        };
        assert_eq!(dump(&g1), dump(&g2));
        assert_eq!(g1.edge_w, g2.edge_w);
    }

    #[test]
    fn use_counts_count_repeats_and_keep_every_name_in_order() {
        let at = |r: Reference, line: u32| Reference { line, ..r };
        let refs: RefList = vec![
            at(rf("mod", RefKind::Import, None), 1),
            at(call("f"), 2),
            at(rf("g", RefKind::Call, Some("obj")), 2),
            at(call("f"), 3),
            at(rf("f", RefKind::Type, None), 3),
            at(rf("g", RefKind::Call, Some("obj")), 5),
        ]
        .into();
        let counts = UseCounts::from_refs(&refs);
        assert_eq!(
            counts.names().collect::<Vec<_>>(),
            refs.names().collect::<Vec<_>>()
        );
        let mut uses: Vec<(String, RefKind, Option<String>, u32)> = counts
            .uses()
            .map(|u| {
                (
                    u.name.to_string(),
                    u.kind,
                    u.qualifier.map(str::to_string),
                    u.count,
                )
            })
            .collect();
        uses.sort();
        assert_eq!(
            uses,
            vec![
                ("f".to_string(), RefKind::Call, None, 2),
                ("f".to_string(), RefKind::Type, None, 1),
                ("g".to_string(), RefKind::Call, Some("obj".to_string()), 2),
            ]
        );
    }

    /// The counts as they were taken before `from_refs` read the packed uses: names hashed
    /// into ids one by one, uses counted in a hash map. The oracle for the property below.
    fn use_counts_by_hashing(refs: &RefList) -> Vec<(String, RefKind, Option<String>, u32)> {
        let mut counts: std::collections::HashMap<(String, RefKind, Option<String>), u32> =
            std::collections::HashMap::new();
        for r in refs {
            if r.kind != RefKind::Import {
                *counts
                    .entry((r.name.to_string(), r.kind, r.qualifier.map(str::to_string)))
                    .or_insert(0) += 1;
            }
        }
        let mut out: Vec<_> = counts
            .into_iter()
            .map(|((n, k, q), c)| (n, k, q, c))
            .collect();
        out.sort();
        out
    }

    proptest::proptest! {
        /// Counting from the list's packed uses gives what counting names gives, on lists
        /// with repeated names, qualifiers that are also names, and imports.
        #[test]
        fn use_counts_equal_counting_by_name(
            raw in proptest::collection::vec((0u8..6, 0u8..5, 0u8..4, 1u32..40), 0..60)
        ) {
            let kinds = [RefKind::Call, RefKind::Reference, RefKind::Type, RefKind::Heritage, RefKind::Import];
            let names = ["a", "b", "self", "x_y", "Klass", "z"];
            let mut refs: Vec<Reference> = raw
                .iter()
                .map(|&(n, k, q, line)| Reference {
                    line,
                    ..rf(
                        names[n as usize],
                        kinds[k as usize],
                        (q > 0).then(|| names[q as usize]),
                    )
                })
                .collect();
            refs.sort_by(|a, b| (a.line, &a.name, a.kind, &a.qualifier).cmp(&(b.line, &b.name, b.kind, &b.qualifier)));
            refs.dedup();
            let refs: RefList = refs.into();
            let counts = UseCounts::from_refs(&refs);
            let mut got: Vec<_> = counts
                .uses()
                .map(|u| (u.name.to_string(), u.kind, u.qualifier.map(str::to_string), u.count))
                .collect();
            got.sort();
            proptest::prop_assert_eq!(got, use_counts_by_hashing(&refs));
            proptest::prop_assert_eq!(counts.names().collect::<Vec<_>>(), refs.names().collect::<Vec<_>>());
            // Sorted and distinct by (name and kind, qualifier), as binding reads them.
            proptest::prop_assert!(counts.items.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
        }
    }

    #[test]
    fn consuming_build_has_the_full_builds_ranking_tables() {
        let at = |r: Reference, line: u32| Reference { line, ..r };
        let typ = |n: &str| rf(n, RefKind::Type, None);
        let files = vec![
            pf(
                "pkg/a.py",
                vec![
                    fun("alpha"),
                    def("Klass", DefKind::Class, 3),
                    def("method_x", DefKind::Method, 5),
                ],
                vec![
                    at(rf("beta", RefKind::Import, None), 1),
                    at(call("beta"), 2),
                    at(typ("gamma"), 3),
                    at(rf("method_y", RefKind::Call, Some("self")), 4),
                    at(call("beta"), 7),
                    at(rf("method_y", RefKind::Call, Some("self")), 8),
                    at(typ("gamma"), 9),
                    at(rf("gamma", RefKind::Reference, Some("c")), 10),
                    at(call("beta"), 11),
                ],
                vec![named(".b", &[("beta", None)]), ns(".c", Some("c"))],
            ),
            pf(
                "pkg/b.py",
                vec![
                    fun("beta"),
                    fun("gamma"),
                    def("method_y", DefKind::Method, 4),
                ],
                vec![
                    at(call("alpha"), 2),
                    at(call("alpha"), 3),
                    at(rf("gamma", RefKind::Heritage, Some("c")), 5),
                ],
                vec![ns(".c", Some("c"))],
            ),
            pf(
                "pkg/c.py",
                vec![fun("gamma"), def("method_y", DefKind::Method, 2)],
                vec![at(call("beta"), 1), at(call("beta"), 4)],
                vec![],
            ),
        ];
        let full = build_graph(&files, &[], &[]);
        // Whether binding gives memory back as it goes changes nothing in the graph.
        for trim_heap in [false, true] {
            // Leaving out the query-word tables changes only those tables.
            for query_words in [true, false] {
                let uses = TakenUses {
                    refs: files
                        .iter()
                        .map(|f| UseCounts::from_refs(&f.tags.refs))
                        .collect(),
                    imports: files.iter().map(|f| f.tags.imports.clone()).collect(),
                    trim_heap,
                    query_words,
                };
                assert!(uses.refs[0].items.len() < files[0].tags.refs.len());
                let mut bare = files.clone();
                for f in &mut bare {
                    f.tags = Arc::new(FileTags {
                        defs: f.tags.defs.clone(),
                        ..FileTags::default()
                    });
                }
                let once = build_graph_consuming(&bare, &[], &[], uses);
                same_ranking_tables(&once, &full);
                if query_words {
                    assert_eq!(once.path_words, full.path_words);
                    assert_eq!(once.def_words, full.def_words);
                } else {
                    assert!(once.path_words.is_empty() && once.def_words.is_empty());
                    assert!(!full.path_words.is_empty() && !full.def_words.is_empty());
                }
                assert_eq!(once.stem_files, full.stem_files);
                assert_eq!(once.path_order, full.path_order);
            }
        }
    }

    /// The one-shot build binds as the full build does on real tags of every language,
    /// package and namespace declarations included (Java, C#, PHP resolve imports through
    /// them: a one-shot build that read them from the files, where it had taken them out,
    /// bound those languages' imports to nothing).
    #[test]
    fn a_one_shot_build_binds_every_language_as_the_full_build_does() {
        let sources: &[(&str, &str)] = &[
            ("src/main/java/org/demo/core/Engine.java", "package org.demo.core;\n\npublic class Engine {\n    public int run() { return 1; }\n}\n"),
            ("src/main/java/org/demo/app/Main.java", "package org.demo.app;\n\nimport org.demo.core.Engine;\n\npublic class Main {\n    public int go() { Engine e = new Engine(); return e.run(); }\n}\n"),
            ("cs/Core/Store.cs", "namespace Demo.Core {\n    public class Store { public int Load() { return 1; } }\n}\n"),
            ("cs/App/Program.cs", "using Demo.Core;\nnamespace Demo.App {\n    public class Program { public int Main() { var s = new Store(); return s.Load(); } }\n}\n"),
            ("php/src/Core/Cache.php", "<?php\nnamespace Demo\\Core;\n\nclass Cache {\n    public function get() { return 1; }\n}\n"),
            ("php/src/App/Page.php", "<?php\nnamespace Demo\\App;\n\nuse Demo\\Core\\Cache;\n\nclass Page {\n    public function show() { $c = new Cache(); return $c->get(); }\n}\n"),
            ("rs/src/lib.rs", "pub mod store;\npub fn top() -> u32 { store::load() }\n"),
            ("rs/src/store.rs", "pub fn load() -> u32 { 1 }\n"),
            ("go/a/a.go", "package a\n\nfunc Load() int { return 1 }\n"),
            ("go/b/b.go", "package b\n\nimport \"example.com/m/a\"\n\nfunc Use() int { return a.Load() }\n"),
            ("rb/lib/store.rb", "module Demo\n  class Store\n    def load\n      1\n    end\n  end\nend\n"),
            ("rb/lib/app.rb", "require_relative 'store'\n\nclass App\n  def run\n    Demo::Store.new.load\n  end\nend\n"),
            ("c/store.h", "int store_load(void);\n"),
            ("c/main.c", "#include \"store.h\"\nint main(void) { return store_load(); }\n"),
            ("py/pkg/store.py", "def load():\n    return 1\n"),
            ("py/pkg/app.py", "from .store import load\n\ndef run():\n    return load()\n"),
            ("ts/store.ts", "export function load(): number { return 1 }\n"),
            ("ts/app.ts", "import { load } from './store'\nexport function run(): number { return load() }\n"),
        ];
        let files: Vec<ParsedFile> = sources
            .iter()
            .map(|&(path, text)| {
                let lang = crate::engine::base::model::Lang::from_path(path).unwrap();
                let tags = crate::engine::ingest::tags::extract_tags(lang, text);
                ParsedFile::new(path.into(), lang, text.len() as u64, Arc::from(text), tags)
            })
            .collect();
        let go = [GoModule {
            dir: "go".into(),
            module: "example.com/m".into(),
        }];
        let full = build_graph(&files, &go, &[]);
        let uses = TakenUses {
            refs: files
                .iter()
                .map(|f| UseCounts::from_refs(&f.tags.refs))
                .collect(),
            imports: files.iter().map(|f| f.tags.imports.clone()).collect(),
            trim_heap: false,
            query_words: true,
        };
        // What a one-shot build keeps of each file (`index::build::rehomed`).
        let mut bare = files.clone();
        for f in &mut bare {
            f.tags = Arc::new(FileTags {
                defs: f.tags.defs.clone(),
                containers: f.tags.containers.clone(),
                ..FileTags::default()
            });
        }
        let once = build_graph_consuming(&bare, &go, &[], uses);
        same_ranking_tables(&once, &full);
        // The imports that go through a package declaration are bound at all.
        let at = |p: &str| files.iter().position(|f| f.path == p).unwrap();
        for (from, to) in [
            (
                "src/main/java/org/demo/app/Main.java",
                "src/main/java/org/demo/core/Engine.java",
            ),
            ("cs/App/Program.cs", "cs/Core/Store.cs"),
            ("php/src/App/Page.php", "php/src/Core/Cache.php"),
        ] {
            assert!(edge_w(&once, at(from), at(to)) > 0.0, "{from} -> {to}");
        }
    }

    /// The tables ranking reads are the same in both graphs.
    fn same_ranking_tables(once: &FileGraph, full: &FileGraph) {
        assert!(full.edge_count() >= 3);
        assert_eq!(once.edge_count(), full.edge_count());
        assert_eq!(once.edge_w, full.edge_w);
        let tables = |g: &FileGraph| {
            format!(
                "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                g.edges,
                g.trips,
                g.trip_defs,
                g.ident_trips,
                g.ident_names,
                g.def_offset,
                g.ident_files
            )
        };
        assert_eq!(tables(once), tables(full));
        for f in 0..full.node_count() {
            assert_eq!(once.incoming(f), full.incoming(f));
        }
    }
}
