//! The typed parameters of the tools: their input schemas.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::page::MaxTokens;

/// Parameters of `list_affected_specs`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ListAffectedSpecsParams {
    /// The branch (or tag, or commit) this branch will merge into, e.g. `main`.
    /// Changes are counted from the merge base with it. When omitted: on the
    /// default branch the committed state's last reconciliation when `HEAD`
    /// reaches it, else `main`, `origin/main`, `master`, `origin/master`;
    /// the answer's `base` says which.
    #[serde(default)]
    pub base_branch: Option<String>,
    /// `true` to count files changed in formatting or comments only (the
    /// same program: equal syntax trees, every token the language treats as
    /// code kept); by default they affect no spec and are listed in
    /// `formatting_only`.
    #[serde(default)]
    pub include_formatting: bool,
    /// Budget of one page in tokens (3 bytes each); see `next_cursor`.
    #[serde(default)]
    pub max_tokens: Option<MaxTokens>,
    /// The `next_cursor` of the previous page, to get the next one; omit for the first page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// Parameters of `get_spec_diff`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetSpecDiffParams {
    /// Path of the spec file relative to the repository root, e.g. `.notarai/auth.spec.yaml`.
    pub spec_path: String,
    /// The branch (or tag, or commit) to diff against, e.g. `main`. When
    /// omitted, chosen as `list_affected_specs` chooses it; the answer's
    /// `base` says which.
    #[serde(default)]
    pub base_branch: Option<String>,
    /// Patterns of files to leave out, with git's `:(exclude)` meaning: `*`
    /// also matches `/`, and a plain path excludes itself and everything
    /// below it. Example: `["Cargo.lock", "*.lock"]`.
    #[serde(default)]
    pub exclude_patterns: Vec<String>,
    /// `true` to ignore the hash cache for this call (it is left untouched)
    /// and show every changed governed file.
    #[serde(default)]
    pub bypass_cache: bool,
    /// `true` to show files changed in formatting or comments only (the
    /// same program: equal syntax trees, every token the language treats as
    /// code kept); by default they are listed apart in
    /// `formatting_only`, affecting no spec.
    #[serde(default)]
    pub include_formatting: bool,
    /// Where each file's diff starts: `reconciled` (the default) shows a file
    /// reconciled before and changed since from the content last reconciled
    /// for this spec (listed in `since_reconciled`); `base` shows every file's
    /// whole diff from the merge base.
    #[serde(default)]
    pub since: Since,
    /// Files whose diff you already read in this pass (for another spec), as
    /// `path@id` copied from the `read_ids` of the answer that showed it:
    /// listed in `already_read`, not diffed again, while the file's content
    /// still has that id. A bare path, or an id of other content (the file
    /// changed since), gets the diff again (`read_again` says why). Judge
    /// the files listed against this spec from what you read.
    #[serde(default)]
    pub already_read: Vec<String>,
    /// Specs whose text you hold (read earlier in this pass or session), as
    /// `path@text_id` with the `text_id` an answer gave: this spec's `spec`,
    /// an `applied` cross-cutting spec's texts and the system spec's
    /// `content` are then left out (`spec_held`, `held` say so). A `text_id`
    /// that no longer matches the file, or a bare `path`, brings the text
    /// back; leave out any spec whose text you no longer
    /// have (after your context was compacted) and it comes again.
    #[serde(default)]
    pub specs_read: Vec<String>,
    /// `true` to list `skipped` in full; by default it is empty and
    /// `skipped_count` counts it (files reconciled earlier grow with the
    /// branch, not with the change to review).
    #[serde(default)]
    pub full_lists: bool,
    /// Budget of one page in tokens (3 bytes each); see `next_cursor`.
    #[serde(default)]
    pub max_tokens: Option<MaxTokens>,
    /// The `next_cursor` of the previous page, to get the next one; omit for the first page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// Where a file's diff starts in `get_spec_diff`.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize, serde::Serialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Since {
    /// From the content last reconciled for the spec, when it is known;
    /// else from the merge base.
    #[default]
    Reconciled,
    /// From the merge base, always.
    Base,
}

/// Parameters of `get_changed_artifacts`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetChangedArtifactsParams {
    /// Path of the spec file relative to the repository root.
    pub spec_path: String,
    /// Only this artifact category of the spec (e.g. `docs`, `code`, `configs`).
    #[serde(default)]
    pub artifact_type: Option<String>,
    /// The branch this work merges into, as in `list_affected_specs`
    /// (optional: chosen the same way).
    #[serde(default)]
    pub base_branch: Option<String>,
    /// Budget of one page in tokens (3 bytes each); see `next_cursor`.
    #[serde(default)]
    pub max_tokens: Option<MaxTokens>,
    /// The `next_cursor` of the previous page, to get the next one; omit for the first page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// Parameters of `mark_reconciled`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct MarkReconciledParams {
    /// Files reviewed in this pass, relative to the repository root. A path
    /// that no longer exists is remembered as reconciled while deleted.
    /// Pass `path@id` as `get_spec_diff`'s `read_ids` gave it to record
    /// the content you read: when the file changed since, the call fails
    /// and nothing is recorded.
    pub files: Vec<String>,
    /// The spec these files were reviewed for, e.g. `.notarai/auth.spec.yaml`:
    /// they then stay unreconciled for every other spec that governs them.
    /// Omitted: reviewed for every spec that governs them.
    #[serde(default)]
    pub spec_path: Option<String>,
    /// `true` to also write `.notarai/reconciliation_state.json` afterwards,
    /// as the `snapshot_state` tool does.
    #[serde(default)]
    pub snapshot: bool,
    /// Why a divergence between the spec and these files was accepted, or
    /// which side (spec or code) was changed: kept in the committed state's
    /// decision log for each spec reconciled, shown to reviewers. Omit it
    /// when the files simply match their specs.
    #[serde(default)]
    pub decision: Option<String>,
    /// The base of the pass (`base_branch` of its other calls), when you
    /// passed one: a file is recorded for the specs that govern it as the
    /// pass judged them (their text now and at the merge base). Omitted:
    /// the base the other tools choose.
    #[serde(default)]
    pub base_branch: Option<String>,
}

/// Parameters of the MCP tool `snapshot_state`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SnapshotParams {
    /// `true` to replace a malformed state file instead of refusing.
    #[serde(default)]
    pub force: bool,
}
