//! `notarai mcp`: run the MCP server on stdio.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::project::resolve_root;

/// Arguments of `notarai mcp`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Serve only the tools that read: `mark_reconciled`, `snapshot_state`
    /// and `clear_cache` are not offered, and nothing under `.notarai/` is
    /// written (the hash cache is read, never written; no load-status stamp).
    #[arg(long)]
    pub read_only: bool,
}

/// Run the server until stdin closes; stdout carries only protocol messages.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = resolve_root(root.as_deref())?;
    tracing::info!(
        "serving {}{}",
        root.display(),
        if args.read_only { " (read-only)" } else { "" }
    );
    crate::mcp::serve(
        root,
        crate::mcp::Options {
            read_only: args.read_only,
        },
    )?;
    Ok(ExitCode::SUCCESS)
}
