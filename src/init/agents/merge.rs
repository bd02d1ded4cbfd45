//! The one merger of notarai's entries into an agent's JSON or JSON with
//! comments: its MCP server entry and its hooks, added by `init` and taken
//! out by `init --remove`, every agent alike, through the format-preserving
//! editor [`crate::init::json_edit`] (TOML: `merge_toml.rs`).
//!
//! Adding keeps what the user has: an entry named `notarai` that runs
//! something (a `command` or a `url`) or another entry running `notarai mcp`
//! is kept as it is (an entry with neither gets the keys it lacks); a hook
//! running `notarai hook validate` (or `hook context`), however spelled, is
//! never added twice, and when its group's matcher misses one of the tools
//! the agent's hook is for, the matcher is widened if the group runs only
//! notarai, else notarai's hook moves to a group of its own.
//!
//! What counts as notarai's own, for `--remove`: an MCP entry named
//! `notarai` whose value is exactly the entry `init` writes, and a hook whose
//! object is exactly the one `init` writes (its command
//! `notarai hook validate --agent <id>`, or one an older notarai wrote). A
//! user's differently configured entry (another path, more arguments, an
//! `env`) is kept. Containers that notarai's removal leaves empty are taken
//! out with it, and a file left holding nothing else is deleted. The inverse
//! is exact: `init` then `init --remove` gives back the bytes (see
//! `json_edit`'s insert/remove), with one exception: a servers or hooks
//! object that was already there but empty (`"mcpServers": {}`) cannot be
//! told from one notarai created, and goes too.

use serde_json::{Map, Value, json};

use super::commands::{matcher_covers, same_hook, widened_matcher};
use super::{EntryShape, Format, HookKind, SERVER_NAME, server_entry};
use crate::init::json_edit::{self, Editor, Kind, Node, ReadError};

/// What an edit does to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Nothing to do.
    Unchanged,
    /// The file's new text.
    Write(String),
    /// The file held only notarai's part: delete it. The text is what is
    /// left (written instead when the file is a link, which stays).
    Delete(String),
}

/// Why a configuration file cannot be merged. The file is left alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// Not valid JSON (or TOML), or a key given twice.
    #[error("{line}:{column}: not valid JSON: {message}")]
    Parse {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// Valid, but of a shape notarai does not know how to merge into.
    #[error("unexpected shape: {0}")]
    Shape(String),
}

impl crate::error::Diagnose for MergeError {}

impl From<ReadError> for MergeError {
    fn from(e: ReadError) -> MergeError {
        let ReadError::Syntax {
            line,
            column,
            message,
        } = e;
        MergeError::Parse {
            line,
            column,
            message,
        }
    }
}

/// Pretty JSON with 2-space indentation and a final newline, for a new file.
fn render(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("JSON serializes");
    text.push('\n');
    text
}

/// An editor over `text` in `format`, whose top level must be an object.
fn open(text: &str, format: Format) -> Result<Editor, MergeError> {
    let editor = match format {
        Format::Jsonc => Editor::new_jsonc(text)?,
        _ => Editor::new(text)?,
    };
    if !matches!(editor.root().kind, Kind::Object(_)) {
        return Err(MergeError::Shape(format!(
            "the top level is {}, expected an object",
            editor.root().kind_name(text)
        )));
    }
    Ok(editor)
}

/// The value of `node`.
fn value_of(editor: &Editor, node: &Node) -> Value {
    let text = &editor.text()[node.start..node.end];
    let blank = json_edit::blank_comments(text).expect("a parsed node");
    serde_json::from_str(&blank).expect("a parsed node")
}

/// The object `extra` (JSON text, `""` for none).
fn extra_members(extra: &str) -> Map<String, Value> {
    if extra.is_empty() {
        return Map::new();
    }
    match serde_json::from_str(extra).expect("a valid extra object") {
        Value::Object(map) => map,
        _ => panic!("extra must be an object"),
    }
}

/// `value` nested under `keys`.
fn nest(keys: &[&str], value: Value) -> Value {
    keys.iter()
        .rev()
        .fold(value, |inner, key| json!({ *key: inner }))
}

/// A shape error: the node at `path` is not the kind expected.
fn misshapen(editor: &Editor, node: &Node, path: &[&str], want_array: bool) -> MergeError {
    MergeError::Shape(format!(
        "`{}` is {}, expected {}",
        path.join("."),
        node.kind_name(editor.text()),
        if want_array { "an array" } else { "an object" }
    ))
}

/// Check that every node along `path` is an object (the last one an array
/// when `last_array`), or absent; the depth of the first absent key.
fn check_path(
    editor: &Editor,
    path: &[&str],
    last_array: bool,
) -> Result<Option<usize>, MergeError> {
    for i in 0..path.len() {
        let Some(node) = editor.at(&path[..=i]) else {
            return Ok(Some(i));
        };
        let want_array = last_array && i + 1 == path.len();
        let ok = match node.kind {
            Kind::Object(_) => !want_array,
            Kind::Array(_) => want_array,
            _ => false,
        };
        if !ok {
            return Err(misshapen(editor, node, &path[..=i], want_array));
        }
    }
    Ok(None)
}

/// Add notarai's server to a JSON/JSONC text under `servers`. `Ok(None)`
/// when it is there already: another entry that runs `notarai mcp`, or an
/// entry named `notarai` that runs something (kept as the user has it; one
/// with neither `command` nor `url` gets the keys it lacks).
pub fn add_json_server(
    existing: Option<&str>,
    format: Format,
    servers: &[&str],
    shape: EntryShape,
) -> Result<Option<String>, MergeError> {
    let entry = server_entry(shape);
    let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
        return Ok(Some(render(&nest(servers, json!({ SERVER_NAME: entry })))));
    };
    let mut editor = open(text, format)?;
    if let Some(missing) = check_path(&editor, servers, false)? {
        let nested = nest(&servers[missing + 1..], json!({ SERVER_NAME: entry }));
        editor.insert_member(&servers[..missing], servers[missing], &nested);
        return Ok(Some(editor.text().to_string()));
    }
    let map = value_of(&editor, editor.at(servers).expect("checked"));
    let map = map.as_object().expect("checked to be an object");
    let runs = |e: &Value| super::inspect::runs_notarai(e, shape);
    if map.iter().any(|(name, e)| name != SERVER_NAME && runs(e)) {
        return Ok(None);
    }
    let mut path: Vec<&str> = servers.to_vec();
    path.push(SERVER_NAME);
    let Some(ours) = map.get(SERVER_NAME) else {
        editor.insert_member(servers, SERVER_NAME, &entry);
        return Ok(Some(editor.text().to_string()));
    };
    let Some(ours) = ours.as_object() else {
        let node = editor.at(&path).expect("present");
        return Err(misshapen(&editor, node, &path, false));
    };
    if ours.contains_key("command") || ours.contains_key("url") {
        return Ok(None);
    }
    for (key, value) in entry.as_object().expect("an object") {
        if !ours.contains_key(key) {
            editor.insert_member(&path, key, value);
        }
    }
    Ok(Some(editor.text().to_string()))
}

/// Remove the empty containers along `path` (deepest first) that hold
/// nothing, not even a comment.
fn prune(editor: &mut Editor, path: &[&str]) {
    for depth in (1..=path.len()).rev() {
        let Some(node) = editor.at(&path[..depth]) else {
            continue;
        };
        let empty = match &node.kind {
            Kind::Object(m) => m.is_empty(),
            Kind::Array(items) => items.is_empty(),
            _ => false,
        } && editor.text()[node.start + 1..node.end - 1]
            .trim()
            .is_empty();
        if !empty {
            return;
        }
        editor.remove_member(&path[..depth - 1], path[depth - 1]);
    }
}

/// The change for a file after removal: deleted when nothing but
/// `preamble` (or nothing at all) is left.
fn finish(editor: Editor, before: &str, preamble: &str) -> Change {
    if editor.text() == before {
        return Change::Unchanged;
    }
    let left = value_of(&editor, editor.root());
    let bare = editor.text()[..editor.root().start].trim().is_empty()
        && editor.text()[editor.root().end..].trim().is_empty();
    let only_preamble = left == Value::Object(Map::new())
        || (!preamble.is_empty() && Value::Object(extra_members(preamble)) == left);
    if bare
        && only_preamble
        && json_edit::blank_comments(editor.text()).ok().as_deref() == Some(editor.text())
    {
        Change::Delete(editor.text().to_string())
    } else {
        Change::Write(editor.text().to_string())
    }
}

/// Take notarai's server out of a JSON/JSONC text, when its entry is exactly
/// what `init` writes.
pub fn remove_json_server(
    text: &str,
    format: Format,
    servers: &[&str],
    shape: EntryShape,
) -> Result<Change, MergeError> {
    if text.trim().is_empty() {
        return Ok(Change::Unchanged);
    }
    let mut editor = open(text, format)?;
    let mut path: Vec<&str> = servers.to_vec();
    path.push(SERVER_NAME);
    let ours = editor
        .at(&path)
        .is_some_and(|node| value_of(&editor, node) == server_entry(shape));
    if !ours {
        return Ok(Change::Unchanged);
    }
    editor.remove_member(servers, SERVER_NAME);
    prune(&mut editor, servers);
    Ok(finish(editor, text, ""))
}

/// notarai's hook object for `kind`, running `command`.
fn hook_object(kind: HookKind, command: &str) -> Value {
    let extra = match kind {
        HookKind::Grouped { extra, .. } | HookKind::Flat { extra, .. } => extra,
        HookKind::Plugin { .. } => "",
    };
    let mut map = Map::new();
    if matches!(kind, HookKind::Grouped { .. }) {
        map.insert("type".into(), json!("command"));
    }
    let extra = extra_members(extra);
    // `type` first where the agent's examples put it first.
    if let Some(t) = extra.get("type") {
        map.insert("type".into(), t.clone());
    }
    if let Some(n) = extra.get("name") {
        map.insert("name".into(), n.clone());
        map.insert("type".into(), json!("command"));
    }
    map.insert("command".into(), json!(command));
    for (k, v) in extra {
        map.entry(k).or_insert(v);
    }
    Value::Object(map)
}

/// The list notarai's hook goes into: `hooks.<event>`.
fn event_path(kind: HookKind) -> [&'static str; 2] {
    match kind {
        HookKind::Grouped { event, .. } | HookKind::Flat { event, .. } => ["hooks", event],
        HookKind::Plugin { .. } => unreachable!("a plugin is a whole file"),
    }
}

/// The item notarai appends to `hooks.<event>`.
fn hook_item(kind: HookKind, command: &str) -> Value {
    match kind {
        HookKind::Grouped { matcher, .. } => {
            json!({"matcher": matcher, "hooks": [hook_object(kind, command)]})
        }
        _ => hook_object(kind, command),
    }
}

/// The indexes of the hooks in `list` (a list of `{command}`) that run the
/// same notarai hook as `command`, however spelled.
fn ours_in(list: Option<&Node>, command: &str) -> Vec<usize> {
    let same = same_hook(command);
    list.and_then(Node::items)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, h)| h.get("command").and_then(Node::as_str).is_some_and(same))
        .map(|(i, _)| i)
        .collect()
}

/// Add notarai's hook (`command`) to a JSON/JSONC text. `Ok(None)` when a
/// hook running the same notarai hook is registered for the event (in a
/// group whose matcher covers the agent's tools).
pub fn add_hook(
    existing: Option<&str>,
    format: Format,
    kind: HookKind,
    command: &str,
) -> Result<Option<String>, MergeError> {
    let path = event_path(kind);
    let item = hook_item(kind, command);
    let preamble = match kind {
        HookKind::Flat { preamble, .. } => preamble,
        _ => "",
    };
    let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
        let mut top = extra_members(preamble);
        top.insert("hooks".into(), json!({ path[1]: [item] }));
        return Ok(Some(render(&Value::Object(top))));
    };
    let mut editor = open(text, format)?;
    if let Some(missing) = check_path(&editor, &path, true)? {
        let value = if missing == 0 {
            json!({ path[1]: [item] })
        } else {
            json!([item])
        };
        editor.insert_member(&path[..missing], path[missing], &value);
        return Ok(Some(editor.text().to_string()));
    }
    let list = editor.at(&path).expect("checked").clone();
    let HookKind::Grouped { matcher, .. } = kind else {
        if !ours_in(Some(&list), command).is_empty() {
            return Ok(None);
        }
        editor.append_item(&list, &item);
        return Ok(Some(editor.text().to_string()));
    };
    add_to_groups(&mut editor, &path, matcher, command, &item);
    Ok((editor.text() != text).then(|| editor.text().to_string()))
}

/// Register notarai's hook among the groups at `path` (`hooks.<event>`):
/// nothing when a group holding it matches every tool of `wanted`; else
/// widen the matcher of the group holding it when that group runs only
/// notarai, or take it out of its group and append `item`, a group of its
/// own.
fn add_to_groups(editor: &mut Editor, path: &[&str], wanted: &str, command: &str, item: &Value) {
    let list = editor.at(path).expect("checked").clone();
    let groups = list.items().expect("checked to be an array");
    let ours: Vec<(usize, Vec<usize>)> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| (i, ours_in(g.get("hooks"), command)))
        .filter(|(_, hooks)| !hooks.is_empty())
        .collect();
    // A matcher that is not a string matches nothing notarai can tell.
    let matcher = |g: &Node| {
        g.get("matcher")
            .map(|m| m.as_str().unwrap_or("\u{0}").to_string())
    };
    if ours
        .iter()
        .any(|(i, _)| matcher_covers(matcher(&groups[*i]).as_deref(), wanted))
    {
        return;
    }
    let Some((index, hooks)) = ours.first().cloned() else {
        return editor.append_item(&list, item);
    };
    let group = &groups[index];
    let all = group.get("hooks").and_then(Node::items).unwrap_or_default();
    if hooks.len() == all.len() {
        let node = group
            .get("matcher")
            .expect("an absent matcher covers")
            .clone();
        let widened = widened_matcher(matcher(group).as_deref(), wanted);
        return editor.replace(&node, &json!(widened));
    }
    // Take notarai's hook out of the shared group, last index first.
    for &h in hooks.iter().rev() {
        let list = editor.at(path).expect("still there");
        let inner = list.items().expect("an array")[index]
            .get("hooks")
            .expect("the group's hooks")
            .clone();
        editor.remove_item(&inner, h);
    }
    let list = editor.at(path).expect("still there").clone();
    editor.append_item(&list, item);
}

/// Take notarai's hook out of a JSON/JSONC text: each hook object exactly
/// as `init` writes it (with one of `commands`), a group left empty with it,
/// and the containers left empty.
pub fn remove_hook(
    text: &str,
    format: Format,
    kind: HookKind,
    commands: &[String],
) -> Result<Change, MergeError> {
    if text.trim().is_empty() {
        return Ok(Change::Unchanged);
    }
    let mut editor = open(text, format)?;
    let path = event_path(kind);
    let ours: Vec<Value> = commands.iter().map(|c| hook_object(kind, c)).collect();
    let Some(list) = editor.at(&path).cloned() else {
        return Ok(Change::Unchanged);
    };
    let Some(items) = list.items() else {
        return Ok(Change::Unchanged);
    };
    for (i, item) in items.iter().enumerate().rev() {
        match kind {
            HookKind::Grouped { .. } => {
                let Some(hooks) = item.get("hooks") else {
                    continue;
                };
                let Some(inner) = hooks.items() else { continue };
                let mine: Vec<usize> = inner
                    .iter()
                    .enumerate()
                    .filter(|(_, h)| ours.contains(&value_of(&editor, h)))
                    .map(|(j, _)| j)
                    .collect();
                if mine.is_empty() {
                    continue;
                }
                let group = value_of(&editor, item);
                let only_ours = mine.len() == inner.len()
                    && group
                        .as_object()
                        .is_some_and(|g| g.keys().all(|k| k == "matcher" || k == "hooks"));
                if only_ours {
                    let list = editor.at(&path).expect("still there").clone();
                    editor.remove_item(&list, i);
                } else {
                    for &j in mine.iter().rev() {
                        let list = editor.at(&path).expect("still there").clone();
                        let hooks = list.items().expect("an array")[i]
                            .get("hooks")
                            .expect("hooks")
                            .clone();
                        editor.remove_item(&hooks, j);
                    }
                }
            }
            _ => {
                if ours.contains(&value_of(&editor, item)) {
                    let list = editor.at(&path).expect("still there").clone();
                    editor.remove_item(&list, i);
                }
            }
        }
    }
    prune(&mut editor, &path);
    let preamble = match kind {
        HookKind::Flat { preamble, .. } => preamble,
        _ => "",
    };
    Ok(finish(editor, text, preamble))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPES: [(Format, &[&str], EntryShape); 3] = [
        (
            Format::Json,
            &["mcpServers"],
            EntryShape::CommandArgs {
                typed: Some("stdio"),
            },
        ),
        (
            Format::Jsonc,
            &["servers"],
            EntryShape::CommandArgs { typed: None },
        ),
        (Format::Jsonc, &["mcp"], EntryShape::CommandArray),
    ];

    #[test]
    fn json_servers_added_once_and_removed_byte_for_byte() {
        for before in [
            "{}\n",
            "{\"mcpServers\": {\"a\": {}}, \"servers\": {\"a\": {}}, \"mcp\": {\"a\": {}}}",
            "// c\n{\n  \"theme\": \"x\", // trailing\n  \"mcp\": {\"other\": {\"type\": \"local\", \"command\": [\"x\"]},},\n}\n",
        ] {
            for (format, path, shape) in SHAPES {
                if format == Format::Json && before.contains("//") {
                    continue;
                }
                let after = add_json_server(Some(before), format, path, shape)
                    .unwrap()
                    .unwrap();
                assert_eq!(
                    add_json_server(Some(&after), format, path, shape).unwrap(),
                    None
                );
                let removed = remove_json_server(&after, format, path, shape).unwrap();
                let expected = if before == "{}\n" {
                    Change::Delete(before.to_string())
                } else {
                    Change::Write(before.to_string())
                };
                assert_eq!(removed, expected, "{before} {path:?}\n{after}");
            }
        }
        let fresh = add_json_server(None, Format::Json, &["mcpServers"], SHAPES[0].2)
            .unwrap()
            .unwrap();
        assert_eq!(
            remove_json_server(&fresh, Format::Json, &["mcpServers"], SHAPES[0].2).unwrap(),
            Change::Delete("{}\n".into())
        );
        let users = r#"{"mcpServers": {"notarai": {"command": "/opt/notarai", "args": ["mcp"]}}}"#;
        assert_eq!(
            remove_json_server(users, Format::Json, &["mcpServers"], SHAPES[0].2).unwrap(),
            Change::Unchanged
        );
    }

    #[test]
    fn hooks_added_once_and_removed_byte_for_byte() {
        let kinds = [
            HookKind::Grouped {
                event: "AfterTool",
                matcher: "write_file|replace",
                extra: r#"{"name": "notarai", "timeout": 60000}"#,
            },
            HookKind::Flat {
                event: "afterFileEdit",
                extra: "",
                preamble: r#"{"version": 1}"#,
            },
        ];
        let command = "notarai hook validate --agent x".to_string();
        for kind in kinds {
            for before in [
                None,
                Some(
                    "{\"hooks\": {\"afterFileEdit\": [{\"command\": \"fmt\"}], \"AfterTool\": [{\"matcher\": \"x\", \"hooks\": []}]}}\n",
                ),
                Some("{\n  // settings\n  \"version\": 1\n}\n"),
            ] {
                let after = add_hook(before, Format::Jsonc, kind, &command)
                    .unwrap()
                    .unwrap();
                assert_eq!(
                    add_hook(Some(&after), Format::Jsonc, kind, &command).unwrap(),
                    None
                );
                let removed =
                    remove_hook(&after, Format::Jsonc, kind, std::slice::from_ref(&command))
                        .unwrap();
                match before {
                    None => assert!(matches!(removed, Change::Delete(_)), "{after}"),
                    Some(b) => assert_eq!(removed, Change::Write(b.to_string()), "{after}"),
                }
            }
        }
    }

    /// Claude Code's MCP file and hook, from the table.
    const CLAUDE_SERVERS: &[&str] = &["mcpServers"];
    const CLAUDE_SHAPE: EntryShape = EntryShape::CommandArgs {
        typed: Some("stdio"),
    };
    const CLAUDE_HOOK: HookKind = HookKind::Grouped {
        event: "PostToolUse",
        matcher: "Write|Edit|MultiEdit",
        extra: "",
    };
    const CLAUDE_COMMAND: &str = "notarai hook validate --agent claude";

    fn merge_mcp(existing: Option<&str>) -> Result<Option<String>, MergeError> {
        add_json_server(existing, Format::Json, CLAUDE_SERVERS, CLAUDE_SHAPE)
    }

    fn merge_settings(existing: Option<&str>) -> Result<Option<String>, MergeError> {
        add_hook(existing, Format::Json, CLAUDE_HOOK, CLAUDE_COMMAND)
    }

    fn value(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn a_users_own_notarai_entry_is_kept() {
        for existing in [
            r#"{"mcpServers": {"notarai": {"type": "stdio", "command": "/opt/bin/notarai", "args": ["mcp"]}}}"#,
            r#"{"mcpServers": {"notarai": {"command": "notarai", "args": ["mcp", "--root", "sub"]}}}"#,
            r#"{"mcpServers": {"notarai": {"command": "npx", "args": ["-y", "notarai", "mcp"]}}}"#,
            r#"{"mcpServers": {"spec-check": {"command": "/usr/local/bin/notarai", "args": ["mcp"]}}}"#,
            r#"{"mcpServers": {"notarai": {"url": "http://localhost:1/mcp"}}}"#,
        ] {
            assert_eq!(merge_mcp(Some(existing)).unwrap(), None, "{existing}");
        }
        let bare = r#"{"mcpServers": {"notarai": {"env": {"A": "1"}}}}"#;
        let merged = value(&merge_mcp(Some(bare)).unwrap().unwrap());
        assert_eq!(merged["mcpServers"]["notarai"]["env"]["A"], "1");
        assert_eq!(merged["mcpServers"]["notarai"]["args"], json!(["mcp"]));
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
    fn mcp_keeps_every_byte_it_does_not_add() {
        let before = "{\"z\": 12345678901234567890123, \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n}, \"a\": [1.0e3]}";
        let after = merge_mcp(Some(before)).unwrap().unwrap();
        let (head, tail) = before.split_at(before.find("\n}").unwrap());
        assert!(after.starts_with(head) && after.ends_with(tail), "{after}");
        assert_eq!(
            value(&after)["mcpServers"]["notarai"],
            server_entry(CLAUDE_SHAPE)
        );
        assert_eq!(merge_mcp(Some(&after)).unwrap(), None);
    }

    #[test]
    fn malformed_duplicate_and_misshapen_files_are_errors() {
        match merge_mcp(Some("{\n  \"mcpServers\": {,\n}")) {
            Err(MergeError::Parse { line, column, .. }) => assert_eq!((line, column), (2, 18)),
            other => panic!("{other:?}"),
        }
        match merge_settings(Some("{\"hooks\": {},\n \"hooks\": {}}")) {
            Err(MergeError::Parse {
                line,
                column,
                message,
            }) => {
                assert_eq!((line, column), (2, 2));
                assert!(message.contains("duplicate key `hooks`"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(merge_mcp(Some("[]")), Err(MergeError::Shape(_))));
        assert!(matches!(
            merge_mcp(Some(r#"{"mcpServers": 3}"#)),
            Err(MergeError::Shape(_))
        ));
        assert!(matches!(
            merge_mcp(Some(r#"{"mcpServers": {"notarai": "x"}}"#)),
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
        let v = value(&after);
        let groups = v["hooks"]["PostToolUse"].as_array().unwrap();
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0]["matcher"], "Bash");
        assert_eq!(groups[1], hook_item(CLAUDE_HOOK, CLAUDE_COMMAND));
        assert_eq!(merge_settings(Some(&after)).unwrap(), None);
    }

    #[test]
    fn the_matcher_is_widened_or_the_hook_moved() {
        let alone = r#"{"hooks": {"PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "/bin/notarai hook validate"}]}]}}"#;
        let after = merge_settings(Some(alone)).unwrap().unwrap();
        assert_eq!(after, alone.replace("Write|Edit", "Write|Edit|MultiEdit"));
        let shared = r#"{"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "prettier"}, {"type": "command", "command": "notarai hook validate"}]}]}}"#;
        let v = value(&merge_settings(Some(shared)).unwrap().unwrap());
        let groups = v["hooks"]["PostToolUse"].as_array().unwrap();
        assert_eq!(
            groups[0],
            json!({"matcher": "Write", "hooks": [{"type": "command", "command": "prettier"}]})
        );
        assert_eq!(groups[1], hook_item(CLAUDE_HOOK, CLAUDE_COMMAND));
        for covered in ["", "*", "MultiEdit|Edit|Write|NotebookEdit"] {
            let text = alone.replace("Write|Edit", covered);
            assert_eq!(merge_settings(Some(&text)).unwrap(), None, "{covered}");
        }
    }

    #[test]
    fn every_grouped_hook_gets_its_matcher_widened_in_jsonc_too() {
        let gemini = HookKind::Grouped {
            event: "AfterTool",
            matcher: "write_file|replace",
            extra: r#"{"name": "notarai", "timeout": 60000}"#,
        };
        let command = "notarai hook validate --agent gemini";
        let before = "{\n  // mine\n  \"hooks\": {\"AfterTool\": [{\"matcher\": \"write_file\", \"hooks\": [{\"command\": \"/bin/notarai hook validate --agent gemini\"}]}],},\n}\n";
        let after = add_hook(Some(before), Format::Jsonc, gemini, command)
            .unwrap()
            .unwrap();
        assert_eq!(
            after,
            before.replace("\"write_file\"", "\"write_file|replace\"")
        );
        assert_eq!(
            add_hook(Some(&after), Format::Jsonc, gemini, command).unwrap(),
            None
        );
    }
}
