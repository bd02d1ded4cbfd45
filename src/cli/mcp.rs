//! `notarai mcp`: run the MCP server on stdio.

use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `notarai mcp`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Run the server until stdin closes.
pub fn run(_root: Option<PathBuf>, _args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("notarai mcp is not built yet")
}
