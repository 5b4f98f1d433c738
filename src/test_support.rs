//! Helpers shared by the crate's unit tests (compiled only for `cargo test`). Integration
//! tests in `tests/` have their own in `tests/common`, since they cannot see this module.

use std::path::Path;
use std::process::Command;

/// Runs `git ARGS` in `dir` with a fixed identity and no signing (no global config needed),
/// panics on failure and returns its trimmed stdout.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}
