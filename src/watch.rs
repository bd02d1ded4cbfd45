//! Knowing, cheaply, that nothing in a work tree changed: the stamp behind
//! the long-lived server's kept status (see `changes::GitRepo::changes`).
//!
//! On Linux an inotify instance (the `inotify` crate) watches every folder
//! git looks into: each folder of the work tree that is not ignored, each
//! folder holding a tracked file (ignored or not), found by the one walker
//! ([`crate::walk`], which skips `.git` and `.notarai/.cache`), and the git
//! folder itself (index, `HEAD`, refs, config, `info/exclude`), with the
//! common git folder of a linked worktree (its `config` and `info/exclude`
//! are the main repository's). The kernel queues an event during the very
//! system call that creates, writes, removes, renames or re-modes a file
//! through one of those folders, so when a question arrives every such
//! change made before it is already in the queue; reading the queue (without
//! waiting) tells what changed since the kept answer was computed: nothing,
//! some files (named by the events, so only they are diffed again), or more
//! than files (a folder created or removed, the index, `HEAD`, config or an
//! ignore file): then everything is computed again. A folder created later is
//! watched (with everything below it) before the next status is computed; a
//! change to an ignore file, the config, a queue overflow or a failed watch
//! rebuilds the watch set from scratch.
//!
//! What a folder's events cannot tell, and how each is covered:
//!
//! - **Files outside the repository that change what git reports**: the
//!   global and system config and excludes, `core.excludesFile`, and every
//!   file the config pulls in with `include.path` or `includeIf.*.path`.
//!   Their stamps (modification time, length, inode) are compared on every
//!   question; a difference recomputes everything and rebuilds the watch.
//! - **A file with more than one hard link**: a write through a link in
//!   another folder (outside the work tree, say) is reported to that folder
//!   only. Every file found with a link count above one when the watch is
//!   built, or created later with one, is *re-checked*: diffed again on
//!   every question, exactly as a fresh server would diff it. A new link
//!   made inside the work tree to an existing file rebuilds the watch (which
//!   finds both names).
//! - **A write through a shared memory mapping** makes no event while the
//!   mapping lives: the kernel reports it as the file's "closed after
//!   writing" when the last user of the open file lets go (the mapping
//!   unmapped, its process gone, even when the descriptor was closed
//!   first), and the file is diffed again then. Nothing cheaper can tell
//!   sooner without privileges (`fanotify`); a file that some process keeps
//!   mapped for writing and writes to is served as of its last event until
//!   then (as git's own file system monitors do).
//!
//! Re-checked files are few; past [`MAX_RECHECKED`] of them the watch gives
//! up and every question is answered from the disk. What else stays unseen:
//! a hard link made from outside the work tree, after the watch was built,
//! to a file that then had a single link (no event reaches a folder of the
//! work tree); any rebuild (a change of config or ignore rules, a new link
//! inside the tree) finds it.
//!
//! Elsewhere, or when watching fails (too many folders for the inotify
//! limit), [`Watch::open`] returns `None` and every question is answered
//! from the disk, as before.

use std::path::{Path, PathBuf};

/// The most files re-checked on every question (see the module header)
/// before the watch gives up and every question is answered from the disk.
const MAX_RECHECKED: usize = 1024;

/// Files outside the repository that change what git reports (global
/// config and excludes); their modification stamps are compared on every
/// question, since no watch covers them.
fn global_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let (home, xdg) = home_and_xdg();
    if let Some(home) = &home {
        out.push(home.join(".gitconfig"));
    }
    if let Some(xdg) = xdg {
        for name in ["config", "ignore", "attributes"] {
            out.push(xdg.join("git").join(name));
        }
    }
    out.push(PathBuf::from("/etc/gitconfig"));
    out
}

/// `$HOME` and the XDG config folder (`$XDG_CONFIG_HOME`, else `~/.config`).
fn home_and_xdg() -> (Option<PathBuf>, Option<PathBuf>) {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    (home, xdg)
}

/// Files the configuration of `repo` names that change what git reports
/// and that no folder watch covers: `core.excludesFile` and every
/// `include.path` / `includeIf.<condition>.path` (whatever the condition:
/// a stamp of a file not included costs one `stat`).
fn config_files(repo: &git2::Repository) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(mut config) = repo.config() else {
        return out;
    };
    if let Ok(path) = config
        .snapshot()
        .and_then(|c| c.get_path("core.excludesFile"))
    {
        out.push(path);
    }
    let (home, xdg) = home_and_xdg();
    let Ok(entries) = config.entries(Some(r"^include\.path$|^includeif\..*\.path$")) else {
        return out;
    };
    let _ = entries.for_each(|entry| {
        let Ok(value) = entry.value() else {
            return;
        };
        let path = if let Some(rest) = value.strip_prefix("~/") {
            match &home {
                Some(home) => home.join(rest),
                None => return,
            }
        } else if Path::new(value).is_absolute() {
            PathBuf::from(value)
        } else {
            // Relative to the folder of the file that names it.
            let base = match entry.level() {
                git2::ConfigLevel::Local => Some(repo.commondir().to_path_buf()),
                git2::ConfigLevel::Worktree => Some(repo.path().to_path_buf()),
                git2::ConfigLevel::Global => home.clone(),
                git2::ConfigLevel::XDG => xdg.as_ref().map(|x| x.join("git")),
                git2::ConfigLevel::System => Some(PathBuf::from("/etc")),
                _ => None,
            };
            match base {
                Some(base) => base.join(value),
                None => return,
            }
        };
        out.push(path);
    });
    out
}

/// `(modified ns, length, inode)` of a file.
pub(crate) type Stamp = (i128, u64, u64);

/// The [`Stamp`] of a file, `None` when absent.
pub(crate) fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128);
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let ino = 0;
    Some((modified, meta.len(), ino))
}

/// Watches a work tree; see the module documentation.
#[derive(Debug)]
pub struct Watch {
    #[cfg(target_os = "linux")]
    inner: linux::Tree,
    /// Stamps of [`global_files`] and [`config_files`] last seen.
    globals: Vec<(PathBuf, Option<Stamp>)>,
    /// [`config_files`] as of the last rebuild.
    config_files: Vec<PathBuf>,
}

/// What changed in the work tree since the last [`Watch::poll`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poll {
    /// Nothing.
    Unchanged,
    /// Only these files (relative to the work tree) were created, written,
    /// removed, renamed or re-moded, or are re-checked on every question.
    Files(Vec<String>),
    /// Anything may have changed.
    Everything,
}

impl Watch {
    /// Watch the work tree of `repo`; `None` when this platform or the
    /// repository (a submodule inside, too many folders) does not allow it.
    pub fn open(repo: &git2::Repository) -> Option<Watch> {
        #[cfg(target_os = "linux")]
        {
            let inner = linux::Tree::new()?;
            let mut watch = Watch {
                inner,
                globals: Vec::new(),
                config_files: Vec::new(),
            };
            watch.rebuild(repo)?;
            watch.globals = watch.global_stamps();
            Some(watch)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = repo;
            None
        }
    }

    /// The stamps of every file outside the watched folders.
    fn global_stamps(&self) -> Vec<(PathBuf, Option<Stamp>)> {
        global_files()
            .into_iter()
            .chain(self.config_files.iter().cloned())
            .map(|p| {
                let s = stamp(&p);
                (p, s)
            })
            .collect()
    }

    /// What changed since the last call (or since [`Watch::open`]). Call
    /// before computing a status to keep, and again before serving it.
    /// `None` when watching broke down: the caller must then compute from
    /// the disk, and drop the watch.
    pub fn poll(&mut self, repo: &git2::Repository) -> Option<Poll> {
        let mut poll = Poll::Unchanged;
        let globals = self.global_stamps();
        if globals != self.globals {
            // An included file may include others now: find them again.
            self.rebuild(repo)?;
            self.globals = self.global_stamps();
            poll = Poll::Everything;
        }
        #[cfg(target_os = "linux")]
        {
            let workdir = repo.workdir()?.to_path_buf();
            match self.inner.drain() {
                linux::Drained::Nothing => {}
                linux::Drained::Changed {
                    new_dirs,
                    index_changed,
                    everything,
                    files,
                    created,
                } => {
                    if index_changed {
                        // A file added in an ignored folder is tracked now,
                        // and its folder must be watched.
                        let index = repo.index().ok()?;
                        self.inner.tracked_dirs = tracked_dirs(&index);
                        self.inner.watch_tracked_dirs(repo)?;
                    }
                    for dir in new_dirs {
                        self.inner.watch_tree(repo, &dir)?;
                    }
                    if created.iter().any(|f| linked_elsewhere(f)) {
                        // A new hard link: find every name of its file.
                        self.rebuild(repo)?;
                        poll = Poll::Everything;
                    }
                    let files: Option<Vec<String>> =
                        files.iter().map(|f| relative(&workdir, f)).collect();
                    poll = match (poll, everything, files) {
                        (Poll::Unchanged, false, Some(files)) => Poll::Files(files),
                        _ => Poll::Everything,
                    };
                }
                linux::Drained::Rebuild => {
                    poll = Poll::Everything;
                    self.rebuild(repo)?;
                }
            }
            if self.inner.rechecked.len() > MAX_RECHECKED {
                tracing::debug!(
                    "more than {MAX_RECHECKED} files to re-check on every question; \
                     answering from the disk"
                );
                return None;
            }
            if let Poll::Unchanged | Poll::Files(_) = poll
                && !self.inner.rechecked.is_empty()
            {
                let mut files = match poll {
                    Poll::Files(files) => files,
                    _ => Vec::new(),
                };
                for file in &self.inner.rechecked {
                    match relative(&workdir, file) {
                        Some(rel) => files.push(rel),
                        None => return Some(Poll::Everything),
                    }
                }
                files.sort();
                files.dedup();
                poll = Poll::Files(files);
            }
        }
        Some(poll)
    }

    /// Drop every watch and watch the repository afresh.
    fn rebuild(&mut self, repo: &git2::Repository) -> Option<()> {
        self.config_files = config_files(repo);
        #[cfg(target_os = "linux")]
        {
            // A submodule's work tree changes what the superproject reports
            // and is not watched here: no kept status then.
            let index = repo.index().ok()?;
            if index.iter().any(|e| e.mode == 0o160000) {
                return None;
            }
            self.inner.reset()?;
            self.inner.watch_git_dir(repo.path())?;
            if repo.commondir() != repo.path() {
                self.inner.watch_git_dir(repo.commondir())?;
            }
            let workdir = repo.workdir()?.to_path_buf();
            self.inner.tracked_dirs = tracked_dirs(&index);
            self.inner.watch_tree(repo, &workdir)?;
            self.inner.watch_tracked_dirs(repo)?;
        }
        Some(())
    }
}

/// `path` relative to `workdir`, with forward slashes; `None` when it is
/// not below it or not UTF-8.
#[cfg(target_os = "linux")]
fn relative(workdir: &Path, path: &Path) -> Option<String> {
    Some(path.strip_prefix(workdir).ok()?.to_str()?.to_string())
}

/// Whether the file at `path` (not followed) has more than one hard link.
#[cfg(target_os = "linux")]
fn linked_elsewhere(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.nlink() > 1)
}

/// Every folder (relative, `""` for the root) holding a tracked file.
#[cfg(target_os = "linux")]
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

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::{BTreeSet, HashMap, HashSet};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};

    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

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
        pub(super) tracked_dirs: HashSet<Vec<u8>>,
        /// Files a folder's events cannot vouch for (another hard link):
        /// diffed again on every question.
        pub(super) rechecked: BTreeSet<PathBuf>,
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
            let linked =
                crate::parallel::map(&files, 4096, |path| super::linked_elsewhere(path), |_| true);
            for (path, linked) in files.into_iter().zip(linked) {
                if linked {
                    self.rechecked.insert(path.clone());
                }
            }
            Some(())
        }

        /// Read every queued event without waiting.
        pub(super) fn drain(&mut self) -> Drained {
            let mut changed = false;
            let mut rebuild = false;
            let mut new_dirs = Vec::new();
            let mut index_changed = false;
            let mut everything = false;
            let mut files = Vec::new();
            let mut created = Vec::new();
            // Rename cookies of re-checked files moved away.
            let mut moved_rechecked = HashSet::new();
            let mut buf = [0u8; 16384];
            loop {
                let events = match self.inotify.read_events(&mut buf) {
                    Ok(events) => events,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => {
                        tracing::debug!("cannot read inotify events: {e}; watching again");
                        rebuild = true;
                        break;
                    }
                };
                for event in events {
                    let mask = event.mask;
                    let name = event.name.map(|n| n.as_bytes()).unwrap_or_default();
                    // A folder the walker skips (the cache folder created
                    // by a write of notarai's own) changes nothing git sees.
                    if mask.contains(EventMask::ISDIR)
                        && let Some(parent) = self.dirs.get(&event.wd)
                        && let Ok(name) = std::str::from_utf8(name)
                        && walk::skips_folder(parent.file_name().and_then(|n| n.to_str()), name)
                    {
                        continue;
                    }
                    changed = true;
                    if mask.intersects(
                        EventMask::Q_OVERFLOW
                            | EventMask::IGNORED
                            | EventMask::DELETE_SELF
                            | EventMask::MOVE_SELF,
                    ) || RULE_FILES.contains(&name)
                    {
                        rebuild = true;
                        continue;
                    }
                    if self.git_wds.contains(&event.wd) {
                        // `info/` created, rules in `info/` or the
                        // configuration changed: rebuild; the index: see
                        // which folders hold tracked files now.
                        if name == b"info"
                            || name.starts_with(b"config")
                            || self
                                .dirs
                                .get(&event.wd)
                                .is_some_and(|d| d.ends_with("info"))
                        {
                            rebuild = true;
                        }
                        index_changed |= name == b"index";
                        everything = true;
                        continue;
                    }
                    let Some(parent) = self.dirs.get(&event.wd) else {
                        everything = true;
                        continue;
                    };
                    let path = parent.join(std::ffi::OsStr::from_bytes(name));
                    if mask.contains(EventMask::ISDIR) || name.is_empty() {
                        everything = true;
                        if mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
                            new_dirs.push(path);
                        }
                        continue;
                    }
                    if mask.contains(EventMask::MOVED_FROM) && self.rechecked.remove(&path) {
                        moved_rechecked.insert(event.cookie);
                    }
                    if mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
                        if mask.contains(EventMask::MOVED_TO)
                            && moved_rechecked.contains(&event.cookie)
                        {
                            self.rechecked.insert(path.clone());
                        }
                        created.push(path.clone());
                    }
                    if mask.contains(EventMask::DELETE) {
                        self.rechecked.remove(&path);
                    }
                    files.push(path);
                }
            }
            if rebuild {
                Drained::Rebuild
            } else if changed {
                Drained::Changed {
                    new_dirs,
                    index_changed,
                    everything,
                    files,
                    created,
                }
            } else {
                Drained::Nothing
            }
        }
    }
}
