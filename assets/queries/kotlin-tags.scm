; Kotlin tags (grammar: tree-sitter-kotlin-ng). Definitions and imports only: references
; come from the reference walk (`tags::refs`, `KOTLIN_SPEC`). Classes, interfaces, enums and
; objects are one node kind; `tags::defs` tells them apart by their keyword.

(class_declaration
  name: (identifier) @name) @definition.class

(object_declaration
  name: (identifier) @name) @definition.class

(function_declaration
  name: (identifier) @name) @definition.function

(type_alias
  type: (identifier) @name) @definition.type_alias

(enum_entry
  (identifier) @name) @definition.constant

; Top-level properties, and those of objects (`const val` ones are constants).
(source_file
  (property_declaration
    (variable_declaration
      (identifier) @name)) @definition.variable)

(object_declaration
  (class_body
    (property_declaration
      (variable_declaration
        (identifier) @name)) @definition.variable))

(companion_object) @container

(package_header) @container @import

(import) @import
