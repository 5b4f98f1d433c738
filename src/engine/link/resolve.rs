//! Import resolution: which indexed files an import statement refers to.
//!
//! Owns the per-language module lookup tables (TS/JS paths, Python module paths, Go package
//! directories) and the rules for reading a specifier. Pure and allocation-light; built once
//! per index on the engine worker thread by `graph::build_graph`, read-only afterwards.
//!
//! What resolves:
//! - TS/JS: relative specifiers (`./x`, `../x`), with or without extension (`.ts .tsx .d.ts .js
//!   .jsx .mjs .cjs .mts .cts`), the TS-ESM habit of writing `./x.js` for `x.ts`, directories
//!   through `index.*`. A bare specifier resolves first through the `compilerOptions.paths`
//!   of the nearest `tsconfig.json`/`jsconfig.json` above the importer (`TsPaths`, read by
//!   the walk: exact keys and one-`*` patterns, longest prefix first, targets in order, from
//!   `baseUrl` or the config's folder), then, with an explicit `baseUrl`, from it
//!   (`resolve_ts_paths`); an `extends` chain inside the tree is followed by the walk. Else
//!   it resolves only to a workspace package found by directory name under a conventional
//!   monorepo root (`packages/<name>` …) that has an `index.*` entry. The source-root
//!   aliases the app scaffolds configure (`@/` and `~/`, also `@@/` and `~~/`: Vite's and
//!   Vue CLI's `@` → `src`, Nuxt's `~` → its source folder), when no config's `paths`
//!   resolved them, resolve to the importer's own `src` folder, else to a `src` folder or
//!   the root above it (`resolve_source_root`).
//!   Everything else (npm packages, node builtins, a bundler's own aliases) stays
//!   unresolved, and so does any target outside the repository.
//! - Python: relative imports (`from .m import x`, `from .. import y`, where `y` may be a
//!   submodule) and absolute ones, matched against every `.py`/`.pyi` file's module path
//!   computed from the repo root, from below a `src/` directory, and from the top of its
//!   `__init__.py` package chain. A module found only the last way is importable just by the
//!   code below that top folder when the folder is inside a package or test data, or when its
//!   name is the standard library's (`import typing` is not a bundled `typing.pyi`).
//! - Go: an import path below a module path declared by a `go.mod` (longest module wins, so
//!   nested modules work) → that package directory → its `.go` files (`_test.go` files only for
//!   a `_test.go` importer).
//! - Rust, Java, C, C++, C#, Ruby, PHP, Kotlin, Swift, shell, Scala, Lua, Elixir, HCL: see
//!   `langs`.

mod langs;

use crate::engine::base::model::{GoModule, Import, Lang, ParsedFile, TsPaths};
use crate::engine::base::paths::{classify, is_within, normalize_join, PathClass};
use std::collections::{HashMap, HashSet};

/// Extensions tried, in order, after an extension-less TS/JS specifier.
const TS_EXTS: [&str; 9] = [
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts",
];

/// Directories whose children are treated as workspace packages for bare TS/JS specifiers.
const WORKSPACE_ROOTS: [&str; 5] = ["packages", "libs", "apps", "modules", "plugins"];

/// The path after a source-root alias (`@/`, `~/`, `@@/`, `~~/`), if `spec` starts with one.
/// No npm package is named so (a scoped package is `@scope/name`).
fn source_root_alias(spec: &str) -> Option<&str> {
    ["@@/", "~~/", "@/", "~/"]
        .iter()
        .find_map(|alias| spec.strip_prefix(alias))
        .filter(|rest| !rest.is_empty())
}

/// Depth limit when following re-export chains (`export * from`, barrel files).
pub(crate) const REEXPORT_DEPTH: usize = 5;

/// An import resolved in detail: the module it names, and for Python, the submodules that some
/// of its imported names are (`from pkg import sub`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolvedImport {
    /// Files of the imported module (TS/JS file, Python module or package `__init__`, Go
    /// package files). Empty when unresolved (external package).
    pub module: Vec<usize>,
    /// Per entry of `Import::names`: the files of the submodule that name denotes (Python
    /// only; empty when the name is an attribute of `module`).
    pub names: Vec<Vec<usize>>,
}

impl ResolvedImport {
    /// Every file the import refers to.
    pub fn all_files(&self) -> Vec<usize> {
        let mut out: Vec<usize> = self.module.clone();
        for n in &self.names {
            out.extend_from_slice(n);
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Lookup tables for resolving imports of one set of parsed files.
pub struct Resolver<'a> {
    files: &'a [ParsedFile],
    by_path: HashMap<&'a str, usize>,
    /// Python module path (`a.b.c`) → (priority, file). Priority 0 = path from the repo root,
    /// 1 = below a `src/` directory, 2 = from the top of the `__init__.py` chain, 3 = the same
    /// when that top folder is inside a package or is test data (visible only below it).
    py_modules: HashMap<String, Vec<(u8, usize)>>,
    /// Go modules, longest module path first so nested modules win.
    go_modules: Vec<GoModule>,
    /// The `tsconfig.json`/`jsconfig.json` path aliases, deepest folder first, so the first
    /// whose folder holds an importer is the one governing it (`ts_config_of`).
    ts_paths: Vec<TsPaths>,
    /// Directory → Go files in it, ascending.
    go_dirs: HashMap<&'a str, Vec<usize>>,
    /// Workspace package directory name → directory (`plugin-legacy` → `packages/plugin-legacy`);
    /// names found under two roots are dropped as ambiguous.
    workspace: HashMap<&'a str, Option<&'a str>>,
    /// Rust, Java, C, C++, C#, Ruby and PHP (see `langs`).
    langs: langs::LangTables<'a>,
}

impl<'a> Resolver<'a> {
    pub fn new(files: &'a [ParsedFile], go_modules: &[GoModule], ts_paths: &[TsPaths]) -> Self {
        Self::with_imports(files, go_modules, ts_paths, |i| &files[i].tags.imports)
    }

    /// `new`, reading file `i`'s imports (its package or namespace declarations among them)
    /// from `imports_of(i)`: a one-shot build has taken them out of the files.
    pub fn with_imports(
        files: &'a [ParsedFile],
        go_modules: &[GoModule],
        ts_paths: &[TsPaths],
        imports_of: impl Fn(usize) -> &'a [Import],
    ) -> Self {
        let mut by_path = HashMap::with_capacity(files.len());
        let mut go_dirs: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut init_dirs: HashSet<&str> = HashSet::new();
        let mut workspace: HashMap<&str, Option<&str>> = HashMap::new();
        for (i, f) in files.iter().enumerate() {
            // First file wins on a duplicate path, so lookups stay deterministic.
            by_path.entry(f.path.as_str()).or_insert(i);
            let (dir, name) = split_dir(&f.path);
            match f.lang {
                Lang::Go => go_dirs.entry(dir).or_default().push(i),
                Lang::Python => {
                    if name == "__init__.py" || name == "__init__.pyi" {
                        init_dirs.insert(dir);
                    }
                }
                Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Vue | Lang::Svelte => {
                    let mut parts = f.path.splitn(3, '/');
                    if let (Some(root), Some(pkg), Some(_)) =
                        (parts.next(), parts.next(), parts.next())
                    {
                        if WORKSPACE_ROOTS.contains(&root) {
                            let dir = &f.path[..root.len() + 1 + pkg.len()];
                            let slot = workspace.entry(pkg).or_insert(Some(dir));
                            if *slot != Some(dir) {
                                *slot = None;
                            }
                        }
                    }
                }
                // Resolved by `langs`, from its own tables.
                Lang::Rust
                | Lang::Java
                | Lang::C
                | Lang::Cpp
                | Lang::CSharp
                | Lang::Ruby
                | Lang::Php
                | Lang::Kotlin
                | Lang::Swift
                | Lang::Bash
                | Lang::Scala
                | Lang::Lua
                | Lang::Elixir
                | Lang::Hcl => {}
            }
        }
        let mut py_modules: HashMap<String, Vec<(u8, usize)>> = HashMap::new();
        for (i, f) in files.iter().enumerate() {
            if f.lang != Lang::Python {
                continue;
            }
            for (prio, module) in python_module_paths(&f.path, &init_dirs) {
                let list = py_modules.entry(module).or_default();
                if !list.iter().any(|&(_, j)| j == i) {
                    list.push((prio, i));
                }
            }
        }
        let mut go_modules: Vec<GoModule> = go_modules.to_vec();
        go_modules.sort_by(|a, b| b.module.len().cmp(&a.module.len()).then_with(|| a.cmp(b)));
        let mut ts_paths: Vec<TsPaths> = ts_paths.to_vec();
        ts_paths.sort_by(|a, b| b.dir.len().cmp(&a.dir.len()).then_with(|| a.cmp(b)));
        Resolver {
            files,
            by_path,
            py_modules,
            go_modules,
            ts_paths,
            go_dirs,
            workspace,
            langs: langs::LangTables::new(files, imports_of),
        }
    }

    /// Files an import statement of file `from` refers to (a Go package → all its non-test .go
    /// files; excludes `from`). Ascending, deduplicated; empty when unresolved.
    pub fn resolve_import(&self, from: usize, import: &Import) -> Vec<usize> {
        let mut r = self.resolve_detail(from, import);
        // `from pkg import sub_a, sub_b` names only submodules: the package itself is not
        // what the statement is about.
        if !import.wildcard && !r.names.is_empty() && r.names.iter().all(|n| !n.is_empty()) {
            r.module.clear();
        }
        r.all_files()
    }

    /// Like `resolve_import`, keeping apart the module and the Python submodules named by
    /// `from pkg import sub`.
    pub fn resolve_detail(&self, from: usize, import: &Import) -> ResolvedImport {
        let Some(file) = self.files.get(from) else {
            return ResolvedImport::default();
        };
        let mut r = match file.lang {
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Vue | Lang::Svelte => {
                ResolvedImport {
                    module: self.resolve_ts(&file.path, &import.specifier),
                    names: Vec::new(),
                }
            }
            Lang::Python => self.resolve_python(from, &file.path, import),
            Lang::Go => ResolvedImport {
                module: self.resolve_go(&file.path, &import.specifier),
                names: Vec::new(),
            },
            Lang::Rust
            | Lang::Java
            | Lang::C
            | Lang::Cpp
            | Lang::CSharp
            | Lang::Ruby
            | Lang::Php
            | Lang::Kotlin
            | Lang::Swift
            | Lang::Bash
            | Lang::Scala
            | Lang::Lua
            | Lang::Elixir
            | Lang::Hcl => self.langs.resolve(self.files, &self.by_path, from, import),
        };
        r.names.resize(import.names.len(), Vec::new());
        r.module.retain(|&f| f != from);
        for n in &mut r.names {
            n.retain(|&f| f != from);
        }
        r
    }

    fn file_at(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    // ---------------------------------------------------------------- TS / JS

    fn resolve_ts(&self, from_path: &str, spec: &str) -> Vec<usize> {
        // Bundler suffixes (`?raw`, `?url`, `#hash`) are not part of the path, unless the
        // path really contains the character (a directory named `#`).
        let bare = spec.split(['?', '#']).next().unwrap_or("");
        let specs = if bare == spec {
            vec![spec]
        } else {
            vec![spec, bare]
        };
        for spec in specs {
            if spec.is_empty() {
                continue;
            }
            let hit =
                if spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../")
                {
                    let (dir, _) = split_dir(from_path);
                    normalize_join(dir, spec).and_then(|p| self.ts_candidate(&p))
                } else if let Some(hit) = self.resolve_ts_paths(from_path, spec) {
                    Some(hit)
                } else if let Some(rest) = source_root_alias(spec) {
                    self.resolve_source_root(from_path, rest)
                } else {
                    self.resolve_workspace(spec)
                };
            if let Some(i) = hit {
                return vec![i];
            }
        }
        Vec::new()
    }

    /// The `tsconfig.json`/`jsconfig.json` governing `from_path`: the one in the deepest
    /// folder holding it, as `tsc` uses the nearest config (only that one: a nearer config
    /// without `paths` is not seen here, so the next one up stands in for it).
    fn ts_config_of(&self, from_path: &str) -> Option<&TsPaths> {
        self.ts_paths.iter().find(|t| is_within(from_path, &t.dir))
    }

    /// A bare specifier through the governing config's `paths`, TypeScript's way: the
    /// pattern that matches with the longest prefix before its `*` (an exact key beats any
    /// wildcard), each target in order with the `*` part put in, from `base`; then, with an
    /// explicit `baseUrl`, the specifier itself from `base`. A target leaving the
    /// repository resolves to nothing. `None` lets the other rules (source-root aliases,
    /// workspace packages) try, as `tsc` goes on to `node_modules`.
    fn resolve_ts_paths(&self, from_path: &str, spec: &str) -> Option<usize> {
        let config = self.ts_config_of(from_path)?;
        // (prefix length, targets, the part `*` matched): the best match so far; an exact
        // key counts as the longest prefix.
        let mut best: Option<(usize, &[String], &str)> = None;
        for (pattern, targets) in &config.paths {
            let hit = match pattern.split_once('*') {
                None => (pattern == spec).then_some((usize::MAX, targets.as_slice(), "")),
                Some((prefix, suffix)) => spec
                    .strip_prefix(prefix)
                    .and_then(|rest| rest.strip_suffix(suffix))
                    // `a*a` does not match `a`: prefix and suffix may not overlap.
                    .filter(|_| spec.len() >= prefix.len() + suffix.len())
                    .map(|star| (prefix.len(), targets.as_slice(), star)),
            };
            if let Some(hit) = hit {
                if best.is_none_or(|b| hit.0 > b.0) {
                    best = Some(hit);
                }
            }
        }
        let aliased = best.and_then(|(_, targets, star)| {
            targets.iter().find_map(|target| {
                // An absolute target names a file outside the repository.
                if target.starts_with('/') || target.contains(':') {
                    return None;
                }
                let path = target.replacen('*', star, 1);
                normalize_join(&config.base, &path).and_then(|p| self.ts_candidate(&p))
            })
        });
        if aliased.is_some() {
            return aliased;
        }
        // As `tsc`: a matched pattern none of whose targets exists falls back to `baseUrl`.
        if config.base_url && !spec.starts_with('/') && !spec.contains(':') {
            return normalize_join(&config.base, spec).and_then(|p| self.ts_candidate(&p));
        }
        None
    }

    /// The first existing TS/JS file for a path as written in an import (a component by its
    /// full name: `./UserCard.vue`).
    fn ts_candidate(&self, path: &str) -> Option<usize> {
        let is_script = |i: usize| self.files[i].lang.is_script();
        let path = path.trim_end_matches('/');
        if let Some(i) = self.file_at(path).filter(|&i| is_script(i)) {
            return Some(i);
        }
        // TS-ESM: `./x.js` names the compiled output of `x.ts`.
        const JS_TO_TS: [(&str, &[&str]); 4] = [
            (".js", &[".ts", ".tsx", ".d.ts"]),
            (".jsx", &[".tsx"]),
            (".mjs", &[".mts", ".d.mts"]),
            (".cjs", &[".cts", ".d.cts"]),
        ];
        for (js, tss) in JS_TO_TS {
            if let Some(stem) = path.strip_suffix(js) {
                for ts in tss {
                    if let Some(i) = self
                        .file_at(&format!("{stem}{ts}"))
                        .filter(|&i| is_script(i))
                    {
                        return Some(i);
                    }
                }
            }
        }
        let mut buf = String::with_capacity(path.len() + 12);
        for prefix in ["", "/index"] {
            if path.is_empty() && prefix.is_empty() {
                continue;
            }
            for ext in TS_EXTS {
                buf.clear();
                buf.push_str(path);
                buf.push_str(if path.is_empty() { "index" } else { prefix });
                buf.push_str(ext);
                if let Some(i) = self.file_at(&buf).filter(|&i| is_script(i)) {
                    return Some(i);
                }
            }
        }
        None
    }

    /// `rest` of a source-root alias (`@/components/X.vue` → `components/X.vue`) imported from
    /// `from_path`: under the nearest folder named `src` that holds the importer, else under
    /// a `src` folder beside one of its folders (nearest first: a workspace package's own
    /// `src`), else from the repository's root (Nuxt's `~/components`).
    fn resolve_source_root(&self, from_path: &str, rest: &str) -> Option<usize> {
        let mut ancestors = Vec::new();
        let (mut dir, _) = split_dir(from_path);
        loop {
            ancestors.push(dir);
            if dir.is_empty() {
                break;
            }
            dir = split_dir(dir).0;
        }
        let under = |root: &str| {
            let path = normalize_join(root, rest)?;
            // The alias names a file inside its root.
            (root.is_empty() || path.starts_with(&format!("{root}/")))
                .then(|| self.ts_candidate(&path))
                .flatten()
        };
        let own_src = ancestors
            .iter()
            .find(|d| split_dir(d).1 == "src")
            .and_then(|d| under(d));
        own_src
            .or_else(|| {
                ancestors.iter().find_map(|d| {
                    let src = if d.is_empty() {
                        "src".to_string()
                    } else {
                        format!("{d}/src")
                    };
                    under(&src)
                })
            })
            .or_else(|| under(""))
    }

    /// A bare specifier naming a workspace package by its directory (`@scope/name/sub` →
    /// `packages/name`), through `src/index.*` or `index.*`. Only unambiguous directory names
    /// under `WORKSPACE_ROOTS` count, so npm packages and node builtins stay unresolved.
    fn resolve_workspace(&self, spec: &str) -> Option<usize> {
        if spec.starts_with('/') || spec.contains(':') {
            return None;
        }
        let mut parts = spec.split('/');
        let mut name = parts.next()?;
        if name.starts_with('@') {
            name = parts.next()?;
        }
        let sub: Vec<&str> = parts.collect();
        let dir = (*self.workspace.get(name)?)?;
        if sub.is_empty() {
            self.ts_candidate(&format!("{dir}/src/index"))
                .or_else(|| self.ts_candidate(&format!("{dir}/index")))
        } else {
            let sub = sub.join("/");
            let src = normalize_join(&format!("{dir}/src"), &sub)?;
            let plain = normalize_join(dir, &sub)?;
            // A subpath must stay inside the package.
            if !src.starts_with(dir) || !plain.starts_with(dir) {
                return None;
            }
            self.ts_candidate(&src)
                .or_else(|| self.ts_candidate(&plain))
        }
    }

    // ---------------------------------------------------------------- Python

    fn resolve_python(&self, from: usize, from_path: &str, import: &Import) -> ResolvedImport {
        let spec = import.specifier.as_str();
        let dots = spec.len() - spec.trim_start_matches('.').len();
        let rest = &spec[dots..];
        if dots > 0 {
            // `.` is the importer's own package (its directory, also for `__init__.py`);
            // each further dot goes one level up.
            let (mut dir, _) = split_dir(from_path);
            for _ in 1..dots {
                if dir.is_empty() {
                    return ResolvedImport::default();
                }
                dir = split_dir(dir).0;
            }
            let base = if rest.is_empty() {
                dir.to_string()
            } else {
                let rel = rest.replace('.', "/");
                if dir.is_empty() {
                    rel
                } else {
                    format!("{dir}/{rel}")
                }
            };
            let module = self.py_files_at(&base, rest.is_empty());
            let names = import
                .names
                .iter()
                .map(|n| {
                    let sub = if base.is_empty() {
                        n.name.clone()
                    } else {
                        format!("{base}/{}", n.name)
                    };
                    self.py_files_at(&sub, false)
                })
                .collect();
            return ResolvedImport { module, names };
        }
        if rest.is_empty() {
            return ResolvedImport::default();
        }
        let module = self.py_lookup(from, rest);
        let names = import
            .names
            .iter()
            .map(|n| self.py_lookup(from, &format!("{rest}.{}", n.name)))
            .collect();
        ResolvedImport { module, names }
    }

    /// The Python files for a slash path without extension: `p.py`, `p.pyi`, `p/__init__.py(i)`.
    fn py_files_at(&self, base: &str, package_only: bool) -> Vec<usize> {
        let mut out = Vec::new();
        let sep = if base.is_empty() { "" } else { "/" };
        let mut candidates = vec![
            format!("{base}{sep}__init__.py"),
            format!("{base}{sep}__init__.pyi"),
        ];
        if !package_only && !base.is_empty() {
            candidates.push(format!("{base}.py"));
            candidates.push(format!("{base}.pyi"));
        }
        for c in candidates {
            if let Some(i) = self.file_at(&c) {
                if self.files[i].lang == Lang::Python {
                    out.push(i);
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// An absolute module path → files; among several roots the best priority wins, and among
    /// several files the ones nearest the importer (longest shared directory prefix).
    fn py_lookup(&self, from: usize, module: &str) -> Vec<usize> {
        let Some(list) = self.py_modules.get(module) else {
            return Vec::new();
        };
        let from_path = &self.files[from].path;
        // A module found from the top of its package chain is on `sys.path` only for the
        // code below that folder when the folder is inside a package (data shipped with it:
        // stubs, test data) or when the name is the standard library's, which the code
        // elsewhere imports instead: `import typing` in `mypy/build.py` is not the stub
        // `mypy/typeshed/stdlib/typing.pyi` nor `test-data/unit/lib-stub/typing.pyi`.
        let stdlib = module
            .split('.')
            .next()
            .is_some_and(is_python_stdlib_module);
        let visible = |p: u8, i: usize| {
            p < PY_PRIO_IMPORT_ROOT || (p == PY_PRIO_IMPORT_ROOT && !stdlib) || {
                is_within(from_path, python_import_root(&self.files[i].path, module))
            }
        };
        let visible: Vec<(u8, usize)> = list
            .iter()
            .copied()
            .filter(|&(p, i)| visible(p, i))
            .collect();
        let Some(best) = visible.iter().map(|&(p, _)| p).min() else {
            return Vec::new();
        };
        let mut cands: Vec<usize> = visible
            .iter()
            .filter(|&&(p, i)| p == best && i != from)
            .map(|&(_, i)| i)
            .collect();
        cands.sort_unstable();
        if cands.len() > 1 {
            // `x.py` and `x.pyi` (or `x/__init__.py`) of one module share a module directory;
            // different modules of the same name are told apart by closeness to the importer.
            let closeness = |i: usize| shared_dir_prefix(from_path, &self.files[i].path);
            let top = cands.iter().map(|&i| closeness(i)).max().unwrap_or(0);
            cands.retain(|&i| closeness(i) == top);
        }
        cands
    }

    // ---------------------------------------------------------------- Go

    fn resolve_go(&self, from_path: &str, spec: &str) -> Vec<usize> {
        let Some(dir) = self.go_package_dir(spec) else {
            return Vec::new();
        };
        let Some(list) = self.go_dirs.get(dir.as_str()) else {
            return Vec::new();
        };
        // Only a test file may see the package's test files (`export_test.go` helpers).
        let from_test = from_path.ends_with("_test.go");
        list.iter()
            .copied()
            .filter(|&i| from_test || !self.files[i].path.ends_with("_test.go"))
            .collect()
    }

    /// The repo directory of a Go import path, if it is inside one of the repo's modules.
    fn go_package_dir(&self, spec: &str) -> Option<String> {
        for m in &self.go_modules {
            let rest = if spec == m.module {
                ""
            } else if let Some(r) = spec
                .strip_prefix(m.module.as_str())
                .and_then(|r| r.strip_prefix('/'))
            {
                r
            } else {
                continue;
            };
            let dir = match (m.dir.is_empty(), rest.is_empty()) {
                (true, _) => rest.to_string(),
                (false, true) => m.dir.clone(),
                (false, false) => format!("{}/{rest}", m.dir),
            };
            return normalize_join("", &dir);
        }
        if self.go_modules.is_empty() {
            // No go.mod (GOPATH-era repo): the longest suffix of the import path with at
            // least two elements that is a Go package directory of the repo.
            let parts: Vec<&str> = spec.split('/').collect();
            for start in 0..parts.len().saturating_sub(1) {
                let cand = parts[start..].join("/");
                if self.go_dirs.contains_key(cand.as_str()) {
                    return Some(cand);
                }
            }
        }
        None
    }
}

/// The names a Go import binds when it has no alias: the last path element without a `/vN`
/// major-version suffix, plus the forms package authors commonly use for it
/// (`gopkg.in/yaml.v3` → `yaml`, `go-cmp` → `cmp`, `foo-go` → `foo`, `a-b` → `a_b`).
pub fn go_package_names(spec: &str) -> Vec<String> {
    let mut parts: Vec<&str> = spec.split('/').filter(|p| !p.is_empty()).collect();
    // A trailing `vN` is usually a module major version, but can also be a package really
    // named `v1` (`apis/apps/v1`): bind both, the major-version reading first.
    let mut version_dir = None;
    if parts.len() > 1 {
        if let Some(last) = parts.last().copied() {
            if is_major_version(last) {
                parts.pop();
                version_dir = Some(last);
            }
        }
    }
    let Some(last) = parts.last() else {
        return Vec::new();
    };
    let mut names = vec![last.to_string()];
    names.extend(version_dir.map(str::to_string));
    let mut push = |s: &str| {
        if !s.is_empty() && !names.iter().any(|n| n == s) {
            names.push(s.to_string());
        }
    };
    let mut base = *last;
    if let Some((head, tail)) = base.rsplit_once('.') {
        if is_major_version(tail) {
            base = head;
        }
    }
    push(base);
    let trimmed = base
        .strip_prefix("go-")
        .or_else(|| base.strip_suffix("-go"))
        .or_else(|| base.strip_suffix(".go"))
        .unwrap_or(base);
    push(trimmed);
    push(&trimmed.replace('-', "_"));
    push(&trimmed.replace('-', ""));
    names
}

fn is_major_version(s: &str) -> bool {
    s.len() > 1 && s.starts_with('v') && s[1..].bytes().all(|b| b.is_ascii_digit())
}

/// `a/b/c.ts` → (`a/b`, `c.ts`); a root file has dir `""`.
pub(crate) fn split_dir(path: &str) -> (&str, &str) {
    match path.rsplit_once('/') {
        Some((d, n)) => (d, n),
        None => ("", path),
    }
}

/// Number of leading directory components two paths share.
fn shared_dir_prefix(a: &str, b: &str) -> usize {
    let da = split_dir(a).0.split('/');
    let db = split_dir(b).0.split('/');
    da.zip(db)
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

/// Whether a top-level Python module name is the standard library's (`assets/python_stdlib.txt`).
fn is_python_stdlib_module(name: &str) -> bool {
    static NAMES: std::sync::OnceLock<HashSet<&'static str>> = std::sync::OnceLock::new();
    NAMES
        .get_or_init(|| {
            include_str!("../../../assets/python_stdlib.txt")
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .collect()
        })
        .contains(name)
}

/// Priority of a module path taken from the top of the file's `__init__.py` chain.
const PY_PRIO_IMPORT_ROOT: u8 = 2;
/// The same, when that top folder is inside a package (`mypy/typeshed/stdlib`) or is test
/// data or examples (`test-data/unit/lib-stub`): visible only to the code below it.
const PY_PRIO_NESTED_ROOT: u8 = 3;

/// The folder a module path is relative to: `mypy/typeshed/stdlib/os/__init__.pyi` as `os`
/// → `mypy/typeshed/stdlib`; `""` at the repo root.
fn python_import_root<'p>(path: &'p str, module: &str) -> &'p str {
    let stem = python_stem(path).unwrap_or(path);
    let stem = stem.strip_suffix("/__init__").unwrap_or(stem);
    let mut root = stem;
    for _ in 0..module.split('.').count() {
        root = split_dir(root).0;
    }
    root
}

/// A Python file's path without its `.py`/`.pyi` extension; `None` for other files.
fn python_stem(path: &str) -> Option<&str> {
    path.strip_suffix(".pyi")
        .or_else(|| path.strip_suffix(".py"))
}

/// Module paths a Python file can be imported as, with their priority (see `py_modules`).
fn python_module_paths(path: &str, init_dirs: &HashSet<&str>) -> Vec<(u8, String)> {
    let Some(stem) = python_stem(path) else {
        return Vec::new();
    };
    let mut segs: Vec<&str> = stem.split('/').collect();
    if segs.last() == Some(&"__init__") {
        segs.pop();
    }
    if segs.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<(u8, String)> = vec![(0, segs.join("."))];
    if let Some(pos) = segs.iter().rposition(|s| *s == "src") {
        if pos + 1 < segs.len() {
            out.push((1, segs[pos + 1..].join(".")));
        }
    }
    // Climb the `__init__.py` chain from the module's own name: the first directory that is
    // not a package is the import root (where the top package sits on sys.path). A module in
    // a plain directory is then importable by its bare name (scripts, tests, helpers).
    let mut root = segs.len() - 1;
    while root > 0 && init_dirs.contains(segs[..root].join("/").as_str()) {
        root -= 1;
    }
    let name = segs[root..].join(".");
    if !name.is_empty() && !out.iter().any(|(_, m)| *m == name) {
        let nested = (1..root).any(|k| init_dirs.contains(segs[..k].join("/").as_str()));
        // Test data and examples are not on the path of the code outside them either.
        let supporting =
            root > 0 && classify(&format!("{}/_", segs[..root].join("/"))) != PathClass::Impl;
        let prio = if nested || supporting {
            PY_PRIO_NESTED_ROOT
        } else {
            PY_PRIO_IMPORT_ROOT
        };
        out.push((prio, name));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::model::{FileTags, ImportedName};
    use std::sync::Arc;

    fn file(path: &str) -> ParsedFile {
        let lang = Lang::from_path(path).unwrap_or(Lang::TypeScript);
        ParsedFile::new(
            path.to_string(),
            lang,
            0,
            Arc::from(""),
            FileTags::default(),
        )
    }

    fn files(paths: &[&str]) -> Vec<ParsedFile> {
        paths.iter().map(|p| file(p)).collect()
    }

    fn imp(spec: &str, names: &[&str]) -> Import {
        Import {
            specifier: spec.to_string(),
            names: names
                .iter()
                .map(|n| ImportedName {
                    name: n.to_string(),
                    alias: None,
                })
                .collect(),
            namespace: None,
            wildcard: false,
            reexport: false,
            line: 1,
        }
    }

    fn paths(fs: &[ParsedFile], idx: Vec<usize>) -> Vec<&str> {
        idx.into_iter().map(|i| fs[i].path.as_str()).collect()
    }

    #[test]
    fn ts_relative_extensionless_and_index() {
        let fs = files(&[
            "src/a.ts",
            "src/util.ts",
            "src/lib/index.ts",
            "src/comp.tsx",
            "src/types.d.ts",
            "lib/old.js",
        ]);
        let r = Resolver::new(&fs, &[], &[]);
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./util", &[]))),
            ["src/util.ts"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./lib", &[]))),
            ["src/lib/index.ts"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./lib/", &[]))),
            ["src/lib/index.ts"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./comp", &[]))),
            ["src/comp.tsx"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./types", &[]))),
            ["src/types.d.ts"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("../lib/old", &[]))),
            ["lib/old.js"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./util?raw", &[]))),
            ["src/util.ts"]
        );
        assert!(r.resolve_import(0, &imp("./missing", &[])).is_empty());
        assert!(r.resolve_import(0, &imp("../../../x", &[])).is_empty());
        assert!(r.resolve_import(0, &imp("react", &[])).is_empty());
        // A self-import resolves to nothing.
        assert!(r.resolve_import(1, &imp("./util", &[])).is_empty());
    }

    #[test]
    fn source_root_aliases_resolve_under_the_importers_src() {
        let fs = files(&[
            "src/views/Home.vue",
            "src/stores/user.ts",
            "src/components/Button.vue",
            "src/utils/index.ts",
            "tests/unit/home.spec.ts",
            "packages/admin/src/pages/a.ts",
            "packages/admin/src/utils/index.ts",
            "app.vue",
            "components/Header.vue",
        ]);
        let r = Resolver::new(&fs, &[], &[]);
        let from = |i: usize, spec: &str| paths(&fs, r.resolve_import(i, &imp(spec, &[])));
        assert_eq!(from(0, "@/stores/user"), ["src/stores/user.ts"]);
        assert_eq!(from(0, "~/stores/user.js"), ["src/stores/user.ts"]);
        assert_eq!(
            from(0, "@/components/Button.vue"),
            ["src/components/Button.vue"]
        );
        assert_eq!(from(0, "@@/utils"), ["src/utils/index.ts"]);
        // A test beside `src` reaches it; a workspace package reaches its own `src`.
        assert_eq!(from(4, "@/stores/user"), ["src/stores/user.ts"]);
        assert_eq!(from(5, "@/utils"), ["packages/admin/src/utils/index.ts"]);
        // Nuxt's source folder is the root.
        assert_eq!(
            from(7, "~/components/Header.vue"),
            ["components/Header.vue"]
        );
        // Not a file under the alias's root, not an alias, or nothing after it.
        assert!(from(0, "@/../app.vue").is_empty());
        assert!(from(0, "@/missing").is_empty());
        assert!(from(0, "@/").is_empty());
        assert!(from(0, "@vue/shared").is_empty());
    }

    fn ts_config(dir: &str, base: Option<&str>, paths: &[(&str, &[&str])]) -> TsPaths {
        TsPaths {
            dir: dir.to_string(),
            base: base.unwrap_or(dir).to_string(),
            base_url: base.is_some(),
            paths: paths
                .iter()
                .map(|(p, ts)| (p.to_string(), ts.iter().map(ToString::to_string).collect()))
                .collect(),
        }
    }

    #[test]
    fn tsconfig_paths_exact_star_longest_prefix_and_several_targets() {
        let fs = files(&[
            "src/main.ts",
            "src/app/user/service.ts",
            "src/app/core/index.ts",
            "legacy/app/old.ts",
            "libs/common/src/index.ts",
            "src/special/thing.ts",
            "src/types/globals.d.ts",
        ]);
        let config = ts_config(
            "",
            None,
            &[
                ("@app/*", &["src/app/*", "legacy/app/*"]),
                ("@app/special/*", &["src/special/*"]),
                ("@common", &["libs/common/src/index.ts"]),
                ("@common/*", &["libs/common/src/nothing/*"]),
                ("globals", &["src/types/globals"]),
            ],
        );
        let r = Resolver::new(&fs, &[], &[config]);
        let from = |spec: &str| paths(&fs, r.resolve_import(0, &imp(spec, &[])));
        // A `*` key; a directory through its index.
        assert_eq!(from("@app/user/service"), ["src/app/user/service.ts"]);
        assert_eq!(from("@app/core"), ["src/app/core/index.ts"]);
        // The second target when the first has no such file.
        assert_eq!(from("@app/old"), ["legacy/app/old.ts"]);
        // The longest prefix wins over `@app/*`.
        assert_eq!(from("@app/special/thing"), ["src/special/thing.ts"]);
        // An exact key, beating `@common/*` which does not match it anyway.
        assert_eq!(from("@common"), ["libs/common/src/index.ts"]);
        assert_eq!(from("globals"), ["src/types/globals.d.ts"]);
        // Matched but missing, and unmatched without `baseUrl`: unresolved.
        assert!(from("@app/missing").is_empty());
        assert!(from("app/user/service").is_empty());
        assert!(from("react").is_empty());
        // Without the config, the aliases stay unresolved.
        let bare = Resolver::new(&fs, &[], &[]);
        assert!(bare
            .resolve_import(0, &imp("@app/user/service", &[]))
            .is_empty());
    }

    #[test]
    fn tsconfig_base_url_resolves_bare_specifiers_and_targets() {
        let fs = files(&["web/src/main.ts", "web/src/app/x.ts", "web/src/lib/y.ts"]);
        // `baseUrl: "./src"` in `web/tsconfig.json`.
        let only_base = ts_config("web", Some("web/src"), &[]);
        let r = Resolver::new(&fs, &[], &[only_base]);
        let from = |r: &Resolver, spec: &str| paths(&fs, r.resolve_import(0, &imp(spec, &[])));
        assert_eq!(from(&r, "app/x"), ["web/src/app/x.ts"]);
        assert!(from(&r, "react").is_empty());
        // Targets are relative to `baseUrl`; a matched pattern whose targets are missing
        // falls back to `baseUrl`.
        let with_paths = ts_config(
            "web",
            Some("web/src"),
            &[("~lib/*", &["lib/*"]), ("app/*", &["nowhere/*"])],
        );
        let r = Resolver::new(&fs, &[], &[with_paths]);
        assert_eq!(from(&r, "~lib/y"), ["web/src/lib/y.ts"]);
        assert_eq!(from(&r, "app/x"), ["web/src/app/x.ts"]);
    }

    #[test]
    fn the_nearest_tsconfig_governs_in_a_monorepo() {
        let fs = files(&[
            "apps/web/src/main.ts",
            "apps/web/src/shared/a.ts",
            "apps/api/src/main.ts",
            "apps/api/src/shared/a.ts",
            "apps/webby/main.ts",
            "root.ts",
            "shared/a.ts",
        ]);
        let configs = [
            ts_config("", None, &[("#shared/*", &["shared/*"])]),
            ts_config("apps/web", None, &[("#shared/*", &["src/shared/*"])]),
            ts_config("apps/api", None, &[("#shared/*", &["src/shared/*"])]),
        ];
        let r = Resolver::new(&fs, &[], &configs);
        let from = |i: usize| paths(&fs, r.resolve_import(i, &imp("#shared/a", &[])));
        assert_eq!(from(0), ["apps/web/src/shared/a.ts"]);
        assert_eq!(from(2), ["apps/api/src/shared/a.ts"]);
        // `apps/webby` is not below `apps/web`: the root config governs it.
        assert_eq!(from(4), ["shared/a.ts"]);
        assert_eq!(from(5), ["shared/a.ts"]);
    }

    #[test]
    fn a_tsconfig_target_leaving_the_repository_resolves_to_nothing() {
        let fs = files(&["pkg/src/main.ts", "pkg/x.ts", "x.ts"]);
        let config = ts_config(
            "pkg",
            None,
            &[
                ("@out/*", &["../../*"]),
                ("@up/*", &["../*"]),
                ("@abs/*", &["/*"]),
            ],
        );
        let r = Resolver::new(&fs, &[], &[config]);
        let from = |spec: &str| paths(&fs, r.resolve_import(0, &imp(spec, &[])));
        assert!(from("@out/x").is_empty());
        assert!(from("@out/../../../etc/passwd").is_empty());
        // Above the config's folder but inside the repository is allowed, as in `tsc`.
        assert_eq!(from("@up/x"), ["x.ts"]);
        // An absolute target is a file outside the repository, not `pkg/x.ts`.
        assert!(from("@abs/x").is_empty());
    }

    #[test]
    fn ts_esm_js_extension_maps_to_ts() {
        let fs = files(&["src/a.ts", "src/b.ts", "src/c.tsx", "src/d.mts", "src/e.js"]);
        let r = Resolver::new(&fs, &[], &[]);
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./b.js", &[]))),
            ["src/b.ts"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./c.js", &[]))),
            ["src/c.tsx"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./c.jsx", &[]))),
            ["src/c.tsx"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./d.mjs", &[]))),
            ["src/d.mts"]
        );
        // A real .js file wins over the mapping.
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("./e.js", &[]))),
            ["src/e.js"]
        );
    }

    #[test]
    fn ts_workspace_package_by_directory() {
        let fs = files(&[
            "packages/app/src/main.ts",
            "packages/plugin-x/src/index.ts",
            "packages/plugin-x/src/util.ts",
            "packages/core/index.js",
        ]);
        let r = Resolver::new(&fs, &[], &[]);
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("@scope/plugin-x", &[]))),
            ["packages/plugin-x/src/index.ts"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("plugin-x/util", &[]))),
            ["packages/plugin-x/src/util.ts"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(0, &imp("core", &[]))),
            ["packages/core/index.js"]
        );
        assert!(r.resolve_import(0, &imp("node:fs", &[])).is_empty());
        assert!(r.resolve_import(0, &imp("lodash", &[])).is_empty());
        assert!(r
            .resolve_import(0, &imp("plugin-x/../../app/src/main", &[]))
            .is_empty());
    }

    #[test]
    fn python_relative() {
        let fs = files(&[
            "pkg/__init__.py",
            "pkg/a.py",
            "pkg/models.py",
            "pkg/sub/__init__.py",
            "pkg/sub/deep.py",
            "pkg/sub/leaf/x.py",
        ]);
        let r = Resolver::new(&fs, &[], &[]);
        assert_eq!(
            paths(&fs, r.resolve_import(1, &imp(".models", &["M"]))),
            ["pkg/models.py"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(4, &imp("..", &["models"]))),
            ["pkg/models.py"]
        );
        // `from .. import y` where y lives in `__init__.py`.
        assert_eq!(
            paths(&fs, r.resolve_import(4, &imp("..", &["y"]))),
            ["pkg/__init__.py"]
        );
        let d = r.resolve_detail(4, &imp("..", &["models", "y"]));
        assert_eq!(paths(&fs, d.module), ["pkg/__init__.py"]);
        assert_eq!(paths(&fs, d.names[0].clone()), ["pkg/models.py"]);
        assert!(d.names[1].is_empty());
        // `from . import deep` inside a package's `__init__.py`.
        assert_eq!(
            paths(&fs, r.resolve_import(3, &imp(".", &["deep"]))),
            ["pkg/sub/deep.py"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(5, &imp("...models", &[]))),
            ["pkg/models.py"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(4, &imp(".", &[]))),
            ["pkg/sub/__init__.py"]
        );
        assert!(r.resolve_import(1, &imp("....x", &[])).is_empty());
    }

    #[test]
    fn python_stub_folders_inside_a_package_serve_only_their_own_files() {
        let fs = files(&[
            "mypy/__init__.py",
            "mypy/build.py",
            "mypy/typeshed/stdlib/abc.pyi",
            "mypy/typeshed/stdlib/os/__init__.pyi",
            "mypy/typeshed/stdlib/typing.pyi",
            "scripts/gen.py",
            "scripts/util.py",
            "tools/pkg/__init__.py",
            "tools/pkg/m.py",
            "test-data/lib-stub/typing.pyi",
            "test-data/lib-stub/helper.pyi",
            "mypy/data/shipped.py",
        ]);
        let r = Resolver::new(&fs, &[], &[]);
        // `mypy/build.py` imports the standard library, not the stubs shipped beside it nor
        // the test stubs in a top-level folder.
        assert!(r.resolve_import(1, &imp("typing", &["Any"])).is_empty());
        assert!(r.resolve_import(1, &imp("os", &[])).is_empty());
        // A folder inside a package is not on `sys.path` for the code outside it.
        assert!(r.resolve_import(1, &imp("shipped", &[])).is_empty());
        // Nor is a folder of test data.
        assert!(r.resolve_import(1, &imp("helper", &[])).is_empty());
        assert_eq!(
            paths(&fs, r.resolve_import(9, &imp("helper", &[]))),
            ["test-data/lib-stub/helper.pyi"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(10, &imp("typing", &[]))),
            ["test-data/lib-stub/typing.pyi"]
        );
        // The stubs import each other.
        assert_eq!(
            paths(&fs, r.resolve_import(2, &imp("typing", &[]))),
            ["mypy/typeshed/stdlib/typing.pyi"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(4, &imp("os", &[]))),
            ["mypy/typeshed/stdlib/os/__init__.pyi"]
        );
        // A top-level script or package folder stays visible from anywhere.
        assert_eq!(
            paths(&fs, r.resolve_import(1, &imp("util", &[]))),
            ["scripts/util.py"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(5, &imp("pkg.m", &[]))),
            ["tools/pkg/m.py"]
        );
    }

    #[test]
    fn python_absolute_and_src_layout() {
        let fs = files(&[
            "src/mylib/__init__.py",
            "src/mylib/core.py",
            "src/mylib/io/__init__.py",
            "src/mylib/io/readers.py",
            "tests/test_core.py",
            "tests/helpers.py",
            "tools/pkg/__init__.py",
            "tools/pkg/m.py",
            "app.py",
        ]);
        let r = Resolver::new(&fs, &[], &[]);
        let t = 4;
        assert_eq!(
            paths(&fs, r.resolve_import(t, &imp("mylib.core", &[]))),
            ["src/mylib/core.py"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(t, &imp("mylib", &[]))),
            ["src/mylib/__init__.py"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(t, &imp("mylib.io", &["readers"]))),
            ["src/mylib/io/readers.py"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(t, &imp("mylib.io", &["read_csv"]))),
            ["src/mylib/io/__init__.py"]
        );
        // Sibling module of a test directory without `__init__.py`.
        assert_eq!(
            paths(&fs, r.resolve_import(t, &imp("helpers", &[]))),
            ["tests/helpers.py"]
        );
        // Package below a non-package directory: importable from its package root.
        assert_eq!(
            paths(&fs, r.resolve_import(8, &imp("pkg.m", &[]))),
            ["tools/pkg/m.py"]
        );
        assert_eq!(
            paths(&fs, r.resolve_import(t, &imp("app", &[]))),
            ["app.py"]
        );
        assert!(r.resolve_import(t, &imp("os.path", &[])).is_empty());
    }

    #[test]
    fn go_module_paths_and_test_files() {
        let fs = files(&[
            "main.go",
            "internal/store/store.go",
            "internal/store/db.go",
            "internal/store/store_test.go",
            "internal/store/export_test.go",
            "api/go.go",
            "api/v1/types.go",
        ]);
        let mods = vec![
            GoModule {
                dir: String::new(),
                module: "github.com/acme/app".into(),
            },
            GoModule {
                dir: "api".into(),
                module: "github.com/acme/app/api/v2".into(),
            },
        ];
        let r = Resolver::new(&fs, &mods, &[]);
        assert_eq!(
            paths(
                &fs,
                r.resolve_import(0, &imp("github.com/acme/app/internal/store", &[]))
            ),
            ["internal/store/store.go", "internal/store/db.go"]
        );
        // A `_test.go` importer also sees the package's test files (minus itself).
        assert_eq!(
            paths(
                &fs,
                r.resolve_import(3, &imp("github.com/acme/app/internal/store", &[]))
            ),
            [
                "internal/store/store.go",
                "internal/store/db.go",
                "internal/store/export_test.go"
            ]
        );
        // The nested module wins over the root module for its own paths.
        assert_eq!(
            paths(
                &fs,
                r.resolve_import(0, &imp("github.com/acme/app/api/v2/v1", &[]))
            ),
            ["api/v1/types.go"]
        );
        assert_eq!(
            paths(
                &fs,
                r.resolve_import(0, &imp("github.com/acme/app/api/v2", &[]))
            ),
            ["api/go.go"]
        );
        assert!(r.resolve_import(0, &imp("fmt", &[])).is_empty());
        assert!(r
            .resolve_import(0, &imp("github.com/other/lib", &[]))
            .is_empty());
    }

    #[test]
    fn go_without_go_mod_matches_directory_suffix() {
        let fs = files(&["cmd/main.go", "pkg/util/u.go"]);
        let r = Resolver::new(&fs, &[], &[]);
        assert_eq!(
            paths(
                &fs,
                r.resolve_import(0, &imp("github.com/x/y/pkg/util", &[]))
            ),
            ["pkg/util/u.go"]
        );
    }

    #[test]
    fn go_names() {
        assert_eq!(go_package_names("github.com/a/b/store"), ["store"]);
        assert_eq!(go_package_names("github.com/a/b/v3"), ["b", "v3"]);
        assert!(go_package_names("gopkg.in/yaml.v3").contains(&"yaml".to_string()));
        assert!(go_package_names("github.com/google/go-cmp").contains(&"cmp".to_string()));
        assert!(go_package_names("github.com/x/foo-bar").contains(&"foo_bar".to_string()));
        assert!(go_package_names("").is_empty());
    }

    #[test]
    fn hostile_input_does_not_panic() {
        let fs = files(&["a.ts", "b.py", "c.go"]);
        let r = Resolver::new(&fs, &[], &[]);
        for spec in [
            "", ".", "..", "/", "//", "./../..", "...", "@", "@/", "a//b", "\u{0}",
        ] {
            for from in 0..4 {
                let _ = r.resolve_import(from, &imp(spec, &["x", ""]));
            }
        }
    }
}
