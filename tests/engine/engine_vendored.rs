//! Vendored folders told by their licence (issue 42: "folders with their own licence and
//! build files"): a folder with a build file and a licence naming a holder the repository's
//! own licence never names is another project's copy, ranked in the map as tests are and
//! demoted in search, and a change to the licence is taken in by a refresh as by a full
//! build.

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use mapscope::engine::index::explain::explain_file;
use mapscope::engine::index::{Index, IndexOptions, MapRequest};
use mapscope::engine::ingest::walk::{walk, PathFilter, WalkClass, WalkOptions};
use mapscope::engine::live::watch::{ChangeBatch, WatchOptions, Watcher};
use mapscope::engine::search::SearchOptions;

const OWN_LICENCE: &str = "MIT License\n\nCopyright (c) 2024 Acme Widgets\n\nPermission is hereby granted, free of charge, to any person obtaining a copy.\nThe above copyright notice and this permission notice shall be included in all copies.\n";
const FOREIGN_LICENCE: &str = "Copyright (c) 2015 Jane Doe\n\nPermission is hereby granted.\n";

/// A shop whose three modules all call into a small JSON library kept in `shop/minijson`,
/// which carries the licence `copy_licence` and a build file of its own.
fn shop(copy_licence: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::write_files(
        dir.path(),
        &[
            ("LICENSE", OWN_LICENCE),
            ("shop/minijson/LICENSE", copy_licence),
            ("shop/minijson/pyproject.toml", "[project]\nname = \"minijson\"\n"),
            (
                "shop/minijson/core.py",
                "def dumps(value):\n    return str(value)\n\n\ndef loads(text):\n    return text\n\n\ndef escape_string(text):\n    return text\n",
            ),
            (
                "shop/cart.py",
                "from shop.minijson.core import dumps, loads\n\n\nclass Cart:\n    def save(self):\n        return dumps(self)\n\n    def restore(self, text):\n        return loads(text)\n",
            ),
            (
                "shop/checkout.py",
                "from shop.minijson.core import dumps, loads\nfrom shop.cart import Cart\n\n\ndef checkout(text):\n    cart = Cart()\n    cart.restore(loads(text))\n    return dumps(cart.save())\n",
            ),
            (
                "shop/orders.py",
                "from shop.minijson.core import dumps, loads\nfrom shop.checkout import checkout\n\n\ndef place_order(text):\n    return dumps(checkout(loads(text)))\n",
            ),
        ],
    );
    dir
}

fn index(root: &Path) -> Index {
    Index::build(root, &IndexOptions::default()).expect("fixture builds")
}

fn vendored_files(index: &Index) -> BTreeSet<&str> {
    index
        .files
        .iter()
        .filter(|f| f.vendored)
        .map(|f| f.path.as_str())
        .collect()
}

fn map_files(index: &Index) -> Vec<String> {
    let (map, _) = index.map(&MapRequest {
        budget: 4096,
        ..MapRequest::default()
    });
    map.files.iter().map(|f| f.path.clone()).collect()
}

fn rank_of(files: &[String], path: &str) -> usize {
    files
        .iter()
        .position(|f| f == path)
        .unwrap_or_else(|| panic!("{path} not in {files:?}"))
}

#[test]
fn a_folder_with_a_foreign_licence_is_vendored() {
    let dir = shop(FOREIGN_LICENCE);
    let walked = walk(dir.path(), &WalkOptions::default()).unwrap();
    assert_eq!(walked.vendored_dirs, ["shop/minijson"]);
    let index = index(dir.path());
    assert_eq!(index.vendored_dirs, ["shop/minijson"]);
    assert_eq!(
        vendored_files(&index),
        BTreeSet::from(["shop/minijson/core.py"])
    );

    // The same folder under the project's own holder is the project's code.
    let own = shop("Copyright (c) 2021-present Acme Widgets\n");
    assert!(walk(own.path(), &WalkOptions::default())
        .unwrap()
        .vendored_dirs
        .is_empty());
    assert!(vendored_files(&index_of(&own)).is_empty());

    // A foreign licence in a folder the project builds (no build file of its own) is code the
    // project took in as its own.
    let taken_in = shop(FOREIGN_LICENCE);
    std::fs::remove_file(taken_in.path().join("shop/minijson/pyproject.toml")).unwrap();
    assert!(vendored_files(&index_of(&taken_in)).is_empty());
}

fn index_of(dir: &tempfile::TempDir) -> Index {
    index(dir.path())
}

#[test]
fn the_map_and_search_put_the_projects_code_above_the_copy() {
    let core = "shop/minijson/core.py";
    // Everything calls into the library: as the project's own code it opens the map.
    let own = map_files(&index_of(&shop("Copyright 2024 Acme Widgets\n")));
    assert_eq!(own[0], core, "{own:?}");
    // As a copy it comes after the project's files that the project uses (`orders.py`,
    // which nothing calls, may stay under it).
    let vendored = map_files(&index_of(&shop(FOREIGN_LICENCE)));
    for path in ["shop/cart.py", "shop/checkout.py"] {
        assert!(
            rank_of(&vendored, path) < rank_of(&vendored, core),
            "{path} above {core}: {vendored:?}"
        );
    }

    // Search: a query matching both the copy and the project ranks the project first.
    let search = |dir: &tempfile::TempDir| {
        index_of(dir)
            .search("dumps loads text", &SearchOptions::default())
            .files
            .iter()
            .map(|(path, _)| path.clone())
            .collect::<Vec<_>>()
    };
    let own = search(&shop("Copyright 2024 Acme Widgets\n"));
    assert_eq!(own[0], core, "{own:?}");
    let vendored = search(&shop(FOREIGN_LICENCE));
    assert_ne!(vendored[0], core, "{vendored:?}");
}

#[test]
fn explain_says_a_file_is_vendored_and_why() {
    let index = index_of(&shop(FOREIGN_LICENCE));
    let req = MapRequest {
        budget: 4096,
        ..MapRequest::default()
    };
    let (map, ranked) = index.map(&req);
    let copy = explain_file(&index, &req, &ranked, &map, "shop/minijson/core.py");
    let said = copy.reasons.join("\n");
    assert!(said.contains("vendored"), "{said}");
    assert!(
        said.contains("`shop/minijson` has a build file and a licence"),
        "{said}"
    );
    let own = explain_file(&index, &req, &ranked, &map, "shop/cart.py");
    assert!(!own.reasons.join("\n").contains("vendored"));
}

#[test]
fn a_query_naming_the_copy_finds_it_first() {
    let index = index_of(&shop(FOREIGN_LICENCE));
    let files = |query: &str| -> Vec<String> {
        index
            .search(query, &SearchOptions::default())
            .files
            .iter()
            .map(|(path, _)| path.clone())
            .collect()
    };
    // Named by its folder, the copy is what the query is about.
    let named = files("minijson dumps loads text");
    assert_eq!(named[0], "shop/minijson/core.py", "{named:?}");
    // The same words without its name leave it under the project's code.
    let unnamed = files("dumps loads text");
    assert_ne!(unnamed[0], "shop/minijson/core.py", "{unnamed:?}");
}

#[test]
fn a_licence_change_is_taken_in_by_a_refresh_as_by_a_full_build() {
    let dir = shop("Copyright 2024 Acme Widgets\n");
    let opts = IndexOptions::default();
    let before = index(dir.path());
    assert!(vendored_files(&before).is_empty());
    // The watcher hands a licence on as a file whose change needs a new walk.
    let mut filter = PathFilter::new(dir.path()).unwrap();
    let licence = filter.root().join("shop/minijson/LICENSE");
    assert_eq!(filter.classify(&licence, Some(false)), WalkClass::File);
    let watcher = Watcher::start(dir.path(), WatchOptions::default()).unwrap();

    common::write_files(dir.path(), &[("shop/minijson/LICENSE", FOREIGN_LICENCE)]);
    let mut changed = ChangeBatch::default();
    let deadline = Instant::now() + Duration::from_mins(1);
    while !changed.rescan && !changed.paths.contains("shop/minijson/LICENSE") {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "the watcher never reported the licence");
        if let Ok(batch) = watcher.changes().recv_timeout(left) {
            changed.merge(batch);
        }
    }
    let refreshed = before.refresh(&opts, &changed.paths, &|_| {}).unwrap();
    let full = index(dir.path());
    assert_eq!(refreshed.vendored_dirs, ["shop/minijson"]);
    assert_eq!(vendored_files(&refreshed), vendored_files(&full));
    assert_eq!(map_files(&refreshed), map_files(&full));
    assert_ne!(map_files(&refreshed), map_files(&before));
}

#[test]
fn hostile_licence_files_neither_block_nor_mislead_the_walk() {
    let dir = shop("Copyright 2024 Acme Widgets\n");
    let root = dir.path();
    // A FIFO would block a reader, a link to /dev/zero never ends, a folder is no file, and
    // bytes that are not text name nobody.
    let fifo = root.join("shop/fifo/LICENSE");
    std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
    // Where `mkfifo` is missing the rest still runs.
    common::make_fifo(&fifo);
    common::write_files(root, &[("shop/fifo/Makefile", "all:\n")]);
    common::write_files(root, &[("shop/zero/Makefile", "all:\n")]);
    #[cfg(unix)]
    std::os::unix::fs::symlink("/dev/zero", root.join("shop/zero/LICENSE")).unwrap();
    std::fs::create_dir_all(root.join("shop/folder/LICENSE")).unwrap();
    common::write_files(root, &[("shop/folder/package.json", "{}\n")]);
    common::write_bytes(
        root,
        "shop/binary/COPYING",
        &[0xff, 0xfe, 0x00, 0x1b, b'[', b'2', b'J', 0x80, 0x81],
    );
    common::write_files(root, &[("shop/binary/Cargo.toml", "[package]\n")]);
    // A very large licence is read only at its head: the holder below it is never seen.
    let mut huge = "Permission is granted.\n".repeat(100_000);
    huge.push_str("Copyright 2019 Somebody Else\n");
    common::write_files(
        root,
        &[
            ("shop/huge/LICENSE", &huge),
            ("shop/huge/go.mod", "module x\n"),
        ],
    );

    let walked = walk(root, &WalkOptions::default()).unwrap();
    assert!(
        walked.vendored_dirs.is_empty(),
        "{:?}",
        walked.vendored_dirs
    );
    assert!(vendored_files(&index(root)).is_empty());
}
