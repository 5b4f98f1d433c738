//! The live index: an incremental refresh after any edit script equals a full rebuild (tags,
//! graph, ranks and rendered map alike), and tags reused from the persistent cache give the
//! same index as parsing from scratch.

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use mapscope::engine::base::model::{FileTags, Lang, RankedDef, Skipped};
use mapscope::engine::base::tokenizer::TokenizerKind;
use mapscope::engine::index::{Index, IndexOptions, MapRequest, Reuse};
use mapscope::engine::ingest::history::HistorySource;
use mapscope::engine::rank::repo_map::{render, MapFormat};
use mapscope::engine::search::SearchOptions;
use mapscope::engine::store::dir::DiskCache;
use mapscope::engine::store::tags::now_ns;
use proptest::prelude::*;

/// Everything observable about an index, in a comparable form.
#[derive(Debug, PartialEq)]
struct Observed {
    files: Vec<(String, Lang, u64, String, FileTags)>,
    skipped: Vec<Skipped>,
    docs: Vec<(String, String)>,
    edges: Vec<(String, String, String)>,
    prior: Vec<u64>,
    ranked: Vec<RankedDef>,
    map: String,
}

fn observe(index: &Index) -> Observed {
    let files = index
        .files
        .iter()
        .map(|f| {
            let tags: FileTags = (*f.tags).clone();
            (
                f.path.clone(),
                f.lang,
                f.size,
                f.source().expect("full source").to_string(),
                tags,
            )
        })
        .collect();
    let path = |f: usize| index.files[f].path.clone();
    let mut edges: Vec<_> = index
        .graph
        .all_edges()
        .map(|(src, dst, e)| (path(src), path(dst), format!("{e:?}")))
        .collect();
    edges.sort();
    let req = MapRequest {
        budget: 300,
        tokenizer: TokenizerKind::Cl100k,
        query: Some("helper value".into()),
        ..MapRequest::default()
    };
    let (map, ranked) = index.map(&req);
    Observed {
        files,
        skipped: index.skipped.clone(),
        docs: index
            .docs
            .iter()
            .map(|d| (d.path.clone(), d.text().to_string()))
            .collect(),
        edges,
        prior: index.prior().iter().map(|p| p.to_bits()).collect(),
        ranked: ranked.defs,
        map: render(&map, &index.files, MapFormat::Text),
    }
}

fn full(root: &Path) -> Index {
    Index::build(root, &IndexOptions::default()).expect("full build")
}

/// Paths an edit script may touch: Python and TypeScript modules that import each other,
/// a doc file, one in a skipped directory, and Ruby and Java files whose uses bind through
/// scope (a class `File` moving into and out of a module, Java's `Optional` shadowed in a
/// package).
const PATHS: &[&str] = &[
    "a.py",
    "pkg/b.py",
    "pkg/__init__.py",
    "c.ts",
    "src/d.ts",
    "src/e.tsx",
    "notes.md",
    "node_modules/x/index.ts",
    "rb/app/file.rb",
    "rb/app/renderer.rb",
    "rb/site.rb",
    "src/acme/util/Optional.java",
    "src/acme/util/Seen.java",
];

/// Contents for a path, varied by `variant` so definitions, references and imports change
/// (variants 5 and 6 keep variant 0's imports, none, so a refresh relinks only the files
/// the edit touches: `graph::build_graph_relinking`).
fn content(path: &str, variant: u8) -> String {
    let v = variant % 7;
    if path.ends_with(".py") {
        match v {
            0 => "def helper():\n    return 1\n".to_string(),
            1 => "from pkg.b import value\n\ndef helper():\n    return value()\n".to_string(),
            2 => "class Store:\n    def value(self):\n        return helper()\n".to_string(),
            3 => "import a\n\ndef value():\n    return a.helper()\n".to_string(),
            5 => "def helper():\n    return value()\n".to_string(),
            6 => "def helper():\n    return 2\n\nclass Store:\n    def value(self):\n        return 1\n"
                .to_string(),
            _ => "def broken(:\n    pass\n".to_string(),
        }
    } else if path.ends_with(".ts") || path.ends_with(".tsx") {
        match v {
            0 => "export function helper(): number { return 1; }\n".to_string(),
            1 => {
                "import { helper } from './c';\nexport const value = () => helper();\n".to_string()
            }
            2 => {
                "import { value } from '../c';\nexport class Store { get() { return value(); } }\n"
                    .to_string()
            }
            3 => "export interface Value { helper(): number }\n".to_string(),
            5 => "export function helper(): number { return value(); }\n".to_string(),
            6 => "export function helper(): number { return 2; }\nexport function value() { return 1; }\n"
                .to_string(),
            _ => "export function (\n".to_string(),
        }
    } else if path.ends_with(".rb") {
        match v {
            0 => "module App\n  class Renderer\n    class File\n      def self.join(*a)\n        a\n      end\n    end\n  end\nend\n".to_string(),
            1 => "module App\n  class Renderer\n    def render\n      File.join('x')\n    end\n  end\nend\n".to_string(),
            2 => "module App\n  class Site\n    def to_s\n      File.read('y').to_s\n    end\n  end\nend\n".to_string(),
            3 => "class File\n  def self.join(*a)\n    a\n  end\nend\n".to_string(),
            5 => "module App\n  class Renderer\n    File.new('z')\n    App::File.load\n  end\nend\n".to_string(),
            6 => "module App\n  class File\n    def self.load\n      1\n    end\n  end\nend\n".to_string(),
            _ => "def broken(\n".to_string(),
        }
    } else if path.ends_with(".java") {
        match v {
            0 => "package acme.util;\n\npublic class Optional {\n  public static Optional empty() { return null; }\n}\n".to_string(),
            1 => "package acme.util;\n\npublic class Seen {\n  Object run() { return Optional.empty(); }\n}\n".to_string(),
            2 => "package acme.app;\n\npublic class Use {\n  Object run() { return Optional.empty(); }\n}\n".to_string(),
            3 => "package acme.util;\n\npublic class Other {\n  boolean eq(Object o) { return o.equals(this); }\n}\n".to_string(),
            5 => "package acme.util;\n\npublic class Empty {\n  static Object empty() { return null; }\n}\n".to_string(),
            6 => "package acme.util;\n\npublic class Optional {\n}\n".to_string(),
            _ => "package acme.util;\nclass {\n".to_string(),
        }
    } else {
        format!("# Notes {v}\nThe helper returns a value.\n")
    }
}

#[derive(Debug, Clone)]
enum Edit {
    Write(usize, u8),
    Delete(usize),
    Rename(usize, usize),
}

fn edit_strategy() -> impl Strategy<Value = Edit> {
    let n = PATHS.len();
    prop_oneof![
        3 => (0..n, any::<u8>()).prop_map(|(p, v)| Edit::Write(p, v)),
        1 => (0..n).prop_map(Edit::Delete),
        1 => (0..n, 0..n).prop_map(|(a, b)| Edit::Rename(a, b)),
    ]
}

/// Applies one edit, returning the repo-relative paths it touched (what a watcher reports).
fn apply(root: &Path, edit: &Edit) -> Vec<String> {
    match *edit {
        Edit::Write(p, v) => {
            common::write_files(root, &[(PATHS[p], &content(PATHS[p], v))]);
            vec![PATHS[p].to_string()]
        }
        Edit::Delete(p) => {
            let _ = fs::remove_file(root.join(PATHS[p]));
            vec![PATHS[p].to_string()]
        }
        Edit::Rename(a, b) => {
            let (from, to) = (root.join(PATHS[a]), root.join(PATHS[b]));
            if a == b || !from.exists() {
                return vec![];
            }
            if let Some(parent) = to.parent() {
                fs::create_dir_all(parent).expect("mkdir");
            }
            fs::rename(&from, &to).expect("rename");
            vec![PATHS[a].to_string(), PATHS[b].to_string()]
        }
    }
}

fn seed(root: &Path) {
    common::write_files(
        root,
        &[
            ("a.py", &content("a.py", 0)),
            ("pkg/b.py", &content("pkg/b.py", 3)),
            ("c.ts", &content("c.ts", 0)),
            ("src/d.ts", &content("src/d.ts", 2)),
            ("rb/app/file.rb", &content("rb/app/file.rb", 0)),
            ("rb/app/renderer.rb", &content("rb/app/renderer.rb", 1)),
            (
                "src/acme/util/Optional.java",
                &content("src/acme/util/Optional.java", 0),
            ),
            (
                "src/acme/util/Seen.java",
                &content("src/acme/util/Seen.java", 1),
            ),
        ],
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Each step refreshes the previous step's index (incremental over incremental), and
    /// after each step the result equals a full rebuild of the tree as it now is.
    #[test]
    fn incremental_refresh_equals_full_rebuild(
        steps in prop::collection::vec(prop::collection::vec(edit_strategy(), 1..4), 1..5)
    ) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path();
        seed(root);
        let opts = IndexOptions::default();
        let mut current = full(root);
        for step in &steps {
            let mut changed = BTreeSet::new();
            for edit in step {
                changed.extend(apply(root, edit));
            }
            let refreshed = match current.refresh(&opts, &changed, &|_| {}) {
                Ok(index) => index,
                Err(e) => {
                    // Every indexable file deleted: a full build must agree.
                    prop_assert!(Index::build(root, &opts).is_err(), "refresh failed alone: {e}");
                    return Ok(());
                }
            };
            prop_assert_eq!(observe(&refreshed), observe(&full(root)));
            current = refreshed;
        }
    }
}

/// An edit that keeps a file's imports binds again only that file and the files that
/// mention a name it started or stopped defining; the others' bindings come from the
/// previous graph, and the index equals a full rebuild.
#[test]
fn a_one_file_edit_relinks_only_what_it_touches() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    seed(root);
    common::write_files(
        root,
        &[
            ("src/e.tsx", &content("src/e.tsx", 0)),
            ("pkg/__init__.py", &content("pkg/__init__.py", 0)),
        ],
    );
    let opts = IndexOptions::default();
    let first = full(root);
    let n = first.files.len();
    assert_eq!(first.relinked, None, "a full build binds everything");
    // A body edit: only the file itself.
    common::write_files(root, &[("c.ts", &content("c.ts", 5))]);
    let changed = BTreeSet::from(["c.ts".to_string()]);
    let second = first.refresh(&opts, &changed, &|_| {}).unwrap();
    assert_eq!(second.relinked, Some(1));
    assert_eq!(observe(&second), observe(&full(root)));
    // A new definition (`value`): the file, and those that mention `value`.
    common::write_files(root, &[("c.ts", &content("c.ts", 6))]);
    let third = second.refresh(&opts, &changed, &|_| {}).unwrap();
    let bound = third.relinked.unwrap();
    assert!(bound > 1 && bound < n, "{bound} of {n}");
    assert_eq!(observe(&third), observe(&full(root)));
    // An import edited: everything.
    common::write_files(root, &[("c.ts", &content("c.ts", 1))]);
    let fourth = third.refresh(&opts, &changed, &|_| {}).unwrap();
    assert_eq!(fourth.relinked, Some(n));
    assert_eq!(observe(&fourth), observe(&full(root)));
}

/// An import (`importer` using `name`, defined in `target`) that only a config's alias
/// binds.
struct AliasedImport<'a> {
    importer: &'a str,
    target: &'a str,
    name: &'a str,
}

impl AliasedImport<'_> {
    fn weight(&self, index: &Index) -> f64 {
        common::ident_weight(
            &index.files,
            &index.graph,
            self.importer,
            self.target,
            self.name,
        )
    }
}

/// Writes `files` (the import unbound), then `config` (path, text), and refreshes with only
/// the config changed: the import binds, and the refresh equals a full rebuild.
fn refreshed_after_config_edit(
    root: &std::path::Path,
    import: &AliasedImport,
    files: &[(&str, &str)],
    config: (&str, &str),
) -> Index {
    common::write_files(root, files);
    let first = full(root);
    assert_eq!(import.weight(&first), 0.0, "no alias yet");
    common::write_files(root, &[config]);
    let changed = BTreeSet::from([config.0.to_string()]);
    let second = first
        .refresh(&IndexOptions::default(), &changed, &|_| {})
        .unwrap();
    assert!(import.weight(&second) > 0.0);
    assert_eq!(observe(&second), observe(&full(root)));
    second
}

/// A `tsconfig.json` that gains a path alias changes how imports in other files resolve:
/// the refresh re-reads it, binds everything again, and equals a full rebuild.
#[test]
fn a_tsconfig_edit_resolves_its_aliases_after_a_refresh() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let import = AliasedImport {
        importer: "app/main.ts",
        target: "shared/lib/helper.ts",
        name: "helper",
    };
    let second = refreshed_after_config_edit(
        root,
        &import,
        &[
            (
                "tsconfig.json",
                "{ \"compilerOptions\": { \"strict\": true } }\n",
            ),
            (
                "app/main.ts",
                "import { helper } from '@lib/helper'\nexport const value = helper()\n",
            ),
            (
                "shared/lib/helper.ts",
                "export function helper() {\n  return 1\n}\n",
            ),
        ],
        (
            "tsconfig.json",
            "{\n  \"compilerOptions\": {\n    // the alias\n    \"paths\": { \"@lib/*\": [\"shared/lib/*\"], },\n  },\n}\n",
        ),
    );
    assert_eq!(second.relinked, Some(second.files.len()));
    // And back: the alias gone, the edge too.
    common::write_files(root, &[("tsconfig.json", "{}\n")]);
    let changed = BTreeSet::from(["tsconfig.json".to_string()]);
    let third = second
        .refresh(&IndexOptions::default(), &changed, &|_| {})
        .unwrap();
    assert_eq!(import.weight(&third), 0.0);
    assert_eq!(observe(&third), observe(&full(root)));
}

/// The alias lives in a base config that a package's `tsconfig.json` extends: an edit to
/// the base alone (the watcher's rescan names only it) rebinds the package's imports, and
/// the refresh equals a full rebuild.
#[test]
fn an_edit_to_an_extended_base_config_rebinds_after_a_refresh() {
    let tmp = tempfile::tempdir().unwrap();
    let import = AliasedImport {
        importer: "apps/web/main.ts",
        target: "libs/util/src/index.ts",
        name: "helper",
    };
    refreshed_after_config_edit(
        tmp.path(),
        &import,
        &[
            ("tsconfig.base.json", "{ \"compilerOptions\": {} }\n"),
            (
                "apps/web/tsconfig.json",
                "{ \"extends\": \"../../tsconfig.base.json\" }\n",
            ),
            (
                "apps/web/main.ts",
                "import { helper } from '@org/helpers'\nexport const value = helper()\n",
            ),
            (
                "libs/util/src/index.ts",
                "export function helper() {\n  return 1\n}\n",
            ),
        ],
        (
            "tsconfig.base.json",
            "{ \"compilerOptions\": { \"paths\": { \"@org/helpers\": [\"libs/util/src/index.ts\"] } } }\n",
        ),
    );
}

#[test]
fn refresh_keeps_the_text_of_untouched_docs_and_rereads_edited_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    seed(root);
    common::write_files(root, &[("notes.md", "# one\n"), ("guide.md", "# guide\n")]);
    let first = full(root);
    let doc = |index: &Index, path: &str| {
        index
            .docs
            .iter()
            .find(|d| d.path == path)
            .unwrap()
            .text()
            .clone()
    };

    // Same size, reported changed: read again.
    common::write_files(root, &[("notes.md", "# two\n")]);
    let changed = BTreeSet::from(["notes.md".to_string()]);
    let second = first
        .refresh(&IndexOptions::default(), &changed, &|_| {})
        .unwrap();
    assert_eq!(&*doc(&second, "notes.md"), "# two\n");
    // Untouched: the same text, not a copy read again.
    assert!(Arc::ptr_eq(
        &doc(&first, "guide.md"),
        &doc(&second, "guide.md")
    ));
    // A rescan that names no path still sees a doc whose size changed.
    common::write_files(root, &[("guide.md", "# a longer guide\n")]);
    let third = second
        .refresh(&IndexOptions::default(), &BTreeSet::new(), &|_| {})
        .unwrap();
    assert_eq!(&*doc(&third, "guide.md"), "# a longer guide\n");
    assert_eq!(observe(&third), observe(&full(root)));
}

#[test]
fn refresh_reuses_what_did_not_change_and_reparses_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    seed(root);
    let first = full(root);
    assert_eq!(first.reuse.parsed, 8);

    common::write_files(root, &[("a.py", &content("a.py", 1))]);
    let changed = BTreeSet::from(["a.py".to_string()]);
    let second = first
        .refresh(&IndexOptions::default(), &changed, &|_| {})
        .unwrap();
    assert_eq!(second.reuse.parsed, 1, "{:?}", second.reuse);
    assert_eq!(second.reuse.unchanged, 7, "{:?}", second.reuse);

    // A reported change whose content is the same is read but not re-parsed.
    let third = second
        .refresh(&IndexOptions::default(), &changed, &|_| {})
        .unwrap();
    assert_eq!(third.reuse.parsed, 0, "{:?}", third.reuse);
    assert_eq!(third.reuse.hash_hits, 1, "{:?}", third.reuse);
}

#[test]
fn tags_from_the_disk_cache_give_the_same_index() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    fs::create_dir_all(&root).unwrap();
    common::write_files(&root, &[("notes.md", "# helper\n")]);
    seed(&root);
    let cold = full(&root);
    let cache = DiskCache::under(&tmp.path().join("cache"), &cold.root).unwrap();
    cache.save(&cold.files, now_ns()).unwrap();

    // One file changes between the runs: it alone is parsed.
    common::write_files(&root, &[("c.ts", &content("c.ts", 3))]);
    let loaded = cache.load();
    assert!(loaded.warning.is_none());
    let warm = Index::build_reusing(
        &root,
        &IndexOptions::default(),
        Reuse::Store(&loaded.store),
        &|_| {},
    )
    .unwrap();
    assert_eq!(warm.reuse.parsed, 1, "{:?}", warm.reuse);
    assert_eq!(warm.reuse.hash_hits, 7, "{:?}", warm.reuse);
    assert_eq!(observe(&warm), observe(&full(&root)));
}

/// A branch switch rewriting 1,000 files: the watcher coalesces it into a few batches, one
/// refresh with their union re-parses exactly the changed files, and the result equals a
/// full rebuild.
#[test]
fn a_storm_of_1000_changes_becomes_one_refresh_equal_to_a_full_rebuild() {
    use mapscope::engine::live::watch::{ChangeBatch, WatchOptions, Watcher};
    use std::time::{Duration, Instant};

    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let write_all = |version: u32| {
        for i in 0..1000 {
            common::write_files(
                root,
                &[(
                    &format!("pkg{}/m{i}.py", i % 10),
                    &format!(
                        "def f{i}_v{version}():\n    return f{}_v{version}()\n",
                        (i + 1) % 1000
                    ),
                )],
            );
        }
    };
    write_all(1);
    let before = full(root);
    let watcher = Watcher::start(
        root,
        WatchOptions {
            max_delay: Duration::from_mins(1),
            ..WatchOptions::default()
        },
    )
    .unwrap();
    write_all(2);

    let mut merged = ChangeBatch::default();
    let mut batches = 0;
    let deadline = Instant::now() + Duration::from_mins(2);
    while merged.paths.len() < 1000 && !merged.rescan {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "saw {} of 1000 paths", merged.paths.len());
        if let Ok(batch) = watcher.changes().recv_timeout(left) {
            batches += 1;
            merged.merge(batch);
        }
    }
    assert!(batches <= 3, "{batches} batches");
    let refreshed = before
        .refresh(&IndexOptions::default(), &merged.paths, &|_| {})
        .unwrap();
    assert_eq!(refreshed.reuse.parsed, 1000, "{:?}", refreshed.reuse);
    assert_eq!(observe(&refreshed), observe(&full(root)));
}

/// The commit history is read once: a refresh keeps it, mapped onto its own file list (a
/// new file sorting first shifts every file's position).
#[test]
fn a_refresh_keeps_the_history_on_the_right_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    common::repo_with_history(
        root,
        &[
            ("ledger.py", "def settle():\n    return 1\n"),
            ("report.py", "def render():\n    return 2\n"),
        ],
        &[("ledger.py", "def settle():\n    return 1.0\n")],
        "Banker rounding for currency totals",
    );
    let opts = IndexOptions {
        history: HistorySource::Repo,
        ..IndexOptions::default()
    };
    let files_mode = SearchOptions {
        files_mode: true,
        ..SearchOptions::default()
    };
    let top = |index: &Index| -> Option<String> {
        let resp = index.search("banker rounding", &files_mode);
        resp.files.first().map(|f| f.0.clone())
    };
    let first = Index::build(root, &opts).unwrap();
    assert_eq!(first.history_status.commits, 2);
    assert_eq!(top(&first).as_deref(), Some("ledger.py"));

    common::write_files(root, &[("aaa.py", "def first():\n    return 0\n")]);
    let changed = BTreeSet::from(["aaa.py".to_string()]);
    let second = first.refresh(&opts, &changed, &|_| {}).unwrap();
    assert_eq!(second.files[0].path, "aaa.py");
    assert_eq!(second.history_status.commits, 2);
    assert_eq!(top(&second).as_deref(), Some("ledger.py"));

    // Without history the words are nowhere in the code.
    let plain = Index::build(root, &IndexOptions::default()).unwrap();
    assert!(plain.history_index().is_none());
    assert_eq!(top(&plain), None);
}

/// Source files without a grammar (issue 41 item 3) come and go with a refresh as code files
/// do: an added `.sql` gets its path line, a removed one loses it, and a repository left with
/// only such files is still mapped by their paths, as a full build maps it.
#[test]
fn a_refresh_adds_and_drops_path_only_files() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    common::write_files(
        root,
        &[(
            "src/db.ts",
            "export const schema = 'db/schema.sql'\nexport function migrate() {}\n",
        )],
    );
    let opts = IndexOptions::default();
    let text = |index: &Index| {
        let (map, _) = index.map(&MapRequest::default());
        render(&map, &index.files, MapFormat::Text)
    };
    // The path line itself (the source of `src/db.ts` names the file too).
    let lists_sql = |index: &Index| text(index).lines().any(|l| l == "db/schema.sql");
    let first = full(root);
    assert!(!lists_sql(&first), "{}", text(&first));

    common::write_files(root, &[("db/schema.sql", "CREATE TABLE t (id int);\n")]);
    let added = BTreeSet::from(["db/schema.sql".to_string()]);
    let second = first.refresh(&opts, &added, &|_| {}).unwrap();
    assert!(lists_sql(&second), "{}", text(&second));
    assert_eq!(text(&second), text(&full(root)));

    fs::remove_file(root.join("src/db.ts")).unwrap();
    let removed = BTreeSet::from(["src/db.ts".to_string()]);
    let third = second.refresh(&opts, &removed, &|_| {}).unwrap();
    assert_eq!(text(&third), "db/schema.sql\n");
    assert_eq!(text(&third), text(&full(root)));

    common::write_files(root, &[("src/db.ts", "export function migrate() {}\n")]);
    fs::remove_file(root.join("db/schema.sql")).unwrap();
    let both = BTreeSet::from(["src/db.ts".to_string(), "db/schema.sql".to_string()]);
    let fourth = third.refresh(&opts, &both, &|_| {}).unwrap();
    assert!(
        !text(&fourth).contains("db/schema.sql"),
        "{}",
        text(&fourth)
    );
    assert_eq!(text(&fourth), text(&full(root)));
}
