//! An extractive answer to a search question: one short text built from the hits alone (no
//! network, no model), shaped by an [`AnswerStyle`] and honest when search is unsure.
//!
//! It says where the best-matching definition lives and who uses it ("`verify` is defined
//! in `src/jwt.ts:96–188` (function) and used in 4 files: …"), then the other places that
//! matched. Who uses a definition comes from the caller (`Index::symbol_users`, the file
//! graph's edges named by that identifier), so this module stays a pure function of its
//! inputs. Runs on whichever thread searched. Paths, names and excerpts are passed through
//! `engine::base::text::sanitize`: the answer may be printed on a terminal.
//!
//! [`llm`] writes the answer with a model instead, when one is configured; this extractive
//! answer is its fallback.

pub mod llm;

use std::fmt::Write as _;

use crate::engine::base::text::sanitize;
use crate::engine::base::words::normalize_name;
use crate::engine::search::{Evidence, Intent, NameMatch, SearchHit, SearchResponse};

/// What the answer learns about a definition hit from the index it came from: the files
/// that use it, and the names its body calls. A closure over `users` alone is one (calling
/// nothing); `Index::links` gives both.
pub trait SymbolLinks {
    /// The files that use the definition's symbol (not the defining file itself).
    fn users(&self, def: &SearchHit) -> Vec<String>;
    /// What the definition's body calls, in order, each once ("what does X call"):
    /// `Index::links` names the definitions the calls bound to (`index::refs`).
    fn callees(&self, _def: &SearchHit) -> Vec<String> {
        Vec::new()
    }
    /// Who calls the definition ("who calls X"), one entry per calling definition, each as
    /// its qualified name and the use's place (`Router.route (src/app.ts:12)`; the place
    /// alone at a file's top level), implementation first, strongest binding first:
    /// `Index::links` reads them from the refs engine's bound callers (`index::refs`).
    fn callers(&self, _def: &SearchHit) -> Vec<String> {
        Vec::new()
    }
}

impl<F: Fn(&SearchHit) -> Vec<String>> SymbolLinks for F {
    fn users(&self, def: &SearchHit) -> Vec<String> {
        self(def)
    }
}

/// How much the answer says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AnswerStyle {
    /// One sentence: the best definition (or the closest matches).
    Concise,
    /// The best definition with its users, then a few other matches.
    #[default]
    Default,
    /// Every definition among the sources with its users, then every other source.
    Detailed,
}

impl AnswerStyle {
    /// The style named `name` (`concise`, `default`, `detailed`), or None.
    pub fn parse(name: &str) -> Option<AnswerStyle> {
        match name {
            "concise" => Some(AnswerStyle::Concise),
            "default" => Some(AnswerStyle::Default),
            "detailed" => Some(AnswerStyle::Detailed),
            _ => None,
        }
    }

    pub const NAMES: &'static str = "concise, default, detailed";
}

/// Files named in a "used in" list before the rest is counted.
const USERS_NAMED: usize = 3;
/// Other matches named by the default style.
const OTHERS_DEFAULT: usize = 3;

/// Callees named before the rest is counted.
const CALLEES_NAMED: usize = 8;

/// Callers named before the rest is counted.
const CALLERS_NAMED: usize = 5;

/// The answer for `hits` (best first, already cut to the sources shown). `links` tells who
/// uses a definition hit's symbol and what it calls.
///
/// A look-up (`response.read`) is answered in its own terms: the definition in the typed
/// container is named as typed (`Router::fallback`), and when none is, the answer says so
/// before naming the nearest. A phrase's intent shapes the rest: "who calls X" lists the
/// uses among the hits, "what does X call" the names X's body calls.
pub fn extractive_answer(
    response: &SearchResponse,
    hits: &[SearchHit],
    style: AnswerStyle,
    links: &dyn SymbolLinks,
) -> String {
    if hits.is_empty() {
        return "Nothing in the index matches the question.".into();
    }
    let defs: Vec<&SearchHit> = hits
        .iter()
        .filter(|h| h.evidence == Evidence::Definition && h.symbol.is_some())
        .collect();
    let mut out = String::new();
    if response.low_score {
        out.push_str("Low confidence: no place matches most of the question's words. ");
    }
    if defs.is_empty() {
        let n = match style {
            AnswerStyle::Concise => 2,
            AnswerStyle::Default => OTHERS_DEFAULT,
            AnswerStyle::Detailed => hits.len(),
        };
        let _ = write!(
            out,
            "No definition matched; the closest matches are {}.",
            list(hits.iter().take(n).map(place))
        );
        return out;
    }
    let shown_defs: &[&SearchHit] = match style {
        AnswerStyle::Detailed => &defs,
        _ => &defs[..1],
    };
    let lookup = response.read.lookup.as_ref();
    let qualified = lookup.is_some_and(|l| !l.container.is_empty() || l.file.is_some());
    for (i, d) in shown_defs.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let m = response
            .hits
            .iter()
            .position(|h| std::ptr::eq(h, *d))
            .and_then(|at| response.match_of(at));
        let symbol = d.symbol.as_deref().unwrap_or("");
        let name = match lookup {
            Some(l) if qualified && m.is_some_and(NameMatch::in_container) => l.qualified(symbol),
            _ => symbol.to_string(),
        };
        if i == 0 && qualified && !m.is_some_and(NameMatch::in_container) {
            if let Some(l) = lookup {
                let _ = write!(
                    out,
                    "No definition of `{}` was found; the nearest: ",
                    sanitize(&l.qualified(&l.name))
                );
            }
        }
        out.push_str(&definition_sentence(d, &name, style, &links.users(d)));
    }
    let intent = response.read.intent;
    if let (Some(Intent::Callees), Some(d)) = (intent, shown_defs.first()) {
        let callees = links.callees(d);
        let named = callees
            .iter()
            .take(CALLEES_NAMED)
            .map(|c| format!("`{}`", sanitize(c)));
        if callees.is_empty() {
            out.push_str(" Its body calls nothing by name.");
        } else {
            let _ = write!(out, " It calls {}.", list_with_more(named, callees.len()));
        }
    }
    let mut others: Vec<&SearchHit> = hits
        .iter()
        .filter(|h| !shown_defs.iter().any(|d| std::ptr::eq(*d, *h)))
        .collect();
    if intent == Some(Intent::Callers) {
        // "Who calls X": the callers binding found (the refs engine), else the uses of X
        // among the sources; either before anything else matched.
        let callers = shown_defs
            .first()
            .map(|d| links.callers(d))
            .unwrap_or_default();
        if !callers.is_empty() && style != AnswerStyle::Concise {
            let named = callers
                .iter()
                .take(CALLERS_NAMED)
                .map(|c| sanitize(c).into_owned());
            let _ = write!(
                out,
                " Called from {}.",
                list_with_more(named, callers.len())
            );
        }
        let asked = lookup.map(|l| normalize_name(&l.name));
        let (uses, rest): (Vec<&SearchHit>, Vec<&SearchHit>) = others.iter().partition(|h| {
            matches!(
                h.evidence,
                Evidence::Call | Evidence::Reference | Evidence::Import
            ) && h
                .symbol
                .as_deref()
                .is_some_and(|s| asked.as_deref() == Some(normalize_name(s).as_str()))
        });
        if callers.is_empty() && !uses.is_empty() && style != AnswerStyle::Concise {
            let _ = write!(out, " Uses: {}.", list(uses.iter().map(|h| place(h))));
        }
        others = rest;
    }
    let n = match style {
        AnswerStyle::Concise => 0,
        AnswerStyle::Default => OTHERS_DEFAULT,
        AnswerStyle::Detailed => others.len(),
    };
    if n > 0 && !others.is_empty() {
        let _ = write!(
            out,
            " Other matches: {}.",
            list(others.iter().take(n).map(|h| place(h)))
        );
    }
    out
}

/// "`name` is defined in `path:a–b` (kind) and used in N files: a, b, c and 2 more."
fn definition_sentence(d: &SearchHit, name: &str, style: AnswerStyle, users: &[String]) -> String {
    let name = sanitize(name);
    let kind = d
        .kind
        .as_deref()
        .map(|k| format!(" ({})", sanitize(k)))
        .unwrap_or_default();
    let mut s = format!(
        "`{name}` is defined in `{}:{}–{}`{kind}",
        sanitize(&d.file_path),
        d.line_range.start,
        d.line_range.end
    );
    match (users.len(), style) {
        (0, _) => s.push_str(" and used in no other indexed file."),
        (n, AnswerStyle::Concise) => {
            let _ = write!(s, " and used in {n} file{}.", plural(n));
        }
        (n, _) => {
            let named = users
                .iter()
                .take(USERS_NAMED)
                .map(|u| format!("`{}`", sanitize(u)));
            let _ = write!(
                s,
                " and used in {n} file{}: {}.",
                plural(n),
                list_with_more(named, n)
            );
        }
    }
    s
}

/// "`path:line` (call of `name`)", "`path:a–b` (text)".
fn place(h: &SearchHit) -> String {
    let lines = if h.line_range.start == h.line_range.end {
        h.line_range.start.to_string()
    } else {
        format!("{}–{}", h.line_range.start, h.line_range.end)
    };
    let what = match (&h.symbol, h.evidence) {
        (Some(sym), Evidence::Text) => format!("text mentioning `{}`", sanitize(sym)),
        (Some(sym), e) => format!("{} of `{}`", e.name(), sanitize(sym)),
        (None, e) => e.name().to_string(),
    };
    format!("`{}:{lines}` ({what})", sanitize(&h.file_path))
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// "a", "a and b", "a, b and c".
fn list(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    match items.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `list` of the named items, with "and N more" when `total` is larger.
fn list_with_more(named: impl Iterator<Item = String>, total: usize) -> String {
    let named: Vec<String> = named.collect();
    let more = total.saturating_sub(named.len());
    if more == 0 {
        list(named.into_iter())
    } else {
        format!("{} and {more} more", named.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::model::LineRange;
    use crate::engine::search::{Confidence, RetrievalCounts, Signals};

    fn hit(path: &str, lines: (u32, u32), evidence: Evidence, symbol: Option<&str>) -> SearchHit {
        SearchHit {
            file_path: path.into(),
            line_range: LineRange {
                start: lines.0,
                end: lines.1,
            },
            excerpt: String::new(),
            evidence,
            symbol: symbol.map(str::to_string),
            kind: (evidence == Evidence::Definition).then(|| "function".to_string()),
            score: 1.0,
            signals: Signals::default(),
        }
    }

    fn response(low: bool) -> SearchResponse {
        SearchResponse {
            hits: Vec::new(),
            files: Vec::new(),
            confidence: if low {
                Confidence::Low
            } else {
                Confidence::High
            },
            low_score: low,
            retrieval_counts: RetrievalCounts::default(),
            latency_ms: 0.0,
            read: Default::default(),
            matches: Vec::new(),
        }
    }

    fn users(h: &SearchHit) -> Vec<String> {
        match h.symbol.as_deref() {
            Some("verify") => ["src/a.ts", "src/b.ts", "src/c.ts", "src/d.ts"]
                .map(String::from)
                .to_vec(),
            _ => Vec::new(),
        }
    }

    fn hits() -> Vec<SearchHit> {
        vec![
            hit(
                "src/jwt.ts",
                (96, 188),
                Evidence::Definition,
                Some("verify"),
            ),
            hit("src/auth.ts", (12, 12), Evidence::Call, Some("verify")),
            hit("src/sign.ts", (3, 40), Evidence::Definition, Some("sign")),
            hit("docs/jwt.md", (7, 7), Evidence::Text, Some("token")),
        ]
    }

    #[test]
    fn the_default_answer_names_the_definition_its_users_and_other_matches() {
        let a = extractive_answer(&response(false), &hits(), AnswerStyle::Default, &users);
        assert_eq!(
            a,
            "`verify` is defined in `src/jwt.ts:96–188` (function) and used in 4 files: \
             `src/a.ts`, `src/b.ts`, `src/c.ts` and 1 more. Other matches: `src/auth.ts:12` \
             (call of `verify`), `src/sign.ts:3–40` (definition of `sign`) and `docs/jwt.md:7` \
             (text mentioning `token`)."
        );
    }

    #[test]
    fn styles_say_less_or_more() {
        let concise = extractive_answer(&response(false), &hits(), AnswerStyle::Concise, &users);
        assert_eq!(
            concise,
            "`verify` is defined in `src/jwt.ts:96–188` (function) and used in 4 files."
        );
        let detailed = extractive_answer(&response(false), &hits(), AnswerStyle::Detailed, &users);
        assert!(detailed.starts_with("`verify` is defined"), "{detailed}");
        assert!(
            detailed.contains("`sign` is defined in `src/sign.ts:3–40` (function) and used in no other indexed file."),
            "{detailed}"
        );
        assert!(detailed.ends_with("Other matches: `src/auth.ts:12` (call of `verify`) and `docs/jwt.md:7` (text mentioning `token`)."), "{detailed}");
    }

    #[test]
    fn without_a_definition_or_confidence_it_says_so() {
        let text_only = vec![
            hit("docs/a.md", (1, 1), Evidence::Text, Some("jwt")),
            hit("src/x.ts", (5, 5), Evidence::Reference, Some("token")),
        ];
        let a = extractive_answer(&response(true), &text_only, AnswerStyle::Default, &users);
        assert_eq!(
            a,
            "Low confidence: no place matches most of the question's words. No definition \
             matched; the closest matches are `docs/a.md:1` (text mentioning `jwt`) and \
             `src/x.ts:5` (reference of `token`)."
        );
        assert_eq!(
            extractive_answer(&response(true), &[], AnswerStyle::Default, &users),
            "Nothing in the index matches the question."
        );
    }

    #[test]
    fn control_bytes_from_the_repository_do_not_reach_the_answer() {
        let hostile = vec![hit(
            "src/\u{1b}[31mevil.ts",
            (1, 2),
            Evidence::Definition,
            Some("x\u{7}y"),
        )];
        let a = extractive_answer(&response(false), &hostile, AnswerStyle::Detailed, &users);
        assert!(
            !a.chars().any(crate::engine::base::text::is_unsafe),
            "{a:?}"
        );
    }

    /// `hits` answering `query`, the first matching as `first`.
    fn looked_up(
        query: &str,
        hits: Vec<SearchHit>,
        first: crate::engine::search::NameMatch,
    ) -> SearchResponse {
        let mut r = response(false);
        r.read = crate::engine::search::read_query(query);
        r.matches = std::iter::once(Some(first))
            .chain(std::iter::repeat(None))
            .take(hits.len())
            .collect();
        r.hits = hits;
        r
    }

    #[test]
    fn a_qualified_look_up_is_answered_in_its_own_terms() {
        let r = looked_up("Router::fallback", hits(), NameMatch::InContainer);
        let a = extractive_answer(&r, &r.hits, AnswerStyle::Concise, &users);
        // `verify` stands for the method of that name in `Router`.
        assert!(
            a.starts_with("`Router::verify` is defined in `src/jwt.ts:96–188`"),
            "{a}"
        );
        let r = looked_up("Router::fallback", hits(), NameMatch::Exact);
        let a = extractive_answer(&r, &r.hits, AnswerStyle::Concise, &users);
        assert!(
            a.starts_with(
                "No definition of `Router::fallback` was found; the nearest: `verify` is defined"
            ),
            "{a}"
        );
    }

    struct Calls;
    impl SymbolLinks for Calls {
        fn users(&self, _: &SearchHit) -> Vec<String> {
            Vec::new()
        }
        fn callees(&self, _: &SearchHit) -> Vec<String> {
            vec!["decode".into(), "check".into()]
        }
        fn callers(&self, _: &SearchHit) -> Vec<String> {
            (1..=7)
                .map(|i| format!("`Auth.login{i}` (`src/auth.ts:{i}`)"))
                .collect()
        }
    }

    #[test]
    fn phrases_shape_the_answer() {
        let r = looked_up("what does verify call", hits(), NameMatch::Exact);
        let a = extractive_answer(&r, &r.hits, AnswerStyle::Concise, &Calls);
        assert!(a.ends_with("It calls `decode` and `check`."), "{a}");
        let r = looked_up("who calls verify", hits(), NameMatch::Exact);
        let a = extractive_answer(&r, &r.hits, AnswerStyle::Default, &users);
        assert!(
            a.contains(
                "Uses: `src/auth.ts:12` (call of `verify`). Other matches: `src/sign.ts:3–40`"
            ),
            "{a}"
        );
        // Callers bound by the refs engine replace the uses search found.
        let a = extractive_answer(&r, &r.hits, AnswerStyle::Default, &Calls);
        assert!(
            a.contains(
                "Called from `Auth.login1` (`src/auth.ts:1`), `Auth.login2` (`src/auth.ts:2`), \
                 `Auth.login3` (`src/auth.ts:3`), `Auth.login4` (`src/auth.ts:4`), \
                 `Auth.login5` (`src/auth.ts:5`) and 2 more. Other matches:"
            ),
            "{a}"
        );
        assert!(!a.contains("Uses:"), "{a}");
    }

    #[test]
    fn style_names_parse() {
        assert_eq!(AnswerStyle::parse("concise"), Some(AnswerStyle::Concise));
        assert_eq!(AnswerStyle::parse("detailed"), Some(AnswerStyle::Detailed));
        assert_eq!(AnswerStyle::parse("default"), Some(AnswerStyle::Default));
        assert_eq!(AnswerStyle::parse("verbose"), None);
    }
}
