; Swift tags (grammar: tree-sitter-swift). Definitions and imports only: references come
; from the reference walk (`tags::refs`, `SWIFT_SPEC`). Classes, structs, enums, actors and
; extensions are one node kind: `tags::defs` reads the keyword, and an extension (named by a
; type, not a type identifier) is the container of its members.

(class_declaration
  name: (type_identifier) @name) @definition.class

(class_declaration
  name: (user_type)) @container

(protocol_declaration
  name: (type_identifier) @name) @definition.interface

(function_declaration
  name: (simple_identifier) @name) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.method

(init_declaration
  "init" @name) @definition.method

(typealias_declaration
  name: (type_identifier) @name) @definition.type_alias

(enum_entry
  name: (simple_identifier) @name) @definition.constant

; Properties at the top level and in a type's body.
(source_file
  (property_declaration
    name: (pattern
      bound_identifier: (simple_identifier) @name)) @definition.variable)

(class_body
  (property_declaration
    name: (pattern
      bound_identifier: (simple_identifier) @name)) @definition.variable)

(import_declaration) @import

(enum_class_body
  (property_declaration
    name: (pattern
      bound_identifier: (simple_identifier) @name)) @definition.variable)
