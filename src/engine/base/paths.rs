//! Path classification, one home for the engine: which files are tests or other secondary
//! material (demoted by search, given a smaller prior by rank, bound last by the graph),
//! which are build output (never shown), fixtures, and the implementation-file rule the
//! retrieval eval uses; and joining a relative path onto a folder (`normalize_join`, for
//! import specifiers and config paths). Pure functions; called while building the index and
//! by the eval harness.

/// The code extensions of the retrieval eval (`evalcommon.CODE_EXTS`).
const CODE_EXTS: [&str; 8] = [".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".py", ".go"];

/// A relative path joined onto a repository folder (`/`-separated, `""` for the root), `.`
/// and `..` resolved; `None` when it climbs above the root.
pub fn normalize_join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// `evalcommon.is_code`: a code file by extension, case-insensitive.
pub fn is_code_path(path: &str) -> bool {
    let lower = path.to_lowercase();
    CODE_EXTS.iter().any(|e| lower.ends_with(e))
}

/// `evalcommon.is_impl`, reproduced exactly: a code file that is not a test, doc, example,
/// fixture, playground, benchmark or `.d.ts`.
pub fn is_impl_path(path: &str) -> bool {
    if !is_code_path(path) {
        return false;
    }
    let parts: Vec<&str> = path.split('/').collect();
    let Some((base, dirs)) = parts.split_last() else {
        return false;
    };
    if nonimpl_base(base) {
        return false;
    }
    !dirs.iter().any(|d| nonimpl_dir(d) != DirClass::Impl)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DirClass {
    Impl,
    Test,
    Secondary,
}

/// `evalcommon._NONIMPL_DIR` (a case-insensitive full match) plus `test-data`/`test_data`
/// (mypy's, and common elsewhere) and `t` (the test folder of git, of Perl distributions and
/// of C projects that follow git: `t/test-lib.sh`, `t/helper/`), split into tests vs the rest
/// because search lifts only the test demotion for test queries.
fn nonimpl_dir(component: &str) -> DirClass {
    let c = component.to_lowercase();
    let test = matches!(
        c.as_str(),
        "t" | "__test__"
            | "__tests__"
            | "test"
            | "tests"
            | "testing"
            | "testdata"
            | "test-data"
            | "test_data"
            | "e2e"
            | "spec"
            | "specs"
            | "fixture"
            | "fixtures"
            | "__fixtures__"
            | "__mocks__"
    ) || is_test_utils(&c)
        || c.ends_with("-test")
        || c.ends_with("_test")
        || c.ends_with("-tests")
        || c.ends_with("_tests");
    if test {
        return DirClass::Test;
    }
    let secondary = matches!(
        c.as_str(),
        "doc"
            | "docs"
            | "documentation"
            | "example"
            | "examples"
            | "playground"
            | "playgrounds"
            | "benchmark"
            | "benchmarks"
            | "bench"
    ) || c.ends_with("-playground")
        || c.ends_with("_playground");
    if secondary {
        DirClass::Secondary
    } else {
        DirClass::Impl
    }
}

/// `test[-_]?utils?`
fn is_test_utils(c: &str) -> bool {
    let Some(rest) = c.strip_prefix("test") else {
        return false;
    };
    let rest = rest
        .strip_prefix('-')
        .or_else(|| rest.strip_prefix('_'))
        .unwrap_or(rest);
    rest == "util" || rest == "utils"
}

/// `evalcommon._NONIMPL_BASE` (case-insensitive full match).
fn nonimpl_base(base: &str) -> bool {
    let b = base.to_lowercase();
    if (b.starts_with("test_") && b.ends_with(".py") && b.len() >= 8)
        || b.ends_with("_test.py")
        || b == "conftest.py"
        || b.ends_with("_test.go")
    {
        return true;
    }
    // `.*\.(test|spec|bench|test-d)\.[cm]?[jt]sx?`
    if let Some((stem, ext)) = b.rsplit_once('.') {
        let js_ext = {
            let e = ext.strip_prefix(['c', 'm']).unwrap_or(ext);
            let e = e.strip_suffix('x').unwrap_or(e);
            e == "js" || e == "ts"
        };
        if js_ext
            && [".test", ".spec", ".bench", ".test-d"]
                .iter()
                .any(|s| stem.ends_with(s))
        {
            return true;
        }
        // `.*\.d\.[cm]?ts`
        let ts_ext = matches!(ext, "ts" | "cts" | "mts");
        if ts_ext && stem.ends_with(".d") {
            return true;
        }
    }
    false
}

/// How search treats a file's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum PathClass {
    Impl,
    /// Tests, specs, fixtures, mocks, test data.
    Test,
    /// Examples, playgrounds, benchmarks, docs folders, `.d.ts` and `.pyi` stubs, stories.
    Secondary,
}

/// How search treats `path`: its place (`classify_place`), and a Python stub (`.pyi`) as
/// secondary, since it declares types for code that lives elsewhere (a `.py` or compiled
/// module beside it, or another project's, as a vendored typeshed), as a `.d.ts` does for
/// JavaScript.
pub(crate) fn classify(path: &str) -> PathClass {
    match classify_place(path) {
        PathClass::Impl if is_python_stub(path) => PathClass::Secondary,
        class => class,
    }
}

/// A path's class from its folders and name alone, stubs counted as code: what the graph
/// and the rank go by (a stub of the repository's own module is its API; one of a module
/// it lacks is `graph::build::external_stub_files`').
pub(crate) fn classify_place(path: &str) -> PathClass {
    let parts: Vec<&str> = path.split('/').collect();
    let Some((base, dirs)) = parts.split_last() else {
        return PathClass::Impl;
    };
    let lower = base.to_lowercase();
    if is_test_file_of_other_languages(base) || dirs.iter().any(|d| is_dotnet_test_project(d)) {
        return PathClass::Test;
    }
    if nonimpl_base(base) {
        return if is_declaration_file(base) {
            PathClass::Secondary
        } else {
            PathClass::Test
        };
    }
    let mut class = PathClass::Impl;
    for d in dirs {
        match nonimpl_dir(d) {
            DirClass::Test => return PathClass::Test,
            DirClass::Secondary => class = PathClass::Secondary,
            DirClass::Impl => {}
        }
    }
    if class == PathClass::Impl && (lower.contains(".stories.") || lower.contains(".story.")) {
        class = PathClass::Secondary;
    }
    class
}

/// Folder names that hold a copy of another project: the generic ones (`deps/` is C's and
/// Node's: redis' `deps/jemalloc`, node's `deps/v8`, libgit2's `deps/zlib`), and
/// googletest's, the library most often bundled whole into C and C++ repositories.
const VENDORED_DIRS: &[&str] = &[
    "deps",
    "third_party",
    "third-party",
    "thirdparty",
    "3rdparty",
    "vendored",
    "googletest",
    "gtest",
    "gmock",
];

/// Below this size a source file is never taken for an amalgamation.
const AMALGAMATION_MIN_BYTES: u64 = 256 * 1024;

/// Vendored code: another project's code kept in this repository (`vendor/` itself is
/// never walked). A folder named in `VENDORED_DIRS`, or an amalgamation: one very large
/// source file concatenated from a library's sources (`gmock-gtest-all.cc`,
/// `sqlite3-amalgamation.c`), told by its size and an `-all` / `_all` / `amalgamat…`
/// stem. The map ranks it as it ranks tests, and search demotes it as a test.
pub(crate) fn is_vendored(path: &str, size: u64) -> bool {
    let lower = path.to_lowercase();
    let mut parts: Vec<&str> = lower.split('/').collect();
    let base = parts.pop().unwrap_or_default();
    if parts.iter().any(|d| VENDORED_DIRS.contains(d)) {
        return true;
    }
    let stem = base.split('.').next().unwrap_or(base);
    size >= AMALGAMATION_MIN_BYTES
        && (stem.ends_with("-all") || stem.ends_with("_all") || stem.contains("amalgamat"))
}

/// Test file names of the languages the retrieval eval does not cover (kept out of
/// `nonimpl_base`, which must stay the eval's rule): Java `StoreTest.java` / `StoreTests.java`
/// / `StoreIT.java` / `TestStore.java`, C# `StoreTests.cs` / `StoreTest.cs`, PHP
/// `StoreTest.php`, Ruby `store_spec.rb` / `store_test.rb` / `test_store.rb`, Rust
/// `store_test.rs` / `tests.rs`, C/C++ `store_test.c(c|pp)` / `store_unittest.cc` /
/// `test_store.c`, Kotlin `StoreTest.kt`, Swift `StoreTests.swift`, Scala `StoreSpec.scala`
/// / `StoreTest.scala`, shell `store_test.sh` / `test_store.sh`, Lua `store_spec.lua` /
/// `store_test.lua`, Elixir `store_test.exs`.
fn is_test_file_of_other_languages(base: &str) -> bool {
    let Some((stem, ext)) = base.rsplit_once('.') else {
        return false;
    };
    let ext = ext.to_ascii_lowercase();
    let camel_test = |s: &str| {
        s.len() > 4 && (s.ends_with("Test") || s.ends_with("Tests"))
            || (s.starts_with("Test") && s[4..].starts_with(|c: char| c.is_ascii_uppercase()))
    };
    let lower = stem.to_ascii_lowercase();
    let snake_test = |suffixes: &[&str]| {
        suffixes
            .iter()
            .any(|s| lower.ends_with(s) && lower.len() > s.len())
            || (lower.starts_with("test_") && lower.len() > 5)
    };
    match ext.as_str() {
        "java" => camel_test(stem) || (stem.len() > 2 && stem.ends_with("IT")),
        "cs" | "php" => camel_test(stem),
        "rb" => snake_test(&["_spec", "_test"]),
        "rs" => lower == "tests" || snake_test(&["_test", "_tests"]),
        "c" | "cc" | "cpp" | "cxx" => snake_test(&["_test", "_tests", "_unittest"]),
        "kt" | "swift" => camel_test(stem),
        "scala" => camel_test(stem) || (stem.len() > 4 && stem.ends_with("Spec")),
        "sh" | "bash" => snake_test(&["_test", "_tests"]),
        "lua" => snake_test(&["_spec", "_test"]),
        "exs" => snake_test(&["_test"]),
        _ => false,
    }
}

/// A .NET test project folder: `Acme.Store.Tests`, `Acme.Store.Test`, `Acme.Store.Specs`.
fn is_dotnet_test_project(dir: &str) -> bool {
    let lower = dir.to_ascii_lowercase();
    [
        ".tests",
        ".test",
        ".specs",
        ".unittests",
        ".integrationtests",
    ]
    .iter()
    .any(|s| lower.ends_with(s) && lower.len() > s.len())
}

/// Whether `path` is `dir` or below it, by whole folder names (`/`-separated, repo-relative;
/// `""` is the root): `a/b/c.rs` is within `a/b`, `a/bc/d.rs` is not.
pub(crate) fn is_within(path: &str, dir: &str) -> bool {
    dir.is_empty()
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// A type stub: a TypeScript declaration file or a Python stub, secondary for what it is
/// rather than where it sits (`classify`).
pub(crate) fn is_type_stub(path: &str) -> bool {
    is_declaration_file(path) || is_python_stub(path)
}

/// A Python stub file (`.pyi`), case-insensitive.
pub(crate) fn is_python_stub(path: &str) -> bool {
    path.len() > 4
        && path.is_char_boundary(path.len() - 4)
        && path[path.len() - 4..].eq_ignore_ascii_case(".pyi")
}

/// A TypeScript declaration file (`.d.ts`, `.d.mts`, `.d.cts`), case-insensitive.
pub(crate) fn is_declaration_file(path: &str) -> bool {
    let lower = path.to_lowercase();
    lower.ends_with(".d.ts") || lower.ends_with(".d.mts") || lower.ends_with(".d.cts")
}

/// Build output and dependency folders: never shown in results even if a caller indexes them.
pub(crate) fn is_build_output(path: &str) -> bool {
    let lower = path.to_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    let Some((base, dirs)) = parts.split_last() else {
        return false;
    };
    let dir_hit = dirs.iter().any(|d| {
        matches!(
            *d,
            "node_modules"
                | "dist"
                | ".next"
                | ".nuxt"
                | ".svelte-kit"
                | ".output"
                | ".turbo"
                | ".cache"
                | "coverage"
                | "__pycache__"
                | ".git"
        )
    }) || dirs.first().is_some_and(|d| *d == "build");
    dir_hit
        || base.ends_with(".min.js")
        || base.ends_with(".min.mjs")
        || base.ends_with(".min.css")
        || base.ends_with(".map")
}

/// Prose files that would only add noise to search: lock files, licences and changelogs
/// (a changelog repeats every feature name and commit subject of the project).
pub(crate) fn is_noise_doc(path: &str) -> bool {
    let base = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    let stem = base.split('.').next().unwrap_or(&base);
    base.ends_with(".lock")
        || matches!(
            base.as_str(),
            "pnpm-lock.yaml" | "package-lock.json" | "npm-shrinkwrap.json" | "go.sum"
        )
        || matches!(
            stem,
            "license" | "licence" | "copying" | "notice" | "changelog" | "changes" | "history"
        )
}

/// A file name without its last extension, lowercased (`src/_pytest/python.py` → `python`).
pub(crate) fn file_stem(path: &str) -> String {
    let base = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    match base.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => base,
    }
}

/// The subject an implementation file is about: its stem, or for a package's entry file
/// (`config/__init__.py`, `server/index.ts`) the package folder, which is what its tests
/// are named after (`test_config.py`, `server.spec.ts`).
pub(crate) fn impl_subject(path: &str) -> String {
    let stem = file_stem(path);
    if matches!(stem.as_str(), "__init__" | "index") {
        if let Some(dir) = parent_dir(path) {
            return dir;
        }
    }
    stem
}

/// The names a test of this file may carry: its subject, and the subject qualified by its
/// folder (`mark/expression.py` → `expression`, `mark_expression`), as in
/// `test_mark_expression.py`.
pub(crate) fn impl_subjects(path: &str) -> Vec<String> {
    let subject = impl_subject(path);
    let mut out = Vec::with_capacity(2);
    if let Some(dir) = parent_dir(path) {
        if dir != subject {
            out.push(format!("{dir}_{subject}"));
        }
    }
    out.push(subject);
    out
}

/// The lowercased name of the folder holding `path`.
fn parent_dir(path: &str) -> Option<String> {
    let mut parts = path.rsplit('/');
    parts.next();
    parts.next().map(str::to_lowercase)
}

/// What a test file tests, by the naming conventions of the supported languages:
/// `test_python.py`, `head_test.go`, `build.spec.ts`, `utils.test-d.ts` → `python`, `head`,
/// `build`, `utils`; a plain name inside a test folder (`__tests__/build.ts`) → `build`.
pub(crate) fn test_subject(path: &str) -> Option<String> {
    let base = path.rsplit('/').next().unwrap_or(path);
    if is_test_file_of_other_languages(base) {
        // `StoreTest.java`, `TestStore.java`, `StoreTests.cs`, `store_spec.rb` → `store`.
        let stem = base.rsplit_once('.').map_or(base, |(s, _)| s);
        let stem = [
            "Tests",
            "Test",
            "IT",
            "_spec",
            "_tests",
            "_test",
            "_unittest",
        ]
        .iter()
        .find_map(|s| stem.strip_suffix(s))
        .or_else(|| stem.strip_prefix("test_"))
        .or_else(|| stem.strip_prefix("Test"))
        .unwrap_or(stem)
        .to_lowercase();
        return (!stem.is_empty() && stem != "tests").then_some(stem);
    }
    let mut stem = file_stem(path);
    for suffix in [
        ".test", ".spec", ".test-d", ".bench", "_test", "-test", "-spec",
    ] {
        if let Some(s) = stem.strip_suffix(suffix) {
            stem = s.to_string();
            break;
        }
    }
    if let Some(s) = stem.strip_prefix("test_") {
        stem = s.to_string();
    }
    (!stem.is_empty() && stem != "test" && stem != "conftest").then_some(stem)
}

/// Files under fixture, mock or test-data folders (`__fixtures__`, `testdata`, …).
pub(crate) fn is_fixture(path: &str) -> bool {
    let mut dirs: Vec<&str> = path.split('/').collect();
    dirs.pop();
    dirs.iter().any(|d| {
        matches!(
            d.to_lowercase().as_str(),
            "fixture" | "fixtures" | "__fixtures__" | "__mocks__" | "testdata" | "mocks"
        )
    })
}

/// The folders of a path without test folders (`src/a/__tests__/x.spec.ts` → `src`, `a`),
/// lowercased: where a test's subject would live.
pub(crate) fn subject_dirs(path: &str) -> Vec<String> {
    let mut dirs: Vec<&str> = path.split('/').collect();
    dirs.pop();
    dirs.into_iter()
        .filter(|d| nonimpl_dir(d) != DirClass::Test)
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_folders_and_amalgamations() {
        assert!(is_vendored("test/gtest/gtest/gtest.h", 10));
        assert!(is_vendored("deps/third_party/zlib/inflate.c", 10));
        assert!(is_vendored("src/3rdparty/x.cc", 10));
        assert!(is_vendored(
            "deps/jemalloc/include/jemalloc/internal/tsd.h",
            10
        ));
        assert!(!is_vendored("src/deps.c", 10));
        assert!(is_vendored("test/gtest/gmock-gtest-all.cc", 532_839));
        assert!(is_vendored("src/sqlite3-amalgamation.c", 8_000_000));
        // Size alone is not enough, nor the name alone.
        assert!(!is_vendored("mypy/checker.py", 455_901));
        assert!(!is_vendored("src/run-all.c", 2_000));
        assert!(!is_vendored("src/gtest_helpers.cc", 10));
        assert!(!is_vendored("packages/vite/src/node/server/index.ts", 10));
    }

    #[test]
    fn impl_rule_matches_evalcommon() {
        // Expected values computed with /work/shared/eval/evalcommon.py.
        let cases = [
            ("packages/vite/src/node/server/index.ts", true),
            ("packages/vite/src/node/__tests__/utils.spec.ts", false),
            ("src/foo.test.tsx", false),
            ("src/foo.test-d.ts", false),
            ("src/foo.bench.mjs", false),
            ("types/index.d.ts", false),
            ("types/index.d.mts", false),
            ("src/_pytest/python.py", true),
            ("testing/test_python.py", false),
            ("src/conftest.py", false),
            ("src/pkg/foo_test.py", false),
            ("tsdb/head_test.go", false),
            ("tsdb/head.go", true),
            ("docs/conf.py", false),
            ("playground/vue/main.ts", false),
            ("packages/create-vite/template-vue/src/main.ts", true),
            ("foo/vite-playground/x.js", false),
            ("foo/ssr-tests/x.js", false),
            ("foo/test-utils/x.js", false),
            ("foo/test_util/x.js", false),
            ("foo/testutils/x.js", false),
            ("foo/testutilsx/x.js", true),
            ("README.md", false),
            ("Src/Foo.TS", true),
            ("x/Tests/y.py", false),
            ("test_.py", false),
            ("test_a.py", false),
            ("a.spec.jsx", false),
            ("a.spec.cjsx", false),
            ("a.spec.json", false),
            ("bench/x.go", false),
            ("benches/x.go", true),
        ];
        for (p, want) in cases {
            assert_eq!(is_impl_path(p), want, "{p}");
        }
    }

    #[test]
    fn test_files_of_the_added_languages() {
        for path in [
            "src/test/kotlin/a/StoreTest.kt",
            "Tests/StoreTests/StoreTests.swift",
            "src/test/scala/a/StoreSpec.scala",
            "test/store_test.sh",
            "spec/store_spec.lua",
            "test/store_test.exs",
        ] {
            assert!(
                is_test_file_of_other_languages(path.rsplit('/').next().unwrap()),
                "{path}"
            );
        }
        for base in ["Store.kt", "Spec.scala", "store.sh", "test.lua", "mix.exs"] {
            assert!(!is_test_file_of_other_languages(base), "{base}");
        }
    }

    #[test]
    fn within_is_by_whole_folder_names() {
        assert!(is_within("a/b/c.rs", "a/b"));
        assert!(is_within("a/b", "a/b"));
        assert!(!is_within("a/bc/d.rs", "a/b"));
        assert!(is_within("anything", ""));
    }

    #[test]
    fn classify_paths() {
        assert_eq!(classify("src/server.ts"), PathClass::Impl);
        assert_eq!(classify("src/__tests__/server.ts"), PathClass::Test);
        // git's and Perl's test folder; a file named `t` is no folder.
        assert_eq!(classify("t/test-lib.sh"), PathClass::Test);
        assert_eq!(classify("t/helper/test-tool.c"), PathClass::Test);
        assert_eq!(classify("src/t.c"), PathClass::Impl);
        assert_eq!(classify("src/server.spec.ts"), PathClass::Test);
        assert_eq!(classify("types/index.d.ts"), PathClass::Secondary);
        assert_eq!(classify("playground/x/main.ts"), PathClass::Secondary);
        assert_eq!(classify("docs/guide.md"), PathClass::Secondary);
        assert_eq!(classify("src/Button.stories.tsx"), PathClass::Secondary);
        assert_eq!(
            classify("mypy/typeshed/stdlib/dataclasses.pyi"),
            PathClass::Secondary
        );
        assert_eq!(classify("pkg/_native.pyi"), PathClass::Secondary);
        assert_eq!(classify("tests/stubs/x.pyi"), PathClass::Test);
        // The graph's class leaves a stub where its folder puts it.
        assert_eq!(classify_place("pkg/_native.pyi"), PathClass::Impl);
        assert_eq!(classify_place("examples/x.pyi"), PathClass::Secondary);
        assert!(is_build_output("packages/vite/dist/node/index.js"));
        assert!(is_build_output("build/lib.js"));
        assert!(!is_build_output("src/build.ts"));
        assert!(!is_build_output("src/build/index.ts"));
        assert!(is_build_output("a/b.min.js"));
        assert!(is_noise_doc("pnpm-lock.yaml"));
        assert!(is_noise_doc("packages/vite/CHANGELOG.md"));
        assert!(is_noise_doc("LICENSE"));
        assert!(is_noise_doc("yarn.lock"));
        assert!(!is_noise_doc("docs/guide/changelog-policy.md"));
        assert!(!is_noise_doc("README.md"));
        assert_eq!(test_subject("testing/test_python.py").unwrap(), "python");
        assert_eq!(test_subject("tsdb/head_test.go").unwrap(), "head");
        assert_eq!(
            test_subject("src/__tests__/build.spec.ts").unwrap(),
            "build"
        );
        assert_eq!(test_subject("src/__tests__/build.ts").unwrap(), "build");
        assert_eq!(test_subject("testing/conftest.py"), None);
        assert_eq!(file_stem("src/_pytest/python.py"), "python");
        assert_eq!(file_stem("Makefile"), "makefile");
        assert_eq!(impl_subject("src/_pytest/config/__init__.py"), "config");
        assert_eq!(impl_subject("src/node/server/index.ts"), "server");
        assert_eq!(impl_subject("index.ts"), "index");
        assert_eq!(impl_subject("src/a/b.go"), "b");
        assert_eq!(
            impl_subjects("src/_pytest/mark/expression.py"),
            ["mark_expression", "expression"]
        );
        assert_eq!(impl_subjects("src/config/__init__.py"), ["config"]);
        assert_eq!(impl_subjects("a.py"), ["a"]);
        assert_eq!(subject_dirs("src/a/__tests__/x.spec.ts"), ["src", "a"]);
        assert_eq!(subject_dirs("tsdb/head_test.go"), ["tsdb"]);
        assert!(subject_dirs("x.py").is_empty());
        assert!(is_fixture("src/__tests__/fixtures/a/worker.js"));
    }

    #[test]
    fn test_files_of_every_language() {
        let tests = [
            "src/test/java/com/acme/StoreTest.java",
            "core/StoreTests.java",
            "core/StoreIT.java",
            "core/TestStore.java",
            "src/Acme/StoreTests.cs",
            "tests/Acme.Store.Tests/Fixtures.cs",
            "app/StoreTest.php",
            "spec/models/store_spec.rb",
            "lib/store_test.rb",
            "test/test_store.rb",
            "crates/core/tests/it.rs",
            "src/store_test.rs",
            "src/engine/tests.rs",
            "src/store_unittest.cc",
            "src/test_store.c",
        ];
        for p in tests {
            assert_eq!(classify(p), PathClass::Test, "{p}");
        }
        let impls = [
            "src/main/java/com/acme/Store.java",
            "src/main/java/com/acme/Latest.java",
            "src/main/java/com/acme/Testing.java",
            "src/Acme/Contest.cs",
            "app/Models/Test.php",
            "lib/latest.rb",
            "src/attest.rs",
            "src/store.c",
            "src/Acme.Testing/Store.cs",
        ];
        for p in impls {
            assert_eq!(classify(p), PathClass::Impl, "{p}");
        }
        assert_eq!(test_subject("core/StoreTest.java").unwrap(), "store");
        assert_eq!(test_subject("core/TestStore.java").unwrap(), "store");
        assert_eq!(test_subject("src/StoreTests.cs").unwrap(), "store");
        assert_eq!(test_subject("spec/store_spec.rb").unwrap(), "store");
        assert_eq!(test_subject("test/test_store.rb").unwrap(), "store");
        assert_eq!(test_subject("src/store_unittest.cc").unwrap(), "store");
        assert!(is_fixture("tsdb/testdata/x.go"));
        assert!(!is_fixture("src/fixtures.py"));
    }
}
