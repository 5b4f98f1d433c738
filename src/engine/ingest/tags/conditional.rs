//! C# conditional compilation, as the parser should see it: only the first branch of each
//! `#if … #elif/#else … #endif` chain. Pure; runs on rayon workers inside `extract_tags`.
//!
//! Why: tree-sitter-c-sharp reads preprocessor directives as comments between tokens, so both
//! branches of a chain are parsed as one stream of code. Where the branches hold alternative
//! halves of one construct (two headers of a method sharing one body, two `using` lists of
//! which one ends in `#else`), the stream is not C#, and the error swallows what follows: in
//! Newtonsoft.Json 42 of 944 files lost their `namespace` (and with it their imports), their
//! namespace path becoming plain references. Keeping the first branch is what a build with
//! every first condition true compiles; the other branches and the `#if`/`#elif`/`#else`/
//! `#endif` lines themselves are blanked byte for byte (newlines kept), so every position, line
//! number and signature is the original file's, and the condition symbols are no references.
//!
//! A directive is a line whose first non-blank character is `#`. Lines inside a verbatim or
//! raw string can look like one; when the directives do not nest (an `#endif` without its
//! `#if`, or a chain still open at the end) the file is parsed as it is.

use std::borrow::Cow;

/// The source with the directives of each conditional chain and every branch but the first
/// blanked, or the source itself when it has none (or its directives do not nest).
pub(super) fn first_branches(source: &str) -> Cow<'_, str> {
    if !source.contains("#if") {
        return Cow::Borrowed(source);
    }
    // Per open `#if`: whether its first branch has ended (an `#elif`/`#else` was seen).
    let mut open: Vec<bool> = Vec::new();
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let inactive = open.iter().any(|&past_first| past_first);
        let directive = directive(line);
        match directive {
            Some(Directive::If) => open.push(false),
            Some(Directive::Else) => match open.last_mut() {
                Some(past_first) => *past_first = true,
                None => return Cow::Borrowed(source),
            },
            Some(Directive::EndIf) if open.pop().is_none() => return Cow::Borrowed(source),
            Some(Directive::EndIf) | None => {}
        }
        // The directives go too: the grammar reads an `#if … #endif` among members as one
        // node that must hold whole members, which a first branch holding only a method's
        // header is not; without them the kept lines are plain code.
        if inactive || directive.is_some() {
            let body = line.trim_end_matches(['\n', '\r']).len();
            blank.push((start, start + body));
        }
    }
    if !open.is_empty() || blank.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut bytes = source.as_bytes().to_vec();
    for (from, to) in blank {
        bytes[from..to].fill(b' ');
    }
    // Whole lines were blanked, so no multi-byte character was cut.
    match String::from_utf8(bytes) {
        Ok(masked) => Cow::Owned(masked),
        Err(_) => Cow::Borrowed(source),
    }
}

#[derive(Clone, Copy)]
enum Directive {
    If,
    Else,
    EndIf,
}

fn directive(line: &str) -> Option<Directive> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let word_end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    match &rest[..word_end] {
        "if" => Some(Directive::If),
        "elif" | "else" => Some(Directive::Else),
        "endif" => Some(Directive::EndIf),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::first_branches;

    /// The lines that keep any text.
    fn kept(src: &str) -> Vec<String> {
        first_branches(src)
            .lines()
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect()
    }

    #[test]
    fn keeps_the_first_branch_and_every_position() {
        let src = "using A;\n#if X\nvoid F()\n#else\nvoid G()\n#endif\n{ }\n";
        let out = first_branches(src);
        assert_eq!(
            out,
            "using A;\n     \nvoid F()\n     \n        \n      \n{ }\n"
        );
        assert_eq!(out.len(), src.len());
        // A chain without `#else` loses only its directive lines.
        assert_eq!(kept("#if DEBUG\nvoid F();\n#endif\n"), ["void F();"]);
    }

    #[test]
    fn elif_chains_and_nesting() {
        let src = "#if A\na\n#elif B\nb\n#if C\nc\n#endif\n#else\nd\n#endif\ne\n";
        assert_eq!(kept(src), ["a", "e"]);
        // Nested chains inside a kept branch keep their own first branch only.
        let src = "#if A\n  #if B\nb\n  #else\nnb\n  #endif\n#endif\n#region R\n";
        assert_eq!(kept(src), ["b", "#region R"]);
    }

    #[test]
    fn unbalanced_or_branchless_sources_are_untouched() {
        for src in [
            "#if A\na\n#else\nb\n",
            "#endif\n#else\nx\n",
            "#region R\nclass C {}\n#endregion\n",
            "class C {}\n",
            "",
        ] {
            assert!(
                matches!(first_branches(src), std::borrow::Cow::Borrowed(_)),
                "{src:?}"
            );
        }
    }

    #[test]
    fn crlf_and_multibyte_lines() {
        let src = "#if A\r\nà\r\n#else\r\né ü\r\n#endif\r\n";
        let out = first_branches(src);
        assert_eq!(out, "     \r\nà\r\n     \r\n     \r\n      \r\n");
    }
}
