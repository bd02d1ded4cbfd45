//! `notarai mcp`: run the MCP server on stdio.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::project::resolve_root;

/// Arguments of `notarai mcp`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Run the server until stdin closes; stdout carries only protocol messages.
pub fn run(root: Option<PathBuf>, _args: Args) -> anyhow::Result<ExitCode> {
    let root = resolve_root(root.as_deref())?;
    tracing::info!("serving {}", root.display());
    crate::mcp::serve(root)?;
    Ok(ExitCode::SUCCESS)
}
