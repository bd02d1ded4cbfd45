//! Claude Code: `.mcp.json` (`mcpServers`), `CLAUDE.md`, skills in
//! `.claude/skills/`, the PostToolUse hook and the PreToolUse context hook
//! in `.claude/settings.json`.

use super::{Agent, AgentId, EntryShape, Format, HookFile, HookKind, Mcp, McpFile};

/// Claude Code.
pub struct Claude;

impl Agent for Claude {
    fn id(&self) -> AgentId {
        AgentId::Claude
    }
    fn signs(&self) -> &'static [&'static str] {
        &[".claude", "CLAUDE.md", ".mcp.json"]
    }
    fn mcp(&self) -> Mcp {
        Mcp::Project(McpFile {
            files: &[".mcp.json"],
            format: Format::Json,
            servers: &["mcpServers"],
            shape: EntryShape::CommandArgs {
                typed: Some("stdio"),
            },
        })
    }
    fn instructions(&self) -> &'static [&'static str] {
        &["CLAUDE.md"]
    }
    fn hook(&self) -> Option<HookFile> {
        Some(HookFile {
            file: ".claude/settings.json",
            format: Format::Json,
            kind: HookKind::Grouped {
                event: "PostToolUse",
                matcher: "Write|Edit|MultiEdit",
                extra: "",
            },
        })
    }
    fn context_hook(&self) -> Option<HookFile> {
        Some(HookFile {
            file: ".claude/settings.json",
            format: Format::Json,
            kind: HookKind::Grouped {
                event: "PreToolUse",
                matcher: "Write|Edit|MultiEdit",
                extra: "",
            },
        })
    }
}
