//! Snapshots: the state written from the cache and the existing state,
//! every entry that still matches the work tree.

use super::line::Line;
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

/// Every path a snapshot may name: git's file list, the existing entries,
/// and the files deleted on the branch (in no listing of the work tree; the
/// changes since the base `check` would use name them); not the state file.
fn snapshot_keys(
    git: &GitRepo,
    existing: &State,
    base: Option<&Base>,
) -> Result<BTreeSet<String>, crate::changes::ChangeError> {
    let mut keys: BTreeSet<String> = git.files(&Scope::Everything)?.into_iter().collect();
    keys.extend(existing.entries().keys().map(|k| k.to_string()));
    if let Some(base) = base
        && let Ok(changes) = git.changes(base, &Scope::Everything, false)
    {
        keys.extend(changes.paths());
    }
    keys.remove(STATE_FILE);
    Ok(keys)
}

/// Symbol-level entries are carried as they are: their matching is the
/// symbol outline's.
fn carry_symbol_entries(state: &mut State, existing: &State) {
    for (spec, entries) in &existing.spec_reviews {
        for (key, review) in entries {
            if record::split_key(key).1.is_some() {
                state
                    .spec_reviews
                    .entry(spec.clone())
                    .or_default()
                    .insert(key.clone(), review.clone());
            }
        }
    }
}

/// The per-spec entries of a file reviewed for some specs only, whose
/// content is still `current`: from the existing state (kept) and from the
/// cache's records (added, or replacing a kept one).
fn carry_spec_reviews(
    state: &mut State,
    existing: &State,
    (path, current): (&str, &str),
    cached_records: &[Record],
    symbols: &SymbolCache,
    (added, kept): (&mut usize, &mut usize),
    carried: &dyn Fn(&str) -> bool,
) {
    for (spec, entries) in &existing.spec_reviews {
        if carried(spec)
            && let Some(review) = entries.get(path)
            && review.matches(symbols, path, current)
        {
            state
                .spec_reviews
                .entry(spec.clone())
                .or_default()
                .insert(path.to_string(), review.clone());
            *kept += 1;
        }
    }
    for r in cached_records {
        if let record::Scope::Spec(spec) = &r.scope
            && carried(spec)
            && r.symbol.is_none()
            && r.hash.matches(symbols, path, current)
        {
            let entries = state.spec_reviews.entry(spec.clone()).or_default();
            let new = Review::new(&r.hash, r.blob.clone());
            if entries.get(path) != Some(&new) {
                if entries.insert(path.to_string(), new).is_some() {
                    *kept -= 1;
                }
                *added += 1;
            }
        }
    }
}

/// The paths of `keys` one of the sources names (a cache row, a cached
/// record, the committed state): only these need hashing.
fn named_by_a_source(
    root: &Path,
    keys: &BTreeSet<String>,
    (cached, records): (&HashMap<String, String>, &HashMap<String, Vec<Record>>),
    existing: &State,
) -> Vec<RepoPath> {
    let reviewed: BTreeSet<&str> = existing
        .spec_reviews
        .values()
        .flat_map(|e| e.keys().map(|k| record::split_key(k).0))
        .collect();
    let mut guard = Guard::new(root);
    keys.iter()
        .filter(|k| {
            cached.contains_key(*k)
                || records.contains_key(*k)
                || existing.fingerprint(k).is_some()
                || reviewed.contains(k.as_str())
        })
        .filter_map(|k| guard.resolve_unfollowed(k).ok())
        .collect()
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
    let base = choose_base(git, existing, None).ok().map(|(b, _)| b);
    let keys = snapshot_keys(git, existing, base.as_ref()).map_err(|e| io(e.to_string()))?;
    let mut line = Line::new(Some(git), base.as_ref());
    // A cache git tracks (or a submodule delivers) is not this machine's
    // word; of this machine's, only the rows made on this line of work
    // after the base (`super::line`).
    let (cached, records) = super::reconciled::trusted_cache(root, git)
        .map(|c| line.proven(&c, keys.iter().map(String::as_str)))
        .unwrap_or_default();
    let candidates = named_by_a_source(root, &keys, (&cached, &records), existing);
    let fs: Vec<PathBuf> = candidates.iter().map(|p| p.to_fs(root)).collect();
    let paths: Vec<&str> = candidates.iter().map(RepoPath::as_str).collect();
    // A record that predates the base is not kept for being there: only a
    // review recorded again (from the cache) keeps that content.
    let current_state = line.without_predating(git, existing.clone(), &paths);
    let at_base = line
        .base()
        .map(|b| super::reconciled::specs_as_at_base(git, b));
    let mut state = State {
        other: existing.other.clone(),
        drift_notes: existing.drift_notes.clone(),
        decisions: existing.decisions.clone(),
        ..State::empty()
    };
    carry_symbol_entries(&mut state, existing);
    let (mut added, mut kept) = (0, existing_count(&state));
    for (path, hash) in candidates.iter().zip(hashing::hash_many(&fs)) {
        let hash = hash.map_err(|e| io(format!("cannot read {path}: {e}")))?;
        let Some(current) = hash.cache_value() else {
            continue;
        };
        let path = path.as_str();
        let cached_records = records.get(path).map(Vec::as_slice).unwrap_or_default();
        let cached_every = cached_records.iter().find(|r| {
            r.scope == record::Scope::EverySpec
                && r.symbol.is_none()
                && r.hash.matches(git.symbols(), path, current)
        });
        let in_state = current_state.fingerprint(path) == Some(current);
        let every_spec =
            in_state || cached.get(path).is_some_and(|c| c == current) || cached_every.is_some();
        if every_spec {
            let cached_blob = cached_every.and_then(|r| r.blob.clone());
            keep_every_spec(&mut state, existing, (path, current), in_state, cached_blob);
            if in_state {
                kept += 1
            } else {
                added += 1
            }
            // Reviewed for every spec: the per-spec entries say no more,
            // but for a spec the branch changed, for which an every-spec
            // record does not count (`Reconciled::matches_for`).
            carry_spec_reviews(
                &mut state,
                &current_state,
                (path, current),
                cached_records,
                git.symbols(),
                (&mut added, &mut kept),
                &|spec| at_base.as_ref().is_some_and(|s| !s.contains(spec)),
            );
            continue;
        }
        // Reviewed for some specs only.
        carry_spec_reviews(
            &mut state,
            &current_state,
            (path, current),
            cached_records,
            git.symbols(),
            (&mut added, &mut kept),
            &|_| true,
        );
        // Reviewed in another content with the same program (issue 42).
        let now =
            || crate::safe_fs::read(root, Path::new(path), crate::changes::MAX_DIFF_FILE).ok();
        let candidate = super::reviewed_program::Candidate {
            path,
            cached: cached_records,
            committed: &current_state,
            now: &now,
        };
        let (more, still) = super::reviewed_program::keep_same_program(&mut state, git, &candidate);
        added += more;
        kept += still;
    }
    stamp_reviewed_again(&mut state, &line, git, &paths);
    let dropped = existing_count(existing).saturating_sub(kept);
    let (git_hash, branch) = head_of(git);
    stamp(&mut state, existing, git_hash.clone(), branch.clone());
    let summary = SnapshotSummary {
        path: STATE_FILE.into(),
        entries: existing_count(&state),
        added,
        dropped,
        git_hash,
        branch,
    };
    Ok((state, summary))
}

/// The records of `paths` the snapshot wrote from the cache that are the
/// merge base's own for an older content (they would quiet nothing): each
/// gets the merge base it was reviewed after ([`REVIEWED_AFTER`]), so it is
/// the branch's record, a claim `check` lists. Only cache reviews can be
/// such: the existing records that predate the base were not kept.
fn stamp_reviewed_again(state: &mut State, line: &Line<'_>, git: &GitRepo, paths: &[&str]) {
    let Some(base) = line.base() else {
        return;
    };
    let view = line.without_predating(git, state.clone(), paths);
    let after = serde_json::Value::String(base.to_string());
    for path in paths {
        if view.fingerprint_identity(path).is_none()
            && let Some(f) = state.file_fingerprints.get_mut(*path)
        {
            f.other.insert(REVIEWED_AFTER.into(), after.clone());
        }
        for (spec, entries) in &mut state.spec_reviews {
            if view.review_for(spec, path).is_none()
                && let Some(r) = entries.get_mut(*path)
            {
                r.other.insert(REVIEWED_AFTER.into(), after.clone());
            }
        }
    }
}

/// `path` reviewed for every spec with content `current`: its entry,
/// keeping what the old entry carried besides its hash (its unknown keys,
/// its blob id when the content is the same), or the cache's blob id.
fn keep_every_spec(
    state: &mut State,
    existing: &State,
    (path, current): (&str, &str),
    in_state: bool,
    cached_blob: Option<String>,
) {
    state.insert(path, current);
    let Some(new) = state.file_fingerprints.get_mut(path) else {
        return;
    };
    if let Some(old) = existing.file_fingerprints.get(path) {
        new.other = old.other.clone();
        if in_state {
            new.blob = old.blob.clone();
        }
    }
    if let Some(blob) = cached_blob {
        new.blob = Some(blob);
    }
}

/// The version that wrote the snapshot and the reconciliation it records
/// (now, at `HEAD`), keeping the old record's unknown keys.
fn stamp(state: &mut State, existing: &State, git_hash: Option<String>, branch: Option<String>) {
    state.cli_version = Some(env!("CARGO_PKG_VERSION").into());
    state.last_reconciliation = Some(LastReconciliation {
        timestamp: format!("{}Z", now_secs()),
        git_hash,
        branch,
        other: existing
            .last_reconciliation
            .as_ref()
            .map(|l| l.other.clone())
            .unwrap_or_default(),
    });
}

/// Entries of a state: per path, plus per spec and path.
fn existing_count(state: &State) -> usize {
    state.entries().len()
        + state
            .spec_reviews
            .values()
            .map(BTreeMap::len)
            .sum::<usize>()
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
