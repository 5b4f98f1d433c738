; JSX additions appended to typescript-tags.scm for TSX (same capture names).
; A component use `<Foo/>` or `<ui.Button>` is a call; intrinsic tags (`<div>`) are not.

(jsx_opening_element
  name: (identifier) @reference.call
  (#match? @reference.call "^[A-Z]"))
(jsx_self_closing_element
  name: (identifier) @reference.call
  (#match? @reference.call "^[A-Z]"))
(jsx_opening_element
  name: (member_expression
    object: (_) @qualifier
    property: (_) @reference.call))
(jsx_self_closing_element
  name: (member_expression
    object: (_) @qualifier
    property: (_) @reference.call))

; Tag names are not plain references; the closing tag repeats the opening one.
(jsx_opening_element name: (identifier) @ignore)
(jsx_self_closing_element name: (identifier) @ignore)
(jsx_closing_element name: (identifier) @ignore)
(jsx_closing_element
  name: (member_expression object: (_) @ignore property: (_) @ignore))
