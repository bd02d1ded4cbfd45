//! The one rule of which review records may quiet a changed file or start
//! a "since reconciled" diff: a record must be proven made on this line of
//! work after the base (docs/quiet-verdicts.md, "Reviews that predate the
//! base").
//!
//! - This machine's hash cache: a row proves a review only when its
//!   `made_at` commit `C` (where `HEAD` was when it was recorded) has the
//!   merge base as an ancestor-or-equal and is itself an ancestor-or-equal
//!   of `HEAD` now. A review recorded on another branch, before the base,
//!   or before a rebase, an amend or a merge of the base proves nothing. A
//!   row recorded before the first commit (or outside git) proves a review
//!   only while there is still no commit; a row without `made_at` (written
//!   by an older build) never.
//! - The committed state: a record already in the merge base's state (the
//!   same key, the same hash) was made before the branch, and quiets a file
//!   only when it holds the file's content at the merge base too; otherwise
//!   it reviewed an older content the base moved away from, and says
//!   nothing about a branch that puts that content back. The records the
//!   branch adds are its claims (`check` lists them) and count.

use std::cell::OnceCell;

use super::*;

/// The line of work now: the merge base and `HEAD`, with the answers of
/// git's ancestry walks kept per pair of commits.
pub(crate) struct Line<'g> {
    repo: Option<&'g git2::Repository>,
    base: Option<git2::Oid>,
    head: Option<git2::Oid>,
    memo: HashMap<(git2::Oid, git2::Oid), bool>,
}

/// What `HEAD` is now, as a cache row's `made_at` names it: a commit id, or
/// [`crate::cache::UNBORN`] before the first commit (or without `git`).
pub fn head_stamp(git: Option<&GitRepo>) -> String {
    git.and_then(|g| g.raw().head().ok()?.peel_to_commit().ok())
        .map_or_else(|| crate::cache::UNBORN.to_string(), |c| c.id().to_string())
}

impl<'g> Line<'g> {
    /// The line of `git`'s `HEAD` from `base`'s merge base (`None`: no base,
    /// or no repository).
    pub(crate) fn new(git: Option<&'g GitRepo>, base: Option<&Base>) -> Line<'g> {
        let repo = git.map(GitRepo::raw);
        let head = repo
            .and_then(|r| r.head().ok()?.peel_to_commit().ok())
            .map(|c| c.id());
        Line {
            repo,
            base: base.and_then(|b| b.merge_base),
            head,
            memo: HashMap::new(),
        }
    }

    /// The merge base this line of work starts from.
    pub(crate) fn base(&self) -> Option<git2::Oid> {
        self.base
    }

    /// Whether `ancestor` is `descendant` or one of its ancestors.
    fn reaches(&mut self, ancestor: git2::Oid, descendant: git2::Oid) -> bool {
        if ancestor == descendant {
            return true;
        }
        let Some(repo) = self.repo else {
            return false;
        };
        *self.memo.entry((ancestor, descendant)).or_insert_with(|| {
            repo.graph_descendant_of(descendant, ancestor)
                .unwrap_or(false)
        })
    }

    /// Whether a cache row of `hash` whose `made_at` is `made_at` proves a
    /// review made on this line of work after the base.
    pub(crate) fn proves(&mut self, made_at: Option<&str>, hash: &str) -> bool {
        let Some(at) = crate::cache::made_at_commit(made_at, hash) else {
            return false;
        };
        let base = self.base;
        match (at, self.head) {
            (crate::cache::UNBORN, None) => base.is_none(),
            (crate::cache::UNBORN, Some(_)) | (_, None) => false,
            (commit, Some(head)) => {
                let Ok(commit) = git2::Oid::from_str(commit) else {
                    return false;
                };
                self.reaches(commit, head) && base.is_none_or(|b| self.reaches(b, commit))
            }
        }
    }

    /// The rows of `cache` for `keys` that [`Line::proves`]: the every-spec
    /// hashes and the records, by path.
    pub(crate) fn proven<'k>(
        &mut self,
        cache: &Cache,
        keys: impl IntoIterator<Item = &'k str>,
    ) -> (HashMap<String, String>, HashMap<String, Vec<Record>>) {
        let keys: Vec<&str> = keys.into_iter().collect();
        let hashes = cache
            .lookup(keys.iter().copied())
            .into_iter()
            .filter(|(_, c)| self.proves(c.made_at.as_deref(), &c.entry))
            .map(|(k, c)| (k, c.entry))
            .collect();
        let records = cache
            .lookup_records(keys.iter().copied())
            .into_iter()
            .map(|(k, rs)| {
                let rs: Vec<Record> = rs
                    .into_iter()
                    .filter(|c| self.proves(c.made_at.as_deref(), &c.entry.hash.value))
                    .map(|c| c.entry)
                    .collect();
                (k, rs)
            })
            .filter(|(_, rs)| !rs.is_empty())
            .collect();
        (hashes, records)
    }

    /// `state` without the records of `paths` it shares with the merge
    /// base's state and that do not hold the file's content at the merge
    /// base (they predate the base). A base state that cannot be read
    /// leaves none of those paths' records: nothing proves which are the
    /// branch's (more is shown, never less).
    pub(crate) fn without_predating(
        &self,
        git: &GitRepo,
        mut state: State,
        paths: &[&str],
    ) -> State {
        let Some(base) = self.base else {
            return state;
        };
        let reviewed: std::collections::HashSet<&str> = state
            .spec_reviews
            .values()
            .flat_map(|e| e.keys().map(String::as_str))
            .collect();
        let paths: Vec<&str> = paths
            .iter()
            .copied()
            .filter(|p| state.fingerprint(p).is_some() || reviewed.contains(p))
            .collect();
        if paths.is_empty() {
            // No committed record of these paths: nothing to tell apart.
            return state;
        }
        let base_state = match read_at(git, base) {
            Ok(loaded) => loaded.map(|l| l.state).unwrap_or_default(),
            Err(e) => {
                tracing::warn!("{e}; the committed reviews of the changed files are not used");
                for path in &paths {
                    drop_path(&mut state, path);
                }
                return state;
            }
        };
        let tree = git
            .raw()
            .find_commit(base)
            .and_then(|c| c.tree())
            .map_err(|e| tracing::warn!("the merge base {base}: {e}"))
            .ok();
        for path in &paths {
            let at_base = OnceCell::new();
            let content = || at_base.get_or_init(|| base_content(git, tree.as_ref(), path));
            if let Some(now) = state.fingerprint_identity(path)
                && base_state.fingerprint_identity(path) == Some(now)
                && !holds(&ContentHash::bytes(now.0), path, content())
            {
                state.spec_fingerprints.remove(*path);
                state.file_fingerprints.remove(*path);
            }
            for (spec, entries) in &mut state.spec_reviews {
                let inherited = entries.get(*path).is_some_and(|r| {
                    base_state.review_identity(spec, path) == Some(review_identity(r))
                        && !r.content_hash().is_some_and(|h| holds(&h, path, content()))
                });
                if inherited {
                    entries.remove(*path);
                }
            }
        }
        state
    }
}

impl State {
    /// The identity of the every-spec record of `path` (a file or a spec
    /// fingerprint), if any.
    pub fn fingerprint_identity(&self, path: &str) -> Option<Identity<'_>> {
        match self.spec_fingerprints.get(path) {
            Some(hash) => Some((hash, HashKind::Bytes.as_str(), None, None)),
            None => self.file_fingerprints.get(path).map(|f| {
                (
                    f.blake3.as_str(),
                    HashKind::Bytes.as_str(),
                    f.blob.as_deref(),
                    reviewed_after(&f.other),
                )
            }),
        }
    }

    /// The identity of the record of `key` (`path` or `path#symbol`) for
    /// `spec` alone, if any.
    pub fn review_identity(&self, spec: &str, key: &str) -> Option<Identity<'_>> {
        self.review_for(spec, key).map(review_identity)
    }
}

/// What makes two committed records the same record: the hash, its kind,
/// the blob id and the merge base a review was recorded after
/// ([`REVIEWED_AFTER`]). A record of the branch's state with the identity
/// of the merge base's is the base's own: no claim (`check`), and it quiets
/// only what it held at the base (`line.rs`).
pub type Identity<'a> = (&'a str, &'a str, Option<&'a str>, Option<&'a str>);

/// The key a snapshot adds to a record it writes again for a content the
/// base's state holds an older review of: the merge base the review was
/// recorded after, so the record is the branch's (a claim) and counts.
pub const REVIEWED_AFTER: &str = "reviewed_after";

/// A record's [`REVIEWED_AFTER`], from its unknown keys.
fn reviewed_after(other: &BTreeMap<String, serde_json::Value>) -> Option<&str> {
    other
        .get(REVIEWED_AFTER)
        .and_then(serde_json::Value::as_str)
}

/// The identity of `review`.
pub fn review_identity(review: &Review) -> Identity<'_> {
    (
        review.hash.as_str(),
        review.kind.as_str(),
        review.blob.as_deref(),
        reviewed_after(&review.other),
    )
}

/// The content of `path` at the merge base's `tree`: `Some(None)` when it
/// had no such file, `None` when it cannot be read (a submodule, an error).
fn base_content(
    git: &GitRepo,
    tree: Option<&git2::Tree<'_>>,
    path: &str,
) -> Option<Option<Vec<u8>>> {
    let entry = match tree?.get_path(Path::new(path)) {
        Ok(entry) => entry,
        Err(e) if e.code() == git2::ErrorCode::NotFound => return Some(None),
        Err(_) => return None,
    };
    let blob = git.raw().find_blob(entry.id()).ok()?;
    Some(Some(blob.content().to_vec()))
}

/// Whether `hash` is the hash of the base's content of `path` (a file the
/// base lacked: `deleted`); content that cannot be read holds nothing.
fn holds(hash: &ContentHash, path: &str, content: &Option<Option<Vec<u8>>>) -> bool {
    match content {
        Some(Some(bytes)) => hash.is_hash_of(path, bytes),
        Some(None) => hash.value == hashing::DELETED,
        None => false,
    }
}

/// Every committed record of `path` left out of `state`.
fn drop_path(state: &mut State, path: &str) {
    state.spec_fingerprints.remove(path);
    state.file_fingerprints.remove(path);
    for entries in state.spec_reviews.values_mut() {
        entries.remove(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::{UNBORN, made_at};

    /// A commit of `parent` with no changes, on `HEAD` or beside it.
    fn commit(repo: &git2::Repository, parent: Option<git2::Oid>, head: bool) -> git2::Oid {
        let message = format!("c {parent:?} {head}");
        let sig = git2::Signature::now("t", "t@t").unwrap();
        let tree = repo
            .find_tree(repo.index().unwrap().write_tree().unwrap())
            .unwrap();
        let parents: Vec<git2::Commit<'_>> = parent
            .map(|p| repo.find_commit(p).unwrap())
            .into_iter()
            .collect();
        let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
        let update = head.then_some("HEAD");
        repo.commit(update, &sig, &sig, &message, &tree, &refs)
            .unwrap()
    }

    #[test]
    fn a_row_proves_a_review_only_between_the_merge_base_and_head() {
        let dir = tempfile::tempdir().unwrap();
        let raw = git2::Repository::init(dir.path()).unwrap();
        let git = GitRepo::open(dir.path()).unwrap();
        assert!(
            Line::new(Some(&git), None).proves(Some(&made_at(UNBORN, "h")), "h"),
            "before the first commit, a row made then counts"
        );
        let old = commit(&raw, None, true);
        let base = commit(&raw, Some(old), true);
        let aside = commit(&raw, Some(base), false);
        let mid = commit(&raw, Some(base), true);
        commit(&raw, Some(mid), true);
        let at = Base {
            name: "main".into(),
            merge_base: Some(base),
        };
        let mut line = Line::new(Some(&git), Some(&at));
        let row = |c: git2::Oid| made_at(&c.to_string(), "h");
        assert!(line.proves(Some(&row(base)), "h"));
        assert!(line.proves(Some(&row(mid)), "h"));
        assert!(!line.proves(Some(&row(old)), "h"), "before the base");
        assert!(!line.proves(Some(&row(aside)), "h"), "another line of work");
        assert!(
            !line.proves(Some(&row(mid)), "other"),
            "vouches for its own hash"
        );
        assert!(!line.proves(None, "h"), "a row of schema 1");
        assert!(!line.proves(Some(&made_at(UNBORN, "h")), "h"));
        assert!(!line.proves(Some("nonsense h"), "h"));
    }
}
