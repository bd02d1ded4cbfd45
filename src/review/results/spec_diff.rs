//! The answer of `get_spec_diff`: its typed result, the proof each
//! quiet verdict of a housekeeping file names, and the plan of its pages.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::is_zero;
use crate::changes::ChangeKind;
use crate::review::Unreviewable;
use crate::review::proofs::QuietVerdict;
use crate::review::spec_text::{AppliedSpec, SpecFile, SpecSays, SystemSpec};

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

impl SpecDiff {
    /// The answer with nothing in it yet but its base (when notarai chose
    /// it) and the excluded files.
    pub(in crate::review) fn empty(
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
