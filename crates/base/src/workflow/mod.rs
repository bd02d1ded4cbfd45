//! The agent workflows, written once as typed data: the reconciliation pass
//! and the drafting of the first specs.
//!
//! Each [`Workflow`] is a list of [`Step`]s (an id, a title, the tool the step
//! calls, the text an agent follows). Everything that tells an agent how to
//! work with notarai is rendered from here, so the texts cannot name
//! different steps or tools: the server's `instructions` ([`Workflow::pass`]),
//! the notes in the tools' descriptions ([`Workflow::tool_note`]), the
//! skills and the other agents' forms ([`Workflow::render`]), the MCP
//! prompts ([`Workflow::prompt`], the skill's steps under the arguments
//! given), the
//! section `init` writes into the agents' instruction files ([`section`])
//! and what a read-only server says it cannot do ([`read_only_server`]). A
//! leaf module: it imports nothing of notarai.
//!
//! A step's text may name another step as `{step:<id>}`; it is rendered as
//! `step <number>`, so adding a step renumbers every reference.

mod advice;
mod bootstrap;
mod forms;
mod reconcile;

pub use advice::{Readers, read_only_server, section};
pub use bootstrap::BOOTSTRAP;
pub use forms::Form;
pub use reconcile::RECONCILE;

/// One step of a workflow.
#[derive(Debug, Clone, Copy)]
pub struct Step {
    /// A stable name for the step, used by `{step:<id>}` references.
    pub id: &'static str,
    /// The step's title, in bold at the start of its skill text.
    pub title: &'static str,
    /// The MCP tool the step calls, if it calls one.
    pub tool: Option<Call>,
    /// The step in a phrase, for the server's `instructions`; a step without
    /// one is left out of that short form.
    pub brief: Option<&'static str>,
    /// The full text an agent follows (Markdown, lines unindented; the
    /// renderer indents them under the number).
    pub text: &'static str,
    /// Taken only in some passes (the docs step, when a spec has docs): a
    /// tool's note then names what comes after it too.
    pub optional: bool,
}

/// A tool call made by a step.
#[derive(Debug, Clone, Copy)]
pub struct Call {
    /// The tool's name.
    pub name: &'static str,
    /// Its main arguments as written in the short form, e.g. `{base_branch}`.
    pub args: &'static str,
}

/// An argument of a workflow's MCP prompt.
#[derive(Debug, Clone, Copy)]
pub struct Argument {
    /// Its name (`base_branch`).
    pub name: &'static str,
    /// What to give, for the prompt's listing.
    pub description: &'static str,
    /// Whether the prompt needs it.
    pub required: bool,
    /// How a given value narrows the pass, one Markdown list item; every
    /// `{value}` is replaced by the value, `{json}` by the value as a JSON
    /// string (quotes and backslashes escaped).
    pub narrows: &'static str,
    /// What kind of value it takes, which says how it is checked and what
    /// completion offers.
    pub kind: ArgumentKind,
}

/// What kind of value a prompt argument takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentKind {
    /// A branch name (`main`, `origin/main`).
    Branch,
    /// A spec file's repository-relative path (`.notarai/auth.spec.yaml`).
    SpecPath,
    /// A folder's repository-relative path (`src/auth`).
    Folder,
}

/// The MCP prompt that renders a workflow.
#[derive(Debug, Clone, Copy)]
pub struct Prompt {
    /// The prompt's name (`reconcile`).
    pub name: &'static str,
    /// Its title, for a person picking it.
    pub title: &'static str,
    /// Its arguments.
    pub arguments: &'static [Argument],
}

/// A workflow: its skill's name and description, its introduction, its steps
/// in order and closing notes.
#[derive(Debug, Clone, Copy)]
pub struct Workflow {
    /// The skill's name (`notarai-<pass>`), which every form and the
    /// instruction files' section use.
    pub name: &'static str,
    /// The skill's description: when an agent should use it.
    pub description: &'static str,
    /// When to follow it, the start of a sentence for the instruction
    /// files' section ("After changing code, ..., reconcile").
    pub when: &'static str,
    /// What a pass is called in the short form ("A reconciliation pass").
    pub pass_name: &'static str,
    /// The skill's heading.
    pub heading: &'static str,
    /// The paragraph under the heading.
    pub intro: &'static str,
    /// The steps, in order.
    pub steps: &'static [Step],
    /// Closing notes (Markdown list items without the `- `), may be empty.
    pub notes: &'static [&'static str],
    /// The MCP prompt that renders it.
    pub prompt: Prompt,
}

impl Workflow {
    /// The tools the steps call, in step order, each once.
    pub fn tools(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for call in self.steps.iter().filter_map(|s| s.tool) {
            if !out.contains(&call.name) {
                out.push(call.name);
            }
        }
        out
    }

    /// The number (from 1) of the step `id`.
    pub fn number(&self, id: &str) -> Option<usize> {
        self.steps.iter().position(|s| s.id == id).map(|i| i + 1)
    }

    /// `text` with every `{step:<id>}` replaced by `step <number>`.
    ///
    /// # Panics
    /// When `id` is no step of this workflow (a unit test renders every text).
    fn resolve(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find("{step:") {
            out.push_str(&rest[..at]);
            let after = &rest[at + "{step:".len()..];
            let end = after.find('}').expect("`{step:` without `}`");
            let id = &after[..end];
            let n = self
                .number(id)
                .unwrap_or_else(|| panic!("{}: no step `{id}`", self.name));
            out.push_str(&format!("step {n}"));
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        out
    }

    /// The pass in one paragraph, for the server's `instructions`: the
    /// numbered steps that have a brief, with the tool each calls.
    pub fn pass(&self) -> String {
        let parts: Vec<String> = self
            .steps
            .iter()
            .filter_map(|s| Some((s.tool, s.brief?)))
            .enumerate()
            .map(|(i, (tool, brief))| match tool {
                Some(call) if call.args.is_empty() => format!("{}. {} {brief}", i + 1, call.name),
                Some(call) => format!("{}. {} {} {brief}", i + 1, call.name, call.args),
                None => format!("{}. {brief}", i + 1),
            })
            .collect();
        format!("{}: {}.", self.pass_name, parts.join("; "))
    }

    /// Where the tool `name` stands in this workflow, for its description:
    /// the step before it that calls a tool and what comes next. `None` when
    /// no step calls it.
    pub fn tool_note(&self, name: &str) -> Option<String> {
        let at = self
            .steps
            .iter()
            .position(|s| s.tool.is_some_and(|c| c.name == name))?;
        let before = self.steps[..at].iter().rev().find_map(|s| s.tool);
        let mut next = Vec::new();
        for step in &self.steps[at + 1..] {
            let Some(brief) = step.brief else { continue };
            match step.tool {
                Some(call) => {
                    next.push(format!("`{}` {brief}", call.name));
                    if !step.optional {
                        break;
                    }
                }
                None => next.push(brief.to_string()),
            }
        }
        let place = match before {
            None => format!("{}: this tool comes first", self.pass_name),
            Some(call) => format!("{}: this tool follows `{}`", self.pass_name, call.name),
        };
        Some(if next.is_empty() {
            format!("{place}, and ends the pass.")
        } else {
            format!("{place}; next, {}.", next.join(", then "))
        })
    }

    /// The Claude Code skill (`SKILL.md`, before notarai's marker line).
    pub fn skill(&self) -> String {
        let mut out = format!(
            "---\nname: {}\ndescription: {}\n---\n\n# {}\n\n{}\n",
            self.name,
            forms::front_matter_value(self.description),
            self.heading,
            self.intro
        );
        out.push_str(&self.steps_and_notes());
        out
    }

    /// The text of the MCP prompt: the skill without its front matter,
    /// with a `## This pass` section before the steps saying how each given
    /// argument (`(name, value)`, an empty value counts as not given)
    /// narrows the pass, and `extra` items appended to it.
    pub fn prompt_text(&self, given: &[(&str, &str)], extra: &[&str]) -> String {
        let mut out = format!("# {}\n\n{}\n", self.heading, self.intro);
        let mut items: Vec<String> = self
            .prompt
            .arguments
            .iter()
            .filter_map(|arg| {
                let (_, value) = given
                    .iter()
                    .find(|(name, value)| *name == arg.name && !value.is_empty())?;
                let json = serde_json::Value::from(*value).to_string();
                // Inside backticks, the value as a JSON string's inside
                // (quotes, newlines, control characters escaped) with its
                // backticks and invisible format characters escaped too: a
                // spec's name is data, it cannot close the span or start a
                // line of the prompt.
                let shown: String = json[1..json.len() - 1]
                    .chars()
                    .map(|c| match c {
                        '`' => "\\u0060".to_string(),
                        c if matches!(c, '\u{80}'..='\u{9f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}') => {
                            format!("\\u{:04x}", c as u32)
                        }
                        c => c.to_string(),
                    })
                    .collect();
                Some(
                    arg.narrows
                        .replace("{json}", &json)
                        .replace("{value}", &shown),
                )
            })
            .collect();
        items.extend(extra.iter().map(|e| e.to_string()));
        if !items.is_empty() {
            out.push_str("## This pass\n\n");
            for item in items {
                out.push_str("- ");
                out.push_str(&item.replace('\n', "\n  "));
                out.push('\n');
            }
            out.push('\n');
        }
        out.push_str(&self.steps_and_notes());
        out
    }

    /// The `## Steps` section (numbered, references resolved) and the
    /// `## Notes` section when there are notes.
    fn steps_and_notes(&self) -> String {
        let mut out = String::from("## Steps\n\n");
        for (i, step) in self.steps.iter().enumerate() {
            let number = format!("{}. ", i + 1);
            let indent = " ".repeat(number.len());
            let text = self.resolve(step.text);
            out.push_str(&number);
            out.push_str(&format!("**{}**", step.title));
            for (j, line) in text.lines().enumerate() {
                if j == 0 {
                    out.push(' ');
                } else if line.is_empty() {
                    out.push('\n');
                    continue;
                } else {
                    out.push('\n');
                    out.push_str(&indent);
                }
                out.push_str(line);
            }
            out.push('\n');
        }
        if !self.notes.is_empty() {
            out.push_str("\n## Notes\n\n");
            for note in self.notes {
                out.push_str("- ");
                out.push_str(&note.replace('\n', "\n  "));
                out.push('\n');
            }
        }
        out
    }
}

/// Every workflow notarai renders.
pub const ALL: [&Workflow; 2] = [&RECONCILE, &BOOTSTRAP];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_names_its_tool_and_every_reference_resolves() {
        for workflow in ALL {
            let skill = workflow.skill();
            assert!(!skill.contains("{step:"), "{skill}");
            for step in workflow.steps {
                if let Some(call) = step.tool {
                    assert!(
                        step.text.contains(&format!("`{}`", call.name)),
                        "{}: step `{}` calls `{}` but its text does not name it",
                        workflow.name,
                        step.id,
                        call.name
                    );
                }
            }
            let mut ids: Vec<_> = workflow.steps.iter().map(|s| s.id).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(
                ids.len(),
                workflow.steps.len(),
                "{}: duplicate step id",
                workflow.name
            );
        }
    }

    #[test]
    fn a_prompt_is_the_skill_narrowed_by_its_arguments() {
        for workflow in ALL {
            let skill = workflow.skill();
            let steps = &skill[skill.find("## Steps").unwrap()..];
            let plain = workflow.prompt_text(&[], &[]);
            assert!(plain.ends_with(steps) && !plain.contains("## This pass"));
            assert!(!plain.starts_with("---"), "no front matter in a prompt");
            let given: Vec<(&str, &str)> = workflow
                .prompt
                .arguments
                .iter()
                .map(|a| (a.name, "VALUE-X"))
                .collect();
            let narrowed = workflow.prompt_text(&given, &["extra item"]);
            assert!(narrowed.ends_with(steps));
            let pass = &narrowed[narrowed.find("## This pass").unwrap()..];
            for arg in workflow.prompt.arguments {
                let item = arg
                    .narrows
                    .replace("{json}", "\"VALUE-X\"")
                    .replace("{value}", "VALUE-X");
                assert!(pass.contains(&item), "{}: {pass}", arg.name);
                assert!(
                    !item.contains("{value") && !item.contains("{json"),
                    "{}",
                    arg.name
                );
            }
            assert!(pass.contains("- extra item\n"));
        }
    }

    #[test]
    fn the_short_form_and_the_notes_follow_the_steps() {
        let pass = RECONCILE.pass();
        let mut at = 0;
        for tool in RECONCILE.tools() {
            let found = pass[at..]
                .find(tool)
                .unwrap_or_else(|| panic!("{tool}: {pass}"));
            at += found;
        }
        let first = RECONCILE.tools()[0];
        assert!(RECONCILE.tool_note(first).unwrap().contains("comes first"));
        let last = *RECONCILE.tools().last().unwrap();
        assert!(
            RECONCILE
                .tool_note(last)
                .unwrap()
                .ends_with("ends the pass.")
        );
        assert_eq!(RECONCILE.tool_note("no_such_tool"), None);
    }

    #[test]
    fn a_quote_in_a_branch_name_is_escaped_where_the_prompt_quotes_it() {
        let text = RECONCILE.prompt_text(&[("base_branch", "we\"ird")], &[]);
        assert!(
            text.contains(r#"base_branch: "we\"ird""#),
            "the value as a JSON string: {text}"
        );
    }
}
