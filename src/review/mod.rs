//! What each spec needs to review: the domain behind the MCP tools.
//!
//! One function per question, each taking typed parameters and returning a
//! typed result. The same structs are the tools' input and output schemas
//! (they derive `JsonSchema`), so what the code returns and what the server
//! declares cannot drift apart. Nothing here knows about JSON-RPC.

mod affected;
pub mod against_base;
mod catalog;
mod coverage;
pub mod decisions;
mod diff;
mod drift;
mod exclude;
mod export;
mod governing;
mod kept;
mod pages;
mod params;
pub mod pins;
pub mod proofs;
pub mod quiet;
mod record;
mod results;
pub mod score;
mod spec_text;
mod symbolic;
mod symbols;

use crate::hashing::{self, FileHash};
use crate::progress::Progress;
use crate::project::{Project, Specs};
use crate::repo_path::{GivenPathError, RepoPath};

pub use affected::{list_affected_specs, status_page, whole_affected_specs};
pub use catalog::{
    CATALOG_PAGE, CatalogEntry, CatalogPage, Completion, MAX_COMPLETIONS, SpecText, complete,
    complete_branches, complete_folders, complete_repo_paths, complete_spec_paths, is_not_a_folder,
    is_project_spec, read_spec, spec_catalog,
};
pub use coverage::{Coverage, FolderGap, SpecCoverage, coverage};
pub use diff::{get_spec_diff, whole_spec_diff};
pub use drift::{
    DriftReported, MAX_NOTE, OpenDrift, ReportDriftParams, close_for, open_notes, report_drift,
};
pub use export::{ExportContext, ExportParams, SpecContext, export_context};
pub use governing::{
    GovernedFile, GoverningParams, GoverningSpec, GoverningSpecs, Governor, MAX_PATHS,
    get_governing_specs, governing_specs,
};
pub use params::{
    GetChangedArtifactsParams, GetSpecDiffParams, ListAffectedSpecsParams, MarkReconciledParams,
    Since, SnapshotParams,
};
pub use record::{clear_cache, get_changed_artifacts, mark_reconciled, snapshot_tool};
pub use results::{
    AffectedSpec, AffectedSpecs, CacheCleared, ChangedArtifacts, InvalidSpec, MarkReconciled,
    PlanEntry, Quiet, ReconciliationStatus, SpecDiff, SpecStatus, Totals, Unreviewable,
};
pub use spec_text::{AppliedSpec, SpecFile, SpecSays, SystemSpec};
pub use symbolic::{BrokenAnchor, Narrowed, OutsideAnchors, WholeFile, narrow};
pub use symbols::{LineRange, OutlineEntry, SymbolsAnswer, symbols};

/// Why a question could not be answered: the one error type
/// ([`crate::error::Error`]), its kind and hint read by both faces. The
/// name stays for the review's signatures; there is no second carrier.
pub type ReviewError = crate::error::Error;

type Result<T> = std::result::Result<T, ReviewError>;

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
        // Worded for both edges: a tool's `base_branch`, the shell's `--base`.
        crate::state::BaseError::NoBase => ReviewError::invalid(format!(
            "no base branch: none of {} exists",
            crate::state::DEFAULT_BASES.join(", ")
        ))
        .hinted(
            "pass the branch this one merges into: `base_branch` in a tool call, `--base` on \
             the command line",
        ),
        crate::state::BaseError::Git(e) => e.into(),
    })
}

/// The errors of the specs that fail, for every answer that lists specs:
/// the same verdict as `notarai validate` ([`crate::spec::SpecSet::errors`]).
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

/// The spec files `changes` deletes (or renames away), sorted. Deleted as
/// git sees it: a spec not checked out (sparse) is not deleted.
pub fn deleted_specs(changes: &crate::changes::ChangeSet<'_>) -> Vec<String> {
    let mut deleted: Vec<String> = changes
        .files
        .iter()
        .filter(|f| f.status == crate::changes::ChangeKind::Deleted)
        .map(|f| f.path.clone())
        .chain(changes.files.iter().filter_map(|f| f.old_path.clone()))
        .filter(|p| crate::spec::is_spec_path(p))
        .collect();
    deleted.sort();
    deleted.dedup();
    deleted
}

/// What each of `paths` holds now, as git sees it, in order: the work-tree
/// file (never through a symbolic link, see [`hashing::hash_many_in`]),
/// except that a file the index marks skip-worktree (outside a sparse
/// checkout) is its staged content, never "deleted".
/// Each path hashed advances `progress`; a cancelled `progress` fails the whole.
fn hash_now(
    root: &std::path::Path,
    git: Option<&crate::changes::GitRepo>,
    paths: &[&str],
    progress: &Progress,
) -> Result<Vec<Result<FileHash>>> {
    let mut staged = git
        .map(|g| g.skip_worktree_hashes(paths))
        .unwrap_or_default();
    let hashes = hashing::hash_many_tracked(root, paths, progress);
    progress.check()?;
    Ok(paths
        .iter()
        .zip(hashes)
        .map(|(path, hash)| match staged.remove(*path) {
            Some(staged) => Ok(staged),
            None => hash.map_err(|e| ReviewError::internal(format!("cannot read {path}: {e}"))),
        })
        .collect())
}

/// The id `read_ids` gives the content whose fingerprint
/// ([`FileHash::cache_value`]) is `value`: 12 hex digits.
fn read_id(value: &str) -> String {
    blake3::hash(value.as_bytes()).to_hex()[..12].to_string()
}

/// `input` as `path@id` when it ends in `@` and 12 lowercase hex digits (a
/// `read_ids` entry), else the path alone.
fn split_read_id(input: &str) -> (&str, Option<&str>) {
    match input.rsplit_once('@') {
        Some((path, id))
            if !path.is_empty()
                && id.len() == 12
                && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) =>
        {
            (path, Some(id))
        }
        _ => (input, None),
    }
}

/// Resolve `spec_path` to a loaded spec, or say precisely why not.
fn spec_index(project: &Project, specs: &Specs, spec_path: &str) -> Result<usize> {
    let path = RepoPath::resolve(project.root(), spec_path)
        .map_err(|reason| GivenPathError {
            field: "spec_path",
            input: spec_path.to_string(),
            reason,
        })
        .map_err(ReviewError::from)?;
    if let Some(index) = specs.governance().spec_index(path.as_str()) {
        return Ok(index);
    }
    if let Some(failure) = specs.set.invalid.iter().find(|f| f.path == path.as_str()) {
        let error = ReviewError::invalid(format!(
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
    Err(ReviewError::invalid(format!(
        "spec_path: `{path}` is not a spec of this repository; known specs: {list}"
    )))
}
