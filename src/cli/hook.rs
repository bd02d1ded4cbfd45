//! `notarai hook ...`: hooks called by coding agents after an edit
//! (`validate`), before one (`context`) and at the end of a turn (`stop`).

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::hook::{self, HookAgent, HookEnv, Outcome};

/// The hooks.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Post-edit hook: validate the spec files an agent just wrote. Reads the
    /// agent's event on stdin; prints the spec's errors where the agent shows
    /// them to the model (docs/hooks.md).
    Validate(ValidateArgs),
    /// Pre-edit hook: before an agent edits a governed file, put the
    /// governing specs' constraints and invariants in front of the model
    /// (at most 1,500 characters; once per file per session). Never blocks:
    /// always exit 0; silent for anything it does not answer.
    Context(ValidateArgs),
    /// Stop hook: when the turn ends with governed files the session edited
    /// not reconciled with their specs, tell the model which specs and what
    /// to run (once per unreconciled set). Never blocks: always exit 0;
    /// silent otherwise.
    Stop(ValidateArgs),
}

/// Arguments of `notarai hook validate`.
#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The agent whose event is on stdin (what `notarai init` writes into
    /// each agent's hook). Without it, or for zed (no hooks), the format is
    /// recognised from the event's fields, Claude Code's when nothing else matches.
    #[arg(long, value_enum)]
    pub agent: Option<HookAgent>,
}

/// Run a hook.
pub fn run(root: Option<PathBuf>, cmd: Command) -> crate::error::Result<ExitCode> {
    match cmd {
        Command::Validate(args) => Ok(validate(root, args.agent)),
        Command::Context(args) => {
            context(root, args.agent);
            Ok(ExitCode::SUCCESS)
        }
        Command::Stop(args) => {
            stop(root, args.agent);
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The event on stdin, bounded; `None` (logged) when unreadable or too large.
fn read_stdin() -> Option<Vec<u8>> {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin()
        .take(hook::MAX_INPUT + 1)
        .read_to_end(&mut input)
    {
        tracing::debug!("cannot read stdin: {e}");
        return None;
    }
    if input.len() as u64 > hook::MAX_INPUT {
        tracing::debug!("stdin is larger than {} bytes: ignored", hook::MAX_INPUT);
        return None;
    }
    Some(input)
}

/// Where the hook looks for the project besides the event.
fn hook_env(root: Option<PathBuf>) -> HookEnv {
    let env_dir = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    HookEnv {
        explicit_root: root,
        project_dir: env_dir("CLAUDE_PROJECT_DIR").or_else(|| env_dir("GEMINI_PROJECT_DIR")),
        process_cwd: std::env::current_dir().ok(),
    }
}

/// `notarai hook context`: the governing specs of the file about to be
/// edited ([`hook::context::respond`]). Prints nothing when there is
/// nothing to say.
fn context(root: Option<PathBuf>, agent: Option<HookAgent>) {
    let Some(input) = read_stdin() else { return };
    if let Some(answer) = hook::context::respond(&input, agent, &hook_env(root)) {
        let _ = std::io::stdout().write_all(answer.as_bytes());
    }
}

/// `notarai hook stop`: the unreconciled files the session edited, once
/// per set ([`hook::stop::respond`]). Prints nothing when there is nothing
/// to say.
fn stop(root: Option<PathBuf>, agent: Option<HookAgent>) {
    let Some(input) = read_stdin() else { return };
    if let Some(answer) = hook::stop::respond(&input, agent, &hook_env(root)) {
        let _ = std::io::stdout().write_all(answer.as_bytes());
    }
}

/// After a spec edit, the pre-edit hook's `if` brought up to the specs
/// where it no longer matches them (`notarai rules`' refresh, in place):
/// a spec the agent edits never leaves an `if` that hides its files. A
/// failure is logged; the hook's answer is the same.
fn refresh_hook_if(report: &hook::Report) {
    for (root, set) in &report.projects {
        let stale: Vec<crate::agent::AgentId> =
            crate::init::hook_if::stale(root, set, &crate::agent::AgentId::ALL)
                .into_iter()
                .map(|s| s.agent)
                .collect();
        if stale.is_empty() {
            continue;
        }
        if let Err(e) = crate::init::hook_if::refresh(root, set, &stale, false) {
            tracing::debug!("hook validate: the pre-edit hook's `if` not refreshed: {e}");
        }
    }
}

/// `notarai hook validate`: read the event from stdin and answer in the
/// agent's channel ([`hook::answer`]). Never exit 1: Claude Code shows that
/// to the user only, and the model would never learn its edit broke the spec.
fn validate(root: Option<PathBuf>, agent: Option<HookAgent>) -> ExitCode {
    let Some(input) = read_stdin() else {
        return ExitCode::SUCCESS;
    };
    let env = hook_env(root);
    let report = hook::check_event(&input, agent, &env);
    for outcome in &report.outcomes {
        match outcome {
            Outcome::Ignored(reason) => tracing::debug!("hook validate: ignored: {reason}"),
            Outcome::Valid { path } => tracing::debug!("hook validate: {path} is valid"),
            Outcome::Invalid { path, .. } => tracing::debug!("hook validate: {path} has errors"),
        }
    }
    refresh_hook_if(&report);
    let answer = hook::answer(&report);
    // A closed pipe cannot be reported anywhere useful: the exit code stays.
    let _ = std::io::stdout().write_all(answer.stdout.as_bytes());
    let _ = std::io::stderr().write_all(answer.stderr.as_bytes());
    ExitCode::from(answer.exit_code)
}
