//! Language table: the tree-sitter grammar of each `Lang` and its tags query.
//!
//! Queries live in `assets/queries/<lang>-tags.scm` (embedded with `include_str!`); TSX uses the
//! TypeScript query (its JSX references are found by the reference walk, not by a query). Each
//! query is compiled once per process, on whichever rayon worker asks first, and shared
//! read-only afterwards (`Query` is `Sync`). The queries hold definitions and imports only:
//! a query pass over every node of a file costs more than parsing it, so the extractor runs
//! the query only on nodes whose kind starts one of its patterns (`QueryRoots`).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

use tree_sitter::{Language, Query};

use crate::engine::base::error::EngineError;
use crate::engine::base::model::Lang;
use crate::engine::ingest::captures;

const TYPESCRIPT_TAGS: &str = include_str!("../../../assets/queries/typescript-tags.scm");
const JAVASCRIPT_TAGS: &str = include_str!("../../../assets/queries/javascript-tags.scm");
const PYTHON_TAGS: &str = include_str!("../../../assets/queries/python-tags.scm");
const GO_TAGS: &str = include_str!("../../../assets/queries/go-tags.scm");
const RUST_TAGS: &str = include_str!("../../../assets/queries/rust-tags.scm");
const JAVA_TAGS: &str = include_str!("../../../assets/queries/java-tags.scm");
const C_TAGS: &str = include_str!("../../../assets/queries/c-tags.scm");
const CPP_TAGS: &str = include_str!("../../../assets/queries/cpp-tags.scm");
const CSHARP_TAGS: &str = include_str!("../../../assets/queries/csharp-tags.scm");
const RUBY_TAGS: &str = include_str!("../../../assets/queries/ruby-tags.scm");
const PHP_TAGS: &str = include_str!("../../../assets/queries/php-tags.scm");
const KOTLIN_TAGS: &str = include_str!("../../../assets/queries/kotlin-tags.scm");
const SWIFT_TAGS: &str = include_str!("../../../assets/queries/swift-tags.scm");
const BASH_TAGS: &str = include_str!("../../../assets/queries/bash-tags.scm");
const SCALA_TAGS: &str = include_str!("../../../assets/queries/scala-tags.scm");
const LUA_TAGS: &str = include_str!("../../../assets/queries/lua-tags.scm");
const ELIXIR_TAGS: &str = include_str!("../../../assets/queries/elixir-tags.scm");
const HCL_TAGS: &str = include_str!("../../../assets/queries/hcl-tags.scm");

/// Source files mapscope has no grammar for, by file extension (lowercase): the walk lists
/// them (`stats`), and the map shows each by its path alone, ranked by the code that names
/// it and by the query (`rank::pagerank::rank_path_only`). What counts as a source file is
/// kept conservative: text people write as code, whose file name other code mentions
/// (programming languages; schema and query languages: `.proto`, `.thrift`, `.graphql`,
/// `.sql`; build scripts: `.mk`, `.cmake`, and the names in `UNSUPPORTED_NAMES`). Markup,
/// styles, templates, data, config, prose, lockfiles, test expectations, images and binaries
/// are not listed: a map line naming them says little about the code, and most repositories
/// hold many of them.
const UNSUPPORTED: &[(&str, &str)] = &[
    ("asm", "assembly"),
    ("clj", "clojure"),
    ("cljc", "clojure"),
    ("cljs", "clojure"),
    ("cmake", "cmake"),
    ("cr", "crystal"),
    ("cu", "cuda"),
    ("cuh", "cuda"),
    ("dart", "dart"),
    ("elm", "elm"),
    ("erl", "erlang"),
    ("f90", "fortran"),
    ("fs", "f#"),
    ("fsx", "f#"),
    ("gd", "gdscript"),
    ("gql", "graphql"),
    ("graphql", "graphql"),
    ("groovy", "groovy"),
    ("hrl", "erlang"),
    ("hs", "haskell"),
    ("jl", "julia"),
    ("jq", "jq"),
    ("m", "objective-c"),
    ("mk", "make"),
    ("ml", "ocaml"),
    ("mli", "ocaml"),
    ("mm", "objective-c"),
    ("nim", "nim"),
    ("pl", "perl"),
    ("pm", "perl"),
    ("proto", "protobuf"),
    ("ps1", "powershell"),
    ("r", "r"),
    ("s", "assembly"),
    ("sol", "solidity"),
    ("sql", "sql"),
    ("tcl", "tcl"),
    ("thrift", "thrift"),
    ("vb", "visual basic"),
    ("zig", "zig"),
    ("zsh", "shell"),
];

/// Build scripts known by their whole file name (lowercase), which have no extension.
const UNSUPPORTED_NAMES: &[(&str, &str)] = &[
    ("dockerfile", "dockerfile"),
    ("gnumakefile", "make"),
    ("makefile", "make"),
];

/// The language of a source file mapscope has no grammar for (`main.dart` → `dart`,
/// `Makefile` → `make`), by its extension or its whole name; `None` for supported languages
/// and for anything that is not source (see `UNSUPPORTED`).
pub fn unsupported_language(path: &str) -> Option<&'static str> {
    // Called on every word of every file that looks like a file name (`ingest::mentions`):
    // no allocation.
    let name = path.rsplit('/').next().unwrap_or(path);
    if let Some(&(_, language)) = UNSUPPORTED_NAMES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
    {
        return Some(language);
    }
    let ext = name.rsplit_once('.')?.1.as_bytes();
    let mut lower = [0u8; 8];
    let lower = lower.get_mut(..ext.len())?;
    for (l, b) in lower.iter_mut().zip(ext) {
        *l = b.to_ascii_lowercase();
    }
    UNSUPPORTED
        .binary_search_by(|(e, _)| e.as_bytes().cmp(lower))
        .ok()
        .map(|i| UNSUPPORTED[i].1)
}

/// How `stats` groups a file of `unsupported_language`: its extension (`.sql`), or its
/// name for a file known by name (`Makefile`).
pub fn unsupported_group(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    if UNSUPPORTED_NAMES.iter().any(|(n, _)| *n == lower) {
        return name.to_string();
    }
    lower
        .rsplit_once('.')
        .map_or(String::new(), |(_, e)| format!(".{e}"))
}

/// The names of the supported languages, for messages: their display names in lowercase
/// (`c++`, `c#`, `shell`; TSX is TypeScript's).
pub fn supported_language_names() -> Vec<String> {
    Lang::ALL
        .iter()
        .filter(|&&lang| lang != Lang::Tsx)
        .map(|lang| lang.spec().display.to_lowercase())
        .collect()
}

/// A language's grammar and tags query: its row of the table below.
struct Grammar {
    /// Checked against `Lang::ALL` by the tests.
    #[cfg_attr(not(test), allow(dead_code))]
    lang: Lang,
    language: fn() -> Language,
    query: &'static str,
}

/// The grammar and tags query of each language, in `Lang::ALL` order (the facts about a
/// language are its row of `model::LANGS`).
const GRAMMARS: [Grammar; Lang::ALL.len()] = [
    Grammar {
        lang: Lang::TypeScript,
        language: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        query: TYPESCRIPT_TAGS,
    },
    // TSX's own grammar, TypeScript's query (its JSX references are the reference walk's).
    Grammar {
        lang: Lang::Tsx,
        language: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        query: TYPESCRIPT_TAGS,
    },
    Grammar {
        lang: Lang::JavaScript,
        language: || tree_sitter_javascript::LANGUAGE.into(),
        query: JAVASCRIPT_TAGS,
    },
    Grammar {
        lang: Lang::Python,
        language: || tree_sitter_python::LANGUAGE.into(),
        query: PYTHON_TAGS,
    },
    Grammar {
        lang: Lang::Go,
        language: || tree_sitter_go::LANGUAGE.into(),
        query: GO_TAGS,
    },
    Grammar {
        lang: Lang::Rust,
        language: || tree_sitter_rust::LANGUAGE.into(),
        query: RUST_TAGS,
    },
    Grammar {
        lang: Lang::Java,
        language: || tree_sitter_java::LANGUAGE.into(),
        query: JAVA_TAGS,
    },
    Grammar {
        lang: Lang::C,
        language: || tree_sitter_c::LANGUAGE.into(),
        query: C_TAGS,
    },
    Grammar {
        lang: Lang::Cpp,
        language: || tree_sitter_cpp::LANGUAGE.into(),
        query: CPP_TAGS,
    },
    Grammar {
        lang: Lang::CSharp,
        language: || tree_sitter_c_sharp::LANGUAGE.into(),
        query: CSHARP_TAGS,
    },
    Grammar {
        lang: Lang::Ruby,
        language: || tree_sitter_ruby::LANGUAGE.into(),
        query: RUBY_TAGS,
    },
    // The PHP grammar proper (`LANGUAGE_PHP_ONLY` is for PHP embedded without `<?php`).
    Grammar {
        lang: Lang::Php,
        language: || tree_sitter_php::LANGUAGE_PHP.into(),
        query: PHP_TAGS,
    },
    Grammar {
        lang: Lang::Kotlin,
        language: || tree_sitter_kotlin_ng::LANGUAGE.into(),
        query: KOTLIN_TAGS,
    },
    Grammar {
        lang: Lang::Swift,
        language: || tree_sitter_swift::LANGUAGE.into(),
        query: SWIFT_TAGS,
    },
    Grammar {
        lang: Lang::Bash,
        language: || tree_sitter_bash::LANGUAGE.into(),
        query: BASH_TAGS,
    },
    Grammar {
        lang: Lang::Scala,
        language: || tree_sitter_scala::LANGUAGE.into(),
        query: SCALA_TAGS,
    },
    Grammar {
        lang: Lang::Lua,
        language: || tree_sitter_lua::LANGUAGE.into(),
        query: LUA_TAGS,
    },
    Grammar {
        lang: Lang::Elixir,
        language: || tree_sitter_elixir::LANGUAGE.into(),
        query: ELIXIR_TAGS,
    },
    Grammar {
        lang: Lang::Hcl,
        language: || tree_sitter_hcl::LANGUAGE.into(),
        query: HCL_TAGS,
    },
    // A component's scripts are read as TypeScript or JavaScript (`ingest::component`), by
    // their grammars and queries: these rows are never parsed with.
    Grammar {
        lang: Lang::Vue,
        language: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        query: TYPESCRIPT_TAGS,
    },
    Grammar {
        lang: Lang::Svelte,
        language: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        query: TYPESCRIPT_TAGS,
    },
];

/// The tree-sitter grammar for a language (cheap: a reference-counted handle).
pub fn grammar(lang: Lang) -> Language {
    (GRAMMARS[slot(lang)].language)()
}

/// The source text of a language's tags query.
pub fn tags_query_source(lang: Lang) -> &'static str {
    GRAMMARS[slot(lang)].query
}

/// A language's position in `Lang::ALL`: the index of its per-language tables.
pub(crate) fn slot(lang: Lang) -> usize {
    lang as usize
}

/// A compiled tags query and the node kinds its patterns start with.
pub struct TagsQuery {
    pub query: Query,
    /// `roots[kind_id]` is true when some pattern starts with that node kind; `None` when a
    /// pattern starts with something else (a wildcard, an alternation), so the query must run
    /// over the whole tree.
    pub roots: Option<Vec<bool>>,
}

/// The compiled tags query of a language. Compiled on first use and cached for the life of the
/// process (aider recompiles per file, which costs tens of milliseconds each time); a failure is
/// cached too, so a broken query is reported on every call without recompiling.
pub fn tags_query(lang: Lang) -> Result<&'static Query, EngineError> {
    compiled_tags_query(lang).map(|t| &t.query)
}

/// `tags_query` with the root kinds of its patterns, compiled on first use (once per
/// process: a compiled query cannot be stored).
pub fn compiled_tags_query(lang: Lang) -> Result<&'static TagsQuery, EngineError> {
    QUERIES[slot(lang)]
        .get_or_init(|| compile(lang))
        .as_ref()
        .map_err(|message| EngineError::Query {
            lang: lang.name(),
            message: message.clone(),
        })
}

/// Each language's compiled tags query, or why it failed to compile.
static QUERIES: [OnceLock<Result<TagsQuery, String>>; Lang::ALL.len()] =
    [const { OnceLock::new() }; Lang::ALL.len()];

/// Whether `lang`'s tags query is being compiled ahead (claimed by
/// `claim_tags_query_prefetch`) and not done yet: a parse thread may then parse before it
/// waits for the query (`tags::extract_tags_or_parse`).
pub fn tags_query_compiling(lang: Lang) -> bool {
    tags_query_prefetched(lang) && QUERIES[slot(lang)].get().is_none()
}

/// Languages whose query an index build started compiling ahead (bit `slot(lang)`; see
/// `index::prefetch::QueryPrefetch`).
static PREFETCHED: AtomicU32 = AtomicU32::new(0);

/// Whether compiling `lang`'s tags query ahead was claimed already: a caller can skip
/// deciding whether to ask.
pub fn tags_query_prefetched(lang: Lang) -> bool {
    PREFETCHED.load(Ordering::Relaxed) & (1 << slot(lang)) != 0
}

/// Claims compiling `lang`'s tags query ahead of its first parse: true for the first caller
/// in the process only, who then compiles it (`compiled_tags_query`) on a worker.
pub fn claim_tags_query_prefetch(lang: Lang) -> bool {
    let bit = 1 << slot(lang);
    PREFETCHED.fetch_or(bit, Ordering::Relaxed) & bit == 0
}

fn compile(lang: Lang) -> Result<TagsQuery, String> {
    let grammar = grammar(lang);
    let source = tags_query_source(lang);
    let query = Query::new(&grammar, source).map_err(|e| {
        format!(
            "{} at line {}, column {}: {}",
            kind_name(&e.kind),
            e.row + 1,
            e.column + 1,
            e.message
        )
    })?;
    // A misspelt capture would silently produce no tags; reject it at compile time instead.
    if let Some(bad) = query
        .capture_names()
        .iter()
        .find(|name| captures::capture_role(name).is_none())
    {
        return Err(format!("unknown capture name @{bad}"));
    }
    let roots = root_kinds(&grammar, &query, source);
    Ok(TagsQuery { query, roots })
}

/// Which node kinds start a pattern, read from each pattern's source text: `(kind …)`.
fn root_kinds(grammar: &Language, query: &Query, source: &str) -> Option<Vec<bool>> {
    let mut roots = vec![false; grammar.node_kind_count()];
    for pattern in 0..query.pattern_count() {
        let text = source.get(query.start_byte_for_pattern(pattern)..)?;
        let kind = pattern_root(text)?;
        let id = grammar.id_for_node_kind(kind, true);
        // `_` and `ERROR` are not real kinds; an unknown name was rejected by `Query::new`.
        if id == 0 || kind == "_" || kind == "ERROR" {
            return None;
        }
        *roots.get_mut(usize::from(id))? = true;
    }
    Some(roots)
}

/// The node kind a pattern starts with, or `None` if it does not start with `(kind`.
fn pattern_root(text: &str) -> Option<&str> {
    let rest = text.strip_prefix('(')?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let kind = &rest[..end];
    (!kind.is_empty()).then_some(kind)
}

fn kind_name(kind: &tree_sitter::QueryErrorKind) -> &'static str {
    use tree_sitter::QueryErrorKind as K;
    match kind {
        K::Syntax => "syntax error",
        K::NodeType => "unknown node type",
        K::Field => "unknown field",
        K::Capture => "unknown capture",
        K::Predicate => "bad predicate",
        K::Structure => "impossible pattern",
        K::Language => "language error",
    }
}

/// Compile every language's query; the first failure is returned. Used by tests and at start-up
/// so a broken `.scm` file is a clear error rather than files with no tags.
pub fn check_all_queries() -> Result<(), EngineError> {
    for lang in Lang::ALL {
        tags_query(lang)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles() {
        if let Err(e) = check_all_queries() {
            panic!("{e}");
        }
    }

    #[test]
    fn query_is_compiled_once() {
        let a = std::ptr::from_ref::<Query>(tags_query(Lang::Go).unwrap());
        let b = std::ptr::from_ref::<Query>(tags_query(Lang::Go).unwrap());
        assert_eq!(a, b);
    }

    #[test]
    fn every_query_knows_its_roots() {
        for lang in Lang::ALL {
            let compiled = compiled_tags_query(lang).unwrap();
            let roots = compiled
                .roots
                .as_ref()
                .unwrap_or_else(|| panic!("{lang:?}"));
            assert!(roots.iter().any(|&r| r), "{lang:?}");
        }
        let go = compiled_tags_query(Lang::Go)
            .unwrap()
            .roots
            .as_ref()
            .unwrap();
        let g = grammar(Lang::Go);
        assert!(go[usize::from(g.id_for_node_kind("import_spec", true))]);
        assert!(go[usize::from(g.id_for_node_kind("source_file", true))]);
        assert!(!go[usize::from(g.id_for_node_kind("identifier", true))]);
    }

    #[test]
    fn pattern_roots() {
        assert_eq!(pattern_root("(class_body) @x"), Some("class_body"));
        assert_eq!(pattern_root("(a_b (c))"), Some("a_b"));
        assert_eq!(pattern_root("[(a) (b)]"), None);
        assert_eq!(pattern_root("((a) @x (#eq? @x \"y\"))"), None);
        assert_eq!(pattern_root("(_) @x"), Some("_"));
    }

    #[test]
    fn unsupported_languages_by_extension() {
        // The table is searched by binary search: it must stay sorted, without duplicates.
        assert!(UNSUPPORTED.windows(2).all(|w| w[0].0 < w[1].0));
        // `unsupported_language` lowercases an extension into 8 bytes, and
        // `mentions::file_mentions` tries a word without a `.` only at these lengths.
        assert!(UNSUPPORTED.iter().all(|(e, _)| e.len() <= 8));
        assert!(UNSUPPORTED_NAMES
            .iter()
            .all(|(n, _)| matches!(n.len(), 8 | 10 | 11)));
        assert_eq!(unsupported_language("app/lib/main.dart"), Some("dart"));
        assert_eq!(unsupported_language("scripts/x.ZSH"), Some("shell"));
        assert_eq!(unsupported_language("src/App.vue"), None);
        assert_eq!(unsupported_language("db/schema.sql"), Some("sql"));
        assert_eq!(unsupported_language("api/Makefile"), Some("make"));
        assert_eq!(unsupported_language("Dockerfile"), Some("dockerfile"));
        assert_eq!(unsupported_group("api/Makefile"), "Makefile");
        assert_eq!(unsupported_group("db/Schema.SQL"), ".sql");
        // Supported languages, prose, data and names without an extension are not listed.
        for path in [
            "a.rs",
            "a.java",
            "a.h",
            "README.md",
            "a.json",
            "Makefile.am",
            "a.css",
            "a.png",
            "yarn.lock",
        ] {
            assert_eq!(unsupported_language(path), None, "{path}");
        }
        for (ext, _) in UNSUPPORTED {
            assert!(Lang::from_path(&format!("x.{ext}")).is_none(), "{ext}");
        }
        let names = supported_language_names();
        assert_eq!(names.len(), Lang::ALL.len() - 1);
        assert!(names.iter().any(|n| n == "c++") && names.iter().any(|n| n == "typescript"));
    }

    #[test]
    fn grammar_table_is_in_lang_order() {
        for (i, row) in GRAMMARS.iter().enumerate() {
            assert_eq!(row.lang, Lang::ALL[i]);
            assert_eq!(slot(row.lang), i);
        }
    }

    #[test]
    fn grammars_accept_their_language() {
        for lang in Lang::ALL {
            let mut parser = tree_sitter::Parser::new();
            assert!(parser.set_language(&grammar(lang)).is_ok(), "{lang:?}");
        }
    }
}
