//! The coding agents notarai knows how to wire, by name, and what their
//! hooks send and take ([`hooks`]). A leaf module: the hook (which reads
//! each agent's event format) and `init` (which writes each agent's
//! configuration) both name an agent and read its hook facts without naming
//! each other.

use std::fmt;

pub mod hooks;
pub mod rules;

/// A coding agent `notarai init --agents` can set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum)]
pub enum AgentId {
    /// Claude Code.
    Claude,
    /// OpenAI Codex CLI.
    Codex,
    /// Cursor (editor and CLI).
    Cursor,
    /// Gemini CLI (retired on 2026-06-18 except for enterprise Code
    /// Assist licences).
    Gemini,
    /// Antigravity CLI (`agy`), Gemini CLI's successor.
    Antigravity,
    /// VS Code with GitHub Copilot's agent mode.
    Vscode,
    /// opencode.
    Opencode,
    /// Zed.
    Zed,
    /// Windsurf.
    Windsurf,
}

impl AgentId {
    /// Every agent, in the order reports list them.
    pub const ALL: [AgentId; 9] = [
        AgentId::Claude,
        AgentId::Codex,
        AgentId::Cursor,
        AgentId::Gemini,
        AgentId::Antigravity,
        AgentId::Vscode,
        AgentId::Opencode,
        AgentId::Zed,
        AgentId::Windsurf,
    ];

    /// The name on the command line (`--agents codex`, `--agent codex`).
    pub fn name(self) -> &'static str {
        match self {
            AgentId::Claude => "claude",
            AgentId::Codex => "codex",
            AgentId::Cursor => "cursor",
            AgentId::Gemini => "gemini",
            AgentId::Antigravity => "antigravity",
            AgentId::Vscode => "vscode",
            AgentId::Opencode => "opencode",
            AgentId::Zed => "zed",
            AgentId::Windsurf => "windsurf",
        }
    }

    /// The product's name, for people.
    pub fn title(self) -> &'static str {
        match self {
            AgentId::Claude => "Claude Code",
            AgentId::Codex => "Codex CLI",
            AgentId::Cursor => "Cursor",
            AgentId::Gemini => "Gemini CLI",
            AgentId::Antigravity => "Antigravity CLI",
            AgentId::Vscode => "VS Code (Copilot)",
            AgentId::Opencode => "opencode",
            AgentId::Zed => "Zed",
            AgentId::Windsurf => "Windsurf",
        }
    }

    /// The agent named `name` (as [`AgentId::name`] spells it).
    pub fn from_name(name: &str) -> Option<AgentId> {
        AgentId::ALL.into_iter().find(|a| a.name() == name)
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn names_round_trip_and_match_clap() {
        for agent in AgentId::ALL {
            assert_eq!(AgentId::from_name(agent.name()), Some(agent));
            assert_eq!(agent.to_possible_value().unwrap().get_name(), agent.name());
        }
        assert_eq!(AgentId::value_variants().len(), AgentId::ALL.len());
    }
}
