//! Change detection on git, through libgit2 (no `git` program needed).
//!
//! "Changed on this branch" means: what differs between the merge base of
//! the base revision and `HEAD`, and the working tree as it is now. That
//! counts committed, staged, unstaged and untracked (not ignored) changes,
//! additions and deletions, and both paths of a rename. Work done on the base
//! branch after the branch point is not the branch's own and is not counted.
//!
//! Every question is restricted to a [`Scope`](crate::governance::Scope):
//! a diff of one spec's files hands libgit2 the literal prefixes of the
//! spec's globs, so it neither walks nor stats the rest of the working tree.

use std::path::PathBuf;

use git2::Oid;

mod blob;
mod cache_tree;
mod diff;
mod exact;
mod fence;
mod folders;
mod kept;
mod repo;
mod scan;

pub use blob::BlobRead;
pub use diff::{ChangeSet, patch_between, text_patch_between};
pub use repo::{GitRepo, keep_trees_cached, tracked_cache_message};

/// A changed file larger than this is not loaded into memory for a diff;
/// it is reported in a list of its own.
pub const MAX_DIFF_FILE: u64 = crate::hashing::MAX_HASHED;

/// Why change detection failed.
#[derive(Debug, thiserror::Error)]
pub enum ChangeError {
    /// The root is not inside a git repository.
    #[error(
        "{} is not in a git repository; change detection needs git (run `git init` and commit)",
        .0.display()
    )]
    NotARepository(PathBuf),
    /// The repository has no working tree.
    #[error(
        "{} is a bare git repository with no working tree; run notarai in a checkout",
        .0.display()
    )]
    Bare(PathBuf),
    /// The root is inside a work tree but not at its top.
    #[error(
        "{} is inside the git work tree {} but not at its top; run notarai with --root {}",
        root.display(),
        workdir.display(),
        workdir.display()
    )]
    NotTopLevel {
        /// The project root given.
        root: PathBuf,
        /// The top of the git work tree.
        workdir: PathBuf,
    },
    /// The base revision does not resolve; `branches` lists some local ones.
    #[error(
        "base branch `{base}` does not resolve to a commit in this repository; {}",
        if branches.is_empty() {
            "the repository has no local branches yet".to_string()
        } else {
            format!("local branches: {}", branches.join(", "))
        }
    )]
    BaseNotFound {
        /// The revision as given.
        base: String,
        /// Some local branch names, to help the caller.
        branches: Vec<String>,
    },
    /// The base revision is empty or malformed.
    #[error("invalid base branch: {0}")]
    BadBase(String),
    /// A shallow clone lacks the history to find the merge base.
    #[error(
        "this is a shallow clone and the merge base of `{0}` and HEAD is not in its history; run `git fetch --unshallow`"
    )]
    Shallow(String),
    /// libgit2 failed.
    #[error("git: {}", .0.message())]
    Git(git2::Error),
}

impl From<git2::Error> for ChangeError {
    fn from(e: git2::Error) -> Self {
        ChangeError::Git(e)
    }
}

impl crate::error::Diagnose for ChangeError {
    /// The base is the caller's (as opposed to an internal failure).
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            ChangeError::BaseNotFound { .. } | ChangeError::BadBase(_) => {
                crate::error::ErrorKind::InvalidInput
            }
            _ => crate::error::ErrorKind::Internal,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            ChangeError::BaseNotFound { .. } => Some(
                "pass the branch this work will merge into (`git branch -a` lists them); \
                 a remote one is written `origin/<name>`"
                    .into(),
            ),
            ChangeError::BadBase(_) => Some("pass a branch name such as `main`".into()),
            _ => None,
        }
    }
}

/// A base revision resolved against `HEAD`.
#[derive(Debug, Clone)]
pub struct Base {
    /// The revision as given.
    pub name: String,
    /// The merge base of the base and `HEAD`; `None` when `HEAD` has no
    /// commit yet or the histories are unrelated (then everything is new).
    pub merge_base: Option<Oid>,
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// New (committed, staged or untracked).
    Added,
    /// Content or mode changed.
    Modified,
    /// Gone from the working tree.
    Deleted,
    /// Moved (old and new path both reported).
    Renamed,
    /// Changed kind (file, link, submodule).
    Typechange,
    /// Unmerged.
    Conflicted,
}

impl ChangeKind {
    /// The status as it is serialized (`added`, `modified`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Renamed => "renamed",
            ChangeKind::Typechange => "typechange",
            ChangeKind::Conflicted => "conflicted",
        }
    }
}

/// One changed file of a [`ChangeSet`].
#[derive(Debug, Clone)]
pub struct ChangedFile {
    /// Path now (the new path of a rename).
    pub path: String,
    /// The old path of a rename.
    pub old_path: Option<String>,
    /// How it changed.
    pub status: ChangeKind,
    /// Index of the diff (one per scope prefix) holding this file.
    diff: usize,
    /// Index of the delta in that diff.
    delta: usize,
    /// For a conflicted file, index of its delta in the tree-to-work-tree
    /// diff that shows the file's content (see [`ChangeSet`]).
    conflict_delta: Option<usize>,
}

impl ChangedFile {
    /// The path and, for a rename, the old path.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.path.as_str()).chain(self.old_path.as_deref())
    }
}

/// The text of one file's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Patch {
    /// A unified diff in git's format (`diff --git a/.. b/..` and hunks).
    Text(String),
    /// Binary content: never put into diff text.
    Binary,
    /// Larger than [`MAX_DIFF_FILE`]: not loaded.
    TooLarge,
}

/// A changed file whose name is not UTF-8: notarai cannot name it in an
/// answer, take it as a tool parameter, or match it against a spec's globs,
/// so it is reported as unreviewable instead of being left out silently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unnameable {
    /// The name with every invalid byte replaced by U+FFFD.
    pub lossy_path: String,
    /// How it changed.
    pub status: ChangeKind,
}
