//! Where a name seen through imports really lives, following re-exports (`export * from`,
//! `pub use`, Python's `__init__` imports, transitive includes), and which files a re-export
//! search can reach at all. Part of the builder; runs on the binding's rayon workers, one
//! file at a time, with that file's `Memo`.

use super::*;

impl Builder<'_> {
    /// Where `name` as seen from `targets` really lives, following re-exports: (file, name
    /// there). A re-export chain that ends in a module without the definition yields that
    /// module with the name looked for (a module-only target).
    pub(super) fn find_definers(
        &self,
        memo: &mut Memo,
        targets: &[usize],
        name: u32,
    ) -> Vec<Target> {
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
            let hit = if self.defined_nowhere_in_reach(t, name) {
                Vec::new()
            } else {
                let mut visited = FastSet::default();
                self.definers_from(t, name, REEXPORT_DEPTH, &mut visited)
            };
            out.extend_from_slice(&hit);
            memo.definers.insert((t as u32, name), hit);
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether no file in `t`'s `reach` defines `name`: `definers_from(t, name, …)` then
    /// finds nothing, and need not search (a C++ file's includes would otherwise be read
    /// again for every name it uses).
    pub(super) fn defined_nowhere_in_reach(&self, t: usize, name: u32) -> bool {
        let Some(reach) = self
            .reach
            .get(t)
            .and_then(|r| r.get_or_init(|| self.reach_of(t)).as_deref())
        else {
            return false;
        };
        let def_files = self
            .def_files
            .get_or_init(|| files_by_definition(&self.file_defs, self.n_def_ids));
        !def_files
            .row(name as usize)
            .iter()
            .any(|f| reach.binary_search(f).is_ok())
    }

    /// The files `definers_from(t, name, REEXPORT_DEPTH, …)` can look at, whatever `name`:
    /// `t` and the files its whole-file imports lead to (`#include`, `require`, `export *
    /// from`, star imports) within `REEXPORT_DEPTH` steps, sorted. Only when every file it
    /// expands on the way imports whole files alone (no names, no namespace) and none is Go:
    /// then the search can only return definitions of `name` in those files, so a name none
    /// of them defines needs no search. `None` otherwise, or past `MAX_REACH` files.
    pub(super) fn reach_of(&self, t: usize) -> Option<Box<[u32]>> {
        let mut seen = FastSet::default();
        seen.insert(t);
        let mut frontier = vec![t];
        // Files at the last step are checked by the search (`defines`) but not expanded.
        for _ in 0..REEXPORT_DEPTH {
            let mut next = Vec::new();
            for &x in &frontier {
                let lang = self.files[x].lang;
                if lang == Lang::Go {
                    return None;
                }
                for (imp, ri) in self.imports(x).iter().zip(&self.resolved[x]) {
                    if !imp.names.is_empty() || imp.namespace.is_some() {
                        return None;
                    }
                    if imp.wildcard && (imp.reexport || includes_are_transitive(lang)) {
                        for &m in &ri.module {
                            if seen.insert(m) {
                                next.push(m);
                            }
                        }
                    }
                }
            }
            if seen.len() > MAX_REACH {
                return None;
            }
            frontier = next;
        }
        let mut all: Vec<u32> = seen.into_iter().map(|f| f as u32).collect();
        all.sort_unstable();
        Some(all.into())
    }

    pub(super) fn definers_from(
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
}
