//! Callers and callees of a definition, from a built index: who uses it (each use site with
//! the definition it sits in and how the use was bound) and what it uses (each use inside
//! its lines with the definitions it bound to). The graph keeps only sums per file pair and
//! identifier, so the query asks it which files bound a use of the name to the definition's
//! file (its edges and their identifiers), then re-runs the binding of just those files use
//! by use (`link::graph::bind_uses`) and reads the lines from each file's references.
//! Read-only: run on whichever thread holds the index (the CLI's main thread, the live
//! service's engine thread, the TUI session's engine thread).
//!
//! "Ambiguous", exactly: a use is ambiguous when the graph shared it among more than one
//! definition (several files, or several definitions of the name in one file: two `fallback`
//! methods of two types), or bound it by name only, without an import, a package or the
//! use's own file to say which (`UseBinding::is_guess`: a bare-name guess, a method guess on
//! a receiver of unknown type, a Go method of that name in the same package), or, for a use
//! in the definition's own file, qualified by a receiver that is not `self`/`this` (the
//! graph takes any `x.name()` there for the file's own `name`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rayon::prelude::*;

use crate::engine::base::model::{
    look_up_only_kind, DefKind, Definition, FileTags, Lang, LineRange, LookUpOnly, ParsedFile,
    RefKind, RefView,
};
use crate::engine::index::Index;
use crate::engine::link::graph::{bind_uses, Binding, BoundTarget, BoundUse};
use crate::engine::store::tags::read_links;

/// The most use sites a section (callers, callees) lists per definition.
pub const MAX_TOP: usize = 200;
/// The most definitions one name answers for (a name defined everywhere, `new`, `init`):
/// the rest are counted (`RefsAnswer::definitions_total`).
pub const MAX_DEFINITIONS: usize = 20;
/// The most definitions listed for one callee (the use's candidates are all counted).
pub const MAX_CALLEE_TARGETS: usize = 5;

/// What to answer for: definitions found by name, or the one whose lines hold a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefTarget {
    /// `NAME`, `Type::NAME` / `Type.NAME` / `Type#NAME` (a member of that type, by its
    /// enclosing definition), or `path:NAME` (the definitions of that name in one file).
    Name { path: Option<String>, name: String },
    /// `FILE:LINE`: the innermost definition whose lines hold `line`.
    At { path: String, line: u32 },
}

impl RefTarget {
    /// `NAME`, `path:NAME` or `FILE:LINE`. The path is split off at the first single `:`
    /// (`Router::fallback` is a name, `src/a.rs:Router::fallback` a path and a name).
    pub fn parse(text: &str) -> Result<RefTarget, RefsError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(RefsError::Invalid(
                "the target is empty: give NAME, path:NAME or FILE:LINE".into(),
            ));
        }
        let Some(colon) = single_colon(text) else {
            return Ok(RefTarget::Name {
                path: None,
                name: text.to_string(),
            });
        };
        let (path, rest) = (&text[..colon], text[colon + 1..].trim());
        if path.is_empty() || rest.is_empty() {
            return Err(RefsError::Invalid(format!(
                "`{text}` is neither NAME, path:NAME nor FILE:LINE"
            )));
        }
        if rest.bytes().all(|b| b.is_ascii_digit()) {
            return match rest.parse::<u32>() {
                Ok(line) if line > 0 => Ok(RefTarget::At {
                    path: path.to_string(),
                    line,
                }),
                _ => Err(RefsError::Invalid(format!(
                    "line `{rest}` of `{path}` is not a line number (1 or more)"
                ))),
            };
        }
        Ok(RefTarget::Name {
            path: Some(path.to_string()),
            name: rest.to_string(),
        })
    }
}

impl std::fmt::Display for RefTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RefTarget::Name { path: None, name } => write!(f, "{name}"),
            RefTarget::Name {
                path: Some(path),
                name,
            } => write!(f, "{path}:{name}"),
            RefTarget::At { path, line } => write!(f, "{path}:{line}"),
        }
    }
}

/// The byte offset of the first `:` that is not part of a `::`.
fn single_colon(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len()).find(|&i| {
        bytes[i] == b':' && bytes.get(i + 1) != Some(&b':') && (i == 0 || bytes[i - 1] != b':')
    })
}

/// Which sections to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    Callers,
    Callees,
    #[default]
    Both,
}

impl Direction {
    pub const NAMES: &'static [&'static str] = &["both", "callers", "callees"];

    pub fn parse(name: &str) -> Option<Direction> {
        match name.trim().to_ascii_lowercase().as_str() {
            "both" => Some(Direction::Both),
            "callers" | "users" => Some(Direction::Callers),
            "callees" | "uses" => Some(Direction::Callees),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Direction::Both => "both",
            Direction::Callers => "callers",
            Direction::Callees => "callees",
        }
    }

    pub fn callers(self) -> bool {
        self != Direction::Callees
    }

    pub fn callees(self) -> bool {
        self != Direction::Callers
    }
}

/// A callers/callees query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefsRequest {
    pub target: RefTarget,
    pub direction: Direction,
    /// Use sites listed per section and definition (1 … `MAX_TOP`; the counts are whole).
    pub top: usize,
}

/// Why a query has no answer: `INVALID_ARGUMENT` (a target that cannot be read) or
/// `NOT_FOUND` (no indexed file of that path, no definition of that name or at that line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefsError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    NotFound(String),
}

impl RefsError {
    pub fn code(&self) -> &'static str {
        match self {
            RefsError::Invalid(_) => "INVALID_ARGUMENT",
            RefsError::NotFound(_) => "NOT_FOUND",
        }
    }
}

/// How a use was bound to a definition: the graph's binding classes, with "resolved" told
/// apart (an import, or the package without one) and the uses the graph draws no edge for
/// (the definition's own file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum UseBinding {
    /// Through an import: a named or namespace import, a wildcard import or include, a Go
    /// package qualifier.
    Import,
    /// Without an import, in the same package: Go's package, Java's (its directory).
    SamePackage,
    /// In the use's own file (no edge in the graph: a file's own names are its own).
    SameFile,
    /// `Imported.member`: a member looked up in the file defining the imported name.
    Member,
    /// A member of the receiver's type (or an ancestor's), the type as the file states it:
    /// `self.m()` in a class, `c.m()` with `c` declared or constructed as a type.
    Typed,
    /// The import's module, which has no definition of the name (callees only).
    Module,
    /// Go: a method of that name in the same package; the receiver's type is unknown.
    PackageMethod,
    /// A guess by the bare name among the few files defining it.
    NameGuess,
    /// A guess by name for `x.method()` where `x` is not an import (any type's method).
    MethodGuess,
}

impl UseBinding {
    pub const ALL: [UseBinding; 9] = [
        UseBinding::Import,
        UseBinding::SamePackage,
        UseBinding::SameFile,
        UseBinding::Member,
        UseBinding::Typed,
        UseBinding::Module,
        UseBinding::PackageMethod,
        UseBinding::NameGuess,
        UseBinding::MethodGuess,
    ];

    /// The contract's name.
    pub fn name(self) -> &'static str {
        match self {
            UseBinding::Import => "import",
            UseBinding::SamePackage => "same_package",
            UseBinding::SameFile => "same_file",
            UseBinding::Member => "member",
            UseBinding::Typed => "typed",
            UseBinding::Module => "module",
            UseBinding::PackageMethod => "package_method",
            UseBinding::NameGuess => "name_guess",
            UseBinding::MethodGuess => "method_guess",
        }
    }

    /// In words, for text output (`(import)`, `(guess by name)`).
    pub fn words(self) -> &'static str {
        match self {
            UseBinding::Import => "import",
            UseBinding::SamePackage => "same package",
            UseBinding::SameFile => "same file",
            UseBinding::Member => "member",
            UseBinding::Typed => "receiver's type",
            UseBinding::Module => "module",
            UseBinding::PackageMethod => "package method",
            UseBinding::NameGuess => "guess by name",
            UseBinding::MethodGuess => "method guess",
        }
    }

    /// Bound by name only: nothing but the name says which definition it is.
    pub fn is_guess(self) -> bool {
        matches!(
            self,
            UseBinding::PackageMethod | UseBinding::NameGuess | UseBinding::MethodGuess
        )
    }
}

/// A definition, where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefSite {
    pub path: String,
    pub name: String,
    pub kind: DefKind,
    pub lines: LineRange,
    /// The innermost enclosing definition's name (a method's class), if any.
    pub parent: Option<String>,
    /// Its container path and its name qualified by it, in the language's notation
    /// (`FileTags::container`, `FileTags::qualified_name`: `Router`, `Router::fallback`);
    /// `None` at the top level.
    pub container: Option<String>,
    pub qualified_name: Option<String>,
    /// In supporting code (tests, fixtures, examples: `FileGraph::is_supporting`).
    pub test: bool,
}

/// The definition a use sits in (the caller, for a caller's use site).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enclosing {
    pub name: String,
    /// `Type::name`, `pkg.T.M`…; `None` at the top level of its file.
    pub qualified_name: Option<String>,
    pub kind: DefKind,
    pub lines: LineRange,
}

/// One use of a name: a caller's use of the definition, or a use inside the definition.
#[derive(Debug, Clone, PartialEq)]
pub struct UseSite {
    pub path: String,
    pub line: u32,
    pub kind: RefKind,
    /// The name as written there (an alias, for an aliased import).
    pub name: String,
    /// `obj` of `obj.name()`, when it is a plain identifier.
    pub qualifier: Option<String>,
    /// The innermost definition holding the line; `None` at the top level.
    pub enclosing: Option<Enclosing>,
    /// The strongest of its bindings.
    pub binding: UseBinding,
    /// See the module header.
    pub ambiguous: bool,
    /// Definitions the use was shared among (1 for a use bound to one definition).
    pub candidates: usize,
    /// What the use adds to the graph's weights (kind × binding class / split); the
    /// definition's own file counts as resolved.
    pub strength: f64,
    /// In supporting code (tests, fixtures, examples).
    pub test: bool,
    /// For a callee: the definitions it bound to, strongest first (at most
    /// `MAX_CALLEE_TARGETS`; `candidates` counts them all). Empty for a caller.
    pub definitions: Vec<DefSite>,
}

/// One definition's callers and callees.
#[derive(Debug, Clone, PartialEq)]
pub struct RefsGroup {
    pub definition: DefSite,
    /// Implementation before tests, then strongest first, then by path and line; at most
    /// `top`.
    pub callers: Vec<UseSite>,
    pub callers_total: usize,
    /// In source order; at most `top`.
    pub callees: Vec<UseSite>,
    pub callees_total: usize,
    /// Uses inside the definition bound to nothing in the repository (builtins, external
    /// packages, locals the tags cannot tell apart).
    pub callees_unbound: usize,
}

/// The answer: a group per definition the target names.
#[derive(Debug, Clone, PartialEq)]
pub struct RefsAnswer {
    pub target: RefTarget,
    pub direction: Direction,
    pub top: usize,
    /// Implementation before tests, then by path and line; at most `MAX_DEFINITIONS`.
    pub groups: Vec<RefsGroup>,
    /// Definitions the target named, before the cap.
    pub definitions_total: usize,
    /// What the answer should be read with (several definitions, a qualifier that matched
    /// nothing), one line each.
    pub notes: Vec<String>,
}

impl RefsAnswer {
    /// The target named more than one definition.
    pub fn ambiguous_name(&self) -> bool {
        self.definitions_total > 1
    }
}

/// A definition by (file, index in its `defs`).
type DefId = (usize, usize);

impl Index {
    /// Who uses the definitions `req.target` names, and what they use (see the module
    /// header). `NOT_FOUND` when it names none.
    pub fn references(&self, req: &RefsRequest) -> Result<RefsAnswer, RefsError> {
        self.references_among(std::slice::from_ref(&req.target), req.direction, req.top)
    }

    /// `references` for every definition any of `targets` names (the TUI's map file: the
    /// definitions it shows), each once; `NOT_FOUND` only when none names one (the first
    /// refusal), a note for each other that does not. The answer's `target` is the first.
    pub fn references_among(
        &self,
        targets: &[RefTarget],
        direction: Direction,
        top: usize,
    ) -> Result<RefsAnswer, RefsError> {
        let Some(first) = targets.first() else {
            return Err(RefsError::Invalid("no target to answer for".into()));
        };
        let top = top.clamp(1, MAX_TOP);
        let mut notes = Vec::new();
        let mut defs: Vec<DefId> = Vec::new();
        let mut refused = None;
        for target in targets {
            match self.find_definitions(target, &mut notes) {
                Ok(found) => defs.extend(found),
                Err(e) if targets.len() > 1 => {
                    notes.push(e.to_string());
                    refused.get_or_insert(e);
                }
                Err(e) => return Err(e),
            }
        }
        if defs.is_empty() {
            return Err(refused
                .unwrap_or_else(|| RefsError::NotFound(format!("no definition named `{first}`"))));
        }
        defs.sort_unstable();
        defs.dedup();
        let target = first;
        defs.sort_by_key(|&(f, d)| {
            let def = &self.files[f].tags.defs[d];
            (
                self.graph.is_supporting(f),
                self.files[f].path.as_str(),
                def.lines.start,
                def.lines.end,
            )
        });
        let definitions_total = defs.len();
        if definitions_total > 1 && targets.len() == 1 {
            notes.push(format!(
                "`{target}` names {definitions_total} definitions: each is answered on its own"
            ));
        }
        if definitions_total > MAX_DEFINITIONS {
            notes.push(format!(
                "only the first {MAX_DEFINITIONS} are listed (implementation first); name \
                 one as path:NAME or FILE:LINE"
            ));
            defs.truncate(MAX_DEFINITIONS);
        }
        let bound = self.bound_uses_for(&defs, direction);
        let groups = defs
            .iter()
            .map(|&def| self.group(def, direction, top, &bound))
            .collect();
        Ok(RefsAnswer {
            target: target.clone(),
            direction,
            top,
            groups,
            definitions_total,
            notes,
        })
    }

    /// The definitions `target` names, unordered.
    fn find_definitions(
        &self,
        target: &RefTarget,
        notes: &mut Vec<String>,
    ) -> Result<Vec<DefId>, RefsError> {
        let file_of = |path: &str| {
            self.resolve_user_path(path)
                .ok_or_else(|| RefsError::NotFound(format!("`{path}` is not an indexed code file")))
        };
        match target {
            RefTarget::At { path, line } => {
                let f = file_of(path)?;
                innermost(&self.files[f].tags.defs, *line)
                    .map(|d| vec![(f, d)])
                    .ok_or_else(|| {
                        RefsError::NotFound(format!("no definition holds line {line} of `{path}`"))
                    })
            }
            RefTarget::Name { path, name } => {
                let (owner, bare) = split_qualified(name);
                let files: Vec<usize> = match path {
                    Some(p) => vec![file_of(p)?],
                    None => self.files_defining(bare),
                };
                let named_in = |files: Vec<usize>| -> Vec<DefId> {
                    files
                        .into_iter()
                        .flat_map(|f| {
                            self.files[f]
                                .tags
                                .defs
                                .iter()
                                .enumerate()
                                .filter(|(_, d)| d.name == bare)
                                .map(move |(d, _)| (f, d))
                        })
                        .collect()
                };
                let mut named = named_in(files);
                if named.is_empty() && path.is_none() {
                    // Look-up-only definitions (struct fields, valueless macros) are in no
                    // definer table: every file is looked through for them.
                    named = named_in((0..self.files.len()).collect());
                }
                let kind =
                    look_up_only_kind(named.iter().map(|&(f, d)| &self.files[f].tags.defs[d]));
                if let Some(kind) = kind {
                    // A field's uses elsewhere are `x.name`, any type's member of that
                    // name; a valueless macro is tested (`#ifdef`), never bound.
                    let why = if kind == LookUpOnly::Field {
                        format!("other files' `x.{bare}` may be any type's member of that name")
                    } else {
                        "nothing binds to it from another file".to_string()
                    };
                    notes.push(format!(
                        "`{bare}` is {}: only its own file's uses of the name are listed, as \
                         {why}",
                        kind.noun()
                    ));
                }
                let Some(owner) = owner else {
                    return non_empty(named, target);
                };
                let owned: Vec<DefId> = named
                    .iter()
                    .copied()
                    .filter(|&(f, d)| self.files[f].tags.defs[d].parent.as_deref() == Some(owner))
                    .collect();
                if owned.is_empty() && !named.is_empty() {
                    notes.push(format!(
                        "no `{bare}` is defined in a definition named `{owner}`: every `{bare}` \
                         is answered"
                    ));
                    return Ok(named);
                }
                non_empty(owned, target)
            }
        }
    }

    /// The files that define `name` (the graph's table; every file when it has none).
    fn files_defining(&self, name: &str) -> Vec<usize> {
        if self.graph.node_count() != self.files.len() {
            return (0..self.files.len()).collect();
        }
        match self.graph.ident_id(name) {
            Some(id) => self
                .graph
                .ident_files
                .row(id as usize)
                .iter()
                .map(|&f| f as usize)
                .collect(),
            None => Vec::new(),
        }
    }

    /// Each file whose uses the groups read, bound use by use: the definitions' own files,
    /// and for callers the files the graph says bound a use of the name to them.
    fn bound_uses_for(&self, defs: &[DefId], direction: Direction) -> BTreeMap<usize, FileUses> {
        let mut which: BTreeSet<usize> = defs.iter().map(|&(f, _)| f).collect();
        if direction.callers() {
            for &(f, d) in defs {
                which.extend(self.user_files(f, &self.files[f].tags.defs[d].name));
            }
        }
        let which: Vec<usize> = which.into_iter().collect();
        let bound = bind_uses(
            self.linked_files(),
            &self.go_modules,
            &self.ts_paths,
            &which,
        );
        which
            .into_iter()
            .zip(bound)
            .map(|(f, uses)| (f, FileUses::new(uses)))
            .collect()
    }

    /// The files with every reference and import decoded, for the binding re-run: the
    /// index's own, or, when its build left some undecoded (`IndexOptions::lazy_links`),
    /// copies with them read (once per index).
    fn linked_files(&self) -> &[ParsedFile] {
        if self.files.iter().all(|f| f.unread_links.is_none()) {
            return &self.files;
        }
        self.linked.get_or_init(|| {
            self.files
                .par_iter()
                .map(|f| {
                    let mut f = f.clone();
                    // An entry that does not decode is left without references, as a
                    // graph build leaves it.
                    let _ = read_links(&mut f);
                    f
                })
                .collect()
        })
    }

    /// The files with an edge into `file` that identifier `name` produced.
    fn user_files(&self, file: usize, name: &str) -> Vec<usize> {
        self.graph
            .incoming(file)
            .into_iter()
            .filter(|&(src, e)| {
                src != file && self.graph.edge_idents(e).iter().any(|(n, _)| *n == name)
            })
            .map(|(src, _)| src)
            .collect()
    }

    fn def_site(&self, (f, d): DefId) -> DefSite {
        let file = &self.files[f];
        let def = &file.tags.defs[d];
        DefSite {
            path: file.path.clone(),
            name: def.name.clone(),
            kind: def.kind,
            lines: def.lines,
            parent: def.parent.clone(),
            container: file.tags.container(def),
            qualified_name: file.tags.qualified_name(def),
            test: self.graph.is_supporting(f),
        }
    }

    /// The definitions of `name` in file `f`.
    fn defs_named(&self, f: usize, name: &str) -> Vec<DefId> {
        self.files.get(f).map_or_else(Vec::new, |file| {
            file.tags
                .defs
                .iter()
                .enumerate()
                .filter(|(_, d)| d.name == name)
                .map(|(d, _)| (f, d))
                .collect()
        })
    }

    fn group(
        &self,
        def: DefId,
        direction: Direction,
        top: usize,
        bound: &BTreeMap<usize, FileUses>,
    ) -> RefsGroup {
        let mut group = RefsGroup {
            definition: self.def_site(def),
            callers: Vec::new(),
            callers_total: 0,
            callees: Vec::new(),
            callees_total: 0,
            callees_unbound: 0,
        };
        if direction.callers() {
            let mut callers = self.callers(def, bound);
            callers.sort_by(|a, b| {
                a.test
                    .cmp(&b.test)
                    .then(b.strength.total_cmp(&a.strength))
                    .then_with(|| a.path.cmp(&b.path))
                    .then(a.line.cmp(&b.line))
                    .then_with(|| a.name.cmp(&b.name))
            });
            group.callers_total = callers.len();
            callers.truncate(top);
            group.callers = callers;
        }
        if direction.callees() {
            let (mut callees, unbound) = self.callees(def, bound);
            group.callees_total = callees.len();
            group.callees_unbound = unbound;
            callees.truncate(top);
            group.callees = callees;
        }
        group
    }

    /// Every use bound to definition `(t, d)`: from the files binding sent one to its file
    /// under its name, and the uses of its name in its own file.
    fn callers(&self, (t, d): DefId, bound: &BTreeMap<usize, FileUses>) -> Vec<UseSite> {
        let name = self.files[t].tags.defs[d].name.as_str();
        let mut out = Vec::new();
        for (&s, uses) in bound {
            let file = &self.files[s];
            for r in file.refs() {
                let Some(u) = uses.find(r) else {
                    continue;
                };
                let site = if s == t {
                    if r.name != name || !u.targets.is_empty() || imports_name(file, r) {
                        continue;
                    }
                    self.same_file_use(s, r.line, r.kind, r.name, r.qualifier)
                } else {
                    let hits: Vec<&BoundTarget> = u
                        .targets
                        .iter()
                        .filter(|x| x.file == t && x.name == name)
                        .collect();
                    if hits.is_empty() {
                        continue;
                    }
                    let (binding, strength) = strongest(self, s, r.qualifier, r.name, &hits);
                    let candidates: usize = u
                        .targets
                        .iter()
                        .map(|x| self.defs_named(x.file, &x.name).len().max(1))
                        .sum();
                    UseSite {
                        path: file.path.clone(),
                        line: r.line,
                        kind: r.kind,
                        name: r.name.to_string(),
                        qualifier: r.qualifier.map(str::to_string),
                        enclosing: enclosing(&file.tags, r.line),
                        binding,
                        ambiguous: binding.is_guess() || candidates > 1,
                        candidates,
                        strength,
                        test: self.graph.is_supporting(s),
                        definitions: Vec::new(),
                    }
                };
                out.push(site);
            }
        }
        out
    }

    /// A use in file `s` of a name `s` defines, which the graph leaves in the file.
    fn same_file_use(
        &self,
        s: usize,
        line: u32,
        kind: RefKind,
        name: &str,
        qualifier: Option<&str>,
    ) -> UseSite {
        let file = &self.files[s];
        let candidates = self.defs_named(s, name).len().max(1);
        let own_receiver = qualifier.is_none_or(is_own_receiver);
        UseSite {
            path: file.path.clone(),
            line,
            kind,
            name: name.to_string(),
            qualifier: qualifier.map(str::to_string),
            enclosing: enclosing(&file.tags, line),
            binding: UseBinding::SameFile,
            ambiguous: candidates > 1 || !own_receiver,
            candidates,
            strength: kind_strength(kind),
            test: self.graph.is_supporting(s),
            definitions: Vec::new(),
        }
    }

    /// The uses inside definition `(t, d)` that bound to a definition, in source order, and
    /// how many bound to nothing.
    fn callees(&self, (t, d): DefId, bound: &BTreeMap<usize, FileUses>) -> (Vec<UseSite>, usize) {
        let file = &self.files[t];
        let lines = file.tags.defs[d].lines;
        let Some(uses) = bound.get(&t) else {
            return (Vec::new(), 0);
        };
        let mut out = Vec::new();
        let mut unbound = 0;
        for r in file.refs() {
            if !lines.contains(r.line) {
                continue;
            }
            let Some(u) = uses.find(r) else {
                continue;
            };
            if u.targets.is_empty() {
                let own = self.defs_named(t, r.name);
                if own.is_empty() || imports_name(file, r) {
                    unbound += 1;
                    continue;
                }
                let mut site = self.same_file_use(t, r.line, r.kind, r.name, r.qualifier);
                site.definitions = own
                    .into_iter()
                    .take(MAX_CALLEE_TARGETS)
                    .map(|id| self.def_site(id))
                    .collect();
                out.push(site);
                continue;
            }
            let hits: Vec<&BoundTarget> = u.targets.iter().collect();
            let (binding, strength) = strongest(self, t, r.qualifier, r.name, &hits);
            // Strongest target first, then by path: the definitions each credits.
            let mut order: Vec<&BoundTarget> = hits.clone();
            order.sort_by(|a, b| {
                b.weight
                    .total_cmp(&a.weight)
                    .then_with(|| self.files[a.file].path.cmp(&self.files[b.file].path))
            });
            let targets: Vec<DefId> = order
                .iter()
                .flat_map(|x| self.defs_named(x.file, &x.name))
                .collect();
            let candidates = targets.len().max(1);
            out.push(UseSite {
                path: file.path.clone(),
                line: r.line,
                kind: r.kind,
                name: r.name.to_string(),
                qualifier: r.qualifier.map(str::to_string),
                enclosing: enclosing(&file.tags, r.line),
                binding,
                ambiguous: binding.is_guess() || candidates > 1,
                candidates,
                strength,
                test: self.graph.is_supporting(t),
                definitions: targets
                    .into_iter()
                    .take(MAX_CALLEE_TARGETS)
                    .map(|id| self.def_site(id))
                    .collect(),
            });
        }
        (out, unbound)
    }
}

/// `Ok(defs)`, or `NOT_FOUND` naming the target.
fn non_empty(defs: Vec<DefId>, target: &RefTarget) -> Result<Vec<DefId>, RefsError> {
    if defs.is_empty() {
        let what = match target {
            RefTarget::Name {
                path: Some(p),
                name,
            } => format!("no definition named `{name}` in `{p}`"),
            _ => format!("no definition named `{target}`"),
        };
        return Err(RefsError::NotFound(what));
    }
    Ok(defs)
}

/// `Type::name`, `Type.name`, `Type#name`, `pkg\Type::name` → (`Type`, `name`): the owner is
/// the last part of the qualifier (what a definition's `parent` holds).
fn split_qualified(name: &str) -> (Option<&str>, &str) {
    let cut = ["::", "#", ".", "\\"]
        .iter()
        .filter_map(|sep| name.rfind(sep).map(|i| (i, sep.len())))
        .max_by_key(|&(i, _)| i);
    let Some((i, len)) = cut else {
        return (None, name);
    };
    let (qualifier, bare) = (&name[..i], &name[i + len..]);
    if bare.is_empty() || qualifier.is_empty() {
        return (None, name);
    }
    let owner = ["::", "#", ".", "\\"]
        .iter()
        .filter_map(|sep| qualifier.rfind(sep).map(|j| j + sep.len()))
        .max()
        .map_or(qualifier, |j| &qualifier[j..]);
    (Some(owner).filter(|o| !o.is_empty()), bare)
}

/// The innermost definition whose lines hold `line` (the shortest; the later one on a tie).
fn innermost(defs: &[Definition], line: u32) -> Option<usize> {
    defs.iter()
        .enumerate()
        .filter(|(_, d)| d.lines.contains(line))
        .min_by(|(_, a), (_, b)| {
            (a.lines.end.saturating_sub(a.lines.start))
                .cmp(&b.lines.end.saturating_sub(b.lines.start))
                .then(b.lines.start.cmp(&a.lines.start))
        })
        .map(|(i, _)| i)
}

fn enclosing(tags: &FileTags, line: u32) -> Option<Enclosing> {
    innermost(&tags.defs, line).map(|i| {
        let def = &tags.defs[i];
        Enclosing {
            name: def.name.clone(),
            qualified_name: tags.qualified_name(def),
            kind: def.kind,
            lines: def.lines,
        }
    })
}

/// `self.x()`, `this.x()`, `Self::x()`, `cls.x()`, `@x` (Ruby's receiver is implicit): the
/// file's own definition is meant.
fn is_own_receiver(q: &str) -> bool {
    matches!(
        q,
        "self" | "this" | "Self" | "cls" | "super" | "static" | "parent"
    )
}

/// Whether the file imports the name `r` uses (or its qualifier): then a use that bound
/// nowhere went to an external module, not to the file's own definition.
fn imports_name(file: &ParsedFile, r: crate::engine::base::model::RefView<'_>) -> bool {
    if r.kind == RefKind::Import {
        return true;
    }
    let bound = |name: &str| {
        file.imports().iter().any(|imp| {
            imp.namespace.as_deref() == Some(name)
                || imp
                    .names
                    .iter()
                    .any(|n| n.alias.as_deref().unwrap_or(&n.name) == name)
        })
    };
    match r.qualifier {
        Some(q) => bound(q),
        None => bound(r.name),
    }
}

/// The strength of a use in its own file: its kind's weight, as a resolved use's.
fn kind_strength(kind: RefKind) -> f64 {
    match kind {
        RefKind::Heritage => 2.0,
        RefKind::Call | RefKind::Type => 1.0,
        RefKind::Reference | RefKind::Import => 0.5,
    }
}

/// The strongest binding among `hits` (one use's targets), and their summed weight.
fn strongest(
    index: &Index,
    from: usize,
    qualifier: Option<&str>,
    name: &str,
    hits: &[&BoundTarget],
) -> (UseBinding, f64) {
    let best = hits.iter().max_by(|a, b| {
        a.weight
            .total_cmp(&b.weight)
            .then(b.binding.cmp(&a.binding))
    });
    let binding = best.map_or(UseBinding::NameGuess, |x| {
        use_binding(index, from, x, qualifier, name)
    });
    (binding, hits.iter().map(|x| x.weight).sum())
}

/// The graph's binding class of a use in file `from`, with "resolved" told apart: without an
/// import, a Go or Java use of a name in the same directory is the package's.
fn use_binding(
    index: &Index,
    from: usize,
    target: &BoundTarget,
    qualifier: Option<&str>,
    name: &str,
) -> UseBinding {
    match target.binding {
        Binding::Resolved => {
            let file = &index.files[from];
            let same_dir = |a: &str, b: &str| {
                a.rsplit_once('/').map(|x| x.0) == b.rsplit_once('/').map(|x| x.0)
            };
            let package_lang = matches!(file.lang, Lang::Go | Lang::Java);
            let imported = file.imports().iter().any(|imp| {
                imp.names
                    .iter()
                    .any(|n| n.alias.as_deref().unwrap_or(&n.name) == name)
            });
            let target_path = index.files.get(target.file).map_or("", |f| f.path.as_str());
            if package_lang && qualifier.is_none() && !imported && same_dir(&file.path, target_path)
            {
                UseBinding::SamePackage
            } else {
                UseBinding::Import
            }
        }
        Binding::Member => UseBinding::Member,
        Binding::Typed => UseBinding::Typed,
        Binding::ModuleOnly => UseBinding::Module,
        Binding::PackageMethod => UseBinding::PackageMethod,
        Binding::Fallback => UseBinding::NameGuess,
        Binding::MethodFallback => UseBinding::MethodGuess,
    }
}

/// A bound use's key: (name, kind, qualifier, receiver).
type UseKey = (String, RefKind, Option<String>, Option<String>);

/// One file's bound uses, looked up by (name, kind, qualifier, receiver), import statements'
/// names by (line, name).
struct FileUses {
    uses: Vec<BoundUse>,
    by_key: HashMap<UseKey, usize>,
}

impl FileUses {
    fn new(uses: Vec<BoundUse>) -> FileUses {
        let by_key = uses
            .iter()
            .enumerate()
            .filter(|(_, u)| u.import.is_none())
            .map(|(i, u)| {
                let key = (
                    u.name.clone(),
                    u.kind,
                    u.qualifier.clone(),
                    u.receiver.clone(),
                );
                (key, i)
            })
            .collect();
        FileUses { uses, by_key }
    }

    /// The bound use a reference is: an import statement's name by its line and name (the
    /// imported or the local one), anything else by (name, kind, qualifier, receiver).
    fn find(&self, r: RefView<'_>) -> Option<&BoundUse> {
        let (name, kind, qualifier, line) = (r.name, r.kind, r.qualifier, r.line);
        if kind == RefKind::Import {
            let named = |u: &&BoundUse| {
                u.import
                    .as_ref()
                    .is_some_and(|(_, alias)| u.name == name || alias.as_deref() == Some(name))
            };
            let imports = || self.uses.iter().filter(|u| u.import.is_some());
            return imports()
                .filter(named)
                .find(|u| u.import.as_ref().is_some_and(|(l, _)| *l == line))
                .or_else(|| imports().find(named));
        }
        let key = (
            name.to_string(),
            kind,
            qualifier.map(str::to_string),
            r.receiver.map(str::to_string),
        );
        self.by_key.get(&key).and_then(|&i| self.uses.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::index::IndexOptions;

    fn index_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Index) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        let index = Index::build(dir.path(), &IndexOptions::default()).unwrap();
        (dir, index)
    }

    fn refs(index: &Index, target: &str, direction: Direction) -> RefsAnswer {
        index
            .references(&RefsRequest {
                target: RefTarget::parse(target).unwrap(),
                direction,
                top: MAX_TOP,
            })
            .unwrap()
    }

    /// `path:line caller (binding)` per caller of the answer's first group.
    fn callers(a: &RefsAnswer) -> Vec<String> {
        a.groups[0]
            .callers
            .iter()
            .map(|u| {
                format!(
                    "{}:{} {} ({}{})",
                    u.path,
                    u.line,
                    u.enclosing.as_ref().map_or("-", |e| e.name.as_str()),
                    u.binding.name(),
                    if u.ambiguous { ", ambiguous" } else { "" }
                )
            })
            .collect()
    }

    /// Binding each use on its own gives the graph's edges back: the same (target file,
    /// identifier) pairs out of every file, with the same weights once the uses are
    /// counted, on real tags of every language (the re-export `*` aside: a module's
    /// `export *` is no use of a definition).
    #[test]
    fn use_by_use_binding_adds_up_to_the_graph() {
        let (_dir, index) = index_of(&[
            ("java/src/org/demo/core/Engine.java", "package org.demo.core;\n\npublic class Engine {\n    public int run() { return 1; }\n}\n"),
            ("java/src/org/demo/app/Main.java", "package org.demo.app;\n\nimport org.demo.core.Engine;\n\npublic class Main {\n    public int go() { Engine e = new Engine(); return e.run(); }\n    public Helper h() { return new Helper(); }\n}\n"),
            ("java/src/org/demo/app/Helper.java", "package org.demo.app;\n\npublic class Helper {}\n"),
            ("cs/Core/Store.cs", "namespace Demo.Core {\n    public class Store { public int Load() { return 1; } }\n}\n"),
            ("cs/App/Program.cs", "using Demo.Core;\nnamespace Demo.App {\n    public class Program { public int Main() { var s = new Store(); return s.Load(); } }\n}\n"),
            ("php/src/Core/Cache.php", "<?php\nnamespace Demo\\Core;\n\nclass Cache {\n    public function get() { return 1; }\n}\n"),
            ("php/src/App/Page.php", "<?php\nnamespace Demo\\App;\n\nuse Demo\\Core\\Cache;\n\nclass Page {\n    public function show() { $c = new Cache(); return $c->get(); }\n}\n"),
            ("rs/src/lib.rs", "pub mod store;\npub fn top() -> u32 { store::load() + store::load() }\n"),
            ("rs/src/store.rs", "pub fn load() -> u32 { 1 }\n"),
            ("go/go.mod", "module example.com/m\n"),
            ("go/a/a.go", "package a\n\nfunc Load() int { return 1 }\n"),
            ("go/a/b.go", "package a\n\nfunc Twice() int { return Load() + Load() }\n"),
            ("go/b/b.go", "package b\n\nimport \"example.com/m/a\"\n\nfunc Use() int { return a.Load() }\n"),
            ("rb/lib/store.rb", "module Demo\n  class Store\n    def load\n      1\n    end\n  end\nend\n"),
            ("rb/lib/app.rb", "require_relative 'store'\n\nclass App\n  def run\n    Demo::Store.new.load\n  end\nend\n"),
            ("c/store.h", "int store_load(void);\n"),
            ("c/main.c", "#include \"store.h\"\nint main(void) { return store_load() + store_load(); }\n"),
            ("py/pkg/store.py", "def load():\n    return 1\n\n\ndef _hidden():\n    return 2\n"),
            ("py/pkg/app.py", "from .store import load, _hidden\n\ndef run():\n    return load() + load() + _hidden()\n"),
            ("py/pkg/guess.py", "def other(x):\n    return x.load_all_things() + wander()\n"),
            ("py/pkg/things.py", "class T:\n    def load_all_things(self):\n        return 1\n\n\ndef wander():\n    return 0\n"),
            ("ts/store.ts", "export function load(): number { return 1 }\nexport const unit = 1\n"),
            ("ts/index.ts", "export * from './store'\n"),
            ("ts/app.ts", "import { load } from './store'\nimport * as s from './store'\nexport function run(): number { return load() + s.unit }\n"),
        ]);
        let n = index.files.len();
        let all: Vec<usize> = (0..n).collect();
        let bound = bind_uses(&index.files, &index.go_modules, &index.ts_paths, &all);
        let mut edges_seen = 0;
        for (s, uses) in bound.iter().enumerate() {
            let file_uses = FileUses::new(uses.clone());
            // Per (target, identifier, binding): summed kind weight, and the factor a
            // use's weight has on top of its kind's.
            let mut sums: BTreeMap<(usize, String, Binding), (f64, f64)> = BTreeMap::new();
            let mut add = |u: &BoundUse| {
                for t in &u.targets {
                    let k = kind_strength(u.kind);
                    let e = sums
                        .entry((t.file, t.name.clone(), t.binding))
                        .or_insert((0.0, t.weight / k));
                    e.0 += k;
                }
            };
            for r in &index.files[s].tags.refs {
                if r.kind != RefKind::Import {
                    add(file_uses.find(r).unwrap());
                }
            }
            for u in uses.iter().filter(|u| u.import.is_some()) {
                add(u);
            }
            let mut expected: BTreeMap<(usize, String), f64> = BTreeMap::new();
            for ((t, name, _), (sum, factor)) in sums {
                *expected.entry((t, name)).or_default() += sum.sqrt() * factor;
            }
            let mut graph: BTreeMap<(usize, String), f64> = BTreeMap::new();
            for (t, e) in index.graph.outgoing(s) {
                for (name, w) in index.graph.edge_idents(e) {
                    if name != "*" {
                        graph.insert((t, name.to_string()), w);
                    }
                }
            }
            let keys = |m: &BTreeMap<(usize, String), f64>| m.keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(&expected), keys(&graph), "{}", index.files[s].path);
            for (k, w) in &graph {
                assert!(
                    (expected[k] - w).abs() < 1e-9,
                    "{}: {k:?}",
                    index.files[s].path
                );
            }
            edges_seen += graph.len();
        }
        assert!(edges_seen >= 10, "{edges_seen}");
    }

    #[test]
    fn targets_parse_as_names_paths_and_lines() {
        let name = |p: Option<&str>, n: &str| RefTarget::Name {
            path: p.map(str::to_string),
            name: n.to_string(),
        };
        assert_eq!(RefTarget::parse("helper"), Ok(name(None, "helper")));
        assert_eq!(
            RefTarget::parse("Router::fallback"),
            Ok(name(None, "Router::fallback"))
        );
        assert_eq!(
            RefTarget::parse("src/a.rs:Router::fallback"),
            Ok(name(Some("src/a.rs"), "Router::fallback"))
        );
        assert_eq!(
            RefTarget::parse(" src/a.py:12 "),
            Ok(RefTarget::At {
                path: "src/a.py".into(),
                line: 12
            })
        );
        for bad in ["", "  ", "a.py:0", ":x", "a.py:", "a.py:99999999999"] {
            let e = RefTarget::parse(bad).unwrap_err();
            assert_eq!(e.code(), "INVALID_ARGUMENT", "{bad}");
        }
        assert_eq!(
            split_qualified("Router::fallback"),
            (Some("Router"), "fallback")
        );
        assert_eq!(split_qualified("a::B#m"), (Some("B"), "m"));
        assert_eq!(split_qualified("pkg.Func"), (Some("pkg"), "Func"));
        assert_eq!(split_qualified("plain"), (None, "plain"));
        assert_eq!(split_qualified("::x"), (None, "::x"));
    }

    #[test]
    fn a_function_called_from_two_files_has_both_callers_implementation_first() {
        let (_dir, index) = index_of(&[
            ("pkg/util.py", "def helper(x):\n    return x\n"),
            (
                "pkg/app.py",
                "from pkg.util import helper\n\n\ndef run():\n    return helper(1)\n",
            ),
            (
                "pkg/cli.py",
                "from pkg.util import helper\n\n\ndef main():\n    helper(2)\n    helper(3)\n",
            ),
            (
                "tests/test_util.py",
                "from pkg.util import helper\n\n\ndef test_helper():\n    assert helper(1) == 1\n",
            ),
        ]);
        let a = refs(&index, "helper", Direction::Callers);
        assert_eq!(a.groups.len(), 1);
        assert!(!a.ambiguous_name());
        let got = callers(&a);
        // Calls (1.0) before the import statements' names (0.5); the test file's last.
        assert_eq!(
            got,
            [
                "pkg/app.py:5 run (import)",
                "pkg/cli.py:5 main (import)",
                "pkg/cli.py:6 main (import)",
                "pkg/app.py:1 - (import)",
                "pkg/cli.py:1 - (import)",
                "tests/test_util.py:5 test_helper (import)",
                "tests/test_util.py:1 - (import)",
            ],
            "{got:#?}"
        );
        let first = &a.groups[0].callers[0];
        assert_eq!(
            (first.kind, first.candidates, first.test),
            (RefKind::Call, 1, false)
        );
        assert!(a.groups[0].callers.last().unwrap().test);
    }

    #[test]
    fn a_method_called_on_two_receiver_types_is_a_shared_guess() {
        let (_dir, index) = index_of(&[
            (
                "shapes/circle.py",
                "class Circle:\n    def area(self):\n        return 3\n",
            ),
            (
                "shapes/square.py",
                "class Square:\n    def area(self):\n        return 4\n",
            ),
            // Both modules imported (below the use, so its line stays 2): a method guess binds
            // only to files in view.
            (
                "report.py",
                "def total(c, s):\n    return c.area() + s.area()\n\n\nimport shapes.circle\nimport shapes.square\n",
            ),
        ]);
        let a = refs(&index, "area", Direction::Callers);
        assert!(a.ambiguous_name());
        assert_eq!(a.definitions_total, 2);
        assert_eq!(a.groups[0].definition.path, "shapes/circle.py");
        assert_eq!(a.groups[1].definition.path, "shapes/square.py");
        // Each says where it lives, in the language's notation.
        let d = &a.groups[1].definition;
        assert_eq!(
            (d.container.as_deref(), d.qualified_name.as_deref()),
            (Some("Square"), Some("Square.area"))
        );
        for g in &a.groups {
            // `c.area()` and `s.area()` are one use (name, kind, qualifier differ: `c`, `s`),
            // each split over both methods: a guess.
            let sites: Vec<(u32, &str, UseBinding, bool, usize)> = g
                .callers
                .iter()
                .map(|u| {
                    (
                        u.line,
                        u.qualifier.as_deref().unwrap_or(""),
                        u.binding,
                        u.ambiguous,
                        u.candidates,
                    )
                })
                .collect();
            assert_eq!(
                sites,
                [
                    (2, "c", UseBinding::MethodGuess, true, 2),
                    (2, "s", UseBinding::MethodGuess, true, 2)
                ],
                "{g:#?}"
            );
            let caller = g.callers[0].enclosing.as_ref().unwrap();
            assert_eq!(
                (caller.name.as_str(), caller.qualified_name.as_deref()),
                ("total", None)
            );
        }
        // A qualified name picks the owner.
        let a = refs(&index, "Square.area", Direction::Callers);
        assert_eq!(a.groups.len(), 1);
        assert_eq!(a.groups[0].definition.path, "shapes/square.py");
    }

    #[test]
    fn an_import_bound_use_and_a_guessed_one_are_told_apart() {
        let (_dir, index) = index_of(&[
            ("src/format.ts", "export function formatDate(d: number) { return d }\n"),
            (
                "src/view.ts",
                "import { formatDate } from './format'\n\nexport function show() {\n  return formatDate(1)\n}\n",
            ),
            // A script (no import or export): its bare name is a guess.
            ("legacy/page.js", "function render() {\n  return formatDate(2)\n}\n"),
            ("legacy/globals.js", "function formatDate(d) { return d }\n"),
        ]);
        let a = refs(&index, "src/format.ts:formatDate", Direction::Callers);
        assert_eq!(a.groups.len(), 1);
        assert_eq!(
            callers(&a),
            ["src/view.ts:4 show (import)", "src/view.ts:1 - (import)"]
        );
        let a = refs(&index, "legacy/globals.js:1", Direction::Callers);
        assert_eq!(a.groups[0].definition.name, "formatDate");
        let got = callers(&a);
        assert_eq!(
            got,
            ["legacy/page.js:2 render (name_guess, ambiguous)"],
            "{got:?}"
        );
    }

    #[test]
    fn callees_list_what_the_definition_uses_with_their_definitions() {
        let (_dir, index) = index_of(&[
            ("pkg/util.py", "def helper(x):\n    return x\n\n\ndef other():\n    return 2\n"),
            (
                "pkg/app.py",
                "from pkg.util import helper\n\n\ndef local():\n    return 1\n\n\ndef run():\n    a = helper(1)\n    b = local()\n    return len([a, b])\n",
            ),
        ]);
        let a = refs(&index, "run", Direction::Callees);
        let g = &a.groups[0];
        assert!(g.callers.is_empty() && g.callers_total == 0);
        let got: Vec<(u32, &str, UseBinding, String)> = g
            .callees
            .iter()
            .map(|u| {
                let d = &u.definitions[0];
                (
                    u.line,
                    u.name.as_str(),
                    u.binding,
                    format!("{}:{}", d.path, d.lines.start),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (9, "helper", UseBinding::Import, "pkg/util.py:1".to_string()),
                (
                    10,
                    "local",
                    UseBinding::SameFile,
                    "pkg/app.py:4".to_string()
                ),
            ],
            "{g:#?}"
        );
        // `len` is Python's own, `a` and `b` are locals: bound to nothing.
        assert!(g.callees_unbound >= 1, "{g:#?}");
        // `local`'s caller is `run`, in the same file.
        let a = refs(&index, "local", Direction::Callers);
        assert_eq!(callers(&a), ["pkg/app.py:10 run (same_file)"]);
    }

    #[test]
    fn go_same_package_calls_are_the_packages() {
        let (_dir, index) = index_of(&[
            ("go.mod", "module example.com/m\n"),
            ("store/load.go", "package store\n\nfunc Load() int { return 1 }\n"),
            ("store/use.go", "package store\n\nfunc Use() int { return Load() }\n"),
            (
                "app/main.go",
                "package app\n\nimport \"example.com/m/store\"\n\nfunc Main() int { return store.Load() }\n",
            ),
        ]);
        let a = refs(&index, "Load", Direction::Callers);
        assert_eq!(
            callers(&a),
            [
                "app/main.go:5 Main (import)",
                "store/use.go:3 Use (same_package)"
            ]
        );
    }

    #[test]
    fn unknown_names_lines_and_files_are_not_found() {
        let (_dir, index) = index_of(&[("a.py", "def f():\n    return 1\n\n\nx = 2\n")]);
        let ask = |t: &str| {
            index
                .references(&RefsRequest {
                    target: RefTarget::parse(t).unwrap(),
                    direction: Direction::Both,
                    top: 5,
                })
                .map(|_| ())
                .unwrap_err()
        };
        for t in ["nope", "a.py:nope", "b.py:1", "a.py:4", "b.py:f"] {
            assert_eq!(ask(t).code(), "NOT_FOUND", "{t}");
        }
        assert_eq!(
            refs(&index, "a.py:2", Direction::Both).groups[0]
                .definition
                .name,
            "f"
        );
    }

    #[test]
    fn top_bounds_each_section_and_the_totals_stay_whole() {
        let calls: String = (0..30).map(|i| format!("    helper({i})\n")).collect();
        let (_dir, index) = index_of(&[
            ("util.py", "def helper(x):\n    return x\n"),
            (
                "app.py",
                &format!("from util import helper\n\n\ndef run():\n{calls}"),
            ),
        ]);
        let a = index
            .references(&RefsRequest {
                target: RefTarget::parse("helper").unwrap(),
                direction: Direction::Both,
                top: 4,
            })
            .unwrap();
        assert_eq!(a.groups[0].callers.len(), 4);
        assert_eq!(a.groups[0].callers_total, 31);
        assert_eq!(a.top, 4);
    }

    #[test]
    fn several_targets_answer_each_definition_once_and_note_the_ones_naming_none() {
        let (_dir, index) = index_of(&[
            (
                "util.py",
                "def helper(x):
    return x


def other():
    return helper(1)
",
            ),
            (
                "app.py",
                "from util import helper


def run():
    return helper(2)
",
            ),
        ]);
        let at = |path: &str, line| RefTarget::At {
            path: path.into(),
            line,
        };
        // A map file's definitions (line 2 is inside `helper` again): each once, in order.
        let targets = [at("util.py", 1), at("util.py", 5), at("util.py", 2)];
        let a = index
            .references_among(&targets, Direction::Both, 10)
            .unwrap();
        let names: Vec<&str> = a
            .groups
            .iter()
            .map(|g| g.definition.name.as_str())
            .collect();
        assert_eq!(names, ["helper", "other"]);
        assert_eq!(a.target, targets[0]);
        assert!(a.notes.is_empty(), "{:?}", a.notes);
        assert_eq!(a.groups[0].callers_total, 3, "{:?}", a.groups[0].callers);
        // One that names nothing is a note; all naming nothing is the first one's refusal.
        let a = index
            .references_among(
                &[at("util.py", 3), at("util.py", 5)],
                Direction::Callers,
                10,
            )
            .unwrap();
        assert_eq!(a.groups.len(), 1);
        assert_eq!(a.notes.len(), 1, "{:?}", a.notes);
        let e = index
            .references_among(&[at("util.py", 3), at("nope.py", 1)], Direction::Both, 10)
            .unwrap_err();
        assert_eq!(e.code(), "NOT_FOUND");
        assert!(index.references_among(&[], Direction::Both, 10).is_err());
    }
}
