; C++ tags. Capture names are those of typescript-tags.scm (see its header), plus:
;   @declarators        on a function definition, declaration or field declaration (the node
;                       @definition.* captures; no @name): each of its declarators that
;                       declares a function gives a definition named by it, found by the
;                       extractor (src/engine/tags/declarators.rs); one that declares
;                       anything else (`int x;`) gives none
;   @named              on a type, typedef, alias or macro (the node @definition.* captures;
;                       no @name): named by its own fields, read by the extractor
;                       (src/engine/tags/named.rs), which keeps the forms these patterns
;                       used to spell out (`name: (type_identifier)` with a `body:`, …)
; Prototypes count as definitions (a header's declarations are what the files including it
; use); a function declared or defined in a class body is a method, and `Type::name` out of
; line is a method whose parent is `Type` (found by the extractor). `template <…>` starts the
; signature.

; ---------------------------------------------------------------- definitions

; Functions: a function declarator, or one pointer or reference around it, named by an
; identifier or, in a definition, by `Type::name`. Read by the extractor rather than spelt out
; here: tree-sitter analyses every pattern against the grammar when the query is compiled, and
; on this grammar the nested declarator patterns cost ~85 ms of the ~110 ms the query took.
(function_definition) @definition.function @declarators
(declaration) @definition.function @declarators
; A field declaration declaring no function declares data members: fields, for look-ups only.
(field_declaration) @definition.method @declarators
; Types, typedefs, aliases and macros: named by their fields, read by the extractor too. Spelt
; out here (`name: (type_identifier) @name body: (_)`, …), they took ~13 ms of the ~18 ms the
; query took to compile.
(class_specifier) @definition.class @named
(struct_specifier) @definition.struct @named
(union_specifier) @definition.struct @named
(enum_specifier) @definition.enum @named
(type_definition) @definition.type_alias @named
(alias_declaration) @definition.type_alias @named
(preproc_def) @definition.constant @named
(preproc_function_def) @definition.function @named
; Of a template function, only one with a plain declarator and an unqualified name starts its
; signature at `template` (the extractor keeps that rule).
(template_declaration
  [
    (class_specifier) @definition.class @named
    (struct_specifier) @definition.struct @named
    (function_definition) @definition.function @declarators
  ]) @outer
; A namespace holds definitions without being one (src/engine/tags/containers.rs).
(namespace_definition) @container

; ---------------------------------------------------------------- references

; References are collected by a cursor walk in src/engine/tags/refs.rs.

; ---------------------------------------------------------------- imports

(preproc_include) @import
