//! Planning each agent's files: what `notarai init` adds (MCP entry,
//! instructions section, workflows, hook) and what `--remove` takes out.

use super::merge::{self, Change};
use super::{Agent, AgentId, Format, HookKind, Mcp, agent, context_hook_command, hook_command};
use crate::init::json_merge::{self, MergeError};
use crate::init::{
    CLAUDE_MD, GITATTRIBUTES, GITIGNORE, InitError, MCP_JSON, MergeDriver, Planner, SCHEMA_JSON,
    SETTINGS_JSON, SPEC_README, STARTER_SPEC, claude_md, generated, gitignore, starter,
};
use crate::workflow;

/// The shared instruction file most agents read.
const AGENTS_MD: &str = "AGENTS.md";
/// Gemini CLI's instruction file.
const GEMINI_MD: &str = "GEMINI.md";
/// opencode's plugin that runs the hook.
const OPENCODE_PLUGIN: &str = include_str!("../templates/opencode_plugin.js");
/// The notarai section of `AGENTS.md` and `GEMINI.md`.
fn agents_section() -> &'static str {
    include_str!("../templates/agents_section.md")
}

/// What the user still does by hand for `id`, one line.
fn manual_step(id: AgentId) -> Option<String> {
    let text = match id {
        AgentId::Claude => {
            "Claude Code: open the project and approve the `notarai` MCP server \
                            (it shows as pending approval)"
        }
        AgentId::Codex => {
            "Codex CLI: trust the project (its .codex/ folder is read only in \
                           trusted projects) and review the hook in /hooks"
        }
        AgentId::Cursor => {
            "Cursor: turn the `notarai` server on in Settings > MCP (project \
                            servers start disabled); if the editor does not find `notarai` on \
                            its PATH, write its absolute path in .cursor/mcp.json"
        }
        AgentId::Gemini => {
            "Gemini CLI: trust the folder (`gemini trust`); project settings \
                            are ignored in untrusted folders"
        }
        AgentId::Vscode => {
            "VS Code: start and trust the `notarai` server (MCP: List Servers); \
                            agent hooks are a Preview feature and may need enabling"
        }
        AgentId::Opencode => return None,
        AgentId::Zed => {
            "Zed: trust the worktree; Zed has no hooks, so run `notarai validate` \
                         after editing specs"
        }
        AgentId::Windsurf => {
            return Some(format!(
                "Windsurf: MCP servers live only in your user file {}, which notarai never \
                 writes: add {} under \"mcpServers\" (Settings > Cascade > MCP Servers > View \
                 Raw Config), then refresh",
                windsurf_user_file(),
                windsurf_snippet()
            ));
        }
    };
    Some(text.to_string())
}

/// Windsurf's user-level MCP file.
fn windsurf_user_file() -> &'static str {
    match agent(AgentId::Windsurf).mcp() {
        Mcp::UserOnly { path, .. } => path,
        Mcp::Project(_) => unreachable!("Windsurf has no project MCP file"),
    }
}

/// The entry a Windsurf user adds by hand.
fn windsurf_snippet() -> String {
    r#""notarai": {"command": "notarai", "args": ["mcp"]}"#.to_string()
}

/// The workflow files of `id` (path, notarai's text without its marker,
/// the text with it), given every agent being set up.
fn workflow_files(id: AgentId, chosen: &[AgentId]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for w in workflow::ALL {
        let name = w.name;
        let skill = |dir: &str| {
            let body = w.skill();
            (
                format!("{dir}/{name}/SKILL.md"),
                body.clone(),
                generated::stamp_markdown(&body),
            )
        };
        match id {
            AgentId::Claude => out.push(skill(".claude/skills")),
            AgentId::Codex | AgentId::Zed => out.push(skill(".agents/skills")),
            // opencode reads .claude/skills too: one copy is enough.
            AgentId::Opencode if !chosen.contains(&AgentId::Claude) => {
                out.push(skill(".opencode/skills"))
            }
            AgentId::Opencode | AgentId::Windsurf => {}
            AgentId::Cursor => {
                let body = w.cursor_rule();
                out.push((
                    format!(".cursor/rules/{name}.mdc"),
                    body.clone(),
                    generated::stamp_markdown(&body),
                ));
            }
            AgentId::Gemini => {
                let body = w.gemini_command();
                out.push((
                    format!(".gemini/commands/{name}.toml"),
                    body.clone(),
                    generated::stamp_line(&body, "#"),
                ));
            }
            AgentId::Vscode => {
                let body = w.vscode_prompt();
                out.push((
                    format!(".github/prompts/{name}.prompt.md"),
                    body.clone(),
                    generated::stamp_markdown(&body),
                ));
            }
        }
    }
    out
}

/// Whether an instruction text imports `AGENTS.md` (a line `@AGENTS.md`).
fn imports_agents_md(text: &str) -> bool {
    text.lines().any(|l| {
        l.split_whitespace()
            .any(|w| w == "@AGENTS.md" || w == "@./AGENTS.md")
    })
}

/// The instruction file notarai's section goes to for `id`: its own, or
/// `AGENTS.md` when its own (`CLAUDE.md`, `GEMINI.md`) imports it.
fn instruction_file(p: &mut Planner, id: AgentId) -> Option<&'static str> {
    let own = agent(id).instructions()[0];
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
        plan_agent(p, id, chosen);
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
}

/// Plan the setup of one agent.
fn plan_agent(p: &mut Planner, id: AgentId, chosen: &[AgentId]) {
    {
        let a = agent(id);
        plan_mcp(p, a);
        if id == AgentId::Claude {
            plan_claude_instructions(p, chosen);
        } else if let Some(file) = instruction_file(p, id) {
            plan_section(p, file);
        }
        let mut files = workflow_files(id, chosen);
        if id == AgentId::Opencode {
            // An opencode skill of the same name already there (perhaps an
            // outdated one) is brought up to date, or kept beside notarai's.
            files.extend(
                workflow_files(id, &[])
                    .into_iter()
                    .filter(|(rel, _, _)| p.root.join(rel).symlink_metadata().is_ok()),
            );
        }
        for (rel, body, stamped) in files {
            p.generated_text(&rel, &body, stamped);
        }
        plan_hook(p, a);
        if let Some(step) = manual_step(id) {
            p.notes.push(step);
        }
    }
}

/// The `CLAUDE.md` notarai creates when the repository's instructions are
/// in `AGENTS.md`: an import of it (Claude Code reads `AGENTS.md` itself
/// only when there is no `CLAUDE.md`, and older versions not at all).
const CLAUDE_IMPORT: &str = "@AGENTS.md\n";

/// Plan Claude Code's instructions: the section in `CLAUDE.md`, or in
/// `AGENTS.md` when `CLAUDE.md` imports it. With no `CLAUDE.md` while
/// `AGENTS.md` is there or being written for another agent, `CLAUDE.md` is
/// created as an import of it, so no agent reads the section twice.
fn plan_claude_instructions(p: &mut Planner, chosen: &[AgentId]) {
    let Ok(existing) = p.read(CLAUDE_MD) else {
        return;
    };
    let agents_md_used = p.root.join(AGENTS_MD).symlink_metadata().is_ok()
        || chosen
            .iter()
            .any(|&a| a != AgentId::Claude && agent(a).instructions()[0] == AGENTS_MD);
    match existing.as_deref() {
        Some(t) if imports_agents_md(t) => plan_section(p, AGENTS_MD),
        Some(_) => plan_section(p, CLAUDE_MD),
        None if agents_md_used => {
            p.generated_text(
                CLAUDE_MD,
                CLAUDE_IMPORT,
                generated::stamp_markdown(CLAUDE_IMPORT),
            );
            plan_section(p, AGENTS_MD);
        }
        None => plan_section(p, CLAUDE_MD),
    }
}

/// Plan notarai's section in an instruction file.
fn plan_section(p: &mut Planner, file: &'static str) {
    if p.files.iter().any(|f| f.rel == file) {
        return;
    }
    let Ok(existing) = p.read(file) else { return };
    let section = if file == CLAUDE_MD {
        claude_md::section()
    } else {
        agents_section()
    };
    let up = claude_md::upsert_with(existing.as_deref(), section);
    p.generated(file, existing.as_deref(), up.text, up.replaces);
}

/// Plan an agent's MCP entry.
fn plan_mcp(p: &mut Planner, a: &dyn Agent) {
    if a.id() == AgentId::Claude {
        return p.edit(MCP_JSON, json_merge::merge_mcp);
    }
    let Mcp::Project(file) = a.mcp() else { return };
    let rel = super::inspect::choose_file(p.root, &file);
    match file.format {
        Format::Toml => p.edit(rel, |old| merge::add_toml_server(old, file.servers[0])),
        format => p.edit(rel, |old| {
            merge::add_json_server(old, format, file.servers, file.shape)
        }),
    }
}

/// Plan an agent's hooks: the post-edit hook, then the pre-edit one where
/// the agent has it.
fn plan_hook(p: &mut Planner, a: &dyn Agent) {
    plan_edit_hook(p, a);
    if let Some(hook) = a.context_hook() {
        let command = context_hook_command(a.id());
        p.edit(hook.file, |old| {
            merge::add_hook(old, hook.format, hook.kind, &command)
        });
    }
}

/// Plan an agent's post-edit hook.
fn plan_edit_hook(p: &mut Planner, a: &dyn Agent) {
    if a.id() == AgentId::Claude {
        return p.edit(SETTINGS_JSON, json_merge::merge_settings);
    }
    let Some(hook) = a.hook() else { return };
    if super::inspect::hook_also_in(a, p.root).is_some() {
        // Registered by the user in the agent's other hook file: a second
        // one would run the hook twice.
        return;
    }
    let command = hook_command(a.id());
    match hook.kind {
        HookKind::Plugin => {
            let stamped = generated::stamp_line(OPENCODE_PLUGIN, "//");
            p.generated_text(hook.file, OPENCODE_PLUGIN, stamped);
        }
        kind => p.edit(hook.file, |old| {
            merge::add_hook(old, hook.format, kind, &command)
        }),
    }
}

/// Plan `--remove` for `ids`; `everything` (no `--agents`) also takes out
/// the shared files (the cache line, the schema, the spec folder's README,
/// an unchanged starter spec, the `.gitattributes` line, the merge driver).
pub fn plan_remove(p: &mut Planner, ids: &[AgentId], everything: bool) -> MergeDriver {
    for &id in ids {
        let a = agent(id);
        match a.mcp() {
            Mcp::Project(file) => {
                let rel = super::inspect::choose_file(p.root, &file);
                match file.format {
                    Format::Toml => {
                        p.change(rel, |t| merge::remove_toml_server(t, file.servers[0]))
                    }
                    format => p.change(rel, |t| {
                        merge::remove_json_server(t, format, file.servers, file.shape)
                    }),
                }
            }
            Mcp::UserOnly { .. } if !everything => {
                p.notes.push(format!(
                    "Windsurf: take {} out of {} yourself if you added it",
                    windsurf_snippet(),
                    windsurf_user_file()
                ));
            }
            Mcp::UserOnly { .. } => {}
        }
        if let Some(hook) = a.hook() {
            match hook.kind {
                HookKind::Plugin => p.remove_generated(hook.file),
                kind => {
                    let mut commands = vec![hook_command(id)];
                    if id == AgentId::Claude {
                        commands.push(json_merge::LEGACY_HOOK_COMMAND.to_string());
                    }
                    p.change(hook.file, |t| {
                        merge::remove_hook(t, hook.format, kind, &commands)
                    });
                }
            }
        }
        if let Some(hook) = a.context_hook() {
            let commands = [context_hook_command(id)];
            p.change(hook.file, |t| {
                merge::remove_hook(t, hook.format, hook.kind, &commands)
            });
        }
        // Both places an opencode skill may be, whatever was chosen then.
        let mut files = workflow_files(id, &[]);
        files.extend(workflow_files(id, &[AgentId::Claude]));
        for (rel, _, _) in files {
            p.remove_generated(&rel);
        }
    }
    if ids.contains(&AgentId::Claude)
        && let Ok(Some(text)) = p.read(CLAUDE_MD)
        && generated::unstamped(&text) == CLAUDE_IMPORT
        && generated::origin(&text) == generated::Origin::Unedited
    {
        p.delete(CLAUDE_MD, &text);
    }
    for file in [CLAUDE_MD, AGENTS_MD, GEMINI_MD] {
        let kept = AgentId::ALL.into_iter().any(|a| {
            !ids.contains(&a) && instruction_file(p, a) == Some(file) && {
                let seen = agent(a).inspect(p.root);
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
    p.remove_if_equal(SPEC_README, include_str!("../templates/notarai_readme.md"));
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

/// The byte order mark some Windows editors put at the start of a file.
const BOM: char = '\u{feff}';

/// `f` applied to `old` without its byte order mark, which the result keeps:
/// the parsers never see the mark, and no byte of the file is lost.
fn keeping_bom(
    old: Option<&str>,
    f: impl FnOnce(Option<&str>) -> Result<Option<String>, MergeError>,
) -> Result<Option<String>, MergeError> {
    match old.and_then(|t| t.strip_prefix(BOM)) {
        Some(body) => Ok(f(Some(body))?.map(|new| format!("{BOM}{new}"))),
        None => f(old),
    }
}

/// [`keeping_bom`] for a removal edit.
fn change_keeping_bom(
    old: &str,
    f: impl FnOnce(&str) -> Result<Change, MergeError>,
) -> Result<Change, MergeError> {
    let Some(body) = old.strip_prefix(BOM) else {
        return f(old);
    };
    Ok(match f(body)? {
        Change::Unchanged => Change::Unchanged,
        Change::Write(new) => Change::Write(format!("{BOM}{new}")),
        Change::Delete(rest) => Change::Delete(format!("{BOM}{rest}")),
    })
}

impl Planner<'_> {
    /// Plan an edit of `rel` from its current text (or what an earlier step
    /// of this plan made of it); a parse or shape error is a problem and the
    /// file is left alone.
    pub(crate) fn edit(
        &mut self,
        rel: &str,
        f: impl FnOnce(Option<&str>) -> Result<Option<String>, MergeError>,
    ) {
        if self.problems.iter().any(|e| e.path == rel) {
            return;
        }
        if let Some(i) = self.files.iter().position(|x| x.rel == rel) {
            let current = self.files[i].after().map(str::to_string);
            match keeping_bom(current.as_deref(), f) {
                Ok(Some(new)) => self.files[i].set_after(new),
                Ok(None) => {}
                Err(e) => self.problems.push(InitError::from_merge(rel, e)),
            }
            return;
        }
        let Ok(existing) = self.read(rel) else { return };
        match keeping_bom(existing.as_deref(), f) {
            Ok(new) => self.record(rel, existing.as_deref(), new),
            Err(e) => self.problems.push(InitError::from_merge(rel, e)),
        }
    }

    /// Plan a removal edit of `rel` (nothing when it does not exist).
    pub(crate) fn change(&mut self, rel: &str, f: impl FnOnce(&str) -> Result<Change, MergeError>) {
        if self.problems.iter().any(|e| e.path == rel) {
            return;
        }
        let planned = self.files.iter().position(|x| x.rel == rel);
        let current = match planned {
            Some(i) => match self.files[i].after() {
                Some(t) => t.to_string(),
                None => return,
            },
            None => match self.read(rel) {
                Ok(Some(t)) => t,
                _ => return,
            },
        };
        let change = match change_keeping_bom(&current, f) {
            Ok(c) => c,
            Err(e) => return self.problems.push(InitError::from_merge(rel, e)),
        };
        match (change, planned) {
            (Change::Unchanged, None) => self.record(rel, Some(&current), None),
            (Change::Unchanged, Some(_)) => {}
            (Change::Write(new), Some(i)) => self.files[i].set_after(new),
            (Change::Write(new), None) => self.record(rel, Some(&current), Some(new)),
            // A link stays: what is left is written through it.
            (Change::Delete(rest), Some(i)) if self.is_link(rel) => self.files[i].set_after(rest),
            (Change::Delete(rest), None) if self.is_link(rel) => {
                self.record(rel, Some(&current), Some(rest))
            }
            (Change::Delete(_), Some(i)) => self.files[i].set_deleted(),
            (Change::Delete(_), None) => self.delete(rel, &current),
        }
    }

    /// Whether `rel` is a symbolic link.
    fn is_link(&self, rel: &str) -> bool {
        self.root
            .join(rel)
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
    }

    /// Plan the removal of a generated file notarai wrote and nobody
    /// edited; an edited one is kept, with a note.
    pub(crate) fn remove_generated(&mut self, rel: &str) {
        if self.files.iter().any(|f| f.rel == rel) {
            return;
        }
        if !rel.ends_with(generated::NEW_SUFFIX) {
            // notarai's proposal beside a kept file is notarai's too.
            let beside = format!("{rel}{}", generated::NEW_SUFFIX);
            if let Ok(Some(text)) = self.read(&beside)
                && generated::origin(&text) == generated::Origin::Unedited
            {
                self.delete(&beside, &text);
            }
        }
        let Ok(Some(text)) = self.read(rel) else {
            return;
        };
        match generated::origin(&text) {
            generated::Origin::Unedited => self.delete(rel, &text),
            origin => {
                let why = match origin {
                    generated::Origin::Edited => "edited since notarai wrote it",
                    _ => "not written by notarai",
                };
                self.push(
                    rel,
                    crate::init::Outcome::Kept,
                    None,
                    Some(format!(
                        "{why}, so it is kept; delete it yourself if you want it gone"
                    )),
                );
            }
        }
    }

    /// Plan the removal of `rel` when its text is exactly `text`.
    pub(crate) fn remove_if_equal(&mut self, rel: &str, text: &str) {
        let Ok(Some(current)) = self.read(rel) else {
            return;
        };
        if current == text {
            self.delete(rel, &current);
        } else {
            self.push(
                rel,
                crate::init::Outcome::Kept,
                None,
                Some("changed since notarai wrote it, so it is kept".into()),
            );
        }
    }

    /// Plan taking notarai's unedited section out of an instruction file.
    pub(crate) fn remove_section(&mut self, rel: &str) {
        let beside = format!("{rel}{}", generated::NEW_SUFFIX);
        if let Ok(Some(text)) = self.read(&beside)
            && matches!(claude_md::remove(&text), claude_md::Removal::Text(_))
        {
            self.delete(&beside, &text);
        }
        let Ok(Some(text)) = self.read(rel) else {
            return;
        };
        match claude_md::remove(&text) {
            claude_md::Removal::Absent => {}
            claude_md::Removal::Edited => self.push(
                rel,
                crate::init::Outcome::Kept,
                None,
                Some("notarai's section was edited, so it is kept".into()),
            ),
            claude_md::Removal::Text(new) if new.is_empty() => self.delete(rel, &text),
            claude_md::Removal::Text(new) => self.record(rel, Some(&text), Some(new)),
        }
    }

    /// Plan a generated file: `body` notarai's text, `stamped` with its marker.
    pub(crate) fn generated_text(&mut self, rel: &str, body: &str, stamped: String) {
        if self.files.iter().any(|f| f.rel == rel) {
            return;
        }
        let Ok(existing) = self.read(rel) else { return };
        let replaces = existing
            .as_deref()
            .map(|old| crate::init::own_origin(old, body));
        self.generated(rel, existing.as_deref(), stamped, replaces);
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

    #[test]
    fn each_agent_gets_its_workflow_forms() {
        let paths = |id, chosen: &[AgentId]| -> Vec<String> {
            workflow_files(id, chosen)
                .into_iter()
                .map(|(rel, _, _)| rel)
                .collect()
        };
        assert_eq!(
            paths(AgentId::Cursor, &[]),
            [
                ".cursor/rules/notarai-reconcile.mdc",
                ".cursor/rules/notarai-bootstrap.mdc"
            ]
        );
        assert!(paths(AgentId::Opencode, &[AgentId::Claude]).is_empty());
        assert_eq!(paths(AgentId::Opencode, &[]).len(), 2);
        assert!(paths(AgentId::Windsurf, &[]).is_empty());
        for (_, body, stamped) in workflow_files(AgentId::Gemini, &[]) {
            assert_eq!(generated::origin(&stamped), generated::Origin::Unedited);
            assert!(stamped.starts_with(&body));
        }
    }
}
