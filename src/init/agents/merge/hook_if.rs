//! The `if` filters of notarai's pre-edit hook handlers in an agent's
//! settings (Claude Code's per-handler `if`): set to one handler per
//! condition, or one handler without `if`, in place. Only notarai's own
//! handlers are touched; every other byte stays as it was.

use serde_json::Value;

use super::{MergeError, open, value_of};
use crate::init::agents::Format;
use crate::init::agents::commands::is_notarai_context_hook;
use crate::init::json_edit::{Editor, Node};

/// Where notarai's pre-edit handlers are in `hooks.<event>`: the index of
/// the first group holding one, and their indexes in its `hooks`.
fn ours(editor: &Editor, event: &str) -> Option<(usize, Vec<usize>)> {
    let groups = editor.at(&["hooks", event])?.items()?;
    groups.iter().enumerate().find_map(|(i, group)| {
        let hooks = group.get("hooks")?.items()?;
        let mine: Vec<usize> = hooks
            .iter()
            .enumerate()
            .filter(|(_, h)| {
                h.get("command")
                    .and_then(Node::as_str)
                    .is_some_and(is_notarai_context_hook)
            })
            .map(|(j, _)| j)
            .collect();
        (!mine.is_empty()).then_some((i, mine))
    })
}

/// The `if` of each of notarai's pre-edit handlers in `text` (`None` for a
/// handler without one), in order; `None` when the text does not parse or
/// holds no such handler.
pub fn conditions_in(text: &str, format: Format, event: &str) -> Option<Vec<Option<String>>> {
    let editor = open(text, format).ok()?;
    let (group, mine) = ours(&editor, event)?;
    let hooks = editor.at(&["hooks", event])?.items()?[group]
        .get("hooks")?
        .items()?;
    Some(
        mine.iter()
            .map(|&j| {
                hooks[j]
                    .get("if")
                    .and_then(Node::as_str)
                    .map(str::to_string)
            })
            .collect(),
    )
}

/// Set notarai's pre-edit handlers of `hooks.<event>` in `existing` to one
/// per condition of `conditions` (each with its `if`), or to one without
/// `if` when `conditions` is `None`. `Ok(None)` when nothing changes,
/// including when notarai's pre-edit hook is not registered there.
pub fn set_conditions(
    existing: Option<&str>,
    format: Format,
    event: &str,
    conditions: Option<&[String]>,
) -> Result<Option<String>, MergeError> {
    let Some(text) = existing.filter(|t| !t.trim().is_empty()) else {
        return Ok(None);
    };
    let mut editor = open(text, format)?;
    let Some((group, mine)) = ours(&editor, event) else {
        return Ok(None);
    };
    let hooks_at = |editor: &Editor| -> Node {
        editor
            .at(&["hooks", event])
            .expect("found")
            .items()
            .expect("an array")[group]
            .get("hooks")
            .expect("found")
            .clone()
    };
    let hooks = hooks_at(&editor);
    let items = hooks.items().expect("an array");
    let current: Vec<Value> = mine.iter().map(|&j| value_of(&editor, &items[j])).collect();
    let mut base = current[0].clone();
    if let Value::Object(map) = &mut base {
        map.remove("if");
    }
    let wanted: Vec<Value> = match conditions {
        None => vec![base],
        Some(list) => list
            .iter()
            .map(|c| {
                let mut handler = base.clone();
                if let Value::Object(map) = &mut handler {
                    map.insert("if".into(), Value::String(c.clone()));
                }
                handler
            })
            .collect(),
    };
    if current == wanted {
        return Ok(None);
    }
    for &j in mine.iter().rev() {
        let hooks = hooks_at(&editor);
        editor.remove_item(&hooks, j);
    }
    for handler in &wanted {
        let hooks = hooks_at(&editor);
        editor.append_item(&hooks, handler);
    }
    Ok((editor.text() != text).then(|| editor.text().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINE: &str = r#"{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "if": "Bash(git *)"}]}, {"matcher": "Write|Edit|MultiEdit", "hooks": [{"type": "command", "command": "notarai hook context"}]}]}}"#;

    #[test]
    fn conditions_are_set_changed_and_taken_away_in_place() {
        let two = ["Edit(src/**)".to_string(), "Edit(.notarai/**)".to_string()];
        let set = set_conditions(Some(MINE), Format::Json, "PreToolUse", Some(&two))
            .unwrap()
            .unwrap();
        assert_eq!(
            conditions_in(&set, Format::Json, "PreToolUse").unwrap(),
            [Some(two[0].clone()), Some(two[1].clone())]
        );
        // The user's handler, its `if` included, is untouched.
        assert!(set.starts_with(
            r#"{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "if": "Bash(git *)"}]}"#
        ));
        // The same again: nothing to do.
        assert_eq!(
            set_conditions(Some(&set), Format::Json, "PreToolUse", Some(&two)).unwrap(),
            None
        );
        // No conditions: one handler without `if`, as init writes it.
        let none = set_conditions(Some(&set), Format::Json, "PreToolUse", None)
            .unwrap()
            .unwrap();
        assert_eq!(
            conditions_in(&none, Format::Json, "PreToolUse").unwrap(),
            [None]
        );
        let v: Value = serde_json::from_str(&none).unwrap();
        let m: Value = serde_json::from_str(MINE).unwrap();
        assert_eq!(v, m);
    }

    #[test]
    fn nothing_without_notarai_s_hook() {
        let text = r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}}"#;
        let one = ["Edit(src/**)".to_string()];
        assert_eq!(
            set_conditions(Some(text), Format::Json, "PreToolUse", Some(&one)).unwrap(),
            None
        );
        assert_eq!(conditions_in(text, Format::Json, "PreToolUse"), None);
    }
}
