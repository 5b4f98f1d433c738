//! Extra sources: read-only roots searched after the project (a library of examples, a
//! vendored dependency, a sibling repository), each indexed with its own cache, and what
//! every hit says about itself wherever it comes from: its `source`, a `relevance` from 0 to
//! 100 and a one-line `match_reason`. Pure functions; they run on whichever thread searches.
//!
//! mapscope never writes into a source: its index is cached in the user's cache directory
//! like the project's, keyed by its own root. The map stays the project's own.

use std::path::{Path, PathBuf};

use crate::engine::search::{Evidence, SearchHit};

/// The name of the project's own hits.
pub const PROJECT: &str = "project";

/// One `--source NAME=PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceSpec {
    pub name: String,
    pub path: PathBuf,
}

/// Why a source cannot be used (the CLI reports it as `INVALID_ARGUMENT`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("a source is NAME=PATH (got `{0}`)")]
    Syntax(String),
    #[error(
        "source name `{0}` must be letters, digits, `-` or `_` (at most 32) and not `project`"
    )]
    BadName(String),
    #[error("source `{0}` is given twice")]
    Duplicate(String),
    #[error("source `{name}`: {path} is not a directory")]
    Missing { name: String, path: String },
    #[error("source `{name}`: {path} is inside the project (it is searched already) or holds it")]
    Overlaps { name: String, path: String },
}

impl SourceSpec {
    /// Parses `NAME=PATH`.
    pub fn parse(spec: &str) -> Result<SourceSpec, SourceError> {
        let (name, path) = spec
            .split_once('=')
            .filter(|(n, p)| !n.is_empty() && !p.is_empty())
            .ok_or_else(|| SourceError::Syntax(spec.to_string()))?;
        let valid = name.len() <= 32
            && name != PROJECT
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(SourceError::BadName(name.to_string()));
        }
        Ok(SourceSpec {
            name: name.to_string(),
            path: PathBuf::from(path),
        })
    }
}

/// Checks `specs` against the project at `project_root`: each an existing directory, not
/// inside the project nor holding it, names distinct. Returns them with canonical paths.
pub fn check_sources(
    project_root: &Path,
    specs: &[SourceSpec],
) -> Result<Vec<SourceSpec>, SourceError> {
    let project = project_root
        .canonicalize()
        .unwrap_or_else(|_| project_root.to_path_buf());
    let mut out: Vec<SourceSpec> = Vec::with_capacity(specs.len());
    for spec in specs {
        if out.iter().any(|s| s.name == spec.name) {
            return Err(SourceError::Duplicate(spec.name.clone()));
        }
        let shown = crate::engine::base::text::display_path(&spec.path);
        let path = spec
            .path
            .canonicalize()
            .ok()
            .filter(|p| p.is_dir())
            .ok_or_else(|| SourceError::Missing {
                name: spec.name.clone(),
                path: shown.clone(),
            })?;
        if path.starts_with(&project) || project.starts_with(&path) {
            return Err(SourceError::Overlaps {
                name: spec.name.clone(),
                path: shown,
            });
        }
        out.push(SourceSpec {
            name: spec.name.clone(),
            path,
        });
    }
    Ok(out)
}

/// A hit's relevance from 0 to 100: its score as a share of the best hit's score in the same
/// search of the same source (the best is 100), halved when search was unsure of the query
/// there (`low_score`). Scores are not comparable across queries or sources; this share is.
pub fn relevance(score: f64, best: f64, low_score: bool) -> u8 {
    if !(score.is_finite() && best.is_finite()) || best <= 0.0 || score <= 0.0 {
        return 0;
    }
    let share = (score / best).clamp(0.0, 1.0) * if low_score { 50.0 } else { 100.0 };
    // In 0..=100 by the clamp above.
    share.round() as u8
}

/// One line saying why a hit matched, from its evidence and the signals that scored it:
/// "defines `verify`; path matches; past commits mention it".
pub fn match_reason(hit: &SearchHit) -> String {
    let symbol = hit
        .symbol
        .as_deref()
        .map(|s| crate::engine::base::text::sanitize(s).into_owned());
    let mut parts: Vec<String> = Vec::new();
    let what = match (hit.evidence, &symbol) {
        (Evidence::Definition, Some(s)) if hit.signals.name > 0.0 => format!("name matches `{s}`"),
        (Evidence::Definition, Some(s)) => format!("definition `{s}` mentions the words"),
        (Evidence::Call, Some(s)) => format!("calls `{s}`"),
        (Evidence::Reference, Some(s)) => format!("uses `{s}`"),
        (Evidence::Import, Some(s)) => format!("imports `{s}`"),
        (Evidence::Text, Some(s)) => format!("text mentions `{s}`"),
        (e, None) => format!("{} matches the words", e.name()),
    };
    parts.push(what);
    let s = &hit.signals;
    if s.path > 0.0 {
        parts.push("path matches".into());
    }
    if s.history > 0.0 {
        parts.push("past commits mention it".into());
    }
    if s.graph > 0.0 && s.graph >= s.bm25 && s.name <= 0.0 {
        parts.push("linked to matching files".into());
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::model::LineRange;
    use crate::engine::search::Signals;

    #[test]
    fn source_specs_parse_and_are_checked_against_the_project() {
        assert_eq!(
            SourceSpec::parse("lib=../lib").unwrap(),
            SourceSpec {
                name: "lib".into(),
                path: "../lib".into()
            }
        );
        for bad in ["lib", "=x", "lib=", "project=x", "a b=x", "é=x"] {
            assert!(SourceSpec::parse(bad).is_err(), "{bad}");
        }
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("app");
        let lib = dir.path().join("lib");
        std::fs::create_dir_all(project.join("vendor")).unwrap();
        std::fs::create_dir_all(&lib).unwrap();
        let spec = |name: &str, path: &Path| SourceSpec {
            name: name.into(),
            path: path.to_path_buf(),
        };
        let ok = check_sources(&project, &[spec("lib", &lib)]).unwrap();
        assert_eq!(ok[0].path, lib.canonicalize().unwrap());
        assert!(matches!(
            check_sources(&project, &[spec("v", &project.join("vendor"))]),
            Err(SourceError::Overlaps { .. })
        ));
        assert!(matches!(
            check_sources(&project, &[spec("up", dir.path())]),
            Err(SourceError::Overlaps { .. })
        ));
        assert!(matches!(
            check_sources(&project, &[spec("gone", &dir.path().join("gone"))]),
            Err(SourceError::Missing { .. })
        ));
        assert!(matches!(
            check_sources(&project, &[spec("lib", &lib), spec("lib", &lib)]),
            Err(SourceError::Duplicate(_))
        ));
    }

    #[test]
    fn relevance_is_the_share_of_the_best_hit() {
        assert_eq!(relevance(10.0, 10.0, false), 100);
        assert_eq!(relevance(5.0, 10.0, false), 50);
        assert_eq!(relevance(10.0, 10.0, true), 50);
        assert_eq!(relevance(0.0, 10.0, false), 0);
        assert_eq!(relevance(f64::NAN, 10.0, false), 0);
        assert_eq!(relevance(20.0, 10.0, false), 100);
    }

    #[test]
    fn the_match_reason_names_the_evidence_and_the_signals() {
        let hit = SearchHit {
            file_path: "src/jwt.ts".into(),
            line_range: LineRange { start: 1, end: 9 },
            excerpt: String::new(),
            evidence: Evidence::Definition,
            symbol: Some("verify".into()),
            kind: Some("function".into()),
            score: 3.0,
            signals: Signals {
                name: 1.0,
                path: 0.5,
                history: 0.2,
                ..Signals::default()
            },
        };
        assert_eq!(
            match_reason(&hit),
            "name matches `verify`; path matches; past commits mention it"
        );
        let text = SearchHit {
            evidence: Evidence::Text,
            symbol: Some("token\u{1b}".into()),
            signals: Signals::default(),
            ..hit
        };
        let reason = match_reason(&text);
        assert!(reason.starts_with("text mentions `token"), "{reason}");
        assert!(!reason.chars().any(crate::engine::base::text::is_unsafe));
    }
}
