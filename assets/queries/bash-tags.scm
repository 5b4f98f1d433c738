; Shell tags (grammar: tree-sitter-bash). Definitions and imports only: references (commands
; run, variables expanded) come from the reference walk (`tags::refs`, `BASH_SPEC`).

(function_definition
  name: (word) @name) @definition.function

; Variables the script sets at its top level (what a sourcing script reads).
(program
  (variable_assignment
    name: (variable_name) @name) @definition.variable)

; `source FILE` and `. FILE`: every command is captured, `tags::imports` keeps these.
(command) @import
