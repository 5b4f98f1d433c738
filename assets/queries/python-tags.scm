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
; A class's own variables (`timeout = 5`, a dataclass's `name: str`) and the attributes its
; `__init__` sets on `self` in its own statements (`self.pool = pool`; not in a branch): fields,
; found by a look-up, neither bound nor shown (`Definition::lookup_only`). Members of the
; class (src/engine/ingest/tags/containers.rs); a name set twice is defined by the first.
(class_definition
  body: (block
    (expression_statement
      (assignment left: (identifier) @name)) @definition.field))
(class_definition
  body: (block
    (function_definition
      name: (identifier) @_init
      body: (block
        (expression_statement
          (assignment
            left: (attribute
              object: (identifier) @_self
              attribute: (identifier) @name))) @definition.field)
      (#eq? @_init "__init__")
      (#eq? @_self "self"))))

; ---------------------------------------------------------------- references

; References (calls, types, heritage, plain uses) and the binding positions that are not uses
; are collected by a cursor walk in src/engine/tags/refs.rs: this query runs only on the nodes
; where one of its patterns can start, so it stays small and cheap.

; ---------------------------------------------------------------- imports

(import_statement) @import
(import_from_statement) @import
