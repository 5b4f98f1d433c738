//! References bind through scope (issue 43, item 4), per language, on small sources parsed
//! for real: a repository definition named like one of the language's own names is not
//! what a use elsewhere means unless it is visible there; a method call on a receiver of
//! unknown type reaches only the files in view, its weight shared when several are; and
//! `map --explain` says how a "used by" count was reached.

use crate::common;

use mapscope::engine::base::model::{DefKind, ParsedFile};
use mapscope::engine::index::explain::{explain_file, render_text};
use mapscope::engine::index::refs::{Direction, RefTarget, RefsAnswer, RefsRequest};
use mapscope::engine::index::{Index, IndexOptions, MapRequest};
use mapscope::engine::link::graph::{build_graph, explain_bindings, BoundBy};
use mapscope::engine::search::SearchOptions;

fn parse(files: &[(&str, &str)]) -> Vec<ParsedFile> {
    files.iter().map(|(p, s)| common::parsed(p, s)).collect()
}

/// An index of `sources` written to a new folder (kept alive by the returned guard).
fn indexed(sources: &[(&str, &str)]) -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().expect("tempdir");
    common::write_files(dir.path(), sources);
    let index = Index::build(dir.path(), &IndexOptions::default()).expect("fixture builds");
    (dir, index)
}

/// A shadowed built-in: `lib/…` defines a name the language provides; `app/use` names it
/// without anything making the repository's visible (no edge), `seen` names it where
/// the language's scope does (an edge). `control` (from, to, name) is a plain name used as
/// the built-in is, which a guess does reach: the rule is about the language's names.
struct Shadowed {
    lang: &'static str,
    files: &'static [(&'static str, &'static str)],
    definer: &'static str,
    builtin: &'static str,
    user: &'static str,
    seen: Option<&'static str>,
    control: Option<(&'static str, &'static str, &'static str)>,
}

#[test]
fn a_shadowed_built_in_binds_only_where_the_repository_s_is_visible() {
    let cases = [
        Shadowed {
            lang: "ruby",
            files: &[
                (
                    "lib/app/renderer/file.rb",
                    "module App\n  class Renderer\n    class File\n      def self.join(*parts)\n        parts\n      end\n    end\n  end\nend\n",
                ),
                (
                    "lib/app/site.rb",
                    "module App\n  class Site\n    def paths\n      File.join('a', 'b')\n      File.read('c')\n    end\n  end\nend\n",
                ),
                (
                    "lib/app/renderer.rb",
                    "module App\n  class Renderer\n    def render\n      File.new('x')\n    end\n  end\nend\n",
                ),
                (
                    "lib/app/helpers.rb",
                    "module Helpers\n  def self.slugify_title(x)\n    x\n  end\nend\n",
                ),
                (
                    "lib/app/page.rb",
                    "class Page\n  def title\n    slugify_title('t')\n  end\nend\n",
                ),
            ],
            definer: "lib/app/renderer/file.rb",
            builtin: "File",
            user: "lib/app/site.rb",
            seen: Some("lib/app/renderer.rb"),
            control: Some(("lib/app/page.rb", "lib/app/helpers.rb", "slugify_title")),
        },
        Shadowed {
            lang: "python",
            files: &[
                ("lib/shim.py", "def open(path):\n    return path\n\ndef read_config_file(p):\n    return p\n"),
                ("app/use.py", "def main():\n    open('x')\n    read_config_file('y')\n"),
                ("app/seen.py", "from lib.shim import open\n\ndef main():\n    open('x')\n"),
            ],
            definer: "lib/shim.py",
            builtin: "open",
            user: "app/use.py",
            seen: Some("app/seen.py"),
            control: Some(("app/use.py", "lib/shim.py", "read_config_file")),
        },
        Shadowed {
            lang: "java",
            files: &[
                (
                    "src/acme/util/Optional.java",
                    "package acme.util;\n\npublic class Optional {\n  public static Optional empty() { return null; }\n}\n",
                ),
                (
                    "src/acme/app/Use.java",
                    "package acme.app;\n\npublic class Use {\n  Object run() { return Optional.empty(); }\n}\n",
                ),
                (
                    "src/acme/util/Seen.java",
                    "package acme.util;\n\npublic class Seen {\n  Object run() { return Optional.empty(); }\n}\n",
                ),
            ],
            definer: "src/acme/util/Optional.java",
            builtin: "empty",
            user: "src/acme/app/Use.java",
            seen: Some("src/acme/util/Seen.java"),
            control: None,
        },
        Shadowed {
            lang: "javascript",
            files: &[
                (
                    "src/json.js",
                    "var JSON = { parse: function (s) { return s } }\nfunction parseConfigText(s) { return s }\n",
                ),
                (
                    "src/use.js",
                    "function load(s) { return JSON.parse(s) + parseConfigText(s) }\n",
                ),
            ],
            definer: "src/json.js",
            builtin: "parse",
            user: "src/use.js",
            seen: None,
            control: Some(("src/use.js", "src/json.js", "parseConfigText")),
        },
        Shadowed {
            lang: "c",
            files: &[
                (
                    "lib/compat.c",
                    "int printf(const char *f) { return 0; }\nint compat_flush_all(void) { return 0; }\n",
                ),
                (
                    "src/main.c",
                    "int main(void) { printf(\"x\"); compat_flush_all(); return 0; }\n",
                ),
                (
                    "src/seen.c",
                    "#include \"../lib/compat.c\"\nint g(void) { return printf(\"y\"); }\n",
                ),
            ],
            definer: "lib/compat.c",
            builtin: "printf",
            user: "src/main.c",
            seen: Some("src/seen.c"),
            control: Some(("src/main.c", "lib/compat.c", "compat_flush_all")),
        },
        Shadowed {
            lang: "php",
            files: &[
                (
                    "lib/compat.php",
                    "<?php\nfunction count($x) { return 0; }\nfunction compat_count_items($x) { return 0; }\n",
                ),
                (
                    "src/use.php",
                    "<?php\nfunction f($a) { return count($a) + compat_count_items($a); }\n",
                ),
            ],
            definer: "lib/compat.php",
            builtin: "count",
            user: "src/use.php",
            seen: None,
            control: Some(("src/use.php", "lib/compat.php", "compat_count_items")),
        },
        Shadowed {
            lang: "typescript",
            files: &[
                (
                    "src/globals.d.ts",
                    "declare class Promise { then(): void }\ndeclare function parseConfigText(s: string): string\n",
                ),
                (
                    "src/use.ts",
                    "export function f(p: Promise): string { return parseConfigText('x') }\n",
                ),
            ],
            definer: "src/globals.d.ts",
            builtin: "Promise",
            user: "src/use.ts",
            seen: None,
            control: Some(("src/use.ts", "src/globals.d.ts", "parseConfigText")),
        },
        Shadowed {
            lang: "rust",
            files: &[
                (
                    "src/vec.rs",
                    "pub struct Vec;\nimpl Vec {\n    pub fn new() -> Vec { Vec }\n}\npub struct Store;\nimpl Store {\n    pub fn open_store() -> Store { Store }\n}\n",
                ),
                (
                    "src/main.rs",
                    "fn main() {\n    let v = Vec::new();\n    let s = Store::open_store();\n}\n",
                ),
            ],
            definer: "src/vec.rs",
            builtin: "new",
            user: "src/main.rs",
            seen: None,
            control: Some(("src/main.rs", "src/vec.rs", "open_store")),
        },
        Shadowed {
            lang: "c#",
            files: &[
                (
                    "src/Acme/Console.cs",
                    "namespace Acme {\n  public class Console {\n    public static void WriteLine(string s) {}\n  }\n}\n",
                ),
                (
                    "src/Other/Use.cs",
                    "namespace Other {\n  class Use {\n    void Run() { Console.WriteLine(\"x\"); }\n  }\n}\n",
                ),
                (
                    "src/Acme/Seen.cs",
                    "namespace Acme {\n  class Seen {\n    void Run() { Console.WriteLine(\"x\"); }\n  }\n}\n",
                ),
            ],
            definer: "src/Acme/Console.cs",
            builtin: "WriteLine",
            user: "src/Other/Use.cs",
            seen: Some("src/Acme/Seen.cs"),
            control: None,
        },
        Shadowed {
            lang: "go",
            files: &[
                (
                    "lib/errs/errs.go",
                    "package errs\n\ntype error interface{ Error() string }\n",
                ),
                ("app/use.go", "package app\n\nfunc F() error { return nil }\n"),
                (
                    "lib/errs/seen.go",
                    "package errs\n\nfunc G() error { return nil }\n",
                ),
            ],
            definer: "lib/errs/errs.go",
            builtin: "error",
            user: "app/use.go",
            seen: Some("lib/errs/seen.go"),
            control: None,
        },
    ];
    for case in cases {
        let files = parse(case.files);
        let g = build_graph(&files, &[], &[]);
        let lang = case.lang;
        assert_eq!(
            common::ident_weight(&files, &g, case.user, case.definer, case.builtin),
            0.0,
            "{lang}: {} binds the language's {} to the repository's",
            case.user,
            case.builtin
        );
        if let Some(seen) = case.seen {
            assert!(
                common::ident_weight(&files, &g, seen, case.definer, case.builtin) > 0.0,
                "{lang}: {seen} sees the repository's {}",
                case.builtin
            );
        }
        if let Some((from, to, name)) = case.control {
            assert!(
                common::ident_weight(&files, &g, from, to, name) > 0.0,
                "{lang}: a plain {name} is still guessed"
            );
        }
    }
}

/// A language's sources for the receiver test: its extension, a class `T` with a method
/// `save_record` (Go: `SaveRecord`), and a function calling `x.save_record()` on a receiver
/// whose type nothing in the repository says (`engine_bind_receivers` has those that do).
type Receivers = (&'static str, fn(&str) -> String, &'static str);

/// `recv.save()` in `app/use`: `app/a` (same directory, in view) and `other/b` (neither
/// imported nor in the directory) define a method `save`. Only `app/a` is reached; with a
/// second in-view definer `app/c`, the weight is shared equally between the two.
#[test]
fn a_method_on_an_unknown_receiver_reaches_only_the_files_in_view_sharing_its_weight() {
    let langs: [Receivers; 9] = [
        (
            "rb",
            |t| format!("class {t}\n  def save_record\n    1\n  end\nend\n"),
            "def run(x)\n  x.save_record\nend\n",
        ),
        (
            "py",
            |t| format!("class {t}:\n    def save_record(self):\n        return 1\n"),
            "def run(x):\n    x.save_record()\n",
        ),
        (
            "go",
            |t| {
                format!("package p\n\ntype {t} struct{{}}\n\nfunc (t *{t}) SaveRecord() int {{ return 1 }}\n")
            },
            "package p\n\nfunc Run() { x := get(); x.SaveRecord() }\n",
        ),
        (
            "java",
            |t| format!("class {t} {{\n  int save_record() {{ return 1; }}\n}}\n"),
            "class Use {\n  void run(Thing x) { x.save_record(); }\n}\n",
        ),
        (
            "cs",
            |t| format!("class {t} {{\n  int save_record() {{ return 1; }}\n}}\n"),
            "class Use {\n  void Run(Thing x) { x.save_record(); }\n}\n",
        ),
        (
            "ts",
            |t| format!("class {t} {{\n  save_record() {{ return 1 }}\n}}\n"),
            "function run(x: any) { x.save_record() }\n",
        ),
        (
            "php",
            |t| format!("<?php\nclass {t} {{\n  function save_record() {{ return 1; }}\n}}\n"),
            "<?php\nfunction run($x) { $x->save_record(); }\n",
        ),
        (
            "cpp",
            |t| format!("class {t} {{\n public:\n  int save_record() {{ return 1; }}\n}};\n"),
            "int run(T &x) { return x.save_record(); }\n",
        ),
        (
            "rs",
            |t| {
                format!("pub struct {t};\nimpl {t} {{\n    pub fn save_record(&self) -> i32 {{ 1 }}\n}}\n")
            },
            "fn run(x: &dyn Any) { x.save_record(); }\n",
        ),
    ];
    for (ext, class, call) in langs {
        let method = if ext == "go" {
            "SaveRecord"
        } else {
            "save_record"
        };
        let (user, a, b, c) = (
            format!("app/use.{ext}"),
            format!("app/a.{ext}"),
            format!("other/b.{ext}"),
            format!("app/c.{ext}"),
        );
        let (class_a, class_b, class_c) = (class("A"), class("B"), class("C"));
        let one = parse(&[
            (a.as_str(), class_a.as_str()),
            (b.as_str(), class_b.as_str()),
            (user.as_str(), call),
        ]);
        let g = build_graph(&one, &[], &[]);
        let alone = common::ident_weight(&one, &g, &user, &a, method);
        assert!(alone > 0.0, "{ext}: the method in view is reached");
        assert_eq!(
            common::ident_weight(&one, &g, &user, &b, method),
            0.0,
            "{ext}: a method out of view is not"
        );

        let two = parse(&[
            (a.as_str(), class_a.as_str()),
            (b.as_str(), class_b.as_str()),
            (c.as_str(), class_c.as_str()),
            (user.as_str(), call),
        ]);
        let g = build_graph(&two, &[], &[]);
        let (wa, wc) = (
            common::ident_weight(&two, &g, &user, &a, method),
            common::ident_weight(&two, &g, &user, &c, method),
        );
        assert!(wa > 0.0 && (wa - wc).abs() < 1e-9, "{ext}: {wa} vs {wc}");
        assert!(
            (wa + wc - alone).abs() < 1e-9,
            "{ext}: shared, not doubled: {wa} + {wc} vs {alone}"
        );
        assert_eq!(
            common::ident_weight(&two, &g, &user, &b, method),
            0.0,
            "{ext}"
        );
    }
}

/// A method every value has (`to_s`, `toString`, `equals`, Go's `Error`) is no particular
/// definition's, even in view.
#[test]
fn a_method_every_value_has_is_never_guessed() {
    let cases: [(&str, &str, &str, &str); 4] = [
        (
            "rb",
            "class A\n  def to_s\n    'a'\n  end\nend\n",
            "def f(x)\n  x.to_s\nend\n",
            "to_s",
        ),
        (
            "java",
            "class A {\n  public boolean equals(Object o) { return true; }\n}\n",
            "class U {\n  boolean f(Object x) { return x.equals(x); }\n}\n",
            "equals",
        ),
        (
            "ts",
            "class A {\n  toString() { return 'a' }\n}\n",
            "function f(x: any) { return x.toString() }\n",
            "toString",
        ),
        (
            "go",
            "package p\n\ntype E struct{}\n\nfunc (e *E) Error() string { return \"\" }\n",
            "package p\n\nfunc F(err error) string { return err.Error() }\n",
            "Error",
        ),
    ];
    for (ext, def, call, name) in cases {
        let (a, u) = (format!("app/a.{ext}"), format!("app/u.{ext}"));
        let files = parse(&[(a.as_str(), def), (u.as_str(), call)]);
        let g = build_graph(&files, &[], &[]);
        assert_eq!(
            common::ident_weight(&files, &g, &u, &a, name),
            0.0,
            "{ext}: {name}"
        );
    }
}

/// Ruby `App::File` names the repository's class: `A::B` binds to a constant `B` defined
/// in a class or module `A`, even where the bare `File` would be the language's.
#[test]
fn ruby_a_qualified_constant_binds_to_its_container_s() {
    let files = parse(&[
        (
            "lib/app/file.rb",
            "module App\n  class File\n    def self.load_all\n      1\n    end\n  end\nend\n",
        ),
        (
            "lib/other/file.rb",
            "module Other\n  class File\n  end\nend\n",
        ),
        ("bin/run.rb", "App::File.load_all\n"),
    ]);
    let g = build_graph(&files, &[], &[]);
    assert!(common::ident_weight(&files, &g, "bin/run.rb", "lib/app/file.rb", "File") > 0.0);
    assert_eq!(
        common::ident_weight(&files, &g, "bin/run.rb", "lib/other/file.rb", "File"),
        0.0
    );
}

/// The census behind `map --explain`: uses dropped as the language's own name and uses
/// bound through the nesting are counted apart, and the explanation says so in words.
#[test]
fn explain_says_how_a_used_by_count_was_reached() {
    let mut sources: Vec<(String, String)> = vec![
        (
            "lib/app/renderer/file.rb".into(),
            "module App\n  class Renderer\n    class File\n      def initialize(path)\n        @path = path\n      end\n    end\n  end\nend\n".into(),
        ),
        (
            "lib/app/renderer.rb".into(),
            "module App\n  class Renderer\n    def render\n      File.new('x')\n    end\n  end\nend\n".into(),
        ),
    ];
    for i in 0..4 {
        sources.push((
            format!("lib/app/step{i}.rb"),
            format!("module App\n  class Step{i}\n    def run\n      File.join('a', 'b')\n      File.read('c')\n    end\n  end\nend\n"),
        ));
    }
    let refs: Vec<(&str, &str)> = sources
        .iter()
        .map(|(p, s)| (p.as_str(), s.as_str()))
        .collect();
    let files = parse(&refs);
    let target = 0;
    let counts = explain_bindings(&files, &[], &[], target);
    let of = |how: BoundBy| {
        counts
            .iter()
            .find(|b| b.name == "File" && b.how == how)
            .map(|b| (b.uses, b.files))
    };
    assert_eq!(of(BoundBy::SamePackage), Some((1, 1)), "{counts:?}");
    // `File.join` and `File.read`: two uses of `File` in each of four files.
    assert_eq!(of(BoundBy::LanguageName), Some((8, 4)), "{counts:?}");

    let (_dir, index) = indexed(&refs);
    let req = MapRequest {
        budget: 1024,
        ..MapRequest::default()
    };
    let (map, ranked) = index.map(&req);
    let e = explain_file(&index, &req, &ranked, &map, "lib/app/renderer/file.rb");
    let text = render_text(&e);
    assert!(text.contains("how uses of its names were bound"), "{text}");
    assert!(
        text.contains("`File`: 1 use from 1 file same package or scope")
            && text.contains("8 uses from 4 files dropped as the language's own name"),
        "{text}"
    );
}

/// A type's member is not a bare name elsewhere: `use` names `name` bare (a call, a type,
/// `enum_type::name`), and `member` defines it only inside a type (a method, a member alias,
/// a specialization's method), so no edge joins them, neither by an include, a star import
/// nor a guess; `free` defines it at top level or in a namespace, which the use reaches.
/// (Java, C#, Kotlin, Scala and Ruby can bring a type's members into bare names: their
/// static imports and mixins.)
#[test]
fn a_bare_name_does_not_bind_to_another_file_s_type_member() {
    struct Case {
        lang: &'static str,
        files: &'static [(&'static str, &'static str)],
        user: &'static str,
        member: &'static str,
        free: Option<&'static str>,
        name: &'static str,
    }
    let cases = [
        Case {
            lang: "c++ include",
            files: &[
                (
                    "inc/chrono.h",
                    "#include \"format.h\"\nnamespace fmt {\ntemplate <typename C> struct formatter<tm, C> {\n  auto format_value(tm t) const -> int { return 0; }\n};\n}\n",
                ),
                (
                    "inc/format.h",
                    "namespace fmt {\ntemplate <typename T> auto format_value(T t) -> int { return 0; }\n}\n",
                ),
                (
                    "src/use.cc",
                    "#include \"../inc/chrono.h\"\nint run() { return fmt::format_value(1) + format_value(2); }\n",
                ),
            ],
            user: "src/use.cc",
            member: "inc/chrono.h",
            free: Some("inc/format.h"),
            name: "format_value",
        },
        Case {
            lang: "c++ guess",
            files: &[
                (
                    "inc/stream.h",
                    "template <typename B> class formatbuf : public B {\n  using stream_int_type = typename B::int_type;\n};\n",
                ),
                (
                    "inc/base.h",
                    "enum class type { none_type, stream_int_type };\nint f() { return (int)type::stream_int_type; }\n",
                ),
            ],
            user: "inc/base.h",
            member: "inc/stream.h",
            free: None,
            name: "stream_int_type",
        },
        Case {
            lang: "python",
            files: &[
                (
                    "pkg/model.py",
                    "class Record:\n    def save_record_now(self):\n        return 1\n",
                ),
                (
                    "pkg/helpers.py",
                    "def save_record_now(x):\n    return x\n",
                ),
                ("pkg/use.py", "def run(x):\n    return save_record_now(x)\n"),
            ],
            user: "pkg/use.py",
            member: "pkg/model.py",
            free: Some("pkg/helpers.py"),
            name: "save_record_now",
        },
        Case {
            lang: "python star import",
            files: &[
                (
                    "pkg/model.py",
                    "class Record:\n    def save_record_now(self):\n        return 1\n",
                ),
                ("pkg/use.py", "from pkg.model import *\n\ndef run(x):\n    return save_record_now(x)\n"),
            ],
            user: "pkg/use.py",
            member: "pkg/model.py",
            free: None,
            name: "save_record_now",
        },
    ];
    for case in cases {
        let files = parse(case.files);
        let g = build_graph(&files, &[], &[]);
        let lang = case.lang;
        assert_eq!(
            common::ident_weight(&files, &g, case.user, case.member, case.name),
            0.0,
            "{lang}: {} binds a bare {} to {}'s type member",
            case.user,
            case.name,
            case.member
        );
        if let Some(free) = case.free {
            assert!(
                common::ident_weight(&files, &g, case.user, free, case.name) > 0.0,
                "{lang}: {} reaches {free}'s {}",
                case.user,
                case.name
            );
        }
    }
}

/// An object-like macro without a value (`#define FLAG_H_`, an include guard or a feature
/// flag) is a definition a look-up finds, but defines no code: a `#ifdef` elsewhere does
/// not bind to it, and the map does not show it.
#[test]
fn a_valueless_macro_is_neither_bound_nor_shown() {
    let sources = [
        (
            "src/config.h",
            "#ifndef CONFIG_H_\n#define CONFIG_H_\n#define HAVE_EPOLL\n#define CORE_MODULE /* part of the core */\n#define MAX_CLIENTS /* per loop */ 64\nint config_load(const char *path);\n#endif\n",
        ),
        (
            "src/net.c",
            "#ifdef HAVE_EPOLL\nint use_epoll = 1;\n#endif\n",
        ),
        (
            "src/server.c",
            "#include <stdio.h>\nint limit(void) { return MAX_CLIENTS; }\n",
        ),
    ];
    let files = parse(&sources);
    let defs: Vec<(&str, bool)> = files[0]
        .tags
        .defs
        .iter()
        .map(|d| (d.name.as_str(), d.lookup_only))
        .collect();
    assert!(
        defs.contains(&("CONFIG_H_", true))
            && defs.contains(&("HAVE_EPOLL", true))
            && defs.contains(&("CORE_MODULE", true)),
        "{defs:?}"
    );
    assert!(defs.contains(&("MAX_CLIENTS", false)), "{defs:?}");
    let g = build_graph(&files, &[], &[]);
    assert_eq!(
        common::ident_weight(&files, &g, "src/net.c", "src/config.h", "HAVE_EPOLL"),
        0.0
    );
    // The control: a macro with a value is bound by its use.
    assert!(common::ident_weight(&files, &g, "src/server.c", "src/config.h", "MAX_CLIENTS") > 0.0);

    let (_dir, index) = indexed(&sources);
    let (map, _) = index.map(&MapRequest {
        budget: 1024,
        ..MapRequest::default()
    });
    let text = &map.text;
    assert!(
        text.contains("#define MAX_CLIENTS /* per loop */ 64"),
        "{text}"
    );
    assert!(
        !text.contains("#define CONFIG_H_")
            && !text.contains("#define HAVE_EPOLL")
            && !text.contains("#define CORE_MODULE"),
        "{text}"
    );

    // `refs` and a map's identifier say what the name is: a macro, not a field.
    let answer = callers_of(&index, "HAVE_EPOLL");
    assert!(
        answer.notes.iter().any(|n| n
            == "`HAVE_EPOLL` is a macro without a value: only its own file's uses of the name \
                are listed, as nothing binds to it from another file"),
        "{:?}",
        answer.notes
    );
    let notes = map_notes_naming(&index, "HAVE_EPOLL");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("`HAVE_EPOLL` is a macro without a value, which a map")),
        "{notes:?}"
    );
}

/// `refs` of `name`, callers first, as the CLI asks.
fn callers_of(index: &Index, name: &str) -> RefsAnswer {
    index
        .references(&RefsRequest {
            target: RefTarget::parse(name).expect("a name"),
            direction: Direction::Callers,
            top: 50,
        })
        .expect("refs answers")
}

/// The notes of a map whose request names `ident` as an identifier.
fn map_notes_naming(index: &Index, ident: &str) -> Vec<String> {
    let (map, _) = index.map(&MapRequest {
        budget: 1024,
        idents: vec![ident.to_string()],
        ..MapRequest::default()
    });
    map.notes
}

/// A definition as the field tests compare it: name, kind, parent, look-up only.
type DefRow = (String, &'static str, Option<String>, bool);

fn def_rows(file: &ParsedFile) -> Vec<DefRow> {
    file.tags
        .defs
        .iter()
        .map(|d| {
            (
                d.name.clone(),
                d.kind.name(),
                d.parent.clone(),
                d.lookup_only,
            )
        })
        .collect()
}

/// A field of `parent`, as `def_rows` lists it.
fn field(name: &str, parent: &str) -> DefRow {
    (name.to_string(), "field", Some(parent.to_string()), true)
}

/// The data members of the languages without field declarations are fields too: a Python
/// class's own variables, PHP properties (promoted by a constructor or not), Ruby's
/// `attr_accessor` and kin, and TypeScript constructor parameter properties. Look-ups find
/// them, bare or qualified by their class; their uses bind to nothing.
#[test]
fn class_variables_properties_accessors_and_parameter_properties_are_fields() {
    let sources = [
        (
            "app/config.py",
            "LIMIT = 3\nlevel = 1\n\nclass Config:\n    retry_count = 5\n    label: str\n    MAX_WAIT = 9\n\n    def __init__(self, pool):\n        self.conn_pool = pool\n        self.retry_count = 6\n        if pool:\n            self.branch_only = 1\n        self.conn_pool = None\n\n    def wait(self):\n        self.later_set = 2\n        return self.retry_count\n",
        ),
        (
            "app/use.py",
            "from app.config import Config\n\ndef go(c: Config):\n    return c.retry_count\n",
        ),
        (
            "src/Client.php",
            "<?php\nclass Client {\n    public $baseUri, $headerBag;\n    private static ?int $poolSize = 0;\n    const VERSION = 2;\n    public function __construct(private string $userAgent, int $plainArg) {}\n}\n",
        ),
        (
            "app/site.rb",
            "class Site\n  attr_accessor :dest_dir, :layout_names\n  attr_reader :cache_store\n  class << self\n    attr_writer :global_flag\n  end\n  def build\n    obj.attr_reader :not_a_field\n  end\nend\n",
        ),
        (
            "src/server.ts",
            "export class Server {\n  constructor(private readonly httpServer: Http, public listenPort: number, readonly hostName: string, plainArg: string) {}\n}\n",
        ),
    ];
    let files = parse(&sources);
    let defs = |path: &str| def_rows(files.iter().find(|f| f.path == path).expect("parsed"));
    let not_defined = |found: &[DefRow], name: &str| found.iter().all(|d| d.0 != name);

    // Python: a class's own variables, with a value or only a type, and what `__init__` sets
    // on `self` in its own statements (members of the class, not of `__init__`), each once,
    // where first set; module variables stay variables and constants, and an attribute set
    // in a branch or another method is no definition.
    let py = defs("app/config.py");
    for name in ["retry_count", "label", "MAX_WAIT", "conn_pool"] {
        assert!(py.contains(&field(name, "Config")), "{py:?}");
    }
    for name in ["retry_count", "conn_pool"] {
        assert_eq!(py.iter().filter(|d| d.0 == name).count(), 1, "{py:?}");
    }
    assert!(
        py.iter()
            .any(|d| d.0 == "LIMIT" && d.1 == "constant" && !d.3),
        "{py:?}"
    );
    assert!(
        py.iter()
            .any(|d| d.0 == "level" && d.1 == "variable" && !d.3),
        "{py:?}"
    );
    assert!(not_defined(&py, "branch_only"), "{py:?}");
    assert!(not_defined(&py, "later_set"), "{py:?}");

    // PHP: each property of a declaration, and a promoted constructor parameter (a member of
    // the class, not of the constructor); a plain parameter is none.
    let php = defs("src/Client.php");
    for name in ["baseUri", "headerBag", "poolSize", "userAgent"] {
        assert!(php.contains(&field(name, "Client")), "{php:?}");
    }
    assert!(not_defined(&php, "plainArg"), "{php:?}");

    // Ruby: the symbols of `attr_accessor` and kin in a class or `class << self` body; a
    // call with a receiver, or inside a method, declares nothing.
    let rb = defs("app/site.rb");
    for name in ["dest_dir", "layout_names", "cache_store"] {
        assert!(rb.contains(&field(name, "Site")), "{rb:?}");
    }
    assert!(
        rb.iter()
            .any(|d| d.0 == "global_flag" && d.1 == "field" && d.3),
        "{rb:?}"
    );
    assert!(not_defined(&rb, "not_a_field"), "{rb:?}");
    assert!(not_defined(&rb, ":dest_dir"), "{rb:?}");

    // TypeScript: a constructor parameter with an accessibility or `readonly` modifier.
    let ts = defs("src/server.ts");
    for name in ["httpServer", "listenPort", "hostName"] {
        assert!(ts.contains(&field(name, "Server")), "{ts:?}");
    }
    assert!(not_defined(&ts, "plainArg"), "{ts:?}");

    // Not bound: `c.retry_count` in another file could be any class's.
    let g = build_graph(&files, &[], &[]);
    assert_eq!(
        common::ident_weight(&files, &g, "app/use.py", "app/config.py", "retry_count"),
        0.0
    );

    // Found by look-ups, bare and qualified by the class.
    let (_dir, index) = indexed(&sources);
    let first = |query: &str| {
        let hits = index.search(query, &SearchOptions::default()).hits;
        hits.first()
            .map(|h| (h.file_path.clone(), h.line_range.start, h.kind.clone()))
    };
    let at = |path: &str, line: u32| Some((path.to_string(), line, Some("field".to_string())));
    for (query, path, line) in [
        ("retry_count", "app/config.py", 5),
        ("Config.retry_count", "app/config.py", 5),
        ("label", "app/config.py", 6),
        ("Config.conn_pool", "app/config.py", 10),
        ("headerBag", "src/Client.php", 3),
        ("Client::userAgent", "src/Client.php", 6),
        ("layout_names", "app/site.rb", 2),
        ("Site::cache_store", "app/site.rb", 3),
        ("listenPort", "src/server.ts", 2),
        ("Server.httpServer", "src/server.ts", 2),
    ] {
        assert_eq!(first(query), at(path, line), "{query}");
    }
}

/// A struct's or class's field (Go, Rust, TypeScript, Java, C#; C and C++ in `engine_tags`) is a
/// definition a look-up finds (bare, or qualified by its type), after code of the same name;
/// its uses (`r.Attempt`) bind to nothing, as any type's member of that name could be meant,
/// and the map shows the struct, not the field, also when a query names the field.
#[test]
fn a_struct_field_is_found_but_neither_bound_nor_shown() {
    let sources = [
        (
            "shared/run.go",
            "package shared\n\n// Run is one workflow run.\ntype Run struct {\n\t// Attempt counts the tries.\n\tAttempt uint64\n\tName, Title string\n\t*Embedded\n}\n\nfunc Describe(r Run) string { return r.Name }\n",
        ),
        (
            "shared/view.go",
            "package shared\n\nfunc view(r Run) uint64 {\n\t_ = Describe(r)\n\treturn r.Attempt\n}\n",
        ),
        ("go.mod", "module example.com/app\n"),
        (
            "src/router.rs",
            "pub struct Router {\n    /// The routes, by path.\n    routes: Vec<String>,\n    pub fallback: Option<String>,\n}\n\npub enum Event {\n    Moved { from: u32, to: u32 },\n}\n\nimpl Router {\n    pub fn routes(&self) -> &[String] {\n        &self.routes\n    }\n}\n",
        ),
        (
            "src/options.ts",
            "export interface ServerOptions {\n  /** How long a request may take. */\n  timeout?: number\n  'quoted-key': string\n  onError?: (e: Error) => void\n}\n\nexport class Server {\n  port: number = 80\n  #secret = 1\n  timeout(): number {\n    return 1\n  }\n}\n",
        ),
    ];
    let files = parse(&[sources[0], sources[1], sources[3], sources[4]]);
    let defs = def_rows;
    let go = defs(&files[0]);
    for name in ["Attempt", "Name", "Title"] {
        assert!(go.contains(&field(name, "Run")), "{go:?}");
    }
    assert!(go.iter().all(|d| d.0 != "Embedded"), "{go:?}");
    let rust = defs(&files[2]);
    for (name, parent) in [
        ("routes", "Router"),
        ("fallback", "Router"),
        ("from", "Event"),
    ] {
        assert!(rust.contains(&field(name, parent)), "{rust:?}");
    }

    let ts = defs(&files[3]);
    for (name, parent) in [
        ("timeout", "ServerOptions"),
        ("port", "Server"),
        ("#secret", "Server"),
    ] {
        assert!(ts.contains(&field(name, parent)), "{ts:?}");
    }
    // A string key names no field; a property typed as a function is a method signature.
    assert!(ts.iter().all(|d| !d.0.contains("quoted")), "{ts:?}");
    assert!(
        ts.iter().any(|d| d.0 == "onError" && d.1 == "method"),
        "{ts:?}"
    );

    // Java and C#: every field's name; a constant matched as a field too stays a constant.
    for (path, source, constant, fields) in [
        (
            "src/Pool.java",
            "class Pool {\n  static final int MAX_SIZE = 8;\n  private int activeCount, idleCount;\n}\n",
            "MAX_SIZE",
            ["activeCount", "idleCount"],
        ),
        (
            "src/Cache.cs",
            "class Cache {\n  const int Capacity = 4;\n  private int hitCount, missCount;\n}\n",
            "Capacity",
            ["hitCount", "missCount"],
        ),
    ] {
        let parsed = common::parsed(path, source);
        let found = defs(&parsed);
        assert!(
            found.iter().any(|d| d.0 == constant && d.1 == "constant" && !d.3),
            "{found:?}"
        );
        assert!(found.iter().all(|d| d.0 != constant || d.1 == "constant"), "{found:?}");
        let owner = if path.ends_with(".java") { "Pool" } else { "Cache" };
        for name in fields {
            assert!(found.contains(&field(name, owner)), "{found:?}");
        }
    }

    let g = build_graph(&files, &[], &[]);
    assert_eq!(
        common::ident_weight(&files, &g, "shared/view.go", "shared/run.go", "Attempt"),
        0.0
    );
    // The control: the function beside it is bound by its call.
    assert!(common::ident_weight(&files, &g, "shared/view.go", "shared/run.go", "Describe") > 0.0);

    let (_dir, index) = indexed(&sources);
    let top = |query: &str| {
        let hits = index.search(query, &SearchOptions::default()).hits;
        hits.iter()
            .map(|h| (h.file_path.clone(), h.line_range.start, h.kind.clone()))
            .take(2)
            .collect::<Vec<_>>()
    };
    let at = |path: &str, line: u32, kind: &str| (path.to_string(), line, Some(kind.to_string()));
    assert_eq!(top("Attempt")[0], at("shared/run.go", 6, "field"));
    assert_eq!(top("Run.Attempt")[0], at("shared/run.go", 6, "field"));
    assert_eq!(top("Title")[0], at("shared/run.go", 7, "field"));
    assert_eq!(top("fallback")[0], at("src/router.rs", 4, "field"));
    assert_eq!(top("port")[0], at("src/options.ts", 9, "field"));
    assert_eq!(
        top("ServerOptions.timeout")[0],
        at("src/options.ts", 3, "field")
    );
    assert_eq!(
        top("timeout"),
        [
            at("src/options.ts", 11, "method"),
            at("src/options.ts", 3, "field")
        ]
    );
    // Code before the field of the same name, bare or qualified.
    for query in ["routes", "Router::routes"] {
        assert_eq!(
            top(query),
            [
                at("src/router.rs", 12, "method"),
                at("src/router.rs", 3, "field")
            ],
            "{query}"
        );
    }

    // `refs` finds the field though no definer table holds it, lists no other file's use
    // (`r.Attempt` in view.go could be any type's), and says why.
    let answer = callers_of(&index, "Attempt");
    let found: Vec<(&str, DefKind, u32)> = answer
        .groups
        .iter()
        .map(|g| {
            (
                g.definition.path.as_str(),
                g.definition.kind,
                g.definition.lines.start,
            )
        })
        .collect();
    assert_eq!(found, [("shared/run.go", DefKind::Field, 6)]);
    assert!(
        answer.groups[0]
            .callers
            .iter()
            .all(|c| c.path != "shared/view.go"),
        "{:?}",
        answer.groups[0].callers
    );
    assert!(
        answer
            .notes
            .iter()
            .any(|n| n.contains("`Attempt` is a field: only its own file's uses")),
        "{:?}",
        answer.notes
    );

    // Named as an identifier, the field is said to be one.
    let notes = map_notes_naming(&index, "Attempt");
    assert!(
        notes.iter().any(|n| n.contains("`Attempt` is a field")),
        "{notes:?}"
    );

    for query in [None, Some("attempt title".to_string())] {
        let (map, _) = index.map(&MapRequest {
            budget: 1024,
            query: query.clone(),
            ..MapRequest::default()
        });
        let text = &map.text;
        assert!(text.contains("type Run struct {"), "{query:?}: {text}");
        assert!(
            !text.contains("Attempt uint64") && !text.contains("Name, Title string"),
            "{query:?}: {text}"
        );
    }
}

/// `SearchWeights::field_chunks` weighs a field's name in a query that is not a look-up:
/// at 0 a sentence naming a field finds it only through its struct's text, while a look-up
/// of the field still answers with it.
#[test]
fn field_chunks_weigh_a_fields_name_in_sentences_only() {
    use mapscope::engine::search::{SearchContext, SearchIndex, SearchWeights};
    let files = parse(&[
        (
            "net/conn.go",
            "package net\n\ntype Conn struct {\n\tRetryBudget int\n}\n",
        ),
        (
            "net/budget.go",
            "package net\n\n// Spend takes from the retry budget of a request.\nfunc Spend(retry, budget int) int { return retry - budget }\n",
        ),
    ]);
    let prior = vec![0.5; 2];
    let neighbors = vec![Vec::new(); 2];
    let ctx = SearchContext {
        files: &files,
        docs: &[],
        prior: &prior,
        neighbors: &neighbors,
        history: None,
    };
    let first = |weight: f64, query: &str| {
        let weights = SearchWeights {
            field_chunks: weight,
            ..SearchWeights::default()
        };
        let index = SearchIndex::build_with(&files, &[], weights);
        let hits = index.search(&ctx, query, &SearchOptions::default()).hits;
        (hits[0].file_path.clone(), hits[0].kind.clone())
    };
    let field = ("net/conn.go".to_string(), Some("field".to_string()));
    assert_eq!(first(1.0, "RetryBudget"), field);
    assert_eq!(first(0.0, "RetryBudget"), field);
    assert_eq!(first(1.0, "the retry budget runs out"), field);
    assert_eq!(first(0.0, "the retry budget runs out").0, "net/budget.go");
}

/// A look-up puts the code before a test of the same name in the code's own file (a Rust
/// `mod tests { … }`), as it puts it before one under `tests/`; a query about tests keeps
/// score order.
#[test]
fn a_look_up_puts_code_before_a_same_named_test_in_its_file() {
    let source = "pub struct Upgrade {\n    on_failed: Option<u8>,\n}\n\nimpl Upgrade {\n    /// Sets the callback run when the upgrade fails, which gets the error; the\n    /// default logs it at debug level and drops the connection, which is what a\n    /// server that cannot do anything about a failed upgrade wants.\n    pub fn on_failed_upgrade(self, callback: u8) -> Self {\n        let _ = callback;\n        self\n    }\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn on_failed_upgrade() {}\n}\n";
    let (_dir, index) = indexed(&[("src/ws.rs", source)]);
    let lines = |query: &str| -> Vec<u32> {
        let hits = index.search(query, &SearchOptions::default()).hits;
        hits.iter()
            .filter(|h| h.symbol.as_deref() == Some("on_failed_upgrade"))
            .map(|h| h.line_range.start)
            .collect()
    };
    assert_eq!(lines("on_failed_upgrade")[..2], [9, 18]);
    assert_eq!(lines("Upgrade::on_failed_upgrade")[0], 9);
}

/// An app's source-root alias (`@/stores/user`, Vite's and Vue CLI's `@` → `src`) is an
/// import like a relative one: the store's names bind from the component and the test, where
/// the same store in a second package, never imported, gets nothing.
#[test]
fn a_source_root_alias_binds_like_a_relative_import() {
    let files = parse(&[
        (
            "src/views/Home.vue",
            "<template><p>{{ store.name }}</p></template>\n<script setup lang=\"ts\">\nimport { useUserStore } from '@/stores/user'\nconst store = useUserStore()\n</script>\n",
        ),
        (
            "src/stores/user.ts",
            "export function useUserStore() {\n  return { name: 'a' }\n}\n",
        ),
        (
            "tests/unit/user.spec.ts",
            "import { useUserStore } from '@/stores/user'\nuseUserStore()\n",
        ),
        (
            "other/src/stores/user.ts",
            "export function useUserStore() {\n  return { name: 'b' }\n}\n",
        ),
    ]);
    let g = build_graph(&files, &[], &[]);
    let w = |from: &str, to: &str| common::ident_weight(&files, &g, from, to, "useUserStore");
    assert!(w("src/views/Home.vue", "src/stores/user.ts") > 0.0);
    assert!(w("tests/unit/user.spec.ts", "src/stores/user.ts") > 0.0);
    assert_eq!(w("src/views/Home.vue", "other/src/stores/user.ts"), 0.0);
    assert_eq!(
        w("tests/unit/user.spec.ts", "other/src/stores/user.ts"),
        0.0
    );
}

/// A `tsconfig.json` path alias (`@common`, `@app/*`) binds an import like a relative one:
/// the walk reads the config, so this needs a real index. Two packages define the name, so
/// only the resolved import says which one is meant.
#[test]
fn a_tsconfig_path_alias_binds_like_a_relative_import() {
    let sources = [
        (
            "tsconfig.json",
            "{\n  // the workspace's aliases\n  \"compilerOptions\": {\n    \"baseUrl\": \".\",\n    \"paths\": {\n      \"@common\": [\"libs/common/src/index.ts\"],\n      \"@app/*\": [\"apps/web/src/app/*\"],\n    },\n  },\n}\n",
        ),
        (
            "apps/web/src/main.ts",
            "import { formatDate } from '@common'\nimport { loadUser } from '@app/users/load'\nexport function main() {\n  return formatDate(loadUser())\n}\n",
        ),
        (
            "apps/web/src/app/users/load.ts",
            "export function loadUser() {\n  return 1\n}\n",
        ),
        (
            "apps/admin/src/app/users/load.ts",
            "export function loadUser() {\n  return 2\n}\n",
        ),
        (
            "libs/common/src/index.ts",
            "export function formatDate(d: number) {\n  return String(d)\n}\n",
        ),
        (
            "libs/legacy/src/index.ts",
            "export function formatDate(d: number) {\n  return 'x' + d\n}\n",
        ),
    ];
    let weights = |sources: &[(&str, &str)]| {
        let (_dir, index) = indexed(sources);
        let w = |to: &str, name: &str| {
            common::ident_weight(&index.files, &index.graph, "apps/web/src/main.ts", to, name)
        };
        [
            w("libs/common/src/index.ts", "formatDate"),
            w("libs/legacy/src/index.ts", "formatDate"),
            w("apps/web/src/app/users/load.ts", "loadUser"),
            w("apps/admin/src/app/users/load.ts", "loadUser"),
        ]
    };
    let [common_w, legacy_w, web_w, admin_w] = weights(&sources);
    assert!(common_w > 0.0 && web_w > 0.0, "{common_w} {web_w}");
    assert_eq!((legacy_w, admin_w), (0.0, 0.0));
    // The control: without the config the aliases do not resolve, and the imports say
    // nothing about which definition is meant.
    let without = weights(&sources[1..]);
    assert!(
        without[0] <= without[1] && without[2] <= without[3],
        "{without:?}"
    );
}

/// A monorepo keeps its aliases in the root's `tsconfig.base.json`, which the packages'
/// own `tsconfig.json` files extend (Nx's layout): the walk follows `extends`, so the alias
/// binds from a package, its targets read from the base's folder.
#[test]
fn an_alias_inherited_through_extends_binds() {
    let base = (
        "tsconfig.base.json",
        "{ \"compilerOptions\": { \"paths\": { \"@org/shared\": [\"libs/common/src/index.ts\"] } } }\n",
    );
    let files = [
        (
            "apps/web/src/main.ts",
            "import { formatDate } from '@org/shared'\nexport function main() {\n  return formatDate(1)\n}\n",
        ),
        (
            "libs/common/src/index.ts",
            "export function formatDate(d: number) {\n  return String(d)\n}\n",
        ),
        (
            "libs/legacy/src/index.ts",
            "export function formatDate(d: number) {\n  return 'x' + d\n}\n",
        ),
    ];
    let weights = |package_config: &str| {
        let dir = tempfile::tempdir().expect("tempdir");
        common::write_files(dir.path(), &files);
        common::write_files(
            dir.path(),
            &[base, ("apps/web/tsconfig.json", package_config)],
        );
        let index = Index::build(dir.path(), &IndexOptions::default()).expect("fixture builds");
        let w = |to: &str| {
            common::ident_weight(
                &index.files,
                &index.graph,
                "apps/web/src/main.ts",
                to,
                "formatDate",
            )
        };
        (w("libs/common/src/index.ts"), w("libs/legacy/src/index.ts"))
    };
    let (common_w, legacy_w) =
        weights("{\n  \"extends\": \"../../tsconfig.base.json\",\n  \"compilerOptions\": { \"outDir\": \"dist\" }\n}\n");
    assert!(common_w > 0.0 && legacy_w == 0.0, "{common_w} {legacy_w}");
    // The control: the same package config without `extends` inherits nothing (the alias
    // names no folder, so no other rule resolves it).
    let (common_w, legacy_w) = weights("{ \"compilerOptions\": { \"outDir\": \"dist\" } }\n");
    assert!(common_w <= legacy_w, "{common_w} {legacy_w}");
}

/// A TS or JS class field whose value is a function (`handleAdd = (x) => { … }`) is a
/// method: called as one, with a body a map shows, and bound by its calls as a method is.
/// A field holding data is a look-up-only field (JavaScript's too, private ones included),
/// and an abstract member typed as a function stays a declaration.
#[test]
fn class_fields_holding_functions_are_methods() {
    let sources = [
        (
            "src/store.ts",
            "export abstract class Store {\n  private items: string[] = [];\n  handleAdd = (x: string): void => {\n    this.items.push(x);\n  };\n  onReset = async function () {\n    return 0;\n  };\n  abstract close: () => void;\n}\n",
        ),
        (
            "src/view.ts",
            "import { Store } from './store';\nexport function render(s: Store) {\n  s.handleAdd('a');\n}\n",
        ),
        (
            "lib/list.js",
            "export class List {\n  size = 0;\n  #count = 0;\n  push = (x) => {\n    this.size += 1;\n  };\n  *walk() {}\n}\n",
        ),
    ];
    let files = parse(&sources);
    let method = |name: &str, parent: &str| -> DefRow {
        (name.to_string(), "method", Some(parent.to_string()), false)
    };
    let ts = def_rows(&files[0]);
    for row in [
        method("handleAdd", "Store"),
        method("onReset", "Store"),
        method("close", "Store"),
        field("items", "Store"),
    ] {
        assert!(ts.contains(&row), "{row:?} in {ts:?}");
    }
    let declared = |name: &str| {
        files[0]
            .tags
            .defs
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.declaration)
    };
    assert_eq!(declared("handleAdd"), Some(false));
    assert_eq!(declared("close"), Some(true));
    let js = def_rows(&files[2]);
    for row in [
        method("push", "List"),
        field("size", "List"),
        field("#count", "List"),
    ] {
        assert!(js.contains(&row), "{row:?} in {js:?}");
    }
    assert!(
        !js.iter().any(|d| d.0 == "push" && d.1 == "field"),
        "{js:?}"
    );

    let g = build_graph(&files, &[], &[]);
    assert!(common::ident_weight(&files, &g, "src/view.ts", "src/store.ts", "handleAdd") > 0.0);
}
