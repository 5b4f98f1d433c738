//! Containers: every definition knows what it sits in, in its language's notation
//! (`FileTags::container`, `FileTags::qualified_name`), and the map shows a member under its
//! container's header, so two members of the same name are never indistinguishable. One
//! fixture per language with same-named members in two containers, nested containers too.

use std::collections::BTreeMap;
use std::sync::Arc;

use mapscope::engine::base::model::{
    DefKind, FileTags, Lang, ParsedFile, RankedDef, MAX_CONTAINER_DEPTH,
};
use mapscope::engine::ingest::tags::{extract_tags, MAX_CONTAINER_NAME, MAX_SCOPE_LINES};
use mapscope::engine::rank::repo_map::{build_map, LineCostCache, MapOptions};

const RUST: &str = "\
mod routing {
    pub struct Router<S>(S);
    pub struct MethodRouter;

    impl<S> Router<S> {
        pub fn fallback(self) -> Self {
            self
        }
    }

    impl MethodRouter {
        pub fn fallback(self) -> Self {
            self
        }
    }

    impl<S: Clone> Clone for Router<S> {
        fn clone(&self) -> Self {
            Router(self.0.clone())
        }
    }

    pub mod service {
        pub trait Service {
            fn call(&self);
        }
    }
}

fn top() {}
";

const CPP: &str = "\
#define FMT_VERSION 12
namespace fmt {
namespace detail {
template <typename T> class buffer {
 public:
  void push_back(const T& value) {}
};
}  // namespace detail

class writer {
 public:
  void push_back(int value) {}
  void flush();
};

void writer::flush() {}
}  // namespace fmt

namespace {
int helper() { return 0; }
}
";

const GO: &str = "\
package store

type Memory struct{}

type Disk struct{}

func (m *Memory) Get(key string) string {
	return key
}

func (d Disk) Get(key string) string {
	return key
}

func Open() {}
";

const JAVA: &str = "\
package org.jsoup;

public class Jsoup {
    public static Document parse(String html) {
        return null;
    }

    static class Inner {
        public static Document parse(String html) {
            return null;
        }
    }
}
";

const CSHARP_FILE_SCOPED: &str = "\
namespace Polly.Retry;

public class RetryPolicy
{
    public void Execute()
    {
    }

    public class Nested
    {
        public void Execute()
        {
        }
    }
}
";

const CSHARP_BLOCKS: &str = "\
namespace Polly
{
    namespace Timeout
    {
        public class TimeoutPolicy
        {
            public void Execute()
            {
            }
        }
    }

    public class Policy
    {
        public void Execute()
        {
        }
    }
}
";

const RUBY: &str = "\
module Jekyll
  class LiquidRenderer
    class File
      def render(*args)
      end

      def self.render(*args)
      end
    end

    def render(*args)
    end

    class << self
      def build
      end
    end
  end
end
";

const PHP: &str = "\
<?php
namespace Slim;

class App
{
    public function run(): void
    {
    }
}

class Other
{
    public function run(): void
    {
    }

    const VERSION = '4';
}

function helper()
{
}
";

const PHP_BLOCKS: &str = "\
<?php
namespace A {
    class X
    {
        public function run()
        {
        }
    }
}

namespace B {
    class X
    {
        public function run()
        {
        }
    }
}
";

const PYTHON: &str = "\
class A:
    def run(self):
        pass


class B:
    def run(self):
        pass


def outer():
    def inner():
        pass

    return inner
";

const TS: &str = "\
namespace NS {
  export class C {
    run(): void {}
  }
}

class C {
  run(): void {}
}

const obj = {
  run() {},
};
";

const JS: &str = "\
class A {
  run() {}
}

class B {
  run() {}
}

const obj = {
  run() {},
};
";

/// `(name, kind, container, qualified name)` of every definition, in source order.
fn containers(lang: Lang, src: &str) -> Vec<(String, DefKind, Option<String>, Option<String>)> {
    let tags = extract_tags(lang, src);
    assert_eq!(tags.parse_errors, 0, "{lang:?}");
    tags.defs
        .iter()
        .map(|d| {
            (
                d.name.clone(),
                d.kind,
                tags.container(d),
                tags.qualified_name(d),
            )
        })
        .collect()
}

/// The qualified names (the name where there is none) of the definitions named `name`.
fn qualified(lang: Lang, src: &str, name: &str) -> Vec<String> {
    containers(lang, src)
        .into_iter()
        .filter(|d| d.0 == name)
        .map(|d| d.3.unwrap_or(d.0))
        .collect()
}

fn container_of(lang: Lang, src: &str, name: &str) -> Vec<Option<String>> {
    containers(lang, src)
        .into_iter()
        .filter(|d| d.0 == name)
        .map(|d| d.2)
        .collect()
}

#[test]
fn rust_members_are_qualified_by_their_impl_type_and_mods() {
    assert_eq!(
        qualified(Lang::Rust, RUST, "fallback"),
        [
            "routing::Router::fallback",
            "routing::MethodRouter::fallback"
        ]
    );
    assert_eq!(
        container_of(Lang::Rust, RUST, "fallback"),
        [
            Some("routing::Router".into()),
            Some("routing::MethodRouter".into())
        ]
    );
    // `impl Trait for Type`: a method of the type.
    assert_eq!(
        qualified(Lang::Rust, RUST, "clone"),
        ["routing::Router::clone"]
    );
    assert_eq!(
        qualified(Lang::Rust, RUST, "call"),
        ["routing::service::Service::call"]
    );
    assert_eq!(qualified(Lang::Rust, RUST, "Router"), ["routing::Router"]);
    assert_eq!(container_of(Lang::Rust, RUST, "top"), [None]);
}

#[test]
fn cpp_members_are_qualified_by_namespaces_and_classes() {
    assert_eq!(
        qualified(Lang::Cpp, CPP, "push_back"),
        ["fmt::detail::buffer::push_back", "fmt::writer::push_back"]
    );
    // Declared in the class, defined out of line: both members of `fmt::writer`.
    assert_eq!(
        qualified(Lang::Cpp, CPP, "flush"),
        ["fmt::writer::flush", "fmt::writer::flush"]
    );
    assert_eq!(
        qualified(Lang::Cpp, CPP, "helper"),
        ["(anonymous namespace)::helper"]
    );
    assert_eq!(container_of(Lang::Cpp, CPP, "FMT_VERSION"), [None]);
}

#[test]
fn go_methods_are_qualified_by_package_and_receiver() {
    assert_eq!(
        qualified(Lang::Go, GO, "Get"),
        ["store.Memory.Get", "store.Disk.Get"]
    );
    assert_eq!(qualified(Lang::Go, GO, "Open"), ["store.Open"]);
    assert_eq!(qualified(Lang::Go, GO, "Memory"), ["store.Memory"]);
    assert_eq!(
        container_of(Lang::Go, GO, "Get"),
        [Some("store.Memory".into()), Some("store.Disk".into())]
    );
}

#[test]
fn java_members_are_qualified_by_package_and_nested_classes() {
    assert_eq!(
        qualified(Lang::Java, JAVA, "parse"),
        ["org.jsoup.Jsoup.parse", "org.jsoup.Jsoup.Inner.parse"]
    );
    assert_eq!(qualified(Lang::Java, JAVA, "Jsoup"), ["org.jsoup.Jsoup"]);
}

#[test]
fn csharp_members_are_qualified_by_namespaces_of_both_forms_and_classes() {
    assert_eq!(
        qualified(Lang::CSharp, CSHARP_FILE_SCOPED, "Execute"),
        [
            "Polly.Retry.RetryPolicy.Execute",
            "Polly.Retry.RetryPolicy.Nested.Execute"
        ]
    );
    assert_eq!(
        qualified(Lang::CSharp, CSHARP_BLOCKS, "Execute"),
        [
            "Polly.Timeout.TimeoutPolicy.Execute",
            "Polly.Policy.Execute"
        ]
    );
}

#[test]
fn ruby_methods_are_written_with_hash_and_dot() {
    assert_eq!(
        qualified(Lang::Ruby, RUBY, "render"),
        [
            "Jekyll::LiquidRenderer::File#render",
            "Jekyll::LiquidRenderer::File.render",
            "Jekyll::LiquidRenderer#render",
        ]
    );
    assert_eq!(
        container_of(Lang::Ruby, RUBY, "render"),
        [
            Some("Jekyll::LiquidRenderer::File".into()),
            Some("Jekyll::LiquidRenderer::File".into()),
            Some("Jekyll::LiquidRenderer".into()),
        ]
    );
    assert_eq!(
        qualified(Lang::Ruby, RUBY, "build"),
        ["Jekyll::LiquidRenderer.build"]
    );
    assert_eq!(
        qualified(Lang::Ruby, RUBY, "File"),
        ["Jekyll::LiquidRenderer::File"]
    );
    // `def Foo.m` in `class Foo` is `def self.m`; elsewhere, a method of `Foo`'s singleton.
    let named = "class Foo\n  def Foo.build\n  end\nend\n\ndef Bar.make\nend\n";
    assert_eq!(qualified(Lang::Ruby, named, "build"), ["Foo.build"]);
    assert_eq!(qualified(Lang::Ruby, named, "make"), ["Bar.make"]);
}

#[test]
fn php_members_are_qualified_by_namespace_and_class() {
    assert_eq!(
        qualified(Lang::Php, PHP, "run"),
        ["Slim\\App::run", "Slim\\Other::run"]
    );
    assert_eq!(qualified(Lang::Php, PHP, "helper"), ["Slim\\helper"]);
    assert_eq!(
        qualified(Lang::Php, PHP, "VERSION"),
        ["Slim\\Other::VERSION"]
    );
    assert_eq!(
        qualified(Lang::Php, PHP_BLOCKS, "run"),
        ["A\\X::run", "B\\X::run"]
    );
}

#[test]
fn python_members_are_qualified_by_classes_and_enclosing_functions() {
    assert_eq!(qualified(Lang::Python, PYTHON, "run"), ["A.run", "B.run"]);
    assert_eq!(qualified(Lang::Python, PYTHON, "inner"), ["outer.inner"]);
    assert_eq!(container_of(Lang::Python, PYTHON, "outer"), [None]);
}

#[test]
fn ts_and_js_members_are_qualified_by_class_namespace_and_object() {
    assert_eq!(
        qualified(Lang::TypeScript, TS, "run"),
        ["NS.C.run", "C.run", "obj.run"]
    );
    assert_eq!(qualified(Lang::TypeScript, TS, "C"), ["NS.C", "C"]);
    assert_eq!(
        qualified(Lang::JavaScript, JS, "run"),
        ["A.run", "B.run", "obj.run"]
    );
}

/// Every fixture, with a path of its language.
fn fixtures() -> Vec<(&'static str, &'static str)> {
    vec![
        ("src/routing.rs", RUST),
        ("include/fmt/format.h", CPP),
        ("store/store.go", GO),
        ("src/main/java/org/jsoup/Jsoup.java", JAVA),
        ("src/Polly/Retry/RetryPolicy.cs", CSHARP_FILE_SCOPED),
        ("src/Polly/Policy.cs", CSHARP_BLOCKS),
        ("lib/jekyll/liquid_renderer.rb", RUBY),
        ("Slim/App.php", PHP),
        ("src/blocks.php", PHP_BLOCKS),
        ("pkg/models.py", PYTHON),
        ("src/ns.ts", TS),
        ("src/classes.js", JS),
    ]
}

/// Two members of one name are never indistinguishable in the map: each shown member's
/// lines (the container headers above it and its signature, all shown with it) differ from
/// every other same-named member's, in every language that has containers.
#[test]
fn a_map_tells_same_named_members_apart_by_header_or_signature() {
    for (path, src) in fixtures() {
        let lang = Lang::from_path(path).unwrap();
        let file = ParsedFile::new(
            path.to_string(),
            lang,
            src.len() as u64,
            Arc::from(src),
            extract_tags(lang, src),
        );
        let ranked: Vec<RankedDef> = (0..file.tags.defs.len())
            .map(|def| RankedDef {
                file: 0,
                def,
                score: 1.0,
            })
            .collect();
        let files = vec![file];
        let opts = MapOptions {
            budget: 8192,
            ..MapOptions::default()
        };
        let map = build_map(&files, &ranked, &[1.0], &opts, &LineCostCache::new());
        let tags = &files[0].tags;
        let shown = &map.files[0].shown_lines;
        let mut seen: BTreeMap<&str, Vec<Vec<&str>>> = BTreeMap::new();
        for symbol in &map.files[0].symbols {
            let def = tags
                .defs
                .iter()
                .find(|d| d.name == symbol.name && d.lines == symbol.line_range)
                .unwrap();
            let lines: Vec<u32> = def
                .scope_lines
                .iter()
                .copied()
                .chain(def.signature.start..=def.signature.end)
                .filter(|&n| files[0].is_nonblank(n))
                .collect();
            for n in &lines {
                assert!(
                    shown.contains(n),
                    "{path}: line {n} of {} not shown",
                    def.name
                );
            }
            let text: Vec<&str> = lines
                .iter()
                .map(|&n| files[0].line(n).unwrap().trim())
                .collect();
            let others = seen.entry(&def.name).or_default();
            assert!(
                !others.contains(&text),
                "{path}: two `{}` shown as\n{}\nin\n{}",
                def.name,
                text.join("\n"),
                map.text
            );
            others.push(text);
        }
        assert_eq!(
            map.files[0].symbols.len(),
            tags.defs.len(),
            "{path}: every definition fits"
        );
        assert!(
            seen.values().any(|v| v.len() > 1),
            "{path}: a name defined twice"
        );
    }
}

/// The map JSON symbols carry the container and qualified name (`MapSymbol`), as the tags.
#[test]
fn map_symbols_carry_container_and_qualified_name() {
    let lang = Lang::Rust;
    let file = ParsedFile::new(
        "src/routing.rs".into(),
        lang,
        RUST.len() as u64,
        Arc::from(RUST),
        extract_tags(lang, RUST),
    );
    let ranked: Vec<RankedDef> = (0..file.tags.defs.len())
        .map(|def| RankedDef {
            file: 0,
            def,
            score: 1.0,
        })
        .collect();
    let files = vec![file];
    let map = build_map(
        &files,
        &ranked,
        &[1.0],
        &MapOptions {
            budget: 4096,
            ..MapOptions::default()
        },
        &LineCostCache::new(),
    );
    let symbols: Vec<(&str, Option<&str>, Option<&str>)> = map.files[0]
        .symbols
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.container.as_deref(),
                s.qualified_name.as_deref(),
            )
        })
        .collect();
    assert!(symbols.contains(&(
        "fallback",
        Some("routing::MethodRouter"),
        Some("routing::MethodRouter::fallback")
    )));
    assert!(symbols.contains(&("top", None, None)));
    // The `impl` line above each `fallback`.
    assert!(map
        .text
        .contains("    impl<S> Router<S> {\n        pub fn fallback(self) -> Self {"));
    assert!(map
        .text
        .contains("    impl MethodRouter {\n        pub fn fallback(self) -> Self {"));
}

/// Deep nesting stays linear and every path bounded: a definition keeps at most
/// `MAX_SCOPE_LINES` scope lines, and a container path at most `MAX_CONTAINER_DEPTH`
/// containers after `…`.
#[test]
fn deep_nesting_keeps_container_paths_bounded() {
    let depth = 1500;
    let mut src = String::new();
    for i in 0..depth {
        src.push_str(&format!("namespace n{i} {{\n"));
    }
    for i in 0..depth {
        src.push_str(&format!("class c{i} {{\n"));
    }
    src.push_str("void leaf() {}\n");
    src.push_str(&"};\n".repeat(depth));
    src.push_str(&"}\n".repeat(depth));
    let tags: FileTags = extract_tags(Lang::Cpp, &src);
    let leaf = tags.defs.iter().find(|d| d.name == "leaf").unwrap();
    assert_eq!(leaf.scope_lines.len(), MAX_SCOPE_LINES);
    let container = tags.container(leaf).unwrap();
    assert!(container.starts_with('…'), "{container}");
    assert_eq!(
        container.matches("::").count(),
        MAX_CONTAINER_DEPTH,
        "{container}"
    );
    assert!(
        container.ends_with(&format!("::c{}", depth - 1)),
        "{container}"
    );
    assert_eq!(
        tags.qualified_name(leaf).unwrap(),
        format!("{container}::leaf")
    );
    // One container per namespace and class around a definition, each made once.
    assert_eq!(tags.containers.len(), 2 * depth);
}

/// A container's name is capped at a character boundary (the contract's tests check that
/// what a name holds reaches JSON escaped).
#[test]
fn hostile_container_names_are_capped() {
    for long in ["N".repeat(100_000), "é".repeat(50_000)] {
        let src = format!("namespace {long} {{\nvoid f() {{}}\n}}\nint g() {{ return 0; }}\n");
        let tags = extract_tags(Lang::Cpp, &src);
        let f = tags.defs.iter().find(|d| d.name == "f").unwrap();
        let container = tags.container(f).unwrap();
        assert!(container.len() <= MAX_CONTAINER_NAME, "{}", container.len());
        assert!(
            container.len() > MAX_CONTAINER_NAME - 4,
            "{}",
            container.len()
        );
    }
}

/// A namespace's header is a scope line only where it tells the file's definitions apart:
/// not for one around all of them (macros aside, which no namespace holds), nor for a
/// file-level declaration (`namespace A;`, `package a;`), unless the file has two.
#[test]
fn namespace_lines_show_only_where_they_tell_definitions_apart() {
    let scope = |lang: Lang, src: &str, name: &str| -> Vec<Vec<u32>> {
        let tags = extract_tags(lang, src);
        tags.defs
            .iter()
            .filter(|d| d.name == name)
            .map(|d| d.scope_lines.clone())
            .collect()
    };
    let wrapped = "#define LIMIT 3\nnamespace fmt {\nclass buffer {\n  void grow();\n};\n}\n";
    assert_eq!(scope(Lang::Cpp, wrapped, "grow"), [vec![3]]);
    let two = "namespace a {\nvoid f();\n}\nnamespace b {\nvoid f();\n}\n";
    assert_eq!(scope(Lang::Cpp, two, "f"), [vec![1], vec![4]]);
    assert_eq!(
        scope(Lang::CSharp, CSHARP_FILE_SCOPED, "Execute"),
        [vec![3], vec![3, 9]]
    );
    assert_eq!(scope(Lang::Java, JAVA, "parse"), [vec![3], vec![3, 8]]);
    let php = "<?php\nnamespace A;\nfunction f() {}\nnamespace B;\nfunction f() {}\n";
    assert_eq!(scope(Lang::Php, php, "f"), [vec![2], vec![4]]);
    assert_eq!(qualified(Lang::Php, php, "f"), ["A\\f", "B\\f"]);
    // A Rust `impl` always shows: its methods' signatures alone are alike.
    assert_eq!(
        scope(Lang::Rust, RUST, "fallback"),
        [vec![1, 5], vec![1, 11]]
    );
}
