//! `notarai reconcile FILES... [--spec PATH] [--snapshot] [--base REV]`: record a review
//! pass from the shell, into the same state the MCP tools and `notarai
//! check` use (what `mark_reconciled` records).
//!
//! Thin: turn the paths given (relative to the current folder, or absolute,
//! inside the project) into repository-relative ones, call
//! [`crate::review::mark_reconciled`], print one line. Errors exit 2.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::project::{Project, resolve_root};
use crate::review::{MarkReconciledParams, mark_reconciled};

/// Arguments of `notarai reconcile`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files reviewed, relative to the current folder or absolute, inside
    /// the project (paths from stdin, one per line, when none are given). A
    /// file the branch deleted is recorded as reviewed while deleted.
    pub files: Vec<String>,
    /// The spec they were reviewed for (e.g. `.notarai/auth.spec.yaml`):
    /// they stay unreconciled for every other spec that governs them.
    /// Without it: reviewed for every spec that governs them.
    #[arg(long, value_name = "PATH")]
    pub spec: Option<String>,
    /// Also write `.notarai/reconciliation_state.json` (as `notarai state snapshot`).
    #[arg(long)]
    pub snapshot: bool,
    /// Why a divergence was accepted, or which side (spec or code) was
    /// changed: kept in the committed state's decision log for each spec
    /// reconciled (`notarai decisions` lists them).
    #[arg(long, value_name = "TEXT")]
    pub decision: Option<String>,
    /// The base of the pass (as `check --base`): without `--spec`, the
    /// files are also recorded for each spec governing them that the branch
    /// changed since that merge base. Default: as `check` chooses it.
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
}

/// Record the pass; failures print `error: ...` (with a hint) and exit 2.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = resolve_root(root.as_deref())?;
    let files = super::cache::paths_or_stdin(args.files)?;
    let spec = match args.spec {
        Some(spec) => Some(super::repo_relative(&root, &spec)?),
        None => None,
    };
    let pass = Pass {
        snapshot: args.snapshot,
        decision: args.decision,
        base: args.base,
    };
    let recorded = record(&root, files, spec, pass)?;
    let Some(recorded) = recorded else {
        return Ok(ExitCode::from(2));
    };
    let mut out = crate::quote::Terminal::new(std::io::stdout().lock());
    let scope = match &recorded.spec_path {
        Some(spec) => format!("for {spec}"),
        None => "for every spec that governs them".to_string(),
    };
    write!(
        out,
        "Recorded {} file(s) as reviewed {scope}",
        recorded.updated + recorded.deleted
    )?;
    if recorded.deleted > 0 {
        write!(out, " ({} deleted)", recorded.deleted)?;
    }
    writeln!(out)?;
    if recorded.not_found_count > 0 {
        writeln!(
            out,
            "Skipped {} path(s) that neither exist nor are known to git: {}",
            recorded.not_found_count,
            recorded.not_found.join(", ")
        )?;
    }
    if recorded.decisions_recorded > 0 {
        writeln!(
            out,
            "Recorded the decision for {} spec(s) in {}",
            recorded.decisions_recorded,
            crate::state::STATE_FILE
        )?;
    }
    if let Some(s) = &recorded.snapshot {
        writeln!(out, "Wrote {}: {} entries", s.path, s.entries)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// How a pass is recorded besides its files and spec.
#[derive(Debug, Default)]
pub(super) struct Pass {
    /// Also write the state file.
    pub snapshot: bool,
    /// The decision to log.
    pub decision: Option<String>,
    /// The base of the pass.
    pub base: Option<String>,
}

/// Record `files` (as given on the command line) as reviewed for `spec`
/// (repository-relative) or every spec; `None` after printing the error.
pub(super) fn record(
    root: &std::path::Path,
    files: Vec<String>,
    spec: Option<String>,
    pass: Pass,
) -> crate::error::Result<Option<crate::review::MarkReconciled>> {
    let files = files
        .iter()
        .map(|f| super::repo_relative(root, f))
        .collect::<crate::error::Result<Vec<_>>>()?;
    let mut project = Project::new(root.to_path_buf());
    let params = MarkReconciledParams {
        files,
        spec_path: spec,
        snapshot: pass.snapshot,
        decision: pass.decision,
        base_branch: pass.base,
    };
    match mark_reconciled(&mut project, &params, &crate::progress::Progress::none()) {
        Ok(recorded) => Ok(Some(recorded)),
        Err(e) => {
            // Through the one edge: `error: ...` then its `hint: ...`.
            eprintln!("{}", crate::quote::terminal_lines(&e.cli_message()));
            Ok(None)
        }
    }
}
