//! The typed results of the tools: their output schemas.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::spec::Behavior;

use super::proofs::QuietVerdict;

mod spec_diff;

pub use spec_diff::{PlanEntry, Quiet, SpecDiff};

/// Result of `list_affected_specs`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AffectedSpecs {
    /// The base changes are counted from, and how it was chosen.
    pub base: crate::state::UsedBase,
    /// Every file changed on this branch since the merge base with the base
    /// branch, plus staged, unstaged and untracked work; deletions included;
    /// sorted. Paged: each page holds the next part of the list.
    pub changed_files: Vec<String>,
    /// Number of changed files in the whole answer (all pages).
    pub changed_count: usize,
    /// Specs governing at least one changed file, sorted by path.
    pub affected_specs: Vec<AffectedSpec>,
    /// Every error of the spec files that fail `notarai validate`, in its
    /// order: a file that failed to load governs nothing until fixed; one that
    /// loaded but has an error across specs (a `$ref` to a missing file)
    /// still governs its artifacts.
    pub invalid_specs: Vec<InvalidSpec>,
    /// Spec files deleted on this branch: what they governed is now governed
    /// by no spec of theirs; review whether that is intended.
    pub deleted_specs: Vec<String>,
    /// Changed files notarai cannot review (a name that is not UTF-8), with
    /// why: they are in no other list; rename them to review them.
    pub unreviewable: Vec<Unreviewable>,
    /// Changed governed files that are the same program (formatting or
    /// comments only: equal syntax trees, every token the language treats
    /// as code kept): they affect no spec (`include_formatting: true`
    /// counts them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub formatting_only: Vec<String>,
    /// Anchors (`path#Symbol`) whose symbol this branch removed, with the
    /// likely rename or move when the same code appears elsewhere.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub broken_anchors: Vec<crate::review::BrokenAnchor>,
    /// What each quiet verdict of this page proves (`formatting_only`),
    /// keyed by verdict.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub quiet_proofs: BTreeMap<QuietVerdict, &'static str>,
    /// This page's number, from 1.
    pub page: usize,
    /// Number of pages of the whole answer.
    pub pages: usize,
    /// Pass it as `cursor` (with the same arguments) for the next page;
    /// absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A changed file notarai cannot review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Unreviewable {
    /// The file's name, invalid bytes replaced by U+FFFD (not a usable path).
    pub path: String,
    /// Why it cannot be reviewed, and what to do.
    pub reason: String,
}

/// A spec governing changed files, with the context needed to review them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AffectedSpec {
    /// Path of the spec file.
    pub spec_path: String,
    /// The spec's intent (absent when `all_reconciled`: nothing to review,
    /// so the spec is one line).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub intent: String,
    /// The spec's behaviors as written (empty when `all_reconciled`).
    pub behaviors: Vec<Behavior>,
    /// The spec's constraints (empty when `all_reconciled`).
    pub constraints: Vec<String>,
    /// The spec's invariants (empty when `all_reconciled`).
    pub invariants: Vec<String>,
    /// The changed files that made this spec affected (on a page, the part
    /// of them that fits; the rest follows in `continued` entries; absent
    /// when `all_reconciled`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matched_files: Vec<String>,
    /// Number of matched files in the whole answer.
    pub matched_count: usize,
    /// How many of the matched files need a review and are not reconciled
    /// yet (their current content is in neither the local cache nor the
    /// committed state for this spec).
    pub unreconciled_count: usize,
    /// How many matched files are housekeeping (no review needed, by one of
    /// the proofs of [`Quiet`]: a tier, only versions moved, only tests
    /// changed) and not reconciled yet.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub housekeeping_count: usize,
    /// `true` when no matched file needs a review: nothing of this spec is
    /// left for this pass (housekeeping files may still wait to be
    /// recorded).
    pub all_reconciled: bool,
    /// `true` when this entry only continues the `matched_files` of the same
    /// spec from an earlier entry (its texts are empty here).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continued: bool,
}

pub(super) fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// An error of a spec file that fails `notarai validate`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct InvalidSpec {
    /// Path of the spec file.
    pub spec_path: String,
    /// What is wrong, as `path:line:col: message`.
    pub error: String,
}

/// Result of `get_changed_artifacts`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedArtifacts {
    /// The base changes are counted from, and how it was chosen (absent
    /// with a `note`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<crate::state::UsedBase>,
    /// Governed files changed on the branch (since the merge base, work in
    /// progress included) that exist now and are not reconciled for this
    /// spec in the hash cache or the committed state, sorted. Paged: each
    /// page holds the next part.
    pub changed_artifacts: Vec<String>,
    /// Set when the answer needs a word of explanation: an `artifact_type`
    /// the spec does not use (the list is then empty) names the spec's
    /// categories.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Number of changed artifacts in the whole answer (all pages).
    pub changed_count: usize,
    /// This page's number, from 1.
    pub page: usize,
    /// Number of pages of the whole answer.
    pub pages: usize,
    /// Pass it as `cursor` (with the same arguments) for the next page;
    /// absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Result of `mark_reconciled`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MarkReconciled {
    /// Number of files hashed and stored.
    pub updated: usize,
    /// Number of paths that do not exist, remembered as reconciled while deleted.
    pub deleted: usize,
    /// Paths skipped because they neither exist nor are known to git (not
    /// in `HEAD`, the index or the base): nothing recorded for them, likely
    /// a typo (at most 50 named; `not_found_count` counts them all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_found: Vec<String>,
    /// How many paths were skipped as not found.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_found_count: usize,
    /// The spec they were recorded for; absent: for every spec that governs them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spec_path: Option<String>,
    /// What the snapshot wrote, when `snapshot` was `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<crate::state::SnapshotSummary>,
    /// Drift notes closed because their spec was reconciled (the state
    /// file was rewritten without them).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub closed_drift_notes: usize,
    /// Decisions recorded in the state file's log (one per spec reconciled,
    /// when `decision` was given).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub decisions_recorded: usize,
    /// How many changed files still need a review for the pass's base
    /// (`base_branch`, or the base the other tools choose) once this is
    /// recorded: `get_reconciliation_status`'s `totals.unreconciled`. `0`:
    /// the pass is done. Absent when it could not be counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<usize>,
}

/// Result of `clear_cache`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CacheCleared {
    /// `true` when a cache database existed and was removed.
    pub cleared: bool,
}

/// Reconciliation progress per affected spec: the answer of the MCP tool
/// `get_reconciliation_status`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ReconciliationStatus {
    /// The base changes are counted from, and how it was chosen.
    pub base: crate::state::UsedBase,
    /// Specs with something left in this pass (files to review or to
    /// record), sorted by path; a spec whose changed files are all
    /// reconciled is only counted (`totals.reconciled_specs`).
    pub specs: Vec<SpecStatus>,
    /// Counts over all affected specs (a file governed by two specs counts once).
    pub totals: Totals,
    /// Spec files that fail to load (`list_affected_specs` gives their
    /// errors): they govern nothing until fixed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invalid_specs: Vec<String>,
    /// Spec files deleted on this branch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deleted_specs: Vec<String>,
    /// `true` when nothing needs a review: no unreconciled file, no invalid
    /// or deleted spec, no state problem. The pass can stop here (after
    /// recording any `housekeeping` files).
    pub nothing_to_review: bool,
    /// What is wrong with `.notarai/reconciliation_state.json`, when it does
    /// not read (it is then ignored: only the local cache counts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_problem: Option<String>,
    /// Changed governed files whose programs are the same (formatting
    /// or comments only) and not recorded yet: not counted
    /// (`include_formatting: true` counts them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub formatting_only: Vec<String>,
    /// Anchors (`path#Symbol`) whose symbol this branch removed, with the
    /// likely rename or move when the same code appears elsewhere.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub broken_anchors: Vec<crate::review::BrokenAnchor>,
    /// Files governed only through anchors (`path#Symbol`) with hunks that
    /// touch no anchored symbol and rebind no anchored name: no spec's diff
    /// shows them, so they are listed here with their lines (`notarai
    /// check` warns, as for a file no spec governs). Anchor the symbols
    /// they change, or govern the file whole.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outside_anchors: Vec<crate::review::OutsideAnchors>,
    /// Changed files a spec anchors symbols of (`path#Symbol`) that it
    /// governs whole instead, each with its spec and why: the file has no
    /// outline, or the anchored symbol lies where the file does not parse
    /// (or cannot be found there; the reason names the line the parser
    /// stopped understanding). Every hunk of them is that spec's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub whole_file_because: Vec<crate::review::WholeFile>,
    /// Drift reported with `report_drift` and not closed yet (a note closes
    /// when its spec is next reconciled with `mark_reconciled`): each spec
    /// named here needs a look even when none of its files changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drift_notes: Vec<crate::review::OpenDrift>,
    /// Decisions recorded on this branch (in the state file and not in the
    /// merge base's): why a divergence was accepted or which side changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<crate::review::decisions::SpecDecision>,
    /// Where to start when several specs need a look: the (at most three)
    /// highest drift scores, each explained by its parts (unreconciled
    /// files, anchored ones counting most, open drift notes, time since the
    /// last snapshot); absent when fewer than two specs score. `notarai
    /// score` ranks every spec and adds the lint parts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top_scores: Vec<crate::review::score::SpecScore>,
    /// What each quiet verdict of this page proves (`formatting_only`, and
    /// each reason of the specs' `housekeeping_reasons`), keyed by verdict.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub quiet_proofs: BTreeMap<QuietVerdict, &'static str>,
    /// This page's number, from 1.
    pub page: usize,
    /// Number of pages of the whole answer.
    pub pages: usize,
    /// Pass it as `cursor` (with the same arguments) for the next page;
    /// absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One affected spec's progress.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecStatus {
    /// Path of the spec file.
    pub spec_path: String,
    /// Changed files it governs that are not reconciled, sorted (on a
    /// page, the part that fits; the rest follows in `continued` entries).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreconciled: Vec<String>,
    /// Number of unreconciled files in the whole answer.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unreconciled_count: usize,
    /// How many changed files it governs are reconciled.
    pub reconciled: usize,
    /// `true` when nothing of it is left to reconcile.
    pub all_reconciled: bool,
    /// Changed files of this spec that need no review (housekeeping, each
    /// with its proof in `housekeeping_reasons`) and are not reconciled:
    /// record them with `mark_reconciled`; `check` warns about them, it
    /// does not fail.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub housekeeping: Vec<String>,
    /// Why each file of `housekeeping` needs no review: its proof (see
    /// [`Quiet`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub housekeeping_reasons: BTreeMap<String, Quiet>,
    /// `true` when this entry only continues the `unreconciled` list of the
    /// same spec from an earlier entry.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continued: bool,
}

/// Counts over the changed files.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Totals {
    /// Files changed since the base (deletions included).
    pub changed_files: usize,
    /// Changed files some spec governs.
    pub governed_files: usize,
    /// Governed files not reconciled.
    pub unreconciled: usize,
    /// Governed files reconciled.
    pub reconciled: usize,
    /// Governed files that need no review (housekeeping) and are not
    /// reconciled; not counted in `unreconciled`.
    #[serde(default)]
    pub housekeeping: usize,
    /// Affected specs whose changed files are all reconciled (not listed
    /// in `specs`).
    #[serde(default)]
    pub reconciled_specs: usize,
}
