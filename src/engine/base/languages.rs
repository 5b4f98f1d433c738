//! The language table: every supported language and the plain facts each layer reads about
//! it (names, `--lang` families, link families, extensions). Adding a language is a row
//! here plus its grammar and tags query in `ingest::lang`. Constants and pure functions;
//! they run on whichever thread calls.

use serde::{Deserialize, Serialize};

/// A supported source language. TSX is separate from TypeScript because it has its own grammar.
/// New languages go at the end: the tag cache stores a language by its position. Everything
/// about a language that is a plain fact is its row of `LANGS`; its grammar and tags query
/// are its row of `ingest::lang`'s table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    TypeScript,
    Tsx,
    JavaScript,
    Python,
    Go,
    Rust,
    Java,
    C,
    Cpp,
    CSharp,
    Ruby,
    Php,
    Kotlin,
    Swift,
    Bash,
    Scala,
    Lua,
    Elixir,
    Hcl,
    Vue,
    Svelte,
}

/// One row of the language table: the facts every layer reads about a language.
#[derive(Debug)]
pub struct LangSpec {
    pub lang: Lang,
    /// Stable lowercase name, used in stats, JSON, query file names and code fences (the
    /// serde name of `lang`).
    pub name: &'static str,
    /// How prose writes it (README, notes, the CLI's help): `C++`, `shell`.
    pub display: &'static str,
    /// The `--lang` family: languages that share one are selected together (TSX with
    /// TypeScript; C with C++, as `.h` headers serve both).
    pub family: &'static str,
    /// Further names `--lang` takes for the family, beside the family, the name and the
    /// extensions.
    pub aliases: &'static [&'static str],
    /// The languages whose definitions a use may bind to by name, one group each (TS and JS
    /// import each other; C and C++ include each other): the graph's fallback families and
    /// the builtins tables.
    pub link_family: &'static str,
    /// File extensions, lowercase, without the dot.
    pub extensions: &'static [&'static str],
    /// A single-file component (Vue, Svelte): markup around `<script>` blocks, which are read
    /// as TypeScript or JavaScript by their `lang` attribute (`ingest::component`), and the
    /// file's own name is a definition.
    pub component: bool,
}

/// The language table, in `Lang` order (`Lang::ALL` is read from it).
pub const LANGS: [LangSpec; 21] = [
    LangSpec {
        lang: Lang::TypeScript,
        name: "typescript",
        display: "TypeScript",
        family: "ts",
        aliases: &[],
        link_family: "js",
        extensions: &["ts", "mts", "cts"],
        component: false,
    },
    LangSpec {
        lang: Lang::Tsx,
        name: "tsx",
        display: "TSX",
        family: "ts",
        aliases: &[],
        link_family: "js",
        extensions: &["tsx"],
        component: false,
    },
    LangSpec {
        lang: Lang::JavaScript,
        name: "javascript",
        display: "JavaScript",
        family: "js",
        aliases: &[],
        link_family: "js",
        extensions: &["js", "mjs", "cjs", "jsx"],
        component: false,
    },
    LangSpec {
        lang: Lang::Python,
        name: "python",
        display: "Python",
        family: "py",
        aliases: &[],
        link_family: "py",
        extensions: &["py", "pyi"],
        component: false,
    },
    LangSpec {
        lang: Lang::Go,
        name: "go",
        display: "Go",
        family: "go",
        aliases: &["golang"],
        link_family: "go",
        extensions: &["go"],
        component: false,
    },
    LangSpec {
        lang: Lang::Rust,
        name: "rust",
        display: "Rust",
        family: "rs",
        aliases: &[],
        link_family: "rs",
        extensions: &["rs"],
        component: false,
    },
    LangSpec {
        lang: Lang::Java,
        name: "java",
        display: "Java",
        family: "java",
        aliases: &[],
        link_family: "java",
        extensions: &["java"],
        component: false,
    },
    LangSpec {
        lang: Lang::C,
        name: "c",
        display: "C",
        family: "c",
        aliases: &[],
        link_family: "c",
        extensions: &["c"],
        component: false,
    },
    // A `.h` header is C++ by its extension (`walk::headers` reads one as C where the code
    // around it is C): the C++ grammar reads C declarations too, while the C grammar turns a
    // C++ class into parse errors.
    LangSpec {
        lang: Lang::Cpp,
        name: "cpp",
        display: "C++",
        family: "c",
        aliases: &[],
        link_family: "c",
        extensions: &[
            "h", "cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp", "tpp", "inl",
        ],
        component: false,
    },
    LangSpec {
        lang: Lang::CSharp,
        name: "csharp",
        display: "C#",
        family: "cs",
        aliases: &["c#"],
        link_family: "cs",
        extensions: &["cs"],
        component: false,
    },
    LangSpec {
        lang: Lang::Ruby,
        name: "ruby",
        display: "Ruby",
        family: "rb",
        aliases: &[],
        link_family: "rb",
        extensions: &["rb", "rake", "gemspec"],
        component: false,
    },
    LangSpec {
        lang: Lang::Php,
        name: "php",
        display: "PHP",
        family: "php",
        aliases: &[],
        link_family: "php",
        extensions: &["php"],
        component: false,
    },
    LangSpec {
        lang: Lang::Kotlin,
        name: "kotlin",
        display: "Kotlin",
        family: "kt",
        aliases: &[],
        link_family: "kt",
        extensions: &["kt", "kts"],
        component: false,
    },
    LangSpec {
        lang: Lang::Swift,
        name: "swift",
        display: "Swift",
        family: "swift",
        aliases: &[],
        link_family: "swift",
        extensions: &["swift"],
        component: false,
    },
    // `.zsh` stays out: zsh's own syntax (globs, `${(f)…}` flags) is parse errors to the
    // bash grammar.
    LangSpec {
        lang: Lang::Bash,
        name: "bash",
        display: "shell",
        family: "sh",
        aliases: &["shell"],
        link_family: "sh",
        extensions: &["sh", "bash"],
        component: false,
    },
    LangSpec {
        lang: Lang::Scala,
        name: "scala",
        display: "Scala",
        family: "scala",
        aliases: &[],
        link_family: "scala",
        extensions: &["scala", "sc"],
        component: false,
    },
    LangSpec {
        lang: Lang::Lua,
        name: "lua",
        display: "Lua",
        family: "lua",
        aliases: &[],
        link_family: "lua",
        extensions: &["lua"],
        component: false,
    },
    LangSpec {
        lang: Lang::Elixir,
        name: "elixir",
        display: "Elixir",
        family: "ex",
        aliases: &[],
        link_family: "ex",
        extensions: &["ex", "exs"],
        component: false,
    },
    // Terraform, Packer, Nomad and the like; `.tfvars` holds values only.
    LangSpec {
        lang: Lang::Hcl,
        name: "hcl",
        display: "HCL",
        family: "tf",
        aliases: &["terraform"],
        link_family: "tf",
        extensions: &["tf", "hcl"],
        component: false,
    },
    // Components bind names with TS and JS (`import X from './X.vue'` both ways).
    LangSpec {
        lang: Lang::Vue,
        name: "vue",
        display: "Vue",
        family: "vue",
        aliases: &[],
        link_family: "js",
        extensions: &["vue"],
        component: true,
    },
    LangSpec {
        lang: Lang::Svelte,
        name: "svelte",
        display: "Svelte",
        family: "svelte",
        aliases: &[],
        link_family: "js",
        extensions: &["svelte"],
        component: true,
    },
];

impl Lang {
    pub const ALL: [Lang; LANGS.len()] = {
        let mut all = [Lang::TypeScript; LANGS.len()];
        let mut i = 0;
        while i < LANGS.len() {
            all[i] = LANGS[i].lang;
            i += 1;
        }
        all
    };

    /// The language's row of `LANGS`.
    pub fn spec(self) -> &'static LangSpec {
        &LANGS[self as usize]
    }

    /// The language of a path, by extension. `.d.ts` is TypeScript. A `.h` header is C++
    /// (see its row).
    pub fn from_path(path: &str) -> Option<Lang> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        if ext.is_empty() || ext.len() > 8 {
            return None;
        }
        let ext = ext.to_ascii_lowercase();
        LANGS
            .iter()
            .find(|spec| spec.extensions.contains(&ext.as_str()))
            .map(|spec| spec.lang)
    }

    /// Stable lowercase name, used in stats, JSON and query file names.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The short family name `--lang` takes (`ts`, `c`, `kt`: see `LangSpec::family`).
    pub fn family(self) -> &'static str {
        self.spec().family
    }

    /// The info string for a markdown code fence: every name is one that markdown
    /// highlighters know.
    pub fn fence_tag(self) -> &'static str {
        self.name()
    }

    /// The family a `--lang` name stands for: a family, a language's name, one of its
    /// aliases or extensions (case and spaces aside).
    pub fn family_named(name: &str) -> Option<&'static str> {
        let name = name.trim().to_ascii_lowercase();
        let name = name.as_str();
        LANGS
            .iter()
            .find(|s| {
                s.family == name
                    || s.name == name
                    || s.aliases.contains(&name)
                    || s.extensions.contains(&name)
            })
            .map(|s| s.family)
    }

    /// Whether files of the language are single-file components (`LangSpec::component`).
    pub fn is_component(self) -> bool {
        self.spec().component
    }

    /// Whether the language is read by the TypeScript or JavaScript rules: TS, TSX, JS, and
    /// the components whose scripts are TS or JS.
    pub fn is_script(self) -> bool {
        self.spec().link_family == "js"
    }

    /// The families, each once, in table order: what `--lang` lists.
    pub fn families() -> Vec<&'static str> {
        let mut families: Vec<&'static str> = Vec::new();
        for spec in &LANGS {
            if !families.contains(&spec.family) {
                families.push(spec.family);
            }
        }
        families
    }

    /// The position of the language's link family (`LangSpec::link_family`) among the
    /// table's, in order of first appearance: the index of per-family tables (the graph's
    /// fallback, the builtins), below `Lang::LINK_FAMILIES`.
    pub fn link_index(self) -> usize {
        LINK_INDEX[self as usize]
    }

    /// The link family's name.
    pub fn link_family(self) -> &'static str {
        self.spec().link_family
    }

    /// How many link families the table has.
    pub const LINK_FAMILIES: usize = {
        let mut most = 0;
        let mut i = 0;
        while i < LANGS.len() {
            if LINK_INDEX[i] + 1 > most {
                most = LINK_INDEX[i] + 1;
            }
            i += 1;
        }
        most
    };
}

/// Each row's link family position (`Lang::link_index`), computed once from the table.
const LINK_INDEX: [usize; LANGS.len()] = {
    let mut index = [0; LANGS.len()];
    let mut next = 0;
    let mut i = 0;
    while i < LANGS.len() {
        let mut j = 0;
        while j < i && !same_str(LANGS[j].link_family, LANGS[i].link_family) {
            j += 1;
        }
        index[i] = if j < i {
            index[j]
        } else {
            next += 1;
            next - 1
        };
        i += 1;
    }
    index
};

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table is in `Lang` order, its names are the serde names, and no extension or
    /// `--lang` name means two families.
    #[test]
    fn language_table_is_consistent() {
        for (i, spec) in LANGS.iter().enumerate() {
            assert_eq!(spec.lang as usize, i, "{:?}", spec.lang);
            assert_eq!(Lang::ALL[i], spec.lang);
            let serde_name = serde_json::to_value(spec.lang).unwrap();
            assert_eq!(serde_name, serde_json::json!(spec.name));
            for ext in spec.extensions {
                assert_eq!(
                    Lang::from_path(&format!("a/b.{ext}")),
                    Some(spec.lang),
                    "{ext}"
                );
                assert_eq!(*ext, ext.to_ascii_lowercase());
            }
            for name in spec.aliases.iter().chain([&spec.name, &spec.family]) {
                assert_eq!(Lang::family_named(name), Some(spec.family), "{name}");
            }
            assert!(spec.lang.link_index() < Lang::LINK_FAMILIES);
            let first = LANGS
                .iter()
                .find(|s| s.link_family == spec.link_family)
                .unwrap();
            assert_eq!(first.lang.link_index(), spec.lang.link_index());
        }
        assert_eq!(Lang::families().len(), 19);
        assert_eq!(Lang::from_path("x.D.TS"), Some(Lang::TypeScript));
        assert_eq!(Lang::from_path("Makefile"), None);
        assert_eq!(Lang::from_path("a.h"), Some(Lang::Cpp));
        assert_eq!(Lang::family_named(" C++ "), Some("c"));
        assert_eq!(Lang::family_named("cobol"), None);
        // TS and JS bind each other's names; C and C++ too. The first eleven languages keep
        // the graph families they had (0–8).
        assert_eq!(Lang::Tsx.link_index(), 0);
        assert_eq!(Lang::JavaScript.link_index(), 0);
        assert_eq!(Lang::C.link_index(), Lang::Cpp.link_index());
        assert_eq!(Lang::Php.link_index(), 8);
        assert_ne!(Lang::Kotlin.link_index(), Lang::Java.link_index());
    }
}
