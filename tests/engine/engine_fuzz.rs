//! Property-based fuzz targets for the two layers that read hostile input first: tag
//! extraction (arbitrary bytes and source-like fragment soups in every language) and the
//! walk with its ignore rules (random trees with random `.gitignore`/`.mapscopeignore`
//! files, hostile names, FIFOs and links out of the tree). Cases are small and few, so the
//! file runs in seconds; proptest keeps what it shrinks to in
//! `tests/engine_fuzz.proptest-regressions`.

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use common::make_fifo;
use mapscope::engine::base::model::{FileTags, Lang};
use mapscope::engine::ingest::tags::{extract_tags, MAX_SCOPE_LINES};
use mapscope::engine::ingest::walk::{walk, WalkOptions};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// Tag extraction
// ---------------------------------------------------------------------------------------

/// Pieces of TS/JS/Python/Go syntax, unbalanced on purpose: the soup a fuzzer finds bugs in.
const FRAGMENTS: &[&str] = &[
    "function ",
    "f",
    "class ",
    "C",
    "def ",
    "func ",
    "interface ",
    "type ",
    "struct ",
    "export ",
    "import ",
    "from ",
    "\"m\"",
    "'./x'",
    "const ",
    "let ",
    "var ",
    "return ",
    "async ",
    "await ",
    "yield ",
    "=> ",
    "lambda ",
    "package p\n",
    "@dec\n",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    ":",
    ";",
    ",",
    ".",
    "=",
    "\"",
    "'",
    "`",
    "${",
    "/*",
    "*/",
    "//",
    "#",
    "\"\"\"",
    "\\",
    " ",
    "    ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\0",
    "\u{1b}[31m",
    "\u{fffd}",
    "é",
    "名前",
    "x.y.z",
    "a()",
    "new A()",
    "extends ",
    "implements ",
    "self.",
    "this.",
    "if ",
    "else",
    "for ",
    "while ",
];

/// A source-like text: fragments, each repeated a few times, sometimes nested deep.
fn fragment_soup() -> impl Strategy<Value = String> {
    let piece = (0..FRAGMENTS.len(), 1usize..4).prop_map(|(i, n)| FRAGMENTS[i].repeat(n));
    let deep = (0usize..3, 1usize..200).prop_map(|(kind, depth)| match kind {
        0 => format!("{}{}", "function g() {".repeat(depth), "}".repeat(depth)),
        1 => {
            let mut s = String::new();
            for d in 0..depth.min(60) {
                s.push_str(&" ".repeat(d));
                s.push_str("def h():\n");
            }
            s
        }
        _ => "([{".repeat(depth),
    });
    let long_line = (1usize..3000).prop_map(|n| format!("var s = '{}';", "x".repeat(n)));
    prop::collection::vec(prop_oneof![8 => piece, 1 => deep, 1 => long_line], 0..60)
        .prop_map(|parts| parts.concat())
}

/// Arbitrary bytes, read the way `load_source` reads invalid UTF-8 (lossily).
fn lossy_bytes() -> impl Strategy<Value = String> {
    prop::collection::vec(any::<u8>(), 0..2048)
        .prop_map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

fn any_lang() -> impl Strategy<Value = Lang> {
    prop::sample::select(Lang::ALL.to_vec())
}

/// What must hold for any text: lines within the text, ranges ordered, counts linear.
fn check_tags(lang: Lang, source: &str, tags: &FileTags) -> Result<(), TestCaseError> {
    // Tree-sitter counts rows by `\n`; the last line may lack one.
    let max_line = u32::try_from(source.matches('\n').count() + 1).unwrap();
    let within = |line: u32| (1..=max_line).contains(&line);
    for d in &tags.defs {
        let what = format!("{lang:?} def {d:?}");
        prop_assert!(
            within(d.lines.start) && within(d.lines.end),
            "{what}: lines"
        );
        prop_assert!(d.lines.start <= d.lines.end, "{what}: start > end");
        prop_assert!(
            d.signature.start <= d.signature.end,
            "{what}: signature start > end"
        );
        prop_assert!(
            d.lines.start <= d.signature.start && d.signature.end <= d.lines.end,
            "{what}: signature outside its lines"
        );
        prop_assert!(d.scope_lines.len() <= MAX_SCOPE_LINES, "{what}: scopes");
        for &s in &d.scope_lines {
            prop_assert!(within(s) && s <= d.lines.start, "{what}: scope line {s}");
        }
    }
    for r in &tags.refs {
        prop_assert!(within(r.line), "{lang:?} ref {r:?}: line");
        prop_assert!(!r.name.is_empty(), "{lang:?} ref {r:?}: empty name");
    }
    for i in &tags.imports {
        prop_assert!(within(i.line), "{lang:?} import {i:?}: line");
    }
    // Every definition, reference and import needs at least one byte of its own.
    let bound = 2 * source.len() + 2;
    prop_assert!(
        tags.defs.len() <= bound,
        "{lang:?}: {} defs",
        tags.defs.len()
    );
    prop_assert!(
        tags.refs.len() <= bound,
        "{lang:?}: {} refs",
        tags.refs.len()
    );
    prop_assert!(
        tags.imports.len() <= bound,
        "{lang:?}: {} imports",
        tags.imports.len()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn tags_of_fragment_soup_stay_in_bounds(lang in any_lang(), source in fragment_soup()) {
        let tags = extract_tags(lang, &source);
        check_tags(lang, &source, &tags)?;
    }

    #[test]
    fn tags_of_arbitrary_bytes_stay_in_bounds(lang in any_lang(), source in lossy_bytes()) {
        let tags = extract_tags(lang, &source);
        check_tags(lang, &source, &tags)?;
    }
}

/// The same properties on every language for a few fixed hostile texts proptest might not
/// reach in 64 cases.
#[test]
fn tags_of_fixed_hostile_texts_stay_in_bounds() {
    let deep_js = format!("{}{}", "function f() {".repeat(3000), "}".repeat(3000));
    let deep_py: String = (0..300)
        .map(|d| format!("{}def f{d}():\n", " ".repeat(d)))
        .collect();
    let texts = [
        String::new(),
        "\n".repeat(1000),
        "\0".repeat(100),
        "\r".repeat(100) + "function a() {}\r",
        format!("var s = '{}';\nfunction b() {{}}\n", "y".repeat(200_000)),
        deep_js,
        deep_py,
        "([{".repeat(5000),
        "\"\"\"".repeat(100),
    ];
    for lang in Lang::ALL {
        for text in &texts {
            let tags = extract_tags(lang, text);
            if let Err(err) = check_tags(lang, text, &tags) {
                panic!("{lang:?} on a {}-byte text: {err}", text.len());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Walk and ignore rules
// ---------------------------------------------------------------------------------------

/// Directory names: plain, with spaces, newline, ESC, a leading `!` or `#`, glob characters.
const DIR_NAMES: &[&str] = &[
    "a",
    "b c",
    "src",
    "deep",
    "x\ny",
    "e\u{1b}[1m",
    "!bang",
    "#hash",
    "[g]",
];
/// File names: code in every language, a doc, a name the walk passes over, hostile names.
const FILE_NAMES: &[&str] = &[
    "m.ts",
    "v.tsx",
    "k.js",
    "p.py",
    "g.go",
    "README.md",
    "notes.txt",
    "sp ace.ts",
    "new\nline.py",
    "esc\u{1b}]52;c;x\u{7}.js",
    "!neg.ts",
    "#c.py",
    "*.go",
    "keep.ts",
    "trail .ts",
];
/// Rule lines beyond the tree's own names.
const RULE_LINES: &[&str] = &[
    "*.ts",
    "!*.ts",
    "*.py",
    "!keep.ts",
    "a/",
    "/a",
    "**/deep",
    "**/deep/**",
    "deep/**/*.go",
    "b c/",
    "!b c/",
    "# comment",
    "",
    "   ",
    "\\#c.py",
    "\\!neg.ts",
    "src/*.js",
    "/src/",
    "*",
    "!*/",
    "[g]",
    "\\[g\\]",
    "*.go/",
    "sp\\ ace.ts",
    "trail .ts",
    "trail\\ .ts",
    "**",
    "!**/m.ts",
];

#[derive(Debug, Clone)]
struct Tree {
    /// Relative paths of files (with `/`), each under zero to three directory levels.
    files: Vec<String>,
    /// (directory, file name, rule lines): ignore files to write.
    ignores: Vec<(String, &'static str, Vec<String>)>,
    fifo: bool,
    link_out: bool,
}

fn rel_dir() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(DIR_NAMES), 0..4).prop_map(|d| d.join("/"))
}

fn rule_line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(RULE_LINES).prop_map(str::to_string),
        1 => prop::sample::select(FILE_NAMES).prop_map(|n| n.replace('\n', "")),
        1 => (any::<bool>(), rel_dir(), prop::sample::select(FILE_NAMES), any::<bool>())
            .prop_map(|(neg, dir, name, slash)| {
                let path = if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") };
                let path = path.replace('\n', "");
                format!(
                    "{}{}{path}",
                    if neg { "!" } else { "" },
                    if slash { "/" } else { "" }
                )
            }),
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    let file = (rel_dir(), prop::sample::select(FILE_NAMES)).prop_map(|(dir, name)| {
        if dir.is_empty() {
            name.to_string()
        } else {
            format!("{dir}/{name}")
        }
    });
    let ignore = (
        rel_dir(),
        prop::sample::select(&[".gitignore", ".mapscopeignore"][..]),
        prop::collection::vec(rule_line(), 0..8),
    );
    (
        prop::collection::vec(file, 1..24),
        prop::collection::vec(ignore, 0..5),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(files, ignores, fifo, link_out)| Tree {
            files,
            ignores,
            fifo,
            link_out,
        })
}

/// Writes `tree` under `root`, skipping a file whose path a directory already took (or the
/// other way round).
fn build(root: &Path, tree: &Tree, outside: &Path) {
    for f in &tree.files {
        let path = root.join(f);
        if fs::create_dir_all(path.parent().unwrap()).is_ok() && !path.is_dir() {
            let _ = fs::write(&path, format!("export const v = 1; // {}\n", f.len()));
        }
    }
    for (dir, name, lines) in &tree.ignores {
        let d = root.join(dir);
        if fs::create_dir_all(&d).is_ok() {
            let _ = fs::write(d.join(name), lines.join("\n") + "\n");
        }
    }
    if tree.fifo {
        make_fifo(&root.join("pipe.ts"));
        if root.join("a").is_dir() {
            make_fifo(&root.join("a/pipe.py"));
        }
    }
    #[cfg(unix)]
    if tree.link_out {
        let _ = std::os::unix::fs::symlink(outside.join("secret.ts"), root.join("out.ts"));
        let _ = std::os::unix::fs::symlink(outside, root.join("outdir"));
    }
}

/// The code files the `ignore` crate's own walker keeps under the same rules: its
/// `.gitignore` handling (without requiring a git repository), `.mapscopeignore` as a custom
/// ignore file, hidden entries skipped, links not followed, regular files only.
fn reference_walk(root: &Path) -> BTreeSet<String> {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .standard_filters(false)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .parents(false)
        .follow_links(false)
        .add_custom_ignore_filename(".mapscopeignore");
    builder
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter(|e| Lang::from_path(&e.file_name().to_string_lossy()).is_some())
        .map(|e| {
            e.path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn walk_keeps_exactly_what_the_ignore_rules_keep(tree in tree()) {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.ts"), "export const secret = 1;\n").unwrap();
        fs::create_dir_all(outside.path().join("d")).unwrap();
        fs::write(outside.path().join("d/leak.ts"), "export const leak = 1;\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        build(root, &tree, outside.path());
        let root = fs::canonicalize(root).unwrap();

        let out = walk(&root, &WalkOptions::default()).expect("walk");
        let mut walked = BTreeSet::new();
        for f in &out.files {
            prop_assert!(f.abs_path.starts_with(&root), "{} outside", f.abs_path.display());
            let meta = fs::symlink_metadata(&f.abs_path);
            prop_assert!(
                meta.as_ref().is_ok_and(|m| m.file_type().is_file()),
                "{} is not a regular file: {meta:?}",
                f.abs_path.display()
            );
            prop_assert_eq!(
                f.abs_path.strip_prefix(&root).unwrap().to_string_lossy(),
                f.rel_path.as_str()
            );
            walked.insert(f.rel_path.clone());
        }
        for d in &out.docs {
            prop_assert!(d.abs_path.starts_with(&root), "{} outside", d.abs_path.display());
        }
        prop_assert!(!walked.contains("out.ts") && !walked.iter().any(|p| p.starts_with("outdir")));
        prop_assert!(!walked.contains("pipe.ts") && !walked.contains("a/pipe.py"));
        let reference = reference_walk(&root);
        prop_assert_eq!(walked, reference, "the walk and the ignore crate disagree");
    }
}
