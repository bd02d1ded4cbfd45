//! Each agent's hook events, read as the agents table says
//! ([`crate::agent::hooks::HOOKS`]: per agent, the shapes of its post-edit
//! and pre-edit events, the field names, the editing tools, how the files
//! are read and the channel of the answer): what the hook needs from an
//! event, the files the edit writes and the folders that say where the
//! project is.
//!
//! The readers ([`Reader`]) are typed here, one per shape of tool input:
//!
//! | reader | files |
//! | --- | --- |
//! | `ToolInputFilePath` (Claude Code, Gemini CLI, Cursor `preToolUse`) | `tool_input.file_path` |
//! | `Patch` (Codex `apply_patch`) | the patch headers in `tool_input.command` (a string or an argv array), `.patch` or `.input` |
//! | `TopLevelFilePath` (Cursor `afterFileEdit`) | top-level `file_path`; `workspace_roots[]` |
//! | `VscodeInput` (VS Code Local) | `tool_input.filePath`, `files[]`, `replacements[].filePath`, an `apply_patch` `input` |
//! | `CopilotArgs` (the Copilot format) | `toolArgs` (an object or a JSON string): `path`, `filePath`, `file_path`, a patch in `input`/`patch` |
//! | `ToolInfo` (Windsurf) | `tool_info.file_path` |
//! | `PluginArgs` (notarai's opencode plugin) | `args.filePath`, `args.patchText` |
//! | `ToolCallArgs` (Antigravity CLI) | `toolCall.args`: `TargetFile`, `AbsolutePath`, `FilePath`, `Path` (the key is unconfirmed); `workspacePaths[]` |
//!
//! Recognising the format when `--agent` is not given
//! ([`crate::agent::hooks::recognise`]) looks at fields only one agent
//! sends; anything else is read in the common format (Claude Code's).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::agent::hooks::{self, AgentHooks};
pub use crate::agent::hooks::{Channel, Event, Reader};

use super::{bounded, patch};

/// The agent whose event is read: notarai's one list of agents (`--agent`
/// takes the same names as `init --agents`). An event given as that of an
/// agent without hooks (Zed) is recognised from its fields.
pub use crate::agent::AgentId as HookAgent;

/// What an edit event says: the files written and where they are relative to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edit {
    /// The session's folder, absolute (`cwd`, else the workspace root
    /// holding the file), when the event gives one.
    pub cwd: Option<PathBuf>,
    /// The written files as the event names them (absolute or relative).
    pub files: Vec<String>,
}

/// An event the hook reads, or why it does not.
#[cfg(test)]
pub type Parsed = Result<Edit, &'static str>;

/// Which of an agent's events: after an edit or before one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// After the edit (`notarai hook validate`).
    PostEdit,
    /// Before the edit (`notarai hook context`).
    PreEdit,
}

/// An event read: its shape (the channel its answer takes), the edit, the
/// session when the event names one.
#[derive(Debug, Clone)]
pub struct Read {
    /// The shape it was read as.
    pub event: &'static Event,
    /// The files and the session's folder.
    pub edit: Edit,
    /// The agent's session id, when the event carries one.
    pub session: Option<String>,
}

/// The agent whose event this is, from fields only it sends
/// ([`hooks::recognise`]).
#[cfg(test)]
pub fn detect(event: &Value) -> HookAgent {
    hooks::recognise(event)
}

/// The agent whose format the event is read in ([`hooks::reader_for`]):
/// `--agent` when given, except for an event of an agent that runs the
/// requested agent's hooks (VS Code runs `.claude/settings.json`'s) or a
/// requested agent without hooks; without `--agent`, [`hooks::recognise`].
pub fn agent_for(requested: Option<HookAgent>, event: &Value) -> HookAgent {
    hooks::reader_for(requested, event)
}

/// Read `event` as `agent`'s post-edit event.
#[cfg(test)]
pub fn parse(agent: HookAgent, event: &Value) -> Parsed {
    read(agent, Moment::PostEdit, event).map(|r| r.edit)
}

/// Read `event` as `agent`'s event of `moment`, in the shape it has among
/// the agent's shapes ([`AgentHooks::shape`]): its name and tool checked
/// against the table, its files read by the shape's [`Reader`].
pub fn read(agent: HookAgent, moment: Moment, event: &Value) -> Result<Read, &'static str> {
    let row = hooks::hooks(agent);
    let shapes = match moment {
        Moment::PostEdit => row.post_edit,
        Moment::PreEdit => row.pre_edit,
    };
    let shape = AgentHooks::shape(shapes, event).ok_or(match moment {
        Moment::PostEdit => "this agent has no post-edit hook",
        Moment::PreEdit => "this agent's hooks cannot put text before the model ahead of an edit",
    })?;
    event_is(text(event, shape.name_field), shape.name)?;
    if !shape.tools.is_empty() {
        let tool = text(event, shape.tool_field).or_else(|| text(event, "tool_name"));
        tool_is(tool, shape.tools)?;
    }
    let paths = read_files(shape.reader, event)?;
    let files = files(paths)?;
    Ok(Read {
        event: shape,
        edit: Edit {
            cwd: folder(event, &files),
            files,
        },
        session: text(event, shape.session_field)
            .filter(|s| !s.is_empty())
            .map(str::to_string),
    })
}

/// The string at `key`, `None` when `key` is empty or the value is not one.
pub(super) fn text<'a>(event: &'a Value, key: &str) -> Option<&'a str> {
    if key.is_empty() {
        return None;
    }
    hooks::field(event, key).and_then(Value::as_str)
}

/// The session's folder: `cwd` when absolute, else the workspace root
/// holding the first file, else the first workspace root (Cursor's
/// `workspace_roots`, Antigravity's `workspacePaths`).
fn folder(event: &Value, files: &[String]) -> Option<PathBuf> {
    if let Some(cwd) = absolute(text(event, "cwd")) {
        return Some(cwd);
    }
    let roots: Vec<PathBuf> = ["workspace_roots", "workspacePaths"]
        .iter()
        .find_map(|k| event.get(*k))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| absolute(r.as_str()))
        .collect();
    let file = files.first().map(Path::new);
    roots
        .iter()
        .find(|r| file.is_some_and(|f| f.starts_with(r)))
        .or(roots.first())
        .cloned()
}

/// The value of the first of `keys` the event has, typed.
fn input<T: DeserializeOwned>(event: &Value, keys: &[&str]) -> Result<T, &'static str> {
    let value = keys
        .iter()
        .find_map(|k| event.get(*k))
        .ok_or("the event does not have the agent's fields")?;
    T::deserialize(value).map_err(|_| "the event does not have the agent's fields")
}

/// The paths an event names, read by `reader` (possibly with duplicates).
fn read_files(reader: Reader, event: &Value) -> Result<Vec<String>, &'static str> {
    Ok(match reader {
        Reader::ToolInputFilePath => input::<FilePathInput>(event, &["tool_input"])?
            .file_path
            .into_iter()
            .collect(),
        Reader::Patch => input::<CodexInput>(event, &["tool_input"])?.paths(),
        Reader::TopLevelFilePath => vec![
            text(event, "file_path")
                .ok_or("the event names no file")?
                .to_string(),
        ],
        Reader::VscodeInput => input::<VscodeInput>(event, &["tool_input"])?.paths(),
        Reader::CopilotArgs => copilot_args(event)?.paths(),
        Reader::ToolInfo => input::<FilePathInput>(event, &["tool_info"])?
            .file_path
            .into_iter()
            .collect(),
        Reader::PluginArgs => input::<OpencodeArgs>(event, &["args", "tool_input"])?.paths(),
        Reader::NoFiles => Vec::new(),
        Reader::ToolCallArgs => {
            let args = hooks::field(event, "toolCall.args")
                .ok_or("the event does not have the agent's fields")?;
            ToolCallArgs::deserialize(args)
                .map_err(|_| "the event does not have the agent's fields")?
                .paths()
        }
    })
}

/// An absolute folder from an optional string, `None` when empty or relative.
pub(super) fn absolute(path: Option<&str>) -> Option<PathBuf> {
    path.map(PathBuf::from).filter(|p| p.is_absolute())
}

/// `Ok` when the event's name is absent or `expected`.
pub(super) fn event_is(name: Option<&str>, expected: &str) -> Result<(), &'static str> {
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

/// A `tool_input`/`tool_info` holding one path.
#[derive(Debug, Deserialize)]
struct FilePathInput {
    file_path: Option<String>,
}

/// Codex's `apply_patch` input: the patch is in `command` (a string, or an
/// argv array such as `["apply_patch", "<patch>"]`), `patch` or `input`.
#[derive(Debug, Deserialize)]
struct CodexInput {
    command: Option<StringOrList>,
    patch: Option<String>,
    input: Option<String>,
}

impl CodexInput {
    fn paths(self) -> Vec<String> {
        let mut texts: Vec<String> = match self.command {
            Some(StringOrList::One(text)) => vec![text],
            Some(StringOrList::Many(argv)) => argv,
            None => Vec::new(),
        };
        texts.extend(self.patch);
        texts.extend(self.input);
        patched(&texts)
    }
}

/// A string or a list of strings.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum StringOrList {
    One(String),
    Many(Vec<String>),
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

impl VscodeInput {
    fn paths(self) -> Vec<String> {
        let mut paths: Vec<String> = self.file_path.into_iter().collect();
        paths.extend(self.files.into_iter().map(|f| match f {
            VscodeFile::Path(p) | VscodeFile::Object { file_path: p } => p,
        }));
        paths.extend(self.replacements.into_iter().filter_map(|r| r.file_path));
        paths.extend(patched(&self.input.into_iter().collect::<Vec<_>>()));
        paths
    }
}

/// The Copilot format's `toolArgs`: which key names the file is
/// unconfirmed, so each seen in the field is read.
#[derive(Debug, Deserialize)]
struct CopilotArgs {
    path: Option<String>,
    #[serde(rename = "filePath")]
    file_path_camel: Option<String>,
    file_path: Option<String>,
    /// `apply_patch`'s patch text.
    input: Option<String>,
    patch: Option<String>,
}

impl CopilotArgs {
    fn paths(self) -> Vec<String> {
        let mut paths: Vec<String> = [self.path, self.file_path_camel, self.file_path]
            .into_iter()
            .flatten()
            .collect();
        let texts: Vec<String> = self.input.into_iter().chain(self.patch).collect();
        paths.extend(patched(&texts));
        paths
    }
}

/// `toolArgs` as an object or a JSON string (parsed within the same bound
/// as the event), or `tool_input`/`toolInput`, which some hosts send.
fn copilot_args(event: &Value) -> Result<CopilotArgs, &'static str> {
    let value = ["toolArgs", "tool_input", "toolInput"]
        .iter()
        .find_map(|k| event.get(*k))
        .ok_or("the event does not have the agent's fields")?;
    let parsed;
    let value = match value {
        Value::String(json) => {
            parsed = bounded::parse(json.as_bytes()).ok_or("toolArgs is not JSON")?;
            &parsed
        }
        other => other,
    };
    CopilotArgs::deserialize(value).map_err(|_| "the event does not have the agent's fields")
}

/// Antigravity's `toolCall.args` (PascalCase): the key naming the file is
/// unconfirmed, so each a file tool is known to take is read.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ToolCallArgs {
    target_file: Option<String>,
    absolute_path: Option<String>,
    file_path: Option<String>,
    path: Option<String>,
}

impl ToolCallArgs {
    fn paths(self) -> Vec<String> {
        [
            self.target_file,
            self.absolute_path,
            self.file_path,
            self.path,
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

/// The `args` of an opencode tool call.
#[derive(Debug, Deserialize)]
struct OpencodeArgs {
    #[serde(rename = "filePath")]
    file_path: Option<String>,
    #[serde(rename = "patchText")]
    patch_text: Option<String>,
}

impl OpencodeArgs {
    fn paths(self) -> Vec<String> {
        self.file_path
            .into_iter()
            .chain(patched(&self.patch_text.into_iter().collect::<Vec<_>>()))
            .collect()
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
