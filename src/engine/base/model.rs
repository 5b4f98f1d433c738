//! Plain data shared by every engine phase: tags, parsed files, skip reasons (the language
//! table is `languages`, re-exported here).
//! No I/O and no threads here; values are built on rayon workers and read everywhere.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub use super::languages::{Lang, LangSpec, LANGS};
use super::source_text::SourceText;
pub(crate) use super::source_text::MAP_SIGNATURE_LINES;
pub use super::source_text::{LazyText, MapLines};

/// An inclusive, 1-based line range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LineRange {
    pub start: u32,
    pub end: u32,
}

impl LineRange {
    pub fn new(start: u32, end: u32) -> Self {
        LineRange {
            start,
            end: end.max(start),
        }
    }
    pub fn contains(&self, line: u32) -> bool {
        self.start <= line && line <= self.end
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DefKind {
    Function,
    Method,
    Class,
    Interface,
    TypeAlias,
    Enum,
    Struct,
    Constant,
    Variable,
    /// A module declared as an item: Rust `mod name;` (its body is the file `name.rs`).
    Module,
    /// A data member: a struct's or class's field (Go, Rust, Java, C#, C, C++), a
    /// TypeScript or JavaScript class field that does not hold a function, a TypeScript
    /// interface property that is not a function or constructor parameter property, a Python class variable or attribute `__init__` sets on `self`, a
    /// PHP property, a Ruby `attr_accessor` (and kin) attribute. Always `lookup_only`.
    Field,
}

impl DefKind {
    pub fn name(self) -> &'static str {
        match self {
            DefKind::Function => "function",
            DefKind::Method => "method",
            DefKind::Class => "class",
            DefKind::Interface => "interface",
            DefKind::TypeAlias => "type_alias",
            DefKind::Enum => "enum",
            DefKind::Struct => "struct",
            DefKind::Constant => "constant",
            DefKind::Variable => "variable",
            DefKind::Module => "module",
            DefKind::Field => "field",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    /// `f()`, `obj.f()`, `new F()`, `pkg.F()`, a decorator `@f`, a JSX element `<F/>`.
    Call,
    /// Any other use of a name in an expression.
    Reference,
    /// A name used as a type (annotation, generic argument, Go type use).
    Type,
    /// extends / implements / Python base class / Go embedding.
    Heritage,
    /// A name brought in by an import statement.
    Import,
}

impl RefKind {
    pub fn name(self) -> &'static str {
        match self {
            RefKind::Call => "call",
            RefKind::Reference => "reference",
            RefKind::Type => "type",
            RefKind::Heritage => "heritage",
            RefKind::Import => "import",
        }
    }
}

/// A definition found by a tags query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    pub name: String,
    pub kind: DefKind,
    /// The whole definition, body included.
    pub lines: LineRange,
    /// The lines shown in a map: from the first line of the definition (decorators and
    /// `export` included) to the line where its body opens. At most a few lines.
    pub signature: LineRange,
    /// Name of the innermost enclosing definition (class, interface, function), if any.
    pub parent: Option<String>,
    /// First line of each enclosing scope's header, outermost first (e.g. `class Foo {`
    /// for a method, `impl<S> Router<S> {` for a Rust method), so a map can show where the
    /// definition lives; only the innermost `tags::MAX_SCOPE_LINES` scopes of a deeper
    /// nesting.
    pub scope_lines: Vec<u32>,
    /// Its innermost container in the file's table (`FileTags::containers`): see
    /// [`FileTags::container`] and [`FileTags::qualified_name`].
    pub container: ContainerRef,
    /// Declared here without a body: an interface, trait or abstract member, an overload or
    /// `declare` signature, a C/C++ prototype. Its implementation, if any, is elsewhere, and
    /// a look-up ranks that first. (A byte of `Definition`'s padding.)
    pub declaration: bool,
    /// Found by a look-up where it is written, but references do not bind to it and a map
    /// does not show it: an object-like macro defined without a value (`#define FOO_H_`: an
    /// include guard, a feature flag), which defines no code, or a data member
    /// (`DefKind::Field`), which the map shows as a line of its type and whose uses
    /// (`x.name`) cannot be told from another type's member of the same name without types.
    /// (A byte of `Definition`'s padding.)
    pub lookup_only: bool,
}

/// What the look-up-only definitions of a name are (`look_up_only_kind`), for the notes
/// that say why its uses are not bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookUpOnly {
    Field,
    ValuelessMacro,
    /// A field somewhere, a macro without a value elsewhere.
    Both,
}

impl LookUpOnly {
    /// The words a note says it with: "a field", "a macro without a value", or both.
    pub fn noun(self) -> &'static str {
        match self {
            LookUpOnly::Field => "a field",
            LookUpOnly::ValuelessMacro => "a macro without a value",
            LookUpOnly::Both => "a field or a macro without a value",
        }
    }
}

/// What the look-up-only definitions among `defs` are; `None` when none is.
pub fn look_up_only_kind<'d>(defs: impl IntoIterator<Item = &'d Definition>) -> Option<LookUpOnly> {
    let (mut field, mut macro_) = (false, false);
    for d in defs.into_iter().filter(|d| d.lookup_only) {
        if d.kind == DefKind::Field {
            field = true;
        } else {
            macro_ = true;
        }
    }
    match (field, macro_) {
        (true, false) => Some(LookUpOnly::Field),
        (false, true) => Some(LookUpOnly::ValuelessMacro),
        (true, true) => Some(LookUpOnly::Both),
        (false, false) => None,
    }
}

/// A definition's container: an index into its file's [`FileTags::containers`], or none
/// (top level). One word per definition, which fits in `Definition`'s padding; each
/// container's name is stored once per file, however many definitions it holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ContainerRef(u32);

impl ContainerRef {
    pub const NONE: ContainerRef = ContainerRef(0);

    /// The container at `index` in the table (`NONE` past what a file can hold).
    pub fn at(index: usize) -> ContainerRef {
        u32::try_from(index)
            .ok()
            .and_then(|i| i.checked_add(1))
            .map_or(ContainerRef::NONE, ContainerRef)
    }

    pub fn index(self) -> Option<usize> {
        self.0.checked_sub(1).map(|i| i as usize)
    }

    pub fn is_none(self) -> bool {
        self.0 == 0
    }
}

/// What kind of scope a container is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ContainerKind {
    /// A namespace, package or module: C++, C#, PHP and TS namespaces, Java and Go
    /// packages, a Rust `mod` with a body.
    Namespace,
    /// A type: class, struct, interface, trait, enum, Ruby class or module, a Rust `impl`
    /// block (named by its type), a Go method's receiver type, a C++ `Type::` out of line.
    Type,
    /// A function or method holding nested definitions (Python's enclosing functions).
    Function,
    /// A constant or variable holding definitions: the object literal of `const obj = { m()
    /// {} }`.
    Value,
    /// The singleton side of a Ruby class or module (`def self.m`, `class << self`):
    /// unnamed; its methods are written `A::B.m`.
    Singleton,
}

/// How a qualified name joins a container to what it holds, in the language's notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Notation {
    /// `.`: Java, C#, Go, Python, TypeScript and JavaScript.
    Dot,
    /// `::`: Rust, C and C++.
    Colons,
    /// A Ruby class or module: `::` before a constant, class or module, `#` before a method.
    RubyModule,
    /// A Ruby singleton: `.` before a method.
    RubySingleton,
    /// A PHP namespace: `\`.
    PhpNamespace,
    /// A PHP class, interface, trait or enum: `::`.
    PhpClass,
}

impl Notation {
    /// What separates a container written this way from a member (`method`: a function or
    /// method, else a type, namespace, constant or variable).
    pub fn separator(self, method: bool) -> &'static str {
        match self {
            Notation::Dot => ".",
            Notation::Colons | Notation::PhpClass => "::",
            Notation::RubyModule if method => "#",
            Notation::RubyModule => "::",
            Notation::RubySingleton if method => ".",
            Notation::RubySingleton => "::",
            Notation::PhpNamespace => "\\",
        }
    }
}

/// One container of a file's definitions (see [`FileTags::containers`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Container {
    /// As written (`Router`, `fmt`, `Polly.Retry`, `Slim\Routing`, `A::B`), at most
    /// `tags::MAX_CONTAINER_NAME` bytes; empty for a Ruby singleton.
    pub name: String,
    pub kind: ContainerKind,
    /// How its members' qualified names are joined to it.
    pub notation: Notation,
    /// The container it sits in (always earlier in the table).
    pub parent: ContainerRef,
}

/// A container path writes at most this many containers, the innermost; an outer rest is
/// written `…`. Real code nests a few levels; a deeper nesting stays a bounded string.
pub const MAX_CONTAINER_DEPTH: usize = 8;

fn is_method_kind(kind: DefKind) -> bool {
    matches!(kind, DefKind::Function | DefKind::Method)
}

/// A use of a name, as plain owned values: what tests and the import extractor build. A file
/// stores its references compactly in a [`RefList`] and hands out [`RefView`]s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reference {
    pub name: String,
    pub kind: RefKind,
    pub line: u32,
    /// For a member or selector use (`pkg.Func`, `mod.func()`, `obj.method()`): the object
    /// expression when it is a plain identifier (`pkg`, `mod`, `obj`, `this`).
    pub qualifier: Option<String>,
    /// The receiver's type where the file states it (see [`RefView::receiver`]).
    #[serde(default)]
    pub receiver: Option<String>,
}

impl Reference {
    pub fn view(&self) -> RefView<'_> {
        RefView {
            name: &self.name,
            kind: self.kind,
            line: self.line,
            qualifier: self.qualifier.as_deref(),
            receiver: self.receiver.as_deref(),
        }
    }
}

/// One reference of a [`RefList`], borrowing its names from the list. Field order is the
/// order references are sorted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RefView<'a> {
    pub line: u32,
    pub name: &'a str,
    pub kind: RefKind,
    pub qualifier: Option<&'a str>,
    /// The type of the receiver a member use is made on, where the file states it
    /// (`ingest::tags::receivers`): the enclosing type for `self.m()` / `this.m()` and for a
    /// method called without a receiver inside a class (Ruby, Java, C#, C++), a declared
    /// parameter or local type (`c *http.Client` → `http.Client`), or the type a local was
    /// constructed as (`x = Client()`, `new Client()`, `Client::new()`). As written, with a
    /// one-segment qualifier kept before a `.` (`http.Client`); binding resolves it.
    pub receiver: Option<&'a str>,
}

/// One reference, 16 bytes: its names are indexes into the list's table, the kind shares a
/// word with the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct PackedRef {
    /// `name index << KIND_BITS | kind code`.
    name_kind: u32,
    /// Qualifier's name index + 1; 0 for none.
    qualifier: u32,
    line: u32,
    /// Receiver type's name index + 1; 0 for none.
    receiver: u32,
}

const KIND_BITS: u32 = 3;
/// A file never has this many distinct names (files are size-limited); past it, references
/// are dropped rather than packed wrong.
const MAX_NAMES: usize = (u32::MAX >> KIND_BITS) as usize;

fn kind_code(kind: RefKind) -> u32 {
    match kind {
        RefKind::Call => 0,
        RefKind::Reference => 1,
        RefKind::Type => 2,
        RefKind::Heritage => 3,
        RefKind::Import => 4,
    }
}

fn kind_of(code: u32) -> RefKind {
    match code {
        0 => RefKind::Call,
        2 => RefKind::Type,
        3 => RefKind::Heritage,
        4 => RefKind::Import,
        _ => RefKind::Reference,
    }
}

/// A name index and a reference kind in one word (sorting by it sorts by name, then kind):
/// how a [`RefList`] and the graph's `UseCounts` store a use.
pub(crate) fn pack_name_kind(name: u32, kind: RefKind) -> u32 {
    name << KIND_BITS | kind_code(kind)
}

/// The name index and kind packed by [`pack_name_kind`].
pub(crate) fn unpack_name_kind(packed: u32) -> (usize, RefKind) {
    (
        (packed >> KIND_BITS) as usize,
        kind_of(packed & ((1 << KIND_BITS) - 1)),
    )
}

/// A file's references, sorted by (line, name, kind, qualifier) and distinct.
///
/// Why packed: references are most of what an index holds (354k in mypy). As `Reference`
/// values they took 56 bytes each plus one or two small heap strings; here each is 16 bytes
/// and every distinct name of the file is stored once, in one buffer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefList {
    /// The distinct names. Serialised as its two fields in place (postcard has no framing
    /// for a nested struct), so the cache format is that of the flat layout.
    names: NameTable,
    items: Vec<PackedRef>,
}

/// Distinct short strings stored once, concatenated in one buffer, addressed by index in
/// insertion order: the name table of a [`RefList`] and of the graph's `UseCounts`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameTable {
    names: String,
    /// `ends[i]` is where name `i` ends in `names`.
    ends: Vec<u32>,
}

impl NameTable {
    pub const fn new() -> NameTable {
        NameTable {
            names: String::new(),
            ends: Vec::new(),
        }
    }

    /// Appends `name` (the caller keeps names distinct) and returns its index.
    pub fn push(&mut self, name: &str) -> u32 {
        let i = self.ends.len() as u32;
        self.names.push_str(name);
        self.ends.push(self.names.len() as u32);
        i
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Name `i`; "" for an index out of range (only a corrupt cache could hold one).
    pub fn get(&self, i: usize) -> &str {
        let start = match i {
            0 => 0,
            _ => self.ends.get(i - 1).map_or(0, |&e| e as usize),
        };
        let end = self.ends.get(i).map_or(start, |&e| e as usize);
        self.names.get(start..end).unwrap_or("")
    }

    /// The names in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i))
    }

    pub fn shrink_to_fit(&mut self) {
        self.names.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl RefList {
    /// An empty list (usable in a `static`).
    pub const fn new() -> RefList {
        RefList {
            names: NameTable::new(),
            items: Vec::new(),
        }
    }

    /// Packs references that are already sorted and distinct (the extractor's order).
    pub fn from_sorted<'a>(refs: impl IntoIterator<Item = RefView<'a>>) -> RefList {
        let refs = refs.into_iter();
        let mut list = RefList {
            items: Vec::with_capacity(refs.size_hint().0),
            ..RefList::default()
        };
        let mut ids: crate::engine::base::FastMap<&'a str, u32> = Default::default();
        let mut intern = |list: &mut RefList, name: &'a str| -> Option<u32> {
            if let Some(&i) = ids.get(name) {
                return Some(i);
            }
            if list.names.len() >= MAX_NAMES {
                return None;
            }
            let i = list.names.push(name);
            ids.insert(name, i);
            Some(i)
        };
        for r in refs {
            let Some(name) = intern(&mut list, r.name) else {
                break;
            };
            let mut optional = |list: &mut RefList, text: Option<&'a str>| match text {
                None => Some(0),
                Some(q) => intern(list, q).map(|i| i + 1),
            };
            let Some(qualifier) = optional(&mut list, r.qualifier) else {
                break;
            };
            let Some(receiver) = optional(&mut list, r.receiver) else {
                break;
            };
            list.items.push(PackedRef {
                name_kind: pack_name_kind(name, r.kind),
                qualifier,
                line: r.line,
                receiver,
            });
        }
        list.names.shrink_to_fit();
        list
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> RefIter<'_> {
        RefIter {
            list: self,
            items: self.items.iter(),
        }
    }

    /// The distinct names the references use (names and qualifiers), each once.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter()
    }

    /// The table `names` iterates, whose indices the packed uses below refer to.
    pub(crate) fn name_table(&self) -> &NameTable {
        &self.names
    }

    /// Each reference as stored: (name index and kind packed by [`pack_name_kind`], qualifier
    /// index + 1 or 0, receiver index + 1 or 0), in the list's order.
    pub(crate) fn packed_uses(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        self.items
            .iter()
            .map(|r| (r.name_kind, r.qualifier, r.receiver))
    }

    /// Each heritage use as stored: (line, name index, qualifier index + 1 or 0).
    pub(crate) fn packed_heritage(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        let heritage = kind_code(RefKind::Heritage);
        self.items
            .iter()
            .filter(move |r| r.name_kind & ((1 << KIND_BITS) - 1) == heritage)
            .map(|r| (r.line, r.name_kind >> KIND_BITS, r.qualifier))
    }

    fn name_at(&self, i: usize) -> &str {
        self.names.get(i)
    }
}

impl From<Vec<Reference>> for RefList {
    /// Packs in the given order (tests build lists by hand; the extractor sorts its own).
    fn from(refs: Vec<Reference>) -> RefList {
        RefList::from_sorted(refs.iter().map(Reference::view))
    }
}

/// Iterator over a [`RefList`]'s references.
#[derive(Clone)]
pub struct RefIter<'a> {
    list: &'a RefList,
    items: std::slice::Iter<'a, PackedRef>,
}

impl<'a> RefIter<'a> {
    fn unpack(&self, r: &PackedRef) -> RefView<'a> {
        let (name, kind) = unpack_name_kind(r.name_kind);
        RefView {
            line: r.line,
            name: self.list.name_at(name),
            kind,
            qualifier: (r.qualifier > 0).then(|| self.list.name_at(r.qualifier as usize - 1)),
            receiver: (r.receiver > 0).then(|| self.list.name_at(r.receiver as usize - 1)),
        }
    }
}

impl<'a> Iterator for RefIter<'a> {
    type Item = RefView<'a>;
    fn next(&mut self) -> Option<RefView<'a>> {
        let r = self.items.next()?;
        Some(self.unpack(r))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }
}

impl ExactSizeIterator for RefIter<'_> {}

impl DoubleEndedIterator for RefIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let r = self.items.next_back()?;
        Some(self.unpack(r))
    }
}

impl<'a> IntoIterator for &'a RefList {
    type Item = RefView<'a>;
    type IntoIter = RefIter<'a>;
    fn into_iter(self) -> RefIter<'a> {
        self.iter()
    }
}

/// One name bound by an import statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedName {
    /// The exported name in the target module (`default` for a default import).
    pub name: String,
    /// The local binding when it differs (`import { a as b }` → `b`).
    pub alias: Option<String>,
}

/// An import (or re-export) statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    /// The module as written: `./util`, `../lib/index.js`, `react`, `.models`, `os.path`,
    /// `github.com/org/repo/pkg`.
    pub specifier: String,
    /// Named bindings (`import { a }`, `from m import a`).
    pub names: Vec<ImportedName>,
    /// A binding for the whole module: `import * as ns`, Python `import a.b as c` / `import a`,
    /// a Go import's package name or alias.
    pub namespace: Option<String>,
    /// `export * from`, `from m import *`, Go dot-import.
    pub wildcard: bool,
    /// `export … from` (a re-export) rather than an import.
    pub reexport: bool,
    pub line: u32,
}

/// Everything the tags phase extracted from one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileTags {
    pub defs: Vec<Definition>,
    pub refs: RefList,
    pub imports: Vec<Import>,
    /// Number of ERROR/MISSING nodes tree-sitter reported; tags are still extracted.
    pub parse_errors: u32,
    /// TS/JS: the file is a module (ES `import`/`export`, or CommonJS `require` /
    /// `module.exports`), so its top-level names reach other files only through imports.
    /// False for scripts, whose top-level names are globals, and for other languages.
    pub module_scoped: bool,
    /// The containers its definitions sit in (`Definition::container`), outer before inner:
    /// only those that hold a definition, and the namespaces and blocks the tags query
    /// captured (`tags::containers`).
    pub containers: Vec<Container>,
    /// File names the text mentions that could name a source file without a grammar
    /// (`schema.sql`, `Makefile`: `ingest::mentions`), sorted: what ranks a path-only file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mentions: Vec<String>,
}

impl FileTags {
    pub fn container_at(&self, r: ContainerRef) -> Option<&Container> {
        self.containers.get(r.index()?)
    }

    /// `def`'s container path in its language's notation: `Router`, `fmt::detail::buffer`,
    /// `pkg.T`, `org.jsoup.Jsoup`, `Polly.Retry.RetryPolicy`, `Jekyll::LiquidRenderer::File`,
    /// `Slim\App`. `None` at top level.
    pub fn container(&self, def: &Definition) -> Option<String> {
        let mut out = String::new();
        self.write_path(def.container, &mut out);
        (!out.is_empty()).then_some(out)
    }

    /// `def`'s name qualified by its container: `Router::fallback`, `pkg.T.M`,
    /// `Jekyll::LiquidRenderer::File#render`, `A::B.m` (`def self.m`), `Slim\App::run`.
    /// `None` at top level, where it is the name itself. A Go method is `pkg.T.M` whether
    /// its receiver is `T` or `*T` (`go doc`'s form; a stack trace's `pkg.(*T).M` names the
    /// same method, and a query may be typed either way).
    pub fn qualified_name(&self, def: &Definition) -> Option<String> {
        let inner = self.container_at(def.container)?;
        let mut out = String::new();
        self.write_path(def.container, &mut out);
        if out.is_empty() {
            return None;
        }
        out.push_str(inner.notation.separator(is_method_kind(def.kind)));
        out.push_str(&def.name);
        Some(out)
    }

    /// Writes the path of the container `r`: at most `MAX_CONTAINER_DEPTH` containers, the
    /// innermost, after `…` when there are more.
    fn write_path(&self, r: ContainerRef, out: &mut String) {
        let mut chain: Vec<&Container> = Vec::with_capacity(4);
        let mut at = r;
        let mut cut = false;
        // Parents come earlier in the table; a damaged cache could still link them in a
        // loop, so the walk is bounded rather than trusted.
        while let Some(c) = self.container_at(at) {
            if chain.len() == MAX_CONTAINER_DEPTH {
                cut = true;
                break;
            }
            chain.push(c);
            at = c.parent;
        }
        let mut outer = None;
        if cut {
            out.push('…');
            outer = self.container_at(at);
        }
        for c in chain.into_iter().rev() {
            if c.kind != ContainerKind::Singleton {
                if let Some(o) = outer.filter(|_| !out.is_empty()) {
                    out.push_str(o.notation.separator(c.kind == ContainerKind::Function));
                }
                out.push_str(&c.name);
            }
            outer = Some(c);
        }
    }
}

/// One indexed source file.
#[derive(Debug, Clone)]
pub struct ParsedFile {
    /// Path relative to the repo root, with `/` separators.
    pub path: String,
    pub lang: Lang,
    pub size: u64,
    /// The text, whole or only the lines a map can show (see [`ParsedFile::for_map`]).
    text: SourceText,
    /// Shared so an incremental refresh can reuse an unchanged file without copying.
    pub tags: Arc<FileTags>,
    /// Another project's copy (`paths::is_vendored` by name and size, or a folder with a
    /// foreign licence, `walk::licences`, marked by the index build): ranked as tests are.
    pub vendored: bool,
    /// Modification time (ns since the epoch, 0 when unknown) and xxh3 hash of the bytes
    /// read, so a refresh or the persistent cache can tell whether the file changed.
    pub mtime_ns: i64,
    pub hash: u64,
    /// The references and imports as the tag cache holds them, not decoded yet: `tags` then
    /// has none. A map-only build takes a cache entry so (a map whose graph comes from the
    /// derived cache never reads them), and so does a search's (`IndexOptions::lazy_links`),
    /// which reads a file's through `refs()` and `imports()`, decoded on first use; the
    /// graph build calls `store::tags::read_links`.
    pub unread_links: Option<UnreadLinks>,
}

/// A file's references and imports, decoded from its [`UnreadLinks`].
#[derive(Debug, Default)]
pub struct DecodedLinks {
    pub refs: RefList,
    pub imports: Vec<Import>,
}

/// A slice of a tag cache file read into memory, holding one file's encoded references and
/// imports (see `store::tags::read_links`). Shares the file's buffer instead of copying it,
/// and, once asked for, the decoded lists (every clone shares them). One pointer wide, so
/// that a file that has none pays little for the field.
#[derive(Debug, Clone)]
pub struct UnreadLinks(Arc<Unread>);

#[derive(Debug)]
struct Unread {
    buf: Arc<Vec<u8>>,
    range: std::ops::Range<usize>,
    /// How the bytes decode (the tag cache's format, which lives above this layer). An
    /// entry that does not decode (a bug, behind the cache's checksum) has none.
    decode: fn(&[u8]) -> Option<DecodedLinks>,
    decoded: std::sync::OnceLock<DecodedLinks>,
}

impl UnreadLinks {
    /// The bytes `range` of `buf`, which `decode` decodes.
    pub(crate) fn new(
        buf: Arc<Vec<u8>>,
        range: std::ops::Range<usize>,
        decode: fn(&[u8]) -> Option<DecodedLinks>,
    ) -> UnreadLinks {
        UnreadLinks(Arc::new(Unread {
            buf,
            range,
            decode,
            decoded: std::sync::OnceLock::new(),
        }))
    }

    pub fn bytes(&self) -> &[u8] {
        self.0.buf.get(self.0.range.clone()).unwrap_or_default()
    }

    /// The references and imports, decoded the first time any clone asks.
    pub fn decoded(&self) -> &DecodedLinks {
        self.0
            .decoded
            .get_or_init(|| (self.0.decode)(self.bytes()).unwrap_or_default())
    }

    /// The decoded references and imports, if a clone has asked for them.
    pub(crate) fn decoded_if_done(&self) -> Option<&DecodedLinks> {
        self.0.decoded.get()
    }
}

impl ParsedFile {
    /// Marks the file vendored when its path or size says so (`paths::is_vendored`); a
    /// folder's licence is the index build's to add.
    fn with_vendored_by_name(mut self) -> Self {
        self.vendored = crate::engine::base::paths::is_vendored(&self.path, self.size);
        self
    }

    pub fn new(
        path: String,
        lang: Lang,
        size: u64,
        source: Arc<str>,
        tags: impl Into<Arc<FileTags>>,
    ) -> Self {
        ParsedFile {
            path,
            lang,
            size,
            text: SourceText::full(source),
            tags: tags.into(),
            mtime_ns: 0,
            hash: 0,
            unread_links: None,
            vendored: false,
        }
        .with_vendored_by_name()
    }

    /// A file that keeps only the lines a map renders (see [`MapLines`]): `line(n)` answers
    /// for those, `is_nonblank` for every line, and `source()` is `None`.
    pub fn for_map(
        path: String,
        lang: Lang,
        size: u64,
        source: &str,
        tags: impl Into<Arc<FileTags>>,
    ) -> Self {
        let tags = tags.into();
        let lines = MapLines::new(source, map_line_numbers(&tags));
        ParsedFile {
            path,
            lang,
            size,
            text: SourceText::MapOnly(Arc::new(lines)),
            tags,
            mtime_ns: 0,
            hash: 0,
            unread_links: None,
            vendored: false,
        }
        .with_vendored_by_name()
    }

    /// A file built `for_map` from lines kept earlier (the tag cache's), without its text.
    pub fn from_map_lines(
        path: String,
        lang: Lang,
        size: u64,
        lines: Arc<MapLines>,
        tags: impl Into<Arc<FileTags>>,
    ) -> Self {
        ParsedFile {
            path,
            lang,
            size,
            text: SourceText::MapOnly(lines),
            tags: tags.into(),
            mtime_ns: 0,
            hash: 0,
            unread_links: None,
            vendored: false,
        }
        .with_vendored_by_name()
    }

    /// A file taken from the tag cache unread, with the lines a map renders (`lines`), whose
    /// whole text `read` gives when something first asks for it (see [`LazyText`]).
    pub fn lazy(
        path: String,
        lang: Lang,
        size: u64,
        lines: Arc<MapLines>,
        tags: impl Into<Arc<FileTags>>,
        read: impl Fn() -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        ParsedFile {
            path,
            lang,
            size,
            text: SourceText::lazy(lines, read),
            tags: tags.into(),
            mtime_ns: 0,
            hash: 0,
            unread_links: None,
            vendored: false,
        }
        .with_vendored_by_name()
    }

    /// The lines a map renders, for the tag cache: kept ones for a file built `for_map` or
    /// taken unread, else taken from the full text now.
    pub fn map_lines(&self) -> Arc<MapLines> {
        match (self.text.map_lines(), self.text.source()) {
            (Some(kept), _) => kept.clone(),
            (None, Some(source)) => Arc::new(MapLines::new(source, map_line_numbers(&self.tags))),
            (None, None) => Arc::new(MapLines::new("", Vec::new())),
        }
    }

    /// Records when the file was last modified and the hash of its bytes (see the fields).
    pub fn with_stamp(mut self, mtime_ns: i64, hash: u64) -> Self {
        self.mtime_ns = mtime_ns;
        self.hash = hash;
        self
    }

    /// The file's references: its tags', or those the tag cache holds undecoded, decoded
    /// now if no one has yet (see `unread_links`).
    pub fn refs(&self) -> &RefList {
        match &self.unread_links {
            None => &self.tags.refs,
            Some(links) => &links.decoded().refs,
        }
    }

    /// The file's imports, as `refs` finds them.
    pub fn imports(&self) -> &[Import] {
        match &self.unread_links {
            None => &self.tags.imports,
            Some(links) => &links.decoded().imports,
        }
    }

    /// The whole source text (invalid UTF-8 replaced); `None` for a file built `for_map`,
    /// and for one taken unread whose file no longer holds the content its tags came from.
    /// A file taken unread is read here, the first time.
    pub fn source(&self) -> Option<&Arc<str>> {
        self.text.source()
    }

    /// Number of lines (a trailing newline does not start a new line).
    pub fn line_count(&self) -> u32 {
        self.text.line_count()
    }

    /// Line `n` (1-based) of the source, without its line terminator. A file built
    /// `for_map` has only the lines a map renders.
    pub fn line(&self, n: u32) -> Option<&str> {
        self.text.line(n)
    }

    /// Whether line `n` (1-based) exists and has a non-whitespace character.
    pub fn is_nonblank(&self, n: u32) -> bool {
        self.text.is_nonblank(n)
    }
}

/// The lines of a file a map renders, ascending: every definition's signature (at most
/// `MAP_SIGNATURE_LINES` of it) and scope header lines; the same lines the fit looks at
/// (`repo_map::Fitter::def_lines`). Numbers past the last line are dropped by `MapLines`.
fn map_line_numbers(tags: &FileTags) -> Vec<u32> {
    let mut numbers: Vec<u32> = Vec::new();
    for d in tags.defs.iter().filter(|d| !d.lookup_only) {
        let sig_start = d.signature.start.max(1);
        let sig_end = d
            .signature
            .end
            .min(sig_start.saturating_add(MAP_SIGNATURE_LINES - 1));
        numbers.extend(d.scope_lines.iter().copied());
        numbers.extend(sig_start..=sig_end);
    }
    numbers.retain(|&n| n >= 1);
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// A definition with its rank, as produced by `rank::rank_definitions`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RankedDef {
    /// Index into the index's `files`.
    pub file: usize,
    /// Index into that file's `tags.defs`.
    pub def: usize,
    pub score: f64,
}

/// A path-only file (a source file without a grammar) with its rank, as produced by
/// `rank::path_only`: the map shows it by its path alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankedPath {
    /// Index into the path list the ranking was given (`Index::unsupported`).
    pub path: usize,
    pub score: f64,
}

/// Why a file was left out of the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    NodeModules,
    Vendor,
    Hidden,
    BuildOutput,
    Minified,
    Generated,
    Binary,
    TooLarge,
    Unreadable,
    Ignored,
}

impl SkipReason {
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::NodeModules => "node_modules",
            SkipReason::Vendor => "vendor",
            SkipReason::Hidden => "hidden",
            SkipReason::BuildOutput => "build_output",
            SkipReason::Minified => "minified",
            SkipReason::Generated => "generated",
            SkipReason::Binary => "binary",
            SkipReason::TooLarge => "too_large",
            SkipReason::Unreadable => "unreadable",
            SkipReason::Ignored => "ignored",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    pub path: String,
    pub reason: SkipReason,
}

/// A Go module found by the walk: the directory holding `go.mod` (relative, `""` for the
/// root) and the module path it declares.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GoModule {
    pub dir: String,
    pub module: String,
}

/// The module-resolution settings of one `tsconfig.json` or `jsconfig.json` found by the
/// walk: what `compilerOptions.paths` and `compilerOptions.baseUrl` make a bare TS/JS
/// specifier mean for the files below `dir`: its own settings, else those its `extends`
/// chain inside the tree sets (`tsconfig.base.json` in a monorepo; a base in `node_modules`
/// is not read).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TsPaths {
    /// The folder holding the config (relative, `""` for the root): it governs the files
    /// below it that no nearer config does.
    pub dir: String,
    /// The folder `paths` targets are relative to: `baseUrl` joined to the folder of the
    /// config that set it and normalized, or else the folder of the config that set
    /// `paths` (TypeScript 4.1+).
    pub base: String,
    /// Whether `baseUrl` was given: only then does a bare specifier also resolve from
    /// `base` (`import "app/x"` with `baseUrl: "src"`).
    pub base_url: bool,
    /// `paths`, sorted by pattern (matching does not depend on their order: the longest
    /// prefix wins): each pattern (`@app/*`, with at most one `*`) and its targets, tried in
    /// order.
    pub paths: Vec<(String, Vec<String>)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_up_only_definitions_are_named_by_what_they_are() {
        let def = |kind: DefKind, lookup_only: bool| Definition {
            name: "x".into(),
            kind,
            lines: LineRange { start: 1, end: 1 },
            signature: LineRange { start: 1, end: 1 },
            parent: None,
            scope_lines: Vec::new(),
            container: ContainerRef::NONE,
            declaration: false,
            lookup_only,
        };
        let field = def(DefKind::Field, true);
        let guard = def(DefKind::Constant, true);
        let function = def(DefKind::Function, false);
        assert_eq!(look_up_only_kind([&function]), None);
        assert_eq!(
            look_up_only_kind([&function, &field]),
            Some(LookUpOnly::Field)
        );
        assert_eq!(
            look_up_only_kind([&guard]).map(LookUpOnly::noun),
            Some("a macro without a value")
        );
        assert_eq!(
            look_up_only_kind([&guard, &field]).map(LookUpOnly::noun),
            Some("a field or a macro without a value")
        );
    }

    #[test]
    fn name_table_keeps_insertion_order_and_tolerates_bad_indexes() {
        let mut t = NameTable::new();
        assert!(t.is_empty());
        assert_eq!((t.push("alpha"), t.push(""), t.push("β")), (0, 1, 2));
        assert_eq!(t.len(), 3);
        assert_eq!(t.iter().collect::<Vec<_>>(), ["alpha", "", "β"]);
        assert_eq!((t.get(0), t.get(2), t.get(3)), ("alpha", "β", ""));
    }

    /// The container index costs a definition nothing: it fits in the padding after `kind`.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_definition_stays_96_bytes() {
        assert_eq!(std::mem::size_of::<Definition>(), 96);
        assert_eq!(std::mem::size_of::<Container>(), 32);
    }

    #[test]
    fn container_paths_follow_the_notation_and_stay_bounded() {
        let c = |name: &str, kind, notation, parent| Container {
            name: name.into(),
            kind,
            notation,
            parent,
        };
        let def = |name: &str, kind, container| Definition {
            name: name.into(),
            kind,
            lines: LineRange::new(1, 1),
            signature: LineRange::new(1, 1),
            parent: None,
            scope_lines: Vec::new(),
            container,
            declaration: false,
            lookup_only: false,
        };
        let ruby = FileTags {
            containers: vec![
                c(
                    "A",
                    ContainerKind::Type,
                    Notation::RubyModule,
                    ContainerRef::NONE,
                ),
                c(
                    "B",
                    ContainerKind::Type,
                    Notation::RubyModule,
                    ContainerRef::at(0),
                ),
                c(
                    "",
                    ContainerKind::Singleton,
                    Notation::RubySingleton,
                    ContainerRef::at(1),
                ),
            ],
            ..FileTags::default()
        };
        let m = def("m", DefKind::Method, ContainerRef::at(1));
        let s = def("s", DefKind::Method, ContainerRef::at(2));
        let k = def("K", DefKind::Constant, ContainerRef::at(1));
        assert_eq!(ruby.qualified_name(&m).as_deref(), Some("A::B#m"));
        assert_eq!(ruby.qualified_name(&s).as_deref(), Some("A::B.s"));
        assert_eq!(ruby.container(&s).as_deref(), Some("A::B"));
        assert_eq!(ruby.qualified_name(&k).as_deref(), Some("A::B::K"));
        let php = FileTags {
            containers: vec![
                c(
                    "Slim",
                    ContainerKind::Namespace,
                    Notation::PhpNamespace,
                    ContainerRef::NONE,
                ),
                c(
                    "App",
                    ContainerKind::Type,
                    Notation::PhpClass,
                    ContainerRef::at(0),
                ),
            ],
            ..FileTags::default()
        };
        let run = def("run", DefKind::Method, ContainerRef::at(1));
        assert_eq!(php.qualified_name(&run).as_deref(), Some("Slim\\App::run"));
        let top = def("main", DefKind::Function, ContainerRef::NONE);
        assert_eq!(
            (php.container(&top), php.qualified_name(&top)),
            (None, None)
        );
        // A damaged table: an index past the end is no container, a loop is cut short.
        let dangling = def("f", DefKind::Function, ContainerRef::at(7));
        assert_eq!(php.qualified_name(&dangling), None);
        let looped = FileTags {
            containers: vec![c(
                "x",
                ContainerKind::Type,
                Notation::Dot,
                ContainerRef::at(0),
            )],
            ..FileTags::default()
        };
        let f = def("f", DefKind::Method, ContainerRef::at(0));
        assert_eq!(
            looped.qualified_name(&f).as_deref(),
            Some("….x.x.x.x.x.x.x.x.f")
        );
    }

    #[test]
    fn ref_list_serialises_as_the_flat_layout() {
        // The cache stores RefLists: nesting the name table must not change the bytes.
        #[derive(Serialize)]
        struct Flat<'a> {
            names: &'a str,
            name_ends: Vec<u32>,
            items: Vec<PackedRef>,
        }
        let list = RefList::from(vec![Reference {
            name: "call_me".into(),
            kind: RefKind::Call,
            line: 3,
            qualifier: Some("obj".into()),
            receiver: None,
        }]);
        let flat = Flat {
            names: "call_meobj",
            name_ends: vec![7, 10],
            items: list.items.clone(),
        };
        assert_eq!(
            postcard::to_allocvec(&list).unwrap(),
            postcard::to_allocvec(&flat).unwrap()
        );
    }

    fn def_at(signature: (u32, u32), scope_lines: Vec<u32>) -> Definition {
        Definition {
            name: "f".into(),
            kind: DefKind::Function,
            lines: LineRange {
                start: signature.0,
                end: signature.1,
            },
            signature: LineRange {
                start: signature.0,
                end: signature.1,
            },
            parent: None,
            scope_lines,
            container: ContainerRef::NONE,
            declaration: false,
            lookup_only: false,
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// A file kept `for_map` answers as the whole file does for every line a map renders
        /// (each definition's signature, at most `MAP_SIGNATURE_LINES` of it, and its scope
        /// lines, wherever they fall), for each line's blankness and for the line count.
        #[test]
        fn a_map_file_keeps_every_line_a_map_renders(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["a", "  ", "\n", "\r\n", "\u{3000}", "x y", "\n\n"]),
                0..200,
            ),
            defs in proptest::collection::vec(
                ((0u32..90, 0u32..90), proptest::collection::vec(0u32..90, 0..3)),
                0..8,
            ),
        ) {
            let source: String = pieces.concat();
            let tags = Arc::new(FileTags {
                defs: defs.into_iter().map(|(sig, scope)| def_at(sig, scope)).collect(),
                ..FileTags::default()
            });
            let whole = ParsedFile::new("a.rs".into(), Lang::Rust, 0, Arc::from(source.as_str()), tags.clone());
            let map = ParsedFile::for_map("a.rs".into(), Lang::Rust, 0, &source, tags.clone());
            let count = whole.line_count();
            proptest::prop_assert_eq!(map.line_count(), count);
            for n in 0..=count + 1 {
                proptest::prop_assert_eq!(map.is_nonblank(n), whole.is_nonblank(n));
            }
            for d in &tags.defs {
                let sig_end = d.signature.end.min(d.signature.start.max(1) + MAP_SIGNATURE_LINES - 1);
                for n in d.scope_lines.iter().copied().chain(d.signature.start..=sig_end) {
                    proptest::prop_assert_eq!(map.line(n), whole.line(n), "line {}", n);
                }
            }
        }
    }
}
