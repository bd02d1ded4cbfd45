//! `notarai check`: the CI gate. Calls [`crate::check::check`] and renders
//! its typed report as text (people), JSON (tools) or GitHub workflow
//! commands (annotations on the pull request's files).
//!
//! Exit codes: 0 clean, 1 something needs reconciling, 2 usage or internal
//! errors (a bad ref, a malformed state file, an unreadable repository).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::check::{self, CheckOptions, CheckReport, Claim, ClaimRecord, Finding, Severity};
use crate::project::resolve_root;
use crate::state::BaseSource;

/// Output format of `notarai check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Grouped per spec, with a summary and what to do next.
    #[default]
    Text,
    /// One JSON document (its shape is in docs/check.md).
    Json,
    /// GitHub Actions workflow commands (`::error file=PATH::message`).
    Github,
    /// The body of one pull request comment (Markdown, a hidden marker first,
    /// at most 65,536 characters).
    Markdown,
    /// SARIF 2.1.0 for code scanning.
    Sarif,
}

/// Arguments of `notarai check`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The branch (or tag, or commit) this branch merges into. Default: on
    /// the default branch the committed state's last reconciliation when
    /// reachable, else main, origin/main, master, origin/master.
    #[arg(long, value_name = "REF")]
    pub base: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Make warnings (ungoverned changes, housekeeping files not recorded,
    /// spec warnings) errors.
    #[arg(long)]
    pub strict: bool,

    /// List every behavior of a 0.8 spec that names no test (`tested_by`),
    /// a warning each, instead of one summary notice.
    #[arg(long)]
    pub untested: bool,

    /// Count files changed in formatting or comments only (the same program
    /// in Rust, TypeScript, JavaScript, Python, Go: equal syntax trees, every
    /// token the language treats as code kept); by default they affect no
    /// spec and are reported as notices.
    #[arg(long)]
    pub include_formatting: bool,
}

/// Run `notarai check`.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let report = resolve_root(root.as_deref())
        .map_err(crate::error::Error::from)
        .and_then(|root| {
            let report = check::check(
                &root,
                &CheckOptions {
                    base: args.base.clone(),
                    strict: args.strict,
                    include_formatting: args.include_formatting,
                    untested: args.untested,
                },
            )
            .map_err(crate::error::Error::from)?;
            // The comment shows the top of the drift score.
            let scores = match args.format {
                Format::Markdown => check::score::scores(&root, &report),
                _ => Vec::new(),
            };
            Ok((report, scores))
        });
    let (report, scores) = match report {
        Ok(both) => both,
        Err(e) => {
            if args.format == Format::Github {
                println!("::error::{}", escape_data(&e.message));
            }
            eprintln!("{}", crate::quote::terminal_lines(&e.cli_message()));
            return Ok(ExitCode::from(2));
        }
    };
    // Text for a terminal or a CI log: names from the repository are
    // escaped on the way out ([`crate::quote::Terminal`]).
    let stdout = std::io::stdout().lock();
    match args.format {
        Format::Text => text(&mut crate::quote::Terminal::new(stdout), &report)?,
        Format::Json => super::output::json(&report)?,
        Format::Github => github(&mut crate::quote::Terminal::new(stdout), &report)?,
        Format::Markdown => super::check_formats::markdown(
            &mut crate::quote::Terminal::new(stdout),
            &report,
            &base_line(&report),
            &scores,
        )?,
        Format::Sarif => super::output::json(&super::check_formats::sarif(&report))?,
    }
    Ok(if report.failed() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn base_line(report: &CheckReport) -> String {
    let how = match report.base.source {
        BaseSource::Explicit => "given with --base",
        BaseSource::LastReconciliation => "the last reconciliation in the committed state",
        BaseSource::DefaultBranch => "the default branch",
    };
    let merge_base = report
        .base
        .merge_base
        .as_deref()
        .map_or("none".to_string(), |m| m[..12.min(m.len())].to_string());
    format!("base {} ({how}), merge base {merge_base}", report.base.name)
}

fn label(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Notice => "notice",
    }
}

/// `, 3 ignored by .notarai/check.yaml` when entries ignored findings,
/// and what fails when `fail_on` is below error; empty otherwise.
fn ignored_note(report: &CheckReport) -> String {
    let mut note = String::new();
    if report.summary.ignored > 0 {
        note.push_str(&format!(
            ", {} ignored by {}",
            report.summary.ignored,
            check::config::CHECK_CONFIG
        ));
    }
    if let Some(level @ (Severity::Warning | Severity::Notice)) = report.fail_on {
        note.push_str(&format!(" (fail_on: {})", label(level)));
    }
    note
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

fn text(out: &mut impl Write, report: &CheckReport) -> std::io::Result<()> {
    writeln!(out, "notarai check: {}", base_line(report))?;
    let mut groups: BTreeMap<Option<&str>, Vec<&Finding>> = BTreeMap::new();
    for f in &report.findings {
        groups.entry(f.spec.as_deref()).or_default().push(f);
    }
    for (spec, findings) in &groups {
        writeln!(out)?;
        writeln!(out, "{}", spec.unwrap_or("(no single spec)"))?;
        for f in findings {
            let place = match (&f.file, f.line) {
                (Some(file), Some(line)) => format!("{file}:{line}: "),
                _ => String::new(),
            };
            writeln!(
                out,
                "  {:<8} {place}{} [{}]",
                label(f.severity),
                f.message,
                f.code.label()
            )?;
        }
    }
    if !report.claims.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Marked reconciled on this branch (claims in {}; review them next to the diff):",
            crate::state::STATE_FILE
        )?;
        let mut by_spec: BTreeMap<String, Vec<&check::Claim>> = BTreeMap::new();
        for c in &report.claims {
            let key = if c.specs.is_empty() {
                "(no spec)".to_string()
            } else {
                c.specs.join(", ")
            };
            by_spec.entry(key).or_default().push(c);
        }
        for (spec, claims) in by_spec {
            writeln!(out, "  {spec}")?;
            for c in claims {
                writeln!(out, "    {:<8} {}", c.change.as_str(), claim_line(c))?;
            }
        }
    }
    let s = &report.summary;
    let t = &s.totals;
    writeln!(out)?;
    writeln!(
        out,
        "{}: {}, {}, {}{}; {} of {} changed governed files reconciled",
        if report.failed() { "FAIL" } else { "PASS" },
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.notices, "notice"),
        ignored_note(report),
        t.reconciled,
        t.governed_files
    )?;
    if report.failed() {
        writeln!(
            out,
            "Next: run the reconcile skill (review each file against its spec and mark it \
             reconciled), then `notarai state snapshot` and commit {}.",
            crate::state::STATE_FILE
        )?;
    }
    Ok(())
}

use crate::quote::{github_data as escape_data, github_property as escape_property};

/// One claim for a person: the file (and symbol), what the record says,
/// the hash kind when not the bytes', a closed drift note's text.
fn claim_line(c: &Claim) -> String {
    let mut line = match (&c.symbol, c.record) {
        (_, ClaimRecord::DriftNote) => format!(
            "{}: {}",
            c.record.describe(),
            c.note.as_deref().unwrap_or(&c.fingerprint)
        ),
        (Some(symbol), _) => format!("{}#{symbol} ({})", c.path, c.record.describe()),
        (None, _) => format!("{} ({})", c.path, c.record.describe()),
    };
    if let Some(kind) = &c.hash_kind {
        line.push_str(&format!(", {kind} hash"));
    }
    line
}

fn github(out: &mut impl Write, report: &CheckReport) -> std::io::Result<()> {
    for f in &report.findings {
        let mut props = Vec::new();
        if let Some(file) = &f.file {
            props.push(format!("file={}", escape_property(file)));
        }
        if let Some(line) = f.line {
            props.push(format!("line={line}"));
        }
        props.push(format!("title={}", escape_property(&f.code.label())));
        let props = format!(" {}", props.join(","));
        writeln!(
            out,
            "::{}{props}::{}",
            label(f.severity),
            escape_data(&f.message)
        )?;
    }
    for c in &report.claims {
        let specs = if c.specs.is_empty() {
            "no spec".to_string()
        } else {
            c.specs.join(", ")
        };
        writeln!(
            out,
            "::notice file={}::{}",
            escape_property(&c.path),
            escape_data(&format!(
                "marked reconciled on this branch ({}, {specs}): {}",
                c.change.as_str(),
                claim_line(c)
            ))
        )?;
    }
    let s = &report.summary;
    // Not a command, but one line all the same: a branch name cannot start one.
    writeln!(
        out,
        "notarai check: {}; {}, {}, {}{}",
        escape_data(&base_line(report)),
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.notices, "notice"),
        escape_data(&ignored_note(report))
    )?;
    Ok(())
}
