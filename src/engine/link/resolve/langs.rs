//! Import resolution for Rust, Java, C, C++, C#, Ruby and PHP (the imports as
//! `tags::imports` reads them). Built with the `Resolver`, on the engine worker thread; pure.
//!
//! What resolves:
//! - Rust: `crate::`, `self::`, `super::` paths and paths from the current module (2018
//!   uniform paths), against the module tree on disk: a module `a::b` under a directory `d` is
//!   `d/a/b.rs` or `d/a/b/mod.rs`; a crate root is a directory holding `lib.rs` or `main.rs`
//!   (or the file's own directory for `tests/`, `examples/`, `benches/`, `src/bin/` and lone
//!   files). A path whose tail is an inline module or an item resolves to the longest prefix
//!   that is a file. `use other_crate::…` reaches a workspace crate `…/other-crate/src/lib.rs`
//!   (dashes and underscores alike) when exactly one directory has that name; from an
//!   integration test, example, bench or binary, `use my_app::a::B` reaches the package's own
//!   `src/a.rs` when a module of the path is there (the crate name is in Cargo.toml, which is
//!   not read). Anything else (std, crates.io) stays unresolved.
//! - Java, C#, PHP: a package or namespace → the files that declare it (`package a.b;`,
//!   `namespace A.B`, `namespace A\B;`); the graph finds a named import's class among them
//!   by its definition. `import static a.b.C.m` → `a.b`'s `C.java`; PHP `use A\B;` of a
//!   namespace binds `B` to that namespace's files. (Java's own package needs no import:
//!   the graph looks capitalized names up in the file's directory.)
//! - C/C++: `#include "x.h"` relative to the including file, else the file whose path ends
//!   with `x.h` closest to it (the include path is not known); `#include <d/x.h>` the same when
//!   it names a directory, `<x.h>` never (a system header).
//! - Ruby: `require_relative 'x'` relative to the file (`.rb` added); `require 'a/b'` →
//!   `lib/a/b.rb` anywhere in the repository, or `a/b.rb` at its root.
//! - PHP `require`/`include` of a literal path: relative to the file, then to the root, then
//!   by the closest file with that path suffix.
//! - Kotlin, Scala: as Java (packages from `package` declarations; a file may live anywhere).
//! - Elixir: a module → the files that define it (`defmodule A.B`).
//! - Swift: `import M` → the files of the target `M`, a SwiftPM `Sources/M/` directory.
//! - Shell: `source`/`.` of a path: relative to the file, then to the root, then the closest
//!   file with that path suffix (a `$DIR/` before it was dropped when it was read).
//! - Lua: `require("a.b")` → the closest `a/b.lua` or `a/b/init.lua` (a `lua/` directory on
//!   `package.path` in practice).
//! - Terraform: a module's local `source` directory → its `.tf` files.

use std::collections::{HashMap, HashSet};

use super::{normalize_join, shared_dir_prefix, split_dir, ResolvedImport};
use crate::engine::base::model::{Import, Lang, ParsedFile};

/// Lookup tables of the languages resolved here.
#[derive(Default)]
pub(super) struct LangTables<'a> {
    /// File name → files of these languages with that name, ascending.
    by_name: HashMap<&'a str, Vec<usize>>,
    /// (language family, package or namespace) → files declaring it, ascending.
    packages: HashMap<(u8, &'a str), Vec<usize>>,
    /// Directories holding a Rust `lib.rs` or `main.rs`.
    rust_roots: HashSet<&'a str>,
    /// Rust crate name (underscores) → its `src` directory; `None` when two crates share it.
    rust_crates: HashMap<String, Option<&'a str>>,
    /// Swift target name (the directory below `Sources/`) → its files, ascending.
    swift_modules: HashMap<&'a str, Vec<usize>>,
    /// Directory → the HCL files in it, ascending (a Terraform module).
    hcl_dirs: HashMap<&'a str, Vec<usize>>,
}

/// Which languages share packages: Java with Java, C# with C#, PHP with PHP.
fn package_family(lang: Lang) -> Option<u8> {
    match lang {
        Lang::Java => Some(0),
        Lang::CSharp => Some(1),
        Lang::Php => Some(2),
        Lang::Kotlin => Some(3),
        Lang::Scala => Some(4),
        Lang::Elixir => Some(5),
        _ => None,
    }
}

/// Whether an import is a package or namespace declaration (see `tags::imports`).
pub(super) fn is_declaration(lang: Lang, import: &Import) -> bool {
    package_family(lang).is_some() && import.wildcard && import.reexport
}

impl<'a> LangTables<'a> {
    /// `imports_of(i)`: file `i`'s imports (see `Resolver::with_imports`).
    pub(super) fn new(files: &'a [ParsedFile], imports_of: impl Fn(usize) -> &'a [Import]) -> Self {
        let mut t = LangTables::default();
        for (i, f) in files.iter().enumerate() {
            if matches!(
                f.lang,
                Lang::TypeScript
                    | Lang::Tsx
                    | Lang::JavaScript
                    | Lang::Vue
                    | Lang::Svelte
                    | Lang::Python
                    | Lang::Go
            ) {
                continue;
            }
            let (dir, name) = split_dir(&f.path);
            t.by_name.entry(name).or_default().push(i);
            if f.lang == Lang::Swift {
                if let Some(module) = swift_target(&f.path) {
                    t.swift_modules.entry(module).or_default().push(i);
                }
            }
            if f.lang == Lang::Hcl {
                t.hcl_dirs.entry(dir).or_default().push(i);
            }
            if f.lang == Lang::Rust && (name == "lib.rs" || name == "main.rs") {
                t.rust_roots.insert(dir);
                if name == "lib.rs" {
                    let crate_dir =
                        dir.strip_suffix("/src")
                            .or(if dir == "src" { Some("") } else { None });
                    if let Some(crate_dir) = crate_dir.filter(|d| !d.is_empty()) {
                        let crate_name = split_dir(crate_dir).1.replace('-', "_");
                        let slot = t.rust_crates.entry(crate_name).or_insert(Some(dir));
                        if *slot != Some(dir) {
                            *slot = None;
                        }
                    }
                }
            }
            if let Some(family) = package_family(f.lang) {
                for imp in imports_of(i)
                    .iter()
                    .filter(|imp| is_declaration(f.lang, imp))
                {
                    let list = t
                        .packages
                        .entry((family, imp.specifier.as_str()))
                        .or_default();
                    if list.last() != Some(&i) {
                        list.push(i);
                    }
                }
            }
        }
        t
    }

    /// The files `import` of file `from` refers to.
    pub(super) fn resolve(
        &self,
        files: &[ParsedFile],
        by_path: &HashMap<&str, usize>,
        from: usize,
        import: &Import,
    ) -> ResolvedImport {
        let Some(file) = files.get(from) else {
            return ResolvedImport::default();
        };
        let ctx = Ctx {
            t: self,
            files,
            by_path,
        };
        match file.lang {
            Lang::Rust => ctx.rust(&file.path, import),
            Lang::Java | Lang::CSharp | Lang::Php | Lang::Kotlin | Lang::Scala | Lang::Elixir
                if is_declaration(file.lang, import) =>
            {
                ResolvedImport::default()
            }
            Lang::Java => ctx.java(import),
            Lang::CSharp => ResolvedImport {
                module: ctx.package(Lang::CSharp, &import.specifier),
                names: Vec::new(),
            },
            Lang::Php if import.wildcard => ResolvedImport {
                module: ctx.path_include(&file.path, &import.specifier, true),
                names: Vec::new(),
            },
            Lang::Php => ctx.php_use(import),
            Lang::Ruby => ResolvedImport {
                module: ctx.ruby_require(&file.path, &import.specifier),
                names: Vec::new(),
            },
            Lang::C | Lang::Cpp => ResolvedImport {
                module: ctx.c_include(&file.path, &import.specifier),
                names: Vec::new(),
            },
            Lang::Kotlin => ctx.jvm(Lang::Kotlin, import, ".kt"),
            Lang::Scala => ctx.jvm(Lang::Scala, import, ".scala"),
            Lang::Elixir => ResolvedImport {
                module: ctx.package(Lang::Elixir, &import.specifier),
                names: Vec::new(),
            },
            Lang::Swift => ResolvedImport {
                module: self
                    .swift_modules
                    .get(import.specifier.as_str())
                    .cloned()
                    .unwrap_or_default(),
                names: Vec::new(),
            },
            Lang::Bash => ResolvedImport {
                module: ctx.shell_source(&file.path, &import.specifier),
                names: Vec::new(),
            },
            Lang::Lua => ResolvedImport {
                module: ctx.lua_require(&file.path, &import.specifier),
                names: Vec::new(),
            },
            Lang::Hcl => ResolvedImport {
                module: ctx.terraform_module(&file.path, &import.specifier),
                names: Vec::new(),
            },
            Lang::TypeScript
            | Lang::Tsx
            | Lang::JavaScript
            | Lang::Vue
            | Lang::Svelte
            | Lang::Python
            | Lang::Go => ResolvedImport::default(),
        }
    }
}

/// The SwiftPM target a file belongs to: the directory right below a `Sources` directory
/// (`Sources/Alamofire/Core/Request.swift` → `Alamofire`).
fn swift_target(path: &str) -> Option<&str> {
    let mut parts = path.split('/');
    parts.find(|&p| p == "Sources")?;
    let module = parts.next()?;
    // The file itself is not a directory.
    parts.next()?;
    Some(module)
}

struct Ctx<'r, 'a> {
    t: &'r LangTables<'a>,
    files: &'r [ParsedFile],
    by_path: &'r HashMap<&'a str, usize>,
}

impl Ctx<'_, '_> {
    fn file_at(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    // ---------------------------------------------------------------- Rust

    fn rust(&self, from_path: &str, import: &Import) -> ResolvedImport {
        let segments: Vec<&str> = import.specifier.split("::").collect();
        let Some((&first, rest)) = segments.split_first() else {
            return ResolvedImport::default();
        };
        let here = self.rust_module_dir(from_path);
        // (directory, path below it, segments the module found must cover at least).
        let mut bases: Vec<(String, &[&str], usize)> = Vec::new();
        match first {
            "crate" => bases.push((self.rust_crate_root(from_path).to_owned(), rest, 0)),
            "self" => bases.push((here.clone(), rest, 0)),
            "super" => {
                let mut dir = here.clone();
                let mut rest = rest;
                dir = split_dir(&dir).0.to_owned();
                while let Some((&"super", tail)) = rest.split_first() {
                    dir = split_dir(&dir).0.to_owned();
                    rest = tail;
                }
                bases.push((dir, rest, 0));
            }
            _ => {
                // 2018 uniform paths: a module of the current one; 2015: from the crate root;
                // else another crate of the workspace. The first two must reach a child
                // module (the file itself, or its crate root, is not what `a::…` names).
                bases.push((here.clone(), &segments[..], 1));
                bases.push((self.rust_crate_root(from_path).to_owned(), &segments[..], 1));
                let name = first.replace('-', "_");
                if let Some(Some(src)) = self.t.rust_crates.get(&name) {
                    bases.push(((*src).to_owned(), rest, 0));
                }
                // Integration tests, examples, benches and binaries name their own package's
                // library by its crate name, which the files do not tell (it is in
                // Cargo.toml): `use my_app::store::Store` from `tests/` → `src/store.rs`
                // when a module of the path is there (so `use serde::Serialize` stays
                // external).
                if let Some(lib) = self.rust_package_lib(from_path) {
                    bases.push((lib.clone(), rest, 1));
                }
            }
        }
        for (base, rest, least) in bases {
            let Some((module, depth)) = self.rust_longest_module(&base, rest) else {
                continue;
            };
            // The names are submodules only when the whole path is a module.
            let names: Vec<Vec<usize>> = import
                .names
                .iter()
                .map(|n| {
                    if depth < rest.len() {
                        return Vec::new();
                    }
                    let dir = join(&base, rest);
                    self.rust_module_file(&join(&dir, &[n.name.as_str()]))
                        .into_iter()
                        .collect()
                })
                .collect();
            // Too shallow a match is no match (see `least`), unless an imported name is a
            // module there (`use my_app::cli;`).
            if depth < least && !names.iter().any(|n| !n.is_empty()) {
                continue;
            }
            return ResolvedImport {
                module: vec![module],
                names,
            };
        }
        ResolvedImport::default()
    }

    /// The file of the longest prefix of `rest` below `base` that is a module file, with the
    /// number of segments it covers.
    fn rust_longest_module(&self, base: &str, rest: &[&str]) -> Option<(usize, usize)> {
        (0..=rest.len()).rev().find_map(|n| {
            self.rust_module_file(&join(base, &rest[..n]))
                .map(|f| (f, n))
        })
    }

    /// The file of the module whose children live in `dir`.
    fn rust_module_file(&self, dir: &str) -> Option<usize> {
        let rust = |i: usize| self.files.get(i).is_some_and(|f| f.lang == Lang::Rust);
        let inside = |name: &str| {
            if dir.is_empty() {
                name.to_owned()
            } else {
                format!("{dir}/{name}")
            }
        };
        let mut candidates = Vec::new();
        if !dir.is_empty() {
            candidates.push(format!("{dir}.rs"));
        }
        candidates.push(inside("mod.rs"));
        if self.t.rust_roots.contains(dir) {
            candidates.push(inside("lib.rs"));
            candidates.push(inside("main.rs"));
        }
        candidates
            .iter()
            .filter_map(|c| self.file_at(c))
            .find(|&i| rust(i))
    }

    /// Whether a Rust file is a crate root: `lib.rs`/`main.rs`/`build.rs`, a file directly in
    /// `tests/`, `examples/`, `benches/` or `bin/`, or one with no crate root above it.
    fn rust_is_root(&self, path: &str) -> bool {
        let (dir, name) = split_dir(path);
        matches!(name, "lib.rs" | "main.rs" | "build.rs")
            || matches!(split_dir(dir).1, "tests" | "examples" | "benches" | "bin")
            || self.rust_enclosing_root(dir).is_none()
    }

    /// The nearest directory at or above `dir` holding a `lib.rs` or `main.rs`.
    fn rust_enclosing_root<'p>(&self, dir: &'p str) -> Option<&'p str> {
        let mut d = dir;
        loop {
            if self.t.rust_roots.contains(d) {
                return Some(d);
            }
            if d.is_empty() {
                return None;
            }
            d = split_dir(d).0;
        }
    }

    /// The `src` directory of the library of the package a non-library crate root belongs
    /// to (`tests/it.rs`, `src/main.rs`, `examples/x.rs` → `src` when `src/lib.rs` exists);
    /// `None` for the library's own files.
    fn rust_package_lib(&self, path: &str) -> Option<String> {
        let root = self.rust_crate_root(path);
        let (own_dir, name) = split_dir(path);
        // `src/main.rs` shares its directory with `src/lib.rs` but is a crate of its own.
        let is_lib_file = |src: &str| root == src && !(name == "main.rs" && own_dir == src);
        let mut dir = own_dir;
        loop {
            let src = join(dir, &["src"]);
            if self.file_at(&join(&src, &["lib.rs"])).is_some() {
                return (!is_lib_file(&src)).then_some(src);
            }
            if dir.is_empty() {
                return None;
            }
            dir = split_dir(dir).0;
        }
    }

    fn rust_crate_root<'p>(&self, path: &'p str) -> &'p str {
        let dir = split_dir(path).0;
        if self.rust_is_root(path) {
            return dir;
        }
        self.rust_enclosing_root(dir).unwrap_or(dir)
    }

    /// The directory of a file's child modules: its own directory for a crate root or a
    /// `mod.rs`, else `dir/stem`.
    fn rust_module_dir(&self, path: &str) -> String {
        let (dir, name) = split_dir(path);
        if name == "mod.rs" || self.rust_is_root(path) {
            return dir.to_owned();
        }
        let stem = name.strip_suffix(".rs").unwrap_or(name);
        join(dir, &[stem])
    }

    // ---------------------------------------------------------------- Java, C#, PHP

    /// The files declaring a package or namespace.
    fn package(&self, lang: Lang, name: &str) -> Vec<usize> {
        package_family(lang)
            .and_then(|family| self.t.packages.get(&(family, name)))
            .cloned()
            .unwrap_or_default()
    }

    /// The file of a package named after a class (`C.java` in package `a.b`).
    fn class_file(&self, package: &[usize], class: &str, ext: &str) -> Option<usize> {
        package.iter().copied().find(|&i| {
            let name = split_dir(&self.files[i].path).1;
            name.strip_suffix(ext) == Some(class)
        })
    }

    fn java(&self, import: &Import) -> ResolvedImport {
        let spec = import.specifier.as_str();
        let mut module = self.package(Lang::Java, spec);
        if module.is_empty() {
            // `import static a.b.C.m` / `import static a.b.C.*`: the class `C` of `a.b`.
            if let Some((package, class)) = spec.rsplit_once('.') {
                let files = self.package(Lang::Java, package);
                module.extend(self.class_file(&files, class, ".java"));
            }
        }
        // A named class is found in the package by its definition (the graph looks the name
        // up in `module`), not by its file name: a file may hold several classes.
        ResolvedImport {
            module,
            names: Vec::new(),
        }
    }

    /// Kotlin and Scala, as Java: a package's files; `import a.b.C.m` (a member of class `C`)
    /// → the file of `a.b` named after `C`.
    fn jvm(&self, lang: Lang, import: &Import, ext: &str) -> ResolvedImport {
        let spec = import.specifier.as_str();
        let mut module = self.package(lang, spec);
        if module.is_empty() {
            if let Some((package, class)) = spec.rsplit_once('.') {
                let files = self.package(lang, package);
                module.extend(self.class_file(&files, class, ext));
            }
        }
        ResolvedImport {
            module,
            names: Vec::new(),
        }
    }

    fn php_use(&self, import: &Import) -> ResolvedImport {
        let module = self.package(Lang::Php, &import.specifier);
        let names = import
            .names
            .iter()
            .map(|n| {
                if self.class_file(&module, &n.name, ".php").is_some() {
                    // A class, found in `module` by its definition.
                    return Vec::new();
                }
                // `use A\B;` of a namespace `A\B`.
                let full = if import.specifier.is_empty() {
                    n.name.clone()
                } else {
                    format!("{}\\{}", import.specifier, n.name)
                };
                self.package(Lang::Php, &full)
            })
            .collect();
        ResolvedImport { module, names }
    }

    // ---------------------------------------------------------------- paths

    /// Files whose path is `suffix` or ends with `/suffix`, closest to `from_path` first
    /// (most shared leading directories); only the closest ones are kept.
    fn closest_with_suffix(&self, from_path: &str, suffix: &str) -> Vec<usize> {
        let name = split_dir(suffix).1;
        let Some(cands) = self.t.by_name.get(name) else {
            return Vec::new();
        };
        let matching: Vec<usize> = cands
            .iter()
            .copied()
            .filter(|&i| {
                let p = self.files[i].path.as_str();
                p == suffix
                    || p.strip_suffix(suffix)
                        .is_some_and(|head| head.ends_with('/'))
            })
            .collect();
        let best = matching
            .iter()
            .map(|&i| shared_dir_prefix(from_path, &self.files[i].path))
            .max();
        matching
            .into_iter()
            .filter(|&i| Some(shared_dir_prefix(from_path, &self.files[i].path)) == best)
            .collect()
    }

    fn c_include(&self, from_path: &str, spec: &str) -> Vec<usize> {
        if let Some(inner) = spec.strip_prefix('<') {
            let inner = inner.strip_suffix('>').unwrap_or(inner);
            // `<stdio.h>` is the system's; `<proj/x.h>` may be the repository's.
            if !inner.contains('/') || inner.starts_with('/') {
                return Vec::new();
            }
            return self.closest_with_suffix(from_path, &normalize(inner));
        }
        let (dir, _) = split_dir(from_path);
        if let Some(i) = normalize_join(dir, spec).and_then(|p| self.file_at(&p)) {
            return vec![i];
        }
        if spec.starts_with('/') {
            return Vec::new();
        }
        self.closest_with_suffix(from_path, &normalize(spec))
    }

    fn ruby_require(&self, from_path: &str, spec: &str) -> Vec<usize> {
        let with_ext = if spec.ends_with(".rb") {
            spec.to_owned()
        } else {
            format!("{spec}.rb")
        };
        if spec.starts_with("./") || spec.starts_with("../") {
            let (dir, _) = split_dir(from_path);
            return normalize_join(dir, &with_ext)
                .and_then(|p| self.file_at(&p))
                .into_iter()
                .collect();
        }
        if spec.starts_with('/') {
            return Vec::new();
        }
        // A load path is a `lib/` directory (a gem's, or the repository's own).
        let lib = format!("lib/{}", normalize(&with_ext));
        let mut hits = self.closest_with_suffix(from_path, &lib);
        if hits.is_empty() {
            hits.extend(self.file_at(&with_ext));
        }
        hits
    }

    /// A PHP `require`/`include` path.
    fn path_include(&self, from_path: &str, spec: &str, search: bool) -> Vec<usize> {
        let (dir, _) = split_dir(from_path);
        if let Some(i) = normalize_join(dir, spec).and_then(|p| self.file_at(&p)) {
            return vec![i];
        }
        let relative = spec.starts_with("./") || spec.starts_with("../");
        if relative || spec.starts_with('/') || !search {
            return Vec::new();
        }
        if let Some(i) = self.file_at(&normalize(spec)) {
            return vec![i];
        }
        self.closest_with_suffix(from_path, &normalize(spec))
    }
}

impl Ctx<'_, '_> {
    fn shell_source(&self, from_path: &str, spec: &str) -> Vec<usize> {
        let hits = self.path_include(from_path, spec, true);
        if !hits.is_empty() || spec.starts_with('/') {
            return hits;
        }
        // `"$DIR/../lib/x.sh"`: the directory the variable held is not known.
        let tail = spec.trim_start_matches(['.', '/']);
        if tail.is_empty() {
            return Vec::new();
        }
        self.closest_with_suffix(from_path, &normalize(tail))
    }

    fn lua_require(&self, from_path: &str, spec: &str) -> Vec<usize> {
        if spec.is_empty() || spec.contains(['/', '\\']) {
            return Vec::new();
        }
        let path = spec.replace('.', "/");
        let hits = self.closest_with_suffix(from_path, &format!("{path}.lua"));
        if !hits.is_empty() {
            return hits;
        }
        self.closest_with_suffix(from_path, &format!("{path}/init.lua"))
    }

    fn terraform_module(&self, from_path: &str, spec: &str) -> Vec<usize> {
        if !(spec.starts_with("./") || spec.starts_with("../")) {
            return Vec::new();
        }
        let (dir, _) = split_dir(from_path);
        let Some(target) = normalize_join(dir, spec) else {
            return Vec::new();
        };
        self.t
            .hcl_dirs
            .get(target.trim_end_matches('/'))
            .cloned()
            .unwrap_or_default()
    }
}

/// `dir/a/b` from a directory and segments (`dir` may be the root, `""`).
fn join(dir: &str, segments: &[&str]) -> String {
    let mut out = dir.to_owned();
    for s in segments {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(s);
    }
    out
}

/// A relative path without `./` and empty segments (`..` kept: a suffix may start with it).
fn normalize(path: &str) -> String {
    path.split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::super::Resolver;
    use super::*;
    use crate::engine::base::model::{FileTags, ImportedName};
    use std::sync::Arc;

    fn file(path: &str, imports: Vec<Import>) -> ParsedFile {
        let lang = Lang::from_path(path).unwrap_or(Lang::Rust);
        let tags = FileTags {
            imports,
            ..FileTags::default()
        };
        ParsedFile::new(path.to_owned(), lang, 0, Arc::from(""), tags)
    }

    fn imp(spec: &str, names: &[&str]) -> Import {
        Import {
            specifier: spec.to_owned(),
            names: names
                .iter()
                .map(|n| ImportedName {
                    name: (*n).to_owned(),
                    alias: None,
                })
                .collect(),
            namespace: None,
            wildcard: false,
            reexport: false,
            line: 1,
        }
    }

    fn wild(spec: &str) -> Import {
        Import {
            wildcard: true,
            ..imp(spec, &[])
        }
    }

    fn decl(spec: &str) -> Import {
        Import {
            reexport: true,
            ..wild(spec)
        }
    }

    fn paths(files: &[ParsedFile], idx: &[usize]) -> Vec<String> {
        idx.iter().map(|&i| files[i].path.clone()).collect()
    }

    fn resolve(
        files: &[ParsedFile],
        from: usize,
        import: &Import,
    ) -> (Vec<String>, Vec<Vec<String>>) {
        let r = Resolver::new(files, &[], &[]);
        let d = r.resolve_detail(from, import);
        (
            paths(files, &d.module),
            d.names.iter().map(|n| paths(files, n)).collect(),
        )
    }

    #[test]
    fn rust_module_tree() {
        let files = vec![
            file("src/lib.rs", vec![]),
            file("src/store.rs", vec![]),
            file("src/engine/mod.rs", vec![]),
            file("src/engine/graph.rs", vec![]),
            file("src/engine/graph/csr.rs", vec![]),
            file("tests/it.rs", vec![]),
            file("tests/common/mod.rs", vec![]),
            file("crates/my-util/src/lib.rs", vec![]),
        ];
        // `use crate::store::Store` from deep inside.
        assert_eq!(
            resolve(&files, 4, &imp("crate::store", &["Store"])),
            (vec!["src/store.rs".into()], vec![vec![]])
        );
        // `use super::graph::csr` from graph/csr's sibling: names that are modules.
        assert_eq!(
            resolve(&files, 3, &imp("self", &["csr"])).1,
            vec![vec!["src/engine/graph/csr.rs".to_owned()]]
        );
        assert_eq!(
            resolve(&files, 4, &imp("super", &["Graph"])).0,
            vec!["src/engine/graph.rs".to_owned()]
        );
        assert_eq!(
            resolve(&files, 4, &imp("super::super", &["Engine"])).0,
            vec!["src/engine/mod.rs".to_owned()]
        );
        // `mod engine;` in lib.rs; `mod common;` in an integration test.
        assert_eq!(
            resolve(&files, 0, &imp("self::engine", &[])).0,
            vec!["src/engine/mod.rs".to_owned()]
        );
        assert_eq!(
            resolve(&files, 5, &imp("self::common", &[])).0,
            vec!["tests/common/mod.rs".to_owned()]
        );
        // 2018 paths: `use engine::graph::Graph` from lib.rs; an item path falls back to
        // the longest module prefix.
        assert_eq!(
            resolve(&files, 0, &imp("engine::graph", &["Graph"])).0,
            vec!["src/engine/graph.rs".to_owned()]
        );
        assert_eq!(
            resolve(&files, 0, &imp("crate::store::inner", &["X"])).0,
            vec!["src/store.rs".to_owned()]
        );
        // A workspace crate by name; std stays external.
        assert_eq!(
            resolve(&files, 1, &imp("my_util", &["helper"])).0,
            vec!["crates/my-util/src/lib.rs".to_owned()]
        );
        assert_eq!(
            resolve(&files, 1, &imp("std::fmt", &["Display"])).0,
            Vec::<String>::new()
        );
        // The package's own library by its crate name, from an integration test and from
        // `main.rs`; never from the library itself, and never without a module on the path.
        let mut with_main = files.clone();
        with_main.push(file("src/main.rs", vec![]));
        assert_eq!(
            resolve(&with_main, 5, &imp("my_app::store", &["Store"])).0,
            vec!["src/store.rs".to_owned()]
        );
        assert_eq!(
            resolve(&with_main, 8, &imp("my_app::engine::graph", &["Graph"])).0,
            vec!["src/engine/graph.rs".to_owned()]
        );
        assert_eq!(
            resolve(&with_main, 1, &imp("my_app::store", &["Store"])).0,
            Vec::<String>::new()
        );
        assert_eq!(
            resolve(&with_main, 5, &imp("serde", &["Serialize"])).0,
            Vec::<String>::new()
        );
        assert_eq!(
            resolve(&with_main, 8, &imp("my_app", &["engine"])).1,
            vec![vec!["src/engine/mod.rs".to_owned()]]
        );
    }

    #[test]
    fn java_csharp_php_packages() {
        let files = vec![
            file("src/main/java/com/acme/Store.java", vec![decl("com.acme")]),
            file("src/main/java/com/acme/Item.java", vec![decl("com.acme")]),
            file(
                "src/test/java/com/acme/StoreTest.java",
                vec![decl("com.acme")],
            ),
            file("Lib/Store.cs", vec![decl("Acme.Store")]),
            file("app/Models/User.php", vec![decl("App\\Models")]),
        ];
        let (module, names) = resolve(&files, 2, &imp("com.acme", &["Store"]));
        // The package's files (the importer excluded); the class is found by its definition.
        assert_eq!(
            module,
            [
                "src/main/java/com/acme/Store.java",
                "src/main/java/com/acme/Item.java"
            ]
        );
        assert_eq!(names, vec![Vec::<String>::new()]);
        // A static import names a class's member.
        assert_eq!(
            resolve(&files, 2, &imp("com.acme.Item", &["make"])).0,
            vec!["src/main/java/com/acme/Item.java".to_owned()]
        );
        // A package declaration binds nothing; external packages resolve to nothing.
        assert_eq!(
            resolve(&files, 0, &decl("com.acme")).0,
            Vec::<String>::new()
        );
        assert_eq!(
            resolve(&files, 0, &imp("java.util", &["List"])).0,
            Vec::<String>::new()
        );
        assert_eq!(
            resolve(&files, 0, &wild("Acme.Store")).0,
            Vec::<String>::new(),
            "a Java import never reaches C#"
        );
        assert_eq!(
            resolve(&files, 3, &wild("Acme.Store")).0,
            Vec::<String>::new()
        );
        let cs = vec![
            file("Lib/Store.cs", vec![decl("Acme.Store")]),
            file("App/Program.cs", vec![wild("Acme.Store")]),
        ];
        assert_eq!(
            resolve(&cs, 1, &wild("Acme.Store")).0,
            vec!["Lib/Store.cs".to_owned()]
        );
        assert_eq!(
            resolve(&files, 4, &imp("App\\Models", &["User"])).1,
            vec![Vec::<String>::new()],
            "a file does not import itself"
        );
        let php = vec![
            file("app/Models/User.php", vec![decl("App\\Models")]),
            file(
                "app/Http/Controller.php",
                vec![imp("App\\Models", &["User"])],
            ),
        ];
        assert_eq!(
            resolve(&php, 1, &imp("App\\Models", &["User"])),
            (vec!["app/Models/User.php".to_owned()], vec![vec![]])
        );
        // `use App\Models;` binds the namespace itself.
        assert_eq!(
            resolve(&php, 1, &imp("App", &["Models"])).1,
            vec![vec!["app/Models/User.php".to_owned()]]
        );
    }

    #[test]
    fn includes_and_requires() {
        let files = vec![
            file("src/server.c", vec![]),
            file("src/server.h", vec![]),
            file("deps/lua/src/lua.h", vec![]),
            file("include/proj/api.h", vec![]),
            file("lib/acme/store.rb", vec![]),
            file("lib/acme.rb", vec![]),
            file("app/helpers/x.rb", vec![]),
            file("web/index.php", vec![]),
            file("web/lib/db.php", vec![]),
        ];
        assert_eq!(
            resolve(&files, 0, &wild("server.h")).0,
            vec!["src/server.h".to_owned()]
        );
        assert_eq!(
            resolve(&files, 0, &wild("lua.h")).0,
            vec!["deps/lua/src/lua.h".to_owned()]
        );
        assert_eq!(
            resolve(&files, 0, &wild("<proj/api.h>")).0,
            vec!["include/proj/api.h".to_owned()]
        );
        assert_eq!(
            resolve(&files, 0, &wild("<stdio.h>")).0,
            Vec::<String>::new()
        );
        assert_eq!(
            resolve(&files, 0, &wild("../../etc/passwd")).0,
            Vec::<String>::new()
        );
        assert_eq!(
            resolve(&files, 5, &wild("./acme/store")).0,
            vec!["lib/acme/store.rb".to_owned()]
        );
        assert_eq!(
            resolve(&files, 6, &wild("acme/store")).0,
            vec!["lib/acme/store.rb".to_owned()]
        );
        assert_eq!(resolve(&files, 6, &wild("json")).0, Vec::<String>::new());
        assert_eq!(
            resolve(&files, 7, &wild("./lib/db.php")).0,
            vec!["web/lib/db.php".to_owned()]
        );
        assert_eq!(
            resolve(&files, 7, &wild("lib/db.php")).0,
            vec!["web/lib/db.php".to_owned()]
        );
    }
}
