//! C and C++ includes. `#include "x.h"` → wildcard on `x.h`; `#include <x.h>` → wildcard on
//! `<x.h>`.
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{import, line_of, Extractor};
use crate::engine::base::model::Import;

impl Extractor<'_, '_> {
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
