//! `notarai hook ...`: hooks called by Claude Code.

use std::process::ExitCode;

/// The hooks.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// PostToolUse hook: validate a spec file that was just written.
    Validate,
}

/// Run a hook.
pub fn run(_cmd: Command) -> anyhow::Result<ExitCode> {
    anyhow::bail!("notarai hook validate is not built yet")
}
