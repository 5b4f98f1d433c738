//! What a file has in view, for the rules that bind a use only where the language makes the
//! definition visible (`graph`'s header, rules 4 and 5): the files its imports reach (a
//! method guess lands only there or in its own package), its own namespace (C#, PHP, Java),
//! and Ruby's constant lookup through the file's lexical nesting (`module Jekyll; class
//! LiquidRenderer` sees `Jekyll::LiquidRenderer::File`). Part of the builder; runs on the
//! binding's rayon workers, one file at a time, with that file's `Memo`.

use super::*;
use crate::engine::base::model::Definition;

impl Builder<'_> {
    /// Whether a method guess from `fi` may land in `t`: `fi` imports `t` (`files_in_view`)
    /// or shares its directory (its package, module or namespace, by convention).
    pub(super) fn in_view(&self, memo: &mut Memo, fi: usize, t: usize) -> bool {
        if self.file_dir[t] == self.file_dir[fi] {
            return true;
        }
        if memo.view.is_none() {
            let view = self.files_in_view(memo, fi);
            memo.view = Some(view);
        }
        memo.view
            .as_deref()
            .is_some_and(|v| v.binary_search(&(t as u32)).is_ok())
    }

    /// The files `fi`'s imports reach, sorted: what each resolves to (module files, Python
    /// submodules, the definers its named imports bind through re-exports) and, where
    /// includes are transitive (C/C++, Ruby, PHP), what those include in turn, as deep as a
    /// re-export search goes (`REEXPORT_DEPTH`, at most `MAX_REACH` files).
    fn files_in_view(&self, memo: &mut Memo, fi: usize) -> Box<[u32]> {
        let mut seen: FastSet<usize> = FastSet::default();
        for (i, imp) in self.imports(fi).iter().enumerate() {
            let ri = &self.resolved[fi][i];
            seen.extend(ri.module.iter().copied());
            for sub in &ri.names {
                seen.extend(sub.iter().copied());
            }
            for k in 0..imp.names.len() {
                if let Some(targets) = self.bind_named(memo, fi, i, k) {
                    seen.extend(targets.iter().map(|&(f, _)| f));
                }
            }
        }
        if includes_are_transitive(self.files[fi].lang) {
            let mut frontier: Vec<usize> = seen.iter().copied().collect();
            frontier.sort_unstable();
            for _ in 0..REEXPORT_DEPTH {
                let mut next = Vec::new();
                for &x in &frontier {
                    for (imp, ri) in self.imports(x).iter().zip(&self.resolved[x]) {
                        if imp.wildcard {
                            for &m in &ri.module {
                                if seen.insert(m) {
                                    next.push(m);
                                }
                            }
                        }
                    }
                }
                if next.is_empty() || seen.len() > MAX_REACH {
                    break;
                }
                frontier = next;
            }
        }
        let mut view: Vec<u32> = seen.into_iter().map(|f| f as u32).collect();
        view.sort_unstable();
        view.into()
    }

    /// C#, PHP, Java: the other files of `fi`'s own namespace or package (those declaring
    /// one it declares, `namespace A.B`: `namespace_files`) that define `id`.
    pub(super) fn own_namespace_definers(&self, fi: usize, id: u32) -> Vec<Target> {
        let lang = self.files[fi].lang;
        if !declares_namespaces(lang) {
            return Vec::new();
        }
        let mut out: Vec<Target> = Vec::new();
        for imp in self.imports(fi) {
            if !is_namespace_declaration(imp) {
                continue;
            }
            let key = (family(lang), imp.specifier.clone());
            if let Some(list) = self.namespace_files.get(&key) {
                out.extend(
                    list.iter()
                        .map(|&t| t as usize)
                        .filter(|&t| t != fi && self.defines(t, id))
                        .map(|t| (t, id)),
                );
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Java, C#, PHP: the files defining `id` that the file's own package or namespace
    /// holds (Java's package is its directory, by the language's convention).
    pub(super) fn own_scope_type_definers(&self, fi: usize, id: u32) -> Vec<Target> {
        let mut out = self.own_namespace_definers(fi, id);
        if self.files[fi].lang == Lang::Java {
            out.extend(self.same_directory_definers(fi, id));
            out.sort_unstable();
            out.dedup();
        }
        out
    }

    /// Ruby: the repository's definitions of the constant `id` that Ruby's lookup from `fi`
    /// reaches through the file's lexical nesting: a `File` used inside `module Jekyll;
    /// class LiquidRenderer` is `Jekyll::LiquidRenderer::File` or `Jekyll::File` when one is
    /// defined (in any file), never a top-level `File` (the language's, reopened). The
    /// file's nesting is taken whole, not per use: a one-shot build counts uses without
    /// their lines.
    pub(super) fn ruby_lexical_definers(&self, memo: &mut Memo, fi: usize, id: u32) -> Vec<Target> {
        if let Some(hit) = memo.lexical.get(&id) {
            return hit.clone();
        }
        let nesting = memo
            .nesting
            .get_or_insert_with(|| self.ruby_nesting(fi))
            .clone();
        let mut out = Vec::new();
        if !nesting.is_empty() {
            for &t in self.definers[family(Lang::Ruby)].row(id as usize) {
                let t = t as usize;
                if t == fi || self.files[t].lang != Lang::Ruby || !self.may_guess(fi, t) {
                    continue;
                }
                let reached = self.constant_defs(t, id).any(|d| {
                    let container = self.ruby_container(t, d);
                    !container.is_empty() && nesting.contains(&container)
                });
                if reached {
                    out.push((t, id));
                }
            }
        }
        memo.lexical.insert(id, out.clone());
        out
    }

    /// Ruby `Q::Name`: the repository's constants `id` defined directly inside a class or
    /// module named `q` (`Jekyll::Site` → `class Site` in `module Jekyll`).
    pub(super) fn ruby_members_of(&self, fi: usize, q: u32, id: u32) -> Vec<Target> {
        let mut out = Vec::new();
        for &t in self.definers[family(Lang::Ruby)].row(id as usize) {
            let t = t as usize;
            if t == fi || self.files[t].lang != Lang::Ruby || !self.may_guess(fi, t) {
                continue;
            }
            if self
                .constant_defs(t, id)
                .any(|d| self.ruby_container(t, d).last() == Some(&q))
            {
                out.push((t, id));
            }
        }
        out
    }

    /// The definitions named `id` in file `t` that are Ruby constants (a class, a module,
    /// an assigned constant), by index.
    fn constant_defs(&self, t: usize, id: u32) -> impl Iterator<Item = usize> + '_ {
        let defs = &self.file_defs[t];
        let start = defs.partition_point(|&(i, _)| i < id);
        defs[start..]
            .iter()
            .take_while(move |&&(i, _)| i == id)
            .map(|&(_, d)| d as usize)
            .filter(move |&d| {
                matches!(
                    self.files[t].tags.defs[d].kind,
                    DefKind::Class | DefKind::Constant
                )
            })
    }

    /// The names (ids) of the classes and modules that definition `d` of file `f` is nested
    /// in, outermost first (`enclosing_classes`).
    fn ruby_container(&self, f: usize, d: usize) -> Vec<u32> {
        let defs = &self.files[f].tags.defs;
        enclosing_classes(defs, d)
            .into_iter()
            .filter_map(|c| self.interner.get(&defs[c].name))
            .collect()
    }

    /// Every namespace file `fi` opens, as the path of names from the top (`[Jekyll]`,
    /// `[Jekyll, LiquidRenderer]`): where Ruby's constant lookup looks first.
    fn ruby_nesting(&self, fi: usize) -> Vec<Vec<u32>> {
        let defs = &self.files[fi].tags.defs;
        let mut out: Vec<Vec<u32>> = Vec::new();
        for (d, def) in defs.iter().enumerate() {
            if def.kind != DefKind::Class {
                continue;
            }
            let Some(id) = self.interner.get(&def.name) else {
                continue;
            };
            let mut path = self.ruby_container(fi, d);
            path.push(id);
            out.push(path);
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A Ruby constant's name: it starts with a capital letter.
pub(super) fn is_constant(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// The classes and modules (by index) that definition `d` of `defs` is nested in, outermost
/// first, by the lines each spans: Ruby's lexical nesting (`module Jekyll; class
/// LiquidRenderer; class File` → `Jekyll`, `LiquidRenderer`).
pub(in crate::engine::link::graph) fn enclosing_classes(
    defs: &[Definition],
    d: usize,
) -> Vec<usize> {
    let me = &defs[d];
    let mut outer: Vec<(u32, std::cmp::Reverse<u32>, usize)> = defs
        .iter()
        .enumerate()
        .filter(|&(k, c)| {
            k != d
                && c.kind == DefKind::Class
                && c.lines.start <= me.lines.start
                && me.lines.end <= c.lines.end
                && (c.lines.start, c.lines.end) != (me.lines.start, me.lines.end)
        })
        .map(|(k, c)| (c.lines.start, std::cmp::Reverse(c.lines.end), k))
        .collect();
    outer.sort_unstable();
    outer.into_iter().map(|(_, _, k)| k).collect()
}
