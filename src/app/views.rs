//! Turns the engine session's snapshots (engine data) into the view models `ui` draws:
//! hit rows with their evidence badge and score breakdown, the cut list, the "why" overlay.
//! Runs on the UI thread, once per snapshot (not per frame).

use crate::engine::live::session::{source_key, HitsSnapshot, MapSnapshot, WhyData};
use crate::engine::search::{Evidence, SearchHit};
use crate::ui::{CutRow, CutView, EvidenceBadge, HitRow, WhyEdge, WhyView};

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
