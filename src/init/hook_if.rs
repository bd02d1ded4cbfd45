//! The `if` of notarai's pre-edit hook handlers, for the agents that take
//! one (Claude Code: a permission rule per handler, `Edit(src/**)`, so the
//! hook starts only for files some spec governs; `agent::rules::HookIf`).
//!
//! Decisions: one handler per pattern (an `if` holds one rule), from the
//! governed globs of every spec (anchors cut, braces spelled out, a plain
//! path as itself and everything below it) and `.notarai/**` (a spec file
//! governs itself). More than [`MAX_CONDITIONS`] patterns, one a rule
//! cannot hold (`(`, `)`, `!`, an absolute path, an unbalanced brace), or a
//! spec that does not load (its globs unknown), and the hook gets no `if`: it starts for every edit and stays silent for
//! ungoverned files. A wrong `if` would hide a governed file; none never
//! does. `init` (the specs it writes, the starter spec, counted) and
//! `notarai rules` write it, and the post-edit hook refreshes it after an
//! agent's spec edit; `check` and `doctor` report an `if` that no longer
//! matches the specs (a pull, another editor), with `notarai rules` as the
//! fix (a handler without `if` is never stale).

use std::collections::BTreeSet;
use std::path::Path;

use crate::agent::AgentId;
use crate::agent::rules::{HookIf, rules};
use crate::init::agents::Format;
use crate::init::agents::merge::{MergeError, conditions_in, set_conditions};
use crate::spec::SpecSet;

/// Most handlers notarai registers with an `if`; beyond, none has one.
pub const MAX_CONDITIONS: usize = 16;

/// Largest settings file read.
const LIMIT: u64 = 4 << 20;

/// The `if` rules of the pre-edit handlers for `set`'s specs, sorted;
/// `None` when the hook should have no `if` (too many patterns, one a
/// permission rule cannot hold, or a spec that does not load).
pub fn conditions(set: &SpecSet, hook: &HookIf) -> Option<Vec<String>> {
    // A spec that does not load governs nothing now, but its globs are
    // unknown: once fixed, an `if` without them would hide its files.
    if !set.invalid.is_empty() {
        return None;
    }
    let mut patterns: BTreeSet<String> = BTreeSet::new();
    patterns.insert(format!("{}/**", crate::layout::SPEC_DIR));
    for spec in &set.specs {
        for glob in crate::rule_files::globs(spec) {
            for g in crate::rule_files::expand_braces(&glob) {
                let g = g.trim_start_matches("./").trim_end_matches('/');
                let unfit = |c: char| matches!(c, '(' | ')' | '{' | '}' | '\\' | '\n' | '\r');
                if g.is_empty() || g.starts_with(['/', '!', '~']) || g.contains(unfit) {
                    return None;
                }
                if g.contains(['*', '?', '[']) {
                    patterns.insert(g.to_string());
                } else {
                    patterns.insert(g.to_string());
                    patterns.insert(format!("{g}/**"));
                }
            }
        }
    }
    (patterns.len() <= MAX_CONDITIONS).then(|| {
        patterns
            .into_iter()
            .map(|p| format!("{}({p})", hook.tool))
            .collect()
    })
}

/// The settings text `old` with notarai's pre-edit handlers given the `if`
/// `set`'s specs call for; `Ok(None)` when nothing changes (or the hook is
/// not registered there).
pub fn apply_to(
    old: Option<&str>,
    set: &SpecSet,
    hook: &HookIf,
) -> Result<Option<String>, MergeError> {
    let wanted = conditions(set, hook);
    set_conditions(old, Format::Json, hook.event, wanted.as_deref())
}

/// One agent's pre-edit hook whose `if` no longer matches the specs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleIf {
    /// The agent.
    pub agent: AgentId,
    /// Its settings file, relative to the root.
    pub rel: &'static str,
}

/// The agents among `agents` whose registered pre-edit hook has `if`
/// filters other than `set`'s specs call for (handlers without `if` are
/// never stale: they start for every edit).
pub fn stale(root: &Path, set: &SpecSet, agents: &[AgentId]) -> Vec<StaleIf> {
    let mut out = Vec::new();
    for hook in agents
        .iter()
        .filter_map(|id| Some((*id, rules(*id)?.hook_if?)))
    {
        let (agent, hook) = hook;
        let Some(text) = read(root, hook.file) else {
            continue;
        };
        let Some(have) = conditions_in(&text, Format::Json, hook.event) else {
            continue;
        };
        let want: Vec<Option<String>> = match conditions(set, &hook) {
            Some(list) => list.into_iter().map(Some).collect(),
            None => vec![None],
        };
        // No `if` never hides a governed file: only an `if` can be stale.
        if have.iter().any(Option::is_some) && have != want {
            out.push(StaleIf {
                agent,
                rel: hook.file,
            });
        }
    }
    out
}

/// `notarai rules`: give the pre-edit hooks of `agents` the `if` the specs
/// call for. Each settings file changed, with its new text, written unless
/// `dry_run`.
pub fn refresh(
    root: &Path,
    set: &SpecSet,
    agents: &[AgentId],
    dry_run: bool,
) -> crate::error::Result<Vec<&'static str>> {
    let mut changed = Vec::new();
    for hook in agents.iter().filter_map(|id| rules(*id)?.hook_if) {
        let Some(text) = read(root, hook.file) else {
            continue;
        };
        let new = apply_to(Some(&text), set, &hook)
            .map_err(|e| crate::error::Error::invalid(format!("{}: {e}", hook.file)))?;
        if let Some(new) = new {
            if !dry_run {
                crate::safe_fs::write_file(root, Path::new(hook.file), new.as_bytes())
                    .map_err(|e| crate::error::Error::invalid(e.to_string()))?;
            }
            changed.push(hook.file);
        }
    }
    Ok(changed)
}

/// A settings file's text, when it is there and readable.
fn read(root: &Path, rel: &str) -> Option<String> {
    let bytes = crate::safe_fs::read(root, Path::new(rel), LIMIT).ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(globs: &[&str]) -> SpecSet {
        let mut text = String::from(
            "schema_version: '0.8'\nintent: x\nbehaviors:\n  - name: b\n    given: x\n    then: y\nartifacts:\n  code:\n",
        );
        for g in globs {
            text.push_str(&format!("    - path: '{g}'\n"));
        }
        let spec: crate::spec::Spec = serde_yaml::from_str(&text).unwrap();
        SpecSet {
            specs: vec![crate::spec::LoadedSpec {
                path: ".notarai/a.spec.yaml".into(),
                raw: text,
                spec,
            }],
            ..Default::default()
        }
    }

    const HOOK: HookIf = HookIf {
        file: ".claude/settings.json",
        event: "PreToolUse",
        tool: "Edit",
    };

    #[test]
    fn globs_become_rules_and_a_plain_path_covers_what_is_below() {
        assert_eq!(
            conditions(
                &set(&["src/**/*.{ts,tsx}", "docs/auth.md", "lib/x.rs#Foo"]),
                &HOOK
            )
            .unwrap(),
            [
                "Edit(.notarai/**)",
                "Edit(docs/auth.md)",
                "Edit(docs/auth.md/**)",
                "Edit(lib/x.rs)",
                "Edit(lib/x.rs/**)",
                "Edit(src/**/*.ts)",
                "Edit(src/**/*.tsx)",
            ]
        );
    }

    #[test]
    fn too_many_or_unfit_patterns_give_no_if() {
        let many: Vec<String> = (0..MAX_CONDITIONS)
            .map(|i| format!("src/m{i}/*.rs"))
            .collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(conditions(&set(&many), &HOOK), None);
        assert_eq!(conditions(&set(&["src/(x)/*.rs"]), &HOOK), None);
        assert_eq!(conditions(&set(&["src/{a,b/*.rs"]), &HOOK), None);
    }
}
