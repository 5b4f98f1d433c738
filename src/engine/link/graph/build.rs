//! Building the graph from parsed files: binding each use to the files it points at (the
//! rules in `graph`'s header, weights from `binding`), then the CSR tables, the identifier
//! interner and the word/stem tables `rank` reads. Per-file binding, import resolution and
//! the lookup of reference names fan out on rayon; the results are merged in file order
//! (new names interned in file order too), so the graph is the same whatever the thread
//! count.

use rayon::prelude::*;
use std::sync::OnceLock;

use super::binding::*;
use super::words::{def_words, path_tables, PathTables};
use super::*;
use crate::engine::base::model::ContainerKind;
use crate::engine::link::builtins::language_names;

mod qualified;
mod reexports;
mod tables;
mod typed;
mod unqualified;
mod visible;
pub(super) use typed::{heritage_holder, members_by_name, types_by_name};
use typed::{Ancestor, Parents, TypedMember};
pub(super) use visible::enclosing_classes;
use visible::is_constant;

/// Interned identifier ids, assigned in first-seen order (deterministic: files are visited
/// in index order). The names are owned (they become the graph's `ident_names` and
/// `ident_ids` as they are), so the references they came from can be freed mid-build.
#[derive(Default)]
pub(super) struct Interner {
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

    pub(super) fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("", |n| n)
    }
    pub(super) fn get(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }
}

/// Names a file's imports bind in its scope.
#[derive(Default)]
pub(super) struct Scope<'a> {
    /// Local name → (import index, index into its `names`).
    named: FastMap<&'a str, Vec<(usize, usize)>>,
    /// Namespace binding (`import * as ns`, Python module, Go package name) → imports.
    namespaces: FastMap<&'a str, Vec<usize>>,
    /// Imports whose names all land in scope (`from m import *`, Go dot-import).
    wildcards: Vec<usize>,
}

/// What a file's contributions are keyed by: (target, identifier, binding).
type ContributionKey = (u32, u32, Binding);

/// One file's contributions: per (target, identifier, binding), the summed kind weight and
/// the number of targets the uses were split over.
pub(super) struct Acc {
    from: usize,
    map: FastMap<ContributionKey, (f64, f64)>,
    /// How many references the use being bound stands for (`UseCounts`), for the census.
    uses: u32,
    /// Set only for `map --explain`: how the uses that reach one file were bound.
    census: Option<Census>,
}

/// How the uses reaching `target` were bound (and how many that could have were dropped):
/// per (identifier id, how), the number of uses.
struct Census {
    target: usize,
    counts: FastMap<(u32, BoundBy), u32>,
}

impl Acc {
    fn new(from: usize, census_of: Option<usize>) -> Acc {
        Acc {
            from,
            map: FastMap::default(),
            uses: 1,
            census: census_of.map(|target| Census {
                target,
                counts: FastMap::default(),
            }),
        }
    }

    /// Record a use bound to `targets` (split among them). A target that does not define the
    /// identifier (the module an import resolved to) is demoted to `ModuleOnly`. `how` says,
    /// for the census, how each target was reached.
    fn add(
        &mut self,
        targets: &[(usize, u32)],
        binding: Binding,
        w: f64,
        defines: impl Fn(usize, u32) -> bool,
        how: impl Fn(usize) -> BoundBy,
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
        self.count(targets, how);
    }

    /// A use not bound to `targets`, which a guess would have reached (the census only).
    fn dropped(&mut self, targets: &[(usize, u32)], how: BoundBy) {
        self.count(targets, |_| how);
    }

    fn count(&mut self, targets: &[(usize, u32)], how: impl Fn(usize) -> BoundBy) {
        let (from, uses) = (self.from, self.uses);
        if let Some(c) = &mut self.census {
            for &(t, id) in targets {
                if t == c.target && t != from {
                    *c.counts.entry((id, how(t))).or_insert(0) += uses;
                }
            }
        }
    }
}

/// A bound use: (target file, identifier id to credit there).
pub(super) type Target = (usize, u32);

/// Per-file caches of chain lookups and named-import bindings (a file asks the same
/// question for every use of a name). Per file so that files can run in parallel.
#[derive(Default)]
pub(super) struct Memo {
    definers: FastMap<(u32, u32), Vec<Target>>,
    bound: FastMap<(usize, usize), Option<Vec<Target>>>,
    /// The files the file's imports reach (`Builder::in_view`), made on the first guess.
    view: Option<Box<[u32]>>,
    /// Ruby: the namespaces the file opens, and the constants they reach
    /// (`Builder::ruby_lexical_definers`).
    nesting: Option<Vec<Vec<u32>>>,
    lexical: FastMap<u32, Vec<Target>>,
    /// Typed member uses by (receiver id, method id) (`Builder::typed_member`).
    typed: FastMap<(u32, u32), TypedMember>,
    /// The bases of a type (file, name id) as this file sees them (`Builder::parents`).
    parents: FastMap<Target, Parents>,
}

pub(super) struct Builder<'a> {
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
    /// Java, C#, PHP: per (family, declared package or namespace), the files declaring it,
    /// in file order (`namespace_files`).
    namespace_files: FastMap<(usize, String), Vec<u32>>,
    file_dir: Vec<&'a str>,
    go_dirs: FastMap<&'a str, Vec<u32>>,
    /// Per file: a Python stub of code outside the repository (`external_stub_files`).
    external_stubs: Vec<bool>,
    /// Per file: supporting code (`is_supporting_path`) or an external stub.
    supporting: Vec<bool>,
    /// Per file, made on the first search from it: what a re-export search from it can
    /// reach, when that is known to find only definitions (`Builder::reach_of`); `None`
    /// otherwise. Empty when the searches are not to be skipped (tests).
    reach: Vec<OnceLock<Option<Box<[u32]>>>>,
    /// Per definition name id: every file defining it, sorted (no family or visibility
    /// filter, unlike `definers`: `defines` has none either). Made on first use.
    def_files: OnceLock<Csr<u32>>,
    /// Definition names were interned first: ids below this are theirs.
    n_def_ids: usize,
    /// Per file: the heritage names of the types it defines (`typed::ancestry_of`).
    ancestry: Vec<Vec<Ancestor>>,
    /// Per (method id, type name id): the files defining that method in that type. Made on
    /// the first typed use (`typed::member_files`).
    member_files: OnceLock<FastMap<(u32, u32), Vec<u32>>>,
}

/// Past this many files, a file's `reach` is not kept (the search runs in full): a big
/// umbrella header reached from every file would cost memory for little.
const MAX_REACH: usize = 1024;

/// Per definition name id (`0..n_def_ids`): the files defining it, sorted, deduplicated.
fn files_by_definition(file_defs: &[Vec<(u32, u32)>], n_def_ids: usize) -> Csr<u32> {
    let mut pairs: Vec<(u32, u32)> = file_defs
        .iter()
        .enumerate()
        .flat_map(|(fi, defs)| defs.iter().map(move |&(id, _)| (id, fi as u32)))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    csr_from_sorted(n_def_ids, pairs.into_iter().map(|(id, f)| (id as usize, f)))
}

pub fn build_graph(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
) -> FileGraph {
    build(files, go_modules, ts_paths, None)
}

/// `build_graph` taking the bindings of the files `prior` says are unaffected from the
/// previous graph (see `relink`).
pub(super) fn build_with_prior(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
    prior: Option<&relink::Prior<'_>>,
) -> FileGraph {
    build_inner(files, go_modules, ts_paths, None, prior)
}

/// What binding reads of each file, taken out of the files (`refs[i]`, `imports[i]` are file
/// `i`'s) so that a one-shot build can free it as soon as it is used.
#[derive(Debug, Default)]
pub struct TakenUses {
    pub refs: Vec<UseCounts>,
    pub imports: Vec<Vec<Import>>,
    /// Give the memory binding frees back to the system as it goes (`heap`): a large
    /// one-shot build, where that keeps the peak down (`index::trims_heap_after_parse`).
    pub trim_heap: bool,
    /// Build the tables a query's words are ranked by (`FileGraph::path_words`,
    /// `def_words`). Off only for a map with no query whose graph is not saved for later
    /// runs: nothing would read them.
    pub query_words: bool,
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
    /// (name index and kind packed by `pack_name_kind`, qualifier index + 1 or 0, receiver
    /// index + 1 or 0, uses), sorted.
    pub(super) items: Vec<(u32, u32, u32, u32)>,
    /// The heritage uses with their lines (line, name index, qualifier index + 1 or 0):
    /// which type each names a base of (`typed::ancestry_of`).
    heritage: Vec<(u32, u32, u32)>,
}

impl UseCounts {
    /// Counts `refs`' uses by (name, kind, qualifier), imports left out. The list already
    /// numbers its distinct names, so its packed uses are the keys as they stand: counting
    /// is a sort of two words per reference, with no name hashed or copied one by one (this
    /// runs on every parsed file of a one-shot build).
    pub fn from_refs(refs: &RefList) -> UseCounts {
        let mut keys: Vec<(u32, u32, u32)> = refs
            .packed_uses()
            .filter(|&(name_kind, _, _)| unpack_name_kind(name_kind).1 != RefKind::Import)
            .collect();
        keys.sort_unstable();
        let mut items: Vec<(u32, u32, u32, u32)> = Vec::new();
        for (name_kind, qualifier, receiver) in keys {
            match items.last_mut() {
                Some(last) if (last.0, last.1, last.2) == (name_kind, qualifier, receiver) => {
                    last.3 += 1;
                }
                _ => items.push((name_kind, qualifier, receiver, 1)),
            }
        }
        UseCounts {
            names: refs.name_table().clone(),
            items,
            heritage: refs.packed_heritage().collect(),
        }
    }

    /// The heritage uses: (line, name, qualifier).
    pub(super) fn heritage(&self) -> impl Iterator<Item = (u32, &str, Option<&str>)> {
        self.heritage.iter().map(|&(line, name, q)| {
            (
                line,
                self.name_at(name as usize),
                (q > 0).then(|| self.name_at(q as usize - 1)),
            )
        })
    }

    /// The distinct names, in the references' first-use order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter()
    }

    fn name_at(&self, i: usize) -> &str {
        self.names.get(i)
    }

    /// (name, kind, qualifier, receiver, number of uses).
    pub(super) fn uses(&self) -> impl Iterator<Item = Use<'_>> {
        self.items.iter().map(|&(nk, q, recv, count)| {
            let (name, kind) = unpack_name_kind(nk);
            Use {
                name: self.name_at(name),
                kind,
                qualifier: (q > 0).then(|| self.name_at(q as usize - 1)),
                receiver: (recv > 0).then(|| self.name_at(recv as usize - 1)),
                count,
            }
        })
    }
}

/// One reference (or several identical ones) as binding reads it.
pub(super) struct Use<'r> {
    pub(super) name: &'r str,
    pub(super) kind: RefKind,
    pub(super) qualifier: Option<&'r str>,
    /// The receiver's type where the file states it (`RefView::receiver`).
    pub(super) receiver: Option<&'r str>,
    pub(super) count: u32,
}

pub(super) fn uses_of(refs: &RefList) -> impl Iterator<Item = Use<'_>> {
    refs.iter().map(|r| Use {
        name: r.name,
        kind: r.kind,
        qualifier: r.qualifier,
        receiver: r.receiver,
        count: 1,
    })
}

/// `build_graph` for a one-shot build (a map ranked once) of files whose references and
/// imports were taken out of them. Each file's references are freed as soon as the file is
/// bound, the imports once binding is done, and the freed memory is given back to the
/// system before the graph's tables are built, so the build's peak memory does not hold them
/// all at once. The tables are the same as `build_graph`'s on the files with their uses.
pub fn build_graph_consuming(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
    uses: TakenUses,
) -> FileGraph {
    build(files, go_modules, ts_paths, Some(uses))
}

/// How the uses in `files` that reach file `target` were bound, per identifier and way
/// (`BoundBy`), with the uses a guess would have sent there but a rule dropped: what
/// `map --explain` says of a "used by" count. A second binding pass, with a census, over
/// the files that mention a name `target` defines (the graph keeps only the weights);
/// needs the files' references (not a map-only index's undecoded ones).
pub fn explain_bindings(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
    target: usize,
) -> Vec<BindingCount> {
    let Some(file) = files.get(target) else {
        return Vec::new();
    };
    let wanted: FastSet<&str> = file
        .tags
        .defs
        .iter()
        .filter(|d| !d.lookup_only)
        .map(|d| d.name.as_str())
        .collect();
    let b = new_builder(files, go_modules, ts_paths, None, None, true);
    let mentions = |f: &ParsedFile| {
        f.tags.refs.names().any(|n| wanted.contains(n))
            || f.tags.imports.iter().any(|imp| {
                imp.names.iter().any(|nm| {
                    wanted.contains(nm.name.as_str())
                        || nm.alias.as_deref().is_some_and(|a| wanted.contains(a))
                })
            })
    };
    let per_file: Vec<Vec<((u32, BoundBy), u32)>> = (0..files.len())
        .into_par_iter()
        .filter(|&fi| fi != target && mentions(&files[fi]))
        .map(|fi| {
            b.contributions(fi, uses_of(&files[fi].tags.refs), Some(target))
                .census
                .map(|c| c.counts.into_iter().collect())
                .unwrap_or_default()
        })
        .collect();
    let mut merged: std::collections::BTreeMap<(&str, BoundBy), (u32, u32)> =
        std::collections::BTreeMap::new();
    for counts in per_file {
        for ((id, how), uses) in counts {
            let e = merged.entry((b.interner.name(id), how)).or_insert((0, 0));
            e.0 += uses;
            e.1 += 1;
        }
    }
    merged
        .into_iter()
        .map(|((name, how), (uses, files))| BindingCount {
            name: name.to_string(),
            how,
            uses,
            files,
        })
        .collect()
}

pub(super) fn build(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
    owned: Option<TakenUses>,
) -> FileGraph {
    build_inner(files, go_modules, ts_paths, owned, None)
}

pub(super) fn build_inner(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
    owned: Option<TakenUses>,
    prior: Option<&relink::Prior<'_>>,
) -> FileGraph {
    build_reaching(files, go_modules, ts_paths, owned, prior, true)
}

/// `build_graph` with every re-export search run in full (no `reach`): what the tests hold
/// the shortcut to.
#[cfg(test)]
pub(super) fn build_graph_searching_every_name(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
) -> FileGraph {
    build_reaching(files, go_modules, ts_paths, None, None, false)
}

/// `build_inner`; `use_reach`: skip the re-export searches that cannot find anything
/// (`Builder::defined_nowhere_in_reach`), false only in tests.
fn build_reaching(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
    owned: Option<TakenUses>,
    prior: Option<&relink::Prior<'_>>,
    use_reach: bool,
) -> FileGraph {
    let n = files.len();
    let (owned_refs, owned_imports, trim_heap, query_words) = match owned {
        Some(uses) => (
            Some(uses.refs),
            Some(uses.imports),
            uses.trim_heap,
            uses.query_words,
        ),
        None => (None, None, false, true),
    };
    let mut b = new_builder(
        files,
        go_modules,
        ts_paths,
        owned_refs.as_deref(),
        owned_imports,
        use_reach,
    );

    // Per source file: its (target, identifier, weight) triples, sorted. Files are
    // independent here, so they run on rayon; `collect` keeps file order, so the result is
    // deterministic.
    let per_file: Vec<Vec<FileTriple>> = match owned_refs {
        Some(lists) => lists
            .into_par_iter()
            .enumerate()
            // The list is dropped as soon as its file is bound; every so often the memory
            // binding freed (lists, per-file lookup caches) goes back to the system.
            .map(|(fi, refs)| {
                if trim_heap && fi % 64 == 63 {
                    crate::engine::base::heap::release_free_memory();
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

    // Only binding searches from them.
    b.reach = Vec::new();
    b.def_files = OnceLock::new();
    b.into_graph(n, per_file, trim_heap, query_words, prior)
}

/// The builder's tables for binding `files` (their uses in `owned_refs` and their imports in
/// `owned_imports` when taken out of them): definition names and reference names interned,
/// the definer tables, every import resolved.
fn new_builder<'a>(
    files: &'a [ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
    owned_refs: Option<&[UseCounts]>,
    owned_imports: Option<Vec<Vec<Import>>>,
    use_reach: bool,
) -> Builder<'a> {
    let n = files.len();
    let ref_names_of = |fi: usize| -> Box<dyn Iterator<Item = &str> + '_> {
        match owned_refs {
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
            // A marker (`#define FOO_H_`) defines no code and a field's uses are any type's:
            // nothing binds to either (`Definition::lookup_only`).
            .filter(|(_, d)| !d.lookup_only)
            .map(|(i, d)| (interner.intern(&d.name), i as u32))
            .collect();
        defs.sort_unstable();
        file_defs.push(defs);
    }
    // Definition names were interned first, so the definer tables need only their ids.
    let n_def_ids = interner.names.len();
    // Names and qualifiers (a Go package is bound by whichever spelling the file uses), each
    // distinct one once, in the order the references first use them. Most are definition
    // names, interned above: each file looks its names up on the pool and keeps those still
    // unknown, which are then interned file by file, in order, so that every name gets the
    // id a one-thread pass over all the names would give it.
    let unknown: Vec<Vec<&str>> = (0..n)
        .into_par_iter()
        .map(|fi| {
            let import_names = imports_of(fi).iter().flat_map(|imp| {
                imp.names
                    .iter()
                    .flat_map(|nm| std::iter::once(nm.name.as_str()).chain(nm.alias.as_deref()))
                    .chain(imp.namespace.as_deref())
            });
            ref_names_of(fi)
                .chain(import_names)
                .filter(|name| interner.get(name).is_none())
                .collect::<Vec<&str>>()
        })
        .collect();
    for name in unknown.into_iter().flatten() {
        interner.intern(name);
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

    let resolver = Resolver::with_imports(files, go_modules, ts_paths, imports_of);
    // Each file's imports resolve on their own; `collect` keeps file order.
    let resolved: Vec<Vec<ResolvedImport>> = (0..n)
        .into_par_iter()
        .map(|fi| {
            imports_of(fi)
                .iter()
                .map(|imp| resolver.resolve_detail(fi, imp))
                .collect()
        })
        .collect();
    drop(resolver);
    let namespace_files = namespace_files(files, &imports_of);

    let file_dir: Vec<&str> = files.iter().map(|f| split_dir(&f.path).0).collect();
    let mut go_dirs: FastMap<&str, Vec<u32>> = FastMap::default();
    for (fi, f) in files.iter().enumerate() {
        if f.lang == Lang::Go {
            go_dirs.entry(file_dir[fi]).or_default().push(fi as u32);
        }
    }

    let supporting_paths: Vec<bool> = files
        .iter()
        .map(|f| is_supporting_path(&f.path) || f.vendored)
        .collect();
    let external_stubs = external_stub_files(files, &supporting_paths);
    let ancestry: Vec<Vec<Ancestor>> = (0..n)
        .into_par_iter()
        .map(|fi| {
            let tags = &files[fi].tags;
            match owned_refs {
                Some(lists) => match lists.get(fi) {
                    Some(uses) => typed::ancestry_of(tags, uses.heritage(), &interner),
                    None => Vec::new(),
                },
                None => typed::ancestry_of(
                    tags,
                    tags.refs
                        .iter()
                        .filter(|r| r.kind == RefKind::Heritage)
                        .map(|r| (r.line, r.name, r.qualifier)),
                    &interner,
                ),
            }
        })
        .collect();
    Builder {
        files,
        owned_imports,
        interner,
        file_defs,
        definers,
        method_definers,
        resolved,
        namespace_files,
        file_dir,
        go_dirs,
        supporting: supporting_paths
            .iter()
            .zip(&external_stubs)
            .map(|(&path, &stub)| path || stub)
            .collect(),
        external_stubs,
        reach: if use_reach {
            (0..n).map(|_| OnceLock::new()).collect()
        } else {
            Vec::new()
        },
        def_files: OnceLock::new(),
        n_def_ids,
        ancestry,
        member_files: OnceLock::new(),
    }
}

/// Where one distinct use of a file binds, as `bind_uses` reports it: the uses are the
/// file's references by (name, kind, qualifier), and its import statements' names.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BoundUse {
    pub name: String,
    pub kind: RefKind,
    pub qualifier: Option<String>,
    /// The receiver's type as the file states it (`RefView::receiver`).
    pub receiver: Option<String>,
    /// An import statement's name: the statement's line, and the local name when it is an
    /// alias (`name` is the imported one). `None` for every other use.
    pub import: Option<(u32, Option<String>)>,
    /// Where binding sent it, by target file; empty when it bound nowhere (an external
    /// import, a builtin, a name the file defines itself: no edge).
    pub targets: Vec<BoundTarget>,
}

/// One target of a bound use.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BoundTarget {
    pub file: usize,
    /// The identifier credited there (the definitions of that name in `file`).
    pub name: String,
    pub binding: Binding,
    /// The number of files the use was split over.
    pub split: usize,
    /// What one such use adds to its edge: kind weight × class weight × identifier
    /// multiplier / split (before the sum's square root).
    pub weight: f64,
}

/// Binding re-run for the files `which`, use by use (the graph keeps only the sums per file
/// pair and identifier): read-only, for a query on a few files (who uses a definition, what
/// it uses). Builds the binder as a graph build does (every import resolved), then binds
/// only those files, on rayon. The uses come in each file's `UseCounts` order, the import
/// statements' names after them.
pub(crate) fn bind_uses(
    files: &[ParsedFile],
    go_modules: &[GoModule],
    ts_paths: &[TsPaths],
    which: &[usize],
) -> Vec<Vec<BoundUse>> {
    let b = new_builder(files, go_modules, ts_paths, None, None, true);
    which
        .par_iter()
        .map(|&fi| {
            if fi < files.len() {
                b.bound_uses(fi)
            } else {
                Vec::new()
            }
        })
        .collect()
}

/// Java, C#, PHP: the files declaring each package or namespace (`package a.b;`,
/// `namespace A.B`, PHP's `namespace A\B;`), per language family. A declaration is an
/// import that resolves to nothing (it binds no name by itself); the scope rules ask which
/// files share one (`Builder::own_namespace_definers`).
fn namespace_files<'i>(
    files: &[ParsedFile],
    imports_of: &impl Fn(usize) -> &'i [Import],
) -> FastMap<(usize, String), Vec<u32>> {
    let mut out: FastMap<(usize, String), Vec<u32>> = FastMap::default();
    for (fi, f) in files.iter().enumerate() {
        if !declares_namespaces(f.lang) {
            continue;
        }
        for imp in imports_of(fi) {
            if is_namespace_declaration(imp) {
                let list = out
                    .entry((family(f.lang), imp.specifier.clone()))
                    .or_default();
                if list.last() != Some(&(fi as u32)) {
                    list.push(fi as u32);
                }
            }
        }
    }
    out
}

/// Languages whose files declare the package or namespace they belong to.
pub(super) fn declares_namespaces(lang: Lang) -> bool {
    matches!(
        lang,
        Lang::Java | Lang::CSharp | Lang::Php | Lang::Kotlin | Lang::Scala | Lang::Elixir
    )
}

/// A package or namespace declaration, as the tags record it: a wildcard that re-exports.
pub(super) fn is_namespace_declaration(imp: &Import) -> bool {
    imp.wildcard && imp.reexport
}

/// File `fi`'s imports: taken out of the files (a one-shot build) or still in them.
pub(super) fn imports_in<'i>(
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
pub(super) type FileTriple = (u32, u32, f64);

impl<'a> Builder<'a> {
    fn imports(&self, fi: usize) -> &[Import] {
        imports_in(&self.owned_imports, self.files, fi)
    }

    fn defines(&self, file: usize, id: u32) -> bool {
        self.file_defs[file]
            .binary_search_by(|&(i, _)| i.cmp(&id))
            .is_ok()
    }

    /// Whether `file` defines `id` as something a bare name can reach from another file:
    /// not only as a member of a type (`formatter<T>::format`, `formatbuf::int_type`), which
    /// a use reaches through a receiver or a qualifier, or from inside the type.
    fn defines_outside_types(&self, file: usize, id: u32) -> bool {
        let defs = &self.file_defs[file];
        let tags = &self.files[file].tags;
        let start = defs.partition_point(|&(i, _)| i < id);
        defs[start..]
            .iter()
            .take_while(|&&(i, _)| i == id)
            .filter_map(|&(_, d)| tags.defs.get(d as usize))
            .any(|def| {
                !tags.container_at(def.container).is_some_and(|c| {
                    matches!(c.kind, ContainerKind::Type | ContainerKind::Singleton)
                })
            })
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
        // Sorted (keys are unique): each `(dst, id)`'s bindings are summed in one order, not
        // in hash order, and come out together.
        let mut sorted: Vec<(ContributionKey, (f64, f64))> =
            self.file_contributions(fi, uses).into_iter().collect();
        sorted.sort_unstable_by_key(|&(key, _)| key);
        let mut triples: Vec<FileTriple> = Vec::new();
        for ((dst, id, binding), (sum, split)) in sorted {
            let name = self.interner.name(id);
            let w = sum.sqrt() * binding.weight() * ident_multiplier(name, binding) / split;
            if !(w.is_finite() && w > 0.0) {
                continue;
            }
            match triples.last_mut() {
                Some(last) if (last.0, last.1) == (dst, id) => last.2 += w,
                _ => triples.push((dst, id, w)),
            }
        }
        triples
    }

    fn file_contributions<'r>(
        &self,
        fi: usize,
        uses: impl Iterator<Item = Use<'r>>,
    ) -> FastMap<ContributionKey, (f64, f64)> {
        self.contributions(fi, uses, None).map
    }

    /// File `fi`'s contributions, with a census of how its uses reaching `census_of` were
    /// bound (`map --explain`).
    pub(super) fn contributions<'r>(
        &self,
        fi: usize,
        uses: impl Iterator<Item = Use<'r>>,
        census_of: Option<usize>,
    ) -> Acc {
        let memo = &mut Memo::default();
        let scope = self.scope(fi);
        let mut acc = Acc::new(fi, census_of);
        self.import_statement_uses(memo, fi, &mut acc);
        for r in uses {
            if r.kind == RefKind::Import {
                continue; // counted from the import statement
            }
            let Some(id) = self.interner.get(r.name) else {
                continue;
            };
            // Exact: see `UseCounts`.
            let w = kind_weight(r.kind) * f64::from(r.count);
            acc.uses = r.count;
            match r.qualifier {
                Some(q) => self.bind_qualified(memo, fi, &scope, &r, q, id, w, &mut acc),
                None => self.bind_unqualified(memo, fi, &scope, &r, id, w, &mut acc),
            }
        }
        acc
    }

    /// `bind_uses` for one file: each distinct use bound on its own (its own `Acc`), so
    /// the targets and classes are the use's, not the file's sums.
    fn bound_uses(&self, fi: usize) -> Vec<BoundUse> {
        let memo = &mut Memo::default();
        let scope = self.scope(fi);
        let targets = |acc: Acc, kind: RefKind| -> Vec<BoundTarget> {
            let mut out: Vec<BoundTarget> = acc
                .map
                .into_iter()
                .map(|((t, id, binding), (_, split))| {
                    let name = self.interner.name(id);
                    BoundTarget {
                        file: t as usize,
                        name: name.to_string(),
                        binding,
                        split: split as usize,
                        weight: kind_weight(kind)
                            * binding.weight()
                            * ident_multiplier(name, binding)
                            / split,
                    }
                })
                .collect();
            out.sort_by(|a, b| (a.file, &a.name, a.binding).cmp(&(b.file, &b.name, b.binding)));
            out
        };
        let new_acc = || Acc::new(fi, None);
        let counts = UseCounts::from_refs(&self.files[fi].tags.refs);
        let mut out = Vec::new();
        for r in counts.uses() {
            let mut acc = new_acc();
            if let Some(id) = self.interner.get(r.name) {
                let w = kind_weight(r.kind);
                match r.qualifier {
                    Some(q) => self.bind_qualified(memo, fi, &scope, &r, q, id, w, &mut acc),
                    None => self.bind_unqualified(memo, fi, &scope, &r, id, w, &mut acc),
                }
            }
            out.push(BoundUse {
                name: r.name.to_string(),
                kind: r.kind,
                qualifier: r.qualifier.map(str::to_string),
                receiver: r.receiver.map(str::to_string),
                import: None,
                targets: targets(acc, r.kind),
            });
        }
        if self.files[fi].lang != Lang::Go {
            for (i, imp) in self.imports(fi).iter().enumerate() {
                for (k, nm) in imp.names.iter().enumerate() {
                    let mut acc = new_acc();
                    if let Some(found) = self.bind_named(memo, fi, i, k) {
                        let w = kind_weight(RefKind::Import);
                        acc.add(
                            &found,
                            Binding::Resolved,
                            w,
                            |t, id| self.defines(t, id),
                            |_| BoundBy::Import,
                        );
                    }
                    out.push(BoundUse {
                        name: nm.name.clone(),
                        kind: RefKind::Import,
                        qualifier: None,
                        receiver: None,
                        import: Some((imp.line, nm.alias.clone())),
                        targets: targets(acc, RefKind::Import),
                    });
                }
            }
        }
        out
    }

    /// The import statements themselves: each imported name is a use of its target, so
    /// barrels link to what they re-export and unused imports still count a little.
    fn import_statement_uses(&self, memo: &mut Memo, fi: usize, acc: &mut Acc) {
        if self.files[fi].lang == Lang::Go {
            return;
        }
        acc.uses = 1;
        for (i, imp) in self.imports(fi).iter().enumerate() {
            for k in 0..imp.names.len() {
                if let Some(targets) = self.bind_named(memo, fi, i, k) {
                    let w = kind_weight(RefKind::Import);
                    acc.add(
                        &targets,
                        Binding::Resolved,
                        w,
                        |t, id| self.defines(t, id),
                        |_| BoundBy::Import,
                    );
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
                    |_| BoundBy::Import,
                );
            }
        }
    }
}

/// Per file, whether it is a Python stub (`.pyi`) of a module the repository has no `.py`
/// for: the declarations of code that lives elsewhere (the standard library's stubs a type
/// checker ships, stubs for tests). Only when the repository has Python code of its own to
/// rank above them; a repository of stubs is its stubs.
/// `supporting_paths[i]`: `is_supporting_path` of file `i`.
pub(super) fn external_stub_files(files: &[ParsedFile], supporting_paths: &[bool]) -> Vec<bool> {
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
/// the project rather than being it (declaration files, `.d.ts`, and `.pyi` stubs outside
/// such folders, are its API and count as implementation; a stub of code the repository
/// does not hold is `external_stub_files`'). See `rank::SUPPORTING_PRIOR`.
pub(super) fn is_supporting_path(path: &str) -> bool {
    match classify_place(path) {
        PathClass::Impl => false,
        PathClass::Test => true,
        PathClass::Secondary => !is_declaration_file(path),
    }
}
