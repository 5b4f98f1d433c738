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
//!    drops the reference: it is not the repo's.
//! 2. Defined in its own file: no edge.
//! 3. Go: an unqualified name → the files of the same package (directory) defining it, or a
//!    dot-import; never anything else. Python `from m import *` likewise. Java: a
//!    capitalized unqualified name → the same directory's files defining it (its package),
//!    else rule 4; C/C++ includes, Ruby requires and PHP includes are wildcards that reach
//!    what the included file includes (`includes_are_transitive`).
//! 4. Fallback: the bare name in every file of the same language family defining it, split
//!    over those files and down-weighted; in TS/JS only scripts and `.d.ts` files count (a
//!    module's names are out of scope unless imported: `const Object` in some module is not
//!    what `Object.keys` means elsewhere); names with more than `FALLBACK_MAX_DEFINERS`
//!    definers and single-character names are skipped. A member use with a qualifier that is
//!    not an import (`x.Close()`, `self.m()`) only matches method definitions, much weaker,
//!    and in Go first the same package's methods. A guess from implementation never lands in
//!    supporting code (tests, fixtures, examples, external `.pyi` stubs: `Builder::may_guess`).
//!
//! Weights (see the constants): per (source, target, identifier, binding class) the kind
//! weights of the references are summed, then
//! `weight = sqrt(sum) × class weight × identifier multiplier / number of target files`.
//! The sqrt (as in aider) keeps a file that calls one helper 50 times from drowning the rest;
//! splitting over targets makes one ambiguous reference worth as much as an unambiguous one
//! in total.
//! - kind: Heritage 2, Call 1, Type 1, Reference 0.5, the import statement's own name 0.5;
//! - class: resolved (import, Go package) 1, `Imported.member` 0.7, module without the
//!   definition 0.5, Go same-package method 0.5, bare-name fallback 0.1, method fallback 0.02
//!   (so a resolved use outweighs a guess 10-50×, before the split over definers);
//! - identifier: `_private` ×0.1; a long camelCase/snake_case name ×3 on guesses only (it makes
//!   a bare-name match more likely right; on resolved edges it says nothing). Mentioned
//!   identifiers (×10) are applied per request in `rank`.

use crate::engine::model::{
    pack_name_kind, unpack_name_kind, DefKind, GoModule, Import, Lang, NameTable, ParsedFile,
    RefKind, RefList,
};
use crate::engine::resolve::{
    go_package_names, split_dir, ResolvedImport, Resolver, REEXPORT_DEPTH,
};
use crate::engine::search::paths::{classify, is_declaration_file, PathClass};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

mod relink;
mod store;
pub use relink::build_graph_relinking;
pub use store::StoredGraph;

/// A fallback name defined in more files than this is too generic to say anything.
pub const FALLBACK_MAX_DEFINERS: usize = 20;

/// Weight of a use by its kind: inheritance says the most about a dependency, a plain mention
/// (passing a value along) the least; the import statement itself counts like a mention.
fn kind_weight(kind: RefKind) -> f64 {
    match kind {
        RefKind::Heritage => 2.0,
        RefKind::Call | RefKind::Type => 1.0,
        RefKind::Reference | RefKind::Import => 0.5,
    }
}

/// How a use was bound to its target; the weight says how sure we are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Binding {
    /// Through an import (named, namespace, wildcard, Go package qualifier) or the same Go
    /// package: the target is known.
    Resolved,
    /// `Imported.member`: a member found in the file defining the imported name.
    Member,
    /// The import resolved, but no definition of the name was found in the module.
    ModuleOnly,
    /// A Go method call matched to a method of the same package.
    PackageMethod,
    /// Bare-name match of an unbound, unqualified name.
    Fallback,
    /// Bare-name match of `x.method()` where `x` is not an import.
    MethodFallback,
}

impl Binding {
    fn weight(self) -> f64 {
        match self {
            Binding::Resolved => 1.0,
            Binding::Member => 0.7,
            Binding::ModuleOnly | Binding::PackageMethod => 0.5,
            Binding::Fallback => 0.1,
            Binding::MethodFallback => 0.02,
        }
    }

    fn is_guess(self) -> bool {
        matches!(self, Binding::Fallback | Binding::MethodFallback)
    }
}

/// Identifier multiplier. `_private` names are internal plumbing (×0.1, like aider). A long
/// camelCase/snake_case name is distinctive, so a bare-name guess on it is more likely right
/// (×3); on resolved edges the name says nothing about correctness, so no boost there.
fn ident_multiplier(name: &str, binding: Binding) -> f64 {
    let mut m = 1.0;
    if name.starts_with('_') {
        m *= 0.1;
    }
    if binding.is_guess() && is_distinctive(name) {
        m *= 3.0;
    }
    m
}

fn is_distinctive(name: &str) -> bool {
    let snake = name.contains('_') && name.chars().any(char::is_alphabetic);
    // A hump, not just a capital: Go's exported `Validate` is one plain word.
    let chars: Vec<char> = name.chars().collect();
    let camel = chars
        .windows(2)
        .any(|w| w[0].is_lowercase() && w[1].is_uppercase());
    (snake || camel) && name.chars().count() >= 8
}

/// Objects every JS runtime (browser or Node) provides without an import: their members are
/// the runtime's, never a repository's methods. Only consulted for a qualifier that no
/// import of the file binds.
fn is_js_global_object(name: &str) -> bool {
    const GLOBALS: [&str; 30] = [
        "Array",
        "Atomics",
        "BigInt",
        "Buffer",
        "Date",
        "Error",
        "Intl",
        "JSON",
        "Map",
        "Math",
        "Number",
        "Object",
        "Promise",
        "Proxy",
        "Reflect",
        "RegExp",
        "Set",
        "String",
        "Symbol",
        "URL",
        "WeakMap",
        "WebAssembly",
        "console",
        "document",
        "globalThis",
        "localStorage",
        "location",
        "navigator",
        "process",
        "window",
    ];
    GLOBALS.binary_search(&name).is_ok()
}

/// Languages whose wildcard imports load another file's names into every file that loads
/// this one (Python star imports, C/C++ includes, Ruby requires, PHP includes).
fn includes_are_transitive(lang: Lang) -> bool {
    matches!(
        lang,
        Lang::Python | Lang::C | Lang::Cpp | Lang::Ruby | Lang::Php
    )
}

/// Language family: references only fall back to definitions of the same family.
fn family(lang: Lang) -> usize {
    match lang {
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => 0,
        Lang::Python => 1,
        Lang::Go => 2,
        Lang::Rust => 3,
        Lang::Java => 4,
        // C code calls into C++ headers and back: one family.
        Lang::C | Lang::Cpp => 5,
        Lang::CSharp => 6,
        Lang::Ruby => 7,
        Lang::Php => 8,
    }
}
const FAMILIES: usize = 9;

/// FxHash (`rustc-hash`, rustc's hasher): the graph build hashes a few million short keys
/// (identifiers, id pairs) and SipHash's DoS resistance buys nothing for a repository's own
/// names. Maps are only ever looked up, never iterated into results, so order does not leak.
pub(crate) type FastMap<K, V> = rustc_hash::FxHashMap<K, V>;
pub(crate) type FastSet<K> = rustc_hash::FxHashSet<K>;

/// One edge of the file graph.
#[derive(Debug, Clone, PartialEq)]
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
    pub graph: DiGraph<usize, FileEdge>,
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
    pub fn incoming(&self, file: usize) -> Vec<(usize, &FileEdge)> {
        self.neighbours(file, Direction::Incoming)
    }

    /// Edges out of `file` as (target, edge), by target.
    pub fn outgoing(&self, file: usize) -> Vec<(usize, &FileEdge)> {
        self.neighbours(file, Direction::Outgoing)
    }

    fn neighbours(&self, file: usize, dir: Direction) -> Vec<(usize, &FileEdge)> {
        if file >= self.n {
            return Vec::new();
        }
        let mut out: Vec<(usize, &FileEdge)> = self
            .graph
            .edges_directed(NodeIndex::new(file), dir)
            .map(|e| {
                let other = match dir {
                    Direction::Outgoing => e.target(),
                    Direction::Incoming => e.source(),
                };
                (self.graph[other], e.weight())
            })
            .collect();
        out.sort_by_key(|&(f, _)| f);
        out
    }

    /// The identifiers that produced an edge with their weights, sorted by name.
    pub fn edge_idents(&self, edge: &FileEdge) -> Vec<(&str, f64)> {
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

/// Interned identifier ids, assigned in first-seen order (deterministic: files are visited
/// in index order). The names are owned (they become the graph's `ident_names` and
/// `ident_ids` as they are), so the references they came from can be freed mid-build.
#[derive(Default)]
struct Interner {
    ids: FastMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
}

impl Interner {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as u32;
        let name: Arc<str> = Arc::from(s);
        self.ids.insert(name.clone(), id);
        self.names.push(name);
        id
    }

    fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", |n| n)
    }
    fn get(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }
}

/// Names a file's imports bind in its scope.
#[derive(Default)]
struct Scope<'a> {
    /// Local name → (import index, index into its `names`).
    named: FastMap<&'a str, Vec<(usize, usize)>>,
    /// Namespace binding (`import * as ns`, Python module, Go package name) → imports.
    namespaces: FastMap<&'a str, Vec<usize>>,
    /// Imports whose names all land in scope (`from m import *`, Go dot-import).
    wildcards: Vec<usize>,
}

/// One file's contributions: per (target, identifier, binding), the summed kind weight and
/// the number of targets the uses were split over.
struct Acc {
    from: usize,
    map: FastMap<(u32, u32, Binding), (f64, f64)>,
}

impl Acc {
    /// Record a use bound to `targets` (split among them). A target that does not define the
    /// identifier (the module an import resolved to) is demoted to `ModuleOnly`.
    fn add(
        &mut self,
        targets: &[(usize, u32)],
        binding: Binding,
        w: f64,
        defines: impl Fn(usize, u32) -> bool,
    ) {
        let split = targets.len() as f64;
        for &(t, id) in targets {
            if t == self.from {
                continue;
            }
            let b = if binding == Binding::Resolved && !defines(t, id) {
                Binding::ModuleOnly
            } else {
                binding
            };
            let e = self.map.entry((t as u32, id, b)).or_insert((0.0, 1.0));
            e.0 += w;
            e.1 = e.1.max(split);
        }
    }
}

/// A bound use: (target file, identifier id to credit there).
type Target = (usize, u32);

/// Per-file caches of chain lookups and named-import bindings (a file asks the same
/// question for every use of a name). Per file so that files can run in parallel.
#[derive(Default)]
struct Memo {
    definers: FastMap<(u32, u32), Vec<Target>>,
    bound: FastMap<(usize, usize), Option<Vec<Target>>>,
}

struct Builder<'a> {
    files: &'a [ParsedFile],
    /// The files' imports when taken out of them (`build_graph_consuming`).
    owned_imports: Option<Vec<Vec<Import>>>,
    interner: Interner,
    /// Per file: (identifier id, definition index), sorted.
    file_defs: Vec<Vec<(u32, u32)>>,
    /// Per family, per identifier id: files defining it / defining it as a method.
    definers: Vec<Csr<u32>>,
    method_definers: Vec<Csr<u32>>,
    resolved: Vec<Vec<ResolvedImport>>,
    file_dir: Vec<&'a str>,
    go_dirs: FastMap<&'a str, Vec<u32>>,
    /// Per file: a Python stub of code outside the repository (`external_stub_files`).
    external_stubs: Vec<bool>,
    /// Per file: supporting code (`is_supporting_path`) or an external stub.
    supporting: Vec<bool>,
}

pub fn build_graph(files: &[ParsedFile], go_modules: &[GoModule]) -> FileGraph {
    build(files, go_modules, None)
}

/// `build_graph` taking the bindings of the files `prior` says are unaffected from the
/// previous graph (see `relink`).
fn build_with_prior(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    prior: Option<&relink::Prior<'_>>,
) -> FileGraph {
    build_inner(files, go_modules, None, prior)
}

/// What binding reads of each file, taken out of the files (`refs[i]`, `imports[i]` are file
/// `i`'s) so that a one-shot build can free it as soon as it is used.
#[derive(Debug, Default)]
pub struct TakenUses {
    pub refs: Vec<UseCounts>,
    pub imports: Vec<Vec<Import>>,
}

/// A file's references as binding reads them: each distinct (name, kind, qualifier) once,
/// with its number of uses; import-statement names left out (binding counts those from the
/// import statements); every name of the list kept, in its order (identifier ids follow it).
///
/// Why: a one-shot build holds every file's references until binding; most are repeats
/// (`self.x`, the same type in many annotations). Binding gives the same result: a use adds
/// its kind weight (0.5, 1 or 2) to sums that are exact in `f64`, so `count × weight` once
/// equals `weight` `count` times, in any order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UseCounts {
    /// The list's distinct names, in its order.
    names: NameTable,
    /// (name index and kind packed by `pack_name_kind`, qualifier index + 1 or 0, uses),
    /// sorted.
    items: Vec<(u32, u32, u32)>,
}

impl UseCounts {
    pub fn from_refs(refs: &RefList) -> UseCounts {
        let mut names = NameTable::new();
        let mut ids: FastMap<&str, u32> = FastMap::default();
        for name in refs.names() {
            ids.insert(name, names.push(name));
        }
        let mut counts: FastMap<(u32, u32), u32> = FastMap::default();
        for r in refs {
            if r.kind == RefKind::Import {
                continue;
            }
            let Some(&name) = ids.get(r.name) else {
                continue;
            };
            let qualifier = match r.qualifier {
                None => 0,
                Some(q) => match ids.get(q) {
                    Some(&i) => i + 1,
                    None => continue,
                },
            };
            *counts
                .entry((pack_name_kind(name, r.kind), qualifier))
                .or_insert(0) += 1;
        }
        let mut items: Vec<(u32, u32, u32)> =
            counts.into_iter().map(|((n, q), c)| (n, q, c)).collect();
        items.sort_unstable();
        UseCounts { names, items }
    }

    /// The distinct names, in the references' first-use order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter()
    }

    fn name_at(&self, i: usize) -> &str {
        self.names.get(i)
    }

    /// (name, kind, qualifier, number of uses).
    fn uses(&self) -> impl Iterator<Item = Use<'_>> {
        self.items.iter().map(|&(nk, q, count)| {
            let (name, kind) = unpack_name_kind(nk);
            Use {
                name: self.name_at(name),
                kind,
                qualifier: (q > 0).then(|| self.name_at(q as usize - 1)),
                count,
            }
        })
    }
}

/// One reference (or several identical ones) as binding reads it.
struct Use<'r> {
    name: &'r str,
    kind: RefKind,
    qualifier: Option<&'r str>,
    count: u32,
}

fn uses_of(refs: &RefList) -> impl Iterator<Item = Use<'_>> {
    refs.iter().map(|r| Use {
        name: r.name,
        kind: r.kind,
        qualifier: r.qualifier,
        count: 1,
    })
}

/// `build_graph` for a one-shot build (a map ranked once) of files whose references and
/// imports were taken out of them. Each file's references are freed as soon as the file is
/// bound, the imports once binding is done, and the freed memory is given back to the
/// system before the graph's tables are built, so the build's peak memory does not hold them
/// all at once. The ranking tables are the same as `build_graph`'s on the files with their
/// uses; the petgraph view (`graph`, `incoming`, `outgoing`) is left empty: only ranking
/// reads a one-shot graph.
pub fn build_graph_consuming(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    uses: TakenUses,
) -> FileGraph {
    build(files, go_modules, Some(uses))
}

fn build(files: &[ParsedFile], go_modules: &[GoModule], owned: Option<TakenUses>) -> FileGraph {
    build_inner(files, go_modules, owned, None)
}

fn build_inner(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    owned: Option<TakenUses>,
    prior: Option<&relink::Prior<'_>>,
) -> FileGraph {
    let n = files.len();
    let (owned_refs, owned_imports) = match owned {
        Some(uses) => (Some(uses.refs), Some(uses.imports)),
        None => (None, None),
    };
    let ref_names_of = |fi: usize| -> Box<dyn Iterator<Item = &str> + '_> {
        match &owned_refs {
            Some(lists) => Box::new(lists.get(fi).into_iter().flat_map(UseCounts::names)),
            None => Box::new(files[fi].tags.refs.names()),
        }
    };
    let imports_of = |fi: usize| imports_in(&owned_imports, files, fi);
    let mut interner = Interner::default();
    let mut file_defs = Vec::with_capacity(n);
    for f in files {
        let mut defs: Vec<(u32, u32)> = f
            .tags
            .defs
            .iter()
            .enumerate()
            .map(|(i, d)| (interner.intern(&d.name), i as u32))
            .collect();
        defs.sort_unstable();
        file_defs.push(defs);
    }
    // Definition names were interned first, so the definer tables need only their ids.
    let n_def_ids = interner.names.len();
    for fi in 0..n {
        // Names and qualifiers (a Go package is bound by whichever spelling the file uses),
        // each distinct one once, in the order the references first use them.
        for name in ref_names_of(fi) {
            interner.intern(name);
        }
        for imp in imports_of(fi) {
            for nm in &imp.names {
                interner.intern(&nm.name);
                if let Some(a) = &nm.alias {
                    interner.intern(a);
                }
            }
            if let Some(ns) = &imp.namespace {
                interner.intern(ns);
            }
        }
    }
    interner.intern("*");

    // (identifier id, file) pairs per family, made rows below (a `Vec` per identifier and
    // family was MBs of mostly empty vectors on a large repository).
    let mut definer_pairs: Vec<Vec<(u32, u32)>> = vec![Vec::new(); FAMILIES];
    let mut method_pairs: Vec<Vec<(u32, u32)>> = vec![Vec::new(); FAMILIES];
    for (fi, f) in files.iter().enumerate() {
        let fam = family(f.lang);
        let defs = &file_defs[fi];
        let mut last_method = None;
        // A bare name can only mean what is in scope: a TS/JS module's names are not, unless
        // imported (rule 1); scripts and declaration files define globals.
        let bare_visible = !f.tags.module_scoped || is_declaration_file(&f.path);
        for (k, &(id, d)) in defs.iter().enumerate() {
            if bare_visible && (k == 0 || defs[k - 1].0 != id) {
                definer_pairs[fam].push((id, fi as u32));
            }
            let is_method = f.tags.defs[d as usize].kind == DefKind::Method;
            if is_method && last_method != Some(id) {
                method_pairs[fam].push((id, fi as u32));
                last_method = Some(id);
            }
        }
    }
    // Within an identifier, files stay in index order.
    let rows = |pairs: Vec<Vec<(u32, u32)>>| -> Vec<Csr<u32>> {
        pairs
            .into_iter()
            .map(|mut p| {
                p.sort_unstable();
                csr_from_sorted(n_def_ids, p.into_iter().map(|(id, f)| (id as usize, f)))
            })
            .collect()
    };
    let definers = rows(definer_pairs);
    let method_definers = rows(method_pairs);

    let resolver = Resolver::new(files, go_modules);
    let resolved: Vec<Vec<ResolvedImport>> = (0..n)
        .map(|fi| {
            imports_of(fi)
                .iter()
                .map(|imp| resolver.resolve_detail(fi, imp))
                .collect()
        })
        .collect();
    drop(resolver);

    let file_dir: Vec<&str> = files.iter().map(|f| split_dir(&f.path).0).collect();
    let mut go_dirs: FastMap<&str, Vec<u32>> = FastMap::default();
    for (fi, f) in files.iter().enumerate() {
        if f.lang == Lang::Go {
            go_dirs.entry(file_dir[fi]).or_default().push(fi as u32);
        }
    }

    let supporting_paths: Vec<bool> = files.iter().map(|f| is_supporting_path(&f.path)).collect();
    let external_stubs = external_stub_files(files, &supporting_paths);
    let b = Builder {
        files,
        owned_imports,
        interner,
        file_defs,
        definers,
        method_definers,
        resolved,
        file_dir,
        go_dirs,
        supporting: supporting_paths
            .iter()
            .zip(&external_stubs)
            .map(|(&path, &stub)| path || stub)
            .collect(),
        external_stubs,
    };

    // Per source file: its (target, identifier, weight) triples, sorted. Files are
    // independent here, so they run on rayon; `collect` keeps file order, so the result is
    // deterministic.
    let consumed = owned_refs.is_some();
    let per_file: Vec<Vec<FileTriple>> = match owned_refs {
        Some(lists) => lists
            .into_par_iter()
            .enumerate()
            // The list is dropped as soon as its file is bound; every so often the memory
            // binding freed (lists, per-file lookup caches) goes back to the system.
            .map(|(fi, refs)| {
                if fi % 64 == 63 {
                    crate::engine::heap::release_free_memory();
                }
                b.file_triples(fi, refs.uses())
            })
            .collect(),
        None => (0..n)
            .into_par_iter()
            .map(|fi| {
                prior
                    .and_then(|p| p.triples(fi, &b.interner))
                    .unwrap_or_else(|| b.file_triples(fi, uses_of(&files[fi].tags.refs)))
            })
            .collect(),
    };

    b.into_graph(n, per_file, consumed, prior)
}

/// The graph's tables that depend only on the files' paths.
pub(super) struct PathTables {
    stem_files: FastMap<String, Vec<u32>>,
    path_words: FastMap<String, Vec<u32>>,
    path_order: Vec<u32>,
}

fn path_tables(files: &[ParsedFile]) -> PathTables {
    let mut stem_files: FastMap<String, Vec<u32>> = FastMap::default();
    let mut path_words: FastMap<String, Vec<u32>> = FastMap::default();
    for (fi, f) in files.iter().enumerate() {
        let fi32 = fi as u32;
        if let Some(stem) = file_stem_key(&f.path) {
            stem_files.entry(stem).or_default().push(fi32);
        }
        let mut words: Vec<String> = Vec::new();
        for comp in f.path.split('/') {
            words.extend(split_words(comp));
        }
        words.sort_unstable();
        words.dedup();
        for w in words {
            path_words.entry(w).or_default().push(fi32);
        }
    }
    let n = files.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| files[a].path.cmp(&files[b].path).then(a.cmp(&b)));
    let mut path_order = vec![0u32; n];
    for (pos, &f) in order.iter().enumerate() {
        path_order[f] = pos as u32;
    }
    PathTables {
        stem_files,
        path_words,
        path_order,
    }
}

/// How often each word of `f`'s definition names occurs (`FileGraph::def_words`).
fn def_word_counts(f: &ParsedFile) -> BTreeMap<String, u32> {
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    for d in &f.tags.defs {
        for w in split_words(&d.name) {
            *counts.entry(w).or_insert(0) += 1;
        }
    }
    counts
}

/// File `fi`'s imports: taken out of the files (a one-shot build) or still in them.
fn imports_in<'i>(
    owned: &'i Option<Vec<Vec<Import>>>,
    files: &'i [ParsedFile],
    fi: usize,
) -> &'i [Import] {
    match owned {
        Some(lists) => lists.get(fi).map_or(&[], Vec::as_slice),
        None => &files[fi].tags.imports,
    }
}

/// One (target file, identifier id, weight) triple of a source file.
type FileTriple = (u32, u32, f64);

impl<'a> Builder<'a> {
    fn imports(&self, fi: usize) -> &[Import] {
        imports_in(&self.owned_imports, self.files, fi)
    }

    fn defines(&self, file: usize, id: u32) -> bool {
        self.file_defs[file]
            .binary_search_by(|&(i, _)| i.cmp(&id))
            .is_ok()
    }

    /// Where `name` as seen from `targets` really lives, following re-exports: (file, name
    /// there). A re-export chain that ends in a module without the definition yields that
    /// module with the name looked for (a module-only target).
    fn find_definers(&self, memo: &mut Memo, targets: &[usize], name: u32) -> Vec<Target> {
        let mut out = Vec::new();
        for &t in targets {
            // The common case (the target defines it; any Go package) needs no chain.
            if self.defines(t, name) {
                out.push((t, name));
                continue;
            }
            if self.files[t].lang == Lang::Go {
                continue;
            }
            if let Some(hit) = memo.definers.get(&(t as u32, name)) {
                out.extend_from_slice(hit);
                continue;
            }
            let mut visited = FastSet::default();
            let hit = self.definers_from(t, name, REEXPORT_DEPTH, &mut visited);
            out.extend_from_slice(&hit);
            memo.definers.insert((t as u32, name), hit);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn definers_from(
        &self,
        t: usize,
        name: u32,
        depth: usize,
        visited: &mut FastSet<usize>,
    ) -> Vec<Target> {
        if self.defines(t, name) {
            return vec![(t, name)];
        }
        let file = &self.files[t];
        // Go packages do not re-export.
        if depth == 0 || file.lang == Lang::Go || !visited.insert(t) {
            return Vec::new();
        }
        let name_str = self.interner.name(name);
        let mut out = Vec::new();
        for (i, imp) in self.imports(t).iter().enumerate() {
            let ri = &self.resolved[t][i];
            for (k, nm) in imp.names.iter().enumerate() {
                let local = nm.alias.as_deref().unwrap_or(&nm.name);
                if local != name_str {
                    continue;
                }
                // `t` has the name only because it imports it (and, to be importable from
                // `t`, re-exports it), whether or not the statement says `export`.
                if let Some(sub) = ri.names.get(k).filter(|s| !s.is_empty()) {
                    out.extend(sub.iter().map(|&f| (f, name)));
                    continue;
                }
                let target_name = if nm.name == "default" {
                    name
                } else {
                    self.interner.get(&nm.name).unwrap_or(name)
                };
                let mut found = Vec::new();
                for &m in &ri.module {
                    found.extend(self.definers_from(m, target_name, depth - 1, visited));
                }
                if found.is_empty() {
                    found.extend(ri.module.iter().map(|&m| (m, target_name)));
                }
                out.extend(found);
            }
            if imp.namespace.as_deref() == Some(name_str) {
                out.extend(ri.module.iter().map(|&m| (m, name)));
            }
            // A wildcard puts names in `t`'s namespace only as a re-export (TS) or as a
            // Python star import; a C/C++ `#include`, a Ruby `require` and a PHP `include`
            // make what they load visible to whoever loads `t`.
            if imp.wildcard && (imp.reexport || includes_are_transitive(file.lang)) {
                for &m in &ri.module {
                    out.extend(self.definers_from(m, name, depth - 1, visited));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out.retain(|&(f, _)| f != t);
        out
    }

    fn scope(&self, fi: usize) -> Scope<'_> {
        let file: &'a ParsedFile = &self.files[fi];
        let mut s = Scope::default();
        for (i, imp) in self.imports(fi).iter().enumerate() {
            if file.lang == Lang::Go {
                match imp.namespace.as_deref() {
                    Some("_") => {}
                    Some(".") => s.wildcards.push(i),
                    _ if imp.wildcard => s.wildcards.push(i),
                    Some(alias) => s.namespaces.entry(alias).or_default().push(i),
                    None => {
                        // The package name is not in the import; every plausible spelling
                        // binds (the resolved package's own directory name included).
                        for name in go_package_names(&imp.specifier) {
                            if let Some(&id) = self.interner.ids.get(name.as_str()) {
                                let key = self.interner.name(id);
                                s.namespaces.entry(key).or_default().push(i);
                            }
                        }
                    }
                }
                continue;
            }
            // `export … from` does not bind anything in the exporting file's own scope.
            if imp.reexport {
                continue;
            }
            if let Some(ns) = imp.namespace.as_deref() {
                s.namespaces.entry(ns).or_default().push(i);
            }
            for (k, nm) in imp.names.iter().enumerate() {
                let local = nm.alias.as_deref().unwrap_or(&nm.name);
                s.named.entry(local).or_default().push((i, k));
            }
            if imp.wildcard {
                s.wildcards.push(i);
            }
        }
        s
    }

    /// Where a named import binding points: (file, identifier there). None when the import
    /// is external.
    fn bind_named(&self, memo: &mut Memo, fi: usize, imp: usize, k: usize) -> Option<Vec<Target>> {
        if let Some(hit) = memo.bound.get(&(imp, k)) {
            return hit.clone();
        }
        let hit = self.bind_named_uncached(memo, fi, imp, k);
        memo.bound.insert((imp, k), hit.clone());
        hit
    }

    fn bind_named_uncached(
        &self,
        memo: &mut Memo,
        fi: usize,
        imp: usize,
        k: usize,
    ) -> Option<Vec<Target>> {
        let nm = &self.imports(fi)[imp].names[k];
        let ri = &self.resolved[fi][imp];
        let local = self.interner.get(nm.alias.as_deref().unwrap_or(&nm.name))?;
        if let Some(sub) = ri.names.get(k).filter(|s| !s.is_empty()) {
            return Some(sub.iter().map(|&f| (f, local)).collect());
        }
        if ri.module.is_empty() {
            return None;
        }
        let module = ri.module.clone();
        // A default import has no exported name to look for; classes and functions exported
        // as default usually carry the name the importer gives them.
        let name = if nm.name == "default" {
            local
        } else {
            self.interner.get(&nm.name)?
        };
        let found = self.find_definers(memo, &module, name);
        if found.is_empty() {
            Some(module.into_iter().map(|m| (m, name)).collect())
        } else {
            Some(found)
        }
    }

    /// Per (target, identifier, binding): (summed kind weight, number of targets split over).
    /// One file's (target, identifier, weight) triples, sorted.
    fn file_triples<'r>(&self, fi: usize, uses: impl Iterator<Item = Use<'r>>) -> Vec<FileTriple> {
        let acc = self.file_contributions(fi, uses);
        let mut per: BTreeMap<(u32, u32), f64> = BTreeMap::new();
        // BTreeMap: the sum over bindings must not depend on hash order.
        let sorted: BTreeMap<(u32, u32, Binding), (f64, f64)> = acc.into_iter().collect();
        for ((dst, id, binding), (sum, split)) in sorted {
            let name = self.interner.name(id);
            let w = sum.sqrt() * binding.weight() * ident_multiplier(name, binding) / split;
            if w.is_finite() && w > 0.0 {
                *per.entry((dst, id)).or_insert(0.0) += w;
            }
        }
        per.into_iter().map(|((d, id), w)| (d, id, w)).collect()
    }

    fn file_contributions<'r>(
        &self,
        fi: usize,
        uses: impl Iterator<Item = Use<'r>>,
    ) -> FastMap<(u32, u32, Binding), (f64, f64)> {
        let memo = &mut Memo::default();
        let files = self.files;
        let file = &files[fi];
        let scope = self.scope(fi);
        let fam = family(file.lang);
        let mut acc = Acc {
            from: fi,
            map: FastMap::default(),
        };

        // The import statements themselves: each imported name is a use of its target, so
        // barrels link to what they re-export and unused imports still count a little.
        if file.lang != Lang::Go {
            for (i, imp) in self.imports(fi).iter().enumerate() {
                for k in 0..imp.names.len() {
                    if let Some(targets) = self.bind_named(memo, fi, i, k) {
                        let w = kind_weight(RefKind::Import);
                        acc.add(&targets, Binding::Resolved, w, |t, id| self.defines(t, id));
                    }
                }
                if imp.wildcard && imp.reexport {
                    let star = self.interner.get("*").unwrap_or(0);
                    let module: Vec<Target> = self.resolved[fi][i]
                        .module
                        .iter()
                        .map(|&m| (m, star))
                        .collect();
                    acc.add(
                        &module,
                        Binding::ModuleOnly,
                        kind_weight(RefKind::Import),
                        |_, _| true,
                    );
                }
            }
        }

        for r in uses {
            if r.kind == RefKind::Import {
                continue; // counted from the import statement above
            }
            let Some(id) = self.interner.get(r.name) else {
                continue;
            };
            // Exact: see `UseCounts`.
            let w = kind_weight(r.kind) * f64::from(r.count);
            if let Some(q) = r.qualifier {
                // `ns.foo`, `pkg.Foo`, `mod.func`: the qualifier is a module binding.
                if let Some(imps) = scope.namespaces.get(q) {
                    let mut module: Vec<usize> = imps
                        .iter()
                        .flat_map(|&i| self.resolved[fi][i].module.iter().copied())
                        .collect();
                    module.sort_unstable();
                    module.dedup();
                    if module.is_empty() {
                        continue; // an external package
                    }
                    let found = self.find_definers(memo, &module, id);
                    if !found.is_empty() {
                        acc.add(&found, Binding::Resolved, w, |t, id| self.defines(t, id));
                    } else if file.lang != Lang::Go {
                        // Go packages are resolved exactly; elsewhere the name may be a
                        // submodule or an attribute the tags missed.
                        let targets: Vec<Target> = module.iter().map(|&m| (m, id)).collect();
                        acc.add(&targets, Binding::ModuleOnly, w, |_, _| true);
                    }
                    continue;
                }
                // `Imported.member` / `importedModule.func`: look in what the name is bound to.
                if let Some(bindings) = scope.named.get(q) {
                    let mut external = true;
                    // `from pkg import mod; mod.f()` is as exact as a namespace import;
                    // `Class.member` looks into the file of a definition: a bit less sure.
                    let mut module_binding = false;
                    let mut hit = Vec::new();
                    for &(i, k) in bindings {
                        if let Some(targets) = self.bind_named(memo, fi, i, k) {
                            external = false;
                            module_binding |= targets.iter().all(|&(f, l)| !self.defines(f, l));
                            let files: Vec<usize> = targets.iter().map(|&(f, _)| f).collect();
                            hit.extend(
                                self.find_definers(memo, &files, id)
                                    .into_iter()
                                    .filter(|&(f, d)| self.defines(f, d)),
                            );
                        }
                    }
                    if external {
                        continue;
                    }
                    if !hit.is_empty() {
                        hit.sort_unstable();
                        hit.dedup();
                        let binding = if module_binding {
                            Binding::Resolved
                        } else {
                            Binding::Member
                        };
                        acc.add(&hit, binding, w, |_, _| true);
                        continue;
                    }
                }
                // A receiver, `this`, `self`, a local: a method somewhere. Not the members of
                // the JS runtime's own objects (`console.log`, `JSON.parse`, `Object.keys`):
                // a repo's `log` method is not what those call.
                if self.defines(fi, id)
                    || r.name.chars().count() < 2
                    || (fam == family(Lang::JavaScript) && is_js_global_object(q))
                {
                    continue;
                }
                if file.lang == Lang::Go {
                    let same = self.same_package_definers(fi, id, true);
                    if !same.is_empty() {
                        acc.add(&same, Binding::PackageMethod, w, |_, _| true);
                        continue;
                    }
                }
                let dir = self.file_dir[fi];
                let is_go = file.lang == Lang::Go;
                let all = self.method_definers[fam].row(id as usize);
                // Cheap early exit for names like `String`/`Close` defined everywhere: even
                // after removing this file (and its Go package) too many remain.
                let own = if is_go {
                    self.go_dirs.get(dir).map_or(1, Vec::len)
                } else {
                    1
                };
                if all.len() > FALLBACK_MAX_DEFINERS + own {
                    continue;
                }
                let cands: Vec<Target> = all
                    .iter()
                    .map(|&t| t as usize)
                    .filter(|&t| t != fi && !(is_go && self.file_dir[t] == dir))
                    .filter(|&t| self.may_guess(fi, t))
                    .map(|t| (t, id))
                    .collect();
                if !cands.is_empty() && cands.len() <= FALLBACK_MAX_DEFINERS {
                    acc.add(&cands, Binding::MethodFallback, w, |_, _| true);
                }
                continue;
            }

            // Unqualified.
            if let Some(bindings) = scope.named.get(r.name) {
                for &(i, k) in bindings {
                    if let Some(targets) = self.bind_named(memo, fi, i, k) {
                        acc.add(&targets, Binding::Resolved, w, |t, id| self.defines(t, id));
                    }
                }
                continue;
            }
            if self.defines(fi, id) {
                continue;
            }
            let mut wild: Vec<Target> = Vec::new();
            for &i in &scope.wildcards {
                let module = self.resolved[fi][i].module.clone();
                wild.extend(
                    self.find_definers(memo, &module, id)
                        .into_iter()
                        .filter(|&(f, d)| self.defines(f, d)),
                );
            }
            if file.lang == Lang::Go {
                wild.extend(self.same_package_definers(fi, id, false));
            }
            // Java: the types of the file's own package are in scope without an import, and
            // a package is a directory by the language's convention. Only capitalized names
            // (types, constants): an unqualified lowercase call is the class's own or an
            // inherited method, not whatever the package's other classes call by that name.
            if file.lang == Lang::Java && r.name.starts_with(|c: char| c.is_ascii_uppercase()) {
                wild.extend(self.same_directory_definers(fi, id));
            }
            if !wild.is_empty() || file.lang == Lang::Go {
                // Never a bare-name guess across Go packages: an unresolved name there is a
                // builtin or a local.
                wild.sort_unstable();
                wild.dedup();
                acc.add(&wild, Binding::Resolved, w, |_, _| true);
                continue;
            }
            if r.name.chars().count() < 2 {
                continue;
            }
            let cands = self.definers[fam].row(id as usize);
            if !cands.is_empty() && cands.len() <= FALLBACK_MAX_DEFINERS {
                let cands: Vec<Target> = cands
                    .iter()
                    .map(|&t| t as usize)
                    .filter(|&t| self.may_guess(fi, t))
                    .map(|t| (t, id))
                    .collect();
                if !cands.is_empty() {
                    acc.add(&cands, Binding::Fallback, w, |_, _| true);
                }
            }
        }
        acc.map
    }

    /// Whether a name guess (bare-name or method fallback) from `from` may land in `target`:
    /// not from the project's own code into supporting code. Implementation does not use its
    /// tests and fixtures (a fixture defining `len` for the tests is not what `len()` in the
    /// compiler means), and what an external stub declares lives outside the repository, so
    /// a same-named use (`x.args`, `is_protocol`) is not its; the imports that would reach
    /// a stub stay unresolved.
    fn may_guess(&self, from: usize, target: usize) -> bool {
        let supporting = |i: usize| self.supporting.get(i).copied().unwrap_or(false);
        !supporting(target) || supporting(from)
    }

    /// Files of `fi`'s Go package (same directory) defining `id` (methods only if asked). A
    /// non-test file does not see `_test.go` files.
    fn same_package_definers(&self, fi: usize, id: u32, methods_only: bool) -> Vec<Target> {
        let dir = self.file_dir[fi];
        let from_test = self.files[fi].path.ends_with("_test.go");
        let fam = family(Lang::Go);
        let table = if methods_only {
            &self.method_definers[fam]
        } else {
            &self.definers[fam]
        };
        let defs = table.row(id as usize);
        let visible = |t: usize| {
            t != fi
                && self.file_dir[t] == dir
                && (from_test || !self.files[t].path.ends_with("_test.go"))
        };
        match self.go_dirs.get(dir) {
            Some(pkg) if pkg.len() < defs.len() => pkg
                .iter()
                .map(|&t| t as usize)
                .filter(|&t| visible(t) && defs.binary_search(&(t as u32)).is_ok())
                .map(|t| (t, id))
                .collect(),
            _ => defs
                .iter()
                .map(|&t| t as usize)
                .filter(|&t| visible(t))
                .map(|t| (t, id))
                .collect(),
        }
    }

    /// The other files of `fi`'s directory, in its language family, that define `id`.
    fn same_directory_definers(&self, fi: usize, id: u32) -> Vec<Target> {
        let dir = self.file_dir[fi];
        self.definers[family(self.files[fi].lang)]
            .row(id as usize)
            .iter()
            .map(|&t| t as usize)
            .filter(|&t| t != fi && self.file_dir[t] == dir)
            .map(|t| (t, id))
            .collect()
    }

    /// `release`: give what binding freed (its tables; consumed references) back to the
    /// system before the graph's tables are allocated, for a one-shot build's peak memory.
    fn into_graph(
        self,
        n: usize,
        per_file: Vec<Vec<FileTriple>>,
        release: bool,
        prior: Option<&relink::Prior<'_>>,
    ) -> FileGraph {
        let files = self.files;
        // Binding is done: free its tables before the graph's own are built (peak memory).
        drop(self.definers);
        drop(self.method_definers);
        drop(self.resolved);
        drop(self.go_dirs);
        drop(self.owned_imports);
        if release {
            crate::engine::heap::release_free_memory();
        }
        let mut def_offset = Vec::with_capacity(n + 1);
        let mut total = 0u32;
        for f in files {
            def_offset.push(total);
            total = total.saturating_add(f.tags.defs.len() as u32);
        }
        def_offset.push(total);

        // Edges: consecutive triples of a source with the same target. Each file's triples
        // are freed as soon as they are copied (exactly sized tables, no concatenated copy).
        let n_trips: usize = per_file.iter().map(Vec::len).sum();
        let mut edge_src: Vec<u32> = Vec::new();
        let mut edge_dst: Vec<u32> = Vec::new();
        let mut edge_w: Vec<f64> = Vec::new();
        let mut trip_ptr: Vec<u32> = vec![0];
        let mut trip_items: Vec<(u32, f64)> = Vec::with_capacity(n_trips);
        // The definitions each triple credits.
        let mut tdef_ptr = Vec::with_capacity(n_trips + 1);
        tdef_ptr.push(0u32);
        let mut tdef_items = Vec::new();
        for (s, part) in per_file.into_iter().enumerate() {
            for (k, &(d, id, w)) in part.iter().enumerate() {
                if k == 0 || part[k - 1].0 != d {
                    if !trip_items.is_empty() {
                        trip_ptr.push(trip_items.len() as u32);
                    }
                    edge_src.push(s as u32);
                    edge_dst.push(d);
                    edge_w.push(0.0);
                }
                if let Some(last) = edge_w.last_mut() {
                    *last += w;
                }
                trip_items.push((id, w));
                let defs = &self.file_defs[d as usize];
                let start = defs.partition_point(|&(i, _)| i < id);
                for &(i, def) in &defs[start..] {
                    if i != id {
                        break;
                    }
                    tdef_items.push(def_offset[d as usize] + def);
                }
                tdef_ptr.push(tdef_items.len() as u32);
            }
        }
        if !trip_items.is_empty() {
            trip_ptr.push(trip_items.len() as u32);
        }
        tdef_items.shrink_to_fit();
        let trips = Csr {
            ptr: trip_ptr,
            items: trip_items,
        };
        let trip_defs = Csr {
            ptr: tdef_ptr,
            items: tdef_items,
        };
        let edges = csr_from_sorted(
            n,
            edge_src
                .iter()
                .zip(&edge_dst)
                .map(|(&s, &d)| (s as usize, d)),
        );

        let n_ids = self.interner.names.len();
        // Identifier → (edge, triple), by counting sort (in (edge, triple) order per id).
        let mut id_ptr = vec![0u32; n_ids + 1];
        for &(id, _) in &trips.items {
            if let Some(c) = id_ptr.get_mut(id as usize + 1) {
                *c += 1;
            }
        }
        for i in 0..n_ids {
            id_ptr[i + 1] += id_ptr[i];
        }
        let mut next = id_ptr.clone();
        let mut id_items = vec![(0u32, 0u32); id_ptr[n_ids] as usize];
        for e in 0..edge_dst.len() {
            for t in trips.range(e) {
                let id = trips.items[t].0 as usize;
                if id < n_ids {
                    id_items[next[id] as usize] = (e as u32, t as u32);
                    next[id] += 1;
                }
            }
        }
        drop(next);
        let ident_trips = Csr {
            ptr: id_ptr,
            items: id_items,
        };

        let mut def_pairs: Vec<Target> = Vec::new();
        for (fi, defs) in self.file_defs.iter().enumerate() {
            for (k, &(id, _)) in defs.iter().enumerate() {
                if k == 0 || defs[k - 1].0 != id {
                    def_pairs.push((id as usize, fi as u32));
                }
            }
        }
        def_pairs.sort_unstable();
        let ident_files = csr_from_sorted(n_ids, def_pairs.into_iter());

        // A relink keeps the paths: their tables come from the previous graph, and only
        // the edited files' definition words are redone (`relink::Prior`).
        let PathTables {
            stem_files,
            path_words,
            path_order,
        } = match prior {
            Some(p) => p.path_tables(),
            None => path_tables(files),
        };
        let def_words = match prior {
            Some(p) => p.def_words(files),
            None => {
                let mut def_words: FastMap<String, Vec<(u32, u32)>> = FastMap::default();
                for (fi, f) in files.iter().enumerate() {
                    for (w, c) in def_word_counts(f) {
                        def_words.entry(w).or_default().push((fi as u32, c));
                    }
                }
                def_words
            }
        };
        let external_stubs = self.external_stubs;
        let supporting = self.supporting;

        // A one-shot graph is only ranked, and ranking reads the rows above.
        let view_edges = if release { 0 } else { edge_dst.len() };
        let mut graph: DiGraph<usize, FileEdge> = DiGraph::with_capacity(n, view_edges);
        for i in 0..n {
            graph.add_node(i);
        }
        for e in 0..view_edges {
            graph.add_edge(
                NodeIndex::new(edge_src[e] as usize),
                NodeIndex::new(edge_dst[e] as usize),
                FileEdge {
                    weight: edge_w[e],
                    trips_row: e as u32,
                },
            );
        }

        let Interner {
            ids: ident_ids,
            names: ident_names,
        } = self.interner;

        FileGraph {
            graph,
            n,
            ident_ids,
            ident_names,
            edges,
            edge_w,
            trips,
            trip_defs,
            ident_trips,
            def_offset,
            ident_files,
            stem_files,
            path_words,
            def_words,
            path_order,
            supporting,
            external_stubs,
        }
    }
}

/// Per file, whether it is a Python stub (`.pyi`) of a module the repository has no `.py`
/// for: the declarations of code that lives elsewhere (the standard library's stubs a type
/// checker ships, stubs for tests). Only when the repository has Python code of its own to
/// rank above them; a repository of stubs is its stubs.
/// `supporting_paths[i]`: `is_supporting_path` of file `i`.
fn external_stub_files(files: &[ParsedFile], supporting_paths: &[bool]) -> Vec<bool> {
    let own_python = files
        .iter()
        .zip(supporting_paths)
        .any(|(f, &supporting)| f.path.ends_with(".py") && !supporting);
    if !own_python {
        return vec![false; files.len()];
    }
    let implemented: HashSet<&str> = files
        .iter()
        .filter_map(|f| f.path.strip_suffix(".py"))
        .collect();
    files
        .iter()
        .map(|f| {
            f.path
                .strip_suffix(".pyi")
                .is_some_and(|stem| !implemented.contains(stem))
        })
        .collect()
}

/// Tests, fixtures, examples, playgrounds, benchmarks and docs folders: code that supports
/// the project rather than being it (declaration files, `.d.ts`, are its API and count as
/// implementation). See `rank::SUPPORTING_PRIOR`.
fn is_supporting_path(path: &str) -> bool {
    match classify(path) {
        PathClass::Impl => false,
        PathClass::Test => true,
        PathClass::Secondary => !is_declaration_file(path),
    }
}

/// Lowercase words of an identifier or path component: split on non-alphanumerics, on
/// camelCase humps and acronym ends (`HTTPServer` → `http`, `server`).
pub(crate) fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    for chunk in s.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = chunk.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (p, c) = (chars[i - 1], chars[i]);
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let boundary = (p.is_lowercase() && c.is_uppercase())
                || (p.is_uppercase() && c.is_uppercase() && next_lower)
                || (p.is_alphabetic() && c.is_ascii_digit())
                || (p.is_ascii_digit() && c.is_alphabetic());
            if boundary {
                out.push(chars[start..i].iter().collect::<String>().to_lowercase());
                start = i;
            }
        }
        if start < chars.len() {
            out.push(chars[start..].iter().collect::<String>().to_lowercase());
        }
    }
    out.retain(|w| !w.is_empty());
    out
}

/// Lowercase with separators removed, so `FileGraph`, `file_graph` and `file-graph` agree.
pub(crate) fn normalize_name(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The normalized stem a file is known by: `src/file_graph.rs` → `filegraph`; an `index.*`,
/// `__init__.py`, `mod.*` or `main.*` file is known by its directory's name.
fn file_stem_key(path: &str) -> Option<String> {
    let (dir, name) = split_dir(path);
    let stem = name.split('.').next().unwrap_or(name);
    let stem = if matches!(stem, "index" | "__init__" | "mod" | "main") && !dir.is_empty() {
        split_dir(dir).1
    } else {
        stem
    };
    let key = normalize_name(stem);
    (!key.is_empty()).then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::{Definition, FileTags, Import, ImportedName, LineRange, Reference};
    use std::sync::Arc;

    pub(crate) fn def(name: &str, kind: DefKind, line: u32) -> Definition {
        Definition {
            name: name.into(),
            kind,
            lines: LineRange::new(line, line + 2),
            signature: LineRange::new(line, line),
            parent: None,
            scope_lines: Vec::new(),
        }
    }
    fn rf(name: &str, kind: RefKind, qualifier: Option<&str>) -> Reference {
        Reference {
            name: name.into(),
            kind,
            line: 1,
            qualifier: qualifier.map(str::to_string),
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
        let g = build_graph(&files, &[]);
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
        let g = build_graph(&files, &[]);
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
        let g = build_graph(&files, &[]);
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
        let g = build_graph(&files, &[]);
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
        let g = build_graph(&files, &go_mod());
        assert_eq!(edge_idents(&g, 0, 1), Some(vec!["Foo".into()]));
        assert_eq!(edge_idents(&g, 0, 2), Some(vec!["Bar".into()]));
        assert!(edge_w(&g, 0, 1) > edge_w(&g, 0, 2));
        assert_eq!(edge_idents(&g, 3, 4), Some(vec!["Helper".into()]));
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
        let g = build_graph(&files, &[]);
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
        let g = build_graph(&files, &[]);
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
        let g = build_graph(&files, &[]);
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
        let g = build_graph(&files, &[]);
        assert_eq!(edge_idents(&g, 0, 1), Some(vec!["render".into()]));
        assert!(is_js_global_object("console") && !is_js_global_object("view"));
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
        let g = build_graph(&files, &[]);
        let bound = edge_w(&g, 0, 1);
        let guess = edge_w(&g, 0, 2);
        assert!(
            guess > 0.0 && bound > 5.0 * guess,
            "bound {bound} guess {guess}"
        );
        assert_eq!(guess, edge_w(&g, 0, 3));
        // A third definer lowers each guess.
        files.push(pf("e.py", vec![fun("render_all")], vec![], vec![]));
        let g2 = build_graph(&files, &[]);
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
        let g3 = build_graph(&files, &[]);
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
        let g = build_graph(&files, &[]);
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
        let g = build_graph(&files, &[]);
        assert!(edge_w(&g, 5, 1) > 0.0);
        let out = crate::engine::rank::rank(&files, &g, &Default::default());
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
        let g = build_graph(&files, &[]);
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
        let g = build_graph(&files, &[]);
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
        let g = build_graph(&files, &go_mod());
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
                vec![],
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
        ];
        let g = build_graph(&files, &go_mod());
        assert_eq!(edge_idents(&g, 0, 1), Some(vec!["Flush".into()]));
        assert_eq!(edge_idents(&g, 0, 2), Some(vec!["Validate".into()]));
        assert_eq!(edge_idents(&g, 0, 3), None);
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
        let g = build_graph(&files, &go_mod());
        assert_eq!(edge_idents(&g, 0, 1), None);
        assert_eq!(edge_idents(&g, 1, 2), Some(vec!["helperT2".into()]));
    }

    #[test]
    fn words_and_stems() {
        assert_eq!(split_words("HTTPServer_v2"), ["http", "server", "v", "2"]);
        assert_eq!(split_words("parseURLQuery"), ["parse", "url", "query"]);
        assert_eq!(split_words("plugin-legacy"), ["plugin", "legacy"]);
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
        let g1 = build_graph(&files, &[]);
        let g2 = build_graph(&files, &[]);
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
        let full = build_graph(&files, &[]);
        let uses = TakenUses {
            refs: files
                .iter()
                .map(|f| UseCounts::from_refs(&f.tags.refs))
                .collect(),
            imports: files.iter().map(|f| f.tags.imports.clone()).collect(),
        };
        assert!(uses.refs[0].items.len() < files[0].tags.refs.len());
        let mut bare = files.clone();
        for f in &mut bare {
            f.tags = Arc::new(FileTags {
                defs: f.tags.defs.clone(),
                ..FileTags::default()
            });
        }
        let once = build_graph_consuming(&bare, &[], uses);
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
        assert_eq!(tables(&once), tables(&full));
        // Only ranking reads a one-shot graph.
        assert_eq!(once.graph.edge_count(), 0);
        assert_eq!(full.graph.edge_count(), full.edge_count());
    }
}
