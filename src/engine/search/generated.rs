//! Look-ups answered from generated files: a pure step on the querying thread, after the
//! search proper.
//!
//! A file a generator wrote (`SkipReason::Generated`: a `.pb.go`, flex's scanner, Bison's
//! parser) is not indexed: nobody edits it, and its size would drown what people wrote in
//! the map and in search's ranking. But people still look its names up ("where is `yylex`
//! defined", a protobuf message's Go type). So when a look-up's hits hold no definition of
//! the name as typed, `index::generated` parses the generated files that contain the name
//! and [`merge`] puts their definitions of it first. Nothing else changes: a query that is
//! not a look-up, or whose name is defined in the indexed files, is answered as before.

use super::container::{container_of, file_matches, match_container};
use super::describe::{definition_excerpt, is_declaration};
use super::run::Filter;
use super::{Confidence, Evidence, NameMatch, SearchHit, SearchOptions, SearchResponse, Signals};
use super::{Lookup, MAX_TOP};
use crate::engine::base::model::ParsedFile;

/// The name a generated file may answer for `response`: its look-up's, when no hit is a
/// definition with a body of the name as typed in the typed container (or, for a bare
/// name, anywhere). `declared(hit)` tells a definition declared without a body (a C
/// prototype: `Definition::declaration`), which a body ranks above.
pub fn wanted<'r>(
    response: &'r SearchResponse,
    declared: &dyn Fn(&SearchHit) -> bool,
) -> Option<&'r Lookup> {
    let lookup = response.read.lookup.as_ref()?;
    let typed_container = !lookup.container.is_empty() || lookup.file.is_some();
    let answered = match best_match(response, declared) {
        Some((NameMatch::InContainer, false)) => true,
        Some((NameMatch::Exact, false)) => !typed_container,
        _ => false,
    };
    (!answered).then_some(lookup)
}

/// How the best hit answers the look-up, among hits that are definitions of its name, and
/// whether it is declared without a body.
fn best_match(
    response: &SearchResponse,
    declared: &dyn Fn(&SearchHit) -> bool,
) -> Option<(NameMatch, bool)> {
    response
        .hits
        .iter()
        .enumerate()
        .filter_map(|(i, h)| Some((response.match_of(i)?, h)))
        .filter(|(m, _)| m.is_name())
        .map(|(m, h)| (m, declared(h)))
        .min()
}

/// Whether `path` is a C or C++ header.
fn is_header(path: &str) -> bool {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    ["h", "hh", "hpp", "hxx"]
        .iter()
        .any(|h| ext.eq_ignore_ascii_case(h))
}

/// Puts the definitions of `response`'s look-up in `files` (parsed generated files) above
/// its hits, when they answer it better than the best hit does: the name as typed in the
/// typed container before the name as typed elsewhere, bodies before declarations, a
/// header's before a source file's, then by path and line. Each keeps the search's filters (path globs, scope, languages).
pub fn merge(
    response: &mut SearchResponse,
    files: &[&ParsedFile],
    opts: &SearchOptions,
    declared: &dyn Fn(&SearchHit) -> bool,
) {
    let Some(lookup) = wanted(response, declared).cloned() else {
        return;
    };
    let Ok(filter) = Filter::new(opts) else {
        return;
    };
    let best = best_match(response, declared);
    let mut found: Vec<(NameMatch, bool, &ParsedFile, usize)> = Vec::new();
    for &file in files {
        if !filter.allows_path(&file.path, Some(file.lang)) {
            continue;
        }
        if lookup
            .file
            .as_deref()
            .is_some_and(|typed| !file_matches(&file.path, typed))
        {
            continue;
        }
        for (i, def) in file.tags.defs.iter().enumerate() {
            if def.name != lookup.name {
                continue;
            }
            let in_container = if lookup.container.is_empty() {
                lookup.file.is_some()
            } else {
                match_container(&lookup.container, &container_of(def, file)).is_some()
            };
            let level = if in_container {
                NameMatch::InContainer
            } else {
                NameMatch::Exact
            };
            let declaration = def.declaration || is_declaration(file, def);
            if best.is_some_and(|b| b <= (level, declaration)) {
                continue;
            }
            found.push((level, declaration, file, i));
        }
    }
    if found.is_empty() {
        return;
    }
    // A generator that writes a header beside its source (flex's `--header-file`, Bison's
    // `-d`) defines the header's types and macros in both: the header's is the one the code
    // including it sees.
    let key = |f: &(NameMatch, bool, &ParsedFile, usize)| {
        let header = is_header(&f.2.path);
        (
            f.0,
            f.1,
            !header,
            f.2.path.clone(),
            f.2.tags.defs[f.3].lines.start,
        )
    };
    found.sort_by_cached_key(key);
    if opts.files_mode {
        let mut seen = std::collections::HashSet::new();
        found.retain(|f| seen.insert(f.2.path.as_str()));
    }
    let top = opts.top.clamp(1, MAX_TOP);
    found.truncate(top);
    // Scores stay in order: each new hit takes the best score the search gave (1 when it
    // gave none), all of it from the name.
    let score = response.hits.first().map_or(1.0, |h| h.score).max(1.0);
    let signals = Signals {
        name: score,
        penalty: 1.0,
        ..Signals::default()
    };
    let hits: Vec<SearchHit> = found
        .iter()
        .map(|&(_, _, file, i)| {
            let def = &file.tags.defs[i];
            SearchHit {
                file_path: file.path.clone(),
                line_range: def.lines,
                excerpt: definition_excerpt(file, def),
                evidence: Evidence::Definition,
                symbol: Some(def.name.clone()),
                kind: Some(def.kind.name().to_string()),
                score,
                signals,
            }
        })
        .collect();
    let mut new_files: Vec<(String, f64)> = Vec::new();
    for h in &hits {
        if !new_files.iter().any(|(p, _)| *p == h.file_path) {
            new_files.push((h.file_path.clone(), score));
        }
    }
    response
        .files
        .retain(|(p, _)| !new_files.iter().any(|(n, _)| n == p));
    response.files.splice(0..0, new_files);
    response.files.truncate(top);
    if opts.files_mode {
        // One hit per listed file: drop the old hits of a file listed again.
        let paths: Vec<&str> = hits.iter().map(|h| h.file_path.as_str()).collect();
        let keep: Vec<bool> = response
            .hits
            .iter()
            .map(|h| !paths.contains(&h.file_path.as_str()))
            .collect();
        let mut k = keep.iter();
        response.hits.retain(|_| *k.next().unwrap_or(&true));
        let mut k = keep.iter();
        response.matches.retain(|_| *k.next().unwrap_or(&true));
    }
    let levels = found.iter().map(|f| Some(f.0));
    response.matches.splice(0..0, levels);
    response.hits.splice(0..0, hits);
    response.hits.truncate(top);
    response.matches.truncate(response.hits.len());
    response.confidence = Confidence::High;
    response.low_score = false;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::search::container::tests::file;
    use crate::engine::search::{read_query, SearchContext, SearchIndex};

    fn search(files: &[ParsedFile], query: &str, opts: &SearchOptions) -> SearchResponse {
        let idx = SearchIndex::build(files, &[]);
        let prior = vec![0.0; files.len()];
        let neighbors = vec![Vec::new(); files.len()];
        let ctx = SearchContext {
            files,
            docs: &[],
            prior: &prior,
            neighbors: &neighbors,
            history: None,
        };
        idx.search(&ctx, query, opts)
    }

    fn no_decl(_: &SearchHit) -> bool {
        false
    }

    fn indexed() -> Vec<ParsedFile> {
        vec![file(
            "src/main.c",
            "int yylex_wrapper(void) { return yylex(); }\nint run(void) { return 0; }\n",
        )]
    }

    fn scanner() -> ParsedFile {
        file(
            "src/lexer.c",
            "typedef struct yy_buffer_state *YY_BUFFER_STATE;\nint yylex(void) {\n  return 0;\n}\n",
        )
    }

    #[test]
    fn a_name_defined_only_in_generated_code_is_found_there_first() {
        let files = indexed();
        let generated = scanner();
        let opts = SearchOptions::default();
        let mut r = search(&files, "yylex", &opts);
        assert!(r.hits.first().is_some_and(|h| h.file_path == "src/main.c"));
        assert!(wanted(&r, &no_decl).is_some());
        merge(&mut r, &[&generated], &opts, &no_decl);
        let top = &r.hits[0];
        assert_eq!(
            (top.file_path.as_str(), top.evidence, top.symbol.as_deref()),
            ("src/lexer.c", Evidence::Definition, Some("yylex"))
        );
        assert_eq!((top.line_range.start, top.line_range.end), (2, 4));
        assert_eq!(top.excerpt, "int yylex(void) {");
        assert_eq!(r.match_of(0), Some(NameMatch::Exact));
        assert_eq!(r.files[0].0, "src/lexer.c");
        assert_eq!(r.matches.len(), r.hits.len());
        assert!(r.hits.windows(2).all(|w| w[0].score >= w[1].score));
        // Its hits follow: the indexed caller is still listed.
        assert!(r.hits.iter().any(|h| h.file_path == "src/main.c"));
    }

    #[test]
    fn an_indexed_definition_of_the_name_keeps_its_place() {
        let files = indexed();
        let generated = file("gen/run.c", "int run(void) { return 1; }\n");
        let opts = SearchOptions::default();
        let mut r = search(&files, "run", &opts);
        assert!(wanted(&r, &no_decl).is_none());
        let before = r.clone();
        merge(&mut r, &[&generated], &opts, &no_decl);
        assert_eq!(r, before);
        // Not a look-up: nothing to answer.
        let mut words = search(&files, "return the wrapper", &opts);
        assert!(words.read.lookup.is_none() && wanted(&words, &no_decl).is_none());
        let before = words.clone();
        merge(&mut words, &[&generated], &opts, &no_decl);
        assert_eq!(words, before);
    }

    #[test]
    fn filters_and_typed_files_apply() {
        let files = indexed();
        let generated = scanner();
        let only_src_main = SearchOptions {
            path_globs: vec!["src/main.c".into()],
            ..SearchOptions::default()
        };
        let mut r = search(&files, "yylex", &only_src_main);
        merge(&mut r, &[&generated], &only_src_main, &no_decl);
        assert!(r.hits.iter().all(|h| h.file_path == "src/main.c"));
        let opts = SearchOptions::default();
        let mut r = search(&files, "other.c:yylex", &opts);
        merge(&mut r, &[&generated], &opts, &no_decl);
        assert!(r.hits.iter().all(|h| h.file_path != "src/lexer.c"));
        let mut r = search(&files, "lexer.c:yylex", &opts);
        merge(&mut r, &[&generated], &opts, &no_decl);
        assert_eq!(r.hits[0].file_path, "src/lexer.c");
        assert_eq!(r.match_of(0), Some(NameMatch::InContainer));
        assert!(read_query("lexer.c:yylex").lookup.is_some());
    }

    #[test]
    fn files_mode_lists_the_generated_file_once() {
        let files = indexed();
        let generated = file(
            "src/lexer.c",
            "int yylex(void);\nint yylex(void) {\n  return 0;\n}\n",
        );
        let opts = SearchOptions {
            files_mode: true,
            ..SearchOptions::default()
        };
        let mut r = search(&files, "yylex", &opts);
        merge(&mut r, &[&generated], &opts, &no_decl);
        assert_eq!(r.files[0].0, "src/lexer.c");
        assert_eq!(
            r.hits
                .iter()
                .filter(|h| h.file_path == "src/lexer.c")
                .count(),
            1
        );
        // The body, not the prototype above it.
        assert_eq!(r.hits[0].line_range.start, 2);
    }

    #[test]
    fn a_generated_header_defines_before_its_source() {
        let files = indexed();
        let source = file(
            "src/lexer.c",
            "#define YY_NUM_RULES 4\nint yylex(void) { return 0; }\n",
        );
        let header = file("src/lexer.h", "#define YY_NUM_RULES 4\nint yylex(void);\n");
        let opts = SearchOptions::default();
        let mut r = search(&files, "YY_NUM_RULES", &opts);
        merge(&mut r, &[&source, &header], &opts, &no_decl);
        let paths: Vec<&str> = r
            .hits
            .iter()
            .take(2)
            .map(|h| h.file_path.as_str())
            .collect();
        assert_eq!(paths, ["src/lexer.h", "src/lexer.c"]);
        // A function's body still comes before the header's prototype.
        let mut r = search(&files, "yylex", &opts);
        merge(&mut r, &[&header, &source], &opts, &no_decl);
        assert_eq!(r.hits[0].file_path, "src/lexer.c");
    }
}
