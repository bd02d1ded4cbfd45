//! `notarai decisions [--spec PATH]`: the decision log of the committed
//! state ([`crate::review::decisions`]), by spec, oldest first.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::output::Format;
use crate::review::decisions::{SpecDecision, decisions_of};

/// Arguments of `notarai decisions`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only the decisions about this spec (e.g. `.notarai/auth.spec.yaml`).
    #[arg(long, value_name = "PATH")]
    pub spec: Option<String>,
    /// Output format: `text` (per spec, each decision with its date, branch and files) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Run `notarai decisions`.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = crate::project::resolve_root(root.as_deref())?;
    let spec = match &args.spec {
        Some(spec) => Some(super::repo_relative(&root, spec)?),
        None => None,
    };
    let state = match crate::state::read(&root).map_err(crate::error::Error::from)? {
        Some(loaded) => loaded.state,
        None => crate::state::State::empty(),
    };
    let list = decisions_of(&state, spec.as_deref());
    match args.format {
        Format::Json => super::output::json(&list)?,
        Format::Text => text(
            &mut crate::quote::Terminal::new(std::io::stdout().lock()),
            &list,
        )?,
    }
    Ok(ExitCode::SUCCESS)
}

fn text(out: &mut impl Write, list: &[SpecDecision]) -> std::io::Result<()> {
    if list.is_empty() {
        writeln!(out, "No decision recorded ({}).", crate::state::STATE_FILE)?;
        return Ok(());
    }
    let mut spec = "";
    for d in list {
        if d.spec_path != spec {
            spec = &d.spec_path;
            writeln!(out, "{spec}")?;
        }
        let when = d
            .decision
            .recorded_at
            .as_deref()
            .and_then(|t| t.trim_end_matches('Z').parse::<u64>().ok())
            .map(date)
            .unwrap_or_else(|| "-".to_string());
        let branch = d.decision.branch.as_deref().unwrap_or("-");
        writeln!(
            out,
            "  {when} {} ({branch}): {}",
            d.decision.id, d.decision.decision
        )?;
        if !d.decision.paths.is_empty() {
            writeln!(out, "    files: {}", d.decision.paths.join(", "))?;
        }
    }
    Ok(())
}

/// `YYYY-MM-DD` (UTC) of a Unix time.
fn date(secs: u64) -> String {
    let (y, m, d) = crate::check::config::date_of_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}
