//! notarai's hooks in an agent's JSON or JSON with comments: added once
//! (a group's matcher widened, or notarai's hook moved to a group of its
//! own, when the agent's tools are not all covered), taken out exactly.

use serde_json::{Map, Value, json};

use super::{
    Change, MergeError, check_path, extra_members, finish, kept_if_theirs, open, prune, render,
    value_of,
};
use crate::init::agents::Format;
use crate::init::agents::HookKind;
use crate::init::agents::commands::{matcher_covers, same_hook, widened_matcher};
use crate::init::json_edit::{Editor, Node};

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
        HookKind::Grouped { matcher: "", .. } => json!({"hooks": [hook_object(kind, command)]}),
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

/// A hook object without its `if` member: notarai's pre-edit handler with
/// the `if` `notarai rules` gave it is still the object `init` wrote.
fn without_if(mut hook: Value) -> Value {
    if let Value::Object(map) = &mut hook {
        map.remove("if");
    }
    hook
}

/// Take notarai's hook out of a JSON/JSONC text: each hook object exactly
/// as `init` writes it (with one of `commands`; an `if` of its own aside),
/// a group left empty with it,
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
                    .filter(|(_, h)| ours.contains(&without_if(value_of(&editor, h))))
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
    let steps = prune(&mut editor, &path);
    let preamble = match kind {
        HookKind::Flat { preamble, .. } => preamble,
        _ => "",
    };
    let add = |old: Option<&str>| add_hook(old, format, kind, &commands[0]);
    Ok(kept_if_theirs(
        finish(editor, text, preamble),
        text,
        &steps,
        add,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claude Code's hook, as in the table.
    const CLAUDE_HOOK: HookKind = HookKind::Grouped {
        event: "PostToolUse",
        matcher: "Write|Edit|MultiEdit",
        extra: "",
    };
    const CLAUDE_COMMAND: &str = "notarai hook validate --agent claude";

    fn merge_settings(existing: Option<&str>) -> Result<Option<String>, MergeError> {
        add_hook(existing, Format::Json, CLAUDE_HOOK, CLAUDE_COMMAND)
    }

    fn value(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
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
    fn malformed_duplicate_and_misshapen_files_are_errors() {
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

#[cfg(test)]
mod before_init_tests {
    use super::*;

    /// Cursor's hook, as in the table.
    const CURSOR_HOOK: HookKind = HookKind::Flat {
        event: "afterFileEdit",
        extra: "",
        preamble: r#"{"version": 1}"#,
    };
    const CURSOR_COMMAND: &str = "notarai hook validate --agent cursor";

    /// Added then removed, each file the user may have had comes back
    /// byte for byte (an empty `hooks` object included); the file `init`
    /// created is deleted. (A file byte for byte what `init` creates from
    /// nothing cannot be told apart from one it created.)
    #[test]
    fn a_hook_file_comes_back_as_it_was_before_init() {
        let commands = [CURSOR_COMMAND.to_string()];
        for before in [
            "{\"version\": 1, \"hooks\": {}}\n",
            "{\"version\": 1}\n",
            "{\"version\": 1, \"hooks\": {\"afterFileEdit\": []}}\n",
        ] {
            let added = add_hook(Some(before), Format::Json, CURSOR_HOOK, CURSOR_COMMAND)
                .unwrap()
                .unwrap();
            let removed = remove_hook(&added, Format::Json, CURSOR_HOOK, &commands).unwrap();
            assert_eq!(removed, Change::Write(before.to_string()), "{added}");
        }
        let created = add_hook(None, Format::Json, CURSOR_HOOK, CURSOR_COMMAND)
            .unwrap()
            .unwrap();
        let removed = remove_hook(&created, Format::Json, CURSOR_HOOK, &commands).unwrap();
        assert!(matches!(removed, Change::Delete(_)), "{removed:?}");
    }
}
