//! `mapscope completions SHELL` and `mapscope man [SUBCOMMAND]`: the shell completion script
//! and the man page, both generated from the clap definitions in `cli` (`clap_complete`,
//! `clap_mangen`), so they never drift from `--help`. Runs on the main thread; writes to
//! stdout only.

use std::io::Write;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::*;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish (e.g. `mapscope completions bash >
    /// ~/.local/share/bash-completion/completions/mapscope`).
    pub shell: Shell,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// A subcommand (`map`, `search`, …) for its own page (`mapscope-map(1)`); without one,
    /// mapscope(1), which lists them all. `mapscope man | man -l -` reads it.
    pub subcommand: Option<String>,
}

pub(super) fn cmd_completions(args: &CompletionsArgs) -> anyhow::Result<()> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "mapscope", &mut script);
    let mut out = std::io::stdout().lock();
    out.write_all(&script)?;
    out.flush()?;
    Ok(())
}

pub(super) fn cmd_man(args: &ManArgs) -> anyhow::Result<()> {
    let page = man_page(args.subcommand.as_deref())?;
    let mut out = std::io::stdout().lock();
    out.write_all(&page)?;
    out.flush()?;
    Ok(())
}

/// The roff page of mapscope, or of `mapscope-SUBCOMMAND` (an unknown one is
/// `INVALID_ARGUMENT`, naming those there are).
pub(super) fn man_page(subcommand: Option<&str>) -> anyhow::Result<Vec<u8>> {
    let cmd = Cli::command().version(env!("CARGO_PKG_VERSION"));
    let cmd = match subcommand {
        None => cmd,
        Some(name) => {
            let names: Vec<String> = cmd
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            let Some(sub) = cmd.find_subcommand(name).cloned() else {
                return Err(InvalidArgument(format!(
                    "no subcommand `{name}` (one of {})",
                    names.join(", ")
                ))
                .into());
            };
            // The page's name and synopsis say `mapscope-map`, as man's convention has it.
            let full = format!("mapscope-{}", sub.get_name());
            sub.name(full.clone())
                .bin_name(full)
                .version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut page)?;
    Ok(page)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_gets_a_script_naming_the_subcommands() {
        for shell in [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::PowerShell] {
            let mut cmd = Cli::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "mapscope", &mut script);
            let script = String::from_utf8(script).unwrap();
            for sub in ["map", "search", "stats", "mcp", "serve", "completions"] {
                assert!(script.contains(sub), "{shell}: no `{sub}`");
            }
            assert!(script.contains("tokens"), "{shell}: no --tokens");
        }
    }

    #[test]
    fn man_pages_for_mapscope_and_each_subcommand() {
        let page = String::from_utf8(man_page(None).unwrap()).unwrap();
        assert!(page.starts_with(".ie"), "{}", &page[..40]);
        assert!(page.contains(".TH mapscope 1"), "{page}");
        assert!(page.contains("completions"));
        let map = String::from_utf8(man_page(Some("map")).unwrap()).unwrap();
        assert!(map.contains(".TH mapscope-map 1"), "{map}");
        assert!(map.contains("tokens"));
        assert!(man_page(Some("nope")).is_err());
    }
}
