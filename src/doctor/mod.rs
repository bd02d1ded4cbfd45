//! `notarai doctor`: is every configured agent able to use notarai?
//!
//! For each agent (named, or detected from the repository), in order: its
//! MCP config parses, notarai's entry is there under the right key, its
//! command resolves to an executable, a real MCP `initialize` handshake with
//! that command succeeds, and the post-edit hook is registered where the
//! agent has hooks. Once for the repository: the specs load. Each check is a
//! line with a verdict (ok, warn, fail), what was found and, unless ok, the
//! fix.
//!
//! Verdicts: `fail` is something that stops an agent from using notarai (no
//! entry, a config that does not parse, a command that does not run, a
//! server that does not answer, an invalid spec); `warn` is something that
//! works but less well or that doctor cannot see (no hook, an entry switched
//! off, no spec yet, Windsurf's user file missing or unreadable). Warnings
//! do not fail the run.
//!
//! Doctor reads only: the repository's files, and for Windsurf (whose MCP
//! servers live only in the user's home) `~/.codeium/windsurf/mcp_config.json`.
//!
//! A cloned repository's configs are untrusted: doctor starts an entry for
//! the handshake only when it runs notarai itself (the same executable as
//! the running doctor) with notarai's own arguments (`mcp` and the flags it
//! knows, `--root` only naming the project) and no environment beyond
//! notarai's logging ([`own_server`]). Any other entry is shown (command,
//! arguments and environment, escaped) and not started, unless the user
//! names its agent (`--agents X`) and passes `--run-configured-commands`. A
//! switched-off entry is never started. What doctor started is killed with
//! its whole process group on the deadline and at the end.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::agent::AgentId;
use crate::init::agents::{self, Inspection, Mcp, ServerEntry};

pub mod command;
pub mod handshake;
mod moved;
mod report;
mod server;
mod user_file;

pub use handshake::ServerHello;
pub use report::{
    Check, CheckKind, CheckedAgent, InvalidSpec, Position, Report, Selection, SpecsSummary, Verdict,
};
use server::{Handshakes, check_command, prefetch_handshakes, spawn_line};

/// How long a server has to answer `initialize` by default.
const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(5);

/// The variable that sets another handshake deadline, in milliseconds
/// (a slow machine may want more; tests of servers that hang want less).
const HANDSHAKE_DEADLINE_VAR: &str = "NOTARAI_HANDSHAKE_DEADLINE_MS";

/// How long a server has to answer `initialize`: [`HANDSHAKE_DEADLINE_VAR`]
/// when set to a number of milliseconds, else [`HANDSHAKE_DEADLINE`].
pub fn handshake_deadline() -> Duration {
    std::env::var(HANDSHAKE_DEADLINE_VAR)
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(HANDSHAKE_DEADLINE, Duration::from_millis)
}

/// What doctor is asked to do.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The agents to check; `None`: those configured in the repository.
    pub agents: Option<Vec<AgentId>>,
    /// The user's home folder (Windsurf's MCP file lives there); `None`
    /// when `HOME` is unset.
    pub home: Option<PathBuf>,
    /// `PATH` as the agents would see it (the process's own).
    pub path_var: Option<OsString>,
    /// Skip the handshakes (no configured command is run).
    pub no_handshake: bool,
    /// Start the entries of the agents named in `agents` even when they do
    /// not run notarai's own server (`--run-configured-commands`).
    pub run_configured: bool,
}

/// Check every selected agent at `root` and the specs.
pub fn run(root: &Path, options: &Options) -> Report {
    let selected: Vec<(AgentId, Selection)> = match &options.agents {
        Some(list) => list.iter().map(|a| (*a, Selection::Named)).collect(),
        None => detect(root),
    };
    let mut checks = Vec::new();
    if selected.is_empty() {
        checks.push(
            Check::new(
                None,
                CheckKind::Agents,
                Verdict::Fail,
                "no agent is configured for notarai in this repository".into(),
            )
            .fix("run `notarai init --agents claude` (or a list: claude,codex,cursor,...; or all)"),
        );
    }
    let mut handshakes = prefetch_handshakes(root, &selected, options);
    for (agent, _) in &selected {
        check_agent(root, *agent, options, &mut handshakes, &mut checks);
    }
    let ids: Vec<AgentId> = selected.iter().map(|(a, _)| *a).collect();
    moved::check_rules(root, &ids, &mut checks);
    checks.push(check_specs(root));
    let verdict = checks
        .iter()
        .map(|c| c.verdict)
        .max()
        .unwrap_or(Verdict::Ok);
    Report {
        root: root.display().to_string(),
        agents: selected
            .iter()
            .map(|(a, s)| CheckedAgent {
                agent: a.name().to_string(),
                title: a.title().to_string(),
                selection: *s,
            })
            .collect(),
        checks,
        verdict,
    }
}

/// The agents with something of theirs configured at `root`: their MCP
/// project file, or their hook file, exists (Windsurf, which has no project
/// MCP file: its hook file or its `.windsurf` folder).
pub fn detect(root: &Path) -> Vec<(AgentId, Selection)> {
    AgentId::ALL
        .into_iter()
        .filter(|id| {
            let seen = agents::inspect(root, *id);
            seen.mcp.exists
                || seen.hook.as_ref().is_some_and(|h| h.exists)
                || (seen.mcp.user_file.is_some()
                    && agents::agent(*id)
                        .signs
                        .iter()
                        .any(|s| root.join(s).symlink_metadata().is_ok()))
        })
        .map(|id| (id, Selection::Detected))
        .collect()
}

/// `notarai init --agents <id>`, the fix for most of an agent's problems.
pub(super) fn init_fix(agent: AgentId) -> String {
    format!("run `notarai init --agents {agent}`")
}

/// The checks of one agent.
fn check_agent(
    root: &Path,
    agent: AgentId,
    options: &Options,
    handshakes: &mut Handshakes,
    out: &mut Vec<Check>,
) {
    let seen = agents::inspect(root, agent);
    if let Some(entry) = entry_checks(root, agent, &seen, options, out) {
        check_command(root, agent, &entry, options, handshakes, out);
    }
    check_hook(agent, &seen, out);
    check_context_hook(agent, &seen, out);
    check_stop_hook(agent, &seen, out);
    moved::check_moved(agent, &seen, out);
    moved::check_successor(root, agent, &seen, out);
}

/// The config and entry checks of an agent; the entry when there is one to run.
pub(super) fn entry_checks(
    root: &Path,
    agent: AgentId,
    seen: &Inspection,
    options: &Options,
    out: &mut Vec<Check>,
) -> Option<ServerEntry> {
    match &seen.mcp.user_file {
        Some(user_file) => check_user_file(agent, user_file, options, out),
        None => check_project_file(root, agent, seen, out),
    }
}

/// The config and entry checks of an agent with a project MCP file; the
/// entry when there is one to run.
fn check_project_file(
    root: &Path,
    agent: AgentId,
    seen: &Inspection,
    out: &mut Vec<Check>,
) -> Option<ServerEntry> {
    let mcp = &seen.mcp;
    let file = mcp.file.clone().unwrap_or_default();
    let servers_key = match agents::agent(agent).mcp {
        Mcp::Project(f) => f.servers.join("."),
        Mcp::UserOnly { servers, .. } => servers.join("."),
    };
    if !mcp.exists {
        out.push(
            Check::new(
                Some(agent),
                CheckKind::Config,
                Verdict::Fail,
                format!("{file} does not exist"),
            )
            .file(&file)
            .fix(init_fix(agent)),
        );
        return None;
    }
    if let Some(problem) = &mcp.problem {
        let mut check = Check::new(
            Some(agent),
            CheckKind::Config,
            Verdict::Fail,
            problem.to_string(),
        )
        .file(&problem.file)
        .fix(match problem.position {
            Some((line, column)) => format!(
                "fix the syntax of {} at line {line}, column {column}, then run `notarai doctor` again",
                problem.file
            ),
            None if problem.shape => {
                format!("fix {} so that `{servers_key}` is an object of servers", problem.file)
            }
            None => format!(
                "make {} a readable file inside the repository (what the message says), then run `notarai doctor` again",
                problem.file
            ),
        });
        check.position = problem
            .position
            .map(|(line, column)| Position { line, column });
        out.push(check);
        return None;
    }
    out.push(
        Check::new(
            Some(agent),
            CheckKind::Config,
            Verdict::Ok,
            format!("{file} parses"),
        )
        .file(&file),
    );
    let Some(entry) = mcp.server.clone() else {
        let misplaced = user_file::misplaced_entry(root, &file, &servers_key);
        let message = match &misplaced {
            Some(key) => format!(
                "notarai's entry is under `{key}`, but {} reads `{servers_key}`",
                agent.title()
            ),
            None => format!("no notarai entry under `{servers_key}`"),
        };
        let fix = match &misplaced {
            Some(key) => format!(
                "move the entry from `{key}` to `{servers_key}` in {file}, or {}",
                init_fix(agent)
            ),
            None => init_fix(agent),
        };
        out.push(
            Check::new(Some(agent), CheckKind::Entry, Verdict::Fail, message)
                .file(&file)
                .fix(fix),
        );
        return None;
    };
    out.push(entry_check(agent, &entry, &servers_key).file(&file));
    Some(entry)
}

/// The entry check: found, switched on or off.
fn entry_check(agent: AgentId, entry: &ServerEntry, servers_key: &str) -> Check {
    let spawn = spawn_line(entry);
    if entry.enabled {
        Check::new(
            Some(agent),
            CheckKind::Entry,
            Verdict::Ok,
            format!("`{servers_key}.{}` runs `{spawn}`", entry.name),
        )
    } else {
        Check::new(
            Some(agent),
            CheckKind::Entry,
            Verdict::Warn,
            format!("`{servers_key}.{}` is switched off", entry.name),
        )
        .fix(format!(
            "set `\"enabled\": true` (or remove `\"disabled\"`) in the entry, or switch it on in {}",
            agent.title()
        ))
    }
}

/// The user-level file of an agent without a project MCP file (Windsurf):
/// read only, and only when it exists.
fn check_user_file(
    agent: AgentId,
    user_file: &str,
    options: &Options,
    out: &mut Vec<Check>,
) -> Option<ServerEntry> {
    let servers_key = match agents::agent(agent).mcp {
        Mcp::UserOnly { servers, .. } => servers,
        Mcp::Project(f) => f.servers,
    };
    let snippet = format!(
        "add to {user_file}: {{\"{}\": {{\"notarai\": {{\"command\": \"notarai\", \"args\": [\"mcp\"]}}}}}}",
        servers_key.join(".")
    );
    let Some(home) = &options.home else {
        out.push(
            Check::new(
                Some(agent),
                CheckKind::Config,
                Verdict::Warn,
                format!("HOME is not set: cannot check {user_file}"),
            )
            .file(user_file)
            .fix(snippet),
        );
        return None;
    };
    let rel = user_file.strip_prefix("~/").unwrap_or(user_file);
    match user_file::read_entry(&home.join(rel), servers_key) {
        user_file::UserEntry::Absent => {
            out.push(
                Check::new(
                    Some(agent),
                    CheckKind::Config,
                    Verdict::Warn,
                    format!(
                        "{user_file} does not exist: {} has no MCP servers",
                        agent.title()
                    ),
                )
                .file(user_file)
                .fix(snippet),
            );
            None
        }
        user_file::UserEntry::Unreadable(message, position) => {
            let mut check = Check::new(
                Some(agent),
                CheckKind::Config,
                Verdict::Warn,
                format!("{user_file}: {message}"),
            )
            .file(user_file)
            .fix(format!("fix {user_file}, then {snippet}"));
            check.position = position;
            out.push(check);
            None
        }
        user_file::UserEntry::NoEntry => {
            out.push(parses(agent, user_file));
            out.push(
                Check::new(
                    Some(agent),
                    CheckKind::Entry,
                    Verdict::Warn,
                    format!("no notarai entry under `{}`", servers_key.join(".")),
                )
                .file(user_file)
                .fix(snippet),
            );
            None
        }
        user_file::UserEntry::Found(entry) => {
            out.push(parses(agent, user_file));
            out.push(entry_check(agent, &entry, &servers_key.join(".")).file(user_file));
            Some(entry)
        }
    }
}

/// The check that the user-level config file `user_file` parses.
fn parses(agent: AgentId, user_file: &str) -> Check {
    Check::new(
        Some(agent),
        CheckKind::Config,
        Verdict::Ok,
        format!("{user_file} parses"),
    )
    .file(user_file)
}

/// The hook check, for agents that have hooks.
fn check_hook(agent: AgentId, seen: &Inspection, out: &mut Vec<Check>) {
    let Some(hook) = &seen.hook else {
        return;
    };
    let check = if let Some(problem) = &hook.problem {
        let mut check = Check::new(
            Some(agent),
            CheckKind::Hook,
            Verdict::Fail,
            problem.to_string(),
        )
        .fix(format!("fix {}, then {}", problem.file, init_fix(agent)));
        check.position = problem
            .position
            .map(|(line, column)| Position { line, column });
        check
    } else if hook.registered {
        Check::new(
            Some(agent),
            CheckKind::Hook,
            Verdict::Ok,
            format!(
                "`{}` is registered",
                hook.command.as_deref().unwrap_or("notarai hook validate")
            ),
        )
    } else {
        Check::new(
            Some(agent),
            CheckKind::Hook,
            Verdict::Warn,
            format!(
                "no `notarai hook validate` hook in {}: a broken spec is not reported right after the edit",
                hook.file
            ),
        )
        .fix(init_fix(agent))
    };
    out.push(check.file(&hook.file));
}

/// The pre-edit hook check, for agents that can have one.
fn check_context_hook(agent: AgentId, seen: &Inspection, out: &mut Vec<Check>) {
    let Some(hook) = &seen.context_hook else {
        return;
    };
    if hook.problem.is_some() {
        // The same file as the post-edit hook's: reported there.
        return;
    }
    let check = match &hook.command {
        Some(command) => Check::new(
            Some(agent),
            CheckKind::ContextHook,
            Verdict::Ok,
            format!("`{command}` is registered"),
        ),
        None => Check::new(
            Some(agent),
            CheckKind::ContextHook,
            Verdict::Warn,
            format!(
                "no `notarai hook context` hook in {}: the agent is not told the governing specs before it edits a file",
                hook.file
            ),
        )
        .fix(init_fix(agent)),
    };
    out.push(check.file(&hook.file));
}

/// The stop hook check, for agents that can have one.
fn check_stop_hook(agent: AgentId, seen: &Inspection, out: &mut Vec<Check>) {
    let Some(hook) = seen.stop_hook.as_ref().filter(|h| h.problem.is_none()) else {
        // None, or the same file as the post-edit hook's: reported there.
        return;
    };
    let check = match &hook.command {
        Some(command) => Check::new(
            Some(agent),
            CheckKind::StopHook,
            Verdict::Ok,
            format!("`{command}` is registered"),
        ),
        None => Check::new(
            Some(agent),
            CheckKind::StopHook,
            Verdict::Warn,
            format!(
                "no `notarai hook stop` hook in {}: the agent may end a turn with governed files unreconciled, untold",
                hook.file
            ),
        )
        .fix(init_fix(agent)),
    };
    out.push(check.file(&hook.file));
}

/// The specs check: how many, and each invalid one with its first error.
fn check_specs(root: &Path) -> Check {
    let set = crate::project::load_specs(root);
    let mut invalid: Vec<InvalidSpec> = Vec::new();
    for error in set.errors() {
        if invalid.iter().any(|i| i.path == error.path) {
            continue;
        }
        invalid.push(InvalidSpec {
            path: error.path.clone(),
            position: Position {
                line: error.line,
                column: error.column,
            },
            message: error.message.clone(),
        });
    }
    let failed_to_load: std::collections::BTreeSet<&str> =
        set.invalid.iter().map(|f| f.path.as_str()).collect();
    let total = set.specs.len() + failed_to_load.len();
    let summary = SpecsSummary {
        total,
        invalid: invalid.clone(),
    };
    let mut check = if total == 0 {
        Check::new(
            None,
            CheckKind::Specs,
            Verdict::Warn,
            "no spec yet (.notarai/*.spec.yaml)".into(),
        )
        .fix("ask your agent to bootstrap the specs (the notarai-bootstrap skill), or write .notarai/system.spec.yaml")
    } else if invalid.is_empty() {
        Check::new(
            None,
            CheckKind::Specs,
            Verdict::Ok,
            format!(
                "{total} spec{} load{}",
                if total == 1 { "" } else { "s" },
                if total == 1 { "s" } else { "" }
            ),
        )
    } else {
        Check::new(
            None,
            CheckKind::Specs,
            Verdict::Fail,
            format!(
                "{} of {total} spec{} invalid, each listed with its first error",
                invalid.len(),
                if total == 1 { "" } else { "s" },
            ),
        )
        .fix("run `notarai validate` for every error with its hint")
    };
    check.specs = Some(summary);
    check
}
