//! End to end: the real binary in a real terminal (tmux). Start on a fixture, type a query,
//! see the expected hit, copy the map (OSC 52, which tmux stores as a paste buffer with
//! `set-clipboard on`), quit, and check the terminal is restored (normal screen, no mouse
//! reporting, cooked mode).
//!
//! Waits poll the screen with a deadline (a terminal has no other signal); skipped when tmux
//! is not installed.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .arg("-f")
            .arg("/dev/null")
            .args(args)
            .output()
            .expect("run tmux")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    fn format(&self, f: &str) -> String {
        let o = self.cmd(&["display-message", "-p", "-t", "t", f]);
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.cmd(&args);
    }

    /// Polls until `pred` holds for the screen, or fails with the last screen.
    fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_mins(1);
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

/// Whether tmux can run here. Outside CI a missing tmux skips these tests; in CI (where
/// `.ci/run` installs it) a missing tmux is a failure, so the end-to-end test never
/// silently stops running.
fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok || std::env::var_os("CI").is_none(),
        "tmux is required for the end-to-end tests in CI"
    );
    ok
}

#[test]
fn start_query_copy_quit_in_tmux() {
    if !have_tmux() {
        eprintln!("tmux not installed: skipping the end-to-end test");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_mapscope");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repos/ts-app");
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("after.txt");
    let tmux = Tmux {
        socket: format!("mapscope-e2e-{}", std::process::id()),
    };
    // No display and no $TMUX: the copy takes the plain OSC 52 route, which tmux itself
    // receives. Afterwards the shell records the terminal mode for the restore check.
    let script = format!(
        "env -u TMUX -u DISPLAY -u WAYLAND_DISPLAY -u SSH_CONNECTION -u SSH_TTY MAPSCOPE_CONFIG=/nonexistent MAPSCOPE_CACHE_DIR='{cache}' '{bin}' '{}'; stty -a > '{}'; echo MAPSCOPE-EXITED; sleep 30",
        fixture.display(),
        after.display(),
        cache = common::test_cache_dir().display(),
    );
    let o = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "120",
        "-y",
        "36",
        "sh",
        "-c",
        &script,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    tmux.cmd(&["set-option", "-s", "set-clipboard", "on"]);

    // First frame, then the index.
    tmux.wait_for("the first frame", |s| {
        s.contains("query") && s.contains("map")
    });
    tmux.wait_for("the index", |s| s.contains(" files · "));
    assert_eq!(tmux.format("#{alternate_on}"), "1");

    // The query box has the focus from the start: just type.
    tmux.keys(&["-l", "UserService"]);
    let s = tmux.wait_for("the UserService hit", |s| {
        s.lines()
            .any(|l| l.contains(" def ") && l.contains("UserService ") && l.contains("Service.ts:"))
    });
    assert!(s.contains("› UserService"), "{s}");

    // Copy the map: Tab leaves the query box (not Esc: Esc and y arriving together read as
    // Alt-y), y copies.
    tmux.keys(&["Tab"]);
    tmux.keys(&["y"]);
    tmux.wait_for("the copy message", |s| s.contains("sent map"));
    let s = tmux.screen();
    assert!(s.contains("OSC 52"), "{s}");
    let buffer = String::from_utf8_lossy(&tmux.cmd(&["show-buffer"]).stdout).into_owned();
    let cli = Command::new(bin)
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .arg("map")
        .arg(&fixture)
        .args(["--query", "UserService"])
        .output()
        .unwrap();
    let expected = String::from_utf8_lossy(&cli.stdout).into_owned();
    assert_eq!(
        buffer.trim_end(),
        expected.trim_end(),
        "the copied map is the CLI's map"
    );

    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("MAPSCOPE-EXITED"));
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "0",
        "left the alternate screen"
    );
    assert_eq!(tmux.format("#{mouse_any_flag}"), "0", "mouse reporting off");
    assert_eq!(
        tmux.format("#{mouse_button_flag}"),
        "0",
        "mouse reporting off"
    );
    assert_eq!(tmux.format("#{cursor_flag}"), "1", "cursor visible");
    let stty = std::fs::read_to_string(&after).unwrap();
    let flags: Vec<&str> = stty.split_whitespace().collect();
    assert!(
        flags.contains(&"icanon") && flags.contains(&"echo") && flags.contains(&"isig"),
        "terminal left in raw mode: {stty}"
    );
}

/// Starts `mapscope` on the fixture in a fresh tmux server with extra environment; the shell
/// records the exit status and the terminal mode afterwards.
fn start(tmux: &Tmux, env: &str, after: &Path) {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repos/ts-app");
    start_on(tmux, env, after, &fixture);
}

fn start_on(tmux: &Tmux, env: &str, after: &Path, fixture: &Path) {
    let bin = env!("CARGO_BIN_EXE_mapscope");
    let script = format!(
        "env -u TMUX -u DISPLAY MAPSCOPE_CONFIG=/nonexistent MAPSCOPE_CACHE_DIR='{cache}' {env} '{bin}' '{}'; echo \"status=$?\" > '{}'; stty -a >> '{}'; echo MAPSCOPE-EXITED; sleep 30",
        fixture.display(),
        after.display(),
        after.display(),
        cache = common::test_cache_dir().display(),
    );
    let o = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "100",
        "-y",
        "30",
        "sh",
        "-c",
        &script,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_ui_panic_restores_the_terminal() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("after.txt");
    let tmux = Tmux {
        socket: format!("mapscope-e2e-panic-{}", std::process::id()),
    };
    start(&tmux, "MAPSCOPE_TEST_PANIC=ui", &after);
    let s = tmux.wait_for("the exit", |s| s.contains("MAPSCOPE-EXITED"));
    assert!(
        s.contains("INTERNAL_ERROR: test panic on the UI thread"),
        "{s}"
    );
    assert!(!s.contains("┌ query"), "the TUI's screen is gone: {s}");
    assert_eq!(tmux.format("#{alternate_on}"), "0");
    assert_eq!(tmux.format("#{mouse_any_flag}"), "0");
    assert_eq!(tmux.format("#{cursor_flag}"), "1");
    let after = std::fs::read_to_string(&after).unwrap();
    assert!(after.starts_with("status=2"), "{after}");
    let flags: Vec<&str> = after.split_whitespace().collect();
    assert!(
        flags.contains(&"icanon") && flags.contains(&"echo"),
        "{after}"
    );
}

#[test]
fn a_worker_panic_is_shown_and_the_ui_keeps_running() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("after.txt");
    let tmux = Tmux {
        socket: format!("mapscope-e2e-worker-{}", std::process::id()),
    };
    start(&tmux, "MAPSCOPE_TEST_PANIC=worker", &after);
    tmux.wait_for("the error in the status bar", |s| {
        s.contains("index failed: test panic in the engine worker")
    });
    // Still responsive: the help opens.
    tmux.keys(&["?"]);
    tmux.wait_for("the help", |s| s.contains("keys (Esc closes)"));
    // Separately: Esc followed at once by q would read as Alt-q.
    tmux.keys(&["Escape"]);
    tmux.wait_for("the help to close", |s| !s.contains("keys (Esc closes)"));
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("MAPSCOPE-EXITED"));
    let after = std::fs::read_to_string(&after).unwrap();
    assert!(after.starts_with("status=0"), "{after}");
}

#[test]
fn editor_suspends_and_restores_the_tui() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("after.txt");
    let args_file = dir.path().join("editor-args.txt");
    let editor = dir.path().join("fake-editor");
    std::fs::write(
        &editor,
        format!("#!/bin/sh\necho \"$@\" > '{}'\n", args_file.display()),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let tmux = Tmux {
        socket: format!("mapscope-e2e-editor-{}", std::process::id()),
    };
    start(
        &tmux,
        &format!("VISUAL= EDITOR='{}'", editor.display()),
        &after,
    );
    tmux.wait_for("the index", |s| s.contains(" files · "));
    tmux.keys(&["-l", "UserService"]);
    tmux.wait_for("the hit", |s| {
        s.contains("UserService ") && s.contains(" def ")
    });
    tmux.keys(&["Tab"]);
    tmux.keys(&["e"]);
    tmux.wait_for("the TUI to come back", |s| {
        s.contains("back from the editor")
    });
    let args = std::fs::read_to_string(&args_file).unwrap();
    assert!(
        args.trim().starts_with('+') && args.trim_end().ends_with("src/services/userService.ts"),
        "{args}"
    );
    assert_eq!(
        tmux.format("#{alternate_on}"),
        "1",
        "the TUI is back on the alternate screen"
    );
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("MAPSCOPE-EXITED"));
}

#[test]
fn an_invalid_config_is_reported_before_the_tui_starts() {
    let s = run_with_config("config", "[keys]\n\"ctrl-x\" = \"selct_next\"\n");
    if let Some(s) = s {
        assert!(
            s.contains("CONFIG_ERROR") && s.contains("keys.ctrl-x") && s.contains("selct_next"),
            "{s}"
        );
    }
}

/// A `[sources]` root that does not exist is one `CONFIG_ERROR` line naming it, before the
/// terminal is taken over.
#[test]
fn a_missing_config_source_is_reported_before_the_tui_starts() {
    let s = run_with_config(
        "sources",
        "[sources]\nexamples = \"/nonexistent/mapscope-examples\"\n",
    );
    if let Some(s) = s {
        assert!(
            s.contains("CONFIG_ERROR")
                && s.contains("source `examples`")
                && s.contains("not a directory"),
            "{s}"
        );
    }
}

/// Starts mapscope in tmux with `config` as its config file and returns the screen once it
/// has exited, after checking that it exited with status 2 (`None` without tmux).
fn run_with_config(name: &str, config: &str) -> Option<String> {
    if !have_tmux() {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("after.txt");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, config).unwrap();
    let tmux = Tmux {
        socket: format!("mapscope-e2e-{name}-{}", std::process::id()),
    };
    // MAPSCOPE_CONFIG given twice: the later assignment wins in env(1).
    start(
        &tmux,
        &format!("MAPSCOPE_CONFIG='{}'", path.display()),
        &after,
    );
    let s = tmux.wait_for("the exit", |s| s.contains("MAPSCOPE-EXITED"));
    let status = std::fs::read_to_string(&after).unwrap();
    assert!(status.starts_with("status=2"), "{status}");
    Some(s)
}

#[test]
fn a_file_edited_on_disk_shows_up_in_the_map() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    common::write_files(
        &repo,
        &[
            (
                "app.py",
                "from util import helper\n\ndef main():\n    return helper()\n",
            ),
            ("util.py", "def helper():\n    return 1\n"),
        ],
    );
    let after = dir.path().join("after.txt");
    let tmux = Tmux {
        socket: format!("mapscope-e2e-live-{}", std::process::id()),
    };
    start_on(&tmux, "", &after, &repo);
    tmux.wait_for("the index with live updates on", |s| {
        s.contains("def helper") && s.contains("· live")
    });
    common::write_files(
        &repo,
        &[(
            "util.py",
            "def helper():\n    return 1\n\ndef brand_new_function():\n    pass\n",
        )],
    );
    let s = tmux.wait_for("the edit in the map", |s| s.contains("brand_new_function"));
    assert!(s.contains("gen 2"), "{s}");
    std::fs::remove_file(repo.join("util.py")).unwrap();
    tmux.wait_for("the deletion in the map", |s| {
        !s.contains("brand_new_function") && s.contains("gen 3")
    });
    // The query box has the focus (q would be text): ctrl-c quits from anywhere.
    tmux.keys(&["C-c"]);
    tmux.wait_for("the exit", |s| s.contains("MAPSCOPE-EXITED"));
}

/// Starts `script` (a shell command line) in a fresh tmux session of `w`×`h`.
fn start_script(tmux: &Tmux, script: &str, w: u16, h: u16) {
    let (w, h) = (w.to_string(), h.to_string());
    let o = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        &w,
        "-y",
        &h,
        "sh",
        "-c",
        script,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The first minute: open mapscope and type a word with a `q` in it. The `q` is
/// text (the query box has the focus at start), the app keeps running, and the word's hits
/// are shown.
#[test]
fn typing_a_word_with_q_into_a_fresh_tui_searches_for_it() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    common::write_files(
        &repo,
        &[
            (
                "src/request.ts",
                "export interface Request {\n  url: string;\n}\n\nexport function parseRequest(raw: string): Request {\n  return { url: raw };\n}\n",
            ),
            (
                "src/server.ts",
                "import { parseRequest } from './request';\n\nexport function handle(raw: string) {\n  return parseRequest(raw);\n}\n",
            ),
        ],
    );
    let tmux = Tmux {
        socket: format!("mapscope-e2e-typeq-{}", std::process::id()),
    };
    let bin = env!("CARGO_BIN_EXE_mapscope");
    let script = format!(
        "env -u TMUX -u DISPLAY MAPSCOPE_CONFIG=/nonexistent MAPSCOPE_CACHE_DIR='{cache}' '{bin}' '{}'; echo MAPSCOPE-EXITED; sleep 30",
        repo.display(),
        cache = common::test_cache_dir().display(),
    );
    start_script(&tmux, &script, 80, 24);
    tmux.wait_for("the index", |s| s.contains(" files · "));
    tmux.keys(&["-l", "request"]);
    let s = tmux.wait_for("the hits for `request`", |s| {
        s.contains("› request")
            && s.lines().any(|l| {
                l.contains(" def ") && l.contains("parseRequest") && l.contains("request.ts:")
            })
    });
    assert!(!s.contains("MAPSCOPE-EXITED"), "{s}");
    // The preview shows the first hit's file beside the hits, at 80×24.
    assert!(s.contains("┌ src/"), "no preview at 80x24:\n{s}");
    // Still running a moment later, with the footer naming the keys that work while typing.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let s = tmux.screen();
    assert!(
        !s.contains("MAPSCOPE-EXITED") && s.contains("ctrl-c quit"),
        "{s}"
    );
    tmux.keys(&["C-c"]);
    tmux.wait_for("the exit", |s| s.contains("MAPSCOPE-EXITED"));
}

/// Copy inside tmux, no display, `set-clipboard on` (what the README advises): the map
/// arrives in tmux's paste buffer, byte for byte what `mapscope map` prints.
#[test]
fn copy_inside_tmux_arrives_in_the_paste_buffer() {
    if !have_tmux() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_mapscope");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repos/ts-app");
    let tmux = Tmux {
        socket: format!("mapscope-e2e-clip-{}", std::process::id()),
    };
    // $TMUX stays set (mapscope knows it runs inside tmux); there is no display.
    let script = format!(
        "env -u DISPLAY -u WAYLAND_DISPLAY -u SSH_CONNECTION -u SSH_TTY -u SSH_CLIENT MAPSCOPE_CONFIG=/nonexistent MAPSCOPE_CACHE_DIR='{cache}' '{bin}' '{}'; echo MAPSCOPE-EXITED; sleep 30",
        fixture.display(),
        cache = common::test_cache_dir().display(),
    );
    start_script(&tmux, &script, 120, 40);
    tmux.cmd(&["set-option", "-s", "set-clipboard", "on"]);
    tmux.wait_for("the map", |s| {
        s.contains(" files · ") && s.contains("tokens · o200k")
    });
    // ctrl-y copies the map while the query box has the focus.
    tmux.keys(&["C-y"]);
    let s = tmux.wait_for("the copy message", |s| s.contains("sent map"));
    assert!(s.contains("via OSC 52 to tmux"), "{s}");
    let buffer = tmux.cmd(&["show-buffer"]).stdout;
    let cli = Command::new(bin)
        .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
        .arg("map")
        .arg(&fixture)
        .output()
        .unwrap();
    assert!(cli.status.success());
    assert!(!cli.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&buffer),
        String::from_utf8_lossy(&cli.stdout),
        "the paste buffer is the CLI's map, byte for byte"
    );
    tmux.keys(&["C-c"]);
    tmux.wait_for("the exit", |s| s.contains("MAPSCOPE-EXITED"));
}

/// A repository whose general map is longer than the screen, where the query "zebra route"
/// pins the files that define `zebra_route_*` first and the general map's first file
/// (`pkg/mod_0.py`, imported by most) drops to the 30th place, far below the screen.
fn long_map_repo(root: &Path) {
    let mut files: Vec<(String, String)> = Vec::new();
    for i in 0..40 {
        let uses: String = (0..i)
            .step_by(3)
            .map(|j| format!("from pkg.mod_{j} import helper_{j}\n"))
            .collect();
        let zebra = if i >= 16 {
            format!("\n\ndef zebra_route_{i}(path):\n    return path\n")
        } else {
            String::new()
        };
        files.push((
            format!("pkg/mod_{i}.py"),
            format!(
                "{uses}\n\ndef helper_{i}(value, other=None):\n    return value\n\n\nclass Service{i}:\n    def run(self, request):\n        return helper_{i}(request)\n{zebra}"
            ),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    common::write_files(root, &refs);
}

/// The paste: a query pasted at once (bracketed paste) shows the query's map from
/// its first file, the pinned one, not the general map's first file wherever it moved (the
/// pane was left scrolled down to it). Started with `--tokens`, the map's budget.
#[test]
fn a_pasted_query_shows_the_map_from_its_first_file() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    long_map_repo(&repo);
    let bin = env!("CARGO_BIN_EXE_mapscope");
    let first_file = |args: &[&str]| -> String {
        let o = Command::new(bin)
            .env("MAPSCOPE_CACHE_DIR", common::test_cache_dir())
            .arg("map")
            .arg(&repo)
            .args(["--tokens", "4096", "--format", "json"])
            .args(args)
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["files"][0]["path"].as_str().unwrap().to_string()
    };
    let general = first_file(&[]);
    let pinned = first_file(&["--query", "zebra route"]);
    assert_eq!(general, "pkg/mod_0.py");
    assert_ne!(general, pinned);
    let tmux = Tmux {
        socket: format!("mapscope-e2e-paste-{}", std::process::id()),
    };
    let script = format!(
        "env -u TMUX -u DISPLAY MAPSCOPE_CONFIG=/nonexistent MAPSCOPE_CACHE_DIR='{cache}' '{bin}' '{}' --tokens 4096; echo MAPSCOPE-EXITED; sleep 30",
        repo.display(),
        cache = common::test_cache_dir().display(),
    );
    start_script(&tmux, &script, 120, 40);
    let s = tmux.wait_for("the general map", |s| s.contains("/4096 tokens"));
    // The map pane's first line is the general map's first file.
    let map_top = |s: &str| s.lines().nth(1).unwrap_or("").to_string();
    tmux.wait_for("the general map's first file", |s| {
        map_top(s).contains(&general)
    });
    assert!(!s.contains("MAPSCOPE-EXITED"), "{s}");
    // Select the general map's first file in the map pane, as a user looking at it would.
    tmux.keys(&["Tab"]);
    tmux.keys(&["Tab"]);
    tmux.keys(&["Tab"]);
    tmux.keys(&["/"]);
    tmux.cmd(&["set-buffer", "zebra route"]);
    tmux.cmd(&["paste-buffer", "-p", "-t", "t"]);
    let s = tmux.wait_for("the query's map", |s| {
        s.contains("› zebra route") && s.contains("zebra_route_")
    });
    // Once every answer is in, the map shows from the query's first file (it stayed
    // scrolled down to `pkg/mod_0.py`).
    std::thread::sleep(Duration::from_millis(500));
    let s2 = tmux.screen();
    assert!(
        map_top(&s2).contains(&format!("│{pinned}:")),
        "expected {pinned} first:\n{s}\n---\n{s2}"
    );
    tmux.keys(&["C-c"]);
    tmux.wait_for("the exit", |s| s.contains("MAPSCOPE-EXITED"));
}

#[test]
fn references_open_with_u_and_close_with_backspace_in_tmux() {
    if !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    common::write_files(
        &repo,
        &[
            (
                "app.py",
                "from util import helper\n\n\ndef main():\n    return helper()\n",
            ),
            ("util.py", "def helper():\n    return 1\n"),
        ],
    );
    let after = dir.path().join("after.txt");
    let tmux = Tmux {
        socket: format!("mapscope-e2e-refs-{}", std::process::id()),
    };
    start_on(&tmux, "", &after, &repo);
    tmux.wait_for("the index", |s| s.contains("def helper"));
    tmux.keys(&["-l", "helper"]);
    tmux.wait_for("the helper hit", |s| {
        s.lines()
            .any(|l| l.contains(" def ") && l.contains("helper") && l.contains("util.py:1"))
    });
    // Enter leaves the query box for the hits, u opens the selected hit's references.
    tmux.keys(&["Enter"]);
    tmux.keys(&["u"]);
    let s = tmux.wait_for("the references", |s| {
        s.contains("refs: helper") && s.contains("callers (")
    });
    assert!(
        s.lines()
            .any(|l| l.contains("app.py:5") && l.contains("main") && l.contains("import")),
        "{s}"
    );
    assert!(
        s.contains("u follow"),
        "the footer names the pane's keys: {s}"
    );
    tmux.keys(&["BSpace"]);
    tmux.wait_for("the hits again", |s| {
        !s.contains("refs: helper") && s.contains("┌ hits")
    });
    tmux.keys(&["q"]);
    tmux.wait_for("the exit", |s| s.contains("MAPSCOPE-EXITED"));
    let after = std::fs::read_to_string(&after).unwrap();
    assert!(after.starts_with("status=0"), "{after}");
}
