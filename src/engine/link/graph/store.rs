//! A `FileGraph` as the derived cache `graph.bin` stores it (see `store::blob`): its tables
//! as built; the identifier map is rebuilt on load (it follows from the tables). Loading checks every table against the others and against the files, so a
//! file that decodes but does not fit (hand-edited, another build's) is refused, never
//! indexed out of bounds.
//!
//! Threads: whichever thread builds the index (load), or saves the cache (store).

use super::*;
use serde::{Deserialize, Serialize};

/// What `graph.bin` holds: every table of a `FileGraph` but the two derived ones.
#[derive(Serialize, Deserialize)]
pub struct StoredGraph {
    n: usize,
    ident_names: Vec<Arc<str>>,
    edges: Csr<u32>,
    edge_w: Vec<f64>,
    trips: Csr<(u32, f64)>,
    trip_defs: Csr<u32>,
    ident_trips: Csr<(u32, u32)>,
    def_offset: Vec<u32>,
    ident_files: Csr<u32>,
    stem_files: FastMap<String, Vec<u32>>,
    path_words: FastMap<String, Vec<u32>>,
    def_words: FastMap<String, Vec<(u32, u32)>>,
    path_order: Vec<u32>,
    supporting: Vec<bool>,
    external_stubs: Vec<bool>,
}

/// The same fields borrowed, in the same order (postcard is positional), so saving copies
/// nothing.
#[derive(Serialize)]
struct StoredRef<'a> {
    n: usize,
    ident_names: &'a [Arc<str>],
    edges: &'a Csr<u32>,
    edge_w: &'a [f64],
    trips: &'a Csr<(u32, f64)>,
    trip_defs: &'a Csr<u32>,
    ident_trips: &'a Csr<(u32, u32)>,
    def_offset: &'a [u32],
    ident_files: &'a Csr<u32>,
    stem_files: &'a FastMap<String, Vec<u32>>,
    path_words: &'a FastMap<String, Vec<u32>>,
    def_words: &'a FastMap<String, Vec<(u32, u32)>>,
    path_order: &'a [u32],
    supporting: &'a [bool],
    external_stubs: &'a [bool],
}

impl FileGraph {
    /// This graph's tables, to be saved as a `StoredGraph`.
    pub fn stored(&self) -> impl Serialize + '_ {
        StoredRef {
            n: self.n,
            ident_names: &self.ident_names,
            edges: &self.edges,
            edge_w: &self.edge_w,
            trips: &self.trips,
            trip_defs: &self.trip_defs,
            ident_trips: &self.ident_trips,
            def_offset: &self.def_offset,
            ident_files: &self.ident_files,
            stem_files: &self.stem_files,
            path_words: &self.path_words,
            def_words: &self.def_words,
            path_order: &self.path_order,
            supporting: &self.supporting,
            external_stubs: &self.external_stubs,
        }
    }

    /// The graph of `files` from its stored tables. `Err` says which table does not fit.
    pub fn from_stored(s: StoredGraph, files: &[ParsedFile]) -> Result<FileGraph, String> {
        check(&s, files)?;
        let ident_ids: FastMap<Arc<str>, u32> = s
            .ident_names
            .iter()
            .enumerate()
            .map(|(i, name)| (name.clone(), i as u32))
            .collect();
        Ok(FileGraph {
            incoming_edges: std::sync::OnceLock::new(),
            n: s.n,
            ident_ids,
            ident_names: s.ident_names,
            edges: s.edges,
            edge_w: s.edge_w,
            trips: s.trips,
            trip_defs: s.trip_defs,
            ident_trips: s.ident_trips,
            def_offset: s.def_offset,
            ident_files: s.ident_files,
            stem_files: s.stem_files,
            path_words: s.path_words,
            def_words: s.def_words,
            path_order: s.path_order,
            supporting: s.supporting,
            external_stubs: s.external_stubs,
        })
    }
}

/// Whether `csr` has `rows` well-formed rows whose items pass `ok`.
fn csr_fits<T>(csr: &Csr<T>, rows: usize, ok: impl Fn(&T) -> bool) -> bool {
    csr.ptr.len() == rows + 1
        && csr.ptr.first() == Some(&0)
        && csr.ptr.windows(2).all(|w| w[0] <= w[1])
        && csr
            .ptr
            .last()
            .is_some_and(|&end| end as usize == csr.items.len())
        && csr.items.iter().all(ok)
}

fn check(s: &StoredGraph, files: &[ParsedFile]) -> Result<(), String> {
    let n = files.len();
    let fail = |what: &str| Err(format!("its {what} do not fit the files"));
    if s.n != n {
        return fail("file count");
    }
    let total_defs: usize = files.iter().map(|f| f.tags.defs.len()).sum();
    let offsets_fit = s.def_offset.len() == n + 1
        && files.iter().enumerate().all(|(i, f)| {
            s.def_offset[i + 1].checked_sub(s.def_offset[i]) == Some(f.tags.defs.len() as u32)
        })
        && s.def_offset
            .last()
            .is_some_and(|&t| t as usize == total_defs);
    if !offsets_fit {
        return fail("definition offsets");
    }
    let n_ids = s.ident_names.len();
    let n_edges = s.edges.items.len();
    let n_trips = s.trips.items.len();
    let file = |&f: &u32| (f as usize) < n;
    if !csr_fits(&s.edges, n, file) || s.edge_w.len() != n_edges {
        return fail("edges");
    }
    if !csr_fits(&s.trips, n_edges, |&(id, _)| (id as usize) < n_ids) {
        return fail("edge identifiers");
    }
    if !csr_fits(&s.trip_defs, n_trips, |&d| (d as usize) < total_defs) {
        return fail("credited definitions");
    }
    let edge_trip = |&(e, t): &(u32, u32)| (e as usize) < n_edges && (t as usize) < n_trips;
    if !csr_fits(&s.ident_trips, n_ids, edge_trip) {
        return fail("identifier index");
    }
    if !csr_fits(&s.ident_files, n_ids, file) {
        return fail("definers");
    }
    let lists_fit = s.stem_files.values().flatten().all(file)
        && s.path_words.values().flatten().all(file)
        && s.def_words.values().flatten().all(|(f, _)| file(f));
    if !lists_fit {
        return fail("word tables");
    }
    let mut order = s.path_order.clone();
    order.sort_unstable();
    let is_permutation = order.iter().enumerate().all(|(i, &p)| p as usize == i);
    if order.len() != n || !is_permutation || s.supporting.len() != n || s.external_stubs.len() != n
    {
        return fail("per-file tables");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::model::{
        ContainerRef, Definition, FileTags, ImportedName, LineRange, Reference,
    };

    fn sample() -> Vec<ParsedFile> {
        let def = |name: &str| Definition {
            name: name.into(),
            kind: DefKind::Function,
            lines: LineRange::new(1, 1),
            signature: LineRange::new(1, 1),
            parent: None,
            scope_lines: Vec::new(),
            container: ContainerRef::NONE,
            declaration: false,
            lookup_only: false,
        };
        let call = |name: &str| Reference {
            name: name.into(),
            kind: RefKind::Call,
            line: 1,
            qualifier: None,
            receiver: None,
        };
        let file = |path: &str, defs: Vec<Definition>, refs: Vec<Reference>, imports| {
            let tags = FileTags {
                defs,
                refs: refs.into(),
                imports,
                ..FileTags::default()
            };
            ParsedFile::new(path.into(), Lang::Python, 0, Arc::from(""), tags)
        };
        let import = Import {
            specifier: ".b".into(),
            names: vec![ImportedName {
                name: "helper".into(),
                alias: None,
            }],
            namespace: None,
            wildcard: false,
            reexport: false,
            line: 1,
        };
        vec![
            file(
                "pkg/a.py",
                vec![def("main")],
                vec![call("helper"), call("shared")],
                vec![import],
            ),
            file(
                "pkg/b.py",
                vec![def("helper"), def("shared")],
                vec![call("main")],
                vec![],
            ),
            file(
                "tests/test_b.py",
                vec![def("shared")],
                vec![call("helper")],
                vec![],
            ),
        ]
    }

    fn round_trip(graph: &FileGraph) -> StoredGraph {
        let bytes = postcard::to_allocvec(&graph.stored()).unwrap();
        postcard::from_bytes(&bytes).unwrap()
    }

    #[test]
    fn a_stored_graph_loads_as_the_graph_it_was() {
        let files = sample();
        let built = build_graph(&files, &[], &[]);
        assert!(built.edge_count() > 0);
        let loaded = FileGraph::from_stored(round_trip(&built), &files).unwrap();
        for f in 0..files.len() {
            assert_eq!(loaded.incoming(f), built.incoming(f));
            assert_eq!(loaded.outgoing(f), built.outgoing(f));
        }
        assert_eq!(loaded.edge_w, built.edge_w);
        assert_eq!(loaded.edges.items, built.edges.items);
        for name in ["helper", "shared", "main", "*"] {
            assert_eq!(loaded.ident_id(name), built.ident_id(name), "{name}");
        }
    }

    #[test]
    fn tables_that_do_not_fit_the_files_are_refused() {
        let files = sample();
        let built = build_graph(&files, &[], &[]);
        assert!(FileGraph::from_stored(round_trip(&built), &files[..2]).is_err());
        let mut bad = round_trip(&built);
        bad.edges.items[0] = 99;
        assert!(FileGraph::from_stored(bad, &files).is_err());
        let mut bad = round_trip(&built);
        bad.trips.ptr.pop();
        assert!(FileGraph::from_stored(bad, &files).is_err());
        let mut bad = round_trip(&built);
        bad.path_order.swap(0, 1);
        bad.path_order[0] = bad.path_order[1];
        assert!(FileGraph::from_stored(bad, &files).is_err());
        let mut bad = round_trip(&built);
        bad.def_offset[1] += 1;
        assert!(FileGraph::from_stored(bad, &files).is_err());
    }
}
