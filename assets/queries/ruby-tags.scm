; Ruby tags. Capture names are those of typescript-tags.scm (see its header). `require` and
; `require_relative` calls are imports.

; ---------------------------------------------------------------- definitions

(class name: [(constant) (scope_resolution name: (_))] @name) @definition.class
(module name: [(constant) (scope_resolution name: (_))] @name) @definition.class
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.constant

; ---------------------------------------------------------------- references

; References are collected by a cursor walk in src/engine/tags/refs.rs.

; ---------------------------------------------------------------- imports

(call
  method: (identifier) @_require
  arguments: (argument_list . (string))
  (#any-of? @_require "require" "require_relative" "load")) @import
