//! The long-lived server's kept status: the changed files of the whole work
//! tree, served again while [`crate::watch`] reports nothing changed, and
//! brought up to date file by file when it names what changed.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use git2::{Oid, Repository};

use super::diff::{LazyDiff, collect_files, find_renames};
use super::exact::diff_exactly;
use super::repo::{LONG_LIVED, flush_attribute_cache, long_lived};
use super::{ChangeError, ChangeKind, ChangeSet, ChangedFile, GitRepo, Patch, Unnameable};
use crate::watch::{Poll, Watch};

/// The kept status of a long-lived server: the changed files of the whole
/// work tree against a merge base. While the [`Watch`] says nothing changed
/// since they were computed (see `crate::watch` for why that is exact) they
/// are served as they are; when it names the files that changed, only those
/// are diffed again; otherwise (or when the index file's stamp moved) they
/// are computed again.
#[derive(Default)]
pub(super) struct Kept {
    /// `None` until first needed; stays `None` where watching is impossible.
    pub(super) watch: Option<Watch>,
    /// Whether opening the watch was tried.
    pub(super) tried: bool,
    /// A watch being opened on another thread ([`GitRepo::start_watch`]).
    pub(super) starting: Option<std::thread::JoinHandle<Option<Watch>>>,
    /// Answers by (merge-base tree, renames paired).
    pub(super) answers: Vec<KeptAnswer>,
    /// The number of the next answer kept.
    pub(super) next_serial: u64,
    /// Moves on every change the watch reports (see `GitRepo::generation`).
    pub(super) generation: u64,
    /// The index file's stamp at the last poll.
    pub(super) index_stamp: Option<crate::watch::Stamp>,
    /// While the watch is being opened, once a question began: what the
    /// answers computed meanwhile were made from, checked once it is ready.
    pub(super) fence: Option<super::fence::Fence>,
}

impl Kept {
    /// Take over the watch opened on another thread once it is ready (or,
    /// with `wait`, when it is). `false` while it is still being opened:
    /// nothing computed now may be kept, as the watch may have missed it.
    pub(super) fn settle(&mut self, wait: bool) -> bool {
        match self.starting.take() {
            Some(handle) if wait || handle.is_finished() => {
                self.watch = handle.join().ok().flatten();
                true
            }
            Some(handle) => {
                self.starting = Some(handle);
                false
            }
            None => true,
        }
    }

    /// Keep an answer just computed.
    pub(super) fn keep(
        &mut self,
        tree: Option<Oid>,
        renames: bool,
        index_stamp: Option<crate::watch::Stamp>,
        set: &ChangeSet<'_>,
    ) {
        self.next_serial += 1;
        self.answers.push(KeptAnswer {
            serial: self.next_serial,
            tree,
            renames,
            index_stamp,
            pending: Default::default(),
            patches: HashMap::new(),
            files: set.files.clone(),
            unnameable: set.unnameable.clone(),
        });
    }
}

/// What [`GitRepo::kept_while_watched`] keeps: the commit, the
/// generation, the folders read and the paths found.
pub(super) type WhileWatched = (Oid, u64, Vec<String>, HashSet<String>);

pub(super) struct KeptAnswer {
    /// Which answer this is, for patches made later.
    pub(super) serial: u64,
    /// Patches made from this answer, by path; dropped when the path changes.
    pub(super) patches: HashMap<String, Patch>,
    pub(super) tree: Option<Oid>,
    pub(super) renames: bool,
    pub(super) index_stamp: Option<crate::watch::Stamp>,
    /// Files changed on disk since `files` was computed: to diff again.
    pub(super) pending: std::collections::BTreeSet<String>,
    pub(super) files: Vec<ChangedFile>,
    pub(super) unnameable: Vec<Unnameable>,
}

impl GitRepo {
    /// Read the watch into the kept answers: the files it names become
    /// pending, anything more drops them, and the generation moves on any
    /// change (an index whose stamp moved included). `false` when there is
    /// no watch (or it broke down): answer from the disk.
    pub(super) fn poll_kept(
        &self,
        kept: &mut Kept,
        index_stamp: Option<crate::watch::Stamp>,
    ) -> bool {
        let changed = match kept.watch.as_mut().map(|w| w.poll(&self.repo)) {
            Some(Some(Poll::Unchanged)) => false,
            Some(Some(Poll::Files(paths))) => {
                for answer in &mut kept.answers {
                    answer.pending.extend(paths.iter().cloned());
                }
                true
            }
            Some(Some(Poll::Everything)) => {
                kept.answers.clear();
                // A config git reads may have changed: libgit2 read
                // `core.excludesFile` once per repository, into its
                // attribute cache, so that cache goes too.
                flush_attribute_cache(&self.repo);
                true
            }
            Some(None) => {
                // Watching broke down: from the disk from now on.
                kept.watch = None;
                kept.answers.clear();
                kept.generation += 1;
                return false;
            }
            None => return false,
        };
        if changed || kept.index_stamp != index_stamp {
            kept.generation += 1;
            kept.index_stamp = index_stamp;
        }
        kept.answers.retain(|a| a.index_stamp == index_stamp);
        true
    }

    /// Say that this process lives long (the MCP server): its repositories
    /// keep a status, watched, from their first whole-work-tree question
    /// when [`GitRepo::start_watch`] has not opened the watch yet. Other
    /// processes (`check`, `export-context`, the hook) never watch.
    pub fn keep_status_in_this_process() {
        LONG_LIVED.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Open the watch of a long-lived server on another thread, now, so the
    /// first question does not wait for it (it walks every folder and adds
    /// a watch to each). Answers computed before it is ready are computed
    /// from the disk and kept under a fence (see [`GitRepo::generation`]).
    pub fn start_watch(&self) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        self.spawn_watch(&mut kept);
    }

    /// [`GitRepo::start_watch`] with the kept status at hand; nothing when
    /// it was tried already. A question that comes before the server's
    /// start-up thread started it starts it the same way, and runs under a
    /// fence, rather than waiting for every folder to be watched.
    pub(super) fn spawn_watch(&self, kept: &mut Kept) {
        if kept.tried {
            return;
        }
        kept.tried = true;
        let git_dir = self.repo.path().to_path_buf();
        let started = std::thread::Builder::new()
            .name("notarai-watch".into())
            .spawn(move || {
                crate::watch::yield_to_questions();
                test_delay();
                let repo = Repository::open(&git_dir).ok()?;
                Watch::open(&repo)
            });
        match started {
            Ok(handle) => kept.starting = Some(handle),
            Err(_) => kept.watch = Watch::open(&self.repo),
        }
    }

    /// The work tree's generation as the long-lived server's watch sees it:
    /// the same number as long as nothing in the work tree, the index or
    /// git's configuration changed since the last question. `None` when no
    /// watch runs (a short-lived process, no inotify, submodules): nothing
    /// computed from the work tree may then be reused. Called as a question
    /// begins: while the watch is still being opened, the question starts
    /// (or goes on) under a [`Fence`](super::fence::Fence), whose
    /// generation holds only if the work tree is found as the fence
    /// recorded it once the watch is ready, which the next question waits
    /// for.
    pub fn generation(&self) -> Option<u64> {
        let index_stamp = crate::watch::stamp(&self.repo.path().join("index"));
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        self.generation_of(&mut kept, index_stamp)
    }

    /// [`GitRepo::generation`] when the watch alone vouches for it (open,
    /// no fence standing, whose generation holds only for what the fence
    /// recorded) and watches each of `folders` (relative to the work tree,
    /// `""` its top): every change of a file in them moves it, so what was
    /// read of them at this generation is still what they hold while it
    /// stays. `None` otherwise.
    pub fn watched_generation(&self, folders: &[&str]) -> Option<u64> {
        let index_stamp = crate::watch::stamp(&self.repo.path().join("index"));
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        // While a fresh server's first answers stand under a fence (or its
        // watch is still opening), nothing is vouched for; asking for the
        // generation then would confirm the fence inside this question: a
        // wait for the watch and a second status of the whole work tree.
        if kept.fence.is_some() || kept.starting.is_some() {
            return None;
        }
        let generation = self.generation_of(&mut kept, index_stamp)?;
        if kept.fence.is_some() || kept.starting.is_some() {
            return None;
        }
        let watch = kept.watch.as_ref()?;
        let workdir = self.repo.workdir()?;
        let covered = folders.iter().all(|f| {
            let dir = if f.is_empty() {
                workdir.to_path_buf()
            } else {
                workdir.join(f)
            };
            watch.covers(&dir)
        });
        covered.then_some(generation)
    }

    /// The paths `compute` finds for the commit `base` by reading the
    /// work tree's files in the folders it returns with them (relative to
    /// the work tree), kept while the watch's generation, taken before it
    /// read, has not moved and the watch covers those folders (see
    /// [`GitRepo::watched_generation`]); computed again otherwise.
    pub fn kept_while_watched(
        &self,
        base: Oid,
        compute: impl FnOnce() -> (HashSet<String>, Vec<String>),
    ) -> HashSet<String> {
        let kept = self
            .while_watched
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some((at, generation, folders, paths)) = kept {
            let folders: Vec<&str> = folders.iter().map(String::as_str).collect();
            if at == base && self.watched_generation(&folders) == Some(generation) {
                return paths;
            }
        }
        let before = self.watched_generation(&[]);
        let (paths, folders) = compute();
        let mut kept = self.while_watched.lock().unwrap_or_else(|e| e.into_inner());
        *kept = None;
        let covered: Vec<&str> = folders.iter().map(String::as_str).collect();
        if let Some(before) = before
            && self.watched_generation(&covered) == Some(before)
        {
            *kept = Some((base, before, folders, paths.clone()));
        }
        paths
    }

    /// [`GitRepo::generation`] with the kept status at hand.
    fn generation_of(
        &self,
        kept: &mut Kept,
        index_stamp: Option<crate::watch::Stamp>,
    ) -> Option<u64> {
        if long_lived() {
            self.spawn_watch(kept);
        }
        if let Some(generation) = self.fenced_generation(kept) {
            return Some(generation);
        }
        if !kept.settle(false) {
            return None;
        }
        (kept.watch.is_some() && self.poll_kept(kept, index_stamp)).then_some(kept.generation)
    }

    /// Bring the kept answers against `tree` (the merge base's) up to
    /// date: the files the watch named diffed again, an answer that cannot
    /// be kept so dropped.
    pub(super) fn refresh_kept(
        &self,
        kept: &mut Kept,
        tree: Option<&git2::Tree<'_>>,
    ) -> Result<(), ChangeError> {
        let tree_id = tree.map(|t| t.id());
        let mut at = 0;
        while at < kept.answers.len() {
            let pending = kept.answers[at].pending.len();
            if kept.answers[at].tree != tree_id || pending == 0 {
                at += 1;
            } else if self.diff_again(&mut kept.answers[at], tree)? {
                tracing::debug!("kept status: {pending} changed files diffed again");
                at += 1;
            } else {
                kept.answers.remove(at);
            }
        }
        Ok(())
    }

    /// The kept whole-work-tree `answer` served as it is, its patches made
    /// on demand.
    pub(super) fn served<'r>(
        &'r self,
        answer: &KeptAnswer,
        tree: Option<git2::Tree<'r>>,
        renames: bool,
    ) -> ChangeSet<'r> {
        ChangeSet {
            diffs: Vec::new(),
            conflicts: None,
            workdir: self.repo.workdir().map(Path::to_path_buf),
            lazy: Some(LazyDiff {
                repo: &self.repo,
                tree,
                renames,
                known: answer.patches.clone(),
                store: &self.kept,
                serial: answer.serial,
                made: std::cell::OnceCell::new(),
            }),
            files: answer.files.clone(),
            unnameable: answer.unnameable.clone(),
        }
    }

    /// A question narrower than the whole work tree answered from a kept
    /// list of changed files (both paths of a paired rename): a diff over
    /// exactly the changed paths within `scope`.
    pub(super) fn narrowed<'r>(
        &'r self,
        answer: &KeptAnswer,
        tree: Option<git2::Tree<'r>>,
        scope: &crate::governance::Scope,
        renames: bool,
    ) -> Result<ChangeSet<'r>, ChangeError> {
        let mut paths: Vec<String> = answer
            .files
            .iter()
            .flat_map(ChangedFile::paths)
            .filter(|p| scope.contains(p))
            .map(str::to_string)
            .collect();
        paths.sort();
        paths.dedup();
        let unnameable = answer
            .unnameable
            .iter()
            .filter(|u| scope.contains(&u.lossy_path))
            .cloned()
            .collect();
        tracing::debug!("kept status: {} files of a narrower scope", paths.len());
        self.diff_paths(tree, &paths, renames, unnameable)
    }

    /// The changes of exactly `paths` (the changed files within a scope,
    /// from the kept status), renames among them paired when asked: the same
    /// as diffing the scope, whose renames pair only its own added and
    /// deleted files, all of which are in `paths`.
    pub(super) fn diff_paths<'r>(
        &'r self,
        tree: Option<git2::Tree<'r>>,
        paths: &[String],
        renames: bool,
        unnameable: Vec<Unnameable>,
    ) -> Result<ChangeSet<'r>, ChangeError> {
        let mut diffs = Vec::new();
        let mut files = Vec::new();
        let mut unnameable = unnameable;
        if !paths.is_empty() {
            let mut diff = diff_exactly(&self.repo, tree.as_ref(), paths)?;
            if renames {
                find_renames(&mut diff, self.repo.workdir())?;
            }
            collect_files(&diff, 0, &mut files, &mut unnameable);
            diffs.push(diff);
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        unnameable.sort_by(|a, b| a.lossy_path.cmp(&b.lossy_path));
        unnameable.dedup();
        Ok(ChangeSet {
            diffs,
            conflicts: None,
            workdir: self.repo.workdir().map(Path::to_path_buf),
            lazy: None,
            files,
            unnameable,
        })
    }

    /// Bring a kept answer up to date by diffing again only its pending
    /// files: with renames, every added, deleted or renamed file too, as
    /// those are all the full diff pairs renames among. `false` when the
    /// result holds what a kept answer cannot (a conflict): compute it all.
    pub(super) fn diff_again(
        &self,
        answer: &mut KeptAnswer,
        tree: Option<&git2::Tree<'_>>,
    ) -> Result<bool, ChangeError> {
        let mut paths = std::mem::take(&mut answer.pending);
        if answer.renames {
            for file in &answer.files {
                if matches!(
                    file.status,
                    ChangeKind::Added | ChangeKind::Deleted | ChangeKind::Renamed
                ) {
                    paths.extend(file.paths().map(str::to_string));
                }
            }
        }
        let listed: Vec<&String> = paths.iter().collect();
        let mut diff = diff_exactly(&self.repo, tree, &listed)?;
        if answer.renames {
            find_renames(&mut diff, self.repo.workdir())?;
        }
        let mut fresh = Vec::new();
        let mut unnameable = Vec::new();
        collect_files(&diff, 0, &mut fresh, &mut unnameable);
        if !unnameable.is_empty() || fresh.iter().any(|f| f.status == ChangeKind::Conflicted) {
            return Ok(false);
        }
        answer
            .files
            .retain(|f| !f.paths().any(|p| paths.contains(p)));
        answer.patches.retain(|p, _| !paths.contains(p));
        answer.files.extend(fresh);
        answer.files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(true)
    }
}

/// In a debug build, `NOTARAI_TEST_WATCH_DELAY_MS` holds the watch back
/// that long before it opens, so the tests can ask while it is not ready
/// (`tests/it/kept_answers.rs`); a release build has no such knob.
fn test_delay() {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("NOTARAI_TEST_WATCH_DELAY_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}
