//! The map follows the task: a query puts search's clear top file (and its matched
//! definitions) into the map first, in English and in Chinese; an identifier's definer is
//! always in the map; `explain` says why a file is in the map or what would bring it in; bad
//! steering input leaves the map as it is without it, with a note; and with queries the
//! budget stays hard and a larger budget never drops what a smaller one showed.

use crate::common;

use std::collections::BTreeSet;

use mapscope::engine::base::tokenizer::{tokenizer, TokenizerKind};
use mapscope::engine::index::explain::{explain_file, render_text};
use mapscope::engine::index::{Index, IndexOptions, MapRequest};
use mapscope::engine::rank::repo_map::RepoMap;
use mapscope::engine::search::SearchOptions;
use proptest::prelude::*;

/// A small shop: a logging and a db hub that every file uses (the map without a query is
/// about them), and leaf modules a task can be about.
fn shop() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut files: Vec<(String, String)> = vec![
        (
            "src/util/log.ts".into(),
            "export function logInfo(msg: string): void {\n  console.log(msg)\n}\n\
             export function logError(msg: string): void {\n  console.error(msg)\n}\n"
                .into(),
        ),
        (
            "src/db/index.ts".into(),
            "import { logInfo } from '../util/log'\n\
             export class Database {\n  query(sql: string): unknown[] {\n    logInfo(sql)\n    return []\n  }\n}\n\
             export function openDatabase(url: string): Database {\n  return new Database()\n}\n"
                .into(),
        ),
        (
            "src/cart/discount.ts".into(),
            "import { logInfo } from '../util/log'\n\
             import { openDatabase } from '../db'\n\
             /** Applies coupon codes and volume rebates to a cart total. */\n\
             export function computeDiscount(total: number, coupon: string): number {\n  logInfo(coupon)\n  openDatabase('x')\n  return coupon === 'HALF' ? total / 2 : total\n}\n"
                .into(),
        ),
        (
            "src/orders/export.ts".into(),
            "import { openDatabase } from '../db'\n\
             // Writes every order as one CSV line.\n\
             export function exportOrders(format: string): string {\n  openDatabase('x').query('select')\n  return format\n}\n"
                .into(),
        ),
        (
            "src/payment/refund.ts".into(),
            "import { logError } from '../util/log'\n\
             export function refundPayment(id: string): boolean {\n  logError(id)\n  return true\n}\n"
                .into(),
        ),
    ];
    // Many users of the hubs, so the hubs lead the unpersonalized map.
    for i in 0..12 {
        files.push((
            format!("src/feature{i}/index.ts"),
            format!(
                "import {{ logInfo, logError }} from '../util/log'\n\
                 import {{ openDatabase, Database }} from '../db'\n\
                 export function feature{i}Handler(db: Database): void {{\n  logInfo('a')\n  logError('b')\n  openDatabase('c')\n}}\n"
            ),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    common::write_files(dir.path(), &refs);
    dir
}

fn index(dir: &tempfile::TempDir) -> Index {
    Index::build(dir.path(), &IndexOptions::default()).expect("fixture builds")
}

fn request(budget: usize, query: Option<&str>) -> MapRequest {
    MapRequest {
        budget,
        query: query.map(str::to_string),
        ..MapRequest::default()
    }
}

fn paths(map: &RepoMap) -> Vec<&str> {
    map.files.iter().map(|f| f.path.as_str()).collect()
}

/// Search's first code file for `query`, which must lead by a clear margin.
fn clear_top_file(index: &Index, query: &str) -> String {
    let opts = SearchOptions {
        top: 10,
        files_mode: true,
        ..SearchOptions::default()
    };
    let r = index.search(query, &opts);
    let code: Vec<&(String, f64)> = r.files.iter().filter(|(p, _)| p.ends_with(".ts")).collect();
    let (top, score) = code.first().expect("search finds a file");
    if let Some((_, second)) = code.get(1) {
        assert!(score > second, "{query}: no clear top file in {code:?}");
    }
    top.clone()
}

#[test]
fn a_query_puts_search_clear_top_file_first_in_english_and_chinese() {
    let dir = shop();
    let index = index(&dir);
    let budget = 70;
    let (plain, _) = index.map(&request(budget, None));
    for (query, expected) in [
        ("shopping cart discount calculation", "src/cart/discount.ts"),
        ("导出订单", "src/orders/export.ts"),
    ] {
        let top = clear_top_file(&index, query);
        assert_eq!(top, expected, "search's top file for {query}");
        assert!(
            !paths(&plain).contains(&expected),
            "the map without a query already shows {expected}: the test proves nothing"
        );
        let (map, ranked) = index.map(&request(budget, Some(query)));
        assert_eq!(
            paths(&map).first(),
            Some(&expected),
            "{query}: {:?}",
            paths(&map)
        );
        assert!(ranked.pinned > 0);
        assert!(map.tokens <= budget);
        // The matched definition is shown.
        let first = &map.files[0];
        assert!(!first.symbols.is_empty());
    }
}

#[test]
fn a_query_search_is_unsure_about_still_puts_its_best_file_first() {
    // A commit-style subject where only one word names anything in the repository: search
    // is unsure (its best file covers under half the words) yet its best file is the task's.
    let dir = shop();
    let index = index(&dir);
    let query = "Fix regression in refund handling on platforms without threads";
    let opts = SearchOptions {
        top: 10,
        files_mode: true,
        ..SearchOptions::default()
    };
    let r = index.search(query, &opts);
    assert!(r.low_score, "the fixture must make search unsure: {r:?}");
    assert_eq!(clear_top_file(&index, query), "src/payment/refund.ts");
    let budget = 70;
    let (plain, _) = index.map(&request(budget, None));
    assert!(!paths(&plain).contains(&"src/payment/refund.ts"));
    let (map, ranked) = index.map(&request(budget, Some(query)));
    assert_eq!(paths(&map).first(), Some(&"src/payment/refund.ts"));
    assert!(ranked.pinned > 0);

    // With `unsure_pin_files` 0 an unsure search pins nothing.
    let mut req = request(budget, Some(query));
    req.task.unsure_pin_files = 0;
    let (_, ranked) = index.map(&req);
    assert_eq!(ranked.pinned, 0);
}

#[test]
fn an_identifier_definer_is_always_in_the_map() {
    let dir = shop();
    let index = index(&dir);
    for budget in [40, 120, 1024] {
        let req = MapRequest {
            idents: vec!["refundPayment".into()],
            ..request(budget, None)
        };
        let (map, _) = index.map(&req);
        assert_eq!(
            paths(&map).first(),
            Some(&"src/payment/refund.ts"),
            "budget {budget}"
        );
        assert!(map.files[0]
            .symbols
            .iter()
            .any(|s| s.name == "refundPayment"));
    }
    // Named in the query, too.
    let (map, _) = index.map(&request(60, Some("why does `refundPayment` log twice")));
    assert!(
        paths(&map).contains(&"src/payment/refund.ts"),
        "{:?}",
        paths(&map)
    );
}

#[test]
fn explain_says_why_in_and_what_would_bring_a_file_in() {
    let dir = shop();
    let index = index(&dir);
    let req = request(60, Some("shopping cart discount calculation"));
    let (map, ranked) = index.map(&req);
    let inside = explain_file(&index, &req, &ranked, &map, "src/cart/discount.ts");
    assert!(inside.in_map && inside.map_position == Some(1));
    let text = render_text(&inside);
    assert!(text.contains("in the map, file 1"), "{text}");
    assert!(text.contains("search ranks it #1"), "{text}");
    assert!(text.contains("pinned"), "{text}");

    let absent_path = paths(&index.map(&request(100_000, None)).0)
        .into_iter()
        .find(|p| !paths(&map).contains(p))
        .expect("a file the small map leaves out")
        .to_string();
    let absent = explain_file(&index, &req, &ranked, &map, &absent_path);
    assert!(!absent.in_map);
    let text = render_text(&absent);
    assert!(text.contains("not in the map"), "{text}");
    let needed = absent.budget_needed.expect("some budget brings it in");
    assert!(needed > req.budget);
    let cheapest = absent.cheapest.as_ref().expect("a definition");
    assert!(cheapest.tokens > 0);
    assert!(
        text.contains(&format!("a budget of {needed} tokens")),
        "{text}"
    );
    // The budget it names is exact: the map at that budget shows the file, one less does not.
    let at = |b: usize| {
        index.fit(
            &ranked,
            &MapRequest {
                budget: b,
                ..req.clone()
            },
        )
    };
    assert!(paths(&at(needed)).contains(&absent_path.as_str()));
    assert!(!paths(&at(needed - 1)).contains(&absent_path.as_str()));

    let not_code = explain_file(&index, &req, &ranked, &map, "README.md");
    assert!(!not_code.indexed);
}

#[test]
fn bad_steering_input_gives_the_plain_map_and_a_note() {
    let dir = shop();
    let index = index(&dir);
    let (plain, _) = index.map(&request(200, None));
    assert!(!plain.files.is_empty());
    for query in ["the of and to", "?!... ---", "   "] {
        let (map, _) = index.map(&request(200, Some(query)));
        assert_eq!(map.text, plain.text, "{query:?}");
        if !query.trim().is_empty() {
            assert_eq!(map.notes.len(), 1, "{query:?}: {:?}", map.notes);
        }
    }
    let long = "cart discount ".repeat(800);
    let (map, _) = index.map(&request(200, Some(&long)));
    assert!(!map.files.is_empty() && map.tokens <= 200);
    assert!(
        map.notes.iter().any(|n| n.contains("cut")),
        "{:?}",
        map.notes
    );

    let req = MapRequest {
        idents: vec!["noSuchThing".into()],
        focus: vec!["../../etc/passwd".into()],
        ..request(200, None)
    };
    let (map, _) = index.map(&req);
    assert_eq!(map.text, plain.text);
    assert!(
        map.notes.iter().any(|n| n.contains("noSuchThing")),
        "{:?}",
        map.notes
    );
}

fn symbols(map: &RepoMap) -> BTreeSet<(String, String, u32)> {
    map.files
        .iter()
        .flat_map(|f| {
            f.symbols
                .iter()
                .map(move |s| (f.path.clone(), s.name.clone(), s.line_range.start))
        })
        .collect()
}

const WORDS: &[&str] = &[
    "cart",
    "discount",
    "refund",
    "payment",
    "orders",
    "export",
    "database",
    "log",
    "feature3",
    "导出",
    "订单",
    "the",
    "`computeDiscount`",
    "query",
    "csv",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn with_a_query_the_budget_is_hard_and_larger_budgets_keep_what_smaller_showed(
        picks in proptest::collection::vec(0..WORDS.len(), 0..5),
        small in 16usize..400,
        extra in 0usize..600,
    ) {
        let dir = shop();
        let index = index(&dir);
        let query: Vec<&str> = picks.iter().map(|&i| WORDS[i]).collect();
        let query = query.join(" ");
        let req = request(small, Some(&query));
        let (ranked_map, ranked) = index.map(&req);
        let bigger = index.fit(&ranked, &MapRequest { budget: small + extra, ..req.clone() });
        for map in [&ranked_map, &bigger] {
            prop_assert!(map.tokens <= map.budget);
            prop_assert_eq!(map.tokens, tokenizer(TokenizerKind::O200k).count(&map.text));
        }
        let lost: Vec<_> = symbols(&ranked_map).difference(&symbols(&bigger)).cloned().collect();
        prop_assert!(lost.is_empty(), "{} → {} dropped {:?}", small, small + extra, lost);
        // The same request ranks the same (the TUI's map equals the CLI's).
        let (again, _) = index.map(&req);
        prop_assert_eq!(&again.text, &ranked_map.text);
    }
}
