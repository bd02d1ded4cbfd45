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

/// The spec's governed files changed on the branch (since the merge base
/// with the base, work in progress included) that exist now and are not
/// reconciled for it.
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
            base: None,
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
    let (base, used) = super::choose_base(&root, git, params.base_branch.as_deref())?;
    // What changed on the branch (committed, staged, unstaged, untracked)
    // and exists now, of the asked category.
    let changes = git.changes(&base, specs.governance().scope(index), false)?;
    let governed: Vec<String> = changes
        .files
        .iter()
        .filter(|f| f.status != crate::changes::ChangeKind::Deleted)
        .map(|f| f.path.clone())
        .filter(|p| {
            let categories = specs.governance().categories(index, p);
            match params.artifact_type.as_deref() {
                Some(kind) => categories.contains(&kind),
                None => !categories.is_empty(),
            }
        })
        .collect();
    let hashes = hashing::hash_many_in(&root, &governed);
    let known = Reconciled::trusted(&root, git, Some(&base), governed.iter().map(String::as_str));
    let mut changed_artifacts = Vec::new();
    for (path, hash) in governed.iter().zip(hashes) {
        let hash = hash.map_err(|e| ReviewError::internal(format!("cannot read {path}: {e}")))?;
        if let FileHash::Content(current) = hash
            && !known.matches_for(git.symbols(), &loaded.path, path, &current)
        {
            changed_artifacts.push(path.clone());
        }
    }
    let full = ChangedArtifacts {
        base: Some(used),
        changed_count: changed_artifacts.len(),
        changed_artifacts,
        note: None,
        page: 1,
        pages: 1,
        next_cursor: None,
    };
    let args = (
        &params.spec_path,
        &params.artifact_type,
        &params.base_branch,
        params.max_tokens,
    );
    pages::changed_artifacts(full, &args, params.max_tokens, params.cursor.as_deref())
        .map_err(|e| ReviewError::invalid(e.to_string()))
}

/// How many of the skipped paths `mark_reconciled` names (the count says
/// how many there were).
const NOT_FOUND_SHOWN: usize = 50;

/// Hash the given files and record them as reviewed, for `spec_path` or
/// (without it) for every spec that governs them, in the cache in one
/// transaction, with the git blob id of each reviewed content (written to
/// git's object store when it is not there yet). Every path is checked
/// before anything is written: one path outside the repository or, with
/// `spec_path`, one that spec does not govern, fails the whole call with a
/// hint; one that neither exists nor is known to git (in `HEAD`, the index
/// or the base) is skipped and named in `not_found`. Each file hashed advances `progress`; cancelled before
/// the commit, nothing is written.
pub fn mark_reconciled(
    project: &mut Project,
    params: &MarkReconciledParams,
    progress: &Progress,
) -> Result<MarkReconciled> {
    // What is kept was made from the reconciliation this call changes.
    project.forget_answers();
    let decision = params
        .decision
        .as_deref()
        .map(super::decisions::checked)
        .transpose()?;
    let root = project.root().to_path_buf();
    let base = params.base_branch.as_deref();
    let (scope, governing) = scope_of(project, params.spec_path.as_deref(), base)?;
    // Twice the files: hashing each, then keeping each reviewed content.
    progress.begin(2 * params.files.len() as u64, "checking paths");
    // `path@id` (a `read_ids` entry): recorded only while it holds that content.
    let (inputs, ids): (Vec<String>, Vec<Option<&str>>) = params
        .files
        .iter()
        .map(|f| {
            let (path, id) = super::split_read_id(f);
            (path.to_string(), id)
        })
        .unzip();
    let paths = checked_paths(&root, &inputs, scope.as_ref(), progress)?;
    // A path named twice is hashed once: its second mention is done.
    progress.advance((params.files.len() - paths.len()) as u64);
    // Without a repository there is no index to consult, and no tracked cache.
    let git = project.git().ok();
    if let Some(git) = git {
        let tracked = git.tracked_cache_files();
        if !tracked.is_empty() {
            return Err(ReviewError::invalid(format!(
                "cannot record reviewed files: {}",
                crate::changes::tracked_cache_message(&tracked)
            )));
        }
    }
    let rels: Vec<&str> = paths.iter().map(RepoPath::as_str).collect();
    progress.stage("hashing files");
    let mut hashed = Vec::with_capacity(paths.len());
    for (path, hash) in paths.iter().zip(hash_now(&root, git, &rels, progress)?) {
        hashed.push((path, hash?));
    }
    check_read_ids(&root, &inputs, &ids, &hashed)?;
    let not_found = match git {
        Some(git) => take_unknown(&root, git, &mut hashed),
        None => Vec::new(),
    };
    let record_scope = match &scope {
        Some((index, specs)) => {
            crate::record::Scope::Spec(specs.governance().spec_path(*index).to_string())
        }
        None => crate::record::Scope::EverySpec,
    };
    progress.stage("keeping the reviewed content in git's object store");
    progress.advance((params.files.len() - paths.len()) as u64);
    let (mut records, updated, deleted) =
        reviewed_records(&root, git, &hashed, &record_scope, progress)?;
    if let Some(specs) = &governing {
        records = for_each_governor(records, specs);
    }
    progress.stage("writing the cache");
    progress.flush();
    progress.check()?;
    if !records.is_empty() {
        let mut cache = Cache::open_write(&root).map_err(ReviewError::from)?;
        cache
            .store_records(&records, &crate::state::head_stamp(git), || {
                progress.is_cancelled()
            })
            .map_err(ReviewError::from)?
            .ok_or(Cancelled)?;
    }
    // Drift notes of the specs just reconciled are closed.
    let reconciled_specs: Vec<String> = match &scope {
        Some((index, specs)) => vec![specs.governance().spec_path(*index).to_string()],
        None => governing
            .as_ref()
            .map(|(specs, _)| governors_of(specs, &paths))
            .unwrap_or_default(),
    };
    let names: Vec<&str> = reconciled_specs.iter().map(String::as_str).collect();
    let closed_drift_notes = super::close_for(&root, &names)?;
    let decisions_recorded = match decision {
        Some(text) => decide(project, &names, text, &paths)?,
        None => 0,
    };
    let snapshot = match params.snapshot {
        true => Some(crate::state::snapshot(&root, project.git()?, false).map_err(snapshot_error)?),
        false => None,
    };
    let not_found_count = not_found.len();
    Ok(MarkReconciled {
        updated,
        deleted,
        not_found: not_found.into_iter().take(NOT_FOUND_SHOWN).collect(),
        not_found_count,
        spec_path: match record_scope {
            crate::record::Scope::Spec(spec) => Some(spec),
            crate::record::Scope::EverySpec => None,
        },
        snapshot,
        closed_drift_notes,
        decisions_recorded,
        left: None,
    })
}

/// Record `text` in the decision log for `specs`, with the paths reviewed
/// and the branch checked out.
fn decide(project: &mut Project, specs: &[&str], text: &str, paths: &[RepoPath]) -> Result<usize> {
    let branch = project
        .git()
        .ok()
        .and_then(|git| crate::state::head_of(git).1);
    let paths: Vec<String> = paths.iter().map(|p| p.as_str().to_string()).collect();
    super::decisions::record(project.root(), specs, text, &paths, branch)
}

/// `inputs` as the paths they name, sorted, each once; with a spec, every
/// one of them must be that spec's.
fn checked_paths(
    root: &std::path::Path,
    inputs: &[String],
    scope: Option<&(usize, std::sync::Arc<crate::project::Specs>)>,
    progress: &Progress,
) -> Result<Vec<RepoPath>> {
    let mut guard = Guard::new(root);
    let mut paths: Vec<RepoPath> = Vec::with_capacity(inputs.len());
    for input in inputs {
        progress.check()?;
        paths.push(guard.given("files", input).map_err(ReviewError::from)?);
    }
    paths.sort();
    paths.dedup();
    if let Some((index, specs)) = scope {
        let foreign: Vec<&str> = paths
            .iter()
            .map(RepoPath::as_str)
            .filter(|p| specs.governance().categories(*index, p).is_empty())
            .collect();
        if !foreign.is_empty() {
            return Err(ReviewError::invalid(format!(
                "files: {} not governed by {}; nothing was recorded",
                name_list(&foreign),
                specs.governance().spec_path(*index)
            ))
            .hinted("pass only files of that spec's artifacts, or omit `spec_path` to record them for every spec that governs them"));
        }
    }
    Ok(paths)
}

/// Refuses the whole call when a file given as `path@id` holds another
/// content than the one that id names (it changed after its diff was
/// read): recording it would mark unread content reviewed.
fn check_read_ids(
    root: &std::path::Path,
    inputs: &[String],
    ids: &[Option<&str>],
    hashed: &[(&RepoPath, FileHash)],
) -> Result<()> {
    let mut guard = Guard::new(root);
    let mut stale: Vec<&str> = Vec::new();
    for (input, id) in inputs.iter().zip(ids) {
        let Some(id) = id else { continue };
        let path = guard.given("files", input).map_err(ReviewError::from)?;
        let now = hashed
            .iter()
            .find(|(p, _)| **p == path)
            .and_then(|(_, h)| h.cache_value())
            .map(super::read_id);
        if now.as_deref() != Some(*id) {
            stale.push(input);
        }
    }
    if stale.is_empty() {
        return Ok(());
    }
    Err(ReviewError::invalid(format!(
        "files: {} changed since you read its diff (its content no longer has the id you passed); nothing was recorded",
        name_list(&stale)
    ))
    .hinted("ask get_spec_diff for the file's diff again, read the change, then pass the new `path@id` from that answer's `read_ids`"))
}

/// The missing files git does not know either (not in `HEAD`, the index
/// or the base), taken out of `hashed`: nothing to record for them, so they
/// are skipped and named in the answer (`not_found`), as the contract says
/// ("non-existent files are silently skipped"), while the rest is recorded.
fn take_unknown(
    root: &std::path::Path,
    git: &crate::changes::GitRepo,
    hashed: &mut Vec<(&RepoPath, FileHash)>,
) -> Vec<String> {
    let mut unknown = Vec::new();
    hashed.retain(|(p, h)| {
        let skip = *h == FileHash::Missing && !known_to_git(root, git, p.as_str());
        if skip {
            unknown.push(p.as_str().to_string());
        }
        !skip
    });
    unknown
}

/// The records of the hashed files (each reviewed content kept in git's
/// object store), and how many are updated and deleted.
fn reviewed_records(
    root: &std::path::Path,
    git: Option<&crate::changes::GitRepo>,
    hashed: &[(&RepoPath, FileHash)],
    record_scope: &crate::record::Scope,
    progress: &Progress,
) -> Result<(Vec<crate::record::Record>, usize, usize)> {
    let mut records = Vec::with_capacity(hashed.len());
    let (mut updated, mut deleted) = (0, 0);
    // The reviewed contents' blob ids, of the files with content, at once.
    let with_content: Vec<&str> = hashed
        .iter()
        .filter(|(_, hash)| matches!(hash, FileHash::Content(_)))
        .map(|(path, _)| path.as_str())
        .collect();
    // Not cancellable once begun: the reads and hashes run on every core.
    progress.check()?;
    let blobs: std::collections::HashMap<&str, String> = match git {
        Some(git) => with_content
            .iter()
            .zip(crate::state::store_all_reviewed(root, git, &with_content))
            .filter_map(|(path, blob)| Some((*path, blob?)))
            .collect(),
        None => Default::default(),
    };
    for (path, hash) in hashed {
        progress.check()?;
        progress.advance(1);
        match hash {
            FileHash::Content(_) => updated += 1,
            FileHash::Missing => deleted += 1,
            FileHash::NotAFile => {
                tracing::info!("mark_reconciled: {path} is not a file; skipped");
                continue;
            }
        }
        if let Some(value) = hash.cache_value() {
            let blob = match hash {
                FileHash::Content(_) => blobs.get(path.as_str()).cloned(),
                _ => None,
            };
            records.push(crate::record::Record {
                scope: record_scope.clone(),
                path: path.as_str().to_string(),
                symbol: None,
                hash: crate::record::ContentHash::bytes(value),
                blob,
            });
        }
    }
    Ok((records, updated, deleted))
}

/// The spec named (its index, with the specs as judged), or without one
/// the specs that govern each file now.
type ScopeOf = (
    Option<(usize, std::sync::Arc<crate::project::Specs>)>,
    Option<Judged>,
);

/// The specs as a pass judges them (their text now and at the merge base),
/// and which spec files are as at the merge base (`None`: no merge base).
type Judged = (
    std::sync::Arc<crate::project::Specs>,
    Option<std::collections::HashSet<String>>,
);

/// [`ScopeOf`] for `spec_path`: an unknown spec is an invalid parameter.
fn scope_of(project: &mut Project, spec_path: Option<&str>, base: Option<&str>) -> Result<ScopeOf> {
    let specs = project.specs();
    Ok(match spec_path {
        Some(spec_path) => {
            let index = spec_index(project, &specs, spec_path)?;
            (Some((index, judged(project, specs, base)?.0)), None)
        }
        None => (None, Some(judged(project, specs, base)?)),
    })
}

/// `records` made for every spec, each also made for each spec that
/// governs its file now and that the branch changed (its file is not as
/// at the merge base): an every-spec record counts only for specs as at
/// the merge base (`Reconciled::matches_for`), so a spec the branch
/// changed is proven reviewed by its own record, made while it governed
/// the file as it does now. A spec as at the base gets none: if the branch
/// changes it later, this review was read against its older text and no
/// longer counts for it.
fn for_each_governor(
    records: Vec<crate::record::Record>,
    (specs, at_base): &Judged,
) -> Vec<crate::record::Record> {
    let Some(at_base) = at_base else {
        return records;
    };
    // No spec changed on the branch: the every-spec records say it all.
    if specs.set.specs.iter().all(|l| at_base.contains(&l.path)) {
        return records;
    }
    let mut out = Vec::with_capacity(records.len() * 2);
    for record in records {
        for index in specs.governance().governors(&record.path) {
            let spec = specs.governance().spec_path(index);
            if spec != record.path && !at_base.contains(spec) {
                out.push(crate::record::Record {
                    scope: crate::record::Scope::Spec(spec.to_string()),
                    ..record.clone()
                });
            }
        }
        out.push(record);
    }
    out
}

/// `specs` with the governance changes are judged by against the pass's
/// base (`against_base`: a governed link's target, a spec's base text), so
/// what the status asks to review can be recorded for its spec; and the
/// spec files as at that merge base.
fn judged(
    project: &mut Project,
    specs: std::sync::Arc<crate::project::Specs>,
    base: Option<&str>,
) -> Result<Judged> {
    let root = project.root().to_path_buf();
    let Ok(git) = project.git() else {
        return Ok((specs, None));
    };
    // A base the agent named must resolve (the same error as elsewhere);
    // the default one may be missing (a repository without `main`).
    let base = match base {
        Some(_) => Some(super::choose_base(&root, git, base)?.0),
        None => crate::state::choose_base(git, &crate::state::read_lenient(&root), None)
            .ok()
            .map(|(base, _)| base),
    };
    Ok(match base {
        Some(base) => {
            let at_base = base
                .merge_base
                .map(|b| crate::state::specs_as_at_base(git, b));
            (super::against_base::specs(specs, git, &base), at_base)
        }
        None => (specs, None),
    })
}

/// Every spec that governs one of `paths`, sorted, each once.
fn governors_of(specs: &crate::project::Specs, paths: &[RepoPath]) -> Vec<String> {
    let mut all: Vec<String> = paths
        .iter()
        .flat_map(|p| specs.governance().governors(p.as_str()))
        .map(|i| specs.governance().spec_path(i).to_string())
        .collect();
    all.sort();
    all.dedup();
    all
}

/// `a`, `b` and 3 more: the first few names of a refused list, quoted.
fn name_list(names: &[&str]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(5)
        .map(|n| format!("`{}`", n.escape_debug()))
        .collect();
    match names.len() {
        n if n > 5 => format!("{} and {} more are", shown.join(", "), n - 5),
        1 => format!("{} is", shown[0]),
        _ => format!("{} are", shown.join(", ")),
    }
}

/// Whether git knows `path` although it is not in the work tree: in
/// `HEAD`, in the index, or in the base the branch is compared with (a file
/// the branch deleted). A path never known to git is a typo, not a deletion.
fn known_to_git(root: &std::path::Path, git: &crate::changes::GitRepo, path: &str) -> bool {
    let repo = git.raw();
    let in_tree = |oid: git2::Oid| {
        repo.find_commit(oid)
            .and_then(|c| c.tree())
            .is_ok_and(|t| t.get_path(std::path::Path::new(path)).is_ok())
    };
    if repo
        .head()
        .ok()
        .and_then(|h| h.target())
        .is_some_and(in_tree)
    {
        return true;
    }
    if repo
        .index()
        .is_ok_and(|i| i.get_path(std::path::Path::new(path), 0).is_some())
    {
        return true;
    }
    let state = crate::state::read_lenient(root);
    crate::state::choose_base(git, &state, None)
        .ok()
        .and_then(|(base, _)| base.merge_base)
        .is_some_and(in_tree)
}

/// Delete the cache database.
pub fn clear_cache(project: &mut Project) -> Result<CacheCleared> {
    project.forget_answers();
    let cleared = Cache::clear(project.root()).map_err(ReviewError::from)?;
    Ok(CacheCleared { cleared })
}

/// The MCP tool `snapshot_state`: [`crate::state::snapshot`] with the tools' error type
/// (a malformed file without `force` is the caller's to decide).
pub fn snapshot_tool(
    project: &mut Project,
    params: &SnapshotParams,
) -> Result<crate::state::SnapshotSummary> {
    project.forget_answers();
    let root = project.root().to_path_buf();
    let git = project.git()?;
    crate::state::snapshot(&root, git, params.force).map_err(snapshot_error)
}

/// A snapshot's error as a tool's: a malformed file is the caller's to
/// decide (`snapshot_state` with `force: true`).
fn snapshot_error(e: crate::state::StateError) -> ReviewError {
    match e {
        crate::state::StateError::WouldOverwrite(_) => ReviewError::invalid(e.to_string())
            .hinted("call snapshot_state with `force: true` to replace it with a fresh snapshot"),
        other => ReviewError::internal(other.to_string()),
    }
}
