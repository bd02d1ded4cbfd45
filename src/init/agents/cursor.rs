//! Cursor: `.cursor/mcp.json` (`mcpServers`), rules in `.cursor/rules/*.mdc`
//! and `AGENTS.md`, the `afterFileEdit` hook in `.cursor/hooks.json`.

use super::{Agent, AgentId, EntryShape, Format, HookFile, HookKind, Mcp, McpFile};

/// Cursor.
pub struct Cursor;

impl Agent for Cursor {
    fn id(&self) -> AgentId {
        AgentId::Cursor
    }
    fn signs(&self) -> &'static [&'static str] {
        &[".cursor", ".cursorrules"]
    }
    fn mcp(&self) -> Mcp {
        Mcp::Project(McpFile {
            files: &[".cursor/mcp.json"],
            format: Format::Json,
            servers: &["mcpServers"],
            shape: EntryShape::CommandArgs { typed: None },
        })
    }
    fn instructions(&self) -> &'static [&'static str] {
        &["AGENTS.md"]
    }
    fn hook(&self) -> Option<HookFile> {
        Some(HookFile {
            file: ".cursor/hooks.json",
            format: Format::Json,
            kind: HookKind::Flat {
                event: "afterFileEdit",
                extra: "",
                preamble: r#"{"version": 1}"#,
            },
        })
    }
}
