//! Planning each agent's files: what `notarai init` adds and what
//! `--remove` takes out, both from the agent's parts (`parts.rs`), plus
//! the instruction files several agents share and, for `--remove` without
//! `--agents`, the files every setup writes.

use super::merge::Change;
use super::parts::parts;
use super::{AGENTS, Agent, AgentId, Mcp, agent};
use crate::init::{
    GITATTRIBUTES, GITIGNORE, MergeDriver, Planner, SCHEMA_JSON, SPEC_README, STARTER_SPEC,
    claude_md, generated, gitignore, starter,
};
use crate::workflow::{self, Readers};

/// The shared instruction file most agents read.
const AGENTS_MD: &str = "AGENTS.md";

/// notarai's section of the instruction file `file`, rendered from the
/// workflows: for the file of one agent alone (`CLAUDE.md`, `GEMINI.md`),
/// in that agent's terms (its form of the workflows, its MCP file, its
/// hook); for `AGENTS.md`, which several agents read, in everyone's.
fn section_for(file: &str) -> String {
    let own = AGENTS
        .iter()
        .find(|a| file != AGENTS_MD && a.instructions[0] == file);
    let readers = match own.map(|a| (a, a.workflows, a.mcp)) {
        Some((a, Some(workflows), Mcp::Project(mcp))) => Readers::One {
            form: workflows.form.noun(),
            mcp_file: mcp.files[0],
            hook: a.hook.is_some(),
        },
        _ => Readers::Shared,
    };
    workflow::section(readers)
}

/// Whether an instruction text imports `AGENTS.md` (a line `@AGENTS.md`).
fn imports_agents_md(text: &str) -> bool {
    text.lines().any(|l| {
        l.split_whitespace()
            .any(|w| w == "@AGENTS.md" || w == "@./AGENTS.md")
    })
}

/// The instruction file notarai's section goes to for `a`: its own, or
/// `AGENTS.md` when its own (`CLAUDE.md`, `GEMINI.md`) imports it.
fn instruction_file(p: &mut Planner, a: &Agent) -> Option<&'static str> {
    let own = a.instructions[0];
    if own == AGENTS_MD {
        return Some(own);
    }
    let text = p.read(own).ok()?;
    Some(match text.as_deref() {
        Some(t) if imports_agents_md(t) => AGENTS_MD,
        _ => own,
    })
}

/// Plan the setup of `chosen` agents. An agent one of whose files cannot
/// be read or edited is not set up at all (its problems are reported); the
/// others still are.
pub fn plan_agents(p: &mut Planner, chosen: &[AgentId]) {
    for &id in chosen {
        let files = p.files.clone();
        let problems = p.problems.len();
        let notes = p.notes.len();
        let a = agent(id);
        for part in parts(a, p.root, Some(chosen)) {
            part.add(p, chosen);
        }
        p.notes.extend(a.by_hand.map(str::to_string));
        if p.problems.len() > problems {
            p.files = files;
            // Its steps by hand are for a setup that did not happen.
            p.notes.truncate(notes);
            p.notes.push(format!(
                "{}: not set up, because of the error(s) below",
                id.title()
            ));
        }
    }
    plan_rules(p, chosen);
}

/// Plan the path-scoped rule files the specs give the `chosen` agents that
/// load them (`notarai rules`), and the removal of notarai's rule files
/// whose spec is gone; a user's own rule files are never touched.
fn plan_rules(p: &mut Planner, chosen: &[AgentId]) {
    use crate::rule_files::write::{self, Outcome};
    let mut set = crate::project::load_specs(p.root);
    // The specs this plan writes (the starter spec) count as written.
    for file in &p.files {
        let Some(text) = file
            .after()
            .filter(|_| crate::spec::is_spec_path(&file.rel))
        else {
            continue;
        };
        if let Ok(spec) = crate::spec::parse_spec(&file.rel, text) {
            set.specs.retain(|s| s.path != file.rel);
            set.specs.push(crate::spec::LoadedSpec {
                path: file.rel.clone(),
                raw: text.to_string(),
                spec,
            });
        }
    }
    set.specs.sort_by(|a, b| a.path.cmp(&b.path));
    for (file, text) in write::plan(p.root, &set, chosen) {
        let Ok(old) = p.read(&file.rel) else { continue };
        match (file.outcome, text, old) {
            (Outcome::Removed, _, Some(old)) => p.delete(&file.rel, &old),
            (Outcome::Created | Outcome::Updated, Some(text), old) => {
                p.record(&file.rel, old.as_deref(), Some(text))
            }
            _ => {}
        }
    }
    // The pre-edit hook's `if`, where the agent takes one (its handler
    // was planned above): from the same globs as the rule files.
    for hook in chosen
        .iter()
        .filter_map(|id| crate::agent::rules::rules(*id)?.hook_if)
    {
        p.edit(hook.file, |old| {
            crate::init::hook_if::apply_to(old, &set, &hook)
        });
    }
}

/// Plan taking out notarai's rule files of the agents `ids`.
fn remove_rules(p: &mut Planner, ids: &[AgentId]) {
    for files in ids.iter().filter_map(|id| crate::agent::rules::rules(*id)) {
        for file in crate::rule_files::existing(p.root, files) {
            p.delete(&file.rel, &file.text);
        }
    }
}

/// The own instruction file notarai creates when the repository's
/// instructions are in `AGENTS.md`: an import of it.
const AGENTS_MD_IMPORT: &str = "@AGENTS.md\n";

/// Plan notarai's section for `a`: in its own instruction file, or in
/// `AGENTS.md` when that file imports it. For an agent that
/// [`Agent::imports_agents_md`], with no file of its own while `AGENTS.md`
/// is there or being written for another agent, its file is created as an
/// import of `AGENTS.md`, so no agent reads the section twice.
pub(super) fn plan_instructions(p: &mut Planner, a: &Agent, chosen: &[AgentId]) {
    if !a.imports_agents_md {
        if let Some(file) = instruction_file(p, a) {
            plan_section(p, file);
        }
        return;
    }
    let own = a.instructions[0];
    let Ok(existing) = p.read(own) else {
        return;
    };
    let agents_md_used = p.root.join(AGENTS_MD).symlink_metadata().is_ok()
        || chosen
            .iter()
            .any(|&other| other != a.id && agent(other).instructions[0] == AGENTS_MD);
    match existing.as_deref() {
        Some(t) if imports_agents_md(t) => plan_section(p, AGENTS_MD),
        Some(_) => plan_section(p, own),
        None if agents_md_used => {
            p.generated_text(
                own,
                AGENTS_MD_IMPORT,
                generated::stamp_markdown(AGENTS_MD_IMPORT),
            );
            plan_section(p, AGENTS_MD);
        }
        None => plan_section(p, own),
    }
}

/// Plan notarai's section in an instruction file; in its target when it is
/// a link to a regular file inside the work tree ([`Planner::link_target`]),
/// in the target's terms when the target is an agent's instruction file
/// (`CLAUDE.md -> AGENTS.md` gets the section every agent reads).
fn plan_section(p: &mut Planner, file: &str) {
    let target = p.link_target(file);
    if target.is_none() && p.refuse_link(file) {
        return;
    }
    let section = match target.as_deref() {
        Some(t) if AGENTS.iter().any(|a| a.instructions.contains(&t)) => section_for(t),
        _ => section_for(file),
    };
    let file = target.as_deref().unwrap_or(file);
    if p.files.iter().any(|f| f.rel == file) {
        return;
    }
    let Ok(existing) = p.read(file) else { return };
    let up = claude_md::upsert_with(existing.as_deref(), &section);
    p.generated(file, existing.as_deref(), up.text, up.replaces);
}

/// Plan `--remove` for `ids`: each agent's parts, then the instruction
/// files' section where no agent kept reads it; `everything` (no
/// `--agents`) also takes out the shared files (the cache line, the schema,
/// the spec folder's README, an unchanged starter spec, the
/// `.gitattributes` line, the merge driver).
pub fn plan_remove(p: &mut Planner, ids: &[AgentId], everything: bool) -> MergeDriver {
    for &id in ids {
        let a = agent(id);
        for part in parts(a, p.root, None) {
            part.remove(p, everything);
        }
        if a.imports_agents_md
            && let Ok(Some(text)) = p.read(a.instructions[0])
            && generated::unstamped(&text) == AGENTS_MD_IMPORT
            && generated::origin(&text) == generated::Origin::Unedited
        {
            p.delete(a.instructions[0], &text);
        }
    }
    remove_rules(p, ids);
    let mut files: Vec<&'static str> = Vec::new();
    for &file in AGENTS.iter().flat_map(|a| a.instructions) {
        if !files.contains(&file) {
            files.push(file);
        }
    }
    for file in files {
        let kept = AGENTS.iter().any(|a| {
            !ids.contains(&a.id) && instruction_file(p, a) == Some(file) && {
                let seen = a.inspect(p.root);
                seen.mcp.server.is_some() || seen.hook.is_some_and(|h| h.registered)
            }
        });
        if !kept {
            p.remove_section(file);
        }
    }
    if !everything {
        return MergeDriver::Skipped("the merge driver stays: --agents was given".into());
    }
    p.change(GITIGNORE, |t| Ok(gitignore::remove_cache_line(t)));
    p.remove_generated(SCHEMA_JSON);
    p.remove_if_equal(SPEC_README, &crate::init::spec_readme());
    let starter = starter::system_spec(&starter::StarterInputs::scan(p.root));
    p.remove_if_equal(STARTER_SPEC, &starter);
    p.change(GITATTRIBUTES, |t| Ok(remove_attributes_line(t)));
    match crate::changes::GitRepo::open(p.root) {
        Ok(git) => MergeDriver::Unregister {
            configured: crate::state::merge_driver_registered(&git),
        },
        Err(e) => MergeDriver::Skipped(format!("merge driver not looked at: {e}")),
    }
}

/// `.gitattributes` without notarai's line.
fn remove_attributes_line(text: &str) -> Change {
    remove_line(text, crate::state::GITATTRIBUTES_LINE)
}

/// `text` without the line exactly `line` (and its line break): deleted
/// when nothing is left.
pub fn remove_line(text: &str, line: &str) -> Change {
    let mut out = String::with_capacity(text.len());
    let mut found = false;
    for l in text.split_inclusive('\n') {
        if !found && l.trim_end_matches(['\r', '\n']) == line {
            found = true;
            continue;
        }
        out.push_str(l);
    }
    match (found, out.is_empty()) {
        (false, _) => Change::Unchanged,
        (true, true) => Change::Delete(out),
        (true, false) => Change::Write(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_taken_out_once_and_an_emptied_file_deleted() {
        assert_eq!(
            remove_line("a\nX\nb\n", "X"),
            Change::Write("a\nb\n".into())
        );
        assert_eq!(
            remove_line("a\r\nX\r\n", "X"),
            Change::Write("a\r\n".into())
        );
        assert_eq!(remove_line("X\n", "X"), Change::Delete(String::new()));
        assert_eq!(remove_line("a\n", "X"), Change::Unchanged);
    }

    #[test]
    fn an_import_of_agents_md_is_seen() {
        assert!(imports_agents_md("# P\n\n@AGENTS.md\n"));
        assert!(imports_agents_md("See @./AGENTS.md for more."));
        assert!(!imports_agents_md("Read AGENTS.md.\n"));
    }
}
