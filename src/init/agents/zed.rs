//! Zed: `.zed/settings.json` (JSON with comments, `context_servers`),
//! `AGENTS.md` (the first of its rule files found), skills in
//! `.agents/skills/`. Zed has no hooks.

use super::{Agent, AgentId, EntryShape, Format, HookFile, Mcp, McpFile};

/// Zed.
pub struct Zed;

impl Agent for Zed {
    fn id(&self) -> AgentId {
        AgentId::Zed
    }
    fn signs(&self) -> &'static [&'static str] {
        &[".zed", ".rules"]
    }
    fn mcp(&self) -> Mcp {
        Mcp::Project(McpFile {
            files: &[".zed/settings.json"],
            format: Format::Jsonc,
            servers: &["context_servers"],
            shape: EntryShape::CommandArgs { typed: None },
        })
    }
    fn instructions(&self) -> &'static [&'static str] {
        &["AGENTS.md"]
    }
    fn hook(&self) -> Option<HookFile> {
        None
    }
}
