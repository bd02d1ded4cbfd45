//! Gemini CLI: `.gemini/settings.json` (JSON with comments: `mcpServers`,
//! and the `AfterTool` hook), `GEMINI.md`, commands in
//! `.gemini/commands/*.toml`.

use super::{Agent, AgentId, EntryShape, Format, HookFile, HookKind, Mcp, McpFile};

/// Gemini CLI.
pub struct Gemini;

impl Agent for Gemini {
    fn id(&self) -> AgentId {
        AgentId::Gemini
    }
    fn signs(&self) -> &'static [&'static str] {
        &[".gemini", "GEMINI.md"]
    }
    fn mcp(&self) -> Mcp {
        Mcp::Project(McpFile {
            files: &[".gemini/settings.json"],
            format: Format::Jsonc,
            servers: &["mcpServers"],
            shape: EntryShape::CommandArgs { typed: None },
        })
    }
    fn instructions(&self) -> &'static [&'static str] {
        &["GEMINI.md"]
    }
    fn hook(&self) -> Option<HookFile> {
        Some(HookFile {
            file: ".gemini/settings.json",
            format: Format::Jsonc,
            kind: HookKind::Grouped {
                event: "AfterTool",
                matcher: "write_file|replace",
                extra: r#"{"name": "notarai", "timeout": 60000}"#,
            },
        })
    }
}
