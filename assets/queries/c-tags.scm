; C tags. Capture names are those of typescript-tags.scm (see its header), plus @declarators
; (see cpp-tags.scm's header). Prototypes count as definitions: a header's declarations are
; what the files including it use.

; ---------------------------------------------------------------- definitions

; Functions: a function declarator, or one pointer around it (two in a prototype), named by
; an identifier; read by the extractor (src/engine/tags/declarators.rs). Spelt out here, these
; forms took ~10 ms of the ~13 ms the query cost to compile.
(function_definition) @definition.function @declarators
(declaration) @definition.function @declarators
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type_alias
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function
(translation_unit
  (declaration
    declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)

; ---------------------------------------------------------------- references

; References are collected by a cursor walk in src/engine/tags/refs.rs.

; ---------------------------------------------------------------- imports

(preproc_include) @import
