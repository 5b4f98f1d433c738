//! Definitions the tags used to miss, each found first by a bare and a qualified look-up:
//! TypeScript interface and abstract members (declarations: found where they are the only
//! definition of their name; an overload's signatures below its implementation), Rust `mod
//! name;`, Java enum constants with
//! a body, C++ classes behind an export macro and members after a specifier macro, JavaScript
//! members assigned a function (`Type.prototype.m = function …`, `req.m = …`, `exports.f =
//! …`) and named callbacks. Small fixtures parsed by the real tag extractor and searched
//! without graph or history, as in `engine_search_exact`.

use crate::common;

use mapscope::engine::base::model::{DefKind, ParsedFile};
use mapscope::engine::search::{Evidence, SearchResponse};

use common::{parsed, search_parsed};

fn search(files: &[ParsedFile], q: &str) -> SearchResponse {
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

/// The definition of `name` in `file`, with its qualified name and whether it is a
/// declaration.
#[track_caller]
fn def_of(file: &ParsedFile, name: &str) -> (DefKind, Option<String>, bool) {
    let d = file
        .tags
        .defs
        .iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| panic!("no definition {name} in {}", file.path));
    (d.kind, file.tags.qualified_name(d), d.declaration)
}

const HMR_TS: &str = "export interface HMRLogger {
  error(msg: string | Error): void
  debug(...msg: unknown[]): void
  listen?: () => void
  verbose: boolean
}

export abstract class FetchEventLike {
  abstract readonly request: Request
  abstract respondWith(promise: Promise<Response>): void
  abstract passThroughOnException: () => void
}
";

const LOGGER_TS: &str = "import type { HMRLogger } from './hmr'

export class ConsoleLogger implements HMRLogger {
  error(msg: string | Error): void {
    console.error(msg)
  }
  debug(...msg: unknown[]): void {}
}

export function respondWith(r: Response): Response {
  return r
}

export function format(x: string): string
export function format(x: number): string
export function format(x: unknown): string {
  return String(x)
}
";

#[test]
fn typescript_interface_and_abstract_members_are_declarations_of_their_type() {
    let files = [
        parsed("src/shared/hmr.ts", HMR_TS),
        parsed("src/client/logger.ts", LOGGER_TS),
    ];
    let hmr = &files[0];
    assert_eq!(
        def_of(hmr, "error"),
        (DefKind::Method, Some("HMRLogger.error".into()), true)
    );
    assert_eq!(
        def_of(hmr, "listen"),
        (DefKind::Method, Some("HMRLogger.listen".into()), true)
    );
    assert_eq!(
        def_of(hmr, "passThroughOnException"),
        (
            DefKind::Method,
            Some("FetchEventLike.passThroughOnException".into()),
            true
        )
    );
    // Data members are fields, for look-ups only.
    for name in ["verbose", "request"] {
        let d = hmr.tags.defs.iter().find(|d| d.name == name);
        assert!(
            d.is_some_and(|d| d.kind == DefKind::Field && d.lookup_only),
            "{name}: {d:?}"
        );
    }
    // The concrete method has a body.
    assert!(!def_of(&files[1], "error").2);

    // Qualified: the interface's member, not the implementation nor the interface.
    top_is(
        &search(&files, "HMRLogger.error"),
        "src/shared/hmr.ts",
        2,
        "error",
    );
    top_is(
        &search(&files, "ConsoleLogger.error"),
        "src/client/logger.ts",
        4,
        "error",
    );
    top_is(
        &search(&files, "FetchEventLike.respondWith"),
        "src/shared/hmr.ts",
        10,
        "respondWith",
    );
    // Bare: a member is found where it is the only definition of its name; an overload's
    // signatures go below the implementation of the same qualified name.
    top_is(&search(&files, "listen"), "src/shared/hmr.ts", 4, "listen");
    let logger = &files[1];
    let overloads: Vec<bool> = logger
        .tags
        .defs
        .iter()
        .filter(|d| d.name == "format")
        .map(|d| d.declaration)
        .collect();
    assert_eq!(overloads, [true, true, false]);
    top_is(
        &search(&files, "format"),
        "src/client/logger.ts",
        16,
        "format",
    );
    top_is(
        &search(&files, "where is passThroughOnException defined"),
        "src/shared/hmr.ts",
        11,
        "passThroughOnException",
    );
}

#[test]
fn rust_mod_declarations_are_modules() {
    let files = [
        parsed(
            "axum-extra/src/response/mod.rs",
            "mod attachment;\npub mod content_disposition;\n\npub use self::attachment::Attachment;\n",
        ),
        parsed(
            "axum-extra/src/response/content.rs",
            "pub struct Content;\n\npub struct ContentDisposition;\n\npub fn content_disposition_header() {}\n",
        ),
    ];
    assert_eq!(
        def_of(&files[0], "content_disposition"),
        (DefKind::Module, None, false)
    );
    // Still an import of the module's file.
    assert!(files[0]
        .tags
        .imports
        .iter()
        .any(|i| i.specifier == "self::content_disposition"));
    top_is(
        &search(&files, "content_disposition"),
        "axum-extra/src/response/mod.rs",
        2,
        "content_disposition",
    );
    top_is(
        &search(&files, "response::attachment"),
        "axum-extra/src/response/mod.rs",
        1,
        "attachment",
    );
}

const POLICY_JAVA: &str = "package com.google.gson;

public enum FieldNamingPolicy implements FieldNamingStrategy {
  IDENTITY() {
    @Override
    public String translateName(Field f) {
      return f.getName();
    }
  },

  UPPER_CAMEL_CASE() {
    @Override
    public String translateName(Field f) {
      return upperCaseFirstLetter(f.getName());
    }
  };

  static String upperCaseFirstLetter(String s) {
    return s;
  }
}
";

const POLICY_TEST_JAVA: &str = "package com.google.gson;

public class FieldNamingPolicyTest {
  public void testUpperCamelCase() {
    FieldNamingPolicy p = FieldNamingPolicy.UPPER_CAMEL_CASE;
  }
}
";

#[test]
fn java_enum_constants_with_a_body_hold_their_methods() {
    let files = [
        parsed(
            "gson/src/main/java/com/google/gson/FieldNamingPolicy.java",
            POLICY_JAVA,
        ),
        parsed(
            "gson/src/test/java/com/google/gson/FieldNamingPolicyTest.java",
            POLICY_TEST_JAVA,
        ),
    ];
    let policy = &files[0];
    assert_eq!(
        def_of(policy, "UPPER_CAMEL_CASE"),
        (
            DefKind::Constant,
            Some("com.google.gson.FieldNamingPolicy.UPPER_CAMEL_CASE".into()),
            false
        )
    );
    let methods: Vec<String> = policy
        .tags
        .defs
        .iter()
        .filter(|d| d.name == "translateName")
        .filter_map(|d| policy.tags.qualified_name(d))
        .collect();
    assert_eq!(
        methods,
        [
            "com.google.gson.FieldNamingPolicy.IDENTITY.translateName",
            "com.google.gson.FieldNamingPolicy.UPPER_CAMEL_CASE.translateName"
        ]
    );
    let path = "gson/src/main/java/com/google/gson/FieldNamingPolicy.java";
    top_is(
        &search(&files, "UPPER_CAMEL_CASE"),
        path,
        11,
        "UPPER_CAMEL_CASE",
    );
    top_is(
        &search(&files, "FieldNamingPolicy.UPPER_CAMEL_CASE"),
        path,
        11,
        "UPPER_CAMEL_CASE",
    );
    top_is(
        &search(&files, "UPPER_CAMEL_CASE.translateName"),
        path,
        12,
        "translateName",
    );
}

const ENV_H: &str = "namespace leveldb {

class LEVELDB_EXPORT Env {
 public:
  Env();
  virtual ~Env();
};

class LEVELDB_EXPORT EnvWrapper : public Env {
 public:
  // Initialize an EnvWrapper that delegates all calls to *t.
  explicit EnvWrapper(Env* t) : target_(t) {}
  Env* target() const { return target_; }

 private:
  Env* target_;
};

LEVELDB_EXPORT Status DestroyDB(const std::string& name);

}  // namespace leveldb
";

const BASE_H: &str = "FMT_BEGIN_NAMESPACE
namespace detail {

template <typename T> class buffer {
 private:
  T* ptr_;

 protected:
  FMT_CONSTEXPR buffer(size_t sz) noexcept : size_(sz), capacity_(sz) {}
  FMT_CONSTEXPR20 ~buffer() = default;

 public:
  using value_type = T;
  using const_reference = const T&;

  FMT_CONSTEXPR auto size() const noexcept -> size_t { return size_; }
};

}  // namespace detail

class FMT_API file {
 public:
  inline auto descriptor() const noexcept -> int { return fd_; }
};
FMT_END_NAMESPACE
";

#[test]
fn cpp_classes_and_members_behind_macros_keep_their_class() {
    let files = [
        parsed("include/leveldb/env.h", ENV_H),
        parsed("include/fmt/base.h", BASE_H),
        parsed(
            "util/env_posix.cc",
            "namespace leveldb {\nclass PosixEnv : public Env {\n public:\n  PosixEnv();\n};\n}\n",
        ),
    ];
    let (env, base) = (&files[0], &files[1]);
    assert_eq!(
        def_of(env, "EnvWrapper").1.as_deref(),
        Some("leveldb::EnvWrapper")
    );
    let ctor = env
        .tags
        .defs
        .iter()
        .find(|d| d.name == "EnvWrapper" && d.kind == DefKind::Method)
        .expect("the constructor");
    assert_eq!(
        env.tags.qualified_name(ctor).as_deref(),
        Some("leveldb::EnvWrapper::EnvWrapper")
    );
    assert_eq!(
        def_of(env, "DestroyDB").1.as_deref(),
        Some("leveldb::DestroyDB")
    );
    assert_eq!(
        def_of(base, "const_reference").1.as_deref(),
        Some("detail::buffer::const_reference")
    );
    assert_eq!(
        def_of(base, "size").1.as_deref(),
        Some("detail::buffer::size")
    );
    assert_eq!(
        def_of(base, "descriptor").1.as_deref(),
        Some("file::descriptor")
    );

    top_is(
        &search(&files, "EnvWrapper"),
        "include/leveldb/env.h",
        9,
        "EnvWrapper",
    );
    top_is(
        &search(&files, "leveldb::EnvWrapper"),
        "include/leveldb/env.h",
        9,
        "EnvWrapper",
    );
    top_is(
        &search(&files, "EnvWrapper::EnvWrapper"),
        "include/leveldb/env.h",
        12,
        "EnvWrapper",
    );
    top_is(
        &search(&files, "buffer::const_reference"),
        "include/fmt/base.h",
        14,
        "const_reference",
    );
    top_is(
        &search(&files, "const_reference"),
        "include/fmt/base.h",
        14,
        "const_reference",
    );
    top_is(
        &search(&files, "file::descriptor"),
        "include/fmt/base.h",
        23,
        "descriptor",
    );
}

const REPLY_JS: &str = "'use strict'

function Reply (res, request) {
  this.raw = res
}

Reply.prototype.serializeInput = function (data, schema) {
  boot(function manageTimeout (err) {
    return err
  })
  return data
}

Reply.prototype.headers = function (headers) {
  return this
}

module.exports = Reply
";

const REQUEST_JS: &str = "var req = Object.create(http.IncomingMessage.prototype)

module.exports = req

req.get = req.header = function header (name) {
  return name
}

req.accepts = function () {
  return accepts(this)
}

defineGetter(req, 'protocol', function protocol () {
  return 'http'
})
";

const UTILS_JS: &str = "exports.compileETag = function (val) {
  return val
}

module.exports.normalizeType = function (type) {
  return type
}
";

const APP_JS: &str = "var compileETag = require('./utils').compileETag

var app = exports = module.exports = {}

app.set = function set (setting, val) {
  this.settings[setting] = compileETag(val)
}

function helper () {
  app.patched = function () {}
}
";

#[test]
fn javascript_members_assigned_a_function_are_definitions_of_their_object() {
    let files = [
        parsed("lib/reply.js", REPLY_JS),
        parsed("lib/request.js", REQUEST_JS),
        parsed("lib/utils.js", UTILS_JS),
        parsed("lib/application.js", APP_JS),
        parsed(
            "test/req.accepts.js",
            "var accepts = require('accepts')\n\ndescribe('req.accepts', function () {})\n",
        ),
    ];
    let (reply, request, utils, app) = (&files[0], &files[1], &files[2], &files[3]);
    assert_eq!(
        def_of(reply, "serializeInput"),
        (DefKind::Method, Some("Reply.serializeInput".into()), false)
    );
    assert_eq!(
        def_of(reply, "manageTimeout"),
        (
            DefKind::Function,
            Some("Reply.serializeInput.manageTimeout".into()),
            false
        )
    );
    assert_eq!(def_of(request, "get").1.as_deref(), Some("req.get"));
    assert_eq!(def_of(request, "header").1.as_deref(), Some("req.header"));
    assert_eq!(
        def_of(request, "protocol"),
        (DefKind::Function, None, false)
    );
    assert_eq!(
        def_of(utils, "compileETag"),
        (DefKind::Function, None, false)
    );
    assert_eq!(
        def_of(utils, "normalizeType"),
        (DefKind::Function, None, false)
    );
    assert_eq!(def_of(app, "set").1.as_deref(), Some("app.set"));
    // Patching an object inside a function defines nothing.
    assert!(!app.tags.defs.iter().any(|d| d.name == "patched"));

    top_is(
        &search(&files, "serializeInput"),
        "lib/reply.js",
        7,
        "serializeInput",
    );
    top_is(
        &search(&files, "Reply.headers"),
        "lib/reply.js",
        14,
        "headers",
    );
    top_is(&search(&files, "accepts"), "lib/request.js", 9, "accepts");
    top_is(
        &search(&files, "req.accepts"),
        "lib/request.js",
        9,
        "accepts",
    );
    top_is(&search(&files, "req.header"), "lib/request.js", 5, "header");
    // The definition, not the binding that imports it.
    top_is(
        &search(&files, "compileETag"),
        "lib/utils.js",
        1,
        "compileETag",
    );
    top_is(
        &search(&files, "protocol"),
        "lib/request.js",
        13,
        "protocol",
    );
    top_is(
        &search(&files, "where is manageTimeout defined"),
        "lib/reply.js",
        8,
        "manageTimeout",
    );
}
