//! Whether a careful reviewer needs a review flag: my judgement, written down
//! as rules so every run judges the same way.
//!
//! A flag is one spec served for review in one pass, with the files its
//! diff listed. For each listed file, what changed *in this pass's upstream
//! change* (its `-U0` lines) decides:
//! - not in this change at all (served again from an earlier pass, e.g. a
//!   lock file the skill excluded and so never marked): nothing new, not needed;
//! - a test file (`tests/`, `testdata/`, `*_test.go`, `conftest.py`,
//!   `test_helpers.go`): not needed;
//! - a lock file or dependency manifest (`uv.lock`, `go.sum`, `go.mod`,
//!   `pyproject.toml`), CI or tool configuration (`.github/`, `.pre-commit-config.yaml`,
//!   `Makefile`, lint and release configs), a changelog or licence: not needed;
//! - source code in a `code` category whose changed lines are all comments
//!   or blank: not needed (a comment fix);
//! - other source code in a `code` category: **needed** (a behaviour change
//!   in governed code);
//! - documentation (a `docs` category): **borderline**: a reviewer should
//!   glance that the text still matches the spec, but most doc edits
//!   (typos, reflowed tables, benchmark figures) change no behaviour.
//!
//! The flag is needed when any of its files is needed, else borderline when
//! any is borderline, else not needed.
//!
//! Rules cannot read: a CI matrix edit may be exactly what a spec's
//! constraint is about, a doc edit may follow a behaviour change, a code
//! edit may be a pure refactor. Where reading the flag's change against
//! the spec's own words gives another verdict, `labels.tsv` says so, with
//! why, and [`reviewed`] applies it. For chi and jotai `labels.tsv` holds
//! every pair of a change and a spec governing one of its files, labelled
//! before notarai ran on them: a needed or borderline pair that no flag of
//! its pass names is a miss ([`missed`]).

use std::collections::BTreeMap;

use crate::pass::Flag;
use crate::repo::Governed;

/// The verdict on one flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Need {
    /// Nothing a careful reviewer needs to look at.
    NotNeeded,
    /// Worth a glance (documentation text).
    Borderline,
    /// A behaviour change in governed code.
    Needed,
}

impl Need {
    /// Short name for the report.
    pub fn label(self) -> &'static str {
        match self {
            Need::NotNeeded => "not needed",
            Need::Borderline => "borderline",
            Need::Needed => "needed",
        }
    }
}

/// The verdict and the reason (the file that decided it).
pub fn judge(
    flag: &Flag,
    changed: &BTreeMap<String, Vec<String>>,
    governed: &Governed,
) -> (Need, String) {
    let mut best = (Need::NotNeeded, String::from("nothing new in this change"));
    let mut first = true;
    for file in flag.files.iter().chain(&flag.spec_changes) {
        let (need, why) = file_need(&flag.spec, file, changed.get(file), governed);
        if first || need > best.0 {
            best = (need, format!("{file}: {why}"));
            first = false;
        }
    }
    best
}

/// The verdict on one file of a flag.
fn file_need(
    spec: &str,
    file: &str,
    lines: Option<&Vec<String>>,
    governed: &Governed,
) -> (Need, &'static str) {
    let Some(lines) = lines.filter(|l| !l.is_empty()) else {
        return (Need::NotNeeded, "not changed by this change (served again)");
    };
    if is_test(file) {
        return (Need::NotNeeded, "test-only edit");
    }
    if is_housekeeping(file) {
        return (Need::NotNeeded, "dependency, CI, changelog or tool config");
    }
    let categories = governed.categories(spec, file);
    if categories.contains(&"code") {
        if lines.iter().all(|l| is_comment(&l[1..])) {
            return (Need::NotNeeded, "comment-only code edit");
        }
        return (Need::Needed, "behaviour change in governed code");
    }
    if categories.contains(&"docs") || file.ends_with(".md") || file.ends_with(".rst") {
        return (Need::Borderline, "documentation edit");
    }
    (Need::NotNeeded, "other governed file")
}

/// Test code or test data.
fn is_test(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    file.starts_with("tests/")
        || file.starts_with("testdata/")
        || file.contains("/testdata/")
        || name.ends_with("_test.go")
        || name == "conftest.py"
        || name == "test_helpers.go"
}

/// Lock files, manifests, CI, tool configuration, changelogs, licences.
fn is_housekeeping(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    file.starts_with(".github/")
        || file.starts_with(".devcontainer/")
        || matches!(
            name,
            "uv.lock"
                | "go.sum"
                | "go.mod"
                | "pyproject.toml"
                | ".pre-commit-config.yaml"
                | ".readthedocs.yaml"
                | "Makefile"
                | ".golangci.yml"
                | ".goreleaser.yaml"
                | "codecov.yml"
                | "CHANGES.rst"
                | "CHANGELOG.md"
                | "changes.rst"
                | "LICENSE"
                | "LICENSE.txt"
        )
}

/// A blank line or a Python/Go comment line.
fn is_comment(line: &str) -> bool {
    let t = line.trim();
    t.is_empty() || t.starts_with('#') || t.starts_with("//")
}

/// One line of `labels.tsv`: a reviewer's verdict on one spec for one
/// upstream change.
#[derive(Debug, Clone)]
pub struct Label {
    /// Project name.
    pub repo: String,
    /// Upstream commit (a prefix).
    pub commit: String,
    /// The spec file.
    pub spec: String,
    /// The verdict.
    pub need: Need,
    /// Why.
    pub why: String,
}

/// Every readable line of `labels.tsv`, and the lines it cannot read.
fn labels() -> (Vec<Label>, Vec<&'static str>) {
    let mut read = Vec::new();
    let mut unread = Vec::new();
    for line in include_str!("labels.tsv").lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let need = match f.get(3).copied() {
            Some("needed") => Some(Need::Needed),
            Some("borderline") => Some(Need::Borderline),
            Some("not needed") => Some(Need::NotNeeded),
            _ => None,
        };
        match (need, &f[..]) {
            (Some(need), [repo, commit, spec, _, why]) => read.push(Label {
                repo: (*repo).to_owned(),
                commit: (*commit).to_owned(),
                spec: (*spec).to_owned(),
                need,
                why: (*why).to_owned(),
            }),
            _ => unread.push(line),
        }
    }
    (read, unread)
}

/// Whether a label's commit (a prefix) and a replayed commit (short) agree.
fn same_commit(label: &str, commit: &str) -> bool {
    commit.starts_with(label) || label.starts_with(commit)
}

/// A careful reviewer's verdict on the flag of `spec` in upstream change
/// `commit` of `repo`, from `labels.tsv`, with why; `None` when the rules
/// stand.
pub fn reviewed(repo: &str, commit: &str, spec: &str) -> Option<(Need, String)> {
    labels()
        .0
        .into_iter()
        .find(|l| l.repo == repo && same_commit(&l.commit, commit) && l.spec == spec)
        .map(|l| {
            (
                l.need,
                format!("a reviewer's reading (labels.tsv): {}", l.why),
            )
        })
}

/// The labels of upstream change `commit` of `repo` that are needed or
/// borderline and name a spec no flag of its pass named (`flagged`): what a
/// reviewer needed to see and was not shown.
pub fn missed(repo: &str, commit: &str, flagged: &[&str]) -> Vec<Label> {
    labels()
        .0
        .into_iter()
        .filter(|l| l.repo == repo && same_commit(&l.commit, commit))
        .filter(|l| l.need >= Need::Borderline && !flagged.contains(&l.spec.as_str()))
        .collect()
}

/// Every line of `labels.tsv` reads (five fields, a known verdict): the
/// replay refuses to run on a label it would silently ignore.
pub fn check_labels() -> anyhow::Result<()> {
    if let Some(line) = labels().1.first() {
        anyhow::bail!(
            "benches/replay/labels.tsv: cannot read {line:?} (repository, commit, spec, verdict, why; tab-separated)"
        );
    }
    Ok(())
}
