; Scala tags (grammar: tree-sitter-scala). Definitions and imports only: references come from
; the reference walk (`tags::refs`, `SCALA_SPEC`).

(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.class

(trait_definition
  name: (identifier) @name) @definition.interface

(enum_definition
  name: (identifier) @name) @definition.enum

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

(type_definition
  name: (type_identifier) @name) @definition.type_alias

(given_definition
  name: (identifier) @name) @definition.variable

; Values and variables at the top level and in a template's body (a class's, an object's).
(compilation_unit
  (val_definition
    pattern: (identifier) @name) @definition.constant)

(compilation_unit
  (var_definition
    pattern: (identifier) @name) @definition.variable)

(template_body
  (val_definition
    pattern: (identifier) @name) @definition.constant)

(template_body
  (var_definition
    pattern: (identifier) @name) @definition.variable)

(package_clause) @container @import

(import_declaration) @import
