//! The symbol eval's queries, drawn from the oracle's definitions as `symbols.py` draws them:
//! names defined once (typed bare and as "where is X defined"), and definitions whose name
//! has several, each in its own named scope (typed `Scope.name` or `Scope::name`). One
//! `PyRandom` per repository shuffles both lists in that order, so a seed gives the same
//! queries as `symbols.py --seed`. Pure computation, on the caller's thread.

use std::collections::BTreeMap;

use serde::Serialize;

use super::oracle::OracleTag;
use super::pyrandom::PyRandom;

/// The three query sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QuerySet {
    /// `name`, for a name defined once in implementation code.
    Bare,
    /// `where is name defined`, the same names.
    Phrase,
    /// `Scope<sep>name`, for a name defined two or more times, each in its own scope.
    Qualified,
}

impl QuerySet {
    pub const ALL: [QuerySet; 3] = [QuerySet::Bare, QuerySet::Phrase, QuerySet::Qualified];

    pub fn name(self) -> &'static str {
        match self {
            QuerySet::Bare => "bare",
            QuerySet::Phrase => "phrase",
            QuerySet::Qualified => "qualified",
        }
    }
}

/// One query and the definition that answers it.
#[derive(Debug, Clone)]
pub struct SymbolQuery {
    pub set: QuerySet,
    pub text: String,
    pub tag: OracleTag,
}

/// The queries of one repository, and how many names each set was drawn from.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Bare and phrase queries in turn for each unique name, then the qualified ones.
    pub queries: Vec<SymbolQuery>,
    pub unique_names: usize,
    pub qualified_definitions: usize,
}

/// At most `n` names per set, shuffled with `seed` (`symbols.py --n --seed`).
pub fn sample(tags: &[OracleTag], n: usize, seed: u64) -> Sample {
    // Names sorted (Python sorts by code point, as `str`'s `Ord` does), each with its
    // definitions in the oracle's order.
    let mut by_name: BTreeMap<&str, Vec<&OracleTag>> = BTreeMap::new();
    for t in tags {
        by_name.entry(t.name.as_str()).or_default().push(t);
    }
    let mut rnd = PyRandom::new(seed);
    let mut unique: Vec<&str> = by_name
        .iter()
        .filter(|(_, ts)| ts.len() == 1)
        .map(|(name, _)| *name)
        .collect();
    rnd.shuffle(&mut unique);
    let mut qualified: Vec<&OracleTag> = Vec::new();
    for ts in by_name.values() {
        let scopes: Vec<Option<&str>> = ts.iter().map(|t| t.scope.as_deref()).collect();
        let distinct: std::collections::BTreeSet<Option<&str>> = scopes.iter().copied().collect();
        let usable = ts.len() >= 2
            && scopes.iter().all(Option::is_some)
            && distinct.len() == scopes.len()
            && !scopes.iter().flatten().any(|s| {
                let lower = s.to_lowercase();
                lower.contains("anon") || lower.contains("__")
            });
        if usable {
            qualified.extend(ts.iter().copied());
        }
    }
    rnd.shuffle(&mut qualified);
    let mut queries = Vec::new();
    for name in unique.iter().take(n) {
        let Some(tag) = by_name.get(name).and_then(|ts| ts.first()) else {
            continue;
        };
        for (set, text) in [
            (QuerySet::Bare, (*name).to_string()),
            (QuerySet::Phrase, format!("where is {name} defined")),
        ] {
            queries.push(SymbolQuery {
                set,
                text,
                tag: (*tag).clone(),
            });
        }
    }
    for tag in qualified.iter().take(n) {
        let scope = tag.scope.as_deref().unwrap_or_default();
        queries.push(SymbolQuery {
            set: QuerySet::Qualified,
            text: format!("{}{}{}", last_scope(scope), separator(&tag.path), tag.name),
            tag: (*tag).clone(),
        });
    }
    Sample {
        queries,
        unique_names: unique.len(),
        qualified_definitions: qualified.len(),
    }
}

/// The innermost scope: `re.split(r"[.:\\/#]+", scope)[-1]` (`axum::routing::Router` →
/// `Router`; empty when the scope ends with a separator).
fn last_scope(scope: &str) -> &str {
    scope
        .rsplit(['.', ':', '\\', '/', '#'])
        .next()
        .unwrap_or_default()
}

/// How the path's language joins a scope and a member (`symbols.py`'s `SEP`: `::` for Rust,
/// C++, PHP and Ruby by extension, else `.`).
fn separator(path: &str) -> &'static str {
    match extension(path) {
        ".rs" | ".cpp" | ".cc" | ".hpp" | ".h" | ".php" | ".rb" => "::",
        _ => ".",
    }
}

/// `os.path.splitext(path)[1]`: from the last dot of the file name, unless only dots come
/// before it there (`.bashrc` has none).
fn extension(path: &str) -> &str {
    let base_start = path.rfind('/').map_or(0, |i| i + 1);
    let base = &path[base_start..];
    match base.rfind('.') {
        Some(dot) if base[..dot].chars().any(|c| c != '.') => &base[dot..],
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(name: &str, path: &str, scope: Option<&str>) -> OracleTag {
        OracleTag {
            name: name.into(),
            path: path.into(),
            line: 1,
            kind: "function".into(),
            scope: scope.map(Into::into),
        }
    }

    #[test]
    fn scopes_and_separators_are_symbols_pys() {
        assert_eq!(last_scope("axum::routing::Router"), "Router");
        assert_eq!(last_scope("Jekyll::Site#render"), "render");
        assert_eq!(last_scope("a.b/c\\D"), "D");
        assert_eq!(last_scope("Foo::"), "");
        assert_eq!(separator("src/lib.rs"), "::");
        assert_eq!(separator("include/fmt/core.h"), "::");
        assert_eq!(separator("src/jv.c"), ".");
        assert_eq!(separator("lib/site.rb"), "::");
        assert_eq!(separator("a/.rs"), ".");
        assert_eq!(extension("a.b/c"), "");
        assert_eq!(extension("x/..d.ts"), ".ts");
    }

    #[test]
    fn unique_names_give_two_queries_and_shared_names_a_qualified_one_each() {
        let tags = vec![
            tag("parseHeader", "src/a.ts", None),
            tag("insert", "src/b.rs", Some("EventFlags")),
            tag("insert", "src/c.rs", Some("Router")),
            // Two definitions in one scope: not a qualified query.
            tag("render", "src/d.py", Some("Page")),
            tag("render", "src/e.py", Some("Page")),
        ];
        let s = sample(&tags, 60, 1);
        assert_eq!(s.unique_names, 1);
        assert_eq!(s.qualified_definitions, 2);
        let texts: Vec<&str> = s.queries.iter().map(|q| q.text.as_str()).collect();
        assert_eq!(texts[..2], ["parseHeader", "where is parseHeader defined"]);
        let mut qualified = texts[2..].to_vec();
        qualified.sort_unstable();
        assert_eq!(qualified, ["EventFlags::insert", "Router::insert"]);
    }
}
