//! Opening a file in the user's editor at a line. The run loop suspends the TUI (restores the
//! terminal, pauses the input reader) around `open`, which blocks the UI thread until the
//! editor exits — the one place where waiting is the point.

use std::path::Path;
use std::process::Command;

/// The editor command: the config's `editor`, else `$VISUAL`, else `$EDITOR`, else `vi`.
pub fn editor_command(configured: &str) -> String {
    let from_env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    if !configured.trim().is_empty() {
        return configured.to_string();
    }
    from_env("VISUAL")
        .or_else(|| from_env("EDITOR"))
        .unwrap_or_else(|| "vi".to_string())
}

/// Program and arguments to open `path` at `line` with `editor` (which may carry its own
/// arguments, e.g. `code --wait`). Editors differ in how they take a line number.
pub fn editor_args(editor: &str, path: &Path, line: u32) -> Option<(String, Vec<String>)> {
    let mut parts = editor.split_whitespace().map(str::to_string);
    let program = parts.next()?;
    let mut args: Vec<String> = parts.collect();
    let name = Path::new(&program)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let file = path.display().to_string();
    match name.as_str() {
        "code" | "code-insiders" | "codium" | "cursor" => {
            args.push("--goto".into());
            args.push(format!("{file}:{line}"));
        }
        "hx" | "helix" | "subl" | "zed" | "mate" => args.push(format!("{file}:{line}")),
        _ => {
            // vi, vim, nvim, nano, emacs, kak, micro, ne, joe…: `+LINE FILE`.
            args.push(format!("+{line}"));
            args.push(file);
        }
    }
    Some((program, args))
}

/// Runs the editor with the terminal handed over; returns an error message on failure.
pub fn open(editor: &str, path: &Path, line: u32) -> Result<(), String> {
    let (program, args) = editor_args(editor, path, line).ok_or("no editor configured")?;
    let status = Command::new(&program)
        .args(&args)
        .status()
        .map_err(|e| format!("could not start `{program}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program}` exited with {status}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_syntax_per_editor() {
        let p = Path::new("/r/src/a.ts");
        assert_eq!(
            editor_args("nvim", p, 12).unwrap(),
            ("nvim".into(), vec!["+12".into(), "/r/src/a.ts".into()])
        );
        assert_eq!(
            editor_args("code --wait", p, 3).unwrap(),
            (
                "code".into(),
                vec!["--wait".into(), "--goto".into(), "/r/src/a.ts:3".into()]
            )
        );
        assert_eq!(
            editor_args("/usr/bin/hx", p, 7).unwrap().1,
            vec!["/r/src/a.ts:7".to_string()]
        );
        assert!(editor_args("  ", p, 1).is_none());
    }

    #[test]
    fn configured_editor_wins() {
        assert_eq!(editor_command("kak"), "kak");
    }
}
