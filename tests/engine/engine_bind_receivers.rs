//! Member uses bind through their receiver's type (issue 43, item 4), per language, on small
//! sources parsed for real: a method defined with the same name on two types in two files
//! is reached only from receivers of its own type; `self`/`this` (or the language's implicit
//! receiver) reaches a base class in another file; a receiver of the language's own or an
//! external package's type reaches no repository method of that name; `map --explain` and
//! the refs engine say "receiver's type".

use crate::common;

use mapscope::engine::base::model::ParsedFile;
use mapscope::engine::index::refs::{Direction, RefTarget, RefsRequest, UseBinding};
use mapscope::engine::index::{Index, IndexOptions};
use mapscope::engine::link::graph::{build_graph, explain_bindings, BoundBy};

fn parse(files: &[(String, String)]) -> Vec<ParsedFile> {
    files.iter().map(|(p, s)| common::parsed(p, s)).collect()
}

/// One language's fixture. Files are named `app/NAME.EXT`; `alpha` and `beta` define a type
/// `Alpha` / `Beta`, each with a method `save_record` (Go: `SaveRecord`); `use_alpha` and
/// `use_beta` call it on a receiver of one of them; `base` defines `Base` with
/// `helper_method`, `derived` a `Derived` extending it whose method calls it on itself, and
/// `decoy` another type with a `helper_method`; `foreign` calls `save_record` on a receiver
/// of the language's own or an external package's type.
struct Fixture {
    ext: &'static str,
    method: &'static str,
    helper: &'static str,
    files: Vec<(&'static str, String)>,
}

fn ty(ext: &str, name: &str, method: &str) -> String {
    match ext {
        "py" => format!("class {name}:\n    def {method}(self):\n        return 1\n"),
        "ts" | "js" => format!("export class {name} {{\n  {method}() {{ return 1 }}\n}}\n"),
        "go" => format!(
            "package app\n\ntype {name} struct{{}}\n\nfunc (x *{name}) {method}() int {{ return 1 }}\n"
        ),
        "rs" => format!(
            "pub struct {name};\nimpl {name} {{\n    pub fn {method}(&self) -> i32 {{ 1 }}\n}}\n"
        ),
        "java" => format!(
            "package app;\n\npublic class {name} {{\n  public int {method}() {{ return 1; }}\n}}\n"
        ),
        "cs" => format!(
            "namespace App {{\n  public class {name} {{\n    public int {method}() {{ return 1; }}\n  }}\n}}\n"
        ),
        "rb" => format!("class {name}\n  def {method}\n    1\n  end\nend\n"),
        "php" => format!(
            "<?php\nnamespace App;\n\nclass {name} {{\n  public function {method}() {{ return 1; }}\n}}\n"
        ),
        "hpp" => format!(
            "class {name} {{\n public:\n  int {method}() {{ return 1; }}\n}};\n"
        ),
        _ => unreachable!(),
    }
}

fn fixture(ext: &'static str) -> Fixture {
    let (method, helper) = if matches!(ext, "go" | "cs") {
        ("SaveRecord", "HelperMethod")
    } else {
        ("save_record", "helper_method")
    };
    // `use_alpha`, `use_beta`, `derived`, `foreign`.
    let (use_alpha, use_beta, derived, foreign): (String, String, String, String) = match ext {
        "py" => (
            format!("from app.alpha import Alpha\n\ndef run(a: Alpha):\n    a.{method}()\n"),
            format!("from app.beta import Beta\n\ndef run():\n    b = Beta()\n    b.{method}()\n"),
            format!("from app.base import Base\n\nclass Derived(Base):\n    def go(self):\n        self.{helper}()\n"),
            format!("import requests\n\ndef run():\n    s = requests.Session()\n    s.{method}()\n"),
        ),
        "ts" => (
            format!("import {{ Alpha }} from './alpha'\n\nexport function run(a: Alpha) {{ a.{method}() }}\n"),
            format!("import {{ Beta }} from './beta'\n\nexport function run() {{ const b = new Beta(); b.{method}() }}\n"),
            format!("import {{ Base }} from './base'\n\nexport class Derived extends Base {{\n  go() {{ this.{helper}() }}\n}}\n"),
            format!("import {{ Client }} from 'pg'\n\nexport function run(c: Client) {{ c.{method}() }}\n"),
        ),
        "go" => (
            format!("package app\n\nfunc RunA(a *Alpha) {{ a.{method}() }}\n"),
            format!("package app\n\nfunc RunB() {{ b := &Beta{{}}; b.{method}() }}\n"),
            format!("package app\n\ntype Derived struct {{\n\tBase\n}}\n\nfunc (d *Derived) Go() {{ d.{helper}() }}\n"),
            format!("package app\n\nimport \"net/http\"\n\nfunc RunC(c *http.Client) {{ c.{method}() }}\n"),
        ),
        "rs" => (
            format!("use crate::alpha::Alpha;\n\npub fn run(a: &Alpha) {{ a.{method}(); }}\n"),
            format!("use crate::beta::Beta;\n\npub fn run() {{ let b = Beta::new(); b.{method}(); }}\n"),
            format!("use crate::base::Base;\n\npub struct Derived;\nimpl Base for Derived {{\n    fn required(&self) {{}}\n}}\nimpl Derived {{\n    pub fn go(&self) {{ self.{helper}(); }}\n}}\n"),
            format!("pub fn run(s: &String) {{ s.{method}(); }}\n"),
        ),
        "java" => (
            format!("package app;\n\npublic class UseAlpha {{\n  void run(Alpha a) {{ a.{method}(); }}\n}}\n"),
            format!("package app;\n\npublic class UseBeta {{\n  void run() {{ Beta b = new Beta(); b.{method}(); }}\n}}\n"),
            format!("package app;\n\npublic class Derived extends Base {{\n  void go() {{ {helper}(); this.{helper}(); }}\n}}\n"),
            format!("package app;\n\nimport java.util.List;\n\npublic class Foreign {{\n  void run(List x) {{ x.{method}(); }}\n}}\n"),
        ),
        "cs" => (
            format!("namespace App {{\n  public class UseAlpha {{\n    void Run(Alpha a) {{ a.{method}(); }}\n  }}\n}}\n"),
            format!("namespace App {{\n  public class UseBeta {{\n    void Run() {{ var b = new Beta(); b.{method}(); }}\n  }}\n}}\n"),
            format!("namespace App {{\n  public class Derived : Base {{\n    void Go() {{ {helper}(); }}\n  }}\n}}\n"),
            format!("namespace App {{\n  public class Foreign {{\n    void Run(string x) {{ x.{method}(); }}\n  }}\n}}\n"),
        ),
        "rb" => (
            format!("class UseAlpha\n  def run\n    a = Alpha.new\n    a.{method}\n  end\nend\n"),
            format!("class UseBeta\n  def run\n    b = Beta.new\n    b.{method}\n  end\nend\n"),
            format!("class Derived < Base\n  def go\n    {helper}\n    self.{helper}\n  end\nend\n"),
            format!("class Foreign\n  def run\n    f = File.new('x')\n    f.{method}\n  end\nend\n"),
        ),
        "php" => (
            format!("<?php\nnamespace App;\n\nfunction run_a(Alpha $a) {{ $a->{method}(); }}\n"),
            format!("<?php\nnamespace App;\n\nfunction run_b() {{ $b = new Beta(); $b->{method}(); }}\n"),
            format!("<?php\nnamespace App;\n\nclass Derived extends Base {{\n  public function go() {{ $this->{helper}(); }}\n}}\n"),
            format!("<?php\nnamespace App;\n\nfunction run_c(\\DateTime $d) {{ $d->{method}(); }}\n"),
        ),
        "hpp" => (
            format!("#include \"alpha.hpp\"\n\nint run_a(Alpha &a) {{ return a.{method}(); }}\n"),
            format!("#include \"beta.hpp\"\n\nint run_b() {{ Beta b; return b.{method}(); }}\n"),
            format!("#include \"base.hpp\"\n\nclass Derived : public Base {{\n public:\n  int go() {{ return {helper}() + this->{helper}(); }}\n}};\n"),
            format!("#include <string>\n\nint run_c(std::string &s) {{ return s.{method}(); }}\n"),
        ),
        _ => unreachable!(),
    };
    let files = vec![
        ("alpha", ty(ext, "Alpha", method)),
        ("beta", ty(ext, "Beta", method)),
        ("base", ty(ext, "Base", helper)),
        ("decoy", ty(ext, "Decoy", helper)),
        ("use_alpha", use_alpha),
        ("use_beta", use_beta),
        ("derived", derived),
        ("foreign", foreign),
    ];
    Fixture {
        ext,
        method,
        helper,
        files,
    }
}

const LANGS: [&str; 9] = ["py", "ts", "go", "rs", "java", "cs", "rb", "php", "hpp"];

impl Fixture {
    fn path(&self, name: &str) -> String {
        // Rust modules live under `src/`, so that `crate::alpha` resolves.
        match self.ext {
            "rs" => format!("src/{name}.rs"),
            "java" => format!("src/main/java/app/{}.java", java_class(name)),
            _ => format!("app/{name}.{}", self.ext),
        }
    }

    fn sources(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .files
            .iter()
            .map(|(name, src)| (self.path(name), src.clone()))
            .collect();
        if self.ext == "rs" {
            out.push((
                "src/lib.rs".into(),
                "pub mod alpha;\npub mod beta;\npub mod base;\npub mod decoy;\npub mod use_alpha;\npub mod use_beta;\npub mod derived;\npub mod foreign;\n".into(),
            ));
            // Rust: `Base` is a trait whose default method `Derived` inherits.
            for (p, s) in &mut out {
                if p == "src/base.rs" {
                    *s = format!(
                        "pub trait Base {{\n    fn {}(&self) -> i32 {{ 1 }}\n}}\n",
                        self.helper
                    );
                }
            }
        }
        out
    }
}

fn java_class(name: &str) -> &str {
    match name {
        "alpha" => "Alpha",
        "beta" => "Beta",
        "base" => "Base",
        "decoy" => "Decoy",
        "use_alpha" => "UseAlpha",
        "use_beta" => "UseBeta",
        "derived" => "Derived",
        "foreign" => "Foreign",
        _ => name,
    }
}

#[test]
fn a_method_on_two_types_binds_from_each_receiver_to_its_own() {
    for ext in LANGS {
        let f = fixture(ext);
        let files = parse(&f.sources());
        let g = build_graph(&files, &[], &[]);
        let w = |from: &str, to: &str| {
            common::ident_weight(&files, &g, &f.path(from), &f.path(to), f.method)
        };
        assert!(
            w("use_alpha", "alpha") > 0.0,
            "{ext}: Alpha's receiver reaches Alpha"
        );
        assert_eq!(w("use_alpha", "beta"), 0.0, "{ext}: not Beta");
        assert!(
            w("use_beta", "beta") > 0.0,
            "{ext}: Beta's receiver reaches Beta"
        );
        assert_eq!(w("use_beta", "alpha"), 0.0, "{ext}: not Alpha");
    }
}

#[test]
fn the_enclosing_type_reaches_a_base_class_in_another_file() {
    for ext in LANGS {
        let f = fixture(ext);
        let files = parse(&f.sources());
        let g = build_graph(&files, &[], &[]);
        let w =
            |to: &str| common::ident_weight(&files, &g, &f.path("derived"), &f.path(to), f.helper);
        assert!(w("base") > 0.0, "{ext}: the base's method is reached");
        assert_eq!(
            w("decoy"),
            0.0,
            "{ext}: another type's method of that name is not"
        );
    }
}

#[test]
fn a_receiver_of_a_foreign_type_reaches_no_repository_method() {
    for ext in LANGS {
        let f = fixture(ext);
        let files = parse(&f.sources());
        let g = build_graph(&files, &[], &[]);
        for to in ["alpha", "beta"] {
            assert_eq!(
                common::ident_weight(&files, &g, &f.path("foreign"), &f.path(to), f.method),
                0.0,
                "{ext}: a foreign receiver's method is not {to}'s"
            );
        }
        // The census says why.
        let at = files
            .iter()
            .position(|x| x.path == f.path("alpha"))
            .unwrap();
        let census = explain_bindings(&files, &[], &[], at);
        assert!(
            census
                .iter()
                .any(|c| c.name == f.method && c.how == BoundBy::Typed),
            "{ext}: {census:?}"
        );
    }
}

/// The census counts typed uses, and the dropped foreign ones where a guess would have gone.
#[test]
fn explain_counts_typed_and_foreign_receivers() {
    let f = fixture("go");
    let files = parse(&f.sources());
    let at = files
        .iter()
        .position(|x| x.path == f.path("alpha"))
        .unwrap();
    let census = explain_bindings(&files, &[], &[], at);
    let how = |b: BoundBy| {
        census
            .iter()
            .filter(|c| c.name == "SaveRecord" && c.how == b)
            .map(|c| c.uses)
            .sum::<u32>()
    };
    assert_eq!(how(BoundBy::Typed), 1, "{census:?}");
    assert_eq!(how(BoundBy::ForeignReceiver), 1, "{census:?}");
    assert_eq!(how(BoundBy::MethodGuess), 0, "{census:?}");
    assert_eq!(BoundBy::Typed.label(), "receiver's type");
}

/// `mapscope refs` binds on the same rules: the callers of `Alpha.save_record` are the
/// Alpha-typed use alone, bound by the receiver's type, unambiguous.
#[test]
fn refs_callers_follow_the_receiver_s_type() {
    for ext in ["py", "go", "java", "ts"] {
        let f = fixture(ext);
        let dir = tempfile::tempdir().unwrap();
        let sources = f.sources();
        let borrowed: Vec<(&str, &str)> = sources
            .iter()
            .map(|(p, s)| (p.as_str(), s.as_str()))
            .collect();
        common::write_files(dir.path(), &borrowed);
        let index = Index::build(dir.path(), &IndexOptions::default()).unwrap();
        let target = format!("{}:{}", f.path("alpha"), f.method);
        let answer = index
            .references(&RefsRequest {
                target: RefTarget::parse(&target).unwrap(),
                direction: Direction::Callers,
                top: 50,
            })
            .unwrap();
        let callers: Vec<(String, UseBinding, bool)> = answer.groups[0]
            .callers
            .iter()
            .map(|u| (u.path.clone(), u.binding, u.ambiguous))
            .collect();
        assert_eq!(
            callers,
            vec![(f.path("use_alpha"), UseBinding::Typed, false)],
            "{ext}"
        );
    }
}

/// Ruby `Terminal::Table.new`: a gem's class (no repository module `Terminal`) is not the
/// repository's `Table`, though it has the same name; `Jekyll::Table.new` is.
#[test]
fn ruby_a_qualified_constructor_is_the_qualifier_s_type() {
    let table = "module Jekyll\n  class Table\n    def render_rows\n      1\n    end\n  end\nend\n";
    let gem = "module Jekyll\n  class Profiler\n    def run\n      t = Terminal::Table.new\n      t.render_rows\n    end\n  end\nend\n";
    let own = "module Jekyll\n  class Site\n    def run\n      t = Jekyll::Table.new\n      t.render_rows\n    end\n  end\nend\n";
    let files = parse(&[
        ("lib/jekyll/table.rb".into(), table.into()),
        ("lib/jekyll/profiler.rb".into(), gem.into()),
        ("lib/jekyll/site.rb".into(), own.into()),
    ]);
    let g = build_graph(&files, &[], &[]);
    let w =
        |from: &str| common::ident_weight(&files, &g, from, "lib/jekyll/table.rb", "render_rows");
    assert_eq!(w("lib/jekyll/profiler.rb"), 0.0);
    assert!(w("lib/jekyll/site.rb") > 0.0);
}
