//! What `notarai check` reports, finding by finding: about the specs and the
//! state, about tests, about the changed files, about symbols; then their
//! order. [`super::check`] gathers what they read (changes, specs, the
//! assessment) once and calls each.

use std::path::Path;

use super::status::Assessed;
use super::ungoverned::{coverage_policy, is_notarais_own, only_notarais_lines};
use super::{Finding, FindingKind, Severity};
use crate::changes::{ChangeSet, GitRepo};
use crate::governance::Governance;
use crate::rules::Code;
use crate::spec::{self, SpecSet};
use crate::state::State;

/// The findings about the specs themselves and the state: invalid specs,
/// open drift notes, a cache git tracks, the loader's warnings.
pub(super) fn spec_findings(set: &SpecSet, state: &State, git: &GitRepo) -> Vec<Finding> {
    let mut findings = Vec::new();
    for f in set.errors() {
        findings.push(Finding {
            severity: Severity::Error,
            kind: FindingKind::InvalidSpec,
            code: f.code,
            spec: Some(f.path.clone()),
            file: Some(f.path.clone()),
            line: Some(f.line),
            message: f.message.clone(),
        });
    }
    for (spec, notes) in &state.drift_notes {
        for note in notes {
            findings.push(Finding {
                severity: Severity::Warning,
                kind: FindingKind::DriftNote,
                code: Code::OpenDriftNote,
                spec: Some(spec.clone()),
                file: note.paths.first().cloned(),
                line: None,
                message: format!(
                    "drift reported ({}): {}; review it and reconcile the spec to close the note",
                    note.id, note.note
                ),
            });
        }
    }
    let tracked = git.tracked_cache_files();
    if !tracked.is_empty() {
        findings.push(Finding {
            severity: Severity::Warning,
            kind: FindingKind::TrackedCache,
            code: Code::TrackedCache,
            spec: None,
            file: tracked.first().cloned(),
            line: None,
            message: crate::changes::tracked_cache_message(&tracked),
        });
    }
    // The loader's warning for a missing `tested_by` file is an error here
    // (MissingTest below), so it is not repeated as a spec warning.
    let is_missing_test = |f: &&spec::Finding| f.message.contains("(`tested_by`) does not exist");
    for f in set
        .findings
        .iter()
        .filter(|f| !f.is_error() && !is_missing_test(f))
    {
        findings.push(Finding {
            severity: Severity::Warning,
            kind: FindingKind::SpecWarning,
            code: f.code,
            spec: Some(f.path.clone()),
            file: Some(f.path.clone()),
            line: Some(f.line),
            message: f.message.clone(),
        });
    }
    findings
}

/// The rule files generated from the specs that no longer match them, a
/// warning each, with the command that refreshes them.
pub(super) fn rule_findings(root: &Path, set: &SpecSet, findings: &mut Vec<Finding>) {
    for drifted in crate::rule_files::drift(root, set) {
        findings.push(Finding {
            severity: Severity::Warning,
            code: Code::StaleRuleFile,
            kind: FindingKind::StaleRule,
            spec: Some(drifted.spec.clone()),
            file: Some(drifted.rel.clone()),
            line: None,
            message: format!(
                "{}'s rule file {}; run `{}` to refresh it",
                drifted.agent.title(),
                drifted.drift.describe(),
                crate::rule_files::REFRESH
            ),
        });
    }
    for stale in crate::init::hook_if::stale(root, set, &crate::agent::AgentId::ALL) {
        findings.push(Finding {
            severity: Severity::Warning,
            code: Code::StaleRuleFile,
            kind: FindingKind::StaleRule,
            spec: None,
            file: Some(stale.rel.to_string()),
            line: None,
            message: format!(
                "{}'s pre-edit hook has an `if` that no longer matches the specs' globs (it \
                 could skip a governed file); run `{}` to refresh it",
                stale.agent.title(),
                crate::rule_files::REFRESH
            ),
        });
    }
}

/// The findings about tests: a `tested_by` file that does not exist (an
/// error), a behavior that names no test (a warning each with `untested`,
/// else one notice).
pub(super) fn test_findings(
    root: &Path,
    set: &SpecSet,
    untested_detail: bool,
    findings: &mut Vec<Finding>,
) {
    let mut untested = Vec::new();
    for loaded in &set.specs {
        let spec = &loaded.spec;
        if spec.schema_version != "0.8" || spec.tier() != spec::Tier::Full || spec.cross_cutting {
            continue;
        }
        for behavior in &spec.behaviors {
            for test in &behavior.tested_by {
                let exists = crate::repo_path::RepoPath::parse(&test.path)
                    .is_ok_and(|p| std::fs::symlink_metadata(p.to_fs(root)).is_ok());
                if !exists {
                    findings.push(Finding {
                        severity: Severity::Error,
                        kind: FindingKind::MissingTest,
            code: Code::TestedByMissing,
                        spec: Some(loaded.path.clone()),
                        file: Some(loaded.path.clone()),
                        line: None,
                        message: format!(
                            "behavior `{}`: test file `{}` (`tested_by`) does not exist; fix the path or remove the entry",
                            behavior.name, test.path
                        ),
                    });
                }
            }
        }
        for behavior in spec.behaviors.iter().filter(|b| b.tested_by.is_empty()) {
            untested.push(Finding {
                severity: Severity::Warning,
                kind: FindingKind::Untested,
            code: Code::UntestedBehavior,
                spec: Some(loaded.path.clone()),
                file: Some(loaded.path.clone()),
                line: None,
                message: format!(
                    "behavior `{}` names no test; add `tested_by` with the test files that verify it",
                    behavior.name
                ),
            });
        }
    }
    // One summary line unless the detail is asked for.
    if untested_detail || untested.is_empty() {
        findings.append(&mut untested);
    } else {
        let mut specs: Vec<&str> = untested.iter().filter_map(|f| f.spec.as_deref()).collect();
        specs.dedup();
        findings.push(Finding {
            severity: Severity::Notice,
            kind: FindingKind::Untested,
            code: Code::UntestedBehavior,
            spec: None,
            file: None,
            line: None,
            message: format!(
                "{} behaviors in {} specs name no test (`tested_by`); `notarai check --untested` lists them",
                untested.len(),
                specs.len()
            ),
        });
    }
}

/// The findings about the changed files: a changed spec not reconciled, a
/// file no spec governs (as the coverage policy says), a file several specs
/// govern, a file not reconciled with a spec that governs it.
pub(super) fn change_findings(
    root: &Path,
    set: &SpecSet,
    governance: &Governance,
    changes: &ChangeSet<'_>,
    assessed: &[Assessed],
    findings: &mut Vec<Finding>,
) {
    let spec_path = |g: usize| set.specs[g].path.clone();
    let (coverage, coverage_message) = coverage_policy(set);
    let own_configs = crate::init::agents::config_files();
    for file in assessed {
        let path = &file.path;
        if spec::is_spec_path(path) {
            if !file.reconciled {
                findings.push(Finding {
                    severity: Severity::Error,
                    kind: FindingKind::SpecUnreconciled,
                    code: Code::UnreconciledSpec,
                    spec: Some(path.clone()),
                    file: Some(path.clone()),
                    line: None,
                    message: format!("spec {path} changed and is not reconciled"),
                });
            }
            continue;
        }
        if file.governors.is_empty() {
            // notarai's own files (what `init` writes) need no spec; a spec
            // that lists one still governs it. The system spec's
            // `coverage.policy` says how the others count.
            if let Some(severity) = coverage
                && !governance.is_excluded(path)
                && !is_notarais_own(root, path, &own_configs)
                && !only_notarais_lines(changes, path)
            {
                findings.push(Finding {
                    severity,
                    kind: FindingKind::Ungoverned,
            code: Code::UngovernedChange,
                    spec: None,
                    file: Some(path.clone()),
                    line: None,
                    message: format!(
                        "{path} changed and no spec governs it; add it to a spec's artifacts or to the system spec's exclude{coverage_message}"
                    ),
                });
            }
            continue;
        }
        if file.governors.len() > 1 {
            let names: Vec<String> = file.governors.iter().map(|&g| spec_path(g)).collect();
            findings.push(Finding {
                severity: Severity::Notice,
                kind: FindingKind::MultipleSpecs,
                code: Code::SeveralSpecs,
                spec: None,
                file: Some(path.clone()),
                line: None,
                message: format!(
                    "{path} is governed by {} specs: {}",
                    names.len(),
                    names.join(", ")
                ),
            });
        }
        for (((&g, _), &housekeeping), reason) in file
            .governors
            .iter()
            .zip(&file.reconciled_for)
            .zip(&file.housekeeping_for)
            .zip(&file.reasons_for)
            .filter(|(((_, r), _), _)| !**r)
        {
            findings.push(not_reconciled(path, spec_path(g), housekeeping, *reason));
        }
    }
}

/// `path` not reconciled with `spec`: an error, or a warning when it is
/// housekeeping (no review needed, for `reason` when one is known).
fn not_reconciled(
    path: &str,
    spec: String,
    housekeeping: bool,
    reason: Option<crate::review::Quiet>,
) -> Finding {
    let why = reason
        .map(|r| format!("{}, ", r.says()))
        .unwrap_or_default();
    let (severity, kind, code, message) = if housekeeping {
        (
            Severity::Warning,
            FindingKind::Housekeeping,
            Code::UnrecordedHousekeeping,
            format!(
                "{path} changed and is not reconciled with {spec} (housekeeping: {why}no review needed; record it with `notarai reconcile`)"
            ),
        )
    } else {
        (
            Severity::Error,
            FindingKind::Unreconciled,
            Code::UnreconciledChange,
            format!("{path} changed and is not reconciled with {spec}"),
        )
    };
    Finding {
        severity,
        kind,
        code,
        spec: Some(spec),
        file: Some(path.to_string()),
        line: None,
        message,
    }
}

/// Warnings made errors under `strict`, then the findings in report order
/// (invalid specs first, then by spec, file, line, severity).
pub(super) fn order(findings: &mut [Finding], strict: bool) {
    if strict {
        for f in findings.iter_mut() {
            if f.severity == Severity::Warning {
                f.severity = Severity::Error;
            }
        }
    }
    findings.sort_by(|a, b| {
        (
            a.kind != FindingKind::InvalidSpec,
            &a.spec,
            &a.file,
            a.line,
            a.severity,
        )
            .cmp(&(
                b.kind != FindingKind::InvalidSpec,
                &b.spec,
                &b.file,
                b.line,
                b.severity,
            ))
    });
}

/// Formatting-only changes (a notice each) and broken anchors (a warning
/// each, with the likely rename or move).
pub(super) fn symbol_findings(narrowed: &crate::review::Narrowed, findings: &mut Vec<Finding>) {
    for path in &narrowed.formatting_only {
        findings.push(Finding {
            severity: Severity::Notice,
            kind: FindingKind::FormattingOnly,
            code: Code::FormattingOnly,
            spec: None,
            file: Some(path.clone()),
            line: None,
            message: format!(
                "{path} changed in formatting or comments only (the same program as at the merge base, or as the content a proven review of it names: equal syntax trees with every token the language treats as code): it affects no spec (`--include-formatting` counts it)"
            ),
        });
    }
    for broken in &narrowed.broken {
        findings.push(Finding {
            severity: Severity::Warning,
            kind: FindingKind::BrokenAnchor,
            code: Code::BrokenAnchor,
            spec: Some(broken.spec_path.clone()),
            file: Some(broken.file.clone()),
            line: None,
            message: broken.message(),
        });
    }
}

/// Hunks of a file governed only through anchors that no anchor saw: no
/// spec reviews them, so they count as a change no spec governs (the
/// system spec's `coverage.policy`: a warning by default, an error when
/// `strict`, nothing when `off`), one finding per file with its lines.
pub(super) fn outside_anchor_findings(
    set: &SpecSet,
    narrowed: &crate::review::Narrowed,
    findings: &mut Vec<Finding>,
) {
    let (Some(severity), coverage_message) = coverage_policy(set) else {
        return;
    };
    for unseen in &narrowed.outside_anchors {
        let path = &unseen.path;
        let lines = unseen.lines.join(", ");
        let word = if unseen.lines.len() == 1 && !lines.contains('-') {
            "line"
        } else {
            "lines"
        };
        findings.push(Finding {
            severity,
            kind: FindingKind::OutsideAnchors,
            code: Code::OutsideAnchors,
            spec: None,
            file: Some(path.clone()),
            line: unseen.first_line.map(|l| l as usize),
            message: format!(
                "{path} changed at {word} {lines} outside every anchor (`path#Symbol`) of the specs that govern it: no spec reviews these lines; anchor the symbols they change or govern the file whole{coverage_message}"
            ),
        });
    }
}

/// For 0.8 specs: each `tested_by` file that did not change since the base
/// while files its spec governs did (the test is older than the code).
pub(super) fn stale_tests(
    root: &Path,
    set: &SpecSet,
    assessed: &[Assessed],
    findings: &mut Vec<Finding>,
) {
    let changed: std::collections::HashSet<&str> =
        assessed.iter().map(|a| a.path.as_str()).collect();
    for (g, loaded) in set.specs.iter().enumerate() {
        if loaded.spec.schema_version != "0.8" {
            continue;
        }
        let tests: std::collections::BTreeSet<&str> = loaded
            .spec
            .behaviors
            .iter()
            .flat_map(|b| b.tested_by.iter().map(|t| t.path.as_str()))
            .collect();
        let code: Vec<&str> = assessed
            .iter()
            .filter(|a| {
                a.governors.contains(&g)
                    && !spec::is_spec_path(&a.path)
                    && !tests.contains(a.path.as_str())
            })
            .map(|a| a.path.as_str())
            .collect();
        if code.is_empty() {
            continue;
        }
        let mut shown = code.iter().take(3).copied().collect::<Vec<_>>().join(", ");
        if code.len() > 3 {
            shown.push_str(&format!(" and {} more", code.len() - 3));
        }
        // A missing test file is reported as MissingTest already.
        let exists = |t: &str| {
            crate::repo_path::RepoPath::parse(t)
                .is_ok_and(|p| std::fs::symlink_metadata(p.to_fs(root)).is_ok())
        };
        for test in tests.iter().filter(|t| !changed.contains(*t) && exists(t)) {
            findings.push(Finding {
                severity: Severity::Warning,
                kind: FindingKind::StaleTest,
            code: Code::StaleTest,
                spec: Some(loaded.path.clone()),
                file: Some(test.to_string()),
                line: None,
                message: format!(
                    "{test} (`tested_by`) did not change since the base while code it covers did ({shown}); update the test or confirm it still covers the change"
                ),
            });
        }
    }
}
