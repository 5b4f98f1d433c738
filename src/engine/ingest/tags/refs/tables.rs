//! The reference rules of the languages whose rules are all of a few shapes (Rust, Java, C,
//! C++, C#, Ruby, PHP), written as data: one `TableSpec` per language, resolved to kind and
//! field ids once per language (`TableIds`). `refs` reads them in its walk.
//!
//! Pure data and its one-time resolution; built on the first rayon worker to need a language.

use tree_sitter::Language;

use crate::engine::base::model::Lang;

/// Reference rules written as data, for the languages whose rules are all of a few shapes
/// (Rust, Java, C, C++, C#, Ruby, PHP). Kind and field names are resolved to ids once per
/// language (`TableIds::new`); a field of `""` matches any field.
pub(super) struct TableSpec {
    /// Name kinds that are a use wherever they stand, unless in a binding position.
    pub(super) refs: &'static [&'static str],
    /// Name kinds that are a type use.
    pub(super) types: &'static [&'static str],
    /// (parent kind, field): a `refs` name there is a type use (C# types are plain identifiers).
    pub(super) type_fields: &'static [(&'static str, &'static str)],
    /// (parent kind, field): a name there is called or constructed (`call_expression
    /// function:`, `new T`, a macro, an annotation).
    pub(super) calls: &'static [(&'static str, &'static str)],
    /// (kind, name field, qualifier field): a member access, `q.name` / `q::name` / `q->name`.
    pub(super) members: &'static [(&'static str, &'static str, &'static str)],
    /// (parent kind, field): a name there is inherited from or implemented.
    pub(super) heritage: &'static [(&'static str, &'static str)],
    /// Kinds that wrap a name without changing its role (`generic_type`, `qualified_name`):
    /// the call, heritage and binding rules also match through up to two of them.
    pub(super) wrappers: &'static [&'static str],
    /// (parent kind, field): a name there is bound (a parameter, a local), not used.
    pub(super) bindings: &'static [(&'static str, &'static str)],
    /// Kinds whose whole subtree holds no references: import statements, whose names are
    /// taken by the import reader, and attributes.
    pub(super) opaque: &'static [&'static str],
    /// (parent kind, field): the subtree of the child there holds no references, however deep
    /// (a C# namespace's dotted name, whose leading segments sit deeper than `wrappers` reach;
    /// the namespace's body holds the code, so the declaration itself cannot be opaque).
    pub(super) opaque_fields: &'static [(&'static str, &'static str)],
    /// Kinds of a plain-name qualifier.
    pub(super) plain: &'static [&'static str],
    /// Member accesses without fields (Kotlin's `navigation_expression`): the first named
    /// child is the qualifier, a later name is the member.
    pub(super) positional: &'static [&'static str],
    /// (suffix kind, name field, chain kind, qualifier field): a member whose name sits in a
    /// suffix node of a chain (Swift's `a.b` is `navigation_expression target: a suffix:
    /// (navigation_suffix suffix: b)`); the chain is in a call position when it is called.
    pub(super) chains: &'static [(&'static str, &'static str, &'static str, &'static str)],
    /// Bindings hold only where the name is the binding node's own child, not through the
    /// wrappers (Kotlin's and Swift's parameters hold their name and their type side by side,
    /// in one field or none).
    pub(super) direct_bindings: bool,
    /// (parent kind, field): a name there is neither a use nor a local binding (a Terraform
    /// attribute's or block's key: `name = var.name` still uses `name`).
    pub(super) keys: &'static [(&'static str, &'static str)],
}

pub(super) const RUST_SPEC: TableSpec = TableSpec {
    refs: &["identifier"],
    types: &["type_identifier"],
    type_fields: &[],
    calls: &[
        ("call_expression", "function"),
        ("macro_invocation", "macro"),
        ("struct_expression", "name"),
    ],
    members: &[
        ("field_expression", "field", "value"),
        ("scoped_identifier", "name", "path"),
        ("scoped_type_identifier", "name", "path"),
    ],
    heritage: &[("impl_item", "trait"), ("trait_item", "bounds")],
    wrappers: &["generic_type", "trait_bounds", "scoped_type_identifier"],
    bindings: &[
        ("parameter", "pattern"),
        ("let_declaration", "pattern"),
        ("closure_parameters", ""),
        ("for_expression", "pattern"),
        ("tuple_pattern", ""),
        ("mod_item", "name"),
        ("type_parameter", "name"),
    ],
    opaque: &["use_declaration", "attribute_item", "inner_attribute_item"],
    opaque_fields: &[],
    plain: &["identifier", "self"],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const JAVA_SPEC: TableSpec = TableSpec {
    refs: &["identifier"],
    types: &["type_identifier"],
    type_fields: &[],
    calls: &[
        ("method_invocation", "name"),
        ("object_creation_expression", "type"),
        ("marker_annotation", "name"),
        ("annotation", "name"),
    ],
    members: &[
        ("method_invocation", "name", "object"),
        ("field_access", "field", "object"),
    ],
    heritage: &[
        ("superclass", ""),
        ("super_interfaces", ""),
        ("extends_interfaces", ""),
    ],
    wrappers: &["generic_type", "type_list"],
    bindings: &[
        ("formal_parameter", "name"),
        ("variable_declarator", "name"),
        ("catch_formal_parameter", "name"),
        ("enhanced_for_statement", "name"),
        ("lambda_expression", "parameters"),
        ("inferred_parameters", ""),
        ("type_parameter", ""),
    ],
    opaque: &["package_declaration", "import_declaration"],
    opaque_fields: &[],
    plain: &["identifier", "this", "super"],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const C_SPEC: TableSpec = TableSpec {
    refs: &["identifier"],
    types: &["type_identifier"],
    type_fields: &[],
    calls: &[("call_expression", "function")],
    members: &[("field_expression", "field", "argument")],
    heritage: &[],
    wrappers: &[],
    bindings: &[
        ("parameter_declaration", "declarator"),
        ("init_declarator", "declarator"),
        ("pointer_declarator", "declarator"),
        ("array_declarator", "declarator"),
        ("declaration", "declarator"),
        ("function_declarator", "declarator"),
        ("preproc_params", ""),
        ("preproc_def", "name"),
        ("preproc_function_def", "name"),
    ],
    opaque: &["preproc_include"],
    opaque_fields: &[],
    plain: &["identifier"],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const CPP_SPEC: TableSpec = TableSpec {
    refs: &["identifier"],
    types: &["type_identifier"],
    type_fields: &[],
    calls: &[("call_expression", "function"), ("new_expression", "type")],
    members: &[("field_expression", "field", "argument")],
    heritage: &[("base_class_clause", "")],
    wrappers: &["template_type", "template_function", "qualified_identifier"],
    bindings: &[
        ("parameter_declaration", "declarator"),
        ("optional_parameter_declaration", "declarator"),
        ("init_declarator", "declarator"),
        ("pointer_declarator", "declarator"),
        ("reference_declarator", ""),
        ("array_declarator", "declarator"),
        ("declaration", "declarator"),
        ("function_declarator", "declarator"),
        ("preproc_params", ""),
        ("preproc_def", "name"),
        ("preproc_function_def", "name"),
        ("type_parameter_declaration", ""),
        ("namespace_definition", "name"),
    ],
    opaque: &["preproc_include", "using_declaration"],
    opaque_fields: &[],
    plain: &["identifier", "this"],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const CSHARP_SPEC: TableSpec = TableSpec {
    refs: &["identifier"],
    types: &[],
    type_fields: &[
        ("variable_declaration", "type"),
        ("parameter", "type"),
        ("method_declaration", "returns"),
        ("property_declaration", "type"),
        ("type_argument_list", ""),
        ("type_parameter_constraint", "type"),
        ("cast_expression", "type"),
        ("base_list", ""),
        ("object_creation_expression", "type"),
        ("typeof_expression", "type"),
    ],
    calls: &[
        ("invocation_expression", "function"),
        ("object_creation_expression", "type"),
        ("attribute", "name"),
    ],
    members: &[("member_access_expression", "name", "expression")],
    heritage: &[("base_list", "")],
    wrappers: &[
        "generic_name",
        "qualified_name",
        "nullable_type",
        "array_type",
    ],
    bindings: &[
        ("parameter", "name"),
        ("variable_declarator", "name"),
        ("foreach_statement", "left"),
        ("catch_declaration", "name"),
        ("type_parameter", "name"),
    ],
    opaque: &["using_directive"],
    opaque_fields: &[
        ("namespace_declaration", "name"),
        ("file_scoped_namespace_declaration", "name"),
    ],
    plain: &["identifier"],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const RUBY_SPEC: TableSpec = TableSpec {
    refs: &["identifier", "constant"],
    types: &[],
    type_fields: &[],
    calls: &[("call", "method")],
    members: &[
        ("call", "method", "receiver"),
        ("scope_resolution", "name", "scope"),
    ],
    heritage: &[("superclass", "")],
    wrappers: &["scope_resolution"],
    bindings: &[
        ("method_parameters", ""),
        ("block_parameters", ""),
        ("lambda_parameters", ""),
        ("optional_parameter", "name"),
        ("keyword_parameter", "name"),
        ("splat_parameter", "name"),
        ("hash_splat_parameter", "name"),
        ("block_parameter", "name"),
        ("assignment", "left"),
        ("operator_assignment", "left"),
        ("left_assignment_list", ""),
        ("for", "pattern"),
        ("exception_variable", ""),
    ],
    opaque: &[],
    opaque_fields: &[],
    plain: &["identifier", "constant", "self"],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const PHP_SPEC: TableSpec = TableSpec {
    refs: &["name"],
    types: &[],
    type_fields: &[("named_type", "")],
    calls: &[
        ("function_call_expression", "function"),
        ("member_call_expression", "name"),
        ("nullsafe_member_call_expression", "name"),
        ("scoped_call_expression", "name"),
        ("object_creation_expression", ""),
        ("attribute", ""),
    ],
    members: &[
        ("member_call_expression", "name", "object"),
        ("nullsafe_member_call_expression", "name", "object"),
        ("scoped_call_expression", "name", "scope"),
        ("member_access_expression", "name", "object"),
    ],
    heritage: &[("base_clause", ""), ("class_interface_clause", "")],
    wrappers: &["qualified_name"],
    bindings: &[("variable_name", "")],
    // Not `namespace_definition`: a braced namespace holds the code.
    opaque: &["namespace_use_declaration", "namespace_name"],
    opaque_fields: &[],
    plain: &["name", "variable_name", "relative_scope"],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const KOTLIN_SPEC: TableSpec = TableSpec {
    refs: &["identifier"],
    types: &[],
    type_fields: &[("user_type", "")],
    // The grammar has no fields here: the callee is the call's one identifier child.
    calls: &[
        ("call_expression", ""),
        ("constructor_invocation", ""),
        ("annotation", ""),
    ],
    members: &[],
    heritage: &[("delegation_specifier", "")],
    wrappers: &["user_type", "constructor_invocation", "nullable_type"],
    bindings: &[
        ("variable_declaration", ""),
        ("parameter", ""),
        ("class_parameter", ""),
        ("type_parameter", ""),
        ("catch_block", ""),
    ],
    opaque: &["import", "package_header"],
    opaque_fields: &[],
    plain: &["identifier", "this_expression", "super_expression"],
    positional: &["navigation_expression"],
    chains: &[],
    direct_bindings: true,
    keys: &[],
};

// The grammar puts a parameter's type in its `name` field too: bindings are direct.
pub(super) const SWIFT_SPEC: TableSpec = TableSpec {
    refs: &["simple_identifier"],
    types: &["type_identifier"],
    type_fields: &[],
    calls: &[
        ("call_expression", ""),
        ("constructor_expression", ""),
        ("attribute", ""),
    ],
    members: &[],
    heritage: &[("inheritance_specifier", "inherits_from")],
    wrappers: &["user_type"],
    bindings: &[
        ("parameter", "name"),
        ("parameter", "external_name"),
        ("pattern", "bound_identifier"),
        ("value_argument_label", ""),
        ("lambda_parameter", ""),
        ("enum_entry", "name"),
        ("type_parameter", ""),
    ],
    opaque: &["import_declaration"],
    opaque_fields: &[],
    plain: &["simple_identifier", "self_expression", "super_expression"],
    positional: &[],
    chains: &[(
        "navigation_suffix",
        "suffix",
        "navigation_expression",
        "target",
    )],
    direct_bindings: true,
    keys: &[],
};

pub(super) const BASH_SPEC: TableSpec = TableSpec {
    // A command's name is a use of the function it runs; `$x` of the variable.
    refs: &["command_name", "variable_name"],
    types: &[],
    type_fields: &[],
    calls: &[("command", "name")],
    members: &[],
    heritage: &[],
    wrappers: &[],
    bindings: &[
        ("variable_assignment", "name"),
        ("for_statement", "variable"),
    ],
    opaque: &[],
    opaque_fields: &[],
    plain: &[],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const SCALA_SPEC: TableSpec = TableSpec {
    refs: &["identifier"],
    types: &["type_identifier"],
    type_fields: &[],
    calls: &[
        ("call_expression", "function"),
        ("generic_function", "function"),
        ("instance_expression", ""),
        ("annotation", "name"),
    ],
    members: &[("field_expression", "field", "value")],
    heritage: &[("extends_clause", "type")],
    wrappers: &["generic_type", "generic_function"],
    bindings: &[
        ("parameter", "name"),
        ("class_parameter", "name"),
        ("val_definition", "pattern"),
        ("var_definition", "pattern"),
        ("binding", "name"),
        ("bindings", ""),
        ("typed_pattern", "pattern"),
        ("type_parameters", ""),
        ("lambda_expression", "parameters"),
        ("enumerator", ""),
    ],
    opaque: &["import_declaration", "package_clause"],
    opaque_fields: &[],
    plain: &["identifier"],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const LUA_SPEC: TableSpec = TableSpec {
    refs: &["identifier"],
    types: &[],
    type_fields: &[],
    calls: &[("function_call", "name")],
    members: &[
        ("dot_index_expression", "field", "table"),
        ("method_index_expression", "method", "table"),
    ],
    heritage: &[],
    wrappers: &[],
    bindings: &[
        ("parameters", "name"),
        ("variable_list", "name"),
        ("for_numeric_clause", "name"),
        ("attribute", ""),
    ],
    opaque: &[],
    opaque_fields: &[],
    plain: &["identifier"],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const ELIXIR_SPEC: TableSpec = TableSpec {
    // `alias` is a module name (`Acme.Store`), used bare or as a call's qualifier.
    refs: &["identifier", "alias"],
    types: &[],
    type_fields: &[],
    calls: &[("call", "target")],
    members: &[("dot", "right", "left")],
    heritage: &[],
    wrappers: &[],
    bindings: &[],
    opaque: &[],
    opaque_fields: &[],
    plain: &["identifier", "alias"],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    keys: &[],
};

pub(super) const HCL_SPEC: TableSpec = TableSpec {
    // `var.x`, `module.m.out`: each segment is a use; its own qualifier is the segment
    // before it, a sibling, which a reference does not keep.
    refs: &["identifier"],
    types: &[],
    type_fields: &[],
    calls: &[("function_call", "")],
    members: &[],
    heritage: &[],
    wrappers: &[],
    bindings: &[],
    opaque: &[],
    opaque_fields: &[],
    plain: &[],
    positional: &[],
    chains: &[],
    direct_bindings: false,
    // A block's type, an attribute's or an object key's name: not uses.
    keys: &[("block", ""), ("attribute", ""), ("object_elem", "key")],
};

/// The data rules of a language, or `None` for those with hand-written rules.
pub(super) fn table_spec(lang: Lang) -> Option<&'static TableSpec> {
    Some(match lang {
        Lang::Rust => &RUST_SPEC,
        Lang::Java => &JAVA_SPEC,
        Lang::C => &C_SPEC,
        Lang::Cpp => &CPP_SPEC,
        Lang::CSharp => &CSHARP_SPEC,
        Lang::Ruby => &RUBY_SPEC,
        Lang::Php => &PHP_SPEC,
        Lang::Kotlin => &KOTLIN_SPEC,
        Lang::Swift => &SWIFT_SPEC,
        Lang::Bash => &BASH_SPEC,
        Lang::Scala => &SCALA_SPEC,
        Lang::Lua => &LUA_SPEC,
        Lang::Elixir => &ELIXIR_SPEC,
        Lang::Hcl => &HCL_SPEC,
        Lang::TypeScript
        | Lang::Tsx
        | Lang::JavaScript
        | Lang::Vue
        | Lang::Svelte
        | Lang::Python
        | Lang::Go => return None,
    })
}

/// A `TableSpec` with its names resolved to ids; 0 is "any field" (and a missing name, listed
/// in `missing` for the tests).
pub(super) struct TableIds {
    pub(super) refs: Vec<u16>,
    pub(super) types: Vec<u16>,
    pub(super) type_fields: Vec<(u16, u16)>,
    pub(super) calls: Vec<(u16, u16)>,
    pub(super) members: Vec<(u16, u16, u16)>,
    pub(super) heritage: Vec<(u16, u16)>,
    pub(super) wrappers: Vec<u16>,
    pub(super) bindings: Vec<(u16, u16)>,
    pub(super) opaque: Vec<u16>,
    pub(super) opaque_fields: Vec<(u16, u16)>,
    pub(super) plain: Vec<u16>,
    pub(super) positional: Vec<u16>,
    /// (suffix kind, name field, chain kind, qualifier field).
    pub(super) chains: Vec<(u16, u16, u16, u16)>,
    pub(super) direct_bindings: bool,
    pub(super) keys: Vec<(u16, u16)>,
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) missing: Vec<&'static str>,
}

impl TableIds {
    pub(super) fn new(language: &Language, spec: &TableSpec) -> TableIds {
        let mut missing = Vec::new();
        let mut kind = |name: &'static str| {
            let id = language.id_for_node_kind(name, true);
            if id == 0 {
                missing.push(name);
            }
            id
        };
        let kinds = |names: &[&'static str], kind: &mut dyn FnMut(&'static str) -> u16| {
            names.iter().map(|n| kind(n)).collect::<Vec<u16>>()
        };
        let refs = kinds(spec.refs, &mut kind);
        let types = kinds(spec.types, &mut kind);
        let wrappers = kinds(spec.wrappers, &mut kind);
        let opaque = kinds(spec.opaque, &mut kind);
        let plain = kinds(spec.plain, &mut kind);
        let direct_bindings = spec.direct_bindings;
        let positional = kinds(spec.positional, &mut kind);
        let mut fields_missing = Vec::new();
        let mut field = |name: &'static str| -> u16 {
            if name.is_empty() {
                return 0;
            }
            if let Some(f) = language.field_id_for_name(name) {
                f.get()
            } else {
                fields_missing.push(name);
                0
            }
        };
        let mut pairs = |list: &[(&'static str, &'static str)]| -> Vec<(u16, u16)> {
            list.iter().map(|&(k, f)| (kind(k), field(f))).collect()
        };
        let type_fields = pairs(spec.type_fields);
        let calls = pairs(spec.calls);
        let heritage = pairs(spec.heritage);
        let bindings = pairs(spec.bindings);
        let opaque_fields = pairs(spec.opaque_fields);
        let keys = pairs(spec.keys);
        let members = spec
            .members
            .iter()
            .map(|&(k, n, q)| (kind(k), field(n), field(q)))
            .collect();
        let chains = spec
            .chains
            .iter()
            .map(|&(suffix, name, chain, qual)| {
                (kind(suffix), field(name), kind(chain), field(qual))
            })
            .collect();
        missing.extend(fields_missing);
        TableIds {
            refs,
            types,
            type_fields,
            calls,
            members,
            heritage,
            wrappers,
            bindings,
            opaque,
            opaque_fields,
            plain,
            positional,
            chains,
            direct_bindings,
            keys,
            missing,
        }
    }

    #[cfg(test)]
    pub(super) fn missing(&self) -> Vec<&'static str> {
        self.missing.clone()
    }
}

/// Whether `(kind, field)` is one of `rules` (a rule's field 0 matches any field).
pub(super) fn at(rules: &[(u16, u16)], kind: u16, field: u16) -> bool {
    rules
        .iter()
        .any(|&(k, f)| k == kind && k != 0 && (f == 0 || f == field))
}
