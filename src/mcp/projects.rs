//! The concurrency model of `notarai mcp`, stated once.
//!
//! The server holds two [`Project`]s on the same root, each behind its own
//! lock: the **reading** one serves every request that only reads (the
//! read-only tools, `resources/list`, the governing resources, `prompts/get`,
//! `completion/complete`, the `instructions`), the **writing** one the tools
//! that write (`mark_reconciled`, `report_drift`, `snapshot_state`,
//! `clear_cache`). Requests run on the blocking pool and take their
//! project's lock, so reads run one at a time, writes run one at a time, and
//! a read sent before a write runs side by side with it: it never waits
//! behind a long `mark_reconciled` sent after it. What needs no project takes no lock: a spec's text
//! (`resources/read` of `notarai://spec/...`, the root is fixed), the fixed
//! lists (`tools/list`, `prompts/list`, `resources/templates/list`).
//!
//! The framing ([`super::stdio`]) orders the calls: a write tool starts after
//! every tool call read before it is answered (a read sent before a write
//! never sees it), and writes start in the order sent (each waits for the
//! one before); a request sent after a write (anything but `ping`) starts
//! once the write is answered, so it sees it (the README's promise: a
//! client that records a pass and then asks for the status must not be
//! told the files it just recorded are still open).
//!
//! What a read sees while a write runs is either the state before the write
//! or the state after it, never a half-written one: the hash cache is
//! SQLite, written in one transaction (WAL: a reader sees the last commit),
//! the state file is replaced whole by a rename ([`crate::safe_fs`]), and
//! the cache is cleared by removing its file. The answers the reading project
//! keeps for their next pages ([`crate::answers`]) are bound to the count of
//! writes the two projects share ([`Project::for_writes`]), moved when a
//! write begins and when it ends, so no answer computed before or during a
//! write is served after it; the reading project's work-tree watch (the kept
//! status and its generation) is its own, and the writing project starts
//! none. Two writes never run together: the writing project has one lock,
//! and the framing orders them.

use std::path::Path;
use std::sync::{Arc, Mutex};

use rmcp::ErrorData;

use crate::project::Project;

/// The reading and the writing project of one server (see the module doc).
#[derive(Clone)]
pub struct Projects {
    read: Arc<Mutex<Project>>,
    write: Arc<Mutex<Project>>,
    root: Arc<std::path::PathBuf>,
}

/// Which of the two projects a request runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The reading project: every request that only reads.
    Read,
    /// The writing project: the tools that write.
    Write,
}

impl Projects {
    /// The two projects of a server on `project`'s root.
    pub fn new(project: Project) -> Projects {
        let write = project.for_writes();
        Projects {
            root: Arc::new(project.root().to_path_buf()),
            read: Arc::new(Mutex::new(project)),
            write: Arc::new(Mutex::new(write)),
        }
    }

    /// Start what the reading project keeps (the work tree's watch) on
    /// another thread, so the server reads its first line at once: opening
    /// the repository is not in the way of `initialize`.
    pub fn start_keeping(&self) {
        let read = self.read.clone();
        let started = std::thread::Builder::new()
            .name("notarai-start".into())
            .spawn(move || {
                read.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .start_keeping();
            });
        if let Err(e) = started {
            tracing::debug!("the watch starts with the first question: {e}");
        }
    }

    /// The root, fixed for the life of the process: what a spec's text
    /// needs, without any lock.
    pub fn root(&self) -> Arc<std::path::PathBuf> {
        self.root.clone()
    }

    /// Run `f` on the reading project, on this thread (it blocks).
    pub fn read_now<T>(&self, f: impl FnOnce(&mut Project) -> T) -> T {
        f(&mut self.read.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Run `f` on the `side` project on the blocking pool (it reads git
    /// and the disk); `what` names the request in a failure. On the writing
    /// side, the kept answers are forgotten again once `f` is done (see the
    /// module doc).
    pub async fn run<T: Send + 'static>(
        &self,
        side: Side,
        what: &'static str,
        f: impl FnOnce(&mut Project) -> Result<T, ErrorData> + Send + 'static,
    ) -> Result<T, ErrorData> {
        let project = match side {
            Side::Read => self.read.clone(),
            Side::Write => self.write.clone(),
        };
        let outcome = tokio::task::spawn_blocking(move || {
            let mut project = project.lock().unwrap_or_else(|p| p.into_inner());
            let answer = f(&mut project);
            if side == Side::Write {
                project.forget_answers();
            }
            answer
        })
        .await;
        outcome.unwrap_or_else(|join| {
            tracing::error!("{what} failed: {join}");
            Err(ErrorData::internal_error(
                format!("{what} failed unexpectedly: {join}"),
                None,
            ))
        })
    }
}

impl std::fmt::Debug for Projects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Projects")
            .field("root", &Path::new(self.root.as_ref()))
            .finish()
    }
}
