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

use std::path::PathBuf;

/// The most files re-checked on every question (see the module header)
/// before the watch gives up and every question is answered from the disk.
const MAX_RECHECKED: usize = 1024;

#[cfg(target_os = "linux")]
mod linux;
mod outside;

pub use outside::{Stamp, stamp};
use outside::{config_files, global_files};

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

/// The files outside the repository that change what git reports for
/// `repo` (global and system config and excludes, `core.excludesFile`,
/// the files the config includes): what no folder watch covers.
pub fn outside_files(repo: &git2::Repository) -> Vec<PathBuf> {
    let mut files = global_files();
    files.extend(config_files(repo));
    files
}

/// Lower the calling thread's scheduling priority, for good (a thread
/// may not raise it again). The watch opens on a thread of its own while
/// a fresh server answers its first question, and its walk and `lstat`s
/// of every file would take cores that question needs: on two cores, one
/// first `list_affected_specs` went from 162 to 140 ms. Linux keeps a
/// nice value per thread, and threads the watch starts inherit it; where
/// that is not so, nothing is done.
pub fn yield_to_questions() {
    // No process named: on Linux, the calling thread. A failure only
    // leaves the priority as it was.
    #[cfg(target_os = "linux")]
    let _ = rustix::process::setpriority_process(None, 10);
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
            tracing::debug!("watch opened");
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
            poll = self.poll_events(repo, poll)?;
        }
        Some(poll)
    }

    /// Whether the folder `dir` (absolute, in the work tree) is watched:
    /// every file created, written, removed or renamed in it moves the
    /// generation. Never true off Linux.
    pub fn covers(&self, dir: &std::path::Path) -> bool {
        #[cfg(target_os = "linux")]
        return self.inner.covers(dir);
        #[cfg(not(target_os = "linux"))]
        {
            let _ = dir;
            false
        }
    }

    /// Drop every watch and watch the repository afresh.
    fn rebuild(&mut self, repo: &git2::Repository) -> Option<()> {
        self.config_files = config_files(repo);
        #[cfg(target_os = "linux")]
        self.inner.rebuild(repo)?;
        Some(())
    }
}
