//! Invariants of the ranking engine: PageRank is a probability distribution, focus files
//! lift what they use, results are deterministic, excluded definitions stay out. Plus an
//! ignored timing run on a synthetic repository the size of terraform.

use mapscope::engine::base::model::{
    ContainerRef, DefKind, Definition, FileTags, GoModule, Import, ImportedName, Lang, LineRange,
    ParsedFile, RefKind, Reference,
};
use mapscope::engine::link::graph::{build_graph, FileGraph};
use mapscope::engine::rank::pagerank::{pagerank, rank, PageRankOptions, Personalization};
use proptest::prelude::*;
use std::sync::Arc;
use std::time::Instant;

fn def(name: &str, kind: DefKind, line: u32) -> Definition {
    Definition {
        name: name.into(),
        kind,
        lines: LineRange::new(line, line + 3),
        signature: LineRange::new(line, line),
        parent: None,
        scope_lines: Vec::new(),
        container: ContainerRef::NONE,
        declaration: false,
        lookup_only: false,
    }
}

fn reference(name: &str, kind: RefKind, qualifier: Option<&str>) -> Reference {
    Reference {
        name: name.into(),
        kind,
        line: 1,
        qualifier: qualifier.map(str::to_string),
        receiver: None,
    }
}

fn import(spec: &str, names: &[&str], namespace: Option<&str>) -> Import {
    Import {
        specifier: spec.into(),
        names: names
            .iter()
            .map(|n| ImportedName {
                name: n.to_string(),
                alias: None,
            })
            .collect(),
        namespace: namespace.map(str::to_string),
        wildcard: false,
        reexport: false,
        line: 1,
    }
}

fn file(
    path: &str,
    defs: Vec<Definition>,
    refs: Vec<Reference>,
    imports: Vec<Import>,
) -> ParsedFile {
    let lang = Lang::from_path(path).expect("test paths have a known extension");
    ParsedFile::new(
        path.into(),
        lang,
        0,
        Arc::from(""),
        FileTags {
            defs,
            refs: refs.into(),
            imports,
            ..FileTags::default()
        },
    )
}

fn assert_distribution(r: &[f64]) {
    assert!(r.iter().all(|&x| x >= 0.0 && x.is_finite()), "{r:?}");
    let s: f64 = r.iter().sum();
    assert!((s - 1.0).abs() <= 1e-9, "sum {s}");
}

// ------------------------------------------------------------------ PageRank invariants

fn random_graph() -> impl Strategy<Value = (usize, Vec<(usize, usize, f64)>)> {
    (1usize..60).prop_flat_map(|n| {
        // Self-loops and dangling nodes arise naturally: targets may equal sources and many
        // nodes get no out-edge.
        let edge = (0..n, 0..n, 0.01f64..10.0);
        (Just(n), prop::collection::vec(edge, 0..n * 3))
    })
}

proptest! {
    #[test]
    fn pagerank_is_a_distribution((n, edges) in random_graph(), seed in any::<u64>()) {
        let opts = PageRankOptions::default();
        assert_distribution(&pagerank(n, &edges, None, &opts));
        // Random personalization, including zeros.
        let p: Vec<f64> = (0..n)
            .map(|i| ((seed.rotate_left(i as u32 % 64) ^ i as u64) % 4) as f64)
            .collect();
        assert_distribution(&pagerank(n, &edges, Some(&p), &opts));
        // A handful of iterations is still a distribution.
        let short = PageRankOptions { max_iterations: 3, ..opts };
        assert_distribution(&pagerank(n, &edges, Some(&p), &short));
    }

    #[test]
    fn pagerank_is_deterministic_and_order_independent((n, edges) in random_graph()) {
        let opts = PageRankOptions::default();
        let a = pagerank(n, &edges, None, &opts);
        let mut rev = edges.clone();
        rev.reverse();
        let b = pagerank(n, &rev, None, &opts);
        for (x, y) in a.iter().zip(&b) {
            prop_assert!((x - y).abs() < 1e-12);
        }
        prop_assert_eq!(a, pagerank(n, &edges, None, &opts));
    }

    /// A focus node (a fresh source, like a file the user is editing) raises the rank of
    /// the nodes it uses. Those are fresh too, so that uniform teleport cannot make them hubs
    /// of the random part; with ≥ 100 random nodes the bound r_u(g) < 2/N < d(1-d)·share
    /// holds, so this is a theorem rather than a likely outcome.
    #[test]
    fn focus_raises_its_neighbours(
        (n, edges) in (100usize..160).prop_flat_map(|n| {
            (Just(n), prop::collection::vec((0..n, 0..n, 0.1f64..5.0), 0..n * 3))
        }),
        k in 1usize..4,
        outs in prop::collection::vec(0usize..1000, 3),
        ws in prop::collection::vec(0.5f64..1.0, 3),
    ) {
        let focus = n;
        let total = n + 1 + k;
        let mut all = edges.clone();
        for j in 0..k {
            let g = n + 1 + j;
            all.push((focus, g, ws[j]));
            all.push((g, outs[j] % n, 1.0));
        }
        let opts = PageRankOptions::default();
        let base = pagerank(total, &all, None, &opts);
        let mut p = vec![0.01 / total as f64; total];
        p[focus] += 0.99;
        let focused = pagerank(total, &all, Some(&p), &opts);
        for j in 0..k {
            let g = n + 1 + j;
            prop_assert!(focused[g] > base[g], "g {} {} <= {}", g, focused[g], base[g]);
        }
    }
}

// ------------------------------------------------------------------ rank() invariants

/// A small random TypeScript repo: files import each other by relative path and use names
/// from a shared pool (so some uses resolve, some fall back, some go nowhere).
fn random_repo() -> impl Strategy<Value = Vec<ParsedFile>> {
    const NAMES: [&str; 12] = [
        "parseConfig",
        "render",
        "Store",
        "load",
        "save",
        "run",
        "helper",
        "Widget",
        "init",
        "validate",
        "x",
        "formatDate",
    ];
    let file_spec = (
        prop::collection::vec((0usize..NAMES.len(), 0usize..3), 0..6),
        prop::collection::vec((0usize..NAMES.len(), 0usize..4, any::<bool>()), 0..10),
        prop::collection::vec((0usize..64, 0usize..NAMES.len()), 0..3),
    );
    (2usize..25).prop_flat_map(move |n| {
        prop::collection::vec(file_spec.clone(), n).prop_map(move |specs| {
            specs
                .iter()
                .enumerate()
                .map(|(i, (defs, refs, imps))| {
                    let defs = defs
                        .iter()
                        .enumerate()
                        .map(|(j, &(name, kind))| {
                            let kind = [DefKind::Function, DefKind::Method, DefKind::Class][kind];
                            def(NAMES[name], kind, 1 + 5 * j as u32)
                        })
                        .collect();
                    let refs = refs
                        .iter()
                        .map(|&(name, kind, qualified)| {
                            let kind = [
                                RefKind::Call,
                                RefKind::Reference,
                                RefKind::Type,
                                RefKind::Heritage,
                            ][kind];
                            reference(NAMES[name], kind, qualified.then_some("obj"))
                        })
                        .collect();
                    let imports = imps
                        .iter()
                        .map(|&(target, name)| {
                            import(&format!("./f{}", target % n), &[NAMES[name]], None)
                        })
                        .collect();
                    file(&format!("src/f{i}.ts"), defs, refs, imports)
                })
                .collect()
        })
    })
}

fn dump(g: &FileGraph, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{:?}", g.outgoing(i))).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn rank_is_deterministic(files in random_repo(), focus in 0usize..64, q in any::<bool>()) {
        let n = files.len();
        let p = Personalization {
            focus_files: vec![focus % n],
            idents: vec!["Store".into()],
            query: q.then(|| "fix the parseConfig helper for widgets".to_string()),
            ..Default::default()
        };
        let g1 = build_graph(&files, &[], &[]);
        let g2 = build_graph(&files, &[], &[]);
        prop_assert_eq!(dump(&g1, n), dump(&g2, n));
        let a = rank(&files, &g1, &p);
        let b = rank(&files, &g2, &p);
        prop_assert_eq!(&a, &b);
        assert_distribution(&a.file_rank);
        assert_distribution(&a.personalization);
    }

    #[test]
    fn rank_lists_every_allowed_definition_once(
        files in random_repo(),
        focus in prop::collection::vec(0usize..64, 0..3),
        exclude in prop::collection::vec(0usize..64, 0..3),
        skip_render in any::<bool>(),
    ) {
        let n = files.len();
        let focus: Vec<usize> = focus.into_iter().map(|f| f % n).collect();
        let exclude: Vec<usize> = exclude.into_iter().map(|f| f % n).collect();
        let exclude_symbols: Vec<String> =
            if skip_render { vec!["render".into()] } else { Vec::new() };
        let p = Personalization {
            focus_files: focus.clone(),
            exclude_files: exclude.clone(),
            exclude_symbols: exclude_symbols.clone(),
            ..Default::default()
        };
        let g = build_graph(&files, &[], &[]);
        let out = rank(&files, &g, &p);
        let mut expected: Vec<(usize, usize)> = Vec::new();
        for (fi, f) in files.iter().enumerate() {
            if focus.contains(&fi) || exclude.contains(&fi) {
                continue;
            }
            for (di, d) in f.tags.defs.iter().enumerate() {
                if !exclude_symbols.contains(&d.name) {
                    expected.push((fi, di));
                }
            }
        }
        let mut got: Vec<(usize, usize)> = out.defs.iter().map(|d| (d.file, d.def)).collect();
        got.sort_unstable();
        prop_assert_eq!(got, expected);
        prop_assert!(out.defs.iter().all(|d| d.score >= 0.0 && d.score.is_finite()));
        prop_assert!(out.defs.windows(2).all(|w| w[0].score >= w[1].score));
    }
}

#[test]
fn focus_file_lifts_what_it_uses() {
    // app.ts uses util.ts; lone.ts and other.ts are unrelated. Focusing app lifts util and
    // util's definition, while app's own definitions are left out.
    let files = vec![
        file(
            "src/app.ts",
            vec![def("main", DefKind::Function, 1)],
            vec![reference("formatDate", RefKind::Call, None)],
            vec![import("./util", &["formatDate"], None)],
        ),
        file(
            "src/util.ts",
            vec![def("formatDate", DefKind::Function, 1)],
            vec![],
            vec![],
        ),
        file(
            "src/lone.ts",
            vec![def("lonely", DefKind::Function, 1)],
            vec![reference("hub", RefKind::Call, None)],
            vec![import("./other", &["hub"], None)],
        ),
        file(
            "src/other.ts",
            vec![def("hub", DefKind::Function, 1)],
            vec![],
            vec![],
        ),
    ];
    let g = build_graph(&files, &[], &[]);
    let plain = rank(&files, &g, &Personalization::default());
    let focused = rank(
        &files,
        &g,
        &Personalization {
            focus_files: vec![0],
            ..Default::default()
        },
    );
    assert!(focused.file_rank[1] > plain.file_rank[1]);
    assert!(focused.file_rank[1] > focused.file_rank[3]);
    assert_eq!(focused.defs.first().map(|d| (d.file, d.def)), Some((1, 0)));
    assert!(focused.defs.iter().all(|d| d.file != 0));
    // Without personalization the two symmetric halves tie and break by path.
    assert_eq!(plain.personalization, vec![0.25; 4]);
    let order: Vec<usize> = plain.defs.iter().map(|d| d.file).collect();
    assert_eq!(order, [3, 1, 0, 2]);
}

#[test]
fn unpersonalized_rank_prefers_the_projects_code_over_its_fixtures() {
    // Two identical closed import cycles (which keep the rank they receive), one in the
    // project's code and one in a test fixture, beside a plain library file.
    let pair = |dir: &str| {
        vec![
            file(
                &format!("{dir}/a.ts"),
                vec![def("makeA", DefKind::Function, 1)],
                vec![reference("makeB", RefKind::Call, None)],
                vec![import("./b", &["makeB"], None)],
            ),
            file(
                &format!("{dir}/b.ts"),
                vec![def("makeB", DefKind::Function, 1)],
                vec![reference("makeA", RefKind::Call, None)],
                vec![import("./a", &["makeA"], None)],
            ),
        ]
    };
    let mut files = pair("src/core");
    files.extend(pair("test/fixtures/cycle"));
    files.push(file(
        "src/lib.ts",
        vec![def("helper", DefKind::Function, 1)],
        vec![],
        vec![],
    ));
    let g = build_graph(&files, &[], &[]);
    let out = rank(&files, &g, &Personalization::default());
    assert_distribution(&out.file_rank);
    assert!(
        out.file_rank[0] > 2.0 * out.file_rank[2],
        "{:?}",
        out.file_rank
    );
    // The project's definitions come first in the map order.
    let first: Vec<&str> = out.defs[..2]
        .iter()
        .map(|d| files[d.file].tags.defs[d.def].name.as_str())
        .collect();
    assert!(
        first.contains(&"makeA") && first.contains(&"makeB"),
        "{first:?}"
    );
    assert_eq!(files[out.defs[0].file].path.split('/').next(), Some("src"));
    // An explicit signal still reaches the fixture: focusing one lifts the other.
    let focused = rank(
        &files,
        &g,
        &Personalization {
            focus_files: vec![2],
            ..Personalization::default()
        },
    );
    assert!(
        focused.file_rank[3] > focused.file_rank[1],
        "{:?}",
        focused.file_rank
    );
}

#[test]
fn mentioned_identifier_and_query_personalize() {
    let files = vec![
        file(
            "src/plugins/wasm.ts",
            vec![def("wasmHelperPlugin", DefKind::Function, 1)],
            vec![],
            vec![],
        ),
        file(
            "src/plugins/css.ts",
            vec![def("cssPlugin", DefKind::Function, 1)],
            vec![],
            vec![],
        ),
        file(
            "src/server/index.ts",
            vec![def("createServer", DefKind::Function, 1)],
            vec![],
            vec![],
        ),
        file(
            "src/config.ts",
            vec![def("resolveConfig", DefKind::Function, 1)],
            vec![],
            vec![],
        ),
    ];
    let g = build_graph(&files, &[], &[]);
    let by_query = rank(
        &files,
        &g,
        &Personalization {
            query: Some("the wasm helper plugin breaks".into()),
            ..Default::default()
        },
    );
    let best = (0..4)
        .max_by(|&a, &b| by_query.file_rank[a].total_cmp(&by_query.file_rank[b]))
        .unwrap();
    assert_eq!(best, 0);
    let by_ident = rank(
        &files,
        &g,
        &Personalization {
            idents: vec!["resolveConfig".into()],
            ..Default::default()
        },
    );
    assert_eq!(by_ident.defs[0].file, 3);
    // The stem matches too: `server` names src/server/index.ts.
    let by_stem = rank(
        &files,
        &g,
        &Personalization {
            idents: vec!["Server".into()],
            ..Default::default()
        },
    );
    assert_eq!(by_stem.defs[0].file, 2);
}

#[test]
fn mentioned_identifier_boosts_its_edges() {
    // a.ts uses b's `alpha` and c's `beta` equally; mentioning beta tips the balance to c.
    let files = vec![
        file(
            "a.ts",
            vec![],
            vec![
                reference("alpha", RefKind::Call, None),
                reference("beta", RefKind::Call, None),
            ],
            vec![
                import("./b", &["alpha"], None),
                import("./c", &["beta"], None),
            ],
        ),
        file(
            "b.ts",
            vec![def("alpha", DefKind::Function, 1)],
            vec![],
            vec![],
        ),
        file(
            "c.ts",
            vec![def("beta", DefKind::Function, 1)],
            vec![],
            vec![],
        ),
    ];
    let g = build_graph(&files, &[], &[]);
    let plain = rank(&files, &g, &Personalization::default());
    assert!((plain.file_rank[1] - plain.file_rank[2]).abs() < 1e-12);
    let p = Personalization {
        focus_files: vec![0],
        idents: vec!["beta".into()],
        ..Default::default()
    };
    let out = rank(&files, &g, &p);
    let edges_only = Personalization {
        focus_files: vec![0],
        ..Default::default()
    };
    let before = rank(&files, &g, &edges_only);
    assert!(out.file_rank[2] > out.file_rank[1]);
    assert!(out.file_rank[2] / out.file_rank[1] > before.file_rank[2] / before.file_rank[1]);
}

// ------------------------------------------------------------------ synthetic scale run

/// A terraform-sized Go repository: 4,300 files in 430 packages, 14 definitions each
/// (60,200 in all), with same-package calls, qualified calls into imported packages, and
/// method calls on locals whose names (`String`, `Close`, …) are defined all over.
fn synthetic_go_repo() -> (Vec<ParsedFile>, Vec<GoModule>) {
    const FILES: usize = 4300;
    const PER_PKG: usize = 10;
    const METHODS: [&str; 12] = [
        "String", "Close", "Validate", "Get", "Set", "Run", "Apply", "Plan", "Read", "Write",
        "Equal", "Copy",
    ];
    let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |m: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % m as u64) as usize
    };
    let pkgs = FILES / PER_PKG;
    let mut files = Vec::with_capacity(FILES);
    for fi in 0..FILES {
        let pkg = fi / PER_PKG;
        let mut defs = Vec::new();
        for j in 0..10 {
            defs.push(def(
                &format!("Func{pkg}x{fi}x{j}"),
                DefKind::Function,
                1 + 10 * j,
            ));
        }
        for j in 0..4 {
            let name = METHODS[(fi + j) % METHODS.len()];
            defs.push(def(name, DefKind::Method, 200 + 10 * j as u32));
        }
        let mut refs = Vec::new();
        let mut imports = Vec::new();
        // Same-package calls.
        for _ in 0..30 {
            let other = pkg * PER_PKG + next(PER_PKG);
            refs.push(reference(
                &format!("Func{pkg}x{other}x{}", next(10)),
                RefKind::Call,
                None,
            ));
        }
        // Qualified calls into 4 imported packages.
        for k in 0..4 {
            let target = (pkg + 1 + next(pkgs - 1)) % pkgs;
            let alias = format!("p{k}");
            imports.push(import(
                &format!("example.com/tf/internal/pkg{target}"),
                &[],
                Some(&alias),
            ));
            for _ in 0..6 {
                let tf = target * PER_PKG + next(PER_PKG);
                refs.push(reference(
                    &format!("Func{target}x{tf}x{}", next(10)),
                    RefKind::Call,
                    Some(&alias),
                ));
            }
        }
        // External imports and method calls on locals.
        imports.push(import("fmt", &[], None));
        refs.push(reference("Println", RefKind::Call, Some("fmt")));
        for _ in 0..15 {
            refs.push(reference(
                METHODS[next(METHODS.len())],
                RefKind::Call,
                Some("x"),
            ));
        }
        // Builtins and locals that resolve nowhere.
        refs.push(reference("len", RefKind::Call, None));
        refs.push(reference("err", RefKind::Reference, None));
        files.push(file(
            &format!("internal/pkg{pkg}/f{fi}.go"),
            defs,
            refs,
            imports,
        ));
    }
    let modules = vec![GoModule {
        dir: String::new(),
        module: "example.com/tf".into(),
    }];
    (files, modules)
}

/// Process CPU time (user + system) in ms, from /proc (10 ms ticks); the machine these
/// figures come from is shared, so wall time alone is noisy.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = after
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    // Fields 14 and 15 (utime, stime) are at 11 and 12 after the command name.
    f.get(10)
        .zip(f.get(11))
        .map_or(0.0, |(u, s)| (u + s) * 10.0)
}

/// `cargo test --release --test engine_rank -- --ignored --nocapture synthetic` (or, reusing
/// the dev build's dependencies: `CARGO_PROFILE_DEV_OPT_LEVEL=2
/// CARGO_PROFILE_DEV_DEBUG_ASSERTIONS=false CARGO_PROFILE_DEV_OVERFLOW_CHECKS=false cargo test …`).
/// Measured on the shared 2-core machine (load 5-7): build_graph ~0.75 s cpu, 119,217 edges
/// (bare-name matching would make 18.4 M); rank ~21-23 ms cpu.
#[test]
#[ignore = "timing run; prints figures"]
fn synthetic_scale_timing() {
    let (files, modules) = synthetic_go_repo();
    let n_defs: usize = files.iter().map(|f| f.tags.defs.len()).sum();
    let mut build = f64::MAX;
    let mut build_cpu = f64::MAX;
    let mut g = build_graph(&files, &modules, &[]);
    for _ in 0..3 {
        let (t, c) = (Instant::now(), cpu_ms());
        g = build_graph(&files, &modules, &[]);
        build = build.min(t.elapsed().as_secs_f64() * 1e3);
        build_cpu = build_cpu.min(cpu_ms() - c);
    }
    // What aider's bare-name matching would have produced: every (referencer, definer) pair.
    let mut definers: std::collections::HashMap<&str, Vec<usize>> = Default::default();
    for (fi, f) in files.iter().enumerate() {
        for d in &f.tags.defs {
            let v = definers.entry(d.name.as_str()).or_default();
            if v.last() != Some(&fi) {
                v.push(fi);
            }
        }
    }
    let mut naive = std::collections::HashSet::new();
    for (fi, f) in files.iter().enumerate() {
        for r in &f.tags.refs {
            for &d in definers.get(r.name).map_or(&[][..], Vec::as_slice) {
                naive.insert((fi, d));
            }
        }
    }
    println!(
        "synthetic: {} files, {} defs; build_graph {:.0} ms wall, {:.0} ms cpu (best of 3); \
         {} edges (bare-name matching: {})",
        files.len(),
        n_defs,
        build,
        build_cpu,
        g.edge_count(),
        naive.len()
    );
    let cases = [
        ("none", Personalization::default()),
        (
            "focus",
            Personalization {
                focus_files: vec![17, 1234],
                ..Default::default()
            },
        ),
        (
            "query",
            Personalization {
                query: Some("Validate the plan for pkg42 when Func42x421x3 fails".into()),
                idents: vec!["Apply".into()],
                ..Default::default()
            },
        ),
    ];
    for (name, p) in &cases {
        let mut best = f64::MAX;
        let c = cpu_ms();
        for _ in 0..10 {
            let t = Instant::now();
            let out = rank(&files, &g, p);
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(out.file_rank.len(), files.len());
        }
        let cpu = (cpu_ms() - c) / 10.0;
        println!("rank[{name}]: {best:.1} ms wall (best of 10), {cpu:.1} ms cpu (mean)");
    }
    // Sane edge count: same-package + imports + capped method guesses, far below bare names.
    assert!(g.edge_count() < naive.len() / 2);
}

#[test]
fn query_words_rank_the_project_above_its_playgrounds_unless_asked_for() {
    // "server" names the project's `src/server/` folder, and three playgrounds' `server.js`
    // just as well.
    let mut files = vec![file(
        "src/server/index.ts",
        vec![def("listen", DefKind::Function, 1)],
        vec![],
        vec![],
    )];
    for app in ["ssr", "ssr-html", "ssr-deps"] {
        files.push(file(
            &format!("playground/{app}/server.js"),
            vec![def("startApp", DefKind::Function, 1)],
            vec![],
            vec![],
        ));
    }
    files.push(file(
        "src/config.ts",
        vec![def("resolveConfig", DefKind::Function, 1)],
        vec![],
        vec![],
    ));
    let g = build_graph(&files, &[], &[]);
    let ranked = |query: &str| {
        rank(
            &files,
            &g,
            &Personalization {
                query: Some(query.into()),
                ..Personalization::default()
            },
        )
        .file_rank
    };
    let plain = ranked("restart the server");
    assert_distribution(&plain);
    for playground in 1..=3 {
        // Undamped, the four would tie (the project's file ahead only by its edge in the
        // small uniform share).
        assert!(plain[0] > 1.5 * plain[playground], "{plain:?}");
    }
    // Asked for by name, the playgrounds keep their full weight.
    let asked = ranked("restart the playground server");
    for playground in 1..=3 {
        assert!(asked[playground] > asked[0], "{asked:?}");
    }
    // About tests: no damping (the project's file keeps only its edge in the small uniform
    // share; damped, a playground would get a fifth of its rank).
    let tests = ranked("fix the flaky server test");
    assert!(tests[1] > 0.9 * tests[0], "{tests:?}");
}

/// With nothing to steer it, the map opens with the project, not with the test library every
/// test shares (git's `t/test-lib.sh`): tests' definitions weigh as their prior does. A
/// query about tests still finds the library.
#[test]
fn an_unsteered_map_opens_with_the_project_not_the_shared_test_library() {
    use mapscope::engine::index::{Index, IndexOptions, MapRequest};
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, String)> = vec![
        (
            "app/store.py".into(),
            "class Store:\n    def get(self, key):\n        return key\n".into(),
        ),
        (
            "app/server.py".into(),
            "from app.store import Store\n\n\ndef serve():\n    return Store().get('a')\n".into(),
        ),
        (
            "tests/helpers.py".into(),
            "def make_client():\n    return 1\n\n\ndef assert_ok(x):\n    assert x\n".into(),
        ),
    ];
    for i in 0..12 {
        files.push((
            format!("tests/test_case{i}.py"),
            format!(
                "from tests.helpers import make_client, assert_ok\n\n\ndef test_{i}():\n    assert_ok(make_client())\n"
            ),
        ));
    }
    let pairs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, s)| (p.as_str(), s.as_str()))
        .collect();
    crate::common::write_files(dir.path(), &pairs);
    let index = Index::build(dir.path(), &IndexOptions::default()).unwrap();
    let first = |query: Option<&str>| {
        let (map, _) = index.map(&MapRequest {
            budget: 4096,
            query: query.map(str::to_string),
            ..MapRequest::default()
        });
        map.files
            .first()
            .map(|f| f.path.clone())
            .unwrap_or_default()
    };
    assert!(first(None).starts_with("app/"), "{}", first(None));
    assert_eq!(first(Some("test helpers make_client")), "tests/helpers.py");
}
