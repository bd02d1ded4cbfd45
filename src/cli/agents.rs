//! The `--agents LIST` value that `init` and `doctor` share: agent names
//! from [`AgentId`], or `all`.

use crate::agent::AgentId;

/// A value of `--agents`: one agent, or `all`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AgentChoice {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// Cursor.
    Cursor,
    /// Gemini CLI.
    Gemini,
    /// VS Code (GitHub Copilot).
    Vscode,
    /// opencode.
    Opencode,
    /// Zed.
    Zed,
    /// Windsurf (its MCP entry is user-level: printed, not written).
    Windsurf,
    /// Every agent above.
    All,
}

impl AgentChoice {
    /// The agents this choice names.
    pub fn agents(self) -> Vec<AgentId> {
        match self {
            AgentChoice::Claude => vec![AgentId::Claude],
            AgentChoice::Codex => vec![AgentId::Codex],
            AgentChoice::Cursor => vec![AgentId::Cursor],
            AgentChoice::Gemini => vec![AgentId::Gemini],
            AgentChoice::Vscode => vec![AgentId::Vscode],
            AgentChoice::Opencode => vec![AgentId::Opencode],
            AgentChoice::Zed => vec![AgentId::Zed],
            AgentChoice::Windsurf => vec![AgentId::Windsurf],
            AgentChoice::All => AgentId::ALL.to_vec(),
        }
    }
}

/// The agents a `--agents` list names, each once, in the order given.
pub fn selected(list: &[AgentChoice]) -> Vec<AgentId> {
    let mut out: Vec<AgentId> = Vec::new();
    for id in list.iter().flat_map(|choice| choice.agents()) {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}
