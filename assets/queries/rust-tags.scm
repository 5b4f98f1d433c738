; Rust tags. Capture names are those of typescript-tags.scm (see its header). A function
; inside an `impl` or `trait` is a method (its parent is the implemented type, found by the
; extractor); `use` declarations and `mod name;` are imports (and `mod name;` a definition
; of kind module); an `impl` block and a `mod` with a body are containers.

; ---------------------------------------------------------------- definitions

(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.interface
(type_item name: (type_identifier) @name) @definition.type_alias
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(macro_definition name: (identifier) @name) @definition.function
; A struct's, union's or struct-like enum variant's named fields: found by a look-up, neither
; bound nor shown (`Definition::lookup_only`).
(field_declaration name: (field_identifier) @name) @definition.field
; `mod name;`: the module is defined here, its body is the file `name.rs` (also an import).
(mod_item !body name: (identifier) @name) @definition.module

; Containers that are not definitions: the extractor names an `impl` by its type and keeps a
; `mod` only with a body (src/engine/tags/containers.rs).
(impl_item) @container
(mod_item) @container

; ---------------------------------------------------------------- references

; References (calls, types, heritage, plain uses) and the binding positions that are not uses
; are collected by a cursor walk in src/engine/tags/refs.rs.

; ---------------------------------------------------------------- imports

(use_declaration) @import
(mod_item !body) @import
