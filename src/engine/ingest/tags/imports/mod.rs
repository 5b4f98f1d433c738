//! Import statements, every language's, read into `Import` values (and the references their
//! bound names make): one file per language family below, this module the dispatch, the
//! helpers they share and which captured calls are imports at all.
//!
//! Runs on rayon workers, inside `Extractor::run`, on the nodes the tags query captured with
//! `@import` (or `@import.declarator`). Each language's file says what its statements become;
//! the resolver in `engine::link::resolve` reads them back the same way. A Java package or
//! C#/PHP namespace declaration is a *declaration* import: wildcard and `reexport` set,
//! specifier the package. The resolver learns from it which files make up a package; it binds
//! nothing in the graph (it resolves to no files).

mod c;
mod csharp;
mod elixir;
mod go;
mod java;
mod js;
mod jvm;
mod php;
mod python;
mod ruby;
mod rust;
mod script;

use tree_sitter::Node;

use super::{call_arguments, line_of, Extractor};
use crate::engine::base::model::{Import, Lang, RefKind, Reference};

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
    pub(super) fn build_imports(&self) -> (Vec<Import>, Vec<Reference>) {
        let mut found: Vec<(usize, Import)> = Vec::new();
        let mut refs = Vec::new();
        for (node, binding) in &self.imports {
            match self.lang {
                Lang::TypeScript | Lang::Tsx | Lang::JavaScript | Lang::Vue | Lang::Svelte => {
                    self.js_import(*node, *binding, &mut found, &mut refs);
                }
                Lang::Python => self.py_import(*node, &mut found, &mut refs),
                Lang::Go => self.go_import(*node, &mut found, &mut refs),
                Lang::Rust => self.rust_import(*node, &mut found, &mut refs),
                Lang::Java => self.java_import(*node, &mut found, &mut refs),
                Lang::CSharp => self.csharp_import(*node, &mut found, &mut refs),
                Lang::Php => self.php_import(*node, &mut found, &mut refs),
                Lang::Ruby => self.ruby_import(*node, &mut found),
                Lang::C | Lang::Cpp => self.c_include(*node, &mut found),
                Lang::Kotlin => self.kotlin_import(*node, &mut found, &mut refs),
                Lang::Scala => self.scala_import(*node, &mut found, &mut refs),
                Lang::Swift => self.swift_import(*node, &mut found),
                Lang::Bash => self.shell_import(*node, &mut found),
                Lang::Lua => self.lua_import(*node, &mut found),
                Lang::Elixir => self.elixir_import(*node, &mut found),
                Lang::Hcl => self.hcl_import(*node, &mut found),
            }
        }
        // Source order; several imports from one statement keep their order (stable sort).
        found.sort_by_key(|(start, _)| *start);
        (found.into_iter().map(|(_, i)| i).collect(), refs)
    }

    fn import_ref(&self, name: &str, node: Node) -> Reference {
        Reference {
            name: name.to_owned(),
            kind: RefKind::Import,
            line: line_of(node.start_position().row),
            qualifier: None,
            receiver: None,
        }
    }

    /// Text of a string literal without its quotes.
    fn string_value(&self, node: Node) -> Option<String> {
        let text = self.text(node)?;
        let inner = text
            .strip_prefix(['"', '\'', '`'])
            .and_then(|t| t.strip_suffix(['"', '\'', '`']))
            .unwrap_or(text);
        Some(inner.to_owned())
    }

    /// An identifier, or a string used as a name (`import { "a-b" as c }`).
    fn binding_name(&self, node: Node) -> Option<String> {
        if node.kind() == "string" {
            self.string_value(node)
        } else {
            self.text(node).map(str::to_owned)
        }
    }

    // ------------------------------------------------------------------ calls captured whole

    /// Whether a node the query captured as `@import` is one. The Ruby, TS/JS, shell and Lua
    /// queries capture every call, the extractor keeping the imports among them: patterns
    /// naming the method and its string argument would be a large share of Ruby's and
    /// TypeScript's compile (`ruby_import` and `js_import` read the argument). Every other
    /// capture is exact.
    pub(super) fn is_import(&self, node: Node) -> bool {
        match self.lang {
            Lang::Ruby => node.child_by_field_name("method").is_some_and(|m| {
                m.kind() == "identifier"
                    && matches!(self.text(m), Some("require" | "require_relative" | "load"))
            }),
            Lang::TypeScript | Lang::Tsx | Lang::JavaScript if node.kind() == "call_expression" => {
                self.is_require(node) || is_dynamic_import(node)
            }
            // The shell and Lua queries capture every command or call too.
            Lang::Bash => self.is_source(node),
            Lang::Lua => self.is_require_call(node),
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
    /// is a `require("x")` call, or `await import("x")`, read here rather than by two query
    /// patterns that would lengthen TypeScript's compile.
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
}

/// A package or namespace declaration (see the module header).
fn declaration(name: String, line: u32) -> Import {
    let mut imp = import(name, line);
    imp.wildcard = true;
    imp.reexport = true;
    imp
}

/// A module path without the spaces and line breaks tree-sitter tolerates inside it.
fn compact(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `import("x")`: a dynamic import whose first argument is a string.
fn is_dynamic_import(call: Node) -> bool {
    let function = call.child_by_field_name("function");
    let arguments = call_arguments(call);
    function.is_some_and(|f| f.kind() == "import" && f.is_named())
        && arguments.is_some_and(|a| a.named_child(0).is_some_and(|s| s.kind() == "string"))
}
