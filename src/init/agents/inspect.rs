//! Reading back what an agent has configured for notarai: the MCP config
//! file, whether it parses (with the line and column when it does not),
//! notarai's entry as the agent would spawn it, and the hook.

use std::path::Path;

use serde_json::Value;

use super::commands::{
    is_notarai_context_hook, is_notarai_hook, is_notarai_program, is_notarai_stop_hook,
};
use super::{Agent, AgentId, EntryShape, Format, HookFile, HookKind, Mcp, McpFile, SERVER_NAME};
use crate::init::fsio;
use crate::init::json_edit::{self, ReadError};

/// A configuration file that cannot be read or parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{}", at_position(*position, message))]
pub struct ConfigProblem {
    /// The file, relative to the root.
    pub file: String,
    /// 1-based line and column of a parse error.
    pub position: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
    /// It parses, but the servers are not where the agent reads them (not
    /// an object), as opposed to a file that cannot be read or parsed.
    pub shape: bool,
}

impl crate::error::Diagnose for ConfigProblem {}

/// `line:column: message`, or ` message` without a position (after the
/// file name and its colon).
fn at_position(position: Option<(usize, usize)>, message: &str) -> String {
    match position {
        Some((line, column)) => format!("{line}:{column}: {message}"),
        None => format!(" {message}"),
    }
}

/// notarai's MCP entry as the agent would spawn it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    /// The entry's name (`notarai`, or another name whose entry runs
    /// `notarai mcp`).
    pub name: String,
    /// The program (`notarai`, or a path).
    pub command: String,
    /// Its arguments (`["mcp"]`).
    pub args: Vec<String>,
    /// Environment variables the entry sets, in file order.
    pub env: Vec<(String, String)>,
    /// `false` when the entry is switched off (`"enabled": false` or
    /// `"disabled": true`).
    pub enabled: bool,
}

/// The MCP part of an [`Inspection`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpInspection {
    /// The project file the agent reads its servers from (relative to the
    /// root); `None` when the agent has only a user-level file.
    pub file: Option<String>,
    /// The user-level file, for an agent without a project file
    /// (Windsurf): `init` never reads or writes it.
    pub user_file: Option<&'static str>,
    /// Whether the project file exists.
    pub exists: bool,
    /// Why the file cannot be read or parsed, or has an unexpected shape.
    pub problem: Option<ConfigProblem>,
    /// notarai's entry, when the file has one.
    pub server: Option<ServerEntry>,
}

/// The hook part of an [`Inspection`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookInspection {
    /// The file the hook is registered in (relative to the root).
    pub file: String,
    /// Whether it exists.
    pub exists: bool,
    /// Why it cannot be read or parsed.
    pub problem: Option<ConfigProblem>,
    /// Whether a hook running `notarai hook validate` is registered.
    pub registered: bool,
    /// That hook's command line, as written.
    pub command: Option<String>,
}

/// What one agent has configured for notarai in a repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection {
    /// The agent.
    pub agent: AgentId,
    /// Its MCP server entry.
    pub mcp: McpInspection,
    /// Its hook; `None` when the agent has no hooks (Zed).
    pub hook: Option<HookInspection>,
    /// Its pre-edit hook (`notarai hook context`); `None` when the agent's
    /// hooks cannot put text before the model ahead of an edit.
    pub context_hook: Option<HookInspection>,
    /// Its stop hook (`notarai hook stop`); `None` when the agent's end of
    /// turn takes no context without blocking.
    pub stop_hook: Option<HookInspection>,
    /// The MCP file the agent read before it moved ([`super::Moved`]),
    /// when it is there.
    pub moved_mcp: Option<McpInspection>,
    /// The instruction files it reads that exist and hold notarai's
    /// section (between `<!-- notarai:begin` and `<!-- notarai:end -->`).
    pub instructions_with_section: Vec<&'static str>,
}

/// `text` parsed as `format`, as JSON values (TOML converted), or the
/// problem with its position.
pub(crate) fn parse_value(file: &str, text: &str, format: Format) -> Result<Value, ConfigProblem> {
    let syntax = |e: ReadError| {
        let ReadError::Syntax {
            line,
            column,
            message,
        } = e;
        ConfigProblem {
            file: file.to_string(),
            position: Some((line, column)),
            message: format!("does not parse: {message}"),
            shape: false,
        }
    };
    match format {
        Format::Json | Format::Jsonc => {
            if text.trim().is_empty() {
                return Ok(Value::Object(Default::default()));
            }
            let blank = match format {
                Format::Json => {
                    json_edit::parse(text).map_err(syntax)?;
                    text.to_string()
                }
                _ => {
                    let blank = json_edit::blank_comments(text).map_err(syntax)?;
                    json_edit::parse(&blank).map_err(syntax)?;
                    blank
                }
            };
            Ok(serde_json::from_str(&blank).expect("checked to parse"))
        }
        Format::Toml => {
            let doc: toml_edit::DocumentMut =
                text.parse()
                    .map_err(|e: toml_edit::TomlError| ConfigProblem {
                        file: file.to_string(),
                        position: e.span().map(|s| json_edit::position(text, s.start)),
                        message: format!(
                            "does not parse: {}",
                            e.message().lines().next().unwrap_or("invalid TOML")
                        ),
                        shape: false,
                    })?;
            Ok(toml_table(doc.as_table()))
        }
    }
}

/// A TOML table as a JSON object.
fn toml_table(table: &toml_edit::Table) -> Value {
    Value::Object(
        table
            .iter()
            .filter_map(|(k, item)| Some((k.to_string(), toml_item(item)?)))
            .collect(),
    )
}

fn toml_item(item: &toml_edit::Item) -> Option<Value> {
    match item {
        toml_edit::Item::None => None,
        toml_edit::Item::Value(v) => Some(toml_value(v)),
        toml_edit::Item::Table(t) => Some(toml_table(t)),
        toml_edit::Item::ArrayOfTables(a) => Some(Value::Array(a.iter().map(toml_table).collect())),
    }
}

fn toml_value(value: &toml_edit::Value) -> Value {
    use toml_edit::Value as V;
    match value {
        V::String(s) => Value::String(s.value().clone()),
        V::Integer(i) => Value::from(*i.value()),
        V::Float(f) => serde_json::Number::from_f64(*f.value()).map_or(Value::Null, Value::Number),
        V::Boolean(b) => Value::Bool(*b.value()),
        V::Datetime(d) => Value::String(d.value().to_string()),
        V::Array(a) => Value::Array(a.iter().map(toml_value).collect()),
        V::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_string(), toml_value(v)))
                .collect(),
        ),
    }
}

/// Read `rel` and parse it: `Ok(None)` when it does not exist.
pub(crate) fn read_config(
    root: &Path,
    rel: &str,
    format: Format,
) -> Result<Option<(String, Value)>, ConfigProblem> {
    let text = fsio::read_text(root, rel).map_err(|e| ConfigProblem {
        file: rel.to_string(),
        position: None,
        message: format!("{e:#}"),
        shape: false,
    })?;
    let Some(text) = text else { return Ok(None) };
    // A byte order mark (some Windows editors write one) is not content.
    let value = parse_value(rel, text.strip_prefix('\u{feff}').unwrap_or(&text), format)?;
    Ok(Some((text, value)))
}

/// The file of `mcp` to read and edit at `root`: of its candidates that
/// exist (a link counts), the first that holds notarai's entry (opencode
/// reads both `opencode.json` and `opencode.jsonc`), else the first that
/// exists, else the first.
pub(crate) fn choose_file(root: &Path, mcp: &McpFile) -> &'static str {
    let existing: Vec<&'static str> = mcp
        .files
        .iter()
        .copied()
        .filter(|f| root.join(f).symlink_metadata().is_ok())
        .collect();
    let holds_notarai = |rel: &str| {
        read_config(root, rel, mcp.format)
            .ok()
            .flatten()
            .and_then(|(_, value)| find_server(at(&value, mcp.servers)?, mcp.shape))
            .is_some()
    };
    match existing.as_slice() {
        [] => mcp.files[0],
        [only] => only,
        several => several
            .iter()
            .copied()
            .find(|rel| holds_notarai(rel))
            .unwrap_or(several[0]),
    }
}

/// The strings of a JSON array, `None` when it is not an array of strings.
fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    value?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// An entry's program and arguments in `shape`.
pub(crate) fn spawned(entry: &Value, shape: EntryShape) -> Option<(String, Vec<String>)> {
    match shape {
        EntryShape::CommandArgs { .. } => {
            let command = entry.get("command")?.as_str()?.to_string();
            let args = match entry.get("args") {
                None => Vec::new(),
                some => strings(some)?,
            };
            Some((command, args))
        }
        EntryShape::CommandArray => {
            let mut words = strings(entry.get("command"))?;
            (!words.is_empty()).then(|| {
                let program = words.remove(0);
                (program, words)
            })
        }
    }
}

/// Whether an entry runs notarai's server: a notarai binary with `mcp`
/// among its arguments.
pub(crate) fn runs_notarai(entry: &Value, shape: EntryShape) -> bool {
    spawned(entry, shape).is_some_and(|(program, args)| {
        is_notarai_program(&program) && args.iter().any(|a| a == "mcp")
    })
}

/// notarai's entry in a map of servers: the one named `notarai`, else one
/// that runs `notarai mcp`.
fn find_server(servers: &Value, shape: EntryShape) -> Option<ServerEntry> {
    let map = servers.as_object()?;
    let (name, entry) = map
        .get_key_value(SERVER_NAME)
        .or_else(|| map.iter().find(|(_, e)| runs_notarai(e, shape)))?;
    let (command, args) = spawned(entry, shape).unwrap_or_default();
    let env_key = match shape {
        EntryShape::CommandArray => "environment",
        EntryShape::CommandArgs { .. } => "env",
    };
    let env = entry
        .get(env_key)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let enabled = entry
        .get("enabled")
        .and_then(Value::as_bool)
        .unwrap_or(true)
        && !entry
            .get("disabled")
            .and_then(Value::as_bool)
            .unwrap_or(false);
    Some(ServerEntry {
        name: name.clone(),
        command,
        args,
        env,
        enabled,
    })
}

/// The value at `path` of object keys.
pub(crate) fn at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, k| v.get(k))
}

/// Read back an agent's MCP entry.
fn inspect_mcp(agent: &Agent, root: &Path) -> McpInspection {
    match agent.mcp {
        Mcp::UserOnly { path, .. } => McpInspection {
            file: None,
            user_file: Some(path),
            exists: false,
            problem: None,
            server: None,
        },
        Mcp::Project(file) => inspect_mcp_file(&file, root),
    }
}

/// The MCP file the agent read before it moved, when it is there.
fn inspect_moved_mcp(agent: &Agent, root: &Path) -> Option<McpInspection> {
    let file = agent.moved?.mcp?;
    let seen = inspect_mcp_file(&file, root);
    (seen.exists || seen.problem.is_some()).then_some(seen)
}

/// What a project MCP file holds for notarai.
fn inspect_mcp_file(file: &McpFile, root: &Path) -> McpInspection {
    let file = *file;
    let rel = choose_file(root, &file);
    let mut out = McpInspection {
        file: Some(rel.to_string()),
        user_file: None,
        exists: false,
        problem: None,
        server: None,
    };
    match read_config(root, rel, file.format) {
        Err(problem) => {
            out.exists = root.join(rel).symlink_metadata().is_ok();
            out.problem = Some(problem);
        }
        Ok(None) => {}
        Ok(Some((_, value))) => {
            out.exists = true;
            match at(&value, file.servers) {
                None => {}
                Some(servers) if servers.is_object() => {
                    out.server = find_server(servers, file.shape);
                }
                Some(_) => {
                    out.problem = Some(ConfigProblem {
                        file: rel.to_string(),
                        position: None,
                        message: format!("`{}` is not an object", file.servers.join(".")),
                        shape: true,
                    });
                }
            }
        }
    }
    out
}

/// The command of notarai's hook among `hooks` (a list of `{command}`).
fn hook_in(hooks: Option<&Value>) -> Option<String> {
    hook_matching(hooks, is_notarai_hook)
}

/// The command among `hooks` (a list of `{command}`) that `ours` recognises.
fn hook_matching(hooks: Option<&Value>, ours: fn(&str) -> bool) -> Option<String> {
    hooks?
        .as_array()?
        .iter()
        .filter_map(|h| h.get("command")?.as_str())
        .find(|c| ours(c))
        .map(str::to_string)
}

/// Read back one of an agent's other hooks (pre-edit, stop) registered
/// in `hook`, recognised by `ours`.
fn inspect_extra_hook(
    hook: Option<HookFile>,
    ours: fn(&str) -> bool,
    root: &Path,
) -> Option<HookInspection> {
    let hook = hook?;
    let mut out = HookInspection {
        file: hook.file.to_string(),
        exists: root.join(hook.file).symlink_metadata().is_ok(),
        problem: None,
        registered: false,
        command: None,
    };
    match read_config(root, hook.file, hook.format) {
        Err(problem) => out.problem = Some(problem),
        Ok(None) => {}
        Ok(Some((_, value))) => {
            let command = match hook.kind {
                HookKind::Grouped { event, .. } => at(&value, &["hooks", event])
                    .and_then(Value::as_array)
                    .and_then(|groups| {
                        groups
                            .iter()
                            .find_map(|g| hook_matching(g.get("hooks"), ours))
                    }),
                HookKind::Flat { event, .. } => hook_matching(at(&value, &["hooks", event]), ours),
                HookKind::Plugin { .. } => None,
            };
            out.registered = command.is_some();
            out.command = command;
        }
    }
    Some(out)
}

/// Read back an agent's hook.
fn inspect_hook(agent: &Agent, root: &Path) -> Option<HookInspection> {
    let hook = agent.hook?;
    let mut out = HookInspection {
        file: hook.file.to_string(),
        exists: root.join(hook.file).symlink_metadata().is_ok(),
        problem: None,
        registered: false,
        command: None,
    };
    if let HookKind::Plugin { .. } = hook.kind {
        match fsio::read_text(root, hook.file) {
            Ok(Some(text)) => {
                let command = super::hook_command(agent.id);
                out.registered = text.contains(&command);
                out.command = out.registered.then_some(command);
            }
            Ok(None) => {}
            Err(e) => {
                out.problem = Some(ConfigProblem {
                    file: hook.file.to_string(),
                    position: None,
                    message: format!("{e:#}"),
                    shape: false,
                })
            }
        }
        return Some(out);
    }
    match read_config(root, hook.file, hook.format) {
        Err(problem) => out.problem = Some(problem),
        Ok(None) => {}
        Ok(Some((_, value))) => {
            let command = hook_command_in(&value, hook.kind);
            out.registered = command.is_some();
            out.command = command;
        }
    }
    if !out.registered
        && let Some(command) = hook_also_in(agent, root)
    {
        let (file, _) = agent.hook_also_in.expect("found there");
        out = HookInspection {
            file: file.to_string(),
            exists: true,
            problem: None,
            registered: true,
            command: Some(command),
        };
    }
    Some(out)
}

/// The command of notarai's hook in a parsed hook file of `kind`.
fn hook_command_in(value: &Value, kind: HookKind) -> Option<String> {
    match kind {
        HookKind::Grouped { event, .. } => at(value, &["hooks", event])
            .and_then(Value::as_array)
            .and_then(|groups| groups.iter().find_map(|g| hook_in(g.get("hooks")))),
        HookKind::Flat { event, .. } => hook_in(at(value, &["hooks", event])),
        HookKind::Plugin { .. } => None,
    }
}

/// The command of notarai's hook when the agent's other hook file
/// ([`Agent::hook_also_in`](super::Agent::hook_also_in)) registers it.
pub(crate) fn hook_also_in(agent: &Agent, root: &Path) -> Option<String> {
    let hook = agent.hook?;
    let (file, format) = agent.hook_also_in?;
    let (_, value) = read_config(root, file, format).ok()??;
    hook_command_in(&value, hook.kind)
}

/// The instruction files of `agent` that hold notarai's section.
fn sections(agent: &Agent, root: &Path) -> Vec<&'static str> {
    agent
        .instructions
        .iter()
        .filter(|rel| {
            fsio::read_text(root, rel).ok().flatten().is_some_and(|t| {
                t.contains("<!-- notarai:begin") && t.contains("<!-- notarai:end -->")
            })
        })
        .copied()
        .collect()
}

/// What `agent` has configured for notarai at `root`.
pub fn inspect(agent: &Agent, root: &Path) -> Inspection {
    Inspection {
        agent: agent.id,
        mcp: inspect_mcp(agent, root),
        hook: inspect_hook(agent, root),
        context_hook: inspect_extra_hook(agent.context_hook, is_notarai_context_hook, root),
        stop_hook: inspect_extra_hook(agent.stop_hook, is_notarai_stop_hook, root),
        moved_mcp: inspect_moved_mcp(agent, root),
        instructions_with_section: sections(agent, root),
    }
}
