//! The installed reconcile skill, read as steps: each numbered step of
//! `.claude/skills/notarai-reconcile/SKILL.md` with its text and the tools
//! it tells the agent to call (`Call \`tool\``), in the order written.

use std::path::Path;

use anyhow::{Context, Result, bail};

/// Where `notarai init --agents claude` puts the reconcile skill.
pub const SKILL_PATH: &str = ".claude/skills/notarai-reconcile/SKILL.md";

/// One numbered step of the skill.
#[derive(Debug, Clone)]
pub struct Step {
    /// Its bold title (`Take stock.`).
    pub title: String,
    /// The whole step text, title included.
    pub text: String,
    /// The tools it says to call, in order (`Call \`x\`` or `call \`x\``).
    pub calls: Vec<String>,
}

impl Step {
    /// Whether the step tells the agent to stop the pass somewhere.
    pub fn says_stop(&self) -> bool {
        self.text.match_indices("stop").any(|(at, _)| {
            let before = self.text[..at].chars().next_back();
            let after = self.text[at + 4..].chars().next();
            !before.is_some_and(char::is_alphabetic) && !after.is_some_and(char::is_alphabetic)
        })
    }

    /// The first JSON list of strings written after `exclude_patterns` in
    /// this step, when the step asks for one.
    pub fn exclude_patterns(&self) -> Option<Vec<String>> {
        let at = self.text.find("exclude_patterns")?;
        let rest = &self.text[at..];
        let open = rest.find('[')?;
        let close = rest[open..].find(']')? + open;
        let list: String = rest[open..=close]
            .lines()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        serde_json::from_str(&list).ok()
    }
}

/// The skill's steps, read from the replay repository.
pub fn read(work: &Path) -> Result<(Vec<Step>, usize)> {
    let path = work.join(SKILL_PATH);
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let steps = parse(&text);
    if steps.is_empty() {
        bail!("{}: no numbered steps found", path.display());
    }
    Ok((steps, text.len()))
}

/// Split the skill's Markdown into its numbered steps.
pub fn parse(text: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut in_steps = false;
    for line in text.lines() {
        if line.starts_with("## ") {
            in_steps = line.trim() == "## Steps";
            continue;
        }
        if !in_steps {
            continue;
        }
        if let Some(title) = step_title(line) {
            steps.push(Step {
                title,
                text: line.to_owned(),
                calls: Vec::new(),
            });
        } else if let Some(step) = steps.last_mut() {
            step.text.push('\n');
            step.text.push_str(line);
        }
    }
    for step in &mut steps {
        step.calls = calls(&step.text);
    }
    steps
}

/// `N. **Title**` -> `Title`.
fn step_title(line: &str) -> Option<String> {
    let digits = line.find(|c: char| !c.is_ascii_digit())?;
    if digits == 0 {
        return None;
    }
    let rest = line[digits..].strip_prefix(". **")?;
    let end = rest.find("**")?;
    Some(rest[..end].to_owned())
}

/// Every tool named right after "call" in `text`, in order.
fn calls(text: &str) -> Vec<String> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut rest = flat.as_str();
    while let Some(at) = rest.find("all `") {
        let before = &rest[..at];
        let after = &rest[at + 5..];
        let called = before.ends_with('C') || before.ends_with('c');
        if let Some(end) = after.find('`').filter(|_| called) {
            let name = &after[..end];
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                out.push(name.to_owned());
            }
        }
        rest = after;
    }
    out
}
