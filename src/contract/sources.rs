//! Which folders a request may search: the `sources` argument (names of the sources a server
//! was started with, or `NAME=PATH` roots), what a server lets it name (`SourcePolicy`), and
//! which index a `repo_path` names. Runs where `contract` does.

use std::path::{Path, PathBuf};

use super::ArgError;
use crate::engine::base::text::sanitize;
use crate::engine::search::sources::{check_sources, SourceError, SourceSpec};

/// One entry of a request's `sources`: a source the server was started with, by name, or
/// another read-only root for this request (`NAME=PATH`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceRequest {
    Named(String),
    Root(SourceSpec),
}

/// The `sources` argument: absent (or null) is `None`, every source the server was started
/// with; an empty list is the project only. Over HTTP a list item without `=` may name
/// several sources separated by commas (`sources=lib,examples`).
pub fn requested_sources(
    items: Option<Vec<String>>,
) -> Result<Option<Vec<SourceRequest>>, ArgError> {
    let Some(items) = items else {
        return Ok(None);
    };
    let mut out = Vec::new();
    for item in items {
        if item.contains('=') {
            let spec = SourceSpec::parse(&item).map_err(|e| ArgError::new(e.to_string()))?;
            out.push(SourceRequest::Root(spec));
        } else {
            out.extend(
                item.split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(|n| SourceRequest::Named(n.to_string())),
            );
        }
    }
    Ok(Some(out))
}

/// Which folders a request's `NAME=PATH` source may name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceRoots {
    /// Any directory outside the project (MCP: its one client is the local agent that
    /// started it).
    Any,
    /// None: a request picks among the sources the server was started with (HTTP's
    /// default: any web page or machine that reaches the port could name a folder).
    Nothing,
    /// Directories at or under these canonical folders only (HTTP's `--source-root`); a
    /// path is compared once canonical, so a link out of them leads nowhere.
    Under(Vec<PathBuf>),
}

/// Why a request's `sources` were refused: a bad entry (`INVALID_ARGUMENT`), or a folder the
/// server does not let requests name (`SOURCE_NOT_ALLOWED`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceRefusal {
    Invalid(ArgError),
    NotAllowed(String),
}

impl SourceRefusal {
    pub fn code(&self) -> &'static str {
        match self {
            SourceRefusal::Invalid(_) => "INVALID_ARGUMENT",
            SourceRefusal::NotAllowed(_) => "SOURCE_NOT_ALLOWED",
        }
    }

    pub fn message(&self) -> &str {
        match self {
            SourceRefusal::Invalid(e) => &e.0,
            SourceRefusal::NotAllowed(why) => why,
        }
    }
}

impl From<ArgError> for SourceRefusal {
    fn from(e: ArgError) -> SourceRefusal {
        SourceRefusal::Invalid(e)
    }
}

impl From<SourceRefusal> for ArgError {
    fn from(r: SourceRefusal) -> ArgError {
        ArgError::new(r.message())
    }
}

/// What a server lets a request's `sources` name: the sources it was started with, and
/// the folders `roots` allows, checked like `--source`.
#[derive(Debug, Clone)]
pub struct SourcePolicy {
    pub project_root: PathBuf,
    pub configured: Vec<SourceSpec>,
    pub roots: SourceRoots,
}

impl SourcePolicy {
    pub fn new(project_root: &Path, configured: Vec<SourceSpec>, roots: SourceRoots) -> Self {
        SourcePolicy {
            project_root: project_root.to_path_buf(),
            configured,
            roots,
        }
    }

    /// The sources `requested` names, in order: each name one the server was started with,
    /// each root an existing directory outside the project, no name twice (nor a root named
    /// like a configured source).
    pub fn resolve(
        &self,
        requested: Option<&[SourceRequest]>,
    ) -> Result<Option<Vec<SourceSpec>>, SourceRefusal> {
        let Some(requested) = requested else {
            return Ok(None);
        };
        let mut out: Vec<SourceSpec> = Vec::with_capacity(requested.len());
        for entry in requested {
            let spec = match entry {
                SourceRequest::Named(name) => self
                    .configured
                    .iter()
                    .find(|s| &s.name == name)
                    .cloned()
                    .ok_or_else(|| self.unknown(name))?,
                SourceRequest::Root(spec) => {
                    if self.roots == SourceRoots::Nothing {
                        return Err(SourceRefusal::NotAllowed(format!(
                            "source `{}`: this server reads no folder a request names (start \
                             it with --source-root DIR to allow the folders under DIR); \
                             configured sources: {}",
                            sanitize(&spec.name),
                            self.names()
                        )));
                    }
                    if self.configured.iter().any(|s| s.name == spec.name) {
                        return Err(source_error(&SourceError::Duplicate(spec.name.clone())).into());
                    }
                    let checked = check_sources(&self.project_root, std::slice::from_ref(spec))
                        .map_err(|e| source_error(&e))?;
                    let checked = checked
                        .into_iter()
                        .next()
                        .ok_or_else(|| self.unknown(&spec.name))?;
                    if let SourceRoots::Under(roots) = &self.roots {
                        if !roots.iter().any(|root| checked.path.starts_with(root)) {
                            return Err(SourceRefusal::NotAllowed(format!(
                                "source `{}`: {} is not under a folder this server lets \
                                 requests name (--source-root)",
                                sanitize(&spec.name),
                                crate::engine::base::text::display_path(&spec.path)
                            )));
                        }
                    }
                    checked
                }
            };
            if out.iter().any(|s| s.name == spec.name) {
                return Err(source_error(&SourceError::Duplicate(spec.name)).into());
            }
            out.push(spec);
        }
        Ok(Some(out))
    }

    /// Which index `repo_path` names: the served root or a configured source's folder (the
    /// same folder however it is spelt: relative to the current directory, through links).
    pub fn repo(&self, repo_path: &str) -> Result<RepoTarget, RepoRefusal> {
        let shown = sanitize(repo_path);
        let given = Path::new(repo_path);
        let Ok(real) = std::fs::canonicalize(given) else {
            return Err(RepoRefusal {
                code: "REPO_NOT_FOUND",
                message: format!("repo_path {shown}: no such folder"),
            });
        };
        let same = |p: &Path| std::fs::canonicalize(p).is_ok_and(|p| p == real);
        if same(&self.project_root) {
            return Ok(RepoTarget::Project);
        }
        if let Some(s) = self.configured.iter().find(|s| same(&s.path)) {
            return Ok(RepoTarget::Source(s.name.clone()));
        }
        let what = if real.is_dir() {
            "is not the folder this server serves nor one of its sources"
        } else {
            "is not a folder"
        };
        Err(RepoRefusal {
            code: "INVALID_REPO",
            message: format!(
                "repo_path {shown} {what} (serving {}; sources: {})",
                crate::engine::base::text::display_path(&self.project_root),
                self.names()
            ),
        })
    }

    fn names(&self) -> String {
        if self.configured.is_empty() {
            "none configured".into()
        } else {
            let names: Vec<&str> = self.configured.iter().map(|s| s.name.as_str()).collect();
            names.join(", ")
        }
    }

    fn unknown(&self, name: &str) -> ArgError {
        ArgError::new(format!(
            "unknown source `{}` (configured: {}; NAME=PATH adds another root)",
            sanitize(name),
            self.names()
        ))
    }
}

fn source_error(e: &SourceError) -> ArgError {
    ArgError::new(sanitize(&e.to_string()).into_owned())
}

/// Which index a `repo_path` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoTarget {
    Project,
    /// A source the server was started with, by name.
    Source(String),
}

/// Why a `repo_path` is refused: `REPO_NOT_FOUND` (nothing there) or `INVALID_REPO` (not a
/// folder, or not one this server serves).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoRefusal {
    pub code: &'static str,
    pub message: String,
}
