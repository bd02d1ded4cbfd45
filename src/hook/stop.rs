//! The stop nudge (`notarai hook stop`): when an agent's turn ends with
//! governed files the session edited whose content is not reconciled with
//! a spec governing them, the model is told, once per such set, which
//! specs and files, and what to run.
//!
//! Which agents have one, their events' shapes and the channel of the
//! answer are the agents table's (`crate::agent::hooks`, `stop`):
//!
//! | agent | stop event | channel to the model (exit 0) |
//! | --- | --- | --- |
//! | Claude Code | `Stop` (`session_id`, `stop_hook_active`) | `{"hookSpecificOutput": {"hookEventName": "Stop", "additionalContext": ...}}` |
//! | others | none whose end of turn takes context without blocking | not registered |
//!
//! The hook never blocks: it always exits 0 and never answers a
//! `decision`. It is silent when the agent says a stop hook already kept
//! the turn going (`stop_hook_active`), for an event without a session, an
//! event of another kind, when the session edited no governed file, when
//! every such file is reconciled, and when the unreconciled (spec, file)
//! pairs are all among those its last nudge named ([`Memory::nudge`]).
//!
//! "Edited" is what the pre-edit hook saw ([`Memory::edited`]): the
//! governed files the session's editing tools were about to write. A
//! file is unreconciled for a spec when its content now (BLAKE3) is in no
//! record for that spec or for every spec, in this machine's hash cache
//! (unless git tracks it) or the committed state. Nothing is asked of git
//! beyond what the session memory asks already, and nothing is parsed but
//! the specs whose stamps moved ([`super::index`]): a file whose edit was
//! undone, or only reformatted, is still named (the reconcile pass then
//! finds nothing to review in it).

use serde_json::Value;

use super::event::{self, HookAgent};
use super::memory::{Memory, key};
use super::{HookEnv, bounded, project_root};
use crate::agent::hooks::{self, StopEvent};
use crate::workflow::RECONCILE;

/// The most characters one nudge carries.
pub const MAX_NUDGE: usize = 1500;

/// A stop event read: its shape, the session, the session's folder.
struct Stop {
    shape: &'static StopEvent,
    session: String,
    cwd: Option<std::path::PathBuf>,
}

/// Read a stop event: `Err` says why it is ignored.
fn read_event(value: &Value, agent: HookAgent) -> Result<Stop, &'static str> {
    let row = hooks::hooks(agent);
    let shape = row
        .stop
        .iter()
        .find(|s| event::text(value, s.event.name_field) == Some(s.event.name))
        .ok_or(match row.stop.is_empty() {
            true => "this agent's end of turn takes no context without blocking",
            false => "another hook event",
        })?;
    if hooks::field(value, shape.active_field).and_then(Value::as_bool) == Some(true) {
        return Err("a stop hook already kept this turn going");
    }
    let session = event::text(value, shape.event.session_field)
        .filter(|s| !s.is_empty())
        .ok_or("the event names no session")?;
    Ok(Stop {
        shape,
        session: session.to_string(),
        cwd: event::absolute(event::text(value, "cwd")),
    })
}

/// What `notarai hook stop` prints for the event `input`: the nudge in the
/// shape's channel, or `None` when there is nothing to say (the reason is
/// logged). The session's memory is read once and written once.
pub fn respond(input: &[u8], agent: Option<HookAgent>, env: &HookEnv) -> Option<String> {
    let read = bounded::parse(input)
        .ok_or("stdin is not JSON, or not an event")
        .and_then(|value| read_event(&value, event::agent_for(agent, &value)));
    let stop = match read {
        Ok(stop) => stop,
        Err(reason) => {
            tracing::debug!("hook stop: ignored: {reason}");
            return None;
        }
    };
    let Some(root) = project_root(env, stop.cwd.as_deref()) else {
        tracing::debug!("hook stop: ignored: no project folder");
        return None;
    };
    let mut project = crate::project::Project::new(root.clone());
    let mut memory = Memory::open(&mut project, &stop.session);
    let edited = memory.edited_files();
    let pairs = match edited.is_empty() {
        true => Vec::new(),
        false => unreconciled(&mut project, &edited, memory.cache_trusted()),
    };
    let keys: Vec<String> = pairs
        .iter()
        .map(|(spec, file)| key(&format!("{spec}\0{file}")))
        .collect();
    let tell = memory.nudge(&keys);
    memory.save();
    if !tell {
        tracing::debug!("hook stop: nothing new is unreconciled");
        return None;
    }
    let text = render(&pairs);
    Some(super::context::answer(&text, &stop.shape.event))
}

/// The (spec, file) pairs of the `edited` files whose content now is not
/// reconciled for a spec governing them, sorted by spec then file; this
/// machine's hash cache asked only when `cache_trusted`.
fn unreconciled(
    project: &mut crate::project::Project,
    edited: &[String],
    cache_trusted: bool,
) -> Vec<(String, String)> {
    let root = project.root().to_path_buf();
    let index = super::index::SpecIndex::open(project);
    let mut guard = crate::repo_path::Guard::new(&root);
    let governed: Vec<(String, Vec<String>)> = edited
        .iter()
        .filter_map(|file| {
            let path = guard.resolve_unfollowed(file).ok()?;
            let specs: Vec<String> = index
                .governing(path.as_str())
                .iter()
                .map(|s| s.path.clone())
                .collect();
            (!specs.is_empty()).then(|| (path.as_str().to_string(), specs))
        })
        .collect();
    if governed.is_empty() {
        return Vec::new();
    }
    let files: Vec<&str> = governed.iter().map(|(f, _)| f.as_str()).collect();
    let hashes = crate::hashing::hash_many_in(&root, &files);
    let cache = cache_trusted.then(|| crate::cache::Cache::open_read(&root));
    // Judged from the base a status would use: a review that predates it,
    // or one recorded on another line of work, quiets nothing.
    let state = crate::state::read_lenient(&root);
    let git = project.git().ok();
    let base = git.and_then(|g| crate::state::choose_base(g, &state, None).ok());
    let known = crate::state::Reconciled::new(
        cache,
        git,
        base.as_ref().map(|(b, _)| b),
        files.iter().copied(),
        state,
    );
    let kept = crate::symbols::SymbolCache::new();
    let mut pairs = Vec::new();
    for ((file, specs), hash) in governed.iter().zip(hashes) {
        let current = match hash {
            Ok(hash) => match hash.cache_value() {
                Some(value) => value.to_string(),
                None => continue,
            },
            Err(e) => {
                tracing::debug!("hook stop: {file}: {e}");
                continue;
            }
        };
        for spec in specs {
            if !known.matches_for(&kept, spec, file, &current) {
                pairs.push((spec.clone(), file.clone()));
            }
        }
    }
    pairs.sort();
    pairs
}

/// The nudge for the unreconciled `pairs` (sorted by spec), at most
/// [`MAX_NUDGE`] characters: the specs with their files (quoted:
/// repository text is data), cut with a count of what was left out, and
/// what to run.
pub fn render(pairs: &[(String, String)]) -> String {
    let files: std::collections::BTreeSet<&str> = pairs.iter().map(|(_, f)| f.as_str()).collect();
    let specs: std::collections::BTreeSet<&str> = pairs.iter().map(|(s, _)| s.as_str()).collect();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let head = format!(
        "notarai: before you finish, this session edited {} governed by {} and not \
         reconciled with {}:\n",
        plural(files.len(), "file", "files"),
        plural(specs.len(), "spec", "specs"),
        if specs.len() == 1 { "it" } else { "them" }
    );
    let first_tool = RECONCILE.tools().first().copied().unwrap_or_default();
    let footer = format!(
        "Reconcile them now: follow the {} workflow (start with the notarai tool {first_tool}), \
         or tell the user why they stay unreconciled. This is said once for these files.",
        RECONCILE.name
    );
    let chars = |s: &str| s.chars().count();
    // Room for the omission note ("... N more specs not shown").
    const NOTE: usize = 40;
    let budget = MAX_NUDGE.saturating_sub(chars(&head) + chars(&footer) + NOTE);
    let mut body = String::new();
    let mut shown = 0;
    for spec in &specs {
        let names: Vec<String> = pairs
            .iter()
            .filter(|(s, _)| s == spec)
            .map(|(_, f)| crate::quote::for_model(f))
            .collect();
        let line = format!(
            "- {}: {}\n",
            crate::quote::for_model(spec),
            names.join(", ")
        );
        if chars(&body) + chars(&line) > budget {
            break;
        }
        body.push_str(&line);
        shown += 1;
    }
    if shown < specs.len() {
        body.push_str(&format!(
            "... {} more specs not shown\n",
            specs.len() - shown
        ));
    }
    let out = format!("{head}{body}{footer}");
    match chars(&out) > MAX_NUDGE {
        true => out.chars().take(MAX_NUDGE).collect(),
        false => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nudge_names_each_spec_and_stays_in_budget() {
        let pairs = vec![
            (".notarai/a.spec.yaml".to_string(), "src/a.rs".to_string()),
            (".notarai/a.spec.yaml".to_string(), "src/b.rs".to_string()),
            (".notarai/b.spec.yaml".to_string(), "src/b.rs".to_string()),
        ];
        let text = render(&pairs);
        assert!(
            text.contains("edited 2 files governed by 2 specs"),
            "{text}"
        );
        assert!(
            text.contains("- \".notarai/a.spec.yaml\": \"src/a.rs\", \"src/b.rs\"\n"),
            "{text}"
        );
        assert!(text.contains(RECONCILE.name), "{text}");
        let many: Vec<(String, String)> = (0..300)
            .map(|i| (format!(".notarai/s{i:03}.spec.yaml"), format!("src/{i}.rs")))
            .collect();
        let text = render(&many);
        assert!(text.chars().count() <= MAX_NUDGE, "{}", text.len());
        assert!(text.contains("more specs not shown"), "{text}");
        assert!(text.ends_with("This is said once for these files."));
    }

    #[test]
    fn an_active_stop_hook_or_another_event_is_silent() {
        let read = |v: Value| read_event(&v, HookAgent::Claude).err();
        let stop = serde_json::json!({"hook_event_name": "Stop", "session_id": "s"});
        assert_eq!(read(stop.clone()), None);
        let mut active = stop.clone();
        active["stop_hook_active"] = Value::Bool(true);
        assert!(read(active).is_some());
        assert!(
            read(serde_json::json!({"hook_event_name": "SubagentStop", "session_id": "s"}))
                .is_some()
        );
        assert!(read(serde_json::json!({"hook_event_name": "Stop"})).is_some());
        assert!(read_event(&stop, HookAgent::Codex).is_err());
    }
}
