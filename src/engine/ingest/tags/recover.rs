//! Recovery from an error cascade: a parse in which one syntax error swallowed a large part
//! of the file (one ERROR node over hundreds of lines) is parsed again with the statement
//! that broke blanked out, so the declarations after it are read.
//!
//! Runs on rayon workers, inside `tags::parse_recovering`. Why: tree-sitter usually recovers
//! from an error within a few tokens, but some constructs leave it in a state it never leaves.
//! A TypeScript interface whose generic call signatures are separated by newlines alone (no
//! `;`, as semicolon-free code is formatted) puts every line after the first such signature
//! into one ERROR node, so a 2,800-line file yielded its first 150 lines' definitions and
//! none of the types below. Blanking keeps every byte offset and line of the file (each
//! blanked byte becomes a space, line breaks stay), so positions and signatures stay the
//! file's: the parser's view changes, not the file.
//!
//! What is blanked: from the line of the first error in the file (the first MISSING node, or
//! the first ERROR leaf) up to the next line that starts in column 0, where top-level
//! statements and the braces closing them start in the languages mapscope reads. What was
//! inside the broken statement after the error is lost; without this, everything after it
//! was. Rounds go on while a cascade is left (at most `MAX_ROUNDS`); the result is kept only
//! when no large ERROR node at all is left and the view has fewer errors than the file.
//!
//! What is a cascade (`has_cascade`): a large ERROR node with no whole statement or
//! declaration after its first error. A large ERROR in which tree-sitter did find its footing
//! again (a C header whose `#ifndef` guard became the ERROR around declarations that parse
//! fine) is left alone: its definitions are read, and re-parsing it would only cost time.

use tree_sitter::{Node, Tree};

/// An ERROR node spanning at least this many lines is a cascade worth a second parse. Errors
/// tree-sitter recovered from span a line or a few; a file whose error is smaller keeps its
/// single parse.
pub(super) const CASCADE_MIN_LINES: usize = 50;

/// A file longer than this (bytes) keeps its first parse: each round parses it again, and
/// the files this long are amalgamations and generated tables rather than the hand-written
/// modules a cascade hides.
pub(super) const MAX_RECOVERED_LEN: usize = 256 * 1024;

/// At most this many re-parses per file, each with one more statement blanked.
pub(super) const MAX_ROUNDS: usize = 8;

/// The ERROR node spanning the most lines in `tree`, visiting only the subtrees that contain
/// errors; `None` without errors.
fn largest_error(tree: &Tree) -> Option<Node<'_>> {
    let root = tree.root_node();
    if !root.has_error() {
        return None;
    }
    let mut largest: Option<Node<'_>> = None;
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() && largest.is_none_or(|l| lines_spanned(node) > lines_spanned(l)) {
            largest = Some(node);
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return largest;
            }
        }
    }
}

/// The number of lines of `tree`'s largest ERROR node (0 without errors).
pub(super) fn largest_error_span(tree: &Tree) -> usize {
    largest_error(tree).map_or(0, lines_spanned)
}

/// Whether `tree` has an error cascade worth a second parse: an ERROR node over
/// `CASCADE_MIN_LINES` lines in which tree-sitter never found its footing again after the
/// first error, that is, no statement or declaration after that error's line came out whole
/// (a node of a kind ending in `_statement`, `_declaration`, `_definition` or `_item`, the
/// grammars' names for them, without an error inside). A large ERROR that does hold whole
/// declarations after its first error is one tree-sitter recovered inside (a C header whose
/// `#ifndef` guard became the ERROR): its definitions are read, and a second parse would
/// only cost time.
pub(super) fn has_cascade(tree: &Tree) -> bool {
    let Some(error) = largest_error(tree) else {
        return false;
    };
    if lines_spanned(error) < CASCADE_MIN_LINES {
        return false;
    }
    let Some(first) = first_error_row(tree) else {
        return false;
    };
    let mut cursor = error.walk();
    let resynchronized = error.named_children(&mut cursor).any(|child| {
        child.start_position().row > first
            && !child.has_error()
            && ["_statement", "_declaration", "_definition", "_item"]
                .iter()
                .any(|suffix| child.kind().ends_with(suffix))
    });
    !resynchronized
}

fn lines_spanned(node: Node<'_>) -> usize {
    node.end_position()
        .row
        .saturating_sub(node.start_position().row)
}

/// The row of the first error in document order: a MISSING node, or an ERROR node with no
/// error inside it (an ERROR that holds others is where the cascade ends up, not where it
/// began).
fn first_error_row(tree: &Tree) -> Option<usize> {
    let mut cursor = tree.root_node().walk();
    loop {
        let node = cursor.node();
        if node.is_missing() {
            return Some(node.start_position().row);
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        if node.is_error() {
            return Some(node.start_position().row);
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// `source` with the statement holding `tree`'s first error blanked from the error's line to
/// the next line starting in column 0; `None` when there is no such line (the error is in the
/// file's last statement: nothing after it to win back).
pub(super) fn blank_first_error(source: &str, tree: &Tree) -> Option<String> {
    let row = first_error_row(tree)?;
    let bytes = source.as_bytes();
    let from = line_start(bytes, row)?;
    let to = next_column_zero_line(bytes, from)?;
    let mut view = bytes.to_vec();
    for b in &mut view[from..to] {
        // Line breaks stay (positions are the file's); a multi-byte character becomes as
        // many spaces as it has bytes, so the view stays valid UTF-8 of the same length.
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
    String::from_utf8(view).ok()
}

/// Byte offset where line `row` (0-based) starts.
fn line_start(bytes: &[u8], row: usize) -> Option<usize> {
    if row == 0 {
        return Some(0);
    }
    memchr::memchr_iter(b'\n', bytes)
        .nth(row - 1)
        .map(|nl| nl + 1)
}

/// The start of the first line after the one starting at `from` whose first byte is not
/// whitespace.
fn next_column_zero_line(bytes: &[u8], from: usize) -> Option<usize> {
    memchr::memchr_iter(b'\n', &bytes[from..])
        .map(|nl| from + nl + 1)
        .find(|&start| {
            bytes
                .get(start)
                .is_some_and(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(lang: tree_sitter::Language, source: &str) -> Tree {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&lang).expect("grammar loads");
        parser.parse(source, None).expect("parses")
    }

    #[test]
    fn blanks_from_the_first_error_to_the_next_column_zero_line() {
        let source = "fn a() {}\nfn b( {\n  let x = ;\n  y\n}\nfn c() {}\n";
        let tree = parse(tree_sitter_rust::LANGUAGE.into(), source);
        let view = blank_first_error(source, &tree).expect("an error to blank");
        assert_eq!(view.len(), source.len());
        assert_eq!(view.lines().count(), source.lines().count());
        assert!(view.starts_with("fn a() {}\n"));
        assert!(view.ends_with("\n}\nfn c() {}\n"), "{view:?}");
        assert!(!view.contains("let x"));
    }

    #[test]
    fn nothing_to_blank_in_a_clean_parse_or_in_the_last_statement() {
        let clean = "fn a() {}\n";
        assert!(!has_cascade(&parse(
            tree_sitter_rust::LANGUAGE.into(),
            clean
        )));
        assert!(
            blank_first_error(clean, &parse(tree_sitter_rust::LANGUAGE.into(), clean)).is_none()
        );
        let last = "fn a() {}\nfn b( {\n  let x = ;\n";
        let tree = parse(tree_sitter_rust::LANGUAGE.into(), last);
        assert!(blank_first_error(last, &tree).is_none());
    }

    #[test]
    fn multi_byte_characters_blank_to_as_many_spaces() {
        let source = "fn a() {}\nfn b( { \"é\" ;\n}\nfn c() {}\n";
        let tree = parse(tree_sitter_rust::LANGUAGE.into(), source);
        let view = blank_first_error(source, &tree).expect("an error to blank");
        assert_eq!(view.len(), source.len());
        assert!(!view.contains('é'));
    }
}
