//! The inotify side of the watch (Linux): one instance, a watch on every
//! folder git looks into, and what reading its queue without waiting says.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

use super::{MAX_RECHECKED, Poll, Watch};
use crate::walk::{self, Kind};

/// Everything that may change what git reports about a folder's entries.
const MASK: WatchMask = WatchMask::CREATE
    .union(WatchMask::DELETE)
    .union(WatchMask::MODIFY)
    .union(WatchMask::CLOSE_WRITE)
    .union(WatchMask::ATTRIB)
    .union(WatchMask::MOVED_FROM)
    .union(WatchMask::MOVED_TO)
    .union(WatchMask::DELETE_SELF)
    .union(WatchMask::MOVE_SELF)
    .union(WatchMask::DONT_FOLLOW)
    .union(WatchMask::ONLYDIR);

/// Names whose change alters which files git ignores or how it reads them.
const RULE_FILES: [&[u8]; 3] = [b".gitignore", b".gitattributes", b".gitmodules"];

/// What reading the queue found.
pub(super) enum Drained {
    /// No event.
    Nothing,
    /// Something changed; `new_dirs` were created and are not watched
    /// yet; `index_changed` when the index was written; `everything`
    /// when more than the files named in `files` may have changed;
    /// `created` the files among them created or moved in.
    Changed {
        new_dirs: Vec<PathBuf>,
        index_changed: bool,
        everything: bool,
        files: Vec<PathBuf>,
        created: Vec<PathBuf>,
    },
    /// The watch set itself is no longer right: rebuild it.
    Rebuild,
}

/// An inotify instance, its watches, and the files re-checked on every
/// question.
#[derive(Debug)]
pub(super) struct Tree {
    inotify: Inotify,
    /// Watch descriptor to folder.
    dirs: HashMap<WatchDescriptor, PathBuf>,
    /// The folders watched.
    watched: HashSet<PathBuf>,
    /// The git folders' watch descriptors.
    git_wds: HashSet<WatchDescriptor>,
    /// Folders (relative to the work tree) holding tracked files.
    tracked_dirs: HashSet<Vec<u8>>,
    /// Files a folder's events cannot vouch for (another hard link):
    /// diffed again on every question.
    rechecked: BTreeSet<PathBuf>,
}

impl Tree {
    pub(super) fn new() -> Option<Tree> {
        let inotify = Inotify::init()
            .map_err(|e| tracing::debug!("cannot start inotify: {e}; answering from the disk"))
            .ok()?;
        Some(Tree {
            inotify,
            dirs: HashMap::new(),
            watched: HashSet::new(),
            git_wds: HashSet::new(),
            tracked_dirs: HashSet::new(),
            rechecked: BTreeSet::new(),
        })
    }

    /// Remove every watch (by closing and opening the instance again).
    /// The walk that follows finds the re-checked files again.
    pub(super) fn reset(&mut self) -> Option<()> {
        let mut fresh = Tree::new()?;
        fresh.tracked_dirs = std::mem::take(&mut self.tracked_dirs);
        *self = fresh;
        Some(())
    }

    /// Drop every watch and watch the git folders (the common one of a
    /// linked worktree too), the work tree and every folder holding a
    /// tracked file afresh. `None` when the repository has a submodule (its
    /// work tree changes what the superproject reports and is not watched
    /// here: no kept status then) or a watch fails.
    pub(super) fn rebuild(&mut self, repo: &git2::Repository) -> Option<()> {
        let index = repo.index().ok()?;
        if index.iter().any(|e| e.mode == 0o160000) {
            return None;
        }
        self.reset()?;
        self.watch_git_dir(repo.path())?;
        if repo.commondir() != repo.path() {
            self.watch_git_dir(repo.commondir())?;
        }
        let workdir = repo.workdir()?.to_path_buf();
        self.tracked_dirs = tracked_dirs(&index);
        self.watch_tree(repo, &workdir)?;
        self.watch_tracked_dirs(repo)
    }

    /// Whether `dir` is one of the folders watched.
    pub(super) fn covers(&self, dir: &Path) -> bool {
        self.watched.contains(dir)
    }

    fn add(&mut self, dir: &Path) -> Option<WatchDescriptor> {
        match self.inotify.watches().add(dir, MASK) {
            Ok(wd) => {
                self.dirs.insert(wd.clone(), dir.to_path_buf());
                self.watched.insert(dir.to_path_buf());
                Some(wd)
            }
            Err(e) => {
                tracing::debug!(
                    "cannot watch {}: {e}; answering from the disk",
                    dir.display()
                );
                None
            }
        }
    }

    /// Watch every folder holding a tracked file that is not watched yet.
    pub(super) fn watch_tracked_dirs(&mut self, repo: &git2::Repository) -> Option<()> {
        let workdir = repo.workdir()?.to_path_buf();
        let missing: Vec<PathBuf> = self
            .tracked_dirs
            .iter()
            .map(|rel| workdir.join(std::ffi::OsStr::from_bytes(rel)))
            .filter(|dir| !self.watched.contains(dir) && dir.is_dir())
            .collect();
        for dir in missing {
            self.add(&dir)?;
        }
        Some(())
    }

    /// Watch a git folder and its `info/` (exclude rules).
    pub(super) fn watch_git_dir(&mut self, git_dir: &Path) -> Option<()> {
        let wd = self.add(git_dir)?;
        self.git_wds.insert(wd);
        let info = git_dir.join("info");
        if info.is_dir() {
            let wd = self.add(&info)?;
            self.git_wds.insert(wd);
        }
        Some(())
    }

    /// Watch `dir` and every folder below it that git looks into, found
    /// by the one walker; the files found with another hard link are
    /// re-checked on every question.
    pub(super) fn watch_tree(&mut self, repo: &git2::Repository, dir: &Path) -> Option<()> {
        let workdir = repo.workdir()?.to_path_buf();
        let git_dir = repo.path().to_path_buf();
        let rel = dir.strip_prefix(&workdir).ok()?.to_str()?.to_string();
        if !rel.is_empty() {
            // A folder created later may be one the walker skips or git
            // ignores: not watched.
            let (parent, name) = match rel.rsplit_once('/') {
                Some((parent, name)) => (parent.rsplit('/').next(), name),
                None => (None, rel.as_str()),
            };
            if walk::skips_folder(parent, name)
                || (!self.tracked_dirs.contains(rel.as_bytes())
                    && repo.is_path_ignored(&rel).unwrap_or(false))
            {
                return Some(());
            }
        }
        let mut folders = vec![dir.to_path_buf()];
        let tracked = &self.tracked_dirs;
        let listing = walk::walk(dir, &rel, usize::MAX, |entry| {
            let descend = !entry.path.starts_with(&git_dir)
                && (tracked.contains(entry.rel.as_bytes())
                    || !repo.is_path_ignored(&entry.rel).unwrap_or(false));
            if descend {
                folders.push(entry.path.clone());
            }
            descend
        });
        if listing.not_utf8.iter().any(|p| p.is_dir()) {
            tracing::debug!("a folder name is not UTF-8; answering from the disk");
            return None;
        }
        for folder in folders {
            self.add(&folder)?;
        }
        let files: Vec<&PathBuf> = listing
            .entries
            .iter()
            .filter(|e| e.kind == Kind::File)
            .map(|e| &e.path)
            .collect();
        let linked = crate::parallel::map(&files, 4096, |path| linked_elsewhere(path), |_| true);
        for (path, linked) in files.into_iter().zip(linked) {
            if linked {
                self.rechecked.insert(path.clone());
            }
        }
        Some(())
    }

    /// Read every queued event without waiting.
    pub(super) fn drain(&mut self) -> Drained {
        let mut found = Found::default();
        let mut buf = [0u8; 16384];
        loop {
            let events = match self.inotify.read_events(&mut buf) {
                Ok(events) => events,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => {
                    tracing::debug!("cannot read inotify events: {e}; watching again");
                    found.rebuild = true;
                    break;
                }
            };
            for event in events {
                let name = event.name.map(|n| n.as_bytes()).unwrap_or_default();
                if self.skipped_folder(&event.wd, event.mask, name) {
                    continue;
                }
                found.changed = true;
                self.note(&mut found, &event.wd, event.mask, name, event.cookie);
            }
        }
        found.into_drained()
    }

    /// What one event (on the folder `wd`, about its entry `name`, `""` for
    /// the folder itself) says, added to `found`; the re-checked files
    /// follow their renames and removals.
    /// Whether the event is about a folder the walker skips (the cache
    /// folder, created by a write of notarai's own): nothing git sees.
    fn skipped_folder(&self, wd: &WatchDescriptor, mask: EventMask, name: &[u8]) -> bool {
        mask.contains(EventMask::ISDIR)
            && self.dirs.get(wd).is_some_and(|parent| {
                std::str::from_utf8(name).is_ok_and(|name| {
                    walk::skips_folder(parent.file_name().and_then(|n| n.to_str()), name)
                })
            })
    }

    fn note(
        &mut self,
        found: &mut Found,
        wd: &WatchDescriptor,
        mask: EventMask,
        name: &[u8],
        cookie: u32,
    ) {
        if mask.intersects(
            EventMask::Q_OVERFLOW
                | EventMask::IGNORED
                | EventMask::DELETE_SELF
                | EventMask::MOVE_SELF,
        ) || RULE_FILES.contains(&name)
        {
            found.rebuild = true;
            return;
        }
        if self.git_wds.contains(wd) {
            // `info/` created, rules in `info/` or the configuration
            // changed: rebuild; the index: see which folders hold tracked
            // files now.
            if name == b"info"
                || name.starts_with(b"config")
                || self.dirs.get(wd).is_some_and(|d| d.ends_with("info"))
            {
                found.rebuild = true;
            }
            found.index_changed |= name == b"index";
            found.everything = true;
            return;
        }
        let Some(parent) = self.dirs.get(wd) else {
            found.everything = true;
            return;
        };
        let path = parent.join(std::ffi::OsStr::from_bytes(name));
        if mask.contains(EventMask::ISDIR) || name.is_empty() {
            found.everything = true;
            if mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
                found.new_dirs.push(path);
            }
            return;
        }
        if mask.contains(EventMask::MOVED_FROM) && self.rechecked.remove(&path) {
            found.moved_rechecked.insert(cookie);
        }
        if mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
            if mask.contains(EventMask::MOVED_TO) && found.moved_rechecked.contains(&cookie) {
                self.rechecked.insert(path.clone());
            }
            found.created.push(path.clone());
        }
        if mask.contains(EventMask::DELETE) {
            self.rechecked.remove(&path);
        }
        found.files.push(path);
    }
}

/// What the events read so far said (see [`Drained`]).
#[derive(Default)]
struct Found {
    /// Any event at all.
    changed: bool,
    /// The watch set is no longer right.
    rebuild: bool,
    new_dirs: Vec<PathBuf>,
    index_changed: bool,
    everything: bool,
    files: Vec<PathBuf>,
    created: Vec<PathBuf>,
    /// Rename cookies of re-checked files moved away.
    moved_rechecked: HashSet<u32>,
}

impl Found {
    fn into_drained(self) -> Drained {
        if self.rebuild {
            Drained::Rebuild
        } else if self.changed {
            Drained::Changed {
                new_dirs: self.new_dirs,
                index_changed: self.index_changed,
                everything: self.everything,
                files: self.files,
                created: self.created,
            }
        } else {
            Drained::Nothing
        }
    }
}

/// `path` relative to `workdir`, with forward slashes; `None` when it is
/// not below it or not UTF-8.
fn relative(workdir: &Path, path: &Path) -> Option<String> {
    Some(path.strip_prefix(workdir).ok()?.to_str()?.to_string())
}

/// Whether the file at `path` (not followed) has more than one hard link.
fn linked_elsewhere(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.nlink() > 1)
}

/// Every folder (relative, `""` for the root) holding a tracked file.
fn tracked_dirs(index: &git2::Index) -> std::collections::HashSet<Vec<u8>> {
    let mut dirs = std::collections::HashSet::new();
    dirs.insert(Vec::new());
    // Entries are sorted: a folder's files come together, so only a folder
    // different from the last one is looked at.
    let mut last: Vec<u8> = Vec::new();
    for entry in index.iter() {
        let parent = match entry.path.iter().rposition(|&b| b == b'/') {
            Some(slash) => &entry.path[..slash],
            None => &[][..],
        };
        if parent == last.as_slice() {
            continue;
        }
        last = parent.to_vec();
        let mut path = entry.path.as_slice();
        while let Some(slash) = path.iter().rposition(|&b| b == b'/') {
            path = &path[..slash];
            if !dirs.insert(path.to_vec()) {
                break;
            }
        }
    }
    dirs
}

impl Watch {
    /// `poll` (what the stamps of the files outside said) with what the
    /// queued events say, the watch set brought up to date on the way (new
    /// folders watched, the tracked folders after an index write, a rebuild
    /// when the events ask for one), and the re-checked files added.
    pub(super) fn poll_events(&mut self, repo: &git2::Repository, poll: Poll) -> Option<Poll> {
        let workdir = repo.workdir()?.to_path_buf();
        let poll = match self.inner.drain() {
            Drained::Nothing => poll,
            Drained::Changed {
                new_dirs,
                index_changed,
                everything,
                files,
                created,
            } => {
                let rebuilt = self.follow_changes(repo, index_changed, &new_dirs, &created)?;
                let files: Option<Vec<String>> =
                    files.iter().map(|f| relative(&workdir, f)).collect();
                match (poll, rebuilt || everything, files) {
                    (Poll::Unchanged, false, Some(files)) => Poll::Files(files),
                    _ => Poll::Everything,
                }
            }
            Drained::Rebuild => {
                self.rebuild(repo)?;
                Poll::Everything
            }
        };
        if self.inner.rechecked.len() > MAX_RECHECKED {
            tracing::debug!(
                "more than {MAX_RECHECKED} files to re-check on every question; \
                 answering from the disk"
            );
            return None;
        }
        Some(self.with_rechecked(&workdir, poll))
    }

    /// Bring the watch set up to date with what the events said: the
    /// folders holding tracked files after the index was written (a file
    /// added in an ignored folder is tracked now, and its folder must be
    /// watched), the folders created, and a rebuild when a file was created
    /// with another hard link (to find every name of its file). Whether it
    /// rebuilt.
    fn follow_changes(
        &mut self,
        repo: &git2::Repository,
        index_changed: bool,
        new_dirs: &[PathBuf],
        created: &[PathBuf],
    ) -> Option<bool> {
        if index_changed {
            let index = repo.index().ok()?;
            self.inner.tracked_dirs = tracked_dirs(&index);
            self.inner.watch_tracked_dirs(repo)?;
        }
        for dir in new_dirs {
            self.inner.watch_tree(repo, dir)?;
        }
        if created.iter().any(|f| linked_elsewhere(f)) {
            self.rebuild(repo)?;
            return Some(true);
        }
        Some(false)
    }

    /// `poll` with the re-checked files added, when it names files (or
    /// none): they are diffed again on every question.
    fn with_rechecked(&self, workdir: &Path, poll: Poll) -> Poll {
        let mut files = match poll {
            Poll::Unchanged if self.inner.rechecked.is_empty() => return Poll::Unchanged,
            Poll::Unchanged => Vec::new(),
            Poll::Files(_) if self.inner.rechecked.is_empty() => return poll,
            Poll::Files(files) => files,
            Poll::Everything => return Poll::Everything,
        };
        for file in &self.inner.rechecked {
            match relative(workdir, file) {
                Some(rel) => files.push(rel),
                None => return Poll::Everything,
            }
        }
        files.sort();
        files.dedup();
        Poll::Files(files)
    }
}
