//! `notarai score`: the specs ranked by how likely they no longer tell the
//! truth ([`crate::check::score`]), each score with its parts. Exit 0, or
//! 2 when the check it scores cannot run (as `check`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde::Serialize;

use super::output::Format;
use crate::check::score::{SpecScore, scores};
use crate::check::{self, CheckOptions};

/// Arguments of `notarai score`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The ref changes are counted from (as `notarai check --base`).
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,
    /// Output format: `text` (a line per spec: its score and parts) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// The JSON document of `notarai score --format json`.
#[derive(Debug, Serialize)]
struct ScoreReport {
    base: crate::state::UsedBase,
    specs: Vec<SpecScore>,
}

/// Run `notarai score`.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = crate::project::resolve_root(root.as_deref())?;
    let options = CheckOptions {
        base: args.base,
        ..CheckOptions::default()
    };
    // As `check`: a base that does not resolve, a bad state file or
    // `check.yaml` is a usage error (exit 2).
    let report = match check::check(&root, &options) {
        Ok(report) => report,
        Err(e) => {
            let e = crate::error::Error::from(e);
            eprintln!("{}", crate::quote::terminal_lines(&e.cli_message()));
            return Ok(ExitCode::from(2));
        }
    };
    let specs = scores(&root, &report);
    match args.format {
        Format::Json => super::output::json(&ScoreReport {
            base: report.base,
            specs,
        })?,
        Format::Text => {
            let mut out = crate::quote::Terminal::new(std::io::stdout().lock());
            if specs.is_empty() {
                writeln!(out, "No spec shows a sign of drift.")?;
            }
            for s in &specs {
                writeln!(out, "{:>5}  {}  ({})", s.score, s.spec_path, parts(s))?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `unreconciled_anchored 2 x 3 = 6, ...`: how a score adds up.
pub fn parts(s: &SpecScore) -> String {
    s.parts
        .iter()
        .map(|p| {
            let capped = if p.points < p.count * p.weight {
                " (capped)"
            } else {
                ""
            };
            format!(
                "{} {} x {} = {}{capped}",
                p.part, p.count, p.weight, p.points
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}
