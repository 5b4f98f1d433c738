//! The symbol eval's oracle: universal-ctags over a repository, read and filtered exactly as
//! `../shared/eval/symbols.py` does (its `ctags` command line, `KINDS`, `SKIP`, the
//! vendored and generated-file rules, evalcommon's `is_impl`, the test-scope rule), so that
//! both sample from the same definitions. Runs on the caller's thread; spawns `ctags`.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::Context;
use fancy_regex::Regex;

use super::SymbolEvalError;

/// The ctags kinds that are definitions a person looks up (`symbols.py`'s `KINDS`).
const KINDS: &[&str] = &[
    "function",
    "method",
    "class",
    "struct",
    "interface",
    "enum",
    "trait",
    "module",
    "func",
    "type",
    "singletonMethod",
    "macro",
    "typedef",
    "namespace",
    "record",
];

/// Names too common to look up (`symbols.py`'s `SKIP`).
const SKIP: &[&str] = &[
    "main",
    "new",
    "init",
    "__init__",
    "constructor",
    "default",
    "from",
    "into",
    "clone",
    "drop",
    "toString",
    "equals",
    "hashCode",
    "to_s",
    "inspect",
    "call",
    "run",
    "get",
    "set",
    "test",
];

/// The command line `symbols.py` runs, in the repository (the order of its output decides
/// which tags a shuffle picks, so it is kept as is: `-f -`, ctags' own sort).
const CTAGS_ARGS: &[&str] = &[
    "-R",
    "--output-format=json",
    "--fields=+nKSz",
    "--extras=-F",
    "--exclude=node_modules",
    "--exclude=vendor",
    "--exclude=.git",
    "--exclude=dist",
    "--exclude=build",
    "--exclude=target",
    "-f",
    "-",
    ".",
];

/// How much of a file is read to see whether a generator wrote it: its first five lines, as
/// long as they fit in this (Python reads whole lines; a longer first line is a minified or
/// data file, whose first 4 MiB say it as well).
const GENERATED_HEAD_BYTES: u64 = 4 << 20;

/// One definition the oracle gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleTag {
    pub name: String,
    /// Relative to the repository, `/`-separated.
    pub path: String,
    /// 1-based.
    pub line: u64,
    pub kind: String,
    /// ctags' `scope` (`Router`, `axum::routing::Router`, `Jekyll::Site`), when it has one.
    pub scope: Option<String>,
}

/// What ctags said about one repository.
#[derive(Debug, Clone)]
pub struct Oracle {
    /// The definitions kept, in ctags' output order.
    pub tags: Vec<OracleTag>,
    /// All tags ctags printed, before any filter.
    pub raw_tags: usize,
    /// Whether the repository's implementation has more C++ sources (`.cc`, `.cpp`, `.cxx`)
    /// than C ones: its `.h` headers then count as C++ in the per-language figures, else as C.
    pub has_cpp_sources: bool,
}

/// The oracle's version line (`Universal Ctags 5.9.0(p5.9.20210829.0)`), or why there is no
/// usable oracle: not on `PATH`, or a ctags without JSON output.
pub fn ctags_version(bin: &Path) -> Result<String, SymbolEvalError> {
    let missing = |why: String| SymbolEvalError::OracleMissing(why);
    let out = Command::new(bin)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            missing(format!(
                "cannot run `{}` ({e}): the symbol eval's oracle is universal-ctags \
                 (apt-get install universal-ctags)",
                bin.display()
            ))
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    // `Universal Ctags 5.9.0(p5.9.20210829.0), Copyright (C) …`: up to the comma.
    let first = text.lines().next().unwrap_or_default();
    let first = first
        .split(',')
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    if !first.starts_with("Universal Ctags") {
        return Err(missing(format!(
            "`{}` is not universal-ctags (it says {first:?}): the symbol eval needs its JSON \
             output (apt-get install universal-ctags)",
            bin.display()
        )));
    }
    let features = Command::new(bin)
        .arg("--list-features")
        .stdin(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !features
        .lines()
        .any(|l| l.split_whitespace().next() == Some("json"))
    {
        return Err(missing(format!(
            "`{}` was built without JSON output (no `json` in --list-features)",
            bin.display()
        )));
    }
    Ok(first)
}

/// Runs ctags over `repo` and keeps the definitions `symbols.py` keeps.
pub fn read_oracle(bin: &Path, repo: &Path) -> anyhow::Result<Oracle> {
    let out = Command::new(bin)
        .args(CTAGS_ARGS)
        .current_dir(repo)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .with_context(|| format!("running {} in {}", bin.display(), repo.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let filters = Filters::new()?;
    let mut generated: HashMap<String, bool> = HashMap::new();
    let mut tags = Vec::new();
    let mut raw_tags = 0;
    // Implementation files with tags, for what a header is written in.
    let mut sources: std::collections::HashSet<String> = std::collections::HashSet::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["_type"] != "tag" {
            continue;
        }
        raw_tags += 1;
        let (Some(name), Some(path), Some(line)) =
            (v["name"].as_str(), v["path"].as_str(), v["line"].as_u64())
        else {
            continue;
        };
        let path = path.strip_prefix("./").unwrap_or(path);
        if !sources.contains(path) && filters.is_impl(path) && !filters.vendored(path) {
            sources.insert(path.to_string());
        }
        let kind = v["kind"].as_str().unwrap_or_default();
        if !KINDS.contains(&kind) {
            continue;
        }
        let scope = v["scope"].as_str().filter(|s| !s.is_empty());
        let keep = filters.is_impl(path)
            && name.chars().count() >= 5
            && !SKIP.contains(&name)
            && is_identifier(name)
            && !filters.vendored(path)
            && !*generated
                .entry(path.to_string())
                .or_insert_with(|| filters.generated(&repo.join(path)))
            && !filters.test_scope(scope.unwrap_or_default());
        if keep {
            tags.push(OracleTag {
                name: name.to_string(),
                path: path.to_string(),
                line,
                kind: kind.to_string(),
                scope: scope.map(str::to_string),
            });
        }
    }
    if raw_tags == 0 && !out.status.success() {
        anyhow::bail!(
            "{} failed in {} ({})",
            bin.display(),
            repo.display(),
            out.status
        );
    }
    let count = |exts: &[&str]| {
        sources
            .iter()
            .filter(|p| {
                let lower = p.to_ascii_lowercase();
                exts.iter().any(|e| lower.ends_with(e))
            })
            .count()
    };
    Ok(Oracle {
        tags,
        raw_tags,
        has_cpp_sources: count(&[".cc", ".cpp", ".cxx"]) > count(&[".c"]),
    })
}

/// Python's `str.isidentifier()`: a letter or `_`, then letters, digits or `_` (Unicode
/// letters and digits standing in for XID_Start / XID_Continue).
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
        && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// `symbols.py`'s and `evalcommon.py`'s regular expressions, compiled once per repository.
struct Filters {
    nonimpl_dir: Regex,
    nonimpl_base: Regex,
    vendored: Regex,
    generated: Regex,
    test_scope: Regex,
}

/// evalcommon's `CODE_EXTS`.
const CODE_EXTS: &[&str] = &[
    ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".py", ".go", ".rs", ".java", ".c", ".h", ".cc",
    ".cpp", ".hpp", ".cxx", ".cs", ".rb", ".php",
];

impl Filters {
    fn new() -> anyhow::Result<Filters> {
        let re = |p: &str| Regex::new(p).with_context(|| format!("the pattern {p}"));
        Ok(Filters {
            nonimpl_dir: re(concat!(
                r"(?i)^(__tests?__|tests?|testing|testdata|test[-_]?utils?|e2e|specs?|",
                r"fixtures?|__fixtures__|__mocks__|docs?|documentation|examples?|",
                r"playgrounds?|.*[-_]playground|.*[-_]tests?|benchmarks?|bench)$"
            ))?,
            nonimpl_base: re(concat!(
                r"(?i)^(test_.*\.py|.*_test\.py|conftest\.py|.*_test\.go|.*_(test|spec)\.rb|",
                r"tests\.rs|.*Tests?\.(java|cs|php)|.*Spec\.java|",
                r".*\.(test|spec|bench|test-d)\.[cm]?[jt]sx?|.*\.d\.[cm]?ts)$"
            ))?,
            vendored: re(
                r"(^|/)(external|third_party|thirdparty|vendor|vendored|deps)/|\.pb\.go$|_pb2\.py$",
            )?,
            generated: re(r"(?i)code generated|do not edit|auto-?generated")?,
            test_scope: re(r"(^|[.:])tests?($|[.:])")?,
        })
    }

    fn matches(re: &Regex, text: &str) -> bool {
        re.is_match(text).unwrap_or(false)
    }

    /// evalcommon's `is_impl`: a code file outside tests, docs, examples, fixtures,
    /// playgrounds and benchmarks, and not a test or declaration file by its name.
    fn is_impl(&self, path: &str) -> bool {
        let lower = path.to_lowercase();
        if !CODE_EXTS.iter().any(|e| lower.ends_with(e)) {
            return false;
        }
        let parts: Vec<&str> = path.split('/').collect();
        let Some((base, dirs)) = parts.split_last() else {
            return false;
        };
        !Self::matches(&self.nonimpl_base, base)
            && !dirs.iter().any(|d| Self::matches(&self.nonimpl_dir, d))
    }

    fn vendored(&self, path: &str) -> bool {
        Self::matches(&self.vendored, path)
    }

    /// A scope inside tests (`tests`, `foo::tests`, `Foo.test`).
    fn test_scope(&self, scope: &str) -> bool {
        Self::matches(&self.test_scope, scope)
    }

    /// Whether the first five lines of the file say a generator wrote it. An unreadable file
    /// was not.
    fn generated(&self, file: &Path) -> bool {
        let mut head = Vec::new();
        let read = std::fs::File::open(file)
            .and_then(|f| f.take(GENERATED_HEAD_BYTES).read_to_end(&mut head));
        if read.is_err() {
            return false;
        }
        let text = String::from_utf8_lossy(&head);
        Self::matches(&self.generated, first_lines(&text, 5))
    }
}

/// The first `n` lines of `text` with Python's universal newlines (`\n`, `\r\n` or `\r`
/// ends a line).
fn first_lines(text: &str, n: usize) -> &str {
    let bytes = text.as_bytes();
    let mut seen = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => seen += 1,
            b'\r' => {
                if bytes.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                seen += 1;
            }
            _ => {}
        }
        i += 1;
        if seen == n {
            return &text[..i];
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_impl_is_evalcommons() {
        // Each expected value is what evalcommon.is_impl returns for the path.
        let f = Filters::new().unwrap();
        for (path, want) in [
            ("src/routing/mod.rs", true),
            ("src/tests.rs", false),
            ("tests/foo.rs", false),
            ("pkg/foo_test.go", false),
            ("lib/jekyll/site.rb", true),
            ("spec/site_spec.rb", false),
            // `.*[-_]tests?` wants a dash or underscore: a dotted project name is code.
            ("src/Foo.Tests/Bar.cs", true),
            ("src/FooTest.java", false),
            ("packages/vite/src/node/index.ts", true),
            ("packages/vite/src/types.d.ts", false),
            ("packages/vite-playground/x.ts", false),
            ("Docs/x.py", false),
            ("include/fmt/core.h", true),
            ("include/fmt/core.hh", false),
            ("README.md", false),
            // The engine's own rule also leaves out test-data; evalcommon's does not.
            ("mypy/test-data/unit/x.py", true),
        ] {
            assert_eq!(f.is_impl(path), want, "{path}");
        }
    }

    #[test]
    fn vendored_and_test_scopes() {
        let f = Filters::new().unwrap();
        assert!(f.vendored("third_party/zlib/inflate.c"));
        assert!(f.vendored("api/foo.pb.go"));
        assert!(!f.vendored("src/vendorize.go"));
        assert!(f.test_scope("tests"));
        assert!(f.test_scope("axum::routing::tests"));
        assert!(f.test_scope("Foo.test.bar"));
        assert!(!f.test_scope("Contest"));
        assert!(!f.test_scope("tests_helper"));
    }

    #[test]
    fn identifiers_are_pythons() {
        assert!(is_identifier("_private"));
        assert!(is_identifier("getRoute2"));
        assert!(is_identifier("naïve"));
        assert!(!is_identifier("2fast"));
        assert!(!is_identifier("$scope"));
        assert!(!is_identifier("operator=="));
        assert!(!is_identifier(""));
    }

    #[test]
    fn first_lines_use_universal_newlines() {
        assert_eq!(first_lines("a\nb\r\nc\rd\ne\nf\n", 5), "a\nb\r\nc\rd\ne\n");
        assert_eq!(first_lines("a\nb", 5), "a\nb");
    }
}
