//! Tag extraction on the fixture repositories (snapshots, one compact line per tag) plus
//! targeted checks for each kind of definition, reference and import, and hostile input.

use crate::common;

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use mapscope::engine::base::cpu_clock::thread_cpu_time;
use mapscope::engine::base::model::{
    DefKind, Definition, FileTags, Import, Lang, LineRange, RefKind, RefView,
};
use mapscope::engine::ingest::lang::check_all_queries;
use mapscope::engine::ingest::tags::extract_tags;

use common::fixture_sources as source_files;

fn tags_of(repo: &str, path: &str) -> FileTags {
    let lang = Lang::from_path(path).unwrap();
    let source = std::fs::read_to_string(common::fixture(repo).join(path)).unwrap();
    if lang.is_component() {
        mapscope::engine::ingest::tags::extract_component_tags(path, &source)
    } else {
        extract_tags(lang, &source)
    }
}

/// `def <kind> <name> <lines> sig <lines> [parent=P] [qualified=Q] [scope=[..]]
/// [declaration]`, `import …`, `ref …`.
fn render(tags: &FileTags) -> String {
    let mut out = String::new();
    for d in &tags.defs {
        write!(
            out,
            "def {} {} {}-{} sig {}-{}",
            d.kind.name(),
            d.name,
            d.lines.start,
            d.lines.end,
            d.signature.start,
            d.signature.end
        )
        .unwrap();
        if let Some(p) = &d.parent {
            write!(out, " parent={p}").unwrap();
        }
        if let Some(q) = tags.qualified_name(d) {
            write!(out, " qualified={q}").unwrap();
        }
        if !d.scope_lines.is_empty() {
            write!(out, " scope={:?}", d.scope_lines).unwrap();
        }
        if d.declaration {
            out.push_str(" declaration");
        }
        out.push('\n');
    }
    for i in &tags.imports {
        write!(out, "import {:?} line={}", i.specifier, i.line).unwrap();
        for n in &i.names {
            match &n.alias {
                Some(a) => write!(out, " {} as {a}", n.name).unwrap(),
                None => write!(out, " {}", n.name).unwrap(),
            }
        }
        if let Some(ns) = &i.namespace {
            write!(out, " ns={ns}").unwrap();
        }
        if i.wildcard {
            out.push_str(" wildcard");
        }
        if i.reexport {
            out.push_str(" reexport");
        }
        out.push('\n');
    }
    for r in &tags.refs {
        write!(out, "ref {} {} {}", r.line, r.kind.name(), r.name).unwrap();
        if let Some(q) = &r.qualifier {
            write!(out, " q={q}").unwrap();
        }
        out.push('\n');
    }
    if tags.parse_errors > 0 {
        writeln!(out, "parse_errors {}", tags.parse_errors).unwrap();
    }
    out
}

fn render_repo(repo: &str) -> String {
    let mut out = String::new();
    for (path, lang) in source_files(repo) {
        let tags = tags_of(repo, &path);
        writeln!(out, "== {path} ({})", lang.name()).unwrap();
        out.push_str(&render(&tags));
    }
    out
}

fn def<'a>(tags: &'a FileTags, name: &str) -> &'a Definition {
    tags.defs
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no definition {name} in\n{}", render(tags)))
}

/// Every definition as "name Kind", sorted.
fn names_and_kinds(tags: &FileTags) -> Vec<String> {
    let mut found: Vec<String> = tags
        .defs
        .iter()
        .map(|d| format!("{} {:?}", d.name, d.kind))
        .collect();
    found.sort();
    found
}

fn has_ref(tags: &FileTags, name: &str, kind: RefKind, qualifier: Option<&str>) -> bool {
    tags.refs
        .iter()
        .any(|r| r.name == name && r.kind == kind && r.qualifier == qualifier)
}

#[track_caller]
fn assert_ref(tags: &FileTags, name: &str, kind: RefKind, qualifier: Option<&str>) {
    assert!(
        has_ref(tags, name, kind, qualifier),
        "missing ref {name} {kind:?} {qualifier:?} in\n{}",
        render(tags)
    );
}

fn refs_named<'a>(tags: &'a FileTags, name: &str) -> Vec<RefView<'a>> {
    tags.refs.iter().filter(|r| r.name == name).collect()
}

fn import<'a>(tags: &'a FileTags, specifier: &str) -> &'a Import {
    tags.imports
        .iter()
        .find(|i| i.specifier == specifier)
        .unwrap_or_else(|| panic!("no import {specifier} in\n{}", render(tags)))
}

fn names(import: &Import) -> Vec<(String, Option<String>)> {
    import
        .names
        .iter()
        .map(|n| (n.name.clone(), n.alias.clone()))
        .collect()
}

fn named(name: &str, alias: Option<&str>) -> (String, Option<String>) {
    (name.to_owned(), alias.map(str::to_owned))
}

// ---------------------------------------------------------------- snapshots

#[test]
fn queries_compile() {
    check_all_queries().unwrap();
}

#[test]
fn snapshot_ts_app() {
    insta::assert_snapshot!("ts_app", render_repo("ts-app"));
}

/// Vue and Svelte components: their scripts' tags at the component's lines, and the
/// component itself.
#[test]
fn snapshot_vue_app() {
    insta::assert_snapshot!("vue_app", render_repo("vue-app"));
}

#[test]
fn snapshot_js_app() {
    insta::assert_snapshot!("js_app", render_repo("js-app"));
}

#[test]
fn snapshot_py_app() {
    insta::assert_snapshot!("py_app", render_repo("py-app"));
}

#[test]
fn snapshot_go_app() {
    insta::assert_snapshot!("go_app", render_repo("go-app"));
}

#[test]
fn snapshot_rust_app() {
    insta::assert_snapshot!("rust_app", render_repo("rust-app"));
}

#[test]
fn snapshot_java_app() {
    insta::assert_snapshot!("java_app", render_repo("java-app"));
}

#[test]
fn snapshot_c_app() {
    insta::assert_snapshot!("c_app", render_repo("c-app"));
}

#[test]
fn snapshot_cpp_app() {
    insta::assert_snapshot!("cpp_app", render_repo("cpp-app"));
}

#[test]
fn snapshot_cs_app() {
    insta::assert_snapshot!("cs_app", render_repo("cs-app"));
}

#[test]
fn snapshot_rb_app() {
    insta::assert_snapshot!("rb_app", render_repo("rb-app"));
}

#[test]
fn snapshot_php_app() {
    insta::assert_snapshot!("php_app", render_repo("php-app"));
}

#[test]
fn snapshot_kt_app() {
    insta::assert_snapshot!("kt_app", render_repo("kt-app"));
}

#[test]
fn snapshot_swift_app() {
    insta::assert_snapshot!("swift_app", render_repo("swift-app"));
}

#[test]
fn snapshot_sh_app() {
    insta::assert_snapshot!("sh_app", render_repo("sh-app"));
}

#[test]
fn snapshot_scala_app() {
    insta::assert_snapshot!("scala_app", render_repo("scala-app"));
}

#[test]
fn snapshot_lua_app() {
    insta::assert_snapshot!("lua_app", render_repo("lua-app"));
}

#[test]
fn snapshot_ex_app() {
    insta::assert_snapshot!("ex_app", render_repo("ex-app"));
}

#[test]
fn snapshot_tf_app() {
    insta::assert_snapshot!("tf_app", render_repo("tf-app"));
}

/// The definition forms the tags used to miss, one source per language, with their
/// containers: TS interface and abstract members (declarations), JS members assigned a
/// function and named callbacks, Rust `mod name;`, Java enum constants with a body, C
/// function-type typedefs, C++ classes and members behind attribute and scope macros.
#[test]
fn snapshot_definition_forms() {
    let sources = [
        (
            Lang::TypeScript,
            "export interface HMRLogger {\n  error(msg: string): void\n  listen?: () => void\n  verbose: boolean\n}\n\nexport abstract class FetchEventLike {\n  abstract readonly request: Request\n  abstract respondWith(r: Response): void\n  abstract close: () => void\n  done(): void {}\n}\n",
        ),
        (
            Lang::JavaScript,
            "var req = Object.create(null)\nmodule.exports = req\n\nreq.get = req.header = function header (name) {\n  return name\n}\n\nfunction Reply () {}\n\nReply.prototype.send = function (payload) {\n  boot(function onBoot (err) {\n    return err\n  })\n}\n\nexports.compileETag = (val) => val\nmodule.exports.normalizeType = function (type) {\n  return type\n}\n\nfunction later () {\n  req.patched = function () {}\n}\n",
        ),
        (
            Lang::Rust,
            "pub mod content_disposition;\nmod typed;\n\nmod inner {\n    pub fn f() {}\n}\n",
        ),
        (
            Lang::Java,
            "package com.google.gson;\n\npublic enum FieldNamingPolicy {\n  IDENTITY,\n  UPPER_CAMEL_CASE() {\n    @Override\n    public String translateName(String f) {\n      return f;\n    }\n  };\n\n  abstract String translateName(String f);\n}\n",
        ),
        (
            Lang::C,
            "typedef void (*jq_util_msg_cb)(void *, const char *);\ntypedef int handler_fn(int);\ntypedef struct item { int x; } item_t, *item_p;\n",
        ),
        (
            Lang::Cpp,
            "FMT_BEGIN_NAMESPACE\nclass FMT_API file {\n public:\n  FMT_CONSTEXPR file(int fd) : fd_(fd) {}\n  FMT_CONSTEXPR20 ~file() = default;\n  using native_handle = int;\n  auto descriptor() const noexcept -> int { return fd_; }\n  void close();\n};\nFMT_API void print(file& f);\nFMT_END_NAMESPACE\n",
        ),
    ];
    let mut out = String::new();
    for (lang, src) in sources {
        writeln!(out, "== {}", lang.name()).unwrap();
        let tags = extract_tags(lang, src);
        for line in render(&tags).lines().filter(|l| l.starts_with("def ")) {
            writeln!(out, "{line}").unwrap();
        }
    }
    insta::assert_snapshot!("definition_forms", out);
}

/// The fixture repositories of every language.
const FIXTURE_REPOS: [&str; 18] = [
    "ts-app",
    "js-app",
    "py-app",
    "go-app",
    "rust-app",
    "java-app",
    "c-app",
    "cpp-app",
    "cs-app",
    "rb-app",
    "php-app",
    "kt-app",
    "swift-app",
    "sh-app",
    "scala-app",
    "lua-app",
    "ex-app",
    "tf-app",
];

#[test]
fn fixtures_parse_cleanly_and_sorted() {
    for repo in FIXTURE_REPOS {
        let files = source_files(repo);
        assert!(files.len() >= 5, "{repo}");
        for (path, _) in files {
            let tags = tags_of(repo, &path);
            assert_eq!(tags.parse_errors, 0, "{repo}/{path}");
            assert!(
                tags.defs
                    .windows(2)
                    .all(|w| (w[0].lines.start, &w[0].name) <= (w[1].lines.start, &w[1].name)),
                "{repo}/{path}: defs not sorted"
            );
            assert!(
                tags.refs.iter().collect::<Vec<_>>().windows(2).all(|w| (
                    w[0].line, w[0].name, w[0].kind
                ) <= (
                    w[1].line, w[1].name, w[1].kind
                )),
                "{repo}/{path}: refs not sorted"
            );
            for d in &tags.defs {
                assert!(d.lines.contains(d.signature.start) && d.lines.contains(d.signature.end));
                assert!(d.signature.end - d.signature.start < 6, "{d:?}");
            }
        }
    }
}

#[test]
fn extraction_is_deterministic_across_threads() {
    use rayon::prelude::*;
    let mut jobs = Vec::new();
    for repo in FIXTURE_REPOS {
        for (path, _) in source_files(repo) {
            jobs.push((repo, path));
        }
    }
    let sequential: Vec<FileTags> = jobs.iter().map(|(r, p)| tags_of(r, p)).collect();
    for _ in 0..3 {
        let parallel: Vec<FileTags> = jobs.par_iter().map(|(r, p)| tags_of(r, p)).collect();
        assert_eq!(parallel, sequential);
    }
}

// ---------------------------------------------------------------- TypeScript / TSX

#[test]
fn ts_definitions() {
    let user = tags_of("ts-app", "src/models/user.ts");
    assert_eq!(def(&user, "UserId").kind, DefKind::TypeAlias);
    assert_eq!(def(&user, "Role").kind, DefKind::Enum);
    assert_eq!(def(&user, "Person").kind, DefKind::Interface);
    let class = def(&user, "User");
    assert_eq!(class.kind, DefKind::Class);
    assert_eq!((class.lines.start, class.lines.end), (17, 36));
    // The interface's member is a declaration of it; the class's, the implementation.
    let declared = def(&user, "greet");
    assert_eq!(declared.kind, DefKind::Method);
    assert_eq!(declared.parent.as_deref(), Some("Person"));
    assert_eq!(
        user.qualified_name(declared).as_deref(),
        Some("Person.greet")
    );
    assert!(declared.declaration);
    let greet = user
        .defs
        .iter()
        .find(|d| d.name == "greet" && d.parent.as_deref() == Some("User"))
        .unwrap();
    assert_eq!(greet.kind, DefKind::Method);
    assert_eq!(greet.scope_lines, vec![17]);
    assert!(!greet.declaration);
    // A constructor whose parameters span six lines: the signature runs to the body's `{`.
    let ctor = def(&user, "constructor");
    assert_eq!((ctor.signature.start, ctor.signature.end), (18, 23));

    let session = tags_of("ts-app", "src/models/session.ts");
    assert_eq!(def(&session, "BaseSession").kind, DefKind::Class);
    let abstract_method = session
        .defs
        .iter()
        .find(|d| d.name == "isValid" && d.parent.as_deref() == Some("BaseSession"))
        .unwrap();
    assert_eq!(abstract_method.kind, DefKind::Method);
    assert!(abstract_method.declaration);

    let util = tags_of("ts-app", "src/util.ts");
    assert_eq!(def(&util, "DEFAULT_LOCALE").kind, DefKind::Constant);
    assert_eq!(def(&util, "formatName").kind, DefKind::Function);
    // Locals inside a function are not definitions.
    assert!(util.defs.iter().all(|d| d.name != "original"));

    let icon = tags_of("ts-app", "src/components/Icon.tsx");
    assert_eq!(def(&icon, "Icon").kind, DefKind::Function);
}

#[test]
fn ts_signature_includes_export_and_decorators() {
    let service = tags_of("ts-app", "src/services/userService.ts");
    let register = def(&service, "register");
    // `@logged` on line 25, the method header on line 26.
    assert_eq!((register.signature.start, register.signature.end), (25, 26));
    assert_eq!(register.lines.start, 25);

    let src = "@Component({\n  selector: 'x',\n})\nexport class Widget {\n  run() {}\n}\n";
    let tags = extract_tags(Lang::TypeScript, src);
    let widget = def(&tags, "Widget");
    assert_eq!((widget.signature.start, widget.signature.end), (1, 4));
    assert_eq!((widget.lines.start, widget.lines.end), (1, 6));
    // The scope line of a member is the class header itself, not its decorator.
    assert_eq!(def(&tags, "run").scope_lines, vec![4]);
    assert_ref(&tags, "Component", RefKind::Call, None);
}

#[test]
fn ts_signature_rules() {
    let src = "export function long(\n  a: string,\n  b: string,\n  c: string,\n  d: string,\n  e: string,\n  f: string,\n): void {\n  return;\n}\n\
               type Short = {\n  a: string;\n};\n\
               type Long = {\n  a: string;\n  b: string;\n  c: string;\n};\n";
    let tags = extract_tags(Lang::TypeScript, src);
    let long = def(&tags, "long");
    assert_eq!((long.signature.start, long.signature.end), (1, 6));
    let short = def(&tags, "Short");
    assert_eq!((short.signature.start, short.signature.end), (11, 13));
    let long_type = def(&tags, "Long");
    assert_eq!(
        (long_type.signature.start, long_type.signature.end),
        (14, 14)
    );
}

#[test]
fn ts_module_level_variables_only() {
    let src = "export const handler = async (req: Request) => {\n  const local = () => 1;\n  function inner() {}\n  return local();\n};\nlet counter = 0;\nvar legacy = 1;\nexport const Klass = class {};\nconst fs = require('fs');\n";
    let tags = extract_tags(Lang::TypeScript, src);
    assert_eq!(def(&tags, "handler").kind, DefKind::Function);
    assert_eq!(def(&tags, "counter").kind, DefKind::Variable);
    assert_eq!(def(&tags, "legacy").kind, DefKind::Variable);
    assert_eq!(def(&tags, "Klass").kind, DefKind::Class);
    assert!(tags.defs.iter().all(|d| d.name != "local"));
    assert!(
        tags.defs.iter().all(|d| d.name != "fs"),
        "a require is an import"
    );
    let inner = def(&tags, "inner");
    assert_eq!(inner.parent.as_deref(), Some("handler"));
    assert_eq!(inner.scope_lines, vec![1]);
}

/// Methods and function-valued properties of module-level object literals are definitions
/// (config hooks, exported API objects), in TS and JS alike; objects built inside functions
/// and plain data properties are not.
#[test]
fn module_level_object_literal_methods_are_definitions() {
    let src = "import { defineConfig } from 'rolldown'\n\nconst shared = defineConfig({\n  platform: 'node',\n  onLog(level, log) {\n    return log\n  },\n  resolveId: (id) => id,\n})\n\nexport default {\n  fetch(request) {\n    return request\n  },\n}\n\nfunction plugin() {\n  return {\n    transform(code) {\n      return code\n    },\n  }\n}\n";
    for lang in [Lang::TypeScript, Lang::JavaScript] {
        let tags = extract_tags(lang, src);
        let on_log = def(&tags, "onLog");
        assert_eq!(on_log.kind, DefKind::Method, "{lang:?}");
        assert_eq!((on_log.lines.start, on_log.lines.end), (5, 7));
        assert_eq!(on_log.parent.as_deref(), Some("shared"));
        assert_eq!(on_log.scope_lines, vec![3]);
        assert_eq!(def(&tags, "resolveId").kind, DefKind::Method);
        assert_eq!(def(&tags, "fetch").kind, DefKind::Method);
        for local in ["transform", "platform"] {
            assert!(
                tags.defs.iter().all(|d| d.name != local),
                "{lang:?} {local}"
            );
        }
    }
    let cjs = "module.exports = {\n  parse: function (x) { return x },\n  name: 'b',\n}\n";
    let tags = extract_tags(Lang::JavaScript, cjs);
    assert_eq!(def(&tags, "parse").kind, DefKind::Method);
    assert!(tags.defs.iter().all(|d| d.name != "name"));
}

/// Every place a module-level object literal is read from, and the places that are not
/// (pinned when the query's five patterns became `Extractor::scan_module`: the same tags).
#[test]
fn module_level_objects_are_read_where_the_patterns_read_them() {
    let src = "let a = { inLet() {} }\n\
var b = { inVar() {} }\n\
export const c = { inExportConst() {} }\n\
export let d = wrap({ firstArg() {} }, 1, { secondArg: () => 0 })\n\
export var e = { inExportVar() {} }\n\
export default wrap({ inDefaultCall() {} })\n\
exports.api = { inMember() {} }\n\
plain = { inPlainAssignment() {} }\n\
exports.made = make({ inAssignedCall() {} })\n\
const t = tag`${{ inTemplate() {} }}`\n\
const n = wrap(inner({ nested() {} }))\n";
    for lang in [Lang::TypeScript, Lang::Tsx, Lang::JavaScript] {
        let tags = extract_tags(lang, src);
        let names: Vec<&str> = tags.defs.iter().map(|d| d.name.as_str()).collect();
        for read in [
            "inLet",
            "inVar",
            "inExportConst",
            "firstArg",
            "secondArg",
            "inDefaultCall",
            "inMember",
        ] {
            assert!(names.contains(&read), "{lang:?} {read}: {names:?}");
        }
        for not_read in [
            "inExportVar",
            "inPlainAssignment",
            "inAssignedCall",
            "inTemplate",
            "nested",
        ] {
            assert!(!names.contains(&not_read), "{lang:?} {not_read}: {names:?}");
        }
    }
}

/// Every `require`/`import()` form read as an import, with the name it is bound to, and the
/// forms that are not (pinned when the query's four call and declarator patterns became
/// `Extractor::is_import` and `declared_import`: the same imports and references).
#[test]
fn require_and_dynamic_import_forms_are_read_as_the_patterns_read_them() {
    let src = "const f = require(\"f\");\n\
const { g, h: hh } = require('g');\n\
var j = require(\"j\", 2);\n\
require(\"k\");\n\
const l = require(`l`);\n\
const m = await import(\"m\");\n\
const n = import(\"n\");\n\
foo(require(\"q\"));\n\
const r = require(/*c*/ \"r\");\n\
const s = obj.require(\"s\");\n\
async function w() { const v = require(\"v\"); }\n";
    for lang in [Lang::TypeScript, Lang::Tsx, Lang::JavaScript] {
        let tags = extract_tags(lang, src);
        let specs: Vec<&str> = tags.imports.iter().map(|i| i.specifier.as_str()).collect();
        assert_eq!(specs, ["f", "g", "k", "m", "n", "q", "v"], "{lang:?}");
        let bound = |spec: &str| {
            let imp = tags.imports.iter().find(|i| i.specifier == spec).unwrap();
            (imp.namespace.clone(), imp.names.len())
        };
        assert_eq!(bound("f"), (Some("f".to_string()), 0), "{lang:?}");
        assert_eq!(bound("g"), (None, 2), "{lang:?}");
        assert_eq!(bound("m"), (Some("m".to_string()), 0), "{lang:?}");
        assert_eq!(bound("n"), (None, 0), "{lang:?}");
    }
}

/// TypeScript declarations in every wrapper and class member form, named as the query's
/// `name:` patterns named them (pinned when they became `@named` and `scan_class_body`).
#[test]
fn typescript_declarations_are_named_in_every_form() {
    let src = "function f() {}\nfunction* g() {}\nexport function ef() {}\n\
export default function () {}\ndeclare function df(): void;\nfunction sig(): void;\n\
export abstract class A { abstract am(): void; m() {} sig(): void; #priv() {} ['comp']() {} \
get acc() { return 1 } @dec\n  deco() {} }\nexport interface I { im(): void }\n\
declare class DC { dm(): void }\ntype T = string;\nexport type ET = number;\n\
enum E { A }\nexport enum EE { B }\ndeclare enum DE { C }\n";
    for lang in [Lang::TypeScript, Lang::Tsx] {
        let tags = extract_tags(lang, src);
        assert_eq!(
            names_and_kinds(&tags),
            [
                "#priv Method",
                "A Class",
                "DC Class",
                "DE Enum",
                "E Enum",
                "EE Enum",
                "ET TypeAlias",
                "I Interface",
                "T TypeAlias",
                "['comp'] Method",
                "acc Method",
                "am Method",
                "deco Method",
                "df Function",
                "dm Method",
                "ef Function",
                "f Function",
                "g Function",
                "im Method",
                "m Method",
                "sig Function",
                "sig Method",
            ],
            "{lang:?}"
        );
        // The decorator line starts the decorated method's signature.
        let deco = def(&tags, "deco");
        assert_eq!(deco.lines.start, 7, "{lang:?}");
    }
}

/// Module-level `const`/`let`/`var` declarators, bare or exported, and the ones that are not
/// definitions (pinned when the query's six patterns became `Extractor::scan_module`).
#[test]
fn module_level_declarations_are_read_where_the_patterns_read_them() {
    let src = "const a = 1, b = () => 2;\nlet c;\nvar e = class {};\nexport const f = 3;\n\
export let g = 4, h;\nexport var i = 5;\nconst { j } = obj;\nconst [k] = arr;\n\
function local() { const l = 1; let m = 2; var n = 3; }\nif (x) { const o = 1; }\n\
for (const w of xs) {}\n";
    for lang in [Lang::TypeScript, Lang::Tsx, Lang::JavaScript] {
        let tags = extract_tags(lang, src);
        assert_eq!(
            names_and_kinds(&tags),
            [
                "a Constant",
                "b Function",
                "c Variable",
                "e Class",
                "f Constant",
                "g Variable",
                "h Variable",
                "i Variable",
                "local Function",
            ],
            "{lang:?}"
        );
        // `export` starts the exported declarator's signature.
        assert_eq!(def(&tags, "f").lines.start, 4, "{lang:?}");
    }
}

#[test]
fn ts_references() {
    let user = tags_of("ts-app", "src/models/user.ts");
    assert_ref(&user, "Person", RefKind::Heritage, None);
    assert_ref(&user, "formatName", RefKind::Call, None);
    assert_ref(&user, "UserId", RefKind::Type, None);
    assert_ref(&user, "Member", RefKind::Reference, Some("Role"));
    assert_ref(&user, "fullName", RefKind::Reference, Some("this"));
    // Declaration names and property keys are not references.
    assert!(!has_ref(&user, "User", RefKind::Reference, None));
    assert!(!has_ref(&user, "User", RefKind::Type, None));
    assert!(refs_named(&user, "firstName")
        .iter()
        .all(|r| r.qualifier.is_some()));

    let session = tags_of("ts-app", "src/models/session.ts");
    assert_ref(&session, "BaseSession", RefKind::Heritage, None);
    assert_ref(&session, "Date", RefKind::Call, None); // new Date()
    assert_ref(&session, "now", RefKind::Call, Some("Date"));
    assert_ref(&session, "User", RefKind::Type, None);

    let service = tags_of("ts-app", "src/services/userService.ts");
    assert_ref(&service, "UserRepository", RefKind::Heritage, None);
    assert_ref(&service, "logged", RefKind::Call, None); // decorator
    assert_ref(&service, "save", RefKind::Call, None); // this.repo.save(): no plain qualifier
    assert_ref(&service, "repo", RefKind::Reference, Some("this"));
    assert_ref(&service, "toSlug", RefKind::Call, None);
    // Generic arguments are type uses.
    assert_ref(&service, "Map", RefKind::Call, None);
    let line = 11;
    assert!(service
        .refs
        .iter()
        .any(|r| r.name == "User" && r.kind == RefKind::Type && r.line == line));

    let src = "class A extends ns.Base implements x.I, J<K> {}\ninterface B extends C<D>, e.F {}\nlet v: ns.T<U> = obj.m(w);\n";
    let tags = extract_tags(Lang::TypeScript, src);
    assert_ref(&tags, "Base", RefKind::Heritage, Some("ns"));
    assert_ref(&tags, "I", RefKind::Heritage, Some("x"));
    assert_ref(&tags, "J", RefKind::Heritage, None);
    assert_ref(&tags, "K", RefKind::Type, None);
    assert_ref(&tags, "C", RefKind::Heritage, None);
    assert_ref(&tags, "F", RefKind::Heritage, Some("e"));
    assert_ref(&tags, "T", RefKind::Type, Some("ns"));
    assert_ref(&tags, "m", RefKind::Call, Some("obj"));
    assert_ref(&tags, "w", RefKind::Reference, None);
    // One kind per use: `obj` in `obj.m()` is a plain reference, `m` only a call.
    assert_eq!(refs_named(&tags, "m").len(), 1);
}

#[test]
fn tsx_components_are_calls() {
    let button = tags_of("ts-app", "src/components/Button.tsx");
    assert_ref(&button, "Icon", RefKind::Call, None);
    assert!(
        refs_named(&button, "button").is_empty(),
        "intrinsic tags are not references"
    );

    let card = tags_of("ts-app", "src/components/UserCard.tsx");
    assert_ref(&card, "Button", RefKind::Call, None);
    assert_ref(&card, "Fragment", RefKind::Call, Some("React"));
    assert_ref(&card, "greet", RefKind::Call, Some("user"));
    // The closing tag repeats the opening tag: one reference, on the opening line.
    assert_eq!(refs_named(&card, "Fragment").len(), 1);
    assert!(refs_named(&card, "h2").is_empty());
}

#[test]
fn ts_imports() {
    let service = tags_of("ts-app", "src/services/userService.ts");
    let util = import(&service, "../util.js");
    assert_eq!(
        names(util),
        vec![named("logged", None), named("slugify", Some("toSlug"))]
    );
    assert!(!util.reexport && !util.wildcard && util.namespace.is_none());
    assert_eq!(
        names(import(&service, "../models")),
        vec![
            named("Role", None),
            named("User", None),
            named("UserId", None)
        ]
    );
    assert_eq!(import(&service, "../models/session.js").line, 2);
    // Imported bindings are Import references under their exported name.
    assert_ref(&service, "slugify", RefKind::Import, None);
    assert_ref(&service, "Session", RefKind::Import, None);

    let barrel = tags_of("ts-app", "src/models/index.ts");
    let star = import(&barrel, "./user");
    assert!(star.wildcard && star.reexport && star.names.is_empty());
    let session = import(&barrel, "./session");
    assert!(session.reexport && !session.wildcard);
    assert_eq!(
        names(session),
        vec![
            named("Session", None),
            named("BaseSession", Some("AbstractSession"))
        ]
    );

    let index = tags_of("ts-app", "src/index.ts");
    assert_eq!(import(&index, "./util").namespace.as_deref(), Some("util"));
    assert_ref(&index, "util", RefKind::Import, None);
    let side = import(&index, "./polyfills");
    assert!(side.names.is_empty() && side.namespace.is_none() && !side.wildcard);
    assert!(import(&index, "./services/userService").names.len() == 1);
    // `export { UserService }` without `from` is not an import.
    assert_eq!(index.imports.len(), 5);

    let card = tags_of("ts-app", "src/components/UserCard.tsx");
    assert_eq!(import(&card, "react").namespace.as_deref(), Some("React"));

    let src = "import Def, { a as b } from './x';\nexport * as ns from './y';\nimport fs = require('fs');\nconst lazy = await import('./lazy');\n";
    let tags = extract_tags(Lang::TypeScript, src);
    assert_eq!(
        names(import(&tags, "./x")),
        vec![named("default", Some("Def")), named("a", Some("b"))]
    );
    assert_ref(&tags, "Def", RefKind::Import, None);
    assert_ref(&tags, "a", RefKind::Import, None);
    let ns = import(&tags, "./y");
    assert!(ns.reexport && !ns.wildcard);
    assert_eq!(ns.namespace.as_deref(), Some("ns"));
    assert_eq!(import(&tags, "fs").namespace.as_deref(), Some("fs"));
    assert_eq!(import(&tags, "./lazy").namespace.as_deref(), Some("lazy"));
}

// ---------------------------------------------------------------- JavaScript

#[test]
fn js_modules_and_classes() {
    let cart = tags_of("js-app", "src/cart.mjs");
    assert_ref(&cart, "Cart", RefKind::Heritage, None);
    assert_ref(&cart, "Item", RefKind::Call, None);
    assert_ref(&cart, "total", RefKind::Call, Some("super"));
    let total = cart
        .defs
        .iter()
        .find(|d| d.name == "total" && d.parent.as_deref() == Some("DiscountCart"))
        .unwrap();
    assert_eq!(total.kind, DefKind::Method);
    assert_eq!(
        names(import(&cart, "./legacy/format.cjs")),
        vec![named("default", Some("formatPrice"))]
    );

    let format = tags_of("js-app", "src/legacy/format.cjs");
    let rates = import(&format, "./rates.cjs");
    assert_eq!(
        names(rates),
        vec![
            named("CURRENCY", None),
            named("symbolFor", Some("currencySymbol"))
        ]
    );
    assert_eq!(
        import(&format, "node:path").namespace.as_deref(),
        Some("path")
    );
    assert!(format.defs.iter().all(|d| d.name != "path"));
    assert!(refs_named(&format, "require").is_empty());
    assert_ref(&format, "currencySymbol", RefKind::Call, None);

    let index = tags_of("js-app", "src/index.mjs");
    let plugin = import(&index, "./plugins/audit.js");
    assert_eq!(names(plugin), vec![named("audit", None)]);
    assert_eq!(plugin.line, 7);
    assert_eq!(def(&index, "DEFAULT_DISCOUNT").kind, DefKind::Constant);
    assert_ref(&index, "TAX_RATE", RefKind::Reference, Some("items"));

    let view = tags_of("js-app", "src/components/CartView.jsx");
    assert_ref(&view, "Price", RefKind::Call, None);
    assert_ref(&view, "Fragment", RefKind::Call, Some("React"));
    assert!(refs_named(&view, "li").is_empty());
    assert_eq!(def(&view, "CartView").kind, DefKind::Function);
}

// ---------------------------------------------------------------- Python

#[test]
fn python_definitions() {
    let db = tags_of("py-app", "app/core/db.py");
    assert_eq!(def(&db, "DEFAULT_URL").kind, DefKind::Constant);
    assert_eq!(def(&db, "Connection").kind, DefKind::Class);
    let execute = def(&db, "execute");
    assert_eq!(execute.kind, DefKind::Method);
    assert_eq!(execute.parent.as_deref(), Some("Connection"));
    assert_eq!(execute.scope_lines, vec![9]);
    assert_eq!(def(&db, "connect").kind, DefKind::Function);

    let users = tags_of("py-app", "app/services/users.py");
    assert_eq!(def(&users, "log").kind, DefKind::Variable);
    assert_eq!(def(&users, "MAX_USERS").kind, DefKind::Constant);
    // A decorated method: the signature starts at the decorator, ends at the `:` line.
    let register = def(&users, "register");
    assert_eq!((register.signature.start, register.signature.end), (19, 20));
    // Locals are not definitions.
    assert!(users
        .defs
        .iter()
        .all(|d| d.name != "cls" && d.name != "user"));

    let util = tags_of("py-app", "app/util.py");
    let wrapper = def(&util, "wrapper");
    assert_eq!(wrapper.kind, DefKind::Function);
    assert_eq!(wrapper.parent.as_deref(), Some("timed"));

    let models = tags_of("py-app", "app/models.py");
    let user = def(&models, "User");
    assert_eq!((user.lines.start, user.signature.end), (6, 7));
    assert_eq!(def(&models, "display").scope_lines, vec![7]);

    let src = "def f(\n    a,\n    b,\n):\n    return a\n";
    let tags = extract_tags(Lang::Python, src);
    let f = def(&tags, "f");
    assert_eq!((f.signature.start, f.signature.end), (1, 4));
}

#[test]
fn python_references() {
    let models = tags_of("py-app", "app/models.py");
    assert_ref(&models, "dataclass", RefKind::Call, None); // decorator
    assert_ref(&models, "Model", RefKind::Heritage, None);
    assert_ref(&models, "User", RefKind::Heritage, None);
    assert_ref(&models, "str", RefKind::Type, None);
    assert_ref(&models, "field", RefKind::Call, None);
    assert_ref(&models, "name", RefKind::Reference, Some("self"));

    let users = tags_of("py-app", "app/services/users.py");
    assert_ref(&users, "timed", RefKind::Call, Some("u")); // @u.timed
    assert_ref(&users, "slugify", RefKind::Call, Some("util"));
    assert_ref(&users, "UserModel", RefKind::Type, None);
    assert_ref(&users, "Connection", RefKind::Type, None); // Connection | None
    assert_ref(&users, "MAX_USERS", RefKind::Reference, None);
    // Parameters, keyword argument names and assignment targets are not references.
    // `admin` is declared on line 20 and used in `Admin if admin else …` on line 21.
    let admin: Vec<u32> = refs_named(&users, "admin").iter().map(|r| r.line).collect();
    assert_eq!(admin, vec![21]);
    assert!(refs_named(&users, "cls")
        .iter()
        .all(|r| r.kind == RefKind::Call));

    let src = "class A(mod.Base, metaclass=Meta):\n    x: Optional[mod.T] = None\n";
    let tags = extract_tags(Lang::Python, src);
    assert_ref(&tags, "Base", RefKind::Heritage, Some("mod"));
    assert_ref(&tags, "T", RefKind::Type, Some("mod"));
    assert_ref(&tags, "Optional", RefKind::Type, None);
    assert!(refs_named(&tags, "metaclass").is_empty());
}

#[test]
fn python_imports() {
    let users = tags_of("py-app", "app/services/users.py");
    assert_eq!(import(&users, "app.util").namespace.as_deref(), Some("u"));
    assert_ref(&users, "u", RefKind::Import, None);
    assert_eq!(
        names(import(&users, "app.core.db")),
        vec![named("Connection", None), named("connect", None)]
    );
    assert_eq!(names(import(&users, "..")), vec![named("util", None)]);
    assert_eq!(
        names(import(&users, "..core")),
        vec![named("DEFAULT_TIMEOUT", None)]
    );
    assert_eq!(
        names(import(&users, "..models")),
        vec![named("Admin", None), named("User", Some("UserModel"))]
    );
    assert_ref(&users, "User", RefKind::Import, None);
    assert_eq!(
        import(&users, "logging").namespace.as_deref(),
        Some("logging")
    );

    let init = tags_of("py-app", "app/__init__.py");
    assert_eq!(import(&init, ".models").line, 2);

    let src =
        "import os.path\nimport a.b as c, d\nfrom x import *\nfrom . import (e,\n    f as g)\n";
    let tags = extract_tags(Lang::Python, src);
    let os = import(&tags, "os.path");
    assert_eq!(os.namespace.as_deref(), Some("os"));
    assert_eq!(import(&tags, "a.b").namespace.as_deref(), Some("c"));
    assert_eq!(import(&tags, "d").namespace.as_deref(), Some("d"));
    assert!(import(&tags, "x").wildcard);
    assert_eq!(
        names(import(&tags, ".")),
        vec![named("e", None), named("f", Some("g"))]
    );
    let specifiers: Vec<&str> = tags.imports.iter().map(|i| i.specifier.as_str()).collect();
    assert_eq!(specifiers, vec!["os.path", "a.b", "d", "x", "."]);
}

// ---------------------------------------------------------------- Go

#[test]
fn go_definitions() {
    let store = tags_of("go-app", "internal/store/store.go");
    assert_eq!(def(&store, "DefaultPath").kind, DefKind::Constant);
    assert_eq!(def(&store, "ErrNotFound").kind, DefKind::Variable);
    assert_eq!(def(&store, "Item").kind, DefKind::Struct);
    assert_eq!(def(&store, "Reader").kind, DefKind::Interface);
    assert_eq!(def(&store, "Open").kind, DefKind::Function);
    let put = def(&store, "Put");
    assert_eq!(put.kind, DefKind::Method);
    assert_eq!(put.parent.as_deref(), Some("Store"));
    assert!(put.scope_lines.is_empty());

    let handler = tags_of("go-app", "internal/handler/handler.go");
    assert_eq!(def(&handler, "Lookup").kind, DefKind::TypeAlias);
    assert_eq!(def(&handler, "First").kind, DefKind::Function);
    assert!(
        handler.defs.iter().all(|d| d.name != "zero"),
        "locals are not definitions"
    );

    let src = "package p\n\nconst (\n\tA, B = 1, 2\n)\n\nvar x, y int\n\ntype (\n\tID = string\n\tList[T any] []T\n)\n\nfunc (l *List[T]) Len() int { return len(l) }\nfunc (v Value) String() string { return \"\" }\n";
    let tags = extract_tags(Lang::Go, src);
    for (name, kind) in [
        ("A", DefKind::Constant),
        ("B", DefKind::Constant),
        ("x", DefKind::Variable),
        ("y", DefKind::Variable),
        ("ID", DefKind::TypeAlias),
        ("List", DefKind::TypeAlias),
    ] {
        let d = def(&tags, name);
        assert_eq!(d.kind, kind, "{name}");
        assert_eq!(d.parent, None, "{name}");
    }
    assert_eq!(def(&tags, "Len").parent.as_deref(), Some("List"));
    assert_eq!(def(&tags, "String").parent.as_deref(), Some("Value"));
}

#[test]
fn go_references() {
    let main = tags_of("go-app", "cmd/server/main.go");
    assert_ref(&main, "Open", RefKind::Call, Some("store"));
    assert_ref(&main, "DefaultPath", RefKind::Reference, Some("store"));
    assert_ref(&main, "Item", RefKind::Call, Some("store")); // composite literal store.Item{}
    assert_ref(&main, "Server", RefKind::Call, Some("h"));
    assert_ref(&main, "Fatal", RefKind::Call, Some("log"));

    let cache = tags_of("go-app", "internal/store/cache.go");
    assert_ref(&cache, "Store", RefKind::Heritage, None); // embedded *Store
    assert_ref(&cache, "Cache", RefKind::Call, None); // &Cache{…}
    assert_ref(&cache, "Get", RefKind::Call, None); // c.Store.Get(): no plain qualifier
                                                    // Keys of a keyed literal are field names, not references.
    assert!(!has_ref(&cache, "Store", RefKind::Reference, None));

    let handler = tags_of("go-app", "internal/handler/handler.go");
    assert_ref(&handler, "Reader", RefKind::Type, Some("store"));
    assert_ref(&handler, "ResponseWriter", RefKind::Type, Some("http"));
    assert_ref(&handler, "ErrNotFound", RefKind::Reference, Some("store"));
    assert_ref(&handler, "TrimPrefix", RefKind::Call, Some("strings"));

    let src = "package p\n\ntype R interface {\n\tio.Reader\n\tCloser\n}\n\ntype S struct {\n\tBase\n\tpkg.Mixin\n\tname string\n}\n";
    let tags = extract_tags(Lang::Go, src);
    assert_ref(&tags, "Reader", RefKind::Heritage, Some("io"));
    assert_ref(&tags, "Closer", RefKind::Heritage, None);
    assert_ref(&tags, "Base", RefKind::Heritage, None);
    assert_ref(&tags, "Mixin", RefKind::Heritage, Some("pkg"));
    assert_ref(&tags, "string", RefKind::Type, None);
}

#[test]
fn go_imports() {
    let main = tags_of("go-app", "cmd/server/main.go");
    let handler = import(&main, "example.com/goapp/internal/handler");
    assert_eq!(handler.namespace.as_deref(), Some("h"));
    let store = import(&main, "example.com/goapp/internal/store");
    assert_eq!(store.namespace, None);
    assert!(!store.wildcard && store.names.is_empty());
    assert_ref(&main, "store", RefKind::Import, None);
    assert_ref(&main, "h", RefKind::Import, None);
    assert_ref(&main, "http", RefKind::Import, None);

    let src = "package p\n\nimport (\n\t. \"strings\"\n\t_ \"embed\"\n\tyaml \"gopkg.in/yaml.v3\"\n\t`os`\n)\n";
    let tags = extract_tags(Lang::Go, src);
    assert!(import(&tags, "strings").wildcard);
    let embed = import(&tags, "embed");
    assert!(embed.namespace.is_none() && !embed.wildcard);
    assert_eq!(
        import(&tags, "gopkg.in/yaml.v3").namespace.as_deref(),
        Some("yaml")
    );
    assert_eq!(import(&tags, "os").line, 7);
    assert!(refs_named(&tags, "embed").is_empty() && refs_named(&tags, "_").is_empty());
}

// ---------------------------------------------------------------- C / C++

/// The definition lines of `render`: `def <kind> <name> <lines> sig <lines> [parent=P] …`.
fn def_lines(tags: &FileTags) -> Vec<String> {
    render(tags)
        .lines()
        .filter(|l| l.starts_with("def "))
        .map(str::to_owned)
        .collect()
}

/// Variables and fields are no definitions in C++; functions returning pointers or references
/// are, and `Type::name` out of line is a method of `Type`. Pins the forms accepted: at most one
/// pointer or reference around the function declarator, a name qualified once.
#[test]
fn cpp_function_declarators() {
    let src = "\
int x;
static const char *p = \"\";
int a = 1, *b = &a;
int (*fp)(int);
struct Counter {
    int count;
    int *slots[4];
    int (*callback)(int);
    int size() const;
    int &at(int i);
    const char *label() const;
    Counter &operator=(const Counter &);
    ~Counter();
    static Counter *make() { return nullptr; }
    int inline_plain() { return 0; }
};
int plain(int);
int *make_ptr(void);
int &make_ref();
int &&make_rref();
int **make_ptr_ptr();
int f1(), *f2(), g = 0;
int Counter::size() const { return count; }
int &Counter::at(int i) { return slots[0][i]; }
const char *Counter::label() const { return \"\"; }
Counter::~Counter() {}
Counter &Counter::operator=(const Counter &) { return *this; }
int *free_ptr() { return nullptr; }
int &free_ref() { static int v; return v; }
int **free_ptr_ptr() { return nullptr; }
namespace ns { struct Inner { void run(); }; }
void ns::Inner::run() {}
template <typename T>
T *tmpl_ptr() { return nullptr; }
template <typename T>
T tmpl_plain() { return T(); }
template <typename T>
T &tmpl_ref();
template <typename T>
struct Box { T *get(); };
template <typename T>
T *Box<T>::get() { return nullptr; }
template <typename K>
struct Outer { struct It { bool ok() const; }; };
template <typename K>
bool Outer<K>::It::ok() const { return true; }
";
    let tags = extract_tags(Lang::Cpp, src);
    assert_eq!(tags.parse_errors, 0, "{}", render(&tags));
    let expected = [
        "def struct Counter 5-16 sig 5-5",
        // Data members are fields (look-up only), a function pointer's too.
        "def field count 6-6 sig 6-6 parent=Counter qualified=Counter::count scope=[5]",
        "def field slots 7-7 sig 7-7 parent=Counter qualified=Counter::slots scope=[5]",
        "def field callback 8-8 sig 8-8 parent=Counter qualified=Counter::callback scope=[5]",
        "def method size 9-9 sig 9-9 parent=Counter qualified=Counter::size scope=[5] declaration",
        "def method at 10-10 sig 10-10 parent=Counter qualified=Counter::at scope=[5] declaration",
        "def method label 11-11 sig 11-11 parent=Counter qualified=Counter::label scope=[5] declaration",
        "def method make 14-14 sig 14-14 parent=Counter qualified=Counter::make scope=[5]",
        "def method inline_plain 15-15 sig 15-15 parent=Counter qualified=Counter::inline_plain scope=[5]",
        "def function plain 17-17 sig 17-17 declaration",
        "def function make_ptr 18-18 sig 18-18 declaration",
        "def function make_ref 19-19 sig 19-19 declaration",
        "def function make_rref 20-20 sig 20-20 declaration",
        "def function f1 22-22 sig 22-22 declaration",
        "def function f2 22-22 sig 22-22 declaration",
        "def method size 23-23 sig 23-23 parent=Counter qualified=Counter::size",
        "def method at 24-24 sig 24-24 parent=Counter qualified=Counter::at",
        "def method label 25-25 sig 25-25 parent=Counter qualified=Counter::label",
        "def function free_ptr 28-28 sig 28-28",
        "def function free_ref 29-29 sig 29-29",
        "def struct Inner 31-31 sig 31-31 qualified=ns::Inner scope=[31]",
        "def method run 31-31 sig 31-31 parent=Inner qualified=ns::Inner::run scope=[31] declaration",
        // Qualified through a namespace or a nested type: a member of the innermost scope.
        "def method run 32-32 sig 32-32 parent=Inner qualified=ns::Inner::run",
        // Only a plain declarator takes the `template` line into the signature.
        "def function tmpl_ptr 34-34 sig 34-34",
        "def function tmpl_plain 35-36 sig 35-36",
        "def function tmpl_ref 38-38 sig 38-38 declaration",
        "def struct Box 39-40 sig 39-40",
        "def method get 40-40 sig 40-40 parent=Box qualified=Box::get scope=[40] declaration",
        "def method get 42-42 sig 42-42 parent=Box qualified=Box::get",
        "def struct Outer 43-44 sig 43-44",
        "def struct It 44-44 sig 44-44 parent=Outer qualified=Outer::It scope=[44]",
        "def method ok 44-44 sig 44-44 parent=It qualified=Outer::It::ok scope=[44] declaration",
        "def method ok 46-46 sig 46-46 parent=It qualified=Outer::It::ok",
    ];
    assert_eq!(def_lines(&tags), expected);
}

/// The same in C, where a prototype may return a pointer to a pointer (a function definition
/// only a pointer) and an initialised top-level variable is a definition.
#[test]
fn c_function_declarators() {
    let src = "\
int x;
static const char *p = \"\";
int n = 0;
int (*fp)(int);
struct counter {
    int count;
    int (*callback)(int);
};
int plain(int);
int *make_ptr(void);
int **make_ptr_ptr(void);
int ***make_ptr3(void);
int f1(void), *f2(void), g = 0;
int *free_ptr(void) { return 0; }
int **free_ptr_ptr(void) { return 0; }
static int count_left(void) { return 1; }
";
    let tags = extract_tags(Lang::C, src);
    assert_eq!(tags.parse_errors, 0, "{}", render(&tags));
    let expected = [
        "def variable n 3-3 sig 3-3",
        "def struct counter 5-8 sig 5-5",
        "def field count 6-6 sig 6-6 parent=counter qualified=counter::count scope=[5]",
        "def field callback 7-7 sig 7-7 parent=counter qualified=counter::callback scope=[5]",
        "def function plain 9-9 sig 9-9 declaration",
        "def function make_ptr 10-10 sig 10-10 declaration",
        "def function make_ptr_ptr 11-11 sig 11-11 declaration",
        "def function f1 13-13 sig 13-13 declaration",
        "def function f2 13-13 sig 13-13 declaration",
        "def variable g 13-13 sig 13-13",
        "def function free_ptr 14-14 sig 14-14",
        "def function count_left 16-16 sig 16-16",
    ];
    assert_eq!(def_lines(&tags), expected);
}

// ---------------------------------------------------------------- hostile input

#[test]
fn syntax_errors_still_give_tags() {
    let src = "export class Broken {\n  method( {\n    return 1;\n  }\n}\n\nexport function fine(a: number): number {\n  return a + helper(;\n}\n";
    let tags = extract_tags(Lang::TypeScript, src);
    assert!(tags.parse_errors > 0);
    assert!(
        tags.defs.iter().any(|d| d.name == "fine"),
        "{}",
        render(&tags)
    );
    assert!(tags.defs.iter().any(|d| d.name == "Broken"));

    let src = "def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass C(Base):\n    pass\n";
    let tags = extract_tags(Lang::Python, src);
    assert!(tags.parse_errors > 0);
    assert!(tags.defs.iter().any(|d| d.name == "ok"));
    assert_ref(&tags, "Base", RefKind::Heritage, None);

    let src = "package p\n\nfunc A() {\n\tif {\n}\n\nfunc B() int { return 1 }\n";
    let tags = extract_tags(Lang::Go, src);
    assert!(tags.parse_errors > 0);
}

#[track_caller]
fn assert_survives(lang: Lang, input: &str) {
    // The budget is the thread's CPU time (what the input costs, however loaded the test
    // machine is): one second for a file of few lines, plus slack for the clock's granularity.
    let start = thread_cpu_time();
    let tags = extract_tags(lang, input);
    let elapsed = thread_cpu_time().saturating_sub(start);
    assert!(
        elapsed < Duration::from_secs(2),
        "{lang:?} took {elapsed:?} on {} bytes",
        input.len()
    );
    assert!(tags.refs.iter().all(|r| !r.name.is_empty()));
    assert!(tags.defs.iter().all(|d| !d.name.is_empty()));
}

#[test]
fn hostile_input_does_not_panic_or_hang() {
    let nul = "a\0b\0\0function f() {}\0def g(): pass\0";
    let mut garbage = String::new();
    let mut x: u32 = 12345;
    for _ in 0..50_000 {
        // xorshift: deterministic noise over printable and control characters.
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        garbage.push(char::from_u32(x % 0x250).unwrap_or('?'));
    }
    let nested = "(".repeat(20_000);
    for lang in Lang::ALL {
        for input in [nul, &garbage, &nested, "\u{feff}", "\r\n\r\n", "\u{0}"] {
            assert_survives(lang, input);
        }
    }
    let tags = extract_tags(Lang::JavaScript, nul);
    assert!(tags.defs.iter().any(|d| d.name == "f"));
}

#[test]
fn five_megabyte_line_does_not_hang() {
    let long_line = format!("x = [{}];", "a1, ".repeat(1_250_000));
    assert!(long_line.len() > 5_000_000 && !long_line.contains('\n'));
    assert_survives(Lang::JavaScript, &long_line);
    assert_survives(Lang::Python, &long_line);
}

/// Not a benchmark: reports how long a large file takes in a debug build.
#[test]
fn large_file_timing() {
    let mut report = Vec::new();
    for (repo, files) in [
        (
            "ts-app",
            &[
                "src/models/user.ts",
                "src/services/userService.ts",
                "src/util.ts",
            ][..],
        ),
        ("py-app", &["app/core/db.py", "app/services/users.py"][..]),
    ] {
        let one: String = files
            .iter()
            .map(|f| std::fs::read_to_string(common::fixture(repo).join(f)).unwrap())
            .collect();
        let big = one.repeat(200);
        let lang = Lang::from_path(files[0]).unwrap();
        let _ = extract_tags(lang, "x"); // compile the query outside the measurement
        let start = Instant::now();
        let tags = extract_tags(lang, &big);
        let elapsed = start.elapsed();
        assert_eq!(tags.parse_errors, 0);
        assert_eq!(
            tags.defs.len(),
            extract_tags(lang, &one).defs.len() * 200,
            "the whole file was processed"
        );
        report.push(format!(
            "{}: {} KB, {} lines, {} defs, {} refs in {:?}",
            lang.name(),
            big.len() / 1024,
            big.lines().count(),
            tags.defs.len(),
            tags.refs.len(),
            elapsed
        ));
    }
    eprintln!("{}", report.join("\n"));
}

#[test]
fn uses_of_names_the_file_binds_itself_are_not_references() {
    let src = r"import express from 'express';
import { render } from './render.js';
const { load: loadPage } = require('./pages.cjs');

export function createServer(port, [first, ...rest]) {
  const app = express();
  app.use(render);
  const handler = (req) => loadPage(req.url, first, rest);
  const { vite, options: opts } = makeVite();
  vite.start(opts);
  app.get('*', handler);
  try { app.listen(port); } catch (err) { console.error(err); }
  return app;
}

function shadow(render) {
  return render();
}
";
    let tags = extract_tags(Lang::JavaScript, src);
    for local in [
        "app", "handler", "req", "port", "first", "rest", "err", "vite", "opts",
    ] {
        assert!(
            refs_named(&tags, local).is_empty(),
            "{local}:\n{}",
            render(&tags)
        );
    }
    // A member of a local is still a use of that member's name.
    assert_ref(&tags, "use", RefKind::Call, Some("app"));
    // Imported names keep their uses, even where a parameter shadows one, and a pattern
    // binding of `require` is an import.
    assert_ref(&tags, "express", RefKind::Call, None);
    assert_ref(&tags, "render", RefKind::Reference, None);
    assert_ref(&tags, "loadPage", RefKind::Call, None);
    // A global the file does not bind is a reference as before.
    assert_ref(&tags, "console", RefKind::Reference, None);
}

// ---------------------------------------------------------------- languages with data rules

#[test]
fn php_braced_namespace_keeps_its_references() {
    let src = "<?php\nnamespace App\\Store {\n    class A { function f() { return helper(new B()); } }\n}\n";
    let tags = extract_tags(Lang::Php, src);
    assert_ref(&tags, "helper", RefKind::Call, None);
    assert_ref(&tags, "B", RefKind::Call, None);
    assert_eq!(import(&tags, "App\\Store").line, 2);
}

/// C# conditional compilation whose branches hold two halves of one construct (two headers
/// sharing a body, as in Newtonsoft.Json's tests): only the first branch is parsed, so the
/// namespace, its imports and the definitions survive; no segment of the namespace's dotted
/// name is a reference (Newtonsoft.Json: `Json` bound 686 test files to a test's `const Json`).
#[test]
fn csharp_first_branch_of_conditional_compilation() {
    let src = "\
using System;
#if NET20
using A.Legacy;
#else
using System.Linq;

#endif

namespace Acme.Json.Tests.Unit
{
    public class Fixture
    {
#if DNXCORE50
        protected Fixture()
#else
        [SetUp]
        protected void Setup()
#endif
        {
            Helper.Run();
        }

        public void Check() { Store.Put(); }
    }
}
";
    let tags = extract_tags(Lang::CSharp, src);
    assert_eq!(tags.parse_errors, 0, "{:?}", tags.refs);
    // The namespace is read (as the import of the file's own namespace) and its path is no
    // reference; the first `#if` branch's `using` is read, the `#else` one is not.
    assert_eq!(import(&tags, "Acme.Json.Tests.Unit").line, 9);
    assert_eq!(import(&tags, "A.Legacy").line, 3);
    assert!(tags.imports.iter().all(|i| i.specifier != "System.Linq"));
    // However many segments the namespace has (the leading ones sit deepest in the tree).
    for segment in ["Acme", "Json", "Tests", "Unit", "NET20", "DNXCORE50"] {
        assert!(refs_named(&tags, segment).is_empty(), "{segment}");
    }
    assert_eq!(def(&tags, "Fixture").kind, DefKind::Class);
    assert_eq!(def(&tags, "Check").lines, LineRange::new(23, 23));
    assert!(tags.defs.iter().all(|d| d.name != "Setup"));
    assert_ref(&tags, "Run", RefKind::Call, Some("Helper"));
    assert_ref(&tags, "Put", RefKind::Call, Some("Store"));

    // A namespace named like a type does not hide the file's uses of the type.
    let src = "namespace Store\n{\n    class A { void F() { var s = new Store(); } }\n}\n";
    let tags = extract_tags(Lang::CSharp, src);
    assert_ref(&tags, "Store", RefKind::Call, None);
    let src = "namespace Acme.Store;\nclass A { void F() { var s = new Store(); } }\n";
    let tags = extract_tags(Lang::CSharp, src);
    assert_ref(&tags, "Store", RefKind::Call, None);
    assert_eq!(import(&tags, "Acme.Store").line, 1);
}

#[test]
fn import_statements_are_not_references() {
    // The names of `use`/`import`/`using` lines are imports, never plain uses.
    let cases = [
        (Lang::Rust, "use crate::a::{b::C, d};\nfn f() {}\n", "a"),
        (Lang::Java, "package p.q;\nimport a.b.C;\nclass X {}\n", "b"),
        (Lang::CSharp, "using A.B;\nclass X {}\n", "A"),
        (Lang::Php, "<?php\nuse A\\B\\C;\n", "B"),
    ];
    for (lang, src, segment) in cases {
        let tags = extract_tags(lang, src);
        assert!(refs_named(&tags, segment).is_empty(), "{lang:?}: {segment}");
        assert!(!tags.imports.is_empty(), "{lang:?}");
    }
}

#[test]
fn methods_know_their_type_across_languages() {
    let rust = extract_tags(
        Lang::Rust,
        "struct S;\nimpl<T> Tr for S { fn a(&self) {} }\ntrait Tr { fn a(&self); }\n",
    );
    let a: Vec<_> = rust.defs.iter().filter(|d| d.name == "a").collect();
    assert_eq!(a.len(), 2);
    assert!(a.iter().all(|d| d.kind == DefKind::Method), "{a:?}");
    assert_eq!(a[0].parent.as_deref(), Some("S"));
    assert_eq!(a[1].parent.as_deref(), Some("Tr"));
    let cpp = extract_tags(Lang::Cpp, "int Store::get(int k) const { return k; }\n");
    let get = def(&cpp, "get");
    assert_eq!(
        (get.kind, get.parent.as_deref()),
        (DefKind::Method, Some("Store"))
    );
    let rb = extract_tags(
        Lang::Ruby,
        "def top; end\nclass K\n  def m(a)\n    a\n  end\nend\n",
    );
    assert_eq!(def(&rb, "top").kind, DefKind::Function);
    assert_eq!(def(&rb, "m").kind, DefKind::Method);
    assert_eq!(def(&rb, "m").signature, LineRange::new(3, 3));
}

#[test]
fn new_languages_survive_hostile_input() {
    let deep_rust = format!("fn f() {{ {} }}", "(".repeat(20_000));
    let long_use = format!("use {};", vec!["a"; 5_000].join("::"));
    let nested_use = format!("use a::{}b{};", "{c::".repeat(200), "}".repeat(200));
    let cases: Vec<(Lang, String)> = vec![
        (Lang::Rust, deep_rust),
        (Lang::Rust, long_use),
        (Lang::Rust, nested_use),
        (Lang::Cpp, "#include <".repeat(1000)),
        (Lang::Php, "<?php require __DIR__ . ".repeat(2000)),
        (Lang::Ruby, "require_relative \"#{x}\"\n".repeat(100)),
        (Lang::CSharp, "namespace ".repeat(3000)),
        (Lang::Java, "import static ;".repeat(3000)),
    ];
    for (lang, src) in cases {
        let start = Instant::now();
        let _ = extract_tags(lang, &src);
        assert!(start.elapsed() < Duration::from_secs(20), "{lang:?}");
    }
}
