//! Windsurf: MCP servers only in the user's
//! `~/.codeium/windsurf/mcp_config.json` (never written by `init`, which
//! prints what to add), `AGENTS.md`, rules in `.windsurf/rules/`, the
//! `post_write_code` hook in `.windsurf/hooks.json`.

use super::{Agent, AgentId, Format, HookFile, HookKind, Mcp};

/// Windsurf.
pub struct Windsurf;

impl Agent for Windsurf {
    fn id(&self) -> AgentId {
        AgentId::Windsurf
    }
    fn signs(&self) -> &'static [&'static str] {
        &[".windsurf", ".windsurfrules"]
    }
    fn mcp(&self) -> Mcp {
        Mcp::UserOnly {
            path: "~/.codeium/windsurf/mcp_config.json",
            servers: &["mcpServers"],
        }
    }
    fn instructions(&self) -> &'static [&'static str] {
        &["AGENTS.md"]
    }
    fn hook(&self) -> Option<HookFile> {
        Some(HookFile {
            file: ".windsurf/hooks.json",
            format: Format::Json,
            kind: HookKind::Flat {
                event: "post_write_code",
                extra: r#"{"show_output": true}"#,
                preamble: "",
            },
        })
    }
}
