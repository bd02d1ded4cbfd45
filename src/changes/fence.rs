//! The validity of what a fresh server computes before its watch is ready.
//!
//! The long-lived server opens its watch on a thread of its own when it
//! starts (`GitRepo::start_watch`); the first question usually comes before
//! the watch has added its last folder, so the watch cannot vouch for what
//! changed meanwhile. Instead, the question that begins then starts a
//! [`Fence`]: the moment it began, the stamps of git's own files and of the
//! configuration outside the repository git reads, every base resolved, and
//! the first whole-work-tree status computed from the disk with the stamp
//! (`lstat`: times, size, inode, mode) of every changed path. Its answers
//! are kept under the generation of that moment.
//!
//! The next question waits for the watch (opening since the server
//! started), drains what it queued, then computes the whole work tree's
//! status again and compares: the same changed paths, each with the same
//! stamp, git's files and the bases unchanged. A file not among the changed
//! paths then holds its base's content now as then, and a changed one has
//! not been written since it was stamped, so the work tree is as the kept
//! answers saw it: their generation holds, and from there the watch reports
//! every change. Anything else moves the generation: nothing kept before
//! is served. A file whose stamp is not older than the fence's start by
//! [`RACY`] (a write as the question began, within one tick of the kernel's
//! coarse clock) leaves the fence unconfirmable, as do a conflict and an
//! unnameable path.
//!
//! A status narrower than the whole work tree (a spec with a literal
//! prefix) is noted with its scope, and checked the same way against the
//! whole status of the check, cut to that scope. But what lies outside its
//! scope was not looked at, so a fence whose questions computed no whole
//! status (a module spec with nothing deleted) cannot be confirmed: the
//! whole status noted is what vouches for the files the answers read
//! outside their scope (other specs, the system spec). A spec with a
//! deleted file computes both (to find renames out of it), so its pages
//! are kept from the first answer on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use git2::{Oid, Repository};

use super::kept::Kept;
use super::repo::flush_attribute_cache;
use super::{Base, ChangeError, ChangeSet, GitRepo};
use crate::governance::Scope;
use crate::watch::Poll;

/// How much older than the fence's start a stamp must be. A file's times
/// come from the kernel's coarse clock (one tick: 4 ms at 250 Hz, 10 ms at
/// 100 Hz): a second write that keeps a file's stamp must fall within the
/// tick of the first, and the question read the file between them, after
/// the start; so a stamp older than the start by a tick cannot hide one.
/// Twice the longest tick.
const RACY: i128 = 20_000_000;

/// A file's `lstat`: modification and status change times (nanoseconds),
/// size, inode and mode; `None` when there is no file.
type FileStamp = Option<(i128, i128, u64, u64, u32)>;

/// What the answers computed before the watch was ready were made from.
#[derive(Debug)]
pub(super) struct Fence {
    /// When the first question under it began (nanoseconds since the epoch).
    start: i128,
    /// git's own files and the configuration outside the repository.
    git: Vec<(PathBuf, FileStamp)>,
    /// Every base resolved under the fence, with its merge base.
    bases: Vec<(String, Option<Oid>)>,
    /// Every status computed under it, in order: the tree of the first,
    /// which every later one shares, and each one's scope and changed paths.
    files: Option<(Option<Oid>, Vec<Noted>)>,
    /// Something was computed that the fence cannot vouch for.
    poisoned: bool,
}

impl Fence {
    /// A fence starting now.
    fn begin(repo: &Repository) -> Fence {
        Fence {
            start: nanos(std::time::SystemTime::now()),
            git: git_stamps(repo),
            bases: Vec::new(),
            files: None,
            poisoned: false,
        }
    }

    /// Note the status `set` computed (from the disk) over `scope`.
    fn record(&mut self, tree: Option<Oid>, scope: &Scope, set: &ChangeSet<'_>, workdir: &Path) {
        if self.poisoned {
            return;
        }
        let other_tree = self.files.as_ref().is_some_and(|(t, _)| *t != tree);
        if other_tree
            || set.conflicts.is_some()
            || !set.unnameable.is_empty()
            || (*scope == Scope::Everything && set.diffs.len() != 1)
        {
            self.poisoned = true;
            return;
        }
        let mut files = BTreeMap::new();
        for path in set.files.iter().flat_map(|f| f.paths()) {
            let stamp = file_stamp(&workdir.join(path));
            if stamp.is_some_and(|(m, c, ..)| m.max(c) > self.start - RACY) {
                tracing::debug!("fence: {path} was written as the question began");
                self.poisoned = true;
                return;
            }
            files.insert(path.to_string(), stamp);
        }
        let noted = Noted {
            scope: scope.clone(),
            files,
        };
        self.files
            .get_or_insert_with(|| (tree, Vec::new()))
            .1
            .push(noted);
    }

    /// Whether a whole-work-tree status was noted: only then can the
    /// fence be confirmed.
    fn has_whole(&self) -> bool {
        self.files
            .as_ref()
            .is_some_and(|(_, noted)| noted.iter().any(|n| n.scope == Scope::Everything))
    }
}

/// One status computed under a fence: its scope and the stamp of each
/// changed path in it.
#[derive(Debug)]
struct Noted {
    scope: Scope,
    files: BTreeMap<String, FileStamp>,
}

impl GitRepo {
    /// The generation a question beginning now runs under while the watch
    /// is being opened (a fence begun or going on), or `None` when the
    /// watch is settled (a fence confirmed or given up on the way).
    pub(super) fn fenced_generation(&self, kept: &mut Kept) -> Option<u64> {
        let used = match &kept.fence {
            None => {
                if kept.starting.is_some() && !kept.settle(false) {
                    kept.fence = Some(Fence::begin(&self.repo));
                    return Some(kept.generation);
                }
                return None;
            }
            Some(fence) => fence.files.is_some() || fence.poisoned,
        };
        if !used && !kept.settle(false) {
            return Some(kept.generation);
        }
        // Something was computed under the fence: wait for the watch,
        // opening since the server started, and check the fence.
        kept.settle(true);
        self.confirm_fence(kept);
        None
    }

    /// Note a base resolved while a fence stands.
    pub(super) fn fence_base(&self, base: &Base) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(fence) = kept.fence.as_mut()
            && !fence.bases.iter().any(|(name, _)| *name == base.name)
        {
            fence.bases.push((base.name.clone(), base.merge_base));
        }
    }

    /// With a fence standing: `true` when the watch is ready and the fence
    /// has a status to check (it is checked now; the watched path goes on),
    /// `false` to go on computing from the disk under it.
    pub(super) fn fence_settled(&self, kept: &mut Kept) -> bool {
        let recorded = kept.fence.as_ref().is_some_and(Fence::has_whole);
        if recorded && kept.settle(false) {
            self.confirm_fence(kept);
            return true;
        }
        false
    }

    /// The changes within `scope` from the disk, noted in the fence.
    pub(super) fn fenced_changes<'r>(
        &'r self,
        kept: &mut Kept,
        tree: Option<git2::Tree<'r>>,
        scope: &Scope,
        renames: bool,
    ) -> Result<ChangeSet<'r>, ChangeError> {
        let tree_id = tree.as_ref().map(|t| t.id());
        let set = self.compute_changes(tree, scope, renames)?;
        if let Some(fence) = kept.fence.as_mut() {
            fence.record(tree_id, scope, &set, &self.root);
        }
        Ok(set)
    }

    /// Check the fence once the watch is settled: its generation holds
    /// when the work tree is as it recorded; otherwise it moves. The
    /// status computed to check is kept (the watch was ready before it).
    fn confirm_fence(&self, kept: &mut Kept) {
        let Some(fence) = kept.fence.take() else {
            return;
        };
        if self.fence_holds(kept, &fence) {
            tracing::debug!("fence held: the answers kept before the watch stay valid");
        } else {
            tracing::debug!("fence broken: the answers kept before the watch are dropped");
            kept.generation += 1;
        }
    }

    /// Whether the work tree, the index, git's files and the bases are as
    /// `fence` recorded them.
    fn fence_holds(&self, kept: &mut Kept, fence: &Fence) -> bool {
        if fence.poisoned {
            return false;
        }
        let Some((tree_id, noted)) = fence.files.as_ref().filter(|_| fence.has_whole()) else {
            return false;
        };
        // What the watch queued so far is on the disk already, which is
        // compared below; only what it cannot tell by file is given up on.
        match kept.watch.as_mut().map(|w| w.poll(&self.repo)) {
            Some(Some(Poll::Unchanged | Poll::Files(_))) => {}
            Some(Some(Poll::Everything)) => {
                flush_attribute_cache(&self.repo);
                return false;
            }
            Some(None) => {
                kept.watch = None;
                return false;
            }
            None => return false,
        }
        if git_stamps(&self.repo) != fence.git {
            return false;
        }
        let moved = |(name, merge_base): &(String, Option<Oid>)| {
            self.resolve_base_now(name)
                .map_or(true, |b| b.merge_base != *merge_base)
        };
        if fence.bases.iter().any(moved) {
            return false;
        }
        let index_stamp = crate::watch::stamp(&self.repo.path().join("index"));
        let tree = tree_id.and_then(|id| self.repo.find_tree(id).ok());
        if tree.is_none() != tree_id.is_none() {
            return false;
        }
        let Ok(now) = self.compute_changes(tree, &Scope::Everything, false) else {
            return false;
        };
        let paths: Vec<&str> = now.files.iter().flat_map(|f| f.paths()).collect();
        let as_noted = |n: &Noted| {
            let within: std::collections::BTreeSet<&str> = paths
                .iter()
                .copied()
                .filter(|p| n.scope.contains(p))
                .collect();
            within.len() == n.files.len()
                && within.iter().all(|p| {
                    n.files
                        .get(*p)
                        .is_some_and(|s| *s == file_stamp(&self.root.join(p)))
                })
        };
        let same =
            now.conflicts.is_none() && now.unnameable.is_empty() && noted.iter().all(as_noted);
        if now.conflicts.is_none() && now.diffs.len() == 1 {
            kept.keep(*tree_id, false, index_stamp, &now);
        }
        kept.index_stamp = index_stamp;
        same
    }
}

/// The stamps of git's own files a status or a base depends on (the
/// index, `HEAD` and the branch it names, the refs packed, the config and
/// the exclude file) and of the files outside the repository git reads.
fn git_stamps(repo: &Repository) -> Vec<(PathBuf, FileStamp)> {
    let git = repo.path();
    let common = repo.commondir();
    let mut paths = vec![
        git.join("index"),
        git.join("HEAD"),
        common.join("packed-refs"),
        common.join("config"),
        common.join("info").join("exclude"),
        git.join("config.worktree"),
    ];
    if let Ok(head) = repo.find_reference("HEAD")
        && let Ok(Some(target)) = head.symbolic_target()
        && target.starts_with("refs/")
    {
        paths.push(common.join(target));
    }
    paths.extend(crate::watch::outside_files(repo));
    paths
        .into_iter()
        .map(|p| {
            let s = file_stamp(&p);
            (p, s)
        })
        .collect()
}

/// The [`FileStamp`] of `path`, not following a link.
fn file_stamp(path: &Path) -> FileStamp {
    let meta = std::fs::symlink_metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let time = |s: i64, ns: i64| i128::from(s) * 1_000_000_000 + i128::from(ns);
        Some((
            time(meta.mtime(), meta.mtime_nsec()),
            time(meta.ctime(), meta.ctime_nsec()),
            meta.size(),
            meta.ino(),
            meta.mode(),
        ))
    }
    #[cfg(not(unix))]
    {
        let modified = meta.modified().map_or(0, nanos);
        Some((modified, modified, meta.len(), 0, 0))
    }
}

/// `time` in nanoseconds since the epoch.
fn nanos(time: std::time::SystemTime) -> i128 {
    time.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}
