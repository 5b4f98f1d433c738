//! TypeScript and JavaScript imports. `import d, { a as b } from "m"` → specifier `m`, names
//! `default` as `d` and `a` as `b`; `import * as ns from "m"` and `import ns = require("m")`
//! → namespace `ns`; `export { a } from "m"` → a re-export of `a`; `export * from "m"` → a
//! wildcard re-export (`export * as ns` binds `ns`); `require("m")` or `import("m")`, bound
//! by a declarator → namespace (`const m = …`) or names (`const { a, b: c } = …`).
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{line_of, Extractor};
use crate::engine::base::model::{Import, ImportedName, Reference};

impl Extractor<'_, '_> {
    pub(super) fn js_import(
        &self,
        node: Node,
        binding: Option<Node>,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
    ) {
        let mut import = Import {
            specifier: String::new(),
            names: Vec::new(),
            namespace: None,
            wildcard: false,
            reexport: false,
            line: line_of(node.start_position().row),
        };
        let mut cursor = node.walk();
        match node.kind() {
            "import_statement" | "export_statement" => {
                import.reexport = node.kind() == "export_statement";
                let mut source = node.child_by_field_name("source");
                for child in node.children(&mut cursor) {
                    match child.kind() {
                        "import_clause" => self.js_import_clause(child, &mut import, refs),
                        "import_require_clause" => {
                            source = child.child_by_field_name("source");
                            let mut c = child.walk();
                            let id = child
                                .named_children(&mut c)
                                .find(|n| n.kind() == "identifier");
                            if let Some(id) = id {
                                import.namespace = self.text(id).map(str::to_owned);
                                refs.push(self.import_ref(self.text(id).unwrap_or_default(), id));
                            }
                        }
                        "export_clause" => {
                            let mut c = child.walk();
                            for spec in child.named_children(&mut c) {
                                if spec.kind() != "export_specifier" {
                                    continue;
                                }
                                self.push_named(spec, &mut import, refs);
                            }
                        }
                        "namespace_export" => {
                            let mut c = child.walk();
                            if let Some(id) = child.named_children(&mut c).last() {
                                import.namespace = self.binding_name(id);
                            }
                        }
                        "*" => import.wildcard = true,
                        _ => {}
                    }
                }
                let Some(source) = source.and_then(|s| self.string_value(s)) else {
                    return;
                };
                import.specifier = source;
            }
            "call_expression" => {
                let Some(args) = node.child_by_field_name("arguments") else {
                    return;
                };
                let mut c = args.walk();
                let Some(source) = args
                    .named_children(&mut c)
                    .find(|n| n.kind() == "string")
                    .and_then(|s| self.string_value(s))
                else {
                    return;
                };
                import.specifier = source;
                match binding {
                    Some(b) if b.kind() == "identifier" => {
                        import.namespace = self.text(b).map(str::to_owned);
                        refs.push(self.import_ref(self.text(b).unwrap_or_default(), b));
                    }
                    Some(b) if b.kind() == "object_pattern" => {
                        let mut c = b.walk();
                        for prop in b.named_children(&mut c) {
                            self.push_destructured(prop, &mut import, refs);
                        }
                    }
                    _ => {}
                }
            }
            _ => return,
        }
        found.push((node.start_byte(), import));
    }

    fn js_import_clause(&self, clause: Node, import: &mut Import, refs: &mut Vec<Reference>) {
        let mut cursor = clause.walk();
        for child in clause.named_children(&mut cursor) {
            match child.kind() {
                "identifier" => {
                    let Some(local) = self.text(child) else {
                        continue;
                    };
                    import.names.push(ImportedName {
                        name: "default".to_owned(),
                        alias: Some(local.to_owned()),
                    });
                    refs.push(self.import_ref(local, child));
                }
                "namespace_import" => {
                    let mut c = child.walk();
                    if let Some(id) = child.named_children(&mut c).last() {
                        if let Some(ns) = self.text(id) {
                            import.namespace = Some(ns.to_owned());
                            refs.push(self.import_ref(ns, id));
                        }
                    }
                }
                "named_imports" => {
                    let mut c = child.walk();
                    for spec in child.named_children(&mut c) {
                        if spec.kind() == "import_specifier" {
                            self.push_named(spec, import, refs);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `a` or `a as b` in `import {…}` / `export {…} from`.
    fn push_named(&self, spec: Node, import: &mut Import, refs: &mut Vec<Reference>) {
        let Some(name_node) = spec.child_by_field_name("name") else {
            return;
        };
        let Some(name) = self.binding_name(name_node) else {
            return;
        };
        let alias = spec
            .child_by_field_name("alias")
            .and_then(|a| self.binding_name(a))
            .filter(|a| *a != name);
        refs.push(self.import_ref(&name, name_node));
        import.names.push(ImportedName { name, alias });
    }

    /// One property of `const { a, b: c } = require('x')`.
    fn push_destructured(&self, prop: Node, import: &mut Import, refs: &mut Vec<Reference>) {
        match prop.kind() {
            "shorthand_property_identifier_pattern" => {
                if let Some(name) = self.text(prop) {
                    refs.push(self.import_ref(name, prop));
                    import.names.push(ImportedName {
                        name: name.to_owned(),
                        alias: None,
                    });
                }
            }
            "pair_pattern" => {
                let key = prop.child_by_field_name("key");
                let value = prop.child_by_field_name("value");
                if let (Some(key), Some(value)) = (key, value) {
                    let Some(name) = self.binding_name(key) else {
                        return;
                    };
                    let alias = (value.kind() == "identifier")
                        .then(|| self.text(value).map(str::to_owned))
                        .flatten()
                        .filter(|a| *a != name);
                    refs.push(self.import_ref(&name, key));
                    import.names.push(ImportedName { name, alias });
                }
            }
            _ => {}
        }
    }
}
