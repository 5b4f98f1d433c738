//! Receivers: the type a member use is made on, where the file itself states it
//! (`RefView::receiver`), for binding to look the member up in that type and its ancestors
//! rather than guess by the name.
//!
//! - The enclosing type: `self.m()`, `this.m()`, `cls.m()`, `Self::m()`, `$this->m()`,
//!   `super.m()`, and a method called with no receiver inside a class where the language
//!   makes that a call on `this` (Ruby, Java, C#, C++), take the type the use sits in: the
//!   innermost definition's container of kind type (a class, a Rust `impl` block, a Go
//!   method's receiver type, a C++ `Type::f` out of line), or the type itself for a use in a
//!   class body.
//! - A declared type: a parameter, local or field named like the qualifier, declared with a
//!   type (`c *http.Client`, `Client c`, `c: Client`, `c: &Client`, `c: Client` in Python), or
//!   assigned a construction the grammar shows plainly (`new Client(…)`, `Client{…}` /
//!   `&Client{…}`, `Client::new(…)`, `Client(…)` in Python, `Client.new` in Ruby), in the
//!   innermost definition holding both. Where that scope declares the name more than once
//!   with different types (or once without one), the type is unknown.
//!
//! The type is kept as written with at most one qualifier (`http.Client`, `m.Client`),
//! generic arguments, pointers and references dropped; a longer path keeps its last segment.
//! Per file, on the rayon worker tagging it: the walk records the declaration nodes
//! (`DeclKinds`), and `receivers` reads only those whose name some use qualifies by.

use std::sync::OnceLock;

use tree_sitter::Node;

use crate::engine::base::model::{Container, ContainerKind, DefKind, Definition, Lang, RefKind};
use crate::engine::base::FastSet;
use crate::engine::ingest::lang;

/// The node kinds that declare a name with a type or a construction, per language, by id.
pub(super) struct DeclKinds {
    by_kind: Vec<bool>,
}

impl DeclKinds {
    pub(super) fn of(lang: Lang) -> &'static DeclKinds {
        static KINDS: [OnceLock<DeclKinds>; Lang::ALL.len()] =
            [const { OnceLock::new() }; Lang::ALL.len()];
        KINDS[lang::slot(lang)].get_or_init(|| {
            let language = lang::grammar(lang);
            let mut by_kind = vec![false; language.node_kind_count()];
            for name in decl_kinds(lang) {
                let id = language.id_for_node_kind(name, true);
                if let Some(slot) = by_kind.get_mut(usize::from(id)).filter(|_| id != 0) {
                    *slot = true;
                }
            }
            DeclKinds { by_kind }
        })
    }

    #[inline]
    pub(super) fn records(&self, kind: u16) -> bool {
        self.by_kind
            .get(usize::from(kind))
            .copied()
            .unwrap_or(false)
    }
}

fn decl_kinds(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Go => &["parameter_declaration", "var_spec", "short_var_declaration"],
        Lang::Python => &["typed_parameter", "typed_default_parameter", "assignment"],
        Lang::TypeScript | Lang::Tsx | Lang::Vue | Lang::Svelte => &[
            "required_parameter",
            "optional_parameter",
            "variable_declarator",
        ],
        Lang::JavaScript => &["variable_declarator"],
        Lang::Java => &[
            "formal_parameter",
            "local_variable_declaration",
            "field_declaration",
        ],
        Lang::CSharp => &["parameter", "variable_declaration"],
        Lang::Rust => &["parameter", "let_declaration"],
        Lang::Ruby => &["assignment"],
        Lang::Php => &["simple_parameter", "assignment_expression"],
        Lang::Cpp => &["parameter_declaration", "declaration", "field_declaration"],
        // Declared types are not read yet in these; their own-instance calls are (`is_own`).
        Lang::C
        | Lang::Kotlin
        | Lang::Swift
        | Lang::Bash
        | Lang::Scala
        | Lang::Lua
        | Lang::Elixir
        | Lang::Hcl => &[],
    }
}

/// The qualifiers that stand for the enclosing type's own instance (or class).
fn is_own(lang: Lang, q: &str) -> bool {
    match lang {
        Lang::Python => matches!(q, "self" | "cls"),
        Lang::TypeScript
        | Lang::Tsx
        | Lang::JavaScript
        | Lang::Vue
        | Lang::Svelte
        | Lang::Java
        | Lang::Kotlin
        | Lang::Scala => matches!(q, "this" | "super"),
        Lang::Swift => matches!(q, "self" | "super"),
        Lang::Lua => q == "self",
        Lang::Cpp => q == "this",
        Lang::Rust => matches!(q, "self" | "Self"),
        Lang::Ruby => q == "self",
        Lang::Php => matches!(q, "$this" | "self" | "static" | "parent"),
        Lang::Go | Lang::CSharp | Lang::C | Lang::Bash | Lang::Elixir | Lang::Hcl => false,
    }
}

/// Whether a use with no receiver at all inside a class is a call on the instance: Ruby
/// (any lowercase name: `m` and `m(1)` both call `self.m`; a capitalized one is a
/// constant), Java (a lowercase call; a capitalized one constructs a type), C# and C++
/// (calls).
fn implicit_own(lang: Lang, u: &UseAt<'_>) -> bool {
    if u.qualifier.is_some() || u.chained {
        return false;
    }
    let lower = !u.name.starts_with(|c: char| c.is_ascii_uppercase());
    match lang {
        Lang::Ruby => lower && matches!(u.kind, RefKind::Call | RefKind::Reference),
        Lang::Java => lower && u.kind == RefKind::Call,
        Lang::CSharp | Lang::Cpp => u.kind == RefKind::Call,
        _ => false,
    }
}

/// A use as `receivers` reads it.
pub(super) struct UseAt<'a> {
    pub line: u32,
    pub name: &'a str,
    pub kind: RefKind,
    pub qualifier: Option<&'a str>,
    /// Made on a receiver that is not a plain name (`a.b().m()`).
    pub chained: bool,
}

/// One declared name: where it is declared, and its type (`None`: declared without one
/// that can be read, which makes the name's type unknown in its scope).
struct Decl<'s> {
    name: &'s str,
    line: u32,
    ty: Option<&'s str>,
}

/// Per use of `uses` (sorted by line), the index of its receiver type in the returned
/// table, if the file states it.
pub(super) fn receivers<'s>(
    lang: Lang,
    src: &'s str,
    decl_nodes: &[Node<'_>],
    defs: &[Definition],
    containers: &[Container],
    uses: &[UseAt<'_>],
) -> (Vec<Option<u32>>, Vec<String>) {
    let mut table: Vec<String> = Vec::new();
    let mut out: Vec<Option<u32>> = vec![None; uses.len()];
    let wanted: FastSet<&str> = uses
        .iter()
        .filter_map(|u| u.qualifier)
        .filter(|q| !is_own(lang, q))
        .collect();
    let decls: Vec<Decl<'s>> = if wanted.is_empty() {
        Vec::new()
    } else {
        decl_nodes
            .iter()
            .flat_map(|&n| declared(lang, src, n))
            .filter(|d| wanted.contains(d.name))
            .collect()
    };
    let any_own = uses.iter().any(|u| match u.qualifier {
        Some(q) => is_own(lang, q),
        None => implicit_own(lang, u),
    });
    if decls.is_empty() && !any_own {
        return (out, table);
    }
    let scopes = Scopes::new(defs);
    let intern = |text: &str, table: &mut Vec<String>| -> u32 {
        match table.iter().position(|t| t == text) {
            Some(i) => i as u32,
            None => {
                table.push(text.to_owned());
                (table.len() - 1) as u32
            }
        }
    };
    // The scope each declaration sits in, computed once.
    let decl_scopes: Vec<(u32, u32)> = decls.iter().map(|d| scopes.around(d.line)).collect();
    for (i, u) in uses.iter().enumerate() {
        let own = match u.qualifier {
            Some(q) => is_own(lang, q),
            None => implicit_own(lang, u),
        };
        let ty: Option<&str> = if own {
            scopes
                .innermost(u.line)
                .and_then(|d| enclosing_type(defs, containers, d))
        } else if let Some(q) = u.qualifier {
            declared_type(&decls, &decl_scopes, q, u.line)
        } else {
            None
        };
        if let Some(ty) = ty.filter(|t| !t.is_empty()) {
            out[i] = Some(intern(ty, &mut table));
        }
    }
    (out, table)
}

/// The type of `q` at `line`: the declarations of `q` in the innermost scope that holds
/// `line` and declares it, when they agree on one type.
fn declared_type<'s>(
    decls: &[Decl<'s>],
    scopes: &[(u32, u32)],
    q: &str,
    line: u32,
) -> Option<&'s str> {
    let mut best: Option<(u32, u32)> = None;
    for (d, &(a, b)) in decls.iter().zip(scopes) {
        if d.name == q && a <= line && line <= b && best.is_none_or(|(x, y)| b - a < y - x) {
            best = Some((a, b));
        }
    }
    let (a, b) = best?;
    let mut ty: Option<&'s str> = None;
    for (d, &s) in decls.iter().zip(scopes) {
        if d.name == q && s == (a, b) {
            match (ty, d.ty) {
                (_, None) => return None,
                (None, Some(t)) => ty = Some(t),
                (Some(x), Some(t)) if x != t => return None,
                _ => {}
            }
        }
    }
    ty
}

fn is_type_kind(kind: DefKind) -> bool {
    matches!(
        kind,
        DefKind::Class | DefKind::Interface | DefKind::Struct | DefKind::Enum
    )
}

/// The type definition `d` is, or the innermost type container it sits in, by name (its
/// last segment: `A::B` → `B`).
fn enclosing_type<'a>(
    defs: &'a [Definition],
    containers: &'a [Container],
    d: usize,
) -> Option<&'a str> {
    let def = defs.get(d)?;
    if is_type_kind(def.kind) {
        return Some(last_segment(&def.name));
    }
    let mut at = def.container;
    for _ in 0..crate::engine::base::model::MAX_CONTAINER_DEPTH {
        let c = containers.get(at.index()?)?;
        if c.kind == ContainerKind::Type {
            return Some(last_segment(&c.name));
        }
        at = c.parent;
    }
    None
}

/// `A::B`, `A.B`, `A\B` → `B`.
pub(crate) fn last_segment(name: &str) -> &str {
    let cut = ["::", ".", "\\"]
        .iter()
        .filter_map(|sep| name.rfind(sep).map(|i| i + sep.len()))
        .max()
        .unwrap_or(0);
    &name[cut..]
}

/// The definitions by lines, for the innermost one holding a line.
struct Scopes {
    /// (start, end, definition index), by start then widest first.
    spans: Vec<(u32, u32, usize)>,
}

impl Scopes {
    /// Only the definitions that hold code: a constant or variable is a declaration itself.
    fn new(defs: &[Definition]) -> Scopes {
        let mut spans: Vec<(u32, u32, usize)> = defs
            .iter()
            .enumerate()
            .filter(|(_, d)| !matches!(d.kind, DefKind::Constant | DefKind::Variable))
            .map(|(i, d)| (d.lines.start, d.lines.end, i))
            .collect();
        spans.sort_unstable_by_key(|&(a, b, i)| (a, std::cmp::Reverse(b), i));
        Scopes { spans }
    }

    /// The innermost definition holding `line` (the latest-starting one among those that
    /// hold it: definitions nest).
    fn innermost(&self, line: u32) -> Option<usize> {
        let upto = self.spans.partition_point(|&(a, _, _)| a <= line);
        self.spans[..upto]
            .iter()
            .rev()
            .find(|&&(_, b, _)| line <= b)
            .map(|&(_, _, i)| i)
    }

    /// The lines of the innermost definition holding `line`, or the whole file.
    fn around(&self, line: u32) -> (u32, u32) {
        self.innermost(line)
            .and_then(|i| self.spans.iter().find(|s| s.2 == i))
            .map_or((0, u32::MAX), |&(a, b, _)| (a, b))
    }
}

fn text<'s>(src: &'s str, n: Node<'_>) -> Option<&'s str> {
    src.get(n.start_byte()..n.end_byte())
}

fn line(n: Node<'_>) -> u32 {
    u32::try_from(n.start_position().row)
        .unwrap_or(u32::MAX - 1)
        .saturating_add(1)
}

/// The names a declaration node declares, with their types.
fn declared<'s, 't>(lang: Lang, src: &'s str, n: Node<'t>) -> Vec<Decl<'s>> {
    let mut out = Vec::new();
    let mut push = |name: Option<Node<'_>>, ty: Option<&'s str>| {
        if let Some(name) = name.and_then(|x| text(src, x)) {
            out.push(Decl {
                name,
                line: line(n),
                ty,
            });
        }
    };
    fn field<'t>(node: Node<'t>, f: &str) -> Option<Node<'t>> {
        node.child_by_field_name(f)
    }
    match (lang, n.kind()) {
        (Lang::Go, "parameter_declaration" | "var_spec") => {
            let ty = field(n, "type")
                .and_then(|t| go_type(src, t))
                .or_else(|| single_value(n).and_then(|v| go_construction(src, v)));
            let mut cursor = n.walk();
            for name in n.children_by_field_name("name", &mut cursor) {
                push(Some(name), ty);
            }
        }
        (Lang::Go, "short_var_declaration") => {
            let (Some(left), Some(right)) = (field(n, "left"), field(n, "right")) else {
                return out;
            };
            let mut lc = left.walk();
            let mut rc = right.walk();
            let values: Vec<Node<'_>> = right.named_children(&mut rc).collect();
            let names: Vec<Node<'_>> = left.named_children(&mut lc).collect();
            for (k, name) in names.iter().enumerate() {
                let ty = (names.len() == values.len())
                    .then(|| values.get(k))
                    .flatten()
                    .and_then(|&v| go_construction(src, v));
                push(Some(*name), ty);
            }
        }
        (Lang::Python, "typed_parameter") => {
            let name = n.named_child(0).filter(|c| c.kind() == "identifier");
            push(name, field(n, "type").and_then(|t| python_type(src, t)));
        }
        (Lang::Python, "typed_default_parameter") => {
            push(
                field(n, "name"),
                field(n, "type").and_then(|t| python_type(src, t)),
            );
        }
        (Lang::Python, "assignment") => {
            let Some(left) = field(n, "left").filter(|l| l.kind() == "identifier") else {
                return out;
            };
            let ty = match field(n, "type") {
                Some(t) => python_type(src, t),
                None => field(n, "right")
                    .filter(|r| r.kind() == "call")
                    .and_then(|r| field(r, "function"))
                    .and_then(|f| dotted(src, f, "attribute", "object", "attribute")),
            };
            push(Some(left), ty);
        }
        (_, "required_parameter" | "optional_parameter") => {
            let name = field(n, "pattern").filter(|p| p.kind() == "identifier");
            push(name, field(n, "type").and_then(|t| ts_type(src, t)));
        }
        (_, "variable_declarator") => {
            let Some(name) = field(n, "name").filter(|p| p.kind() == "identifier") else {
                return out;
            };
            let ty = match field(n, "type") {
                Some(t) => ts_type(src, t),
                None => field(n, "value")
                    .filter(|v| v.kind() == "new_expression")
                    .and_then(|v| field(v, "constructor"))
                    .and_then(|c| dotted(src, c, "member_expression", "object", "property")),
            };
            push(Some(name), ty);
        }
        (Lang::Java, "formal_parameter") => {
            push(
                field(n, "name"),
                field(n, "type").and_then(|t| java_type(src, t)),
            );
        }
        (Lang::Java, "local_variable_declaration" | "field_declaration") => {
            let declared = field(n, "type");
            let var = declared.is_some_and(|t| text(src, t) == Some("var"));
            let mut cursor = n.walk();
            for d in n.children_by_field_name("declarator", &mut cursor) {
                let ty = if var {
                    field(d, "value")
                        .filter(|v| v.kind() == "object_creation_expression")
                        .and_then(|v| field(v, "type"))
                        .and_then(|t| java_type(src, t))
                } else {
                    declared.and_then(|t| java_type(src, t))
                };
                push(field(d, "name"), ty);
            }
        }
        (Lang::CSharp, "parameter") => {
            push(
                field(n, "name"),
                field(n, "type").and_then(|t| csharp_type(src, t)),
            );
        }
        (Lang::CSharp, "variable_declaration") => {
            let declared = field(n, "type");
            let var = declared.is_some_and(|t| t.kind() == "implicit_type");
            let mut cursor = n.walk();
            let declarators: Vec<Node<'_>> = n
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "variable_declarator")
                .collect();
            for d in declarators {
                let ty = if var {
                    let mut dc = d.walk();
                    let created = d
                        .named_children(&mut dc)
                        .find(|c| c.kind() == "object_creation_expression");
                    created
                        .and_then(|v| field(v, "type"))
                        .and_then(|t| csharp_type(src, t))
                } else {
                    declared.and_then(|t| csharp_type(src, t))
                };
                push(field(d, "name"), ty);
            }
        }
        (Lang::Rust, "parameter") => {
            let name = field(n, "pattern").filter(|p| p.kind() == "identifier");
            push(name, field(n, "type").and_then(|t| rust_type(src, t)));
        }
        (Lang::Rust, "let_declaration") => {
            let Some(name) = field(n, "pattern").filter(|p| p.kind() == "identifier") else {
                return out;
            };
            let ty = match field(n, "type") {
                Some(t) => rust_type(src, t),
                None => field(n, "value").and_then(|v| rust_construction(src, v)),
            };
            push(Some(name), ty);
        }
        (Lang::Ruby, "assignment") => {
            let Some(left) = field(n, "left").filter(|l| l.kind() == "identifier") else {
                return out;
            };
            let ty = field(n, "right")
                .filter(|r| r.kind() == "call")
                .filter(|r| field(*r, "method").and_then(|m| text(src, m)) == Some("new"))
                .and_then(|r| field(r, "receiver"))
                .and_then(|r| ruby_constant(src, r));
            push(Some(left), ty);
        }
        (Lang::Php, "simple_parameter") => {
            push(
                field(n, "name"),
                field(n, "type").and_then(|t| php_type(src, t)),
            );
        }
        (Lang::Php, "assignment_expression") => {
            let Some(left) = field(n, "left").filter(|l| l.kind() == "variable_name") else {
                return out;
            };
            let ty = field(n, "right")
                .filter(|r| r.kind() == "object_creation_expression")
                .and_then(|r| {
                    let mut c = r.walk();
                    let class = r
                        .named_children(&mut c)
                        .find(|c| matches!(c.kind(), "name" | "qualified_name"));
                    class
                })
                .and_then(|c| text(src, c))
                .map(last_segment);
            push(Some(left), ty);
        }
        (Lang::Cpp, "parameter_declaration" | "declaration" | "field_declaration") => {
            let declared = field(n, "type");
            let auto = declared.is_some_and(|t| t.kind() == "placeholder_type_specifier");
            let mut cursor = n.walk();
            for d in n.children_by_field_name("declarator", &mut cursor) {
                let (name, value) = cpp_declarator(d);
                let ty = if auto {
                    value
                        .filter(|v| v.kind() == "new_expression")
                        .and_then(|v| field(v, "type"))
                        .and_then(|t| cpp_type(src, t))
                } else {
                    declared.and_then(|t| cpp_type(src, t))
                };
                push(name, ty);
            }
        }
        _ => {}
    }
    out
}

/// A Ruby constant as a receiver's type: `Client`, or `Terminal::Table` as its last scope
/// and name (`Terminal::Table`: binding reads `Terminal` as the qualifier, so a gem's
/// `Terminal::Table` is not the repository's `Table`).
fn ruby_constant<'s>(src: &'s str, r: Node<'_>) -> Option<&'s str> {
    match r.kind() {
        "constant" => text(src, r),
        "scope_resolution" => {
            let name = r.child_by_field_name("name")?;
            let scope = r.child_by_field_name("scope")?;
            let scope = match scope.kind() {
                "constant" => scope,
                "scope_resolution" => scope.child_by_field_name("name")?,
                _ => return None,
            };
            src.get(scope.start_byte()..name.end_byte())
        }
        _ => None,
    }
}

/// The one value of a Go `var_spec` (`var c = Client{}`), if it has exactly one.
fn single_value(n: Node<'_>) -> Option<Node<'_>> {
    let list = n.child_by_field_name("value")?;
    (list.named_child_count() == 1)
        .then(|| list.named_child(0))
        .flatten()
}

/// `a.B` as a qualified name when the object is a plain name (`kind` is the grammar's member
/// node, with its object and member fields), or a plain identifier's text.
fn dotted<'s>(
    src: &'s str,
    n: Node<'_>,
    kind: &str,
    object: &str,
    member: &str,
) -> Option<&'s str> {
    if n.kind() == kind {
        let o = n.child_by_field_name(object)?;
        n.child_by_field_name(member)?;
        if o.kind() != "identifier" {
            return None;
        }
        return text(src, n);
    }
    (n.kind() == "identifier").then(|| text(src, n)).flatten()
}

fn go_type<'s>(src: &'s str, t: Node<'_>) -> Option<&'s str> {
    match t.kind() {
        "pointer_type" => go_type(src, t.named_child(0)?),
        "type_identifier" | "qualified_type" => text(src, t),
        "generic_type" => go_type(src, t.child_by_field_name("type")?),
        _ => None,
    }
}

/// `Client{…}`, `&Client{…}`, `pkg.Client{…}`.
fn go_construction<'s>(src: &'s str, v: Node<'_>) -> Option<&'s str> {
    match v.kind() {
        "unary_expression" => go_construction(src, v.child_by_field_name("operand")?),
        "composite_literal" => go_type(src, v.child_by_field_name("type")?),
        _ => None,
    }
}

fn python_type<'s>(src: &'s str, t: Node<'_>) -> Option<&'s str> {
    let inner = if t.kind() == "type" {
        t.named_child(0)?
    } else {
        t
    };
    match inner.kind() {
        "identifier" => text(src, inner),
        "attribute" => dotted(src, inner, "attribute", "object", "attribute"),
        // `Optional[Client]` is a `Client` where a method is called on it.
        "generic_type" => {
            let head = inner.named_child(0)?;
            if text(src, head) == Some("Optional") {
                let param = inner.named_child(1)?;
                python_type(src, param.named_child(0)?)
            } else {
                text(src, head)
            }
        }
        _ => None,
    }
}

fn ts_type<'s>(src: &'s str, t: Node<'_>) -> Option<&'s str> {
    let inner = if t.kind() == "type_annotation" {
        t.named_child(0)?
    } else {
        t
    };
    match inner.kind() {
        "type_identifier" | "predefined_type" => text(src, inner),
        "nested_type_identifier" => {
            let module = inner.child_by_field_name("module")?;
            (module.kind() == "identifier")
                .then(|| text(src, inner))
                .flatten()
        }
        "generic_type" => ts_type(src, inner.child_by_field_name("name")?),
        _ => None,
    }
}

fn java_type<'s>(src: &'s str, t: Node<'_>) -> Option<&'s str> {
    match t.kind() {
        "type_identifier" => text(src, t),
        "scoped_type_identifier" => text(src, t).map(last_segment),
        "generic_type" => java_type(src, t.named_child(0)?),
        _ => None,
    }
}

fn csharp_type<'s>(src: &'s str, t: Node<'_>) -> Option<&'s str> {
    match t.kind() {
        "identifier" | "predefined_type" => text(src, t),
        "qualified_name" => text(src, t.child_by_field_name("name")?),
        "generic_name" | "nullable_type" => csharp_type(src, t.named_child(0)?),
        _ => None,
    }
}

fn rust_type<'s>(src: &'s str, t: Node<'_>) -> Option<&'s str> {
    match t.kind() {
        "reference_type" => rust_type(src, t.child_by_field_name("type")?),
        "type_identifier" | "primitive_type" => text(src, t),
        "scoped_type_identifier" => text(src, t.child_by_field_name("name")?),
        "generic_type" => rust_type(src, t.child_by_field_name("type")?),
        _ => None,
    }
}

/// `Client::new(…)`, `Client::default()`, `Client::with_…(…)`, `Client::new_…(…)`,
/// `Client { … }`: a value of type `Client` by the language's convention for constructors.
fn rust_construction<'s>(src: &'s str, v: Node<'_>) -> Option<&'s str> {
    match v.kind() {
        "struct_expression" => rust_type(src, v.child_by_field_name("name")?),
        "call_expression" => {
            let f = v.child_by_field_name("function")?;
            if f.kind() != "scoped_identifier" {
                return None;
            }
            let ctor = text(src, f.child_by_field_name("name")?)?;
            let constructs = matches!(ctor, "new" | "default")
                || ctor.starts_with("new_")
                || ctor.starts_with("with_");
            let path = f.child_by_field_name("path")?;
            let ty = match path.kind() {
                "identifier" | "type_identifier" => text(src, path)?,
                "scoped_identifier" => text(src, path.child_by_field_name("name")?)?,
                _ => return None,
            };
            (constructs && ty.starts_with(|c: char| c.is_ascii_uppercase()) && ty != "Self")
                .then_some(ty)
        }
        _ => None,
    }
}

fn php_type<'s>(src: &'s str, t: Node<'_>) -> Option<&'s str> {
    match t.kind() {
        "named_type" | "optional_type" => php_type(src, t.named_child(0)?),
        "name" | "qualified_name" => text(src, t).map(last_segment),
        _ => None,
    }
}

fn cpp_type<'s>(src: &'s str, t: Node<'_>) -> Option<&'s str> {
    match t.kind() {
        "type_identifier" => text(src, t),
        "qualified_identifier" => cpp_type(src, t.child_by_field_name("name")?),
        "template_type" => cpp_type(src, t.child_by_field_name("name")?),
        _ => None,
    }
}

/// A C++ declarator's name (through `&`, `*`, `= value`) and its initial value.
fn cpp_declarator(d: Node<'_>) -> (Option<Node<'_>>, Option<Node<'_>>) {
    let mut at = d;
    let mut value = None;
    for _ in 0..8 {
        match at.kind() {
            "identifier" | "field_identifier" => return (Some(at), value),
            "init_declarator" => {
                value = at.child_by_field_name("value");
                match at.child_by_field_name("declarator") {
                    Some(inner) => at = inner,
                    None => break,
                }
            }
            "pointer_declarator" | "reference_declarator" => {
                match at
                    .child_by_field_name("declarator")
                    .or_else(|| at.named_child(0))
                {
                    Some(inner) => at = inner,
                    None => break,
                }
            }
            _ => break,
        }
    }
    (None, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declaration_kind_exists_in_its_grammar() {
        for lang in Lang::ALL {
            let language = lang::grammar(lang);
            for name in decl_kinds(lang) {
                // JSX-free TypeScript has them all; so does every other grammar.
                assert_ne!(language.id_for_node_kind(name, true), 0, "{lang:?} {name}");
            }
        }
    }

    #[test]
    fn last_segments() {
        assert_eq!(last_segment("A::B"), "B");
        assert_eq!(last_segment("Slim\\App"), "App");
        assert_eq!(last_segment("a.b.C"), "C");
        assert_eq!(last_segment("C"), "C");
    }
}
