; Python tags. Capture names are those of typescript-tags.scm (see its header); a function
; whose innermost enclosing definition is a class becomes a method, and a module-level
; assignment to an UPPER_CASE name becomes a constant.

; ---------------------------------------------------------------- definitions

(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(decorated_definition
  definition: [
    (class_definition name: (identifier) @name) @definition.class
    (function_definition name: (identifier) @name) @definition.function
  ]) @outer
(module
  (expression_statement
    (assignment left: (identifier) @name)) @definition.variable)

; ---------------------------------------------------------------- references

(call function: (identifier) @reference.call)
(call
  function: (attribute
    object: (_) @qualifier
    attribute: (identifier) @reference.call))
(decorator (identifier) @reference.call)
(decorator
  (attribute
    object: (_) @qualifier
    attribute: (identifier) @reference.call))

(class_definition
  superclasses: (argument_list (identifier) @reference.heritage))
(class_definition
  superclasses: (argument_list
    (attribute
      object: (_) @qualifier
      attribute: (identifier) @reference.heritage)))

; Annotations: `x: T`, `-> T`, `List[T]`, `T | None`, `mod.T`.
(type (identifier) @reference.type)
(type
  (attribute
    object: (_) @qualifier
    attribute: (identifier) @reference.type))
(generic_type (identifier) @reference.type)
(type (binary_operator (identifier) @reference.type))
(type
  (binary_operator
    (attribute
      object: (_) @qualifier
      attribute: (identifier) @reference.type)))

(attribute
  object: (_) @qualifier
  attribute: (identifier) @reference.reference)
(identifier) @reference.reference

; Binding positions: declared names are definitions or locals, not uses.
(parameters (identifier) @ignore)
(lambda_parameters (identifier) @ignore)
(typed_parameter (identifier) @ignore)
(default_parameter name: (identifier) @ignore)
(typed_default_parameter name: (identifier) @ignore)
(list_splat_pattern (identifier) @ignore)
(dictionary_splat_pattern (identifier) @ignore)
(keyword_argument name: (identifier) @ignore)
(assignment left: (identifier) @ignore)
(assignment left: (pattern_list (identifier) @ignore))
(assignment left: (tuple_pattern (identifier) @ignore))
(for_statement left: (identifier) @ignore)
(for_statement left: (pattern_list (identifier) @ignore))
(for_in_clause left: (identifier) @ignore)
(for_in_clause left: (pattern_list (identifier) @ignore))
(as_pattern_target (identifier) @ignore)
(global_statement (identifier) @ignore)
(nonlocal_statement (identifier) @ignore)
(import_statement name: (dotted_name (identifier) @ignore))
(aliased_import name: (dotted_name (identifier) @ignore))
(aliased_import alias: (identifier) @ignore)
(import_from_statement module_name: (dotted_name (identifier) @ignore))
(relative_import (dotted_name (identifier) @ignore))
(import_from_statement name: (dotted_name (identifier) @ignore))
(future_import_statement name: (dotted_name (identifier) @ignore))

; ---------------------------------------------------------------- imports

(import_statement) @import
(import_from_statement) @import
