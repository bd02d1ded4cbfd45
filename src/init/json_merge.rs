//! Merging notarai's entries into JSON files a user already has:
//! `.mcp.json` and `.claude/settings.json`.
//!
//! The files are edited, not rewritten (see [`super::json_edit`]): what
//! notarai does not add stays byte for byte, numbers keep their digits, and
//! a file with a key given twice is refused with its position. A merge that
//! changes nothing returns `None`.

use serde_json::{Value, json};

use super::json_edit::{Editor, Kind, Node, ReadError};

/// The name of notarai's server under `mcpServers`.
pub const SERVER_NAME: &str = "notarai";
/// The command of the PostToolUse hook (the event is Claude Code's).
const HOOK_COMMAND: &str = "notarai hook validate --agent claude";
/// The hook command notarai wrote before `--agent` (still recognised, and
/// taken out by `init --remove`).
pub const LEGACY_HOOK_COMMAND: &str = "notarai hook validate";
/// The tools whose edits the hook checks.
const HOOK_MATCHER: &str = "Write|Edit|MultiEdit";

/// Why a JSON file cannot be merged. The file is left alone.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// Not valid JSON, or a key given twice.
    #[error("{line}:{column}: not valid JSON: {message}")]
    Parse {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// Valid JSON of a shape notarai does not know how to merge into.
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

/// An editor over an existing, non-blank JSON text whose top level is an
/// object; `None` when there is no text to edit.
fn open(existing: Option<&str>) -> Result<Option<Editor>, MergeError> {
    let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
        return Ok(None);
    };
    let editor = Editor::new(text)?;
    if !matches!(editor.root().kind, Kind::Object(_)) {
        return Err(MergeError::Shape(format!(
            "the top level is {}, expected an object",
            editor.root().kind_name(text)
        )));
    }
    Ok(Some(editor))
}

/// Check that the node at `path`, when present, is of the expected kind.
fn expect(editor: &Editor, path: &[&str], object: bool) -> Result<Option<Node>, MergeError> {
    let Some(node) = editor.at(path) else {
        return Ok(None);
    };
    let ok = match node.kind {
        Kind::Object(_) => object,
        Kind::Array(_) => !object,
        _ => false,
    };
    if ok {
        Ok(Some(node.clone()))
    } else {
        Err(MergeError::Shape(format!(
            "`{}` is {}, expected {}",
            path.join("."),
            node.kind_name(editor.text()),
            if object { "an object" } else { "an array" }
        )))
    }
}

/// The `.mcp.json` entry of the notarai server.
pub fn server_entry() -> Value {
    json!({"type": "stdio", "command": "notarai", "args": ["mcp"]})
}

/// Whether `program` names a notarai binary, however it is spelled (a
/// bare name or a path, `.exe` on Windows).
pub fn is_notarai_program(program: &str) -> bool {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    name == "notarai" || name.eq_ignore_ascii_case("notarai.exe")
}

/// Split a command line into words: whitespace separates, single or double
/// quotes group.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut any = false;
    for c in command.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                any = true;
            }
            (None, c) if c.is_whitespace() => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            (None, c) => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

/// Whether a hook command runs `notarai hook validate`, however spelled: a
/// path to the binary, extra spaces, quotes, a wrapper such as `npx` in front.
pub fn is_notarai_hook(command: &str) -> bool {
    let words = words(command);
    words
        .windows(3)
        .any(|w| is_notarai_program(&w[0]) && w[1] == "hook" && w[2] == "validate")
}

/// Whether `command` runs notarai's pre-edit hook (`notarai hook context`,
/// however the program is spelled).
pub fn is_notarai_context_hook(command: &str) -> bool {
    let words = words(command);
    words
        .windows(3)
        .any(|w| is_notarai_program(&w[0]) && w[1] == "hook" && w[2] == "context")
}

/// Whether a `mcpServers` entry already runs notarai's server: a notarai
/// binary (any path) with `mcp` among its arguments.
fn runs_notarai_server(entry: &Node) -> bool {
    let command = entry.get("command").and_then(Node::as_str);
    let args = entry.get("args").and_then(Node::items).unwrap_or_default();
    command.is_some_and(is_notarai_program) && args.iter().any(|a| a.as_str() == Some("mcp"))
}

/// Merge the notarai server into `.mcp.json` text. `Ok(None)` when the file
/// already has it. A user's own `notarai` entry is kept as it is (its
/// command, args such as `--root`, env); so is any entry under another name
/// that runs `notarai mcp`. Only an entry with neither `command` nor `url`
/// gets the keys it lacks.
pub fn merge_mcp(existing: Option<&str>) -> Result<Option<String>, MergeError> {
    let Some(mut editor) = open(existing)? else {
        return Ok(Some(render(
            &json!({"mcpServers": {SERVER_NAME: server_entry()}}),
        )));
    };
    let Some(servers) = expect(&editor, &["mcpServers"], true)? else {
        editor.insert_member(&[], "mcpServers", &json!({SERVER_NAME: server_entry()}));
        return Ok(Some(editor.text().to_string()));
    };
    let Kind::Object(members) = &servers.kind else {
        unreachable!("checked to be an object")
    };
    if members
        .iter()
        .any(|m| m.key != SERVER_NAME && runs_notarai_server(&m.value))
    {
        return Ok(None);
    }
    let Some(entry) = expect(&editor, &["mcpServers", SERVER_NAME], true)? else {
        editor.insert_member(&["mcpServers"], SERVER_NAME, &server_entry());
        return Ok(Some(editor.text().to_string()));
    };
    if entry.get("command").is_some() || entry.get("url").is_some() {
        return Ok(None);
    }
    let wanted = server_entry();
    for (key, value) in wanted.as_object().expect("an object") {
        if editor.at(&["mcpServers", SERVER_NAME, key]).is_none() {
            editor.insert_member(&["mcpServers", SERVER_NAME], key, value);
        }
    }
    Ok(Some(editor.text().to_string()))
}

/// Whether a hook matcher makes the hook run for every tool in
/// [`HOOK_MATCHER`]: absent, empty or `*` match all tools; else each tool
/// must be one of its `|`-separated names.
fn matcher_covers(matcher: Option<&str>) -> bool {
    let Some(m) = matcher.map(str::trim) else {
        return true;
    };
    if m.is_empty() || m == "*" || m == ".*" {
        return true;
    }
    let names: Vec<&str> = m.split('|').map(str::trim).collect();
    HOOK_MATCHER.split('|').all(|tool| names.contains(&tool))
}

/// The matcher that covers notarai's tools, keeping the names a simple
/// `A|B` matcher already has.
fn fixed_matcher(matcher: Option<&str>) -> String {
    let Some(m) = matcher.filter(|m| {
        m.split('|').all(|n| {
            !n.trim().is_empty()
                && n.trim()
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    }) else {
        return HOOK_MATCHER.to_string();
    };
    let mut names: Vec<&str> = m.split('|').map(str::trim).collect();
    for tool in HOOK_MATCHER.split('|') {
        if !names.contains(&tool) {
            names.push(tool);
        }
    }
    names.join("|")
}

/// Indexes of the hooks of a PostToolUse group that run notarai's hook.
fn notarai_hooks(group: &Node) -> Vec<usize> {
    group
        .get("hooks")
        .and_then(Node::items)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter(|(_, h)| {
            h.get("command")
                .and_then(Node::as_str)
                .is_some_and(is_notarai_hook)
        })
        .map(|(i, _)| i)
        .collect()
}

/// notarai's PostToolUse group.
fn hook_group() -> Value {
    json!({
        "matcher": HOOK_MATCHER,
        "hooks": [{"type": "command", "command": HOOK_COMMAND}]
    })
}

/// Merge the PostToolUse validation hook into `.claude/settings.json` text.
/// A hook that runs `notarai hook validate` (however the command is spelled)
/// is recognised, never added twice; when its group's matcher misses one of
/// [`HOOK_MATCHER`]'s tools, the matcher is widened if the group runs only
/// notarai, else notarai's hook moves to a group of its own (the other hooks
/// and their matcher untouched). `Ok(None)` when nothing changes.
pub fn merge_settings(existing: Option<&str>) -> Result<Option<String>, MergeError> {
    let Some(mut editor) = open(existing)? else {
        return Ok(Some(render(
            &json!({"hooks": {"PostToolUse": [hook_group()]}}),
        )));
    };
    if expect(&editor, &["hooks"], true)?.is_none() {
        editor.insert_member(&[], "hooks", &json!({"PostToolUse": [hook_group()]}));
        return Ok(Some(editor.text().to_string()));
    }
    let Some(post) = expect(&editor, &["hooks", "PostToolUse"], false)? else {
        editor.insert_member(&["hooks"], "PostToolUse", &json!([hook_group()]));
        return Ok(Some(editor.text().to_string()));
    };
    let groups = post.items().expect("checked to be an array");
    let ours: Vec<(usize, Vec<usize>)> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| (i, notarai_hooks(g)))
        .filter(|(_, hooks)| !hooks.is_empty())
        .collect();
    let matcher = |g: &Node| {
        g.get("matcher")
            .map(|m| m.as_str().unwrap_or("\u{0}").to_string())
    };
    if ours
        .iter()
        .any(|(i, _)| matcher_covers(matcher(&groups[*i]).as_deref()))
    {
        return Ok(None);
    }
    let Some((index, hooks)) = ours.first().cloned() else {
        editor.append_item(&post, &hook_group());
        return Ok(Some(editor.text().to_string()));
    };
    let group = groups[index].clone();
    let all_hooks = group.get("hooks").and_then(Node::items).unwrap_or_default();
    if hooks.len() == all_hooks.len() {
        let fixed = fixed_matcher(matcher(&group).as_deref());
        match group.get("matcher") {
            Some(node) => {
                let node = node.clone();
                editor.replace(&node, &json!(fixed));
            }
            None => unreachable!("an absent matcher covers every tool"),
        }
    } else {
        // Take notarai's hook out of the shared group, last index first.
        for &h in hooks.iter().rev() {
            let list = editor
                .root()
                .get("hooks")
                .and_then(|n| n.get("PostToolUse"))
                .and_then(|n| n.items())
                .and_then(|g| g[index].get("hooks"))
                .expect("the group's hooks")
                .clone();
            editor.remove_item(&list, h);
        }
        let post = editor
            .at(&["hooks", "PostToolUse"])
            .expect("the PostToolUse array")
            .clone();
        editor.append_item(&post, &hook_group());
    }
    Ok(Some(editor.text().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(value(&after)["mcpServers"]["notarai"], server_entry());
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
        assert_eq!(groups[1]["matcher"], HOOK_MATCHER);
        assert_eq!(groups[1]["hooks"][0]["command"], HOOK_COMMAND);
        assert_eq!(merge_settings(Some(&after)).unwrap(), None);
    }

    #[test]
    fn the_hook_is_recognised_however_spelled() {
        for command in [
            "notarai hook validate",
            "/home/u/.cargo/bin/notarai hook validate",
            "  notarai   hook  validate ",
            "\"/opt/my tools/notarai\" hook validate",
            "npx notarai hook validate",
            "C:\\tools\\notarai.exe hook validate",
        ] {
            assert!(is_notarai_hook(command), "{command}");
        }
        for command in [
            "notarai validate",
            "echo notarai hook validate-x",
            "notarai-hook validate",
        ] {
            assert!(!is_notarai_hook(command), "{command}");
        }
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
        assert_eq!(groups[1], hook_group());
        for covered in ["", "*", "MultiEdit|Edit|Write|NotebookEdit"] {
            let text = alone.replace("Write|Edit", covered);
            assert_eq!(merge_settings(Some(&text)).unwrap(), None, "{covered}");
        }
        assert_eq!(fixed_matcher(Some("(Write|Edit)")), HOOK_MATCHER);
    }
}
