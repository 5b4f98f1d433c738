//! Language table: the tree-sitter grammar of each `Lang` and its tags query.
//!
//! Queries live in `assets/queries/<lang>-tags.scm` (embedded with `include_str!`); TSX is the
//! TypeScript query plus `tsx-tags.scm` (JSX). Each query is compiled once per process, on
//! whichever rayon worker asks first, and shared read-only afterwards (`Query` is `Sync`).

use std::sync::OnceLock;

use tree_sitter::{Language, Query};

use super::error::EngineError;
use super::model::Lang;
use super::tags;

const TYPESCRIPT_TAGS: &str = include_str!("../../assets/queries/typescript-tags.scm");
const TSX_TAGS: &str = concat!(
    include_str!("../../assets/queries/typescript-tags.scm"),
    "\n",
    include_str!("../../assets/queries/tsx-tags.scm"),
);
const JAVASCRIPT_TAGS: &str = include_str!("../../assets/queries/javascript-tags.scm");
const PYTHON_TAGS: &str = include_str!("../../assets/queries/python-tags.scm");
const GO_TAGS: &str = include_str!("../../assets/queries/go-tags.scm");

/// The tree-sitter grammar for a language (cheap: a reference-counted handle).
pub fn grammar(lang: Lang) -> Language {
    match lang {
        Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
        Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Lang::Python => tree_sitter_python::LANGUAGE.into(),
        Lang::Go => tree_sitter_go::LANGUAGE.into(),
    }
}

/// The source text of a language's tags query.
pub fn tags_query_source(lang: Lang) -> &'static str {
    match lang {
        Lang::TypeScript => TYPESCRIPT_TAGS,
        Lang::Tsx => TSX_TAGS,
        Lang::JavaScript => JAVASCRIPT_TAGS,
        Lang::Python => PYTHON_TAGS,
        Lang::Go => GO_TAGS,
    }
}

fn slot(lang: Lang) -> usize {
    match lang {
        Lang::TypeScript => 0,
        Lang::Tsx => 1,
        Lang::JavaScript => 2,
        Lang::Python => 3,
        Lang::Go => 4,
    }
}

/// The compiled tags query of a language. Compiled on first use and cached for the life of the
/// process (aider recompiles per file, which costs tens of milliseconds each time); a failure is
/// cached too, so a broken query is reported on every call without recompiling.
pub fn tags_query(lang: Lang) -> Result<&'static Query, EngineError> {
    static QUERIES: [OnceLock<Result<Query, String>>; 5] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    QUERIES[slot(lang)]
        .get_or_init(|| compile(lang))
        .as_ref()
        .map_err(|message| EngineError::Query {
            lang: lang.name(),
            message: message.clone(),
        })
}

fn compile(lang: Lang) -> Result<Query, String> {
    let query = Query::new(&grammar(lang), tags_query_source(lang)).map_err(|e| {
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
        .find(|name| tags::capture_role(name).is_none())
    {
        return Err(format!("unknown capture name @{bad}"));
    }
    Ok(query)
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
        let a = tags_query(Lang::Go).unwrap() as *const Query;
        let b = tags_query(Lang::Go).unwrap() as *const Query;
        assert_eq!(a, b);
    }

    #[test]
    fn tsx_query_extends_typescript() {
        let ts = tags_query(Lang::TypeScript).unwrap().pattern_count();
        let tsx = tags_query(Lang::Tsx).unwrap().pattern_count();
        assert!(tsx > ts);
    }

    #[test]
    fn grammars_accept_their_language() {
        for lang in Lang::ALL {
            let mut parser = tree_sitter::Parser::new();
            assert!(parser.set_language(&grammar(lang)).is_ok(), "{lang:?}");
        }
    }
}
