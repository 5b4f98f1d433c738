//! Copying to the user's clipboard: the system clipboard through arboard, or OSC 52 (the
//! terminal sets its own clipboard) where there is no display server or over SSH. Inside tmux
//! the plain OSC 52 goes to tmux itself, which keeps it as a paste buffer and passes it on to
//! the outer terminal with `set -g set-clipboard on`; a DCS passthrough wrapping would be
//! dropped unless `allow-passthrough` is on, and even then would bypass tmux's buffers.
//! Only arboard confirms a copy: an OSC 52 is sent, and whether the terminal keeps it is
//! unknown, so the status bar says "sent" for it.
//!
//! On X11 a copied text lives only as long as the process that owns the selection serves it:
//! arboard stops serving when its `Clipboard` is dropped. So `SystemClipboard` keeps one
//! arboard handle for the whole session, and when the app quits `handoff` passes the last
//! text to a small detached child (`mapscope` started with `MAPSCOPE_CLIPBOARD_SERVE=1`) that
//! serves it with arboard's `wait()` until another program takes the selection over.
//! Runs on the UI thread (copies are small and arboard answers at once).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use base64::Engine as _;

use super::config::ClipboardMode;

/// The environment variable that turns a `mapscope` process into a clipboard server.
pub const SERVE_ENV: &str = "MAPSCOPE_CLIPBOARD_SERVE";

/// The longest a hand-off child keeps serving a copied text: long enough to paste it after
/// quitting, short enough that no forgotten `mapscope-clipboard` process lingers for hours.
pub const SERVE_FOR: std::time::Duration = std::time::Duration::from_mins(10);

/// The name the hand-off child shows in `ps`, so it is not mistaken for a stuck mapscope.
pub const SERVE_NAME: &str = "mapscope-clipboard";

/// Which way a copy went (the status bar says it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyRoute {
    System,
    Osc52 { tmux: bool },
}

impl CopyRoute {
    /// What the status bar says about a copy of `what`: "copied" only when the system
    /// clipboard confirmed it.
    pub fn report(self, what: &str) -> String {
        match self {
            CopyRoute::System => format!("copied {what} to the clipboard"),
            CopyRoute::Osc52 { tmux: false } => format!("sent {what} via OSC 52"),
            CopyRoute::Osc52 { tmux: true } => format!("sent {what} via OSC 52 to tmux"),
        }
    }
}

/// The OSC 52 "set clipboard" sequence for `text`, plain also inside tmux (tmux takes it
/// with `set-clipboard on`).
pub fn osc52_sequence(text: &str) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{b64}\x07")
}

/// The facts about the environment that decide the route; read once, injectable in tests.
#[derive(Debug, Clone, Default)]
pub struct ClipboardEnv {
    pub tmux: bool,
    pub ssh: bool,
    pub display: bool,
}

impl ClipboardEnv {
    pub fn from_process() -> Self {
        let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
        ClipboardEnv {
            tmux: set("TMUX"),
            ssh: set("SSH_CONNECTION") || set("SSH_TTY") || set("SSH_CLIENT"),
            display: cfg!(any(target_os = "macos", windows))
                || set("DISPLAY")
                || set("WAYLAND_DISPLAY"),
        }
    }
}

/// The long-lived owner of the system clipboard handle, plus the OSC 52 fallback.
pub struct Clipboard {
    mode: ClipboardMode,
    env: ClipboardEnv,
    system: Option<arboard::Clipboard>,
    system_failed: bool,
    /// The last text that went to the system clipboard (for the hand-off at exit).
    last_system_text: Option<String>,
}

impl Clipboard {
    pub fn new(mode: ClipboardMode, env: ClipboardEnv) -> Self {
        Clipboard {
            mode,
            env,
            system: None,
            system_failed: false,
            last_system_text: None,
        }
    }

    /// Which route a copy would take now.
    pub fn route(&self) -> CopyRoute {
        let osc = CopyRoute::Osc52 {
            tmux: self.env.tmux,
        };
        match self.mode {
            ClipboardMode::Osc52 => osc,
            ClipboardMode::System => CopyRoute::System,
            ClipboardMode::Auto if self.env.ssh || !self.env.display || self.system_failed => osc,
            ClipboardMode::Auto => CopyRoute::System,
        }
    }

    /// Copies `text`. For OSC 52 the escape sequence is returned: the caller writes it to the
    /// terminal (the UI thread owns the terminal's output).
    pub fn copy(&mut self, text: &str) -> Result<(CopyRoute, Option<String>), String> {
        if self.route() == CopyRoute::System {
            match self.copy_system(text) {
                Ok(()) => return Ok((CopyRoute::System, None)),
                Err(e) if self.mode == ClipboardMode::System => return Err(e),
                Err(_) => self.system_failed = true,
            }
        }
        let route = CopyRoute::Osc52 {
            tmux: self.env.tmux,
        };
        Ok((route, Some(osc52_sequence(text))))
    }

    fn copy_system(&mut self, text: &str) -> Result<(), String> {
        if self.system.is_none() {
            self.system = Some(arboard::Clipboard::new().map_err(|e| e.to_string())?);
        }
        let cb = self.system.as_mut().ok_or("no clipboard")?;
        cb.set_text(text.to_string()).map_err(|e| e.to_string())?;
        self.last_system_text = Some(text.to_string());
        Ok(())
    }

    /// Keeps the last system copy available after this process ends (X11/Wayland only): a
    /// detached `exe` child serves it until another program owns the clipboard. Call once,
    /// on quit. Elsewhere the OS keeps the text and this does nothing.
    /// Returns the child's process id.
    pub fn handoff(&mut self, exe: &Path) -> Option<u32> {
        let text = self.last_system_text.take()?;
        if !cfg!(all(unix, not(target_os = "macos"))) {
            return None;
        }
        let mut cmd = Command::new(exe);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.arg0(SERVE_NAME);
        }
        cmd.env(SERVE_ENV, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group: Ctrl-C in the shell afterwards must not kill it.
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().ok()?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(text.as_bytes());
        }
        // Wait (briefly) until the child owns the selection, so our exit does not leave a
        // moment with nobody serving it.
        if let Some(mut out) = child.stdout.take() {
            let (tx, rx) = crossbeam_channel::bounded(1);
            std::thread::spawn(move || {
                let mut buf = [0u8; 3];
                let _ = tx.send(out.read_exact(&mut buf).is_ok());
            });
            let _ = rx.recv_timeout(std::time::Duration::from_secs(1));
        }
        self.system = None;
        Some(child.id())
    }
}

/// The body of the clipboard server process: reads the text from stdin, takes the clipboard
/// and serves it until another program takes it over. Returns the exit code.
pub fn serve_from_stdin() -> i32 {
    let mut text = String::new();
    if std::io::stdin().read_to_string(&mut text).is_err() {
        return 1;
    }
    let Ok(mut cb) = arboard::Clipboard::new() else {
        return 1;
    };
    if cb.set_text(text.clone()).is_err() {
        return 1;
    }
    // Tell the parent we own the selection now; it may exit.
    {
        let mut out = std::io::stdout();
        let _ = out.write_all(b"ok\n");
        let _ = out.flush();
    }
    #[cfg(all(unix, not(target_os = "macos")))]
    {
        use arboard::SetExtLinux;
        // Serve until another program takes the clipboard over — but not forever: if the
        // display goes away nothing would ever take it, and the process must not linger.
        let deadline = std::time::Instant::now() + SERVE_FOR;
        match cb.set().wait_until(deadline).text(text) {
            Ok(()) => 0,
            Err(_) => 1,
        }
    }
    #[cfg(not(all(unix, not(target_os = "macos"))))]
    {
        drop(text);
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_is_base64_in_an_osc() {
        assert_eq!(osc52_sequence("hi"), "\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn inside_tmux_the_sequence_is_plain_and_the_report_says_sent() {
        let env = ClipboardEnv {
            tmux: true,
            ssh: false,
            display: false,
        };
        let mut c = Clipboard::new(ClipboardMode::Auto, env);
        let (route, seq) = c.copy("hi").unwrap();
        assert_eq!(seq.as_deref(), Some("\x1b]52;c;aGk=\x07"));
        assert_eq!(route.report("map"), "sent map via OSC 52 to tmux");
        assert_eq!(
            CopyRoute::System.report("map"),
            "copied map to the clipboard"
        );
    }

    #[test]
    fn routes_follow_the_environment() {
        let headless = ClipboardEnv {
            tmux: true,
            ssh: false,
            display: false,
        };
        let c = Clipboard::new(ClipboardMode::Auto, headless);
        assert_eq!(c.route(), CopyRoute::Osc52 { tmux: true });
        let ssh = ClipboardEnv {
            tmux: false,
            ssh: true,
            display: true,
        };
        assert_eq!(
            Clipboard::new(ClipboardMode::Auto, ssh.clone()).route(),
            CopyRoute::Osc52 { tmux: false }
        );
        assert_eq!(
            Clipboard::new(ClipboardMode::System, ssh).route(),
            CopyRoute::System
        );
        let desktop = ClipboardEnv {
            tmux: false,
            ssh: false,
            display: true,
        };
        assert_eq!(
            Clipboard::new(ClipboardMode::Auto, desktop.clone()).route(),
            CopyRoute::System
        );
        assert_eq!(
            Clipboard::new(ClipboardMode::Osc52, desktop).route(),
            CopyRoute::Osc52 { tmux: false }
        );
    }

    #[test]
    fn headless_copy_returns_the_sequence() {
        let mut c = Clipboard::new(ClipboardMode::Auto, ClipboardEnv::default());
        let (route, seq) = c.copy("x").unwrap();
        assert_eq!(route, CopyRoute::Osc52 { tmux: false });
        assert_eq!(seq.as_deref(), Some("\x1b]52;c;eA==\x07"));
    }
}
