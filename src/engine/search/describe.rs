//! What a search hit says about itself: the definition it is, or the line of its chunk that
//! carries the most query weight, with that line's evidence kind (definition, call,
//! reference, import, text), its excerpt and symbol. Runs on the searching thread.

use super::lex::{self, Seg};
use super::tokenize::{term_hash, Tokenizer};
use super::{ChunkKind, Evidence, SearchContext, SearchIndex, NO_DEF};
use crate::engine::base::model::{DefKind, Definition, Lang, LineRange, ParsedFile, RefKind};
use crate::engine::base::text::safe_char;

/// Longest excerpt, in characters.
const MAX_EXCERPT: usize = 160;
/// Lines scanned to find a hit's evidence line.
const MAX_SCAN_LINES: u32 = 4000;

/// The definition chunk `c` is, if it is one.
pub(super) fn def_of<'a>(
    idx: &SearchIndex,
    ctx: &SearchContext<'a>,
    c: u32,
) -> Option<&'a Definition> {
    let ch = idx.chunks.get(c as usize)?;
    if ch.def == NO_DEF {
        return None;
    }
    ctx.files
        .get(ch.unit as usize)?
        .tags
        .defs
        .get(ch.def as usize)
}

/// Whether `def` only binds what an import brings in (`const x = require('./x').x`, `var
/// y = require('y')`): a variable or constant on the line of one of the file's imports. A
/// use of another file's definition, not a definition of its own.
pub(super) fn is_import_binding(file: &ParsedFile, def: &Definition) -> bool {
    matches!(def.kind, DefKind::Variable | DefKind::Constant)
        && def.lines.end - def.lines.start < 4
        && (file.imports().iter().any(|i| def.lines.contains(i.line))
            || aliases_imported_member(file, def))
}

/// Whether `def` is a one-line alias of an imported module's member of the same name (`var
/// resolve = path.resolve;`, `join = os.path.join`): the definition is the module's.
fn aliases_imported_member(file: &ParsedFile, def: &Definition) -> bool {
    if def.lines.start != def.lines.end {
        return false;
    }
    let Some(line) = file.line(def.lines.start) else {
        return false;
    };
    let Some((_, value)) = line.split_once('=') else {
        return false;
    };
    let value = value.trim().trim_end_matches(';').trim_end();
    let (Some((head, _)), Some((_, last))) = (value.split_once('.'), value.rsplit_once('.')) else {
        return false;
    };
    last == def.name
        && head != last
        && value.split('.').all(super::query::is_identifier)
        && file.imports().iter().any(|i| {
            i.namespace.as_deref() == Some(head)
                || i.names
                    .iter()
                    .any(|n| n.alias.as_deref().unwrap_or(n.name.as_str()) == head)
        })
}

/// Longest prototype read as a declaration, in lines (a signature wrapped over a few).
const DECLARATION_LINES: u32 = 8;

/// Whether `def` is a C/C++ declaration without a body: a function or method whose lines
/// hold no `{` and end with `;` (`void f(int);`, a member declared in its class, an API
/// prototype in a header, a forward declaration in a source file), whose body is elsewhere.
pub(super) fn is_declaration(file: &ParsedFile, def: &Definition) -> bool {
    let code = |n: u32| {
        file.line(n)
            .map(|l| l.split("//").next().unwrap_or(l).trim_end())
    };
    matches!(file.lang, Lang::C | Lang::Cpp)
        && matches!(def.kind, DefKind::Function | DefKind::Method)
        && def.lines.end.saturating_sub(def.lines.start) < DECLARATION_LINES
        && (def.lines.start..=def.lines.end).all(|n| code(n).is_some_and(|l| !l.contains('{')))
        && code(def.lines.end).is_some_and(|l| l.ends_with(';'))
}

pub(super) struct Described {
    pub(super) lines: LineRange,
    pub(super) excerpt: String,
    pub(super) evidence: Evidence,
    pub(super) symbol: Option<String>,
    pub(super) kind: Option<String>,
}

fn sanitize(line: &str) -> String {
    let mut out = String::new();
    for (n, c) in line.trim().chars().enumerate() {
        if n == MAX_EXCERPT {
            out.pop();
            out.push('…');
            break;
        }
        // One helper decides what may reach a terminal (`engine::base::text`); a tab is a space
        // here, where an excerpt is one short line.
        out.push(if c == '\t' { ' ' } else { safe_char(c) });
    }
    out
}

fn doc_line<'a>(idx: &SearchIndex, text: &'a str, doc: usize, n: u32) -> Option<&'a str> {
    let starts = idx.doc_lines.get(doc)?;
    let start = *starts.get(n.checked_sub(1)? as usize)? as usize;
    let end = starts
        .get(n as usize)
        .map_or(text.len(), |&e| (e as usize).saturating_sub(1));
    let line = text.get(start..end.max(start))?;
    Some(line.strip_suffix('\r').unwrap_or(line))
}

/// Weight of the distinct query terms in `text`.
fn line_weight(text: &str, terms: &[(u64, f32)], tok: &mut Tokenizer, seen: &mut Vec<u64>) -> f32 {
    seen.clear();
    let mut wsum = 0.0;
    tok.terms(text, |t, _| {
        let h = term_hash(t);
        if let Ok(i) = terms.binary_search_by_key(&h, |x| x.0) {
            if !seen.contains(&h) {
                seen.push(h);
                wsum += terms[i].1;
            }
        }
    });
    wsum
}

pub(super) fn definition_excerpt(file: &ParsedFile, def: &Definition) -> String {
    let end = def.signature.end.min(def.signature.start + 2);
    let line = (def.signature.start..=end)
        .filter_map(|n| file.line(n))
        .find(|l| l.contains(def.name.as_str()))
        .or_else(|| file.line(def.signature.start))
        .unwrap_or("");
    sanitize(line)
}

/// What chunk `c` shows as a hit: the definition it is when its name matched (`matched_name`),
/// else the line that carries the most query weight, with its evidence kind.
pub(super) fn describe(
    idx: &SearchIndex,
    ctx: &SearchContext,
    c: u32,
    matched_name: bool,
    terms: &[(u64, f32)],
    tok: &mut Tokenizer,
) -> Described {
    let ch = &idx.chunks[c as usize];
    let u = ch.unit as usize;
    let def = def_of(idx, ctx, c);
    let file = ctx.files.get(u);
    if let (Some(def), Some(file)) = (def, file) {
        if matched_name && is_import_binding(file, def) {
            return Described {
                lines: LineRange::new(def.lines.start, def.lines.start),
                excerpt: definition_excerpt(file, def),
                evidence: Evidence::Import,
                symbol: Some(def.name.clone()),
                kind: None,
            };
        }
        if matched_name {
            return Described {
                lines: def.lines,
                excerpt: definition_excerpt(file, def),
                evidence: Evidence::Definition,
                symbol: Some(def.name.clone()),
                kind: Some(def.kind.name().to_string()),
            };
        }
    }

    // Find the line that carries the most query weight.
    let doc_text = (u >= idx.n_files)
        .then(|| ctx.docs.get(u - idx.n_files))
        .flatten();
    let get_line = |n: u32| -> Option<&str> {
        match (file, doc_text) {
            (Some(f), _) => f.line(n),
            (None, Some(d)) => doc_line(idx, d.text(), u - idx.n_files, n),
            _ => None,
        }
    };
    // Lines that belong to definitions nested in this chunk are theirs, not this chunk's.
    let (a, b) = (
        idx.unit_chunks.get(u).copied().unwrap_or(0) as usize,
        idx.unit_chunks.get(u + 1).copied().unwrap_or(0) as usize,
    );
    let mut nested: Vec<(u32, u32)> = idx.chunks[a.min(b)..b]
        .iter()
        .enumerate()
        .filter(|(i, o)| {
            a + i != c as usize
                && o.kind == ChunkKind::Def
                && o.start >= ch.start
                && o.end <= ch.end
        })
        .map(|(_, o)| (o.start, o.end))
        .collect();
    nested.sort_unstable();
    let mut seen = Vec::new();
    let mut best: Option<(f32, u32)> = None;
    let last = ch.end.min(ch.start.saturating_add(MAX_SCAN_LINES));
    let mut skip = nested.iter().peekable();
    let mut skip_until = 0;
    for n in ch.start..=last {
        while let Some(&&(s0, e0)) = skip.peek() {
            if s0 > n {
                break;
            }
            skip_until = skip_until.max(e0);
            skip.next();
        }
        if n <= skip_until {
            continue;
        }
        let Some(text) = get_line(n) else { continue };
        let wsum = line_weight(text, terms, tok, &mut seen);
        if wsum > 0.0 && best.is_none_or(|b| wsum > b.0) {
            best = Some((wsum, n));
        }
    }
    let line = best.map_or(ch.start, |b| b.1);
    let text = get_line(line).unwrap_or("");
    let mut out = Described {
        lines: LineRange::new(line, line),
        excerpt: sanitize(text),
        evidence: Evidence::Text,
        symbol: None,
        kind: None,
    };
    let Some(file) = file.filter(|_| ch.kind != ChunkKind::Doc) else {
        // Prose: text evidence, with the word that matched.
        out.symbol = best_word(text, terms, tok, &mut seen);
        return out;
    };
    let matches =
        |s: &str, tok: &mut Tokenizer, seen: &mut Vec<u64>| line_weight(s, terms, tok, seen) > 0.0;

    for imp in file.imports().iter().filter(|i| i.line == line) {
        let name = imp
            .names
            .iter()
            .find(|n| {
                matches(&n.name, tok, &mut seen)
                    || n.alias
                        .as_deref()
                        .is_some_and(|a| matches(a, tok, &mut seen))
            })
            .map(|n| n.alias.clone().unwrap_or_else(|| n.name.clone()));
        let ns = imp
            .namespace
            .as_deref()
            .filter(|n| matches(n, tok, &mut seen))
            .map(str::to_string);
        let spec = matches(&imp.specifier, tok, &mut seen).then(|| imp.specifier.clone());
        if let Some(sym) = name.or(ns).or(spec) {
            out.evidence = Evidence::Import;
            out.symbol = Some(sym);
            return out;
        }
    }
    let mut best_ref: Option<(u8, &str, RefKind)> = None;
    for r in file.refs().iter().filter(|r| r.line == line) {
        if !matches(r.name, tok, &mut seen) {
            continue;
        }
        let rank = match r.kind {
            RefKind::Call => 0,
            RefKind::Import => 1,
            _ => 2,
        };
        if best_ref.is_none_or(|b| rank < b.0) {
            best_ref = Some((rank, r.name, r.kind));
        }
    }
    if let Some((_, name, kind)) = best_ref {
        out.evidence = match kind {
            RefKind::Call => Evidence::Call,
            RefKind::Import => Evidence::Import,
            _ => Evidence::Reference,
        };
        out.symbol = Some(name.to_string());
        return out;
    }
    // No tagged use on the line: is the match in code or in a comment/string? Lexed from
    // the chunk's first line, so a line inside a block comment, a docstring or a template
    // literal is known to be one.
    let mut code_word: Option<String> = None;
    let mut text_word: Option<(f32, String)> = None;
    let from = ch.start.min(line);
    lex::lex_lines(
        (from..=line).map(|n| get_line(n).unwrap_or("")),
        from,
        file.lang,
        |n, seg, piece| {
            if n != line {
                return;
            }
            for word in words(piece) {
                let wt = line_weight(word, terms, tok, &mut seen);
                if wt <= 0.0 {
                    continue;
                }
                if seg == Seg::Code {
                    if code_word.is_none() {
                        code_word = Some(word.to_string());
                    }
                } else if text_word.as_ref().is_none_or(|b| wt > b.0) {
                    text_word = Some((wt, word.to_string()));
                }
            }
        },
    );
    if let Some(word) = code_word {
        if let Some(def) = def.filter(|d| d.signature.contains(line)) {
            out.evidence = Evidence::Definition;
            out.symbol = Some(def.name.clone());
            out.kind = Some(def.kind.name().to_string());
            out.lines = def.lines;
            out.excerpt = definition_excerpt(file, def);
        } else {
            out.evidence = Evidence::Reference;
            out.symbol = Some(word);
        }
    } else {
        // Only in a comment or a string: text, showing the word that matched.
        out.symbol = text_word
            .map(|(_, w)| w)
            .or_else(|| best_word(text, terms, tok, &mut seen));
    }
    out
}

/// The words of a line as an identifier scanner sees them (`$` and `_` are word characters).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$'))
        .filter(|w| !w.is_empty())
}

/// The word of `text` that carries the most query weight (first on ties), for the symbol
/// column of a text hit.
fn best_word(
    text: &str,
    terms: &[(u64, f32)],
    tok: &mut Tokenizer,
    seen: &mut Vec<u64>,
) -> Option<String> {
    let mut best: Option<(f32, &str)> = None;
    for word in words(text) {
        let wt = line_weight(word, terms, tok, seen);
        if wt > 0.0 && best.is_none_or(|b| wt > b.0) {
            best = Some((wt, word));
        }
    }
    best.map(|(_, w)| w.to_string())
}
