//! The typed results of the tools: their output schemas.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::changes::ChangeKind;
use crate::spec::Behavior;

use super::proofs::QuietVerdict;
use super::spec_text::{AppliedSpec, SpecFile, SpecSays, SystemSpec};

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

fn is_zero(n: &usize) -> bool {
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

/// Result of `get_spec_diff`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecDiff {
    /// The base the diff is taken from, and how it was chosen: absent when
    /// you passed `base_branch` (it would only echo your argument; the
    /// pass's `get_reconciliation_status` gives its merge base).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<crate::state::UsedBase>,
    /// This page's part of the unified diff (git's format) of the files in
    /// `files`: a whole file, or for a file larger than a page some of its
    /// hunks, or part of a hunk, under the file header and a recomputed hunk
    /// header. Binary and over-limit files are listed in `binary_changes`
    /// and `large_changes` instead.
    pub diff: String,
    /// Changed non-spec files governed by the spec that need review: all of
    /// them on every page (when that list alone exceeds a quarter of the
    /// budget, the files of this page's `plan`).
    pub files: Vec<String>,
    /// Per file: its status, lines added and removed, diff bytes, and the
    /// pages holding its diff. All on the first page when they fit, else
    /// continued on the next pages before any diff. Absent when the whole
    /// answer is one page (the diff then shows every file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Vec<PlanEntry>>,
    /// The spec's intent, behaviors, constraints and invariants, on the
    /// first page when `files` or `already_read` has something to review
    /// and the spec's own
    /// file is not in `spec_changes` (whose text is whole): what to judge
    /// the diff against.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<SpecSays>,
    /// `true` when `spec` was left out because `specs_read` says you hold
    /// its text (its `text_id` still matches): judge the diff against the
    /// text you have.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub spec_held: bool,
    /// The constraints and invariants of the cross-cutting specs this spec
    /// applies (its own `applies` and those of its parents), each with the
    /// spec they come from: the diff is judged against them too. On the
    /// first page with `spec` (when there is something to review); an
    /// entry whose text `specs_read` holds (`path@text_id`) has `held:
    /// true` and no texts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applied: Vec<AppliedSpec>,
    /// Changed governed files whose content matches the hash cache or the
    /// committed `.notarai/reconciliation_state.json` (already reconciled).
    /// Listed only with `full_lists: true`; by default empty and counted in
    /// `skipped_count`.
    pub skipped: Vec<String>,
    /// How many changed governed files are already reconciled (`skipped`,
    /// listed or not).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub skipped_count: usize,
    /// The patterns passed in `exclude_patterns`, as given (the contract's
    /// `excluded`); every page.
    pub excluded: Vec<String>,
    /// The changed files this spec governs that `exclude_patterns` left
    /// out, sorted (not reviewed: record them with `mark_reconciled` only if
    /// they need no review).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded_files: Vec<String>,
    /// Changed files this spec governs as housekeeping, not reconciled: no
    /// diff, no review needed; record them with `mark_reconciled`. Each
    /// has its proof in `housekeeping_reasons` (a tier of a spec stating no
    /// constraints, an artifact's tier 3 or 4, only versions moved, only
    /// tests changed); a file the spec's constraints or invariants name is
    /// never one of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub housekeeping: Vec<String>,
    /// Why each file of `housekeeping` needs no review: its proof (see
    /// [`Quiet`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub housekeeping_reasons: BTreeMap<String, Quiet>,
    /// Files of `files` whose diff starts at the content last reconciled for
    /// this spec, not at the merge base (`since: "base"` shows the whole
    /// branch diff).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub since_reconciled: Vec<String>,
    /// Changed files of this spec named in `already_read` by a `read_ids`
    /// entry that still matches their content: no diff here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub already_read: Vec<String>,
    /// For each file whose whole diff from the base this page shows (not
    /// narrowed to anchors, not since a review), `path@id` with an id of
    /// its content now (12 hex digits): pass these in `already_read` when
    /// you ask for other specs' diffs in this pass. An entry counts only
    /// while the file's content still has that id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_ids: Vec<String>,
    /// Files of `files` named in `already_read` whose diff is shown again,
    /// with why: a bare path (no id), or an id of other content (the file
    /// changed after you read its diff).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub read_again: BTreeMap<String, String>,
    /// Files of `files` that other specs govern too, with those specs:
    /// judge the diff against them as well, and pass the file in
    /// `already_read` when you ask for their diffs.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub shared: BTreeMap<String, Vec<String>>,
    /// Files of `files` moved out of this spec's files on the branch, with
    /// their new path: the diff shows the rename (and any edit), not a
    /// deletion.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub moved_out: BTreeMap<String, String>,
    /// Full content of each changed governed spec file (the spec itself included).
    pub spec_changes: Vec<SpecFile>,
    /// The system spec: full content, only `path` when it is in `spec_changes`,
    /// `null` when `spec_changes` is empty (or on a page that does not hold it).
    pub system_spec: Option<SystemSpec>,
    /// Files of `files` whose content is binary (not in `diff`), large ones
    /// included: a side that is not UTF-8 text. A text file git calls
    /// binary (a `.gitattributes` `-diff` or `binary`, a NUL byte) is shown
    /// in `diff` as text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub binary_changes: Vec<String>,
    /// Text files of `files` not in `diff`: larger than 8 MiB, or with one
    /// line longer than a page (raise `max_tokens` to see it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub large_changes: Vec<String>,
    /// For each file of this page's `plan`, the artifact category that governs it.
    pub file_categories: BTreeMap<String, String>,
    /// Changed files the spec may govern that notarai cannot review (a name
    /// that is not UTF-8), with why; rename them to review them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreviewable: Vec<Unreviewable>,
    /// Changed governed files that are the same program (formatting or
    /// comments only, Rust, TypeScript, JavaScript, Python, Go: equal
    /// syntax trees, every token the language treats as code kept): not in
    /// `diff` and affecting no spec; `include_formatting: true` shows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub formatting_only: Vec<String>,
    /// Changed files where the spec anchors symbols (`path#Symbol`) and the
    /// change provably leaves them alone: no hunk changes a line in their
    /// extent or a line the parser did not understand, on either side; no
    /// line of the file may rebind their names or an alias of one (an
    /// assignment at any depth, a declaration, an import, a loop or match
    /// capture, code run from a string); no changed constant, static or
    /// top-level variable is one their text mentions; every anchored
    /// symbol keeps its program: not in `diff`. When no other spec governs the file whole,
    /// the status lists those hunks in its `outside_anchors`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outside_anchors: Vec<String>,
    /// Files of `files` the spec anchors symbols of but governs whole, with
    /// why (no outline; the anchored symbol lies where the file does not
    /// parse, or cannot be found there: the reason names the line): every
    /// hunk of their diff is shown.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub whole_file_because: BTreeMap<String, String>,
    /// Artifact globs of this spec (as written) that matched a file this
    /// change deletes and now match no file: the spec still names what is
    /// gone. Propose removing each (or pointing it at where the content
    /// went); `notarai check` warns about each (N003) until then. First
    /// page only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub emptied_globs: Vec<String>,
    /// What each quiet verdict of this page that judges the change proves
    /// (`formatting_only`, `outside_anchors`, and each reason of
    /// `housekeeping_reasons`), keyed by verdict: a file is left out of
    /// `diff` only with a proof. The record verdicts (`skipped`,
    /// `since_reconciled`, `already_read`) give theirs once, in the
    /// tool's description.
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

/// Why a changed file needs no review for a spec: the proof that its
/// change cannot alter what the spec governs. The file is still listed (in
/// `housekeeping`) and recorded like the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Quiet {
    /// A lock file, dependency manifest, CI workflow or pre-commit
    /// configuration whose every changed line is the same pin as the line
    /// it replaced (a version or commit hash attached to the same package,
    /// module, action or repository name by the syntax of the file's pin
    /// form) with only its version moved. What changed is the dependency's.
    Versions,
    /// Only files the spec lists as tests (a `tests` category, or a
    /// behavior's `tested_by`) and its constraints and invariants do not
    /// name changed for it, and the spec did not: the evidence changed,
    /// not the behavior the spec states.
    TestsOnly,
    /// The spec's `tier` is `registered` or `derived` and it states no
    /// constraints or invariants (nothing of it to check a change
    /// against), and none of its texts names the file.
    SpecTier,
    /// Every artifact of the spec matching the file has `tier: 3` (needs
    /// no review) or `tier: 4` (derived output), and the spec's
    /// constraints and invariants do not name the file.
    ArtifactTier,
}

impl Quiet {
    /// The proof in a few words, for text outputs.
    pub fn says(self) -> &'static str {
        match self {
            Quiet::Versions => "only pinned versions changed",
            Quiet::TestsOnly => "only the spec's tests changed",
            Quiet::SpecTier => "the spec is registered or derived and states no constraints",
            Quiet::ArtifactTier => "the artifact's tier is 3 or 4",
        }
    }
}

/// One file of a `get_spec_diff` answer: how it changed and where its diff is.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlanEntry {
    /// Path of the file.
    pub path: String,
    /// How it changed.
    pub status: ChangeKind,
    /// Lines added by its diff.
    pub added: u64,
    /// Lines removed by its diff.
    pub removed: u64,
    /// Bytes of its diff text (0 when not shown).
    pub bytes: u64,
    /// First page (from 1) holding its diff; `null` when not in `diff`
    /// (see `binary_changes`, `large_changes`).
    pub first_page: Option<usize>,
    /// Last page holding its diff.
    pub last_page: Option<usize>,
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

impl SpecDiff {
    /// The answer with nothing in it yet but its base (when notarai chose
    /// it) and the excluded files.
    pub(super) fn empty(
        base: Option<crate::state::UsedBase>,
        excluded_files: Vec<String>,
    ) -> SpecDiff {
        SpecDiff {
            quiet_proofs: Default::default(),
            base,
            diff: String::new(),
            files: Vec::new(),
            plan: Some(Vec::new()),
            spec: None,
            spec_held: false,
            applied: Vec::new(),
            skipped_count: 0,
            page: 1,
            pages: 1,
            next_cursor: None,
            skipped: Vec::new(),
            excluded: Vec::new(),
            excluded_files,
            housekeeping: Vec::new(),
            housekeeping_reasons: BTreeMap::new(),
            since_reconciled: Vec::new(),
            already_read: Vec::new(),
            read_ids: Vec::new(),
            read_again: BTreeMap::new(),
            shared: BTreeMap::new(),
            moved_out: BTreeMap::new(),
            spec_changes: Vec::new(),
            system_spec: None,
            binary_changes: Vec::new(),
            large_changes: Vec::new(),
            file_categories: BTreeMap::new(),
            unreviewable: Vec::new(),
            formatting_only: Vec::new(),
            outside_anchors: Vec::new(),
            whole_file_because: BTreeMap::new(),
            emptied_globs: Vec::new(),
        }
    }
}
