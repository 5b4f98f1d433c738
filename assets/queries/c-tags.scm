; C tags. Capture names are those of typescript-tags.scm (see its header), plus @declarators
; and @named (see cpp-tags.scm's header). Prototypes count as definitions: a header's
; declarations are what the files including it use.

; ---------------------------------------------------------------- definitions

; Functions: a function declarator, or one pointer around it (two in a prototype), named by
; an identifier; read by the extractor (src/engine/tags/declarators.rs). Spelt out here, these
; forms took ~10 ms of the ~13 ms the query cost to compile.
(function_definition) @definition.function @declarators
(declaration) @definition.function @declarators
; Types, typedefs and macros: named by their fields (src/engine/tags/named.rs).
(struct_specifier) @definition.struct @named
(union_specifier) @definition.struct @named
(enum_specifier) @definition.enum @named
(type_definition) @definition.type_alias @named
; A struct's or union's members: fields, for look-ups only (`Definition::lookup_only`),
; named through their declarators by the extractor (src/engine/tags/declarators.rs).
(field_declaration) @definition.field @declarators
(preproc_def) @definition.constant @named
(preproc_function_def) @definition.function @named
(translation_unit
  (declaration
    declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)

; ---------------------------------------------------------------- references

; References are collected by a cursor walk in src/engine/tags/refs.rs.

; ---------------------------------------------------------------- imports

(preproc_include) @import
