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

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Serialize;

use crate::agent::AgentId;
use crate::init::agents::{self, Inspection, Mcp, ServerEntry};

pub mod command;
pub mod handshake;
mod user_file;

pub use handshake::ServerHello;

/// How long a server has to answer `initialize` by default.
pub const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(5);

/// The variable that sets another handshake deadline, in milliseconds
/// (a slow machine may want more; tests of servers that hang want less).
pub const HANDSHAKE_DEADLINE_VAR: &str = "NOTARAI_HANDSHAKE_DEADLINE_MS";

/// How long a server has to answer `initialize`: [`HANDSHAKE_DEADLINE_VAR`]
/// when set to a number of milliseconds, else [`HANDSHAKE_DEADLINE`].
pub fn handshake_deadline() -> Duration {
    std::env::var(HANDSHAKE_DEADLINE_VAR)
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(HANDSHAKE_DEADLINE, Duration::from_millis)
}

/// A check's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// All is well.
    Ok,
    /// Works, but less well, or doctor cannot tell; does not fail the run.
    Warn,
    /// Stops the agent from using notarai; fails the run.
    Fail,
}

/// What a check looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckKind {
    /// Whether any agent is configured at all.
    Agents,
    /// The agent's MCP config file parses.
    Config,
    /// notarai's entry is in it, under the right key, switched on.
    Entry,
    /// The entry's command resolves to an executable.
    Command,
    /// The MCP `initialize` handshake with the spawned command.
    Handshake,
    /// The post-edit hook is registered.
    Hook,
    /// The pre-edit hook (`notarai hook context`) is registered, for an
    /// agent whose hooks can put text before the model ahead of an edit.
    ContextHook,
    /// The specs load.
    Specs,
}

/// A 1-based position in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Position {
    /// Line.
    pub line: usize,
    /// Column.
    pub column: usize,
}

/// A spec that failed, with its first error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct InvalidSpec {
    /// Repository-relative path.
    pub path: String,
    /// Where its first error is.
    pub position: Position,
    /// The first error.
    pub message: String,
}

/// The specs as they load.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct SpecsSummary {
    /// Spec files found (loaded or not).
    pub total: usize,
    /// The ones that fail, with their first error each.
    pub invalid: Vec<InvalidSpec>,
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Check {
    /// The agent (`claude`, `codex`, ...), `None` for the repository's own
    /// checks (specs, whether any agent is configured).
    pub agent: Option<String>,
    /// What was checked.
    pub check: CheckKind,
    /// The verdict.
    pub verdict: Verdict,
    /// The file concerned, relative to the root (or `~/...` for a user file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Where in the file, for a parse error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub position: Option<Position>,
    /// What was found.
    pub message: String,
    /// What to run or edit, unless the verdict is ok.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// The file the command resolves to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    /// What the server said in the handshake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerHello>,
    /// The specs, for the specs check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub specs: Option<SpecsSummary>,
}

impl Check {
    fn new(agent: Option<AgentId>, check: CheckKind, verdict: Verdict, message: String) -> Check {
        Check {
            agent: agent.map(|a| a.name().to_string()),
            check,
            verdict,
            file: None,
            position: None,
            message,
            fix: None,
            resolved: None,
            server: None,
            specs: None,
        }
    }

    fn file(mut self, file: impl Into<String>) -> Check {
        self.file = Some(file.into());
        self
    }

    fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }
}

/// Why an agent was checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// Named in `--agents`.
    Named,
    /// Its configuration was found in the repository.
    Detected,
}

/// An agent doctor checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct CheckedAgent {
    /// `claude`, `codex`, ...
    pub agent: String,
    /// The product's name.
    pub title: String,
    /// Why it was checked.
    pub selection: Selection,
}

/// The whole report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Report {
    /// The project root.
    pub root: String,
    /// The agents checked.
    pub agents: Vec<CheckedAgent>,
    /// Every check, agent by agent, then the specs.
    pub checks: Vec<Check>,
    /// The worst verdict.
    pub verdict: Verdict,
}

impl Report {
    /// Whether the run passes: no check failed (warnings pass).
    pub fn passed(&self) -> bool {
        self.verdict != Verdict::Fail
    }
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
                        .signs()
                        .iter()
                        .any(|s| root.join(s).symlink_metadata().is_ok()))
        })
        .map(|id| (id, Selection::Detected))
        .collect()
}

/// `notarai init --agents <id>`, the fix for most of an agent's problems.
fn init_fix(agent: AgentId) -> String {
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
}

/// The config and entry checks of an agent; the entry when there is one to run.
fn entry_checks(
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

/// Every distinct handshake the selected agents need, made at once (one
/// thread each), so that several servers that hang cost one deadline, not one
/// each.
fn prefetch_handshakes(
    root: &Path,
    selected: &[(AgentId, Selection)],
    options: &Options,
) -> Handshakes {
    if options.no_handshake {
        return Handshakes::default();
    }
    let mut spawns: Vec<Spawned> = Vec::new();
    for (agent, _) in selected {
        let seen = agents::inspect(root, *agent);
        let Some(entry) = entry_checks(root, *agent, &seen, options, &mut Vec::new()) else {
            continue;
        };
        if let Ok(program) = resolve_entry(root, &entry, options)
            && may_start(root, *agent, &entry, &program, options).is_ok()
        {
            let key = (program, entry.args, entry.env);
            if !spawns.contains(&key) {
                spawns.push(key);
            }
        }
    }
    let results: Vec<Result<ServerHello, String>> = std::thread::scope(|scope| {
        let running: Vec<_> = spawns
            .iter()
            .map(|(program, args, env)| {
                scope.spawn(move || {
                    handshake::handshake(program, args, env, root, handshake_deadline())
                        .map_err(|e| e.to_string())
                })
            })
            .collect();
        running
            .into_iter()
            .map(|r| {
                r.join()
                    .unwrap_or_else(|_| Err("the handshake panicked".into()))
            })
            .collect()
    });
    Handshakes {
        done: spawns.into_iter().zip(results).collect(),
    }
}

/// The file an entry's command runs; the entry's own `PATH` wins, as it
/// would for the spawned process.
fn resolve_entry(
    root: &Path,
    entry: &ServerEntry,
    options: &Options,
) -> Result<PathBuf, command::ResolveError> {
    let path_var = entry
        .env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| OsString::from(v))
        .or_else(|| options.path_var.clone());
    command::resolve(&entry.command, root, path_var.as_deref())
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
    let servers_key = match agents::agent(agent).mcp() {
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

/// The command line an entry spawns, for people: its environment
/// (`KEY=value`), command and arguments, each escaped for a terminal and
/// quoted when it holds a space or a quote.
fn spawn_line(entry: &ServerEntry) -> String {
    fn word(text: &str) -> String {
        let shown = crate::quote::terminal(text);
        if shown.is_empty() || shown.contains([' ', '\'', '"', '`', '$']) {
            format!("'{}'", shown.replace('\'', "'\\''"))
        } else {
            shown.into_owned()
        }
    }
    entry
        .env
        .iter()
        .map(|(k, v)| format!("{}={}", word(k), word(v)))
        .chain(std::iter::once(word(&entry.command)))
        .chain(entry.args.iter().map(|a| word(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The environment variables an entry may set and still count as
/// notarai's own server: notarai's logging and `PATH` (which only chooses
/// the program, checked to be notarai itself).
const OWN_ENV: &[&str] = &[
    "NOTARAI_LOG",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "NO_COLOR",
    "PATH",
];

/// Why the entry is not notarai's own server, `None` when it is: `program`
/// is the running executable, the arguments are `mcp` with flags `notarai
/// mcp` knows (`--root` only naming the project), the environment only
/// [`OWN_ENV`].
pub fn own_server(
    root: &Path,
    entry: &ServerEntry,
    program: &Path,
    current_exe: Option<&Path>,
) -> Option<String> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !current_exe.is_some_and(|exe| same(program, exe)) {
        return Some(format!(
            "{} is not this notarai executable",
            crate::quote::terminal(&program.display().to_string())
        ));
    }
    let mut args = entry.args.iter();
    let mut subcommand = false;
    while let Some(arg) = args.next() {
        let root_value = if arg == "--root" {
            Some(args.next().map(String::as_str).unwrap_or(""))
        } else {
            arg.strip_prefix("--root=")
        };
        match (arg.as_str(), root_value) {
            (_, Some(dir)) => {
                if !same(&root.join(dir), root) {
                    return Some(format!(
                        "`--root {}` names another folder than the project",
                        crate::quote::terminal(dir)
                    ));
                }
            }
            ("mcp", None) if !subcommand => subcommand = true,
            ("--read-only", None) if subcommand => {}
            ("-v" | "-vv" | "-vvv" | "--verbose", None) => {}
            (other, None) => {
                return Some(format!(
                    "`{}` is not an argument of `notarai mcp`",
                    crate::quote::terminal(other)
                ));
            }
        }
    }
    if !subcommand {
        return Some("the arguments do not start `notarai mcp`".into());
    }
    if let Some((key, _)) = entry
        .env
        .iter()
        .find(|(k, _)| !OWN_ENV.contains(&k.as_str()))
    {
        return Some(format!(
            "it sets `{}`, which notarai does not read",
            crate::quote::terminal(key)
        ));
    }
    None
}

/// Whether doctor may start `entry` for the handshake: a switched-off entry
/// never; notarai's own server ([`own_server`]) yes; any other only when
/// the user named the agent and passed `--run-configured-commands`. When
/// not, the check that says so, showing what would have run.
fn may_start(
    root: &Path,
    agent: AgentId,
    entry: &ServerEntry,
    program: &Path,
    options: &Options,
) -> Result<(), Box<Check>> {
    let spawn = spawn_line(entry);
    if !entry.enabled {
        return Err(Box::new(Check::new(
            Some(agent),
            CheckKind::Handshake,
            Verdict::Warn,
            format!("not started: the entry is switched off (`{spawn}`)"),
        )));
    }
    // The user's own file (Windsurf's, in the home folder) is theirs, not
    // the repository's.
    if matches!(agents::agent(agent).mcp(), Mcp::UserOnly { .. }) {
        return Ok(());
    }
    let exe = std::env::current_exe().ok();
    let Some(why) = own_server(root, entry, program, exe.as_deref()) else {
        return Ok(());
    };
    let named = options
        .agents
        .as_ref()
        .is_some_and(|list| list.contains(&agent));
    if named && options.run_configured {
        return Ok(());
    }
    Err(Box::new(
        Check::new(
            Some(agent),
            CheckKind::Handshake,
            Verdict::Warn,
            format!("not started: `{spawn}` is not notarai's own server ({why})"),
        )
        .fix(format!(
            "a cloned repository's config may name any command: read it, and if you trust it run \
             `notarai doctor --agents {agent} --run-configured-commands`"
        )),
    ))
}

/// The user-level file of an agent without a project MCP file (Windsurf):
/// read only, and only when it exists.
fn check_user_file(
    agent: AgentId,
    user_file: &str,
    options: &Options,
    out: &mut Vec<Check>,
) -> Option<ServerEntry> {
    let servers_key = match agents::agent(agent).mcp() {
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

/// The results of the handshakes already made, by what was spawned: agents
/// sharing one command line are answered by one handshake (made ahead by
/// [`prefetch_handshakes`]; one missing is made on the spot).
#[derive(Default)]
struct Handshakes {
    done: BTreeMap<Spawned, Result<ServerHello, String>>,
}

/// What a handshake spawned: the program, its arguments, its environment.
type Spawned = (PathBuf, Vec<String>, Vec<(String, String)>);

/// The command and handshake checks of an entry.
fn check_command(
    root: &Path,
    agent: AgentId,
    entry: &ServerEntry,
    options: &Options,
    handshakes: &mut Handshakes,
    out: &mut Vec<Check>,
) {
    let program = match resolve_entry(root, entry, options) {
        Ok(program) => program,
        Err(e) => {
            out.push(
                Check::new(Some(agent), CheckKind::Command, Verdict::Fail, e.to_string()).fix(
                    format!(
                        "install notarai (`cargo install --path .` in notarai's source, or put the binary on PATH), \
                         or write its absolute path as the entry's command; {} may not see your shell's PATH",
                        agent.title()
                    ),
                ),
            );
            return;
        }
    };
    let mut check = Check::new(
        Some(agent),
        CheckKind::Command,
        Verdict::Ok,
        format!("`{}` resolves to {}", entry.command, program.display()),
    );
    check.resolved = Some(program.display().to_string());
    out.push(check);
    if options.no_handshake {
        return;
    }
    if let Err(why) = may_start(root, agent, entry, &program, options) {
        out.push(*why);
        return;
    }
    let key = (program.clone(), entry.args.clone(), entry.env.clone());
    let result = handshakes
        .done
        .entry(key)
        .or_insert_with(|| {
            handshake::handshake(
                &program,
                &entry.args,
                &entry.env,
                root,
                handshake_deadline(),
            )
            .map_err(|e| e.to_string())
        })
        .clone();
    let spawn = spawn_line(entry);
    match result {
        Ok(hello) => {
            let mut check = Check::new(
                Some(agent),
                CheckKind::Handshake,
                Verdict::Ok,
                format!(
                    "`{spawn}` answered: {} {}, protocol {}, in {} ms",
                    hello.name, hello.version, hello.protocol_version, hello.millis
                ),
            );
            check.server = Some(hello);
            out.push(check);
        }
        Err(message) => out.push(
            Check::new(
                Some(agent),
                CheckKind::Handshake,
                Verdict::Fail,
                format!("`{spawn}`: {message}"),
            )
            .fix(format!(
                "the entry must run notarai's MCP server (`notarai mcp`); run `{spawn}` in {} to see what it does",
                root.display()
            )),
        ),
    }
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
