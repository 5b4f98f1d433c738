//! References found by a hand-written walk instead of a query: which name nodes are calls,
//! types, heritage or plain uses, with their qualifier, and which sit in binding positions.
//!
//! Runs on rayon workers, inside `Extractor::run`'s tree walk; the tables of kind and field ids
//! are built once per language and shared read-only. A tags query with "every identifier"
//! patterns makes tree-sitter's query engine keep several in-progress states for most nodes of
//! a file, which costs more than parsing it; the same rules written as comparisons of
//! precomputed ids on the node, its parent and grandparent cost a few nanoseconds per node.
//!
//! Each rule reads like the query pattern it replaces (`(call_expression function:
//! (identifier) @reference.call)`): a node gets the most specific kind any rule gives it
//! (heritage > call > type > reference), preferring a rule that knows the qualifier, and a
//! binding position (a parameter, a declared name, an import alias) is never a plain reference
//! or type use.

use std::sync::OnceLock;

use tree_sitter::{Language, Node};

use crate::engine::base::model::{Lang, RefKind};
use crate::engine::ingest::lang;

mod tables;
use tables::{at, table_spec, TableIds};

/// A node on the walk's ancestor stack (or the node being visited).
#[derive(Clone, Copy)]
pub(super) struct Frame<'t> {
    pub node: Node<'t>,
    pub kind: u16,
    /// Field of this node in its parent, 0 for none (or not needed: see `Rules::field_parent`).
    pub field: u16,
    /// The first named child seen so far in this node's qualifier field (`object` of a member
    /// expression, `operand` of a Go selector, …): patterns list it before the member's name.
    pub qual: Option<Node<'t>>,
}

/// What the rules say about one node.
#[derive(Default, Clone, Copy)]
pub(super) struct Verdict<'t> {
    pub best: Option<(RefKind, Option<Node<'t>>)>,
    /// A binding position: drops a `Reference` or `Type` verdict.
    pub ignored: bool,
    /// A local binding (TS/JS): a variable, parameter or pattern name declared in the file.
    /// Not imports, class names or JSX tags, which are ignored for other reasons.
    pub binds: bool,
}

impl<'t> Verdict<'t> {
    /// Keep the more specific kind; on a tie, the one with a (plain-name) qualifier.
    fn add(&mut self, kind: RefKind, qualifier: Option<Node<'t>>) {
        let better = match self.best {
            None => true,
            Some((k, q)) => {
                priority(kind) > priority(k)
                    || (priority(kind) == priority(k) && q.is_none() && qualifier.is_some())
            }
        };
        if better {
            self.best = Some((kind, qualifier));
        }
    }

    /// The reference this node makes, if any.
    pub fn result(self) -> Option<(RefKind, Option<Node<'t>>)> {
        let (kind, q) = self.best?;
        if self.ignored && matches!(kind, RefKind::Reference | RefKind::Type) {
            return None;
        }
        Some((kind, q))
    }
}

fn priority(kind: RefKind) -> u8 {
    match kind {
        RefKind::Import => 5,
        RefKind::Heritage => 4,
        RefKind::Call => 3,
        RefKind::Type => 2,
        RefKind::Reference => 1,
    }
}

/// Declares a struct of kind and field ids, resolved by name from a grammar (0 when the grammar
/// lacks the name: such a rule never fires, and `missing` lists it for the tests).
macro_rules! ids {
    ($name:ident { kinds { $($k:ident = $ks:literal),* $(,)? } fields { $($f:ident = $fs:literal),* $(,)? } }) => {
        pub(super) struct $name {
            $($k: u16,)*
            $($f: u16,)*
        }

        impl $name {
            fn new(language: &Language) -> Self {
                $name {
                    $($k: language.id_for_node_kind($ks, true),)*
                    $($f: language.field_id_for_name($fs).map_or(0, |f| f.get()),)*
                }
            }

            #[cfg(test)]
            fn missing(&self) -> Vec<&'static str> {
                let mut out = Vec::new();
                $(if self.$k == 0 { out.push($ks); })*
                $(if self.$f == 0 { out.push($fs); })*
                out
            }
        }
    };
}

ids!(GoIds {
    kinds {
        identifier = "identifier",
        field_identifier = "field_identifier",
        type_identifier = "type_identifier",
        package_identifier = "package_identifier",
        call_expression = "call_expression",
        selector_expression = "selector_expression",
        type_conversion_expression = "type_conversion_expression",
        generic_type = "generic_type",
        composite_literal = "composite_literal",
        qualified_type = "qualified_type",
        field_declaration = "field_declaration",
        interface_type = "interface_type",
        type_elem = "type_elem",
        parameter_declaration = "parameter_declaration",
        variadic_parameter_declaration = "variadic_parameter_declaration",
        const_spec = "const_spec",
        var_spec = "var_spec",
        short_var_declaration = "short_var_declaration",
        expression_list = "expression_list",
        range_clause = "range_clause",
        type_parameter_declaration = "type_parameter_declaration",
        keyed_element = "keyed_element",
        literal_element = "literal_element",
        type_switch_statement = "type_switch_statement",
    }
    fields {
        f_function = "function",
        f_operand = "operand",
        f_field = "field",
        f_type = "type",
        f_package = "package",
        f_name = "name",
        f_left = "left",
        f_key = "key",
        f_alias = "alias",
    }
});

ids!(JsIds {
    kinds {
        identifier = "identifier",
        this = "this",
        super_ = "super",
        shorthand_property_identifier = "shorthand_property_identifier",
        shorthand_property_identifier_pattern = "shorthand_property_identifier_pattern",
        call_expression = "call_expression",
        member_expression = "member_expression",
        new_expression = "new_expression",
        decorator = "decorator",
        class_heritage = "class_heritage",
        jsx_opening_element = "jsx_opening_element",
        jsx_self_closing_element = "jsx_self_closing_element",
        jsx_closing_element = "jsx_closing_element",
        variable_declarator = "variable_declarator",
        formal_parameters = "formal_parameters",
        arrow_function = "arrow_function",
        catch_clause = "catch_clause",
        array_pattern = "array_pattern",
        rest_pattern = "rest_pattern",
        pair_pattern = "pair_pattern",
        assignment_pattern = "assignment_pattern",
        for_in_statement = "for_in_statement",
        function_expression = "function_expression",
        class = "class",
        import_specifier = "import_specifier",
        import_clause = "import_clause",
        namespace_import = "namespace_import",
        namespace_export = "namespace_export",
        export_specifier = "export_specifier",
    }
    fields {
        f_function = "function",
        f_object = "object",
        f_property = "property",
        f_constructor = "constructor",
        f_name = "name",
        f_alias = "alias",
        f_value = "value",
        f_parameter = "parameter",
        f_left = "left",
    }
});

// TypeScript-only kinds and fields (the shared ones are in `JsIds`).
ids!(TsIds {
    kinds {
        type_identifier = "type_identifier",
        nested_type_identifier = "nested_type_identifier",
        generic_type = "generic_type",
        extends_clause = "extends_clause",
        implements_clause = "implements_clause",
        extends_type_clause = "extends_type_clause",
        required_parameter = "required_parameter",
        optional_parameter = "optional_parameter",
        type_parameter = "type_parameter",
        mapped_type_clause = "mapped_type_clause",
        internal_module = "internal_module",
        import_require_clause = "import_require_clause",
    }
    fields {
        f_module = "module",
        f_type = "type",
        f_pattern = "pattern",
    }
});

ids!(PyIds {
    kinds {
        identifier = "identifier",
        call = "call",
        attribute = "attribute",
        decorator = "decorator",
        class_definition = "class_definition",
        argument_list = "argument_list",
        type_ = "type",
        generic_type = "generic_type",
        binary_operator = "binary_operator",
        parameters = "parameters",
        lambda_parameters = "lambda_parameters",
        typed_parameter = "typed_parameter",
        default_parameter = "default_parameter",
        typed_default_parameter = "typed_default_parameter",
        list_splat_pattern = "list_splat_pattern",
        dictionary_splat_pattern = "dictionary_splat_pattern",
        keyword_argument = "keyword_argument",
        assignment = "assignment",
        pattern_list = "pattern_list",
        tuple_pattern = "tuple_pattern",
        for_statement = "for_statement",
        for_in_clause = "for_in_clause",
        as_pattern_target = "as_pattern_target",
        global_statement = "global_statement",
        nonlocal_statement = "nonlocal_statement",
        import_statement = "import_statement",
        dotted_name = "dotted_name",
        aliased_import = "aliased_import",
        import_from_statement = "import_from_statement",
        relative_import = "relative_import",
        future_import_statement = "future_import_statement",
    }
    fields {
        f_function = "function",
        f_object = "object",
        f_attribute = "attribute",
        f_superclasses = "superclasses",
        f_name = "name",
        f_left = "left",
        f_alias = "alias",
        f_module_name = "module_name",
    }
});

enum Ids {
    Go(GoIds),
    Js {
        js: JsIds,
        /// TypeScript rules; `None` for JavaScript.
        ts: Option<TsIds>,
        /// JSX component rules (JavaScript and TSX).
        jsx: bool,
    },
    Py(PyIds),
    /// Boxed: the data rules' lists make it the largest variant by far.
    Table(Box<TableIds>),
}

/// The reference rules of one language, with per-kind lookup tables.
pub(super) struct Rules {
    ids: Ids,
    /// Kinds whose children's field ids the rules read (`Frame::field`).
    field_parent: Vec<bool>,
    /// Kinds that hold a qualifier, and the field it sits in.
    qual_field: Vec<u16>,
    /// Kinds a rule can say something about by the node's own kind.
    named_rule: Vec<bool>,
    /// Parent kinds under which any named child can be a reference or a binding (`(_)` in the
    /// old query patterns).
    wildcard_parent: Vec<bool>,
    /// Kinds of a plain-name qualifier (`obj`, `this`, `pkg`; not `a.b` or `f()`).
    plain: Vec<u16>,
    /// Kinds whose subtree the walk does not classify (`TableSpec::opaque`).
    opaque: Vec<bool>,
    /// Per parent kind, the field whose child's subtree the walk does not classify (0: none;
    /// `TableSpec::opaque_fields`).
    opaque_field: Vec<u16>,
    /// Kinds whose first named child is their qualifier (`TableSpec::positional`).
    positional: Vec<bool>,
}

impl Rules {
    /// The rules of a language, built on first use.
    pub fn of(lang: Lang) -> &'static Rules {
        static RULES: [OnceLock<Rules>; Lang::ALL.len()] =
            [const { OnceLock::new() }; Lang::ALL.len()];
        RULES[lang::slot(lang)].get_or_init(|| Rules::new(lang))
    }

    fn new(lang: Lang) -> Rules {
        let language = lang::grammar(lang);
        let count = language.node_kind_count();
        let mut rules = Rules {
            ids: match (lang, table_spec(lang)) {
                (_, Some(spec)) => Ids::Table(Box::new(TableIds::new(&language, spec))),
                (Lang::Go, None) => Ids::Go(GoIds::new(&language)),
                (Lang::Python, None) => Ids::Py(PyIds::new(&language)),
                (Lang::JavaScript, None) => Ids::Js {
                    js: JsIds::new(&language),
                    ts: None,
                    jsx: true,
                },
                // TypeScript and TSX (every other language has a `TableSpec`).
                _ => Ids::Js {
                    js: JsIds::new(&language),
                    ts: Some(TsIds::new(&language)),
                    jsx: lang == Lang::Tsx,
                },
            },
            field_parent: vec![false; count],
            qual_field: vec![0; count],
            named_rule: vec![false; count],
            wildcard_parent: vec![false; count],
            plain: Vec::new(),
            opaque: vec![false; count],
            opaque_field: vec![0; count],
            positional: vec![false; count],
        };
        let mut opaque: Vec<u16> = Vec::new();
        let mut field_parents: Vec<u16> = Vec::new();
        let mut named: Vec<u16> = Vec::new();
        let mut wildcard: Vec<u16> = Vec::new();
        let mut quals: Vec<(u16, u16)> = Vec::new();
        match &rules.ids {
            Ids::Go(g) => {
                field_parents.extend([
                    g.call_expression,
                    g.selector_expression,
                    g.type_conversion_expression,
                    g.generic_type,
                    g.composite_literal,
                    g.qualified_type,
                    g.field_declaration,
                    g.short_var_declaration,
                    g.range_clause,
                    g.keyed_element,
                    g.type_switch_statement,
                ]);
                named.extend([g.identifier, g.field_identifier, g.type_identifier]);
                wildcard.push(g.qualified_type);
                quals.extend([
                    (g.selector_expression, g.f_operand),
                    (g.qualified_type, g.f_package),
                ]);
                rules.plain = vec![g.identifier, g.package_identifier];
            }
            Ids::Js { js, ts, .. } => {
                field_parents.extend([
                    js.call_expression,
                    js.member_expression,
                    js.new_expression,
                    js.jsx_opening_element,
                    js.jsx_self_closing_element,
                    js.jsx_closing_element,
                    js.variable_declarator,
                    js.arrow_function,
                    js.catch_clause,
                    js.pair_pattern,
                    js.assignment_pattern,
                    js.for_in_statement,
                    js.function_expression,
                    js.class,
                    js.import_specifier,
                    js.export_specifier,
                ]);
                named.extend([
                    js.identifier,
                    js.shorthand_property_identifier,
                    js.shorthand_property_identifier_pattern,
                ]);
                wildcard.extend([
                    js.member_expression,
                    js.class,
                    js.import_specifier,
                    js.export_specifier,
                ]);
                quals.push((js.member_expression, js.f_object));
                if let Some(ts) = ts {
                    field_parents.extend([
                        ts.nested_type_identifier,
                        ts.generic_type,
                        ts.extends_clause,
                        ts.extends_type_clause,
                        ts.required_parameter,
                        ts.optional_parameter,
                        ts.type_parameter,
                        ts.mapped_type_clause,
                        ts.internal_module,
                    ]);
                    named.push(ts.type_identifier);
                    wildcard.extend([
                        ts.nested_type_identifier,
                        ts.type_parameter,
                        ts.mapped_type_clause,
                        ts.internal_module,
                    ]);
                    quals.push((ts.nested_type_identifier, ts.f_module));
                }
                rules.plain = vec![js.identifier, js.this, js.super_];
            }
            Ids::Py(p) => {
                field_parents.extend([
                    p.call,
                    p.attribute,
                    p.class_definition,
                    p.default_parameter,
                    p.typed_default_parameter,
                    p.keyword_argument,
                    p.assignment,
                    p.for_statement,
                    p.for_in_clause,
                    p.aliased_import,
                    p.import_statement,
                    p.import_from_statement,
                    p.future_import_statement,
                ]);
                named.push(p.identifier);
                quals.push((p.attribute, p.f_object));
                rules.plain = vec![p.identifier];
            }
            Ids::Table(t) => {
                let parents = t
                    .type_fields
                    .iter()
                    .chain(&t.calls)
                    .chain(&t.heritage)
                    .chain(&t.bindings)
                    .chain(&t.opaque_fields)
                    .chain(&t.keys)
                    .map(|&(k, _)| k);
                field_parents.extend(parents);
                field_parents.extend(t.members.iter().map(|&(k, _, _)| k));
                field_parents.extend(&t.wrappers);
                named.extend(&t.refs);
                named.extend(&t.types);
                // A member's name may be of any kind (`field_identifier`, `name`).
                wildcard.extend(t.members.iter().map(|&(k, _, _)| k));
                quals.extend(
                    t.members
                        .iter()
                        .filter(|&&(_, _, q)| q != 0)
                        .map(|&(k, _, q)| (k, q)),
                );
                opaque.extend(&t.opaque);
                wildcard.extend(&t.positional);
                for &kind in &t.positional {
                    if let Some(slot) = rules.positional.get_mut(usize::from(kind)) {
                        *slot = kind != 0;
                    }
                }
                for &(suffix, _, chain, qual) in &t.chains {
                    field_parents.extend([suffix, chain]);
                    wildcard.push(suffix);
                    quals.push((chain, qual));
                }
                for &(kind, field) in &t.opaque_fields {
                    if let Some(slot) = rules.opaque_field.get_mut(usize::from(kind)) {
                        *slot = field;
                    }
                }
                rules.plain = t.plain.clone();
            }
        }
        let set = |table: &mut Vec<bool>, kinds: &[u16]| {
            for &k in kinds {
                if k != 0 {
                    if let Some(slot) = table.get_mut(usize::from(k)) {
                        *slot = true;
                    }
                }
            }
        };
        set(&mut rules.field_parent, &field_parents);
        set(&mut rules.named_rule, &named);
        set(&mut rules.wildcard_parent, &wildcard);
        set(&mut rules.opaque, &opaque);
        for (kind, field) in quals {
            if kind != 0 {
                if let Some(slot) = rules.qual_field.get_mut(usize::from(kind)) {
                    *slot = field;
                }
            }
        }
        rules.plain.retain(|&k| k != 0);
        rules
    }

    /// Whether the rules read the field of a child of this kind of node.
    #[inline]
    pub fn wants_field(&self, parent_kind: u16) -> bool {
        self.field_parent
            .get(usize::from(parent_kind))
            .copied()
            .unwrap_or(false)
    }

    /// Record `child` as `parent`'s qualifier if it sits in the parent's qualifier field.
    #[inline]
    pub fn note_qualifier<'t>(&self, parent: &mut Frame<'t>, child: &Frame<'t>) {
        if self.positional.get(usize::from(parent.kind)) == Some(&true) {
            if parent.qual.is_none() && child.node.is_named() {
                parent.qual = Some(child.node);
            }
            return;
        }
        let Some(&field) = self.qual_field.get(usize::from(parent.kind)) else {
            return;
        };
        if field != 0 && child.field == field && parent.qual.is_none() && child.node.is_named() {
            parent.qual = Some(child.node);
        }
    }

    /// Whether a node of this kind under this parent can be a reference or binding at all (the
    /// cheap test that keeps most nodes out of `classify`).
    #[inline]
    pub fn may_apply(&self, kind: u16, parent_kind: u16) -> bool {
        self.named_rule
            .get(usize::from(kind))
            .copied()
            .unwrap_or(false)
            || self
                .wildcard_parent
                .get(usize::from(parent_kind))
                .copied()
                .unwrap_or(false)
    }

    /// Whether the walk skips classifying the subtree of a node of this kind, in this field of
    /// a parent of that kind.
    #[inline]
    pub fn is_opaque(&self, kind: u16, parent_kind: u16, field: u16) -> bool {
        self.opaque.get(usize::from(kind)).copied().unwrap_or(false)
            || (field != 0
                && self.opaque_field.get(usize::from(parent_kind)).copied() == Some(field))
    }

    /// The qualifier text a reference keeps: only a plain name qualifies a member use.
    pub fn plain_qualifier<'t>(&self, q: Option<Node<'t>>) -> Option<Node<'t>> {
        q.filter(|q| self.plain.contains(&q.kind_id()))
    }

    /// The verdict for `node` given its ancestors (`stack`, innermost last) and its text.
    pub fn classify<'t>(&self, node: &Frame<'t>, stack: &[Frame<'t>], text: &str) -> Verdict<'t> {
        let n = stack.len();
        let p = n.checked_sub(1).and_then(|i| stack.get(i));
        let g = n.checked_sub(2).and_then(|i| stack.get(i));
        let gg = n.checked_sub(3).and_then(|i| stack.get(i));
        let mut v = Verdict::default();
        let Some(p) = p else {
            return v;
        };
        match &self.ids {
            Ids::Go(ids) => self.go(ids, &mut v, node, p, g, gg, text),
            Ids::Js { js, ts, jsx } => {
                self.js(js, ts.as_ref(), *jsx, &mut v, node, p, g, gg, text);
            }
            Ids::Py(ids) => self.py(ids, &mut v, node, p, g, gg),
            Ids::Table(ids) => self.table(ids, &mut v, node, p, g, gg),
        }
        v
    }

    /// The data rules (`TableSpec`): the node's own kind first, then its position, looked up
    /// directly and through up to two wrapper kinds.
    fn table<'t>(
        &self,
        t: &TableIds,
        v: &mut Verdict<'t>,
        node: &Frame<'t>,
        p: &Frame<'t>,
        g: Option<&Frame<'t>>,
        gg: Option<&Frame<'t>>,
    ) {
        let k = node.kind;
        let f = node.field;
        let (gk, gf) = g.map_or((0, 0), |g| (g.kind, g.field));
        let ggk = gg.map_or(0, |g| g.kind);
        // The position a name holds: its parent's field, or the wrapper's position for a name
        // wrapped in a generic type or qualified name.
        let in_pos = |rules: &[(u16, u16)]| {
            at(rules, p.kind, f)
                || (t.wrappers.contains(&p.kind)
                    && (at(rules, gk, p.field) || (t.wrappers.contains(&gk) && at(rules, ggk, gf))))
        };
        let is_ref = t.refs.contains(&k);
        let is_type = t.types.contains(&k);
        if is_ref || is_type {
            if is_type || in_pos(&t.type_fields) {
                v.add(RefKind::Type, None);
            } else {
                v.add(RefKind::Reference, None);
            }
            if in_pos(&t.calls) {
                v.add(RefKind::Call, None);
            }
            if in_pos(&t.heritage) {
                v.add(RefKind::Heritage, None);
            }
        }
        if node.node.is_named() {
            for &(member, name_field, _) in &t.members {
                if p.kind != member || f != name_field || name_field == 0 || p.qual.is_none() {
                    continue;
                }
                let q = self.plain_qualifier(p.qual);
                v.add(
                    if is_type {
                        RefKind::Type
                    } else {
                        RefKind::Reference
                    },
                    q,
                );
                // `q.f()`: the member itself is in a call position, or (Java, Ruby, PHP) the
                // call node is the member access.
                if at(&t.calls, p.kind, f) || at(&t.calls, gk, p.field) {
                    v.add(RefKind::Call, q);
                }
                if is_type && at(&t.heritage, gk, p.field) {
                    v.add(RefKind::Heritage, q);
                }
            }
        }
        if node.node.is_named() && t.positional.contains(&p.kind) {
            // `a.b`: a name after the qualifier, which is the first named child.
            if let Some(qual) = p.qual.filter(|q| q.id() != node.node.id()) {
                let q = self.plain_qualifier(Some(qual));
                v.add(RefKind::Reference, q);
                if at(&t.calls, gk, p.field) {
                    v.add(RefKind::Call, q);
                }
            }
        }
        for &(suffix, name_field, chain, _) in &t.chains {
            if p.kind == suffix && f == name_field && gk == chain && (is_ref || is_type) {
                let q = self.plain_qualifier(g.and_then(|g| g.qual));
                v.add(RefKind::Reference, q);
                if at(&t.calls, ggk, gf) {
                    v.add(RefKind::Call, q);
                }
            }
        }
        let bound = if t.direct_bindings {
            at(&t.bindings, p.kind, f)
        } else {
            in_pos(&t.bindings)
        };
        if (is_ref || is_type) && bound {
            v.ignored = true;
            v.binds = is_ref;
        }
        if (is_ref || is_type) && at(&t.keys, p.kind, f) {
            v.ignored = true;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn go<'t>(
        &self,
        ids: &GoIds,
        v: &mut Verdict<'t>,
        node: &Frame<'t>,
        p: &Frame<'t>,
        g: Option<&Frame<'t>>,
        gg: Option<&Frame<'t>>,
        text: &str,
    ) {
        let k = node.kind;
        let f = node.field;
        let gk = g.map_or(0, |g| g.kind);
        // `!name`: an embedded field has no name.
        let unnamed = |decl: &Frame| decl.node.child_by_field_id(ids.f_name).is_none();
        if k == ids.identifier {
            if p.kind == ids.call_expression && f == ids.f_function {
                v.add(RefKind::Call, None);
            }
            v.add(RefKind::Reference, None);
            v.ignored = text == "_"
                || [
                    ids.parameter_declaration,
                    ids.variadic_parameter_declaration,
                    ids.const_spec,
                    ids.var_spec,
                    ids.type_parameter_declaration,
                ]
                .contains(&p.kind)
                || (p.kind == ids.expression_list
                    && p.field == ids.f_left
                    && (gk == ids.short_var_declaration || gk == ids.range_clause))
                || (p.kind == ids.expression_list
                    && p.field == ids.f_alias
                    && gk == ids.type_switch_statement)
                || (p.kind == ids.literal_element
                    && p.field == ids.f_key
                    && gk == ids.keyed_element);
        } else if k == ids.field_identifier {
            if p.kind == ids.selector_expression && f == ids.f_field && p.qual.is_some() {
                let q = self.plain_qualifier(p.qual);
                v.add(RefKind::Reference, q);
                if gk == ids.call_expression && p.field == ids.f_function {
                    v.add(RefKind::Call, q);
                }
            }
        } else if k == ids.type_identifier {
            v.add(RefKind::Type, None);
            if p.kind == ids.generic_type && f == ids.f_type && p.field == ids.f_type {
                if gk == ids.type_conversion_expression || gk == ids.composite_literal {
                    v.add(RefKind::Call, None);
                }
                if let Some(g) = g.filter(|g| g.kind == ids.field_declaration) {
                    if unnamed(g) {
                        v.add(RefKind::Heritage, None);
                    }
                }
            }
            if p.kind == ids.composite_literal && f == ids.f_type {
                v.add(RefKind::Call, None);
            }
            if p.kind == ids.field_declaration && f == ids.f_type && unnamed(p) {
                v.add(RefKind::Heritage, None);
            }
            if p.kind == ids.type_elem && gk == ids.interface_type {
                v.add(RefKind::Heritage, None);
            }
        }
        // `(qualified_type package: (_) @qualifier name: (_) @reference.…)`
        if p.kind == ids.qualified_type
            && f == ids.f_name
            && p.qual.is_some()
            && node.node.is_named()
        {
            let q = self.plain_qualifier(p.qual);
            v.add(RefKind::Type, q);
            if let Some(g) = g {
                if g.kind == ids.composite_literal && p.field == ids.f_type {
                    v.add(RefKind::Call, q);
                }
                if g.kind == ids.field_declaration && p.field == ids.f_type && unnamed(g) {
                    v.add(RefKind::Heritage, q);
                }
                if g.kind == ids.type_elem && gg.is_some_and(|gg| gg.kind == ids.interface_type) {
                    v.add(RefKind::Heritage, q);
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn js<'t>(
        &self,
        js: &JsIds,
        ts: Option<&TsIds>,
        jsx: bool,
        v: &mut Verdict<'t>,
        node: &Frame<'t>,
        p: &Frame<'t>,
        g: Option<&Frame<'t>>,
        gg: Option<&Frame<'t>>,
        text: &str,
    ) {
        let k = node.kind;
        let f = node.field;
        let pk = p.kind;
        let gk = g.map_or(0, |g| g.kind);
        let ggk = gg.map_or(0, |g| g.kind);
        let jsx_name = |kind: u16| {
            jsx && (kind == js.jsx_opening_element || kind == js.jsx_self_closing_element)
        };
        if k == js.identifier {
            if pk == js.call_expression && f == js.f_function {
                if text == "require" {
                    v.ignored = true;
                } else {
                    v.add(RefKind::Call, None);
                }
            }
            if (pk == js.new_expression && f == js.f_constructor) || pk == js.decorator {
                v.add(RefKind::Call, None);
            }
            match ts {
                None if pk == js.class_heritage => v.add(RefKind::Heritage, None),
                Some(ts) if pk == ts.extends_clause && f == js.f_value => {
                    v.add(RefKind::Heritage, None);
                }
                _ => {}
            }
            if jsx_name(pk) && f == js.f_name && text.starts_with(|c: char| c.is_ascii_uppercase())
            {
                v.add(RefKind::Call, None);
            }
            v.add(RefKind::Reference, None);
            v.binds = (pk == js.variable_declarator && f == js.f_name)
                || ((pk == js.arrow_function || pk == js.catch_clause) && f == js.f_parameter)
                || pk == js.array_pattern
                || pk == js.rest_pattern
                || (pk == js.pair_pattern && f == js.f_value)
                || ((pk == js.assignment_pattern || pk == js.for_in_statement) && f == js.f_left)
                || (pk == js.function_expression && f == js.f_name);
            match ts {
                None => v.binds |= pk == js.formal_parameters,
                Some(ts) => {
                    v.binds |= (pk == ts.required_parameter || pk == ts.optional_parameter)
                        && f == ts.f_pattern;
                    v.ignored |= pk == ts.import_require_clause;
                }
            }
            v.ignored |= v.binds
                || pk == js.import_clause
                || pk == js.namespace_import
                || pk == js.namespace_export
                || (jsx && pk == js.jsx_closing_element && f == js.f_name)
                || (jsx_name(pk) && f == js.f_name);
        } else if k == js.shorthand_property_identifier {
            v.add(RefKind::Reference, None);
        } else if k == js.shorthand_property_identifier_pattern {
            // `const { app } = …`: a binding, and no reference.
            v.binds = true;
            v.ignored = true;
        } else if let Some(ts) = ts.filter(|ts| k == ts.type_identifier) {
            v.add(RefKind::Type, None);
            if pk == ts.implements_clause
                || (pk == ts.extends_type_clause && f == ts.f_type)
                || (pk == ts.generic_type
                    && f == js.f_name
                    && (gk == ts.implements_clause
                        || (gk == ts.extends_type_clause && p.field == ts.f_type)))
            {
                v.add(RefKind::Heritage, None);
            }
        }
        if !node.node.is_named() {
            return;
        }
        // Binding positions matched by any named node (`name: (_) @ignore`).
        if (pk == js.class && f == js.f_name)
            || ((pk == js.import_specifier || pk == js.export_specifier)
                && (f == js.f_name || f == js.f_alias))
        {
            v.ignored = true;
        }
        if let Some(ts) = ts {
            if (pk == ts.type_parameter || pk == ts.mapped_type_clause || pk == ts.internal_module)
                && f == js.f_name
            {
                v.ignored = true;
            }
        }
        if pk == js.member_expression {
            // `</a.B>`: a closing tag repeats the opening one.
            if jsx && gk == js.jsx_closing_element && p.field == js.f_name {
                let both = if f == js.f_object {
                    p.node
                        .child_by_field_id(js.f_property)
                        .is_some_and(|c| c.is_named())
                } else {
                    f == js.f_property && p.qual.is_some()
                };
                v.ignored |= both;
            }
            if f == js.f_property && p.qual.is_some() {
                let q = self.plain_qualifier(p.qual);
                v.add(RefKind::Reference, q);
                let pf = p.field;
                if (gk == js.call_expression && pf == js.f_function)
                    || (gk == js.new_expression && pf == js.f_constructor)
                    || gk == js.decorator
                    || (jsx_name(gk) && pf == js.f_name)
                {
                    v.add(RefKind::Call, q);
                }
                match ts {
                    None if gk == js.class_heritage => v.add(RefKind::Heritage, q),
                    Some(ts) if gk == ts.extends_clause && pf == js.f_value => {
                        v.add(RefKind::Heritage, q);
                    }
                    _ => {}
                }
            }
        }
        if let Some(ts) = ts {
            if pk == ts.nested_type_identifier && f == js.f_name && p.qual.is_some() {
                let q = self.plain_qualifier(p.qual);
                v.add(RefKind::Type, q);
                let pf = p.field;
                if gk == ts.implements_clause
                    || (gk == ts.extends_type_clause && pf == ts.f_type)
                    || (gk == ts.generic_type
                        && pf == js.f_name
                        && (ggk == ts.implements_clause
                            || (ggk == ts.extends_type_clause
                                && g.is_some_and(|g| g.field == ts.f_type))))
                {
                    v.add(RefKind::Heritage, q);
                }
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn py<'t>(
        &self,
        ids: &PyIds,
        v: &mut Verdict<'t>,
        node: &Frame<'t>,
        p: &Frame<'t>,
        g: Option<&Frame<'t>>,
        gg: Option<&Frame<'t>>,
    ) {
        if node.kind != ids.identifier {
            return;
        }
        let f = node.field;
        let pk = p.kind;
        let gk = g.map_or(0, |g| g.kind);
        let ggk = gg.map_or(0, |g| g.kind);
        let pf = p.field;
        if (pk == ids.call && f == ids.f_function) || pk == ids.decorator {
            v.add(RefKind::Call, None);
        }
        if pk == ids.argument_list && gk == ids.class_definition && pf == ids.f_superclasses {
            v.add(RefKind::Heritage, None);
        }
        if pk == ids.type_
            || pk == ids.generic_type
            || (pk == ids.binary_operator && gk == ids.type_)
        {
            v.add(RefKind::Type, None);
        }
        v.add(RefKind::Reference, None);
        if pk == ids.attribute && f == ids.f_attribute && p.qual.is_some() {
            let q = self.plain_qualifier(p.qual);
            v.add(RefKind::Reference, q);
            if (gk == ids.call && pf == ids.f_function) || gk == ids.decorator {
                v.add(RefKind::Call, q);
            }
            if gk == ids.argument_list
                && ggk == ids.class_definition
                && g.is_some_and(|g| g.field == ids.f_superclasses)
            {
                v.add(RefKind::Heritage, q);
            }
            if gk == ids.type_ || (gk == ids.binary_operator && ggk == ids.type_) {
                v.add(RefKind::Type, q);
            }
        }
        v.ignored = [
            ids.parameters,
            ids.lambda_parameters,
            ids.typed_parameter,
            ids.list_splat_pattern,
            ids.dictionary_splat_pattern,
            ids.as_pattern_target,
            ids.global_statement,
            ids.nonlocal_statement,
        ]
        .contains(&pk)
            || ((pk == ids.default_parameter
                || pk == ids.typed_default_parameter
                || pk == ids.keyword_argument)
                && f == ids.f_name)
            || ((pk == ids.assignment || pk == ids.for_statement || pk == ids.for_in_clause)
                && f == ids.f_left)
            || ((pk == ids.pattern_list || pk == ids.tuple_pattern)
                && gk == ids.assignment
                && pf == ids.f_left)
            || (pk == ids.pattern_list
                && (gk == ids.for_statement || gk == ids.for_in_clause)
                && pf == ids.f_left)
            || (pk == ids.aliased_import && f == ids.f_alias)
            || (pk == ids.dotted_name
                && (gk == ids.relative_import
                    || (pf == ids.f_name
                        && (gk == ids.import_statement
                            || gk == ids.aliased_import
                            || gk == ids.import_from_statement
                            || gk == ids.future_import_statement))
                    || (gk == ids.import_from_statement && pf == ids.f_module_name)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_id_exists_in_its_grammar() {
        for lang in Lang::ALL {
            let rules = Rules::of(lang);
            let missing = match &rules.ids {
                Ids::Go(ids) => ids.missing(),
                Ids::Py(ids) => ids.missing(),
                Ids::Table(ids) => ids.missing(),
                Ids::Js { js, ts, .. } => {
                    let mut m = js.missing();
                    if let Some(ts) = ts {
                        m.extend(ts.missing());
                    }
                    m
                }
            };
            // JSX kinds are absent from the plain TypeScript grammar (a component's row has
            // it too: its scripts are read by their own language's rules).
            let plain_ts = lang == Lang::TypeScript || lang.is_component();
            let missing: Vec<_> = missing
                .into_iter()
                .filter(|k| !(plain_ts && k.starts_with("jsx_")))
                .collect();
            assert!(missing.is_empty(), "{lang:?} lacks {missing:?}");
        }
    }

    #[test]
    fn priorities_prefer_specific_kinds_and_qualifiers() {
        let mut v = Verdict::default();
        v.add(RefKind::Reference, None);
        v.add(RefKind::Call, None);
        v.add(RefKind::Type, None);
        assert!(matches!(v.result(), Some((RefKind::Call, None))));
        v.ignored = true;
        assert!(matches!(v.result(), Some((RefKind::Call, None))));
        let mut v = Verdict::default();
        v.add(RefKind::Type, None);
        v.ignored = true;
        assert!(v.result().is_none());
    }
}
