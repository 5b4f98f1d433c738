//! Which grammar reads a `.h` header: the one of the repository's language around it. The
//! extension alone cannot say (C and C++ share it); `Lang::from_path` answers C++, whose
//! grammar reads most C, but a C project's headers then parse with errors wherever C code
//! uses a C++ keyword as a name or a C-only form (jq: 499 errors in its 23 headers). So after
//! the walk, a `.h` header is read as C when the nearest directory above it (itself first)
//! holding C or C++ sources holds more `.c` files than C++ ones (the whole tree deciding when
//! no directory on the way does), unless its own first bytes use a C++-only form (a
//! `namespace`, `template`, `class … {`, access label, `using` or `std::`). Runs on the walk's
//! calling thread, after the walk: it reads only the headers that lean to C.

use std::collections::HashMap;

use super::WalkedFile;
use crate::engine::base::guarded::{self, Follow};
use crate::engine::base::model::Lang;

/// How much of a header is read for its C++ forms: a C++ header shows one early (its
/// namespace or first class), and reading more would cost a C tree more than its parse.
const HEAD_BYTES: usize = 64 * 1024;

/// Whether a path is a `.h` header, the one extension both C and C++ use.
pub fn is_shared_header(path: &str) -> bool {
    path.rsplit_once('.')
        .is_some_and(|(_, ext)| ext.eq_ignore_ascii_case("h"))
}

/// `(c, cpp)` counts of the sources (not shared headers) directly in each directory.
fn counts_by_dir(files: &[WalkedFile]) -> HashMap<&str, (u32, u32)> {
    let mut counts: HashMap<&str, (u32, u32)> = HashMap::new();
    for f in files.iter().filter(|f| !is_shared_header(&f.rel_path)) {
        let entry = counts.entry(dir_of(&f.rel_path)).or_default();
        match f.lang {
            Lang::C => entry.0 += 1,
            Lang::Cpp => entry.1 += 1,
            _ => {}
        }
    }
    counts.retain(|_, (c, cpp)| *c + *cpp > 0);
    counts
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// Whether the C sources outnumber the C++ ones nearest to `path`.
fn leans_to_c(path: &str, counts: &HashMap<&str, (u32, u32)>, whole: (u32, u32)) -> bool {
    let mut dir = dir_of(path);
    loop {
        if let Some(&(c, cpp)) = counts.get(dir) {
            return c > cpp;
        }
        if dir.is_empty() {
            return whole.0 > whole.1;
        }
        dir = dir_of(dir);
    }
}

/// Whether a header's text uses a form only C++ has, looked for at the start of a line
/// (so that a comment or string mentioning one rarely counts).
pub fn has_cpp_forms(text: &[u8]) -> bool {
    text.split(|&b| b == b'\n').any(|line| {
        let line = line.trim_ascii_start();
        let starts = |word: &[u8]| {
            line.starts_with(word)
                && line
                    .get(word.len())
                    .is_none_or(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
        };
        starts(b"namespace")
            || starts(b"template")
            || starts(b"using")
            || line.starts_with(b"public:")
            || line.starts_with(b"private:")
            || line.starts_with(b"protected:")
            || line.starts_with(b"extern \"C++\"")
            || (starts(b"class") && !line.contains(&b';'))
            || line.windows(5).any(|w| w == b"std::")
    })
}

/// Sets the language of every shared header in `files` that the code around it and its own
/// text say is C. A header that cannot be read keeps C++ (its parse reports the failure).
pub fn settle(files: &mut [WalkedFile]) {
    if !files.iter().any(|f| is_shared_header(&f.rel_path)) {
        return;
    }
    let counts = counts_by_dir(files);
    let whole = counts
        .values()
        .fold((0, 0), |(c, cpp), &(dc, dcpp)| (c + dc, cpp + dcpp));
    let to_c: Vec<usize> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.lang == Lang::Cpp && is_shared_header(&f.rel_path))
        .filter(|(_, f)| leans_to_c(&f.rel_path, &counts, whole))
        .filter(|(_, f)| {
            guarded::read_head(&f.abs_path, HEAD_BYTES, Follow::No)
                .is_ok_and(|head| !has_cpp_forms(&head))
        })
        .map(|(i, _)| i)
        .collect();
    for i in to_c {
        files[i].lang = Lang::C;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn file(path: &str, lang: Lang) -> WalkedFile {
        WalkedFile {
            rel_path: path.to_string(),
            abs_path: PathBuf::from(path),
            lang,
            size: 0,
            mtime_ns: 0,
        }
    }

    #[test]
    fn cpp_forms() {
        assert!(has_cpp_forms(b"namespace fmt {\n"));
        assert!(has_cpp_forms(b"  template <typename T> struct X;\n"));
        assert!(has_cpp_forms(b"class Foo : public Bar {\n"));
        assert!(has_cpp_forms(b"  std::string s;\n"));
        assert!(has_cpp_forms(b" public:\n"));
        assert!(!has_cpp_forms(
            b"#ifdef __cplusplus\nextern \"C\" {\n#endif\nint jv_get(jv);\nint template_count;\n"
        ));
        assert!(!has_cpp_forms(
            b"class;\n/* a namespaced thing */\nint usingx;\n"
        ));
    }

    #[test]
    fn nearest_sources_decide() {
        let files = [
            file("src/a.c", Lang::C),
            file("src/b.c", Lang::C),
            file("src/x.h", Lang::Cpp),
            file("lib/c.cc", Lang::Cpp),
            file("lib/y.h", Lang::Cpp),
            file("include/z/z.h", Lang::Cpp),
        ];
        let counts = counts_by_dir(&files);
        let whole = (2, 1);
        assert!(leans_to_c("src/x.h", &counts, whole));
        assert!(!leans_to_c("lib/y.h", &counts, whole));
        // No sources on the way up: the whole tree decides.
        assert!(leans_to_c("include/z/z.h", &counts, whole));
        assert!(!leans_to_c("include/z/z.h", &counts, (1, 1)));
    }
}
