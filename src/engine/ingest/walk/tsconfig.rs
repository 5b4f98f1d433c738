//! `tsconfig.json` / `jsconfig.json`: the walk reads their `compilerOptions.paths` and
//! `compilerOptions.baseUrl` (`TsPaths`), which decide what a bare TS/JS specifier such as
//! `@app/x` names (`link::resolve`).
//!
//! The files are JSONC (comments, trailing commas), which `serde_json` rejects: `strip_jsonc`
//! turns them into plain JSON first. An `extends` chain is followed inside the repository
//! (a monorepo's packages inherit `paths` from a root `tsconfig.base.json`); a base in
//! `node_modules` is not (it never sets aliases for the tree's own folders).

use std::path::Path;

use crate::engine::base::guarded::{self, Follow};
use crate::engine::base::model::TsPaths;
use crate::engine::base::paths::normalize_join;
use crate::engine::ingest::content::strip_bom;

/// The config file names read for TS/JS path aliases.
pub const TS_CONFIGS: [&str; 2] = ["tsconfig.json", "jsconfig.json"];

/// Configs above this size are not parsed (real ones are a few KiB).
const MAX_TS_CONFIG_SIZE: u64 = 256 * 1024;

/// Patterns kept per config, and targets per pattern: a bound on what a hostile file costs
/// every bare import of the files it governs.
const MAX_PATTERNS: usize = 512;
const MAX_TARGETS: usize = 16;

/// Whether `name` is a file name whose `paths` the walk reads.
pub fn is_ts_config_name(name: &str) -> bool {
    TS_CONFIGS.contains(&name)
}

/// Whether `name` may be a config the walk reads or one a config `extends`
/// (`tsconfig.base.json`, `tsconfig.app.json`): a change to one can change aliases. A base
/// with another name is taken in by the next rescan.
pub fn is_ts_config_family(name: &str) -> bool {
    (name.starts_with("tsconfig") || name.starts_with("jsconfig")) && name.ends_with(".json")
}

/// Reads the config at `path` (bounded, never following a link) in folder `dir` of the
/// repository at `root`, with the configs it `extends` inside the repository; `None` when
/// unreadable, not JSONC, or without `paths` and `baseUrl` of its own or inherited.
pub(crate) fn read_ts_config(root: &Path, path: &Path, dir: &str) -> Option<TsPaths> {
    let text = read_config_text(path)?;
    parse_ts_config(dir, &text, &mut |rel| read_inside(root, rel))
}

/// A config file's text: bounded, never through a link, BOM dropped.
fn read_config_text(path: &Path) -> Option<String> {
    let bytes = guarded::read(path, MAX_TS_CONFIG_SIZE, Follow::No).ok()?;
    Some(String::from_utf8_lossy(strip_bom(&bytes)).into_owned())
}

/// The text of the repository file `rel` under `root`, read only when no folder on the way
/// is a symbolic link: an `extends` through a linked folder would read outside the tree.
fn read_inside(root: &Path, rel: &str) -> Option<String> {
    let mut at = root.to_path_buf();
    let (folders, _) = rel.rsplit_once('/').unwrap_or(("", rel));
    for part in folders.split('/').filter(|p| !p.is_empty()) {
        at.push(part);
        if !std::fs::symlink_metadata(&at).ok()?.is_dir() {
            return None;
        }
    }
    read_config_text(&root.join(rel))
}

/// How many configs an `extends` chain may visit: real chains are one to three deep, and
/// the bound ends a cycle (`a` extends `b` extends `a`), which `tsc` reports as an error.
const MAX_EXTENDS: usize = 8;

/// `compilerOptions.paths`: each pattern and its targets, in the file's order.
type PathPatterns = Vec<(String, Vec<String>)>;

/// One config's own alias settings, each with the folder of the config that set it: a
/// relative `baseUrl`, and `paths` without a `baseUrl`, are relative to that config.
#[derive(Default)]
struct Inherited {
    base_url: Option<(String, String)>,
    paths: Option<(String, PathPatterns)>,
}

/// The `TsPaths` of a config's text found in folder `dir`: `None` when it is not an object
/// of JSONC, or neither it nor a config it `extends` sets `compilerOptions.paths` or
/// `compilerOptions.baseUrl`, or the `baseUrl` leaves the repository. `load` gives the text
/// of a repository file (`extends` targets inside the tree: `./base.json`,
/// `../../tsconfig.base.json`; a package name, which lives in `node_modules`, is not
/// followed). As in `tsc`, a config's own option wins over an inherited one, `paths` is
/// replaced whole rather than merged, and of several `extends` the later wins. Malformed
/// entries (a target that is not a string, a pattern with two `*`) are dropped one by one,
/// as `tsc` reports and ignores them.
pub fn parse_ts_config(
    dir: &str,
    text: &str,
    load: &mut dyn FnMut(&str) -> Option<String>,
) -> Option<TsPaths> {
    let mut found = Inherited::default();
    let mut budget = MAX_EXTENDS;
    collect_options(dir, text, load, &mut found, &mut budget)?;
    let base_url = match found.base_url {
        Some((config_dir, url)) => Some(join_inside(&config_dir, &url)?),
        None => None,
    };
    let (paths_dir, paths) = found.paths.unwrap_or_default();
    if paths.is_empty() && base_url.is_none() {
        return None;
    }
    Some(TsPaths {
        dir: dir.to_string(),
        base_url: base_url.is_some(),
        // With a `baseUrl`, targets are relative to it; without, to the config that set
        // `paths` (TypeScript 4.1+).
        base: base_url.unwrap_or(paths_dir),
        paths,
    })
}

/// Fills what `found` still lacks from the config `text` in folder `dir`, then from the
/// configs it extends (the last first). `None` when `text` is not a JSONC object; a base
/// that is missing or malformed is passed over, as it adds nothing.
fn collect_options(
    dir: &str,
    text: &str,
    load: &mut dyn FnMut(&str) -> Option<String>,
    found: &mut Inherited,
    budget: &mut usize,
) -> Option<()> {
    let value: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).ok()?;
    let value = value.as_object()?;
    let options = value.get("compilerOptions").and_then(|o| o.as_object());
    if found.base_url.is_none() {
        if let Some(url) = options
            .and_then(|o| o.get("baseUrl"))
            .and_then(|b| b.as_str())
        {
            found.base_url = Some((dir.to_string(), url.to_string()));
        }
    }
    if found.paths.is_none() {
        if let Some(map) = options
            .and_then(|o| o.get("paths"))
            .and_then(|p| p.as_object())
        {
            found.paths = Some((dir.to_string(), read_paths(map)));
        }
    }
    let extends: Vec<&str> = match value.get("extends") {
        Some(serde_json::Value::String(one)) => vec![one.as_str()],
        Some(serde_json::Value::Array(many)) => many.iter().filter_map(|e| e.as_str()).collect(),
        _ => Vec::new(),
    };
    for spec in extends.into_iter().rev() {
        if (found.base_url.is_some() && found.paths.is_some()) || *budget == 0 {
            break;
        }
        *budget -= 1;
        let Some((base_rel, base_text)) = load_extended(dir, spec, load) else {
            continue;
        };
        let base_dir = base_rel.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        // A malformed base contributes nothing; the child's own options stand.
        let _ = collect_options(&base_dir, &base_text, load, found, budget);
    }
    Some(())
}

/// The repository path and text of the config `spec` names from folder `dir`: a relative
/// path (`./base`, `../tsconfig.base.json`), with `.json` added when the name as given does
/// not load, as `tsc` does. `None` for a package name, an absolute path, or a file that is
/// missing or outside the tree.
fn load_extended(
    dir: &str,
    spec: &str,
    load: &mut dyn FnMut(&str) -> Option<String>,
) -> Option<(String, String)> {
    if !(spec.starts_with("./") || spec.starts_with("../")) {
        return None;
    }
    let rel = join_inside(dir, spec)?;
    if let Some(text) = load(&rel) {
        return Some((rel, text));
    }
    if rel.ends_with(".json") {
        return None;
    }
    let rel = format!("{rel}.json");
    load(&rel).map(|text| (rel, text))
}

/// `compilerOptions.paths`: each pattern with at most one `*` and its string targets with
/// at most one `*`, bounded; a pattern left with no target is dropped.
fn read_paths(map: &serde_json::Map<String, serde_json::Value>) -> PathPatterns {
    let mut paths = Vec::new();
    for (pattern, targets) in map.iter().take(MAX_PATTERNS) {
        if pattern.matches('*').count() > 1 {
            continue;
        }
        let targets: Vec<String> = targets
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str())
            .filter(|t| t.matches('*').count() <= 1)
            .take(MAX_TARGETS)
            .map(str::to_string)
            .collect();
        if !targets.is_empty() {
            paths.push((pattern.clone(), targets));
        }
    }
    paths
}

/// `rel` (`./src`, `..`, `.`) joined onto `dir`, `.` and `..` resolved; `None` when it is
/// absolute or climbs above the repository's root.
fn join_inside(dir: &str, rel: &str) -> Option<String> {
    if rel.starts_with('/') || rel.contains(':') || rel.contains('\\') {
        return None;
    }
    normalize_join(dir, rel)
}

/// JSONC → JSON: `//` and `/* */` comments and the commas before a `}` or `]` are removed
/// (each comment replaced by a space), leaving strings alone, escapes included. Anything
/// else passes through, for `serde_json` to judge.
pub fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    // Index in `out` of a comma not yet followed by a value: dropped if a `}`/`]` comes next.
    let mut pending_comma: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => {
                pending_comma = None;
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    // An escape takes the next byte with it (`\"` does not end the string).
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.extend_from_slice(&bytes[start..i]);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                out.push(b' ');
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(bytes.len());
                out.push(b' ');
                continue;
            }
            b',' => pending_comma = Some(out.len()),
            b'}' | b']' => {
                if let Some(at) = pending_comma.take() {
                    out[at] = b' ';
                }
            }
            _ if b.is_ascii_whitespace() => {}
            _ => pending_comma = None,
        }
        out.push(b);
        i += 1;
    }
    // Only ASCII bytes were replaced or dropped, outside strings, so this is still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn no_files(_: &str) -> Option<String> {
        None
    }

    /// A loader over a fixed set of repository files, recording what was asked for.
    fn files<'a>(
        tree: &'a HashMap<&str, &str>,
        asked: &'a mut Vec<String>,
    ) -> impl FnMut(&str) -> Option<String> + 'a {
        move |rel| {
            asked.push(rel.to_string());
            tree.get(rel).map(ToString::to_string)
        }
    }

    #[test]
    fn jsonc_comments_and_trailing_commas_go_strings_stay() {
        let text = r#"{
            // a line comment with "quotes"
            "a": "http://x/*y*/", /* block
               comment */ "b": ["c", "d",],
            "e": "say \"// hi\"", "f": {"g": 1,},
        }"#;
        let v: serde_json::Value =
            serde_json::from_str(&strip_jsonc(text)).expect("valid JSON after stripping");
        assert_eq!(v["a"], "http://x/*y*/");
        assert_eq!(v["b"], serde_json::json!(["c", "d"]));
        assert_eq!(v["e"], "say \"// hi\"");
        assert_eq!(v["f"]["g"], 1);
        // Unterminated constructs end the text without panicking.
        for bad in ["\"abc", "/* open", "// x", "\"\\", ",", "{\"a\":1,/*"] {
            let _ = strip_jsonc(bad);
        }
    }

    #[test]
    fn paths_and_base_url_are_read() {
        let text = r#"{
          "extends": "./base.json",
          "compilerOptions": {
            "baseUrl": "./src", // comment
            "paths": {
              "@app/*": ["app/*", "legacy/app/*"],
              "@common": ["../libs/common/index.ts"],
              "bad/*/*": ["x/*"],
              "empty": [],
            },
          },
        }"#;
        let t = parse_ts_config("web", text, &mut no_files).expect("has paths");
        assert_eq!(t.dir, "web");
        assert_eq!(t.base, "web/src");
        assert!(t.base_url);
        assert_eq!(
            t.paths,
            vec![
                (
                    "@app/*".to_string(),
                    vec!["app/*".to_string(), "legacy/app/*".to_string()]
                ),
                (
                    "@common".to_string(),
                    vec!["../libs/common/index.ts".to_string()]
                ),
            ]
        );
        // No baseUrl: targets are relative to the config's folder.
        let t = parse_ts_config(
            "",
            r#"{"compilerOptions":{"paths":{"x":["y"]}}}"#,
            &mut no_files,
        )
        .expect("has paths");
        assert_eq!((t.base.as_str(), t.base_url), ("", false));
        // Neither paths nor baseUrl, not JSON, a baseUrl above the root: nothing.
        assert!(
            parse_ts_config("", r#"{"compilerOptions":{"strict":true}}"#, &mut no_files).is_none()
        );
        assert!(parse_ts_config("", "not json", &mut no_files).is_none());
        let above = r#"{"compilerOptions":{"baseUrl":"../.."}}"#;
        assert!(parse_ts_config("a", above, &mut no_files).is_none());
    }

    /// A monorepo package inherits `paths` from the root's `tsconfig.base.json`: its
    /// targets stay relative to the base's folder, and its own `baseUrl` would win.
    #[test]
    fn extends_inherits_paths_relative_to_the_config_that_set_them() {
        let tree = HashMap::from([
            (
                "tsconfig.base.json",
                r#"{ "compilerOptions": { "paths": { "@org/ui": ["libs/ui/src/index.ts"] } } }"#,
            ),
            (
                "configs/url.json",
                r#"{ "extends": "../tsconfig.base.json", "compilerOptions": { "baseUrl": "." } }"#,
            ),
        ]);
        let mut asked = Vec::new();
        let child = r#"{ "extends": "../../tsconfig.base.json", "include": ["src"] }"#;
        let t =
            parse_ts_config("apps/web", child, &mut files(&tree, &mut asked)).expect("inherits");
        assert_eq!(
            (t.dir.as_str(), t.base.as_str(), t.base_url),
            ("apps/web", "", false)
        );
        assert_eq!(t.paths[0].0, "@org/ui");
        assert_eq!(asked, ["tsconfig.base.json"]);

        // A `baseUrl` inherited through two levels is relative to the config that set it;
        // `.json` is added to an extension-less name, as tsc does.
        let mut asked = Vec::new();
        let child = r#"{ "extends": "../configs/url" }"#;
        let t = parse_ts_config("web", child, &mut files(&tree, &mut asked)).expect("inherits");
        assert_eq!((t.base.as_str(), t.base_url), ("configs", true));
        assert_eq!(
            asked,
            ["configs/url", "configs/url.json", "tsconfig.base.json"]
        );

        // The child's own `paths` replace the inherited ones whole; later `extends` win.
        let mut asked = Vec::new();
        let child = r#"{ "extends": ["./a.json", "../tsconfig.base.json"],
                         "compilerOptions": { "paths": { "x": ["y"] } } }"#;
        let t = parse_ts_config("pkg", child, &mut files(&tree, &mut asked)).expect("own");
        assert_eq!(t.paths, vec![("x".to_string(), vec!["y".to_string()])]);
        assert_eq!(t.base, "pkg");
        // Only a `baseUrl` was still wanted, so both bases were read, the later first.
        assert_eq!(asked, ["tsconfig.base.json", "pkg/a.json"]);
    }

    /// A package name (in `node_modules`), an absolute path, a path above the root and a
    /// cycle are never read or end; the child's own settings stand.
    #[test]
    fn extends_stays_inside_the_tree_and_ends() {
        let tree = HashMap::from([
            ("a.json", r#"{ "extends": "./b.json" }"#),
            ("b.json", r#"{ "extends": "./a.json" }"#),
        ]);
        let mut asked = Vec::new();
        // The later entries are tried first, and each counts against the bound.
        let child = r#"{ "extends": ["./a.json", "@tsconfig/node20/tsconfig.json",
                                     "/etc/x.json", "../../up.json"] }"#;
        assert!(parse_ts_config("", child, &mut files(&tree, &mut asked)).is_none());
        assert!(
            asked.iter().all(|rel| rel == "a.json" || rel == "b.json"),
            "{asked:?}"
        );
        assert_eq!(asked.len(), MAX_EXTENDS - 3);
    }

    /// An `extends` target is read only through real folders of the tree: a linked folder
    /// (`shared -> /somewhere/else`) could lead outside it.
    #[cfg(unix)]
    #[test]
    fn a_base_behind_a_linked_folder_is_not_read() {
        let outside = tempfile::tempdir().expect("tempdir");
        let repo = tempfile::tempdir().expect("tempdir");
        let text = r#"{"compilerOptions":{"paths":{"x":["y"]}}}"#;
        std::fs::write(outside.path().join("base.json"), text).expect("write");
        std::fs::create_dir(repo.path().join("real")).expect("mkdir");
        std::fs::write(repo.path().join("real/base.json"), text).expect("write");
        std::os::unix::fs::symlink(outside.path(), repo.path().join("shared")).expect("link");
        assert_eq!(
            read_inside(repo.path(), "real/base.json").as_deref(),
            Some(text)
        );
        assert_eq!(read_inside(repo.path(), "shared/base.json"), None);
        assert_eq!(read_inside(repo.path(), "missing/base.json"), None);
    }
}
