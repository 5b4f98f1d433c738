//! Which files a search may return: its path globs and its scope (`--include`, `--exclude`,
//! `--lang`), compiled once per query. On the caller's thread.

use super::*;
use crate::engine::base::model::Lang;

/// Path globs and the scope (`--include`, `--exclude`, `--lang`) from `SearchOptions`.
pub(crate) struct Filter {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
    scope: Scope,
}

impl Filter {
    pub(crate) fn new(opts: &SearchOptions) -> Result<Filter, SearchError> {
        let mut inc = GlobSetBuilder::new();
        let mut exc = GlobSetBuilder::new();
        let (mut n_inc, mut n_exc) = (0, 0);
        for raw in &opts.path_globs {
            let (negated, pat) = match raw.strip_prefix('!') {
                Some(p) => (true, p),
                None => (false, raw.as_str()),
            };
            let pat = pat.trim().trim_start_matches("./").trim_end_matches('/');
            if pat.is_empty() {
                continue;
            }
            let mut globs = vec![pat.to_string()];
            if !pat.contains(['*', '?', '[', '{']) {
                // A plain folder name also means everything under it.
                globs.push(format!("{pat}/**"));
            }
            for g in globs {
                let glob = Glob::new(&g).map_err(|e| SearchError::BadGlob {
                    glob: raw.clone(),
                    message: e.kind().to_string(),
                })?;
                if negated {
                    exc.add(glob);
                    n_exc += 1;
                } else {
                    inc.add(glob);
                    n_inc += 1;
                }
            }
        }
        let bad = |e: globset::Error| SearchError::BadGlob {
            glob: opts.path_globs.join(","),
            message: e.kind().to_string(),
        };
        let include = if n_inc > 0 {
            Some(inc.build().map_err(bad)?)
        } else {
            None
        };
        let exclude = if n_exc > 0 {
            Some(exc.build().map_err(bad)?)
        } else {
            None
        };
        let scope = Scope::new(&ScopeSpec {
            include: opts.include.clone(),
            exclude: opts.exclude.clone(),
            langs: opts.langs.clone(),
        })?;
        Ok(Filter {
            include,
            exclude,
            scope,
        })
    }

    pub(super) fn allows(&self, unit: &Unit) -> bool {
        !unit.hidden && self.allows_path(&unit.path, unit.lang)
    }

    /// Whether a file at `path` in `lang` (`None`: a prose document) may be returned.
    pub(crate) fn allows_path(&self, path: &str, lang: Option<Lang>) -> bool {
        if !self.scope.allows(path, lang) {
            return false;
        }
        if let Some(inc) = &self.include {
            if !inc.is_match(path) {
                return false;
            }
        }
        if let Some(exc) = &self.exclude {
            if exc.is_match(path) {
                return false;
            }
        }
        true
    }
}
