//! Vendored folders told by their licence: a folder below the root that carries a licence
//! file and a build file of its own (`CMakeLists.txt`, `Makefile`, `package.json`, …), the
//! licence naming a copyright holder the repository's own licences never name, is another
//! project's copy (git's `t/unit-tests/clar`, a C library under `src/libfoo/`), whatever the
//! folder is called. The folders `paths::is_vendored` knows by name (`third_party/`,
//! `deps/`, `googletest/`) and the amalgamations it knows by size need neither; this finds
//! the rest.
//!
//! The walk reads each licence file's head (`MAX_LICENCE_HEAD`) as it finds it and keeps only
//! its holders (`holders`), and notes the folders with a build file (`is_build_file_name`);
//! `vendored_dirs` decides once the walk is done. Pure functions apart from `read_holders`,
//! on the walk's rayon jobs.
//!
//! The rule leans to keeping a folder the project's own, since ranking the project's code as
//! someone else's hides it from the map:
//! - a holder is read only from a `Copyright …` / `(c) …` / `© …` line that carries a year,
//!   so the licence's own text ("the above copyright notice", Apache's "(c) You must
//!   retain", a `Copyright [yyyy] [name]` template) names nobody;
//! - with no holder in the root's licences (none, or none with a year) nothing is vendored;
//! - a folder is foreign only when none of its holder words is the root's and none is
//!   shared with a licence of another folder outside it (a monorepo's packages share their
//!   holder, and a company renamed since its root licence was written is named in several).
//! - the folder also builds on its own: a library kept whole keeps its build files, while a
//!   library a project took in as its own code (git's `reftable/`, Google's, with a licence
//!   of its own and no build file) is built by the project and is the project's code now.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use crate::engine::base::guarded::{self, Follow};
use crate::engine::base::model::Lang;
use crate::engine::base::paths::is_within;

/// How much of a licence file is read: the holders are at its top (a licence listing
/// third-party notices further down names the project's dependencies, not its owner).
const MAX_LICENCE_HEAD: usize = 16 * 1024;
/// Holder lines looked for in the first this-many lines.
const MAX_HOLDER_LINES: usize = 200;

/// Words of a holder line that name nobody in particular: a company's legal form, the
/// licence's own words, the parts of a web address.
const GENERIC_WORDS: &[&str] = &[
    "copyright",
    "all",
    "rights",
    "reserved",
    "inc",
    "incorporated",
    "corp",
    "corporation",
    "ltd",
    "limited",
    "llc",
    "gmbh",
    "co",
    "company",
    "and",
    "the",
    "by",
    "of",
    "for",
    "to",
    "in",
    "on",
    "at",
    "with",
    "from",
    "contributors",
    "contributor",
    "authors",
    "author",
    "present",
    "holders",
    "holder",
    "owner",
    "owners",
    "others",
    "other",
    "affiliates",
    "affiliate",
    "et",
    "al",
    "its",
    "software",
    "foundation",
    "project",
    "team",
    "developers",
    "community",
    "org",
    "com",
    "net",
    "io",
    "www",
    "http",
    "https",
    "github",
    "mit",
    "license",
    "licence",
    "licensed",
    "version",
    "individual",
    "various",
    "see",
    "file",
    "notice",
];

/// A file name that is a licence: `LICENSE`, `LICENCE`, `COPYING`, `UNLICENSE`, with an
/// extension (`LICENSE.md`, `COPYING.txt`) or a suffix (`LICENSE-MIT`, `LICENSE_APACHE`),
/// in any case; never a source file (`license.go` is code about licences).
pub fn is_licence_name(name: &str) -> bool {
    if Lang::from_path(name).is_some() {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    ["license", "licence", "copying", "unlicense"]
        .iter()
        .any(|stem| {
            lower
                .strip_prefix(stem)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '-', '_']))
        })
}

/// Build files that make a folder a project of its own: C and C++ (CMake, make, autotools,
/// Meson, Bazel, SCons), and each language's package manifest.
const BUILD_FILES: &[&str] = &[
    "CMakeLists.txt",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "Makefile.am",
    "configure",
    "configure.ac",
    "meson.build",
    "BUILD",
    "BUILD.bazel",
    "WORKSPACE",
    "SConstruct",
    "package.json",
    "Cargo.toml",
    "go.mod",
    "setup.py",
    "setup.cfg",
    "pyproject.toml",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "composer.json",
    "Gemfile",
    "mix.exs",
    "Package.swift",
    "build.zig",
];

/// A file name that is a build file (`BUILD_FILES`, a `.csproj`, a `.gemspec`).
pub fn is_build_file_name(name: &str) -> bool {
    BUILD_FILES.contains(&name) || name.ends_with(".csproj") || name.ends_with(".gemspec")
}

/// The holder words of the licence file at `path` (its head, never through a link); empty
/// when unreadable.
pub(crate) fn read_holders(path: &Path) -> Vec<String> {
    match guarded::read_head(path, MAX_LICENCE_HEAD, Follow::No) {
        Ok(bytes) => holders(&String::from_utf8_lossy(&bytes))
            .into_iter()
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// The words naming the copyright holders of a licence text: from each line that starts
/// (after comment marks) with `Copyright`, `COPYRIGHT`, `(c)`, `(C)` or `©` and holds a year,
/// the words after that mark, lowercased, without years, addresses and `GENERIC_WORDS`.
pub fn holders(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines().take(MAX_HOLDER_LINES) {
        let line = line.trim_start_matches(|c: char| c.is_whitespace() || "#*/-;!%\"'".contains(c));
        let Some(rest) = ["Copyright", "COPYRIGHT", "(c)", "(C)", "©"]
            .iter()
            .find_map(|mark| line.strip_prefix(mark))
        else {
            continue;
        };
        // A template (`Copyright [yyyy] [name of copyright owner]`, `<%= year %>`) or a line
        // without a year is the licence's own text.
        if is_template(rest) || !has_year(rest) {
            continue;
        }
        for token in rest.split_whitespace() {
            // An e-mail address or a link says who through its other words, if at all.
            if token.contains('@') || token.contains("://") {
                continue;
            }
            for word in token
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.chars().next().is_some_and(char::is_alphabetic))
            {
                let word = word.to_lowercase();
                if word.chars().count() > 1 && !GENERIC_WORDS.contains(&word.as_str()) {
                    out.insert(word);
                }
            }
        }
    }
    out
}

/// A licence template's holder line: a `[placeholder]`, a `{placeholder}` or an `<…>` that is
/// not an address (`<year>`, `<%= user_name %>`; `<jane@example.com>` is one).
fn is_template(text: &str) -> bool {
    text.contains(['[', '{'])
        || text.split('<').skip(1).any(|after| {
            let inside = after.split('>').next().unwrap_or(after);
            !inside.contains('@') && !inside.contains("://")
        })
}

/// Whether `text` holds a year from 1900 to 2099 as a number of its own.
fn has_year(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_digit())
        .any(|n| n.len() == 4 && (n.starts_with("19") || n.starts_with("20")))
}

/// The folders (repo-relative, `/`-separated, outermost only, sorted) whose licences name
/// only foreign holders and which hold a build file, from each licence file's folder (`""`
/// for the root) and holder words, in any order, and the folders holding a build file. See
/// the module header for the rule.
pub fn vendored_dirs(licences: &[(String, Vec<String>)], build_dirs: &[String]) -> Vec<String> {
    let root: BTreeSet<&str> = licences
        .iter()
        .filter(|(dir, _)| dir.is_empty())
        .flat_map(|(_, words)| words.iter().map(String::as_str))
        .collect();
    if root.is_empty() {
        return Vec::new();
    }
    // One holder set per folder (a folder may hold LICENSE-MIT and LICENSE-APACHE), and the
    // folders naming each word: a tree of thousands of licences is judged in near-linear time.
    let mut folders: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (dir, words) in licences.iter().filter(|(dir, _)| !dir.is_empty()) {
        folders
            .entry(dir.as_str())
            .or_default()
            .extend(words.iter().map(String::as_str));
    }
    let mut naming: HashMap<&str, Vec<&str>> = HashMap::new();
    for (dir, words) in &folders {
        for word in words {
            naming.entry(word).or_default().push(dir);
        }
    }
    let builds: HashSet<&str> = build_dirs.iter().map(String::as_str).collect();
    let related = |a: &str, b: &str| is_within(a, b) || is_within(b, a);
    let vendored: BTreeSet<&str> = folders
        .iter()
        .filter(|(dir, words)| {
            !words.is_empty()
                && builds.contains(*dir)
                && words.is_disjoint(&root)
                && !words.iter().any(|word| {
                    naming
                        .get(word)
                        .is_some_and(|dirs| dirs.iter().any(|other| !related(dir, other)))
                })
        })
        .map(|(dir, _)| *dir)
        .collect();
    // Outermost only: a vendored library's own nested licences add nothing.
    vendored
        .iter()
        .filter(|dir| !ancestors(dir).any(|a| vendored.contains(a)))
        .map(|dir| (*dir).to_string())
        .collect()
}

/// The folders strictly above `path` (`a/b/c` → `a/b`, `a`), nearest first; not the root.
fn ancestors(path: &str) -> impl Iterator<Item = &str> {
    path.char_indices()
        .rev()
        .filter(|&(_, c)| c == '/')
        .map(move |(i, _)| &path[..i])
}

/// Whether `path` lies in one of `dirs`, sorted as `vendored_dirs` gives them: a look-up per
/// folder above `path`, so marking every file of a large tree stays linear.
pub fn in_any(path: &str, dirs: &[String]) -> bool {
    !dirs.is_empty()
        && ancestors(path).any(|a| dirs.binary_search_by(|d| d.as_str().cmp(a)).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        holders(text).into_iter().collect()
    }

    fn lic(dir: &str, text: &str) -> (String, Vec<String>) {
        (dir.to_string(), words(text))
    }

    /// Every licence's folder as one with a build file.
    fn builds(licences: &[(String, Vec<String>)]) -> Vec<String> {
        licences.iter().map(|(dir, _)| dir.clone()).collect()
    }

    #[test]
    fn licence_names() {
        for name in [
            "LICENSE",
            "LICENCE",
            "License.md",
            "license.txt",
            "COPYING",
            "COPYING.LIB",
            "LICENSE-MIT",
            "LICENSE_APACHE",
            "UNLICENSE",
        ] {
            assert!(is_licence_name(name), "{name}");
        }
        for name in [
            "license.go",
            "licenses",
            "licensing.md",
            "MY_LICENSE",
            "copyright",
        ] {
            assert!(!is_licence_name(name), "{name} is not a licence");
        }
    }

    #[test]
    fn holders_come_from_dated_copyright_lines_only() {
        assert_eq!(
            words("MIT License\n\nCopyright (c) 2012 The Go Authors. All rights reserved.\n"),
            ["go"]
        );
        assert_eq!(words("Copyright 2008, Google Inc.\n"), ["google"]);
        assert_eq!(
            words("Copyright (c) 2018-present, Yuxi (Evan) You and Vue contributors\n"),
            ["evan", "vue", "you", "yuxi"]
        );
        assert_eq!(
            words(" * Copyright IBM Corp. 2014, 2026\n"),
            ["ibm"],
            "comment marks and a trailing year"
        );
        assert_eq!(
            words("© 2020 Jane Doe <jane@example.com> https://example.com\n"),
            ["doe", "jane"]
        );
        // The licence's own words name nobody.
        let mit = "Permission is hereby granted…\nThe above copyright notice and this permission \
                   notice shall be included in all copies.\n";
        assert!(words(mit).is_empty());
        let apache = "(c) You must retain, in the Source form of any Derivative Works\n\
                      Copyright [yyyy] [name of copyright owner]\n";
        assert!(words(apache).is_empty());
        assert!(words("Copyright (c) <%= Time.now.year %> <%= user_name %>\n").is_empty());
        assert!(words("Copyright: see AUTHORS\n").is_empty(), "no year");
    }

    #[test]
    fn a_folder_whose_holder_the_root_never_names_is_vendored() {
        let licences = vec![
            lic("", "Copyright (c) 2012 - present, Victor Zverovich\n"),
            lic("test/sha1", "Copyright 2017 Marc Stevens, Dan Shumow\n"),
            // Its own nested licence (same holder) adds nothing.
            lic("test/sha1/lib", "Copyright 2017 Marc Stevens\n"),
            lic("docs", "Copyright 2019 Victor Zverovich\n"),
        ];
        assert_eq!(vendored_dirs(&licences, &builds(&licences)), ["test/sha1"]);
        assert!(in_any(
            "test/sha1/lib/sha1.c",
            &vendored_dirs(&licences, &builds(&licences))
        ));
        assert!(!in_any(
            "test/sha1x/a.c",
            &vendored_dirs(&licences, &builds(&licences))
        ));
    }

    #[test]
    fn the_projects_own_packages_are_not_vendored() {
        // A monorepo's packages name the root's holder, in a shorter form.
        let monorepo = vec![
            lic(
                "",
                "Copyright (c) 2018-present, Yuxi (Evan) You and Vue contributors\n",
            ),
            lic(
                "packages/reactivity",
                "Copyright (c) 2018-present, Yuxi (Evan) You\n",
            ),
        ];
        assert!(vendored_dirs(&monorepo, &builds(&monorepo)).is_empty());
        // A holder named by the licences of two unrelated folders is the project's own (a
        // company renamed since the root licence was written).
        let renamed = vec![
            lic("", "Copyright (c) 2014 HashiCorp, Inc.\n"),
            lic("internal/plugin5", "Copyright IBM Corp. 2014, 2026\n"),
            lic("internal/plugin6", "Copyright IBM Corp. 2014, 2026\n"),
            lic("internal/ipaddr", "Copyright (c) 2012 The Go Authors.\n"),
        ];
        assert_eq!(
            vendored_dirs(&renamed, &builds(&renamed)),
            ["internal/ipaddr"]
        );
        // Without a holder at the root there is nothing to compare with.
        let no_root = vec![
            lic("", "Apache License\nVersion 2.0, January 2004\n"),
            lic("lib/x", "Copyright 2015 Jane Doe\n"),
        ];
        assert!(vendored_dirs(&no_root, &builds(&no_root)).is_empty());
        // A folder whose licence names nobody is not judged.
        let unnamed = vec![
            lic("", "Copyright 2015 Acme\n"),
            lic("crates/core", "MIT License\n"),
        ];
        assert!(vendored_dirs(&unnamed, &builds(&unnamed)).is_empty());
    }

    #[test]
    fn a_foreign_licence_without_a_build_file_is_the_projects_code_now() {
        let licences = vec![
            lic(
                "",
                "Copyright (C) 1989, 1991 Free Software Foundation, Inc.\n",
            ),
            lic("reftable", "Copyright 2020 Google LLC\n"),
            lic(
                "t/unit-tests/clar",
                "Copyright (c) 2011-2015 Vicent Marti\n",
            ),
        ];
        let builds = vec!["t/unit-tests/clar".to_string(), "t".to_string()];
        assert_eq!(vendored_dirs(&licences, &builds), ["t/unit-tests/clar"]);
        assert!(is_build_file_name("CMakeLists.txt"));
        assert!(is_build_file_name("Acme.Store.csproj"));
        assert!(!is_build_file_name("build.rs"));
    }

    #[test]
    fn thousands_of_licences_are_judged_quickly() {
        // A monorepo of 20,000 packages, each with its own holder: every one is foreign (the
        // folders are compared through the words they share, not pair by pair).
        let mut licences = vec![lic("", "Copyright 2020 Acme\n")];
        for i in 0..20_000 {
            licences.push((format!("packages/p{i}"), vec![format!("holder{i}")]));
        }
        let builds = builds(&licences);
        let dirs = vendored_dirs(&licences, &builds);
        assert_eq!(dirs.len(), 20_000);
        assert!(in_any("packages/p17/src/a.c", &dirs));
        assert!(!in_any("packages/p17x/a.c", &dirs));
        assert!(!in_any("packages", &dirs));
    }
}
