; Elixir tags (grammar: tree-sitter-elixir). Definitions and imports only: references come
; from the reference walk (`tags::refs`, `ELIXIR_SPEC`). Everything is a call: a definition
; is named by its first argument (`tags::named`).

(call
  target: (identifier) @_keyword
  (#any-of? @_keyword "defmodule" "defprotocol")) @definition.class @named

(call
  target: (identifier) @_keyword
  (#any-of? @_keyword "def" "defp" "defmacro" "defmacrop" "defguard" "defguardp" "defdelegate")) @definition.function @named

; `alias`, `import`, `require` and `use` of a module; a `defmodule` declares one (the
; resolver learns which files define a module from it).
(call
  target: (identifier) @_keyword
  (#any-of? @_keyword "alias" "import" "require" "use" "defmodule" "defprotocol")) @import
