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

; ---------------------------------------------------------------- references

(call_expression
  function: (identifier) @reference.call
  (#not-eq? @reference.call "require"))
(call_expression
  function: (member_expression
    object: (_) @qualifier
    property: (_) @reference.call))
(new_expression constructor: (identifier) @reference.call)
(new_expression
  constructor: (member_expression
    object: (_) @qualifier
    property: (_) @reference.call))
(decorator (identifier) @reference.call)
(decorator
  (member_expression
    object: (_) @qualifier
    property: (_) @reference.call))

(class_heritage (identifier) @reference.heritage)
(class_heritage
  (member_expression
    object: (_) @qualifier
    property: (_) @reference.heritage))

(member_expression
  object: (_) @qualifier
  property: (_) @reference.reference)
(identifier) @reference.reference
(shorthand_property_identifier) @reference.reference

; JSX: a component use `<Foo/>` or `<ui.Button>` is a call; intrinsic tags (`<div>`) are not.
(jsx_opening_element
  name: (identifier) @reference.call
  (#match? @reference.call "^[A-Z]"))
(jsx_self_closing_element
  name: (identifier) @reference.call
  (#match? @reference.call "^[A-Z]"))
(jsx_opening_element
  name: (member_expression
    object: (_) @qualifier
    property: (_) @reference.call))
(jsx_self_closing_element
  name: (member_expression
    object: (_) @qualifier
    property: (_) @reference.call))

; Binding positions: declared names are definitions or locals, not uses.
(call_expression
  function: (identifier) @ignore
  (#eq? @ignore "require"))
(variable_declarator name: (identifier) @ignore)
(formal_parameters (identifier) @ignore)
(arrow_function parameter: (identifier) @ignore)
(catch_clause parameter: (identifier) @ignore)
(array_pattern (identifier) @ignore)
(rest_pattern (identifier) @ignore)
(pair_pattern value: (identifier) @ignore)
(assignment_pattern left: (identifier) @ignore)
(for_in_statement left: (identifier) @ignore)
(function_expression name: (identifier) @ignore)
(class name: (_) @ignore)
(import_specifier name: (_) @ignore)
(import_specifier alias: (_) @ignore)
(import_clause (identifier) @ignore)
(namespace_import (identifier) @ignore)
(namespace_export (identifier) @ignore)
(export_specifier name: (_) @ignore)
(export_specifier alias: (_) @ignore)
; Tag names are not plain references; the closing tag repeats the opening one.
(jsx_opening_element name: (identifier) @ignore)
(jsx_self_closing_element name: (identifier) @ignore)
(jsx_closing_element name: (identifier) @ignore)
(jsx_closing_element
  name: (member_expression object: (_) @ignore property: (_) @ignore))

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
