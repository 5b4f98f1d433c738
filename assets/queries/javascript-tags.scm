; JavaScript (+JSX) tags. Capture names are those of typescript-tags.scm (see its header).

; ---------------------------------------------------------------- definitions

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(class_body (method_definition name: (_) @name) @definition.method)

(export_statement
  declaration: [
    (function_declaration name: (identifier) @name) @definition.function
    (generator_function_declaration name: (identifier) @name) @definition.function
    (class_declaration name: (identifier) @name) @definition.class
  ]) @outer

; Module-level constants and variables only (locals are not part of a map).
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator name: (identifier) @name) @definition.constant) @outer)
(program
  (lexical_declaration
    kind: "let"
    (variable_declarator name: (identifier) @name) @definition.variable) @outer)
(program
  (variable_declaration
    (variable_declarator name: (identifier) @name) @definition.variable) @outer)
(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator name: (identifier) @name) @definition.constant)) @outer)
(program
  (export_statement
    declaration: (lexical_declaration
      kind: "let"
      (variable_declarator name: (identifier) @name) @definition.variable)) @outer)
(program
  (export_statement
    declaration: (variable_declaration
      (variable_declarator name: (identifier) @name) @definition.variable)) @outer)

; Module-level object literals (`const c = defineConfig({ onLog() {} })`, `export default
; { fetch() {} }`, `module.exports = { parse: function () {} }`): their methods and
; function-valued properties are definitions. The extractor finds them among the program's
; statements (`scan_module_objects` in src/engine/tags.rs): spelt out here, the five patterns
; for those places took ~6 ms of the ~13 ms this query took to compile. Objects built inside
; functions stay out (locals).
(program) @module_objects

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
