//! The pre-edit hook (`notarai hook context`): before an agent edits a
//! governed file, the governing specs' constraints and invariants, put in
//! front of the model in at most [`MAX_CONTEXT`] characters.
//!
//! Which agents have one, their events' shapes and the channel of the
//! answer are the agents table's (`crate::agent::hooks`, `pre_edit`):
//!
//! | agent | pre-edit event | channel to the model (exit 0) |
//! | --- | --- | --- |
//! | Claude Code | `PreToolUse` (`Write`, `Edit`, `MultiEdit`) | `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": ...}}` |
//! | Codex CLI | `PreToolUse` (`apply_patch`: every file the patch's headers name) | the same |
//! | VS Code, Local harness | `PreToolUse` (camelCase, its editing tools) | the same |
//! | the Copilot format (VS Code's Copilot harness, Copilot CLI) | `preToolUse` (`toolName` `edit`/`create`, `toolArgs`) | `{"additionalContext": ...}` |
//! | Cursor | `preToolUse` (`Write`, `tool_input.file_path`) | `{"additional_context": ...}` |
//! | others | none that can add text before the model without blocking | not registered |
//!
//! The hook never blocks: it always exits 0 and never answers a
//! `permissionDecision`. It is silent for a file no spec governs, a path
//! outside the project, an event it does not read, and a file it already
//! told in the same session (remembered by [`super::memory`], read and
//! written once per event, at most [`super::memory::MAX_SESSIONS`]
//! sessions of [`super::memory::MAX_FILES`] files each). Each governed file
//! it sees is remembered as one the session set out to edit, for the stop
//! hook ([`super::stop`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::event::{self, Channel, Event, HookAgent, Moment};
use super::memory::Memory;
use super::{HookEnv, bounded, project_root, relative};

/// The most characters of context one answer carries.
pub const MAX_CONTEXT: usize = 1500;

/// A pre-edit event read: the agent, the file, the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The agent whose event it was.
    pub agent: HookAgent,
    /// The shape it was read as (the channel of the answer).
    pub event: &'static Event,
    /// The project root, canonical.
    pub root: PathBuf,
    /// The files about to be edited, repository-relative (inside the root).
    pub files: Vec<String>,
    /// The session, when the event names it.
    pub session: Option<String>,
}

/// Read a pre-edit event: `Err` says why it is ignored (malformed, another
/// event or tool, no file inside the project).
fn read_event(
    input: &[u8],
    agent: Option<HookAgent>,
    env: &HookEnv,
) -> Result<Target, &'static str> {
    let value = bounded::parse(input).ok_or("stdin is not JSON, or not an event")?;
    let agent = event::agent_for(agent, &value);
    let event::Read {
        event,
        edit,
        session,
        ..
    } = event::read(agent, Moment::PreEdit, &value)?;
    let root = project_root(env, edit.cwd.as_deref()).ok_or("no project folder")?;
    let base = edit
        .cwd
        .clone()
        .or_else(|| env.project_dir.clone())
        .or_else(|| env.process_cwd.clone())
        .ok_or("no folder to resolve a relative path against")?;
    let files: Vec<String> = edit
        .files
        .iter()
        .filter_map(|f| inside(&root, &base.join(f)))
        .collect();
    if files.is_empty() {
        return Err("the file is outside the project");
    }
    Ok(Target {
        agent,
        event,
        root,
        files,
        session: session.filter(|s| !s.is_empty()),
    })
}

/// What `notarai hook context` prints for the event `input`: the
/// governing specs' lines of each file of the event ([`super::index`]),
/// rendered by [`render`], for the files not already told in the event's
/// session, until the answer's [`MAX_CONTEXT`] characters are used; `None`
/// when there is nothing to say (the reason is logged). The session's
/// memory is read once and written once, whatever the number of files; a
/// file is remembered as told only when its text is in the answer.
pub fn respond(input: &[u8], agent: Option<HookAgent>, env: &HookEnv) -> Option<String> {
    let target = match read_event(input, agent, env) {
        Ok(target) => target,
        Err(reason) => {
            tracing::debug!("hook context: ignored: {reason}");
            return None;
        }
    };
    let mut project = crate::project::Project::new(target.root.clone());
    let index = super::index::SpecIndex::open(&mut project);
    tracing::debug!("hook context: spec index: {:?}", index.source);
    let mut memory = target
        .session
        .as_deref()
        .map(|session| Memory::open(&mut project, session));
    let mut guard = crate::repo_path::Guard::new(&target.root);
    let mut texts = Vec::new();
    let mut length = 0;
    for file in &target.files {
        if length >= MAX_CONTEXT {
            break;
        }
        if let Some(memory) = memory.as_mut().filter(|m| m.told(file)) {
            // Told before: still one of the session's edits (the stop hook's).
            memory.edited(file);
            continue;
        }
        let path = match guard.resolve_unfollowed(file) {
            Ok(path) => path,
            Err(e) => {
                tracing::debug!("hook context: {file}: {e}");
                continue;
            }
        };
        let mut specs = index.governing(path.as_str());
        if specs.is_empty() {
            continue;
        }
        let applied = index.applied(&specs);
        specs.extend(&applied);
        let text = render(file, &specs);
        // Joined by a line break; the answer is cut to MAX_CONTEXT.
        length += text.chars().count() + usize::from(!texts.is_empty());
        if let Some(memory) = memory.as_mut() {
            memory.remember(file);
            memory.edited(file);
        }
        texts.push(text);
    }
    if let Some(memory) = memory {
        memory.save();
    }
    if texts.is_empty() {
        return None;
    }
    // One edit names one file but for VS Code's multi-file tools: share the budget.
    let text = match texts.len() {
        1 => texts.remove(0),
        _ => texts.join("\n").chars().take(MAX_CONTEXT).collect(),
    };
    Some(answer(&text, target.event))
}

/// `file` relative to `root`, through the canonical form of its folder (the
/// file itself may not exist yet); `None` when it lies outside.
fn inside(root: &Path, file: &Path) -> Option<String> {
    let canonical = match file.canonicalize() {
        Ok(c) => c,
        Err(_) => file.parent()?.canonicalize().ok()?.join(file.file_name()?),
    };
    relative(&canonical, root)
}

/// One governing spec as the hook tells it: its lines, rendered (quoted,
/// each text cut to 300 characters), as many as could ever be shown, and
/// how many there are. Kept in the hook's index ([`super::index`]), so an
/// answer from the index is the answer of a full load, byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecLines {
    /// Path of the spec file.
    pub path: String,
    /// The first lines: the spec's path, then a line per constraint and
    /// invariant; cut once they are longer than an answer.
    lines: Vec<String>,
    /// Number of lines in all.
    total: usize,
    /// Whether these are a cross-cutting spec's lines, told because a
    /// governing spec applies it ([`SpecLines::applied_by`]).
    #[serde(skip)]
    applied: bool,
}

/// Most bytes one kept line may have: a text is cut to 300 characters, a
/// path to a few thousand, and quoting escapes a character in at most a
/// dozen bytes.
const MAX_LINE: usize = 64 * 1024;

impl SpecLines {
    /// The lines of the spec at `path` with these constraints and invariants.
    pub fn new(path: &str, constraints: &[String], invariants: &[String]) -> SpecLines {
        let header = std::iter::once(format!("{}:", crate::quote::for_model(path)));
        let texts = constraints
            .iter()
            .map(|c| ("constraint", c))
            .chain(invariants.iter().map(|i| ("invariant", i)));
        let empty = (constraints.is_empty() && invariants.is_empty())
            .then(|| "- (no constraints or invariants)".to_string());
        let total = 1 + constraints.len() + invariants.len() + usize::from(empty.is_some());
        let rendered = texts
            .map(|(kind, text)| format!("- {kind}: {}", crate::quote::for_model(&clip(text, 300))));
        // A line past MAX_CONTEXT characters from the spec's first line
        // can never be shown: rendering stops at the first line that does
        // not fit, and this one does not.
        let mut lines = Vec::new();
        let mut length = 0;
        for line in header.chain(rendered).chain(empty) {
            length += line.chars().count() + 1;
            lines.push(line);
            if length > MAX_CONTEXT {
                break;
            }
        }
        SpecLines {
            path: path.to_string(),
            lines,
            total,
            applied: false,
        }
    }

    /// These lines as a cross-cutting spec's, applied by the specs `by`:
    /// the first line names them.
    pub fn applied_by(&self, by: &[&str]) -> SpecLines {
        let mut out = self.clone();
        let by: Vec<String> = by.iter().map(|p| crate::quote::for_model(p)).collect();
        if let Some(header) = out.lines.first_mut() {
            *header = format!(
                "{} (cross-cutting, applied by {}):",
                crate::quote::for_model(&self.path),
                by.join(", ")
            );
        }
        out.applied = true;
        out
    }

    /// Whether these lines could have been made by [`SpecLines::new`]: what
    /// a kept index holds is checked before it is used.
    pub fn is_plausible(&self) -> bool {
        let Some((last, before)) = self.lines.split_last() else {
            return false;
        };
        let length =
            |lines: &[String]| -> usize { lines.iter().map(|l| l.chars().count() + 1).sum() };
        let before = length(before);
        self.total >= self.lines.len()
            && before <= MAX_CONTEXT
            && last.len() <= MAX_LINE
            && (self.total == self.lines.len() || before + last.chars().count() + 1 > MAX_CONTEXT)
    }
}

/// The context for editing `file` under `specs` (sorted by path), at most
/// [`MAX_CONTEXT`] characters: each spec's constraints and invariants
/// (quoted: repository text is data), cut with a count of what was left
/// out, and where the full text is.
pub fn render(file: &str, specs: &[&SpecLines]) -> String {
    let file_q = crate::quote::for_model(file);
    let footer = format!(
        "Full specs (intent, behaviors): call the notarai tool get_governing_specs with \
         {{\"paths\": [{file_q}]}}. If a spec no longer tells the truth, say so rather than \
         diverging silently."
    );
    let governing = specs.iter().filter(|s| !s.applied).count();
    let applied = specs.len() - governing;
    let head = format!(
        "notarai: {file_q} is governed by {governing} spec{}{}; keep this edit within their \
         constraints and invariants.\n",
        if governing == 1 { "" } else { "s" },
        match applied {
            0 => String::new(),
            1 => " and 1 cross-cutting spec applied to it".into(),
            n => format!(" and {n} cross-cutting specs applied to it"),
        }
    );
    let chars = |s: &str| s.chars().count();
    // Room for the omission note ("... N more lines not shown").
    const NOTE: usize = 40;
    let mut out = head;
    let budget = MAX_CONTEXT.saturating_sub(chars(&footer) + NOTE);
    let total: usize = specs.iter().map(|s| s.total).sum();
    let mut shown = 0;
    'specs: for spec in specs {
        for line in &spec.lines {
            if chars(&out) + chars(line) + 1 > budget {
                break 'specs;
            }
            out.push_str(line);
            out.push('\n');
            shown += 1;
        }
        if spec.lines.len() < spec.total {
            // Never reached for lines made by `SpecLines::new`.
            break;
        }
    }
    if shown < total {
        out.push_str(&format!("... {} more lines not shown\n", total - shown));
    }
    out.push_str(&footer);
    if chars(&out) > MAX_CONTEXT {
        // Only a path so long that the head and footer alone overflow.
        out = out.chars().take(MAX_CONTEXT).collect();
    }
    out
}

/// `text` cut to `max` characters, with `...` when cut.
fn clip(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(3)).collect();
    out.push_str("...");
    out
}

/// The nested answer of Claude Code, Codex and VS Code Local:
/// `{"hookSpecificOutput": {"hookEventName": <event>, "additionalContext": <text>}}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Output<'a> {
    hook_specific_output: HookSpecific<'a>,
}

impl<'a> Output<'a> {
    /// The answer to the event `event` carrying `context`.
    pub(super) fn new(event: &'a str, context: &'a str) -> Output<'a> {
        Output {
            hook_specific_output: HookSpecific {
                hook_event_name: event,
                additional_context: context,
            },
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HookSpecific<'a> {
    hook_event_name: &'a str,
    additional_context: &'a str,
}

/// The flat answer of the Copilot format: `{"additionalContext": <text>}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct FlatOutput<'a> {
    additional_context: &'a str,
}

/// Cursor's flat answer: `{"additional_context": <text>}`. No `permission`:
/// the hook never decides for the user.
#[derive(Debug, Serialize)]
struct SnakeOutput<'a> {
    additional_context: &'a str,
}

/// What the hook prints on stdout for `context` (exit 0 always), in the
/// channel of the event's shape.
pub fn answer(context: &str, event: &Event) -> String {
    let json = match event.channel {
        Channel::Flat => serde_json::to_string(&FlatOutput {
            additional_context: context,
        }),
        Channel::FlatSnake => serde_json::to_string(&SnakeOutput {
            additional_context: context,
        }),
        // Pre-edit shapes take one of the three; the nested one otherwise.
        Channel::HookSpecific | Channel::ExitTwo | Channel::UserOnly => {
            serde_json::to_string(&Output::new(event.name, context))
        }
    };
    json.unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_spec_is_cut_to_the_budget() {
        let constraints: Vec<String> = (0..500)
            .map(|i| format!("rule {i} {}", "x".repeat(80)))
            .collect();
        let invariants = vec!["never".to_string()];
        let spec = SpecLines::new(".notarai/big.spec.yaml", &constraints, &invariants);
        assert!(spec.is_plausible());
        assert!(spec.lines.len() < 30, "{}", spec.lines.len());
        let text = render("src/a.rs", &[&spec]);
        assert!(text.chars().count() <= MAX_CONTEXT, "{}", text.len());
        assert!(text.contains("more lines not shown"));
        assert!(text.contains("get_governing_specs"));
        assert!(text.contains("rule 0"));
    }

    /// The rendering before the lines were kept: every line of every spec,
    /// then cut to the budget. The kept, cut lines must render the same.
    fn reference(file: &str, specs: &[(&str, Vec<String>, Vec<String>)]) -> String {
        let file_q = crate::quote::for_model(file);
        let footer = format!(
            "Full specs (intent, behaviors): call the notarai tool get_governing_specs with \
             {{\"paths\": [{file_q}]}}. If a spec no longer tells the truth, say so rather than \
             diverging silently."
        );
        let mut out = format!(
            "notarai: {file_q} is governed by {} spec{}; keep this edit within their \
             constraints and invariants.\n",
            specs.len(),
            if specs.len() == 1 { "" } else { "s" }
        );
        let mut lines = Vec::new();
        for (path, constraints, invariants) in specs {
            lines.push(format!("{}:", crate::quote::for_model(path)));
            for c in constraints {
                lines.push(format!(
                    "- constraint: {}",
                    crate::quote::for_model(&clip(c, 300))
                ));
            }
            for i in invariants {
                lines.push(format!(
                    "- invariant: {}",
                    crate::quote::for_model(&clip(i, 300))
                ));
            }
            if constraints.is_empty() && invariants.is_empty() {
                lines.push("- (no constraints or invariants)".into());
            }
        }
        let chars = |s: &str| s.chars().count();
        let budget = MAX_CONTEXT.saturating_sub(chars(&footer) + 40);
        let mut shown = 0;
        for line in &lines {
            if chars(&out) + chars(line) + 1 > budget {
                break;
            }
            out.push_str(line);
            out.push('\n');
            shown += 1;
        }
        if shown < lines.len() {
            out.push_str(&format!(
                "... {} more lines not shown\n",
                lines.len() - shown
            ));
        }
        out.push_str(&footer);
        if chars(&out) > MAX_CONTEXT {
            out = out.chars().take(MAX_CONTEXT).collect();
        }
        out
    }

    #[test]
    fn kept_lines_render_as_every_line_did() {
        let texts = |n: usize, len: usize, tag: &str| -> Vec<String> {
            (0..n)
                .map(|i| format!("{tag} {i} {}", "é\u{7}x".repeat(len)))
                .collect()
        };
        for (a, b, c) in [
            (0, 0, 0),
            (3, 1, 2),
            (40, 2, 1),
            (500, 0, 3),
            (2, 400, 1),
            (0, 1, 700),
        ] {
            for len in [1, 30, 200] {
                let specs = [
                    (
                        ".notarai/a.spec.yaml",
                        texts(a, len, "ca"),
                        texts(b, len, "ia"),
                    ),
                    (".notarai/b.spec.yaml", texts(c, len, "cb"), Vec::new()),
                    (".notarai/c.spec.yaml", Vec::new(), texts(b, len, "ic")),
                ];
                for count in 1..=3 {
                    let specs = &specs[..count];
                    let kept: Vec<SpecLines> = specs
                        .iter()
                        .map(|(p, c, i)| SpecLines::new(p, c, i))
                        .collect();
                    assert!(kept.iter().all(SpecLines::is_plausible));
                    let refs: Vec<&SpecLines> = kept.iter().collect();
                    assert_eq!(
                        render("src/x.rs", &refs),
                        reference("src/x.rs", specs),
                        "{a} {b} {c} {len} {count}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_answer_is_claudes_pre_tool_use_output() {
        let claude = crate::agent::hooks::hooks(HookAgent::Claude).pre_edit[0];
        let v: serde_json::Value = serde_json::from_str(&answer("ctx", &claude)).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "ctx");
        assert!(v["hookSpecificOutput"].get("permissionDecision").is_none());
    }
}
