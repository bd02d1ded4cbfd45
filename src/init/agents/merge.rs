//! Adding notarai's entries to an agent's configuration and taking them out
//! again, format-preserving: JSON and JSON with comments through
//! [`crate::init::json_edit`], TOML through `toml_edit`.
//!
//! What counts as notarai's own, for `--remove`: an MCP entry named
//! `notarai` whose value is exactly the entry `init` writes, and a hook whose
//! object is exactly the one `init` writes (its command
//! `notarai hook validate --agent <id>`). A user's differently configured
//! entry (another path, more arguments, an `env`) is kept. Containers that
//! notarai's removal leaves empty are taken out with it, and a file left
//! holding nothing else is deleted. The inverse is exact: `init` then
//! `init --remove` gives back the bytes (see `json_edit`'s insert/remove),
//! with one exception: a servers or hooks object that was already there but
//! empty (`"mcpServers": {}`) cannot be told from one notarai created, and
//! goes too.

use serde_json::{Map, Value, json};

use super::{EntryShape, Format, HookKind, SERVER_NAME, server_entry};
use crate::init::json_edit::{self, Editor, Kind, Node};
use crate::init::json_merge::{MergeError, is_notarai_context_hook, is_notarai_hook};

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

/// Check that every node along `path` is an object (or absent); the depth of
/// the first absent key.
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
            return Err(MergeError::Shape(format!(
                "`{}` is {}, expected {}",
                path[..=i].join("."),
                node.kind_name(editor.text()),
                if want_array { "an array" } else { "an object" }
            )));
        }
    }
    Ok(None)
}

/// Put `value` at `path` (its last key new), creating the missing objects
/// from depth `missing` on in one insertion.
fn insert_at(editor: &mut Editor, path: &[&str], missing: usize, value: Value) {
    let nested = nest(&path[missing + 1..], value);
    editor.insert_member(&path[..missing], path[missing], &nested);
}

/// Whether an entry runs notarai's server.
fn runs_notarai(entry: &Value, shape: EntryShape) -> bool {
    super::inspect::runs_notarai(entry, shape)
}

/// Add notarai's server to a JSON/JSONC text under `servers`. `Ok(None)`
/// when it is there already: an entry named `notarai` (kept as the user
/// has it) or another entry that runs `notarai mcp`.
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
        insert_at(&mut editor, servers, missing, json!({ SERVER_NAME: entry }));
        return Ok(Some(editor.text().to_string()));
    }
    let map = value_of(&editor, editor.at(servers).expect("checked"));
    let map = map.as_object().expect("checked to be an object");
    if map.contains_key(SERVER_NAME) || map.values().any(|e| runs_notarai(e, shape)) {
        return Ok(None);
    }
    editor.insert_member(servers, SERVER_NAME, &entry);
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
        HookKind::Plugin => "",
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
        HookKind::Plugin => unreachable!("a plugin is a whole file"),
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

/// Whether the hooks in `list` run the same notarai hook as `command`
/// (`hook validate` or `hook context`, however spelled).
fn has_hook(list: &Value, command: &str) -> bool {
    let same: fn(&str) -> bool = match is_notarai_context_hook(command) {
        true => is_notarai_context_hook,
        false => is_notarai_hook,
    };
    list.as_array().is_some_and(|items| {
        items
            .iter()
            .any(|h| h.get("command").and_then(Value::as_str).is_some_and(same))
    })
}

/// Add notarai's hook (`command`) to a JSON/JSONC text. `Ok(None)` when a
/// hook running `notarai hook validate` is registered for the event.
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
    let list = value_of(&editor, editor.at(&path).expect("checked"));
    let registered = match kind {
        HookKind::Grouped { .. } => list
            .as_array()
            .expect("checked")
            .iter()
            .any(|g| g.get("hooks").is_some_and(|h| has_hook(h, command))),
        _ => has_hook(&list, command),
    };
    if registered {
        return Ok(None);
    }
    let node = editor.at(&path).expect("checked").clone();
    editor.append_item(&node, &item);
    Ok(Some(editor.text().to_string()))
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

/// A TOML parse error as a [`MergeError`].
fn toml_error(text: &str, e: toml_edit::TomlError) -> MergeError {
    let (line, column) = e
        .span()
        .map_or((1, 1), |s| crate::init::json_edit::position(text, s.start));
    MergeError::Parse {
        line,
        column,
        message: e
            .message()
            .lines()
            .next()
            .unwrap_or("invalid TOML")
            .to_string(),
    }
}

/// `out`, which `toml_edit` wrote with `\n` line ends, with the `\r\n` of
/// `text` when every line of `text` ends so: no line of a CRLF file changes.
fn in_line_ends_of(text: &str, out: String) -> String {
    let crlf = text.contains("\r\n") && text.matches('\n').count() == text.matches("\r\n").count();
    if !crlf {
        return out;
    }
    let mut with = String::with_capacity(out.len() + out.len() / 16);
    let mut previous = '\0';
    for c in out.chars() {
        if c == '\n' && previous != '\r' {
            with.push('\r');
        }
        with.push(c);
        previous = c;
    }
    with
}

/// Add `[<servers>.notarai]` (command, args) to a TOML text. `Ok(None)`
/// when a `notarai` entry or another entry running `notarai mcp` is there.
pub fn add_toml_server(
    existing: Option<&str>,
    servers: &str,
) -> Result<Option<String>, MergeError> {
    let text = existing.unwrap_or("");
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| toml_error(text, e))?;
    let shape = EntryShape::CommandArgs { typed: None };
    if let Some(item) = doc.get(servers) {
        let Some(table) = item.as_table_like() else {
            return Err(MergeError::Shape(format!("`{servers}` is not a table")));
        };
        let value = super::inspect::parse_value("", text, Format::Toml)
            .ok()
            .and_then(|v| v.get(servers).cloned())
            .unwrap_or(Value::Null);
        if table.contains_key(SERVER_NAME)
            || value
                .as_object()
                .is_some_and(|m| m.values().any(|e| runs_notarai(e, shape)))
        {
            return Ok(None);
        }
    } else {
        let mut parent = toml_edit::Table::new();
        parent.set_implicit(true);
        doc.insert(servers, toml_edit::Item::Table(parent));
    }
    let mut args = toml_edit::Array::new();
    args.push("mcp");
    if let Some(inline) = doc[servers].as_inline_table_mut() {
        // `mcp_servers = { other = {...} }`: notarai's entry joins it as
        // one more inline table, and takes the space before `}` from the
        // entry before it (given back by `remove_toml_server`).
        let mut entry = toml_edit::InlineTable::new();
        entry.insert("command", "notarai".into());
        entry.insert("args", toml_edit::Value::Array(args));
        let mut entry = toml_edit::Value::InlineTable(entry);
        entry.decor_mut().set_prefix(" ");
        if let Some((_, last)) = inline.iter_mut().last() {
            if let Some(space) = last.decor().suffix().cloned() {
                entry.decor_mut().set_suffix(space);
            }
            last.decor_mut().set_suffix("");
        }
        inline.insert(SERVER_NAME, entry);
        return Ok(Some(in_line_ends_of(text, doc.to_string())));
    }
    let mut entry = toml_edit::Table::new();
    entry.insert("command", toml_edit::value("notarai"));
    entry.insert("args", toml_edit::value(args));
    if !text.trim().is_empty() {
        entry.decor_mut().set_prefix("\n");
    }
    let parent = doc[servers]
        .as_table_mut()
        .ok_or_else(|| MergeError::Shape(format!("`{servers}` is not a table")))?;
    parent.insert(SERVER_NAME, toml_edit::Item::Table(entry));
    let mut out = doc.to_string();
    if text.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(Some(in_line_ends_of(text, out)))
}

/// Take `[<servers>.notarai]` out of a TOML text when it is exactly what
/// `init` writes (command `notarai`, args `["mcp"]`, nothing else).
pub fn remove_toml_server(text: &str, servers: &str) -> Result<Change, MergeError> {
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| toml_error(text, e))?;
    let value = super::inspect::parse_value("", text, Format::Toml).unwrap_or(Value::Null);
    let ours = value.get(servers).and_then(|s| s.get(SERVER_NAME))
        == Some(&json!({"command": "notarai", "args": ["mcp"]}));
    if !ours {
        return Ok(Change::Unchanged);
    }
    if let Some(inline) = doc.get_mut(servers).and_then(|i| i.as_inline_table_mut()) {
        let last = inline.iter().last().is_some_and(|(k, _)| k == SERVER_NAME);
        let removed = inline.remove(SERVER_NAME);
        if let (true, Some(removed), Some((_, before))) = (last, removed, inline.iter_mut().last())
            && let Some(space) = removed.decor().suffix().cloned()
        {
            before.decor_mut().set_suffix(space);
        }
        return Ok(Change::Write(in_line_ends_of(text, doc.to_string())));
    }
    let Some(parent) = doc.get_mut(servers).and_then(|i| i.as_table_mut()) else {
        return Ok(Change::Unchanged);
    };
    parent.remove(SERVER_NAME);
    if parent.is_empty() && parent.is_implicit() {
        doc.remove(servers);
    }
    let out = in_line_ends_of(text, doc.to_string());
    if out.trim().is_empty() {
        return Ok(Change::Delete(out));
    }
    Ok(Change::Write(out))
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

    #[test]
    fn toml_server_added_once_and_removed_byte_for_byte() {
        for before in [
            "",
            "# codex\nmodel = \"o3\"\n\n[mcp_servers.other]\ncommand = \"x\" # mine\n",
            "model = 1\n# end\n",
        ] {
            let after = add_toml_server(Some(before), "mcp_servers")
                .unwrap()
                .unwrap();
            let v: toml_edit::DocumentMut = after.parse().unwrap();
            assert_eq!(
                v["mcp_servers"]["notarai"]["command"].as_str(),
                Some("notarai")
            );
            assert_eq!(add_toml_server(Some(&after), "mcp_servers").unwrap(), None);
            let removed = remove_toml_server(&after, "mcp_servers").unwrap();
            if before.is_empty() {
                assert!(matches!(removed, Change::Delete(_)));
            } else {
                assert_eq!(removed, Change::Write(before.to_string()), "{after}");
            }
        }
    }
}
