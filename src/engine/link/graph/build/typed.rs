//! Typed member uses (`graph`'s header, rule 1b): a use whose receiver's type the file
//! states (`RefView::receiver`: `self.m()` in class `A`, `c.Do()` with `c *api.Client`,
//! `x = Client(); x.m()`) binds to the method of that name whose container is that type, or
//! else one of the type's ancestors (base classes, implemented interfaces and traits, Go's
//! embedded types: the heritage the type's files name for it), wherever the repository
//! defines them. A type that is the language's own or an external package's drops the use;
//! a type nothing says anything about leaves it to the guesses.
//!
//! Part of the builder; runs on the binding's rayon workers, one file at a time, with that
//! file's `Memo`. The tables it reads (`Builder::member_files`, `Builder::ancestry`) are
//! made once per build.

use super::*;
use crate::engine::base::model::{ContainerKind, Definition, FileTags};

/// How many ancestor generations a member is looked for in.
const MAX_ANCESTRY: usize = 4;

/// What a receiver's type is, seen from a file.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum TypeOf {
    /// The repository's: the files defining it, each with the type's name id.
    Repo(Vec<Target>),
    /// The language's own or an external package's.
    Foreign,
    /// Nothing in the file or its imports says which.
    Unknown,
}

/// Where a typed member use binds.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum TypedMember {
    /// The method in the type or its nearest ancestor defining it.
    Found(Vec<Target>),
    /// The type (or the ancestor it must come from) is not the repository's.
    Foreign,
    /// Unknown: the guesses decide.
    Unknown,
}

/// A type's bases as a file binding sees them (`Builder::parents`).
#[derive(Clone, Debug, Default)]
pub(super) struct Parents {
    /// The repository's, each a (file, type name id).
    types: Vec<Target>,
    /// Some base is the language's own or an external package's.
    foreign: bool,
    /// Some base nothing resolves.
    unknown: bool,
}

/// One heritage name of a type in a file: `class A(B)`, `impl T for A`, `struct A { B }`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ancestor {
    /// The type's name id.
    ty: u32,
    /// The base's name id, and its qualifier's (`m.Base`).
    base: u32,
    qualifier: Option<u32>,
}

/// Whether a definition of this kind is a type a member can be looked up in.
fn is_type_kind(kind: DefKind) -> bool {
    matches!(
        kind,
        DefKind::Class | DefKind::Interface | DefKind::Struct | DefKind::Enum | DefKind::TypeAlias
    )
}

/// The type a definition is a member of: its container when that is a type (through a Ruby
/// singleton), by its name's last segment.
fn member_of<'a>(tags: &'a FileTags, def: &Definition) -> Option<&'a str> {
    let mut at = def.container;
    for _ in 0..2 {
        let c = tags.container_at(at)?;
        match c.kind {
            ContainerKind::Type => return Some(last_segment(&c.name)),
            ContainerKind::Singleton => at = c.parent,
            _ => return None,
        }
    }
    None
}

/// `A::B`, `A.B`, `A\B` → `B`.
fn last_segment(name: &str) -> &str {
    let cut = ["::", ".", "\\"]
        .iter()
        .filter_map(|sep| name.rfind(sep).map(|i| i + sep.len()))
        .max()
        .unwrap_or(0);
    &name[cut..]
}

/// `http.Client` → (`http`, `Client`); `Terminal::Table` → (`Terminal`, `Table`); `Client`
/// → (none, `Client`).
fn split_receiver(receiver: &str) -> (Option<&str>, &str) {
    let split = receiver
        .rsplit_once("::")
        .or_else(|| receiver.rsplit_once('.'));
    match split {
        Some((q, name)) if !q.is_empty() && !name.is_empty() => (Some(q), name),
        _ => (None, receiver),
    }
}

/// Per method name id and type name id: the files defining that method in that type.
pub(super) fn member_files(
    files: &[ParsedFile],
    interner: &Interner,
) -> FastMap<(u32, u32), Vec<u32>> {
    let mut out: FastMap<(u32, u32), Vec<u32>> = FastMap::default();
    for (fi, f) in files.iter().enumerate() {
        for def in &f.tags.defs {
            if !matches!(def.kind, DefKind::Method | DefKind::Function) || def.container.is_none() {
                continue;
            }
            let Some(ty) = member_of(&f.tags, def).and_then(|t| interner.get(t)) else {
                continue;
            };
            let Some(m) = interner.get(&def.name) else {
                continue;
            };
            let list = out.entry((m, ty)).or_default();
            if list.last() != Some(&(fi as u32)) {
                list.push(fi as u32);
            }
        }
    }
    out
}

/// The heritage names of each type a file defines: each heritage use (`heritage`: line,
/// name, qualifier) credited to the innermost type definition holding its line, or (a Rust
/// `impl Trait for A` line) to the type whose members have that line among their scope
/// lines.
pub(super) fn ancestry_of<'n>(
    tags: &FileTags,
    heritage: impl Iterator<Item = (u32, &'n str, Option<&'n str>)>,
    interner: &Interner,
) -> Vec<Ancestor> {
    let mut out = Vec::new();
    for (line, name, qualifier) in heritage {
        let holder = heritage_holder(tags, line);
        let (Some(ty), Some(base)) = (holder.and_then(|h| interner.get(h)), interner.get(name))
        else {
            continue;
        };
        if ty == base && qualifier.is_none() {
            continue;
        }
        out.push(Ancestor {
            ty,
            base,
            qualifier: qualifier.and_then(|q| interner.get(q)),
        });
    }
    out
}

/// The type a heritage use on `line` names a base of: the innermost type definition holding
/// the line, or (a Rust `impl Trait for A` line) the type whose members have that line among
/// their scope lines.
pub(in crate::engine::link::graph) fn heritage_holder(tags: &FileTags, line: u32) -> Option<&str> {
    tags.defs
        .iter()
        .filter(|d| is_type_kind(d.kind) && d.lines.contains(line))
        .min_by_key(|d| d.lines.end.saturating_sub(d.lines.start))
        .map(|d| last_segment(&d.name))
        .or_else(|| {
            tags.defs
                .iter()
                .find(|d| d.scope_lines.contains(&line))
                .and_then(|d| member_of(tags, d))
        })
}

/// The (method, type) pairs a file defines (`member_files`' entries), by name.
pub(in crate::engine::link::graph) fn members_by_name(tags: &FileTags) -> Vec<(&str, &str)> {
    tags.defs
        .iter()
        .filter(|d| matches!(d.kind, DefKind::Method | DefKind::Function))
        .filter_map(|d| member_of(tags, d).map(|ty| (d.name.as_str(), ty)))
        .collect()
}

/// The names a file defines as types.
pub(in crate::engine::link::graph) fn types_by_name(tags: &FileTags) -> Vec<&str> {
    tags.defs
        .iter()
        .filter(|d| is_type_kind(d.kind))
        .map(|d| d.name.as_str())
        .collect()
}

impl Builder<'_> {
    /// Whether file `t` defines `id` as a type.
    fn defines_type(&self, t: usize, id: u32) -> bool {
        let defs = &self.file_defs[t];
        let start = defs.partition_point(|&(i, _)| i < id);
        defs[start..]
            .iter()
            .take_while(|&&(i, _)| i == id)
            .any(|&(_, d)| is_type_kind(self.files[t].tags.defs[d as usize].kind))
    }

    /// Where a use of method `id` on a receiver of type `receiver` (as the file wrote it)
    /// binds, seen from file `fi`.
    pub(super) fn typed_member(
        &self,
        memo: &mut Memo,
        fi: usize,
        scope: &Scope<'_>,
        receiver: &str,
        id: u32,
    ) -> TypedMember {
        let Some(rid) = self.interner.get(receiver) else {
            return TypedMember::Unknown;
        };
        if let Some(hit) = memo.typed.get(&(rid, id)) {
            return hit.clone();
        }
        let (q, name) = split_receiver(receiver);
        let out = match self.type_of(memo, fi, scope, q, name) {
            TypeOf::Foreign => TypedMember::Foreign,
            TypeOf::Unknown => TypedMember::Unknown,
            TypeOf::Repo(types) => self.member_in(memo, fi, scope, types, id),
        };
        memo.typed.insert((rid, id), out.clone());
        out
    }

    /// The method `id` in the types `types` (file, type name id) or their ancestors, nearest
    /// generation first.
    fn member_in(
        &self,
        memo: &mut Memo,
        fi: usize,
        scope: &Scope<'_>,
        types: Vec<Target>,
        id: u32,
    ) -> TypedMember {
        let mut seen: FastSet<Target> = types.iter().copied().collect();
        let mut frontier = types;
        let (mut foreign, mut unknown) = (false, false);
        for _ in 0..MAX_ANCESTRY {
            let found = self.members_of(fi, &frontier, id);
            if !found.is_empty() {
                return TypedMember::Found(found);
            }
            let mut next: Vec<Target> = Vec::new();
            for &ty in &frontier {
                let parents = self.parents(memo, fi, scope, ty);
                foreign |= parents.foreign;
                unknown |= parents.unknown;
                next.extend(parents.types.iter().filter(|x| seen.insert(**x)));
            }
            if next.is_empty() {
                break;
            }
            next.sort_unstable();
            frontier = next;
        }
        if foreign && !unknown {
            TypedMember::Foreign
        } else {
            TypedMember::Unknown
        }
    }

    /// The bases of type `(t, ty)`, resolved from the file that names each (the type's
    /// file, or the use's file `fi`: `impl Trait for A` beside the call, a reopened class),
    /// once per file binding (`Memo::parents`).
    fn parents(&self, memo: &mut Memo, fi: usize, scope: &Scope<'_>, (t, ty): Target) -> Parents {
        if let Some(hit) = memo.parents.get(&(t, ty)) {
            return hit.clone();
        }
        let mut out = Parents::default();
        for from in std::iter::once(t).chain((fi != t).then_some(fi)) {
            let bases: Vec<Ancestor> = self.ancestry[from]
                .iter()
                .filter(|a| a.ty == ty)
                .copied()
                .collect();
            if bases.is_empty() {
                continue;
            }
            // The bases resolve from the file naming them, with its own scope.
            let mut other = None;
            for a in bases {
                let q = a.qualifier.map(|q| self.interner.name(q));
                let base = self.interner.name(a.base);
                let found = if from == fi {
                    self.type_of(memo, fi, scope, q, base)
                } else {
                    let (scope_t, memo_t) =
                        other.get_or_insert_with(|| (self.scope(from), Memo::default()));
                    self.type_of(memo_t, from, scope_t, q, base)
                };
                match found {
                    TypeOf::Repo(v) => out.types.extend(v),
                    TypeOf::Foreign => out.foreign = true,
                    TypeOf::Unknown => out.unknown = true,
                }
            }
        }
        out.types.sort_unstable();
        out.types.dedup();
        memo.parents.insert((t, ty), out.clone());
        out
    }

    /// The files defining method `id` as a member of one of `types`: the types' own files,
    /// and the files holding members of a type of that name that define no type of that
    /// name themselves (a Go method in another file of the package, a Rust `impl` in another
    /// module, a C++ member defined out of line, a reopened Ruby class). Not supporting code
    /// from implementation (`may_guess`).
    fn members_of(&self, fi: usize, types: &[Target], id: u32) -> Vec<Target> {
        let table = self
            .member_files
            .get_or_init(|| member_files(self.files, &self.interner));
        let mut out: Vec<Target> = Vec::new();
        for &(t, ty) in types {
            let Some(list) = table.get(&(id, ty)) else {
                continue;
            };
            let go = self.files[t].lang == Lang::Go;
            for &f in list {
                let f = f as usize;
                let fits = f == t
                    || if go {
                        self.file_dir[f] == self.file_dir[t]
                    } else {
                        family(self.files[f].lang) == family(self.files[t].lang)
                            && !self.defines_type(f, ty)
                    };
                if fits && self.may_guess(fi, f) {
                    out.push((f, id));
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// What type `name` (qualified by `q`: `http` of `http.Client`) is in file `fi`.
    pub(super) fn type_of(
        &self,
        memo: &mut Memo,
        fi: usize,
        scope: &Scope<'_>,
        q: Option<&str>,
        name: &str,
    ) -> TypeOf {
        let lang = self.files[fi].lang;
        let builtin = || {
            let names = language_names(lang);
            names.is_bare(name) || names.is_type(name)
        };
        let Some(id) = self.interner.get(name) else {
            return if lang == Lang::Go || builtin() {
                TypeOf::Foreign
            } else {
                TypeOf::Unknown
            };
        };
        let repo = |mut v: Vec<Target>| {
            v.retain(|&(t, i)| self.defines_type(t, i));
            v.sort_unstable();
            v.dedup();
            if v.is_empty() {
                TypeOf::Unknown
            } else {
                TypeOf::Repo(v)
            }
        };
        if let Some(q) = q {
            // `pkg.Client`, `mod.Client`: through the module the qualifier names.
            if let Some(imps) = scope.namespaces.get(q) {
                let mut module: Vec<usize> = imps
                    .iter()
                    .flat_map(|&i| self.resolved[fi][i].module.iter().copied())
                    .collect();
                module.sort_unstable();
                module.dedup();
                if module.is_empty() {
                    return TypeOf::Foreign;
                }
                return repo(self.find_definers(memo, &module, id));
            }
            if let Some(bindings) = scope.named.get(q) {
                let mut files: Vec<usize> = Vec::new();
                let mut external = true;
                for &(i, k) in bindings {
                    if let Some(targets) = self.bind_named(memo, fi, i, k) {
                        external = false;
                        files.extend(targets.iter().map(|&(f, _)| f));
                    }
                }
                if external {
                    return TypeOf::Foreign;
                }
                files.sort_unstable();
                files.dedup();
                return repo(self.find_definers(memo, &files, id));
            }
            // Ruby `Terminal::Table`: a constant of the repository's class or module of
            // that name, or a gem's when the repository defines no such container.
            if lang == Lang::Ruby {
                let qid = self.interner.get(q);
                let found = qid.map_or_else(Vec::new, |qid| self.ruby_members_of(fi, qid, id));
                if !found.is_empty() {
                    return repo(found);
                }
                let defined = qid
                    .is_some_and(|qid| !self.definers[family(lang)].row(qid as usize).is_empty());
                return if defined {
                    TypeOf::Unknown
                } else {
                    TypeOf::Foreign
                };
            }
        }
        if self.defines_type(fi, id) {
            return TypeOf::Repo(vec![(fi, id)]);
        }
        if let Some(bindings) = scope.named.get(name) {
            let mut out: Vec<Target> = Vec::new();
            let mut external = true;
            for &(i, k) in bindings {
                if let Some(targets) = self.bind_named(memo, fi, i, k) {
                    external = false;
                    out.extend(targets);
                }
            }
            return if external { TypeOf::Foreign } else { repo(out) };
        }
        let mut found: Vec<Target> = Vec::new();
        for &i in &scope.wildcards {
            let module = self.resolved[fi][i].module.clone();
            found.extend(self.find_definers(memo, &module, id));
        }
        match lang {
            Lang::Go => found.extend(self.same_package_definers(fi, id, false)),
            Lang::Java => found.extend(self.same_directory_definers(fi, id)),
            Lang::Ruby => found.extend(self.ruby_lexical_definers(memo, fi, id)),
            _ => {}
        }
        found.extend(self.own_namespace_definers(fi, id));
        if let TypeOf::Repo(v) = repo(found) {
            return TypeOf::Repo(v);
        }
        // An unqualified Go type no file of the package defines is the language's own
        // (`error`, `string`) or a type parameter.
        if lang == Lang::Go || builtin() {
            return TypeOf::Foreign;
        }
        // A type name only one file of the family defines is that one; not where the file
        // qualified it by something else (`other.Client`).
        if q.is_some() {
            return TypeOf::Unknown;
        }
        let only: Vec<Target> = self.definers[family(lang)]
            .row(id as usize)
            .iter()
            .map(|&t| t as usize)
            .filter(|&t| self.may_guess(fi, t) && self.defines_type(t, id))
            .map(|t| (t, id))
            .collect();
        if only.len() == 1 {
            return TypeOf::Repo(only);
        }
        TypeOf::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receivers_split_at_their_one_qualifier() {
        assert_eq!(split_receiver("http.Client"), (Some("http"), "Client"));
        assert_eq!(split_receiver("Client"), (None, "Client"));
        assert_eq!(split_receiver(".x"), (None, ".x"));
        assert_eq!(
            split_receiver("Terminal::Table"),
            (Some("Terminal"), "Table")
        );
        assert_eq!(last_segment("Jekyll::Site"), "Site");
    }
}
