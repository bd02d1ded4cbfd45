//! `notarai lint`: the specs' quality ([`crate::check::lint`]), rendered as
//! text (a line per finding with its rule) or JSON. Exit 0 clean, 1 when a
//! finding is at or above `fail_on` (error by default), 2 on a bad
//! `.notarai/check.yaml` or an unreadable project.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::output::Format;
use crate::check::Severity;
use crate::check::lint::{self, LintReport};

/// Arguments of `notarai lint`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format: `text` (a line per finding, `path:line: severity: message [CODE name]`, then a summary) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Run `notarai lint`.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = crate::project::resolve_root(root.as_deref())?;
    let report = match lint::run(&root) {
        Ok(report) => report,
        Err(e) => {
            let e = crate::error::Error::from(e);
            eprintln!("{}", crate::quote::terminal_lines(&e.cli_message()));
            return Ok(ExitCode::from(2));
        }
    };
    match args.format {
        Format::Text => text(
            &mut crate::quote::Terminal::new(std::io::stdout().lock()),
            &report,
        )?,
        Format::Json => super::output::json(&report)?,
    }
    Ok(if report.failed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn label(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Notice => "notice",
    }
}

fn text(out: &mut impl Write, report: &LintReport) -> std::io::Result<()> {
    for f in &report.findings {
        let place = match (&f.file, f.line) {
            (Some(file), Some(line)) => format!("{file}:{line}: "),
            (Some(file), None) => format!("{file}: "),
            _ => String::new(),
        };
        writeln!(
            out,
            "{place}{}: {} [{}]",
            label(f.severity),
            f.message,
            f.code.label()
        )?;
    }
    let s = &report.summary;
    let ignored = if s.ignored > 0 {
        format!(
            ", {} ignored by {}",
            s.ignored,
            crate::check::config::CHECK_CONFIG
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{}: {} spec{}; {} error{}, {} warning{}, {} notice{}{ignored}",
        if report.failed() { "FAIL" } else { "PASS" },
        s.specs,
        if s.specs == 1 { "" } else { "s" },
        s.errors,
        if s.errors == 1 { "" } else { "s" },
        s.warnings,
        if s.warnings == 1 { "" } else { "s" },
        s.notices,
        if s.notices == 1 { "" } else { "s" },
    )?;
    Ok(())
}
