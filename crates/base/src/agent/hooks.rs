//! What each agent's hooks send and take: the one table of per-agent hook
//! facts ([`HOOKS`]), read by the hook (which event it reads and how, the
//! channel its answer takes to the model) and by `init` (the event names it
//! registers the hook under). Below both, so neither names an agent.
//!
//! One agent may send more than one shape for the same moment: VS Code's
//! Local harness sends its own camelCase `hookEventName` event, its Copilot
//! harness (and Copilot CLI) the Copilot format (`toolName`, `toolArgs`).
//! A row lists every shape; the one whose tool field the event carries is
//! read ([`AgentHooks::shape`]). Detect the shape, never the file: an
//! agent also runs hooks registered for another ([`AgentHooks::run_by`]).

use serde_json::Value;

use super::AgentId;

/// How the files an event is about are read from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// `tool_input.file_path` (Claude Code, Gemini CLI, Cursor `preToolUse`);
    /// the folder is `cwd`, else the workspace root holding the file.
    ToolInputFilePath,
    /// The headers of a Codex patch in `tool_input.command` (a string or an
    /// argv array), `.patch` or `.input`.
    Patch,
    /// A top-level `file_path` and `workspace_roots[]` (Cursor `afterFileEdit`).
    TopLevelFilePath,
    /// VS Code's camelCase `tool_input`: `filePath`, `files[]`,
    /// `replacements[].filePath`, an `apply_patch` `input`.
    VscodeInput,
    /// The Copilot format's `toolArgs`, an object or a JSON string, with the
    /// file under `path`, `filePath` or `file_path` (the key is unconfirmed:
    /// each is read), or a patch under `input`/`patch`.
    CopilotArgs,
    /// Windsurf's `tool_info.file_path`.
    ToolInfo,
    /// What notarai's opencode plugin sends: `args.filePath`, `args.patchText`.
    PluginArgs,
    /// Antigravity's `toolCall.args`, PascalCase; which key names the
    /// edited file is unconfirmed, so each a file tool is known to take is
    /// read (`TargetFile`, `AbsolutePath`, `FilePath`, `Path`).
    ToolCallArgs,
    /// The event names no file (a stop event: the turn ends).
    NoFiles,
}

/// How an answer reaches the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// Exit 2, the text on stderr (Claude Code, Codex, Gemini CLI, VS Code
    /// Local, the opencode plugin).
    ExitTwo,
    /// Exit 0, stdout `{"hookSpecificOutput": {"hookEventName": <event>,
    /// "additionalContext": <text>}}` (Claude Code, Codex, VS Code Local).
    HookSpecific,
    /// Exit 0, stdout `{"additionalContext": <text>}` (the Copilot format).
    Flat,
    /// Exit 0, stdout `{"additional_context": <text>}` (Cursor), the text
    /// also on stderr.
    FlatSnake,
    /// Exit 0, the text on stderr only, which the user sees (Windsurf: no
    /// channel to the model is documented).
    UserOnly,
}

/// One event shape an agent sends to a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    /// The event's name as registered in the hook file and, when the event
    /// carries it, sent in [`Event::name_field`].
    pub name: &'static str,
    /// The field naming the event (`hook_event_name`, `hookEventName`), or
    /// `""` when the shape carries none. An event naming another is not read.
    pub name_field: &'static str,
    /// The field naming the tool (`tool_name`, `toolName`, `tool`), or `""`
    /// when the event is about edits only. When set, an event carrying it
    /// is of this shape.
    pub tool_field: &'static str,
    /// The tools that write files; an event of another tool is not read.
    /// Empty: any (the event is about edits only).
    pub tools: &'static [&'static str],
    /// How its files are read.
    pub reader: Reader,
    /// The field naming the session, or `""`.
    pub session_field: &'static str,
    /// The channel an answer to it takes.
    pub channel: Channel,
}

/// A stop event that takes context: the turn ends, and an answer may put
/// text before the model without blocking (`notarai hook stop`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopEvent {
    /// The event's shape; its reader is [`Reader::NoFiles`].
    pub event: Event,
    /// The field the agent sets when the turn goes on because a stop hook
    /// answered (`stop_hook_active`): the hook is silent then, so it can
    /// never keep the agent in a loop.
    pub active_field: &'static str,
}

/// A fact an event shows about the agent that sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sign {
    /// The event has this field.
    Has(&'static str),
    /// The event lacks this field.
    Lacks(&'static str),
    /// The field is this string.
    Is(&'static str, &'static str),
}

impl Sign {
    fn holds(self, event: &Value) -> bool {
        match self {
            Sign::Has(key) => event.get(key).is_some(),
            Sign::Lacks(key) => event.get(key).is_none(),
            Sign::Is(key, value) => event.get(key).and_then(Value::as_str) == Some(value),
        }
    }
}

/// One agent's hooks.
#[derive(Debug)]
pub struct AgentHooks {
    /// Which agent.
    pub id: AgentId,
    /// The shapes of its post-edit event (`notarai hook validate`), first
    /// the one `init` registers.
    pub post_edit: &'static [Event],
    /// The shapes of its pre-edit event that take context
    /// (`notarai hook context`); empty when none can.
    pub pre_edit: &'static [Event],
    /// The shapes of its stop event that take context without blocking
    /// (`notarai hook stop`); empty when the agent's end of turn can only
    /// block, or takes nothing.
    pub stop: &'static [StopEvent],
    /// Recognising its events when `--agent` is not given: any of these
    /// sets of signs, each holding whole.
    pub signs: &'static [&'static [Sign]],
    /// Agents that run hooks registered for this one, with their own events
    /// (VS Code runs `.claude/settings.json`'s hooks): an event recognised
    /// as theirs is read as theirs.
    pub run_by: &'static [AgentId],
}

impl AgentHooks {
    /// The shape of `event` among `shapes`: the first whose tool field the
    /// event carries, else the first without one, else the first.
    pub fn shape(shapes: &'static [Event], event: &Value) -> Option<&'static Event> {
        shapes
            .iter()
            .find(|s| !s.tool_field.is_empty() && field(event, s.tool_field).is_some())
            .or_else(|| shapes.iter().find(|s| s.tool_field.is_empty()))
            .or_else(|| shapes.first())
    }
}

/// The value at `path` (keys joined by `.`: `toolCall.name`).
pub fn field<'a>(event: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(event, |value, key| value.get(key))
}

/// Claude Code's tools that write files.
const CLAUDE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit"];

/// VS Code's editing tools (the Local harness runs a hook for every tool,
/// matchers or not).
const VSCODE_TOOLS: &[&str] = &[
    "editFiles",
    "create_file",
    "replace_string_in_file",
    "multi_replace_string_in_file",
    "insert_edit_into_file",
    "apply_patch",
    "edit_file",
];

/// The Copilot format's editing tools (`edit`, `create`; the runtime's
/// `str_replace_editor` and `apply_patch` map to them).
const COPILOT_TOOLS: &[&str] = &["edit", "create", "str_replace_editor", "apply_patch"];

/// A Claude-style event: `hook_event_name`, `tool_name`, `session_id`.
const fn claude_style(
    name: &'static str,
    tools: &'static [&'static str],
    reader: Reader,
    channel: Channel,
) -> Event {
    Event {
        name,
        name_field: "hook_event_name",
        tool_field: "tool_name",
        tools,
        reader,
        session_field: "session_id",
        channel,
    }
}

/// VS Code Local's event: camelCase `hookEventName` and `sessionId`.
const fn vscode_local(name: &'static str, channel: Channel) -> Event {
    Event {
        name,
        name_field: "hookEventName",
        tool_field: "tool_name",
        tools: VSCODE_TOOLS,
        reader: Reader::VscodeInput,
        session_field: "sessionId",
        channel,
    }
}

/// The Copilot format's event (VS Code's Copilot harness, Copilot CLI):
/// no event name in the payload, `toolName`, `toolArgs`, `sessionId`.
const fn copilot(name: &'static str) -> Event {
    Event {
        name,
        name_field: "",
        tool_field: "toolName",
        tools: COPILOT_TOOLS,
        reader: Reader::CopilotArgs,
        session_field: "sessionId",
        channel: Channel::Flat,
    }
}

/// Claude Code: `PostToolUse` and `PreToolUse` in `.claude/settings.json`; VS Code runs these hooks with its own events.
pub const CLAUDE: AgentHooks = AgentHooks {
    id: AgentId::Claude,
    post_edit: &[claude_style(
        "PostToolUse",
        CLAUDE_TOOLS,
        Reader::ToolInputFilePath,
        Channel::ExitTwo,
    )],
    pre_edit: &[claude_style(
        "PreToolUse",
        CLAUDE_TOOLS,
        Reader::ToolInputFilePath,
        Channel::HookSpecific,
    )],
    // `hookSpecificOutput.additionalContext` on `Stop` (2.1.163): the turn
    // goes on without a "hook error" label; `decision: block` is not used.
    stop: &[StopEvent {
        event: Event {
            name: "Stop",
            name_field: "hook_event_name",
            tool_field: "",
            tools: &[],
            reader: Reader::NoFiles,
            session_field: "session_id",
            channel: Channel::HookSpecific,
        },
        active_field: "stop_hook_active",
    }],
    signs: &[],
    run_by: &[AgentId::Vscode],
};

/// Codex CLI: `apply_patch` fires `PostToolUse` and `PreToolUse`; the files are in the patch.
pub const CODEX: AgentHooks = AgentHooks {
    id: AgentId::Codex,
    post_edit: &[claude_style(
        "PostToolUse",
        &["apply_patch"],
        Reader::Patch,
        Channel::ExitTwo,
    )],
    pre_edit: &[claude_style(
        "PreToolUse",
        &["apply_patch"],
        Reader::Patch,
        Channel::HookSpecific,
    )],
    stop: &[],
    signs: &[
        &[Sign::Is("tool_name", "apply_patch")],
        &[Sign::Has("turn_id")],
    ],
    run_by: &[],
};

/// Cursor: `afterFileEdit` (observe-only) and `preToolUse` (`additional_context`, unconfirmed).
pub const CURSOR: AgentHooks = AgentHooks {
    id: AgentId::Cursor,
    post_edit: &[Event {
        name: "afterFileEdit",
        name_field: "hook_event_name",
        tool_field: "",
        tools: &[],
        reader: Reader::TopLevelFilePath,
        session_field: "conversation_id",
        channel: Channel::FlatSnake,
    }],
    pre_edit: &[Event {
        name: "preToolUse",
        name_field: "hook_event_name",
        tool_field: "tool_name",
        tools: &["Write"],
        reader: Reader::ToolInputFilePath,
        session_field: "conversation_id",
        channel: Channel::FlatSnake,
    }],
    stop: &[],
    signs: &[
        &[Sign::Is("hook_event_name", "afterFileEdit")],
        &[Sign::Is("hook_event_name", "preToolUse")],
        &[Sign::Has("workspace_roots"), Sign::Has("file_path")],
        &[Sign::Has("workspace_roots"), Sign::Has("conversation_id")],
    ],
    run_by: &[],
};

/// Gemini CLI: `AfterTool`; `BeforeTool` takes no context.
pub const GEMINI: AgentHooks = AgentHooks {
    id: AgentId::Gemini,
    post_edit: &[claude_style(
        "AfterTool",
        &["write_file", "replace"],
        Reader::ToolInputFilePath,
        Channel::ExitTwo,
    )],
    pre_edit: &[],
    stop: &[],
    signs: &[&[Sign::Is("hook_event_name", "AfterTool")]],
    run_by: &[],
};

/// VS Code: the Local harness's camelCase events and the Copilot format (its Copilot harness, Copilot CLI).
pub const VSCODE: AgentHooks = AgentHooks {
    id: AgentId::Vscode,
    post_edit: &[
        copilot("postToolUse"),
        vscode_local("PostToolUse", Channel::ExitTwo),
    ],
    pre_edit: &[
        copilot("preToolUse"),
        vscode_local("PreToolUse", Channel::HookSpecific),
    ],
    stop: &[],
    signs: &[&[Sign::Has("hookEventName")], &[Sign::Has("toolName")]],
    run_by: &[],
};

/// opencode: what notarai's plugin sends after an edit; no pre-edit channel.
pub const OPENCODE: AgentHooks = AgentHooks {
    id: AgentId::Opencode,
    post_edit: &[Event {
        name: "tool.execute.after",
        name_field: "hook_event_name",
        tool_field: "tool",
        tools: &["write", "edit", "multiedit", "patch", "apply_patch"],
        reader: Reader::PluginArgs,
        session_field: "",
        channel: Channel::ExitTwo,
    }],
    pre_edit: &[],
    stop: &[],
    signs: &[
        &[Sign::Is("hook_event_name", "tool.execute.after")],
        &[
            Sign::Has("tool"),
            Sign::Has("args"),
            Sign::Lacks("tool_name"),
        ],
    ],
    run_by: &[],
};

/// Zed: no hooks.
pub const ZED: AgentHooks = AgentHooks {
    id: AgentId::Zed,
    post_edit: &[],
    pre_edit: &[],
    stop: &[],
    signs: &[],
    run_by: &[],
};

/// Windsurf: `post_write_code`, whose output only the user sees; `pre_write_code` takes no context.
pub const WINDSURF: AgentHooks = AgentHooks {
    id: AgentId::Windsurf,
    post_edit: &[Event {
        name: "post_write_code",
        name_field: "agent_action_name",
        tool_field: "",
        tools: &[],
        reader: Reader::ToolInfo,
        session_field: "trajectory_id",
        channel: Channel::UserOnly,
    }],
    pre_edit: &[],
    stop: &[],
    signs: &[&[Sign::Has("agent_action_name")], &[Sign::Has("tool_info")]],
    run_by: &[],
};

/// Antigravity CLI: `PostToolUse` with camelCase fields and the tool in
/// `toolCall` (`name`, `args`); no session field beyond `conversationId`,
/// no `cwd` (`workspacePaths`). No channel to the model is known for
/// `PostToolUse` (its result is an empty message) and `PreToolUse` takes
/// no context: the errors go to the user.
pub const ANTIGRAVITY: AgentHooks = AgentHooks {
    id: AgentId::Antigravity,
    post_edit: &[Event {
        name: "PostToolUse",
        name_field: "",
        tool_field: "toolCall.name",
        tools: &["edit_file", "write_to_file", "create_file"],
        reader: Reader::ToolCallArgs,
        session_field: "conversationId",
        channel: Channel::UserOnly,
    }],
    pre_edit: &[],
    stop: &[],
    signs: &[&[Sign::Has("toolCall")], &[Sign::Has("workspacePaths")]],
    run_by: &[],
};

/// Every agent's hooks, in [`AgentId::ALL`] order.
pub const HOOKS: &[AgentHooks] = &[
    CLAUDE,
    CODEX,
    CURSOR,
    GEMINI,
    ANTIGRAVITY,
    VSCODE,
    OPENCODE,
    ZED,
    WINDSURF,
];

/// The agent whose hooks are used when no other's signs are found: its
/// format is the common one (Claude Code's).
pub const COMMON: AgentId = AgentId::Claude;

/// The order signs are tried in: the most specific first (a Cursor or
/// Windsurf event may also carry fields another agent sends).
const DETECT_ORDER: &[AgentId] = &[
    AgentId::Windsurf,
    AgentId::Antigravity,
    AgentId::Cursor,
    AgentId::Vscode,
    AgentId::Gemini,
    AgentId::Opencode,
    AgentId::Codex,
];

/// The hooks of the agent `id`.
pub fn hooks(id: AgentId) -> &'static AgentHooks {
    HOOKS
        .iter()
        .find(|h| h.id == id)
        .expect("every AgentId is in HOOKS")
}

/// The agent whose event this is, from the signs only it shows; the
/// common format's agent ([`COMMON`]) otherwise.
pub fn recognise(event: &Value) -> AgentId {
    DETECT_ORDER
        .iter()
        .copied()
        .find(|id| {
            hooks(*id)
                .signs
                .iter()
                .any(|all| all.iter().all(|sign| sign.holds(event)))
        })
        .unwrap_or(COMMON)
}

/// The agent whose format `event` is read in: `requested` (`--agent`),
/// unless the event is recognised as that of an agent that runs the
/// requested agent's hooks ([`AgentHooks::run_by`]), or the requested
/// agent has no hooks; [`recognise`] without `--agent`.
pub fn reader_for(requested: Option<AgentId>, event: &Value) -> AgentId {
    let seen = || recognise(event);
    match requested.map(hooks) {
        Some(h) if h.post_edit.is_empty() && h.pre_edit.is_empty() && h.stop.is_empty() => seen(),
        Some(h) if h.run_by.contains(&seen()) => seen(),
        Some(h) => h.id,
        None => seen(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_table_has_every_agent_once_in_order() {
        let ids: Vec<AgentId> = HOOKS.iter().map(|h| h.id).collect();
        assert_eq!(ids, AgentId::ALL.to_vec());
        for id in AgentId::ALL {
            assert!(
                id == COMMON || DETECT_ORDER.contains(&id) || hooks(id).signs.is_empty(),
                "{id}"
            );
        }
    }

    #[test]
    fn a_stop_event_names_no_file_and_has_its_loop_flag() {
        for row in HOOKS {
            for stop in row.stop {
                assert_eq!(stop.event.reader, Reader::NoFiles, "{}", row.id);
                assert!(stop.event.tools.is_empty(), "{}", row.id);
                assert!(!stop.active_field.is_empty(), "{}", row.id);
                assert!(!stop.event.session_field.is_empty(), "{}", row.id);
                // Never a channel that blocks or only reaches the user.
                assert!(
                    !matches!(stop.event.channel, Channel::ExitTwo | Channel::UserOnly),
                    "{}",
                    row.id
                );
            }
        }
        assert_eq!(hooks(AgentId::Claude).stop[0].event.name, "Stop");
    }

    #[test]
    fn each_shape_is_chosen_by_its_tool_field() {
        let vscode = hooks(AgentId::Vscode);
        let local = json!({"hookEventName": "PreToolUse", "tool_name": "editFiles"});
        let copilot = json!({"toolName": "edit", "toolArgs": "{}"});
        assert_eq!(
            AgentHooks::shape(vscode.pre_edit, &local).unwrap().reader,
            Reader::VscodeInput
        );
        assert_eq!(
            AgentHooks::shape(vscode.pre_edit, &copilot).unwrap().reader,
            Reader::CopilotArgs
        );
        assert_eq!(recognise(&copilot), AgentId::Vscode);
        assert_eq!(reader_for(Some(AgentId::Claude), &local), AgentId::Vscode);
        assert_eq!(reader_for(Some(AgentId::Zed), &copilot), AgentId::Vscode);
        assert_eq!(
            reader_for(Some(AgentId::Claude), &json!({"tool_name": "apply_patch"})),
            AgentId::Claude
        );
    }
}
