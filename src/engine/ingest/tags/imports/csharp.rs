//! C# imports. `using A.B;` → wildcard on `A.B`; `using M = A.B;` → namespace `M` on `A.B`;
//! `namespace A.B` (block or file-scoped) → the declaration of namespace `A.B`.
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{compact, declaration, import, line_of, Extractor};
use crate::engine::base::model::{Import, Reference};

impl Extractor<'_, '_> {
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
                    .map(compact)
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
                let Some(spec) = self.text(target).map(compact) else {
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
}
