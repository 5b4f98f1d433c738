; PHP tags. Capture names are those of typescript-tags.scm (see its header). The namespace
; declaration is read as an import of the file's own namespace; `use` clauses and
; `require`/`include` of a literal path are imports.

; ---------------------------------------------------------------- definitions

(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.interface
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.method
(const_declaration (const_element (name) @name)) @definition.constant
; Properties, each name of `public $a, $b;`, and those a constructor promotes
; (`__construct(private string $name)`): fields, found by a look-up, neither bound nor shown
; (`Definition::lookup_only`).
(property_declaration
  (property_element name: (variable_name (name) @name))) @definition.field
(property_promotion_parameter name: (variable_name (name) @name)) @definition.field

; ---------------------------------------------------------------- references

; References are collected by a cursor walk in src/engine/tags/refs.rs.

; ---------------------------------------------------------------- imports

(namespace_definition) @import @container
(namespace_use_declaration) @import
(require_expression) @import
(require_once_expression) @import
(include_expression) @import
(include_once_expression) @import
