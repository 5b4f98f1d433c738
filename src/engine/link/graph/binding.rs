//! The graph's binding rules and weights, as data: how much each kind of use weighs, the
//! binding classes (resolved, member of an import, guesses) and their weights, which names
//! are distinctive enough to guess from, and which languages share names (families). Pure
//! functions; read by the builder on rayon workers.

use super::*;
use crate::engine::base::words::has_hump;

/// A fallback name defined in more files than this is too generic to say anything.
pub const FALLBACK_MAX_DEFINERS: usize = 20;

/// Weight of a use by its kind: inheritance says the most about a dependency, a plain mention
/// (passing a value along) the least; the import statement itself counts like a mention.
pub(super) fn kind_weight(kind: RefKind) -> f64 {
    match kind {
        RefKind::Heritage => 2.0,
        RefKind::Call | RefKind::Type => 1.0,
        RefKind::Reference | RefKind::Import => 0.5,
    }
}

/// How a use was bound to its target; the weight says how sure we are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Binding {
    /// Through an import (named, namespace, wildcard, Go package qualifier) or the same Go
    /// package: the target is known.
    Resolved,
    /// `Imported.member`: a member found in the file defining the imported name.
    Member,
    /// A member use on a receiver whose type the file states, found in that type or an
    /// ancestor (`build::typed`).
    Typed,
    /// The import resolved, but no definition of the name was found in the module.
    ModuleOnly,
    /// A Go method call matched to a method of the same package.
    PackageMethod,
    /// Bare-name match of an unbound, unqualified name.
    Fallback,
    /// Bare-name match of `x.method()` where `x` is not an import.
    MethodFallback,
}

/// How a use reached a definition, or why it did not, as `map --explain` counts it: the
/// weights are `Binding`'s (an import and the same package both bind `Resolved`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BoundBy {
    /// An import names it or its module (named, namespace, wildcard, require, include).
    Import,
    /// The referencing file's own package, namespace or lexical scope has it.
    SamePackage,
    /// A member of a bound name (`Imported.member`).
    Member,
    /// A member of the receiver's type (or an ancestor's), the type as the file states it.
    Typed,
    /// A method call on a receiver of unknown type, guessed by the method's name.
    MethodGuess,
    /// A bare name no import or scope binds, guessed by the name.
    NameGuess,
    /// Dropped: the language provides the name (Ruby's `File`, Python's `len`), or the method
    /// every value has (`to_s`), and the definition is not visible from the use.
    LanguageName,
    /// Dropped: a method guess into a file that the use's file neither imports nor shares a
    /// package with (its receiver's type is not in view).
    NotVisible,
    /// Dropped: a method guess on a receiver whose type the file states, and which is the
    /// language's own or an external package's (or inherits the method from one).
    ForeignReceiver,
}

/// How many uses of `name`, from how many files, reached a file `how` (`explain_bindings`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingCount {
    pub name: String,
    pub how: BoundBy,
    pub uses: u32,
    pub files: u32,
}

impl BoundBy {
    /// Words for `map --explain`.
    pub fn label(self) -> &'static str {
        match self {
            BoundBy::Import => "by import",
            BoundBy::SamePackage => "same package or scope",
            BoundBy::Member => "member of a bound name",
            BoundBy::MethodGuess => "method guess",
            BoundBy::NameGuess => "bare-name guess",
            BoundBy::LanguageName => "dropped as the language's own name",
            BoundBy::NotVisible => "dropped: method guess out of view",
            BoundBy::Typed => "receiver's type",
            BoundBy::ForeignReceiver => "dropped: receiver's type is not the repository's",
        }
    }
}

impl Binding {
    pub(super) fn weight(self) -> f64 {
        match self {
            Binding::Resolved => 1.0,
            Binding::Member => 0.7,
            // The type is known (declared, constructed or enclosing) and the member found in
            // its container: as sure as `Imported.member`, and more, since the container is
            // checked and not only the file; short of an import naming the definition.
            Binding::Typed => 0.8,
            Binding::ModuleOnly | Binding::PackageMethod => 0.5,
            Binding::Fallback => 0.1,
            Binding::MethodFallback => 0.02,
        }
    }

    pub(super) fn is_guess(self) -> bool {
        matches!(self, Binding::Fallback | Binding::MethodFallback)
    }
}

/// Identifier multiplier. `_private` names are internal plumbing (×0.1, like aider). A long
/// camelCase/snake_case name is distinctive, so a bare-name guess on it is more likely right
/// (×3); on resolved edges the name says nothing about correctness, so no boost there.
pub(super) fn ident_multiplier(name: &str, binding: Binding) -> f64 {
    let mut m = 1.0;
    if name.starts_with('_') {
        m *= 0.1;
    }
    if binding.is_guess() && is_distinctive(name) {
        m *= 3.0;
    }
    m
}

pub(super) fn is_distinctive(name: &str) -> bool {
    let snake = name.contains('_') && name.chars().any(char::is_alphabetic);
    // A hump, not just a capital: Go's exported `Validate` is one plain word. No allocation:
    // binding asks this for every guessed edge.
    (snake || has_hump(name)) && name.chars().count() >= 8
}

/// Languages whose wildcard imports load another file's names into every file that loads
/// this one (Python star imports, C/C++ includes, Ruby requires, PHP includes, shell
/// `source`).
pub(super) fn includes_are_transitive(lang: Lang) -> bool {
    matches!(
        lang,
        Lang::Python | Lang::C | Lang::Cpp | Lang::Ruby | Lang::Php | Lang::Bash
    )
}

/// Languages where a bare name in one file can mean a type's member defined in another:
/// Java's and Kotlin's static imports, C#'s `using static`, Scala's `import A._`, and Ruby's
/// mixins (a module's methods are bare inside whatever includes it, which a require alone
/// does not show). Elsewhere a bare name reaches top-level and namespace names only, through
/// a wildcard (a C/C++ include, a Python star import, a PHP include, `export *`, a Go dot
/// import, a Rust glob) or a guess: a member is reached through its receiver or qualifier,
/// or from inside its type.
pub(super) fn wildcards_reach_members(lang: Lang) -> bool {
    matches!(
        lang,
        Lang::Java | Lang::Kotlin | Lang::CSharp | Lang::Scala | Lang::Ruby
    )
}

/// Language family: references only fall back to definitions of the same family (the
/// language table's link families: TS and JS, C and C++ share one).
pub(super) fn family(lang: Lang) -> usize {
    lang.link_index()
}
pub(super) const FAMILIES: usize = Lang::LINK_FAMILIES;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `is_distinctive` by its definition: the characters collected, then looked at in
    /// pairs.
    fn distinctive_by_pairs(name: &str) -> bool {
        let snake = name.contains('_') && name.chars().any(char::is_alphabetic);
        let chars: Vec<char> = name.chars().collect();
        let camel = chars
            .windows(2)
            .any(|w| w[0].is_lowercase() && w[1].is_uppercase());
        (snake || camel) && chars.len() >= 8
    }

    #[test]
    fn long_snake_or_camel_names_are_distinctive() {
        for name in ["parse_header", "parseHeader", "ÿparseÄrgs", "__init__x"] {
            assert!(is_distinctive(name), "{name}");
        }
        // Too short, one plain word, or a capital that is no hump.
        for name in [
            "a_b",
            "fooBar",
            "Validate",
            "VALIDATEALL",
            "URLPARSER",
            "validateall",
        ] {
            assert!(!is_distinctive(name), "{name}");
        }
    }

    proptest! {
        #[test]
        fn one_pass_agrees_with_the_pairs(name in "[a-zA-Z_0-9ÄäÿŸ]{0,14}|\\PC{0,12}") {
            prop_assert_eq!(is_distinctive(&name), distinctive_by_pairs(&name));
        }
    }
}
