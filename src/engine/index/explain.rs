//! Why a file is in the map, or why not and what would bring it in: the answer behind the
//! TUI's `w` and `mapscope map --explain FILE`, from one code path so both say the same.
//!
//! Reads a built index, the ranking of a request and the map fitted from it; to find the
//! smallest budget that would show an absent file it re-fits (cheap: line costs are cached)
//! in a binary search, which is exact because a larger budget never drops what a smaller one
//! showed. Runs on the thread that asks (the engine worker, the CLI's main thread).

use crate::engine::base::model::DefKind;
use crate::engine::base::paths::is_within;
use crate::engine::index::{Index, MapRequest};
use crate::engine::link::graph::{explain_bindings, BindingCount};
use crate::engine::rank::budget::{smallest_budget_where, MAX_BUDGET_TRIED};
use crate::engine::rank::pagerank::RankOutput;
use crate::engine::rank::repo_map::RepoMap;
use crate::engine::rank::task::PinReason;

/// Neighbours named in an explanation.
const NEIGHBOURS_SHOWN: usize = 3;

/// Identifiers whose bindings an explanation spells out (those with the most uses).
const IDENTS_SHOWN: usize = 5;

/// A definition of the file and what showing it costs.
#[derive(Debug, Clone, PartialEq)]
pub struct DefCost {
    pub name: String,
    pub kind: DefKind,
    pub line: u32,
    /// Tokens its lines add to the map (with the file's path line when the file is absent).
    pub tokens: usize,
}

/// Everything `w` and `--explain` say about one file.
#[derive(Debug, Clone, PartialEq)]
pub struct FileExplanation {
    pub path: String,
    pub indexed: bool,
    pub in_map: bool,
    /// 1-based position among the map's files (reading order), when in the map.
    pub map_position: Option<usize>,
    pub map_files: usize,
    /// Tokens of the file's block, when in the map.
    pub tokens: usize,
    pub rank: f64,
    /// 1-based position among all files by rank.
    pub rank_position: usize,
    pub total_files: usize,
    /// The file's share of the personalization vector.
    pub personalization: f64,
    /// 1-based position of the file's best definition in the ranking (absent files).
    pub best_def_position: Option<usize>,
    /// 1-based position in the ranking of the first definition that did not fit.
    pub cutoff_position: Option<usize>,
    /// The cheapest of its definitions (absent files).
    pub cheapest: Option<DefCost>,
    /// The smallest budget whose map shows the file (absent files; `None` when none up to
    /// 262144 tokens would).
    pub budget_needed: Option<usize>,
    /// How the uses of its names in other files were bound (import, same package, member,
    /// guesses) or dropped (the language's own name, a method guess out of view), per
    /// identifier: what its "used by" count is made of. Empty when the index holds no
    /// references to bind again (a map-only index).
    pub bindings: Vec<BindingCount>,
    /// Plain-language lines: which signals put it there, or why it is not and what would
    /// bring it in.
    pub reasons: Vec<String>,
}

/// Explains `path` for the map `map` built from `ranked` for `req`.
pub fn explain_file(
    index: &Index,
    req: &MapRequest,
    ranked: &RankOutput,
    map: &RepoMap,
    path: &str,
) -> FileExplanation {
    let mut e = FileExplanation {
        path: path.to_string(),
        indexed: false,
        in_map: false,
        map_position: None,
        map_files: map.files.len(),
        tokens: 0,
        rank: 0.0,
        rank_position: 0,
        total_files: index.files.len(),
        personalization: 0.0,
        best_def_position: None,
        cutoff_position: None,
        cheapest: None,
        budget_needed: None,
        bindings: Vec::new(),
        reasons: Vec::new(),
    };
    let Some(fi) = index.resolve_user_path(path) else {
        if !explain_path_only(index, ranked, map, path, &mut e) {
            e.reasons.push(
                "not an indexed code file (prose and config files are searched, not mapped)".into(),
            );
        }
        return e;
    };
    let file = &index.files[fi];
    e.path.clone_from(&file.path);
    e.indexed = true;
    e.rank = ranked.file_rank.get(fi).copied().unwrap_or(0.0);
    e.rank_position = 1 + ranked
        .file_rank
        .iter()
        .enumerate()
        .filter(|&(j, &r)| r > e.rank || (r == e.rank && index.files[j].path < file.path))
        .count();
    e.personalization = ranked.personalization.get(fi).copied().unwrap_or(0.0);
    if let Some((pos, mf)) = map.files.iter().enumerate().find(|(_, f)| f.file == fi) {
        e.in_map = true;
        e.map_position = Some(pos + 1);
        e.tokens = mf.tokens;
    }
    let (focused, excluded) = request_reasons(index, req, fi, &mut e);
    signal_reasons(req, ranked, fi, &mut e);
    user_reasons(index, ranked, fi, &mut e);
    if index.files.iter().all(|f| f.unread_links.is_none()) {
        e.bindings = explain_bindings(&index.files, &index.go_modules, &index.ts_paths, fi);
        e.reasons.extend(binding_reasons(&e.bindings));
    }
    if file.vendored {
        e.reasons.push(vendored_reason(index, &file.path));
    }
    e.reasons.push(format!(
        "PageRank #{} of {} files (rank {:.5}, personalization {:.4})",
        e.rank_position, e.total_files, e.rank, e.personalization
    ));
    if e.in_map || focused || excluded {
        return e;
    }
    absent_reasons(index, req, ranked, map, fi, &mut e);
    e
}

/// Why a vendored file ranks as tests do: its folder's licence (`walk::licences`), or its
/// folder name or size (`paths::is_vendored`).
fn vendored_reason(index: &Index, path: &str) -> String {
    let why = match index.vendored_dirs.iter().find(|dir| is_within(path, dir)) {
        Some(dir) => format!(
            "`{dir}` has a build file and a licence of its own naming other holders than the \
             repository's"
        ),
        None => "its folder's name or its size says so (a third-party folder, an amalgamation)"
            .to_string(),
    };
    format!(
        "vendored, another project's copy: {why}; ranked as tests are (a query naming one of \
         its folders lifts that in search)"
    )
}

/// Whether the request focuses or excludes file `fi`, with the reason said.
fn request_reasons(
    index: &Index,
    req: &MapRequest,
    fi: usize,
    e: &mut FileExplanation,
) -> (bool, bool) {
    let focused = req
        .focus
        .iter()
        .any(|f| index.resolve_user_path(f) == Some(fi));
    let excluded = req
        .exclude_files
        .iter()
        .any(|f| index.resolve_user_path(f) == Some(fi));
    if focused {
        e.reasons.push(
            "a focus file: left out of the map (the LLM sees the file itself); the files it uses \
             and that use it are lifted"
                .into(),
        );
    }
    if excluded {
        e.reasons.push("excluded by you".into());
    }
    (focused, excluded)
}

/// The signals that steer file `fi`'s rank: identifiers pinned, search's rank of it.
fn signal_reasons(req: &MapRequest, ranked: &RankOutput, fi: usize, e: &mut FileExplanation) {
    let mut idents: Vec<&str> = Vec::new();
    let mut search_pinned = false;
    for pin in ranked.task.pins.iter().filter(|p| p.file == fi) {
        match &pin.reason {
            PinReason::Identifier(name) if !idents.contains(&name.as_str()) => {
                idents.push(name);
            }
            PinReason::Search(_) => search_pinned = true,
            PinReason::Identifier(_) => {}
        }
    }
    if !idents.is_empty() {
        e.reasons.push(format!(
            "defines {} (named in the request): its definitions go first",
            idents
                .iter()
                .map(|i| format!("`{i}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(tf) = ranked.task.search_file(fi) {
        let matched = match &tf.evidence {
            Some((ev, Some(sym), line)) => {
                format!(", best hit: {} `{sym}` at line {line}", ev.name())
            }
            Some((ev, None, line)) => format!(", best hit: {} at line {line}", ev.name()),
            None => String::new(),
        };
        let words = if tf.words.is_empty() {
            String::new()
        } else {
            format!("; matched words: {}", tf.words.join(", "))
        };
        if search_pinned {
            e.reasons.push(format!(
                "search ranks it #{} for the query (score {:.2}{matched}{words}): pinned, its \
                 matching definitions go first",
                tf.rank, tf.score
            ));
        } else {
            e.reasons.push(format!(
                "search ranks it #{} for the query (score {:.2}{matched}{words}): it steers the \
                 ranking but is not pinned (pinned: the first {} files scoring at least {:.0}% \
                 of the best, {} when search is unsure of the query)",
                tf.rank,
                tf.score,
                req.task.pin_files,
                req.task.pin_ratio * 100.0,
                req.task.unsure_pin_files.min(req.task.pin_files)
            ));
        }
    }
}

/// Who uses file `fi`, the heaviest users (by edge weight × rank) named.
fn user_reasons(index: &Index, ranked: &RankOutput, fi: usize, e: &mut FileExplanation) {
    let mut users: Vec<(f64, &str)> = index
        .graph
        .incoming(fi)
        .into_iter()
        .filter(|(src, _)| *src != fi)
        .map(|(src, edge)| {
            (
                edge.weight * ranked.file_rank.get(src).copied().unwrap_or(0.0),
                index.files[src].path.as_str(),
            )
        })
        .collect();
    users.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    if users.is_empty() {
        e.reasons.push("no other file uses it".into());
    } else {
        let shown: Vec<&str> = users.iter().take(NEIGHBOURS_SHOWN).map(|u| u.1).collect();
        let more = users.len().saturating_sub(NEIGHBOURS_SHOWN);
        e.reasons.push(format!(
            "used by {} file{}: {}{}",
            users.len(),
            if users.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
}

/// For a file absent from the map: where its definitions stand, what the cheapest costs,
/// what would bring it in.
fn absent_reasons(
    index: &Index,
    req: &MapRequest,
    ranked: &RankOutput,
    map: &RepoMap,
    fi: usize,
    e: &mut FileExplanation,
) {
    let file = &index.files[fi];
    if file.tags.defs.is_empty() {
        e.reasons
            .push("not in the map: it has no definitions to show (a map lists definitions)".into());
        return;
    }
    e.best_def_position = ranked.defs.iter().position(|d| d.file == fi).map(|p| p + 1);
    e.cutoff_position = map
        .cut
        .first()
        .and_then(|c| {
            ranked.defs.iter().position(|d| {
                let def = &index.files[d.file].tags.defs[d.def];
                index.files[d.file].path == c.path
                    && def.name == c.name
                    && def.signature.start == c.line
            })
        })
        .map(|p| p + 1);
    e.cheapest = cheapest_def(index, req, fi);
    let guess = e.cheapest.as_ref().map_or(64, |c| c.tokens);
    e.budget_needed = smallest_budget(index, req, ranked, fi, guess);
    let mut not_in = "not in the map".to_string();
    if let Some(p) = e.best_def_position {
        not_in.push_str(&format!(
            ": its best definition is #{p} of {} in the ranking",
            ranked.defs.len()
        ));
        if let Some(c) = e.cutoff_position {
            not_in.push_str(&format!(
                ", and the map stops at #{c} (the first definition that did not fit)"
            ));
        }
    }
    e.reasons.push(not_in);
    if let Some(c) = &e.cheapest {
        e.reasons.push(format!(
            "its cheapest definition, {} `{}` (line {}), costs {} tokens with the file's path line",
            c.kind.name(),
            c.name,
            c.line,
            c.tokens
        ));
    }
    let mut bring = Vec::new();
    if let Some(b) = e.budget_needed {
        bring.push(format!("a budget of {b} tokens (now {})", req.budget));
    }
    if let Some(c) = &e.cheapest {
        bring.push(format!("naming `{}` (--ident, or in the query)", c.name));
    }
    bring.push("a query that search answers with it".into());
    e.reasons
        .push(format!("would bring it in: {}", bring.join("; or ")));
    e.reasons.push(
        "focusing it (--focus) puts the whole file in front of the LLM instead, and lifts its \
         neighbours in the map"
            .into(),
    );
}

/// One line per identifier with the most uses (bound or dropped): how its uses reached the
/// file, e.g. "`File`: 3 uses from 2 files same package or scope; 412 uses from 80 files
/// dropped as the language's own name".
fn binding_reasons(bindings: &[BindingCount]) -> Vec<String> {
    let mut names: Vec<(&str, u32)> = Vec::new();
    for b in bindings {
        match names.last_mut() {
            Some((name, total)) if *name == b.name => *total += b.uses,
            _ => names.push((&b.name, b.uses)),
        }
    }
    names.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut lines: Vec<String> = names
        .iter()
        .take(IDENTS_SHOWN)
        .map(|&(name, _)| {
            let parts: Vec<String> = bindings
                .iter()
                .filter(|b| b.name == name)
                .map(|b| {
                    format!(
                        "{} use{} from {} file{} {}",
                        b.uses,
                        if b.uses == 1 { "" } else { "s" },
                        b.files,
                        if b.files == 1 { "" } else { "s" },
                        b.how.label()
                    )
                })
                .collect();
            format!(
                "`{}`: {}",
                crate::engine::base::text::sanitize(name),
                parts.join("; ")
            )
        })
        .collect();
    if names.len() > IDENTS_SHOWN {
        lines.push(format!(
            "and {} more of its names used elsewhere",
            names.len() - IDENTS_SHOWN
        ));
    }
    if !lines.is_empty() {
        lines.insert(0, "how uses of its names were bound:".to_string());
    }
    lines
}

/// The definition of `fi` whose lines cost the fewest tokens on their own, path line
/// included.
fn cheapest_def(index: &Index, req: &MapRequest, fi: usize) -> Option<DefCost> {
    let file = &index.files[fi];
    let tok = crate::engine::base::tokenizer::tokenizer(req.tokenizer);
    file.tags
        .defs
        .iter()
        .filter_map(|d| {
            let mut text = format!("{}:\n", file.path);
            for line in d.signature.start..=d.signature.end {
                let l = file.line(line)?;
                text.push_str(l);
                text.push('\n');
            }
            Some(DefCost {
                name: d.name.clone(),
                kind: d.kind,
                line: d.signature.start,
                tokens: tok.count(&text),
            })
        })
        .min_by(|a, b| a.tokens.cmp(&b.tokens).then(a.line.cmp(&b.line)))
}

/// The smallest budget whose map (same ranking) shows file `fi`; `None` if even
/// `MAX_BUDGET_TRIED` tokens would not.
fn smallest_budget(
    index: &Index,
    req: &MapRequest,
    ranked: &RankOutput,
    fi: usize,
    guess: usize,
) -> Option<usize> {
    smallest_budget_where(req.budget, guess, |budget| {
        index
            .fit(ranked, &req.at_budget(budget))
            .files
            .iter()
            .any(|f| f.file == fi)
    })
}

/// The map's cut list as text (`mapscope map --explain` without a file): the best-ranked
/// definitions that did not fit, with what each would add, and the budget that would take
/// the first.
pub fn render_cut_text(map: &RepoMap) -> String {
    use crate::engine::base::text::sanitize;
    let mut s = format!(
        "map: {} of {} tokens, {} files, {} definitions\n",
        map.tokens,
        map.budget,
        map.files.len(),
        map.symbol_count()
    );
    if map.cut.is_empty() {
        s.push_str("cut: nothing (every ranked definition fits)\n");
        return s;
    }
    s.push_str(&format!(
        "cut: the {} best-ranked definitions that did not fit (tokens each would add):\n",
        map.cut.len()
    ));
    for c in &map.cut {
        s.push_str(&format!(
            "  {}:{}  {} {}  ~{} tokens\n",
            sanitize(&c.path),
            c.line,
            c.kind.name(),
            sanitize(&c.name),
            c.tokens
        ));
    }
    match (map.cut.first(), map.next_budget) {
        (Some(first), Some(b)) => s.push_str(&format!(
            "use --tokens {b}+ to include `{}` (the first cut)\n",
            sanitize(&first.name)
        )),
        _ => s.push_str(&format!(
            "no budget up to {MAX_BUDGET_TRIED} tokens includes the first cut\n"
        )),
    }
    s
}

/// Explains a source file without a grammar (`Index::unsupported`), which the map shows by
/// its path alone; false when `path` is not one.
fn explain_path_only(
    index: &Index,
    ranked: &RankOutput,
    map: &RepoMap,
    path: &str,
    e: &mut FileExplanation,
) -> bool {
    let typed = path.trim_start_matches("./");
    let Some(k) = index.unsupported.iter().position(|u| u.rel_path == typed) else {
        return false;
    };
    let u = &index.unsupported[k];
    e.path.clone_from(&u.rel_path);
    if let Some((pos, mf)) = map
        .files
        .iter()
        .enumerate()
        .find(|(_, f)| f.is_path_only() && f.path == u.rel_path)
    {
        e.in_map = true;
        e.map_position = Some(pos + 1);
        e.tokens = mf.tokens;
    }
    let name = u.rel_path.rsplit('/').next().unwrap_or(&u.rel_path);
    let naming = index
        .files
        .iter()
        .filter(|f| f.tags.mentions.iter().any(|m| m.eq_ignore_ascii_case(name)))
        .count();
    let score = ranked.paths.iter().find(|r| r.path == k).map(|r| r.score);
    e.rank = score.unwrap_or(0.0);
    e.reasons.push(format!(
        "a {} file without a grammar: the map shows it by its path alone",
        u.language
    ));
    e.reasons.push(match score {
        Some(s) => format!(
            "named in {naming} code file{}; score {s:.5} (the names and the query's words in \
             its path; 0 comes after every definition)",
            if naming == 1 { "" } else { "s" }
        ),
        None => "left out by the request's scope or exclusions".into(),
    });
    true
}

/// The explanation as text lines: a heading, then one line per reason.
pub fn render_text(e: &FileExplanation) -> String {
    let mut s = String::new();
    let head = match (e.in_map, e.map_position) {
        (true, Some(p)) => format!(
            "{}: in the map, file {p} of {} ({} tokens)",
            e.path, e.map_files, e.tokens
        ),
        _ if e.indexed => format!("{}: not in the map", e.path),
        _ => format!("{}: not indexed", e.path),
    };
    s.push_str(&head);
    s.push('\n');
    for r in &e.reasons {
        s.push_str("  ");
        s.push_str(r);
        s.push('\n');
    }
    s
}
