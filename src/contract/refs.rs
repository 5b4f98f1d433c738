//! The callers/callees contract (`mapscope refs --json`, MCP `repo_references`, HTTP
//! `/refs`): the call built from its arguments (`args::RepoReferencesArgs`, or the CLI's
//! positional target and flags) and the document that answers it, `RefsDoc`, whose field
//! names this module alone knows. Runs on whichever thread answers: the CLI's main thread,
//! the live-index service's engine thread.
//!
//! Errors: a target that cannot be read is `INVALID_ARGUMENT` before any index is asked; a
//! target naming no definition (no indexed file of that path, no definition of that name
//! or at that line) is `NOT_FOUND`, `{success: false, error, code}`.

use serde::Serialize;
use serde_json::{Map, Value};

use super::args::{parse_args, RepoReferencesArgs};
use super::{mark, ArgError};
use crate::engine::base::model::LineRange;
use crate::engine::index::refs::{
    DefSite, Direction, Enclosing, RefTarget, RefsAnswer, RefsError, RefsGroup, RefsRequest,
    UseSite,
};
use crate::engine::index::Index;
use crate::engine::live::Freshness;

/// A `repo_references` call: the engine's request, checked.
#[derive(Debug, Clone)]
pub struct RefsCall {
    request: RefsRequest,
}

impl RefsCall {
    /// A call from its JSON arguments (MCP's, or HTTP's query parameters).
    pub fn parse(args: &Map<String, Value>) -> Result<RefsCall, ArgError> {
        RefsCall::new(parse_args(args)?)
    }

    /// The call `args` ask for: exactly one of `name` and `at`, `at` a FILE:LINE.
    pub fn new(args: RepoReferencesArgs) -> Result<RefsCall, ArgError> {
        let given = |t: Option<String>| t.filter(|s| !s.trim().is_empty());
        let target = match (given(args.name.0), given(args.at.0)) {
            (Some(name), None) => target(&name, "name")?,
            (None, Some(at)) => match target(&at, "at")? {
                at @ RefTarget::At { .. } => at,
                RefTarget::Name { .. } => {
                    return Err(ArgError::new(
                        "`at` must be FILE:LINE (a path, a colon, a line number)",
                    ))
                }
            },
            (Some(_), Some(_)) => return Err(ArgError::new("give `name` or `at`, not both")),
            (None, None) => {
                return Err(ArgError::new(
                    "`name` (NAME, Type::NAME, path:NAME) or `at` (FILE:LINE) is required",
                ))
            }
        };
        Ok(RefsCall {
            request: RefsRequest {
                target,
                direction: args.direction.0,
                top: args.top.get(),
            },
        })
    }

    /// The CLI's call: `NAME|path:NAME|FILE:LINE` as one word, `top` already checked
    /// against `REFS_TOP`.
    pub fn from_target(text: &str, direction: Direction, top: usize) -> Result<RefsCall, ArgError> {
        Ok(RefsCall {
            request: RefsRequest {
                target: RefTarget::parse(text).map_err(|e| ArgError::new(e.to_string()))?,
                direction,
                top,
            },
        })
    }

    pub fn request(&self) -> &RefsRequest {
        &self.request
    }

    /// The engine's answer.
    pub fn answer(&self, index: &Index) -> Result<RefsAnswer, RefsError> {
        index.references(&self.request)
    }

    /// The document for the servers (with `changes_pending`), or why there is none.
    pub fn run(&self, index: &Index, freshness: &Freshness) -> Result<Value, RefsError> {
        let answer = self.answer(index)?;
        let mut document = RefsDoc::of(&answer).value();
        mark(freshness, &mut document);
        Ok(document)
    }
}

/// A target argument read as the engine reads it, a refusal naming the argument.
fn target(text: &str, arg: &str) -> Result<RefTarget, ArgError> {
    RefTarget::parse(text).map_err(|e| ArgError::new(format!("`{arg}`: {e}")))
}

/// The refusal document: `{success: false, error, code}`.
pub fn refs_error(e: &RefsError) -> Value {
    serde_json::json!({
        "success": false,
        "error": crate::engine::base::text::sanitize(&e.to_string()),
        "code": e.code(),
    })
}

/// The callers/callees document: one entry per definition the target named.
#[derive(Serialize)]
pub struct RefsDoc<'a> {
    success: bool,
    /// The target as read: `NAME`, `path:NAME` or `FILE:LINE`.
    target: String,
    direction: &'static str,
    top: usize,
    /// The target named more than one definition: each is answered on its own.
    ambiguous_name: bool,
    /// Definitions the target named (at most 20 are listed).
    definitions_total: usize,
    definitions: Vec<GroupDoc<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
}

#[derive(Serialize)]
struct GroupDoc<'a> {
    definition: DefDoc<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    callers: Option<SectionDoc<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    callees: Option<SectionDoc<'a>>,
}

#[derive(Serialize)]
struct SectionDoc<'a> {
    /// Every use site, of which `uses` lists the first `top`.
    total: usize,
    uses: Vec<UseDoc<'a>>,
    /// Callees: uses in the definition bound to nothing in the repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    unbound: Option<usize>,
}

#[derive(Serialize)]
struct DefDoc<'a> {
    path: &'a str,
    name: &'a str,
    kind: &'static str,
    line_range: [u32; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
    /// Its container and qualified name in the language's notation (`Router`,
    /// `Router::fallback`); absent at the top level.
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qualified_name: Option<&'a str>,
    test: bool,
}

#[derive(Serialize)]
struct UseDoc<'a> {
    path: &'a str,
    line: u32,
    kind: &'static str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    qualifier: Option<&'a str>,
    /// The definition the use is in (null at the top level of its file).
    caller: Option<CallerDoc<'a>>,
    /// import, same_package, same_file, member, module, package_method, name_guess,
    /// method_guess.
    binding: &'static str,
    ambiguous: bool,
    candidates: usize,
    strength: f64,
    test: bool,
    /// Callees: the definitions the use bound to (at most 5).
    #[serde(skip_serializing_if = "<[DefDoc<'a>]>::is_empty")]
    definitions: Vec<DefDoc<'a>>,
}

#[derive(Serialize)]
struct CallerDoc<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    qualified_name: Option<&'a str>,
    kind: &'static str,
    line_range: [u32; 2],
}

fn range(r: LineRange) -> [u32; 2] {
    [r.start, r.end]
}

impl<'a> DefDoc<'a> {
    fn of(d: &'a DefSite) -> DefDoc<'a> {
        DefDoc {
            path: &d.path,
            name: &d.name,
            kind: d.kind.name(),
            line_range: range(d.lines),
            parent: d.parent.as_deref(),
            container: d.container.as_deref(),
            qualified_name: d.qualified_name.as_deref(),
            test: d.test,
        }
    }
}

impl<'a> UseDoc<'a> {
    fn of(u: &'a UseSite) -> UseDoc<'a> {
        UseDoc {
            path: &u.path,
            line: u.line,
            kind: u.kind.name(),
            name: &u.name,
            qualifier: u.qualifier.as_deref(),
            caller: u.enclosing.as_ref().map(|e: &'a Enclosing| CallerDoc {
                name: &e.name,
                qualified_name: e.qualified_name.as_deref(),
                kind: e.kind.name(),
                line_range: range(e.lines),
            }),
            binding: u.binding.name(),
            ambiguous: u.ambiguous,
            candidates: u.candidates,
            strength: u.strength,
            test: u.test,
            definitions: u.definitions.iter().map(DefDoc::of).collect(),
        }
    }
}

impl<'a> GroupDoc<'a> {
    fn of(g: &'a RefsGroup, direction: Direction) -> GroupDoc<'a> {
        GroupDoc {
            definition: DefDoc::of(&g.definition),
            callers: direction.callers().then(|| SectionDoc {
                total: g.callers_total,
                uses: g.callers.iter().map(UseDoc::of).collect(),
                unbound: None,
            }),
            callees: direction.callees().then(|| SectionDoc {
                total: g.callees_total,
                uses: g.callees.iter().map(UseDoc::of).collect(),
                unbound: Some(g.callees_unbound),
            }),
        }
    }
}

impl<'a> RefsDoc<'a> {
    pub fn of(a: &'a RefsAnswer) -> RefsDoc<'a> {
        RefsDoc {
            success: true,
            target: a.target.to_string(),
            direction: a.direction.name(),
            top: a.top,
            ambiguous_name: a.ambiguous_name(),
            definitions_total: a.definitions_total,
            definitions: a
                .groups
                .iter()
                .map(|g| GroupDoc::of(g, a.direction))
                .collect(),
            notes: &a.notes,
        }
    }

    /// The document as a JSON value (for the servers, which add `changes_pending`).
    pub fn value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_call_takes_a_name_or_a_place_and_refuses_both_or_neither() {
        let call = RefsCall::parse(&object(json!({"name": "helper", "top": 3}))).unwrap();
        assert_eq!(call.request().top, 3);
        assert_eq!(call.request().direction, Direction::Both);
        let call =
            RefsCall::parse(&object(json!({"at": "a.py:4", "direction": "callers"}))).unwrap();
        assert_eq!(
            call.request().target,
            RefTarget::At {
                path: "a.py".into(),
                line: 4
            }
        );
        for (args, says) in [
            (
                json!({}),
                "`name` (NAME, Type::NAME, path:NAME) or `at` (FILE:LINE) is required",
            ),
            (
                json!({"name": "a", "at": "a.py:1"}),
                "give `name` or `at`, not both",
            ),
            (
                json!({"at": "helper"}),
                "`at` must be FILE:LINE (a path, a colon, a line number)",
            ),
            (
                json!({"at": "a.py:0"}),
                "`at`: line `0` of `a.py` is not a line number (1 or more)",
            ),
            (
                json!({"name": "a", "direction": "up"}),
                "`direction` must be both, callers or callees",
            ),
            (
                json!({"name": "a", "top": 500}),
                "`top` must be an integer from 1 to 200",
            ),
            (
                json!({"name": "a", "bogus": 1}),
                "unknown argument `bogus` (expected: name, at, direction, top)",
            ),
        ] {
            let e = RefsCall::parse(&object(args.clone())).unwrap_err();
            assert_eq!(e.0, says, "{args}");
        }
    }

    #[test]
    fn the_document_names_its_fields() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("util.py"), "def helper(x):\n    return x\n").unwrap();
        std::fs::write(
            dir.path().join("main.py"),
            "from util import helper\n\n\ndef run():\n    return helper(1)\n",
        )
        .unwrap();
        let index =
            Index::build(dir.path(), &crate::engine::index::IndexOptions::default()).unwrap();
        let call = RefsCall::from_target("helper", Direction::Both, 5).unwrap();
        let doc = call.run(&index, &Freshness::default()).unwrap();
        assert_eq!(doc["success"], true);
        assert_eq!(doc["target"], "helper");
        assert_eq!(doc["direction"], "both");
        assert_eq!(doc["ambiguous_name"], false);
        assert_eq!(doc["changes_pending"], false);
        let group = &doc["definitions"][0];
        assert_eq!(
            group["definition"],
            json!({"path": "util.py", "name": "helper", "kind": "function",
                   "line_range": [1, 2], "test": false})
        );
        let first = &group["callers"]["uses"][0];
        assert_eq!(first["path"], "main.py");
        assert_eq!(first["line"], 5);
        assert_eq!(first["kind"], "call");
        assert_eq!(first["binding"], "import");
        assert_eq!(first["ambiguous"], false);
        assert_eq!(first["caller"]["name"], "run");
        assert_eq!(group["callers"]["total"], 2);
        assert_eq!(group["callees"]["total"], 0);
        let missing = RefsCall::from_target("nope", Direction::Both, 5).unwrap();
        let e = missing.run(&index, &Freshness::default()).unwrap_err();
        assert_eq!(
            refs_error(&e),
            json!({"success": false, "error": "no definition named `nope`", "code": "NOT_FOUND"})
        );
    }
}
