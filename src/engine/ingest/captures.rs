//! The capture names a tags query may use (`assets/queries/<lang>-tags.scm`) and what each
//! means to the extractor (`tags`). The language table (`lang`) checks a query's names
//! against this list when it compiles it, so a misspelt capture is a compile error rather
//! than silently missing tags. Pure functions.

use crate::engine::base::model::DefKind;

/// What a capture name in a tags query means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CaptureRole {
    Name,
    Definition(DefSpec),
    /// C/C++: a declaration or function definition whose declarators name the functions it
    /// defines; no `@name` (see `declarators`).
    Declarators,
    /// A definition named by its own fields (C/C++ types, typedefs, aliases and macros; Ruby
    /// classes, modules, methods and constants; C# and TypeScript declarations); no `@name`
    /// (see `named`).
    Named,
    Outer,
    ClassBody,
    /// A module-level object literal: its methods and function-valued properties are
    /// definitions (see `scan_object_members`).
    ObjectMembers,
    /// TS/JS: the program, whose module-level constants, variables and object literals are
    /// found by the extractor (see `scan_module`).
    Module,
    /// TS/JS: an assignment, which defines the members it assigns a function to (see
    /// `Extractor::scan_assignment`).
    Assignment,
    /// A container that is not a definition: a Rust `impl` or `mod`, a namespace or package
    /// declaration, a Ruby `class << self` (see `tags::containers`).
    Container,
    Import,
    ImportBinding,
    /// TS/JS: a variable declarator whose value may be a `require(…)` or `await import(…)`
    /// call: an import bound to the declarator's name (see `Extractor::declared_import`).
    ImportDeclarator,
    /// `@_foo`: only used by predicates.
    Helper,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DefSpec {
    Kind(DefKind),
    /// A Go `type_spec`: struct, interface or alias depending on its type.
    GoType,
}

/// The role of a capture name, or `None` if the name is not part of the query contract.
pub(crate) fn capture_role(name: &str) -> Option<CaptureRole> {
    if name.starts_with('_') {
        return Some(CaptureRole::Helper);
    }
    let role = match name {
        "name" => CaptureRole::Name,
        "declarators" => CaptureRole::Declarators,
        "named" => CaptureRole::Named,
        "outer" => CaptureRole::Outer,
        "class_body" => CaptureRole::ClassBody,
        "object_members" => CaptureRole::ObjectMembers,
        "module" => CaptureRole::Module,
        "assignment" => CaptureRole::Assignment,
        "container" => CaptureRole::Container,
        "import" => CaptureRole::Import,
        "import.binding" => CaptureRole::ImportBinding,
        "import.declarator" => CaptureRole::ImportDeclarator,
        "definition.type" => CaptureRole::Definition(DefSpec::GoType),
        _ => {
            let kind = match name.strip_prefix("definition.")? {
                "function" => DefKind::Function,
                "method" => DefKind::Method,
                "class" => DefKind::Class,
                "interface" => DefKind::Interface,
                "type_alias" => DefKind::TypeAlias,
                "enum" => DefKind::Enum,
                "struct" => DefKind::Struct,
                "constant" => DefKind::Constant,
                "variable" => DefKind::Variable,
                "module" => DefKind::Module,
                "field" => DefKind::Field,
                _ => return None,
            };
            CaptureRole::Definition(DefSpec::Kind(kind))
        }
    };
    Some(role)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_roles() {
        assert_eq!(capture_role("name"), Some(CaptureRole::Name));
        assert_eq!(
            capture_role("object_members"),
            Some(CaptureRole::ObjectMembers)
        );
        assert_eq!(
            capture_role("definition.type_alias"),
            Some(CaptureRole::Definition(DefSpec::Kind(DefKind::TypeAlias)))
        );
        // References are found by the walk (`refs`), not by query captures.
        assert_eq!(capture_role("reference.call"), None);
        assert_eq!(capture_role("ignore"), None);
        assert_eq!(capture_role("_require"), Some(CaptureRole::Helper));
        assert_eq!(
            capture_role("definition.module"),
            Some(CaptureRole::Definition(DefSpec::Kind(DefKind::Module)))
        );
        assert_eq!(capture_role("definition.namespace"), None);
        assert_eq!(capture_role("reference.class"), None);
        assert_eq!(capture_role("doc"), None);
    }
}
