//! What each spec needs to review: the domain behind the MCP tools.
//!
//! One function per question, each taking typed parameters and returning a
//! typed result. The same structs are the tools' input and output schemas
//! (they derive `JsonSchema`), so what the code returns and what the server
//! declares cannot drift apart. Nothing here knows about JSON-RPC.

mod pages;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use globset::GlobSetBuilder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cache::Cache;
use crate::changes::{ChangeError, ChangeKind, Patch};
use crate::error::ErrorKind;
use crate::governance::{self, Scope};
use crate::hashing::{self, FileHash};
use crate::page::MaxTokens;
use crate::project::{Project, Specs};
use crate::repo_path::{Guard, RepoPath};
use crate::spec::{self, Behavior};
use crate::state::Reconciled;

/// Why a question could not be answered: its kind (see [`ReviewError::kind`])
/// and, through [`ReviewError::hinted`], what to do about it.
#[derive(Debug)]
pub enum ReviewError {
    /// The caller passed something wrong; the message says what and how to fix it.
    InvalidParams(String),
    /// git, the file system or the cache failed.
    Internal(String),
    /// One of the above with a hint: what to do about it.
    Hinted {
        /// The error.
        error: Box<ReviewError>,
        /// What to do about it.
        hint: String,
    },
}

impl ReviewError {
    /// The same error with `hint` (a later hint replaces an earlier one).
    pub fn hinted(self, hint: impl Into<String>) -> ReviewError {
        let error = match self {
            ReviewError::Hinted { error, .. } => error,
            other => Box::new(other),
        };
        ReviewError::Hinted {
            error,
            hint: hint.into(),
        }
    }

    /// Whose move it is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ReviewError::InvalidParams(_) => ErrorKind::InvalidInput,
            ReviewError::Internal(_) => ErrorKind::Internal,
            ReviewError::Hinted { error, .. } => error.kind(),
        }
    }

    /// What went wrong, without the hint.
    pub fn message(&self) -> &str {
        match self {
            ReviewError::InvalidParams(m) | ReviewError::Internal(m) => m,
            ReviewError::Hinted { error, .. } => error.message(),
        }
    }

    /// What to do about it, when known.
    pub fn hint(&self) -> Option<&str> {
        match self {
            ReviewError::Hinted { hint, .. } => Some(hint),
            _ => None,
        }
    }
}

impl fmt::Display for ReviewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for ReviewError {}

impl From<ChangeError> for ReviewError {
    fn from(e: ChangeError) -> Self {
        let hint = e.hint();
        let error = if e.is_invalid_input() {
            ReviewError::InvalidParams(e.to_string())
        } else {
            ReviewError::Internal(e.to_string())
        };
        match hint {
            Some(hint) => error.hinted(hint),
            None => error,
        }
    }
}

type Result<T> = std::result::Result<T, ReviewError>;

// ---------------------------------------------------------------- parameters

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
    /// Budget of one page in tokens (3 bytes each); see `next_cursor`.
    #[serde(default)]
    pub max_tokens: Option<MaxTokens>,
    /// The `next_cursor` of the previous page, to get the next one; omit for the first page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// Parameters of `get_changed_artifacts`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetChangedArtifactsParams {
    /// Path of the spec file relative to the repository root.
    pub spec_path: String,
    /// Only this artifact category of the spec (e.g. `docs`, `code`, `configs`).
    #[serde(default)]
    pub artifact_type: Option<String>,
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
    pub files: Vec<String>,
    /// `true` to also write `.notarai/reconciliation_state.json` afterwards,
    /// as the `snapshot_state` tool does.
    #[serde(default)]
    pub snapshot: bool,
}

// ------------------------------------------------------------------- results

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

/// The unreviewable files of a change set, for which `keep` holds.
fn unreviewable(
    changes: &crate::changes::ChangeSet<'_>,
    keep: impl Fn(&str) -> bool,
) -> Vec<Unreviewable> {
    changes
        .unnameable
        .iter()
        .filter(|u| keep(&u.lossy_path))
        .map(|u| Unreviewable {
            path: u.lossy_path.clone(),
            reason: format!(
                "{} file whose name is not valid UTF-8: it cannot be named in an answer, matched \
                 against a spec's globs or passed to mark_reconciled; rename it to review it",
                u.status.as_str()
            ),
        })
        .collect()
}

/// A spec governing changed files, with the context needed to review them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AffectedSpec {
    /// Path of the spec file.
    pub spec_path: String,
    /// The spec's intent.
    pub intent: String,
    /// The spec's behaviors as written.
    pub behaviors: Vec<Behavior>,
    /// The spec's constraints.
    pub constraints: Vec<String>,
    /// The spec's invariants.
    pub invariants: Vec<String>,
    /// The changed files that made this spec affected (on a page, the part
    /// of them that fits; the rest follows in `continued` entries).
    pub matched_files: Vec<String>,
    /// Number of matched files in the whole answer.
    pub matched_count: usize,
    /// How many of the matched files are not reconciled yet (their current
    /// content is in neither the local cache nor the committed state).
    pub unreconciled_count: usize,
    /// `true` when every matched file is reconciled: nothing of this spec
    /// is left for this pass.
    pub all_reconciled: bool,
    /// `true` when this entry only continues the `matched_files` of the same
    /// spec from an earlier entry (its texts are empty here).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub continued: bool,
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
    /// The base the diff is taken from, and how it was chosen.
    pub base: crate::state::UsedBase,
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
    /// continued on the next pages before any diff.
    pub plan: Vec<PlanEntry>,
    /// Changed governed files whose content matches the hash cache or the
    /// committed `.notarai/reconciliation_state.json` (already reconciled).
    pub skipped: Vec<String>,
    /// The `exclude_patterns` as given.
    pub excluded: Vec<String>,
    /// Full content of each changed governed spec file (the spec itself included).
    pub spec_changes: Vec<SpecFile>,
    /// The system spec: full content, only `path` when it is in `spec_changes`,
    /// `null` when `spec_changes` is empty.
    pub system_spec: Option<SystemSpec>,
    /// Files of `files` whose content is binary (not in `diff`), large ones included.
    pub binary_changes: Vec<String>,
    /// Text files of `files` not in `diff`: larger than 8 MiB, or with one
    /// line longer than a page (raise `max_tokens` to see it).
    pub large_changes: Vec<String>,
    /// For each file of this page's `plan`, the artifact category that governs it.
    pub file_categories: BTreeMap<String, String>,
    /// Changed files the spec may govern that notarai cannot review (a name
    /// that is not UTF-8), with why; rename them to review them.
    pub unreviewable: Vec<Unreviewable>,
    /// This page's number, from 1.
    pub page: usize,
    /// Number of pages of the whole answer.
    pub pages: usize,
    /// Pass it as `cursor` (with the same arguments) for the next page;
    /// absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
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

/// A spec file and its full content.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecFile {
    /// Path of the spec file. A spec longer than a page comes in consecutive
    /// entries with the same path: join their `content`.
    pub path: String,
    /// Full text of the file (empty when deleted).
    pub content: String,
    /// `true` when the spec file was deleted on this branch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
}

/// The system spec as returned by `get_spec_diff`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SystemSpec {
    /// Path of the system spec.
    pub path: String,
    /// Full text; absent when the same content is already in `spec_changes`.
    /// A system spec longer than a page comes on consecutive pages: join them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// Result of `get_changed_artifacts`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedArtifacts {
    /// Governed files that exist now and differ from both the hash cache and
    /// the committed state (all of them when neither has them), sorted.
    /// Paged: each page holds the next part.
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
    /// What the snapshot wrote, when `snapshot` was `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<crate::state::SnapshotSummary>,
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
    /// Specs governing at least one changed file, sorted by path.
    pub specs: Vec<SpecStatus>,
    /// Counts over all affected specs (a file governed by two specs counts once).
    pub totals: Totals,
    /// What is wrong with `.notarai/reconciliation_state.json`, when it does
    /// not read (it is then ignored: only the local cache counts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state_problem: Option<String>,
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
    pub unreconciled: Vec<String>,
    /// Number of unreconciled files in the whole answer.
    pub unreconciled_count: usize,
    /// How many changed files it governs are reconciled.
    pub reconciled: usize,
    /// `true` when nothing of it is left to reconcile.
    pub all_reconciled: bool,
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
}

/// The page of a reconciliation status named by `cursor` (the first
/// without): per-spec `unreconciled` lists cut across pages, `base` and
/// `totals` on every page.
pub fn status_page(
    full: ReconciliationStatus,
    args: &impl Serialize,
    max_tokens: Option<MaxTokens>,
    cursor: Option<&str>,
) -> Result<ReconciliationStatus> {
    pages::status(full, args, max_tokens, cursor)
        .map_err(|e| ReviewError::InvalidParams(e.to_string()))
}

// ----------------------------------------------------------------- questions

/// Which specs govern the files changed on this branch.
pub fn list_affected_specs(
    project: &mut Project,
    params: &ListAffectedSpecsParams,
) -> Result<AffectedSpecs> {
    let specs = project.specs();
    let root = project.root().to_path_buf();
    let git = project.git()?;
    let (base, used) = choose_base(&root, git, params.base_branch.as_deref())?;
    let changes = git.changes(&base, &Scope::Everything, false)?;
    let changed_files = changes.paths();
    let mut matched: BTreeMap<usize, Vec<(String, bool)>> = BTreeMap::new();
    let governed: Vec<(&String, Vec<usize>)> = changed_files
        .iter()
        .map(|p| (p, specs.governance().governors(p)))
        .filter(|(_, g)| !g.is_empty())
        .collect();
    let governed_paths: Vec<&str> = governed.iter().map(|(p, _)| p.as_str()).collect();
    let judged = Reconciled::trusted(&root, git, governed_paths.iter().copied())
        .judge(&root, Some(git), &governed_paths)
        .map_err(ReviewError::Internal)?;
    for ((path, governors), reconciled) in governed.into_iter().zip(judged) {
        for spec in governors {
            matched
                .entry(spec)
                .or_default()
                .push((path.clone(), reconciled));
        }
    }
    let affected_specs = matched
        .into_iter()
        .map(|(index, judged)| {
            let loaded = &specs.set.specs[index];
            let unreconciled_count = judged.iter().filter(|(_, r)| !r).count();
            let matched_files: Vec<String> = judged.into_iter().map(|(p, _)| p).collect();
            AffectedSpec {
                unreconciled_count,
                all_reconciled: unreconciled_count == 0,
                spec_path: loaded.path.clone(),
                intent: loaded.spec.intent.clone(),
                behaviors: loaded.spec.behaviors.clone(),
                constraints: loaded.spec.constraints.clone(),
                invariants: loaded.spec.invariants.clone(),
                matched_count: matched_files.len(),
                matched_files,
                continued: false,
            }
        })
        .collect();
    // Deleted as git sees it: a spec not checked out (sparse) is not deleted.
    let mut deleted_specs: Vec<String> = changes
        .files
        .iter()
        .filter(|f| f.status == crate::changes::ChangeKind::Deleted)
        .map(|f| f.path.clone())
        .chain(changes.files.iter().filter_map(|f| f.old_path.clone()))
        .filter(|p| spec::is_spec_path(p))
        .collect();
    deleted_specs.sort();
    deleted_specs.dedup();
    let full = AffectedSpecs {
        base: used,
        unreviewable: unreviewable(&changes, |_| true),
        deleted_specs,
        changed_count: changed_files.len(),
        changed_files,
        affected_specs,
        invalid_specs: invalid_specs(&specs),
        page: 1,
        pages: 1,
        next_cursor: None,
    };
    let args = (&params.base_branch, params.max_tokens);
    pages::affected_specs(full, &args, params.max_tokens, params.cursor.as_deref())
        .map_err(|e| ReviewError::InvalidParams(e.to_string()))
}

/// The base of a tool call: `explicit` resolved as given, else chosen by
/// [`crate::state::choose_base`] from the committed state (read leniently:
/// a malformed state file only loses its last reconciliation).
fn choose_base(
    root: &std::path::Path,
    git: &crate::changes::GitRepo,
    explicit: Option<&str>,
) -> Result<(crate::changes::Base, crate::state::UsedBase)> {
    let state = match explicit {
        Some(_) => crate::state::State::default(),
        None => crate::state::read_lenient(root),
    };
    crate::state::choose_base(git, &state, explicit).map_err(|e| match e {
        crate::state::BaseError::NoBase => ReviewError::InvalidParams(format!(
            "base_branch: {}",
            e.to_string().replace("with --base", "as `base_branch`")
        )),
        crate::state::BaseError::Git(e) => e.into(),
    })
}

/// The errors of the specs that fail, for every answer that lists specs:
/// the same verdict as `notarai validate` ([`spec::SpecSet::errors`]).
pub fn invalid_specs(specs: &Specs) -> Vec<InvalidSpec> {
    specs
        .set
        .errors()
        .into_iter()
        .map(|f| InvalidSpec {
            spec_path: f.path.clone(),
            error: f.to_string(),
        })
        .collect()
}

/// The changed files one spec governs, minus what the cache says was
/// already reconciled, with their diff.
pub fn get_spec_diff(project: &mut Project, params: &GetSpecDiffParams) -> Result<SpecDiff> {
    let specs = project.specs();
    let index = spec_index(project, &specs, &params.spec_path)?;
    let exclude = ExcludeMatcher::new(&params.exclude_patterns)?;
    let root = project.root().to_path_buf();
    let git = project.git()?;
    let (base, used) = choose_base(&root, git, params.base_branch.as_deref())?;
    let changes = git.changes(&base, specs.governance().scope(index), true)?;

    // The changed files this spec governs, each with its governed paths.
    let candidates: Vec<(&crate::changes::ChangedFile, Vec<&str>)> = changes
        .files
        .iter()
        .filter_map(|file| {
            let governed: Vec<&str> = file
                .paths()
                .filter(|p| specs.governance().category(index, p).is_some() && !exclude.is_match(p))
                .collect();
            (!governed.is_empty()).then_some((file, governed))
        })
        .collect();

    // Hash what is there now, once per path, in parallel.
    let mut paths: Vec<&str> = candidates
        .iter()
        .flat_map(|(_, g)| g.iter().copied())
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let mut now: HashMap<&str, FileHash> = HashMap::with_capacity(paths.len());
    for (path, hash) in paths.iter().zip(hash_now(&root, Some(git), &paths)) {
        now.insert(path, hash?);
    }
    // Reconciled per the local cache (unless git tracks it) or the committed state.
    let known =
        (!params.bypass_cache).then(|| Reconciled::trusted(&root, git, paths.iter().copied()));
    let reconciled = |p: &str| match (now.get(p).and_then(FileHash::cache_value), &known) {
        (Some(current), Some(known)) => known.matches(p, current),
        _ => false,
    };

    let mut patches: Vec<pages::FilePatch> = Vec::new();
    let mut out = SpecDiff {
        base: used,
        diff: String::new(),
        files: Vec::new(),
        plan: Vec::new(),
        page: 1,
        pages: 1,
        next_cursor: None,
        skipped: Vec::new(),
        excluded: params.exclude_patterns.clone(),
        spec_changes: Vec::new(),
        system_spec: None,
        binary_changes: Vec::new(),
        large_changes: Vec::new(),
        file_categories: BTreeMap::new(),
        unreviewable: unreviewable(&changes, |p| {
            specs.governance().category(index, p).is_some() && !exclude.is_match(p)
        }),
    };
    for (file, governed) in candidates {
        if governed.iter().all(|p| reconciled(p)) {
            out.skipped.extend(governed.iter().map(|p| p.to_string()));
            continue;
        }
        let (spec_paths, other): (Vec<&str>, Vec<&str>) =
            governed.iter().partition(|p| spec::is_spec_path(p));
        for path in spec_paths {
            let bytes = git
                .skip_worktree_content(path)
                .or_else(|| read_unfollowed(&root, path));
            let (content, deleted) = match bytes {
                Some(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), false),
                None => (String::new(), true),
            };
            out.spec_changes.push(SpecFile {
                path: path.to_string(),
                content,
                deleted,
            });
        }
        if other.is_empty() {
            continue;
        }
        for path in &other {
            out.files.push(path.to_string());
            if let Some(category) = specs.governance().category(index, path) {
                out.file_categories
                    .insert(path.to_string(), category.to_string());
            }
        }
        let patch = match changes.patch(file)? {
            Patch::Text(text) => Some(text),
            Patch::Binary => {
                out.binary_changes
                    .extend(other.iter().map(|p| p.to_string()));
                None
            }
            Patch::TooLarge => {
                out.large_changes
                    .extend(other.iter().map(|p| p.to_string()));
                None
            }
        };
        patches.push(pages::FilePatch {
            paths: other.iter().map(|p| p.to_string()).collect(),
            status: file.status,
            patch,
        });
    }
    for list in [
        &mut out.files,
        &mut out.skipped,
        &mut out.binary_changes,
        &mut out.large_changes,
    ] {
        list.sort();
        list.dedup();
    }
    out.spec_changes.sort_by(|a, b| a.path.cmp(&b.path));
    out.spec_changes.dedup_by(|a, b| a.path == b.path);
    if !out.spec_changes.is_empty()
        && let Some(system) = specs.set.system_spec()
    {
        let included = out.spec_changes.iter().any(|s| s.path == system.path);
        out.system_spec = Some(SystemSpec {
            path: system.path.clone(),
            content: (!included).then(|| system.raw.clone()),
        });
    }
    let args = (
        &params.spec_path,
        &params.base_branch,
        &params.exclude_patterns,
        params.bypass_cache,
        params.max_tokens,
    );
    pages::spec_diff(
        out,
        patches,
        &args,
        params.max_tokens,
        params.cursor.as_deref(),
    )
    .map_err(|e| ReviewError::InvalidParams(e.to_string()))
}

/// The spec's governed files that exist now and differ from the cache.
pub fn get_changed_artifacts(
    project: &mut Project,
    params: &GetChangedArtifactsParams,
) -> Result<ChangedArtifacts> {
    let specs = project.specs();
    let index = spec_index(project, &specs, &params.spec_path)?;
    let loaded = &specs.set.specs[index];
    if let Some(kind) = &params.artifact_type
        && kind != governance::SELF_CATEGORY
        && !loaded.spec.artifacts.contains_key(kind)
    {
        // Not an error: a reconcile pass asks every spec for its docs, and
        // many specs have none.
        let known: Vec<&str> = loaded.spec.artifacts.keys().map(String::as_str).collect();
        let categories = if known.is_empty() {
            "it has no artifact categories".to_string()
        } else {
            format!("its categories are: {}", known.join(", "))
        };
        return Ok(ChangedArtifacts {
            changed_artifacts: Vec::new(),
            changed_count: 0,
            page: 1,
            pages: 1,
            next_cursor: None,
            note: Some(format!(
                "spec {} has no artifact category `{kind}`, so nothing of that category can have changed; {categories}",
                loaded.path
            )),
        });
    }
    let root = project.root().to_path_buf();
    let git = project.git()?;
    let universe = git.files(specs.governance().scope(index))?;
    let governed: Vec<String> = universe
        .into_iter()
        .filter(|p| {
            let categories = specs.governance().categories(index, p);
            match params.artifact_type.as_deref() {
                Some(kind) => categories.contains(&kind),
                None => !categories.is_empty(),
            }
        })
        .collect();
    let hashes = hashing::hash_many_in(&root, &governed);
    let known = Reconciled::trusted(&root, git, governed.iter().map(String::as_str));
    let mut changed_artifacts = Vec::new();
    for (path, hash) in governed.iter().zip(hashes) {
        let hash = hash.map_err(|e| ReviewError::Internal(format!("cannot read {path}: {e}")))?;
        if let FileHash::Content(current) = hash
            && !known.matches(path, &current)
        {
            changed_artifacts.push(path.clone());
        }
    }
    let full = ChangedArtifacts {
        changed_count: changed_artifacts.len(),
        changed_artifacts,
        note: None,
        page: 1,
        pages: 1,
        next_cursor: None,
    };
    let args = (&params.spec_path, &params.artifact_type, params.max_tokens);
    pages::changed_artifacts(full, &args, params.max_tokens, params.cursor.as_deref())
        .map_err(|e| ReviewError::InvalidParams(e.to_string()))
}

/// Hash the given files and store them in the cache in one transaction.
/// Every path is checked before anything is written: one path outside the
/// repository fails the whole call.
pub fn mark_reconciled(
    project: &mut Project,
    params: &MarkReconciledParams,
) -> Result<MarkReconciled> {
    let root = project.root().to_path_buf();
    let mut guard = Guard::new(&root);
    let mut paths: Vec<RepoPath> = Vec::with_capacity(params.files.len());
    for input in &params.files {
        let path = guard.resolve_unfollowed(input).map_err(|e| {
            ReviewError::InvalidParams(format!("files: `{}`: {e}", input.escape_debug()))
        })?;
        paths.push(path);
    }
    paths.sort();
    paths.dedup();
    // Without a repository there is no index to consult, and no tracked cache.
    let git = project.git().ok();
    if let Some(git) = git {
        let tracked = git.tracked_cache_files();
        if !tracked.is_empty() {
            return Err(ReviewError::InvalidParams(format!(
                "cannot record reviewed files: {}",
                crate::changes::tracked_cache_message(&tracked)
            )));
        }
    }
    let rels: Vec<&str> = paths.iter().map(RepoPath::as_str).collect();
    let mut entries = Vec::with_capacity(paths.len());
    let (mut updated, mut deleted) = (0, 0);
    for (path, hash) in paths.iter().zip(hash_now(&root, git, &rels)) {
        let hash = hash?;
        match &hash {
            FileHash::Content(_) => updated += 1,
            FileHash::Missing => deleted += 1,
            FileHash::NotAFile => {
                tracing::info!("mark_reconciled: {path} is not a file; skipped");
                continue;
            }
        }
        if let Some(value) = hash.cache_value() {
            entries.push((path.as_str().to_string(), value.to_string()));
        }
    }
    if !entries.is_empty() {
        let mut cache =
            Cache::open_write(&root).map_err(|e| ReviewError::Internal(e.to_string()))?;
        cache
            .store(&entries)
            .map_err(|e| ReviewError::Internal(e.to_string()))?;
    }
    let snapshot = match params.snapshot {
        true => Some(
            crate::state::snapshot(&root, project.git()?, false)
                .map_err(|e| ReviewError::Internal(e.to_string()))?,
        ),
        false => None,
    };
    Ok(MarkReconciled {
        updated,
        deleted,
        snapshot,
    })
}

/// Delete the cache database.
pub fn clear_cache(project: &mut Project) -> Result<CacheCleared> {
    let cleared = Cache::clear(project.root()).map_err(|e| ReviewError::Internal(e.to_string()))?;
    Ok(CacheCleared { cleared })
}

/// What each of `paths` holds now, as git sees it, in order: the work-tree
/// file (never through a symbolic link, see [`hashing::hash_many_in`]),
/// except that a file the index marks skip-worktree (outside a sparse
/// checkout) is its staged content, never "deleted".
fn hash_now(
    root: &std::path::Path,
    git: Option<&crate::changes::GitRepo>,
    paths: &[&str],
) -> Vec<Result<FileHash>> {
    let mut staged = git
        .map(|g| g.skip_worktree_hashes(paths))
        .unwrap_or_default();
    paths
        .iter()
        .zip(hashing::hash_many_in(root, paths))
        .map(|(path, hash)| match staged.remove(*path) {
            Some(staged) => Ok(staged),
            None => hash.map_err(|e| ReviewError::Internal(format!("cannot read {path}: {e}"))),
        })
        .collect()
}

/// A file's content as git sees it: a symbolic link is its target text,
/// never what it points to (which may lie outside the repository), and a
/// path through a linked folder is not there. `None` when nothing is there.
fn read_unfollowed(root: &std::path::Path, rel: &str) -> Option<Vec<u8>> {
    if hashing::crosses_link(root, rel) {
        return None;
    }
    let path = &root.join(rel);
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.file_type().is_symlink() {
        return std::fs::read_link(path)
            .ok()
            .map(|t| t.as_os_str().as_encoded_bytes().to_vec());
    }
    std::fs::read(path).ok()
}

/// Resolve `spec_path` to a loaded spec, or say precisely why not.
fn spec_index(project: &Project, specs: &Specs, spec_path: &str) -> Result<usize> {
    let path = RepoPath::resolve(project.root(), spec_path).map_err(|e| {
        ReviewError::InvalidParams(format!("spec_path: `{}`: {e}", spec_path.escape_debug()))
    })?;
    if let Some(index) = specs.governance().spec_index(path.as_str()) {
        return Ok(index);
    }
    if let Some(failure) = specs.set.invalid.iter().find(|f| f.path == path.as_str()) {
        let error = ReviewError::InvalidParams(format!(
            "spec_path: {path} failed to load and cannot be diffed until fixed: {failure}"
        ));
        return Err(match &failure.hint {
            Some(hint) => error.hinted(format!("{hint} (`notarai validate` lists every error)")),
            None => error.hinted("fix the spec at that line; `notarai validate` lists every error"),
        });
    }
    const SHOWN: usize = 20;
    let known: Vec<&str> = specs.set.specs.iter().map(|s| s.path.as_str()).collect();
    let mut list = known
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if known.len() > SHOWN {
        list.push_str(&format!(" and {} more", known.len() - SHOWN));
    }
    if known.is_empty() {
        list = "none (create .notarai/*.spec.yaml files, or run `notarai init`)".into();
    }
    Err(ReviewError::InvalidParams(format!(
        "spec_path: `{path}` is not a spec of this repository; known specs: {list}"
    )))
}

/// `exclude_patterns` with git's `:(exclude)` pathspec meaning.
///
/// As git matches a pathspec item: a pattern that equals the path, or names a
/// folder above it, matches literally (so `src/x[1].rs` and `app/{id}` need no
/// escaping); otherwise it is a wildcard match over the whole path where `*`
/// and `?` also match `/`, `[...]` is a class, and braces are plain text.
struct ExcludeMatcher {
    literals: Vec<String>,
    globs: globset::GlobSet,
}

impl ExcludeMatcher {
    fn new(patterns: &[String]) -> Result<ExcludeMatcher> {
        let mut literals = Vec::new();
        let mut set = GlobSetBuilder::new();
        for given in patterns {
            let mut pattern = given
                .strip_prefix(":(exclude)")
                .or_else(|| given.strip_prefix(":!"))
                .unwrap_or(given);
            while let Some(rest) = pattern.strip_prefix("./") {
                pattern = rest;
            }
            if pattern.is_empty() {
                return Err(ReviewError::InvalidParams(format!(
                    "exclude_patterns: `{}` is empty and would exclude everything",
                    given.escape_debug()
                )));
            }
            literals.push(pattern.to_string());
            if pattern.contains(['*', '?', '[']) {
                let escaped = pattern.replace('{', "\\{").replace('}', "\\}");
                let glob = globset::GlobBuilder::new(&escaped)
                    .literal_separator(false)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| {
                        ReviewError::InvalidParams(format!(
                            "exclude_patterns: `{}`: {}",
                            given.escape_debug(),
                            e.kind()
                        ))
                    })?;
                set.add(glob);
            }
        }
        let globs = set
            .build()
            .map_err(|e| ReviewError::InvalidParams(format!("exclude_patterns: {e}")))?;
        Ok(ExcludeMatcher { literals, globs })
    }

    fn is_match(&self, path: &str) -> bool {
        self.literals
            .iter()
            .any(|lit| governance::is_under(path, lit))
            || self.globs.is_match(path)
    }
}

/// Parameters of the MCP tool `snapshot_state`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SnapshotParams {
    /// `true` to replace a malformed state file instead of refusing.
    #[serde(default)]
    pub force: bool,
}

/// The MCP tool `snapshot_state`: [`crate::state::snapshot`] with the tools' error type
/// (a malformed file without `force` is the caller's to decide).
pub fn snapshot_tool(
    project: &mut Project,
    params: &SnapshotParams,
) -> Result<crate::state::SnapshotSummary> {
    let root = project.root().to_path_buf();
    let git = project.git()?;
    crate::state::snapshot(&root, git, params.force).map_err(|e| match e {
        crate::state::StateError::WouldOverwrite(_) => {
            ReviewError::InvalidParams(e.to_string().replace("pass --force", "pass `force: true`"))
        }
        other => ReviewError::Internal(other.to_string()),
    })
}
