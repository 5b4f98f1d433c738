//! The system clipboard on a real X server: what `y` copies must still be there after the
//! copy returns (arboard serves the selection only while its owner lives, so the app keeps
//! one owner for the session) and after the app quits (the hand-off child serves it).
//!
//! Needs `Xvfb` and `xclip` (Debian: `apt-get install xvfb xclip`), so it is ignored by
//! default: `cargo test --test app_clipboard_x11 -- --ignored`.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mapscope::app::clipboard::{Clipboard, ClipboardEnv, CopyRoute};
use mapscope::app::config::ClipboardMode;

struct Xvfb(Child);

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn xclip_out() -> String {
    let o = Command::new("xclip")
        .args(["-o", "-selection", "clipboard"])
        .output()
        .expect("xclip installed");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn wait_until(what: &str, f: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !f() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
#[ignore = "needs Xvfb and xclip"]
fn copied_text_outlives_the_copy_and_the_app() {
    let display = format!(":{}", 90 + std::process::id() % 9);
    let xvfb = Xvfb(
        Command::new("Xvfb")
            .arg(&display)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb installed"),
    );
    std::env::set_var("DISPLAY", &display);
    wait_until("the X server", || {
        Command::new("xclip")
            .args(["-o", "-selection", "clipboard"])
            .stderr(Stdio::piped())
            .output()
            .is_ok_and(|o| !String::from_utf8_lossy(&o.stderr).contains("Can't open display"))
    });

    let env = ClipboardEnv {
        tmux: false,
        ssh: false,
        display: true,
    };
    let mut cb = Clipboard::new(ClipboardMode::Auto, env);
    let (route, seq) = cb
        .copy("src/models/user.ts\n⋮\nexport class User {\n")
        .unwrap();
    assert_eq!(route, CopyRoute::System);
    assert!(seq.is_none());
    // After the copy call returned, another program reads it.
    assert_eq!(xclip_out(), "src/models/user.ts\n⋮\nexport class User {\n");

    // Quit: hand the text to the serving child and drop our owner.
    let server = cb
        .handoff(std::path::Path::new(env!("CARGO_BIN_EXE_mapscope")))
        .expect("a serving child");
    drop(cb);
    assert_eq!(xclip_out(), "src/models/user.ts\n⋮\nexport class User {\n");

    // `ps` shows what the child is, not a bare `mapscope`.
    let cmdline = std::fs::read(format!("/proc/{server}/cmdline")).unwrap();
    assert!(
        cmdline.starts_with(b"mapscope-clipboard\0"),
        "{}",
        String::from_utf8_lossy(&cmdline)
    );

    // Another program takes the clipboard over: the child's job is done and it exits.
    let mut xclip = Command::new("xclip")
        .args(["-selection", "clipboard", "-i", "-quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = xclip.stdin.take().unwrap();
        stdin.write_all(b"something else").unwrap();
    }
    let alive = || {
        std::fs::read_to_string(format!("/proc/{server}/stat"))
            .is_ok_and(|s| s.split_whitespace().nth(2).is_none_or(|st| st != "Z"))
    };
    wait_until("the serving child to exit", || !alive());
    let _ = xclip.kill();
    let _ = xclip.wait();
    drop(xvfb);
}
