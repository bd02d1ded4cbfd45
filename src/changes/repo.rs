//! The [`GitRepo`]: opening the repository, resolving a base, the changes
//! within a scope, and the list of governable files (what the index says
//! beyond a diff, skip-worktree entries and the raw scan: `repo/index.rs`).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use git2::{Delta, Diff, DiffOptions, ErrorCode, Repository};

use super::diff::{collect_files, find_renames, per_prefix, restrict, work_tree_diff_options};
use super::kept::Kept;
use super::{Base, ChangeError, ChangeKind, ChangeSet, ChangedFile, MAX_DIFF_FILE};
use crate::glob::is_under;
use crate::governance::Scope;
use crate::hashing::FileHash;
use crate::layout::{CACHE_DIR, SPEC_DIR};
pub(super) use index::index_ignores_case;
use index::{CacheEntries, IndexScan, TrackedLinks, index_paths};

mod index;

/// The warning for a cache folder git tracks (`files` are its tracked
/// paths, and a submodule at the cache folder or the spec folder): such a
/// cache came with the repository, or with another one, so notarai ignores it.
pub fn tracked_cache_message(files: &[String]) -> String {
    format!(
        "git tracks notarai's cache or a submodule holding it ({}): a cache that came with the \
         repository, or with another repository, could mark its own changes as reviewed, so \
         notarai ignores it (cold cache) and will not write to it; run `git rm -r --cached \
         {CACHE_DIR}` (a submodule there: `git rm --cached` its path), add `{CACHE_DIR}/` to \
         .gitignore and run `notarai cache clear`",
        files
            .iter()
            .map(|f| crate::quote::for_model(f))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Let libgit2 keep parsed trees in its object cache between questions,
/// and read objects as git does, without hashing them again.
///
/// By default it caches no tree larger than 4 KiB, so a folder of a few
/// hundred files is read and inflated again on every diff; a long-lived
/// server answering many questions about the same merge base wants them kept.
/// Call once, before any other thread uses libgit2.
pub fn keep_trees_cached() {
    // SAFETY: libgit2's global options are not synchronized; this runs at
    // start-up, before the server spawns threads that use libgit2.
    let result =
        unsafe { git2::opts::set_cache_object_limit(git2::ObjectType::Tree, 4 * 1024 * 1024) };
    if let Err(e) = result {
        tracing::debug!("cannot raise libgit2's tree cache limit: {e}");
    }
    // libgit2 hashes every object it reads again to check its id, which
    // git itself does not do on reads (only `git fsck` does): a third of
    // the cost of reading the merge base's trees and the blobs of a diff.
    git2::opts::strict_hash_verification(false);
}

/// Whether this process lives long ([`GitRepo::keep_status_in_this_process`]).
pub(super) static LONG_LIVED: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

pub(super) fn long_lived() -> bool {
    LONG_LIVED.load(std::sync::atomic::Ordering::Relaxed)
}

/// A git repository opened at the project root.
pub struct GitRepo {
    pub(super) repo: Repository,
    pub(super) root: PathBuf,
    /// What the long-lived server keeps between questions; see [`Kept`].
    pub(super) kept: std::sync::Mutex<Kept>,
    /// The last raw scan of the index: its stamp, the bytes looked for, the result.
    pub(super) index_scan: std::sync::Mutex<Option<IndexScan>>,
    /// The symbolic links of the index with the index file's stamp they
    /// were read at ([`GitRepo::tracked_links`]).
    pub(super) links: std::sync::Mutex<Option<TrackedLinks>>,
    /// The cache files the raw index holds, with its stamp
    /// ([`GitRepo::tracked_cache_files`]).
    pub(super) cache_entries: std::sync::Mutex<Option<CacheEntries>>,
    /// A set of paths read from the work tree for a commit, with the
    /// generation and the folders the watch vouched for it by
    /// ([`GitRepo::kept_while_watched`]).
    pub(super) while_watched: std::sync::Mutex<Option<super::kept::WhileWatched>>,
    /// What is known of this repository's contents: outlines and semantic
    /// hashes by content, the project's ([`GitRepo::knowing`]; a handle
    /// opened alone has its own), never a process global.
    pub(super) symbols: std::sync::Arc<crate::symbols::SymbolCache>,
    /// The folders of committed trees read so far ([`super::folders`]).
    pub(super) folders: super::folders::Folders,
}

impl fmt::Debug for GitRepo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GitRepo").field("root", &self.root).finish()
    }
}

impl GitRepo {
    /// Open the repository whose work tree is (or contains) `root`.
    pub fn open(root: &Path) -> Result<GitRepo, ChangeError> {
        let repo = match Repository::discover(root) {
            Ok(repo) => repo,
            Err(e) if e.code() == ErrorCode::NotFound => {
                return Err(ChangeError::NotARepository(root.to_path_buf()));
            }
            Err(e) => return Err(e.into()),
        };
        let Some(workdir) = repo.workdir() else {
            return Err(ChangeError::Bare(root.to_path_buf()));
        };
        // Paths from git are relative to the work tree; notarai's are
        // relative to the root. They must be the same folder.
        let workdir = workdir
            .canonicalize()
            .unwrap_or_else(|_| workdir.to_path_buf());
        let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        if workdir != canonical_root {
            return Err(ChangeError::NotTopLevel {
                root: root.to_path_buf(),
                workdir,
            });
        }
        Ok(GitRepo {
            repo,
            root: root.to_path_buf(),
            kept: std::sync::Mutex::new(Kept::default()),
            index_scan: std::sync::Mutex::new(None),
            links: std::sync::Mutex::new(None),
            cache_entries: std::sync::Mutex::new(None),
            while_watched: std::sync::Mutex::new(None),
            symbols: Default::default(),
            folders: Default::default(),
        })
    }

    /// This repository without the work-tree watch: every question is
    /// answered from the disk, nothing is kept between them (a process's
    /// second handle, which only writes, leaves the watch to the first).
    pub fn unwatched(mut self) -> GitRepo {
        self.kept.get_mut().unwrap_or_else(|e| e.into_inner()).tried = true;
        self
    }

    /// The outlines and semantic hashes known of this repository's
    /// contents, kept by content for as long as this handle lives.
    pub fn symbols(&self) -> &crate::symbols::SymbolCache {
        &self.symbols
    }

    /// This repository, keeping what it learns of its contents' symbols in
    /// `symbols` (the project's cache, shared by its reading and writing
    /// handles).
    pub fn knowing(mut self, symbols: std::sync::Arc<crate::symbols::SymbolCache>) -> GitRepo {
        self.symbols = symbols;
        self
    }

    /// The underlying libgit2 repository.
    pub fn raw(&self) -> &Repository {
        &self.repo
    }

    /// Resolve a base revision (branch, remote branch, tag or commit) and its
    /// merge base with `HEAD`.
    pub fn resolve_base(&self, name: &str) -> Result<Base, ChangeError> {
        let base = self.resolve_base_now(name)?;
        self.fence_base(&base);
        Ok(base)
    }

    /// [`GitRepo::resolve_base`] without noting it in the fence.
    pub(super) fn resolve_base_now(&self, name: &str) -> Result<Base, ChangeError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(ChangeError::BadBase(
                "the name is empty; pass a branch such as `main`".into(),
            ));
        }
        if name.starts_with('-') || name.contains(['\0', '\n']) {
            return Err(ChangeError::BadBase(format!(
                "`{}` is not a revision name",
                name.escape_debug()
            )));
        }
        let head = match self.repo.head() {
            Ok(head) => Some(head.peel_to_commit()?.id()),
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => None,
            Err(e) => return Err(e.into()),
        };
        let base = match self
            .repo
            .revparse_single(name)
            .and_then(|o| o.peel_to_commit())
        {
            Ok(commit) => commit.id(),
            // With no commit at all, the unborn branch itself is a fine base:
            // everything in the work tree is new.
            Err(_) if head.is_none() && self.is_unborn_branch(name) => {
                return Ok(Base {
                    name: name.to_string(),
                    merge_base: None,
                });
            }
            Err(_) => {
                return Err(ChangeError::BaseNotFound {
                    base: name.to_string(),
                    branches: self.local_branches(10),
                });
            }
        };
        let Some(head) = head else {
            return Ok(Base {
                name: name.to_string(),
                merge_base: None,
            });
        };
        match self.repo.merge_base(base, head) {
            Ok(mb) => Ok(Base {
                name: name.to_string(),
                merge_base: Some(mb),
            }),
            Err(e) if e.code() == ErrorCode::NotFound => {
                if self.repo.is_shallow() {
                    return Err(ChangeError::Shallow(name.to_string()));
                }
                tracing::warn!(
                    "`{name}` and HEAD share no history; every file on HEAD counts as changed"
                );
                Ok(Base {
                    name: name.to_string(),
                    merge_base: None,
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    fn is_unborn_branch(&self, name: &str) -> bool {
        let Ok(head) = self.repo.find_reference("HEAD") else {
            return false;
        };
        head.symbolic_target().ok().flatten().is_some_and(|t| {
            t == name || t.strip_prefix("refs/heads/") == Some(name) || name == "HEAD"
        })
    }

    /// Every branch a base may name: the local ones, then the
    /// remote-tracking ones (`origin/main`; a remote's `HEAD` left out),
    /// each list sorted.
    pub fn branch_names(&self) -> Vec<String> {
        let names = |kind| -> Vec<String> {
            let Ok(branches) = self.repo.branches(Some(kind)) else {
                return Vec::new();
            };
            let mut out: Vec<String> = branches
                .flatten()
                .filter_map(|(b, _)| b.name().ok().flatten().map(str::to_string))
                .filter(|name| !name.ends_with("/HEAD"))
                .collect();
            out.sort();
            out
        };
        let mut out = names(git2::BranchType::Local);
        out.extend(names(git2::BranchType::Remote));
        out
    }

    fn local_branches(&self, limit: usize) -> Vec<String> {
        let Ok(branches) = self.repo.branches(Some(git2::BranchType::Local)) else {
            return Vec::new();
        };
        branches
            .flatten()
            .filter_map(|(b, _)| b.name().ok().flatten().map(str::to_string))
            .take(limit)
            .collect()
    }

    /// The files changed since `base` within `scope`. With `renames`, moved
    /// files are paired (for rename headers in diffs); without, a move is a
    /// deletion and an addition, which lists the same two paths faster.
    pub fn changes(
        &self,
        base: &Base,
        scope: &Scope,
        renames: bool,
    ) -> Result<ChangeSet<'_>, ChangeError> {
        let tree = match base.merge_base {
            Some(oid) => Some(self.repo.find_commit(oid)?.tree()?),
            None => None,
        };
        let everything = matches!(scope, Scope::Everything);
        let tree_id = tree.as_ref().map(|t| t.id());
        let index_stamp = crate::watch::stamp(&self.repo.path().join("index"));
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        // The watch starts with the server ([`GitRepo::start_watch`]), or
        // else (on its own thread too) with its first whole-work-tree
        // question; a narrower one alone is cheap enough from the disk. A
        // one-shot command never opens one: it would walk every folder for
        // nothing asked again.
        if everything && long_lived() {
            self.spawn_watch(&mut kept);
        }
        if kept.fence.is_some() && !self.fence_settled(&mut kept) {
            // Still being opened: answer from the disk, kept by the pages
            // only under the fence (`fence.rs`), checked before they serve.
            return self.fenced_changes(&mut kept, tree, scope, renames);
        }
        if !kept.settle(false) {
            // Still being opened, and no question began: keep nothing.
            return self.compute_changes(tree, scope, renames);
        }
        if !self.poll_kept(&mut kept, index_stamp) {
            return self.compute_changes(tree, scope, renames);
        }
        self.refresh_kept(&mut kept, tree.as_ref())?;
        if everything
            && let Some(answer) = kept
                .answers
                .iter()
                .find(|a| a.tree == tree_id && a.renames == renames)
        {
            tracing::debug!("kept status: served");
            return Ok(self.served(answer, tree, renames));
        }
        // Any other question is answered from a kept list of changed files,
        // when there is one: a diff over exactly the changed paths within
        // the scope. A list with renames paired names both paths of each
        // rename, so it names the same paths, unless a rename's name is not
        // UTF-8 (kept as one unnameable entry).
        if let Some(answer) = kept.answers.iter().find(|a| {
            a.tree == tree_id
                && (!a.renames || a.unnameable.iter().all(|u| u.status != ChangeKind::Renamed))
        }) {
            let answer = self.narrowed(answer, tree, scope, renames)?;
            if everything {
                kept.keep(tree_id, renames, index_stamp, &answer);
            }
            return Ok(answer);
        }
        if !everything {
            return self.compute_changes(tree, scope, renames);
        }
        let computed = self.compute_changes(tree, scope, renames)?;
        // Kept only when plain: conflicts and files not checked out take
        // diffs of their own, which a lazy diff does not reproduce.
        let plain = computed.conflicts.is_none() && computed.diffs.len() == 1;
        if plain {
            tracing::debug!("kept status: computed from the disk and kept");
            kept.keep(tree_id, renames, index_stamp, &computed);
        }
        Ok(computed)
    }

    /// The changes within `scope` against `tree`, from the disk.
    pub(super) fn compute_changes<'r>(
        &'r self,
        tree: Option<git2::Tree<'r>>,
        scope: &Scope,
        renames: bool,
    ) -> Result<ChangeSet<'r>, ChangeError> {
        let pathspecs = per_prefix(scope);
        let mut diffs = Vec::with_capacity(pathspecs.len());
        let mut files = Vec::new();
        let mut unnameable = Vec::new();
        for pathspec in pathspecs {
            let mut diff = match pathspec {
                None => super::scan::whole_diff(&self.repo, tree.as_ref())?,
                Some(_) => {
                    let mut opts = work_tree_diff_options();
                    restrict(&mut opts, pathspec);
                    self.repo
                        .diff_tree_to_workdir_with_index(tree.as_ref(), Some(&mut opts))?
                }
            };
            if renames {
                find_renames(&mut diff, self.repo.workdir())?;
            }
            collect_files(&diff, diffs.len(), &mut files, &mut unnameable);
            diffs.push(diff);
        }
        if renames && diffs.len() > 1 {
            self.pair_renames_across_prefixes(tree.as_ref(), &mut diffs, &mut files)?;
        }
        self.use_index_for_skip_worktree(scope, tree.as_ref(), renames, &mut diffs, &mut files)?;
        unnameable.sort_by(|a, b| a.lossy_path.cmp(&b.lossy_path));
        unnameable.dedup();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let conflicted: Vec<&str> = files
            .iter()
            .filter(|f| f.status == ChangeKind::Conflicted)
            .map(|f| f.path.as_str())
            .collect();
        let conflicts = if conflicted.is_empty() {
            None
        } else {
            let mut opts = DiffOptions::new();
            opts.context_lines(3)
                .max_size(MAX_DIFF_FILE as i64)
                .disable_pathspec_match(true);
            for path in &conflicted {
                opts.pathspec(path);
            }
            let conflicts = self
                .repo
                .diff_tree_to_workdir(tree.as_ref(), Some(&mut opts))?;
            for (index, delta) in conflicts.deltas().enumerate() {
                let path = delta.new_file().path().and_then(Path::to_str);
                if let Some(file) = files.iter_mut().find(|f| Some(f.path.as_str()) == path) {
                    file.conflict_delta = Some(index);
                }
            }
            Some(conflicts)
        };
        Ok(ChangeSet {
            diffs,
            conflicts,
            workdir: self.repo.workdir().map(Path::to_path_buf),
            lazy: None,
            files,
            unnameable,
        })
    }

    /// A file moved from one prefix of the scope to another shows up as a
    /// deletion in one diff and an addition in another. Pair them the way
    /// git would: one more diff over exactly those paths, with rename
    /// detection, whose renames replace the separate entries.
    fn pair_renames_across_prefixes<'r>(
        &'r self,
        tree: Option<&git2::Tree<'r>>,
        diffs: &mut Vec<Diff<'r>>,
        files: &mut Vec<ChangedFile>,
    ) -> Result<(), ChangeError> {
        let of = |status| {
            files
                .iter()
                .filter(move |f: &&ChangedFile| f.status == status)
        };
        let cross =
            of(ChangeKind::Deleted).any(|d| of(ChangeKind::Added).any(|a| a.diff != d.diff));
        if !cross {
            return Ok(());
        }
        let mut opts = work_tree_diff_options();
        opts.disable_pathspec_match(true);
        for file in of(ChangeKind::Deleted).chain(of(ChangeKind::Added)) {
            opts.pathspec(&file.path);
        }
        let mut combined = self
            .repo
            .diff_tree_to_workdir_with_index(tree, Some(&mut opts))?;
        find_renames(&mut combined, self.repo.workdir())?;
        let mut paired = Vec::new();
        collect_files(&combined, diffs.len(), &mut paired, &mut Vec::new());
        let paired: Vec<ChangedFile> = paired
            .into_iter()
            .filter(|f| f.status == ChangeKind::Renamed)
            .collect();
        if paired.is_empty() {
            return Ok(());
        }
        files.retain(|f| {
            !paired.iter().any(|r| {
                (f.status == ChangeKind::Deleted && r.old_path.as_deref() == Some(f.path.as_str()))
                    || (f.status == ChangeKind::Added && r.path == f.path)
            })
        });
        files.extend(paired);
        diffs.push(combined);
        Ok(())
    }

    /// Every file in the index or untracked-and-not-ignored within `scope`:
    /// the universe of files that can be governed. Sorted, each once.
    pub fn files(&self, scope: &Scope) -> Result<Vec<String>, ChangeError> {
        let index = self.repo.index()?;
        let mut files = index_paths(&index, scope);
        for pathspec in per_prefix(scope) {
            let mut opts = DiffOptions::new();
            opts.include_untracked(true).recurse_untracked_dirs(true);
            restrict(&mut opts, pathspec);
            let diff = self
                .repo
                .diff_index_to_workdir(Some(&index), Some(&mut opts))?;
            for delta in diff.deltas() {
                if delta.status() == Delta::Untracked
                    && let Some(path) = delta.new_file().path().and_then(Path::to_str)
                {
                    files.push(path.to_string());
                }
            }
        }
        Ok(universe(files))
    }

    /// The same list as [`GitRepo::files`], with the untracked files taken
    /// from `changes`, a change set already computed over the same `scope`
    /// (an untracked file is a change: added since any base), so the work
    /// tree is walked once instead of twice. A changed path that is not in
    /// the index and not deleted is untracked.
    pub fn files_with(
        &self,
        scope: &Scope,
        changes: &super::ChangeSet<'_>,
    ) -> Result<Vec<String>, ChangeError> {
        let index = self.repo.index()?;
        let mut files = index_paths(&index, scope);
        files.extend(
            changes
                .files
                .iter()
                .filter(|f| f.status != ChangeKind::Deleted && scope.contains(&f.path))
                .map(|f| f.path.clone()),
        );
        Ok(universe(files))
    }

    /// Whether some file of the repository now, below `prefix` (the whole
    /// repository without one), passes `test`: an index entry not in
    /// `gone`, or one of `added` (files the index does not hold, such as
    /// untracked ones, from a change set already computed), the cache
    /// folder left out as [`GitRepo::files`] leaves it. Stops at the first,
    /// and reads only the index entries below the prefix.
    pub fn any_file(
        &self,
        prefix: Option<&str>,
        gone: &std::collections::HashSet<&str>,
        added: &[&str],
        test: &dyn Fn(&str) -> bool,
    ) -> Result<bool, ChangeError> {
        let counts = |path: &str| !gone.contains(path) && !is_under(path, CACHE_DIR) && test(path);
        if added.iter().any(|p| counts(p)) {
            return Ok(true);
        }
        let index = self.repo.index()?;
        let scope = prefix.map_or(Scope::Everything, |p| Scope::Prefixes(vec![p.to_string()]));
        Ok(index::index_entries_in(&index, &scope)
            .any(|entry| std::str::from_utf8(&entry.path).is_ok_and(counts)))
    }
}

/// A file list as [`GitRepo::files`] answers it: without the cache folder,
/// sorted, each once.
fn universe(mut files: Vec<String>) -> Vec<String> {
    files.retain(|p| !is_under(p, CACHE_DIR));
    files.sort();
    files.dedup();
    files
}

/// Make libgit2 read the ignore and attribute rules, and the configuration
/// that names their files (`core.excludesFile`, `core.attributesFile`),
/// afresh on their next use: it reads that configuration once per
/// repository object and keeps it, so a long-lived server would go on
/// using an excludes file an included or shared config no longer names.
/// `git_attr_cache_flush` is libgit2's public API (`git2/attr.h`), not
/// bound by the `git2` crate.
pub(super) fn flush_attribute_cache(repo: &Repository) {
    unsafe extern "C" {
        fn git_attr_cache_flush(repo: *mut std::ffi::c_void) -> std::ffi::c_int;
    }
    let raw = git2::Binding::raw(repo).cast::<std::ffi::c_void>();
    // SAFETY: `raw` is the live repository `repo` borrows; the function
    // swaps the cache pointer out atomically and frees it; no other thread
    // uses this repository meanwhile (`git2::Repository` is not `Sync`),
    // and nothing of ours keeps a reference into that cache between calls.
    unsafe {
        git_attr_cache_flush(raw);
    }
}
