//! Cross-file binding in the languages with data-driven rules (Rust, Java, C, C++, C#, Ruby,
//! PHP, Kotlin, Swift, shell, Scala, Lua, Elixir, HCL), on their fixture repositories: a use in one file reaches the file that defines the
//! name through the language's imports, as a resolved edge (not a bare-name guess).

use crate::common;

use mapscope::engine::base::model::ParsedFile;
use mapscope::engine::link::graph::{build_graph, FileGraph};

/// The fixture's source files, parsed, sorted by path.
fn parse_repo(repo: &str) -> Vec<ParsedFile> {
    let root = common::fixture(repo);
    common::fixture_sources(repo)
        .into_iter()
        .map(|(rel, _)| {
            let source = std::fs::read_to_string(root.join(&rel)).unwrap();
            common::parsed(&rel, &source)
        })
        .collect()
}

/// A bare-name guess weighs at most 0.1 × 3 (a long name) × √(uses); a resolved plain use
/// √0.5 ≈ 0.71, a resolved call or type use 1.
const RESOLVED: f64 = 0.7;

#[test]
fn uses_bind_through_each_languages_imports() {
    let cases: [(&str, &str, &str, &str); 20] = [
        // Rust: `use crate::store::{Item, Store}`, `use crate::util::{self, …}` + `util::f()`.
        ("rust-app", "src/cli.rs", "src/store.rs", "Store"),
        ("rust-app", "src/cli.rs", "src/util.rs", "capacity_left"),
        ("rust-app", "src/util.rs", "src/store.rs", "Item"),
        // An integration test names the package's library by its crate name.
        ("rust-app", "tests/store_test.rs", "src/store.rs", "Store"),
        // Java: a named import and an on-demand (`.*`) import.
        (
            "java-app",
            "src/main/java/com/acme/cli/Main.java",
            "src/main/java/com/acme/store/Store.java",
            "Store",
        ),
        (
            "java-app",
            "src/main/java/com/acme/web/Handler.java",
            "src/main/java/com/acme/store/Store.java",
            "Store",
        ),
        (
            "java-app",
            "src/main/java/com/acme/web/Handler.java",
            "src/main/java/com/acme/store/Item.java",
            "Item",
        ),
        // Java: the same package needs no import.
        (
            "java-app",
            "src/main/java/com/acme/store/Store.java",
            "src/main/java/com/acme/store/Repository.java",
            "Repository",
        ),
        (
            "java-app",
            "src/main/java/com/acme/store/Store.java",
            "src/main/java/com/acme/store/Item.java",
            "Item",
        ),
        // C: `#include "store.h"`, and through `../src/store.h`.
        ("c-app", "src/cli.c", "src/store.h", "store_open"),
        ("c-app", "tests/test_store.c", "src/store.h", "store_put"),
        // C++: `#include "acme/store.hpp"` found under include/ (here through server.hpp), and
        // `<acme/store.hpp>`.
        (
            "cpp-app",
            "src/server.cc",
            "include/acme/store.hpp",
            "Store",
        ),
        ("cpp-app", "src/main.cpp", "src/server.hpp", "serve"),
        ("cpp-app", "src/main.cpp", "include/acme/store.hpp", "Store"),
        // C#: `using Acme.Store;` → the files declaring that namespace.
        (
            "cs-app",
            "src/Acme.Cli/Program.cs",
            "src/Acme.Store/Store.cs",
            "Store",
        ),
        (
            "cs-app",
            "src/Acme.Cli/Program.cs",
            "src/Acme.Store/Item.cs",
            "Item",
        ),
        // Ruby: `require 'acme/store'` from lib/, and through it store.rb's `require_relative`.
        ("rb-app", "lib/acme/cli.rb", "lib/acme/store.rb", "Store"),
        ("rb-app", "lib/acme/cli.rb", "lib/acme/item.rb", "Item"),
        // PHP: `use App\Store\Store;` and a grouped, aliased `use`.
        (
            "php-app",
            "src/Http/Controller.php",
            "src/Store/Store.php",
            "Store",
        ),
        (
            "php-app",
            "src/Cli/Command.php",
            "src/Store/Item.php",
            "Item",
        ),
    ];
    check_bindings(&cases);
}

#[test]
fn uses_bind_through_the_added_languages_imports() {
    let cases: [(&str, &str, &str, &str); 16] = [
        // Kotlin: a named import, and a wildcard import of the package.
        (
            "kt-app",
            "src/main/kotlin/com/acme/cli/Main.kt",
            "src/main/kotlin/com/acme/store/Store.kt",
            "Store",
        ),
        (
            "kt-app",
            "src/main/kotlin/com/acme/cli/Main.kt",
            "src/main/kotlin/com/acme/store/Item.kt",
            "Kind",
        ),
        // Kotlin: the same package needs no import.
        (
            "kt-app",
            "src/test/kotlin/com/acme/store/StoreTest.kt",
            "src/main/kotlin/com/acme/store/Item.kt",
            "Item",
        ),
        // Swift: `import Store` is the target `Sources/Store/`.
        (
            "swift-app",
            "Sources/App/main.swift",
            "Sources/Store/Store.swift",
            "Store",
        ),
        (
            "swift-app",
            "Sources/App/main.swift",
            "Sources/Store/Item.swift",
            "Item",
        ),
        // Shell: `source "$HERE/../lib/store.sh"` and `. "$HERE/../lib/log.sh"`.
        ("sh-app", "bin/acme.sh", "lib/store.sh", "store_put"),
        ("sh-app", "bin/acme.sh", "lib/log.sh", "log_info"),
        // Scala: selectors `{Item, Store}` and the package's wildcard.
        (
            "scala-app",
            "src/main/scala/acme/cli/Main.scala",
            "src/main/scala/acme/store/Store.scala",
            "Store",
        ),
        (
            "scala-app",
            "src/main/scala/acme/cli/Main.scala",
            "src/main/scala/acme/store/Item.scala",
            "Kind",
        ),
        // Lua: `local store = require("acme.store")` + `store.open()`.
        ("lua-app", "lua/acme/init.lua", "lua/acme/store.lua", "open"),
        ("lua-app", "lua/acme/init.lua", "lua/acme/item.lua", "new"),
        // Elixir: `alias Acme.{Item, Store}` + `Store.put`, `Item.new`.
        ("ex-app", "lib/acme/cli.ex", "lib/acme/store.ex", "put"),
        ("ex-app", "lib/acme/cli.ex", "lib/acme/item.ex", "new"),
        // Terraform: the module's own directory, and a module's output through `source`.
        ("tf-app", "main.tf", "variables.tf", "region"),
        ("tf-app", "main.tf", "modules/store/main.tf", "bucket_arn"),
        ("tf-app", "outputs.tf", "main.tf", "events"),
    ];
    check_bindings(&cases);
}

/// Components import each other and `.ts` files by their full names, and a `.ts` file
/// imports a component: each use reaches the other file's definition (a component's own
/// name included) as a resolved edge.
#[test]
fn components_bind_through_imports() {
    let cases: [(&str, &str, &str, &str); 6] = [
        (
            "vue-app",
            "src/App.vue",
            "src/components/UserCard.vue",
            "UserCard",
        ),
        (
            "vue-app",
            "src/App.vue",
            "src/stores/user.ts",
            "useUserStore",
        ),
        (
            "vue-app",
            "src/components/UserCard.vue",
            "src/stores/user.ts",
            "User",
        ),
        (
            "vue-app",
            "src/components/UserList/index.vue",
            "src/components/UserCard.vue",
            "UserCard",
        ),
        ("vue-app", "src/main.ts", "src/App.vue", "App"),
        (
            "vue-app",
            "src/main.ts",
            "src/lib/Counter.svelte",
            "Counter",
        ),
    ];
    check_bindings(&cases);
}

fn check_bindings(cases: &[(&str, &str, &str, &str)]) {
    let mut graphs: Vec<(&str, Vec<ParsedFile>, FileGraph)> = Vec::new();
    for &(repo, from, to, ident) in cases {
        if !graphs.iter().any(|(r, _, _)| *r == repo) {
            let files = parse_repo(repo);
            let g = build_graph(&files, &[], &[]);
            graphs.push((repo, files, g));
        }
        let (_, files, g) = graphs.iter().find(|(r, _, _)| *r == repo).unwrap();
        let w = common::ident_weight(files, g, from, to, ident);
        assert!(
            w >= RESOLVED,
            "{repo}: {from} → {to} gives {ident} {w}, not a resolved use"
        );
    }
}

#[test]
fn external_imports_bind_nothing_and_tests_get_no_guesses() {
    // `use std::collections::HashMap` in store.rs and `import java.util.Map` stay external:
    // nothing of the repository is named after them, and no edge appears for them.
    for repo in ["rust-app", "java-app"] {
        let files = parse_repo(repo);
        let g = build_graph(&files, &[], &[]);
        for (i, _) in files.iter().enumerate() {
            for (_, e) in g.outgoing(i) {
                for (ident, _) in g.edge_idents(e) {
                    assert!(
                        !matches!(ident, "HashMap" | "Map" | "String"),
                        "{repo}: {} has an edge for {ident}",
                        files[i].path
                    );
                }
            }
        }
    }
    // Implementation code never guesses into tests: nothing points at a test file.
    for repo in [
        "rust-app", "java-app", "c-app", "cpp-app", "cs-app", "rb-app", "php-app",
    ] {
        let files = parse_repo(repo);
        let g = build_graph(&files, &[], &[]);
        for (i, f) in files.iter().enumerate() {
            let is_test = |p: &str| p.contains("test") || p.contains("Test") || p.contains("spec");
            if is_test(&f.path) {
                continue;
            }
            for (t, _) in g.outgoing(i) {
                assert!(
                    !is_test(&files[t].path),
                    "{repo}: {} → {}",
                    f.path,
                    files[t].path
                );
            }
        }
    }
}

/// The README and the CLI docs name every language of the table, its extensions and its
/// `--lang` family: adding a row without them fails here.
#[test]
fn readme_and_docs_list_every_language() {
    use mapscope::engine::base::model::LANGS;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let cli = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    let files_line = readme
        .split("Files: `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap();
    let listed: Vec<&str> = files_line.split_whitespace().collect();
    let families = readme
        .split("`--lang` takes their families (`")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap();
    let cli_families = cli
        .split("(the families `")
        .nth(1)
        .and_then(|rest| rest.split('`').next())
        .unwrap();
    for spec in &LANGS {
        let row = format!("\n| {}", spec.display);
        let named = readme.contains(&row)
            || readme.lines().any(|l| {
                l.starts_with("| ")
                    && l.split('|')
                        .nth(1)
                        .is_some_and(|c| c.contains(spec.display))
            });
        assert!(named, "README's language table lacks {}", spec.display);
        for ext in spec.extensions {
            assert!(
                listed.contains(&format!(".{ext}").as_str()),
                "README's files lack .{ext}"
            );
        }
        assert!(
            families.split_whitespace().any(|f| f == spec.family),
            "README's --lang families lack {}",
            spec.family
        );
        assert!(
            cli_families.split_whitespace().any(|f| f == spec.family),
            "docs/cli.md's --lang families lack {}",
            spec.family
        );
    }
    assert_eq!(
        families.split_whitespace().collect::<Vec<_>>(),
        mapscope::engine::base::model::Lang::families()
    );
}
