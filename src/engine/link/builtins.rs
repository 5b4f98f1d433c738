//! The names each language provides without an import: Ruby's `File` and `Hash`, Python's
//! `len` and `ValueError`, Go's `error`, Java's `String`, JS's `Map` and `JSON`, Rust's
//! prelude… A use of one binds to a repository definition only where that definition is
//! visible (imported or required, in the same package or namespace, or reached through the
//! referencing file's own nesting); a guess by its bare name would take the language's own
//! `File.join` for the repository's class `File`. See `graph`'s header for the rules.
//!
//! The tables are data, one file per language in `assets/builtins/`, each saying which
//! reference of the language it lists; they are parsed once per process, on first use (the
//! graph build, on its rayon workers), into sorted tables. Three kinds of name:
//! - `[types]`: classes, modules, namespaces and global objects, which a use names bare or as
//!   a qualifier (`File.join`, `JSON.parse`, `std::move`);
//! - `[functions]`: functions, constants and keywords, named bare only (a qualifier `data.x`
//!   or `test.run` is a local variable, not the language's `data` or `test`);
//! - `[methods]`: the methods every value has (Ruby's `to_s`, Java's `equals`, Python's
//!   `__init__`) or any type may implement (Rust's prelude traits): a call of one on a
//!   receiver of unknown type is no particular definition's.

use std::sync::OnceLock;

use crate::engine::base::model::Lang;

/// One language's table, each list sorted.
#[derive(Debug, Default)]
pub struct LanguageNames {
    types: Vec<&'static str>,
    functions: Vec<&'static str>,
    methods: Vec<&'static str>,
}

impl LanguageNames {
    /// A class, module, namespace or global object of the language: bare or as a qualifier.
    pub fn is_type(&self, name: &str) -> bool {
        self.types.binary_search(&name).is_ok()
    }

    /// Any name the language provides in every file's scope (types, functions, constants).
    pub fn is_bare(&self, name: &str) -> bool {
        self.is_type(name) || self.functions.binary_search(&name).is_ok()
    }

    /// A method every value of the language has (or any type may implement).
    pub fn is_method(&self, name: &str) -> bool {
        self.methods.binary_search(&name).is_ok()
    }

    fn parse(text: &'static str) -> LanguageNames {
        let mut t = LanguageNames::default();
        let mut section = 0;
        for line in text.lines().map(str::trim) {
            match line {
                "" => {}
                _ if line.starts_with('#') => {}
                "[types]" => section = 0,
                "[functions]" => section = 1,
                "[methods]" => section = 2,
                name => match section {
                    0 => t.types.push(name),
                    1 => t.functions.push(name),
                    _ => t.methods.push(name),
                },
            }
        }
        for list in [&mut t.types, &mut t.functions, &mut t.methods] {
            list.sort_unstable();
            list.dedup();
        }
        t
    }
}

/// Each link family's table (`LangSpec::link_family`: TS shares JS's); a family without one
/// provides nothing.
const SOURCES: [(&str, &str); 16] = [
    ("js", include_str!("../../../assets/builtins/js.txt")),
    ("py", include_str!("../../../assets/builtins/python.txt")),
    ("go", include_str!("../../../assets/builtins/go.txt")),
    ("rs", include_str!("../../../assets/builtins/rust.txt")),
    ("java", include_str!("../../../assets/builtins/java.txt")),
    // C++ code uses C's library as well as its own.
    ("c", include_str!("../../../assets/builtins/c.txt")),
    ("cs", include_str!("../../../assets/builtins/csharp.txt")),
    ("rb", include_str!("../../../assets/builtins/ruby.txt")),
    ("php", include_str!("../../../assets/builtins/php.txt")),
    ("kt", include_str!("../../../assets/builtins/kotlin.txt")),
    ("swift", include_str!("../../../assets/builtins/swift.txt")),
    ("sh", include_str!("../../../assets/builtins/shell.txt")),
    ("scala", include_str!("../../../assets/builtins/scala.txt")),
    ("lua", include_str!("../../../assets/builtins/lua.txt")),
    ("ex", include_str!("../../../assets/builtins/elixir.txt")),
    ("tf", include_str!("../../../assets/builtins/terraform.txt")),
];

/// The names `lang` provides.
pub fn language_names(lang: Lang) -> &'static LanguageNames {
    static TABLES: OnceLock<Vec<LanguageNames>> = OnceLock::new();
    let tables = TABLES.get_or_init(|| {
        let mut tables: Vec<LanguageNames> = Vec::with_capacity(Lang::LINK_FAMILIES);
        for family in 0..Lang::LINK_FAMILIES {
            let name = Lang::ALL
                .iter()
                .find(|l| l.link_index() == family)
                .map_or("", |l| l.link_family());
            let text = SOURCES.iter().find(|(f, _)| *f == name).map(|(_, t)| *t);
            tables.push(text.map(LanguageNames::parse).unwrap_or_default());
        }
        tables
    });
    &tables[lang.link_index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_language_has_a_table_of_its_own_names() {
        let cases = [
            (Lang::Ruby, "File", "puts", "to_s"),
            (Lang::Python, "ValueError", "len", "__init__"),
            (Lang::Go, "", "error", "Error"),
            (Lang::Java, "String", "", "equals"),
            (Lang::CSharp, "Console", "string", "ToString"),
            (Lang::TypeScript, "JSON", "setTimeout", "toString"),
            (Lang::JavaScript, "console", "parseInt", "valueOf"),
            (Lang::Php, "ArrayObject", "count", "__construct"),
            (Lang::Cpp, "std", "printf", ""),
            (Lang::Rust, "Vec", "println", "clone"),
        ];
        for (lang, ty, function, method) in cases {
            let t = language_names(lang);
            assert!(
                ty.is_empty() || (t.is_type(ty) && t.is_bare(ty)),
                "{lang:?} {ty}"
            );
            assert!(
                function.is_empty() || (t.is_bare(function) && !t.is_type(function)),
                "{lang:?} {function}"
            );
            assert!(
                method.is_empty() || t.is_method(method),
                "{lang:?} {method}"
            );
        }
        // A language's names are its own; a repository's are not in any table.
        assert!(!language_names(Lang::Python).is_bare("File"));
        assert!(!language_names(Lang::Ruby).is_bare("LiquidRenderer"));
        // Functions are not qualifiers: `data.x` is a local.
        assert!(!language_names(Lang::Cpp).is_type("data"));
    }

    #[test]
    fn the_tables_are_sorted_lists_without_comments_or_blanks() {
        for lang in Lang::ALL {
            let t = language_names(lang);
            for list in [&t.types, &t.functions, &t.methods] {
                assert!(list.windows(2).all(|w| w[0] < w[1]), "{lang:?}");
                assert!(list
                    .iter()
                    .all(|n| !n.is_empty() && !n.starts_with('#') && !n.contains(' ')));
            }
            assert!(
                !t.types.is_empty() || matches!(lang, Lang::Go | Lang::Bash),
                "{lang:?}"
            );
        }
    }
}
