//! Kotlin and Scala imports, read like Java's. `import a.b.C` → specifier `a.b`, name `C`
//! (Kotlin `as D`: alias `D`); `import a.b.*` / `import a.b._` → wildcard on `a.b`; Scala
//! `import a.b.{C, D => E}` → names `C` and `D` (alias `E`) of `a.b`; `package a.b` → the
//! declaration of package `a.b`.
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{compact, declaration, import, line_of, Extractor};
use crate::engine::base::model::{Import, ImportedName, Reference};

impl Extractor<'_, '_> {
    pub(super) fn kotlin_import(
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
            .find(|c| matches!(c.kind(), "qualified_identifier" | "identifier"))
        else {
            return;
        };
        let Some(path_text) = self.text(*path).map(compact) else {
            return;
        };
        if node.kind() == "package_header" {
            found.push((node.start_byte(), declaration(path_text, line)));
            return;
        }
        if children.iter().any(|c| c.kind() == "*") {
            let mut imp = import(path_text, line);
            imp.wildcard = true;
            found.push((node.start_byte(), imp));
            return;
        }
        let alias = children
            .iter()
            .skip_while(|c| c.id() != path.id())
            .skip(1)
            .find(|c| c.kind() == "identifier")
            .and_then(|a| self.text(*a).map(|t| (t, *a)));
        let Some((module, name)) = path_text.rsplit_once('.') else {
            return;
        };
        match alias {
            Some((text, a)) => refs.push(self.import_ref(text, a)),
            None => refs.push(self.import_ref(name, *path)),
        }
        let mut imp = import(module.to_owned(), line);
        imp.names.push(ImportedName {
            name: name.to_owned(),
            alias: alias.map(|(t, _)| t.to_owned()),
        });
        found.push((node.start_byte(), imp));
    }

    pub(super) fn scala_import(
        &self,
        node: Node,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
    ) {
        let line = line_of(node.start_position().row);
        if node.kind() == "package_clause" {
            if let Some(name) = node
                .child_by_field_name("name")
                .and_then(|n| self.text(n))
                .map(compact)
            {
                found.push((node.start_byte(), declaration(name, line)));
            }
            return;
        }
        let mut cursor = node.walk();
        let path: Vec<&str> = node
            .children_by_field_name("path", &mut cursor)
            .filter(Node::is_named)
            .filter_map(|p| self.text(p))
            .collect();
        if path.is_empty() {
            return;
        }
        let mut cursor = node.walk();
        let tail = node
            .named_children(&mut cursor)
            .find(|c| matches!(c.kind(), "namespace_selectors" | "namespace_wildcard"));
        match tail {
            Some(t) if t.kind() == "namespace_wildcard" => {
                let mut imp = import(path.join("."), line);
                imp.wildcard = true;
                found.push((node.start_byte(), imp));
            }
            Some(selectors) => {
                let mut imp = import(path.join("."), line);
                let mut cursor = selectors.walk();
                for selector in selectors.named_children(&mut cursor) {
                    match selector.kind() {
                        "identifier" => {
                            if let Some(name) = self.text(selector) {
                                refs.push(self.import_ref(name, selector));
                                imp.names.push(ImportedName {
                                    name: name.to_owned(),
                                    alias: None,
                                });
                            }
                        }
                        "arrow_renamed_identifier" | "as_renamed_identifier" => {
                            let name = selector.child_by_field_name("name");
                            let alias = selector.child_by_field_name("alias");
                            if let (Some(name), Some(alias)) =
                                (name.and_then(|n| self.text(n)), alias)
                            {
                                let alias_text = self.text(alias).filter(|a| *a != "_");
                                if let Some(a) = alias_text {
                                    refs.push(self.import_ref(a, alias));
                                }
                                imp.names.push(ImportedName {
                                    name: name.to_owned(),
                                    alias: alias_text.map(str::to_owned),
                                });
                            }
                        }
                        "namespace_wildcard" => imp.wildcard = true,
                        _ => {}
                    }
                }
                found.push((node.start_byte(), imp));
            }
            None => {
                let Some((name, module)) = path.split_last() else {
                    return;
                };
                if module.is_empty() {
                    return;
                }
                let mut cursor = node.walk();
                if let Some(last) = node
                    .children_by_field_name("path", &mut cursor)
                    .filter(Node::is_named)
                    .last()
                {
                    refs.push(self.import_ref(name, last));
                }
                let mut imp = import(module.join("."), line);
                imp.names.push(ImportedName {
                    name: (*name).to_owned(),
                    alias: None,
                });
                found.push((node.start_byte(), imp));
            }
        }
    }
}
