; C++ tags. Capture names are those of typescript-tags.scm (see its header). Prototypes count
; as definitions (a header's declarations are what the files including it use); a function
; declared or defined in a class body is a method, and `Type::name` out of line is a method
; whose parent is `Type` (found by the extractor). `template <…>` starts the signature.

; ---------------------------------------------------------------- definitions

; One pattern per root kind and capture, the declarator's forms (plain, pointer, reference) as
; alternatives: tree-sitter analyses every pattern when the query is compiled, which on this
; grammar costs 10–60 ms a pattern (18 patterns took ~320 ms, more than parsing a small
; repository; these 14 take ~230 ms).
(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))
  ]) @definition.function
(function_definition
  declarator: [
    (function_declarator declarator: (qualified_identifier name: (identifier) @name))
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name)))
    (reference_declarator (function_declarator declarator: (qualified_identifier name: (identifier) @name)))
  ]) @definition.method
(declaration
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))
  ]) @definition.function
(field_declaration
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))
  ]) @definition.method
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type_alias
(alias_declaration name: (type_identifier) @name) @definition.type_alias
(preproc_def name: (identifier) @name value: (_)) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function
(template_declaration
  [
    (class_specifier name: (type_identifier) @name body: (_)) @definition.class
    (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
    (function_definition
      declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name)) @definition.function
  ]) @outer

; ---------------------------------------------------------------- references

; References are collected by a cursor walk in src/engine/tags/refs.rs.

; ---------------------------------------------------------------- imports

(preproc_include) @import
