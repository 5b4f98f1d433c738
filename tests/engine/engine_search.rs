//! Search on a small hand-built corpus with known answers: evidence types, confidence,
//! demotion of tests, Chinese and mixed queries, docs, files mode and filters.

use std::sync::Arc;

use mapscope::engine::base::model::{
    ContainerRef, DefKind, Definition, FileTags, Import, ImportedName, Lang, LineRange, ParsedFile,
    RefKind, Reference,
};
use mapscope::engine::search::{
    Confidence, Evidence, SearchContext, SearchHit, SearchIndex, SearchOptions, SearchResponse,
    TextDoc,
};

fn d(name: &str, kind: DefKind, start: u32, end: u32) -> Definition {
    Definition {
        name: name.into(),
        kind,
        lines: LineRange::new(start, end),
        signature: LineRange::new(start, start),
        parent: None,
        scope_lines: vec![],
        container: ContainerRef::NONE,
        declaration: false,
        lookup_only: false,
    }
}

fn r(name: &str, kind: RefKind, line: u32) -> Reference {
    Reference {
        name: name.into(),
        kind,
        line,
        qualifier: None,
        receiver: None,
    }
}

fn imp(specifier: &str, names: &[&str], line: u32) -> Import {
    Import {
        specifier: specifier.into(),
        names: names
            .iter()
            .map(|n| ImportedName {
                name: (*n).into(),
                alias: None,
            })
            .collect(),
        namespace: None,
        wildcard: false,
        reexport: false,
        line,
    }
}

fn file(
    path: &str,
    src: &str,
    defs: Vec<Definition>,
    refs: Vec<Reference>,
    imports: Vec<Import>,
) -> ParsedFile {
    let lang = Lang::from_path(path).expect("known language");
    let tags = FileTags {
        defs,
        refs: refs.into(),
        imports,
        ..FileTags::default()
    };
    ParsedFile::new(path.into(), lang, src.len() as u64, Arc::from(src), tags)
}

struct Corpus {
    files: Vec<ParsedFile>,
    docs: Vec<TextDoc>,
    prior: Vec<f64>,
    neighbors: Vec<Vec<(usize, f64)>>,
    index: SearchIndex,
}

impl Corpus {
    fn ctx(&self) -> SearchContext<'_> {
        SearchContext {
            files: &self.files,
            docs: &self.docs,
            prior: &self.prior,
            neighbors: &self.neighbors,
            history: None,
        }
    }

    fn search(&self, q: &str) -> SearchResponse {
        self.search_with(q, &SearchOptions::default())
    }

    fn search_with(&self, q: &str, opts: &SearchOptions) -> SearchResponse {
        self.index.search(&self.ctx(), q, opts)
    }
}

const EXPORT_TS: &str = "import { formatCsv } from '../util/csv'
import type { Order } from './model'

/** Turns a list of orders into CSV text for download. */
export function exportOrders(orders: Order[]): string {
  const rows = orders.map((o) => formatCsv(o))
  return rows.join('\\n')
}

export function orderTotal(order: Order): number {
  return order.items.reduce((sum, item) => sum + item.price, 0)
}
";

const CSV_TS: &str = "// Quote a value for a CSV cell.
export function formatCsv(value: unknown): string {
  const s = String(value)
  return s.includes(',') ? '\"' + s + '\"' : s
}
";

const EXPORT_TEST_TS: &str = "import { exportOrders } from './export'

describe('exportOrders', () => {
  it('exports orders as csv', () => {
    expect(exportOrders([])).toBe('')
  })
})

function exportOrdersFixture() {
  return []
}
";

const REPORT_PY: &str = "import csv


# 导出订单报表，按月份汇总
def gen_report_v2(rows, month):
    \"\"\"Monthly summary.\"\"\"
    writer = csv.writer(open(\"r.csv\", \"w\"))
    for r in rows:
        writer.writerow(r)
    return month
";

const NOTIFY_GO: &str = "package session

// NotifySession sends a notification to every active session.
func NotifySession(s *Session, msg string) error {
\tfor _, l := range s.listeners {
\t\tl.Send(msg)
\t}
\treturn nil
}

// filterSessions keeps the sessions that match the predicate.
func filterSessions(all []*Session, keep func(*Session) bool) []*Session {
\tout := all[:0]
\tfor _, s := range all {
\t\tif keep(s) {
\t\t\tout = append(out, s)
\t\t}
\t}
\treturn out
}
";

const HTTP_TS: &str = "export function parseHTTPRequest(raw: string) {
  const [head] = raw.split('\\r\\n\\r\\n')
  return { head }
}

export function createServer(port: number) {
  return { port, handle: (raw: string) => parseHTTPRequest(raw) }
}
";

const README: &str = "# Shop backend

## Deployment
Releases use a blue-green rollout: the new version is started next to the old one and
traffic moves over once health checks pass.
";

fn corpus() -> Corpus {
    use DefKind::*;
    use RefKind::*;
    let files = vec![
        // 0
        file(
            "src/orders/export.ts",
            EXPORT_TS,
            vec![
                d("exportOrders", Function, 5, 8),
                d("orderTotal", Function, 10, 12),
            ],
            vec![
                r("formatCsv", Import, 1),
                r("Order", Import, 2),
                r("Order", Type, 5),
                r("map", Call, 6),
                r("formatCsv", Call, 6),
                r("join", Call, 7),
                r("Order", Type, 10),
                r("reduce", Call, 11),
            ],
            vec![
                imp("../util/csv", &["formatCsv"], 1),
                imp("./model", &["Order"], 2),
            ],
        ),
        // 1
        file(
            "src/util/csv.ts",
            CSV_TS,
            vec![d("formatCsv", Function, 2, 5)],
            vec![r("String", Call, 3), r("includes", Call, 4)],
            vec![],
        ),
        // 2
        file(
            "src/orders/export.test.ts",
            EXPORT_TEST_TS,
            vec![d("exportOrdersFixture", Function, 9, 11)],
            vec![
                r("exportOrders", Import, 1),
                r("describe", Call, 3),
                r("it", Call, 4),
                r("expect", Call, 5),
                r("exportOrders", Call, 5),
                r("toBe", Call, 5),
            ],
            vec![imp("./export", &["exportOrders"], 1)],
        ),
        // 3
        file(
            "src/legacy/report.py",
            REPORT_PY,
            vec![d("gen_report_v2", Function, 5, 10)],
            vec![r("writer", Call, 7), r("open", Call, 7), r("writerow", Call, 9)],
            vec![mapscope::engine::base::model::Import {
                namespace: Some("csv".into()),
                ..imp("csv", &[], 1)
            }],
        ),
        // 4
        file(
            "src/session/notify.go",
            NOTIFY_GO,
            vec![
                d("NotifySession", Function, 4, 9),
                d("filterSessions", Function, 12, 20),
            ],
            vec![
                r("Session", Type, 4),
                r("Send", Call, 6),
                r("Session", Type, 12),
                r("keep", Call, 15),
                r("append", Call, 16),
            ],
            vec![],
        ),
        // 5
        file(
            "src/server/http.ts",
            HTTP_TS,
            vec![
                d("parseHTTPRequest", Function, 1, 4),
                d("createServer", Function, 6, 8),
            ],
            vec![r("split", Call, 2), r("parseHTTPRequest", Call, 7)],
            vec![],
        ),
        // 6
        file(
            "types/index.d.ts",
            "export declare function exportOrders(orders: unknown[]): string\n",
            vec![d("exportOrders", Function, 1, 1)],
            vec![],
            vec![],
        ),
        // 7: build output, never shown
        file(
            "dist/index.js",
            "function exportOrders(o){return o}\n",
            vec![d("exportOrders", Function, 1, 1)],
            vec![],
            vec![],
        ),
        // 8
        file(
            "src/orders/model.ts",
            "export interface Order {\n  id: string\n  items: { price: number }[]\n}\n",
            vec![d("Order", Interface, 1, 4)],
            vec![],
            vec![],
        ),
        // 9
        file(
            "playground/demo/main.js",
            "import { exportOrders } from '../../src/orders/export'\nconsole.log(exportOrders([]))\n",
            vec![],
            vec![
                r("exportOrders", Import, 1),
                r("exportOrders", Call, 2),
                r("log", Call, 2),
            ],
            vec![imp("../../src/orders/export", &["exportOrders"], 1)],
        ),
    ];
    let docs = vec![
        TextDoc::new("README.md".into(), Arc::from(README)),
        TextDoc::new(
            "config/app.yaml".into(),
            Arc::from("server:\n  port: 8080\n  timeout_seconds: 30\n"),
        ),
    ];
    let prior = vec![0.2, 0.15, 0.05, 0.05, 0.1, 0.1, 0.05, 0.05, 0.2, 0.05];
    let mut neighbors = vec![Vec::new(); files.len()];
    for (a, b) in [(0, 1), (0, 2), (0, 8), (0, 9)] {
        neighbors[a].push((b, 1.0));
        neighbors[b].push((a, 1.0));
    }
    let index = SearchIndex::build(&files, &docs);
    Corpus {
        files,
        docs,
        prior,
        neighbors,
        index,
    }
}

fn files_mode(top: usize) -> SearchOptions {
    SearchOptions {
        top,
        files_mode: true,
        ..Default::default()
    }
}

fn rank_of(resp: &SearchResponse, path: &str) -> Option<usize> {
    resp.files.iter().position(|(p, _)| p == path)
}

#[test]
fn exact_identifier_puts_its_definition_first() {
    let c = corpus();
    let resp = c.search("exportOrders");
    let top = &resp.hits[0];
    assert_eq!(top.file_path, "src/orders/export.ts");
    assert_eq!(top.evidence, Evidence::Definition);
    assert_eq!(top.symbol.as_deref(), Some("exportOrders"));
    assert_eq!(top.kind.as_deref(), Some("function"));
    assert_eq!(top.line_range, LineRange::new(5, 8));
    assert!(top.excerpt.starts_with("export function exportOrders("));
    assert_eq!(resp.confidence, Confidence::High);
    assert!(!resp.low_score);
    assert!(top.signals.name > 0.0 && top.signals.bm25 > 0.0);
}

/// The hit of `path` in a response (files mode gives one per file).
fn hit_in<'a>(resp: &'a SearchResponse, path: &str) -> &'a SearchHit {
    resp.hits.iter().find(|h| h.file_path == path).unwrap()
}

#[test]
fn tests_declarations_and_examples_rank_below_the_implementation() {
    let c = corpus();
    let plain = c.search_with("exportOrders", &files_mode(10));
    let implementation = rank_of(&plain, "src/orders/export.ts").unwrap();
    assert_eq!(implementation, 0);
    for demoted in [
        "src/orders/export.test.ts",
        "types/index.d.ts",
        "playground/demo/main.js",
    ] {
        let rank = rank_of(&plain, demoted).unwrap_or(usize::MAX);
        assert!(rank > implementation, "{demoted} at {rank}");
    }
    let test_hit = hit_in(&plain, "src/orders/export.test.ts");
    assert!(test_hit.signals.penalty < 1.0);

    // A query about tests lifts the demotion.
    let resp = c.search_with("exportOrders test", &files_mode(10));
    let test_hit = hit_in(&resp, "src/orders/export.test.ts");
    assert_eq!(test_hit.signals.penalty, 1.0);
    // …and demotes the implementation a little instead (a change described as a test change
    // mostly touches tests), so the test climbs.
    let impl_hit = hit_in(&resp, "src/orders/export.ts");
    assert!(impl_hit.signals.penalty < 1.0);
    let test_rank = |resp: &SearchResponse| rank_of(resp, "src/orders/export.test.ts").unwrap();
    assert!(test_rank(&resp) <= test_rank(&plain));
}

#[test]
fn build_output_never_appears() {
    let c = corpus();
    for q in ["exportOrders", "function exportOrders", "导出订单"] {
        let resp = c.search_with(q, &files_mode(50));
        assert!(
            resp.files.iter().all(|(p, _)| !p.starts_with("dist/")),
            "{q}"
        );
        let resp = c.search_with(
            q,
            &SearchOptions {
                top: 50,
                ..Default::default()
            },
        );
        assert!(resp.hits.iter().all(|h| !h.file_path.starts_with("dist/")));
    }
}

#[test]
fn chinese_query_finds_chinese_comment() {
    let c = corpus();
    let resp = c.search("导出订单");
    let hit = resp
        .hits
        .iter()
        .find(|h| h.file_path == "src/legacy/report.py")
        .expect("report.py found through its Chinese comment");
    assert_eq!(hit.evidence, Evidence::Text);
    assert_eq!(hit.line_range, LineRange::new(4, 4));
    assert!(hit.excerpt.contains("导出订单报表"));
    assert_ne!(resp.confidence, Confidence::Low);
}

#[test]
fn chinese_query_finds_english_function_through_glossary() {
    let c = corpus();
    let resp = c.search("导出订单");
    let pos = resp
        .hits
        .iter()
        .position(|h| h.symbol.as_deref() == Some("exportOrders"))
        .expect("exportOrders found through the glossary");
    assert!(pos < 3, "at {pos}");
    assert_eq!(resp.hits[pos].file_path, "src/orders/export.ts");
    assert_eq!(resp.hits[pos].evidence, Evidence::Definition);
    assert!(resp.retrieval_counts.expanded_terms > 0);
}

#[test]
fn english_words_find_identifier() {
    let c = corpus();
    let resp = c.search("export order");
    let top = &resp.hits[0];
    assert_eq!(top.file_path, "src/orders/export.ts");
    assert_eq!(top.symbol.as_deref(), Some("exportOrders"));
    assert_eq!(top.evidence, Evidence::Definition);
    // Plain English words are not an identifier typed exactly.
    assert_eq!(resp.confidence, Confidence::Medium);
}

#[test]
fn mixed_query_finds_go_functions() {
    let c = corpus();
    let resp = c.search("notify session 过滤");
    assert_eq!(resp.hits[0].file_path, "src/session/notify.go");
    let symbols: Vec<_> = resp
        .hits
        .iter()
        .filter_map(|h| h.symbol.as_deref())
        .collect();
    assert!(symbols.contains(&"filterSessions"), "{symbols:?}");
    assert!(symbols.contains(&"NotifySession"), "{symbols:?}");
}

#[test]
fn concept_query_without_identifiers_finds_docs() {
    let c = corpus();
    let resp = c.search("blue green rollout");
    let top = &resp.hits[0];
    assert_eq!(top.file_path, "README.md");
    assert_eq!(top.evidence, Evidence::Text);
    assert_eq!(top.line_range, LineRange::new(4, 4));
    assert!(top.excerpt.contains("blue-green rollout"));
    assert!(top.signals.penalty < 1.0, "prose is weighted below code");
    let resp = c.search("timeout seconds");
    assert_eq!(resp.hits[0].file_path, "config/app.yaml");
}

#[test]
fn nonsense_query_is_low_confidence() {
    let c = corpus();
    for q in [
        "qwzx florbnic",
        "zzqx",
        "",
        "   ",
        "the of and",
        "blorp order zzzt quux",
    ] {
        let resp = c.search(q);
        assert_eq!(resp.confidence, Confidence::Low, "{q:?}");
        assert!(resp.low_score, "{q:?}");
    }
}

#[test]
fn call_and_import_evidence() {
    let c = corpus();
    let resp = c.search_with(
        "formatCsv",
        &SearchOptions {
            top: 20,
            ..Default::default()
        },
    );
    assert_eq!(resp.hits[0].file_path, "src/util/csv.ts");
    assert_eq!(resp.hits[0].evidence, Evidence::Definition);
    assert_eq!(resp.confidence, Confidence::High);
    let uses: Vec<_> = resp
        .hits
        .iter()
        .filter(|h| h.file_path == "src/orders/export.ts")
        .map(|h| (h.evidence, h.line_range.start, h.symbol.clone()))
        .collect();
    assert!(
        uses.contains(&(Evidence::Call, 6, Some("formatCsv".into()))),
        "{uses:?}"
    );
    assert!(
        uses.contains(&(Evidence::Import, 1, Some("formatCsv".into()))),
        "{uses:?}"
    );
}

#[test]
fn camel_case_acronym_and_fuzzy_names() {
    let c = corpus();
    let resp = c.search("parseHTTPRequest");
    assert_eq!(resp.hits[0].symbol.as_deref(), Some("parseHTTPRequest"));
    assert_eq!(resp.confidence, Confidence::High);
    let resp = c.search("parse http request");
    assert_eq!(resp.hits[0].symbol.as_deref(), Some("parseHTTPRequest"));
    // A typo still finds the definition, through the fuzzy matcher.
    let resp = c.search("craeteServer");
    assert_eq!(resp.hits[0].symbol.as_deref(), Some("createServer"));
    assert!(resp.retrieval_counts.fuzzy_matches > 0);
    assert_ne!(resp.confidence, Confidence::High);
}

#[test]
fn files_mode_lists_distinct_files() {
    let c = corpus();
    let resp = c.search_with("order", &files_mode(5));
    assert!(resp.files.len() <= 5 && !resp.files.is_empty());
    let mut paths: Vec<_> = resp.files.iter().map(|f| f.0.clone()).collect();
    let n = paths.len();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), n);
    let mut hit_paths: Vec<_> = resp.hits.iter().map(|h| h.file_path.clone()).collect();
    let n = hit_paths.len();
    hit_paths.sort();
    hit_paths.dedup();
    assert_eq!(hit_paths.len(), n, "one hit per file");
    assert!(resp.files.windows(2).all(|w| w[0].1 >= w[1].1));
}

#[test]
fn graph_diffusion_reaches_neighbours() {
    let files = vec![
        file(
            "src/widget.ts",
            "export function alphaWidget() {\n  return helper()\n}\n",
            vec![d("alphaWidget", DefKind::Function, 1, 3)],
            vec![r("helper", RefKind::Call, 2)],
            vec![],
        ),
        file(
            "src/helper.ts",
            "export function helper() {\n  return 42\n}\n",
            vec![d("helper", DefKind::Function, 1, 3)],
            vec![],
            vec![],
        ),
        file(
            "src/unrelated.ts",
            "export const z = 1\n",
            vec![],
            vec![],
            vec![],
        ),
    ];
    let index = SearchIndex::build(&files, &[]);
    let neighbors = vec![vec![(1, 1.0)], vec![(0, 1.0)], vec![]];
    let ctx = SearchContext {
        files: &files,
        docs: &[],
        prior: &[],
        neighbors: &neighbors,
        history: None,
    };
    let resp = index.search(&ctx, "alphaWidget", &files_mode(10));
    let paths: Vec<&str> = resp.files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(paths, ["src/widget.ts", "src/helper.ts"]);
    assert_eq!(resp.retrieval_counts.graph_only_files, 1);
    // Only files with a textual hit get a hit in files mode.
    assert_eq!(resp.hits.len(), 1);
    let ctx = SearchContext {
        neighbors: &[],
        ..ctx
    };
    let resp = index.search(&ctx, "alphaWidget", &files_mode(10));
    assert_eq!(resp.files.len(), 1);
}

#[test]
fn path_glob_and_language_filters() {
    let c = corpus();
    let opts = SearchOptions {
        top: 50,
        path_globs: vec!["src/orders".into()],
        ..Default::default()
    };
    let resp = c.search_with("export order", &opts);
    assert!(!resp.hits.is_empty());
    assert!(resp
        .hits
        .iter()
        .all(|h| h.file_path.starts_with("src/orders/")));

    let opts = SearchOptions {
        top: 50,
        path_globs: vec!["src/**".into(), "!**/*.test.ts".into()],
        ..Default::default()
    };
    let resp = c.search_with("exportOrders", &opts);
    assert!(resp.hits.iter().all(|h| h.file_path.starts_with("src/")));
    assert!(resp.hits.iter().all(|h| !h.file_path.ends_with(".test.ts")));

    let opts = SearchOptions {
        top: 50,
        langs: vec!["py".into()],
        ..Default::default()
    };
    let resp = c.search_with("导出订单", &opts);
    assert!(!resp.hits.is_empty());
    assert!(resp.hits.iter().all(|h| h.file_path.ends_with(".py")));

    let opts = SearchOptions {
        top: 50,
        files_mode: true,
        langs: vec!["go".into()],
        ..Default::default()
    };
    let resp = c.search_with("session", &opts);
    assert_eq!(resp.files.len(), 1);
    assert_eq!(resp.files[0].0, "src/session/notify.go");
}

/// The same query gives the same response (the JSON document is the contract's: its shape
/// is tested in `contract` and the front doors' tests).
#[test]
fn results_are_deterministic() {
    let c = corpus();
    let mut a = c.search("export order csv");
    let mut b = c.search("export order csv");
    a.latency_ms = 0.0;
    b.latency_ms = 0.0;
    assert_eq!(a, b);
    assert_eq!(a.hits[0].evidence.name(), "definition");
    assert!(a.hits[0].signals.bm25 > 0.0);
}

#[test]
fn mismatched_context_gives_empty_response() {
    let c = corpus();
    let ctx = SearchContext {
        files: &c.files[..3],
        docs: &c.docs,
        prior: &[],
        neighbors: &[],
        history: None,
    };
    let resp = c
        .index
        .search(&ctx, "exportOrders", &SearchOptions::default());
    assert!(resp.hits.is_empty());
    assert_eq!(resp.confidence, Confidence::Low);
    // Missing prior and graph are fine.
    let ctx = SearchContext {
        prior: &[],
        neighbors: &[],
        ..c.ctx()
    };
    let resp = c
        .index
        .search(&ctx, "exportOrders", &SearchOptions::default());
    assert_eq!(resp.hits[0].file_path, "src/orders/export.ts");
}

#[test]
fn top_is_clamped() {
    let c = corpus();
    let resp = c.search_with(
        "order",
        &SearchOptions {
            top: 0,
            ..Default::default()
        },
    );
    assert_eq!(resp.hits.len(), 1);
    let resp = c.search_with(
        "order",
        &SearchOptions {
            top: 10_000,
            ..Default::default()
        },
    );
    assert!(resp.hits.len() <= 50);
}

#[test]
fn tests_follow_the_file_they_test() {
    let files = vec![
        file(
            "src/pricing.ts",
            "export function applyDiscount(total: number, pct: number) {\n  return total * (1 - pct)\n}\n",
            vec![d("applyDiscount", DefKind::Function, 1, 3)],
            vec![],
            vec![],
        ),
        file(
            "src/__tests__/pricing.spec.ts",
            "import { it } from 'vitest'\nit('works', () => {})\n",
            vec![],
            vec![r("it", RefKind::Call, 2)],
            vec![],
        ),
        file(
            "src/__tests__/shipping.spec.ts",
            "it('ships', () => {})\n",
            vec![],
            vec![],
            vec![],
        ),
    ];
    let index = SearchIndex::build(&files, &[]);
    let ctx = SearchContext {
        files: &files,
        docs: &[],
        prior: &[],
        neighbors: &[],
        history: None,
    };
    let resp = index.search(&ctx, "applyDiscount", &files_mode(10));
    let paths: Vec<&str> = resp.files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(paths, ["src/pricing.ts", "src/__tests__/pricing.spec.ts"]);
    assert!(resp.files[1].1 < resp.files[0].1);
}

fn one_fn(path: &str, name: &str) -> ParsedFile {
    file(
        path,
        &format!("export function {name}() {{\n  return 1\n}}\n"),
        vec![d(name, DefKind::Function, 1, 3)],
        vec![],
        vec![],
    )
}

fn ranked(index: &SearchIndex, files: &[ParsedFile], q: &str) -> Vec<String> {
    let ctx = SearchContext {
        files,
        docs: &[],
        prior: &[],
        neighbors: &[],
        history: None,
    };
    index
        .search(&ctx, q, &files_mode(10))
        .files
        .into_iter()
        .map(|f| f.0)
        .collect()
}

#[test]
fn tests_pair_with_the_nearest_file_of_their_name() {
    let empty_test = |path: &str| file(path, "it('works', () => {})\n", vec![], vec![], vec![]);
    let files = vec![
        // Two `manager` files: each test pairs with the one in its own folder.
        one_fn("rules/manager.ts", "evaluateRules"),
        one_fn("scrape/manager.ts", "scrapeTargets"),
        empty_test("rules/manager.spec.ts"),
        empty_test("scrape/manager.spec.ts"),
        // A package entry file is tested under the package's name.
        one_fn("src/config/index.ts", "loadConfig"),
        empty_test("test/config.spec.ts"),
        // The unit test next to the code is its companion; an end-to-end test elsewhere
        // with the same name is not.
        one_fn("src/plugins/css.ts", "compileCss"),
        empty_test("src/plugins/__tests__/css.spec.ts"),
        empty_test("playground/css/__tests__/css.spec.ts"),
    ];
    let index = SearchIndex::build(&files, &[]);
    assert_eq!(
        ranked(&index, &files, "evaluateRules"),
        ["rules/manager.ts", "rules/manager.spec.ts"]
    );
    assert_eq!(
        ranked(&index, &files, "scrapeTargets"),
        ["scrape/manager.ts", "scrape/manager.spec.ts"]
    );
    assert_eq!(
        ranked(&index, &files, "loadConfig"),
        ["src/config/index.ts", "test/config.spec.ts"]
    );
    // The end-to-end test may still match on its own path (`css`), but it is not lifted
    // as the companion: it stays below the unit test.
    let got = ranked(&index, &files, "compileCss");
    assert_eq!(
        got[..2],
        ["src/plugins/css.ts", "src/plugins/__tests__/css.spec.ts"]
    );
}

#[test]
fn files_covering_more_of_the_query_rank_higher() {
    // `retry.ts` repeats one query word in one function; `queue.ts` has every query word,
    // spread over three functions. Per chunk the first wins; as a file, the second should.
    let files = vec![
        file(
            "src/retry.ts",
            "export function flushRetry() {\n  flush(); flush(); flush(); flush()\n}\n",
            vec![d("flushRetry", DefKind::Function, 1, 3)],
            vec![],
            vec![],
        ),
        file(
            "src/queue.ts",
            "export function flushQueue() {}\nexport function drainWorkers() {}\nexport function \
             pauseTimer() {}\n",
            vec![
                d("flushQueue", DefKind::Function, 1, 1),
                d("drainWorkers", DefKind::Function, 2, 2),
                d("pauseTimer", DefKind::Function, 3, 3),
            ],
            vec![],
            vec![],
        ),
    ];
    let index = SearchIndex::build(&files, &[]);
    let got = ranked(&index, &files, "flush drain workers pause timer");
    assert_eq!(got.first().map(String::as_str), Some("src/queue.ts"));
}

#[test]
fn package_entry_files_match_their_folder_name() {
    // Both files live under `approx/`; only the entry file is named by it (file-name
    // tokens weigh more than folder tokens), so it wins although it sorts second by path.
    let files = vec![
        one_fn("src/approx/index.ts", "compare"),
        one_fn("src/approx/helpers/util.ts", "helper"),
    ];
    let index = SearchIndex::build(&files, &[]);
    let got = ranked(&index, &files, "approx");
    assert_eq!(got.first().map(String::as_str), Some("src/approx/index.ts"));
}
