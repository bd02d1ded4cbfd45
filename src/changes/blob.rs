//! A file's content at a commit, read through libgit2 and bounded: what
//! `notarai symbols --rev` and the symbol attribution of a diff's old side
//! read.

use git2::ObjectType;

use super::{Base, ChangeError, ChangeKind, ChangedFile, GitRepo, MAX_DIFF_FILE, Patch};

/// What reading a file at a commit found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlobRead {
    /// The file's bytes.
    Bytes(Vec<u8>),
    /// No such file in that commit (or not a file).
    Absent,
    /// Larger than the limit; not read.
    TooLarge(u64),
}

impl GitRepo {
    /// The content of `path` in the commit `rev` names (`HEAD~2`, a branch,
    /// a hash), read only when at most `limit` bytes.
    pub fn read_at(&self, rev: &str, path: &str, limit: u64) -> Result<BlobRead, ChangeError> {
        let object = self
            .repo
            .revparse_single(rev)
            .map_err(|_| ChangeError::BaseNotFound {
                base: rev.to_string(),
                branches: self.branch_names(),
            })?;
        let tree = object.peel_to_tree()?;
        Ok(self.read_in(&tree, path, limit))
    }

    /// The content of `path` at the merge base of `base` (absent when the
    /// base has none: everything is new then).
    pub fn read_at_base(&self, base: &Base, path: &str, limit: u64) -> BlobRead {
        let Some(oid) = base.merge_base else {
            return BlobRead::Absent;
        };
        match self.repo.find_commit(oid).and_then(|c| c.tree()) {
            Ok(tree) => self.read_in(&tree, path, limit),
            Err(_) => BlobRead::Absent,
        }
    }

    /// Both sides of `file`, each at most [`MAX_DIFF_FILE`] bytes: the
    /// merge base's content of its old path (empty when added or absent
    /// there) and the work tree's under `root` (empty when deleted).
    /// `None` when a side is too large or unreadable.
    pub fn both_sides(
        &self,
        root: &std::path::Path,
        base: &Base,
        file: &ChangedFile,
    ) -> Option<(Vec<u8>, Vec<u8>)> {
        let old_path = file.old_path.as_deref().unwrap_or(&file.path);
        let old = match (
            file.status,
            self.read_at_base(base, old_path, MAX_DIFF_FILE),
        ) {
            (ChangeKind::Added, _) | (_, BlobRead::Absent) => Vec::new(),
            (_, BlobRead::Bytes(bytes)) => bytes,
            (_, BlobRead::TooLarge(_)) => return None,
        };
        let new = if file.status == ChangeKind::Deleted {
            Vec::new()
        } else {
            crate::safe_fs::read(root, std::path::Path::new(&file.path), MAX_DIFF_FILE).ok()?
        };
        Some((old, new))
    }

    /// `file`'s change from the merge base of `base` to the work tree under
    /// `root` as a text patch, when git called it binary but both sides are
    /// UTF-8 text ([`super::text_patch_between`]); `None` otherwise.
    pub fn text_despite_binary(
        &self,
        root: &std::path::Path,
        base: &Base,
        file: &ChangedFile,
    ) -> Option<Patch> {
        let (old, new) = self.both_sides(root, base, file)?;
        super::text_patch_between(&file.path, &old, &new)
    }

    /// Whether `path` at the merge base of `base` holds exactly `content`,
    /// told by blob ids (git's hash of `content` against the base tree's
    /// entry), without reading the base's content.
    pub fn same_at_base(&self, base: &Base, path: &str, content: &[u8]) -> bool {
        let Some(oid) = base.merge_base else {
            return false;
        };
        let Ok(tree) = self.repo.find_commit(oid).and_then(|c| c.tree()) else {
            return false;
        };
        let Some((entry, kind)) = self.folders.entry(&self.repo, tree.id(), path) else {
            return false;
        };
        kind == Some(ObjectType::Blob)
            && git2::Oid::hash_object(ObjectType::Blob, content).is_ok_and(|id| id == entry)
    }

    fn read_in(&self, tree: &git2::Tree<'_>, path: &str, limit: u64) -> BlobRead {
        let Some((id, kind)) = self.folders.entry(&self.repo, tree.id(), path) else {
            return BlobRead::Absent;
        };
        if kind != Some(ObjectType::Blob) {
            return BlobRead::Absent;
        }
        // The size from the object header, before the content is loaded.
        let Ok(odb) = self.repo.odb() else {
            return BlobRead::Absent;
        };
        match odb.read_header(id) {
            Ok((size, _)) if size as u64 > limit => return BlobRead::TooLarge(size as u64),
            Ok(_) => {}
            Err(_) => return BlobRead::Absent,
        }
        match self.repo.find_blob(id) {
            Ok(blob) => BlobRead::Bytes(blob.content().to_vec()),
            Err(_) => BlobRead::Absent,
        }
    }
}
