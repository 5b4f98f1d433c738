//! Tag extraction: one parse and one walk over the tree turn a file's source into
//! definitions, references and imports (`FileTags`).
//!
//! Runs on rayon workers: each thread keeps its own parser; the compiled queries and reference
//! rules are shared. Never panics on hostile input, and gives up after a time budget
//! (pathological files would otherwise stall a whole build). Definitions and imports come from
//! the language's tags query (see the capture names in `assets/queries/typescript-tags.scm`),
//! run only on the nodes whose kind starts one of its patterns; references come from the rules
//! in `refs`, checked on the same walk. This module turns both into model values: kinds that
//! depend on context, signature lines and nesting (`defs`), the container each definition
//! sits in (`containers`), qualifiers, and import statements (`imports`). In TS/JS a
//! plain use of a name the file binds itself (variable, parameter, destructured name) is not
//! kept as a reference: it means that binding, and would otherwise become a bare-name guess
//! into whichever file defines the name at top level.
//!
//! Why a walk and not one query pass: tree-sitter's query engine costs more per node than the
//! parse itself once patterns match "every identifier", while comparing precomputed kind ids
//! costs nanoseconds. Hot paths avoid `Node::parent()`, which tree-sitter computes by walking
//! down from the root: the walk keeps its own ancestor stack.

mod conditional;
mod containers;
mod declarators;
mod define_comments;
mod defs;
mod imports;
mod macros;
mod named;
mod receivers;
mod recover;
mod refs;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use tree_sitter::{
    Node, ParseOptions, ParseState, Parser, Query, QueryCursor, QueryCursorOptions,
    QueryCursorState, QueryMatch, StreamingIterator, Tree,
};

use crate::engine::base::cpu_clock::CpuDeadline;
use crate::engine::base::model::{
    Container, DefKind, Definition, FileTags, Import, Lang, RefKind, RefList, RefView, Reference,
};
use crate::engine::ingest::captures::{capture_role, CaptureRole, DefSpec};
use crate::engine::ingest::component;
use crate::engine::ingest::lang::{self, TagsQuery};
use refs::{Frame, Rules};

pub use containers::MAX_CONTAINER_NAME;

/// Base budget, in the parsing thread's CPU time (`cpu_clock`: the same file gets the same
/// tags however busy the machine is), for parsing plus querying one file. Ordinary files take
/// milliseconds; pathological input (megabytes on one line, deeply nested garbage) is cut here.
pub const TIME_BUDGET: Duration = Duration::from_secs(1);

/// Extra budget per line, so a legitimately long file is not cut short (a 19,000-line
/// TypeScript file takes over a second of CPU in a debug build). Minified or garbage input has few lines and stays near `TIME_BUDGET`.
const TIME_PER_LINE: Duration = Duration::from_micros(100);

/// Upper bound of the whole budget, whatever the line count.
const MAX_TIME_BUDGET: Duration = Duration::from_secs(5);

/// A signature never shows more than this many lines, even if the body opens later.
pub const MAX_SIGNATURE_LINES: u32 = 6;

/// A definition keeps the header lines of at most this many enclosing scopes, the innermost
/// (`Definition::scope_lines`). Real code nests definitions a few levels deep; the cap keeps
/// what a file costs linear in its size however deep it nests.
pub const MAX_SCOPE_LINES: usize = 8;

/// A thread's parser and the language it is set to: `set_language` re-creates the external
/// scanner, so it is skipped when consecutive files share a language.
struct ThreadParser {
    parser: Parser,
    lang: Option<Lang>,
}

thread_local! {
    static PARSER: RefCell<ThreadParser> = RefCell::new(ThreadParser {
        parser: Parser::new(),
        lang: None,
    });
}

/// Extract the tags of one file. Syntax errors still give tags (tree-sitter recovers) and are
/// counted in `parse_errors`. If the file cannot be parsed within its budget (see
/// `time_budget`) the result is empty with `parse_errors = 1`; if the walk runs out of time the
/// tags found so far are kept. A broken query (see `lang::check_all_queries`) gives empty tags.
pub fn extract_tags(lang: Lang, source: &str) -> FileTags {
    extract_tags_until(lang, source, CpuDeadline::after(time_budget(source)))
}

/// `extract_tags` with the deadline given.
fn extract_tags_until(lang: Lang, source: &str, deadline: CpuDeadline) -> FileTags {
    let (lang, view) = parser_view(lang, source);
    let Ok(query) = lang::compiled_tags_query(lang) else {
        return FileTags::default();
    };
    let Some(parsed) = parse_recovering(lang, view, deadline) else {
        return unparsed();
    };
    tag_tree(
        lang,
        &parsed.view,
        query,
        &parsed.tree,
        parsed.errors,
        parsed.walk_deadline,
    )
}

/// What a file that could not be tagged gives: no tags, one parse error (its parse ran out
/// of budget here; `index` gives the same for a parse that panicked).
pub(crate) fn unparsed() -> FileTags {
    FileTags {
        parse_errors: 1,
        ..FileTags::default()
    }
}

/// Runs the query and the reference walk over a parsed `tree` of `source` (the parser's view);
/// `errors` are the syntax errors of the file as written (`parse_recovering`).
fn tag_tree(
    lang: Lang,
    source: &str,
    query: &TagsQuery,
    tree: &Tree,
    errors: u32,
    deadline: CpuDeadline,
) -> FileTags {
    let mut tags = Extractor::new(lang, source).run(query, tree, deadline);
    tags.parse_errors = errors;
    tags
}

/// What `extract_tags_or_parse` gives: the tags, or the tree when the language's query is
/// still compiling on another thread.
pub(crate) enum Tagging {
    Done(FileTags),
    QueryCompiling(ParsedAhead),
}

/// A file parsed while its language's tags query was compiling elsewhere; `finish_tags` tags
/// it once the query is there.
pub(crate) struct ParsedAhead {
    lang: Lang,
    tree: Tree,
    /// The parser's view of the source when it is not the source itself (C#, C++, a
    /// recovered cascade).
    owned_view: Option<String>,
    /// The syntax errors of the file as written.
    errors: u32,
    /// What was left of the file's time budget when its parse ended: the wait for the query
    /// is not charged to the file.
    budget_left: Duration,
}

impl ParsedAhead {
    pub(crate) fn lang(&self) -> Lang {
        self.lang
    }
}

/// `extract_tags`, except that when another thread is compiling the language's tags query
/// (`lang::tags_query_compiling`), the file is parsed and handed back rather than waiting on
/// the compile: a build's first files of a language are parsed while its query compiles
/// (tens of milliseconds; C++ ~40 ms), which otherwise kept the other core idle on a small
/// repository. With `may_defer` false it is `extract_tags`.
pub(crate) fn extract_tags_or_parse(lang: Lang, source: &str, may_defer: bool) -> Tagging {
    if !may_defer || lang.is_component() || !lang::tags_query_compiling(lang) {
        return Tagging::Done(extract_tags(lang, source));
    }
    match parse_ahead(lang, source) {
        None => Tagging::Done(unparsed()),
        // The compile ended during the parse.
        Some(parsed) if !lang::tags_query_compiling(lang) => {
            Tagging::Done(finish_tags(parsed, source))
        }
        Some(parsed) => Tagging::QueryCompiling(parsed),
    }
}

/// The parse half of `extract_tags`: `None` when the file could not be parsed within its
/// budget.
fn parse_ahead(lang: Lang, source: &str) -> Option<ParsedAhead> {
    let deadline = CpuDeadline::after(time_budget(source));
    let (lang, view) = parser_view(lang, source);
    let parsed = parse_recovering(lang, view, deadline)?;
    Some(ParsedAhead {
        lang,
        tree: parsed.tree,
        owned_view: match parsed.view {
            Cow::Owned(text) => Some(text),
            Cow::Borrowed(_) => None,
        },
        errors: parsed.errors,
        budget_left: parsed.walk_deadline.left(),
    })
}

/// The tags of a file `extract_tags_or_parse` parsed ahead of its query (`source` is the
/// same text), waiting for the compile if it is still running.
pub(crate) fn finish_tags(parsed: ParsedAhead, source: &str) -> FileTags {
    let Ok(query) = lang::compiled_tags_query(parsed.lang) else {
        return FileTags::default();
    };
    let view = parsed.owned_view.as_deref().unwrap_or(source);
    let deadline = CpuDeadline::after(parsed.budget_left);
    tag_tree(
        parsed.lang,
        view,
        query,
        &parsed.tree,
        parsed.errors,
        deadline,
    )
}

/// Parses `source` and drops the tree: what a file costs tree-sitter alone (`mapscope bench
/// --parse-floor`). False when the parse ran out of its time budget.
pub fn parse_only(lang: Lang, source: &str) -> bool {
    let (lang, view) = parser_view(lang, source);
    let source = &*view;
    parse(lang, source, CpuDeadline::after(time_budget(source))).is_some()
}

/// The text the parser reads and the language it is read as: the source itself, except in
/// C#, whose conditional compilation keeps only the first branch of each chain (see
/// `conditional`), in C++, whose attribute and scope macros are blanked where they break the
/// parse (`macros`), and in a component, of which only the script blocks are kept, read as
/// their TS or JS (`component`). Same length and lines as the source, so positions and
/// signatures are the file's.
fn parser_view(lang: Lang, source: &str) -> (Lang, Cow<'_, str>) {
    match lang {
        Lang::CSharp => (lang, conditional::first_branches(source)),
        Lang::C => (lang, define_comments::without_define_comments(source)),
        Lang::Cpp => match macros::without_macros(source) {
            Cow::Borrowed(text) => (lang, define_comments::without_define_comments(text)),
            Cow::Owned(text) => {
                let blanked = define_comments::without_define_comments(&text).into_owned();
                (lang, Cow::Owned(blanked))
            }
        },
        _ if lang.is_component() => {
            let view = component::script_view(source);
            (view.lang, Cow::Owned(view.text))
        }
        _ => (lang, Cow::Borrowed(source)),
    }
}

/// A component's tags: those of its masked scripts, read as their TS or JS (what
/// `parser_view` gives), with the component's own definition first
/// (`component::component_definition`). One masking serves both.
pub fn extract_component_tags(path: &str, source: &str) -> FileTags {
    let view = component::script_view(source);
    let mut tags = extract_tags(view.lang, &view.text);
    if let Some(def) = component::component_definition(path, source, &view) {
        tags.defs.insert(0, def);
    }
    tags
}

/// How long one file may take: `TIME_BUDGET` plus `TIME_PER_LINE` per line, at most
/// `MAX_TIME_BUDGET`.
pub fn time_budget(source: &str) -> Duration {
    let lines = source.bytes().filter(|&b| b == b'\n').count();
    let extra = TIME_PER_LINE.saturating_mul(u32::try_from(lines).unwrap_or(u32::MAX));
    TIME_BUDGET.saturating_add(extra).min(MAX_TIME_BUDGET)
}

/// Tree-sitter reports progress every hundred or so parse operations; reading the clock on
/// every report would be a measurable share of a fast parse.
const CLOCK_EVERY_PROGRESS_CALLS: u32 = 16;

/// The walk reads the clock once per this many nodes.
const CLOCK_EVERY_NODES: u32 = 4096;

fn parse(lang: Lang, source: &str, deadline: CpuDeadline) -> Option<Tree> {
    let run = |tp: &mut ThreadParser| {
        if tp.lang != Some(lang) {
            tp.lang = None;
            tp.parser.set_language(&lang::grammar(lang)).ok()?;
            tp.lang = Some(lang);
        }
        let bytes = source.as_bytes();
        let mut calls = 0u32;
        let mut past_deadline = |_: &ParseState| {
            calls = calls.wrapping_add(1);
            calls.is_multiple_of(CLOCK_EVERY_PROGRESS_CALLS) && deadline.passed()
        };
        let options = ParseOptions::new().progress_callback(&mut past_deadline);
        let tree = tp.parser.parse_with_options(
            &mut |offset, _| bytes.get(offset..).unwrap_or_default(),
            None,
            Some(options),
        );
        if tree.is_none() {
            // A cancelled parse would otherwise be resumed by the next call on this thread.
            tp.parser.reset();
        }
        tree
    };
    let fresh = || ThreadParser {
        parser: Parser::new(),
        lang: None,
    };
    // The thread-local parser is only unavailable during thread teardown; fall back to a new one.
    PARSER
        .try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut tp) => run(&mut tp),
            Err(_) => run(&mut fresh()),
        })
        .unwrap_or_else(|_| run(&mut fresh()))
}

/// What `parse_recovering` gives: the tree, the view it was parsed from, the number of
/// syntax errors in the file as written, and the deadline the tag walk runs to.
struct Parsed<'v> {
    tree: Tree,
    view: Cow<'v, str>,
    errors: u32,
    walk_deadline: CpuDeadline,
}

/// `parse`, and when one syntax error swallowed a large part of the file (an ERROR node over
/// `recover::CASCADE_MIN_LINES` lines with no whole statement after its first error:
/// `recover::has_cascade`), parses again with the broken statements blanked,
/// round after round until no cascade is left (`recover`). The recovered parse is kept only
/// if it has fewer errors than the file as written; otherwise the first parse is, and its
/// walk gets the budget that was left after it, so a recovery that failed costs the file's
/// tags nothing. Files without a cascade, or over `recover::MAX_RECOVERED_LEN`, are parsed
/// once.
fn parse_recovering(lang: Lang, view: Cow<'_, str>, deadline: CpuDeadline) -> Option<Parsed<'_>> {
    let tree = parse(lang, &view, deadline)?;
    let errors = count_errors(&tree);
    let first = |tree, view| Parsed {
        tree,
        view,
        errors,
        walk_deadline: deadline,
    };
    if view.len() > recover::MAX_RECOVERED_LEN || !recover::has_cascade(&tree) {
        return Some(first(tree, view));
    }
    let left_after_first_parse = deadline.left();
    let mut current: Option<(Tree, String)> = None;
    for _ in 0..recover::MAX_ROUNDS {
        let (tree_now, view_now) = match &current {
            Some((t, v)) => (t, v.as_str()),
            None => (&tree, &*view),
        };
        let Some(blanked) = recover::blank_first_error(view_now, tree_now) else {
            break;
        };
        let Some(next) = parse(lang, &blanked, deadline) else {
            break;
        };
        if recover::largest_error_span(&next) < recover::CASCADE_MIN_LINES {
            if count_errors(&next) < errors {
                return Some(Parsed {
                    tree: next,
                    view: Cow::Owned(blanked),
                    errors,
                    walk_deadline: deadline,
                });
            }
            // Blanking moved the errors rather than removing their cause.
            break;
        }
        if !recover::has_cascade(&next) {
            // What is left is an error tree-sitter recovered inside: blanking more would
            // lose what it read.
            break;
        }
        current = Some((next, blanked));
    }
    Some(Parsed {
        walk_deadline: CpuDeadline::after(left_after_first_parse),
        ..first(tree, view)
    })
}

/// Number of ERROR and MISSING nodes, visiting only subtrees that contain errors.
fn count_errors(tree: &Tree) -> u32 {
    let root = tree.root_node();
    if !root.has_error() {
        return 0;
    }
    let mut count = 0u32;
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            count = count.saturating_add(1);
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return count;
            }
        }
    }
}

/// A definition as captured, before its kind and nesting are resolved.
struct DefCandidate<'t> {
    node: Node<'t>,
    name: Node<'t>,
    spec: DefSpec,
    /// First and last row of the widest wrapper seen (`export`, decorators).
    outer_rows: Option<(usize, usize)>,
}

/// Borrowed from the source: a minified file can yield millions of candidates, and only the
/// distinct ones are packed into the file's `RefList`.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct RefCandidate<'s> {
    line: u32,
    name: &'s str,
    kind: RefKind,
    qualifier: Option<&'s str>,
    /// Made on a receiver that is not a plain name (`a.b().m()`, `@x.m`): no qualifier is
    /// kept, and yet it is not a call on the enclosing instance (`receivers`).
    chained: bool,
}

/// Node ids (addresses) hashed by FxHash: SipHash showed up in profiles for these small
/// per-file maps, and their contents never leak an iteration order.
type IdBuild = rustc_hash::FxBuildHasher;

/// A query with the node kinds its patterns start with, and the roles of its captures.
type RootedQuery<'q> = (&'q Query, &'q [bool], &'q [Option<CaptureRole>]);

struct Extractor<'s, 't> {
    lang: Lang,
    src: &'s str,
    defs: Vec<DefCandidate<'t>>,
    /// (definition node id, name node id) → index in `defs`: a Go spec can define several names.
    def_index: HashMap<(usize, usize), usize, IdBuild>,
    refs: Vec<RefCandidate<'s>>,
    /// Names the file binds locally (TS/JS variables, parameters, patterns; see
    /// `Verdict::binds`).
    bound: HashSet<&'s str>,
    /// Definition names: never also plain references or types.
    names: HashSet<usize, IdBuild>,
    /// Method node id → first row of the decorators right before it (TypeScript class bodies).
    decorated_from: HashMap<usize, usize, IdBuild>,
    /// Import statements or calls with their binding, in walk order; `import_index` maps a node
    /// id to its entry (two patterns can capture one node, one of them with the binding).
    imports: Vec<(Node<'t>, Option<Node<'t>>)>,
    import_index: HashMap<usize, usize, IdBuild>,
    /// Nodes captured as containers that are not definitions (`containers::RULES`).
    containers: Vec<Node<'t>>,
    /// TS/JS: name node id → the object a member assigned a function is defined on
    /// (`scan_assignment`).
    assigned_to: HashMap<usize, AssignedTo<'s>, IdBuild>,
    /// Nodes that declare a name with a type (`receivers::DeclKinds`).
    decls: Vec<Node<'t>>,
}

/// What a TS/JS member assigned a function is defined on (`Extractor::scan_assignment`).
#[derive(Clone, Copy)]
enum AssignedTo<'s> {
    /// `exports.f = …`, `module.exports.f = …`: the module, of which it is a function.
    Module,
    /// `Type.prototype.m = …`: a method of `Type`.
    Prototype(&'s str),
    /// `obj.m = …`: a method of the object `obj`.
    Object(&'s str),
}

impl<'s, 't> Extractor<'s, 't> {
    fn new(lang: Lang, src: &'s str) -> Self {
        Extractor {
            lang,
            src,
            defs: Vec::new(),
            def_index: HashMap::default(),
            refs: Vec::new(),
            bound: HashSet::default(),
            names: HashSet::default(),
            decorated_from: HashMap::default(),
            imports: Vec::new(),
            import_index: HashMap::default(),
            containers: Vec::new(),
            assigned_to: HashMap::default(),
            decls: Vec::new(),
        }
    }

    fn text(&self, node: Node) -> Option<&'s str> {
        self.src.get(node.start_byte()..node.end_byte())
    }

    fn run(mut self, tags_query: &TagsQuery, tree: &'t Tree, deadline: CpuDeadline) -> FileTags {
        let query = &tags_query.query;
        let roles: Vec<Option<CaptureRole>> = query
            .capture_names()
            .iter()
            .map(|name| capture_role(name))
            .collect();
        let rules = Rules::of(self.lang);
        if let Some(roots) = &tags_query.roots {
            self.walk(tree, rules, Some((query, roots, &roles)), deadline);
        } else {
            // A pattern that does not start with a node kind: query the whole tree first
            // (definition names must be known before the walk meets them).
            self.query_all(query, &roles, tree, deadline);
            self.walk(tree, rules, None, deadline);
        }

        let mut tags = FileTags::default();
        let (imports, import_refs) = self.build_imports();
        (tags.defs, tags.containers) = self.build_defs();
        tags.refs = self.build_refs(&imports, import_refs, &tags.defs, &tags.containers);
        tags.imports = imports;
        tags.imports.shrink_to_fit();
        tags.module_scoped = self.is_js_module(tree.root_node(), !tags.imports.is_empty());
        tags
    }

    /// TS/JS: whether the file is a module rather than a script (see
    /// `FileTags::module_scoped`): any import (`require` and `import()` included), or a
    /// top-level `export` / `module.exports` / `exports.x`. Only the top level is read.
    fn is_js_module(&self, root: Node, has_imports: bool) -> bool {
        if !matches!(self.lang, Lang::TypeScript | Lang::Tsx | Lang::JavaScript) {
            return false;
        }
        if has_imports {
            return true;
        }
        let mut cursor = root.walk();
        let found = root.children(&mut cursor).any(|child| match child.kind() {
            "import_statement" | "export_statement" => true,
            "expression_statement" => self
                .text(child)
                .is_some_and(|t| t.starts_with("module.exports") || t.starts_with("exports.")),
            _ => false,
        });
        found
    }

    fn query_all(
        &mut self,
        query: &Query,
        roles: &[Option<CaptureRole>],
        tree: &'t Tree,
        deadline: CpuDeadline,
    ) {
        let mut cursor = QueryCursor::new();
        let mut calls = 0u32;
        let mut past_deadline = |_: &QueryCursorState| {
            calls = calls.wrapping_add(1);
            calls.is_multiple_of(CLOCK_EVERY_PROGRESS_CALLS) && deadline.passed()
        };
        let options = QueryCursorOptions::new().progress_callback(&mut past_deadline);
        let mut matches =
            cursor.matches_with_options(query, tree.root_node(), self.src.as_bytes(), options);
        while let Some(m) = matches.next() {
            self.on_match(m, roles);
        }
    }

    /// One pre-order walk over every node: runs the tags query on nodes that can start one of
    /// its patterns (`query`), and classifies name nodes as references. The walk keeps the
    /// ancestors of the current node, with the fields the rules read.
    fn walk(
        &mut self,
        tree: &'t Tree,
        rules: &Rules,
        query: Option<RootedQuery<'_>>,
        deadline: CpuDeadline,
    ) {
        let mut query_cursor = QueryCursor::new();
        // Only patterns starting at the node itself: its descendants get their own turn.
        query_cursor.set_max_start_depth(Some(0));
        let src = self.src.as_bytes();
        let mut cursor = tree.walk();
        let decl_kinds = receivers::DeclKinds::of(self.lang);
        let mut stack: Vec<Frame<'t>> = Vec::with_capacity(64);
        // Ancestors whose subtree holds no references (`Rules::is_opaque`: import statements
        // of the languages with data rules, a C# namespace's name).
        let mut opaque_depth = 0usize;
        let mut visited = 0u32;
        loop {
            let node = cursor.node();
            let kind = node.kind_id();
            let parent_kind = stack.last().map_or(u16::MAX, |p| p.kind);
            let field = if rules.wants_field(parent_kind) {
                cursor.field_id().map_or(0, std::num::NonZero::get)
            } else {
                0
            };
            let frame = Frame {
                node,
                kind,
                field,
                qual: None,
            };
            if let Some((query, roots, roles)) = query {
                if roots.get(usize::from(kind)).copied().unwrap_or(false) {
                    let mut matches = query_cursor.matches(query, node, src);
                    while let Some(m) = matches.next() {
                        self.on_match(m, roles);
                    }
                }
            }
            if opaque_depth == 0
                && rules.may_apply(kind, parent_kind)
                && !rules.is_opaque(kind, parent_kind, field)
            {
                self.classify(rules, &frame, &stack);
            }
            if let Some(parent) = stack.last_mut() {
                rules.note_qualifier(parent, &frame);
            }
            if decl_kinds.records(kind) {
                self.decls.push(node);
            }
            visited = visited.wrapping_add(1);
            if visited.is_multiple_of(CLOCK_EVERY_NODES) && deadline.passed() {
                return;
            }
            if cursor.goto_first_child() {
                opaque_depth += usize::from(rules.is_opaque(kind, parent_kind, field));
                stack.push(frame);
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return;
                }
                if let Some(done) = stack.pop() {
                    let parent_kind = stack.last().map_or(u16::MAX, |p| p.kind);
                    opaque_depth -=
                        usize::from(rules.is_opaque(done.kind, parent_kind, done.field));
                }
            }
        }
    }

    fn classify(&mut self, rules: &Rules, frame: &Frame<'t>, stack: &[Frame<'t>]) {
        let Some(name) = self.text(frame.node) else {
            return;
        };
        if name.is_empty() {
            return;
        }
        let verdict = rules.classify(frame, stack, name);
        if verdict.binds {
            self.bound.insert(name);
        }
        let Some((kind, qualifier)) = verdict.result() else {
            return;
        };
        if matches!(kind, RefKind::Reference | RefKind::Type)
            && self.names.contains(&frame.node.id())
        {
            return;
        }
        let qualifier = rules.plain_qualifier(qualifier).and_then(|q| self.text(q));
        // The member's node has a receiver the rules did not keep (not a plain name).
        let chained = stack.last().is_some_and(|p| p.qual.is_some());
        self.refs.push(RefCandidate {
            line: line_of(frame.node.start_position().row),
            name,
            kind,
            chained: chained && qualifier.is_none(),
            qualifier,
        });
    }

    fn on_match(&mut self, m: &QueryMatch<'_, 't>, roles: &[Option<CaptureRole>]) {
        let mut def: Option<(Node<'t>, DefSpec)> = None;
        let mut name = None;
        let mut declarators = None;
        let mut named = false;
        let mut outer: Option<Node<'t>> = None;
        let mut import = None;
        let mut binding = None;
        for capture in m.captures {
            let node = capture.node;
            let Some(Some(role)) = roles.get(capture.index as usize) else {
                continue;
            };
            match *role {
                CaptureRole::Name => {
                    self.names.insert(node.id());
                    name = Some(node);
                }
                CaptureRole::Definition(spec) => def = Some((node, spec)),
                CaptureRole::Declarators => declarators = Some(node),
                CaptureRole::Named => named = true,
                CaptureRole::Outer => outer = Some(node),
                CaptureRole::ClassBody => self.scan_class_body(node),
                CaptureRole::ObjectMembers => self.scan_object_members(node),
                CaptureRole::Module => self.scan_module(node),
                CaptureRole::Assignment => self.scan_assignment(node),
                CaptureRole::Container => self.containers.push(node),
                CaptureRole::Import => import = Some(node),
                CaptureRole::ImportBinding => binding = Some(node),
                CaptureRole::ImportDeclarator => {
                    if let Some((call, name)) = self.declared_import(node) {
                        self.record_import(call, Some(name));
                    }
                }
                CaptureRole::Helper => {}
            }
        }
        if let (Some((node, spec)), Some(owner)) = (def, declarators) {
            self.add_declared_functions(node, owner, spec, outer);
        } else if let (Some((node, spec)), Some(name)) = (def, name) {
            self.add_def(node, name, spec, outer);
        } else if let (Some((node, spec)), true) = (def, named) {
            for name in named::field_names(self.lang, node, self.src) {
                self.names.insert(name.id());
                self.add_def(node, name, spec, outer);
            }
        }
        if let Some(node) = import.filter(|&node| self.is_import(node)) {
            self.record_import(node, binding);
        }
    }

    /// Keeps `node` as an import statement once, with the name its result is bound to if
    /// any match gave one.
    fn record_import(&mut self, node: Node<'t>, binding: Option<Node<'t>>) {
        let index = *self.import_index.entry(node.id()).or_insert_with(|| {
            self.imports.push((node, None));
            self.imports.len() - 1
        });
        if binding.is_some() {
            if let Some(entry) = self.imports.get_mut(index) {
                entry.1 = binding;
            }
        }
    }

    /// C/C++: one definition per function that a declarator of `owner` declares (`int f(),
    /// *g();` declares two; `int x;` none). `Type::name` is a method whose parent `Type` is
    /// found later (`impl_owner`).
    fn add_declared_functions(
        &mut self,
        node: Node<'t>,
        owner: Node<'t>,
        spec: DefSpec,
        outer: Option<Node<'t>>,
    ) {
        let mut cursor = owner.walk();
        for declarator in owner.children_by_field_name("declarator", &mut cursor) {
            let Some(found) = declarators::declared_function(self.lang, owner, declarator) else {
                // A struct's or class's data member (`int x;`, `char *name;`, `int
                // (*fp)(int);`): a field, for look-ups only.
                let field = (owner.kind() == "field_declaration" && outer.is_none())
                    .then(|| declarators::declared_field(declarator))
                    .flatten();
                if let Some(name) = field {
                    self.names.insert(name.id());
                    self.add_def(node, name, DefSpec::Kind(DefKind::Field), None);
                }
                continue;
            };
            // A `template <…>` wrapper starts the signature only of a function with a plain
            // declarator and an unqualified name (as when the query spelt the forms out, so
            // signatures stay the same); any other form is added by the bare pattern alone.
            if outer.is_some() && (found.wrapped || found.qualified) {
                continue;
            }
            let spec = if found.qualified {
                DefSpec::Kind(DefKind::Method)
            } else {
                spec
            };
            self.names.insert(found.name.id());
            self.add_def(node, found.name, spec, outer);
        }
    }

    fn add_def(&mut self, node: Node<'t>, name: Node<'t>, spec: DefSpec, outer: Option<Node<'t>>) {
        let outer_rows = outer.map(|o| (o.start_position().row, end_row(o)));
        let key = (node.id(), name.id());
        if let Some(&i) = self.def_index.get(&key) {
            // The same declaration matched bare and behind a wrapper: keep the widest wrapper.
            // Matched as a field and as something more (a Java `static final` field is a
            // constant): the more.
            let existing = &mut self.defs[i];
            if existing.spec == DefSpec::Kind(DefKind::Field) {
                existing.spec = spec;
            }
            existing.outer_rows = match (existing.outer_rows, outer_rows) {
                (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
                (a, b) => a.or(b),
            };
            return;
        }
        self.def_index.insert(key, self.defs.len());
        self.defs.push(DefCandidate {
            node,
            name,
            spec,
            outer_rows,
        });
    }

    /// TS/JS: what the program's own statements define, in one pass over them.
    /// - Constants and variables (`add_module_declarators`): bare or behind `export`, which is
    ///   then the wrapper that starts the signature.
    /// - Object literals, each scanned for members (`scan_object_members`): the value of a
    ///   `const`/`let`/`var` declarator, or one of the object arguments of a call that is
    ///   that value (`const c = defineConfig({ … })`); the same behind `export`
    ///   (`export const`/`export let` only); `export default { … }` or `export default
    ///   f({ … })`; and `a.b = { … }` (`module.exports = { … }`).
    ///
    /// Locals stay out: they are not part of a map. Read here rather than by eleven query
    /// patterns (`(program (lexical_declaration kind: "const" (variable_declarator name:
    /// (identifier) @name)))`, …), which took about half of the TypeScript query's ~27 ms
    /// compile.
    fn scan_module(&mut self, program: Node<'t>) {
        let mut cursor = program.walk();
        for statement in program.named_children(&mut cursor) {
            match statement.kind() {
                "lexical_declaration" | "variable_declaration" => {
                    self.add_module_declarators(statement, statement);
                    self.scan_declarator_objects(statement);
                }
                "export_statement" => {
                    if let Some(declaration) =
                        statement.child_by_field_name("declaration").filter(|d| {
                            matches!(d.kind(), "lexical_declaration" | "variable_declaration")
                        })
                    {
                        self.add_module_declarators(declaration, statement);
                        if declaration.kind() == "lexical_declaration" {
                            self.scan_declarator_objects(declaration);
                        }
                    }
                    if let Some(value) = statement.child_by_field_name("value") {
                        self.scan_object_value(value);
                    }
                }
                "expression_statement" => {
                    for assignment in children_of_kind(statement, "assignment_expression") {
                        let left = assignment.child_by_field_name("left");
                        let right = assignment.child_by_field_name("right");
                        if let (Some(left), Some(right)) = (left, right) {
                            if left.kind() == "member_expression" && right.kind() == "object" {
                                self.scan_object_members(right);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The definitions of a module-level declaration: each declarator named by an identifier
    /// in a `const` (a constant), `let` or `var` (a variable) declaration, with `outer` as
    /// the wrapper (`resolve_kind` later makes one whose value is a function or class a
    /// function or class).
    fn add_module_declarators(&mut self, declaration: Node<'t>, outer: Node<'t>) {
        let kind = match (declaration.kind(), declaration.child_by_field_name("kind")) {
            ("variable_declaration", _) => DefKind::Variable,
            ("lexical_declaration", Some(k)) if k.kind() == "const" => DefKind::Constant,
            ("lexical_declaration", Some(k)) if k.kind() == "let" => DefKind::Variable,
            _ => return,
        };
        for declarator in children_of_kind(declaration, "variable_declarator") {
            let Some(name) = declarator
                .child_by_field_name("name")
                .filter(|n| n.kind() == "identifier")
            else {
                continue;
            };
            self.names.insert(name.id());
            self.add_def(declarator, name, DefSpec::Kind(kind), Some(outer));
        }
    }

    /// The object values of a declaration's declarators (see `scan_module`).
    fn scan_declarator_objects(&mut self, declaration: Node<'t>) {
        for declarator in children_of_kind(declaration, "variable_declarator") {
            if let Some(value) = declarator.child_by_field_name("value") {
                self.scan_object_value(value);
            }
        }
    }

    /// `value` when it is an object literal, or the object arguments of a call it is.
    fn scan_object_value(&mut self, value: Node<'t>) {
        match value.kind() {
            "object" => self.scan_object_members(value),
            "call_expression" => {
                let Some(arguments) = call_arguments(value) else {
                    return;
                };
                for object in children_of_kind(arguments, "object") {
                    self.scan_object_members(object);
                }
            }
            _ => {}
        }
    }

    /// `{ onLog() {}, resolveId: (id) => id, parse: function () {} }`: each method and each
    /// property whose value is a function is a method definition named by its key. Done
    /// here rather than in the query, where the member patterns would be repeated for every
    /// place a module-level object can stand.
    fn scan_object_members(&mut self, object: Node<'t>) {
        let mut cursor = object.walk();
        for member in object.named_children(&mut cursor) {
            let name = match member.kind() {
                "method_definition" => member.child_by_field_name("name"),
                "pair" => member
                    .child_by_field_name("value")
                    .filter(|v| matches!(v.kind(), "arrow_function" | "function_expression"))
                    .and_then(|_| member.child_by_field_name("key")),
                _ => None,
            };
            let Some(name) = name.filter(|n| n.kind() == "property_identifier") else {
                continue;
            };
            self.names.insert(name.id());
            self.add_def(member, name, DefSpec::Kind(DefKind::Method), None);
        }
    }

    /// TS/JS: the members an assignment defines, each with the object it is defined on:
    /// `Type.prototype.m = function …` anywhere (a method of `Type`, as a class body's would
    /// be), and at module level `obj.m = …` (a method of `obj`: `req.accepts = function …`)
    /// and `exports.f = …` / `module.exports.f = …` (a function of the module). Only where
    /// the value is a function, and every link of a chain (`req.get = req.header = function
    /// …` defines both, as siblings on the outermost assignment). Inside functions, `obj.m =
    /// …` patches an object at run time: not a definition.
    fn scan_assignment(&mut self, assignment: Node<'t>) {
        let Some(right) = assignment.child_by_field_name("right") else {
            return;
        };
        if !is_function_value(right) && right.kind() != "assignment_expression" {
            return;
        }
        // A link inside a chain: its outermost assignment defines it.
        if assignment
            .parent()
            .is_some_and(|p| p.kind() == "assignment_expression")
        {
            return;
        }
        let mut lefts = Vec::new();
        let mut value = assignment;
        while value.kind() == "assignment_expression" {
            let (Some(left), Some(right)) = (
                value.child_by_field_name("left"),
                value.child_by_field_name("right"),
            ) else {
                return;
            };
            lefts.push(left);
            value = right;
        }
        if !is_function_value(value) {
            return;
        }
        let module_level = assignment
            .parent()
            .filter(|p| p.kind() == "expression_statement")
            .and_then(|p| p.parent())
            .is_some_and(|p| p.kind() == "program");
        for left in lefts {
            let Some((name, to)) = self.assigned_member(left) else {
                continue;
            };
            if !module_level && !matches!(to, AssignedTo::Prototype(_)) {
                continue;
            }
            let kind = match to {
                AssignedTo::Module => DefKind::Function,
                AssignedTo::Prototype(_) | AssignedTo::Object(_) => DefKind::Method,
            };
            self.names.insert(name.id());
            self.assigned_to.insert(name.id(), to);
            self.add_def(assignment, name, DefSpec::Kind(kind), None);
        }
    }

    /// The member `left` (an assignment's target) names, and what it is defined on.
    fn assigned_member(&self, left: Node<'t>) -> Option<(Node<'t>, AssignedTo<'s>)> {
        if left.kind() != "member_expression" {
            return None;
        }
        let name = left
            .child_by_field_name("property")
            .filter(|p| p.kind() == "property_identifier")?;
        let object = left.child_by_field_name("object")?;
        let to = match object.kind() {
            "identifier" => match self.text(object)? {
                "exports" => AssignedTo::Module,
                "module" => return None,
                owner => AssignedTo::Object(owner),
            },
            "member_expression" => {
                let inner = object.child_by_field_name("object")?;
                let property = self.text(object.child_by_field_name("property")?)?;
                match (inner.kind(), self.text(inner)?, property) {
                    ("identifier", "module", "exports") => AssignedTo::Module,
                    ("identifier", owner, "prototype") => AssignedTo::Prototype(owner),
                    _ => return None,
                }
            }
            _ => return None,
        };
        Some((name, to))
    }

    /// TypeScript: the methods of a class or interface body (method definitions and
    /// signatures, named by their `name`, whatever its kind; `member_is_method` says which
    /// members count), its data members (fields and property signatures named by an
    /// identifier, and a constructor's parameter properties: `DefKind::Field`), and the
    /// decorators of each, which are siblings before it. Read here rather than by three
    /// query patterns, which would be a large share of the query's compile (ARCHITECTURE.md,
    /// "Tags queries name nodes").
    fn scan_class_body(&mut self, body: Node<'t>) {
        let mut cursor = body.walk();
        let mut run_start: Option<usize> = None;
        for child in body.named_children(&mut cursor) {
            if member_is_method(child) {
                if let Some(name) = child.child_by_field_name("name").filter(Node::is_named) {
                    self.names.insert(name.id());
                    self.add_def(child, name, DefSpec::Kind(DefKind::Method), None);
                    if self.text(name) == Some("constructor") {
                        self.add_parameter_properties(child);
                    }
                }
            } else if matches!(
                child.kind(),
                "public_field_definition" | "property_signature"
            ) {
                // A data member named by an identifier (not a string or computed key): a
                // field, for look-ups only (`Definition::lookup_only`).
                let name = child.child_by_field_name("name").filter(|n| {
                    matches!(
                        n.kind(),
                        "property_identifier" | "private_property_identifier"
                    )
                });
                if let Some(name) = name {
                    self.names.insert(name.id());
                    self.add_def(child, name, DefSpec::Kind(DefKind::Field), None);
                }
            }
            match child.kind() {
                "decorator" => {
                    run_start.get_or_insert(child.start_position().row);
                }
                "comment" => {}
                _ => {
                    if let Some(row) = run_start.take() {
                        self.decorated_from.insert(child.id(), row);
                    }
                }
            }
        }
    }

    /// TypeScript: the parameters a constructor makes properties of its class
    /// (`constructor(private readonly server: Server)`: one with an accessibility, `override`
    /// or `readonly` modifier), each named by an identifier: fields, as the class body's own.
    fn add_parameter_properties(&mut self, constructor: Node<'t>) {
        let Some(parameters) = constructor.child_by_field_name("parameters") else {
            return;
        };
        let mut cursor = parameters.walk();
        for parameter in parameters.named_children(&mut cursor) {
            if !matches!(
                parameter.kind(),
                "required_parameter" | "optional_parameter"
            ) {
                continue;
            }
            let mut inner = parameter.walk();
            let is_property = parameter.children(&mut inner).any(|c| {
                matches!(
                    c.kind(),
                    "accessibility_modifier" | "override_modifier" | "readonly"
                )
            });
            let name = parameter
                .child_by_field_name("pattern")
                .filter(|p| p.kind() == "identifier");
            if let Some(name) = name.filter(|_| is_property) {
                self.names.insert(name.id());
                self.add_def(parameter, name, DefSpec::Kind(DefKind::Field), None);
            }
        }
    }

    // ------------------------------------------------------------------ references

    fn build_refs(
        &mut self,
        imports: &[Import],
        import_refs: Vec<Reference>,
        defs: &[Definition],
        containers: &[Container],
    ) -> RefList {
        // Sorted and deduplicated while still borrowed (most candidates repeat a name on its
        // line), then packed: each distinct name is copied once per file.
        self.refs.sort_unstable();
        // One use per (line, name, kind, qualifier): a bare one among them makes it bare.
        self.refs.dedup_by(|b, a| {
            let same =
                (a.line, a.name, a.kind, a.qualifier) == (b.line, b.name, b.kind, b.qualifier);
            if same {
                a.chained &= b.chained;
            }
            same
        });
        // A plain use of a name the file binds itself (`const app = express()` …
        // `app.use(…)`) means that binding, not a same-named definition elsewhere: left out,
        // it cannot become a bare-name guess into another file.
        // An imported name keeps its uses (`const { a: b } = require('./m')` binds `b` by a
        // pattern, and a function somewhere may shadow an import).
        if !self.bound.is_empty() {
            for import in imports {
                for n in &import.names {
                    self.bound.remove(n.alias.as_deref().unwrap_or(&n.name));
                }
                if let Some(namespace) = &import.namespace {
                    self.bound.remove(namespace.as_str());
                }
            }
            let bound = &self.bound;
            self.refs.retain(|r| {
                r.qualifier.is_some()
                    || !matches!(r.kind, RefKind::Reference | RefKind::Call)
                    || !bound.contains(r.name)
            });
        }
        let uses: Vec<receivers::UseAt<'_>> = self
            .refs
            .iter()
            .map(|r| receivers::UseAt {
                line: r.line,
                name: r.name,
                kind: r.kind,
                qualifier: r.qualifier,
                chained: r.chained,
            })
            .collect();
        let (receiver_of, types) =
            receivers::receivers(self.lang, self.src, &self.decls, defs, containers, &uses);
        drop(uses);
        let views = self.refs.iter().zip(&receiver_of).map(|(r, &ty)| RefView {
            line: r.line,
            name: r.name,
            kind: r.kind,
            qualifier: r.qualifier,
            receiver: ty.and_then(|t| types.get(t as usize)).map(String::as_str),
        });
        if import_refs.is_empty() {
            return RefList::from_sorted(views);
        }
        let mut all: Vec<RefView<'_>> = Vec::with_capacity(self.refs.len() + import_refs.len());
        all.extend(views);
        all.extend(import_refs.iter().map(Reference::view));
        // RefView orders by (line, name, kind, qualifier), the candidates' order.
        all.sort_unstable();
        all.dedup();
        RefList::from_sorted(all)
    }
}

/// A function written as a value: what an assignment defines a member with.
fn is_function_value(value: Node) -> bool {
    matches!(
        value.kind(),
        "function_expression" | "arrow_function" | "generator_function"
    )
}

/// Whether a member of a TS class or interface body is a method: a method definition or
/// signature, a property typed as a function in an interface (`listen?: () => void`) or
/// declared `abstract` (`abstract close: () => void`), or a class field whose value is a
/// function (`handleClick = (e: Event) => { … }`: called as a method is, with a body a map
/// shows). Other properties and fields are data.
fn member_is_method(member: Node) -> bool {
    let typed_as_function = || {
        member
            .child_by_field_name("type")
            .and_then(|t| t.named_child(0))
            .is_some_and(|t| t.kind() == "function_type")
    };
    match member.kind() {
        "method_definition" | "abstract_method_signature" | "method_signature" => true,
        "property_signature" => typed_as_function(),
        "public_field_definition" => {
            let mut cursor = member.walk();
            let is_abstract = member.children(&mut cursor).any(|c| c.kind() == "abstract");
            (is_abstract && typed_as_function())
                || member
                    .child_by_field_name("value")
                    .is_some_and(is_function_value)
        }
        _ => false,
    }
}

fn line_of(row: usize) -> u32 {
    u32::try_from(row).unwrap_or(u32::MAX - 1).saturating_add(1)
}

/// `node`'s named children of kind `kind`, in order (collected, so the caller may borrow the
/// extractor mutably while it goes through them).
fn children_of_kind<'t>(node: Node<'t>, kind: &str) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    let children = node
        .named_children(&mut cursor)
        .filter(|c| c.kind() == kind)
        .collect();
    children
}

/// A TS/JS call's argument list (`None` for a tagged template, whose `arguments` is the
/// template string).
fn call_arguments(call: Node) -> Option<Node> {
    call.child_by_field_name("arguments")
        .filter(|a| a.kind() == "arguments")
}

/// Last row that holds a byte of the node (a node ending with a newline ends at column 0).
fn end_row(node: Node) -> usize {
    let end = node.end_position();
    if end.column == 0 && end.row > node.start_position().row {
        end.row - 1
    } else {
        end.row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A comment inside a macro's value no longer hides the macro, nor what follows it.
    #[test]
    fn a_define_with_a_comment_inside_is_a_definition() {
        let src = "#define wrap(s) (/*CONSTCOND*/1)\n#define twice(x) x /* why */ + x\nint run(void) { return wrap(0); }\n";
        for lang in [Lang::C, Lang::Cpp] {
            let tags = extract_tags(lang, src);
            let names: Vec<(&str, u32)> = tags
                .defs
                .iter()
                .map(|d| (d.name.as_str(), d.lines.start))
                .collect();
            assert_eq!(names, [("wrap", 1), ("twice", 2), ("run", 3)], "{lang:?}");
            assert_eq!(tags.parse_errors, 0, "{lang:?}");
        }
    }

    /// A file parsed ahead of its query and tagged afterwards (`parse_ahead`, `finish_tags`)
    /// gets exactly the tags of one `extract_tags` call: every fixture file of every
    /// language, and C# conditional compilation, whose parser view is a copy.
    #[test]
    fn tags_parsed_ahead_are_the_tags_of_one_call() {
        let repos = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repos");
        let mut sources: Vec<(Lang, String)> = vec![(
            Lang::CSharp,
            "#if DEBUG\nclass A { void F() {} }\n#else\nclass B { void G() {} }\n#endif\n"
                .to_string(),
        )];
        let mut dirs = vec![repos];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if let Some(lang) = Lang::from_path(&path.to_string_lossy()) {
                    sources.push((lang, std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
        let langs: HashSet<Lang> = sources.iter().map(|(lang, _)| *lang).collect();
        assert_eq!(
            langs.len(),
            Lang::ALL.len(),
            "a fixture file of every language"
        );
        for (lang, source) in &sources {
            let whole = extract_tags(*lang, source);
            let parsed = parse_ahead(*lang, source).expect("fixtures parse in time");
            // A component is parsed as its scripts' language.
            assert_eq!(parsed.lang(), parser_view(*lang, source).0);
            assert_eq!(finish_tags(parsed, source), whole, "{lang:?}: {source}");
        }
        // With no query compiling, `extract_tags_or_parse` is `extract_tags`.
        let (lang, source) = &sources[0];
        match extract_tags_or_parse(*lang, source, true) {
            Tagging::Done(tags) => assert_eq!(tags, extract_tags(*lang, source)),
            Tagging::QueryCompiling(_) => panic!("no query is compiling"),
        }
    }

    /// A file the grammar cannot finish within its time budget gives no tags and one parse
    /// error (what `stats` counts), and the parser is left ready for the next file.
    #[test]
    fn out_of_time_is_one_parse_error() {
        let source = "def f(a):\n    return g(a) + [x for x in a if x]\n".repeat(20_000);
        for lang in [Lang::Python, Lang::Ruby] {
            let tags = extract_tags_until(lang, &source, CpuDeadline::passed_already());
            assert_eq!(tags.parse_errors, 1, "{lang:?}");
            assert!(tags.defs.is_empty() && tags.refs.is_empty(), "{lang:?}");
        }
        let tags = extract_tags(Lang::Python, "def f():\n    pass\n");
        assert_eq!((tags.parse_errors, tags.defs.len()), (0, 1));
    }

    #[test]
    fn an_error_cascade_is_parsed_again_without_the_broken_statement() {
        // Newline-separated generic call signatures (semicolon-free TypeScript) put the
        // rest of the file into one ERROR node: `Later` and `After` were not read.
        let overload = "  <\n    P extends string,\n    R = any,\n  >(\n    path: P,\n    \
                        handler: H<P, R>\n  ): Base<\n    E,\n    P\n  >\n";
        let source = format!(
            "export type First = {{ a: string }}\n\nexport interface Handlers<E> {{\n{}}}\n\n\
             export type Later<A> = A extends string ? A : never\n\n\
             export class After {{\n  run(): void {{}}\n}}\n",
            overload.repeat(8)
        );
        let tags = extract_tags(Lang::TypeScript, &source);
        let start_of = |name: &str| {
            tags.defs
                .iter()
                .find(|d| d.name == name)
                .map(|d| d.lines.start)
        };
        let later = source
            .lines()
            .position(|l| l.starts_with("export type Later"))
            .map(line_of);
        assert_eq!(start_of("First"), Some(1));
        assert_eq!(start_of("Handlers"), Some(3));
        assert_eq!(start_of("Later"), later);
        assert!(start_of("After").is_some() && start_of("run").is_some());
        // The errors are those of the file as written.
        assert!(tags.parse_errors > 0);
    }

    #[test]
    fn counts_error_nodes() {
        let tags = extract_tags(Lang::Python, "def f(:\n    pass\n");
        assert!(tags.parse_errors > 0);
        let tags = extract_tags(Lang::Python, "def f():\n    pass\n");
        assert_eq!(tags.parse_errors, 0);
    }

    /// The rooted query (run per node on the walk) finds exactly what a whole-tree pass finds.
    #[test]
    fn rooted_query_equals_whole_tree_query() {
        fn visit(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    visit(&path, out);
                } else {
                    out.push(path);
                }
            }
        }
        let mut files = Vec::new();
        visit(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repos"),
            &mut files,
        );
        let mut checked = 0;
        for path in files {
            let Some(lang) = Lang::from_path(&path.to_string_lossy()) else {
                continue;
            };
            let text = std::fs::read_to_string(&path).unwrap();
            // A component is its masked scripts, in their language.
            let (lang, source) = if lang.is_component() {
                let (script, view) = parser_view(lang, &text);
                (script, view.into_owned())
            } else {
                (lang, text)
            };
            let whole = TagsQuery {
                query: Query::new(&lang::grammar(lang), lang::tags_query_source(lang)).unwrap(),
                roots: None,
            };
            let deadline = CpuDeadline::after(Duration::from_mins(1));
            let tree = parse(lang, &source, deadline).unwrap();
            let expected = Extractor::new(lang, &source).run(&whole, &tree, deadline);
            let mut actual = extract_tags(lang, &source);
            actual.parse_errors = 0;
            assert_eq!(actual, expected, "{}", path.display());
            checked += usize::from(!actual.defs.is_empty());
        }
        assert!(checked >= 15, "only {checked} files with definitions");
    }

    #[test]
    fn modules_and_scripts() {
        let cases = [
            (Lang::TypeScript, "export const a = 1\n", true),
            (
                Lang::JavaScript,
                "const Object = 'x'\nexport { Object }\n",
                true,
            ),
            (
                Lang::Tsx,
                "import React from 'react'\nconst App = () => <div/>\n",
                true,
            ),
            (Lang::JavaScript, "const fs = require('fs')\n", true),
            (
                Lang::JavaScript,
                "module.exports = { test: (m) => m }\n",
                true,
            ),
            (Lang::JavaScript, "exports.run = function () {}\n", true),
            (
                Lang::JavaScript,
                "function legacy() {}\nwindow.legacy = legacy\n",
                false,
            ),
            (Lang::TypeScript, "declare const __DEV__: boolean\n", false),
            // Only the top level decides: a nested `exports.x` is not a module's export.
            (Lang::JavaScript, "function f() { exports.x = 1 }\n", false),
            // Other languages have no scripts.
            (Lang::Python, "import os\n", false),
        ];
        for (lang, src, module) in cases {
            assert_eq!(extract_tags(lang, src).module_scoped, module, "{src}");
        }
    }

    #[test]
    fn empty_source() {
        for lang in Lang::ALL {
            assert_eq!(extract_tags(lang, ""), FileTags::default());
        }
    }
}
