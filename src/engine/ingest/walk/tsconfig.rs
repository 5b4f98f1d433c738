//! `tsconfig.json` / `jsconfig.json`: the walk reads their `compilerOptions.paths` and
//! `compilerOptions.baseUrl` (`TsPaths`), which decide what a bare TS/JS specifier such as
//! `@app/x` names (`link::resolve`).
//!
//! The files are JSONC (comments, trailing commas), which `serde_json` rejects: `strip_jsonc`
//! turns them into plain JSON first. `extends` is not followed (see `TsPaths`).

use std::path::Path;

use crate::engine::base::guarded::{self, Follow};
use crate::engine::base::model::TsPaths;
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

/// Reads the config at `path` (bounded, never following a link) in folder `dir` of the
/// repository; `None` when unreadable, not JSONC, or without `paths` and `baseUrl`.
pub(crate) fn read_ts_config(path: &Path, dir: &str) -> Option<TsPaths> {
    let bytes = guarded::read(path, MAX_TS_CONFIG_SIZE, Follow::No).ok()?;
    parse_ts_config(dir, &String::from_utf8_lossy(strip_bom(&bytes)))
}

/// The `TsPaths` of a config's text found in folder `dir`: `None` when it is not an object
/// of JSONC, or has neither `compilerOptions.paths` nor `compilerOptions.baseUrl`, or its
/// `baseUrl` leaves the repository. Malformed entries (a target that is not a string, a
/// pattern with two `*`) are dropped one by one, as `tsc` reports and ignores them.
pub fn parse_ts_config(dir: &str, text: &str) -> Option<TsPaths> {
    let value: serde_json::Value = serde_json::from_str(&strip_jsonc(text)).ok()?;
    let options = value.get("compilerOptions")?.as_object()?;
    let base_url = options.get("baseUrl").and_then(|b| b.as_str());
    let mut paths = Vec::new();
    if let Some(map) = options.get("paths").and_then(|p| p.as_object()) {
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
    }
    if paths.is_empty() && base_url.is_none() {
        return None;
    }
    let base = match base_url {
        Some(url) => join_inside(dir, url)?,
        None => dir.to_string(),
    };
    Some(TsPaths {
        dir: dir.to_string(),
        base,
        base_url: base_url.is_some(),
        paths,
    })
}

/// `rel` (`./src`, `..`, `.`) joined onto `dir`, `.` and `..` resolved; `None` when it is
/// absolute or climbs above the repository's root.
fn join_inside(dir: &str, rel: &str) -> Option<String> {
    if rel.starts_with('/') || rel.contains(':') || rel.contains('\\') {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
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
        let t = parse_ts_config("web", text).expect("has paths");
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
        let t =
            parse_ts_config("", r#"{"compilerOptions":{"paths":{"x":["y"]}}}"#).expect("has paths");
        assert_eq!((t.base.as_str(), t.base_url), ("", false));
        // Neither paths nor baseUrl, not JSON, a baseUrl above the root: nothing.
        assert!(parse_ts_config("", r#"{"compilerOptions":{"strict":true}}"#).is_none());
        assert!(parse_ts_config("", "not json").is_none());
        assert!(parse_ts_config("a", r#"{"compilerOptions":{"baseUrl":"../.."}}"#).is_none());
    }
}
