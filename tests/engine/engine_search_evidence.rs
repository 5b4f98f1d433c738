//! Evidence types on files parsed by the real tag extractor, one per language: a word
//! found only in a comment, a docstring or a string (also one spanning lines: a block
//! comment, a template literal, a Go raw string) is `text`, with the matched line as the
//! excerpt and the matched word as the symbol; a word used in code stays a reference or a
//! call. Also: queries that are bad input never panic.

use crate::common;

use mapscope::engine::base::model::ParsedFile;
use mapscope::engine::search::{Evidence, SearchHit, SearchResponse};

fn search(files: &[ParsedFile], q: &str) -> SearchResponse {
    common::search_parsed(files, q, false)
}

use common::parsed;

fn hit_at<'a>(resp: &'a SearchResponse, path: &str, line: u32) -> &'a SearchHit {
    resp.hits
        .iter()
        .find(|h| h.file_path == path && h.line_range.start == line)
        .unwrap_or_else(|| panic!("no hit at {path}:{line} in {:#?}", resp.hits))
}

/// The hit at `path:line` is text evidence showing `word` and the trimmed line.
fn assert_text(resp: &SearchResponse, path: &str, line: u32, word: &str, src: &str) {
    let h = hit_at(resp, path, line);
    assert_eq!(h.evidence, Evidence::Text, "{h:#?}");
    assert_eq!(h.symbol.as_deref(), Some(word), "{h:#?}");
    assert_eq!(h.kind, None, "{h:#?}");
    let want = src.lines().nth(line as usize - 1).unwrap().trim();
    assert_eq!(h.excerpt, want);
}

fn no_reference_named(resp: &SearchResponse, names: &[&str]) {
    for h in &resp.hits {
        if matches!(h.evidence, Evidence::Reference | Evidence::Call) {
            let sym = h.symbol.as_deref().unwrap_or("");
            assert!(
                !names.iter().any(|n| n.eq_ignore_ascii_case(sym)),
                "comment or string word came back as code: {h:#?}"
            );
        }
    }
}

const JWT_TS: &str = "import { decode } from './decode'

/**
 * JWT middleware: checks the bearer token
 * and rejects expired ones.
 */
export function bearerAuth(secret: string) {
  return (header: string) => decode(header, secret)
}
";

const HMR_TS: &str = "export function reportRestart(file: string, log: (m: string) => void) {
  log(`
    watcher saw ${file} and the config changed,
    so everything restarts now
  `)
  return file
}
";

#[test]
fn typescript_block_comment_and_template_words_are_text() {
    let files = [parsed("src/jwt.ts", JWT_TS), parsed("src/hmr.ts", HMR_TS)];
    let resp = search(&files, "jwt middleware expired");
    assert_text(&resp, "src/jwt.ts", 4, "JWT", JWT_TS);
    no_reference_named(&resp, &["jwt", "middleware", "expired"]);

    let resp = search(&files, "changed everything");
    assert_text(&resp, "src/hmr.ts", 3, "changed", HMR_TS);
    no_reference_named(&resp, &["changed", "everything"]);

    // A word used in code is still a call.
    let resp = search(&files, "decode");
    let h = hit_at(&resp, "src/jwt.ts", 8);
    assert_eq!(h.evidence, Evidence::Call, "{h:#?}");
    assert_eq!(h.symbol.as_deref(), Some("decode"));
}

const BUTTON_TSX: &str = "import React from 'react'

export function SaveButton(props: { onSave: () => void }) {
  /* Disabled while the draft
     is uploading to storage */
  return <button onClick={props.onSave} title={`upload
  draft`}>Save</button>
}
";

#[test]
fn tsx_comment_and_template_words_are_text() {
    let files = [parsed("src/SaveButton.tsx", BUTTON_TSX)];
    let resp = search(&files, "uploading storage");
    assert_text(&resp, "src/SaveButton.tsx", 5, "uploading", BUTTON_TSX);
    no_reference_named(&resp, &["uploading", "storage"]);
    let resp = search(&files, "draft");
    for h in &resp.hits {
        assert_ne!(h.evidence, Evidence::Reference, "{h:#?}");
    }
}

const ROUTER_JS: &str = "const { compile } = require('./compile')

/*
 * Routes are matched in
 * registration order, first wins.
 */
function findRoute(routes, url) {
  const note = 'registration happens once'
  return routes.find((r) => compile(r).test(url))
}

module.exports = { findRoute }
";

#[test]
fn javascript_comment_and_string_words_are_text() {
    let files = [parsed("lib/router.js", ROUTER_JS)];
    let resp = search(&files, "registration order");
    assert_text(&resp, "lib/router.js", 5, "registration", ROUTER_JS);
    no_reference_named(&resp, &["registration", "order"]);
}

const UPLOAD_PY: &str = "import time


def send(blob, attempts=3):
    \"\"\"
    Retry the upload when
    the network drops.
    \"\"\"
    for _ in range(attempts):
        time.sleep(1)
    return blob
";

#[test]
fn python_docstring_words_are_text() {
    let files = [parsed("pkg/upload.py", UPLOAD_PY)];
    let resp = search(&files, "network drops");
    assert_text(&resp, "pkg/upload.py", 7, "network", UPLOAD_PY);
    no_reference_named(&resp, &["network", "drops"]);
    let resp = search(&files, "retry upload");
    assert_text(&resp, "pkg/upload.py", 6, "Retry", UPLOAD_PY);
}

const WAL_GO: &str = "package wal

import \"fmt\"

/*
Checkpoint rewrites the
segments that are still needed.
*/
func Compact(dir string) error {
\tusage := `usage: compact
\t  rewrites segments in place`
\treturn fmt.Errorf(\"%s %s\", dir, usage)
}
";

#[test]
fn go_block_comment_and_raw_string_words_are_text() {
    let files = [parsed("tsdb/wal/compact.go", WAL_GO)];
    let resp = search(&files, "checkpoint needed");
    assert_text(&resp, "tsdb/wal/compact.go", 6, "Checkpoint", WAL_GO);
    let resp = search(&files, "place");
    assert_text(&resp, "tsdb/wal/compact.go", 11, "place", WAL_GO);
    no_reference_named(&resp, &["place"]);
}

#[test]
fn bad_input_never_panics() {
    let files = [
        parsed("src/jwt.ts", JWT_TS),
        parsed("pkg/upload.py", UPLOAD_PY),
        parsed("tsdb/wal/compact.go", WAL_GO),
    ];
    let long = "verify the token and retry ".repeat(400); // ~10 kB
    let queries = [
        "",
        "   ",
        "the and of to a is",
        "?!.,;:()[]{}<>/\\|@#$%^&*-+=~`'\"",
        "🚀🔥💥",
        "🚀 token 🔥",
        long.as_str(),
        "上传 retry Загрузка 다시 upload",
        "\u{0}\u{1b}[31m\u{7f}",
        "ﷺ\u{200d}\u{fe0f}",
    ];
    for q in queries {
        let resp = search(&files, q);
        assert!(
            !resp.hits.is_empty() || resp.low_score,
            "an empty answer must be low_score: {q:?}"
        );
        for h in &resp.hits {
            assert!(h.score.is_finite());
        }
    }
    // Words that are all stop words or punctuation find nothing confidently.
    for q in ["the and of", "?!.,;:"] {
        let resp = search(&files, q);
        assert!(resp.low_score, "{q:?}: {:#?}", resp.hits);
    }
    // The long query still finds the token code.
    assert!(!search(&files, &long).files.is_empty());
}

/// Placeholder strings in tests (`"asdf"`, `"aaa"`) are data, not words about the code: a
/// query that finds nothing else is low confidence, whatever share of its words the test
/// data holds. The same words in the implementation's comments are evidence.
#[test]
fn a_query_found_only_in_test_data_is_low_confidence() {
    use mapscope::engine::search::Confidence;
    let files = [
        parsed(
            "src/labels.go",
            "package labels\n\n// Labels are sorted by name.\nfunc Sort(names []string) {}\n",
        ),
        parsed(
            "src/labels_test.go",
            "package labels\n\nfunc TestSort(t *testing.T) {\n\tin := []string{\"asdf\", \"qwer\"}\n\tSort(in)\n}\n",
        ),
    ];
    for q in ["asdf", "asdf qwer"] {
        let resp = search(&files, q);
        assert!(!resp.hits.is_empty(), "{q}: the test data still matches");
        assert_eq!(resp.confidence, Confidence::Low, "{q}: {:#?}", resp.hits);
        assert!(resp.low_score);
    }
    let resp = search(&files, "sorted by name");
    assert_eq!(resp.confidence, Confidence::Medium, "{:#?}", resp.hits);
}
