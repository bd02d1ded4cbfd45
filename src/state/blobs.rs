//! The reviewed content kept in git's object store, so that a later diff
//! can start from it ("since reconciled").
//!
//! Recording a review names the git blob id of the content reviewed. When
//! that content is not in the object store yet (an uncommitted edit), it is
//! written there as a loose object through libgit2 (`Repository::blob`):
//! the one write notarai makes under `.git/`, and only into
//! `.git/objects`, as `git hash-object -w` would. Nothing else there is
//! touched; an unreferenced object is pruned by `git gc` in time.

use std::path::Path;

use crate::changes::{GitRepo, MAX_DIFF_FILE};

/// The blob id of `rel`'s content now, as git would store it (a symbolic
/// link: its target text), written to the object store when missing.
/// `None` for a file that is absent, not a file, reached through a linked
/// folder, larger than [`MAX_DIFF_FILE`] (never diffed), or when the object
/// store cannot be written (the diff then starts from the base).
pub fn store_reviewed(root: &Path, git: &GitRepo, rel: &str) -> Option<String> {
    let bytes = crate::safe_fs::read_unfollowed(root, rel, MAX_DIFF_FILE).ok()?;
    let repo = git.raw();
    let oid = git2::Oid::hash_object(git2::ObjectType::Blob, &bytes).ok()?;
    if repo.odb().is_ok_and(|odb| odb.exists(oid)) {
        return Some(oid.to_string());
    }
    if crate::safe_fs::writes_forbidden() {
        return None;
    }
    match repo.blob(&bytes) {
        Ok(oid) => Some(oid.to_string()),
        Err(e) => {
            tracing::warn!(
                "cannot keep the reviewed content of {rel} in git's object store ({}); its next diff starts from the base",
                e.message()
            );
            None
        }
    }
}

/// The content last reviewed that `blob` names, when a trusted source keeps
/// it, git's object store has it, and it hashes to its review (see
/// [`super::reconciled::ReviewedBlob`]).
pub fn reviewed_content(git: &GitRepo, blob: super::ReviewedBlob<'_>) -> Option<Vec<u8>> {
    blob.content(git)
}

/// The content of blob `id`, when the object store has it and it is a blob.
pub(super) fn blob_content(git: &GitRepo, id: &str) -> Option<Vec<u8>> {
    let oid = git2::Oid::from_str(id).ok()?;
    let blob = git.raw().find_blob(oid).ok()?;
    (blob.size() as u64 <= MAX_DIFF_FILE).then(|| blob.content().to_vec())
}
