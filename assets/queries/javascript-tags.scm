; JavaScript (+JSX) tags. Capture names are those of typescript-tags.scm (see its header),
; @named included.

; ---------------------------------------------------------------- definitions

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(class_body (method_definition name: (_) @name) @definition.method)
; A class field whose value is a function (`handleClick = (e) => { … }`) is called as a
; method is; another class field (`size = 0`, `#items = []`) is a data member, found by a
; look-up only, as TypeScript's are (a field matched by both patterns is the method).
(class_body
  (field_definition
    property: (property_identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.method)
(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name) @definition.field)

(export_statement
  declaration: [
    (function_declaration name: (identifier) @name) @definition.function
    (generator_function_declaration name: (identifier) @name) @definition.function
    (class_declaration name: (identifier) @name) @definition.class
  ]) @outer

; Module-level constants and variables, and module-level object literals (`const c =
; defineConfig({ onLog() {} })`, `export default { fetch() {} }`, `module.exports = { parse:
; function () {} }`), whose methods and function-valued properties are definitions: the
; extractor finds both among the program's statements (`scan_module` in
; src/engine/tags.rs). Spelt out here, the eleven patterns for those
; places took about half of this query's compile. Locals stay out: they are not part of a map.
; A named function expression passed as an argument (`boot(function manageTimeout () {…})`),
; named by the extractor (src/engine/tags/named.rs).
(function_expression) @definition.function @named
(program) @module
; Members assigned a function (`Type.prototype.m = function …`; at module level `obj.m =
; …`, `exports.f = …`): the extractor keeps those forms (`scan_assignment`).
(assignment_expression) @assignment

; ---------------------------------------------------------------- references

; References (calls, types, heritage, plain uses) and the binding positions that are not uses
; are collected by a cursor walk in src/engine/tags/refs.rs: this query runs only on the nodes
; where one of its patterns can start, so it stays small and cheap.

; ---------------------------------------------------------------- imports

(import_statement) @import
(export_statement source: (_)) @import
; Every call, and every declarator: the extractor keeps `require("x")` (one argument, a
; string), `import("x")`, and the name a declarator binds either to (`const m =
; require("x")`, `const m = await import("x")`) (src/engine/tags/imports.rs). Spelt out here,
; the four patterns took ~8 ms of the query's compile.
(call_expression) @import
(variable_declarator) @import.declarator
