; Go tags. Capture names are those of typescript-tags.scm (see its header);
; @definition.type is a type_spec: a struct, an interface or (anything else) a type alias.
; A method's parent is its receiver type, found by the extractor; the package clause names
; the container of every definition (src/engine/tags/containers.rs).

; ---------------------------------------------------------------- definitions

(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type_alias
; Package-level constants and variables only. Names are matched as plain children: a spec
; with several names (`A, B = 1, 2`) repeats the `name` field, and a field pattern only
; matches the first of them.
(source_file
  (const_declaration
    (const_spec (identifier) @name) @definition.constant))
(source_file
  (var_declaration
    (var_spec (identifier) @name) @definition.variable))
(source_file
  (var_declaration
    (var_spec_list
      (var_spec (identifier) @name) @definition.variable)))
; A struct's fields, each name of `A, B int` (an embedded type names none): found by a
; look-up, neither bound nor shown (`Definition::lookup_only`). Only a named type's: an
; anonymous struct's fields (`var cfg struct{ … }`) are a value's, not a type a reader
; looks up.
(type_spec
  type: (struct_type
    (field_declaration_list
      (field_declaration (field_identifier) @name) @definition.field)))
(package_clause) @container

; ---------------------------------------------------------------- references

; References (calls, types, heritage, plain uses) and the binding positions that are not uses
; are collected by a cursor walk in src/engine/tags/refs.rs: this query runs only on the nodes
; where one of its patterns can start, so it stays small and cheap.

; ---------------------------------------------------------------- imports

(import_spec) @import
