//! The graph's tables from a builder's bindings: each file's contributions summed into the
//! CSR edge table, the identifier interner and the word/stem tables `rank` reads. Part of
//! the builder; runs once per build, after binding.

use super::*;

impl Builder<'_> {
    /// `release`: give what binding freed (its tables; consumed references) back to the
    /// system before the graph's tables are allocated, for a one-shot build's peak memory.
    /// `query_words`: build the query-word tables (`TakenUses::query_words`).
    pub(super) fn into_graph(
        self,
        n: usize,
        per_file: Vec<Vec<FileTriple>>,
        release: bool,
        query_words: bool,
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
            crate::engine::base::heap::release_free_memory();
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
            None => path_tables(files, query_words),
        };
        let def_words = match prior {
            Some(p) => p.def_words(files),
            None if query_words => def_words(files),
            None => FastMap::default(),
        };
        let external_stubs = self.external_stubs;
        let supporting = self.supporting;

        let Interner {
            ids: ident_ids,
            names: ident_names,
        } = self.interner;

        FileGraph {
            incoming_edges: std::sync::OnceLock::new(),
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
