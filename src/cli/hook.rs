//! `notarai hook ...`: hooks called by Claude Code.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::hook::{self, HookEnv, Outcome};

/// The hooks.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// PostToolUse hook: validate a spec file that was just written.
    Validate {
        /// The agent whose event format stdin holds (what `notarai init`
        /// writes into each agent's hook). Without it, Claude Code's.
        #[arg(long, value_enum)]
        agent: Option<crate::agent::AgentId>,
    },
}

/// Exit code whose stderr Claude Code feeds back to the model.
const EXIT_TO_MODEL: u8 = 2;

/// Run a hook.
pub fn run(root: Option<PathBuf>, cmd: Command) -> anyhow::Result<ExitCode> {
    match cmd {
        Command::Validate { agent: _ } => Ok(validate(root)),
    }
}

/// `notarai hook validate`: read the PostToolUse event from stdin; exit 2 with
/// the spec's errors on stderr when a spec of the project was broken, else
/// exit 0 and print nothing. Never exit 1: Claude Code shows that to the user
/// only, and the model would never learn its edit broke the spec.
fn validate(root: Option<PathBuf>) -> ExitCode {
    let mut input = Vec::new();
    if let Err(e) = std::io::stdin()
        .take(hook::MAX_INPUT + 1)
        .read_to_end(&mut input)
    {
        tracing::debug!("cannot read stdin: {e}");
        return ExitCode::SUCCESS;
    }
    if input.len() as u64 > hook::MAX_INPUT {
        tracing::debug!("stdin is larger than {} bytes: ignored", hook::MAX_INPUT);
        return ExitCode::SUCCESS;
    }
    let env = HookEnv {
        explicit_root: root,
        project_dir: std::env::var_os("CLAUDE_PROJECT_DIR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        process_cwd: std::env::current_dir().ok(),
    };
    match hook::check_event(&input, &env) {
        Outcome::Ignored(reason) => {
            tracing::debug!("hook validate: ignored: {reason}");
            ExitCode::SUCCESS
        }
        Outcome::Valid { path } => {
            tracing::debug!("hook validate: {path} is valid");
            ExitCode::SUCCESS
        }
        Outcome::Invalid { path, errors } => {
            eprint!("{}", hook::render_errors(&path, &errors));
            ExitCode::from(EXIT_TO_MODEL)
        }
    }
}
