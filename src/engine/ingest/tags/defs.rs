//! Definitions as the map and search see them: the kind a captured definition really has,
//! its lines and signature, and its nesting (parent, container, scope lines, methods of a
//! type; the containers themselves are `containers`').
//!
//! Runs on rayon workers, at the end of `Extractor::run`, once the walk has captured every
//! definition of the file.

use std::cmp::Reverse;

use tree_sitter::Node;

use super::containers::{rust_type_name, Member, Nesting};
use super::{declarators, end_row, line_of, DefCandidate, Extractor, MAX_SIGNATURE_LINES};
use crate::engine::base::model::{Container, ContainerRef, DefKind, Definition, Lang, LineRange};
use crate::engine::ingest::captures::DefSpec;

/// A definition without a body shows all its lines when it has at most this many.
const SHORT_DEFINITION_LINES: u32 = 3;

impl<'s> Extractor<'s, '_> {
    /// The file's definitions in source order, and the table of their containers.
    pub(super) fn build_defs(&self) -> (Vec<Definition>, Vec<Container>) {
        struct Resolved<'t, 's> {
            node: Node<'t>,
            name: &'s str,
            name_id: usize,
            def: Definition,
        }
        let mut resolved: Vec<Resolved> = self
            .defs
            .iter()
            .filter_map(|cand| {
                let kind = self.resolve_kind(cand)?;
                let name = self.text(cand.name)?;
                // A Ruby attribute is named by a symbol (`attr_reader :name`): the name is
                // the symbol's, without its colon.
                let name = match cand.name.kind() {
                    "simple_symbol" => name.strip_prefix(':').unwrap_or(name),
                    _ => name,
                };
                if name.is_empty() {
                    return None;
                }
                let node = cand.node;
                let mut first = node.start_position().row;
                let mut last = end_row(node);
                if let Some((o_first, o_last)) = cand.outer_rows {
                    first = first.min(o_first);
                    last = last.max(o_last);
                }
                if let Some(&row) = self.decorated_from.get(&node.id()) {
                    first = first.min(row);
                }
                let lines = LineRange::new(line_of(first), line_of(last));
                let signature = signature_lines(lines, self.body_open_row(node).map(line_of));
                Some(Resolved {
                    node,
                    name,
                    name_id: cand.name.id(),
                    def: Definition {
                        name: name.to_owned(),
                        kind,
                        lines,
                        signature,
                        parent: None,
                        scope_lines: Vec::new(),
                        container: ContainerRef::NONE,
                        declaration: self.is_declaration(node, kind),
                        lookup_only: kind == DefKind::Field
                            || (node.kind() == "preproc_def"
                                && node.child_by_field_name("value").is_none()),
                    },
                })
            })
            .collect();

        // Nesting from byte ranges: sorted by start (outer first on ties), an enclosing
        // definition is still open when its children are visited.
        resolved.sort_by(|a, b| {
            (a.node.start_byte(), Reverse(a.node.end_byte()), a.name).cmp(&(
                b.node.start_byte(),
                Reverse(b.node.end_byte()),
                b.name,
            ))
        });
        let mut nesting = Nesting::new(self, &self.containers, resolved.iter().map(|r| r.node));
        for item in &mut resolved {
            let (start, end) = (item.node.start_byte(), item.node.end_byte());
            nesting.enter(start, end);
            let top = nesting.innermost_def();
            if let Some((name, kind)) = top {
                item.def.parent = Some(name.to_owned());
                if self.lang == Lang::Python
                    && item.def.kind == DefKind::Function
                    && kind == DefKind::Class
                {
                    item.def.kind = DefKind::Method;
                }
            }
            // Only the innermost scopes: a copy of the whole chain per definition would cost
            // quadratic memory in the nesting depth (50,000 nested functions: 9.7 GB).
            item.def.scope_lines = nesting.scope_lines();
            let mut receiver = None;
            if self.lang == Lang::Go && item.def.kind == DefKind::Method {
                receiver = self.go_receiver_type(item.node);
                item.def.parent = receiver.map(str::to_owned);
            }
            let mut owner = None;
            if matches!(item.def.kind, DefKind::Function | DefKind::Method)
                && has_methods_in_types(self.lang)
            {
                // A function in a class body, or a trait's; Rust `impl T { fn … }` and C++
                // `T::f` out of line: a method of `T`.
                let in_type = top.is_some_and(|(_, kind)| {
                    matches!(
                        kind,
                        DefKind::Class | DefKind::Struct | DefKind::Interface | DefKind::Enum
                    )
                });
                if item.def.parent.is_none() {
                    owner = self.impl_owner(item.node);
                }
                if in_type || owner.is_some() {
                    item.def.kind = DefKind::Method;
                }
                if let Some(owner) = owner {
                    item.def.parent = Some(owner.to_owned());
                }
            }
            if self.declared_by_constructor(item.node) {
                // A parameter property's or a `self.x` of `__init__`'s container and parent
                // are its class's, as a field's in the class body are.
                item.def.container = nesting.enclosing_def_container();
                item.def.parent = nesting
                    .container_name(item.def.container)
                    .map(str::to_owned);
            } else {
                let member = match self.assigned_to.get(&item.name_id) {
                    Some(&to) => Member::assigned(to),
                    None => self.member(item.node, receiver, owner),
                };
                item.def.container = nesting.container_of(member);
            }
            let header = line_of(item.node.start_position().row);
            nesting.open_def(
                start,
                end,
                item.name,
                item.def.kind,
                item.def.container,
                header,
            );
        }

        let mut defs: Vec<Definition> = resolved.into_iter().map(|r| r.def).collect();
        defs.sort_by(|a, b| {
            (a.lines.start, &a.name, a.kind, a.lines.end).cmp(&(
                b.lines.start,
                &b.name,
                b.kind,
                b.lines.end,
            ))
        });
        // A field set twice in its class (`self.x = None` … `self.x = x`, or a class variable
        // `__init__` sets again) is defined where it is first.
        let mut seen_fields = std::collections::HashSet::new();
        defs.retain(|d| {
            d.kind != DefKind::Field
                || d.container.is_none()
                || seen_fields.insert((d.container, d.name.clone()))
        });
        // The collect above reuses the buffer of the larger `Resolved` items: give the slack
        // back, the definitions live as long as the index.
        defs.shrink_to_fit();
        (defs, nesting.finish())
    }

    /// The kind a captured definition really has, or `None` to drop it.
    fn resolve_kind(&self, cand: &DefCandidate) -> Option<DefKind> {
        let node = cand.node;
        match cand.spec {
            DefSpec::GoType => Some(match node.child_by_field_name("type").map(|t| t.kind()) {
                Some("struct_type") => DefKind::Struct,
                Some("interface_type") => DefKind::Interface,
                _ => DefKind::TypeAlias,
            }),
            DefSpec::Kind(kind @ (DefKind::Constant | DefKind::Variable)) => match self.lang {
                Lang::TypeScript | Lang::Tsx | Lang::JavaScript => {
                    let Some(value) = node.child_by_field_name("value") else {
                        return Some(kind);
                    };
                    match value.kind() {
                        "arrow_function"
                        | "function_expression"
                        | "function"
                        | "generator_function" => Some(DefKind::Function),
                        "class" => Some(DefKind::Class),
                        // `const fs = require('fs')` is an import, not a definition.
                        _ if self.is_module_load(value) => None,
                        _ => Some(kind),
                    }
                }
                Lang::Python => {
                    let name = self.text(cand.name)?;
                    let upper = name.chars().any(|c| c.is_ascii_uppercase())
                        && !name.chars().any(char::is_lowercase);
                    Some(if upper {
                        DefKind::Constant
                    } else {
                        DefKind::Variable
                    })
                }
                Lang::Kotlin if self.has_modifier(node, "const") => Some(DefKind::Constant),
                _ => Some(kind),
            },
            DefSpec::Kind(DefKind::Class) => Some(self.class_kind(node)),
            DefSpec::Kind(kind) => Some(kind),
        }
    }

    /// Kotlin and Swift declare classes, interfaces, enums and structs with one node kind:
    /// the keyword says which.
    fn class_kind(&self, node: Node) -> DefKind {
        match (self.lang, node.kind()) {
            (Lang::Kotlin, "class_declaration") => {
                let mut cursor = node.walk();
                let interface = node.children(&mut cursor).any(|c| c.kind() == "interface");
                if interface {
                    DefKind::Interface
                } else if self.has_modifier(node, "enum") {
                    DefKind::Enum
                } else {
                    DefKind::Class
                }
            }
            (Lang::Swift, "class_declaration") => {
                match node
                    .child_by_field_name("declaration_kind")
                    .map(|k| k.kind())
                {
                    Some("struct") => DefKind::Struct,
                    Some("enum") => DefKind::Enum,
                    _ => DefKind::Class,
                }
            }
            _ => DefKind::Class,
        }
    }

    /// Kotlin: whether a declaration's `modifiers` hold this keyword.
    fn has_modifier(&self, node: Node, keyword: &str) -> bool {
        let mut cursor = node.walk();
        let modifiers = node
            .named_children(&mut cursor)
            .find(|c| c.kind() == "modifiers");
        modifiers.is_some_and(|m| {
            let mut cursor = m.walk();
            let found = m
                .named_children(&mut cursor)
                .any(|c| self.text(c) == Some(keyword));
            found
        })
    }

    /// Whether a definition of `kind` is declared by `node` without a body (see
    /// `Definition::declaration`): a TS signature (an interface or abstract member, an
    /// overload or `declare` function, a member typed as a function), a Rust trait's
    /// function without a default, a Java, C# or PHP method without a body (interface,
    /// abstract, `extern`), a C/C++ prototype or member declared in its class.
    fn is_declaration(&self, node: Node, kind: DefKind) -> bool {
        if !matches!(kind, DefKind::Function | DefKind::Method) {
            return false;
        }
        match node.kind() {
            "function_signature"
            | "method_signature"
            | "abstract_method_signature"
            | "property_signature"
            | "function_signature_item"
            | "declaration"
            | "field_declaration" => true,
            // An abstract member typed as a function; one with a function value has a body.
            "public_field_definition" => node.child_by_field_name("value").is_none(),
            // `= default` / `= delete` in C++ too.
            "method_declaration" | "function_definition" => {
                node.child_by_field_name("body").is_none()
            }
            _ => false,
        }
    }

    /// `require('x')`, `import('x')` or `await import('x')`.
    fn is_module_load(&self, value: Node) -> bool {
        let call = if value.kind() == "await_expression" {
            match value.named_child(0) {
                Some(inner) => inner,
                None => return false,
            }
        } else {
            value
        };
        if call.kind() != "call_expression" {
            return false;
        }
        match call.child_by_field_name("function") {
            Some(f) if f.kind() == "import" => true,
            Some(f) if f.kind() == "identifier" => self.text(f) == Some("require"),
            _ => false,
        }
    }

    /// The row where a definition's body opens, if it has one.
    fn body_open_row(&self, node: Node) -> Option<usize> {
        match self.lang {
            Lang::Python => {
                // The body block starts at its first statement, usually on the next line; the
                // header ends at the `:` before it.
                let body = node.child_by_field_name("body")?;
                let mut cursor = node.walk();
                let colon = node
                    .children(&mut cursor)
                    .filter(|c| c.kind() == ":" && c.start_byte() <= body.start_byte())
                    .last();
                Some(colon.map_or(body.start_position().row, |c| c.start_position().row))
            }
            Lang::Go => match node.kind() {
                "type_spec" => {
                    let ty = node.child_by_field_name("type")?;
                    let mut cursor = ty.walk();
                    let open = ty
                        .children(&mut cursor)
                        .find(|c| matches!(c.kind(), "field_declaration_list" | "{"))?;
                    Some(open.start_position().row)
                }
                _ => Some(node.child_by_field_name("body")?.start_position().row),
            },
            Lang::Ruby => {
                // No brace: the header ends with the name, parameters or superclass; the body
                // starts at its first statement.
                let header_end = ["name", "parameters", "superclass", "object"]
                    .iter()
                    .filter_map(|f| node.child_by_field_name(f))
                    .map(end_row)
                    .max()?;
                Some(header_end)
            }
            Lang::Rust | Lang::Java | Lang::C | Lang::Cpp | Lang::CSharp | Lang::Php => {
                let body = node.child_by_field_name("body").or_else(|| {
                    // A class template's body is its class's.
                    let mut cursor = node.walk();
                    let inner = node
                        .named_children(&mut cursor)
                        .find(|c| c.child_by_field_name("body").is_some());
                    inner.and_then(|c| c.child_by_field_name("body"))
                })?;
                let row = body.start_position().row;
                // A brace alone on its line (C#, PHP, Allman style) is not part of the
                // signature: the header ends on the line before.
                let line_start = body.start_byte() - body.start_position().column;
                let brace_alone = row > node.start_position().row
                    && self
                        .src
                        .get(line_start..body.start_byte())
                        .is_some_and(|before| before.trim().is_empty());
                Some(if brace_alone { row - 1 } else { row })
            }
            Lang::Kotlin | Lang::Swift | Lang::Bash | Lang::Scala | Lang::Elixir | Lang::Hcl => {
                let body = node.child_by_field_name("body").or_else(|| {
                    let mut cursor = node.walk();
                    let body = node.children(&mut cursor).find(|c| {
                        matches!(
                            c.kind(),
                            "class_body"
                                | "enum_class_body"
                                | "function_body"
                                | "computed_value"
                                | "do_block"
                                | "block_start"
                        )
                    });
                    body
                })?;
                let row = body.start_position().row;
                let line_start = body.start_byte() - body.start_position().column;
                let brace_alone = row > node.start_position().row
                    && self
                        .src
                        .get(line_start..body.start_byte())
                        .is_some_and(|before| before.trim().is_empty());
                Some(if brace_alone { row - 1 } else { row })
            }
            // The body starts at its first statement: the header ends with the parameters.
            Lang::Lua => {
                let function = if node.kind() == "assignment_statement" {
                    let mut cursor = node.walk();
                    let values = node
                        .named_children(&mut cursor)
                        .find(|c| c.kind() == "expression_list")?;
                    values.named_child(0)?
                } else {
                    node
                };
                Some(end_row(function.child_by_field_name("parameters")?))
            }
            // Components are tagged as the TS or JS of their scripts (`tags::parser_view`).
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Vue | Lang::Svelte => {
                if node.kind() == "assignment_expression" {
                    // `a.m = b.m = function () {`: the function at the end of the chain.
                    let mut value = node;
                    while value.kind() == "assignment_expression" {
                        value = value.child_by_field_name("right")?;
                    }
                    Some(value.child_by_field_name("body")?.start_position().row)
                } else if node.kind() == "variable_declarator" {
                    let value = node.child_by_field_name("value")?;
                    match value.kind() {
                        "arrow_function"
                        | "function_expression"
                        | "function"
                        | "generator_function"
                        | "class" => Some(value.child_by_field_name("body")?.start_position().row),
                        _ => None,
                    }
                } else {
                    Some(node.child_by_field_name("body")?.start_position().row)
                }
            }
        }
    }

    /// The type a free-standing function belongs to: Rust `impl T { fn f() }` → `T`, C++
    /// `void T::f() {}` → `T`.
    fn impl_owner(&self, node: Node) -> Option<&'s str> {
        match self.lang {
            Lang::Rust => {
                let list = node.parent().filter(|p| p.kind() == "declaration_list")?;
                let item = list.parent().filter(|p| p.kind() == "impl_item")?;
                self.text(rust_type_name(item.child_by_field_name("type")?)?)
            }
            Lang::Cpp => {
                let scopes = self.cpp_owner_scopes(node);
                self.text(declarators::scope_name(*scopes.last()?)?)
            }
            // `extension Store { func f() }` → `Store`.
            Lang::Swift => {
                let body = node.parent().filter(|p| p.kind() == "class_body")?;
                let extension = body.parent()?;
                let ty = extension
                    .child_by_field_name("name")
                    .filter(|n| n.kind() == "user_type")?;
                let mut cursor = ty.walk();
                let name = ty
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() == "type_identifier")
                    .last();
                self.text(name?)
            }
            // An extension function `fun Store.count()` → `Store`.
            Lang::Kotlin => {
                let name = node.child_by_field_name("name")?;
                let mut cursor = node.walk();
                let receiver = node
                    .named_children(&mut cursor)
                    .take_while(|c| c.id() != name.id())
                    .find(|c| c.kind() == "user_type")?;
                self.text(receiver.named_child(0)?)
            }
            _ => None,
        }
    }

    /// The scopes naming a C++ function defined out of line, outermost first
    /// (`bool A<K>::B::f() {}` → `A<K>`, `B`); none when its name is not qualified.
    pub(super) fn cpp_owner_scopes<'n>(&self, node: Node<'n>) -> Vec<Node<'n>> {
        let Some(mut declarator) = node.child_by_field_name("declarator") else {
            return Vec::new();
        };
        while matches!(
            declarator.kind(),
            "pointer_declarator" | "reference_declarator"
        ) {
            let mut cursor = declarator.walk();
            let inner = declarator
                .named_children(&mut cursor)
                .find(|c| c.kind().ends_with("declarator"));
            match inner {
                Some(inner) => declarator = inner,
                None => return Vec::new(),
            }
        }
        match declarator.child_by_field_name("declarator") {
            Some(name) if name.kind() == "qualified_identifier" => declarators::owner_scopes(name),
            _ => Vec::new(),
        }
    }

    /// `func (s *Store[T]) Get()` → `Store`.
    fn go_receiver_type(&self, method: Node) -> Option<&'s str> {
        let receiver = method.child_by_field_name("receiver")?;
        let mut cursor = receiver.walk();
        let param = receiver
            .named_children(&mut cursor)
            .find(|c| c.kind() == "parameter_declaration")?;
        let mut ty = param.child_by_field_name("type")?;
        loop {
            ty = match ty.kind() {
                "pointer_type" | "parenthesized_type" => ty.named_child(0)?,
                "generic_type" => ty.child_by_field_name("type")?,
                "type_identifier" => return self.text(ty),
                _ => return None,
            };
        }
    }
}

/// Languages whose functions inside a type's body are its methods (captured as functions by
/// their queries where the grammar does not tell the two apart). An Elixir module or a Lua
/// table holds functions.
fn has_methods_in_types(lang: Lang) -> bool {
    !matches!(
        lang,
        Lang::TypeScript
            | Lang::Tsx
            | Lang::JavaScript
            | Lang::Python
            | Lang::Go
            | Lang::Bash
            | Lang::Lua
            | Lang::Elixir
            | Lang::Hcl
    )
}

/// The lines a map shows: up to where the body opens (at most `MAX_SIGNATURE_LINES`); without
/// a body, a short definition entirely and a long one by its first line.
fn signature_lines(lines: LineRange, body_open: Option<u32>) -> LineRange {
    let end = match body_open {
        Some(open) => open
            .min(lines.start + MAX_SIGNATURE_LINES - 1)
            .min(lines.end),
        None if lines.end - lines.start < SHORT_DEFINITION_LINES => lines.end,
        None => lines.start,
    };
    LineRange::new(lines.start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_rules() {
        // Body opens on the third line.
        assert_eq!(
            signature_lines(LineRange::new(10, 30), Some(12)),
            LineRange::new(10, 12)
        );
        // A very long header is cut.
        assert_eq!(
            signature_lines(LineRange::new(10, 40), Some(25)),
            LineRange::new(10, 15)
        );
        // No body: short definitions whole, long ones by their first line.
        assert_eq!(
            signature_lines(LineRange::new(5, 7), None),
            LineRange::new(5, 7)
        );
        assert_eq!(
            signature_lines(LineRange::new(5, 9), None),
            LineRange::new(5, 5)
        );
    }
}
