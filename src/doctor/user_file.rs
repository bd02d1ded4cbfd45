//! Reading an MCP config doctor does not get from the agents table: the
//! user-level file of an agent without a project file (Windsurf), read only;
//! and a project file whose notarai entry sits under another agent's key.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::Position;
use crate::init::agents::ServerEntry;
use crate::init::{fsio, json_edit};

/// Largest user-level config read.
const MAX_USER_FILE: u64 = 1 << 20;

/// The keys agents keep their MCP servers under.
const SERVER_KEYS: &[&str] = &[
    "mcpServers",
    "servers",
    "context_servers",
    "mcp",
    "mcp_servers",
];

/// What the user-level file holds for notarai.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserEntry {
    /// The file does not exist.
    Absent,
    /// It cannot be read or parsed: why, and where for a parse error.
    Unreadable(String, Option<Position>),
    /// It parses but has no notarai entry.
    NoEntry,
    /// notarai's entry.
    Found(ServerEntry),
}

/// A `{command, args, env}` server entry.
#[derive(Debug, Deserialize)]
struct UserServer {
    command: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    disabled: bool,
}

/// Read notarai's entry under `servers` in the JSON file at `path` (outside
/// the repository: read, never written; a link is followed, a FIFO or
/// folder refused).
pub fn read_entry(path: &Path, servers: &[&str]) -> UserEntry {
    let text = match read_bounded(path) {
        Ok(Some(text)) => text,
        Ok(None) => return UserEntry::Absent,
        Err(message) => return UserEntry::Unreadable(message, None),
    };
    let value: Value = match parse_jsonc(&text) {
        Ok(value) => value,
        Err((message, line, column)) => {
            return UserEntry::Unreadable(
                format!("does not parse: {message}"),
                Some(Position { line, column }),
            );
        }
    };
    let map = servers
        .iter()
        .try_fold(&value, |v, k| v.get(k))
        .and_then(Value::as_object);
    let Some((name, entry)) = map.and_then(|m| {
        m.get_key_value("notarai").or_else(|| {
            m.iter().find(|(_, e)| {
                e.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(crate::init::agents::is_notarai_program)
            })
        })
    }) else {
        return UserEntry::NoEntry;
    };
    match UserServer::deserialize(entry) {
        Ok(server) => UserEntry::Found(ServerEntry {
            name: name.clone(),
            command: server.command,
            args: server.args,
            env: server.env.into_iter().collect(),
            enabled: !server.disabled,
        }),
        Err(e) => UserEntry::Unreadable(format!("notarai's entry: {e}"), None),
    }
}

/// JSON with comments and trailing commas, or the error with its line and column.
fn parse_jsonc(text: &str) -> Result<Value, (String, usize, usize)> {
    // A byte order mark (some Windows editors write one) is not content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let blank = json_edit::blank_comments(text).map_err(|e| {
        let json_edit::ReadError::Syntax {
            line,
            column,
            message,
        } = e;
        (message, line, column)
    })?;
    serde_json::from_str(&blank).map_err(|e| {
        let full = e.to_string();
        let message = full
            .rfind(" at line ")
            .map_or(full.clone(), |i| full[..i].to_string());
        (message, e.line(), e.column().max(1))
    })
}

/// The file's text, `None` when it does not exist.
fn read_bounded(path: &Path) -> Result<Option<String>, String> {
    let real = match path.canonicalize() {
        Ok(real) => real,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read: {e}")),
    };
    let bytes = crate::safe_fs::read_bounded(&real, MAX_USER_FILE).map_err(|e| match e {
        crate::safe_fs::FsError::TooLarge { .. } => format!("larger than {MAX_USER_FILE} bytes"),
        e => format!("cannot read: {e}"),
    })?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| "not UTF-8 text".into())
}

/// When the JSON project file `rel` has no notarai entry under
/// `servers_key`, the other agent's key it sits under, if any (a VS Code
/// file written with `mcpServers`, a Claude Code file with `servers`).
pub fn misplaced_entry(root: &Path, rel: &str, servers_key: &str) -> Option<String> {
    if !rel.ends_with(".json") && !rel.ends_with(".jsonc") {
        return None;
    }
    let text = fsio::read_text(root, rel).ok()??;
    let value = parse_jsonc(&text).ok()?;
    SERVER_KEYS
        .iter()
        .filter(|k| **k != servers_key)
        .find(|k| {
            value.get(**k).and_then(Value::as_object).is_some_and(|m| {
                m.contains_key("notarai")
                    || m.values().any(|e| {
                        let command = e.get("command");
                        command
                            .and_then(Value::as_str)
                            .is_some_and(crate::init::agents::is_notarai_program)
                            || command
                                .and_then(Value::as_array)
                                .and_then(|a| a.first())
                                .and_then(Value::as_str)
                                .is_some_and(crate::init::agents::is_notarai_program)
                    })
            })
        })
        .map(|k| k.to_string())
}
