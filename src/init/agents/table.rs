//! The one table of per-agent facts `init` and `doctor` read: a row per
//! agent, in [`AgentId::ALL`] order, beside the facts of its hooks' events
//! (`crate::agent::hooks`, below the hook and `init` alike), whose event
//! names the rows take. Adding an agent is adding a row (and its [`AgentId`]); `init`,
//! `init --remove` and `doctor` read nothing else about it.

use crate::agent::hooks;

use super::{
    Agent, AgentId, EntryShape, Form, Format, HookFile, HookKind, Mcp, McpFile, Moved,
    WorkflowFiles,
};

/// The keys of a Copilot-format hook beside `command`: the editing tools
/// (a regex on `toolName`, anchored) and a timeout in seconds.
const COPILOT_HOOK: &str = r#"{"type": "command", "matcher": "edit|create", "timeoutSec": 30}"#;

/// The matcher of Claude Code's hooks: the tools that write files.
const CLAUDE_EDITS: &str = "Write|Edit|MultiEdit";

/// Every agent, in [`AgentId::ALL`] order.
pub const AGENTS: &[Agent] = &[
    // Claude Code: `.mcp.json`, `CLAUDE.md`, skills in `.claude/skills/`,
    // the PostToolUse hook, the PreToolUse context hook and the Stop nudge
    // in `.claude/settings.json`.
    Agent {
        id: AgentId::Claude,
        signs: &[".claude", "CLAUDE.md", ".mcp.json"],
        by_default: true,
        mcp: Mcp::Project(McpFile {
            files: &[".mcp.json"],
            format: Format::Json,
            servers: &["mcpServers"],
            shape: EntryShape::CommandArgs {
                typed: Some("stdio"),
            },
        }),
        instructions: &["CLAUDE.md"],
        imports_agents_md: true,
        workflows: Some(WorkflowFiles {
            form: Form::Skill,
            path: ".claude/skills/{name}/SKILL.md",
            reads_those_of: None,
        }),
        hook: Some(HookFile {
            file: ".claude/settings.json",
            format: Format::Json,
            kind: HookKind::Grouped {
                event: hooks::CLAUDE.post_edit[0].name,
                matcher: CLAUDE_EDITS,
                extra: "",
            },
        }),
        context_hook: Some(HookFile {
            file: ".claude/settings.json",
            format: Format::Json,
            kind: HookKind::Grouped {
                event: hooks::CLAUDE.pre_edit[0].name,
                matcher: CLAUDE_EDITS,
                extra: "",
            },
        }),
        stop_hook: Some(HookFile {
            file: ".claude/settings.json",
            format: Format::Json,
            kind: HookKind::Grouped {
                event: hooks::CLAUDE.stop[0].event.name,
                matcher: "",
                extra: "",
            },
        }),
        hook_also_in: None,
        legacy_hooks: &["notarai hook validate"],
        by_hand: Some(
            "Claude Code: open the project and approve the `notarai` MCP server (it shows as \
             pending approval)",
        ),
        moved: None,
        successor: None,
    },
    // Codex CLI: `[mcp_servers.notarai]` in `.codex/config.toml` (read only
    // in trusted projects), `AGENTS.md`, skills in `.agents/skills/`, the
    // PostToolUse hook (`apply_patch`, of which `Write` and `Edit` are
    // aliases) in `.codex/hooks.json` (or, the user's, inline under
    // `[hooks]` in `.codex/config.toml`).
    Agent {
        id: AgentId::Codex,
        signs: &[".codex", "AGENTS.override.md"],
        by_default: false,
        mcp: Mcp::Project(McpFile {
            files: &[".codex/config.toml"],
            format: Format::Toml,
            servers: &["mcp_servers"],
            shape: EntryShape::CommandArgs { typed: None },
        }),
        instructions: &["AGENTS.md"],
        imports_agents_md: false,
        workflows: Some(WorkflowFiles {
            form: Form::Skill,
            path: ".agents/skills/{name}/SKILL.md",
            reads_those_of: None,
        }),
        hook: Some(HookFile {
            file: ".codex/hooks.json",
            format: Format::Json,
            kind: HookKind::Grouped {
                event: hooks::CODEX.post_edit[0].name,
                matcher: "apply_patch",
                extra: "",
            },
        }),
        context_hook: Some(HookFile {
            file: ".codex/hooks.json",
            format: Format::Json,
            kind: HookKind::Grouped {
                event: hooks::CODEX.pre_edit[0].name,
                matcher: "apply_patch",
                extra: "",
            },
        }),
        stop_hook: None,
        hook_also_in: Some((".codex/config.toml", Format::Toml)),
        legacy_hooks: &[],
        by_hand: Some(
            "Codex CLI: trust the project (its .codex/ folder is read only in trusted projects) \
             and review the hook in /hooks",
        ),
        moved: None,
        successor: None,
    },
    // Cursor: `.cursor/mcp.json`, rules in `.cursor/rules/*.mdc` and
    // `AGENTS.md`, the `afterFileEdit` hook in `.cursor/hooks.json`.
    Agent {
        id: AgentId::Cursor,
        signs: &[".cursor", ".cursorrules"],
        by_default: false,
        mcp: Mcp::Project(McpFile {
            files: &[".cursor/mcp.json"],
            format: Format::Json,
            servers: &["mcpServers"],
            shape: EntryShape::CommandArgs { typed: None },
        }),
        instructions: &["AGENTS.md"],
        imports_agents_md: false,
        workflows: Some(WorkflowFiles {
            form: Form::CursorRule,
            path: ".cursor/rules/{name}.mdc",
            reads_those_of: None,
        }),
        hook: Some(HookFile {
            file: ".cursor/hooks.json",
            format: Format::Json,
            kind: HookKind::Flat {
                event: hooks::CURSOR.post_edit[0].name,
                extra: "",
                preamble: r#"{"version": 1}"#,
            },
        }),
        // Unconfirmed: `preToolUse` taking `additional_context` (the
        // client's event map says so, the docs name it for other events).
        context_hook: Some(HookFile {
            file: ".cursor/hooks.json",
            format: Format::Json,
            kind: HookKind::Flat {
                event: hooks::CURSOR.pre_edit[0].name,
                extra: r#"{"matcher": "Write"}"#,
                preamble: r#"{"version": 1}"#,
            },
        }),
        stop_hook: None,
        hook_also_in: None,
        legacy_hooks: &[],
        by_hand: Some(
            "Cursor: turn the `notarai` server on in Settings > MCP (project servers start \
             disabled); if the editor does not find `notarai` on its PATH, write its absolute \
             path in .cursor/mcp.json",
        ),
        moved: None,
        successor: None,
    },
    // Gemini CLI (retired on 2026-06-18 except for enterprise Code Assist
    // licences; in `--agents all` only where `.gemini/` exists):
    // `.gemini/settings.json` (JSON with comments: `mcpServers`
    // and the `AfterTool` hook), `GEMINI.md`, commands in
    // `.gemini/commands/*.toml`.
    Agent {
        id: AgentId::Gemini,
        // Not GEMINI.md, which Antigravity CLI reads too.
        signs: &[".gemini"],
        by_default: false,
        mcp: Mcp::Project(McpFile {
            files: &[".gemini/settings.json"],
            format: Format::Jsonc,
            servers: &["mcpServers"],
            shape: EntryShape::CommandArgs { typed: None },
        }),
        instructions: &["GEMINI.md"],
        imports_agents_md: false,
        workflows: Some(WorkflowFiles {
            form: Form::GeminiCommand,
            path: ".gemini/commands/{name}.toml",
            reads_those_of: None,
        }),
        hook: Some(HookFile {
            file: ".gemini/settings.json",
            format: Format::Jsonc,
            kind: HookKind::Grouped {
                event: hooks::GEMINI.post_edit[0].name,
                matcher: "write_file|replace",
                extra: r#"{"name": "notarai", "timeout": 60000}"#,
            },
        }),
        context_hook: None,
        stop_hook: None,
        hook_also_in: None,
        legacy_hooks: &[],
        by_hand: Some(
            "Gemini CLI: trust the folder (`gemini trust`); project settings are ignored in \
             untrusted folders",
        ),
        moved: None,
        successor: Some((
            AgentId::Antigravity,
            "Gemini CLI was retired on 2026-06-18 except for enterprise Code Assist licences, \
             and its successor Antigravity CLI reads .agents/, not .gemini/",
        )),
    },
    // Antigravity CLI (`agy`), Gemini CLI's successor: workspace files in
    // `.agents/`: `mcp_config.json` (`mcpServers`), skills in
    // `.agents/skills/`, hooks in `.agents/hooks.json`. The hook file's
    // place and shape are disputed between versions: `{"hooks":
    // {"PostToolUse": [...]}}` is the Claude-style reading and, with
    // `hooks` taken as the hook's name, the grouped one too; notarai's hook
    // in `.antigravitycli/hooks.json` (the other place a source names)
    // counts.
    Agent {
        id: AgentId::Antigravity,
        signs: &[
            ".agents/mcp_config.json",
            ".agents/hooks.json",
            ".antigravitycli",
        ],
        by_default: false,
        mcp: Mcp::Project(McpFile {
            files: &[".agents/mcp_config.json"],
            format: Format::Json,
            servers: &["mcpServers"],
            shape: EntryShape::CommandArgs { typed: None },
        }),
        instructions: &["AGENTS.md"],
        imports_agents_md: false,
        workflows: Some(WorkflowFiles {
            form: Form::Skill,
            path: ".agents/skills/{name}/SKILL.md",
            reads_those_of: None,
        }),
        hook: Some(HookFile {
            file: ".agents/hooks.json",
            format: Format::Json,
            kind: HookKind::Grouped {
                event: hooks::ANTIGRAVITY.post_edit[0].name,
                matcher: "edit_file|write_to_file|create_file",
                extra: r#"{"timeout": 30}"#,
            },
        }),
        context_hook: None,
        stop_hook: None,
        hook_also_in: Some((".antigravitycli/hooks.json", Format::Json)),
        legacy_hooks: &[],
        by_hand: Some(
            "Antigravity CLI: check that /hooks lists notarai's hook and /mcp its server (a \
             hook file of another shape is dropped silently; ~/.gemini/antigravity-cli/cli.log \
             says why)",
        ),
        moved: None,
        successor: None,
    },
    // VS Code: its Copilot harness (the same runtime as Copilot CLI), which
    // reads MCP servers from the workspace `.mcp.json` (shared with Claude
    // Code; VS Code's own migration moves `.vscode/mcp.json` there), skills
    // (not prompt files) from `.agents/skills/`, and Copilot-format hooks
    // (`{"version": 1}`, camelCase events, `command` the cross-platform
    // form of `bash`) from `.github/hooks/*.json`; the Local harness parses
    // that format too and reads `.agents/skills/`. Its Local-harness files
    // (`.vscode/mcp.json`, prompt files) are kept where a user has them.
    Agent {
        id: AgentId::Vscode,
        signs: &[
            ".vscode",
            ".github/copilot-instructions.md",
            ".github/hooks",
        ],
        by_default: false,
        mcp: Mcp::Project(McpFile {
            files: &[".mcp.json"],
            format: Format::Json,
            servers: &["mcpServers"],
            shape: EntryShape::CommandArgs {
                typed: Some("stdio"),
            },
        }),
        instructions: &["AGENTS.md"],
        imports_agents_md: false,
        workflows: Some(WorkflowFiles {
            form: Form::Skill,
            path: ".agents/skills/{name}/SKILL.md",
            reads_those_of: None,
        }),
        hook: Some(HookFile {
            file: ".github/hooks/notarai.json",
            format: Format::Json,
            kind: HookKind::Flat {
                event: hooks::VSCODE.post_edit[0].name,
                extra: COPILOT_HOOK,
                preamble: r#"{"version": 1}"#,
            },
        }),
        context_hook: Some(HookFile {
            file: ".github/hooks/notarai.json",
            format: Format::Json,
            kind: HookKind::Flat {
                event: hooks::VSCODE.pre_edit[0].name,
                extra: COPILOT_HOOK,
                preamble: r#"{"version": 1}"#,
            },
        }),
        stop_hook: None,
        hook_also_in: None,
        legacy_hooks: &[],
        by_hand: Some(
            "VS Code: in the Copilot harness, open Chat: Open Customizations and start and \
             trust the `notarai` server; agent hooks may need enabling",
        ),
        moved: Some(Moved {
            mcp: Some(McpFile {
                files: &[".vscode/mcp.json"],
                format: Format::Jsonc,
                servers: &["servers"],
                shape: EntryShape::CommandArgs {
                    typed: Some("stdio"),
                },
            }),
            workflows: Some(WorkflowFiles {
                form: Form::VscodePrompt,
                path: ".github/prompts/{name}.prompt.md",
                reads_those_of: None,
            }),
            hook: Some(HookFile {
                file: ".github/hooks/notarai.json",
                format: Format::Json,
                kind: HookKind::Flat {
                    event: hooks::VSCODE.post_edit[1].name,
                    extra: r#"{"type": "command", "timeout": 30}"#,
                    preamble: "",
                },
            }),
            why: "VS Code's Copilot harness reads MCP servers only from the workspace .mcp.json \
                  (and no prompt files): with notarai in .vscode/mcp.json alone, its agent \
                  never sees notarai",
        }),
        successor: None,
    },
    // opencode: `opencode.json` or `opencode.jsonc` (`mcp`, a command
    // array), `AGENTS.md`, skills in `.opencode/skills/` (or Claude Code's,
    // which it reads too), and a plugin in `.opencode/plugins/notarai.js`
    // that runs the hook after each edit.
    Agent {
        id: AgentId::Opencode,
        signs: &[".opencode", "opencode.json", "opencode.jsonc"],
        by_default: false,
        mcp: Mcp::Project(McpFile {
            files: &["opencode.json", "opencode.jsonc"],
            format: Format::Jsonc,
            servers: &["mcp"],
            shape: EntryShape::CommandArray,
        }),
        instructions: &["AGENTS.md"],
        imports_agents_md: false,
        workflows: Some(WorkflowFiles {
            form: Form::Skill,
            path: ".opencode/skills/{name}/SKILL.md",
            reads_those_of: Some(AgentId::Claude),
        }),
        hook: Some(HookFile {
            file: ".opencode/plugins/notarai.js",
            format: Format::Json,
            kind: HookKind::Plugin {
                script: include_str!("../templates/opencode_plugin.js"),
            },
        }),
        context_hook: None,
        stop_hook: None,
        hook_also_in: None,
        legacy_hooks: &[],
        by_hand: None,
        moved: None,
        successor: None,
    },
    // Zed: `.zed/settings.json` (JSON with comments, `context_servers`),
    // `AGENTS.md` (the first of its rule files found), skills in
    // `.agents/skills/`. Zed has no hooks.
    Agent {
        id: AgentId::Zed,
        signs: &[".zed", ".rules"],
        by_default: false,
        mcp: Mcp::Project(McpFile {
            files: &[".zed/settings.json"],
            format: Format::Jsonc,
            servers: &["context_servers"],
            shape: EntryShape::CommandArgs { typed: None },
        }),
        instructions: &["AGENTS.md"],
        imports_agents_md: false,
        workflows: Some(WorkflowFiles {
            form: Form::Skill,
            path: ".agents/skills/{name}/SKILL.md",
            reads_those_of: None,
        }),
        hook: None,
        context_hook: None,
        stop_hook: None,
        hook_also_in: None,
        legacy_hooks: &[],
        by_hand: Some(
            "Zed: trust the worktree; Zed has no hooks, so run `notarai validate` after editing \
             specs",
        ),
        moved: None,
        successor: None,
    },
    // Windsurf: MCP servers only in the user's file (never written by
    // `init`, which prints what to add), `AGENTS.md`, the `post_write_code`
    // hook in `.windsurf/hooks.json`.
    Agent {
        id: AgentId::Windsurf,
        signs: &[".windsurf", ".windsurfrules"],
        by_default: false,
        mcp: Mcp::UserOnly {
            path: "~/.codeium/windsurf/mcp_config.json",
            servers: &["mcpServers"],
            shape: EntryShape::CommandArgs { typed: None },
            opened_from: "Settings > Cascade > MCP Servers > View Raw Config",
        },
        instructions: &["AGENTS.md"],
        imports_agents_md: false,
        workflows: None,
        hook: Some(HookFile {
            file: ".windsurf/hooks.json",
            format: Format::Json,
            kind: HookKind::Flat {
                event: hooks::WINDSURF.post_edit[0].name,
                extra: r#"{"show_output": true}"#,
                preamble: "",
            },
        }),
        context_hook: None,
        stop_hook: None,
        hook_also_in: None,
        legacy_hooks: &[],
        by_hand: None,
        moved: None,
        successor: None,
    },
];
