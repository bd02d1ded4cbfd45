//! "Is this content reconciled?": the local hash cache (when git does not
//! track it) and the committed state, per spec, answered as one.

use std::collections::HashSet;

use super::*;

/// The two sources of "reconciled": the local hash cache and the committed
/// state. A file is reconciled for spec S when its current content is in a
/// record for S or for every spec, in either source (see [`crate::record`]),
/// that the one rule of [`super::line`] lets count: a cache row made on this
/// line of work after the merge base, a committed record the branch added
/// (or one the merge base's state has that holds the base's content too).
///
/// The content a review names by its blob id (where "since reconciled"
/// diffs start) is taken only from this machine's cache, from a row that
/// rule proves, never from the committed state (a record of the base's state
/// that differs from the base's content is the older content the base moved
/// away from; a record the branch wrote is its own claim), and only when it
/// hashes to that review.
#[derive(Debug, Default)]
pub struct Reconciled {
    cache: HashMap<String, String>,
    records: HashMap<String, Vec<Record>>,
    state: State,
    /// The spec files whose content is the merge base's: a review recorded
    /// for every spec counts only for these ([`Reconciled::matches_for`]).
    /// `None` without a line of work to judge against.
    at_base: Option<HashSet<String>>,
}

impl Reconciled {
    /// Look up `paths` in the cache and read the state file (leniently),
    /// without git: no base, and a cache row proves a review only if it was
    /// made outside git too.
    pub fn lookup<'k>(root: &Path, paths: impl IntoIterator<Item = &'k str>) -> Reconciled {
        Reconciled::new(
            Some(Cache::open_read(root)),
            None,
            None,
            paths,
            read_lenient(root),
        )
    }

    /// Sources for `paths` from `cache` (`None`: a cache not to be trusted,
    /// such as one git tracks) and `state`, judged against the line of work
    /// of `git`'s `HEAD` from `base` ([`super::line`]).
    pub fn new<'k>(
        cache: Option<Cache>,
        git: Option<&GitRepo>,
        base: Option<&Base>,
        paths: impl IntoIterator<Item = &'k str>,
        state: State,
    ) -> Reconciled {
        let paths: Vec<&str> = paths.into_iter().collect();
        let mut line = super::line::Line::new(git, base);
        let (cache, records) = match cache {
            Some(c) => line.proven(&c, paths.iter().copied()),
            None => Default::default(),
        };
        let state = match git {
            Some(git) => line.without_predating(git, state, &paths),
            None => state,
        };
        let at_base = git
            .zip(line.base())
            .map(|(git, base)| specs_as_at_base(git, base));
        Reconciled {
            cache,
            records,
            state,
            at_base,
        }
    }

    /// Sources for `paths` with this state instead of the file on disk; the
    /// cache only when git does not track it (as [`Reconciled::trusted`]).
    pub fn with_state<'k>(
        root: &Path,
        git: &GitRepo,
        base: Option<&Base>,
        paths: impl IntoIterator<Item = &'k str>,
        state: State,
    ) -> Reconciled {
        Reconciled::new(trusted_cache(root, git), Some(git), base, paths, state)
    }

    /// Whether `path`, whose fingerprint now is `current` (a hash or
    /// `deleted`), was reviewed in this content for every spec.
    pub fn matches(&self, path: &str, current: &str) -> bool {
        self.cache.get(path).is_some_and(|c| c == current)
            || self.state.fingerprint(path) == Some(current)
    }

    /// Whether `path` (fingerprint now `current`) was reviewed in this
    /// content for `spec`: a record for every spec, or one for `spec`
    /// itself. A record for another spec never counts. A record for every
    /// spec counts only while `spec`'s file is as at the merge base: it
    /// proves a content read against the specs governing it then, not
    /// against a spec the branch added or changed.
    pub fn matches_for(&self, kept: &SymbolCache, spec: &str, path: &str, current: &str) -> bool {
        let every = spec == path || self.at_base.as_ref().is_none_or(|s| s.contains(spec));
        (every && self.matches(path, current))
            || self.records.get(path).is_some_and(|rs| {
                rs.iter().any(|r| {
                    r.symbol.is_none()
                        && r.scope.key() == spec
                        && r.hash.matches(kept, path, current)
                })
            })
            || self
                .state
                .review_for(spec, path)
                .is_some_and(|r| r.matches(kept, path, current))
    }

    /// Where the content of `path` last reviewed for `spec` (or for every
    /// spec) may be found, for "since reconciled" diffs: `None` when no
    /// proven cache row names one. Read it with [`super::reviewed_content`],
    /// which checks it hashes to its review.
    pub fn reviewed_blob<'a>(&'a self, spec: &'a str, path: &'a str) -> Option<ReviewedBlob<'a>> {
        self.records
            .get(path)
            .is_some_and(|rs| rs.iter().any(|r| r.blob.is_some()))
            .then_some(ReviewedBlob {
                known: self,
                spec,
                path,
            })
    }

    /// Each review of `path` for `spec` that keeps a blob, with the hash
    /// the blob must have, in order: for the spec, then for every spec;
    /// from this machine's cache only (its proven rows). The committed
    /// state is never asked: its records are the base's (an older content
    /// than the base's, when they differ) or the branch's own.
    fn blob_candidates(&self, spec: &str, path: &str) -> Vec<(String, ContentHash)> {
        let mut out: Vec<(String, ContentHash)> = Vec::new();
        for key in [spec, ""] {
            out.extend(
                self.records
                    .get(path)
                    .into_iter()
                    .flatten()
                    .filter_map(|r| {
                        (r.symbol.is_none() && r.scope.key() == key)
                            .then(|| Some((r.blob.clone()?, r.hash.clone())))
                            .flatten()
                    }),
            );
        }
        out
    }
}

impl Reconciled {
    /// Every content of `path` a proven review for `spec` (or for every
    /// spec) names by its blob, read from git's object store and checked to
    /// hash to its review: this machine's proven cache rows, then the
    /// committed records [`super::line`] lets count (the branch's claims,
    /// and the base's records that hold the base's content). Unlike
    /// [`Reconciled::reviewed_blob`] (where a "since reconciled" diff
    /// starts), the committed state is asked: the rule that uses these
    /// (`review::symbolic::reviewed`) quiets a file only when its content
    /// now has the same program as one of them, and a record that counts
    /// covered the change from the base to the content it names. A blob
    /// the store lacks, or that does not hash to its review, is left out.
    pub fn proven_contents(&self, git: &GitRepo, spec: &str, path: &str) -> Vec<Vec<u8>> {
        let mut candidates = self.blob_candidates(spec, path);
        if let Some(r) = self.state.review_for(spec, path)
            && let (Some(blob), Some(hash)) = (&r.blob, r.content_hash())
        {
            candidates.push((blob.clone(), hash));
        }
        if let Some(f) = self.state.file_fingerprints.get(path)
            && let Some(blob) = &f.blob
        {
            candidates.push((blob.clone(), ContentHash::bytes(&f.blake3)));
        }
        candidates.sort_by(|a, b| a.0.cmp(&b.0));
        candidates.dedup();
        candidates
            .into_iter()
            .filter_map(|(id, hash)| {
                let content = super::blobs::blob_content(git, &id)?;
                hash.is_hash_of(path, &content).then_some(content)
            })
            .collect()
    }
}

/// The reviewed content a "since reconciled" diff of one file for one
/// spec may start from ([`Reconciled::reviewed_blob`]).
#[derive(Debug, Clone, Copy)]
pub struct ReviewedBlob<'a> {
    known: &'a Reconciled,
    spec: &'a str,
    path: &'a str,
}

impl ReviewedBlob<'_> {
    /// The first candidate whose blob git's object store has and whose
    /// content hashes to the review naming it; `None` otherwise (the diff
    /// then starts from the base: more is shown, never less).
    pub(super) fn content(&self, git: &GitRepo) -> Option<Vec<u8>> {
        self.known
            .blob_candidates(self.spec, self.path)
            .into_iter()
            .find_map(|(id, hash)| {
                let content = super::blobs::blob_content(git, &id)?;
                if hash.is_hash_of(self.path, &content) {
                    Some(content)
                } else {
                    tracing::warn!(
                        "the reviewed blob {id} of {} does not hash to its review; not used",
                        crate::quote::for_model(self.path)
                    );
                    None
                }
            })
    }
}

impl Reconciled {
    /// The cache for `paths` when it can be trusted (`None` when git tracks
    /// it: a cache that came with the repository could mark the branch's own
    /// changes as reviewed), and the committed state of `root` (leniently),
    /// judged against the line of work from `base` ([`Reconciled::new`]).
    pub fn trusted<'k>(
        root: &Path,
        git: &GitRepo,
        base: Option<&Base>,
        paths: impl IntoIterator<Item = &'k str>,
    ) -> Reconciled {
        Reconciled::new(
            trusted_cache(root, git),
            Some(git),
            base,
            paths,
            read_lenient(root),
        )
    }

    /// Whether each of the changed files `paths` is reconciled for every
    /// spec in its current content, in order (see [`Reconciled::judge_specs`]).
    pub fn judge<S: AsRef<str> + Sync>(
        &self,
        root: &Path,
        git: Option<&GitRepo>,
        paths: &[S],
    ) -> Result<Vec<bool>, String> {
        self.judge_tracked(root, git, paths, &Progress::none())
            .map_err(|e| e.to_string())
    }

    /// [`Reconciled::judge`], each path hashed advancing `progress`; a
    /// cancel stops it.
    fn judge_tracked<S: AsRef<str> + Sync>(
        &self,
        root: &Path,
        git: Option<&GitRepo>,
        paths: &[S],
        progress: &Progress,
    ) -> Result<Vec<bool>, JudgeError> {
        let none: Vec<Vec<String>> = vec![Vec::new(); paths.len()];
        Ok(self
            .judge_specs(root, git, paths, &none, progress)?
            .into_iter()
            .map(|v| v[0])
            .collect())
    }

    /// For each of the changed files `paths`, whether it is reconciled in
    /// its current content for each spec of `specs[i]` (the specs governing
    /// it), in order; for a path no spec governs, one answer: reviewed for
    /// every spec (or, for a spec file, for itself). The one judgement
    /// behind `list_affected_specs`' counts, `get_reconciliation_status`
    /// and `notarai check`. A file is hashed as git sees it (never through a
    /// symbolic link; a deleted file is `deleted`; with `git`, a file the
    /// index marks skip-worktree is its staged content); what is not a file
    /// (a folder where a file was) is not reconciled.
    pub fn judge_specs<S: AsRef<str> + Sync, T: AsRef<str>>(
        &self,
        root: &Path,
        git: Option<&GitRepo>,
        paths: &[S],
        specs: &[Vec<T>],
        progress: &Progress,
    ) -> Result<Vec<Vec<bool>>, JudgeError> {
        // A file outside a sparse checkout is its staged content, not deleted.
        let rels: Vec<&str> = paths.iter().map(AsRef::as_ref).collect();
        let mut staged = git
            .map(|g| g.skip_worktree_hashes(&rels))
            .unwrap_or_default();
        let hashes = hashing::hash_many_tracked(root, &rels, progress);
        let own = SymbolCache::new();
        let kept = git.map_or(&own, GitRepo::symbols);
        progress.check().map_err(JudgeError::Cancelled)?;
        rels.iter()
            .zip(hashes)
            .zip(specs)
            .map(|((path, hash), specs)| {
                let hash = match staged.remove(*path) {
                    Some(staged) => staged,
                    None => hash.map_err(|e| JudgeError::Io(format!("cannot read {path}: {e}")))?,
                };
                let current = hash.cache_value();
                Ok(if specs.is_empty() {
                    vec![current.is_some_and(|c| self.matches_for(kept, path, path, c))]
                } else {
                    specs
                        .iter()
                        .map(|s| {
                            current.is_some_and(|c| self.matches_for(kept, s.as_ref(), path, c))
                        })
                        .collect()
                })
            })
            .collect()
    }
}

/// The spec files (`.notarai/**.spec.yaml`) of the merge base `base`
/// whose work-tree content is the same blob; a long-lived server keeps the
/// answer while its watch vouches for the spec folders (issue 43: every
/// spec file read and hashed on every question).
pub(crate) fn specs_as_at_base(git: &GitRepo, base: git2::Oid) -> HashSet<String> {
    git.kept_while_watched(base, || read_specs_as_at_base(git, base))
}

/// [`specs_as_at_base`] read from the disk, with the folders it read in.
fn read_specs_as_at_base(git: &GitRepo, base: git2::Oid) -> (HashSet<String>, Vec<String>) {
    let mut folders = vec![crate::layout::SPEC_DIR.to_string()];
    let out = spec_blobs_as_at_base(git, base, &mut folders);
    folders.sort();
    folders.dedup();
    (out, folders)
}

/// The walk behind [`read_specs_as_at_base`]; each folder a spec of the
/// merge base lies in is added to `folders`.
fn spec_blobs_as_at_base(
    git: &GitRepo,
    base: git2::Oid,
    folders: &mut Vec<String>,
) -> HashSet<String> {
    let mut out = HashSet::new();
    let repo = git.raw();
    let Some(root) = repo.workdir() else {
        return out;
    };
    let Some(tree) = repo
        .find_commit(base)
        .and_then(|c| c.tree())
        .ok()
        .and_then(|t| t.get_path(Path::new(".notarai")).ok())
        .and_then(|e| repo.find_tree(e.id()).ok())
    else {
        return out;
    };
    let _ = tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        let path = format!(".notarai/{dir}{}", entry.name().unwrap_or_default());
        if entry.kind() == Some(git2::ObjectType::Blob) && crate::spec::is_spec_path(&path) {
            folders.push(format!(".notarai/{dir}").trim_end_matches('/').to_string());
        }
        if entry.kind() == Some(git2::ObjectType::Blob)
            && crate::spec::is_spec_path(&path)
            && crate::safe_fs::read(root, Path::new(&path), crate::changes::MAX_DIFF_FILE)
                .ok()
                .and_then(|b| git2::Oid::hash_object(git2::ObjectType::Blob, &b).ok())
                == Some(entry.id())
        {
            out.insert(path);
        }
        git2::TreeWalkResult::Ok
    });
    out
}

/// Why [`Reconciled::judge_specs`] gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// A file could not be read.
    #[error("{0}")]
    Io(String),
    /// The caller cancelled the work.
    #[error("{0}")]
    Cancelled(Cancelled),
}

impl crate::error::Diagnose for JudgeError {}

/// The local cache, unless git tracks it: a cache that came with the
/// repository could mark the branch's own changes as reconciled, so it is
/// ignored (with a warning) and the answer is as on a cold cache.
pub(super) fn trusted_cache(root: &Path, git: &GitRepo) -> Option<Cache> {
    let tracked = git.tracked_cache_files();
    if tracked.is_empty() {
        Some(Cache::open_read(root))
    } else {
        tracing::warn!("{}", crate::changes::tracked_cache_message(&tracked));
        None
    }
}
