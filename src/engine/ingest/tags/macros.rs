//! C++ attribute and scope macros, blanked before the parse: what the parser reads of a C++
//! file (`tags::parser_view`) when the file writes a macro where the grammar expects a
//! declaration. tree-sitter does not expand macros, and three forms break the parse of what
//! follows them:
//! - an export or attribute macro in a class head: `class LEVELDB_EXPORT EnvWrapper : public
//!   Env {` reads as a function `EnvWrapper` returning `class LEVELDB_EXPORT`, and the class
//!   body as its statements;
//! - a specifier macro before a member or function: `FMT_CONSTEXPR buffer(grow_fun grow) :
//!   size_(0) {}` ends the class body at the initializer list, and every member after it
//!   lands at the top level, out of its class;
//! - a macro alone on a line at the top level (`FMT_BEGIN_NAMESPACE`, which opens a
//!   namespace the parser cannot see) swallows the declaration after it.
//!
//! A macro here is a word in capitals, digits and underscores with at least one underscore
//! (`FMT_API`, `GTEST_API_`, `Q_INVOKABLE`; not `T`, `FILE` or `DWORD`), in a place where no
//! type can stand: in a class head between the keyword and the class's name; first on its
//! line before a keyword, a destructor, another such word, or a name that is not itself a
//! variable's (`FMT_API std::string f(`, `FMT_CONSTEXPR buffer(`, `LEVELDB_EXPORT Status
//! DestroyDB(`; not `LARGE_INTEGER size;`); alone on a line that starts at column 0.
//! Preprocessor lines, their continuations and block comments are left alone. A blanked
//! macro becomes spaces, so the text keeps its length and lines, and positions are the
//! file's. The names of macros are never looked at: the rule is the shape alone.
//!
//! Runs on rayon workers, before a C++ file's parse; a file without such a macro is
//! borrowed as is.

use std::borrow::Cow;

/// Keywords that start a declaration's specifiers or declarator: a word in capitals right
/// before one of them can only be a macro.
const DECLARATION_KEYWORDS: &[&str] = &[
    "auto",
    "bool",
    "char",
    "class",
    "const",
    "consteval",
    "constexpr",
    "constinit",
    "double",
    "enum",
    "explicit",
    "extern",
    "float",
    "friend",
    "inline",
    "int",
    "long",
    "mutable",
    "operator",
    "short",
    "signed",
    "static",
    "struct",
    "template",
    "thread_local",
    "typedef",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
];

/// The keywords that open a class head.
const CLASS_KEYWORDS: &[&str] = &["class", "struct", "union"];

/// `source` with its attribute and scope macros blanked (see the module header), borrowed
/// when it has none.
pub(super) fn without_macros(source: &str) -> Cow<'_, str> {
    let bytes = source.as_bytes();
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut continued = false;
    let mut in_comment = false;
    let mut start = 0;
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        let was_continued = continued;
        continued = line.trim_ascii_end().ends_with(b"\\");
        let was_in_comment = in_comment;
        in_comment = ends_in_comment(line, in_comment);
        let preprocessor = line.trim_ascii_start().starts_with(b"#");
        if !(was_continued || was_in_comment || preprocessor) {
            line_macros(line, start, &mut blanks);
        }
        start = end + 1;
    }
    if blanks.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut out = bytes.to_vec();
    for (from, to) in blanks {
        out[from..to].fill(b' ');
    }
    // Only ASCII letters, digits and underscores became spaces.
    String::from_utf8(out).map_or(Cow::Borrowed(source), Cow::Owned)
}

/// The macros of one line (at `offset` in the file), as byte ranges of the file.
fn line_macros(line: &[u8], offset: usize, blanks: &mut Vec<(usize, usize)>) {
    // Alone on a line at the top level.
    if let Some((word, rest)) = word_at(line, 0) {
        if is_macro(word) && code_of(&line[rest..]).is_empty() {
            blanks.push((offset, offset + word.len()));
            return;
        }
    }
    // First on its line, before what a type cannot precede.
    let mut at = line.len() - line.trim_ascii_start().len();
    while let Some((word, next)) = word_at(line, at) {
        if !is_macro(word) || !before_declaration(line, next) {
            break;
        }
        blanks.push((offset + at, offset + at + word.len()));
        at = skip_space(line, next);
    }
    // In a class head: `class MACRO Name`, `struct MACRO MACRO2 Name : Base`.
    let mut at = 0;
    while at < line.len() {
        let Some((word, next)) = word_at(line, at) else {
            at += 1;
            continue;
        };
        let boundary = at == 0 || !is_word_byte(line[at - 1]);
        if boundary && CLASS_KEYWORDS.contains(&as_str(word)) {
            let mut m = skip_space(line, next);
            while let Some((maybe, after)) = word_at(line, m) {
                if !is_macro(maybe) || !starts_class_name(line, after) {
                    break;
                }
                blanks.push((offset + m, offset + m + maybe.len()));
                m = skip_space(line, after);
            }
            at = m.max(next);
        } else {
            at = next;
        }
    }
}

/// Whether what follows a word ending at `at` is where a declaration goes on, so that the
/// word cannot be a type: a keyword, a destructor, another macro, or a name followed by a
/// name, `::`, `<` or `(`.
fn before_declaration(line: &[u8], at: usize) -> bool {
    let next = skip_space(line, at);
    if next == at {
        return false;
    }
    if line.get(next) == Some(&b'~') {
        return true;
    }
    let Some((word, after)) = word_at(line, next) else {
        return false;
    };
    if DECLARATION_KEYWORDS.contains(&as_str(word)) || is_macro(word) {
        return true;
    }
    let follow = skip_space(line, after);
    match line.get(follow) {
        Some(b'(' | b'<') => true,
        Some(b':') => line.get(follow + 1) == Some(&b':'),
        Some(&b) => follow > after && is_word_start(b),
        None => false,
    }
}

/// Whether a class's name starts after the macro ending at `at`: maybe more such macros,
/// then a name (not `final`) followed by the end of the line, `{`, a base clause (`:`, not
/// `::`) or `final`.
fn starts_class_name(line: &[u8], at: usize) -> bool {
    let next = skip_space(line, at);
    if next == at {
        return false;
    }
    let Some((name, after)) = word_at(line, next) else {
        return false;
    };
    if name == b"final" {
        return false;
    }
    if is_macro(name) && starts_class_name(line, after) {
        return true;
    }
    let follow = skip_space(line, after);
    match line.get(follow) {
        Some(b'{') => true,
        Some(b':') => line.get(follow + 1) != Some(&b':'),
        Some(_) => word_at(line, follow).is_some_and(|(w, _)| w == b"final"),
        None => true,
    }
}

/// A word in capitals, digits and underscores, with an underscore and a capital.
fn is_macro(word: &[u8]) -> bool {
    word.first().is_some_and(u8::is_ascii_uppercase)
        && word.contains(&b'_')
        && word
            .iter()
            .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// The word starting at `at` and where it ends.
fn word_at(line: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let first = *line.get(at)?;
    if !is_word_start(first) {
        return None;
    }
    let len = line[at..].iter().take_while(|&&b| is_word_byte(b)).count();
    Some((&line[at..at + len], at + len))
}

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn skip_space(line: &[u8], at: usize) -> usize {
    at + line.get(at..).map_or(0, |rest| {
        rest.iter().take_while(|b| b.is_ascii_whitespace()).count()
    })
}

fn as_str(word: &[u8]) -> &str {
    std::str::from_utf8(word).unwrap_or_default()
}

/// `text` without a trailing `//` comment and spaces.
fn code_of(text: &[u8]) -> &[u8] {
    let end = text
        .windows(2)
        .position(|w| w == b"//")
        .unwrap_or(text.len());
    text[..end].trim_ascii()
}

/// Whether a block comment is open at the end of `line` (open at its start if `open`).
/// Strings are not tracked: a `/*` inside one is rare, and the cost of a mistake is a
/// macro left as it is.
fn ends_in_comment(line: &[u8], mut open: bool) -> bool {
    let mut i = 0;
    while i + 1 < line.len() {
        match (open, &line[i..i + 2]) {
            (true, b"*/") => {
                open = false;
                i += 2;
            }
            (false, b"/*") => {
                open = true;
                i += 2;
            }
            (false, b"//") => return false,
            _ => i += 1,
        }
    }
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `src` with the words `macros` blanked: what the view should be.
    fn blanked(src: &str, macros: &[&str]) -> String {
        let mut out = src.to_owned();
        for m in macros {
            out = out.replacen(m, &" ".repeat(m.len()), 1);
        }
        out
    }

    #[track_caller]
    fn blanks(src: &str, macros: &[&str]) {
        assert_eq!(without_macros(src), blanked(src, macros), "{src}");
    }

    #[track_caller]
    fn keeps(src: &str) {
        assert!(matches!(without_macros(src), Cow::Borrowed(_)), "{src}");
    }

    #[test]
    fn export_macros_in_class_heads_are_blanked() {
        blanks(
            "class LEVELDB_EXPORT EnvWrapper : public Env {\n",
            &["LEVELDB_EXPORT"],
        );
        blanks("class FMT_API file {\n", &["FMT_API"]);
        blanks("class FMT_API file\n    : public base {\n", &["FMT_API"]);
        blanks(
            "template <typename T> struct A_EXPORT B_DEPRECATED S final {};\n",
            &["A_EXPORT", "B_DEPRECATED"],
        );
        // A name in capitals is a class's own name, not a macro.
        for src in [
            "class MY_CLASS {\n",
            "class MY_CLASS : public Base {\n",
            "class MY_CLASS final {\n",
            "enum class COLOR_KIND : int {\n",
            "struct STAT_INFO info;\n",
            "struct STAT_INFO *p = nullptr;\n",
            "template <class T_TYPE, class U> void f();\n",
            "friend class FOO_BAR;\n",
        ] {
            keeps(src);
        }
    }

    #[test]
    fn specifier_macros_first_on_a_line_are_blanked() {
        blanks(
            "  FMT_CONSTEXPR buffer(grow_fun grow) : size_(0) {}\n",
            &["FMT_CONSTEXPR"],
        );
        blanks(
            "FMT_CONSTEXPR20 ~buffer() = default;\n",
            &["FMT_CONSTEXPR20"],
        );
        blanks(
            "FMT_API FMT_INLINE auto vformat(string_view fmt) -> std::string;\n",
            &["FMT_API", "FMT_INLINE"],
        );
        blanks(
            "LEVELDB_EXPORT Status DestroyDB(const std::string& name);\n",
            &["LEVELDB_EXPORT"],
        );
        blanks("FMT_API std::string vformat();\n", &["FMT_API"]);
        blanks("FMT_EXPORT class foo {};\n", &["FMT_EXPORT"]);
        // A type in capitals declaring a variable stays, and so does a macro call.
        for src in [
            "    LARGE_INTEGER distance;\n",
            "\tCRITICAL_SECTION\tlock;\n",
            "MY_TYPE *p = get();\n",
            "MY_TYPE value = 3;\n",
            "DISALLOW_COPY_AND_ASSIGN(Foo);\n",
            "  RETURN_IF_ERROR (s);\n",
            "#define FMT_API __attribute__((visibility(\"default\"))) int\n",
        ] {
            keeps(src);
        }
    }

    #[test]
    fn a_macro_alone_on_a_top_level_line_is_blanked() {
        blanks(
            "FMT_BEGIN_NAMESPACE\nnamespace detail {\n",
            &["FMT_BEGIN_NAMESPACE"],
        );
        blanks("FMT_END_EXPORT  // done\n", &["FMT_END_EXPORT"]);
        // Indented (an enumerator, a statement), in a comment or in a macro's body: left.
        for src in [
            "enum E {\n  FIRST_VALUE,\n  LAST_VALUE\n};\n",
            "/*\nFMT_BEGIN_NAMESPACE\n*/\n",
            "#define X \\\nFMT_BEGIN_NAMESPACE\n",
        ] {
            keeps(src);
        }
    }

    #[test]
    fn the_view_keeps_length_and_lines() {
        let src = "FMT_BEGIN_NAMESPACE\nclass FMT_API file {\n  FMT_CONSTEXPR file(int fd) : fd_(fd) {}\n};\nFMT_END_NAMESPACE\n";
        let out = without_macros(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        assert!(!out.contains("FMT_"), "{out}");
    }
}
