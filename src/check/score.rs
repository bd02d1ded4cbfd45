//! The drift score: which specs most likely no longer tell the truth, each
//! score explained by its parts, in whole points so the parts add up.
//!
//! Parts, per spec (weights in [`crate::review::score::WEIGHTS`]): its changed files not
//! reconciled, a file it governs through anchors counting most (an
//! anchored symbol changed: the check counts such a file only then); its
//! open drift notes; its failing lint rules; and, for a spec with anything
//! unreconciled, the commits and days since the state was last
//! snapshotted (`last_reconciliation`, the last recorded review of the
//! whole state: notarai keeps no time per spec), both capped.

use std::path::Path;

use super::{CheckReport, Severity};
use crate::governance::Governance;
use crate::rules::Code;
use crate::spec::SpecSet;

pub use crate::review::score::SpecScore;

/// The highest scores the reconciliation status can tell without linting
/// (its unreconciled files, anchored or not, its open drift notes, and the
/// time since the last snapshot for a spec with anything unreconciled): at
/// most `top`, highest first, and only when two specs or more score, when a
/// ranking helps choose where to start. `notarai score` adds the lint parts.
pub fn status_scores(
    root: &Path,
    governance: &Governance,
    specs: &[crate::review::SpecStatus],
    notes: &[crate::review::OpenDrift],
    state: &crate::state::State,
    top: usize,
) -> Vec<SpecScore> {
    let (commits, days) = since_snapshot(root, state);
    // Per spec: anchored and other unreconciled files, open notes.
    let mut counts: std::collections::BTreeMap<&str, [u64; 3]> = Default::default();
    for status in specs.iter().filter(|s| !s.continued) {
        let spec = status.spec_path.as_str();
        let anchored = governance.spec_index(spec).map_or(0, |i| {
            status
                .unreconciled
                .iter()
                .filter(|p| governance.anchors(i, p).is_some())
                .count()
        }) as u64;
        let entry = counts.entry(spec).or_default();
        entry[0] = anchored;
        entry[1] = (status.unreconciled_count as u64).saturating_sub(anchored);
    }
    for note in notes {
        counts.entry(note.spec_path.as_str()).or_default()[2] += 1;
    }
    let mut out: Vec<SpecScore> = counts
        .into_iter()
        .map(|(spec, [anchored, whole, notes])| {
            let stale = |n: u64| if anchored + whole > 0 { n } else { 0 };
            SpecScore::from_counts(
                spec.to_string(),
                [anchored, whole, notes, 0, 0, stale(commits), stale(days)],
            )
        })
        .filter(|s| s.score > 0)
        .collect();
    if out.len() < 2 {
        return Vec::new();
    }
    out.sort_by(|a, b| b.score.cmp(&a.score).then(a.spec_path.cmp(&b.spec_path)));
    out.truncate(top);
    out
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
            SpecScore::from_counts(
                loaded.path.clone(),
                [
                    anchored,
                    whole + mine(Code::UnreconciledSpec).count() as u64,
                    mine(Code::OpenDriftNote).count() as u64,
                    lint_count(Severity::Error),
                    lint_count(Severity::Warning),
                    stale(commits),
                    stale(days),
                ],
            )
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
