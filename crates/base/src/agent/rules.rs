//! Where each agent reads path-scoped rules (a file it loads when it works
//! on matching files, no hook needed) and in which form: the one table of
//! those facts ([`RULES`]), read by `notarai rules`, `init`, `check` and
//! `doctor`. Agents without a row load no glob-triggered rule file
//! (Codex's nested `AGENTS.md` load by working folder, not by file;
//! Gemini CLI, Antigravity CLI, opencode and Zed document none).

use super::AgentId;

/// How a rule file's front matter names its globs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Front {
    /// Claude Code: `paths:`, a YAML list of quoted globs.
    Paths,
    /// Cursor: `description`, `globs` (comma-separated), `alwaysApply: false`.
    CursorGlobs,
    /// Copilot and VS Code: `applyTo: "<globs, comma-separated>"`.
    ApplyTo,
    /// Windsurf: `trigger: glob` and `globs` (comma-separated).
    WindsurfGlob,
}

/// A hook handler filter an agent takes from the same globs as its rule
/// files: Claude Code's per-handler `if` (2.1.85, path patterns fixed in
/// 2.1.176), a permission rule such as `Edit(src/**)`, so the pre-edit hook
/// starts only for files some spec governs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookIf {
    /// The settings file holding notarai's pre-edit hook, relative to the root.
    pub file: &'static str,
    /// The hook event (`hooks.<event>`, groups of `{matcher, hooks}`).
    pub event: &'static str,
    /// The permission rule's tool: `Edit` covers every built-in tool that
    /// edits files (Edit, Write, MultiEdit).
    pub tool: &'static str,
}

/// One agent's rule files.
#[derive(Debug, Clone, Copy)]
pub struct RuleFiles {
    /// Which agent.
    pub id: AgentId,
    /// The folder, relative to the root.
    pub folder: &'static str,
    /// The file name's ending (`.md`, `.mdc`, `.instructions.md`).
    pub suffix: &'static str,
    /// The front matter's form.
    pub front: Front,
    /// The most characters one file may have: the agent's documented limit,
    /// the smaller where sources disagree (Windsurf: 6,000 or 12,000), and
    /// 6,000 where none is documented, so that no file is truncated.
    pub max_chars: usize,
    /// The `if` filter of its pre-edit hook, when it takes one.
    pub hook_if: Option<HookIf>,
}

/// The limit taken where none is documented: Windsurf's smaller one.
const UNDOCUMENTED: usize = 6_000;

/// Every agent with path-scoped rules, in [`AgentId::ALL`] order.
pub const RULES: &[RuleFiles] = &[
    RuleFiles {
        id: AgentId::Claude,
        folder: ".claude/rules",
        suffix: ".md",
        front: Front::Paths,
        max_chars: UNDOCUMENTED,
        hook_if: Some(HookIf {
            file: ".claude/settings.json",
            event: super::hooks::CLAUDE.pre_edit[0].name,
            tool: "Edit",
        }),
    },
    // "Keep each rule under about 500 lines": 6,000 characters are fewer.
    RuleFiles {
        id: AgentId::Cursor,
        folder: ".cursor/rules",
        suffix: ".mdc",
        front: Front::CursorGlobs,
        max_chars: UNDOCUMENTED,
        hook_if: None,
    },
    RuleFiles {
        id: AgentId::Vscode,
        folder: ".github/instructions",
        suffix: ".instructions.md",
        front: Front::ApplyTo,
        max_chars: UNDOCUMENTED,
        hook_if: None,
    },
    RuleFiles {
        id: AgentId::Windsurf,
        folder: ".windsurf/rules",
        suffix: ".md",
        front: Front::WindsurfGlob,
        max_chars: 6_000,
        hook_if: None,
    },
];

/// The rule files of the agent `id`, when it has path-scoped rules.
pub fn rules(id: AgentId) -> Option<&'static RuleFiles> {
    RULES.iter().find(|r| r.id == id)
}
