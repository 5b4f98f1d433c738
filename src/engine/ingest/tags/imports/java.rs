//! Java imports. `import a.b.C;` → specifier `a.b`, name `C`; `import a.b.*;` → wildcard on
//! `a.b`; `import static a.b.C.m;` → specifier `a.b.C`, name `m`; `package a.b;` → the
//! declaration of package `a.b`.
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{compact, declaration, import, line_of, Extractor};
use crate::engine::base::model::{Import, ImportedName, Reference};

impl Extractor<'_, '_> {
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
        let Some(path_text) = self.text(*path).map(compact) else {
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
}
