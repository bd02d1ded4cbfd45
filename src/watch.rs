//! Knowing, cheaply, that nothing in a work tree changed: the stamp behind
//! the long-lived server's kept status (see `changes::GitRepo::changes`).
//!
//! On Linux an inotify instance watches every folder git looks into: each
//! folder of the work tree that is not ignored, each folder holding a tracked
//! file (ignored or not), and the git folder itself (index, `HEAD`, refs,
//! config, `info/exclude`). The kernel queues an event during the very
//! system call that creates, writes, removes, renames or re-modes a file, so
//! when a question arrives every change made before it is already in the
//! queue; reading the queue (without waiting) tells what changed since the
//! kept answer was computed: nothing, some files (named by the events, so
//! only they are diffed again), or more than files (a folder created or
//! removed, the index, `HEAD`, config or an ignore file): then everything
//! is computed again. A folder created later is watched (with everything
//! below it) before the next status is computed; a change to an ignore
//! file, the config, a queue overflow or a failed watch rebuilds the watch
//! set from scratch.
//!
//! Elsewhere, or when watching fails (too many folders for the inotify
//! limit), [`Watch::open`] returns `None` and every question is answered
//! from the disk, as before.

use std::path::{Path, PathBuf};

/// Files outside the repository that change what git reports (global
/// config and excludes); their modification stamps are compared on every
/// question, since no watch covers them.
fn global_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
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
    inner: linux::Inotify,
    /// Stamps of [`global_files`] (and `core.excludesFile`) last seen.
    globals: Vec<(PathBuf, Option<Stamp>)>,
    /// `core.excludesFile`, when the configuration names one.
    excludes_file: Option<PathBuf>,
}

/// What changed in the work tree since the last [`Watch::poll`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poll {
    /// Nothing.
    Unchanged,
    /// Only these files (relative to the work tree) were created, written,
    /// removed, renamed or re-moded.
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
            let inner = linux::Inotify::new()?;
            let mut watch = Watch {
                inner,
                globals: Vec::new(),
                excludes_file: None,
            };
            watch.rebuild(repo)?;
            Some(watch)
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = repo;
            None
        }
    }

    /// What changed since the last call (or since [`Watch::open`]). Call
    /// before computing a status to keep, and again before serving it.
    /// `None` when watching broke down: the caller must then compute from
    /// the disk, and drop the watch.
    pub fn poll(&mut self, repo: &git2::Repository) -> Option<Poll> {
        let mut poll = Poll::Unchanged;
        let globals: Vec<_> = global_files()
            .into_iter()
            .chain(self.excludes_file.clone())
            .map(|p| {
                let s = stamp(&p);
                (p, s)
            })
            .collect();
        if globals != self.globals {
            self.globals = globals;
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
                    let files: Option<Vec<String>> = files
                        .iter()
                        .map(|f| Some(f.strip_prefix(&workdir).ok()?.to_str()?.to_string()))
                        .collect();
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
        }
        Some(poll)
    }

    /// Drop every watch and watch the repository afresh.
    fn rebuild(&mut self, repo: &git2::Repository) -> Option<()> {
        #[cfg(target_os = "linux")]
        {
            // A submodule's work tree changes what the superproject reports
            // and is not watched here: no kept status then.
            let index = repo.index().ok()?;
            if index.iter().any(|e| e.mode == 0o160000) {
                return None;
            }
            self.inner.reset()?;
            self.excludes_file = repo
                .config()
                .and_then(|mut c| c.snapshot())
                .and_then(|c| c.get_path("core.excludesFile"))
                .ok();
            self.inner.watch_git_dir(repo.path())?;
            let workdir = repo.workdir()?.to_path_buf();
            self.inner.tracked_dirs = tracked_dirs(&index);
            self.inner.watch_tree(repo, &workdir)?;
        }
        #[cfg(not(target_os = "linux"))]
        let _ = repo;
        Some(())
    }
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
    use std::collections::{HashMap, HashSet};
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};

    /// Everything that may change what git reports about a folder's entries.
    const MASK: u32 = libc::IN_CREATE
        | libc::IN_DELETE
        | libc::IN_MODIFY
        | libc::IN_CLOSE_WRITE
        | libc::IN_ATTRIB
        | libc::IN_MOVED_FROM
        | libc::IN_MOVED_TO
        | libc::IN_DELETE_SELF
        | libc::IN_MOVE_SELF
        | libc::IN_DONT_FOLLOW
        | libc::IN_ONLYDIR;

    /// Names whose change alters which files git ignores or how it reads them.
    const RULE_FILES: [&[u8]; 3] = [b".gitignore", b".gitattributes", b".gitmodules"];

    /// What reading the queue found.
    pub(super) enum Drained {
        /// No event.
        Nothing,
        /// Something changed; `new_dirs` were created and are not watched
        /// yet; `index_changed` when the index was written; `everything`
        /// when more than the files named in `files` may have changed.
        Changed {
            new_dirs: Vec<PathBuf>,
            index_changed: bool,
            everything: bool,
            files: Vec<PathBuf>,
        },
        /// The watch set itself is no longer right: rebuild it.
        Rebuild,
    }

    /// An inotify instance and its watches.
    #[derive(Debug)]
    pub(super) struct Inotify {
        fd: i32,
        /// Watch descriptor to folder.
        dirs: HashMap<i32, PathBuf>,
        /// The folders watched.
        watched: HashSet<PathBuf>,
        /// The git folder's watch descriptors.
        git_wds: HashSet<i32>,
        /// Folders (relative to the work tree) holding tracked files.
        pub(super) tracked_dirs: HashSet<Vec<u8>>,
    }

    impl Drop for Inotify {
        fn drop(&mut self) {
            // SAFETY: `fd` is an inotify descriptor this value owns.
            unsafe { libc::close(self.fd) };
        }
    }

    impl Inotify {
        pub(super) fn new() -> Option<Inotify> {
            // SAFETY: plain system call; a negative result is checked.
            let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
            (fd >= 0).then(|| Inotify {
                fd,
                dirs: HashMap::new(),
                watched: HashSet::new(),
                git_wds: HashSet::new(),
                tracked_dirs: HashSet::new(),
            })
        }

        /// Remove every watch (by closing and reopening the instance).
        pub(super) fn reset(&mut self) -> Option<()> {
            let fresh = Inotify::new()?;
            let tracked = std::mem::take(&mut self.tracked_dirs);
            *self = fresh;
            self.tracked_dirs = tracked;
            Some(())
        }

        fn add(&mut self, dir: &Path) -> Option<i32> {
            let c = CString::new(dir.as_os_str().as_bytes()).ok()?;
            // SAFETY: `c` is a valid NUL-terminated path for the call.
            let wd = unsafe { libc::inotify_add_watch(self.fd, c.as_ptr(), MASK) };
            if wd < 0 {
                tracing::debug!(
                    "cannot watch {}: {}; answering from the disk",
                    dir.display(),
                    std::io::Error::last_os_error()
                );
                return None;
            }
            self.dirs.insert(wd, dir.to_path_buf());
            self.watched.insert(dir.to_path_buf());
            Some(wd)
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

        /// Watch the git folder and its `info/` (exclude rules).
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

        /// Watch `dir` and every folder below it that git looks into.
        pub(super) fn watch_tree(&mut self, repo: &git2::Repository, dir: &Path) -> Option<()> {
            let workdir = repo.workdir()?.to_path_buf();
            let git_dir = repo.path().to_path_buf();
            // A folder created later may be one git ignores: not watched.
            if let Ok(rel) = dir.strip_prefix(&workdir)
                && !rel.as_os_str().is_empty()
                && !self.tracked_dirs.contains(rel.as_os_str().as_bytes())
                && repo.is_path_ignored(rel).unwrap_or(false)
            {
                return Some(());
            }
            let mut stack = vec![dir.to_path_buf()];
            while let Some(dir) = stack.pop() {
                self.add(&dir)?;
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let Ok(kind) = entry.file_type() else {
                        continue;
                    };
                    if !kind.is_dir() {
                        continue;
                    }
                    let path = entry.path();
                    if path == git_dir || path.starts_with(&git_dir) {
                        continue;
                    }
                    let Ok(rel) = path.strip_prefix(&workdir) else {
                        continue;
                    };
                    let tracked = self.tracked_dirs.contains(rel.as_os_str().as_bytes());
                    if tracked || !repo.is_path_ignored(rel).unwrap_or(false) {
                        stack.push(path);
                    }
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
            let mut buf = [0u8; 16384];
            loop {
                // SAFETY: reading into a buffer of the given length.
                let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
                if n < 0 {
                    let err = std::io::Error::last_os_error();
                    if err.kind() == std::io::ErrorKind::Interrupted {
                        continue;
                    }
                    if err.kind() != std::io::ErrorKind::WouldBlock {
                        rebuild = true;
                    }
                    break;
                }
                if n == 0 {
                    break;
                }
                let mut at = 0usize;
                let header = std::mem::size_of::<libc::inotify_event>();
                while at + header <= n as usize {
                    // SAFETY: the kernel writes whole events; the header is
                    // read unaligned from within the filled part of `buf`.
                    let event: libc::inotify_event =
                        unsafe { std::ptr::read_unaligned(buf.as_ptr().add(at).cast()) };
                    let name_start = at + header;
                    let name_end = (name_start + event.len as usize).min(n as usize);
                    let raw = &buf[name_start..name_end];
                    let name = &raw[..raw.iter().position(|&b| b == 0).unwrap_or(raw.len())];
                    at = name_end;
                    changed = true;
                    if event.mask & (libc::IN_Q_OVERFLOW | libc::IN_IGNORED) != 0
                        || event.mask & (libc::IN_DELETE_SELF | libc::IN_MOVE_SELF) != 0
                        || RULE_FILES.contains(&name)
                    {
                        rebuild = true;
                        continue;
                    }
                    if self.git_wds.contains(&event.wd) {
                        // `info/` created, rules in `info/` or the
                        // configuration changed: rebuild; the index: see
                        // which folders hold tracked files now.
                        if name == b"info"
                            || name == b"config"
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
                    if event.mask & libc::IN_ISDIR != 0 || name.is_empty() {
                        everything = true;
                        if event.mask & (libc::IN_CREATE | libc::IN_MOVED_TO) != 0 {
                            new_dirs.push(path);
                        }
                    } else {
                        files.push(path);
                    }
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
                }
            } else {
                Drained::Nothing
            }
        }
    }
}
