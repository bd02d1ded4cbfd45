//! What the cache records: the changed artifacts of a spec, marking files
//! reconciled, clearing the cache, and the committed snapshot.

use super::{
    CacheCleared, ChangedArtifacts, GetChangedArtifactsParams, MarkReconciled,
    MarkReconciledParams, Result, ReviewError, SnapshotParams, hash_now, pages, spec_index,
};
use crate::cache::Cache;
use crate::governance;
use crate::hashing::{self, FileHash};
use crate::progress::{Cancelled, Progress};
use crate::project::Project;
use crate::repo_path::{Guard, RepoPath};
use crate::state::Reconciled;

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
/// repository fails the whole call. Each file hashed advances `progress`;
/// cancelled before the commit, nothing is written.
pub fn mark_reconciled(
    project: &mut Project,
    params: &MarkReconciledParams,
    progress: &Progress,
) -> Result<MarkReconciled> {
    let root = project.root().to_path_buf();
    let mut guard = Guard::new(&root);
    progress.begin(params.files.len() as u64, "checking paths");
    let mut paths: Vec<RepoPath> = Vec::with_capacity(params.files.len());
    for input in &params.files {
        progress.check()?;
        let path = guard.resolve_unfollowed(input).map_err(|e| {
            ReviewError::InvalidParams(format!("files: `{}`: {e}", input.escape_debug()))
        })?;
        paths.push(path);
    }
    paths.sort();
    paths.dedup();
    // A path named twice is hashed once: its second mention is done.
    progress.advance((params.files.len() - paths.len()) as u64);
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
    progress.stage("hashing files");
    let mut entries = Vec::with_capacity(paths.len());
    let (mut updated, mut deleted) = (0, 0);
    for (path, hash) in paths.iter().zip(hash_now(&root, git, &rels, progress)?) {
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
    progress.stage("writing the cache");
    progress.flush();
    progress.check()?;
    if !entries.is_empty() {
        let mut cache =
            Cache::open_write(&root).map_err(|e| ReviewError::Internal(e.to_string()))?;
        cache
            .store_unless(&entries, || progress.is_cancelled())
            .map_err(|e| ReviewError::Internal(e.to_string()))?
            .ok_or(Cancelled)?;
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
