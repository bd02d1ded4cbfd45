//! The advice around the workflows, rendered from them: the section
//! `notarai init` writes into an agent's instruction file (`CLAUDE.md`,
//! `AGENTS.md`, ...), and what a read-only server says it cannot do. The
//! workflows' names come from [`super::ALL`], the tools that write from the
//! caller (the tools table's access), so no text here names a tool or a
//! workflow by hand.

use super::{ALL, Workflow};

/// Who reads an instruction file, which says how the section names the
/// workflows and the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readers {
    /// One agent's own file (`CLAUDE.md`): the section names its form of
    /// the workflows (`skill`), its MCP configuration file, and says its
    /// hook checks every spec written.
    One {
        /// What the agent calls a workflow file (`skill`).
        form: &'static str,
        /// Its MCP configuration file (`.mcp.json`).
        mcp_file: &'static str,
        /// Whether the agent has notarai's post-edit hook.
        hook: bool,
    },
    /// A file several agents read (`AGENTS.md`), each with its own form.
    Shared,
}

/// The rules every section ends with, whatever reads it.
const PROPOSE: &str = "Propose spec changes and wait for approval; never rewrite a spec's \
                       intent silently to match the code.";

/// `text` wrapped at 80 columns as a Markdown list item (`- `, lines after
/// the first indented by two spaces), or as a paragraph when `item` is
/// false.
fn wrap(text: &str, item: bool) -> String {
    let (first, rest) = if item { ("- ", "  ") } else { ("", "") };
    let mut out = String::from(first);
    let mut width = first.len();
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 && width + 1 + word.len() > 80 {
            out.push('\n');
            out.push_str(rest);
            width = rest.len();
        } else if i > 0 {
            out.push(' ');
            width += 1;
        }
        out.push_str(word);
        width += word.len();
    }
    out.push('\n');
    out
}

/// The bullet that says when to follow `workflow`; `first` is the first
/// workflow of the section (which explains what a workflow is, for a
/// shared file).
fn when_item(workflow: &Workflow, readers: Readers, first: bool) -> String {
    let name = workflow.name;
    let text = match readers {
        Readers::One { form, .. } => format!("{} with the `{name}` {form}.", workflow.when),
        Readers::Shared if first => format!(
            "{}: follow the `{name}` workflow (a skill, rule, command or prompt of that name, \
             as your agent has it; the server's instructions say the same).",
            workflow.when
        ),
        Readers::Shared => format!("{} with the `{name}` workflow.", workflow.when),
    };
    wrap(&text, true)
}

/// notarai's section of an instruction file read by `readers`, Markdown
/// with its `## NotarAI` heading.
pub fn section(readers: Readers) -> String {
    let server = match readers {
        Readers::One { mcp_file, .. } => format!("The `notarai` MCP server (in `{mcp_file}`)"),
        Readers::Shared => "The `notarai` MCP server".to_string(),
    };
    let mut out = String::from("## NotarAI\n\n");
    out.push_str(&wrap(
        &format!(
            "This project states its intent in specs: YAML files under `.notarai/` named \
             `*.spec.yaml`. Each spec says what one part of the project must do (`intent`, \
             `behaviors`, `constraints`, `invariants`) and which files it governs (`artifacts` \
             globs). {server} tells you which specs a change touches and shows only the part \
             of the diff each one governs."
        ),
        false,
    ));
    out.push('\n');
    for (i, workflow) in ALL.iter().enumerate() {
        out.push_str(&when_item(workflow, readers, i == 0));
    }
    out.push_str(&wrap(PROPOSE, true));
    let hook = match readers {
        Readers::One { hook: true, .. } => {
            "A hook checks every spec you write. When it reports `path:line:col: message`, fix \
             the spec before doing anything else. `notarai validate` checks them all."
        }
        _ => {
            "When a hook reports `path:line:col: message` after you wrote a spec, fix the spec \
             before doing anything else. `notarai validate` checks them all."
        }
    };
    out.push_str(&wrap(hook, true));
    out
}

/// `names` as Markdown code, joined: `` `a` ``, `` `a` and `b` ``,
/// `` `a`, `b` and `c` ``.
fn code_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// What a read-only server (`notarai mcp --read-only`) says in its
/// instructions: it offers none of `writes`, the tools that write.
pub fn read_only_server(writes: &[&str]) -> String {
    format!(
        "This server is read-only (`notarai mcp --read-only`): it offers no tool that writes \
         ({}) and writes nothing under .notarai/. Report what you find; recording a pass needs \
         a server started without `--read-only`.",
        code_list(writes)
    )
}

impl Workflow {
    /// What the workflow's prompt adds on a read-only server, when a step
    /// calls one of `writes` (the tools that write): which are not
    /// available. `None` when no step writes.
    pub fn read_only_note(&self, writes: &[&str]) -> Option<String> {
        let missing: Vec<&str> = self
            .tools()
            .into_iter()
            .filter(|t| writes.contains(t))
            .collect();
        (!missing.is_empty()).then(|| {
            format!(
                "This server is read-only (`notarai mcp --read-only`): {} {} not available \
                 here. Report what you found; recording is left to a server started without \
                 `--read-only`.",
                code_list(&missing),
                if missing.len() == 1 { "is" } else { "are" }
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{BOOTSTRAP, RECONCILE};
    use super::*;

    #[test]
    fn a_section_names_every_workflow_and_fits_80_columns() {
        for readers in [
            Readers::Shared,
            Readers::One {
                form: "skill",
                mcp_file: ".mcp.json",
                hook: true,
            },
        ] {
            let text = section(readers);
            assert!(text.starts_with("## NotarAI\n\n"), "{text}");
            for workflow in ALL {
                assert!(text.contains(&format!("`{}`", workflow.name)), "{text}");
            }
            assert!(text.lines().all(|l| l.len() <= 80), "{text}");
            assert!(text.ends_with("checks them all.\n"), "{text}");
        }
    }

    #[test]
    fn read_only_texts_name_what_is_missing() {
        let writes = ["mark_reconciled", "snapshot_state", "clear_cache"];
        assert!(
            read_only_server(&writes)
                .contains("(`mark_reconciled`, `snapshot_state` and `clear_cache`)")
        );
        let note = RECONCILE.read_only_note(&writes).unwrap();
        assert!(note.contains("`mark_reconciled` and `snapshot_state` are not available"));
        assert!(
            BOOTSTRAP
                .read_only_note(&writes)
                .unwrap()
                .contains("`mark_reconciled` is not")
        );
        assert_eq!(RECONCILE.read_only_note(&[]), None);
    }
}
