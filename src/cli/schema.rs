//! `notarai schema`.

use std::process::ExitCode;

/// Arguments of `notarai schema`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Run `notarai schema`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("notarai schema is not built yet")
}
