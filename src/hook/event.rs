//! Each agent's post-edit hook event, typed, and what the hook needs from it:
//! the files the edit wrote and the folders that say where the project is.
//!
//! | agent | event | files |
//! | --- | --- | --- |
//! | Claude Code | `PostToolUse`, tools `Write`/`Edit`/`MultiEdit` | `tool_input.file_path` |
//! | Codex CLI | `PostToolUse`, tool `apply_patch` | the patch headers in `tool_input.command` (a string or an argv array), `.patch` or `.input` |
//! | Cursor | `afterFileEdit` | top-level `file_path`; `workspace_roots[]` |
//! | Gemini CLI | `AfterTool`, tools `write_file`/`replace` | `tool_input.file_path` |
//! | VS Code | `PostToolUse` (camelCase `hookEventName`), the editing tools | `tool_input.filePath`, `files[]`, `replacements[].filePath`, an `apply_patch` `input` |
//! | Windsurf | `post_write_code` | `tool_info.file_path` |
//! | opencode | the notarai plugin's `{"tool", "args", "cwd"}` | `args.filePath`, `args.patchText` |
//!
//! Recognising the format when `--agent` is not given ([`detect`]) looks at
//! fields only one agent sends; anything else is read as Claude Code's.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::patch;

/// The agent whose event is read: notarai's one list of agents (`--agent`
/// takes the same names as `init --agents`). Zed has no hooks; an event
/// given as Zed's is recognised from its fields.
pub use crate::agent::AgentId as HookAgent;

/// What an edit event says: the files written and where they are relative to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edit {
    /// The session's folder, absolute (`cwd`), when the event gives one.
    pub cwd: Option<PathBuf>,
    /// The written files as the event names them (absolute or relative).
    pub files: Vec<String>,
}

/// An event the hook reads, or why it does not.
pub type Parsed = Result<Edit, &'static str>;

/// Recognise the agent from fields only it sends; Claude Code's format
/// otherwise. Windsurf: `agent_action_name` or `tool_info`. Cursor:
/// `hook_event_name` `afterFileEdit`, or `workspace_roots` with a top-level
/// `file_path`. VS Code: the camelCase `hookEventName`. Gemini:
/// `hook_event_name` `AfterTool`. opencode: `hook_event_name`
/// `tool.execute.after`, or `tool` and `args` without `tool_name`. Codex:
/// `tool_name` `apply_patch` or a `turn_id`.
pub fn detect(event: &Value) -> HookAgent {
    let has = |key: &str| event.get(key).is_some();
    let event_name = event.get("hook_event_name").and_then(Value::as_str);
    if has("agent_action_name") || has("tool_info") {
        HookAgent::Windsurf
    } else if event_name == Some("afterFileEdit") || (has("workspace_roots") && has("file_path")) {
        HookAgent::Cursor
    } else if has("hookEventName") {
        HookAgent::Vscode
    } else if event_name == Some("AfterTool") {
        HookAgent::Gemini
    } else if event_name == Some("tool.execute.after") {
        HookAgent::Opencode
    } else if event.get("tool_name").and_then(Value::as_str) == Some("apply_patch")
        || has("turn_id")
    {
        HookAgent::Codex
    } else if has("tool") && has("args") && !has("tool_name") {
        HookAgent::Opencode
    } else {
        HookAgent::Claude
    }
}

/// The agent whose format the event is read in: `--agent` when given, except
/// that VS Code runs the hooks of `.claude/settings.json` with its own event
/// (camelCase `hookEventName`), so a `--agent claude` hook seeing one reads it
/// as VS Code's; without `--agent`, [`detect`].
pub fn agent_for(requested: Option<HookAgent>, event: &Value) -> HookAgent {
    match requested {
        Some(HookAgent::Claude) if event.get("hookEventName").is_some() => HookAgent::Vscode,
        Some(HookAgent::Zed) | None => detect(event),
        Some(agent) => agent,
    }
}

/// Read `event` in `agent`'s format.
pub fn parse(agent: HookAgent, event: &Value) -> Parsed {
    match agent {
        // Zed has no hook events: read as Claude Code's, the common format.
        HookAgent::Claude | HookAgent::Zed => {
            read::<FilePathEvent>(event)?.edit("PostToolUse", &["Write", "Edit", "MultiEdit"])
        }
        HookAgent::Codex => read::<CodexEvent>(event)?.edit(),
        HookAgent::Cursor => read::<CursorEvent>(event)?.edit(),
        HookAgent::Gemini => {
            read::<FilePathEvent>(event)?.edit("AfterTool", &["write_file", "replace"])
        }
        HookAgent::Vscode => read::<VscodeEvent>(event)?.edit(),
        HookAgent::Opencode => read::<OpencodeEvent>(event)?.edit(),
        HookAgent::Windsurf => read::<WindsurfEvent>(event)?.edit(),
    }
}

/// What a pre-edit event says: the files about to be written, where they
/// are relative to, and the session, when the agent names it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PreEdit {
    /// The files and the session's folder.
    pub edit: Edit,
    /// The agent's session id, when the event carries one.
    pub session: Option<String>,
}

/// Read a pre-edit event in `agent`'s format: Claude Code's `PreToolUse`
/// for `Write`/`Edit`/`MultiEdit` (`session_id`), and VS Code's
/// `PreToolUse` (it runs the hooks of `.claude/settings.json` with its own
/// event; `sessionId`). No other agent's hooks can put text before the
/// model ahead of an edit, so their events are refused.
pub fn parse_pre_edit(agent: HookAgent, event: &Value) -> Result<PreEdit, &'static str> {
    match agent {
        HookAgent::Claude | HookAgent::Zed => {
            let e = read::<FilePathEvent>(event)?;
            let session = e.session_id.clone();
            Ok(PreEdit {
                edit: e.edit("PreToolUse", &["Write", "Edit", "MultiEdit"])?,
                session,
            })
        }
        HookAgent::Vscode => {
            let e = read::<VscodeEvent>(event)?;
            let session = e.session_id.clone();
            Ok(PreEdit {
                edit: e.edit_at("PreToolUse")?,
                session,
            })
        }
        _ => Err("this agent's hooks cannot put text before the model ahead of an edit"),
    }
}

fn read<'a, T: Deserialize<'a>>(event: &'a Value) -> Result<T, &'static str> {
    T::deserialize(event).map_err(|_| "the event does not have the agent's fields")
}

/// An absolute folder from an optional string, `None` when empty or relative.
fn absolute(path: Option<&str>) -> Option<PathBuf> {
    path.map(PathBuf::from).filter(|p| p.is_absolute())
}

/// `Ok` when the event's name is absent or `expected`.
fn event_is(name: Option<&str>, expected: &str) -> Result<(), &'static str> {
    match name {
        Some(name) if name != expected => Err("another hook event"),
        _ => Ok(()),
    }
}

/// `Ok` when the tool is one of `tools` (a missing tool name passes).
fn tool_is(name: Option<&str>, tools: &[&str]) -> Result<(), &'static str> {
    match name {
        Some(name) if !tools.contains(&name) => Err("a tool that does not write files"),
        _ => Ok(()),
    }
}

/// The non-empty paths, each once in the order first named (linear: a
/// multi-file event may name thousands), or why there is none.
fn files(paths: impl IntoIterator<Item = String>) -> Result<Vec<String>, &'static str> {
    let mut seen = std::collections::HashSet::new();
    let out: Vec<String> = paths
        .into_iter()
        .filter(|p| !p.is_empty() && seen.insert(p.clone()))
        .collect();
    if out.is_empty() {
        Err("the event names no file")
    } else {
        Ok(out)
    }
}

/// A `tool_input`/`args` field holding one path.
#[derive(Debug, Deserialize)]
struct FilePathInput {
    file_path: Option<String>,
}

/// The event of Claude Code (`PostToolUse`) and of Gemini CLI (`AfterTool`):
/// the same fields, the edited file at `tool_input.file_path`; they differ
/// only in the event's name and the editing tools' names.
#[derive(Debug, Deserialize)]
struct FilePathEvent {
    hook_event_name: Option<String>,
    session_id: Option<String>,
    tool_name: Option<String>,
    cwd: Option<String>,
    tool_input: FilePathInput,
}

impl FilePathEvent {
    fn edit(self, event: &str, tools: &[&str]) -> Parsed {
        event_is(self.hook_event_name.as_deref(), event)?;
        tool_is(self.tool_name.as_deref(), tools)?;
        Ok(Edit {
            cwd: absolute(self.cwd.as_deref()),
            files: files(self.tool_input.file_path)?,
        })
    }
}

/// Codex's `apply_patch` input: the patch is in `command` (a string, or an
/// argv array such as `["apply_patch", "<patch>"]`), `patch` or `input`.
#[derive(Debug, Deserialize)]
struct CodexInput {
    command: Option<StringOrList>,
    patch: Option<String>,
    input: Option<String>,
}

/// A string or a list of strings.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum StringOrList {
    One(String),
    Many(Vec<String>),
}

/// Codex's `PostToolUse` event.
#[derive(Debug, Deserialize)]
struct CodexEvent {
    hook_event_name: Option<String>,
    tool_name: String,
    cwd: Option<String>,
    tool_input: CodexInput,
}

impl CodexEvent {
    fn edit(self) -> Parsed {
        event_is(self.hook_event_name.as_deref(), "PostToolUse")?;
        tool_is(Some(&self.tool_name), &["apply_patch"])?;
        let mut texts: Vec<String> = match self.tool_input.command {
            Some(StringOrList::One(text)) => vec![text],
            Some(StringOrList::Many(argv)) => argv,
            None => Vec::new(),
        };
        texts.extend(self.tool_input.patch);
        texts.extend(self.tool_input.input);
        Ok(Edit {
            cwd: absolute(self.cwd.as_deref()),
            files: files(patched(&texts))?,
        })
    }
}

/// The written paths of every patch among `texts`, without duplicates.
fn patched(texts: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for path in texts.iter().flat_map(|t| patch::written_paths(t)) {
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// Cursor's `afterFileEdit` event.
#[derive(Debug, Deserialize)]
struct CursorEvent {
    hook_event_name: Option<String>,
    file_path: String,
    #[serde(default)]
    workspace_roots: Vec<String>,
}

impl CursorEvent {
    fn edit(self) -> Parsed {
        event_is(self.hook_event_name.as_deref(), "afterFileEdit")?;
        let roots: Vec<PathBuf> = self
            .workspace_roots
            .iter()
            .filter_map(|r| absolute(Some(r)))
            .collect();
        // The session's folder is the workspace root holding the file, else
        // the first one.
        let file = Path::new(&self.file_path);
        let cwd = roots
            .iter()
            .find(|r| file.starts_with(r))
            .or(roots.first())
            .cloned();
        Ok(Edit {
            cwd,
            files: files(Some(self.file_path))?,
        })
    }
}

/// VS Code's editing tools (it runs a hook for every tool, matchers or not).
const VSCODE_EDIT_TOOLS: &[&str] = &[
    "editFiles",
    "create_file",
    "replace_string_in_file",
    "multi_replace_string_in_file",
    "insert_edit_into_file",
    "apply_patch",
    "edit_file",
];

/// One entry of VS Code's `files[]`: a path, or an object holding one.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum VscodeFile {
    Path(String),
    Object {
        #[serde(rename = "filePath", alias = "path")]
        file_path: String,
    },
}

/// One replacement of `multi_replace_string_in_file`.
#[derive(Debug, Deserialize)]
struct VscodeReplacement {
    #[serde(rename = "filePath")]
    file_path: Option<String>,
}

/// VS Code's `tool_input` (camelCase).
#[derive(Debug, Deserialize)]
struct VscodeInput {
    #[serde(rename = "filePath", alias = "file_path")]
    file_path: Option<String>,
    #[serde(default)]
    files: Vec<VscodeFile>,
    #[serde(default)]
    replacements: Vec<VscodeReplacement>,
    /// `apply_patch`'s patch text.
    input: Option<String>,
}

/// VS Code's `PostToolUse` event.
#[derive(Debug, Deserialize)]
struct VscodeEvent {
    #[serde(rename = "hookEventName")]
    hook_event_name: Option<String>,
    #[serde(rename = "sessionId", alias = "session_id")]
    session_id: Option<String>,
    tool_name: Option<String>,
    cwd: Option<String>,
    tool_input: VscodeInput,
}

impl VscodeEvent {
    fn edit(self) -> Parsed {
        self.edit_at("PostToolUse")
    }

    fn edit_at(self, event: &str) -> Parsed {
        event_is(self.hook_event_name.as_deref(), event)?;
        let Some(tool) = self.tool_name.as_deref() else {
            return Err("no tool_name");
        };
        tool_is(Some(tool), VSCODE_EDIT_TOOLS)?;
        let input = self.tool_input;
        let mut paths: Vec<String> = input.file_path.into_iter().collect();
        paths.extend(input.files.into_iter().map(|f| match f {
            VscodeFile::Path(p) | VscodeFile::Object { file_path: p } => p,
        }));
        paths.extend(input.replacements.into_iter().filter_map(|r| r.file_path));
        paths.extend(patched(&input.input.into_iter().collect::<Vec<_>>()));
        Ok(Edit {
            cwd: absolute(self.cwd.as_deref()),
            files: files(paths)?,
        })
    }
}

/// opencode's tools that write files.
const OPENCODE_EDIT_TOOLS: &[&str] = &["write", "edit", "multiedit", "patch", "apply_patch"];

/// The `args` of an opencode tool call.
#[derive(Debug, Deserialize)]
struct OpencodeArgs {
    #[serde(rename = "filePath")]
    file_path: Option<String>,
    #[serde(rename = "patchText")]
    patch_text: Option<String>,
}

/// What the notarai opencode plugin sends: `{"tool", "args", "cwd"}`, or
/// the same in Claude-like names, `{"hook_event_name": "tool.execute.after",
/// "tool_name", "tool_input", "cwd"}` (docs/hooks.md).
#[derive(Debug, Deserialize)]
struct OpencodeEvent {
    hook_event_name: Option<String>,
    #[serde(alias = "tool_name")]
    tool: String,
    #[serde(alias = "tool_input")]
    args: OpencodeArgs,
    cwd: Option<String>,
}

impl OpencodeEvent {
    fn edit(self) -> Parsed {
        event_is(self.hook_event_name.as_deref(), "tool.execute.after")?;
        tool_is(Some(&self.tool), OPENCODE_EDIT_TOOLS)?;
        let paths = self.args.file_path.into_iter().chain(patched(
            &self.args.patch_text.into_iter().collect::<Vec<_>>(),
        ));
        Ok(Edit {
            cwd: absolute(self.cwd.as_deref()),
            files: files(paths)?,
        })
    }
}

/// Windsurf's `tool_info`.
#[derive(Debug, Deserialize)]
struct WindsurfToolInfo {
    file_path: Option<String>,
}

/// Windsurf's `post_write_code` event.
#[derive(Debug, Deserialize)]
struct WindsurfEvent {
    agent_action_name: Option<String>,
    tool_info: WindsurfToolInfo,
}

impl WindsurfEvent {
    fn edit(self) -> Parsed {
        event_is(self.agent_action_name.as_deref(), "post_write_code")?;
        Ok(Edit {
            cwd: None,
            files: files(self.tool_info.file_path)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn files_of(agent: Option<HookAgent>, event: Value) -> Parsed {
        parse(agent_for(agent, &event), &event).map(|e| Edit { cwd: None, ..e })
    }

    #[test]
    fn detects_each_agent_from_its_fields() {
        let cases = [
            (
                json!({"tool_name": "Edit", "tool_input": {"file_path": "a"}}),
                HookAgent::Claude,
            ),
            (
                json!({"tool_name": "apply_patch", "tool_input": {"command": "x"}}),
                HookAgent::Codex,
            ),
            (
                json!({"hook_event_name": "afterFileEdit", "file_path": "a"}),
                HookAgent::Cursor,
            ),
            (
                json!({"hook_event_name": "AfterTool", "tool_name": "write_file"}),
                HookAgent::Gemini,
            ),
            (
                json!({"hookEventName": "PostToolUse", "tool_name": "editFiles"}),
                HookAgent::Vscode,
            ),
            (
                json!({"tool": "edit", "args": {"filePath": "a"}}),
                HookAgent::Opencode,
            ),
            (
                json!({"agent_action_name": "post_write_code", "tool_info": {}}),
                HookAgent::Windsurf,
            ),
        ];
        for (event, agent) in cases {
            assert_eq!(detect(&event), agent, "{event}");
        }
    }

    #[test]
    fn a_claude_hook_seeing_a_vscode_event_reads_it_as_vscode() {
        let event = json!({"hookEventName": "PostToolUse", "tool_name": "read_file",
                           "tool_input": {"filePath": ".notarai/a.spec.yaml"}});
        assert_eq!(
            agent_for(Some(HookAgent::Claude), &event),
            HookAgent::Vscode
        );
        assert!(files_of(Some(HookAgent::Claude), event).is_err());
        let codex = json!({"tool_name": "apply_patch"});
        assert_eq!(
            agent_for(Some(HookAgent::Claude), &codex),
            HookAgent::Claude
        );
    }

    #[test]
    fn codex_reads_the_patch_from_command_argv_or_patch() {
        let patch = "*** Begin Patch\n*** Update File: .notarai/a.spec.yaml\n@@\n-a\n+b\n*** Add File: src/x.rs\n+x\n*** End Patch\n";
        for input in [
            json!({"command": patch}),
            json!({"command": ["apply_patch", patch]}),
            json!({"patch": patch}),
        ] {
            let edit = files_of(
                Some(HookAgent::Codex),
                json!({"hook_event_name": "PostToolUse", "tool_name": "apply_patch", "tool_input": input}),
            )
            .unwrap();
            assert_eq!(edit.files, vec![".notarai/a.spec.yaml", "src/x.rs"]);
        }
        // No file_path is read from a Codex event, and other tools are ignored.
        assert!(
            files_of(
                Some(HookAgent::Codex),
                json!({"tool_name": "shell", "tool_input": {"command": patch}})
            )
            .is_err()
        );
    }

    #[test]
    fn vscode_reads_camel_case_and_lists_and_skips_other_tools() {
        let edit = files_of(
            None,
            json!({"hookEventName": "PostToolUse", "tool_name": "editFiles",
                   "tool_input": {"files": ["a.rs", {"filePath": "b.rs"}, "a.rs"]}}),
        )
        .unwrap();
        assert_eq!(edit.files, vec!["a.rs", "b.rs"]);
        let edit = files_of(
            None,
            json!({"hookEventName": "PostToolUse", "tool_name": "multi_replace_string_in_file",
                   "tool_input": {"replacements": [{"filePath": "x"}, {"filePath": "y"}]}}),
        )
        .unwrap();
        assert_eq!(edit.files, vec!["x", "y"]);
        assert!(
            files_of(
                None,
                json!({"hookEventName": "PostToolUse", "tool_name": "run_in_terminal",
                   "tool_input": {"command": "ls"}})
            )
            .is_err()
        );
    }

    #[test]
    fn cursor_takes_the_workspace_root_holding_the_file() {
        let event = json!({"hook_event_name": "afterFileEdit", "file_path": "/b/x.spec.yaml",
                           "workspace_roots": ["/a", "/b"]});
        let edit = parse(detect(&event), &event).unwrap();
        assert_eq!(edit.cwd.as_deref(), Some(Path::new("/b")));
        assert_eq!(edit.files, vec!["/b/x.spec.yaml"]);
    }

    #[test]
    fn other_events_and_tools_are_not_read() {
        for (agent, event) in [
            (
                HookAgent::Claude,
                json!({"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": {"file_path": "a"}}),
            ),
            (
                HookAgent::Claude,
                json!({"tool_name": "Read", "tool_input": {"file_path": "a"}}),
            ),
            (
                HookAgent::Gemini,
                json!({"hook_event_name": "AfterTool", "tool_name": "read_file", "tool_input": {"file_path": "a"}}),
            ),
            (
                HookAgent::Cursor,
                json!({"hook_event_name": "beforeReadFile", "file_path": "a"}),
            ),
            (
                HookAgent::Windsurf,
                json!({"agent_action_name": "pre_write_code", "tool_info": {"file_path": "a"}}),
            ),
            (
                HookAgent::Opencode,
                json!({"tool": "read", "args": {"filePath": "a"}}),
            ),
        ] {
            assert!(parse(agent, &event).is_err(), "{event}");
        }
    }
}
