//! `notarai doctor`: check that every configured agent can use notarai, and
//! print one line per check with its verdict and fix.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::output::Format;
use crate::doctor::{self, Options, Report, Verdict};

/// Arguments of `notarai doctor`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The agents to check, comma-separated (claude, codex, cursor, gemini,
    /// vscode, opencode, zed, windsurf) or `all` (default: the agents
    /// configured in the repository).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = super::agents::parser())]
    pub agents: Option<Vec<super::agents::AgentChoice>>,

    /// Output format: `text` (a table: agent, check, verdict, what was found; the fix below each line that is not ok) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Do not start the configured servers (skips the MCP handshake).
    #[arg(long)]
    pub no_handshake: bool,

    /// Also start entries that do not run this notarai's own server
    /// (`notarai mcp`), for the agents named in `--agents` only. Without it,
    /// such an entry (a cloned repository may name any command) is shown,
    /// with its arguments and environment, and not started.
    #[arg(long, requires = "agents")]
    pub run_configured_commands: bool,
}

/// Run `notarai doctor`: exit 0 when no check fails (warnings pass), 1 otherwise.
pub fn run(root: Option<PathBuf>, args: Args) -> crate::error::Result<ExitCode> {
    let root = crate::project::resolve_root(root.as_deref())?;
    let agents = args
        .agents
        .map(|list| super::agents::selected(&list, &root));
    let options = Options {
        agents,
        home: std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from),
        path_var: std::env::var_os("PATH"),
        no_handshake: args.no_handshake,
        run_configured: args.run_configured_commands,
    };
    // Whatever a started command leaves behind, detached or not, is this
    // process's to stop before it exits.
    doctor::handshake::adopt_orphans();
    let report = doctor::run(&root, &options);
    doctor::handshake::stop_descendants();
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Text => write_text(&mut crate::quote::Terminal::new(&mut out), &report)?,
        Format::Json => {
            super::output::json(&report)?;
        }
    }
    out.flush()?;
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The verdict as printed.
fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Ok => "ok",
        Verdict::Warn => "warn",
        Verdict::Fail => "FAIL",
    }
}

/// The report as a table.
fn write_text(out: &mut impl Write, report: &Report) -> std::io::Result<()> {
    writeln!(out, "notarai doctor: {}", report.root)?;
    let rows: Vec<(String, String, &str, &str)> = report
        .checks
        .iter()
        .map(|c| {
            let check = serde_json::to_value(c.check)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            (
                c.agent.clone().unwrap_or_else(|| "-".into()),
                check,
                verdict(c.verdict),
                c.message.as_str(),
            )
        })
        .collect();
    let agent_w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(5);
    let check_w = rows.iter().map(|r| r.1.len()).max().unwrap_or(0).max(5);
    writeln!(
        out,
        "{:agent_w$}  {:check_w$}  {:7}  FOUND",
        "AGENT", "CHECK", "VERDICT"
    )?;
    let indent = agent_w + check_w + 13;
    for (row, check) in rows.iter().zip(&report.checks) {
        writeln!(
            out,
            "{:agent_w$}  {:check_w$}  {:7}  {}",
            row.0, row.1, row.2, row.3
        )?;
        if let Some(specs) = &check.specs {
            for spec in &specs.invalid {
                writeln!(
                    out,
                    "{:indent$}{}:{}:{}: {}",
                    "", spec.path, spec.position.line, spec.position.column, spec.message
                )?;
            }
        }
        if let Some(fix) = &check.fix {
            writeln!(out, "{:indent$}fix: {fix}", "")?;
        }
    }
    let count = |v: Verdict| report.checks.iter().filter(|c| c.verdict == v).count();
    writeln!(
        out,
        "{} checks: {} ok, {} warning{}, {} failed",
        report.checks.len(),
        count(Verdict::Ok),
        count(Verdict::Warn),
        if count(Verdict::Warn) == 1 { "" } else { "s" },
        count(Verdict::Fail)
    )
}
