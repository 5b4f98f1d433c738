; TypeScript tags. Capture names (read by src/engine/tags.rs):
;   @definition.<kind>  the definition node; <kind> = function method class interface
;                       type_alias enum constant variable (a const/let/var declarator whose
;                       value is a function or class becomes a function/class)
;   @name               the definition's name (never also reported as a reference)
;   @outer              a wrapper whose first line starts the signature (`export`, `declare`)
;   @class_body         a class body: decorators before a method are part of its signature
;   @reference.<kind>   a name node used as call / type / heritage / reference
;   @qualifier          the object of a member use (`obj` in `obj.m()`), kept if a plain name
;   @ignore             a binding position: not a plain reference or type use
;   @import             an import/re-export statement or a require()/import() call
;   @import.binding     the name a require()/import() result is bound to
; Captures starting with `_` only feed predicates.

; ---------------------------------------------------------------- definitions

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type_alias
(enum_declaration name: (identifier) @name) @definition.enum
(class_body (method_definition name: (_) @name) @definition.method)
(class_body (abstract_method_signature name: (_) @name) @definition.method)
(class_body (method_signature name: (_) @name) @definition.method)
(class_body) @class_body

; The same declarations behind `export` / `declare`: the wrapper starts the signature.
(export_statement
  declaration: [
    (function_declaration name: (identifier) @name) @definition.function
    (generator_function_declaration name: (identifier) @name) @definition.function
    (function_signature name: (identifier) @name) @definition.function
    (class_declaration name: (type_identifier) @name) @definition.class
    (abstract_class_declaration name: (type_identifier) @name) @definition.class
    (interface_declaration name: (type_identifier) @name) @definition.interface
    (type_alias_declaration name: (type_identifier) @name) @definition.type_alias
    (enum_declaration name: (identifier) @name) @definition.enum
  ]) @outer
(ambient_declaration
  [
    (function_signature name: (identifier) @name) @definition.function
    (class_declaration name: (type_identifier) @name) @definition.class
    (abstract_class_declaration name: (type_identifier) @name) @definition.class
    (interface_declaration name: (type_identifier) @name) @definition.interface
    (type_alias_declaration name: (type_identifier) @name) @definition.type_alias
    (enum_declaration name: (identifier) @name) @definition.enum
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

(extends_clause value: (identifier) @reference.heritage)
(extends_clause
  value: (member_expression
    object: (_) @qualifier
    property: (_) @reference.heritage))
(implements_clause (type_identifier) @reference.heritage)
(implements_clause
  (nested_type_identifier module: (_) @qualifier name: (_) @reference.heritage))
(implements_clause (generic_type name: (type_identifier) @reference.heritage))
(implements_clause
  (generic_type
    name: (nested_type_identifier module: (_) @qualifier name: (_) @reference.heritage)))
(extends_type_clause type: (type_identifier) @reference.heritage)
(extends_type_clause
  type: (nested_type_identifier module: (_) @qualifier name: (_) @reference.heritage))
(extends_type_clause type: (generic_type name: (type_identifier) @reference.heritage))
(extends_type_clause
  type: (generic_type
    name: (nested_type_identifier module: (_) @qualifier name: (_) @reference.heritage)))

(type_identifier) @reference.type
(nested_type_identifier module: (_) @qualifier name: (_) @reference.type)

(member_expression
  object: (_) @qualifier
  property: (_) @reference.reference)
(identifier) @reference.reference
(shorthand_property_identifier) @reference.reference

; Binding positions: declared names are definitions or locals, not uses.
(call_expression
  function: (identifier) @ignore
  (#eq? @ignore "require"))
(variable_declarator name: (identifier) @ignore)
(required_parameter pattern: (identifier) @ignore)
(optional_parameter pattern: (identifier) @ignore)
(arrow_function parameter: (identifier) @ignore)
(catch_clause parameter: (identifier) @ignore)
(array_pattern (identifier) @ignore)
(rest_pattern (identifier) @ignore)
(pair_pattern value: (identifier) @ignore)
(assignment_pattern left: (identifier) @ignore)
(for_in_statement left: (identifier) @ignore)
(function_expression name: (identifier) @ignore)
(class name: (_) @ignore)
(type_parameter name: (_) @ignore)
(mapped_type_clause name: (_) @ignore)
(internal_module name: (_) @ignore)
(import_specifier name: (_) @ignore)
(import_specifier alias: (_) @ignore)
(import_clause (identifier) @ignore)
(namespace_import (identifier) @ignore)
(namespace_export (identifier) @ignore)
(export_specifier name: (_) @ignore)
(export_specifier alias: (_) @ignore)
(import_require_clause (identifier) @ignore)

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
