//! Turns the engine session's snapshots (engine data) into the view models `ui` draws:
//! hit rows with their evidence badge and score breakdown, the cut list, the "why" overlay,
//! the references pane's lines.
//! Runs on the UI thread, once per snapshot (not per frame).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::engine::base::model::RefKind;
use crate::engine::index::refs::{RefTarget, RefsAnswer, UseSite};
use crate::engine::live::session::{source_key, HitsSnapshot, MapSnapshot, WhyData};
use crate::engine::search::{Evidence, SearchHit};
use crate::ui::{CutRow, CutView, EvidenceBadge, HitRow, RefsLine, RefsRow, WhyEdge, WhyView};

/// One search hit as the hits pane and the preview use it.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// An extra source's hit shows its file as `NAME:path` (see `session::source_key`).
    pub row: HitRow,
    pub excerpt: String,
    /// The extra source it comes from; `None` for the project's own hits.
    pub source: Option<String>,
}

/// A query's hits, ready to draw.
#[derive(Debug, Clone)]
pub struct Hits {
    pub generation: u64,
    pub query: String,
    pub hits: Vec<Hit>,
    /// "high", "medium", "low".
    pub confidence: String,
    pub low_score: bool,
    /// One-sentence extractive answer, shown above the hits.
    pub answer: String,
    pub latency_ms: f64,
    /// The text of hits' files the index does not hold (`HitsSnapshot::texts`).
    pub texts: BTreeMap<String, Arc<str>>,
}

impl Hits {
    pub fn from_snapshot(s: &HitsSnapshot) -> Hits {
        Hits {
            generation: s.generation,
            query: s.query.clone(),
            // The project's hits, then each source's, as the CLI and MCP list them.
            hits: s
                .hits
                .iter()
                .map(|h| hit(h, None))
                .chain(
                    s.source_hits
                        .iter()
                        .flat_map(|(name, hits)| hits.iter().map(move |h| hit(h, Some(name)))),
                )
                .collect(),
            confidence: s.confidence.name().to_string(),
            low_score: s.low_score,
            answer: s.answer.clone(),
            latency_ms: s.latency_ms,
            texts: s.texts.clone(),
        }
    }
}

fn hit(h: &SearchHit, source: Option<&str>) -> Hit {
    let evidence = match h.evidence {
        Evidence::Definition => EvidenceBadge::Definition,
        Evidence::Reference => EvidenceBadge::Reference,
        Evidence::Call => EvidenceBadge::Call,
        Evidence::Import => EvidenceBadge::Import,
        Evidence::Text => EvidenceBadge::Text,
    };
    let s = &h.signals;
    Hit {
        row: HitRow {
            evidence,
            kind: h.kind.clone().unwrap_or_default(),
            // A text hit names no symbol: its column shows the matched line instead.
            symbol: h.symbol.clone().unwrap_or_else(|| {
                h.excerpt
                    .lines()
                    .map(str::trim)
                    .find(|l| !l.is_empty())
                    .unwrap_or_default()
                    .to_string()
            }),
            path: match source {
                Some(name) => source_key(name, &h.file_path),
                None => h.file_path.clone(),
            },
            start: h.line_range.start,
            end: h.line_range.end,
            score: h.score,
            signals: vec![
                ("bm25".into(), s.bm25),
                ("name".into(), s.name),
                ("path".into(), s.path),
                ("graph".into(), s.graph),
                ("prior".into(), s.prior),
                ("penalty".into(), s.penalty),
                ("history".into(), s.history),
            ],
            focus: false,
        },
        excerpt: h.excerpt.clone(),
        source: source.map(str::to_string),
    }
}

/// The cut overlay's view of a map.
pub fn cut_view(m: &MapSnapshot) -> CutView {
    CutView {
        budget: m.budget,
        used: m.tokens,
        rows: m
            .cut
            .iter()
            .map(|c| CutRow {
                path: c.path.clone(),
                symbol: c.name.clone(),
                kind: c.kind.name().to_string(),
                line: c.line,
                rank: c.score,
                tokens: c.tokens,
            })
            .collect(),
    }
}

/// The "why" overlay's view of an explanation.
pub fn why_view(why: &WhyData) -> WhyView {
    let e = &why.explained;
    if !e.indexed {
        return WhyView {
            path: e.path.clone(),
            reasons: e.reasons.clone(),
            total_files: e.total_files,
            ..WhyView::default()
        };
    }
    WhyView {
        path: e.path.clone(),
        rank: e.rank,
        position: e.rank_position,
        total_files: e.total_files,
        personalization: e.personalization,
        reasons: e.reasons.clone(),
        in_map: e.in_map,
        map_position: e.map_position,
        map_files: e.map_files,
        tokens: e.tokens,
        incoming: why
            .incoming
            .iter()
            .map(|i| WhyEdge {
                path: i.path.clone(),
                weight: i.weight,
                idents: i.idents.clone(),
            })
            .collect(),
    }
}

/// Where a use site of the references pane is, and what the references key follows from
/// it: (title, target) of its caller (a caller's row) or of the definition it bound to (a
/// callee's row); `None` for a use at the top level of its file.
#[derive(Debug, Clone, PartialEq)]
pub struct RefsSite {
    pub path: String,
    pub line: u32,
    pub follow: Option<(String, RefTarget)>,
}

/// The references pane's lines for an answer: the notes, then per definition its header,
/// its callers and its callees; with each line, its use site (`None` for the others).
pub fn refs_lines(a: &RefsAnswer) -> (Vec<RefsLine>, Vec<Option<RefsSite>>) {
    let mut lines = Vec::new();
    let mut sites = Vec::new();
    let mut push = |line: RefsLine, site: Option<RefsSite>| {
        lines.push(line);
        sites.push(site);
    };
    for note in &a.notes {
        push(RefsLine::Section(note.clone()), None);
    }
    for g in &a.groups {
        let d = &g.definition;
        // The qualified name says where it lives; without one, the enclosing definition.
        let inside = match (&d.qualified_name, &d.parent) {
            (None, Some(p)) => format!(" (in {p})"),
            _ => String::new(),
        };
        push(
            RefsLine::Definition {
                name: d.qualified_name.clone().unwrap_or_else(|| d.name.clone()),
                kind: d.kind.name().to_string(),
                location: format!("{}:{}-{}{inside}", d.path, d.lines.start, d.lines.end),
            },
            None,
        );
        let sections = [
            (
                a.direction.callers(),
                "callers",
                g.callers_total,
                &g.callers,
                0,
            ),
            (
                a.direction.callees(),
                "callees",
                g.callees_total,
                &g.callees,
                g.callees_unbound,
            ),
        ];
        for (asked, title, total, uses, unbound) in sections {
            if !asked {
                continue;
            }
            push(
                RefsLine::Section(section_title(title, total, uses.len(), unbound)),
                None,
            );
            let callee = title == "callees";
            for u in uses {
                let (row, site) = use_row(u, callee);
                push(RefsLine::Use(row), Some(site));
            }
        }
    }
    (lines, sites)
}

/// `callers (3)`, `callees (first 100 of 240; 4 bound to nothing)`, `callers: none`.
fn section_title(title: &str, total: usize, shown: usize, unbound: usize) -> String {
    let nothing = if unbound > 0 {
        format!("{unbound} bound to nothing in the repository")
    } else {
        String::new()
    };
    match (total, nothing.is_empty()) {
        (0, true) => format!("{title}: none"),
        (0, false) => format!("{title}: none ({nothing})"),
        (t, empty) => {
            let count = if shown < t {
                format!("first {shown} of {t}")
            } else {
                t.to_string()
            };
            if empty {
                format!("{title} ({count})")
            } else {
                format!("{title} ({count}; {nothing})")
            }
        }
    }
}

fn use_row(u: &UseSite, callee: bool) -> (RefsRow, RefsSite) {
    let (badge, kind) = match u.kind {
        RefKind::Call => (EvidenceBadge::Call, "call"),
        RefKind::Reference => (EvidenceBadge::Reference, "ref"),
        RefKind::Type => (EvidenceBadge::Reference, "type"),
        RefKind::Heritage => (EvidenceBadge::Reference, "inh"),
        RefKind::Import => (EvidenceBadge::Import, "imp"),
    };
    let at = |path: &str, line: u32| RefTarget::At {
        path: path.to_string(),
        line,
    };
    // Definitions by their qualified names where they have one (`Circle.area`).
    let (what, follow) = if callee {
        let first = u.definitions.first();
        let what = match first {
            Some(d) => format!(
                "{} → {}:{}",
                d.qualified_name.as_deref().unwrap_or(&u.name),
                d.path,
                d.lines.start
            ),
            None => u.name.clone(),
        };
        let follow = first.map(|d| {
            let title = d.qualified_name.clone().unwrap_or_else(|| d.name.clone());
            (title, at(&d.path, d.lines.start))
        });
        (what, follow)
    } else {
        match &u.enclosing {
            Some(e) => {
                let title = e.qualified_name.clone().unwrap_or_else(|| e.name.clone());
                (title.clone(), Some((title, at(&u.path, e.lines.start))))
            }
            None => ("(top level)".to_string(), None),
        }
    };
    let binding = if u.candidates > 1 {
        format!("{} ×{}", u.binding.words(), u.candidates)
    } else {
        u.binding.words().to_string()
    };
    (
        RefsRow {
            badge,
            kind,
            path: u.path.clone(),
            line: u.line,
            what,
            binding,
            ambiguous: u.ambiguous,
            test: u.test,
        },
        RefsSite {
            path: u.path.clone(),
            line: u.line,
            follow,
        },
    )
}
