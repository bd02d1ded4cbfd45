//! The report `notarai doctor` gives: a verdict per check, what was found
//! and the fix, per agent, then the specs (typed; the CLI renders text or
//! JSON).

use schemars::JsonSchema;
use serde::Serialize;

use super::ServerHello;
use crate::agent::AgentId;

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
    /// The stop hook (`notarai hook stop`) is registered, for an agent
    /// whose end of turn takes context without blocking.
    StopHook,
    /// A setup in a place the agent no longer reads (it moved, or a
    /// successor replaced it).
    Moved,
    /// The path-scoped rule files generated from the specs match them.
    Rules,
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
    pub(super) fn new(
        agent: Option<AgentId>,
        check: CheckKind,
        verdict: Verdict,
        message: String,
    ) -> Check {
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

    pub(super) fn file(mut self, file: impl Into<String>) -> Check {
        self.file = Some(file.into());
        self
    }

    pub(super) fn fix(mut self, fix: impl Into<String>) -> Check {
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
