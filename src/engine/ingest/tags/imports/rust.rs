//! Rust imports. `use a::b::{C, d as e}` → one import per leaf: specifier `a::b`, name `C`
//! (or `d` as `e`); `use a::b::*` → wildcard on `a::b`; `use a::{self}` / `use a;` →
//! namespace `a`; `mod m;` → specifier `self::m`, namespace `m`.
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{import, line_of, Extractor};
use crate::engine::base::model::{Import, ImportedName, Reference};

impl Extractor<'_, '_> {
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
}
