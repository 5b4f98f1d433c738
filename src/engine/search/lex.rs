//! A deliberately small lexer that splits source into code, comments and strings, line by
//! line, so the index can weight identifiers apart from prose. It does not need to be exact
//! (a misread regex literal only moves a few words to another field), only fast, total and
//! panic-free. Runs on rayon workers while the index is built and on the querying thread
//! when a hit's evidence line is classified.

use crate::engine::base::model::Lang;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seg {
    Code,
    Comment,
    Str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    BlockComment,
    /// A single-line string closed by this quote.
    Str(u8),
    /// A string that may span lines: JS template literal or Go raw string.
    Backtick,
    /// A Python triple-quoted string closed by three of this quote.
    Triple(u8),
}

/// Calls `f(line, kind, text)` for each maximal run of one kind within a line (1-based
/// lines). Delimiters (quotes, comment markers) are included in the run they open or close.
pub(crate) fn lex(source: &str, lang: Lang, f: impl FnMut(u32, Seg, &str)) {
    lex_lines(source.split('\n'), 1, lang, f);
}

/// `lex` over lines given one by one, the first numbered `first`: a hit's evidence line is
/// classified by lexing from the start of its chunk, so a line inside a block comment,
/// docstring or template literal is known to be one.
pub(crate) fn lex_lines<'a>(
    lines: impl Iterator<Item = &'a str>,
    first: u32,
    lang: Lang,
    mut f: impl FnMut(u32, Seg, &str),
) {
    let python = lang == Lang::Python;
    let mut state = State::Code;
    for (idx, line) in lines.enumerate() {
        let line_no = u32::try_from(idx)
            .ok()
            .and_then(|i| i.checked_add(first))
            .unwrap_or(u32::MAX);
        let b = line.as_bytes();
        let mut i = 0;
        let mut seg_start = 0;
        let mut seg_kind = kind_of(state);
        // Only single-line strings end at a newline.
        if let State::Str(_) = state {
            state = State::Code;
            seg_kind = Seg::Code;
        }
        let emit = |from: usize, to: usize, kind: Seg, f: &mut dyn FnMut(u32, Seg, &str)| {
            if to > from {
                if let Some(text) = line.get(from..to) {
                    f(line_no, kind, text);
                }
            }
        };
        while i < b.len() {
            match state {
                State::Code => {
                    let c = b[i];
                    let next = b.get(i + 1).copied();
                    let (new_state, len, line_comment) = match c {
                        b'/' if !python && next == Some(b'/') => (State::Code, 0, true),
                        b'#' if python => (State::Code, 0, true),
                        b'/' if !python && next == Some(b'*') => (State::BlockComment, 2, false),
                        b'\'' | b'"' if python && b[i..].starts_with(&[c, c, c]) => {
                            (State::Triple(c), 3, false)
                        }
                        b'\'' | b'"' => (State::Str(c), 1, false),
                        b'`' if !python => (State::Backtick, 1, false),
                        _ => {
                            i += 1;
                            continue;
                        }
                    };
                    emit(seg_start, i, Seg::Code, &mut f);
                    if line_comment {
                        emit(i, b.len(), Seg::Comment, &mut f);
                        seg_start = b.len();
                        i = b.len();
                        continue;
                    }
                    state = new_state;
                    seg_start = i;
                    seg_kind = kind_of(state);
                    i += len;
                }
                State::BlockComment => {
                    if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        i += 2;
                        emit(seg_start, i, seg_kind, &mut f);
                        state = State::Code;
                        seg_start = i;
                        seg_kind = Seg::Code;
                    } else {
                        i += 1;
                    }
                }
                State::Str(q) => {
                    if b[i] == b'\\' {
                        i += 2;
                    } else if b[i] == q {
                        i += 1;
                        emit(seg_start, i, seg_kind, &mut f);
                        state = State::Code;
                        seg_start = i;
                        seg_kind = Seg::Code;
                    } else {
                        i += 1;
                    }
                }
                State::Backtick => {
                    if b[i] == b'\\' && lang != Lang::Go {
                        i += 2;
                    } else if b[i] == b'`' {
                        i += 1;
                        emit(seg_start, i, seg_kind, &mut f);
                        state = State::Code;
                        seg_start = i;
                        seg_kind = Seg::Code;
                    } else {
                        i += 1;
                    }
                }
                State::Triple(q) => {
                    if b[i] == b'\\' {
                        i += 2;
                    } else if b[i..].starts_with(&[q, q, q]) {
                        i += 3;
                        emit(seg_start, i, seg_kind, &mut f);
                        state = State::Code;
                        seg_start = i;
                        seg_kind = Seg::Code;
                    } else {
                        i += 1;
                    }
                }
            }
        }
        emit(seg_start, b.len().min(i.max(seg_start)), seg_kind, &mut f);
    }
}

fn kind_of(state: State) -> Seg {
    match state {
        State::Code => Seg::Code,
        State::BlockComment => Seg::Comment,
        State::Str(_) | State::Backtick | State::Triple(_) => Seg::Str,
    }
}

/// A line that is only a comment (used to find doc comments above definitions).
pub(crate) fn is_comment_line(line: &str, lang: Lang) -> bool {
    let t = line.trim_start();
    if lang == Lang::Python {
        t.starts_with('#')
    } else {
        t.starts_with("//") || t.starts_with("/*") || t.starts_with('*')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segs(src: &str, lang: Lang) -> Vec<(u32, Seg, String)> {
        let mut v = Vec::new();
        lex(src, lang, |l, k, t| v.push((l, k, t.to_string())));
        v
    }

    #[test]
    fn splits_code_comments_strings() {
        let s = segs(
            "let a = \"x y\"; // note\n/* multi\nline */ b",
            Lang::TypeScript,
        );
        assert_eq!(
            s,
            vec![
                (1, Seg::Code, "let a = ".into()),
                (1, Seg::Str, "\"x y\"".into()),
                (1, Seg::Code, "; ".into()),
                (1, Seg::Comment, "// note".into()),
                (2, Seg::Comment, "/* multi".into()),
                (3, Seg::Comment, "line */".into()),
                (3, Seg::Code, " b".into()),
            ]
        );
    }

    #[test]
    fn template_literals_and_escapes() {
        let s = segs("x = `a\nb` + 'it\\'s'", Lang::JavaScript);
        assert_eq!(s[1], (1, Seg::Str, "`a".into()));
        assert_eq!(s[2], (2, Seg::Str, "b`".into()));
        assert_eq!(s[4], (2, Seg::Str, "'it\\'s'".into()));
    }

    #[test]
    fn python_comments_and_triple_quotes() {
        let s = segs(
            "def f():\n    \"\"\"Doc\n    more\"\"\"  # c\n    return 1",
            Lang::Python,
        );
        let kinds: Vec<Seg> = s.iter().map(|x| x.1).collect();
        assert_eq!(
            kinds,
            [
                Seg::Code,
                Seg::Code,
                Seg::Str,
                Seg::Str,
                Seg::Code,
                Seg::Comment,
                Seg::Code
            ]
        );
        // `//` is floor division in Python, not a comment.
        assert_eq!(
            segs("a // b", Lang::Python),
            vec![(1, Seg::Code, "a // b".into())]
        );
    }

    #[test]
    fn unterminated_strings_end_at_line_end() {
        let s = segs("a = 'oops\nb", Lang::Go);
        assert_eq!(s.last().unwrap(), &(2, Seg::Code, "b".into()));
        let _ = segs("\\", Lang::Python);
        let _ = segs("'\\", Lang::TypeScript);
        let _ = segs("\"\"\"\\", Lang::Python);
        let _ = segs("/*", Lang::Go);
    }
}
