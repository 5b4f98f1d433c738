; Java tags. Capture names are those of typescript-tags.scm (see its header). The package
; declaration is read as an import of the file's own package (its classes see each other
; without imports) and names the package its definitions live in.

; ---------------------------------------------------------------- definitions

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
; An enum constant with a body (`UPPER_CAMEL_CASE() { … }`) is a constant whose methods are
; its own; a plain one (`A, B(1)`) is a value, as enum members are in every language.
(enum_constant name: (identifier) @name body: (class_body)) @definition.constant
; Constants: static final fields (`static final int MAX = 3`).
(field_declaration
  (modifiers "static" "final")
  declarator: (variable_declarator name: (identifier) @name)) @definition.constant
; Every other field (each name of `int a, b;`): for look-ups only (`Definition::lookup_only`);
; a constant matched by both patterns stays a constant.
(field_declaration
  (variable_declarator name: (identifier) @name)) @definition.field

; ---------------------------------------------------------------- references

; References are collected by a cursor walk in src/engine/tags/refs.rs.

; ---------------------------------------------------------------- imports

(package_declaration) @import @container
(import_declaration) @import
