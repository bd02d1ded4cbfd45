//! `notarai init`.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `notarai init`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Show what would change and write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Run `notarai init`.
pub fn run(_root: Option<PathBuf>, _args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("notarai init is not built yet")
}
