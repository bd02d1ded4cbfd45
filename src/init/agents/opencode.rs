//! opencode: `opencode.json` or `opencode.jsonc` (`mcp`, a command array),
//! `AGENTS.md`, skills in `.opencode/skills/`, and a plugin in
//! `.opencode/plugins/notarai.js` that runs the hook after each edit.

use super::{Agent, AgentId, EntryShape, Format, HookFile, HookKind, Mcp, McpFile};

/// opencode.
pub struct Opencode;

impl Agent for Opencode {
    fn id(&self) -> AgentId {
        AgentId::Opencode
    }
    fn signs(&self) -> &'static [&'static str] {
        &[".opencode", "opencode.json", "opencode.jsonc"]
    }
    fn mcp(&self) -> Mcp {
        Mcp::Project(McpFile {
            files: &["opencode.json", "opencode.jsonc"],
            format: Format::Jsonc,
            servers: &["mcp"],
            shape: EntryShape::CommandArray,
        })
    }
    fn instructions(&self) -> &'static [&'static str] {
        &["AGENTS.md"]
    }
    fn hook(&self) -> Option<HookFile> {
        Some(HookFile {
            file: ".opencode/plugins/notarai.js",
            format: Format::Json,
            kind: HookKind::Plugin,
        })
    }
}
