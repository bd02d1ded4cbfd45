//! Codex CLI: `[mcp_servers.notarai]` in `.codex/config.toml` (read only in
//! trusted projects), `AGENTS.md`, the PostToolUse hook (`apply_patch`, of
//! which `Write` and `Edit` are aliases) in `.codex/hooks.json` (or, the
//! user's, inline under `[hooks]` in `.codex/config.toml`).

use super::{Agent, AgentId, EntryShape, Format, HookFile, HookKind, Mcp, McpFile};

/// Codex CLI.
pub struct Codex;

impl Agent for Codex {
    fn id(&self) -> AgentId {
        AgentId::Codex
    }
    fn signs(&self) -> &'static [&'static str] {
        &[".codex", "AGENTS.override.md"]
    }
    fn mcp(&self) -> Mcp {
        Mcp::Project(McpFile {
            files: &[".codex/config.toml"],
            format: Format::Toml,
            servers: &["mcp_servers"],
            shape: EntryShape::CommandArgs { typed: None },
        })
    }
    fn instructions(&self) -> &'static [&'static str] {
        &["AGENTS.md"]
    }
    fn hook(&self) -> Option<HookFile> {
        Some(HookFile {
            file: ".codex/hooks.json",
            format: Format::Json,
            kind: HookKind::Grouped {
                event: "PostToolUse",
                matcher: "apply_patch",
                extra: "",
            },
        })
    }
    fn hook_also_in(&self) -> Option<(&'static str, Format)> {
        Some((".codex/config.toml", Format::Toml))
    }
}
