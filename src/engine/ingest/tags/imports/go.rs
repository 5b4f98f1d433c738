//! Go imports. `import alias "path"` → namespace `alias`; `import . "path"` → wildcard;
//! `import _ "path"` binds nothing; a plain `import "path"` binds the package name the path
//! ends with by convention (`go_package_name`), a reference only: the package clause of the
//! files imported says the real name.
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{line_of, Extractor};
use crate::engine::base::model::{Import, Reference};

impl Extractor<'_, '_> {
    pub(super) fn go_import(
        &self,
        spec: Node,
        found: &mut Vec<(usize, Import)>,
        refs: &mut Vec<Reference>,
    ) {
        let Some(specifier) = spec
            .child_by_field_name("path")
            .and_then(|p| self.string_value(p))
        else {
            return;
        };
        let mut import = Import {
            specifier,
            names: Vec::new(),
            namespace: None,
            wildcard: false,
            reexport: false,
            line: line_of(spec.start_position().row),
        };
        match spec.child_by_field_name("name") {
            Some(n) if n.kind() == "dot" => import.wildcard = true,
            Some(n) if n.kind() == "blank_identifier" => {}
            Some(n) => {
                if let Some(alias) = self.text(n) {
                    refs.push(self.import_ref(alias, n));
                    import.namespace = Some(alias.to_owned());
                }
            }
            None => {
                let package = go_package_name(&import.specifier);
                if !package.is_empty() {
                    refs.push(self.import_ref(package, spec));
                }
            }
        }
        found.push((spec.start_byte(), import));
    }
}

/// The package name a Go import path binds by convention: its last element, skipping a
/// major-version suffix (`…/yaml/v3`, `gopkg.in/yaml.v3` → `yaml`).
fn go_package_name(path: &str) -> &str {
    let mut parts = path.rsplit('/');
    let mut last = parts.next().unwrap_or_default();
    let is_version = |s: &str| {
        s.strip_prefix('v')
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
    };
    if is_version(last) {
        if let Some(prev) = parts.next() {
            last = prev;
        }
    }
    match last.rsplit_once('.') {
        Some((base, version)) if is_version(version) => base,
        _ => last,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_package_names() {
        assert_eq!(go_package_name("fmt"), "fmt");
        assert_eq!(go_package_name("example.com/goapp/internal/store"), "store");
        assert_eq!(go_package_name("github.com/org/lib/v2"), "lib");
        assert_eq!(go_package_name("gopkg.in/yaml.v3"), "yaml");
    }
}
