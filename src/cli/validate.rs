//! `notarai validate`.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `notarai validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A spec file or folder (default: `.notarai/`).
    pub path: Option<PathBuf>,
}

/// Run `notarai validate`.
pub fn run(_root: Option<PathBuf>, _args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("notarai validate is not built yet")
}
