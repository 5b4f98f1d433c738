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
; A class's own variables (`timeout = 5`, a dataclass's `name: str`): fields, found by a
; look-up, neither bound nor shown (`Definition::lookup_only`). Attributes set on `self` in a
; method are not: any assignment may be the one a reader means.
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name)) @definition.field))

; ---------------------------------------------------------------- references

; References (calls, types, heritage, plain uses) and the binding positions that are not uses
; are collected by a cursor walk in src/engine/tags/refs.rs: this query runs only on the nodes
; where one of its patterns can start, so it stays small and cheap.

; ---------------------------------------------------------------- imports

(import_statement) @import
(import_from_statement) @import
