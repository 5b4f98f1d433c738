//! Every tunable number of the search in one struct, so tuning on the eval datasets is a
//! matter of editing defaults (or passing a modified copy to `SearchIndex::build_with`).
//! Plain data, no threads.

use serde::{Deserialize, Serialize};

/// Search weights. Fields marked *build* are baked into the postings when the index is
/// built (changing them needs a rebuild); the rest are read at query time.
/// Deserialising fills missing fields from the defaults, so a tuning file lists only the
/// weights it changes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchWeights {
    /// *build* BM25 term-frequency saturation.
    pub k1: f64,
    /// *build* BM25F field weights: definition name, signature (+ parent name), doc comment
    /// above a definition, code identifiers in the body, comments and strings in the body.
    pub field_name: f64,
    pub field_signature: f64,
    pub field_doc: f64,
    pub field_body: f64,
    pub field_text: f64,
    /// *build* BM25F length normalisation per field (0 = none, 1 = full).
    pub b_name: f64,
    pub b_signature: f64,
    pub b_doc: f64,
    pub b_body: f64,
    pub b_text: f64,

    /// Query weight of a term produced by glossary expansion (literal terms weigh 1).
    pub glossary_term: f64,
    /// Query weight of two or three adjacent query words joined (`export order` →
    /// `exportorder`), which matches the joined form of identifiers.
    pub adjacent_join_term: f64,
    /// Query weight of the words of a typed multi-part identifier (`CallSpec2` → `call`,
    /// `spec`); its joined form weighs 1.
    pub ident_part: f64,
    /// Query weight of generic commit-message words (`fix`, `bug`, `issue`, …).
    pub noise_term: f64,

    /// Multiplier of the symbol-name signal (exact match scores 1 before this).
    pub name: f64,
    /// Strength of a case-insensitive (or `_`-insensitive) exact name match; case-exact is 1.
    pub name_folded: f64,
    /// Strength of a fuzzy name match, times the matcher score.
    pub name_fuzzy: f64,
    /// Name strength given to the container a qualified look-up typed (`Router` for
    /// `Router::fallback`), so it is a hit even when none of its words is searched.
    pub name_container: f64,
    /// Matcher score below which a fuzzy name match is ignored.
    pub fuzzy_min: f64,
    /// At most this many fuzzy name matches per query word.
    pub fuzzy_max_matches: usize,
    /// Whether a typed identifier may match a name within a small edit distance
    /// (`craeteServer` → `createServer`) when no subsequence alignment does.
    pub fuzzy_typos: bool,

    /// Multiplier of the path-token signal.
    pub path: f64,
    /// Weight of a directory-name token relative to a file-name token in paths.
    pub path_dir_token: f64,
    /// *build* Weight of the words found inside a path token written as one lowercase word
    /// (`pluginmanager` → `plugin`, `manager`; `httputil` → `http`, `util`), relative to the
    /// token itself (0 = off). Both words must be used elsewhere in the code.
    pub path_compound: f64,

    /// Score of a file from its chunks: best chunk plus this times the next three.
    pub file_rest: f64,
    /// Multiplier of file-level BM25 (each code file as one document), added to the score
    /// from chunks: a file matching the query across several functions counts as a whole.
    pub file_bm25: f64,
    /// *build* Length normalisation of file-level BM25.
    pub b_file: f64,
    /// Size normalisation of the score from chunks: × (chunks in the file / mean)^-this, so
    /// large files full of definitions do not win every query by chance (0 = off).
    pub chunk_len_norm: f64,
    /// Coordination exponent: a file's text score × (share of the query's concepts it
    /// covers)^coord (0 = off).
    pub coord: f64,
    /// Graph diffusion: share of a file's score passed to its neighbours (one hop) and to
    /// their neighbours (two hops). Edges are normalised by the source's total weight.
    pub graph_hop1: f64,
    pub graph_hop2: f64,
    /// Only the best this-many files spread score over the graph (bounds query time).
    pub graph_sources: usize,
    /// PageRank prior: file score × (1 + prior × ln(1 + n·pagerank)); mean n·pagerank is 1.
    pub prior: f64,

    /// Score multiplier for tests, specs, fixtures, mocks (lifted when the query is about tests).
    pub penalty_test: f64,
    /// Score multiplier for implementation code when the query is about tests (1 = none).
    pub test_query_impl: f64,
    /// Extra multiplier for files under fixture / mock / test-data folders (test inputs are
    /// rarely what a change is about), lifted with the test demotion.
    pub penalty_fixture: f64,
    /// Extra multiplier for vendored code (`paths::is_vendored`: another project's copy),
    /// kept for queries about tests too: the weight the map gives a supporting file's prior.
    pub penalty_vendored: f64,
    /// A test file gets this share of the score of the implementation file it tests (by
    /// name: `python.py` → `test_python.py`), so a change's tests rank near its code.
    pub test_companion: f64,
    /// A test file lifted by `test_companion` also keeps this share of its own score.
    pub test_companion_own: f64,
    /// Unless the query is about tests, a test file ranks just under the implementation
    /// file it tests (`head_test.go` under `head.go`), in files and in hits.
    pub test_under_impl: bool,
    /// With `test_under_impl`, an implementation file whose test outscores it first takes
    /// this share of the test's score (0 = the test only drops under it; 1 = the pair keeps
    /// the test's place, implementation first).
    pub test_impl_lift: f64,
    /// Multiplier of the history signal: BM25 of the query over the subjects of the commits
    /// that touched each file (`HistoryIndex`), added to the file's text score (before the
    /// demotions). 0 by default: on the eval datasets `history_post` gains more recall.
    pub history: f64,
    /// Whether query words found only in a file's history count toward its coverage of the
    /// query (`coord`); without this, history only reorders files that match in their text.
    pub history_covers: bool,
    /// Multiplier of the history signal added after the demotions and the prior (a test
    /// file's past changes count in full).
    pub history_post: f64,
    /// Score multiplier for examples, playgrounds, benchmarks, docs folders, `.d.ts` (0.8 was
    /// chosen by leave-one-dataset-out on the six shared datasets).
    pub penalty_secondary: f64,
    /// Whether a query naming examples, playgrounds or benchmarks (`query::EXAMPLE_WORDS`)
    /// lifts `penalty_secondary`, as a query about tests lifts `penalty_test`.
    pub example_query_lift: bool,
    /// Score multiplier for prose and config documents (README, .md, .json, .yaml, .toml).
    pub doc_chunk: f64,
    /// Score multiplier of a field's chunk (`DefKind::Field`: its name) in a query that is
    /// not a look-up; 0 leaves fields to look-ups (their lines count as their type's text).
    /// 0.5 was chosen held out on the twelve shared datasets once Python, Ruby and PHP had
    /// fields (BENCHMARKS, "Search retrieval quality against BM25", its paragraph "Fields in
    /// Python, PHP, Ruby…"): an option or attribute named by a sentence's words is weaker
    /// evidence than code named by them.
    pub field_chunks: f64,

    /// At most this many hits from one file in hit mode (files mode shows one per file).
    pub max_hits_per_file: usize,
    /// Confidence: below this share of the query's words covered by the best hit, the
    /// result is `low` (the CLI prints "no confident hits").
    pub low_coverage: f64,
}

impl SearchWeights {
    /// True when both give the same postings (the *build* weights are equal), so an index
    /// built with one can serve the other through `SearchIndex::set_query_weights`.
    pub fn same_build(&self, other: &SearchWeights) -> bool {
        let build = |w: &SearchWeights| {
            [
                w.k1,
                w.field_name,
                w.field_signature,
                w.field_doc,
                w.field_body,
                w.field_text,
                w.b_name,
                w.b_signature,
                w.b_doc,
                w.b_body,
                w.b_text,
                w.path_dir_token,
                w.path_compound,
                w.b_file,
            ]
        };
        build(self) == build(other)
    }
}

impl Default for SearchWeights {
    fn default() -> Self {
        SearchWeights {
            k1: 1.2,
            field_name: 3.0,
            field_signature: 1.5,
            field_doc: 1.2,
            field_body: 1.0,
            field_text: 0.8,
            b_name: 0.2,
            b_signature: 0.4,
            b_doc: 0.5,
            b_body: 0.5,
            b_text: 0.75,

            glossary_term: 0.8,
            adjacent_join_term: 0.6,
            ident_part: 1.0,
            noise_term: 0.3,

            name: 6.0,
            name_folded: 0.9,
            name_fuzzy: 0.6,
            name_container: 0.5,
            fuzzy_min: 0.6,
            fuzzy_max_matches: 16,
            fuzzy_typos: true,

            path: 1.5,
            path_dir_token: 0.5,
            path_compound: 1.0,

            file_rest: 0.1,
            file_bm25: 1.0,
            b_file: 0.75,
            coord: 0.25,
            chunk_len_norm: 0.0,
            graph_hop1: 0.12,
            graph_hop2: 0.05,
            graph_sources: 256,
            prior: 0.02,

            penalty_test: 0.85,
            penalty_fixture: 1.0,
            penalty_vendored: 0.2,
            test_query_impl: 0.7,
            test_companion: 0.7,
            test_companion_own: 0.5,
            test_under_impl: true,
            test_impl_lift: 1.0,
            history: 0.0,
            history_covers: true,
            history_post: 0.7,
            penalty_secondary: 0.8,
            example_query_lift: true,
            doc_chunk: 0.6,
            field_chunks: 0.5,

            max_hits_per_file: 3,
            low_coverage: 0.5,
        }
    }
}
