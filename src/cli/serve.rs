//! `mapscope mcp` and `mapscope serve --http`: the servers' arguments and setup (root,
//! options, sources and their limits), shared by both; `launch` starts them.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::engine::index::IndexOptions;
use crate::engine::ingest::history::HistorySource;
use crate::engine::live::source_pool::SourceLimits;
use crate::engine::search::sources::SourceSpec;
use crate::engine::EngineError;
use crate::launch::{HttpSetup, LiveSetup};

use super::*;

#[derive(Args, Debug)]
pub struct McpArgs {
    #[command(flatten)]
    pub live: LiveArgs,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on, host:port (a port of 0 picks a free one; the address is printed
    /// on stderr).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7431")]
    pub http: String,
    /// Listen on a non-loopback address too: anyone who can reach it can read the code.
    #[arg(long)]
    pub allow_remote: bool,
    /// Also answer requests whose Host is NAME (NAME:PORT for another port, as behind a
    /// proxy); repeatable. The address reached, and localhost, 127.0.0.1 and [::1] on a
    /// loopback connection, are always answered; any other Host gets 421.
    #[arg(long = "allow-host", value_name = "NAME")]
    pub allow_hosts: Vec<String>,
    /// Let web pages from ORIGIN (scheme://host[:port]) call the server: their requests are
    /// answered, with Access-Control-Allow-Origin: ORIGIN; repeatable. Any other origin
    /// gets 403.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// Let a request's sources=NAME=PATH name a folder at or under DIR (links resolved);
    /// repeatable. Without it, requests pick among the --source ones only.
    #[arg(long = "source-root", value_name = "DIR")]
    pub source_roots: Vec<PathBuf>,
    #[command(flatten)]
    pub live: LiveArgs,
}

/// What a server front door (`mcp`, `serve`) keeps live.
#[derive(Args, Debug)]
pub struct LiveArgs {
    /// Repository to serve (default: the current directory).
    pub path: Option<PathBuf>,
    /// Also search this read-only root after the project, as NAME=PATH; repeatable.
    #[arg(long = "source", value_name = "NAME=PATH")]
    pub sources: Vec<String>,
    /// Do not read the repository's commit history (`git log`) for search.
    #[arg(long)]
    pub no_history: bool,
    /// Index once at startup and do not watch the files for changes.
    #[arg(long)]
    pub no_watch: bool,
    #[command(flatten)]
    pub limits: SourceLimitArgs,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// The bounds on the sources a server indexes (each flag's default is also read from the
/// variable it names).
#[derive(Args, Debug, Default)]
pub struct SourceLimitArgs {
    /// Per source: give up past N files, code and docs [env MAPSCOPE_SOURCE_MAX_FILES;
    /// default 100000].
    #[arg(long, value_name = "N")]
    pub source_max_files: Option<String>,
    /// Per source: give up past SIZE bytes of files (512M, 2G, …) [env
    /// MAPSCOPE_SOURCE_MAX_BYTES; default 128M].
    #[arg(long, value_name = "SIZE")]
    pub source_max_bytes: Option<String>,
    /// Per source: give up after SECS seconds of indexing [env MAPSCOPE_SOURCE_TIMEOUT;
    /// default 120].
    #[arg(long, value_name = "SECS")]
    pub source_timeout: Option<String>,
    /// All sources requests named together: keep at most SIZE of estimated index memory,
    /// least recently used dropped first [env MAPSCOPE_SOURCE_MEMORY; default 1G].
    #[arg(long, value_name = "SIZE")]
    pub source_memory: Option<String>,
    /// All sources requests named together: keep at most SIZE of cache folders the server
    /// made, least recently used removed first [env MAPSCOPE_SOURCE_DISK; default 1G].
    #[arg(long, value_name = "SIZE")]
    pub source_disk: Option<String>,
}

impl SourceLimitArgs {
    /// The limits: each flag, else its variable, else the default.
    pub fn limits(&self) -> Result<SourceLimits, String> {
        let d = SourceLimits::default();
        let pick = |flag: &Option<String>, var: &str| -> Option<(String, String)> {
            let name = var.to_string();
            flag.clone()
                .map(|v| (v, name.clone()))
                .or_else(|| std::env::var(var).ok().map(|v| (v, name)))
                .filter(|(v, _)| !v.trim().is_empty())
        };
        let size = |flag, var, default| match pick(flag, var) {
            None => Ok(default),
            Some((v, name)) => parse_size(&v).ok_or_else(|| bad(&name, &v, "a size (512M, 2G)")),
        };
        let count = |flag, var, default: u64| match pick(flag, var) {
            None => Ok(default),
            Some((v, name)) => v
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| bad(&name, &v, "a positive whole number")),
        };
        Ok(SourceLimits {
            max_files: count(
                &self.source_max_files,
                "MAPSCOPE_SOURCE_MAX_FILES",
                d.max_files as u64,
            )? as usize,
            max_bytes: size(
                &self.source_max_bytes,
                "MAPSCOPE_SOURCE_MAX_BYTES",
                d.max_bytes,
            )?,
            time: Duration::from_secs(count(
                &self.source_timeout,
                "MAPSCOPE_SOURCE_TIMEOUT",
                d.time.as_secs(),
            )?),
            memory: size(&self.source_memory, "MAPSCOPE_SOURCE_MEMORY", d.memory)?,
            disk: size(&self.source_disk, "MAPSCOPE_SOURCE_DISK", d.disk)?,
        })
    }
}

/// `--source-memory 2G` is `MAPSCOPE_SOURCE_MEMORY`'s flag: the message names the flag.
fn bad(var: &str, value: &str, want: &str) -> String {
    let flag = var
        .trim_start_matches("MAPSCOPE_")
        .to_ascii_lowercase()
        .replace('_', "-");
    format!(
        "--{flag} (or {var}) `{}` is not {want}",
        crate::engine::base::text::sanitize(value)
    )
}

/// A size in bytes: digits, then nothing or K, M, G, T (powers of 1024; `KB`, `KiB`, `k`
/// too). Zero is none.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let n: u64 = text[..digits].parse().ok()?;
    let unit = text[digits..].trim().to_ascii_lowercase();
    let shift = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    n.checked_mul(1 << shift).filter(|&b| b > 0)
}

/// A server's repository, index options and extra sources. A mistyped path is reported at
/// once (the client sees the server fail to start); an empty repository is served, and
/// reported by each request until it has files.
pub(super) fn live_setup(args: &LiveArgs) -> anyhow::Result<(PathBuf, IndexOptions, LiveSetup)> {
    let root = repo_path(&args.path);
    if !root.exists() {
        return Err(EngineError::RepoNotFound(root).into());
    }
    if !root.is_dir() {
        return Err(EngineError::InvalidRepo(root).into());
    }
    let opts = IndexOptions {
        use_cache: !args.cache.no_cache,
        history: if args.no_history {
            HistorySource::Off
        } else {
            HistorySource::Repo
        },
        ..IndexOptions::default()
    };
    let sources: Vec<SourceSpec> = checked_sources(&root, &args.sources)?;
    let limits = args.limits.limits().map_err(InvalidArgument)?;
    let live = LiveSetup {
        watch: !args.no_watch,
        sources,
        limits,
    };
    Ok((root, opts, live))
}

pub(super) fn cmd_mcp(args: &McpArgs) -> anyhow::Result<()> {
    let (root, opts, live) = live_setup(&args.live)?;
    crate::launch::mcp(root, opts, live)
}

pub(super) fn cmd_serve(args: &ServeArgs) -> anyhow::Result<()> {
    let mut setup = HttpSetup {
        addr: args.http.clone(),
        allow_remote: args.allow_remote,
        allow_hosts: args.allow_hosts.clone(),
        allow_origins: args.allow_origins.clone(),
        source_roots: Vec::new(),
    };
    crate::launch::check_http(&setup).map_err(InvalidArgument)?;
    for dir in &args.source_roots {
        let canonical = dir
            .canonicalize()
            .ok()
            .filter(|d| d.is_dir())
            .ok_or_else(|| {
                InvalidArgument(format!(
                    "--source-root {} is not a directory",
                    crate::engine::base::text::display_path(dir)
                ))
            })?;
        setup.source_roots.push(canonical);
    }
    let (root, index_opts, live) = live_setup(&args.live)?;
    crate::launch::http(root, index_opts, setup, live)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_people_write_them() {
        for (text, want) in [
            ("512", Some(512)),
            ("4K", Some(4096)),
            ("512M", Some(512 << 20)),
            ("2g", Some(2 << 30)),
            ("2GiB", Some(2 << 30)),
            ("1 GB", Some(1 << 30)),
            ("0", None),
            ("", None),
            ("M", None),
            ("12X", None),
            ("-1", None),
            ("99999999999T", None),
        ] {
            assert_eq!(parse_size(text), want, "{text:?}");
        }
    }
}
