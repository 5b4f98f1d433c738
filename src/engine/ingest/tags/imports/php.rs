//! PHP imports. `use A\B\C as D;` → specifier `A\B`, name `C` as `D` (grouped uses
//! likewise); `require`/`include` of a literal path (or `__DIR__ . '/x.php'`) → wildcard on
//! the path; `namespace A\B` → the declaration of namespace `A\B`.
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{compact, declaration, import, line_of, Extractor};
use crate::engine::base::model::{Import, ImportedName, Reference};

impl Extractor<'_, '_> {
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
}

/// A PHP namespace path without its leading `\` and spaces.
fn php_name(text: &str) -> String {
    compact(text).trim_start_matches('\\').to_owned()
}
