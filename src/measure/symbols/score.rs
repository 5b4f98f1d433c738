//! Scoring one look-up against the oracle, from the search document `mapscope search --json`
//! prints (`sources`, `answer`), by `symbols.py`'s rules: the rank (1–3) of the first
//! `definition` source at the oracle's file whose line range holds its line (±2), a header
//! declaration of the same name counting for a C/C++ source; whether the answer names the
//! file. Beyond `symbols.py`: whether the answer's lead names the definition itself (its
//! name as a whole word and its place). Pure computation, on the caller's thread.

use serde::Serialize;
use serde_json::Value;

use super::oracle::OracleTag;

const HEADERS: &[&str] = &[".h", ".hpp", ".hh"];
const C_SOURCES: &[&str] = &[".c", ".cc", ".cpp"];

/// How far from the oracle's line a definition's range may end (`symbols.py`: ±2).
const SLACK: u64 = 2;

/// How many sources a look-up is scored on (top-3).
const SCORED: usize = 3;

/// A source of the search document, as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub file_path: String,
    pub line_range: [u64; 2],
    pub evidence_type: String,
    pub symbol: Option<String>,
}

/// The first three sources of a search document.
pub fn top_sources(doc: &Value) -> Vec<Source> {
    let Some(sources) = doc["sources"].as_array() else {
        return Vec::new();
    };
    sources
        .iter()
        .take(SCORED)
        .map(|s| {
            let lr = &s["line_range"];
            Source {
                file_path: s["file_path"].as_str().unwrap_or_default().to_string(),
                line_range: [lr[0].as_u64().unwrap_or(0), lr[1].as_u64().unwrap_or(0)],
                evidence_type: s["evidence_type"].as_str().unwrap_or_default().to_string(),
                symbol: s["symbol"].as_str().map(str::to_string),
            }
        })
        .collect()
}

/// Whether `line` is in `range`, give or take the slack.
fn holds(range: [u64; 2], line: u64) -> bool {
    range[0].saturating_sub(SLACK) <= line && line <= range[1] + SLACK
}

fn ends_with_any(path: &str, ends: &[&str]) -> bool {
    ends.iter().any(|e| path.ends_with(e))
}

/// Whether a source is a header declaration that answers for a C/C++ definition.
fn header_stands_in(s: &Source, tag: &OracleTag) -> bool {
    ends_with_any(&tag.path, C_SOURCES)
        && ends_with_any(&s.file_path, HEADERS)
        && s.symbol.as_deref() == Some(tag.name.as_str())
}

/// The rank (1–3) of the oracle's definition among the sources (`symbols.py`'s `hit_rank`).
pub fn hit_rank(top: &[Source], tag: &OracleTag) -> Option<usize> {
    top.iter()
        .take(SCORED)
        .position(|s| {
            s.evidence_type == "definition"
                && ((s.file_path == tag.path && holds(s.line_range, tag.line))
                    || header_stands_in(s, tag))
        })
        .map(|i| i + 1)
}

/// Like `hit_rank`, but the definition must also be the one named (its symbol is the
/// oracle's name, bare or qualified: `fallback`, `Router::fallback`), not a container whose
/// range holds the line (a class standing in for its method).
pub fn named_rank(top: &[Source], tag: &OracleTag) -> Option<usize> {
    top.iter()
        .take(SCORED)
        .position(|s| {
            s.evidence_type == "definition"
                && ((s.file_path == tag.path
                    && holds(s.line_range, tag.line)
                    && s.symbol
                        .as_deref()
                        .is_some_and(|sym| symbol_is(sym, &tag.name)))
                    || header_stands_in(s, tag))
        })
        .map(|i| i + 1)
}

/// Whether a hit's symbol is `name`, bare or as the last part of a qualified name.
fn symbol_is(symbol: &str, name: &str) -> bool {
    symbol == name
        || symbol
            .strip_suffix(name)
            .and_then(|head| head.chars().next_back())
            .is_some_and(|c| !is_ident_char(c))
}

/// `symbols.py`'s `answer_names_file`: the definition's path appears in the answer.
pub fn answer_names_file(doc: &Value, tag: &OracleTag) -> bool {
    doc["answer"]
        .as_str()
        .is_some_and(|a| a.contains(tag.path.as_str()))
}

/// Whether the answer's lead (what it says before "Other matches:") names the definition:
/// its name as a whole word (not inside a longer identifier: `fallback` is not named by
/// `method_not_allowed_fallback`) and its place, `path:line` or `path:start–end` holding the
/// oracle's line (±2), or for a C/C++ source the place of a header declaration the search
/// gave among its top sources. An answer that found no definition names none.
pub fn answer_names_definition(doc: &Value, top: &[Source], tag: &OracleTag) -> bool {
    let Some(answer) = doc["answer"].as_str() else {
        return false;
    };
    let lead = answer.split(" Other matches:").next().unwrap_or_default();
    if lead.contains("No definition matched") || !names_word(lead, &tag.name) {
        return false;
    }
    let mut places: Vec<(&str, [u64; 2])> = vec![(tag.path.as_str(), [tag.line, tag.line])];
    for s in top {
        if s.evidence_type == "definition" && header_stands_in(s, tag) {
            places.push((s.file_path.as_str(), s.line_range));
        }
    }
    places.iter().any(|(path, range)| {
        places_in(lead, path).any(|(a, b)| {
            // The stated range and the definition's overlap, give or take the slack.
            a <= range[1] + SLACK && range[0].saturating_sub(SLACK) <= b
        })
    })
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c == '$' || c.is_alphanumeric()
}

/// Whether `word` occurs in `text` with no identifier character on either side.
fn names_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_ident_char) && !after.is_some_and(is_ident_char)
    })
}

/// The line ranges `text` gives for `path` (`path:12`, `path:12–20`, `path:12-20`), where
/// the path is not the tail of a longer one.
fn places_in<'a>(text: &'a str, path: &'a str) -> impl Iterator<Item = (u64, u64)> + 'a {
    text.match_indices(path).filter_map(move |(i, _)| {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| matches!(c, '/' | '.' | '-') || is_ident_char(c)) {
            return None;
        }
        let rest = text.get(i + path.len()..)?.strip_prefix(':')?;
        let (a, rest) = leading_number(rest)?;
        let b = rest
            .strip_prefix('–')
            .or_else(|| rest.strip_prefix('-'))
            .and_then(leading_number)
            .map_or(a, |(b, _)| b);
        Some((a, b.max(a)))
    })
}

fn leading_number(s: &str) -> Option<(u64, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let n = s[..end].parse().ok()?;
    Some((n, &s[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(name: &str, path: &str, line: u64) -> OracleTag {
        OracleTag {
            name: name.into(),
            path: path.into(),
            line,
            kind: "function".into(),
            scope: None,
        }
    }

    fn doc(sources: &[(&str, [u64; 2], &str, &str)], answer: &str) -> Value {
        let sources: Vec<Value> = sources
            .iter()
            .map(|(p, lr, e, s)| {
                serde_json::json!({"file_path": p, "line_range": lr, "evidence_type": e,
                    "symbol": s})
            })
            .collect();
        serde_json::json!({"sources": sources, "answer": answer})
    }

    #[test]
    fn the_rank_is_the_first_definition_holding_the_line() {
        let t = tag("fallback", "src/routing/mod.rs", 120);
        let d = doc(
            &[
                ("src/routing/mod.rs", [119, 119], "call", "fallback"),
                ("src/routing/other.rs", [118, 125], "definition", "fallback"),
                ("src/routing/mod.rs", [118, 125], "definition", "fallback"),
            ],
            "",
        );
        assert_eq!(hit_rank(&top_sources(&d), &t), Some(3));
        // ±2: a range ending two lines before the oracle's line still holds it.
        let d = doc(&[("src/routing/mod.rs", [110, 118], "definition", "x")], "");
        assert_eq!(hit_rank(&top_sources(&d), &t), Some(1));
        let d = doc(&[("src/routing/mod.rs", [110, 117], "definition", "x")], "");
        assert_eq!(hit_rank(&top_sources(&d), &t), None);
    }

    #[test]
    fn the_named_rank_wants_the_definition_not_its_container() {
        let t = tag("fallback", "src/routing/mod.rs", 120);
        let d = doc(
            &[
                ("src/routing/mod.rs", [20, 400], "definition", "Router"),
                (
                    "src/routing/mod.rs",
                    [118, 125],
                    "definition",
                    "Router::fallback",
                ),
            ],
            "",
        );
        let top = top_sources(&d);
        assert_eq!(hit_rank(&top, &t), Some(1));
        assert_eq!(named_rank(&top, &t), Some(2));
        assert!(!symbol_is("method_not_allowed_fallback", "fallback"));
        assert!(symbol_is("Router#fallback", "fallback"));
    }

    #[test]
    fn a_header_declaration_answers_for_a_c_definition() {
        let t = tag("jv_parse", "src/jv_parse.c", 900);
        let d = doc(&[("src/jv.h", [40, 40], "definition", "jv_parse")], "");
        assert_eq!(hit_rank(&top_sources(&d), &t), Some(1));
        let d = doc(
            &[("src/jv.h", [40, 40], "definition", "jv_parse_sized")],
            "",
        );
        assert_eq!(hit_rank(&top_sources(&d), &t), None);
    }

    #[test]
    fn the_answer_names_the_definition_only_in_its_lead_and_as_a_whole_word() {
        let t = tag("fallback", "axum/src/routing/mod.rs", 120);
        let right = doc(
            &[],
            "`fallback` is defined in `axum/src/routing/mod.rs:118–125` (method) and used in \
             no other indexed file.",
        );
        assert!(answer_names_file(&right, &t));
        assert!(answer_names_definition(&right, &[], &t));
        let wrong = doc(
            &[],
            "`method_not_allowed_fallback` is defined in `axum/src/routing/mod.rs:300–310` \
             (method) and used in no other indexed file. Other matches: \
             `axum/src/routing/mod.rs:118–125` (definition of `fallback`).",
        );
        assert!(answer_names_file(&wrong, &t));
        assert!(!answer_names_definition(&wrong, &[], &t));
        let none = doc(
            &[],
            "No definition matched; the closest matches are `axum/src/routing/mod.rs:120` \
             (call of `fallback`).",
        );
        assert!(!answer_names_definition(&none, &[], &t));
    }

    #[test]
    fn words_and_places() {
        assert!(names_word("`Router::fallback` is", "fallback"));
        assert!(!names_word("`fallbacks` is", "fallback"));
        assert!(!names_word("$fallback", "fallback"));
        let places: Vec<(u64, u64)> =
            places_in("`a/b.rs:3–9` and `xa/b.rs:1` and (a/b.rs:12)", "a/b.rs").collect();
        assert_eq!(places, [(3, 9), (12, 12)]);
    }
}
