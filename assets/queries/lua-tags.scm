; Lua tags (grammar: tree-sitter-lua). Definitions and imports only: references come from the
; reference walk (`tags::refs`, `LUA_SPEC`). `function M.f()` and `function M:f()` are members
; of the table `M` (`tags::containers`).

(function_declaration
  name: (identifier) @name) @definition.function

(function_declaration
  name: (dot_index_expression
    field: (identifier) @name)) @definition.function

(function_declaration
  name: (method_index_expression
    method: (identifier) @name)) @definition.method

; `M.f = function () … end` and `f = function () … end`.
(assignment_statement
  (variable_list
    .
    name: [
      (identifier) @name
      (dot_index_expression
        field: (identifier) @name)
    ])
  (expression_list
    .
    value: (function_definition))) @definition.function

; `require("a.b")`: every call is captured, `tags::imports` keeps these.
(function_call) @import
