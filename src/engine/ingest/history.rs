//! A repository's commit history, read with `git log`: which commit subjects touched which
//! files. Search treats a file's past commit subjects as one more document about it (see
//! `search::history`): they name what the file does in the words people use when they
//! change it, which is how a person phrases a search ("validate marker names in -m
//! expression").
//!
//! `read` runs on the caller's thread and blocks on `git`; `Index::build` calls it on a
//! thread of its own so that `git` runs while the files parse. Read-only: `git log` with
//! optional locks off never writes to the repository. No git, no repository, or a failing
//! `git` is an error the caller reports and then searches without history.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::engine::base::guarded::{self, Follow};

/// The newest this-many commits are read. More history adds little (files change topic
/// slowly) and costs time: ~0.2 s per 5000 commits on this machine's test repositories.
pub const MAX_COMMITS: usize = 5000;
/// `git log` is stopped after this long (a huge repository; the index waits for it) and
/// the commits it wrote by then are used.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// Commits touching more files than this are left out: mass renames, reformatting and
/// dependency bumps say nothing about any one file.
pub const MAX_FILES_PER_COMMIT: usize = 30;

/// Where the history comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum HistorySource {
    /// No history (tests, `map`).
    #[default]
    Off,
    /// The git repository the indexed directory is in, at its `HEAD`. Paths are taken
    /// relative to the indexed directory, which may be a subdirectory of the repository.
    Repo,
    /// A (bare) git directory at a given revision, whose tree is the indexed directory: the
    /// eval indexes an exported parent tree and must see only the parent's history.
    GitDir { git_dir: PathBuf, rev: String },
}

/// Commit subjects and the files each touched.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitHistory {
    /// Subjects of the commits kept, newest first.
    pub subjects: Vec<String>,
    /// Path (relative to the indexed root) → indices into `subjects`, sorted by path.
    pub touched: Vec<(String, Vec<u32>)>,
    /// Commits read, including those left out for touching too many files.
    pub commits_read: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("could not run git: {0}")]
    NoGit(#[source] std::io::Error),
    #[error("git log failed: {0}")]
    Failed(String),
    /// No `.git` in the folder or above it (and no `GIT_DIR`): git was not asked.
    #[error("not in a git repository")]
    NotARepository,
}

/// Whether `root` may be in a git repository: a `.git` (directory or file) in it or in a
/// folder above it, or a `GIT_DIR` in the environment. Where there is none, `git` would only
/// fail, and asking it costs two processes on every search (tens of milliseconds); this
/// costs a few `stat`s.
pub fn may_be_in_a_repository(root: &Path) -> bool {
    if std::env::var_os("GIT_DIR").is_some_and(|d| !d.is_empty()) {
        return true;
    }
    let start = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    start
        .ancestors()
        .any(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
}

/// Field separators in `git log --format`: record (before each commit) and end of subject.
const RECORD: char = '\u{1e}';
const SUBJECT_END: char = '\u{1f}';

/// The commit `HEAD` of the repository containing `root` points at, if any: read from the
/// repository's files where they say it plainly (`head_from_files`), else asked of git.
/// `Err` when `git` did not answer in time: then `git log` would not either, and is not
/// tried (a `.git` leading to a FIFO blocks git itself).
pub(crate) fn head_commit(root: &Path) -> Result<Option<String>, HistoryError> {
    if !may_be_in_a_repository(root) {
        return Err(HistoryError::NotARepository);
    }
    if let Some(head) = head_from_files(root) {
        return Ok(Some(head));
    }
    let mut cmd = Command::new("git");
    cmd.arg("-C")
        .arg(root)
        .args(["rev-parse", "--verify", "-q", "HEAD"])
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0");
    // Bounded like `git log`.
    let Ok(out) = run_bounded(&mut cmd, READ_TIMEOUT) else {
        return Ok(None);
    };
    if out.timed_out {
        return Err(HistoryError::Failed(format!(
            "git rev-parse did not answer within {} ms",
            READ_TIMEOUT.as_millis()
        )));
    }
    let head = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok((out.status.success() && !head.is_empty()).then_some(head))
}

/// The largest git metadata file `head_from_files` reads (`packed-refs` of a large
/// repository is a few MB).
const MAX_GIT_FILE: u64 = 64 << 20;

/// The commit `HEAD` points at, read from the files of a repository whose top is `root`
/// (a `.git` directory, or a worktree's `.git` file naming its git directory): `HEAD` holds
/// an object id or names a ref, found as a loose ref file or in `packed-refs`, as git finds
/// it. A `git rev-parse HEAD` costs a process (a millisecond or more of CPU) on every
/// search. `None` wherever the files do not say it plainly (a subdirectory of a
/// repository, `GIT_DIR` or `GIT_COMMON_DIR` set, the reftable format, an unborn branch,
/// anything unreadable): then git is asked.
fn head_from_files(root: &Path) -> Option<String> {
    if ["GIT_DIR", "GIT_COMMON_DIR"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    {
        return None;
    }
    let read = |path: &Path| -> Option<String> {
        let bytes = guarded::read(path, MAX_GIT_FILE, Follow::No).ok()?;
        String::from_utf8(bytes).ok()
    };
    let relative_to = |base: &Path, named: &str| {
        let named = Path::new(named.trim());
        if named.is_absolute() {
            named.to_path_buf()
        } else {
            base.join(named)
        }
    };
    let dot_git = root.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    let git_dir = if meta.is_dir() {
        dot_git
    } else if meta.is_file() {
        let text = read(&dot_git)?;
        relative_to(root, text.trim_end().strip_prefix("gitdir:")?)
    } else {
        return None;
    };
    // A worktree keeps its own `HEAD` and shares the branches of the common directory.
    let common = match read(&git_dir.join("commondir")) {
        Some(named) => relative_to(&git_dir, &named),
        None => git_dir.clone(),
    };
    let mut value = read(&git_dir.join("HEAD"))?.trim().to_string();
    // `HEAD` → a branch → (rarely) another symbolic ref: a short chain, as git follows.
    for _ in 0..5 {
        let Some(name) = value.strip_prefix("ref:").map(str::trim) else {
            return is_object_id(&value).then_some(value);
        };
        let plain = name.starts_with("refs/")
            && !name.contains("..")
            && !name.contains('\\')
            && name.split('/').all(|part| !part.is_empty());
        if !plain {
            return None;
        }
        // A loose ref wins over a packed one; per-worktree refs live in the git directory.
        let loose = read(&common.join(name)).or_else(|| read(&git_dir.join(name)));
        value = match loose {
            Some(text) => text.trim().to_string(),
            None => packed_ref(&read(&common.join("packed-refs"))?, name)?,
        };
    }
    None
}

/// The object id `name` has in a `packed-refs` file's text.
fn packed_ref(packed: &str, name: &str) -> Option<String> {
    packed.lines().find_map(|line| {
        let (id, rest) = line.split_once(' ')?;
        (rest == name && is_object_id(id)).then(|| id.to_string())
    })
}

/// A full SHA-1 or SHA-256 object id, as git prints it.
fn is_object_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// What `run_bounded` saw.
struct Bounded {
    status: std::process::ExitStatus,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// The command was killed at the deadline; `stdout` holds what it wrote until then.
    timed_out: bool,
}

/// Runs `cmd` (stdin closed, both outputs captured) and kills it after `timeout`.
fn run_bounded(cmd: &mut Command, timeout: Duration) -> std::io::Result<Bounded> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    // Both pipes are drained on side threads, so that neither can fill up and stall the
    // command, while this thread watches the clock. They report through channels: a
    // grandchild that outlives a killed command keeps a pipe open, and is not waited for.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        let (tx, rx) = crossbeam_channel::bounded(1);
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut buf);
            }
            let _ = tx.send(buf);
        });
        rx
    };
    let out_reader = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err_reader = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + timeout;
    let mut timed_out = false;
    let status = loop {
        match child.try_wait()? {
            Some(status) => break status,
            None if Instant::now() >= deadline => {
                timed_out = true;
                let _ = child.kill();
                break child.wait()?;
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    };
    // The command has exited: its output is complete unless a grandchild holds the pipe.
    let collect = |rx: crossbeam_channel::Receiver<Vec<u8>>| {
        rx.recv_timeout(Duration::from_millis(500))
            .unwrap_or_default()
    };
    let (stdout, stderr) = (collect(out_reader), collect(err_reader));
    Ok(Bounded {
        status,
        stdout,
        stderr,
        timed_out,
    })
}

/// Reads the history `source` names for the tree at `root`; `Ok(None)` for `Off`.
pub fn read(root: &Path, source: &HistorySource) -> Result<Option<CommitHistory>, HistoryError> {
    read_within(root, source, READ_TIMEOUT)
}

/// `read`, stopping `git` after `timeout` and keeping the commits it wrote until then.
pub fn read_within(
    root: &Path,
    source: &HistorySource,
    timeout: Duration,
) -> Result<Option<CommitHistory>, HistoryError> {
    let mut cmd = Command::new("git");
    let rev = match source {
        HistorySource::Off => return Ok(None),
        HistorySource::Repo if !may_be_in_a_repository(root) => {
            return Err(HistoryError::NotARepository)
        }
        HistorySource::Repo => {
            cmd.arg("-C").arg(root);
            "HEAD"
        }
        HistorySource::GitDir { git_dir, rev } => {
            cmd.arg("--git-dir").arg(git_dir);
            rev.as_str()
        }
    };
    // A repository's own config must not make `git log` run programs, page or decorate.
    cmd.args([
        "-c",
        "core.quotepath=off",
        "-c",
        "core.fsmonitor=false",
        // Verifying signatures would run gpg per commit and print into the output.
        "-c",
        "log.showSignature=false",
        "--no-pager",
        "log",
        "--no-color",
        "--no-merges",
        "--no-renames",
        "--no-ext-diff",
        "--no-textconv",
        "--name-only",
        "--format=%x1e%s%x1f",
    ]);
    cmd.arg(format!("--max-count={MAX_COMMITS}"));
    if matches!(source, HistorySource::Repo) {
        // Paths relative to `root`, and only files under it.
        cmd.arg("--relative");
    }
    cmd.arg(rev).arg("--");
    cmd.env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0");
    // A huge repository: what was read by the deadline is history enough.
    let Bounded {
        status,
        stdout,
        stderr,
        timed_out,
    } = run_bounded(&mut cmd, timeout).map_err(HistoryError::NoGit)?;
    let text = String::from_utf8_lossy(&stdout);
    let history = parse_log(&text, status.success() && !timed_out);
    if history.commits_read == 0 && timed_out {
        return Err(HistoryError::Failed(format!(
            "no commit within {} ms",
            timeout.as_millis()
        )));
    }
    if history.commits_read == 0 && !status.success() {
        let err = String::from_utf8_lossy(&stderr);
        let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(HistoryError::Failed(first.trim().to_string()));
    }
    Ok(Some(history))
}

/// Parses `git log --name-only --format=%x1e%s%x1f` output. Output of a `git` that failed
/// part-way (a partial clone missing a tree) is used up to its last complete commit.
pub fn parse_log(text: &str, complete: bool) -> CommitHistory {
    let mut records: Vec<&str> = text.split(RECORD).skip(1).collect();
    if !complete {
        records.pop();
    }
    let mut subjects = Vec::new();
    let mut touched: Vec<(String, u32)> = Vec::new();
    let mut paths: Vec<&str> = Vec::new();
    for record in &records {
        let Some((subject, files)) = record.split_once(SUBJECT_END) else {
            continue;
        };
        paths.clear();
        paths.extend(files.lines().map(str::trim).filter(|l| !l.is_empty()));
        if paths.is_empty() || paths.len() > MAX_FILES_PER_COMMIT {
            continue;
        }
        let id = subjects.len() as u32;
        subjects.push(subject.trim().to_string());
        touched.extend(paths.iter().map(|p| (p.to_string(), id)));
    }
    touched.sort();
    touched.dedup();
    let mut by_path: Vec<(String, Vec<u32>)> = Vec::new();
    for (path, id) in touched {
        match by_path.last_mut() {
            Some((last, ids)) if *last == path => ids.push(id),
            _ => by_path.push((path, vec![id])),
        }
    }
    CommitHistory {
        subjects,
        touched: by_path,
        commits_read: records.len(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::test_support::git;

    fn log(commits: &[(&str, &[&str])]) -> String {
        let mut s = String::new();
        for (subject, files) in commits {
            s.push(RECORD);
            s.push_str(subject);
            s.push(SUBJECT_END);
            s.push_str("\n\n");
            for f in *files {
                s.push_str(f);
                s.push('\n');
            }
        }
        s
    }

    #[test]
    fn groups_subjects_by_path() {
        let text = log(&[
            (
                "validate marker names",
                &["src/mark.py", "tests/test_mark.py"],
            ),
            ("empty commit", &[]),
            ("speed up collection", &["src/main.py", "src/mark.py"]),
        ]);
        let h = parse_log(&text, true);
        assert_eq!(h.commits_read, 3);
        assert_eq!(h.subjects, ["validate marker names", "speed up collection"]);
        assert_eq!(
            h.touched,
            [
                ("src/main.py".to_string(), vec![1]),
                ("src/mark.py".to_string(), vec![0, 1]),
                ("tests/test_mark.py".to_string(), vec![0]),
            ]
        );
    }

    #[test]
    fn leaves_out_mass_changes_and_a_truncated_last_commit() {
        let many: Vec<String> = (0..=MAX_FILES_PER_COMMIT)
            .map(|i| format!("f{i}.py"))
            .collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let text = log(&[
            ("reformat everything", &many),
            ("fix parser", &["parser.py"]),
            ("half written", &["lexer.py"]),
        ]);
        let h = parse_log(&text, false);
        assert_eq!(h.subjects, ["fix parser"]);
        assert_eq!(h.touched, [("parser.py".to_string(), vec![0])]);
        assert_eq!(h.commits_read, 2);
    }

    /// A repository with two commits; returns (dir, first commit).
    pub(crate) fn two_commits() -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = dir.path();
        git(repo, &["init", "-q"]);
        std::fs::create_dir_all(repo.join("pkg")).expect("mkdir");
        std::fs::write(repo.join("pkg/ledger.py"), "def settle():\n    pass\n").expect("write");
        std::fs::write(repo.join("top.py"), "X = 1\n").expect("write");
        git(repo, &["add", "."]);
        git(repo, &["commit", "-qm", "Initial ledger"]);
        let first = git(repo, &["rev-parse", "HEAD"]);
        std::fs::write(repo.join("pkg/ledger.py"), "def settle():\n    return 1\n").expect("write");
        git(repo, &["commit", "-qam", "Round currency totals"]);
        (dir, first)
    }

    /// `HEAD` read from git's files is the commit git names, through a branch's loose ref,
    /// a packed one, a detached `HEAD` and a worktree's; where the files are not plain (a
    /// subdirectory of the repository, an unborn branch), they name none and git is asked.
    #[test]
    fn head_from_files_is_the_commit_git_names() {
        let (dir, first) = two_commits();
        let repo = dir.path();
        let git_head = |at: &Path| git(at, &["rev-parse", "HEAD"]).trim().to_string();
        let second = git_head(repo);
        assert_ne!(first.trim(), second);
        assert_eq!(head_from_files(repo).as_deref(), Some(second.as_str()));
        // Packed: the loose ref file is gone.
        git(repo, &["pack-refs", "--all"]);
        assert_eq!(head_from_files(repo).as_deref(), Some(second.as_str()));
        // A commit after packing writes a loose ref, which wins over the packed one.
        std::fs::write(repo.join("top.py"), "X = 3\n").expect("write");
        git(repo, &["commit", "-qam", "Third"]);
        let third = git_head(repo);
        assert_eq!(head_from_files(repo).as_deref(), Some(third.as_str()));
        assert_eq!(
            head_commit(repo).ok().flatten().as_deref(),
            Some(third.as_str())
        );
        // Detached.
        git(repo, &["checkout", "-q", "--detach", first.trim()]);
        assert_eq!(head_from_files(repo).as_deref(), Some(first.trim()));
        git(repo, &["checkout", "-q", "-"]);
        assert_eq!(head_from_files(repo).as_deref(), Some(third.as_str()));
        // A worktree on another branch: its own HEAD, the common directory's refs.
        let wt = dir.path().join("wt");
        git(
            repo,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "side",
                wt.to_str().expect("utf-8"),
                &second,
            ],
        );
        assert_eq!(head_from_files(&wt).as_deref(), Some(second.as_str()));
        std::fs::write(wt.join("top.py"), "X = 4\n").expect("write");
        git(&wt, &["commit", "-qam", "On the side"]);
        let side = git_head(&wt);
        assert_eq!(head_from_files(&wt).as_deref(), Some(side.as_str()));
        assert_eq!(head_from_files(repo).as_deref(), Some(third.as_str()));
        // Not at the top of the repository: git is asked.
        assert_eq!(head_from_files(&repo.join("pkg")), None);
        assert_eq!(
            head_commit(&repo.join("pkg")).ok().flatten().as_deref(),
            Some(third.as_str())
        );
        // An unborn branch names no commit.
        git(repo, &["checkout", "-q", "--orphan", "fresh"]);
        assert_eq!(head_from_files(repo), None);
        assert_eq!(head_commit(repo).ok().flatten(), None);
    }

    #[test]
    fn a_git_dir_at_a_revision_sees_only_its_ancestors() {
        let (dir, first) = two_commits();
        let source = HistorySource::GitDir {
            git_dir: dir.path().join(".git"),
            rev: first,
        };
        let h = read(dir.path(), &source).expect("reads").expect("some");
        assert_eq!(h.subjects, ["Initial ledger"]);
        assert_eq!(h.touched.len(), 2);
    }

    #[test]
    fn a_subdirectory_sees_its_own_files_relative_to_itself_and_git_is_untouched() {
        let (dir, _) = two_commits();
        let listing = |d: &Path| -> Vec<(PathBuf, u64)> {
            let mut v: Vec<(PathBuf, u64)> = walkdir(d);
            v.sort();
            v
        };
        let before = listing(&dir.path().join(".git"));
        let h = read(&dir.path().join("pkg"), &HistorySource::Repo)
            .expect("reads")
            .expect("some");
        assert_eq!(h.subjects, ["Round currency totals", "Initial ledger"]);
        assert_eq!(h.touched, [("ledger.py".to_string(), vec![0, 1])]);
        assert_eq!(
            before,
            listing(&dir.path().join(".git")),
            "git log wrote nothing"
        );
    }

    fn walkdir(d: &Path) -> Vec<(PathBuf, u64)> {
        let mut out = Vec::new();
        let Ok(entries) = std::fs::read_dir(d) else {
            return out;
        };
        for e in entries.flatten() {
            let path = e.path();
            match e.metadata() {
                Ok(m) if m.is_dir() => out.extend(walkdir(&path)),
                Ok(m) => out.push((path, m.len())),
                Err(_) => {}
            }
        }
        out
    }

    #[test]
    fn a_git_that_takes_too_long_is_stopped_with_what_it_wrote() {
        let (dir, _) = two_commits();
        // No time at all: git is stopped at once, whatever it wrote is kept, nothing hangs.
        let h = read_within(dir.path(), &HistorySource::Repo, Duration::ZERO);
        if let Ok(Some(h)) = h {
            assert!(h.commits_read <= 2);
        }
    }

    #[test]
    fn git_is_asked_only_where_a_repository_may_be() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sub = dir.path().join("a/b");
        std::fs::create_dir_all(&sub).expect("mkdir");
        if may_be_in_a_repository(dir.path()) {
            return; // the temp dir sits inside a repository of this machine
        }
        assert!(!may_be_in_a_repository(&sub));
        assert!(matches!(
            read(&sub, &HistorySource::Repo),
            Err(HistoryError::NotARepository)
        ));
        assert!(matches!(
            head_commit(&sub),
            Err(HistoryError::NotARepository)
        ));
        std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
        assert!(may_be_in_a_repository(&sub));
        // A worktree's or a submodule's `.git` is a file.
        std::fs::remove_dir(dir.path().join(".git")).expect("rmdir");
        std::fs::write(dir.path().join("a/.git"), "gitdir: /elsewhere\n").expect("write");
        assert!(may_be_in_a_repository(&sub));
    }

    #[test]
    fn off_reads_nothing_and_a_plain_directory_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert_eq!(read(dir.path(), &HistorySource::Off).ok(), Some(None));
        // Not a repository (the temp dir is outside any): an error, not a panic or a hang.
        let plain = read(dir.path(), &HistorySource::Repo);
        if let Ok(Some(h)) = &plain {
            // Only when the temp dir sits inside some repository of the machine.
            assert!(h.touched.iter().all(|(p, _)| !p.starts_with("..")));
        } else {
            assert!(plain.is_err());
        }
    }
}
