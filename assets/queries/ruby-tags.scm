; Ruby tags. Capture names are those of typescript-tags.scm (see its header), plus @named (see
; cpp-tags.scm's header). `require`, `require_relative` and `load` calls are imports.

; ---------------------------------------------------------------- definitions

; Named by their fields, read by the extractor (src/engine/tags/named.rs: a class or module by
; a constant or `A::B`, a method by its name, an assignment to a constant, an attribute
; accessor's symbols). Spelt out here
; (`name: [(constant) (scope_resolution name: (_))] @name`, …), these took ~10 ms of the
; ~21 ms the query took to compile.
(class) @definition.class @named
(module) @definition.class @named
(method) @definition.function @named
(singleton_method) @definition.method @named
(assignment) @definition.constant @named
; `attr_accessor :a, :b` (and `attr_reader`, `attr_writer`) in a class or module body: each
; attribute a field, found by a look-up, neither bound nor shown (`Definition::lookup_only`).
(call) @definition.field @named
; `class << self`: its methods are the singleton's (src/engine/tags/containers.rs).
(singleton_class) @container

; ---------------------------------------------------------------- references

; References are collected by a cursor walk in src/engine/tags/refs.rs.

; ---------------------------------------------------------------- imports

; Every call: the extractor keeps `require`, `require_relative` and `load` with a string first
; argument (src/engine/tags/imports.rs). Spelt out here, that took ~7 ms of the compile.
(call) @import
