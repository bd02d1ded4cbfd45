//! A setup in a place the agent no longer reads: the agent's row says where
//! it read notarai's parts before it moved (`init::agents::Moved`: VS Code's
//! `.vscode/mcp.json`, which its Copilot harness ignores) or which agent
//! succeeded it (`init::agents::Agent::successor`: Gemini CLI, retired for
//! all but enterprise licences, by Antigravity CLI), and rule files
//! generated from specs that no longer match them. Each is flagged with
//! the command that fixes it.

use super::init_fix;
use super::report::{Check, CheckKind, Position, Verdict};
use crate::agent::AgentId;
use crate::init::agents::{self, Inspection};

/// The checks of the old place: a file there that does not parse fails;
/// notarai's entry there alone, not in the file the agent reads now, warns.
pub(super) fn check_moved(agent: AgentId, seen: &Inspection, out: &mut Vec<Check>) {
    let Some(old) = &seen.moved_mcp else {
        return;
    };
    let row = agents::agent(agent);
    let why = row.moved.map(|m| m.why).unwrap_or_default();
    let old_file = old.file.clone().unwrap_or_default();
    if let Some(problem) = &old.problem {
        let mut check = Check::new(
            Some(agent),
            CheckKind::Config,
            Verdict::Fail,
            problem.to_string(),
        )
        .file(&problem.file)
        .fix(format!(
            "fix {} (the agent's older harness still reads it), then run `notarai doctor` again",
            problem.file
        ));
        check.position = problem
            .position
            .map(|(line, column)| Position { line, column });
        out.push(check);
        return;
    }
    if old.server.is_some() && seen.mcp.server.is_none() {
        let now = seen.mcp.file.clone().unwrap_or_default();
        out.push(
            Check::new(
                Some(agent),
                CheckKind::Moved,
                Verdict::Warn,
                format!("notarai is set up in {old_file} only: {why}"),
            )
            .file(&old_file)
            .fix(format!(
                "{} (it adds notarai to {now} and keeps {old_file})",
                init_fix(agent)
            )),
        );
    }
}

/// A retired agent set up while its successor is not.
pub(super) fn check_successor(
    root: &std::path::Path,
    agent: AgentId,
    seen: &Inspection,
    out: &mut Vec<Check>,
) {
    let Some((successor, why)) = agents::agent(agent).successor else {
        return;
    };
    if seen.mcp.server.is_none() || agents::inspect(root, successor).mcp.server.is_some() {
        return;
    }
    out.push(
        Check::new(
            Some(agent),
            CheckKind::Moved,
            Verdict::Warn,
            format!(
                "{}: {why}; {} is not set up",
                agent.title(),
                successor.title()
            ),
        )
        .file(seen.mcp.file.as_deref().unwrap_or_default())
        .fix(format!(
            "{} (keep {agent} only for an enterprise Code Assist licence)",
            init_fix(successor)
        )),
    );
}

/// The pre-edit hooks of `agents` whose `if` no longer matches the specs.
fn check_hook_if(root: &std::path::Path, agents: &[AgentId], out: &mut Vec<Check>) {
    if !agents
        .iter()
        .any(|id| crate::agent::rules::rules(*id).is_some_and(|r| r.hook_if.is_some()))
    {
        return;
    }
    let set = crate::project::load_specs(root);
    for stale in crate::init::hook_if::stale(root, &set, agents) {
        out.push(
            Check::new(
                Some(stale.agent),
                CheckKind::Rules,
                Verdict::Warn,
                "the pre-edit hook's `if` no longer matches the specs' globs: it could skip a \
                 governed file"
                    .into(),
            )
            .file(stale.rel)
            .fix(format!("run `{}`", crate::rule_files::REFRESH)),
        );
    }
}

/// The rule files generated from the specs (`notarai rules`) of the
/// checked agents: one warning per file that no longer matches its spec
/// (stale, orphaned, missing), with the command that refreshes them; one
/// passing check per agent whose rule files all match.
pub(super) fn check_rules(root: &std::path::Path, agents: &[AgentId], out: &mut Vec<Check>) {
    check_hook_if(root, agents, out);
    let with_rules: Vec<AgentId> = agents
        .iter()
        .copied()
        .filter(|id| {
            crate::agent::rules::rules(*id)
                .is_some_and(|files| !crate::rule_files::existing(root, files).is_empty())
        })
        .collect();
    if with_rules.is_empty() {
        return;
    }
    let set = crate::project::load_specs(root);
    let drifted = crate::rule_files::drift(root, &set);
    for agent in with_rules {
        let mine: Vec<_> = drifted.iter().filter(|d| d.agent == agent).collect();
        if mine.is_empty() {
            out.push(Check::new(
                Some(agent),
                CheckKind::Rules,
                Verdict::Ok,
                "the rule files generated from the specs match them".into(),
            ));
        }
        for d in mine {
            out.push(
                Check::new(
                    Some(agent),
                    CheckKind::Rules,
                    Verdict::Warn,
                    format!("rule file {}", d.drift.describe()),
                )
                .file(&d.rel)
                .fix(format!("run `{}`", crate::rule_files::REFRESH)),
            );
        }
    }
}
