//! The folders of committed trees, each read once: a file's entry at a
//! commit is found through the listings of the folders above it.
//!
//! libgit2's `git_tree_entry_bypath` loads every folder on the way from the
//! object database, and its object cache keeps no tree larger than 4 KiB
//! (about 130 entries), so the content of each changed file at the base
//! read the same large folders (a module's `src/`, 200 or 2,000 entries)
//! from the pack again, delta chains included, once per file: 80 µs a file
//! on the benchmark repository, 26 ms of `check`'s 321 files. A tree is
//! named by its content, so a listing kept by its id never goes stale;
//! the listings kept are bounded, and all dropped when the bound is hit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use git2::{ObjectType, Oid, Repository};

/// The most entries kept over all listings before they are dropped.
const MAX_ENTRIES: usize = 1_000_000;

/// One folder: each name's object id and kind.
type Listing = HashMap<Vec<u8>, (Oid, Option<ObjectType>)>;

/// Folder listings by tree id.
#[derive(Debug, Default)]
pub(super) struct Folders {
    kept: Mutex<(HashMap<Oid, Arc<Listing>>, usize)>,
}

impl Folders {
    /// The entry at `path` (slash-separated, relative) below the tree
    /// `tree`: its id and kind; `None` when there is none.
    pub(super) fn entry(
        &self,
        repo: &Repository,
        tree: Oid,
        path: &str,
    ) -> Option<(Oid, Option<ObjectType>)> {
        let mut at = (tree, Some(ObjectType::Tree));
        for name in path.split('/') {
            if name.is_empty() || at.1 != Some(ObjectType::Tree) {
                return None;
            }
            at = *self.listing(repo, at.0)?.get(name.as_bytes())?;
        }
        Some(at)
    }

    /// The listing of the tree `id`, read once.
    fn listing(&self, repo: &Repository, id: Oid) -> Option<Arc<Listing>> {
        if let Some(found) = self.lock().0.get(&id) {
            return Some(found.clone());
        }
        let tree = repo.find_tree(id).ok()?;
        let listing: Arc<Listing> = Arc::new(
            tree.iter()
                .map(|e| (e.name_bytes().to_vec(), (e.id(), e.kind())))
                .collect(),
        );
        let mut kept = self.lock();
        if kept.1 + listing.len() > MAX_ENTRIES {
            *kept = Default::default();
        }
        kept.1 += listing.len();
        kept.0.insert(id, listing.clone());
        Some(listing)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (HashMap<Oid, Arc<Listing>>, usize)> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_found_as_libgit2_finds_them() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::init(dir.path()).unwrap();
        let mut index = repo.index().unwrap();
        for (path, text) in [
            ("a.rs", "a"),
            ("src/b.rs", "b"),
            ("src/deep/c.rs", "c"),
            ("src-x/d.rs", "d"),
        ] {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(&full, text).unwrap();
            index.add_path(std::path::Path::new(path)).unwrap();
        }
        let tree_id = index.write_tree().unwrap();
        let tree = repo.find_tree(tree_id).unwrap();
        let folders = Folders::default();
        for path in [
            "a.rs",
            "src",
            "src/b.rs",
            "src/deep/c.rs",
            "src-x/d.rs",
            "src/none.rs",
            "a.rs/x",
            "src//b.rs",
            "",
            "nothing/here.rs",
        ] {
            let ours = folders.entry(&repo, tree_id, path);
            let theirs = tree
                .get_path(std::path::Path::new(path))
                .ok()
                .map(|e| (e.id(), e.kind()));
            assert_eq!(ours, theirs, "{path}");
        }
        // Read once: the second look finds the listing kept.
        assert_eq!(folders.lock().0.len(), 4);
    }
}
