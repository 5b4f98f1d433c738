//! Definitions named by their own fields: the name (or names) of a node the tags query
//! captures as `@named`, read here rather than in the query. C and C++ types, typedefs,
//! aliases and macros; Ruby classes, modules, methods and constants; C# and TypeScript
//! declarations; TS/JS named callbacks.
//!
//! Runs on rayon workers, inside `Extractor::run`. Why here: tree-sitter analyses every query
//! pattern with child nodes against the grammar when it compiles the query. The patterns
//! spelling out these names (`(class_specifier name: (type_identifier) @name body: (_))` and
//! the like) would be most of the C++ and Ruby queries' compile and a good part of C#'s and
//! TypeScript's, on every run that parses such a file. A pattern that only names the node costs next to nothing, and reading a
//! field or two here costs a few child lookups per node.
//!
//! The names are exactly those the patterns matched, so the tags stay the same:
//! - C/C++ class, struct, union or enum specifier: its `name` when that is a plain
//!   `type_identifier`, or a specialization's template name (`struct formatter<T, C>`
//!   names `formatter`), and it has a `body` (a definition, not `struct S *p;`);
//! - C/C++ typedef: each `declarator` that is a plain `type_identifier` (`typedef struct s S,
//!   *P;` names `S` only), or a function type's (`typedef void (*cb)(int)` names `cb`,
//!   `typedef void *(*load)(int)` names `load`);
//! - C++ alias declaration (`using T = …;`): its `name`, a `type_identifier`;
//! - but no typedef or alias in a function's body (a local: `using T = limits<To>;` there
//!   would take every use of a template's `T`);
//! - C/C++ macro: its `name`, an identifier; an object-like macro without a value
//!   (`#define GUARD_H`) is a marker (`Definition::lookup_only`): found by a look-up, not shown;
//! - Ruby class or module: its `name`, a constant or a `A::B` scope resolution (then the whole
//!   of it, which the extractor reads);
//! - Ruby method or singleton method: its `name`;
//! - Ruby assignment: its `left` side when that is a constant (`VERSION = "1.0"`);
//! - Ruby `attr_accessor :a, :b` (or `attr_reader`, `attr_writer`) in a class's, module's or
//!   `class << self` body: each symbol, a field (the definition's name drops its colon);
//! - C# type, delegate, method, constructor or property: its `name`, an identifier;
//! - TypeScript function, generator, function signature or enum: its `name`, an identifier;
//!   class, abstract class, interface or type alias: its `name`, a `type_identifier`;
//! - Elixir `defmodule A.B` (or `defprotocol`): the alias `A.B`; `def f(x)`, `def f(x) when
//!   …`, `def f` (and `defp`, `defmacro`, …): `f`;
//! - Terraform block: its last label (`resource "t" "name"`, `variable "name"`).
//! - TS/JS function expression passed as an argument (a named callback): its `name`, an
//!   identifier.

use tree_sitter::Node;

use crate::engine::base::model::Lang;

/// The names `node` defines, in source order (none when it defines nothing by these rules).
pub(super) fn field_names<'t>(lang: Lang, node: Node<'t>, src: &str) -> Vec<Node<'t>> {
    match lang {
        Lang::Ruby if node.kind() == "call" => ruby_accessor_names(node, src),
        Lang::Ruby => ruby_name(node).into_iter().collect(),
        Lang::CSharp => name_of_kind(node, "identifier").into_iter().collect(),
        Lang::TypeScript | Lang::Tsx | Lang::JavaScript => ts_name(node, src).into_iter().collect(),
        Lang::C | Lang::Cpp => c_names(node),
        Lang::Elixir => elixir_name(node).into_iter().collect(),
        Lang::Hcl => hcl_name(node).into_iter().collect(),
        // No other language's query captures `@named`.
        _ => Vec::new(),
    }
}

/// An Elixir definition's name: the first argument of the `def…` call, through a call head
/// (`f(x)`) and a guard (`f(x) when …`).
fn elixir_name(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    let arguments = node
        .named_children(&mut cursor)
        .find(|c| c.kind() == "arguments")?;
    let mut head = arguments.named_child(0)?;
    if head.kind() == "binary_operator" {
        head = head.child_by_field_name("left")?;
    }
    match head.kind() {
        "alias" | "identifier" => Some(head),
        "call" => head
            .child_by_field_name("target")
            .filter(|t| t.kind() == "identifier"),
        _ => None,
    }
}

/// A Terraform block's last label, without its quotes.
fn hcl_name(node: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = node.walk();
    let label = node
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "string_lit")
        .last()?;
    let mut cursor = label.walk();
    let literal = label
        .named_children(&mut cursor)
        .find(|c| c.kind() == "template_literal");
    literal
}

fn c_names<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    // A typedef or alias in a function's body is a local, as a variable there is.
    if matches!(node.kind(), "type_definition" | "alias_declaration")
        && node
            .parent()
            .is_some_and(|p| p.kind() == "compound_statement")
    {
        return Vec::new();
    }
    let named_field = |field: &str| node.child_by_field_name(field).filter(Node::is_named);
    let name_of_kind = |kind: &str| name_of_kind(node, kind);
    let one = |name: Option<Node<'t>>| name.into_iter().collect();
    match node.kind() {
        "class_specifier" | "struct_specifier" | "union_specifier" | "enum_specifier" => {
            // A specialization (`struct formatter<std::tm, Char> { … }`) defines the
            // template's name again, for these arguments: its members are that type's.
            let specialized = || {
                name_of_kind("template_type")
                    .and_then(|t| t.child_by_field_name("name"))
                    .filter(|n| n.kind() == "type_identifier")
            };
            one(name_of_kind("type_identifier")
                .or_else(specialized)
                .filter(|_| named_field("body").is_some()))
        }
        "type_definition" => {
            let mut cursor = node.walk();
            let names = node
                .children_by_field_name("declarator", &mut cursor)
                .filter_map(|d| match d.kind() {
                    "type_identifier" => Some(d),
                    "function_declarator" => function_type_name(d),
                    // A pointer type (`typedef struct yy_buffer_state *YY_BUFFER_STATE`), or a
                    // function type returning a pointer (`typedef void *(*load_fn)(int)`):
                    // the stars wrap the name or the function declarator.
                    "pointer_declarator" => {
                        let mut inner = d;
                        while inner.kind() == "pointer_declarator" {
                            inner = inner.child_by_field_name("declarator")?;
                        }
                        match inner.kind() {
                            "type_identifier" => Some(inner),
                            "function_declarator" => function_type_name(inner),
                            _ => None,
                        }
                    }
                    _ => None,
                })
                .collect();
            names
        }
        "alias_declaration" => one(name_of_kind("type_identifier")),
        "preproc_def" => one(name_of_kind("identifier")),
        "preproc_function_def" => one(name_of_kind("identifier")),
        _ => Vec::new(),
    }
}

/// The name a function type's typedef declares: `typedef void (*cb)(int)` (a pointer to
/// it, in parentheses) or `typedef void fn_t(int)`; none for a pointer to a pointer or an
/// array of them.
fn function_type_name(declarator: Node<'_>) -> Option<Node<'_>> {
    let inner = declarator.child_by_field_name("declarator")?;
    match inner.kind() {
        "type_identifier" => Some(inner),
        "parenthesized_declarator" => {
            let pointer = inner
                .named_child(0)
                .filter(|p| p.kind() == "pointer_declarator")?;
            pointer
                .child_by_field_name("declarator")
                .filter(|n| n.kind() == "type_identifier")
        }
        _ => None,
    }
}

fn ts_name<'t>(node: Node<'t>, src: &str) -> Option<Node<'t>> {
    let kind = match node.kind() {
        // A named callback (`boot(function manageTimeout (err) {…})`) or a property's named
        // function (`get: function getRouter() {…}`); a named function bound to a name
        // (`const f = function g() {}`, `parse: function parse()`) is defined by that name
        // instead. A returned one (`return function jwk(c, next)` in `const jwk = …`) mostly
        // repeats its factory's name.
        "function_expression" => {
            let name = name_of_kind(node, "identifier")?;
            let parent = node.parent()?;
            let named_here = match parent.kind() {
                "arguments" => true,
                "pair" => parent
                    .child_by_field_name("key")
                    .is_some_and(|key| src.get(key.byte_range()) != src.get(name.byte_range())),
                _ => false,
            };
            return named_here.then_some(name);
        }
        "function_declaration"
        | "generator_function_declaration"
        | "function_signature"
        | "enum_declaration" => "identifier",
        "class_declaration"
        | "abstract_class_declaration"
        | "interface_declaration"
        | "type_alias_declaration" => "type_identifier",
        _ => return None,
    };
    name_of_kind(node, kind)
}

/// `node`'s `name` field when it is a node of `kind`.
fn name_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    node.child_by_field_name("name")
        .filter(|name| name.kind() == kind)
}

fn ruby_name(node: Node<'_>) -> Option<Node<'_>> {
    match node.kind() {
        "class" | "module" => node.child_by_field_name("name").filter(|name| {
            name.kind() == "constant"
                || (name.kind() == "scope_resolution"
                    && name
                        .child_by_field_name("name")
                        .is_some_and(|n| n.is_named()))
        }),
        "method" | "singleton_method" => node.child_by_field_name("name").filter(Node::is_named),
        "assignment" => node
            .child_by_field_name("left")
            .filter(|left| left.kind() == "constant"),
        _ => None,
    }
}

/// The attributes `attr_accessor :a, :b` (`attr_reader`, `attr_writer`) declares: its
/// symbol arguments, when the call has no receiver and stands in a class's, module's or
/// `class << self` body. Any other call defines nothing.
fn ruby_accessor_names<'t>(node: Node<'t>, src: &str) -> Vec<Node<'t>> {
    let declares = node.child_by_field_name("receiver").is_none()
        && node
            .child_by_field_name("method")
            .and_then(|m| src.get(m.start_byte()..m.end_byte()))
            .is_some_and(|m| matches!(m, "attr_accessor" | "attr_reader" | "attr_writer"))
        && node
            .parent()
            .filter(|body| body.kind() == "body_statement")
            .and_then(|body| body.parent())
            .is_some_and(|owner| matches!(owner.kind(), "class" | "module" | "singleton_class"));
    let Some(arguments) = node.child_by_field_name("arguments").filter(|_| declares) else {
        return Vec::new();
    };
    let mut cursor = arguments.walk();
    arguments
        .named_children(&mut cursor)
        .filter(|a| a.kind() == "simple_symbol")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree_sitter::Parser;

    /// The names of every node of `kind` in `src` (C++), as text.
    fn names(src: &str, kind: &str) -> Vec<String> {
        names_in(Lang::Cpp, src, kind)
    }

    fn names_in(lang: Lang, src: &str, kind: &str) -> Vec<String> {
        let mut parser = Parser::new();
        let grammar: tree_sitter::Language = match lang {
            Lang::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Lang::CSharp => tree_sitter_c_sharp::LANGUAGE.into(),
            _ => tree_sitter_cpp::LANGUAGE.into(),
        };
        parser.set_language(&grammar).unwrap();
        let tree = parser.parse(src, None).unwrap();
        let mut out = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.kind() == kind {
                for name in field_names(lang, node, src) {
                    out.push(src[name.byte_range()].to_string());
                }
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        out.sort();
        out
    }

    #[test]
    fn a_type_is_named_only_where_it_is_defined() {
        assert_eq!(names("struct S { int x; };", "struct_specifier"), ["S"]);
        assert!(names("struct S *p;", "struct_specifier").is_empty());
        assert!(names("struct { int x; } anon;", "struct_specifier").is_empty());
        assert!(names("class ns::C {};", "class_specifier").is_empty());
        assert_eq!(
            names(
                "template <typename C> struct formatter<std::tm, C> { int f(); };",
                "struct_specifier"
            ),
            ["formatter"]
        );
        assert!(names("struct formatter<std::tm, char> *p;", "struct_specifier").is_empty());
        assert_eq!(names("enum E { A, B };", "enum_specifier"), ["E"]);
    }

    #[test]
    fn a_typedef_names_its_plain_declarators() {
        assert_eq!(
            names("typedef struct s S, *P, **PP;", "type_definition"),
            ["P", "PP", "S"]
        );
        assert_eq!(
            names(
                "typedef struct yy_buffer_state *YY_BUFFER_STATE;",
                "type_definition"
            ),
            ["YY_BUFFER_STATE"]
        );
        assert_eq!(names("typedef int A, B;", "type_definition"), ["A", "B"]);
        assert_eq!(names("typedef int (*fp)(int);", "type_definition"), ["fp"]);
        assert_eq!(
            names("typedef void fn_t(int);", "type_definition"),
            ["fn_t"]
        );
        assert_eq!(
            names("typedef void *(*load_fn)(int);", "type_definition"),
            ["load_fn"]
        );
        assert_eq!(
            names("typedef char **(*argv_fn)(void);", "type_definition"),
            ["argv_fn"]
        );
        assert!(names("typedef int (**fpp)(int);", "type_definition").is_empty());
        assert!(names("typedef int (*arr[4])(int);", "type_definition").is_empty());
    }

    #[test]
    fn a_macro_is_named_with_or_without_a_value() {
        assert_eq!(names("#define MAX 10\n", "preproc_def"), ["MAX"]);
        // A marker (`Definition::lookup_only`, set by the extractor): named all the same.
        assert_eq!(names("#define GUARD_H\n", "preproc_def"), ["GUARD_H"]);
        assert_eq!(
            names("#define SQ(x) ((x) * (x))\n", "preproc_function_def"),
            ["SQ"]
        );
        assert_eq!(names("using T = int;", "alias_declaration"), ["T"]);
        // Locals of a function body.
        assert!(names("void f() { using T = int; }", "alias_declaration").is_empty());
        assert!(names("void f() { typedef int T; }", "type_definition").is_empty());
    }

    #[test]
    fn ruby_definitions_are_named_as_the_patterns_did() {
        let rb = |src: &str, kind: &str| names_in(Lang::Ruby, src, kind);
        assert_eq!(rb("class Foo\nend\n", "class"), ["Foo"]);
        assert_eq!(rb("class A::B < C\nend\n", "class"), ["A::B"]);
        assert_eq!(rb("module M\nend\n", "module"), ["M"]);
        assert_eq!(rb("def run(x)\nend\n", "method"), ["run"]);
        assert_eq!(rb("def self.build\nend\n", "singleton_method"), ["build"]);
        assert_eq!(rb("VERSION = \"1.0\"\n", "assignment"), ["VERSION"]);
        assert!(rb("x = 1\n", "assignment").is_empty());
        assert!(rb("A::B = 1\n", "assignment").is_empty());
    }

    #[test]
    fn csharp_declarations_are_named_by_their_identifier() {
        let src = "class C { int P { get; set; } C() {} void M() {} }";
        let cs = |kind: &str| names_in(Lang::CSharp, src, kind);
        assert_eq!(cs("class_declaration"), ["C"]);
        assert_eq!(cs("constructor_declaration"), ["C"]);
        assert_eq!(cs("method_declaration"), ["M"]);
        assert_eq!(cs("property_declaration"), ["P"]);
    }
}
