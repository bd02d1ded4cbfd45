//! The git repository at the project root: opening it, resolving the base,
//! the changes within a scope, skip-worktree entries and the file list.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use git2::{Delta, Diff, DiffOptions, ErrorCode, Repository};

use super::diff::{
    SKIP_WORKTREE, collect_files, find_renames, per_prefix, restrict, work_tree_diff_options,
};
use super::{Base, ChangeError, ChangeKind, ChangeSet, ChangedFile, MAX_DIFF_FILE};
use crate::glob::is_under;
use crate::governance::Scope;
use crate::hashing::FileHash;
use crate::layout::CACHE_DIR;

/// A git repository opened at the project root.
pub struct GitRepo {
    pub(super) repo: Repository,
    pub(super) root: PathBuf,
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
        })
    }

    /// The underlying libgit2 repository.
    pub fn raw(&self) -> &Repository {
        &self.repo
    }

    /// Resolve a base revision (branch, remote branch, tag or commit) and its
    /// merge base with `HEAD`.
    pub fn resolve_base(&self, name: &str) -> Result<Base, ChangeError> {
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
        let pathspecs = per_prefix(scope);
        let mut diffs = Vec::with_capacity(pathspecs.len());
        let mut files = Vec::new();
        let mut unnameable = Vec::new();
        for pathspec in pathspecs {
            let mut opts = work_tree_diff_options();
            restrict(&mut opts, pathspec);
            let mut diff = self
                .repo
                .diff_tree_to_workdir_with_index(tree.as_ref(), Some(&mut opts))?;
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
            files,
            unnameable,
        })
    }

    /// The paths within `scope` that the index marks skip-worktree. An
    /// index of version 2 holds no such flag, which is the common case and
    /// costs nothing; otherwise the entries below each prefix are read.
    fn skip_worktree_in(&self, scope: &Scope) -> Result<Vec<String>, ChangeError> {
        let index = self.repo.index()?;
        if index.version() < 3 {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        let mut take = |entry: git2::IndexEntry| {
            if entry.flags_extended & SKIP_WORKTREE != 0
                && let Ok(path) = String::from_utf8(entry.path)
                && scope.contains(&path)
            {
                out.push(path);
            }
        };
        match scope {
            Scope::Everything => index.iter().for_each(&mut take),
            Scope::Prefixes(prefixes) => {
                for prefix in prefixes {
                    let Ok(start) = index.find_prefix(prefix.as_str()) else {
                        continue;
                    };
                    for entry in (start..index.len()).map_while(|i| index.get(i)) {
                        if !entry.path.starts_with(prefix.as_bytes()) {
                            break;
                        }
                        take(entry);
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// A file the index marks skip-worktree (outside a sparse checkout) is
    /// absent from the work tree on purpose, and git reads its content from
    /// the index. libgit2's work-tree diff sees it as deleted; replace those
    /// entries with a diff from the tree to the index over exactly those
    /// paths, so a committed change shows as what it is and an unchanged
    /// file not checked out is not a change at all.
    fn use_index_for_skip_worktree<'r>(
        &'r self,
        scope: &Scope,
        tree: Option<&git2::Tree<'r>>,
        renames: bool,
        diffs: &mut Vec<Diff<'r>>,
        files: &mut Vec<ChangedFile>,
    ) -> Result<(), ChangeError> {
        let skipped = self.skip_worktree_in(scope)?;
        if skipped.is_empty() {
            return Ok(());
        }
        let is_skipped = |p: &str| skipped.binary_search_by(|s| s.as_str().cmp(p)).is_ok();
        // The other side of a rename paired with a skipped path is diffed
        // again on its own.
        let mut orphans: Vec<String> = Vec::new();
        files.retain(|f| {
            let hit = f.paths().any(is_skipped);
            if hit {
                orphans.extend(f.paths().filter(|p| !is_skipped(p)).map(str::to_string));
            }
            !hit
        });
        let mut unnameable = Vec::new();
        let mut opts = DiffOptions::new();
        opts.context_lines(3)
            .include_typechange(true)
            .max_size(MAX_DIFF_FILE as i64)
            .disable_pathspec_match(true);
        for path in &skipped {
            opts.pathspec(path);
        }
        let index = self.repo.index()?;
        let mut from_index = self
            .repo
            .diff_tree_to_index(tree, Some(&index), Some(&mut opts))?;
        if renames {
            // From the tree to the index: nothing is read from the work tree.
            find_renames(&mut from_index, None)?;
        }
        collect_files(&from_index, diffs.len(), files, &mut unnameable);
        diffs.push(from_index);
        if !orphans.is_empty() {
            let mut opts = work_tree_diff_options();
            opts.disable_pathspec_match(true);
            for path in &orphans {
                opts.pathspec(path);
            }
            let rest = self
                .repo
                .diff_tree_to_workdir_with_index(tree, Some(&mut opts))?;
            collect_files(&rest, diffs.len(), files, &mut unnameable);
            diffs.push(rest);
        }
        Ok(())
    }

    /// For each of `paths` that the index marks skip-worktree (not checked
    /// out), the content git holds for it: the staged blob, hashed the way
    /// [`crate::hashing`] hashes a file in the work tree (a link's target
    /// text, a submodule's commit), so a later checkout of the same content
    /// matches. Paths not marked are absent from the map.
    pub fn skip_worktree_hashes(&self, paths: &[&str]) -> HashMap<String, FileHash> {
        let mut out = HashMap::new();
        let Ok(index) = self.repo.index() else {
            return out;
        };
        for path in paths {
            let Some(entry) = index.get_path(Path::new(path), 0) else {
                continue;
            };
            if entry.flags_extended & SKIP_WORKTREE == 0 {
                continue;
            }
            let hash = if entry.mode == 0o160000 {
                FileHash::Content(format!("commit:{}", entry.id))
            } else {
                match self.repo.find_blob(entry.id) {
                    Ok(blob) => {
                        FileHash::Content(blake3::hash(blob.content()).to_hex().to_string())
                    }
                    Err(_) => continue,
                }
            };
            out.insert(path.to_string(), hash);
        }
        out
    }

    /// The staged content of `path` when the index marks it skip-worktree
    /// (not checked out); `None` for any other path.
    pub fn skip_worktree_content(&self, path: &str) -> Option<Vec<u8>> {
        let index = self.repo.index().ok()?;
        let entry = index.get_path(Path::new(path), 0)?;
        if entry.flags_extended & SKIP_WORKTREE == 0 || entry.mode == 0o160000 {
            return None;
        }
        Some(self.repo.find_blob(entry.id).ok()?.content().to_vec())
    }

    /// The paths below notarai's cache folder that git tracks (in the index):
    /// a cache database that came with the repository is not trusted.
    pub fn tracked_cache_files(&self) -> Vec<String> {
        let Ok(index) = self.repo.index() else {
            return Vec::new();
        };
        let prefix = format!("{CACHE_DIR}/");
        let Ok(start) = index.find_prefix(prefix.as_str()) else {
            return Vec::new();
        };
        (start..index.len())
            .map_while(|i| index.get(i))
            .map(|e| String::from_utf8_lossy(&e.path).into_owned())
            .take_while(|p| p.starts_with(&prefix))
            .collect()
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
        let mut files: Vec<String> = index
            .iter()
            .filter_map(|entry| String::from_utf8(entry.path).ok())
            .filter(|p| scope.contains(p))
            .collect();
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
        files.retain(|p| !is_under(p, CACHE_DIR));
        files.sort();
        files.dedup();
        Ok(files)
    }
}
