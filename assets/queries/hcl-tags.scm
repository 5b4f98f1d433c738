; HCL tags (grammar: tree-sitter-hcl): Terraform's blocks. Definitions and imports only:
; references (`var.x`, `module.m.out`, `aws_s3_bucket.b.arn`, function calls) come from the
; reference walk (`tags::refs`, `HCL_SPEC`). A block is named by its last label
; (`tags::named`); its address (`var.region`, `aws_s3_bucket.items`) is written by its
; container (`tags::containers`).

(config_file
  (body
    (block
      (identifier) @_type
      (#any-of? @_type "resource" "data")) @definition.struct @named))

(config_file
  (body
    (block
      (identifier) @_type
      (#eq? @_type "module")) @definition.class @named @import))

(config_file
  (body
    (block
      (identifier) @_type
      (#eq? @_type "variable")) @definition.variable @named))

(config_file
  (body
    (block
      (identifier) @_type
      (#eq? @_type "output")) @definition.constant @named))

(config_file
  (body
    (block
      (identifier) @_type
      (body
        (attribute
          (identifier) @name) @definition.constant)
      (#eq? @_type "locals"))))
