//! C and C++ definitions named by their own fields: the name (or names) of a node the tags
//! query captures as `@named` (a type, typedef, alias or macro), read here rather than in
//! the query.
//!
//! Runs on rayon workers, inside `Extractor::run`. Why here: tree-sitter analyses every query
//! pattern with child nodes against the grammar when it compiles the query. On the C++ grammar
//! the patterns spelling out these names (`(class_specifier name: (type_identifier) @name
//! body: (_))` and the like) took ~13 ms of the ~18 ms the query took to compile, on every run
//! that parses a header; a pattern that only names the node costs next to nothing, and
//! reading two fields here costs two child lookups per definition.
//!
//! The names are exactly those the patterns matched, so the tags stay the same:
//! - a class, struct, union or enum specifier: its `name` when that is a plain
//!   `type_identifier` and it has a `body` (a definition, not `struct S *p;`);
//! - a typedef: each `declarator` that is a plain `type_identifier` (`typedef struct s S,
//!   *P;` names `S` only, as a function-pointer typedef names nothing);
//! - an alias declaration (`using T = …;`): its `name`, a `type_identifier`;
//! - a macro: its `name`, an identifier; an object-like macro only with a value
//!   (`#define GUARD_H` defines nothing a map shows).

use tree_sitter::Node;

/// The names `node` defines, in source order (none when it defines nothing by these rules).
pub(super) fn field_names<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let named_field = |field: &str| node.child_by_field_name(field).filter(Node::is_named);
    let name_of_kind = |kind: &str| {
        node.child_by_field_name("name")
            .filter(|n| n.kind() == kind)
    };
    let one = |name: Option<Node<'t>>| name.into_iter().collect();
    match node.kind() {
        "class_specifier" | "struct_specifier" | "union_specifier" | "enum_specifier" => {
            one(name_of_kind("type_identifier").filter(|_| named_field("body").is_some()))
        }
        "type_definition" => {
            let mut cursor = node.walk();
            let names = node
                .children_by_field_name("declarator", &mut cursor)
                .filter(|d| d.kind() == "type_identifier")
                .collect();
            names
        }
        "alias_declaration" => one(name_of_kind("type_identifier")),
        "preproc_def" => one(name_of_kind("identifier").filter(|_| named_field("value").is_some())),
        "preproc_function_def" => one(name_of_kind("identifier")),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tree_sitter::Parser;

    /// The names of every node of `kind` in `src` (C++), as text.
    fn names(src: &str, kind: &str) -> Vec<String> {
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_cpp::LANGUAGE.into())
            .unwrap();
        let tree = parser.parse(src, None).unwrap();
        let mut out = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.kind() == kind {
                for name in field_names(node) {
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
        assert_eq!(names("enum E { A, B };", "enum_specifier"), ["E"]);
    }

    #[test]
    fn a_typedef_names_its_plain_declarators() {
        assert_eq!(names("typedef struct s S, *P;", "type_definition"), ["S"]);
        assert_eq!(names("typedef int A, B;", "type_definition"), ["A", "B"]);
        assert!(names("typedef int (*fp)(int);", "type_definition").is_empty());
    }

    #[test]
    fn a_macro_is_named_when_it_defines_something() {
        assert_eq!(names("#define MAX 10\n", "preproc_def"), ["MAX"]);
        assert!(names("#define GUARD_H\n", "preproc_def").is_empty());
        assert_eq!(
            names("#define SQ(x) ((x) * (x))\n", "preproc_function_def"),
            ["SQ"]
        );
        assert_eq!(names("using T = int;", "alias_declaration"), ["T"]);
    }
}
