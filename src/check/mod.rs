//! The CI gate and the reconciliation status, as typed values.
//!
//! Both answer one question: of the files changed since a base, which does
//! a spec govern, and is each reconciled (its content's BLAKE3 equals its
//! entry in the local cache or in the committed state, see
//! [`crate::state::Reconciled`])? [`status`] answers it per spec for an
//! agent (the MCP tool `get_reconciliation_status`); [`check`] adds the
//! spec checks and the claims a branch makes, for `notarai check`. Nothing
//! here prints: `cli/check.rs` renders text, JSON and GitHub commands.
//!
//! The base, when not given: on the default branch, the committed state's
//! `last_reconciliation.git_hash` when `HEAD` reaches it (what changed since
//! the team last reconciled); else `main`, `origin/main`, `master`,
//! `origin/master`, the first that resolves; else an error asking for one.

use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

use crate::changes::{ChangeError, GitRepo};
use crate::error::{Diagnose, ErrorKind};
use crate::governance::Scope;
use crate::progress::{Cancelled, Progress};
use crate::spec::SpecSet;
use crate::state::{self, BaseError, State, StateError, UsedBase, choose_base};

mod claims;
pub mod config;
mod findings;
pub mod lint;
pub mod score;
mod status;
mod ungoverned;

pub use crate::review::{SpecStatus, Totals};
pub use claims::{Claim, ClaimRecord};

use findings::{
    change_findings, order, outside_anchor_findings, spec_findings, stale_tests, symbol_findings,
    test_findings,
};
use status::{assess, by_symbols, per_spec};
pub use status::{mark_tool, status, status_tool};

/// Why a check or status could not be computed (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// No base given and none of the defaults exists.
    #[error("{}", BaseError::NoBase)]
    NoBase,
    /// The state file is malformed or unreadable.
    #[error("{0}")]
    State(StateError),
    /// git failed, or the base does not resolve.
    #[error("{0}")]
    Git(ChangeError),
    /// A file could not be read.
    #[error("{0}")]
    Io(String),
    /// The caller cancelled the work.
    #[error("{0}")]
    Cancelled(Cancelled),
    /// `.notarai/check.yaml` is not a valid configuration: each problem
    /// with its position.
    #[error("{}", config_message(.0))]
    Config(Vec<crate::spec::Finding>),
}

/// Every problem of a bad `check.yaml`, a line each with its hint.
fn config_message(findings: &[crate::spec::Finding]) -> String {
    let mut lines = vec![format!(
        "{} is not a valid gate configuration:",
        config::CHECK_CONFIG
    )];
    for f in findings {
        lines.push(format!("{f}"));
        if let Some(hint) = &f.hint {
            lines.push(format!("  hint: {hint}"));
        }
    }
    lines.join("\n")
}

impl Diagnose for CheckError {
    fn kind(&self) -> ErrorKind {
        match self {
            CheckError::Git(e) => e.kind(),
            CheckError::State(e) => e.kind(),
            CheckError::NoBase | CheckError::Config(_) => ErrorKind::InvalidInput,
            CheckError::Io(_) | CheckError::Cancelled(_) => ErrorKind::Internal,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            CheckError::Git(e) => e.hint(),
            CheckError::State(e) => e.hint(),
            _ => None,
        }
    }
}

impl From<ChangeError> for CheckError {
    fn from(e: ChangeError) -> Self {
        CheckError::Git(e)
    }
}

impl From<BaseError> for CheckError {
    fn from(e: BaseError) -> Self {
        match e {
            BaseError::NoBase => CheckError::NoBase,
            BaseError::Git(e) => CheckError::Git(e),
        }
    }
}

impl From<StateError> for CheckError {
    fn from(e: StateError) -> Self {
        CheckError::State(e)
    }
}

// --------------------------------------------------------------------- check

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Fails the check (exit 1).
    Error,
    /// Reported; fails the check under `--strict`.
    Warning,
    /// For information only.
    Notice,
}

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A spec file fails `notarai validate` (a missing `tested_by` file included).
    InvalidSpec,
    /// A governed file changed since the base and is not reconciled.
    Unreconciled,
    /// A spec file changed since the base and is not reconciled.
    SpecUnreconciled,
    /// A governed file that needs no review (its spec's `tier` is
    /// `registered` or `derived`, or its artifact's `tier` is 3 or 4)
    /// changed and is not reconciled: a warning, an error under `--strict`.
    Housekeeping,
    /// A warning of `notarai validate`: an artifact glob matching no file,
    /// a behavior of a `full` 0.8 spec without `tested_by`, and the like.
    SpecWarning,
    /// A behavior of a `full` 0.8 spec that names no test (`tested_by`).
    Untested,
    /// A `tested_by` file of a 0.8 spec that does not exist.
    MissingTest,
    /// A `tested_by` file unchanged since the base while code of its spec
    /// changed: the test was last changed before the code it covers.
    StaleTest,
    /// A changed file no spec governs and no `exclude` covers.
    Ungoverned,
    /// A changed file governed by more than one spec.
    MultipleSpecs,
    /// A changed file whose program is the same (formatting or
    /// comments only): it affects no spec.
    FormattingOnly,
    /// An anchor (`path#Symbol`) whose symbol the change removed.
    BrokenAnchor,
    /// Hunks of a file governed only through anchors that touch no
    /// anchored symbol and rebind no anchored name: no spec reviews them.
    /// Counted as a file no spec governs (the system spec's
    /// `coverage.policy`: a warning by default).
    OutsideAnchors,
    /// git tracks the local hash cache (`.notarai/.cache/`): it is ignored,
    /// since a branch could pre-mark its own changes as reconciled.
    TrackedCache,
    /// Drift an agent reported (`report_drift`) and nobody resolved yet: it
    /// closes when its spec is next reconciled.
    DriftNote,
    /// A rule file generated from a spec (`notarai rules`) that no longer
    /// matches it: stale after a spec edit, orphaned after a spec is
    /// deleted, missing for a new spec.
    StaleRule,
    /// About the gate's own configuration (`.notarai/check.yaml`): an
    /// `ignore` entry past its `until` date.
    Config,
    /// A spec-quality rule of `notarai lint` (`N4xx`) that
    /// `.notarai/check.yaml` makes an error.
    Lint,
}

/// One finding.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Finding {
    /// Error, warning or notice (after `--strict`).
    pub severity: Severity,
    /// What it is about.
    pub kind: FindingKind,
    /// The rule it breaks: its code (`N101`; `notarai explain CODE`).
    #[schemars(with = "String")]
    pub code: crate::rules::Code,
    /// The spec it belongs to, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec: Option<String>,
    /// The file it is about (repository-relative).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line in `file`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What is wrong, for a person.
    pub message: String,
}

/// Counts of a check.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Summary {
    /// Findings of severity error.
    pub errors: usize,
    /// Findings of severity warning.
    pub warnings: usize,
    /// Findings of severity notice.
    pub notices: usize,
    /// Findings an `ignore` entry of `.notarai/check.yaml` left out.
    #[serde(skip_serializing_if = "is_zero")]
    pub ignored: usize,
    /// The reconciliation counts.
    pub totals: Totals,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The result of `notarai check` (its `--format json` output).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckReport {
    /// The base changes are counted from, and how it was chosen.
    pub base: UsedBase,
    /// Whether warnings were made errors.
    pub strict: bool,
    /// The lowest severity that fails, when `.notarai/check.yaml` sets it
    /// below error (absent: error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<Severity>,
    /// Every finding: spec errors first, then per file, sorted.
    pub findings: Vec<Finding>,
    /// The records this branch added or changed in the state file and the
    /// drift notes it closed, relative to the merge base: the branch's own
    /// word, for the reviewer.
    pub claims: Vec<Claim>,
    /// Counts.
    pub summary: Summary,
    /// Per affected spec, its changed files reconciled or not (for the pull
    /// request's comment; not in the JSON, whose shape is fixed).
    #[serde(skip)]
    pub specs: Vec<SpecStatus>,
    /// The decisions this branch recorded (for the pull request's comment).
    #[serde(skip)]
    pub decisions: Vec<crate::review::decisions::SpecDecision>,
}

impl CheckReport {
    /// Whether the check fails (exit 1).
    pub fn failed(&self) -> bool {
        let s = &self.summary;
        match self.fail_on {
            None | Some(Severity::Error) => s.errors > 0,
            Some(Severity::Warning) => s.errors + s.warnings > 0,
            Some(Severity::Notice) => s.errors + s.warnings + s.notices > 0,
        }
    }
}

/// Options of a check.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// The base revision; `None` to choose as the module header says.
    pub base: Option<String>,
    /// Make warnings errors.
    pub strict: bool,
    /// Count files changed in formatting or comments only.
    pub include_formatting: bool,
    /// List every behavior that names no test (a warning each) instead of
    /// one summary notice.
    pub untested: bool,
}

/// Run the CI gate over the project at `root`.
pub fn check(root: &Path, options: &CheckOptions) -> Result<CheckReport, CheckError> {
    let git = GitRepo::open(root)?;
    let gate = config::Gate::read(root).map_err(CheckError::Config)?;
    let state = match state::read(root)? {
        Some(loaded) => {
            for w in &loaded.warnings {
                tracing::warn!("{w}");
            }
            loaded.state
        }
        None => State::empty(),
    };
    let (base, used) = choose_base(&git, &state, options.base.as_deref())?;
    // One walk of the work tree: the change set also names the untracked
    // files the spec loader's file list needs. The specs are parsed beside
    // it (the walk's reads of the index and the tree use one core).
    let (parsed, changes) = std::thread::scope(|s| {
        let parsed = s.spawn(|| crate::spec::parse_set(root));
        let changes = git.changes(&base, &Scope::Everything, false);
        (parsed.join(), changes)
    });
    let changes = changes?;
    let files = git.files_with(&Scope::Everything, &changes)?;
    let set = match parsed {
        Ok(parsed) => parsed.finish(root, Some(&files)),
        Err(_) => SpecSet::load_with(root, Some(&files)),
    };
    // Judged by the specs as they are now and at the merge base.
    let governance = crate::review::against_base::governance(&git, &base, &set);
    let (assessed, known) = assess(
        root,
        &git,
        &base,
        &changes,
        &governance,
        state.clone(),
        &Progress::none(),
    )?;
    let (assessed, narrowed) = by_symbols(
        root,
        &git,
        &base,
        &changes,
        &governance,
        assessed,
        options.include_formatting,
        &known,
    );

    let mut findings = spec_findings(&set, &state, &git);
    test_findings(root, &set, options.untested, &mut findings);
    stale_tests(root, &set, &assessed, &mut findings);
    symbol_findings(&narrowed, &mut findings);
    outside_anchor_findings(&set, &narrowed, &mut findings);
    change_findings(root, &set, &governance, &changes, &assessed, &mut findings);
    findings::rule_findings(root, &set, &mut findings);
    // Lint's own rules, those `check.yaml` makes errors (none by default).
    if let Some(gate) = &gate {
        findings.extend(
            lint::quality(&set, &governance, &files)
                .into_iter()
                .filter(|f| gate.severity(f.code, f.severity) == Some(Severity::Error)),
        );
    }
    let ignored = gate
        .as_ref()
        .map_or(0, |g| g.apply(&mut findings, config::today()));
    order(&mut findings, options.strict);

    let at_base = claims::state_at_base(&git, &base);
    let claims = claims::claims(&state, &at_base, &governance, &set);
    let decisions = crate::review::decisions::added_since(&state, &at_base);
    let (specs, totals) = per_spec(&set, &assessed);
    let count = |s| findings.iter().filter(|f| f.severity == s).count();
    let summary = Summary {
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        notices: count(Severity::Notice),
        ignored,
        totals,
    };
    Ok(CheckReport {
        base: used,
        strict: options.strict,
        // `fail_on: error` is the default, and shown as none.
        fail_on: gate
            .and_then(|g| g.fail_on)
            .and_then(config::Level::below_error),
        findings,
        claims,
        summary,
        specs,
        decisions,
    })
}

#[cfg(test)]
mod tests {
    use super::status::StatusParams;
    use super::*;
    use crate::project::Project;
    use crate::state::STATE_FILE;

    /// A repository with one commit on branch `trunk` (no default branch).
    fn repo() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = git2::Repository::init(&root).unwrap();
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        let mut index = repo.index().unwrap();
        index.add_path(Path::new("a.txt")).unwrap();
        index.write().unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@example.com").unwrap();
        repo.commit(Some("refs/heads/trunk"), &sig, &sig, "init", &tree, &[])
            .unwrap();
        repo.set_head("refs/heads/trunk").unwrap();
        (dir, root)
    }

    #[test]
    fn the_tools_say_what_to_pass() {
        let (_dir, root) = repo();
        let mut project = Project::new(root.clone());
        let none = status_tool(
            &mut project,
            &StatusParams {
                base_branch: None,
                include_formatting: false,
                max_tokens: None,
                cursor: None,
            },
            &Progress::none(),
        );
        assert!(
            matches!(&none, Err(e) if e.kind == crate::error::ErrorKind::InvalidInput
                && e.message.contains("--base")),
            "{none:?}"
        );
        let given = status_tool(
            &mut project,
            &StatusParams {
                base_branch: Some("trunk".into()),
                include_formatting: false,
                max_tokens: None,
                cursor: None,
            },
            &Progress::none(),
        )
        .unwrap();
        assert_eq!(given.base.source, crate::state::BaseSource::Explicit);
        assert_eq!(given.totals.changed_files, 0);

        std::fs::create_dir_all(root.join(".notarai")).unwrap();
        std::fs::write(root.join(STATE_FILE), "{").unwrap();
        let refused = crate::review::snapshot_tool(
            &mut project,
            &crate::review::SnapshotParams { force: false },
        );
        assert!(
            matches!(&refused, Err(e) if e.hint.as_ref()
                .is_some_and(|h| h.contains("force: true"))),
            "{refused:?}"
        );
        let forced = crate::review::snapshot_tool(
            &mut project,
            &crate::review::SnapshotParams { force: true },
        )
        .unwrap();
        assert_eq!(forced.branch.as_deref(), Some("trunk"));
        assert!(state::read(&root).unwrap().is_some());
    }
}
