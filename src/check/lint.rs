//! `notarai lint`: the specs' quality, without a model. Every finding of
//! `validate` (a spec that fails, a `$ref` cycle, a glob or anchor that
//! governs nothing, an anchor into a file notarai cannot outline, a
//! `tested_by` that names no file, a spec the system spec does not reach)
//! and the rules only lint runs: two specs governing one file without
//! saying it is shared, a behavior without `given`/`then`, a placeholder
//! intent, constraints nothing can check. Severities and `ignore` entries
//! come from `.notarai/check.yaml`; `check` runs the rules that come out
//! as errors.

use std::collections::BTreeMap;

use super::{Finding, FindingKind, Severity};
use crate::governance::Governance;
use crate::rules::Code;
use crate::spec::{self, LoadedSpec, SpecSet};

/// Words that mark an intent nobody wrote yet.
const PLACEHOLDERS: &[&str] = &["TODO", "TBD", "FIXME", "XXX"];

/// Fewest words an intent needs to say what a part is for.
const MIN_INTENT_WORDS: usize = 4;

/// Most example files a finding about many files names.
const EXAMPLES: usize = 3;

/// Every lint finding of the specs in `set`, before `check.yaml`:
/// validate's findings, then the rules only lint runs.
pub fn lint(set: &SpecSet, governance: &Governance, files: &[String]) -> Vec<Finding> {
    let mut out: Vec<Finding> = set
        .invalid
        .iter()
        .chain(&set.findings)
        .map(|f| Finding {
            severity: match f.severity {
                spec::Severity::Error => Severity::Error,
                spec::Severity::Warning => Severity::Warning,
            },
            kind: FindingKind::Lint,
            code: f.code,
            spec: Some(f.path.clone()),
            file: Some(f.path.clone()),
            line: Some(f.line),
            message: f.message.clone(),
        })
        .collect();
    out.extend(quality(set, governance, files));
    out
}

/// The rules only lint runs (`N401` to `N404`).
pub fn quality(set: &SpecSet, governance: &Governance, files: &[String]) -> Vec<Finding> {
    let mut out = overlapping(set, governance, files);
    for loaded in &set.specs {
        let positions = spec::yaml_positions(&loaded.raw);
        let line = |pointer: &str| positions.as_ref().map(|p| p.position(pointer).0);
        let finding = |code: Code, pointer: &str, message: String| Finding {
            severity: Severity::Warning,
            kind: FindingKind::Lint,
            code,
            spec: Some(loaded.path.clone()),
            file: Some(loaded.path.clone()),
            line: line(pointer),
            message,
        };
        for (i, b) in loaded.spec.behaviors.iter().enumerate() {
            let missing: Vec<&str> = [("given", &b.given), ("then", &b.then)]
                .into_iter()
                .filter(|(_, text)| text.trim().is_empty())
                .map(|(key, _)| key)
                .collect();
            if !missing.is_empty() {
                out.push(finding(
                    Code::IncompleteBehavior,
                    &format!("/behaviors/{i}"),
                    format!(
                        "behavior `{}` has no `{}`: nobody can tell when it holds",
                        b.name,
                        missing.join("` or `")
                    ),
                ));
            }
        }
        if let Some(why) = placeholder(&loaded.spec.intent) {
            out.push(finding(
                Code::PlaceholderIntent,
                "/intent",
                format!("the intent {why}; say in a sentence what this part is for"),
            ));
        }
        if let Some(pointer) = uncheckable(loaded, set, governance, files) {
            out.push(finding(
                Code::UncheckableConstraint,
                pointer,
                "the spec states constraints or invariants but governs no code and names no test (`tested_by`): nothing can show they hold".to_string(),
            ));
        }
    }
    out
}

/// Why `intent` says nothing yet, if it does not.
fn placeholder(intent: &str) -> Option<String> {
    let words: Vec<&str> = intent.split_whitespace().collect();
    let marker = words.iter().find_map(|w| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric());
        PLACEHOLDERS.iter().find(|p| **p == bare)
    });
    if let Some(marker) = marker {
        return Some(format!("is a placeholder (`{marker}`)"));
    }
    (words.len() < MIN_INTENT_WORDS).then(|| {
        format!(
            "has {} word{} (fewer than {MIN_INTENT_WORDS})",
            words.len(),
            if words.len() == 1 { "" } else { "s" }
        )
    })
}

/// The pointer of the constraints (or invariants) of a spec that states
/// some but governs no code file and names no test; `None` otherwise. A
/// cross-cutting spec governs through the specs it applies to: not asked.
fn uncheckable(
    loaded: &LoadedSpec,
    set: &SpecSet,
    governance: &Governance,
    files: &[String],
) -> Option<&'static str> {
    let spec = &loaded.spec;
    if spec.cross_cutting {
        return None;
    }
    let pointer = match (spec.constraints.is_empty(), spec.invariants.is_empty()) {
        (false, _) => "/constraints",
        (true, false) => "/invariants",
        (true, true) => return None,
    };
    if spec.behaviors.iter().any(|b| !b.tested_by.is_empty()) {
        return None;
    }
    let index = set.specs.iter().position(|s| s.path == loaded.path)?;
    let governs_code = files
        .iter()
        .any(|f| governance.categories(index, f).contains(&"code"));
    (!governs_code).then_some(pointer)
}

/// Each pair of specs that govern the same files whole, where no entry of
/// either that matches them says `role: shared`: one finding per pair,
/// with the count and a few of the files.
fn overlapping(set: &SpecSet, governance: &Governance, files: &[String]) -> Vec<Finding> {
    // Per spec, its whole-file artifact globs and whether each is shared.
    let globs: Vec<Vec<(globset::GlobSet, bool)>> = set
        .specs
        .iter()
        .map(|loaded| {
            loaded
                .spec
                .artifacts
                .values()
                .flatten()
                .filter(|a| a.source.is_none())
                .filter_map(|a| {
                    let (pattern, anchor) = crate::symbols::split_anchor(&a.path);
                    if anchor.is_some() {
                        return None;
                    }
                    let set = spec::compile_artifact_glob(pattern).ok()?;
                    Some((set, a.role.as_deref().map(str::trim) == Some("shared")))
                })
                .collect()
        })
        .collect();
    // (spec, shared) for each whole-file match of `file` by spec `s`.
    let whole = |s: usize, file: &str| -> Option<bool> {
        let matching: Vec<bool> = globs[s]
            .iter()
            .filter(|(g, _)| g.is_match(file))
            .map(|(_, shared)| *shared)
            .collect();
        (!matching.is_empty()).then(|| matching.iter().any(|s| *s))
    };
    let mut pairs: BTreeMap<(usize, usize), Vec<&str>> = BTreeMap::new();
    for file in files.iter().filter(|f| !spec::is_spec_path(f)) {
        let governors = governance.governors(file);
        if governors.len() < 2 {
            continue;
        }
        let whole_by: Vec<(usize, bool)> = governors
            .iter()
            .filter_map(|&g| whole(g, file).map(|shared| (g, shared)))
            .collect();
        for (i, &(a, shared_a)) in whole_by.iter().enumerate() {
            for &(b, shared_b) in &whole_by[i + 1..] {
                if !shared_a && !shared_b {
                    pairs.entry((a, b)).or_default().push(file);
                }
            }
        }
    }
    pairs
        .into_iter()
        .map(|((a, b), files)| {
            let (a, b) = (&set.specs[a].path, &set.specs[b].path);
            let mut shown = files.iter().take(EXAMPLES).copied().collect::<Vec<_>>().join(", ");
            if files.len() > EXAMPLES {
                shown.push_str(&format!(" and {} more", files.len() - EXAMPLES));
            }
            Finding {
                severity: Severity::Warning,
                kind: FindingKind::Lint,
                code: Code::OverlappingSpecs,
                spec: Some(a.clone()),
                file: Some(a.clone()),
                line: None,
                message: format!(
                    "{a} and {b} both govern {} file{} ({shown}) and neither entry says `role: shared`",
                    files.len(),
                    if files.len() == 1 { "" } else { "s" }
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::placeholder;

    #[test]
    fn an_intent_is_a_placeholder_or_too_short_or_fine() {
        assert!(placeholder("TODO: describe the project").is_some());
        assert!(placeholder("The auth part (TBD).").is_some());
        assert!(placeholder("Auth.").is_some());
        assert!(placeholder("Sessions keep users signed in.").is_none());
        // A word that holds a marker is no marker.
        assert!(placeholder("Parses TODOS lists for the user.").is_none());
    }
}

/// What `notarai lint` reports (its `--format json` output).
#[derive(Debug, Clone, serde::Serialize, schemars::JsonSchema)]
pub struct LintReport {
    /// The lowest severity that fails, when `.notarai/check.yaml` sets it
    /// below error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<Severity>,
    /// Every finding, by spec and line.
    pub findings: Vec<Finding>,
    /// Counts.
    pub summary: LintSummary,
}

/// The counts of a lint.
#[derive(Debug, Clone, Default, serde::Serialize, schemars::JsonSchema)]
pub struct LintSummary {
    /// Specs looked at (loaded or not).
    pub specs: usize,
    /// Findings of severity error.
    pub errors: usize,
    /// Findings of severity warning.
    pub warnings: usize,
    /// Findings of severity notice.
    pub notices: usize,
    /// Findings an `ignore` entry left out.
    pub ignored: usize,
}

impl LintReport {
    /// Whether the lint fails (exit 1): a finding at or above `fail_on`.
    pub fn failed(&self) -> bool {
        let s = &self.summary;
        match self.fail_on {
            None | Some(Severity::Error) => s.errors > 0,
            Some(Severity::Warning) => s.errors + s.warnings > 0,
            Some(Severity::Notice) => s.errors + s.warnings + s.notices > 0,
        }
    }
}

/// Lint the specs of the project at `root`, with `.notarai/check.yaml`.
pub fn run(root: &std::path::Path) -> Result<LintReport, super::CheckError> {
    let gate = super::config::Gate::read(root).map_err(super::CheckError::Config)?;
    let files = crate::project::repo_files(root);
    let set = SpecSet::load_with(root, Some(&files));
    let governance = Governance::build(&set);
    let mut findings = lint(&set, &governance, &files);
    let ignored = gate
        .as_ref()
        .map_or(0, |g| g.apply(&mut findings, super::config::today()));
    findings.sort_by(|a, b| {
        (&a.file, a.line, a.severity, a.code).cmp(&(&b.file, b.line, b.severity, b.code))
    });
    let count = |s| findings.iter().filter(|f| f.severity == s).count();
    let summary = LintSummary {
        specs: set.specs.len() + {
            let mut bad: Vec<&str> = set.invalid.iter().map(|f| f.path.as_str()).collect();
            bad.dedup();
            bad.len()
        },
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        notices: count(Severity::Notice),
        ignored,
    };
    Ok(LintReport {
        fail_on: gate
            .and_then(|g| g.fail_on)
            .and_then(super::config::Level::below_error),
        findings,
        summary,
    })
}
