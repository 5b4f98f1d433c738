//! Python imports. `import a.b, c as d` → one import per module, binding `a` (or `d`) as its
//! namespace; `from .m import x as y, z` → specifier `.m`, names `x` as `y` and `z`; `from
//! m import *` → wildcard on `m`.
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{compact, line_of, Extractor};
use crate::engine::base::model::{Import, ImportedName, Reference};

impl Extractor<'_, '_> {
    pub(super) fn py_import(
        &self,
        node: Node,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
    ) {
        let line = line_of(node.start_position().row);
        let mut cursor = node.walk();
        match node.kind() {
            // `import a.b, c as d`: one import per module.
            "import_statement" => {
                for child in node.children_by_field_name("name", &mut cursor) {
                    let (module, alias) = match child.kind() {
                        "aliased_import" => (
                            child.child_by_field_name("name"),
                            child.child_by_field_name("alias"),
                        ),
                        _ => (Some(child), None),
                    };
                    let Some(specifier) = module.and_then(|m| self.text(m)).map(compact) else {
                        continue;
                    };
                    // `import a.b` binds `a`; `import a.b as c` binds `c`.
                    let (namespace, bound) = match alias {
                        Some(a) => (self.text(a).map(str::to_owned), a),
                        None => (
                            specifier.split('.').next().map(str::to_owned),
                            module.unwrap_or(child),
                        ),
                    };
                    if let Some(ns) = &namespace {
                        refs.push(self.import_ref(ns, bound));
                    }
                    found.push((
                        node.start_byte(),
                        Import {
                            specifier,
                            names: Vec::new(),
                            namespace,
                            wildcard: false,
                            reexport: false,
                            line,
                        },
                    ));
                }
            }
            // `from .m import x as y, z` / `from a import *`.
            "import_from_statement" => {
                let Some(specifier) = node
                    .child_by_field_name("module_name")
                    .and_then(|m| self.text(m))
                    .map(compact)
                else {
                    return;
                };
                let mut import = Import {
                    specifier,
                    names: Vec::new(),
                    namespace: None,
                    wildcard: false,
                    reexport: false,
                    line,
                };
                for child in node.children_by_field_name("name", &mut cursor) {
                    let (name_node, alias) = match child.kind() {
                        "aliased_import" => (
                            child.child_by_field_name("name"),
                            child
                                .child_by_field_name("alias")
                                .and_then(|a| self.text(a))
                                .map(str::to_owned),
                        ),
                        _ => (Some(child), None),
                    };
                    let Some(name_node) = name_node else { continue };
                    let Some(name) = self.text(name_node).map(compact) else {
                        continue;
                    };
                    refs.push(self.import_ref(&name, name_node));
                    import.names.push(ImportedName { name, alias });
                }
                let mut c = node.walk();
                import.wildcard = node
                    .named_children(&mut c)
                    .any(|n| n.kind() == "wildcard_import");
                found.push((node.start_byte(), import));
            }
            _ => {}
        }
    }
}
