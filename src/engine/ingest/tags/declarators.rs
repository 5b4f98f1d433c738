//! C and C++ declarators: the function, if any, that one declarator of a declaration, field
//! declaration or function definition declares (the `@declarators` capture).
//!
//! Runs on rayon workers, inside `Extractor::run`. Done here rather than in the tags query:
//! tree-sitter analyses every query pattern against the grammar when it compiles the query,
//! and on the C++ grammar the patterns spelling out these declarator forms would be most of
//! the whole query's cost, paid by every run that parses a header. A pattern that only
//! names the declaration costs next to nothing; reading its declarators here costs a few
//! child lookups per declaration.
//!
//! The forms accepted are exactly these (the tags query would spell out the same ones):
//! - a function declarator, or one pointer or reference around it (`int *f()`, `T &f()`;
//!   a C prototype may have two pointers, `char **f(void)`);
//! - named by an identifier (a field identifier in a class body), or, in a C++ function
//!   definition, by a qualified `Type::name` (a method of `Type`), also through a nested
//!   type or a namespace (`Outer<K>::Inner::name`, `ns::Type::name`), at most
//!   `MAX_QUALIFIERS` deep.
//!
//! Anything else declares no function: variables and fields (`int x;`, `char *p = "";`,
//! `int (*fp)(int);`), destructors, operators.

use tree_sitter::Node;

use crate::engine::base::model::Lang;

/// The deepest qualification read (`a::b::c::name` has three qualifiers): the out-of-line
/// definitions of nested types' members; deeper is namespace paths of no use to a look-up.
pub(super) const MAX_QUALIFIERS: usize = 4;

/// The function one declarator declares.
pub(super) struct Declared<'t> {
    /// The identifier naming it: for `Type::name`, the `name`.
    pub name: Node<'t>,
    /// Named `Type::name`, out of line.
    pub qualified: bool,
    /// Behind a pointer or reference (the function returns one).
    pub wrapped: bool,
}

/// The function that `declarator`, one `declarator` child of `owner` (a `function_definition`,
/// `declaration` or `field_declaration`), declares, or `None` if it declares none.
pub(super) fn declared_function<'t>(
    lang: Lang,
    owner: Node<'t>,
    declarator: Node<'t>,
) -> Option<Declared<'t>> {
    let is_definition = owner.kind() == "function_definition";
    let max_wrappers = if lang == Lang::C && owner.kind() == "declaration" {
        2
    } else {
        1
    };
    let mut function = declarator;
    let mut wrappers = 0;
    while function.kind() != "function_declarator" {
        if wrappers == max_wrappers {
            return None;
        }
        wrappers += 1;
        function = match function.kind() {
            "pointer_declarator" => function.child_by_field_name("declarator")?,
            // The referenced declarator has no field name: `&` or `&&`, then the declarator.
            "reference_declarator" => {
                let mut cursor = function.walk();
                let inner = function
                    .named_children(&mut cursor)
                    .find(|c| c.kind() == "function_declarator")?;
                inner
            }
            _ => return None,
        };
    }
    let name = function.child_by_field_name("declarator")?;
    let wrapped = wrappers > 0;
    match name.kind() {
        "identifier" | "field_identifier" => Some(Declared {
            name,
            qualified: false,
            wrapped,
        }),
        "qualified_identifier" if is_definition => {
            let name = innermost_name(name)?;
            Some(Declared {
                name,
                qualified: true,
                wrapped,
            })
        }
        _ => None,
    }
}

/// The member one declarator of a C/C++ `field_declaration` that declares no function
/// names: its field identifier, through pointers, arrays, references, parentheses and a
/// function pointer's parameter list (`*name`, `name[4]`, `(*name)(int)`), at most
/// `MAX_FIELD_WRAPPERS` deep.
pub(super) fn declared_field(declarator: Node<'_>) -> Option<Node<'_>> {
    let mut at = declarator;
    for _ in 0..=MAX_FIELD_WRAPPERS {
        at = match at.kind() {
            "field_identifier" => return Some(at),
            "pointer_declarator" | "array_declarator" | "function_declarator" => {
                at.child_by_field_name("declarator")?
            }
            "reference_declarator" | "parenthesized_declarator" | "attributed_declarator" => {
                let mut cursor = at.walk();
                let inner = at
                    .named_children(&mut cursor)
                    .find(|c| c.kind() != "attribute_declaration")?;
                inner
            }
            _ => return None,
        };
    }
    None
}

/// Declarator wrappers read around a field's name (`(*(*table)[8])(int)` has five).
const MAX_FIELD_WRAPPERS: usize = 6;

/// The name a qualified identifier ends with (`A<K>::B::name` → `name`; tree-sitter nests
/// `B::name` as the outer one's `name`), when it is an identifier within `MAX_QUALIFIERS`.
fn innermost_name(qualified: Node<'_>) -> Option<Node<'_>> {
    let mut name = qualified.child_by_field_name("name")?;
    for _ in 1..MAX_QUALIFIERS {
        if name.kind() != "qualified_identifier" {
            break;
        }
        name = name.child_by_field_name("name")?;
    }
    (name.kind() == "identifier").then_some(name)
}

/// The scopes of a qualified identifier's owner, outermost first: (`A<K>::B::name` → the
/// nodes `A<K>` and `B`; `T::name` → `T` alone). The innermost is the type the name is a
/// member of.
pub(super) fn owner_scopes(qualified: Node<'_>) -> Vec<Node<'_>> {
    let mut scopes = Vec::new();
    let mut at = qualified;
    while at.kind() == "qualified_identifier" && scopes.len() < MAX_QUALIFIERS {
        let Some(scope) = at.child_by_field_name("scope") else {
            break;
        };
        scopes.push(scope);
        match at.child_by_field_name("name") {
            Some(name) => at = name,
            None => break,
        }
    }
    scopes
}

/// The name a C++ scope is written with: `SkipList<K, C>` → `SkipList`.
pub(super) fn scope_name(scope: Node<'_>) -> Option<Node<'_>> {
    match scope.kind() {
        "template_type" => scope.child_by_field_name("name"),
        _ => Some(scope),
    }
}
