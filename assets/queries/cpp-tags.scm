; C++ tags. Capture names are those of typescript-tags.scm (see its header). Prototypes count
; as definitions (a header's declarations are what the files including it use); a function
; declared or defined in a class body is a method, and `Type::name` out of line is a method
; whose parent is `Type` (found by the extractor). `template <…>` starts the signature.

; ---------------------------------------------------------------- definitions

(function_definition
  declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name)) @definition.function
(function_definition
  declarator: [
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))
  ]) @definition.function
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier name: (identifier) @name))) @definition.method
(function_definition
  declarator: [
    (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name)))
    (reference_declarator (function_declarator declarator: (qualified_identifier name: (identifier) @name)))
  ]) @definition.method
(declaration
  declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name)) @definition.function
(declaration
  declarator: [
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier)] @name))
  ]) @definition.function
(field_declaration
  declarator: (function_declarator declarator: [(identifier) (field_identifier)] @name)) @definition.method
(field_declaration
  declarator: [
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
