//! The coding agents `notarai init` wires, as one table ([`AGENTS`], in
//! `table.rs`): one [`Agent`] row per agent holds every fact about it
//! (where its MCP entry goes, in which format and shape; its instruction
//! files; the form and place of its workflows; its hooks; what it leaves
//! to do by hand; the signs that a repository uses it).
//!
//! Nothing else in notarai names an agent's files: `parts.rs` derives from a
//! row the parts `init` adds, and `--remove` takes out the same parts with
//! the inverse of the same merger (`merge/` for JSON and JSON with
//! comments, `merge_toml.rs` for TOML); `inspect.rs` reads a row back for
//! `notarai doctor`.
//!
//! The hook every agent runs is `notarai hook validate --agent <id>`
//! ([`hook_command`]), so the hook knows the event's format.

use std::path::Path;

use serde_json::Value;

pub use crate::agent::AgentId;
pub use crate::workflow::Form;

mod commands;
mod inspect;
pub mod merge;
mod merge_toml;
mod parts;
mod plan_edits;
pub(super) mod setup;
mod table;

pub use commands::{
    is_notarai_context_hook, is_notarai_hook, is_notarai_program, is_notarai_stop_hook,
};
pub use inspect::{ConfigProblem, HookInspection, Inspection, McpInspection, ServerEntry};
pub use table::AGENTS;

/// The name of notarai's entry in every agent's MCP configuration.
pub const SERVER_NAME: &str = "notarai";

/// The format of a configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Strict JSON (no comments).
    Json,
    /// JSON with `//` and `/* */` comments and trailing commas.
    Jsonc,
    /// TOML.
    Toml,
}

/// How an agent's MCP entry is shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryShape {
    /// `{"command": "notarai", "args": ["mcp"]}`, with `"type": <t>` first
    /// when the agent wants one (`stdio` for Claude Code and VS Code). In
    /// TOML, a `[<table>.notarai]` table with `command` and `args`.
    CommandArgs {
        /// The `type` value the agent wants, if any.
        typed: Option<&'static str>,
    },
    /// opencode: `{"type": "local", "command": ["notarai", "mcp"], "enabled": true}`.
    CommandArray,
}

/// Where an agent's MCP server entry lives at project level.
#[derive(Debug, Clone, Copy)]
pub struct McpFile {
    /// Candidate files relative to the root: the first that exists is
    /// edited; when none does, the first is created.
    pub files: &'static [&'static str],
    /// Their format.
    pub format: Format,
    /// The keys from the top level to the map of servers (`["mcpServers"]`).
    pub servers: &'static [&'static str],
    /// The entry's shape.
    pub shape: EntryShape,
}

/// Where an agent takes its MCP servers from.
#[derive(Debug, Clone, Copy)]
pub enum Mcp {
    /// A file in the repository that `init` edits.
    Project(McpFile),
    /// Only a user-level file, which `init` never writes: it prints what to
    /// add (`path` as the agent's documentation names it, and the entry).
    UserOnly {
        /// The user-level file, e.g. `~/.codeium/windsurf/mcp_config.json`.
        path: &'static str,
        /// The key its servers live under.
        servers: &'static [&'static str],
        /// The entry's shape.
        shape: EntryShape,
        /// Where the agent opens that file, for the step by hand.
        opened_from: &'static str,
    },
}

/// How an agent's post-edit hook is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookKind {
    /// Claude-style: `hooks.<event>` is a list of groups `{matcher, hooks:
    /// [{type: "command", command}]}` (Claude Code, Codex CLI, Gemini CLI).
    Grouped {
        /// The event (`PostToolUse`, `AfterTool`).
        event: &'static str,
        /// The tools the group matches; `""`: no `matcher` key (an event
        /// about no tool, such as `Stop`).
        matcher: &'static str,
        /// Extra keys of the hook beside `type` and `command`, as JSON text
        /// of an object (`{"timeout": 60000}`), or `""`.
        extra: &'static str,
    },
    /// Flat: `hooks.<event>` is a list of `{command, ...}` (Cursor,
    /// Windsurf, VS Code).
    Flat {
        /// The event (`afterFileEdit`, `post_write_code`, `PostToolUse`).
        event: &'static str,
        /// Extra keys of the hook beside `command`, as JSON text of an
        /// object, or `""`.
        extra: &'static str,
        /// Top-level members a new file starts with (Cursor's `"version": 1`),
        /// as JSON text of an object, or `""`.
        preamble: &'static str,
    },
    /// A script file notarai writes whole (opencode's plugin).
    Plugin {
        /// The script.
        script: &'static str,
    },
}

/// Where an agent's hook goes.
#[derive(Debug, Clone, Copy)]
pub struct HookFile {
    /// The file, relative to the root.
    pub file: &'static str,
    /// Its format (ignored for [`HookKind::Plugin`]).
    pub format: Format,
    /// How the hook is registered in it.
    pub kind: HookKind,
}

/// Where and in which form an agent reads notarai's workflows.
#[derive(Debug, Clone, Copy)]
pub struct WorkflowFiles {
    /// The form ([`crate::workflow::Workflow::render`]).
    pub form: Form,
    /// The path of a workflow's file, `{name}` standing for the workflow's
    /// name (`.claude/skills/{name}/SKILL.md`).
    pub path: &'static str,
    /// An agent whose workflow files this one reads too (opencode reads
    /// Claude Code's skills): when both are set up, this one gets none,
    /// except files of its own already there, which are kept up to date.
    pub reads_those_of: Option<AgentId>,
}

impl WorkflowFiles {
    /// The file of the workflow `name`.
    pub fn file(&self, name: &str) -> String {
        self.path.replace("{name}", name)
    }
}

/// Where an agent read notarai's parts before it moved (VS Code's Copilot
/// harness reads neither `.vscode/mcp.json` nor prompt files): `init`
/// keeps what a user still has there up to date but creates none, takes a
/// retired hook registration out, and `--remove` takes all of it out;
/// `doctor` flags a setup found only there.
#[derive(Debug, Clone, Copy)]
pub struct Moved {
    /// The MCP file it read, edited only where it exists.
    pub mcp: Option<McpFile>,
    /// Its workflow files, kept up to date only where they exist.
    pub workflows: Option<WorkflowFiles>,
    /// A hook registration notarai wrote before, now retired: taken out.
    pub hook: Option<HookFile>,
    /// Why the old place is not enough, for `doctor`.
    pub why: &'static str,
}

/// One coding agent: everything notarai knows of what it reads at project
/// level. [`AGENTS`] has one per agent.
#[derive(Debug)]
pub struct Agent {
    /// Which agent this is.
    pub id: AgentId,
    /// Folders and files whose presence shows the repository uses this
    /// agent (for `init` without `--agents`).
    pub signs: &'static [&'static str],
    /// Set up by `init` without `--agents` even when no sign of it is found.
    pub by_default: bool,
    /// Where its MCP server entry goes.
    pub mcp: Mcp,
    /// The instruction files it reads, the one notarai writes to first.
    /// When that file is not `AGENTS.md` and imports it (a line
    /// `@AGENTS.md`), notarai's section goes to `AGENTS.md`.
    pub instructions: &'static [&'static str],
    /// With no instruction file of its own while `AGENTS.md` is used,
    /// its own file is created as an import of `AGENTS.md` (Claude Code
    /// reads `AGENTS.md` only without a `CLAUDE.md`, older versions never).
    pub imports_agents_md: bool,
    /// Its workflows, `None` when it reads none (Windsurf).
    pub workflows: Option<WorkflowFiles>,
    /// Its post-edit hook, `None` when the agent has no hooks.
    pub hook: Option<HookFile>,
    /// Its pre-edit hook (`notarai hook context`), for an agent whose hooks
    /// can put text in front of the model before a file edit without
    /// blocking it; `None` for the others.
    pub context_hook: Option<HookFile>,
    /// Its stop hook (`notarai hook stop`), for an agent whose end of turn
    /// takes context without blocking; `None` for the others.
    pub stop_hook: Option<HookFile>,
    /// Another file the agent reads the same `hooks` table from (Codex CLI:
    /// `[hooks]` in `.codex/config.toml`): notarai's hook registered there
    /// counts, and `init` adds none to [`Agent::hook`]'s file. `init` never
    /// writes it.
    pub hook_also_in: Option<(&'static str, Format)>,
    /// Hook commands older versions of notarai wrote: recognised, and taken
    /// out by `--remove`.
    pub legacy_hooks: &'static [&'static str],
    /// What the user still does by hand after `init`, one line.
    pub by_hand: Option<&'static str>,
    /// Where the agent read notarai's parts before it moved, if it did.
    pub moved: Option<Moved>,
    /// The agent that succeeded this one, and why (Gemini CLI, retired for
    /// all but enterprise licences): `doctor` warns when this one is set up
    /// and its successor is not.
    pub successor: Option<(AgentId, &'static str)>,
}

impl Agent {
    /// Read back what is configured for notarai at `root`: the MCP config
    /// file, whether it parses, notarai's entry as the agent would spawn
    /// it, the hook. Reads only inside `root`, writes nothing.
    pub fn inspect(&self, root: &Path) -> Inspection {
        inspect::inspect(self, root)
    }
}

/// Every agent's project-level configuration file notarai edits: MCP
/// config files and hook files (not instruction files, which hold the
/// project's own text). `check` does not ask a spec to govern them.
pub fn config_files() -> Vec<&'static str> {
    let mut files = Vec::new();
    for agent in AGENTS {
        if let Mcp::Project(mcp) = agent.mcp {
            files.extend_from_slice(mcp.files);
        }
        files.extend(agent.hook.iter().map(|h| h.file));
        files.extend(agent.hook_also_in.iter().map(|(file, _)| *file));
    }
    files.sort_unstable();
    files.dedup();
    files
}

/// Whether `--agents all` takes the agent `id` at `root`: every agent but a
/// retired one ([`Agent::successor`]), which only where its own folder (its
/// first sign) exists.
pub fn in_all(id: AgentId, root: &Path) -> bool {
    let a = agent(id);
    a.successor.is_none()
        || a.signs
            .first()
            .is_some_and(|sign| root.join(sign).symlink_metadata().is_ok())
}

/// The agent `id`.
pub fn agent(id: AgentId) -> &'static Agent {
    AGENTS
        .iter()
        .find(|a| a.id == id)
        .expect("every AgentId is in AGENTS")
}

/// What the agent `id` has configured for notarai at `root`.
pub fn inspect(root: &Path, id: AgentId) -> Inspection {
    agent(id).inspect(root)
}

/// The hook command every agent runs: `notarai hook validate --agent <id>`.
pub fn hook_command(id: AgentId) -> String {
    format!("notarai hook validate --agent {id}")
}

/// The pre-edit hook command: `notarai hook context --agent <id>`.
pub fn context_hook_command(id: AgentId) -> String {
    format!("notarai hook context --agent {id}")
}

/// The stop hook command: `notarai hook stop --agent <id>`.
pub fn stop_hook_command(id: AgentId) -> String {
    format!("notarai hook stop --agent {id}")
}

/// notarai's MCP entry in `shape`, as JSON.
pub fn server_entry(shape: EntryShape) -> Value {
    match shape {
        EntryShape::CommandArgs { typed: Some(t) } => {
            serde_json::json!({"type": t, "command": "notarai", "args": ["mcp"]})
        }
        EntryShape::CommandArgs { typed: None } => {
            serde_json::json!({"command": "notarai", "args": ["mcp"]})
        }
        EntryShape::CommandArray => {
            serde_json::json!({"type": "local", "command": ["notarai", "mcp"], "enabled": true})
        }
    }
}

/// Why an agent is set up: named on the command line, Claude Code by
/// default, or a sign found in the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// Named in `--agents`.
    Named,
    /// Always set up when `--agents` is not given.
    Default,
    /// The repository has this folder or file.
    Found(&'static str),
    /// `--remove` without `--agents`: every agent's part is taken out.
    Every,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::Named => f.write_str("named in --agents"),
            Reason::Default => f.write_str("always set up"),
            Reason::Found(sign) => write!(f, "found {sign}"),
            Reason::Every => f.write_str("--remove without --agents"),
        }
    }
}

/// The agents a repository already uses (a sign of each found at `root`),
/// plus those set up by default (Claude Code), each with why, in
/// [`AgentId::ALL`] order.
pub fn detect(root: &Path) -> Vec<(AgentId, Reason)> {
    AGENTS
        .iter()
        .filter_map(|a| {
            let found = a
                .signs
                .iter()
                .find(|s| root.join(s).symlink_metadata().is_ok());
            match found {
                Some(sign) => Some((a.id, Reason::Found(sign))),
                None if a.by_default => Some((a.id, Reason::Default)),
                None => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_every_agent_once_in_order() {
        let ids: Vec<AgentId> = AGENTS.iter().map(|a| a.id).collect();
        assert_eq!(ids, AgentId::ALL.to_vec());
    }

    #[test]
    fn detection_names_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(detect(dir.path()), vec![(AgentId::Claude, Reason::Default)]);
        std::fs::create_dir(dir.path().join(".cursor")).unwrap();
        std::fs::write(dir.path().join("opencode.json"), "{}").unwrap();
        let found = detect(dir.path());
        assert_eq!(
            found,
            vec![
                (AgentId::Claude, Reason::Default),
                (AgentId::Cursor, Reason::Found(".cursor")),
                (AgentId::Opencode, Reason::Found("opencode.json")),
            ]
        );
    }
}

#[cfg(test)]
mod inspect_tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn reads_back_entries_hooks_and_problems() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            ".zed/settings.json",
            "// zed\n{\"context_servers\": {\"notarai\": {\"command\": \"/bin/notarai\", \"args\": [\"mcp\"],},},}\n",
        );
        write(
            root,
            ".codex/config.toml",
            "# mine\n[mcp_servers.spec]\ncommand = \"notarai\"\nargs = [\"mcp\", \"--root\", \".\"]\nenv = { A = \"1\" }\n",
        );
        write(root, ".vscode/mcp.json", "{\n  \"servers\": {,\n}");
        write(
            root,
            ".cursor/hooks.json",
            r#"{"version": 1, "hooks": {"afterFileEdit": [{"command": "notarai hook validate --agent cursor"}]}}"#,
        );
        let zed = inspect(root, AgentId::Zed);
        let server = zed.mcp.server.unwrap();
        assert_eq!(
            (server.command.as_str(), server.args),
            ("/bin/notarai", vec!["mcp".to_string()])
        );
        assert!(zed.hook.is_none());
        let codex = inspect(root, AgentId::Codex);
        let server = codex.mcp.server.unwrap();
        assert_eq!(server.name, "spec");
        assert_eq!(server.env, vec![("A".to_string(), "1".to_string())]);
        assert!(!codex.hook.unwrap().exists);
        let vscode = inspect(root, AgentId::Vscode);
        // VS Code's Local-harness file, read as the place it moved from.
        assert!(!vscode.mcp.exists);
        let moved = vscode.moved_mcp.unwrap();
        assert_eq!(moved.problem.unwrap().position, Some((2, 15)));
        let cursor = inspect(root, AgentId::Cursor);
        assert!(cursor.hook.unwrap().registered);
        assert!(!cursor.mcp.exists && cursor.mcp.server.is_none());
        let windsurf = inspect(root, AgentId::Windsurf);
        assert_eq!(windsurf.mcp.file, None);
        assert!(windsurf.mcp.user_file.is_some());
        write(root, ".codex/config.toml", "[mcp_servers\n");
        let problem = inspect(root, AgentId::Codex).mcp.problem.unwrap();
        assert_eq!(problem.position.map(|p| p.0), Some(1));
    }
}
