//! `notarai which PATH... [--lines A[-B]] [--format text|json]`: the specs
//! governing files, the answer of the `get_governing_specs` tool for a
//! person.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::output::Format;
use crate::project::Project;
use crate::review::{self, GoverningSpecs, LineRange};

/// Arguments of `notarai which`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The files (relative to the current folder, inside the repository).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,

    /// Only the code at lines A to B (or line A): a spec anchored to
    /// symbols (`file#Symbol`) counts only when they touch its symbols.
    #[arg(long, value_name = "A[-B]", value_parser = LineRange::parse)]
    pub lines: Option<LineRange>,

    /// Output format: `text` (per file its specs, then each spec's intent, constraints and invariants) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Run `notarai which`.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = crate::project::resolve_root(root.as_deref())?;
    let root = root.canonicalize().unwrap_or(root);
    let cwd = std::env::current_dir()?;
    let inputs: Vec<String> = args
        .paths
        .iter()
        .map(|p| {
            let given = if p.is_absolute() {
                p.clone()
            } else {
                cwd.join(p)
            };
            given.to_string_lossy().into_owned()
        })
        .collect();
    let mut project = Project::new(root);
    let answer = review::governing_specs(&mut project, &inputs, args.lines, true)?;
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Json => {
            super::output::json(&answer)?;
        }
        Format::Text => text(&mut crate::quote::Terminal::new(&mut out), &answer)?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn text(out: &mut impl Write, answer: &GoverningSpecs) -> std::io::Result<()> {
    for file in &answer.files {
        let at = match file.symbols.as_slice() {
            [] => String::new(),
            names => format!(" ({})", names.join(", ")),
        };
        if file.governed_by.is_empty() {
            let why = match file.excluded {
                true => "governed by no spec (excluded by the system spec)",
                false => "governed by no spec",
            };
            writeln!(out, "{}{at}: {why}", file.path)?;
            continue;
        }
        writeln!(out, "{}{at}:", file.path)?;
        for g in &file.governed_by {
            let anchors = match &g.anchors {
                Some(a) => format!(" #{}", a.join(", #")),
                None => String::new(),
            };
            writeln!(
                out,
                "  {} ({}){anchors}",
                g.spec_path,
                g.categories.join(", ")
            )?;
        }
        if file.unreconciled {
            writeln!(
                out,
                "  changed since the base, not reconciled for: {}",
                file.unreconciled_for.join(", ")
            )?;
        }
    }
    for spec in &answer.specs {
        writeln!(out, "\n{}", spec.spec_path)?;
        writeln!(out, "  intent: {}", spec.intent.trim())?;
        for b in &spec.behaviors {
            writeln!(
                out,
                "  behavior {}: given {}, then {}",
                b.name,
                b.given.trim(),
                b.then.trim()
            )?;
        }
        for c in &spec.constraints {
            writeln!(out, "  constraint: {}", c.trim())?;
        }
        for i in &spec.invariants {
            writeln!(out, "  invariant: {}", i.trim())?;
        }
        for applied in &spec.applies {
            writeln!(
                out,
                "  applies: {applied} (its constraints and invariants hold here too)"
            )?;
        }
    }
    if let Some(note) = &answer.status_note {
        writeln!(out, "\nnote: {note}")?;
    }
    Ok(())
}
