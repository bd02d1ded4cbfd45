//! The command line: argument parsing and dispatch, one file per subcommand.
//!
//! Each subcommand module owns its argument struct and its printing; domain
//! logic lives in the library modules they call.

use std::path::{Path, PathBuf};

use crate::error::Context;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub mod agents;
pub mod cache;
pub mod check;
pub mod check_formats;
pub mod coverage;
pub mod decisions;
pub mod doctor;
pub mod explain;
pub mod export_context;
pub mod hook;
pub mod init;
pub mod lint;
pub mod mcp;
pub mod output;
pub mod reconcile;
pub mod rules;
pub mod schema;
pub mod score;
pub mod state;
pub mod symbols;
pub mod validate;
pub mod which;

/// Command-line interface of notarai.
#[derive(Debug, Parser)]
#[command(
    name = "notarai",
    version,
    about = "Keep specs, code and docs in step while AI agents edit all three."
)]
pub struct Cli {
    /// Project root (default: the work tree of the git repository containing
    /// the current folder, else the current folder).
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// More log output on stderr (-v info, -vv debug, -vvv trace). `NOTARAI_LOG`
    /// takes `target=level` directives and wins over -v.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of notarai.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the MCP server on stdin/stdout (what each agent spawns from its MCP config).
    Mcp(mcp::Args),
    /// Set the repository up for notarai and the coding agents it uses (--agents), or take it out (--remove).
    Init(init::Args),
    /// Work with the BLAKE3 hash cache from the shell.
    #[command(subcommand)]
    Cache(cache::Command),
    /// Record files as reviewed (for one spec with --spec): what the
    /// `mark_reconciled` tool records, read by the tools and `notarai check`.
    Reconcile(reconcile::Args),
    /// Check spec files and report errors with file, line and column.
    Validate(validate::Args),
    /// Print the JSON Schema of the spec format.
    Schema(schema::Args),
    /// Hooks called by coding agents after an edit (Claude Code, Codex, Cursor, Gemini CLI, Antigravity, VS Code, opencode, Windsurf), before one (Claude Code, Codex, Cursor, VS Code) and when a turn ends (Claude Code).
    #[command(subcommand)]
    Hook(hook::Command),
    /// The committed reconciliation state (.notarai/reconciliation_state.json).
    #[command(subcommand)]
    State(state::Command),
    /// The CI gate: fail when changes since the base are not reconciled.
    Check(check::Args),
    /// Export the affected specs and their unreconciled diffs as Markdown or JSON (no MCP needed).
    ExportContext(export_context::Args),
    /// Check that every configured agent can use notarai: config, entry,
    /// command, a real MCP handshake, hook, specs.
    Doctor(doctor::Args),
    /// Which specs govern these files, with their intent, behaviors,
    /// constraints and invariants (the `get_governing_specs` tool's answer).
    Which(which::Args),
    /// Every file no spec governs, per folder, and how many files each spec governs.
    Coverage(coverage::Args),
    /// Write the path-scoped rule files generated from the specs (Claude
    /// Code, Cursor, VS Code/Copilot, Windsurf), and remove those whose spec
    /// is gone.
    Rules(rules::Args),
    /// A file's symbols (Rust, TypeScript, JavaScript, Python, Go), or the symbol of a line range as a diff hunk is attributed.
    Symbols(symbols::Args),
    /// The specs ranked by how likely they no longer tell the truth, each score with its parts.
    Score(score::Args),
    /// The decision log: why divergences were accepted or which side changed, recorded with reviews.
    Decisions(decisions::Args),
    /// Spec quality without a model: validate's findings and the lint rules (N4xx), tuned by .notarai/check.yaml.
    Lint(lint::Args),
    /// What a rule code (N101, ...) finds and what to do about it; without a code, every rule.
    Explain(explain::Args),
}

/// Parse the command line, set up logging on stderr, run the subcommand and
/// turn its outcome into an exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing(cli.verbose);
    // Before any thread: every command reads git objects (`check` the
    // merge base's trees and both sides of each changed file).
    crate::changes::keep_trees_cached();
    let root = cli.root.clone();
    let result = match cli.command {
        Command::Mcp(args) => mcp::run(root, args),
        Command::Init(args) => init::run(root, args),
        Command::Cache(cmd) => cache::run(root, cmd),
        Command::Reconcile(args) => reconcile::run(root, args),
        Command::Validate(args) => validate::run(root, args),
        Command::Schema(args) => schema::run(args),
        Command::Hook(cmd) => hook::run(root, cmd),
        Command::State(cmd) => state::run(root, cmd),
        Command::Check(args) => check::run(root, args),
        Command::ExportContext(args) => export_context::run(root, args),
        Command::Doctor(args) => doctor::run(root, args),
        Command::Symbols(args) => symbols::run(root, args),
        Command::Which(args) => which::run(root, args),
        Command::Coverage(args) => coverage::run(root, args),
        Command::Rules(args) => rules::run(root, args),
        Command::Lint(args) => lint::run(root, args),
        Command::Decisions(args) => decisions::run(root, args),
        Command::Score(args) => score::run(root, args),
        Command::Explain(args) => explain::run(args),
    };
    match result {
        Ok(code) => code,
        // A reader that stopped early (`notarai schema | head`) is not an error.
        Err(err) if err.is_broken_pipe() => ExitCode::SUCCESS,
        Err(err) => {
            // Names from the repository in the message are escaped.
            eprintln!("{}", crate::quote::terminal_lines(&err.cli_message()));
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr only: stdout of `notarai mcp` is the protocol.
///
/// The filter is a list of `target=level` directives (a bare level for the
/// rest), tracing-subscriber's `Targets`: its `EnvFilter` would bring the
/// `matchers` crate, whose regex features make every glob the specs hold
/// compile to a full DFA (about 30 ms for 400 globs at each start).
fn init_tracing(verbose: u8) {
    use tracing_subscriber::filter::Targets;
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let fallback = || {
        Targets::new()
            .with_default(
                default
                    .parse::<tracing::Level>()
                    .unwrap_or(tracing::Level::WARN),
            )
            .with_target("rmcp", tracing::Level::ERROR)
    };
    let given = std::env::var("NOTARAI_LOG").ok();
    let parsed = given.as_deref().map(str::parse::<Targets>);
    let filter = match &parsed {
        Some(Ok(targets)) => targets.clone(),
        _ => fallback(),
    };
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_target(false)
        .with_max_level(tracing::Level::TRACE)
        .finish()
        .with(filter)
        .try_init();
    if let (Some(given), Some(Err(e))) = (given, parsed) {
        tracing::warn!(
            "NOTARAI_LOG {:?} is not a list of `target=level` directives ({e}); \
             logging as -v says (e.g. NOTARAI_LOG=notarai=debug,rmcp=error)",
            given
        );
    }
}

/// A path given on the command line (relative to the current folder, or
/// absolute) as the repository-relative path the tools use, checked as a
/// [`crate::repo_path::RepoPath`] (a path outside the project fails the
/// command). Its folders are resolved, the file itself is not followed.
pub(super) fn repo_relative(root: &Path, given: &str) -> crate::error::Result<String> {
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    // From a folder inside the root, a relative path is resolved relative
    // to the root (`src/../../x` is refused as climbing out, which is what
    // happened), not turned absolute first (which would be refused as
    // "absolute", a confusing reason for a relative path).
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let cwd_in_root = cwd
        .strip_prefix(&canonical_root)
        .or_else(|_| cwd.strip_prefix(root))
        .ok()
        .and_then(Path::to_str)
        .map(str::to_string);
    let input = match &cwd_in_root {
        Some(rel_cwd) if !Path::new(given).is_absolute() => {
            if rel_cwd.is_empty() {
                given.to_string()
            } else {
                format!("{rel_cwd}/{given}")
            }
        }
        _ => {
            let absolute = if Path::new(given).is_absolute() {
                PathBuf::from(given)
            } else {
                cwd.join(given)
            };
            absolute
                .to_str()
                .with_context(|| format!("{given}: path is not UTF-8"))?
                .to_string()
        }
    };
    let rel = crate::repo_path::Guard::new(root)
        .resolve_unfollowed(&input)
        .map_err(|e| {
            crate::error::Error::invalid(format!("{given}: {e} (project root: {})", root.display()))
        })?;
    Ok(rel.into_string())
}
