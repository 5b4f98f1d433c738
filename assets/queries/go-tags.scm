; Go tags. Capture names are those of typescript-tags.scm (see its header);
; @definition.type is a type_spec: a struct, an interface or (anything else) a type alias.
; A method's parent is its receiver type, found by the extractor.

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

; ---------------------------------------------------------------- references

(call_expression function: (identifier) @reference.call)
(call_expression
  function: (selector_expression
    operand: (_) @qualifier
    field: (field_identifier) @reference.call))
; `New[int](x)` parses as a conversion to a generic type.
(type_conversion_expression
  type: (generic_type type: (type_identifier) @reference.call))
(composite_literal type: (type_identifier) @reference.call)
(composite_literal
  type: (qualified_type package: (_) @qualifier name: (_) @reference.call))
(composite_literal type: (generic_type type: (type_identifier) @reference.call))

; Embedding: a struct field without a name, an interface's embedded interface.
(field_declaration !name type: (type_identifier) @reference.heritage)
(field_declaration
  !name
  type: (qualified_type package: (_) @qualifier name: (_) @reference.heritage))
(field_declaration
  !name
  type: (generic_type type: (type_identifier) @reference.heritage))
(interface_type (type_elem (type_identifier) @reference.heritage))
(interface_type
  (type_elem
    (qualified_type package: (_) @qualifier name: (_) @reference.heritage)))

(type_identifier) @reference.type
(qualified_type package: (_) @qualifier name: (_) @reference.type)

(selector_expression
  operand: (_) @qualifier
  field: (field_identifier) @reference.reference)
(identifier) @reference.reference

; Binding positions: declared names are definitions or locals, not uses.
(parameter_declaration (identifier) @ignore)
(variadic_parameter_declaration (identifier) @ignore)
(const_spec (identifier) @ignore)
(var_spec (identifier) @ignore)
((identifier) @ignore
  (#eq? @ignore "_"))
(short_var_declaration left: (expression_list (identifier) @ignore))
(range_clause left: (expression_list (identifier) @ignore))
(type_parameter_declaration (identifier) @ignore)
(keyed_element key: (literal_element (identifier) @ignore))
(type_switch_statement alias: (expression_list (identifier) @ignore))

; ---------------------------------------------------------------- imports

(import_spec) @import
