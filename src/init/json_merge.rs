//! Merging notarai's entries into JSON files a user already has:
//! `.mcp.json` and `.claude/settings.json`.
//!
//! Every other key keeps its value and its place (serde_json is built with
//! `preserve_order`). A merge that changes nothing returns `None`, so the
//! file keeps its exact bytes, formatting included.

use serde_json::{Map, Value, json};

/// The name of notarai's server under `mcpServers`.
pub const SERVER_NAME: &str = "notarai";
/// The command of the PostToolUse hook.
pub const HOOK_COMMAND: &str = "notarai hook validate";
/// The tools whose edits the hook checks.
pub const HOOK_MATCHER: &str = "Write|Edit|MultiEdit";

/// Why a JSON file cannot be merged. The file is left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeError {
    /// Not valid JSON.
    Parse {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// Valid JSON of a shape notarai does not know how to merge into.
    Shape(String),
}

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MergeError::Parse {
                line,
                column,
                message,
            } => write!(f, "{line}:{column}: not valid JSON: {message}"),
            MergeError::Shape(message) => write!(f, "unexpected shape: {message}"),
        }
    }
}

/// Parse a JSON document whose top level must be an object. A missing or
/// blank file is an empty object.
fn parse_object(text: Option<&str>) -> Result<Map<String, Value>, MergeError> {
    let text = text.unwrap_or("");
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(MergeError::Shape(format!(
            "the top level is {}, expected an object",
            kind(&other)
        ))),
        Err(e) => {
            let full = e.to_string();
            let message = match full.rfind(" at line ") {
                Some(i) => full[..i].to_string(),
                None => full,
            };
            Err(MergeError::Parse {
                line: e.line(),
                column: e.column(),
                message,
            })
        }
    }
}

/// A JSON type name for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Pretty JSON with 2-space indentation and a final newline.
fn render(map: Map<String, Value>) -> String {
    let mut text = serde_json::to_string_pretty(&Value::Object(map)).expect("JSON serializes");
    text.push('\n');
    text
}

/// The object at `key` of `map`, inserted empty when absent.
fn object_at<'a>(
    map: &'a mut Map<String, Value>,
    key: &str,
    where_: &str,
) -> Result<&'a mut Map<String, Value>, MergeError> {
    let value = map
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    let found = kind(value);
    value
        .as_object_mut()
        .ok_or_else(|| MergeError::Shape(format!("`{where_}` is {found}, expected an object")))
}

/// The `.mcp.json` entry of the notarai server.
pub fn server_entry() -> Value {
    json!({"type": "stdio", "command": "notarai", "args": ["mcp"]})
}

/// Merge the notarai server into `.mcp.json` text. `Ok(None)` when the file
/// already has it. An existing `notarai` entry gets `type`, `command` and
/// `args` set and keeps any other key (such as `env`).
pub fn merge_mcp(existing: Option<&str>) -> Result<Option<String>, MergeError> {
    let mut root = parse_object(existing)?;
    let servers = object_at(&mut root, "mcpServers", "mcpServers")?;
    let wanted = server_entry();
    let changed = match servers.get_mut(SERVER_NAME) {
        Some(Value::Object(entry)) => {
            let mut changed = false;
            for (key, value) in wanted.as_object().expect("an object") {
                // A command that is notarai installed elsewhere is the user's choice.
                let own_notarai = key == "command"
                    && entry.get(key).and_then(Value::as_str).is_some_and(|c| {
                        std::path::Path::new(c)
                            .file_name()
                            .is_some_and(|n| n == "notarai")
                    });
                if own_notarai {
                    continue;
                }
                if entry.get(key) != Some(value) {
                    entry.insert(key.clone(), value.clone());
                    changed = true;
                }
            }
            changed
        }
        Some(other) => {
            *other = wanted;
            true
        }
        None => {
            servers.insert(SERVER_NAME.to_string(), wanted);
            true
        }
    };
    Ok((changed || existing.is_none_or(|t| t.trim().is_empty())).then(|| render(root)))
}

/// Whether a PostToolUse group already runs the notarai hook.
fn group_runs_hook(group: &Value) -> bool {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .is_some_and(|hooks| {
            hooks.iter().any(|h| {
                h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|c| c.trim() == HOOK_COMMAND)
            })
        })
}

/// Merge the PostToolUse validation hook into `.claude/settings.json` text.
/// `Ok(None)` when a PostToolUse group already runs `notarai hook validate`;
/// else a new group is appended after the existing ones.
pub fn merge_settings(existing: Option<&str>) -> Result<Option<String>, MergeError> {
    let mut root = parse_object(existing)?;
    let hooks = object_at(&mut root, "hooks", "hooks")?;
    let post = hooks
        .entry("PostToolUse".to_string())
        .or_insert_with(|| Value::Array(Vec::new()));
    let found = kind(post);
    let groups = post.as_array_mut().ok_or_else(|| {
        MergeError::Shape(format!("`hooks.PostToolUse` is {found}, expected an array"))
    })?;
    if groups.iter().any(group_runs_hook) {
        return Ok(None);
    }
    groups.push(json!({
        "matcher": HOOK_MATCHER,
        "hooks": [{"type": "command", "command": HOOK_COMMAND}]
    }));
    Ok(Some(render(root)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notarai_installed_elsewhere_is_kept() {
        let existing = r#"{"mcpServers": {"notarai": {"type": "stdio", "command": "/opt/bin/notarai", "args": ["mcp"]}}}"#;
        assert_eq!(
            merge_mcp(Some(existing)).unwrap(),
            None,
            "nothing to change"
        );
        let other =
            r#"{"mcpServers": {"notarai": {"type": "stdio", "command": "npx", "args": ["mcp"]}}}"#;
        let merged = merge_mcp(Some(other)).unwrap().unwrap();
        assert!(merged.contains(r#""command": "notarai""#), "{merged}");
    }

    #[test]
    fn mcp_created_from_nothing() {
        let text = merge_mcp(None).unwrap().unwrap();
        assert_eq!(
            text,
            "{\n  \"mcpServers\": {\n    \"notarai\": {\n      \"type\": \"stdio\",\n      \"command\": \"notarai\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n"
        );
        assert_eq!(merge_mcp(Some(&text)).unwrap(), None);
    }

    #[test]
    fn mcp_keeps_other_servers_and_keys_in_order() {
        let before = r#"{"z": 1, "mcpServers": {"other": {"command": "x", "env": {"K": "V"}}}, "a": [true]}"#;
        let after = merge_mcp(Some(before)).unwrap().unwrap();
        let value: Value = serde_json::from_str(&after).unwrap();
        let keys: Vec<_> = value.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["z", "mcpServers", "a"]);
        let servers: Vec<_> = value["mcpServers"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(servers, ["other", "notarai"]);
        assert_eq!(value["mcpServers"]["other"]["env"]["K"], "V");
        assert_eq!(value["mcpServers"]["notarai"], server_entry());
    }

    #[test]
    fn mcp_entry_keeps_env_and_fixes_args() {
        let before =
            r#"{"mcpServers": {"notarai": {"command": "notarai", "args": [], "env": {"A": "1"}}}}"#;
        let value: Value =
            serde_json::from_str(&merge_mcp(Some(before)).unwrap().unwrap()).unwrap();
        assert_eq!(value["mcpServers"]["notarai"]["args"], json!(["mcp"]));
        assert_eq!(value["mcpServers"]["notarai"]["env"]["A"], "1");
    }

    #[test]
    fn malformed_and_misshapen_files_are_errors() {
        match merge_mcp(Some("{\n  \"mcpServers\": {,\n}")) {
            Err(MergeError::Parse { line, column, .. }) => assert_eq!((line, column), (2, 18)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(merge_mcp(Some("[]")), Err(MergeError::Shape(_))));
        assert!(matches!(
            merge_mcp(Some(r#"{"mcpServers": 3}"#)),
            Err(MergeError::Shape(_))
        ));
        assert!(matches!(
            merge_settings(Some(r#"{"hooks": {"PostToolUse": {}}}"#)),
            Err(MergeError::Shape(_))
        ));
    }

    #[test]
    fn settings_hook_appended_once() {
        let before = r#"{"model": "x", "hooks": {"PreToolUse": [], "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo hi"}]}]}}"#;
        let after = merge_settings(Some(before)).unwrap().unwrap();
        let value: Value = serde_json::from_str(&after).unwrap();
        let groups = value["hooks"]["PostToolUse"].as_array().unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0]["matcher"], "Bash");
        assert_eq!(groups[1]["matcher"], HOOK_MATCHER);
        assert_eq!(groups[1]["hooks"][0]["command"], HOOK_COMMAND);
        assert_eq!(value["model"], "x");
        assert_eq!(merge_settings(Some(&after)).unwrap(), None);
    }
}
