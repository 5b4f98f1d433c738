//! Containers: what each definition sits in, in its language's own terms, and the header
//! lines a map shows above a member. The per-language rules are the tables here: which
//! captured nodes are containers that are not definitions (`RULES`), how a definition that
//! holds others is written (`of_definition`), and the members a container of their own
//! decides (`Member`: a Go method's receiver, a C++ `Type::f` out of line, a Ruby `def
//! self.m`). The separators of a qualified name are `model::Notation`'s.
//!
//! Runs on rayon workers, inside `Extractor::build_defs`, which visits the definitions
//! outer first; `Nesting` keeps the open containers (definitions and captured nodes alike)
//! on one stack and builds the file's table as members need it. Linear in the file
//! whatever its nesting: every entry is pushed and popped once, a definition's scope lines
//! are the innermost `MAX_SCOPE_LINES`, and a container is created once.

use std::cmp::Reverse;

use tree_sitter::Node;

use super::declarators;
use super::{line_of, AssignedTo, Extractor, MAX_SCOPE_LINES};
use crate::engine::base::model::{Container, ContainerKind, ContainerRef, DefKind, Lang, Notation};
use crate::engine::base::FastMap;

/// A container's name keeps at most this many bytes (a name is an identifier or a path in
/// real code; hostile input must not make one copy per container expensive).
pub const MAX_CONTAINER_NAME: usize = 256;

/// How a captured container node (`@container`) is named.
#[derive(Clone, Copy)]
enum Name {
    /// The text of this field.
    Field(&'static str),
    /// The text of the first named child of one of these kinds.
    Child(&'static [&'static str]),
    /// A Rust `impl`'s type: the type's own name (`impl<S> Router<S>` → `Router`), else its
    /// text (`impl<T> Tr for [T]` → `[T]`).
    ImplType,
    /// The `name` field, without a leading `\`; none for PHP's global `namespace { }`.
    PhpNamespace,
    /// The `name` field, else `(anonymous namespace)`.
    CppNamespace,
    /// No name: a Ruby `class << self`.
    Unnamed,
    /// The `name` field, else `Companion` (a Kotlin companion object's default name).
    Companion,
}

/// Which part of the file a captured container holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extent {
    /// The node itself.
    Node,
    /// The node when it has a `body`; without one it is no container (Rust `mod m;`).
    Body,
    /// The node when it has a `body`, else (`namespace A;`, `package a.b;`) from the node
    /// to the next such declaration or the end of its parent.
    BodyOrRest,
}

/// A container that is not a definition, as the language's tags query captures it.
struct Rule {
    langs: &'static [Lang],
    node: &'static str,
    kind: ContainerKind,
    notation: Notation,
    name: Name,
    extent: Extent,
}

const TS: &[Lang] = &[Lang::TypeScript, Lang::Tsx];

/// Every container that is not a definition. A namespace's header line is a scope line
/// only where it tells the file's definitions apart (see `Nesting::new`); an `impl` block's
/// or a `class << self`'s always is.
const RULES: &[Rule] = &[
    Rule {
        langs: &[Lang::Rust],
        node: "impl_item",
        kind: ContainerKind::Type,
        notation: Notation::Colons,
        name: Name::ImplType,
        extent: Extent::Node,
    },
    Rule {
        langs: &[Lang::Rust],
        node: "mod_item",
        kind: ContainerKind::Namespace,
        notation: Notation::Colons,
        name: Name::Field("name"),
        extent: Extent::Body,
    },
    Rule {
        langs: &[Lang::Cpp],
        node: "namespace_definition",
        kind: ContainerKind::Namespace,
        notation: Notation::Colons,
        name: Name::CppNamespace,
        extent: Extent::Node,
    },
    Rule {
        langs: &[Lang::CSharp],
        node: "namespace_declaration",
        kind: ContainerKind::Namespace,
        notation: Notation::Dot,
        name: Name::Field("name"),
        extent: Extent::Node,
    },
    Rule {
        langs: &[Lang::CSharp],
        node: "file_scoped_namespace_declaration",
        kind: ContainerKind::Namespace,
        notation: Notation::Dot,
        name: Name::Field("name"),
        extent: Extent::BodyOrRest,
    },
    Rule {
        langs: &[Lang::Java],
        node: "package_declaration",
        kind: ContainerKind::Namespace,
        notation: Notation::Dot,
        name: Name::Child(&["scoped_identifier", "identifier"]),
        extent: Extent::BodyOrRest,
    },
    Rule {
        langs: &[Lang::Go],
        node: "package_clause",
        kind: ContainerKind::Namespace,
        notation: Notation::Dot,
        name: Name::Child(&["package_identifier"]),
        extent: Extent::BodyOrRest,
    },
    Rule {
        langs: &[Lang::Php],
        node: "namespace_definition",
        kind: ContainerKind::Namespace,
        notation: Notation::PhpNamespace,
        name: Name::PhpNamespace,
        extent: Extent::BodyOrRest,
    },
    Rule {
        langs: &[Lang::Ruby],
        node: "singleton_class",
        kind: ContainerKind::Singleton,
        notation: Notation::RubySingleton,
        name: Name::Unnamed,
        extent: Extent::Node,
    },
    Rule {
        langs: &[Lang::Kotlin],
        node: "package_header",
        kind: ContainerKind::Namespace,
        notation: Notation::Dot,
        name: Name::Child(&["qualified_identifier", "identifier"]),
        extent: Extent::BodyOrRest,
    },
    Rule {
        langs: &[Lang::Kotlin],
        node: "companion_object",
        kind: ContainerKind::Type,
        notation: Notation::Dot,
        name: Name::Companion,
        extent: Extent::Node,
    },
    // An extension (`extension Store { … }`): the query captures only those.
    Rule {
        langs: &[Lang::Swift],
        node: "class_declaration",
        kind: ContainerKind::Type,
        notation: Notation::Dot,
        name: Name::Field("name"),
        extent: Extent::Node,
    },
    Rule {
        langs: &[Lang::Scala],
        node: "package_clause",
        kind: ContainerKind::Namespace,
        notation: Notation::Dot,
        name: Name::Field("name"),
        extent: Extent::BodyOrRest,
    },
    Rule {
        langs: TS,
        node: "internal_module",
        kind: ContainerKind::Namespace,
        notation: Notation::Dot,
        name: Name::Field("name"),
        extent: Extent::Node,
    },
    Rule {
        langs: TS,
        node: "module",
        kind: ContainerKind::Namespace,
        notation: Notation::Dot,
        name: Name::Field("name"),
        extent: Extent::Node,
    },
];

fn rule_of(lang: Lang, kind: &str) -> Option<&'static Rule> {
    RULES
        .iter()
        .find(|r| r.node == kind && r.langs.contains(&lang))
}

/// How a definition holding others is written as their container (a type alias is none:
/// see `Nesting::innermost`).
fn of_definition(lang: Lang, kind: DefKind) -> (ContainerKind, Notation) {
    let container = match kind {
        DefKind::Function | DefKind::Method => ContainerKind::Function,
        DefKind::Constant | DefKind::Variable | DefKind::Field => ContainerKind::Value,
        DefKind::Module => ContainerKind::Namespace,
        DefKind::Class
        | DefKind::Interface
        | DefKind::TypeAlias
        | DefKind::Enum
        | DefKind::Struct => ContainerKind::Type,
    };
    (container, notation_of(lang))
}

/// The notation of a language's types and functions.
fn notation_of(lang: Lang) -> Notation {
    match lang {
        Lang::Rust | Lang::C | Lang::Cpp => Notation::Colons,
        Lang::Ruby => Notation::RubyModule,
        Lang::Php => Notation::PhpClass,
        Lang::TypeScript
        | Lang::Tsx
        | Lang::JavaScript
        | Lang::Python
        | Lang::Go
        | Lang::Java
        | Lang::CSharp
        | Lang::Kotlin
        | Lang::Swift
        | Lang::Bash
        | Lang::Scala
        | Lang::Lua
        | Lang::Elixir
        | Lang::Hcl
        | Lang::Vue
        | Lang::Svelte => Notation::Dot,
    }
}

/// A member whose container is not simply the innermost open one.
pub(super) enum Member<'s> {
    /// Go `func (t *T) M()`: a method of `T`, in the file's package.
    Receiver(&'s str),
    /// C++ `void T::f() {}` out of line: a method of `T`, in the namespace around it; the
    /// same for a Kotlin extension function `fun T.f()` and a Lua `function T.f()`. A C++
    /// `void A<K>::B::f() {}` is a method of `B` in `A`: the scopes outside `T`, outermost
    /// first, are in `outer` (the `T` of `ns::T::f` is in the namespace `ns`, written the
    /// same way).
    OutOfLine {
        outer: Vec<&'s str>,
        ty: &'s str,
    },
    /// A Terraform block's address: `var.region`, `local.name`, `aws_s3_bucket.items`,
    /// `data.aws_caller_identity.current` (an optional fixed prefix, then an optional type).
    Address(Option<&'static str>, Option<&'s str>),
    /// Ruby `def self.m`: a method of the enclosing class's singleton.
    SelfSingleton,
    /// Ruby `def Foo.m`: a method of `Foo`'s singleton.
    NamedSingleton(&'s str),
    /// TS/JS `Type.prototype.m = function …`: a method of `Type`; `obj.m = …`: of the
    /// object `obj` (see `Extractor::scan_assignment`).
    Assigned(&'s str, ContainerKind),
    Plain,
}

impl<'s> Member<'s> {
    /// How a member assigned a function is a member (`exports.f`: of no container).
    pub(super) fn assigned(to: AssignedTo<'s>) -> Member<'s> {
        match to {
            AssignedTo::Module => Member::Plain,
            AssignedTo::Prototype(owner) => Member::Assigned(owner, ContainerKind::Type),
            AssignedTo::Object(owner) => Member::Assigned(owner, ContainerKind::Value),
        }
    }
}

/// A captured container, before it is open.
struct Captured {
    start: usize,
    end: usize,
    rule: &'static Rule,
    name: String,
    /// Its first line, when that is a scope line of what it holds.
    header: Option<u32>,
}

/// An open container: a definition, or a captured node.
struct Open<'s> {
    start: usize,
    end: usize,
    /// For a definition: its name and kind, and the container it sits in.
    def: Option<(&'s str, DefKind, ContainerRef)>,
    /// Its entry in the table; for a definition made when a member first needs it.
    own: ContainerRef,
    has_header: bool,
    /// Position in the stack of the innermost definition open at or below this entry.
    innermost_def: Option<usize>,
}

pub(super) struct Nesting<'s> {
    lang: Lang,
    table: Vec<Container>,
    stack: Vec<Open<'s>>,
    /// Header lines of the open entries that have one, outermost first.
    headers: Vec<u32>,
    pending: Vec<Captured>,
    next: usize,
    /// Containers made for members (`Member`), by (parent, kind, name).
    made: FastMap<(ContainerRef, ContainerKind, &'s str), ContainerRef>,
}

impl<'s> Nesting<'s> {
    /// The captured `nodes` (in any order, maybe twice) as containers of a file whose
    /// definitions are the nodes `defs`.
    pub(super) fn new<'t>(
        extractor: &Extractor<'s, 't>,
        nodes: &[Node<'t>],
        defs: impl Iterator<Item = Node<'t>>,
    ) -> Nesting<'s> {
        let lang = extractor.lang;
        // The bytes the definitions span. A macro is in no namespace: one around every
        // definition but the macros still tells none of them apart.
        let span = defs
            .filter(|d| !d.kind().starts_with("preproc_"))
            .map(|d| (d.start_byte(), d.end_byte()))
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
        let mut nodes = nodes.to_vec();
        nodes.sort_by_key(|n| (n.start_byte(), Reverse(n.end_byte()), n.id()));
        nodes.dedup_by_key(|n| n.id());
        let mut pending: Vec<Captured> = Vec::with_capacity(nodes.len());
        let mut rests: Vec<usize> = Vec::new();
        for node in nodes {
            let Some(rule) = rule_of(lang, node.kind()) else {
                continue;
            };
            let has_body = node.child_by_field_name("body").is_some();
            let rest = match rule.extent {
                Extent::Node => false,
                Extent::Body if !has_body => continue,
                Extent::Body => false,
                Extent::BodyOrRest => !has_body,
            };
            let Some(name) = extractor.container_name(node, rule.name) else {
                continue;
            };
            let end = if rest {
                rests.push(pending.len());
                node.parent().map_or(usize::MAX, |p| p.end_byte())
            } else {
                node.end_byte()
            };
            pending.push(Captured {
                start: node.start_byte(),
                end,
                rule,
                name,
                header: Some(line_of(node.start_position().row)),
            });
        }
        // A declaration without a body (`namespace A;`) holds what follows it, up to the
        // next one.
        let mut starts: Vec<usize> = rests.iter().map(|&i| pending[i].start).collect();
        starts.sort_unstable();
        for &i in &rests {
            let start = pending[i].start;
            if let Some(&next) = starts.get(starts.partition_point(|&s| s <= start)) {
                pending[i].end = pending[i].end.min(next);
            }
        }
        for c in &mut pending {
            // A namespace around every definition of the file tells none of them apart: the
            // file's path line stands for it, and `container` names it.
            let around_all = span.is_none_or(|(first, last)| c.start <= first && c.end >= last);
            if c.rule.kind == ContainerKind::Namespace && around_all {
                c.header = None;
            }
        }
        pending.sort_by_key(|c| (c.start, Reverse(c.end)));
        Nesting {
            lang,
            table: Vec::new(),
            stack: Vec::new(),
            headers: Vec::new(),
            pending,
            next: 0,
            made: FastMap::default(),
        }
    }

    /// Opens the captured containers that start before a definition spanning `start..end`
    /// and closes every entry that does not hold it.
    pub(super) fn enter(&mut self, start: usize, end: usize) {
        while let Some(c) = self.pending.get(self.next) {
            if (c.start, Reverse(c.end)) > (start, Reverse(end)) {
                break;
            }
            self.next += 1;
            let (c_start, c_end) = (c.start, c.end);
            self.close_outside(c_start, c_end);
            let parent = self.innermost();
            let Some(c) = self.pending.get_mut(self.next - 1) else {
                break;
            };
            let container = Container {
                name: std::mem::take(&mut c.name),
                kind: c.rule.kind,
                notation: c.rule.notation,
                parent,
            };
            let header = c.header;
            let own = self.add(container);
            self.open(c_start, c_end, None, own, header);
        }
        self.close_outside(start, end);
    }

    /// Closes the entries on top that do not hold `start..end`; a definition spanning the
    /// same bytes is a sibling (`const A, B = 1, 2` defines two names with one node).
    fn close_outside(&mut self, start: usize, end: usize) {
        while let Some(top) = self.stack.last() {
            let same = top.def.is_some() && (top.start, top.end) == (start, end);
            if top.end >= end && !same {
                break;
            }
            if top.has_header {
                self.headers.pop();
            }
            self.stack.pop();
        }
    }

    fn open(
        &mut self,
        start: usize,
        end: usize,
        def: Option<(&'s str, DefKind, ContainerRef)>,
        own: ContainerRef,
        header: Option<u32>,
    ) {
        let below = self.stack.last().and_then(|o| o.innermost_def);
        let innermost_def = if def.is_some() {
            Some(self.stack.len())
        } else {
            below
        };
        // Scopes opened on one line (`namespace ns { struct S {`) show that line once.
        let header = header.filter(|&line| self.headers.last() != Some(&line));
        if let Some(line) = header {
            self.headers.push(line);
        }
        self.stack.push(Open {
            start,
            end,
            def,
            own,
            has_header: header.is_some(),
            innermost_def,
        });
    }

    /// Opens a definition spanning `start..end` whose header is `line`, itself in
    /// `container`.
    pub(super) fn open_def(
        &mut self,
        start: usize,
        end: usize,
        name: &'s str,
        kind: DefKind,
        container: ContainerRef,
        line: u32,
    ) {
        self.open(
            start,
            end,
            Some((name, kind, container)),
            ContainerRef::NONE,
            Some(line),
        );
    }

    /// The name of a container of the table (`None` for `ContainerRef::NONE`).
    pub(super) fn container_name(&self, r: ContainerRef) -> Option<&str> {
        self.table.get(r.index()?).map(|c| &*c.name)
    }

    /// The container the innermost open definition sits in: for a member its constructor
    /// declares (`Extractor::declared_by_constructor`), the class. Read without `innermost`,
    /// which would make a container of the constructor itself.
    pub(super) fn enclosing_def_container(&self) -> ContainerRef {
        self.stack
            .last()
            .and_then(|top| top.innermost_def)
            .and_then(|at| self.stack.get(at)?.def)
            .map_or(ContainerRef::NONE, |(_, _, parent)| parent)
    }

    /// The innermost open definition's name and kind (what `Definition::parent` names).
    pub(super) fn innermost_def(&self) -> Option<(&'s str, DefKind)> {
        let at = self.stack.last()?.innermost_def?;
        let (name, kind, _) = self.stack.get(at)?.def?;
        Some((name, kind))
    }

    /// The header lines of the innermost `MAX_SCOPE_LINES` open entries that have one.
    pub(super) fn scope_lines(&self) -> Vec<u32> {
        let shown = self.headers.len().saturating_sub(MAX_SCOPE_LINES);
        self.headers[shown..].to_vec()
    }

    /// The container of a definition opened next, given how it is a member.
    pub(super) fn container_of(&mut self, member: Member<'s>) -> ContainerRef {
        let base = self.innermost();
        match member {
            Member::Plain => base,
            Member::Receiver(ty) => self.made(base, ContainerKind::Type, Notation::Dot, ty),
            Member::OutOfLine { outer, ty } => {
                let notation = notation_of(self.lang);
                let at = outer.iter().fold(base, |at, scope| {
                    self.made(at, ContainerKind::Type, notation, scope)
                });
                self.made(at, ContainerKind::Type, notation, ty)
            }
            Member::Address(prefix, ty) => {
                let mut at = base;
                if let Some(prefix) = prefix {
                    at = self.made(at, ContainerKind::Namespace, Notation::Dot, prefix);
                }
                if let Some(ty) = ty {
                    at = self.made(at, ContainerKind::Type, Notation::Dot, ty);
                }
                at
            }
            Member::Assigned(owner, kind) => self.made(base, kind, Notation::Dot, owner),
            Member::SelfSingleton if base.is_none() => base,
            Member::SelfSingleton => {
                self.made(base, ContainerKind::Singleton, Notation::RubySingleton, "")
            }
            Member::NamedSingleton(owner) => {
                // `class Foo; def Foo.m` is `def self.m`.
                let named = |r: ContainerRef| self.table.get(r.index()?).map(|c| &*c.name);
                let ty = if named(base) == Some(owner) {
                    base
                } else {
                    self.made(base, ContainerKind::Type, Notation::RubyModule, owner)
                };
                self.made(ty, ContainerKind::Singleton, Notation::RubySingleton, "")
            }
        }
    }

    /// The innermost open entry's container, made now for a definition that had none.
    fn innermost(&mut self) -> ContainerRef {
        let lang = self.lang;
        let Some(top) = self.stack.last() else {
            return ContainerRef::NONE;
        };
        if !top.own.is_none() {
            return top.own;
        }
        let Some((name, kind, parent)) = top.def else {
            return ContainerRef::NONE;
        };
        // `typedef struct item { … } item_t;`: the struct is no member of the alias.
        if kind == DefKind::TypeAlias {
            return parent;
        }
        let (kind, notation) = of_definition(lang, kind);
        let own = self.add(Container {
            name: capped(name).to_owned(),
            kind,
            notation,
            parent,
        });
        if let Some(top) = self.stack.last_mut() {
            top.own = own;
        }
        own
    }

    fn made(
        &mut self,
        parent: ContainerRef,
        kind: ContainerKind,
        notation: Notation,
        name: &'s str,
    ) -> ContainerRef {
        if let Some(&r) = self.made.get(&(parent, kind, name)) {
            return r;
        }
        let r = self.add(Container {
            name: capped(name).to_owned(),
            kind,
            notation,
            parent,
        });
        self.made.insert((parent, kind, name), r);
        r
    }

    fn add(&mut self, container: Container) -> ContainerRef {
        let r = ContainerRef::at(self.table.len());
        if !r.is_none() {
            self.table.push(container);
        }
        r
    }

    /// The file's container table.
    pub(super) fn finish(mut self) -> Vec<Container> {
        self.table.shrink_to_fit();
        self.table
    }
}

/// `name` cut to `MAX_CONTAINER_NAME` bytes at a character boundary.
fn capped(name: &str) -> &str {
    if name.len() <= MAX_CONTAINER_NAME {
        return name;
    }
    let mut cut = MAX_CONTAINER_NAME;
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    &name[..cut]
}

/// `text` without whitespace (tree-sitter tolerates line breaks inside a path), capped.
fn compacted(text: &str) -> String {
    let mut out: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let keep = capped(&out).len();
    out.truncate(keep);
    out
}

impl<'s> Extractor<'s, '_> {
    /// Whether the definition at `node` is a member its constructor declares, of the class
    /// the constructor is in rather than of the constructor: a TypeScript or PHP parameter
    /// property (`constructor(private x: T)`, `__construct(private $x)`), or Python's
    /// `self.pool = pool` in `__init__` (the only definition that is an expression statement
    /// of a function's body; a class variable's is the class body's).
    pub(super) fn declared_by_constructor(&self, node: Node) -> bool {
        match self.lang {
            Lang::Python => {
                node.kind() == "expression_statement"
                    && node
                        .parent()
                        .and_then(|block| block.parent())
                        .is_some_and(|f| f.kind() == "function_definition")
            }
            Lang::TypeScript | Lang::Tsx | Lang::Php => matches!(
                node.kind(),
                "required_parameter" | "optional_parameter" | "property_promotion_parameter"
            ),
            _ => false,
        }
    }

    /// How the definition `node` is a member (`receiver`: a Go method's receiver type;
    /// `owner`: the `Type` of a C++ `Type::f` out of line).
    pub(super) fn member(
        &self,
        node: Node,
        receiver: Option<&'s str>,
        owner: Option<&'s str>,
    ) -> Member<'s> {
        match self.lang {
            Lang::Go => receiver.map_or(Member::Plain, Member::Receiver),
            Lang::Cpp => owner.map_or(Member::Plain, |ty| Member::OutOfLine {
                outer: self.cpp_outer_scopes(node),
                ty,
            }),
            Lang::Kotlin => owner.map_or(Member::Plain, |ty| Member::OutOfLine {
                outer: Vec::new(),
                ty,
            }),
            Lang::Lua => self
                .lua_table(node)
                .map_or(Member::Plain, |ty| Member::OutOfLine {
                    outer: Vec::new(),
                    ty,
                }),
            Lang::Hcl => self.hcl_address(node),
            Lang::Ruby if node.kind() == "singleton_method" => {
                match node.child_by_field_name("object") {
                    Some(o) if o.kind() == "self" => Member::SelfSingleton,
                    Some(o) if o.kind() == "constant" => {
                        self.text(o).map_or(Member::Plain, Member::NamedSingleton)
                    }
                    _ => Member::Plain,
                }
            }
            // A Rust method's `impl` block is the innermost open container already.
            _ => Member::Plain,
        }
    }

    /// The scopes outside the type a C++ out-of-line definition is a member of, outermost
    /// first, by the names they are written with (`A<K>::B::f` → `A`).
    fn cpp_outer_scopes(&self, node: Node) -> Vec<&'s str> {
        let mut scopes = self.cpp_owner_scopes(node);
        scopes.pop();
        scopes
            .into_iter()
            .filter_map(declarators::scope_name)
            .filter_map(|scope| self.text(scope))
            .collect()
    }

    /// Lua: the table a function is stored in (`function M.f()`, `function M:f()`, `M.f =
    /// function () end`), when it is a plain name.
    fn lua_table(&self, node: Node) -> Option<&'s str> {
        let name = match node.kind() {
            "function_declaration" => node.child_by_field_name("name")?,
            "assignment_statement" => {
                let mut cursor = node.walk();
                let list = node
                    .named_children(&mut cursor)
                    .find(|c| c.kind() == "variable_list")?;
                list.child_by_field_name("name")?
            }
            _ => return None,
        };
        if !matches!(
            name.kind(),
            "dot_index_expression" | "method_index_expression"
        ) {
            return None;
        }
        let table = name.child_by_field_name("table")?;
        (table.kind() == "identifier")
            .then(|| self.text(table))
            .flatten()
    }

    /// Terraform: the address a top-level block's name is written in (`var.`, `local.`,
    /// `module.`, `output.`, the resource type, `data.` and the data source's type).
    fn hcl_address(&self, node: Node) -> Member<'s> {
        let block = if node.kind() == "attribute" {
            // A `locals` entry: attribute → body → block.
            return Member::Address(Some("local"), None);
        } else {
            node
        };
        let mut cursor = block.walk();
        let mut parts = block.named_children(&mut cursor);
        let Some(kind) = parts.next().and_then(|t| self.text(t)) else {
            return Member::Plain;
        };
        let labels: Vec<Node> = parts.filter(|c| c.kind() == "string_lit").collect();
        let first_label = || {
            let label = labels.first()?;
            let mut cursor = label.walk();
            let literal = label
                .named_children(&mut cursor)
                .find(|c| c.kind() == "template_literal");
            literal.and_then(|l| self.text(l))
        };
        match kind {
            "variable" => Member::Address(Some("var"), None),
            "module" => Member::Address(Some("module"), None),
            "output" => Member::Address(Some("output"), None),
            "resource" if labels.len() == 2 => Member::Address(None, first_label()),
            "data" if labels.len() == 2 => Member::Address(Some("data"), first_label()),
            _ => Member::Plain,
        }
    }

    /// A captured container's name, `None` when it has none it can be written with.
    fn container_name(&self, node: Node, name: Name) -> Option<String> {
        let text = |n: Node| self.text(n).map(compacted);
        match name {
            Name::Field(field) => text(node.child_by_field_name(field)?),
            Name::Child(kinds) => {
                let mut cursor = node.walk();
                let child = node
                    .named_children(&mut cursor)
                    .find(|c| kinds.contains(&c.kind()))?;
                text(child)
            }
            Name::ImplType => {
                let ty = node.child_by_field_name("type")?;
                match rust_type_name(ty) {
                    Some(name) => text(name),
                    None => text(ty),
                }
            }
            Name::PhpNamespace => {
                let name = text(node.child_by_field_name("name")?)?;
                Some(name.trim_start_matches('\\').to_owned())
            }
            Name::CppNamespace => match node.child_by_field_name("name") {
                Some(name) => text(name),
                None => Some("(anonymous namespace)".to_owned()),
            },
            Name::Unnamed => Some(String::new()),
            Name::Companion => match node.child_by_field_name("name") {
                Some(name) => text(name),
                None => Some("Companion".to_owned()),
            },
        }
        .filter(|n| !n.is_empty() || matches!(name, Name::Unnamed))
    }
}

/// The type a Rust `impl` is for, by its own name: `Router<S>` → `Router`, `crate::a::B` →
/// `B`, `&'a T` → `T`; `None` for a type without one (tuple, slice, `dyn Trait`, …).
pub(super) fn rust_type_name(mut ty: Node) -> Option<Node> {
    loop {
        ty = match ty.kind() {
            "generic_type" | "scoped_type_identifier" | "reference_type" => ty
                .child_by_field_name("type")
                .or_else(|| ty.child_by_field_name("name"))?,
            "type_identifier" => return Some(ty),
            _ => return None,
        };
    }
}
