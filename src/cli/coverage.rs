//! `notarai coverage [--format text|json] [--per-folder N | --all]`: every
//! file no spec governs, per folder with counts, and every spec with how
//! many files it governs. Exit 1 when the system spec's `coverage.policy`
//! is `strict` and some file is unspecced.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::output::Format;
use crate::project::Project;
use crate::review::{self, Coverage};
use crate::spec::model::CoveragePolicy;

/// Arguments of `notarai coverage`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format: `text` (counts, the unspecced files per folder, the specs) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// At most this many unspecced files listed per folder (the count is
    /// always whole).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub per_folder: usize,

    /// List every unspecced file.
    #[arg(long)]
    pub all: bool,
}

/// Run `notarai coverage`.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = crate::project::resolve_root(root.as_deref())?;
    let root = root.canonicalize().unwrap_or(root);
    let mut project = Project::new(root);
    let limit = (!args.all).then_some(args.per_folder);
    let answer = review::coverage(&mut project, limit)?;
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            super::output::json(&answer)?;
        }
        Format::Text => text(&mut crate::quote::Terminal::new(&mut out), &answer)?,
    }
    out.flush()?;
    Ok(match answer.failed() {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    })
}

fn text(out: &mut impl Write, c: &Coverage) -> std::io::Result<()> {
    writeln!(
        out,
        "{} files: {} governed, {} excluded, {} unspecced",
        c.files, c.governed, c.excluded, c.unspecced
    )?;
    if c.policy == CoveragePolicy::Off {
        writeln!(
            out,
            "coverage.policy is off: unspecced files are not reported"
        )?;
    }
    if !c.folders.is_empty() {
        writeln!(out, "\nunspecced files per folder:")?;
    }
    for folder in &c.folders {
        writeln!(out, "  {}/ ({})", folder.folder, folder.count)?;
        for file in &folder.files {
            writeln!(out, "    {file}")?;
        }
        if folder.files.len() < folder.count {
            writeln!(
                out,
                "    ... and {} more (--all lists them)",
                folder.count - folder.files.len()
            )?;
        }
    }
    if let Some(message) = c.message.as_deref().filter(|_| c.unspecced > 0) {
        writeln!(out, "\n{message}")?;
    }
    writeln!(out, "\nspecs (files governed):")?;
    for spec in &c.specs {
        writeln!(out, "  {:>6}  {}", spec.files, spec.spec_path)?;
    }
    if c.specs.is_empty() {
        writeln!(out, "  none: `notarai init` starts one")?;
    }
    if c.failed() {
        writeln!(
            out,
            "\ncoverage.policy is strict: govern these files with a spec, or add them to the system spec's `exclude`"
        )?;
    }
    Ok(())
}
