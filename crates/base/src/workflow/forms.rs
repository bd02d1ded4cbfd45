//! The workflows in other agents' forms: a Cursor rule, a Gemini CLI
//! command, a VS Code prompt file. Each is the skill's text (heading,
//! steps, notes) under that form's front matter, so no form can say
//! something the skill does not.

use super::Workflow;

/// A form an agent reads a workflow in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A skill (`SKILL.md`): Claude Code, Codex CLI, opencode, Zed.
    Skill,
    /// A Cursor rule (`.mdc`).
    CursorRule,
    /// A Gemini CLI custom command (TOML).
    GeminiCommand,
    /// A VS Code prompt file (`.prompt.md`).
    VscodePrompt,
}

impl Form {
    /// What an agent calls a workflow in this form (`skill`), for the
    /// instruction files' section.
    pub fn noun(self) -> &'static str {
        match self {
            Form::Skill => "skill",
            Form::CursorRule => "rule",
            Form::GeminiCommand => "command",
            Form::VscodePrompt => "prompt",
        }
    }
}

impl Workflow {
    /// The workflow in `form`.
    pub fn render(&self, form: Form) -> String {
        match form {
            Form::Skill => self.skill(),
            Form::CursorRule => self.cursor_rule(),
            Form::GeminiCommand => self.gemini_command(),
            Form::VscodePrompt => self.vscode_prompt(),
        }
    }

    /// The text under the skill's front matter: heading, introduction,
    /// steps and notes.
    pub fn body(&self) -> String {
        let skill = self.skill();
        let after = skill
            .strip_prefix("---\n")
            .and_then(|rest| rest.split_once("\n---\n"))
            .map_or(skill.as_str(), |(_, body)| body);
        after.trim_start_matches('\n').to_string()
    }

    /// A Cursor rule (`.cursor/rules/<name>.mdc`): applied when the agent
    /// judges it relevant (`alwaysApply: false`), by its description.
    pub fn cursor_rule(&self) -> String {
        format!(
            "---\ndescription: {}\nglobs:\nalwaysApply: false\n---\n\n{}",
            yaml_string(self.description),
            self.body()
        )
    }

    /// A Gemini CLI custom command (`.gemini/commands/<name>.toml`), run as
    /// `/<name>`; the prompt is a TOML multi-line literal string.
    ///
    /// # Panics
    /// When the body holds `'''` (a unit test renders every workflow).
    pub fn gemini_command(&self) -> String {
        let body = self.body();
        assert!(!body.contains("'''"), "{}: `'''` in the body", self.name);
        format!(
            "description = {}\nprompt = '''\n{body}'''\n",
            toml_basic_string(self.description)
        )
    }

    /// A VS Code prompt file (`.github/prompts/<name>.prompt.md`), run as
    /// `/<name>` in Copilot chat, in agent mode.
    pub fn vscode_prompt(&self) -> String {
        format!(
            "---\ndescription: {}\nagent: agent\n---\n\n{}",
            yaml_string(self.description),
            self.body()
        )
    }
}

/// `text` as a TOML basic string.
fn toml_basic_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `text` as a YAML double-quoted scalar.
fn yaml_string(text: &str) -> String {
    toml_basic_string(text)
}

/// `text` as a YAML front matter value: plain when YAML reads it back as
/// the same string, else double-quoted (a `: ` would start a mapping).
pub(super) fn front_matter_value(text: &str) -> String {
    let plain = !text.contains(": ")
        && !text.contains(" #")
        && !text.starts_with([
            '"', '\'', '[', '{', '&', '*', '!', '|', '>', '%', '@', '`', '-', '?',
        ]);
    if plain {
        text.to_string()
    } else {
        yaml_string(text)
    }
}

#[cfg(test)]
mod tests {
    use super::super::ALL;

    #[test]
    fn every_form_carries_the_skill_body() {
        for workflow in ALL {
            let body = workflow.body();
            assert!(body.starts_with("# "), "{body}");
            assert!(workflow.skill().ends_with(&body));
            for form in [
                workflow.cursor_rule(),
                workflow.gemini_command(),
                workflow.vscode_prompt(),
            ] {
                assert!(form.contains(&body));
            }
        }
    }
}
