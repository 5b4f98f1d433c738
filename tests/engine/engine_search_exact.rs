//! Exact-first look-ups (issue 43, item 3 and 7): a query that is one symbol ranks the
//! definition with that exact name first, then its case variants, then everything else;
//! implementation before tests; a C/C++ body beside its prototype; a qualified query, in
//! each language's notation, puts the member of the typed container first; the phrases
//! around a symbol ask the same. Small fixtures per language, parsed by the real tag
//! extractor and searched without graph or history.

use crate::common;

use mapscope::engine::search::{Evidence, Intent, SearchResponse};

use common::{parsed, search_parsed};

fn search(files: &[mapscope::engine::base::model::ParsedFile], q: &str) -> SearchResponse {
    search_parsed(files, q, false)
}

/// The top hit is the definition `symbol` at `path:line`.
#[track_caller]
fn top_is(resp: &SearchResponse, path: &str, line: u32, symbol: &str) {
    let top = resp
        .hits
        .first()
        .unwrap_or_else(|| panic!("no hit for {symbol}"));
    assert_eq!(
        (
            top.file_path.as_str(),
            top.line_range.start,
            top.symbol.as_deref(),
            top.evidence
        ),
        (path, line, Some(symbol), Evidence::Definition),
        "{:#?}",
        &resp.hits[..resp.hits.len().min(4)]
    );
}

#[test]
fn the_exact_name_ranks_above_its_case_variants_and_longer_names() {
    let files = [
        parsed(
            "src/routes.ts",
            "export function getRoutes(): string[] {\n  return []\n}\n\nexport const ssgParams = () => getRoutes()\nexport const latticeV2Processor = 1\n",
        ),
        parsed(
            "src/route.ts",
            "export function getRoute(name: string): string {\n  return name\n}\n",
        ),
        parsed(
            "src/ssg.ts",
            "export class SSGParam {\n  name = ''\n}\n\nexport class LatticeV2Processor {\n  run() {}\n}\n",
        ),
    ];
    top_is(&search(&files, "getRoute"), "src/route.ts", 1, "getRoute");
    top_is(&search(&files, "SSGParam"), "src/ssg.ts", 1, "SSGParam");
    top_is(
        &search(&files, "LatticeV2Processor"),
        "src/ssg.ts",
        5,
        "LatticeV2Processor",
    );
    // The case variant is the next tier down.
    let r = search(&files, "latticeV2Processor");
    top_is(&r, "src/routes.ts", 6, "latticeV2Processor");
    assert_eq!(r.hits[1].symbol.as_deref(), Some("LatticeV2Processor"));

    let py = [
        parsed(
            "mypy/truncate.py",
            "class Truncate:\n    def run(self):\n        pass\n",
        ),
        parsed(
            "mypy/util.py",
            "def _truncate(text, n):\n    return text[:n]\n",
        ),
    ];
    top_is(&search(&py, "_truncate"), "mypy/util.py", 1, "_truncate");
    top_is(&search(&py, "Truncate"), "mypy/truncate.py", 1, "Truncate");
}

#[test]
fn implementation_ranks_above_tests_within_a_tier() {
    let files = [
        parsed(
            "tests/fallback.rs",
            "fn fallback() {}\n\n#[test]\nfn fallback_works() {\n    fallback();\n    fallback();\n}\n",
        ),
        parsed(
            "src/routing.rs",
            "pub struct Router;\n\nimpl Router {\n    pub fn fallback(self) -> Self {\n        self\n    }\n}\n",
        ),
    ];
    top_is(&search(&files, "fallback"), "src/routing.rs", 4, "fallback");
}

#[test]
fn a_c_body_ranks_first_with_its_prototype_beside_it() {
    let files = [
        parsed("src/util.h", "#ifndef UTIL_H\n#define UTIL_H\nint parse_line(const char *s);\nint other(void);\n#endif\n"),
        parsed(
            "src/util.c",
            "#include \"util.h\"\n\nint parse_line(const char *s) {\n  return s[0];\n}\n",
        ),
        parsed("src/main.c", "#include \"util.h\"\nint main(void) { return parse_line(\"x\"); }\n"),
    ];
    let r = search(&files, "parse_line");
    top_is(&r, "src/util.c", 3, "parse_line");
    assert_eq!(
        (r.hits[1].file_path.as_str(), r.hits[1].evidence),
        ("src/util.h", Evidence::Definition),
        "{:#?}",
        r.hits
    );
    // C++: a member declared in its class, defined out of line.
    let cpp = [
        parsed(
            "src/cache.cc",
            "class LRUCache {\n public:\n  void LRU_Remove(int e);\n};\n\nvoid LRUCache::LRU_Remove(int e) {\n  (void)e;\n}\n",
        ),
    ];
    top_is(&search(&cpp, "LRU_Remove"), "src/cache.cc", 6, "LRU_Remove");
}

const ROUTER_RS: &str = "pub struct Router;\npub struct MethodRouter;

impl Router {
    pub fn fallback(self) -> Self {
        self
    }
}

impl MethodRouter {
    pub fn fallback(self) -> Self {
        self
    }
}

pub fn method_not_allowed_fallback() {}
";

#[test]
fn rust_paths_select_the_impl() {
    let files = [parsed("src/routing.rs", ROUTER_RS)];
    top_is(
        &search(&files, "Router::fallback"),
        "src/routing.rs",
        5,
        "fallback",
    );
    top_is(
        &search(&files, "MethodRouter::fallback"),
        "src/routing.rs",
        11,
        "fallback",
    );
    // The outer path is the crate's module: `routing`, from the file.
    top_is(
        &search(&files, "routing::MethodRouter::fallback"),
        "src/routing.rs",
        11,
        "fallback",
    );
    let r = search(&files, "Router::fallback");
    assert_eq!(r.read.lookup.as_ref().unwrap().container, ["Router"]);
}

const STORE_GO: &str = "package store

type Memory struct{}
type Disk struct{}

func (m *Memory) Get(key string) string {
\treturn key
}

func (d *Disk) Get(key string) string {
\treturn key
}
";

#[test]
fn go_receivers_and_packages_select_the_method() {
    let files = [
        parsed("internal/store/store.go", STORE_GO),
        parsed(
            "internal/cache/cache.go",
            "package cache\n\nfunc Get(key string) string {\n\treturn key\n}\n",
        ),
    ];
    top_is(
        &search(&files, "Disk.Get"),
        "internal/store/store.go",
        10,
        "Get",
    );
    top_is(
        &search(&files, "(*Disk).Get"),
        "internal/store/store.go",
        10,
        "Get",
    );
    top_is(
        &search(&files, "store.(*Memory).Get"),
        "internal/store/store.go",
        6,
        "Get",
    );
    top_is(
        &search(&files, "cache.Get"),
        "internal/cache/cache.go",
        3,
        "Get",
    );
    // A file qualifier: the definitions of that file only.
    top_is(
        &search(&files, "internal/cache/cache.go:Get"),
        "internal/cache/cache.go",
        3,
        "Get",
    );
    top_is(
        &search(&files, "store.go:Get"),
        "internal/store/store.go",
        6,
        "Get",
    );
}

#[test]
fn classes_select_their_member_in_each_notation() {
    let py = [parsed(
        "httpx/client.py",
        "class Client:\n    def send(self, r):\n        return r\n\n\nclass Transport:\n    def send(self, r):\n        return r\n",
    )];
    top_is(&search(&py, "Transport.send"), "httpx/client.py", 7, "send");
    top_is(&search(&py, "Client.send"), "httpx/client.py", 2, "send");

    let rb = [parsed(
        "lib/rack/app.rb",
        "module Rack\n  class Request\n    def params\n      1\n    end\n  end\n\n  class Response\n    def params\n      2\n    end\n  end\nend\n",
    )];
    top_is(
        &search(&rb, "Response#params"),
        "lib/rack/app.rb",
        9,
        "params",
    );
    top_is(
        &search(&rb, "Rack::Request#params"),
        "lib/rack/app.rb",
        3,
        "params",
    );

    let php = [parsed(
        "src/App.php",
        "<?php\n\nnamespace Slim;\n\nclass App\n{\n    public function run()\n    {\n    }\n}\n\nclass Worker\n{\n    public function run()\n    {\n    }\n}\n",
    )];
    top_is(&search(&php, "Slim\\App::run"), "src/App.php", 7, "run");
    top_is(&search(&php, "Worker::run"), "src/App.php", 14, "run");

    let java = [parsed(
        "src/main/java/org/jsoup/Parser.java",
        "package org.jsoup;\n\nclass Parser {\n    void parse() {}\n}\n\nclass Lexer {\n    void parse() {}\n}\n",
    )];
    top_is(
        &search(&java, "Lexer.parse"),
        "src/main/java/org/jsoup/Parser.java",
        8,
        "parse",
    );
    top_is(
        &search(&java, "Parser.parse"),
        "src/main/java/org/jsoup/Parser.java",
        4,
        "parse",
    );

    let ts = [parsed(
        "src/ws.ts",
        "export class WebSocketServer {\n  close() {}\n}\n\nexport class PreviewServer {\n  close() {}\n}\n",
    )];
    top_is(&search(&ts, "PreviewServer.close"), "src/ws.ts", 6, "close");
    top_is(
        &search(&ts, "WebSocketServer#close"),
        "src/ws.ts",
        2,
        "close",
    );
}

#[test]
fn cpp_out_of_line_members_select_their_class() {
    let files = [parsed(
        "src/buffer.cc",
        "namespace fmt {\nclass buffer {\n  void push_back(int c);\n};\nclass memory {\n  void push_back(int c);\n};\nvoid buffer::push_back(int c) { (void)c; }\nvoid memory::push_back(int c) { (void)c; }\n}\n",
    )];
    top_is(
        &search(&files, "memory::push_back"),
        "src/buffer.cc",
        9,
        "push_back",
    );
    top_is(
        &search(&files, "fmt::buffer::push_back"),
        "src/buffer.cc",
        8,
        "push_back",
    );
}

#[test]
fn a_container_typed_with_an_unknown_member_answers_with_the_container() {
    let files = [parsed("src/routing.rs", ROUTER_RS)];
    let r = search(&files, "Router::nothing_like_this");
    top_is(&r, "src/routing.rs", 1, "Router");
}

const CALLS_TS: &str = "import { parseConfig } from './config'

export function load(path: string) {
  return parseConfig(path)
}
";

const CONFIG_TS: &str = "export function parseConfig(text: string) {
  return JSON.parse(text)
}
";

#[test]
fn phrases_route_to_the_definition_its_callers_or_its_callees() {
    let files = [
        parsed("src/config.ts", CONFIG_TS),
        parsed("src/load.ts", CALLS_TS),
    ];
    for q in [
        "where is parseConfig defined",
        "Where is parseConfig defined?",
        "parseConfig 在哪定义",
        "what does parseConfig call",
    ] {
        let r = search(&files, q);
        top_is(&r, "src/config.ts", 1, "parseConfig");
        assert!(r.read.intent.is_some(), "{q}");
    }
    for q in ["who calls parseConfig", "谁调用了 parseConfig"] {
        let r = search(&files, q);
        assert_eq!(r.read.intent, Some(Intent::Callers), "{q}");
        top_is(&r, "src/config.ts", 1, "parseConfig");
        // Then its uses, before anything else.
        let second = &r.hits[1];
        assert_eq!(second.file_path, "src/load.ts", "{q}: {:#?}", r.hits);
        assert!(
            matches!(
                second.evidence,
                Evidence::Call | Evidence::Import | Evidence::Reference
            ),
            "{q}: {:#?}",
            r.hits
        );
    }
    assert_eq!(
        search(&files, "what does parseConfig call").read.intent,
        Some(Intent::Callees)
    );
    // A sentence is words, not a look-up.
    assert!(search(&files, "how is the config parsed")
        .read
        .lookup
        .is_none());
}

#[test]
fn an_include_guard_is_found_where_it_is_defined() {
    let files = [
        parsed(
            "src/util.h",
            "#ifndef PROJECT_UTIL_H_\n#define PROJECT_UTIL_H_\nint parse_line(const char *s);\n#endif\n",
        ),
        parsed(
            "src/main.c",
            "#include \"util.h\"\n#ifdef PROJECT_UTIL_H_\nint main(void) { return 0; }\n#endif\n",
        ),
    ];
    // The `#define` line, not the `#ifndef` above it or a use elsewhere.
    top_is(
        &search(&files, "PROJECT_UTIL_H_"),
        "src/util.h",
        2,
        "PROJECT_UTIL_H_",
    );
}

#[test]
fn a_name_defined_again_further_down_its_file_ranks_its_first_definition_first() {
    // Each `#if` branch defines the macro again; the later, shorter one would win on length.
    let files = [parsed(
        "include/hedley.h",
        "#if defined(A)\n#  define HEDLEY_PREDICT(expr, expected, probability) \\\n    (((probability) >= 0.9) ? __builtin_expect((expr), (expected)) : (HEDLEY_STATIC_CAST(void, expected), (expr)))\n#else\n#  define HEDLEY_PREDICT(expr, expected, probability) (expr)\n#endif\n",
    )];
    top_is(
        &search(&files, "HEDLEY_PREDICT"),
        "include/hedley.h",
        2,
        "HEDLEY_PREDICT",
    );
}

#[test]
fn js_named_function_expressions_and_aliases_of_imported_members() {
    let files = [
        parsed(
            "lib/view.js",
            "var path = require('path');\nvar resolve = path.resolve;\n\nfunction View(name) {\n  this.name = name;\n}\n\nView.prototype.lookup = function lookup(name) {\n  return resolve(this.root, name);\n};\n\nView.prototype.resolve = function resolve(dir, file) {\n  return path.join(dir, file);\n};\n\nmodule.exports = View;\n",
        ),
        parsed(
            "lib/application.js",
            "var app = exports = module.exports = {};\n\napp.init = function init() {\n  Object.defineProperty(this, 'router', {\n    configurable: true,\n    get: function getrouter() {\n      return this._router;\n    }\n  });\n};\n",
        ),
    ];
    // `var resolve = path.resolve` uses the `path` module's member: the method is the definition.
    top_is(&search(&files, "resolve"), "lib/view.js", 12, "resolve");
    // A property's named function is a definition.
    top_is(
        &search(&files, "getrouter"),
        "lib/application.js",
        6,
        "getrouter",
    );
}
