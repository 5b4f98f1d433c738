//! Imports of the scripting languages: shell `source FILE` / `. FILE` → wildcard on the path
//! (a leading `$DIR/` or `${DIR}/` dropped: it is the script's own directory in practice;
//! a path with another expansion is not followed); Lua `require("a.b")` → specifier `a.b`,
//! bound to the local it is assigned to (`local m = require("a.b")` → namespace `m`);
//! Swift `import Module` → wildcard on `Module`.
//!
//! Runs on rayon workers, inside `Extractor::run`.

use tree_sitter::Node;

use super::{compact, import, line_of, Extractor};
use crate::engine::base::model::Import;

impl Extractor<'_, '_> {
    /// Shell: whether a command is `source` or `.` with an argument.
    pub(super) fn is_source(&self, command: Node) -> bool {
        command
            .child_by_field_name("name")
            .and_then(|n| self.text(n))
            .is_some_and(|n| n == "source" || n == ".")
            && command.child_by_field_name("argument").is_some()
    }

    pub(super) fn shell_import(&self, node: Node, found: &mut Vec<(usize, Import)>) {
        let Some(argument) = node.child_by_field_name("argument") else {
            return;
        };
        let Some(text) = self.text(argument) else {
            return;
        };
        let text = text.trim_matches(|c| c == '"' || c == '\'');
        let path = if text.starts_with('$') {
            match text.split_once('/') {
                Some((_, rest)) => rest,
                None => return,
            }
        } else {
            text
        };
        if path.is_empty() || path.contains(['$', '`', '*', ' ']) {
            return;
        }
        let mut imp = import(path.to_owned(), line_of(node.start_position().row));
        imp.wildcard = true;
        found.push((node.start_byte(), imp));
    }

    /// Lua: the module a `require` call with a literal name loads.
    fn required_module(&self, call: Node) -> Option<String> {
        let name = call.child_by_field_name("name")?;
        if name.kind() != "identifier" || self.text(name) != Some("require") {
            return None;
        }
        let arguments = call.child_by_field_name("arguments")?;
        let string = if arguments.kind() == "string" {
            arguments
        } else {
            arguments.named_child(0).filter(|s| s.kind() == "string")?
        };
        let content = string.child_by_field_name("content")?;
        self.text(content).map(str::to_owned)
    }

    pub(super) fn is_require_call(&self, call: Node) -> bool {
        self.required_module(call).is_some()
    }

    pub(super) fn lua_import(&self, node: Node, found: &mut Vec<(usize, Import)>) {
        let Some(module) = self.required_module(node) else {
            return;
        };
        let mut imp = import(module, line_of(node.start_position().row));
        // `local m = require("a.b")`: call → expression_list → assignment_statement.
        let assignment = node
            .parent()
            .filter(|p| p.kind() == "expression_list")
            .and_then(|p| p.parent())
            .filter(|p| p.kind() == "assignment_statement");
        if let Some(assignment) = assignment {
            let mut cursor = assignment.walk();
            let name = assignment
                .named_children(&mut cursor)
                .find(|c| c.kind() == "variable_list")
                .and_then(|list| list.child_by_field_name("name"))
                .filter(|n| n.kind() == "identifier");
            imp.namespace = name.and_then(|n| self.text(n)).map(str::to_owned);
        }
        found.push((node.start_byte(), imp));
    }

    pub(super) fn swift_import(&self, node: Node, found: &mut Vec<(usize, Import)>) {
        let mut cursor = node.walk();
        let Some(module) = node
            .named_children(&mut cursor)
            .find(|c| c.kind() == "identifier")
            .and_then(|m| self.text(m))
            .map(compact)
        else {
            return;
        };
        let mut imp = import(module, line_of(node.start_position().row));
        imp.wildcard = true;
        found.push((node.start_byte(), imp));
    }
}
