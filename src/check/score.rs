//! The drift score: which specs most likely no longer tell the truth, each
//! score explained by its parts, in whole points so the parts add up.
//!
//! Parts, per spec (weights in [`WEIGHTS`]): its changed files not
//! reconciled, a file it governs through anchors counting most (an
//! anchored symbol changed: the check counts such a file only then); its
//! open drift notes; its failing lint rules; and, for a spec with anything
//! unreconciled, the commits and days since the state was last
//! snapshotted (`last_reconciliation`, the last recorded review of the
//! whole state: notarai keeps no time per spec), both capped.

use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

use super::{CheckReport, Severity};
use crate::governance::Governance;
use crate::rules::Code;
use crate::spec::SpecSet;

/// Points per unit of each part, and the cap on its count.
pub const WEIGHTS: &[(&str, u64, u64)] = &[
    ("unreconciled_anchored", 3, u64::MAX),
    ("unreconciled_files", 1, u64::MAX),
    ("open_drift_notes", 4, u64::MAX),
    ("lint_errors", 3, u64::MAX),
    ("lint_warnings", 1, u64::MAX),
    ("commits_since_reconciled", 1, 20),
    ("days_since_reconciled", 1, 30),
];

/// One part of a score.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ScorePart {
    /// Which part (`unreconciled_anchored`, ...).
    pub part: &'static str,
    /// How many (before the cap).
    pub count: u64,
    /// Points per one.
    pub weight: u64,
    /// `min(count, cap) * weight`.
    pub points: u64,
}

/// One spec's score.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecScore {
    /// The spec.
    pub spec_path: String,
    /// The sum of its parts' points.
    pub score: u64,
    /// The parts with points, in [`WEIGHTS`]' order.
    pub parts: Vec<ScorePart>,
}

/// Every spec with a score above zero, highest first (then by path).
pub fn scores(root: &Path, report: &CheckReport) -> Vec<SpecScore> {
    let files = crate::project::repo_files(root);
    let set = SpecSet::load_with(root, Some(&files));
    let governance = Governance::build(&set);
    let lint = super::lint::lint(&set, &governance, &files);
    let state = crate::state::read_lenient(root);
    let (commits, days) = since_snapshot(root, &state);
    let mut out: Vec<SpecScore> = set
        .specs
        .iter()
        .enumerate()
        .map(|(index, loaded)| {
            let spec = loaded.path.as_str();
            let mine = |code: Code| {
                report
                    .findings
                    .iter()
                    .filter(move |f| f.code == code && f.spec.as_deref() == Some(spec))
            };
            let (mut anchored, mut whole) = (0, 0);
            for f in mine(Code::UnreconciledChange) {
                match f.file.as_deref().and_then(|p| governance.anchors(index, p)) {
                    Some(_) => anchored += 1,
                    None => whole += 1,
                }
            }
            let unreconciled = anchored + whole + mine(Code::UnreconciledSpec).count() as u64;
            let lint_count = |s: Severity| {
                lint.iter()
                    .filter(|f| f.spec.as_deref() == Some(spec) && f.severity == s)
                    .count() as u64
            };
            let stale = |n: u64| if unreconciled > 0 { n } else { 0 };
            let counts = [
                anchored,
                whole + mine(Code::UnreconciledSpec).count() as u64,
                mine(Code::OpenDriftNote).count() as u64,
                lint_count(Severity::Error),
                lint_count(Severity::Warning),
                stale(commits),
                stale(days),
            ];
            let parts: Vec<ScorePart> = WEIGHTS
                .iter()
                .zip(counts)
                .filter(|(_, count)| *count > 0)
                .map(|(&(part, weight, cap), count)| ScorePart {
                    part,
                    count,
                    weight,
                    points: count.min(cap) * weight,
                })
                .collect();
            SpecScore {
                spec_path: loaded.path.clone(),
                score: parts.iter().map(|p| p.points).sum(),
                parts,
            }
        })
        .filter(|s| s.score > 0)
        .collect();
    out.sort_by(|a, b| b.score.cmp(&a.score).then(a.spec_path.cmp(&b.spec_path)));
    out
}

/// Commits from the last snapshot's commit to `HEAD` (at most 1,000
/// counted) and whole days since its time; zeros without a snapshot.
fn since_snapshot(root: &Path, state: &crate::state::State) -> (u64, u64) {
    let Some(last) = &state.last_reconciliation else {
        return (0, 0);
    };
    let days = last
        .timestamp
        .trim_end_matches('Z')
        .parse::<u64>()
        .ok()
        .map_or(0, |at| {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            now.saturating_sub(at) / 86_400
        });
    let commits = last
        .git_hash
        .as_deref()
        .and_then(|hash| {
            let git = crate::changes::GitRepo::open(root).ok()?;
            let repo = git.raw();
            let oid = git2::Oid::from_str(hash).ok()?;
            let mut walk = repo.revwalk().ok()?;
            walk.push_head().ok()?;
            walk.hide(oid).ok()?;
            Some(walk.take(1_000).count() as u64)
        })
        .unwrap_or(0);
    (commits, days)
}
