//! The one merger of notarai's entries into an agent's JSON or JSON with
//! comments: its MCP server entry (here) and its hooks (`hooks.rs`), added
//! by `init` and taken out by `init --remove`, every agent alike, through
//! the format-preserving editor [`crate::init::json_edit`] (TOML:
//! `merge_toml.rs`).
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

use super::{EntryShape, Format, SERVER_NAME, server_entry};
use crate::init::json_edit::{self, Editor, Kind, Node, ReadError};

mod hook_if;
mod hooks;

pub use hook_if::{conditions_in, set_conditions};
pub use hooks::{add_hook, remove_hook};

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
/// nothing, not even a comment; the text before the first removal and
/// after each one.
fn prune(editor: &mut Editor, path: &[&str]) -> Vec<String> {
    let mut steps = vec![editor.text().to_string()];
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
            break;
        }
        editor.remove_member(&path[..depth - 1], path[depth - 1]);
        steps.push(editor.text().to_string());
    }
    steps
}

/// `removal` (what [`finish`] decided), unless it deletes a file the user
/// had: a file is deleted only when it cannot be told apart from one
/// `init` created, else the text it had before `init` is given back byte
/// for byte. That text is the most pruned of `steps` (the text with
/// notarai's part taken out, then with each container it left empty
/// pruned, [`prune`]) that `add` turns into `text`: an empty container
/// the user had (Cursor's `"hooks": {}`) is so kept. A step that `add`
/// makes into what it makes of no file (an empty object, notarai's other
/// part of the file) cannot be told apart from no file: deleted, as is a
/// file when no step gives `text` back (edited since `init`).
fn kept_if_theirs(
    removal: Change,
    text: &str,
    steps: &[String],
    add: impl Fn(Option<&str>) -> Result<Option<String>, MergeError>,
) -> Change {
    if !matches!(removal, Change::Delete(_)) {
        return removal;
    }
    let made = |old: Option<&str>| add(old).ok().flatten();
    let created = made(None);
    if created.as_deref() == Some(text) {
        return removal;
    }
    match steps
        .iter()
        .rev()
        .find(|step| made(Some(step)).as_deref() == Some(text))
    {
        Some(step) if made(Some(step)) != created => Change::Write(step.clone()),
        _ => removal,
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
    let steps = prune(&mut editor, servers);
    let add = |old: Option<&str>| add_json_server(old, format, servers, shape);
    Ok(kept_if_theirs(finish(editor, text, ""), text, &steps, add))
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

    /// Claude Code's MCP file, as in the table.
    const CLAUDE_SERVERS: &[&str] = &["mcpServers"];
    const CLAUDE_SHAPE: EntryShape = EntryShape::CommandArgs {
        typed: Some("stdio"),
    };

    fn merge_mcp(existing: Option<&str>) -> Result<Option<String>, MergeError> {
        add_json_server(existing, Format::Json, CLAUDE_SERVERS, CLAUDE_SHAPE)
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
        assert!(matches!(merge_mcp(Some("[]")), Err(MergeError::Shape(_))));
        assert!(matches!(
            merge_mcp(Some(r#"{"mcpServers": 3}"#)),
            Err(MergeError::Shape(_))
        ));
        assert!(matches!(
            merge_mcp(Some(r#"{"mcpServers": {"notarai": "x"}}"#)),
            Err(MergeError::Shape(_))
        ));
    }
}
