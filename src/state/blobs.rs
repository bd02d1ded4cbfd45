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

/// The blob id of each of `rels`' content now, in order, as git would
/// store it (a symbolic link: its target text), written to the object
/// store when missing. `None` for a file that is absent, not a file,
/// reached through a linked folder, larger than [`MAX_DIFF_FILE`] (never
/// diffed), or when the object store cannot be written (the diff then
/// starts from the base). The contents are read and hashed on every core;
/// each id is looked for in the object store (and a missing content read
/// again and written) on this thread, which holds the repository.
pub fn store_all_reviewed(root: &Path, git: &GitRepo, rels: &[&str]) -> Vec<Option<String>> {
    let ids = crate::parallel::map(
        rels,
        64,
        |rel| {
            let bytes = crate::safe_fs::read_unfollowed(root, rel, MAX_DIFF_FILE).ok()?;
            git2::Oid::hash_object(git2::ObjectType::Blob, &bytes).ok()
        },
        |_| None,
    );
    let odb = git.raw().odb().ok();
    rels.iter()
        .zip(ids)
        .map(|(rel, id)| {
            let id = id?;
            if odb.as_ref().is_some_and(|odb| odb.exists(id)) {
                return Some(id.to_string());
            }
            write_reviewed(root, git, rel)
        })
        .collect()
}

/// Write `rel`'s content now to the object store (read again: it may have
/// changed since it was hashed, and the id written is what it holds now).
fn write_reviewed(root: &Path, git: &GitRepo, rel: &str) -> Option<String> {
    if crate::safe_fs::writes_forbidden() {
        return None;
    }
    let bytes = crate::safe_fs::read_unfollowed(root, rel, MAX_DIFF_FILE).ok()?;
    match git.raw().blob(&bytes) {
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
