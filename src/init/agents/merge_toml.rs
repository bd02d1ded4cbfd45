//! notarai's MCP entry in a TOML configuration (Codex CLI's
//! `.codex/config.toml`), added and taken out through `toml_edit`, format
//! preserving: `init` then `init --remove` gives back the bytes.

use serde_json::{Value, json};

use super::merge::{Change, MergeError};
use super::{EntryShape, Format, SERVER_NAME};

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
                .is_some_and(|m| m.values().any(|e| super::inspect::runs_notarai(e, shape)))
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
