//! Elixir's module directives. `alias A.B` → `A.B` bound to `B` (`as: C` → to `C`);
//! `alias A.{B, C}` → `A.B` and `A.C`; `import A.B` → wildcard on `A.B`; `require A.B` and
//! `use A.B` → `A.B`; `defmodule A.B` (nested ones prefixed by their parents) → the
//! declaration of module `A.B`, from which the resolver learns its files.
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{compact, declaration, import, line_of, Extractor};
use crate::engine::base::model::Import;

impl Extractor<'_, '_> {
    pub(super) fn elixir_import(&self, node: Node, found: &mut Vec<(usize, Import)>) {
        let line = line_of(node.start_position().row);
        let Some(keyword) = node
            .child_by_field_name("target")
            .and_then(|t| self.text(t))
        else {
            return;
        };
        let mut cursor = node.walk();
        let Some(arguments) = node
            .named_children(&mut cursor)
            .find(|c| c.kind() == "arguments")
        else {
            return;
        };
        let Some(first) = arguments.named_child(0) else {
            return;
        };
        if matches!(keyword, "defmodule" | "defprotocol") {
            if let Some(name) = self.elixir_module_name(node, first) {
                found.push((node.start_byte(), declaration(name, line)));
            }
            return;
        }
        let mut modules: Vec<(String, String)> = Vec::new();
        match first.kind() {
            "alias" => {
                if let Some(text) = self.text(first).map(compact) {
                    let last = text.rsplit('.').next().unwrap_or(&text).to_owned();
                    modules.push((text, last));
                }
            }
            // `alias A.{B, C}`.
            "dot" => {
                let left = first.child_by_field_name("left").and_then(|l| self.text(l));
                let right = first.child_by_field_name("right");
                if let (Some(left), Some(tuple)) = (left, right) {
                    let mut cursor = tuple.walk();
                    for part in tuple.named_children(&mut cursor) {
                        if let Some(name) = self.text(part).filter(|_| part.kind() == "alias") {
                            let last = name.rsplit('.').next().unwrap_or(name).to_owned();
                            modules.push((compact(&format!("{left}.{name}")), last));
                        }
                    }
                }
            }
            _ => return,
        }
        let alias_as = (keyword == "alias")
            .then(|| self.keyword_value(arguments, "as"))
            .flatten();
        for (module, last) in modules {
            let mut imp = import(module, line);
            match keyword {
                "alias" => imp.namespace = Some(alias_as.clone().unwrap_or(last)),
                "import" => imp.wildcard = true,
                _ => {}
            }
            found.push((node.start_byte(), imp));
        }
    }

    /// `defmodule B` inside `defmodule A` is `A.B`.
    fn elixir_module_name(&self, call: Node, alias: Node) -> Option<String> {
        let mut name = compact(self.text(alias).filter(|_| alias.kind() == "alias")?);
        let mut at = call.parent();
        while let Some(node) = at {
            if node.kind() == "call"
                && node
                    .child_by_field_name("target")
                    .and_then(|t| self.text(t))
                    == Some("defmodule")
            {
                let mut cursor = node.walk();
                let outer = node
                    .named_children(&mut cursor)
                    .find(|c| c.kind() == "arguments")
                    .and_then(|a| a.named_child(0))
                    .filter(|a| a.kind() == "alias")
                    .and_then(|a| self.text(a));
                if let Some(outer) = outer {
                    name = format!("{}.{name}", compact(outer));
                }
            }
            at = node.parent();
        }
        Some(name)
    }

    /// The alias given as `key:` in a call's keyword arguments (`as: Name`).
    fn keyword_value(&self, arguments: Node, key: &str) -> Option<String> {
        let mut cursor = arguments.walk();
        let keywords = arguments
            .named_children(&mut cursor)
            .find(|c| c.kind() == "keywords")?;
        let mut cursor = keywords.walk();
        let pairs: Vec<Node> = keywords.named_children(&mut cursor).collect();
        pairs.into_iter().find_map(|pair| {
            let k = pair.child_by_field_name("key").and_then(|k| self.text(k))?;
            if k.trim_end_matches([':', ' ']) != key {
                return None;
            }
            let value = pair.child_by_field_name("value")?;
            (value.kind() == "alias")
                .then(|| self.text(value).map(compact))
                .flatten()
        })
    }

    /// Terraform: `module "m" { source = "./modules/m" }` → specifier `./modules/m`.
    pub(super) fn hcl_import(&self, node: Node, found: &mut Vec<(usize, Import)>) {
        let mut cursor = node.walk();
        let Some(body) = node
            .named_children(&mut cursor)
            .find(|c| c.kind() == "body")
        else {
            return;
        };
        let mut cursor = body.walk();
        let attributes: Vec<Node> = body
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "attribute")
            .collect();
        for attribute in attributes {
            let mut cursor = attribute.walk();
            let mut parts = attribute.named_children(&mut cursor);
            let key = parts.next().and_then(|k| self.text(k));
            if key != Some("source") {
                continue;
            }
            let Some(value) = parts.next() else {
                return;
            };
            let Some(text) = self.text(value) else {
                return;
            };
            let path = text.trim().trim_matches('"');
            if path.is_empty() || path.contains("${") {
                return;
            }
            let mut imp = import(path.to_owned(), line_of(node.start_position().row));
            imp.wildcard = true;
            found.push((node.start_byte(), imp));
            return;
        }
    }
}
