//! The scope of a request: `--include` / `--exclude` patterns (gitignore syntax, relative to
//! the repository root) and `--lang` families. A scope narrows what a map ranks and shows and
//! what search returns; it never changes what the index parsed or what the graph learned
//! from (an out-of-scope file still passes rank along its edges), so ranks stay those of the
//! whole repository, personalized to the scope.
//!
//! Pure; compiled per request on the thread that asks (engine worker, CLI main thread).

use std::path::Path;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

use crate::engine::base::model::Lang;

/// A scope as the user wrote it (flags, config keys, MCP arguments).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeSpec {
    /// Only paths matching one of these (gitignore syntax: `web/ui/`, `*.pb.go`, `!keep.go`).
    pub include: Vec<String>,
    /// Leave out paths matching one of these.
    pub exclude: Vec<String>,
    /// Only these language families (`go`, `ts`, `rust`, …; comma-separated lists allowed).
    pub langs: Vec<String>,
}

impl ScopeSpec {
    pub fn is_empty(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty() && self.langs.is_empty()
    }
}

/// A scope pattern or language the user got wrong (`INVALID_ARGUMENT` at the front doors).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    #[error("invalid path glob {glob:?}: {message}")]
    BadGlob { glob: String, message: String },
    #[error("unknown language {0:?} (expected {list})", list = lang_list())]
    UnknownLang(String),
}

/// A compiled `ScopeSpec`.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    include: Option<Gitignore>,
    exclude: Option<Gitignore>,
    families: Vec<&'static str>,
}

impl Scope {
    /// Compiles the patterns and language names; the first bad one is the error.
    pub fn new(spec: &ScopeSpec) -> Result<Scope, ScopeError> {
        let mut families = Vec::new();
        for l in &spec.langs {
            for part in l.split(',').filter(|p| !p.trim().is_empty()) {
                let fam = lang_family(part).ok_or_else(|| ScopeError::UnknownLang(part.into()))?;
                if !families.contains(&fam) {
                    families.push(fam);
                }
            }
        }
        Ok(Scope {
            include: patterns(&spec.include)?,
            exclude: patterns(&spec.exclude)?,
            families,
        })
    }

    /// Whether the scope lets everything through.
    pub fn is_empty(&self) -> bool {
        self.include.is_none() && self.exclude.is_none() && self.families.is_empty()
    }

    /// Whether the file at `path` (relative, `/`-separated) in `lang` (`None`: prose or
    /// config) is in scope. A language filter leaves out every file without a language.
    pub fn allows(&self, path: &str, lang: Option<Lang>) -> bool {
        if !self.families.is_empty() {
            match lang {
                Some(l) if self.families.contains(&l.family()) => {}
                _ => return false,
            }
        }
        let matches = |g: &Gitignore| {
            matches!(
                g.matched_path_or_any_parents(Path::new(path), false),
                Match::Ignore(_)
            )
        };
        if self.include.as_ref().is_some_and(|g| !matches(g)) {
            return false;
        }
        !self.exclude.as_ref().is_some_and(matches)
    }
}

/// One matcher for a list of gitignore-syntax patterns, `None` for an empty list.
fn patterns(list: &[String]) -> Result<Option<Gitignore>, ScopeError> {
    let mut builder = GitignoreBuilder::new("");
    // git reads an unclosed `[` literally; a scope flag with one is a typo to report.
    builder.allow_unclosed_class(false);
    let mut any = false;
    for raw in list {
        let pattern = raw.trim();
        if pattern.is_empty() {
            continue;
        }
        // `./src` means `src` at the root, as the user meant it.
        let pattern = match pattern.strip_prefix("./") {
            Some(rest) => format!("/{rest}"),
            None => pattern.to_string(),
        };
        builder
            .add_line(None, &pattern)
            .map_err(|e| ScopeError::BadGlob {
                glob: raw.clone(),
                message: glob_message(&e),
            })?;
        any = true;
    }
    if !any {
        return Ok(None);
    }
    let built = builder.build().map_err(|e| ScopeError::BadGlob {
        glob: list.join(","),
        message: glob_message(&e),
    })?;
    Ok(Some(built))
}

/// The reason of a glob error, without the pattern the message already names.
fn glob_message(e: &ignore::Error) -> String {
    match e {
        ignore::Error::Glob { err, .. } => err.clone(),
        other => other.to_string(),
    }
}

/// The family (`Lang::family`) a `--lang` name stands for: short names, full names and
/// extensions (the language table's).
pub fn lang_family(name: &str) -> Option<&'static str> {
    Lang::family_named(name)
}

/// A `--lang` option's help: `LEAD: ts,js,py,…,tf.`, from the language table.
pub fn lang_help(lead: &str) -> String {
    format!("{lead}: {}.", Lang::families().join(","))
}

/// The `--lang` families as prose: `ts, js, …, ex or tf`.
pub fn lang_list() -> String {
    let families = Lang::families();
    match families.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => families.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(include: &[&str], exclude: &[&str], langs: &[&str]) -> Scope {
        let own = |l: &[&str]| l.iter().map(|s| (*s).to_string()).collect();
        Scope::new(&ScopeSpec {
            include: own(include),
            exclude: own(exclude),
            langs: own(langs),
        })
        .unwrap()
    }

    #[test]
    fn gitignore_semantics_relative_to_the_root() {
        let s = scope(&[], &["web/ui"], &[]);
        assert!(!s.allows("web/ui/src/App.tsx", Some(Lang::Tsx)));
        assert!(s.allows("web/api/server.go", Some(Lang::Go)));
        // A pattern with a slash is anchored; without one it matches at any depth.
        assert!(s.allows("vendor/web/ui/x.go", Some(Lang::Go)));
        let s = scope(&[], &["*_test.go", "testdata/"], &[]);
        assert!(!s.allows("tsdb/head_test.go", Some(Lang::Go)));
        assert!(!s.allows("a/testdata/b/c.go", Some(Lang::Go)));
        assert!(s.allows("tsdb/head.go", Some(Lang::Go)));
        // Includes: only what they match; `!` re-excludes within the list.
        let s = scope(&["cmd/", "scrape/", "!scrape/testdata/"], &[], &[]);
        assert!(s.allows("cmd/prometheus/main.go", Some(Lang::Go)));
        assert!(s.allows("scrape/scrape.go", Some(Lang::Go)));
        assert!(!s.allows("scrape/testdata/x.go", Some(Lang::Go)));
        assert!(!s.allows("web/web.go", Some(Lang::Go)));
        // `./x` is `x` at the root.
        let s = scope(&["./src"], &[], &[]);
        assert!(s.allows("src/a.rs", Some(Lang::Rust)));
        assert!(!s.allows("lib/src/a.rs", Some(Lang::Rust)));
        // Include and exclude together: both apply.
        let s = scope(&["src/"], &["*.gen.ts"], &[]);
        assert!(s.allows("src/a.ts", Some(Lang::TypeScript)));
        assert!(!s.allows("src/a.gen.ts", Some(Lang::TypeScript)));
        assert!(scope(&[], &[], &[]).is_empty());
        assert!(scope(&[""], &["  "], &[]).is_empty());
    }

    #[test]
    fn languages_by_family() {
        let s = scope(&[], &[], &["go,rust"]);
        assert!(s.allows("a.go", Some(Lang::Go)));
        assert!(s.allows("a.rs", Some(Lang::Rust)));
        assert!(!s.allows("a.ts", Some(Lang::TypeScript)));
        assert!(!s.allows("README.md", None));
        let s = scope(&[], &[], &["c"]);
        assert!(s.allows("a.h", Some(Lang::Cpp)) && s.allows("a.c", Some(Lang::C)));
        for name in ["TS", "python", "c#", "C++", "rb", "php", "java"] {
            assert!(lang_family(name).is_some(), "{name}");
        }
    }

    #[test]
    fn bad_patterns_and_languages_are_errors() {
        let bad = Scope::new(&ScopeSpec {
            include: vec!["src/[".into()],
            ..ScopeSpec::default()
        });
        assert!(matches!(bad, Err(ScopeError::BadGlob { ref glob, .. }) if glob == "src/["));
        let bad = Scope::new(&ScopeSpec {
            exclude: vec!["a/**b{".into()],
            ..ScopeSpec::default()
        });
        assert!(matches!(bad, Err(ScopeError::BadGlob { .. })), "{bad:?}");
        let bad = Scope::new(&ScopeSpec {
            langs: vec!["go,cobol".into()],
            ..ScopeSpec::default()
        });
        assert_eq!(bad.unwrap_err(), ScopeError::UnknownLang("cobol".into()));
    }
}
