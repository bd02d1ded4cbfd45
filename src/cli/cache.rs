//! `notarai cache ...`: the hash cache from the shell.

use std::path::PathBuf;
use std::process::ExitCode;

/// The cache subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Hash files and store them (paths from stdin when none are given).
    Update {
        /// Files to hash.
        paths: Vec<PathBuf>,
    },
}

/// Run a cache subcommand.
pub fn run(_root: Option<PathBuf>, _cmd: Command) -> anyhow::Result<ExitCode> {
    anyhow::bail!("notarai cache is not built yet")
}
