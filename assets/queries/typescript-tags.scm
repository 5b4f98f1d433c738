; TypeScript tags (TSX uses this query too). Capture names (read by src/engine/tags.rs):
;   @definition.<kind>  the definition node; <kind> = function method class interface
;                       type_alias enum constant variable module (a const/let/var
;                       declarator whose value is a function or class becomes a
;                       function/class; module: a Rust `mod name;`)
;   @name               the definition's name (never also reported as a reference)
;   @outer              a wrapper whose first line starts the signature (`export`, `declare`)
;   @class_body         a class or interface body: its methods are definitions (found by
;                       the extractor; an interface's and abstract ones are declarations),
;                       decorators before a method are part of its signature
;   @named              a declaration named by its own `name` field (see cpp-tags.scm)
;   @object_members     an object literal: its methods and function-valued properties are
;                       method definitions
;   @module             the program: its module-level constants and variables (`const`
;                       constants, `let`/`var` variables; `export` or the declaration is
;                       the wrapper) and object literals (read as @object_members) are
;                       found by the extractor
;   @assignment         an assignment: the members it assigns a function to are definitions
;                       (`Type.prototype.m = function …` anywhere; at module level `obj.m =
;                       …`, `exports.f = …`), found by the extractor
;   @container          a node that holds definitions without being one (a namespace, a
;                       package, a Rust `impl`), named by the extractor
;                       (src/engine/tags/containers.rs)
;   @import             an import/re-export statement or a require()/import() call
;   @import.binding     the name a require()/import() result is bound to
;   @import.declarator  a variable declarator: the extractor keeps the require()/await
;                       import() call it binds as an import, bound to its name
; Captures starting with `_` only feed predicates.
;
; Every pattern must start with a named node kind, `(kind ...)`: the extractor runs the query
; only on nodes of those kinds (one tree walk, which also collects references), not over the
; whole tree. A pattern that starts otherwise makes it fall back to a whole-tree query.

; ---------------------------------------------------------------- definitions

; Declarations are named by their `name` field, read by the extractor (@named: an identifier,
; or a `type_identifier` for classes, interfaces and type aliases; src/engine/tags/named.rs),
; and a class body's methods by the extractor too (@class_body): spelt out here
; (`name: (identifier) @name`, `(class_body (method_definition name: (_) @name))`, …), these
; took ~4 ms of the ~9 ms the query took to compile.

(function_declaration) @definition.function @named
(generator_function_declaration) @definition.function @named
(function_signature) @definition.function @named
(class_declaration) @definition.class @named
(abstract_class_declaration) @definition.class @named
(interface_declaration) @definition.interface @named
(type_alias_declaration) @definition.type_alias @named
(enum_declaration) @definition.enum @named
(class_body) @class_body
(interface_body) @class_body
; `namespace A.B { … }`, `module M { … }`, `declare module "m" { … }`.
(internal_module) @container
(module) @container

; The same declarations behind `export` / `declare`: the wrapper starts the signature.
(export_statement
  declaration: [
    (function_declaration) @definition.function @named
    (generator_function_declaration) @definition.function @named
    (function_signature) @definition.function @named
    (class_declaration) @definition.class @named
    (abstract_class_declaration) @definition.class @named
    (interface_declaration) @definition.interface @named
    (type_alias_declaration) @definition.type_alias @named
    (enum_declaration) @definition.enum @named
  ]) @outer
(ambient_declaration
  [
    (function_signature) @definition.function @named
    (class_declaration) @definition.class @named
    (abstract_class_declaration) @definition.class @named
    (interface_declaration) @definition.interface @named
    (type_alias_declaration) @definition.type_alias @named
    (enum_declaration) @definition.enum @named
  ]) @outer

; Module-level constants and variables, and module-level object literals (`const c =
; defineConfig({ onLog() {} })`, `export default { fetch() {} }`, `module.exports = { parse:
; function () {} }`), whose methods and function-valued properties are definitions: the
; extractor finds both among the program's statements (`scan_module` in
; src/engine/tags.rs). Spelt out here, the eleven patterns for those
; places took about half of this query's compile. Locals stay out: they are not part of a map.
; A named function expression passed as an argument (`boot(function manageTimeout () {…})`),
; named by the extractor (src/engine/tags/named.rs).
(function_expression) @definition.function @named
(program) @module
; Members assigned a function (`Type.prototype.m = function …`; at module level `obj.m =
; …`, `exports.f = …`): the extractor keeps those forms (`scan_assignment`).
(assignment_expression) @assignment

; ---------------------------------------------------------------- references

; References (calls, types, heritage, plain uses) and the binding positions that are not uses
; are collected by a cursor walk in src/engine/tags/refs.rs: this query runs only on the nodes
; where one of its patterns can start, so it stays small and cheap.

; ---------------------------------------------------------------- imports

(import_statement) @import
(export_statement source: (_)) @import
; Every call, and every declarator: the extractor keeps `require("x")` (one argument, a
; string), `import("x")`, and the name a declarator binds either to (`const m =
; require("x")`, `const m = await import("x")`) (src/engine/tags/imports.rs). Spelt out here,
; the four patterns took ~8 ms of the query's compile.
(call_expression) @import
(variable_declarator) @import.declarator
