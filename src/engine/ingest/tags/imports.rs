//! Import statements of Rust, Java, C, C++, C#, Ruby and PHP, read into `Import` values.
//!
//! Runs on rayon workers, inside `Extractor::run`, on the nodes the tags query captured with
//! `@import`. What each language's statements become (the resolver in `engine::link::resolve`
//! reads them back the same way):
//! - Rust: `use a::b::{C, d as e}` → one import per leaf: specifier `a::b`, name `C` (or `d`
//!   as `e`); `use a::b::*` → wildcard on `a::b`; `use a::{self}` / `use a;` → namespace `a`;
//!   `mod m;` → specifier `self::m`, namespace `m`.
//! - Java: `import a.b.C;` → specifier `a.b`, name `C`; `import a.b.*;` → wildcard on `a.b`;
//!   `import static a.b.C.m;` → specifier `a.b.C`, name `m`.
//! - C#: `using A.B;` → wildcard on `A.B`; `using M = A.B;` → namespace `M` on `A.B`.
//! - PHP: `use A\B\C as D;` → specifier `A\B`, name `C` as `D` (grouped uses likewise);
//!   `require`/`include` of a literal path (or `__DIR__ . '/x.php'`) → wildcard on the path.
//! - Ruby: `require 'x'` → wildcard on `x`; `require_relative 'x'` → wildcard on `./x`.
//! - C/C++: `#include "x.h"` → wildcard on `x.h`; `#include <x.h>` → wildcard on `<x.h>`.
//! - A Java package or C#/PHP namespace declaration is a *declaration* import: wildcard and
//!   `reexport` set, specifier the package. The resolver learns from it which files make up a
//!   package; it binds nothing in the graph (it resolves to no files).

use tree_sitter::Node;

use super::{call_arguments, line_of, Extractor};
use crate::engine::base::model::{Import, ImportedName, Lang, Reference};

/// An import of one module with the given names.
fn import(specifier: String, line: u32) -> Import {
    Import {
        specifier,
        names: Vec::new(),
        namespace: None,
        wildcard: false,
        reexport: false,
        line,
    }
}

impl Extractor<'_, '_> {
    // ------------------------------------------------------------------ Rust

    pub(super) fn rust_import(
        &self,
        node: Node,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
    ) {
        let line = line_of(node.start_position().row);
        match node.kind() {
            "mod_item" => {
                let Some(name) = node.child_by_field_name("name") else {
                    return;
                };
                let Some(text) = self.text(name) else { return };
                let mut imp = import(format!("self::{text}"), line);
                imp.namespace = Some(text.to_owned());
                refs.push(self.import_ref(text, name));
                found.push((node.start_byte(), imp));
            }
            "use_declaration" => {
                if let Some(arg) = node.child_by_field_name("argument") {
                    let mut prefix = Vec::new();
                    self.rust_use_tree(arg, &mut prefix, node.start_byte(), line, found, refs, 0);
                }
            }
            _ => {}
        }
    }

    /// One node of a `use` tree under `prefix` (the path segments above it).
    #[allow(clippy::too_many_arguments)]
    fn rust_use_tree(
        &self,
        node: Node,
        prefix: &mut Vec<String>,
        start: usize,
        line: u32,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
        depth: usize,
    ) {
        // Use trees nest a few levels in real code; hostile input gets cut off.
        if depth > 32 {
            return;
        }
        match node.kind() {
            "use_list" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    self.rust_use_tree(child, prefix, start, line, found, refs, depth + 1);
                }
            }
            "scoped_use_list" => {
                let base = prefix.len();
                if let Some(path) = node.child_by_field_name("path") {
                    if !self.rust_path(path, prefix) {
                        prefix.truncate(base);
                        return;
                    }
                }
                if let Some(list) = node.child_by_field_name("list") {
                    self.rust_use_tree(list, prefix, start, line, found, refs, depth + 1);
                }
                prefix.truncate(base);
            }
            "use_wildcard" => {
                let base = prefix.len();
                let mut cursor = node.walk();
                let path = node.named_children(&mut cursor).next();
                if path.is_none_or(|p| self.rust_path(p, prefix)) && !prefix.is_empty() {
                    let mut imp = import(prefix.join("::"), line);
                    imp.wildcard = true;
                    found.push((start, imp));
                }
                prefix.truncate(base);
            }
            "use_as_clause" => {
                let alias = node
                    .child_by_field_name("alias")
                    .and_then(|a| self.text(a).map(|t| (t, a)));
                if let Some(path) = node.child_by_field_name("path") {
                    self.rust_use_leaf(path, alias, prefix, start, line, found, refs);
                }
            }
            _ => self.rust_use_leaf(node, None, prefix, start, line, found, refs),
        }
    }

    /// `a::b::C` (optionally `as D`) under `prefix`: an import of `C` from `prefix::a::b`.
    #[allow(clippy::too_many_arguments)]
    fn rust_use_leaf(
        &self,
        path: Node,
        alias: Option<(&str, Node)>,
        prefix: &[String],
        start: usize,
        line: u32,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
    ) {
        let mut segments = prefix.to_vec();
        if !self.rust_path(path, &mut segments) {
            return;
        }
        let Some(last) = segments.pop() else { return };
        let local_node = alias.map_or(path, |(_, n)| n);
        // `use a::{self}` / `use a::b::self as c`: the module itself.
        if last == "self" {
            let Some(module) = segments.last().cloned() else {
                return;
            };
            let local = alias.map_or(module, |(a, _)| a.to_owned());
            let mut imp = import(segments.join("::"), line);
            refs.push(self.import_ref(&local, local_node));
            imp.namespace = Some(local);
            found.push((start, imp));
            return;
        }
        // `use a;` / `use a as b;`: a crate or module bound by its name.
        if segments.is_empty() {
            let local = alias.map_or(last.clone(), |(a, _)| a.to_owned());
            let mut imp = import(last, line);
            refs.push(self.import_ref(&local, local_node));
            imp.namespace = Some(local);
            found.push((start, imp));
            return;
        }
        let alias = alias.map(|(a, _)| a.to_owned()).filter(|a| *a != last);
        refs.push(self.import_ref(alias.as_deref().unwrap_or(&last), local_node));
        let mut imp = import(segments.join("::"), line);
        imp.names.push(ImportedName { name: last, alias });
        found.push((start, imp));
    }

    /// Appends the segments of a path (`crate::a::b`, `super`, `x`); false for anything else.
    fn rust_path(&self, node: Node, out: &mut Vec<String>) -> bool {
        match node.kind() {
            "identifier" | "crate" | "self" | "super" | "metavariable" => match self.text(node) {
                Some(t) => {
                    out.push(t.to_owned());
                    true
                }
                None => false,
            },
            "scoped_identifier" => {
                if let Some(path) = node.child_by_field_name("path") {
                    if !self.rust_path(path, out) {
                        return false;
                    }
                }
                match node.child_by_field_name("name") {
                    Some(name) => self.rust_path(name, out),
                    None => false,
                }
            }
            _ => false,
        }
    }

    // ------------------------------------------------------------------ Java

    pub(super) fn java_import(
        &self,
        node: Node,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
    ) {
        let line = line_of(node.start_position().row);
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        let Some(path) = children
            .iter()
            .find(|c| matches!(c.kind(), "scoped_identifier" | "identifier"))
        else {
            return;
        };
        let Some(path_text) = self.text(*path).map(super::compact) else {
            return;
        };
        if node.kind() == "package_declaration" {
            found.push((node.start_byte(), declaration(path_text, line)));
            return;
        }
        if children.iter().any(|c| c.kind() == "asterisk") {
            let mut imp = import(path_text, line);
            imp.wildcard = true;
            found.push((node.start_byte(), imp));
            return;
        }
        let Some((module, name)) = path_text.rsplit_once('.') else {
            return;
        };
        let name_node = path.child_by_field_name("name").unwrap_or(*path);
        refs.push(self.import_ref(name, name_node));
        let mut imp = import(module.to_owned(), line);
        imp.names.push(ImportedName {
            name: name.to_owned(),
            alias: None,
        });
        found.push((node.start_byte(), imp));
    }

    // ------------------------------------------------------------------ C#

    pub(super) fn csharp_import(
        &self,
        node: Node,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
    ) {
        let line = line_of(node.start_position().row);
        match node.kind() {
            "namespace_declaration" | "file_scoped_namespace_declaration" => {
                let Some(name) = node
                    .child_by_field_name("name")
                    .and_then(|n| self.text(n))
                    .map(super::compact)
                else {
                    return;
                };
                found.push((node.start_byte(), declaration(name, line)));
            }
            "using_directive" => {
                let alias = node.child_by_field_name("name");
                let mut cursor = node.walk();
                let Some(target) = node
                    .named_children(&mut cursor)
                    .filter(|c| Some(c.id()) != alias.map(|a| a.id()))
                    .find(|c| matches!(c.kind(), "qualified_name" | "identifier"))
                else {
                    return;
                };
                let Some(spec) = self.text(target).map(super::compact) else {
                    return;
                };
                let mut imp = import(spec, line);
                match alias.and_then(|a| self.text(a).map(|t| (t, a))) {
                    Some((text, a)) => {
                        refs.push(self.import_ref(text, a));
                        imp.namespace = Some(text.to_owned());
                    }
                    None => imp.wildcard = true,
                }
                found.push((node.start_byte(), imp));
            }
            _ => {}
        }
    }

    // ------------------------------------------------------------------ PHP

    pub(super) fn php_import(
        &self,
        node: Node,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
    ) {
        let line = line_of(node.start_position().row);
        match node.kind() {
            "namespace_definition" => {
                let Some(name) = node
                    .child_by_field_name("name")
                    .and_then(|n| self.text(n))
                    .map(php_name)
                else {
                    return;
                };
                found.push((node.start_byte(), declaration(name, line)));
            }
            "namespace_use_declaration" => {
                let mut cursor = node.walk();
                let mut group_prefix: Option<String> = None;
                let mut clauses = Vec::new();
                for child in node.named_children(&mut cursor) {
                    match child.kind() {
                        "namespace_name" => group_prefix = self.text(child).map(php_name),
                        "namespace_use_clause" => clauses.push(child),
                        "namespace_use_group" => {
                            let mut c = child.walk();
                            clauses.extend(
                                child
                                    .named_children(&mut c)
                                    .filter(|n| n.kind() == "namespace_use_clause"),
                            );
                        }
                        _ => {}
                    }
                }
                for clause in clauses {
                    self.php_use_clause(clause, group_prefix.as_deref(), line, found, refs);
                }
            }
            _ => {
                // require / include (and their _once forms) of a literal path.
                let mut cursor = node.walk();
                let Some(arg) = node.named_children(&mut cursor).next() else {
                    return;
                };
                let spec = match arg.kind() {
                    "string" | "encapsed_string" => self.php_string(arg),
                    "parenthesized_expression" => {
                        arg.named_child(0).and_then(|s| self.php_string(s))
                    }
                    // `__DIR__ . '/x.php'`: relative to the file's own directory.
                    "binary_expression" => {
                        let left = arg.child_by_field_name("left").and_then(|l| self.text(l));
                        let right = arg
                            .child_by_field_name("right")
                            .and_then(|r| self.php_string(r));
                        match (left, right) {
                            (Some("__DIR__"), Some(r)) => Some(format!(".{r}")),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                if let Some(spec) = spec.filter(|s| !s.is_empty()) {
                    let mut imp = import(spec, line);
                    imp.wildcard = true;
                    found.push((node.start_byte(), imp));
                }
            }
        }
    }

    fn php_use_clause(
        &self,
        clause: Node,
        group_prefix: Option<&str>,
        line: u32,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
    ) {
        let alias = clause.child_by_field_name("alias");
        let mut cursor = clause.walk();
        let Some(path) = clause
            .named_children(&mut cursor)
            .filter(|c| Some(c.id()) != alias.map(|a| a.id()))
            .find(|c| matches!(c.kind(), "qualified_name" | "name" | "namespace_name"))
        else {
            return;
        };
        let Some(text) = self.text(path).map(php_name) else {
            return;
        };
        let full = match group_prefix {
            Some(p) if !p.is_empty() => format!("{p}\\{text}"),
            _ => text,
        };
        let (module, name) = match full.rsplit_once('\\') {
            Some((m, n)) => (m.to_owned(), n.to_owned()),
            None => (String::new(), full.clone()),
        };
        let alias_text = alias.and_then(|a| self.text(a)).map(str::to_owned);
        let local = alias_text.clone().unwrap_or_else(|| name.clone());
        refs.push(self.import_ref(&local, alias.unwrap_or(path)));
        let mut imp = import(module, line);
        imp.names.push(ImportedName {
            alias: alias_text.filter(|a| *a != name),
            name,
        });
        found.push((clause.start_byte(), imp));
    }

    /// A PHP string literal without interpolation, unquoted.
    fn php_string(&self, node: Node) -> Option<String> {
        if !matches!(node.kind(), "string" | "encapsed_string") {
            return None;
        }
        let mut cursor = node.walk();
        let mut out = String::new();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "string_content" | "string_value" => out.push_str(self.text(child)?),
                _ => return None,
            }
        }
        Some(out)
    }

    // ------------------------------------------------------------------ calls captured whole

    /// Whether a node the query captured as `@import` is one. The Ruby and TS/JS queries
    /// capture every call, the extractor keeping the imports among them: patterns naming the
    /// method and its string argument cost ~7 ms of Ruby's ~21 ms compile and ~4 ms of
    /// TypeScript's (`ruby_import` and `js_import` read the argument). Every other capture
    /// is exact.
    pub(super) fn is_import(&self, node: Node) -> bool {
        match self.lang {
            Lang::Ruby => node.child_by_field_name("method").is_some_and(|m| {
                m.kind() == "identifier"
                    && matches!(self.text(m), Some("require" | "require_relative" | "load"))
            }),
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript if node.kind() == "call_expression" => {
                self.is_require(node) || is_dynamic_import(node)
            }
            _ => true,
        }
    }

    /// `require("x")`: the identifier `require` called with one argument, a string.
    fn is_require(&self, call: Node) -> bool {
        let function = call.child_by_field_name("function");
        let arguments = call_arguments(call);
        function.is_some_and(|f| f.kind() == "identifier" && self.text(f) == Some("require"))
            && arguments.is_some_and(|a| {
                a.named_child_count() == 1 && a.named_child(0).is_some_and(|s| s.kind() == "string")
            })
    }

    /// TS/JS: the import a variable declarator binds, with the name it binds it to: its value
    /// is a `require("x")` call, or `await import("x")`. The two query patterns that spelt
    /// these out cost ~4 ms of TypeScript's compile.
    pub(super) fn declared_import<'t>(&self, declarator: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
        let name = declarator
            .child_by_field_name("name")
            .filter(Node::is_named)?;
        let value = declarator.child_by_field_name("value")?;
        let call = match value.kind() {
            "call_expression" => Some(value).filter(|&call| self.is_require(call)),
            "await_expression" => {
                let mut cursor = value.walk();
                let call = value
                    .named_children(&mut cursor)
                    .find(|&c| c.kind() == "call_expression" && is_dynamic_import(c));
                call
            }
            _ => None,
        }?;
        Some((call, name))
    }

    // ------------------------------------------------------------------ Ruby

    pub(super) fn ruby_import(&self, node: Node, found: &mut Vec<(usize, Import)>) {
        let Some(method) = node
            .child_by_field_name("method")
            .and_then(|m| self.text(m))
        else {
            return;
        };
        let Some(arg) = node
            .child_by_field_name("arguments")
            .and_then(|a| a.named_child(0))
        else {
            return;
        };
        if arg.kind() != "string" {
            return;
        }
        let mut cursor = arg.walk();
        let mut path = String::new();
        for child in arg.named_children(&mut cursor) {
            match child.kind() {
                "string_content" => match self.text(child) {
                    Some(t) => path.push_str(t),
                    None => return,
                },
                // `require "#{dir}/x"`: not a path we can follow.
                _ => return,
            }
        }
        if path.is_empty() {
            return;
        }
        let spec = if method == "require_relative" && !path.starts_with('.') {
            format!("./{path}")
        } else {
            path
        };
        let mut imp = import(spec, line_of(node.start_position().row));
        imp.wildcard = true;
        found.push((node.start_byte(), imp));
    }

    // ------------------------------------------------------------------ C / C++

    pub(super) fn c_include(&self, node: Node, found: &mut Vec<(usize, Import)>) {
        let Some(path) = node.child_by_field_name("path") else {
            return;
        };
        let spec = match path.kind() {
            "string_literal" => {
                let mut cursor = path.walk();
                let content = path
                    .named_children(&mut cursor)
                    .find(|c| c.kind() == "string_content")
                    .and_then(|c| self.text(c));
                match content {
                    Some(c) => c.to_owned(),
                    None => return,
                }
            }
            // Kept with its brackets: the resolver only follows it into the repository when
            // it names a directory (`<proj/x.h>`), never for `<stdio.h>`.
            "system_lib_string" => match self.text(path) {
                Some(t) => t.to_owned(),
                None => return,
            },
            _ => return,
        };
        if spec.is_empty() {
            return;
        }
        let mut imp = import(spec, line_of(node.start_position().row));
        imp.wildcard = true;
        found.push((node.start_byte(), imp));
    }
}

/// A package or namespace declaration (see the module header).
fn declaration(name: String, line: u32) -> Import {
    let mut imp = import(name, line);
    imp.wildcard = true;
    imp.reexport = true;
    imp
}

/// A PHP namespace path without its leading `\` and spaces.
fn php_name(text: &str) -> String {
    super::compact(text).trim_start_matches('\\').to_owned()
}

/// `import("x")`: a dynamic import whose first argument is a string.
fn is_dynamic_import(call: Node) -> bool {
    let function = call.child_by_field_name("function");
    let arguments = call_arguments(call);
    function.is_some_and(|f| f.kind() == "import" && f.is_named())
        && arguments.is_some_and(|a| a.named_child(0).is_some_and(|s| s.kind() == "string"))
}
