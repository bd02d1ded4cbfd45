//! Snapshots: the state written from the cache and the existing state,
//! every entry that still matches the work tree.

use super::*;
/// What a snapshot changed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SnapshotSummary {
    /// Path of the state file written.
    pub path: String,
    /// Entries in the new state.
    pub entries: usize,
    /// Entries not in the old state (or with another fingerprint there).
    pub added: usize,
    /// Entries of the old state dropped because the file changed since.
    pub dropped: usize,
    /// The commit recorded as `last_reconciliation.git_hash`.
    pub git_hash: Option<String>,
    /// The branch recorded, if `HEAD` is on one.
    pub branch: Option<String>,
}

/// Compute the snapshot of `root`: every path whose current fingerprint
/// matches the cache or `existing`, plus `last_reconciliation` from `HEAD`.
pub fn compute_snapshot(
    root: &Path,
    git: &GitRepo,
    existing: &State,
) -> Result<(State, SnapshotSummary), StateError> {
    let io = |message: String| StateError::Io {
        path: state_path(root),
        message,
    };
    let universe = git
        .files(&Scope::Everything)
        .map_err(|e| io(e.to_string()))?;
    let mut keys: BTreeSet<String> = universe.into_iter().collect();
    keys.extend(existing.entries().keys().map(|k| k.to_string()));
    // Files deleted on the branch are in no listing of the work tree; the
    // changes since the base `check` would use name them.
    if let Ok((base, _)) = choose_base(git, existing, None)
        && let Ok(changes) = git.changes(&base, &Scope::Everything, false)
    {
        keys.extend(changes.paths());
    }
    keys.remove(STATE_FILE);
    let cached = Cache::open_read(root).lookup(keys.iter().map(String::as_str));
    // Only what one of the two sources names needs hashing.
    let mut guard = Guard::new(root);
    let candidates: Vec<RepoPath> = keys
        .iter()
        .filter(|k| cached.contains_key(*k) || existing.fingerprint(k).is_some())
        .filter_map(|k| guard.resolve_unfollowed(k).ok())
        .collect();
    let fs: Vec<PathBuf> = candidates.iter().map(|p| p.to_fs(root)).collect();
    let mut state = State {
        other: existing.other.clone(),
        ..State::empty()
    };
    let (mut added, mut kept) = (0, 0);
    for (path, hash) in candidates.iter().zip(hashing::hash_many(&fs)) {
        let hash = hash.map_err(|e| io(format!("cannot read {path}: {e}")))?;
        let Some(current) = hash.cache_value() else {
            continue;
        };
        let path = path.as_str();
        let in_state = existing.fingerprint(path) == Some(current);
        if in_state || cached.get(path).is_some_and(|c| c == current) {
            state.insert(path, current);
            // Keep what the old entry carried besides its hash.
            if let Some(old) = existing.file_fingerprints.get(path)
                && let Some(new) = state.file_fingerprints.get_mut(path)
            {
                new.other = old.other.clone();
            }
            if in_state { kept += 1 } else { added += 1 }
        }
    }
    let dropped = existing.entries().len() - kept;
    let (git_hash, branch) = head_of(git);
    state.cli_version = Some(env!("CARGO_PKG_VERSION").into());
    state.last_reconciliation = Some(LastReconciliation {
        timestamp: format!("{}Z", now_secs()),
        git_hash: git_hash.clone(),
        branch: branch.clone(),
        other: existing
            .last_reconciliation
            .as_ref()
            .map(|l| l.other.clone())
            .unwrap_or_default(),
    });
    let summary = SnapshotSummary {
        path: STATE_FILE.into(),
        entries: state.entries().len(),
        added,
        dropped,
        git_hash,
        branch,
    };
    Ok((state, summary))
}

/// Snapshot the project's state: read the existing file (refusing a
/// malformed one unless `force`), compute, write. The domain function behind
/// `notarai state snapshot` and the MCP tool `snapshot_state`.
pub fn snapshot(root: &Path, git: &GitRepo, force: bool) -> Result<SnapshotSummary, StateError> {
    let existing = match read(root) {
        Ok(Some(loaded)) => {
            for w in &loaded.warnings {
                tracing::warn!("{w}");
            }
            loaded.state
        }
        Ok(None) => State::empty(),
        Err(e @ StateError::Malformed { .. }) if !force => {
            return Err(StateError::WouldOverwrite(Box::new(e)));
        }
        Err(StateError::Malformed { .. }) => State::empty(),
        Err(e) => return Err(e),
    };
    let (state, summary) = compute_snapshot(root, git, &existing)?;
    write(root, &state)?;
    Ok(summary)
}

/// `HEAD`'s commit and branch name.
pub fn head_of(git: &GitRepo) -> (Option<String>, Option<String>) {
    let Ok(head) = git.raw().head() else {
        return (None, None);
    };
    let hash = head.target().map(|o| o.to_string());
    let branch = head
        .is_branch()
        .then(|| head.shorthand().ok().map(str::to_string))
        .flatten();
    (hash, branch)
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
