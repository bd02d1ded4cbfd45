//! `notarai rules [--agents LIST] [--dry-run]`: write the path-scoped rule
//! files generated from the specs (`crate::rules`) for the agents that load
//! them, and remove notarai's files whose spec is gone.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::agent::AgentId;
use crate::agent::rules::RULES;
use crate::init::agents;
use crate::rule_files::write::{self, Outcome};

/// Arguments of `notarai rules`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The agents to write rule files for (comma-separated). Without it:
    /// those set up in the repository (notarai's hook of theirs found) or
    /// already holding notarai's rule files, among the agents that load
    /// path-scoped rules (claude, cursor, vscode, windsurf).
    #[arg(long, value_delimiter = ',', value_parser = super::agents::parser())]
    pub agents: Option<Vec<super::agents::AgentChoice>>,

    /// Print what would change; write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// The agents with path-scoped rules set up at `root`: notarai's hook of
/// theirs registered, or one of notarai's rule files already there. (Not
/// the MCP entry: VS Code's Copilot harness shares `.mcp.json` with Claude
/// Code, so the entry alone does not say which agent is used.)
pub fn set_up(root: &Path) -> Vec<AgentId> {
    RULES
        .iter()
        .filter(|files| {
            let seen = agents::inspect(root, files.id);
            seen.hook.is_some_and(|h| h.registered)
                || !crate::rule_files::existing(root, files).is_empty()
        })
        .map(|files| files.id)
        .collect()
}

/// Run `notarai rules`.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = crate::project::resolve_root(root.as_deref())?;
    let chosen = match &args.agents {
        Some(list) => super::agents::selected(list, &root),
        None => set_up(&root),
    };
    let mut out = crate::quote::Terminal::new(std::io::stdout().lock());
    let without: Vec<&str> = chosen
        .iter()
        .filter(|id| crate::agent::rules::rules(**id).is_none())
        .map(|id| id.name())
        .collect();
    if !without.is_empty() {
        writeln!(
            out,
            "note: {} load no path-scoped rule files; they get the specs from the MCP server \
             (and the pre-edit hook where they have one)",
            without.join(", ")
        )?;
    }
    if chosen
        .iter()
        .all(|id| crate::agent::rules::rules(*id).is_none())
    {
        writeln!(
            out,
            "No agent that loads path-scoped rules is set up: run `notarai init`, or name them \
             with --agents ({}).",
            RULES
                .iter()
                .map(|r| r.id.name())
                .collect::<Vec<_>>()
                .join(",")
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let set = crate::project::load_specs(&root);
    let plan = write::plan(&root, &set, &chosen);
    if !args.dry_run {
        write::apply(&root, &plan).map_err(|e| crate::error::Error::invalid(e.to_string()))?;
    }
    let hooks = crate::init::hook_if::refresh(&root, &set, &chosen, args.dry_run)?;
    let mut changed = hooks.len();
    for rel in &hooks {
        let word = match args.dry_run {
            true => "would be updated",
            false => "updated",
        };
        writeln!(out, "  {word:18}  {rel} (the pre-edit hook's `if`)")?;
    }
    for (file, _) in &plan {
        if file.outcome != Outcome::Unchanged {
            changed += 1;
        }
        let word = match (args.dry_run, file.outcome) {
            (true, Outcome::Unchanged) | (false, _) => file.outcome.describe().to_string(),
            (true, outcome) => format!("would be {}", outcome.describe()),
        };
        writeln!(out, "  {word:18}  {}", file.rel)?;
    }
    let verb = if args.dry_run {
        "would change"
    } else {
        "changed"
    };
    writeln!(
        out,
        "{} rule file(s) for {} spec(s); {changed} {verb}.",
        plan.len(),
        set.specs.len()
    )?;
    Ok(ExitCode::SUCCESS)
}
