//! Binding a member or selector use `q.name` (`graph`'s header, rules 1, 4 and 5): through
//! the module `q` names or the definition `q` is bound to, else a method guess among the
//! files in view. Part of the builder; runs on the binding's rayon workers, one file at a time,
//! with that file's `Memo`.

use super::*;

impl Builder<'_> {
    /// A member or selector use `q.name` (`ns.foo`, `pkg.Foo`, `mod.func`, `obj.method`):
    /// through the module `q` names, the definition `q` is bound to, a Ruby constant's
    /// container (`Jekyll::Site`), or else (a receiver, `this`, `self`, a local) a method of
    /// that name in view. Not a member of the language's own classes and objects
    /// (`File.join`, `JSON.parse`, `std::move`) unless `q` is the repository's there.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn bind_qualified(
        &self,
        memo: &mut Memo,
        fi: usize,
        scope: &Scope<'_>,
        r: &Use<'_>,
        q: &str,
        id: u32,
        w: f64,
        acc: &mut Acc,
    ) {
        let file = &self.files[fi];
        // `ns.foo`, `pkg.Foo`, `mod.func`: the qualifier is a module binding.
        if let Some(imps) = scope.namespaces.get(q) {
            let mut module: Vec<usize> = imps
                .iter()
                .flat_map(|&i| self.resolved[fi][i].module.iter().copied())
                .collect();
            module.sort_unstable();
            module.dedup();
            if module.is_empty() {
                return; // an external package
            }
            let found = self.find_definers(memo, &module, id);
            if !found.is_empty() {
                acc.add(
                    &found,
                    Binding::Resolved,
                    w,
                    |t, id| self.defines(t, id),
                    |_| BoundBy::Import,
                );
            } else if file.lang != Lang::Go {
                // Go packages are resolved exactly; elsewhere the name may be a
                // submodule or an attribute the tags missed.
                let targets: Vec<Target> = module.iter().map(|&m| (m, id)).collect();
                acc.add(
                    &targets,
                    Binding::ModuleOnly,
                    w,
                    |_, _| true,
                    |_| BoundBy::Import,
                );
            }
            return;
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
                return;
            }
            if !hit.is_empty() {
                hit.sort_unstable();
                hit.dedup();
                let (binding, how) = if module_binding {
                    (Binding::Resolved, BoundBy::Import)
                } else {
                    (Binding::Member, BoundBy::Member)
                };
                acc.add(&hit, binding, w, |_, _| true, |_| how);
                return;
            }
        }
        if self.defines(fi, id) || r.name.chars().count() < 2 {
            return;
        }
        if let Some(receiver) = r.receiver {
            match self.typed_member(memo, fi, scope, receiver, id) {
                TypedMember::Found(hits) => {
                    acc.add(&hits, Binding::Typed, w, |_, _| true, |_| BoundBy::Typed);
                    return;
                }
                TypedMember::Foreign => {
                    if acc.census.is_some() {
                        let mut cands = self.method_candidates(fi, id);
                        if file.lang == Lang::Go {
                            cands.extend(self.same_package_definers(fi, id, true));
                        }
                        acc.dropped(&cands, BoundBy::ForeignReceiver);
                    }
                    return;
                }
                TypedMember::Unknown => {}
            }
        }
        let lang_names = language_names(file.lang);
        if file.lang == Lang::Ruby {
            if let Some(qid) = self.interner.get(q) {
                // `Jekyll::Site`: a constant of a repository class or module of that name.
                if is_constant(r.name) && is_constant(q) {
                    let hits = self.ruby_members_of(fi, qid, id);
                    if !hits.is_empty() {
                        acc.add(&hits, Binding::Member, w, |_, _| true, |_| BoundBy::Member);
                        return;
                    }
                }
                // `File.join` where the nesting makes `File` the repository's own.
                if lang_names.is_type(q) {
                    let mut hits: Vec<Target> = self
                        .ruby_lexical_definers(memo, fi, qid)
                        .into_iter()
                        .filter(|&(t, _)| self.defines(t, id))
                        .map(|(t, _)| (t, id))
                        .collect();
                    hits.dedup();
                    if !hits.is_empty() {
                        acc.add(&hits, Binding::Member, w, |_, _| true, |_| BoundBy::Member);
                        return;
                    }
                }
            }
        }
        // Java, C#, PHP: `Optional.empty()` where the file's own package or namespace
        // defines a class `Optional` is that class's (it shadows the language's).
        if lang_names.is_type(q) {
            if let Some(qid) = self.interner.get(q) {
                let mut hits: Vec<Target> = self
                    .own_scope_type_definers(fi, qid)
                    .into_iter()
                    .filter(|&(t, _)| self.defines(t, id))
                    .map(|(t, _)| (t, id))
                    .collect();
                hits.sort_unstable();
                hits.dedup();
                if !hits.is_empty() {
                    acc.add(
                        &hits,
                        Binding::Member,
                        w,
                        |_, _| true,
                        |_| BoundBy::SamePackage,
                    );
                    return;
                }
            }
        }
        // A member of the language's own classes, modules and objects (`File.join`,
        // `JSON.parse`, `console.log`, `std::move`): the runtime's, never a repository
        // method (no import of the file binds the qualifier).
        if lang_names.is_type(q) {
            if acc.census.is_some() {
                let cands = self.method_candidates(fi, id);
                acc.dropped(&cands, BoundBy::LanguageName);
            }
            return;
        }
        self.guess_method(memo, fi, r.name, id, w, acc);
    }

    /// The files a method guess from `fi` may land in: those defining a method `id`, if only
    /// a few do, but not `fi` itself, its own Go package (bound before any guess) nor
    /// supporting code (`may_guess`). Empty when there are too many.
    pub(super) fn method_candidates(&self, fi: usize, id: u32) -> Vec<Target> {
        let file = &self.files[fi];
        let fam = family(file.lang);
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
            return Vec::new();
        }
        let cands: Vec<Target> = all
            .iter()
            .map(|&t| t as usize)
            .filter(|&t| t != fi && !(is_go && self.file_dir[t] == dir))
            .filter(|&t| self.may_guess(fi, t))
            .map(|t| (t, id))
            .collect();
        if cands.len() > FALLBACK_MAX_DEFINERS {
            return Vec::new();
        }
        cands
    }

    /// A method call on a receiver of unknown type: the method of that name in the file's
    /// own Go package, else the files defining a method of that name if only a few do and the
    /// use's file has them in view (`in_view`: it imports them or shares their package),
    /// the weight shared among them. Not a method every value of the language has (`to_s`,
    /// `equals`, Go's `Error`): that says nothing of the receiver's type.
    pub(super) fn guess_method(
        &self,
        memo: &mut Memo,
        fi: usize,
        name: &str,
        id: u32,
        w: f64,
        acc: &mut Acc,
    ) {
        let file = &self.files[fi];
        if language_names(file.lang).is_method(name) {
            if acc.census.is_some() {
                let mut cands = self.method_candidates(fi, id);
                if file.lang == Lang::Go {
                    cands.extend(self.same_package_definers(fi, id, true));
                }
                acc.dropped(&cands, BoundBy::LanguageName);
            }
            return;
        }
        if file.lang == Lang::Go {
            let same = self.same_package_definers(fi, id, true);
            if !same.is_empty() {
                acc.add(
                    &same,
                    Binding::PackageMethod,
                    w,
                    |_, _| true,
                    |_| BoundBy::SamePackage,
                );
                return;
            }
        }
        let cands = self.method_candidates(fi, id);
        if cands.is_empty() {
            return;
        }
        let (seen, unseen): (Vec<Target>, Vec<Target>) =
            cands.iter().partition(|&&(t, _)| self.in_view(memo, fi, t));
        acc.dropped(&unseen, BoundBy::NotVisible);
        if !seen.is_empty() {
            acc.add(
                &seen,
                Binding::MethodFallback,
                w,
                |_, _| true,
                |_| BoundBy::MethodGuess,
            );
        }
    }
}
