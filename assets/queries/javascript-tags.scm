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

; Methods and function-valued properties of module-level object literals: config hooks and
; exported API objects (`const c = defineConfig({ onLog() {} })`, `export default { fetch() {} }`,
; `module.exports = { parse: function () {} }`). Objects inside functions stay out (locals).
(program
  (lexical_declaration
    (variable_declarator
      value: [
        (object [
          (method_definition name: (property_identifier) @name) @definition.method
          (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method])
        (call_expression arguments: (arguments (object [
          (method_definition name: (property_identifier) @name) @definition.method
          (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method])))
      ])))
(program
  (variable_declaration
    (variable_declarator
      value: [
        (object [
          (method_definition name: (property_identifier) @name) @definition.method
          (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method])
        (call_expression arguments: (arguments (object [
          (method_definition name: (property_identifier) @name) @definition.method
          (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method])))
      ])))
(program
  (export_statement
    declaration: (lexical_declaration
      (variable_declarator
        value: [
          (object [
            (method_definition name: (property_identifier) @name) @definition.method
            (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method])
          (call_expression arguments: (arguments (object [
            (method_definition name: (property_identifier) @name) @definition.method
            (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method])))
        ]))))
(program
  (export_statement
    value: [
      (object [
        (method_definition name: (property_identifier) @name) @definition.method
        (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method])
      (call_expression arguments: (arguments (object [
        (method_definition name: (property_identifier) @name) @definition.method
        (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method])))
    ]))
(program
  (expression_statement
    (assignment_expression
      left: (member_expression)
      right: (object [
        (method_definition name: (property_identifier) @name) @definition.method
        (pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method]))))

; ---------------------------------------------------------------- references

; References (calls, types, heritage, plain uses) and the binding positions that are not uses
; are collected by a cursor walk in src/engine/tags/refs.rs: this query runs only on the nodes
; where one of its patterns can start, so it stays small and cheap.

; ---------------------------------------------------------------- imports

(import_statement) @import
(export_statement source: (_)) @import
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string) .)
  (#eq? @_require "require")) @import
(call_expression
  function: (import)
  arguments: (arguments . (string))) @import
(variable_declarator
  name: (_) @import.binding
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) .)
    (#eq? @_require "require")) @import)
(variable_declarator
  name: (_) @import.binding
  value: (await_expression
    (call_expression
      function: (import)
      arguments: (arguments . (string))) @import))
