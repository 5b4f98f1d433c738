; C# tags. Capture names are those of typescript-tags.scm (see its header), plus @named (see
; cpp-tags.scm's header). A namespace declaration is read as an import of the file's own
; namespace (its types see each other without `using`) and names the namespace its
; definitions live in.

; ---------------------------------------------------------------- definitions

; Named by their `name` identifier, read by the extractor (src/engine/tags/named.rs). Spelt
; out here (`name: (identifier) @name`), these took ~5 ms of the ~11 ms the query took to
; compile.
(class_declaration) @definition.class @named
(record_declaration) @definition.class @named
(struct_declaration) @definition.struct @named
(interface_declaration) @definition.interface @named
(enum_declaration) @definition.enum @named
(delegate_declaration) @definition.type_alias @named
(method_declaration) @definition.method @named
(constructor_declaration) @definition.method @named
(property_declaration) @definition.variable @named
(field_declaration
  (modifier "const")
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.constant
; Every other field (each name of `int a, b;`): for look-ups only (`Definition::lookup_only`);
; a `const` matched by both patterns stays a constant.
(field_declaration
  (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field

; ---------------------------------------------------------------- references

; References are collected by a cursor walk in src/engine/tags/refs.rs.

; ---------------------------------------------------------------- imports

(namespace_declaration) @import @container
(file_scoped_namespace_declaration) @import @container
(using_directive) @import
