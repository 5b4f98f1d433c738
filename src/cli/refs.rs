//! `mapscope refs`: who uses a definition and what it uses (text, or the contract's JSON
//! document). Runs on the main thread.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use crate::contract::{refs_error, RefsCall, RefsDoc};
use crate::engine::base::json;
use crate::engine::base::text::sanitize;
use crate::engine::index::refs::{Direction, RefsAnswer, UseSite};
use crate::engine::EngineError;

use super::*;

#[derive(Args, Debug)]
pub struct RefsArgs {
    /// `[PATH] TARGET`: the repository (default `.`) and the definition: NAME (every
    /// definition of that name, each answered on its own), Type::NAME or Type.NAME,
    /// path:NAME, or FILE:LINE (the definition whose lines hold that line).
    #[arg(num_args = 1..=2, required = true, value_name = "[PATH] TARGET")]
    pub args: Vec<String>,
    /// Only who uses it (each use site with the definition it is in and how it was bound).
    #[arg(long, conflicts_with = "callees")]
    pub callers: bool,
    /// Only what it uses (each use in its lines with the definitions it bound to).
    #[arg(long)]
    pub callees: bool,
    /// Print the JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// Use sites listed per section and definition, from 1 to 200 (the counts are whole).
    #[arg(long, default_value_t = crate::contract::REFS_DEFAULT_TOP,
          allow_negative_numbers = true, value_parser = parse_refs_top)]
    pub top: usize,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// `--top`: the bound every door takes (`contract::REFS_TOP`), refused outside it.
fn parse_refs_top(s: &str) -> Result<usize, String> {
    crate::contract::bounded(s, crate::contract::REFS_TOP)
}

/// A failure with its stable code (`NOT_FOUND`), reported as one line.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub(super) struct Coded {
    pub code: &'static str,
    pub message: String,
}

pub(super) fn cmd_refs(args: &RefsArgs) -> anyhow::Result<()> {
    let (path, target) = match args.args.as_slice() {
        [target] => (None, target.as_str()),
        [path, target] => (Some(PathBuf::from(path)), target.as_str()),
        _ => {
            return Err(InvalidArgument("usage: mapscope refs [PATH] NAME|FILE:LINE".into()).into())
        }
    };
    let direction = match (args.callers, args.callees) {
        (true, false) => Direction::Callers,
        (false, true) => Direction::Callees,
        _ => Direction::Both,
    };
    let fail = |code: &'static str, message: String| -> anyhow::Result<()> {
        if args.json {
            print(&json::to_string_pretty(&serde_json::json!({
                "success": false, "error": message, "code": code,
            }))?)?;
            return Err(Reported.into());
        }
        Err(Coded { code, message }.into())
    };
    let call = match RefsCall::from_target(target, direction, args.top) {
        Ok(call) => call,
        Err(e) => return fail("INVALID_ARGUMENT", e.0),
    };
    let index = match build_index(&path, None, args.cache) {
        Ok(index) => index,
        Err(e) => match e.downcast_ref::<EngineError>() {
            Some(engine) if args.json => return fail(engine.code(), engine.to_string()),
            _ => return Err(e),
        },
    };
    report(&index);
    answered(index.answer_saving(|index| {
        match call.answer(index) {
            Ok(answer) => {
                for note in &answer.notes {
                    crate::contract::note(note);
                }
                if args.json {
                    print(&json::to_string_pretty(&RefsDoc::of(&answer))?)
                } else {
                    print(&refs_text(&answer))
                }
            }
            Err(e) if args.json => {
                print(&json::to_string_pretty(&refs_error(&e))?)?;
                Err(Reported.into())
            }
            Err(e) => Err(Coded {
                code: e.code(),
                message: e.to_string(),
            }
            .into()),
        }
    }))
}

/// Per definition: its line (`Type::name  kind  path:start-end`, the qualified name where
/// there is one), then `callers (N):` and
/// `callees (N):` with one line per use site: `path:line  kind  caller  (binding)` for a
/// caller, `path:line  kind  name → path:line definition  (binding)` for a callee (its
/// caller is the definition itself, named only when nested). Everything from the
/// repository is sanitized here.
pub(super) fn refs_text(a: &RefsAnswer) -> String {
    let mut s = String::new();
    for (i, g) in a.groups.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        let d = &g.definition;
        // The qualified name says where it lives; without one, the enclosing definition.
        let name = sanitize(d.qualified_name.as_deref().unwrap_or(&d.name)).into_owned();
        let inside = match (&d.qualified_name, &d.parent) {
            (None, Some(p)) => format!("  (in {})", sanitize(p)),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "{name}  {}  {}:{}-{}{inside}",
            d.kind.name(),
            sanitize(&d.path),
            d.lines.start,
            d.lines.end,
        );
        if a.direction.callers() {
            section(&mut s, "callers", g.callers_total, &g.callers, None, &name);
        }
        if a.direction.callees() {
            let unbound = Some(g.callees_unbound);
            section(
                &mut s,
                "callees",
                g.callees_total,
                &g.callees,
                unbound,
                &name,
            );
        }
    }
    s
}

fn section(
    s: &mut String,
    title: &str,
    total: usize,
    uses: &[UseSite],
    unbound: Option<usize>,
    definition: &str,
) {
    let unbound = unbound.filter(|&n| n > 0);
    let nothing = |more: &str| {
        unbound.map_or_else(String::new, |n| {
            format!(
                "{n} {more}{} bound to nothing in the repository",
                uses_word(n)
            )
        })
    };
    let count = match (total, uses.len()) {
        (0, _) => "none".to_string(),
        (t, shown) if shown < t => format!("first {shown} of {t}, --top shows more"),
        (t, _) => t.to_string(),
    };
    let head = match (total, unbound.is_some()) {
        (0, false) => format!("  {title}: none"),
        (0, true) => format!("  {title}: none ({})", nothing("")),
        (_, false) => format!("  {title} ({count}):"),
        (_, true) => format!("  {title} ({count}; {}):", nothing("more ")),
    };
    let _ = writeln!(s, "{head}");
    let callees = title == "callees";
    for u in uses {
        let mut columns = vec![
            format!("{}:{}", sanitize(&u.path), u.line),
            u.kind.name().to_string(),
        ];
        let caller = u
            .enclosing
            .as_ref()
            .map(|e| sanitize(e.qualified_name.as_deref().unwrap_or(&e.name)).into_owned());
        match (callees, caller) {
            // A callee's use is in the definition itself: only a nested one is named.
            (true, Some(c)) if c == definition => {}
            (true, Some(c)) => columns.push(format!("in {c}")),
            (true, None) => {}
            (false, Some(c)) => columns.push(c),
            (false, None) => columns.push("(top level)".to_string()),
        }
        if callees {
            let mut callee = sanitize(&u.name).into_owned();
            if let Some(first) = u.definitions.first() {
                let _ = write!(
                    callee,
                    " → {}:{} {}",
                    sanitize(&first.path),
                    first.lines.start,
                    sanitize(first.qualified_name.as_deref().unwrap_or(&first.name))
                );
                if u.candidates > 1 {
                    let _ = write!(callee, " (+{})", u.candidates - 1);
                }
            }
            columns.push(callee);
        }
        let ambiguity = match (u.ambiguous, u.candidates) {
            (false, _) => String::new(),
            (true, n) if n > 1 => format!(", ambiguous: {n} definitions"),
            (true, _) => ", ambiguous".to_string(),
        };
        let _ = writeln!(
            s,
            "    {}  ({}{ambiguity})",
            columns.join("  "),
            u.binding.words()
        );
    }
}

fn uses_word(n: usize) -> &'static str {
    if n == 1 {
        "use"
    } else {
        "uses"
    }
}
