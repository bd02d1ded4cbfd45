//! VS Code (GitHub Copilot agent mode): `.vscode/mcp.json` (`servers`, a
//! `type` required), `AGENTS.md`, prompt files in `.github/prompts/`, the
//! PostToolUse hook (Preview) in `.github/hooks/notarai.json`.

use super::{Agent, AgentId, EntryShape, Format, HookFile, HookKind, Mcp, McpFile};

/// VS Code with Copilot.
pub struct Vscode;

impl Agent for Vscode {
    fn id(&self) -> AgentId {
        AgentId::Vscode
    }
    fn signs(&self) -> &'static [&'static str] {
        &[".vscode", ".github/copilot-instructions.md"]
    }
    fn mcp(&self) -> Mcp {
        Mcp::Project(McpFile {
            files: &[".vscode/mcp.json"],
            format: Format::Jsonc,
            servers: &["servers"],
            shape: EntryShape::CommandArgs {
                typed: Some("stdio"),
            },
        })
    }
    fn instructions(&self) -> &'static [&'static str] {
        &["AGENTS.md"]
    }
    fn hook(&self) -> Option<HookFile> {
        Some(HookFile {
            file: ".github/hooks/notarai.json",
            format: Format::Json,
            kind: HookKind::Flat {
                event: "PostToolUse",
                extra: r#"{"type": "command", "timeout": 30}"#,
                preamble: "",
            },
        })
    }
}
