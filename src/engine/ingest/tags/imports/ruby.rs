//! Ruby imports. `require 'x'` (and `load`) → wildcard on `x`; `require_relative 'x'` →
//! wildcard on `./x`. Only calls with a plain string first argument (the captured calls that
//! are imports: see `Extractor::is_import`).
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{import, line_of, Extractor};
use crate::engine::base::model::Import;

impl Extractor<'_, '_> {
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
}
