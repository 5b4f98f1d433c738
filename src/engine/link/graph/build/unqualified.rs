//! Binding a bare name (`graph`'s header, rules 1, 3, 4 and 5): what the file imports under it, else
//! what its wildcard imports, its package or its namespace define, else a guess among the
//! few files defining it, where the scope rules allow one. Part of the builder; runs on the
//! binding's rayon workers, one file at a time, with that file's `Memo`.

use super::*;

impl Builder<'_> {
    /// A bare name: what the file imports under it, else what its wildcard imports, its
    /// Go package or its Java package define, else a guess among the few files defining it.
    /// A name the language provides (Ruby's `File`, Python's `len`) is never guessed: it
    /// binds only where the repository's definition is visible (imported, the same package
    /// or namespace, Ruby's lexical nesting).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_unqualified(
        &self,
        memo: &mut Memo,
        fi: usize,
        scope: &Scope<'_>,
        r: &Use<'_>,
        id: u32,
        w: f64,
        acc: &mut Acc,
    ) {
        let file = &self.files[fi];
        if let Some(bindings) = scope.named.get(r.name) {
            for &(i, k) in bindings {
                if let Some(targets) = self.bind_named(memo, fi, i, k) {
                    acc.add(
                        &targets,
                        Binding::Resolved,
                        w,
                        |t, id| self.defines(t, id),
                        |_| BoundBy::Import,
                    );
                }
            }
            return;
        }
        if self.defines(fi, id) {
            return;
        }
        // A method called on the instance without a receiver (Ruby, Java, C#, C++): the
        // enclosing type's or an ancestor's, before anything the file's imports name.
        if let Some(receiver) = r.receiver {
            if let TypedMember::Found(hits) = self.typed_member(memo, fi, scope, receiver, id) {
                acc.add(&hits, Binding::Typed, w, |_, _| true, |_| BoundBy::Typed);
                return;
            }
        }
        let mut wild: Vec<Target> = Vec::new();
        // A type's members are not names a wildcard import brings, where the language's
        // wildcards cannot import a type's members.
        let members_too = wildcards_reach_members(file.lang);
        for &i in &scope.wildcards {
            let module = self.resolved[fi][i].module.clone();
            wild.extend(
                self.find_definers(memo, &module, id)
                    .into_iter()
                    .filter(|&(f, d)| {
                        self.defines(f, d) && (members_too || self.defines_outside_types(f, d))
                    }),
            );
        }
        // What the imports bound, for the census (the rest is the file's own package).
        let imported = wild.len();
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
        // Kotlin and Scala likewise, the package being the files that declare it (they
        // may live in any directory).
        if matches!(file.lang, Lang::Kotlin | Lang::Scala)
            && r.name.starts_with(|c: char| c.is_ascii_uppercase())
            && !language_names(file.lang).is_bare(r.name)
        {
            wild.extend(self.own_namespace_definers(fi, id));
        }
        // Terraform: the `.tf` files of one directory are one module, sharing every name.
        if file.lang == Lang::Hcl {
            wild.extend(self.same_directory_definers(fi, id));
        }
        if !wild.is_empty() || file.lang == Lang::Go {
            // Never a bare-name guess across Go packages: an unresolved name there is a
            // builtin or a local.
            let mut by_import: Vec<usize> = wild[..imported].iter().map(|&(t, _)| t).collect();
            by_import.sort_unstable();
            wild.sort_unstable();
            wild.dedup();
            let how = |t: usize| {
                if by_import.binary_search(&t).is_ok() {
                    BoundBy::Import
                } else {
                    BoundBy::SamePackage
                }
            };
            acc.add(&wild, Binding::Resolved, w, |_, _| true, how);
            return;
        }
        if r.name.chars().count() < 2 {
            return;
        }
        let language_name = language_names(file.lang).is_bare(r.name);
        if language_name && file.lang == Lang::Ruby {
            // Ruby's constant lookup: the referencing file's own nesting first.
            let hits = self.ruby_lexical_definers(memo, fi, id);
            if !hits.is_empty() {
                acc.add(
                    &hits,
                    Binding::Resolved,
                    w,
                    |_, _| true,
                    |_| BoundBy::SamePackage,
                );
                return;
            }
        }
        if language_name {
            // C#, PHP, Java: a repository type of that name in the file's own namespace.
            // Not Kotlin's or Scala's: a package's `fun String(…)` (a factory named like
            // the type it makes) is no type, and `: String` still means the language's.
            let own = if matches!(file.lang, Lang::Kotlin | Lang::Scala) {
                Vec::new()
            } else {
                self.own_namespace_definers(fi, id)
            };
            if !own.is_empty() {
                acc.add(
                    &own,
                    Binding::Resolved,
                    w,
                    |_, _| true,
                    |_| BoundBy::SamePackage,
                );
                return;
            }
            if acc.census.is_some() {
                let cands = self.name_candidates(fi, id);
                acc.dropped(&cands, BoundBy::LanguageName);
            }
            return;
        }
        let cands = self.name_candidates(fi, id);
        if !cands.is_empty() {
            acc.add(
                &cands,
                Binding::Fallback,
                w,
                |_, _| true,
                |_| BoundBy::NameGuess,
            );
        }
    }

    /// The files a bare-name guess from `fi` lands in: the few of its family defining `id`
    /// (none past `FALLBACK_MAX_DEFINERS`), not supporting code (`may_guess`), and not a
    /// file defining it only as a type's member where a bare name cannot mean one.
    pub(super) fn name_candidates(&self, fi: usize, id: u32) -> Vec<Target> {
        let lang = self.files[fi].lang;
        let cands = self.definers[family(lang)].row(id as usize);
        if cands.is_empty() || cands.len() > FALLBACK_MAX_DEFINERS {
            return Vec::new();
        }
        let members_too = wildcards_reach_members(lang);
        cands
            .iter()
            .map(|&t| t as usize)
            .filter(|&t| self.may_guess(fi, t))
            .filter(|&t| members_too || self.defines_outside_types(t, id))
            .map(|t| (t, id))
            .collect()
    }

    /// Whether a name guess (bare-name or method fallback) from `from` may land in `target`:
    /// not from the project's own code into supporting code. Implementation does not use its
    /// tests and fixtures (a fixture defining `len` for the tests is not what `len()` in the
    /// compiler means), and what an external stub declares lives outside the repository, so
    /// a same-named use (`x.args`, `is_protocol`) is not its; the imports that would reach
    /// a stub stay unresolved.
    pub(super) fn may_guess(&self, from: usize, target: usize) -> bool {
        let supporting = |i: usize| self.supporting.get(i).copied().unwrap_or(false);
        !supporting(target) || supporting(from)
    }

    /// Files of `fi`'s Go package (same directory) defining `id` (methods only if asked). A
    /// non-test file does not see `_test.go` files.
    pub(super) fn same_package_definers(
        &self,
        fi: usize,
        id: u32,
        methods_only: bool,
    ) -> Vec<Target> {
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
    pub(super) fn same_directory_definers(&self, fi: usize, id: u32) -> Vec<Target> {
        let dir = self.file_dir[fi];
        self.definers[family(self.files[fi].lang)]
            .row(id as usize)
            .iter()
            .map(|&t| t as usize)
            .filter(|&t| t != fi && self.file_dir[t] == dir)
            .map(|t| (t, id))
            .collect()
    }
}
