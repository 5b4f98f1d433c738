//! Single-file components (`.vue`, `.svelte`): the text their scripts are parsed from, the
//! language those scripts are in, and the component's own definition.
//!
//! The parser reads the component *masked*: the bytes inside its `<script>` blocks as they
//! are, every other byte a space except line breaks, so positions and line numbers are the
//! component file's and the TS/JS tags path needs no mapping back. Blocks are found in one
//! pass (linear whatever the input: no search restarts from an earlier position): HTML
//! comments, `<style>` blocks and `<template>` regions (nested `<template>`s counted) are
//! stepped over, and a `<script` opens a block only at the start of a line, as a
//! component's top-level blocks are written, so `'<script>'` inside a template string is
//! markup. A block ends at the first `</script` (the HTML rule), or at the end of the file.
//! Pure functions, on whichever thread tags the file.

use crate::engine::base::model::{ContainerRef, DefKind, Definition, Lang, LineRange};

/// A component's script text and what it is written in.
#[derive(Debug, PartialEq, Eq)]
pub struct ScriptView {
    /// The component with everything outside its script blocks blanked: same length, same
    /// line breaks.
    pub text: String,
    /// TypeScript, TSX or JavaScript, from the blocks' `lang` attributes (`ts`, `tsx`,
    /// `js`, `jsx`; none is JavaScript). Blocks whose langs differ are read as TypeScript.
    pub lang: Lang,
    /// The 1-based line of the first script block's opening tag.
    pub first_script_line: Option<u32>,
}

/// The scripts of a component, masked (see the module header).
pub fn script_view(source: &str) -> ScriptView {
    let bytes = source.as_bytes();
    let mut out = vec![b' '; bytes.len()];
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' || b == b'\r' {
            out[i] = b;
        }
    }
    let mut lang: Option<Lang> = None;
    let mut first_script_line = None;
    let mut at = 0;
    while let Some(lt) = find_byte(bytes, at, b'<') {
        let rest = &bytes[lt..];
        if rest.starts_with(b"<!--") {
            at = find(bytes, lt + 4, b"-->").map_or(bytes.len(), |e| e + 3);
        } else if tag_named(rest, b"style") {
            at = find_ci(bytes, lt + 6, b"</style").unwrap_or(bytes.len());
            at = at.max(lt + 1);
        } else if tag_named(rest, b"template") {
            at = template_end(bytes, lt);
        } else if tag_named(rest, b"script") && at_line_start(bytes, lt) {
            let Some(open_end) = tag_end(bytes, lt + 7) else {
                break;
            };
            let attrs = &source[lt + 7..open_end];
            let body_start = open_end + 1;
            let body_end = find_ci(bytes, body_start, b"</script").unwrap_or(bytes.len());
            if let Some(block_lang) = block_lang(attrs) {
                out[body_start..body_end].copy_from_slice(&bytes[body_start..body_end]);
                lang = Some(match lang {
                    None => block_lang,
                    Some(l) if l == block_lang => l,
                    Some(_) => Lang::TypeScript,
                });
                if first_script_line.is_none() {
                    first_script_line = Some(line_of(bytes, lt));
                }
            }
            at = body_end.max(lt + 1);
        } else {
            at = lt + 1;
        }
    }
    // Block bounds sit on ASCII bytes and other bytes became spaces, so the text is UTF-8.
    let text = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    ScriptView {
        text,
        lang: lang.unwrap_or(Lang::JavaScript),
        first_script_line,
    }
}

/// The name a component is used by: its file's stem (`UserCard` from `UserCard.vue`), in
/// PascalCase when the stem is kebab- or snake-case (`user-card.vue` is imported and used
/// as `UserCard`), and the folder's name for an `index` file (`UserCard/index.vue`, as an
/// import of the folder names it). `None` when that is no identifier (SvelteKit's
/// `+page.svelte`).
pub fn component_name(path: &str) -> Option<String> {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let stem = if stem.eq_ignore_ascii_case("index") {
        dir.rsplit('/').next().filter(|d| !d.is_empty())?
    } else {
        stem
    };
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    if stem.is_empty() || !stem.chars().all(|c| ident(c) || c == '-' || c == '.') {
        return None;
    }
    if !stem.contains(['-', '.']) {
        return (!stem.starts_with(|c: char| c.is_ascii_digit())).then(|| stem.to_string());
    }
    let mut name = String::with_capacity(stem.len());
    for part in stem.split(['-', '.', '_']).filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            name.push(first.to_ascii_uppercase());
            name.extend(chars);
        }
    }
    (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
}

/// The component's own definition: a class named `component_name`, over the whole file,
/// whose signature is the first script block's opening tag (the first line without one).
pub fn component_definition(path: &str, source: &str, view: &ScriptView) -> Option<Definition> {
    let name = component_name(path)?;
    let lines = u32::try_from(source.lines().count())
        .unwrap_or(u32::MAX)
        .max(1);
    let line = view.first_script_line.unwrap_or(1);
    Some(Definition {
        name,
        kind: DefKind::Class,
        lines: LineRange::new(line, lines),
        signature: LineRange::new(line, line),
        parent: None,
        scope_lines: Vec::new(),
        container: ContainerRef::NONE,
        declaration: false,
        lookup_only: false,
    })
}

/// The language of one script block from its attributes; `None` for a block that holds no
/// TS or JS (`lang="coffee"`, `type="text/x-template"`).
fn block_lang(attrs: &str) -> Option<Lang> {
    if let Some(kind) = attribute(attrs, "type") {
        let kind = kind.to_ascii_lowercase();
        let script = [
            "javascript",
            "ecmascript",
            "module",
            "typescript",
            "ts",
            "jsx",
            "babel",
        ];
        if !kind.is_empty() && !script.iter().any(|s| kind.contains(s)) {
            return None;
        }
    }
    match attribute(attrs, "lang")
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("" | "js" | "jsx" | "javascript" | "mjs") => Some(Lang::JavaScript),
        Some("ts" | "typescript" | "mts") => Some(Lang::TypeScript),
        Some("tsx") => Some(Lang::Tsx),
        Some(_) => None,
    }
}

/// The value of attribute `name` in an opening tag's attribute text: quoted with `"` or
/// `'`, or bare; `Some("")` for an attribute without a value.
fn attribute<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    let b = attrs.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        let key_start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'=' && b[i] != b'/' {
            i += 1;
        }
        let key = &attrs[key_start..i];
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let mut value = "";
        if i < b.len() && b[i] == b'=' {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                let quote = b[i];
                let start = i + 1;
                let end = find_byte(b, start, quote).unwrap_or(b.len());
                value = &attrs[start..end];
                i = end + 1;
            } else {
                let start = i;
                while i < b.len() && !b[i].is_ascii_whitespace() {
                    i += 1;
                }
                value = &attrs[start..i];
            }
        }
        if key.eq_ignore_ascii_case(name) {
            return Some(value.trim());
        }
        if i == key_start {
            i += 1;
        }
    }
    None
}

/// Whether `rest` starts with the tag `<name` followed by a space, `>` or `/`.
fn tag_named(rest: &[u8], name: &[u8]) -> bool {
    rest.len() > name.len() + 1
        && rest[1..=name.len()].eq_ignore_ascii_case(name)
        && matches!(
            rest[name.len() + 1],
            b'>' | b'/' | b' ' | b'\t' | b'\n' | b'\r'
        )
}

/// Whether only spaces and tabs stand between the line's start and `at`.
fn at_line_start(bytes: &[u8], at: usize) -> bool {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|&&b| b != b'\n')
        .all(|&b| b == b' ' || b == b'\t')
}

/// The `>` that ends an opening tag whose attributes start at `from`, outside quotes.
fn tag_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate().skip(from) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return Some(i),
            None => {}
        }
    }
    None
}

/// Where the `<template>` region opened at `open` ends: past its matching `</template`,
/// nested `<template>`s counted; the end of the file when it never closes.
fn template_end(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut at = open;
    while let Some(lt) = find_byte(bytes, at, b'<') {
        let rest = &bytes[lt..];
        if tag_named(rest, b"template") {
            depth += 1;
        } else if rest.len() > 10 && rest[..10].eq_ignore_ascii_case(b"</template") {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return lt + 10;
            }
        }
        at = lt + 1;
    }
    bytes.len()
}

fn line_of(bytes: &[u8], at: usize) -> u32 {
    // The pieces between line breaks before `at`: its 1-based line.
    let line = bytes[..at].split(|&b| b == b'\n').count();
    u32::try_from(line).unwrap_or(u32::MAX)
}

fn find_byte(bytes: &[u8], from: usize, byte: u8) -> Option<usize> {
    bytes
        .get(from..)?
        .iter()
        .position(|&b| b == byte)
        .map(|p| p + from)
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// `find`, ASCII case aside.
fn find_ci(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VUE: &str = "<template>\n  <div>{{ user.name }}</div>\n</template>\n\n<script setup lang=\"ts\">\nimport { ref } from 'vue'\nconst count = ref(0)\n</script>\n\n<style scoped>\n.a { color: red }\n</style>\n";

    #[test]
    fn masking_keeps_lengths_lines_and_script_bytes() {
        let view = script_view(VUE);
        assert_eq!(view.text.len(), VUE.len());
        assert_eq!(view.lang, Lang::TypeScript);
        assert_eq!(view.first_script_line, Some(5));
        let lines: Vec<&str> = view.text.lines().collect();
        assert_eq!(lines.len(), VUE.lines().count());
        assert_eq!(lines[5], "import { ref } from 'vue'");
        assert_eq!(lines[6], "const count = ref(0)");
        assert!(lines[1].trim().is_empty() && lines[10].trim().is_empty());
        assert!(!view.text.contains("<script") && !view.text.contains("color"));
    }

    #[test]
    fn script_and_script_setup_share_one_language() {
        let both = "<script lang='ts'>\nexport default { name: 'A' }\n</script>\n<script setup lang=\"ts\">\nconst a = 1\n</script>\n";
        let view = script_view(both);
        assert_eq!(view.lang, Lang::TypeScript);
        assert!(view.text.contains("export default") && view.text.contains("const a = 1"));
        // Langs that differ are read as TypeScript; none at all is JavaScript.
        let mixed = "<script>\nexport default {}\n</script>\n<script setup lang=\"tsx\">\nconst a = 1\n</script>\n";
        assert_eq!(script_view(mixed).lang, Lang::TypeScript);
        assert_eq!(
            script_view("<script>\nlet a\n</script>\n").lang,
            Lang::JavaScript
        );
        assert_eq!(
            script_view("<script setup lang=tsx>\n</script>\n").lang,
            Lang::Tsx
        );
        assert_eq!(
            script_view("<script lang=\"jsx\">\n</script>\n").lang,
            Lang::JavaScript
        );
    }

    #[test]
    fn svelte_module_context_and_attribute_order() {
        let svelte = "<script context=\"module\" lang=\"ts\">\nexport const prerender = true\n</script>\n\n<script lang='ts' >\n  export let name: string\n</script>\n\n<h1>Hello {name}</h1>\n";
        let view = script_view(svelte);
        assert_eq!(view.lang, Lang::TypeScript);
        assert!(view.text.contains("export const prerender = true"));
        assert!(view.text.contains("export let name: string"));
        assert!(!view.text.contains("Hello"));
        assert_eq!(view.first_script_line, Some(1));
    }

    #[test]
    fn blocks_that_hold_no_script_are_masked() {
        let coffee = "<script lang=\"coffee\">\nx = 1\n</script>\n<script type=\"text/x-template\">\n<div/>\n</script>\n";
        let view = script_view(coffee);
        assert!(view.text.trim().is_empty());
        assert_eq!(view.first_script_line, None);
        assert_eq!(view.lang, Lang::JavaScript);
    }

    #[test]
    fn no_script_at_all() {
        let view = script_view("<template>\n  <p>hi</p>\n</template>\n");
        assert!(view.text.trim().is_empty());
        assert_eq!(view.first_script_line, None);
        let def = component_definition("src/Hello.vue", "<template>\n<p/>\n</template>\n", &view)
            .unwrap();
        assert_eq!((def.name.as_str(), def.kind), ("Hello", DefKind::Class));
        assert_eq!((def.signature.start, def.lines.end), (1, 3));
    }

    #[test]
    fn script_text_inside_the_template_is_markup() {
        let src = "<template>\n  <p v-html=\"'<script>alert(1)</script>'\"></p>\n  <template v-if=\"a\">\n<script>x()</script>\n  </template>\n</template>\n<script>\nexport const real = 1\n</script>\n";
        let view = script_view(src);
        assert!(!view.text.contains("alert") && !view.text.contains("x()"));
        assert!(view.text.contains("export const real = 1"));
        assert_eq!(view.first_script_line, Some(7));
        // A `</script>` in a string of the template, outside any template region (Svelte).
        let svelte = "<p title=\"</script>\">a</p>\n<script>\nlet b = '<div>'\n</script>\n";
        let view = script_view(svelte);
        assert!(view.text.contains("let b = '<div>'"));
    }

    #[test]
    fn hostile_inputs_never_panic_and_stay_linear() {
        for src in [
            "<script",
            "<script lang=\"ts",
            "<script lang='ts'>\nlet a = 1",
            "<template><template><template>",
            "<!--",
            "<style>",
            "<",
            "<script>é</script>",
            "é<script>\n",
            "\n<script lang=\"ts\" setup generic=\"T extends Record<string, '>'>\">\nlet t: T\n</script>",
        ] {
            let view = script_view(src);
            assert_eq!(view.text.len(), src.len(), "{src}");
        }
        let unclosed = script_view("<script lang='ts'>\nlet a = 1\n");
        assert_eq!(unclosed.text, "                  \nlet a = 1\n");
        let generic =
            script_view("<script lang=\"ts\" setup generic=\"T extends Record<string, '>'>\">\nlet t: T\n</script>");
        assert!(generic.text.contains("let t: T") && !generic.text.contains("generic"));
        // A huge template of tags, quotes and `<script` fragments: one pass each.
        let mut huge = String::from("<template>\n");
        for i in 0..20_000 {
            huge.push_str(&format!(
                "<div a=\"'{i}\" b='\"'><script x</div><template>\n"
            ));
        }
        huge.push_str("<script>\n");
        let start = std::time::Instant::now();
        let view = script_view(&huge);
        assert_eq!(view.text.len(), huge.len());
        let lone = "<script\n".repeat(50_000);
        let view2 = script_view(&lone);
        assert_eq!(view2.text.len(), lone.len());
        let quotes = format!("<script a=\"{}", "'".repeat(200_000));
        assert_eq!(script_view(&quotes).text.len(), quotes.len());
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
        assert!(view.first_script_line.is_none());
    }

    #[test]
    fn component_names() {
        assert_eq!(
            component_name("src/components/UserCard.vue").as_deref(),
            Some("UserCard")
        );
        assert_eq!(
            component_name("src/components/user-card.vue").as_deref(),
            Some("UserCard")
        );
        assert_eq!(
            component_name("src/UserCard/index.vue").as_deref(),
            Some("UserCard")
        );
        assert_eq!(component_name("Button.svelte").as_deref(), Some("Button"));
        assert_eq!(component_name("src/routes/+page.svelte"), None);
        assert_eq!(component_name("index.vue"), None);
    }
}
