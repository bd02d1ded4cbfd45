//! The base changes are counted from: given, the last reconciliation on the
//! default branch, or the default branch.

use super::*;
use crate::error::{Diagnose, ErrorKind};

/// The branches tried, in order, when no base is given.
pub const DEFAULT_BASES: [&str; 4] = ["main", "origin/main", "master", "origin/master"];

/// Why no base could be chosen.
#[derive(Debug, thiserror::Error)]
pub enum BaseError {
    /// No base given and none of [`DEFAULT_BASES`] exists.
    #[error(
        "no base branch: none of {} exists; pass the branch this one merges into with --base",
        DEFAULT_BASES.join(", ")
    )]
    NoBase,
    /// git failed, or the base does not resolve.
    #[error("{0}")]
    Git(crate::changes::ChangeError),
}

impl Diagnose for BaseError {
    fn kind(&self) -> ErrorKind {
        match self {
            BaseError::NoBase => ErrorKind::InvalidInput,
            BaseError::Git(e) => e.kind(),
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            BaseError::NoBase => None,
            BaseError::Git(e) => e.hint(),
        }
    }
}

/// How the base was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BaseSource {
    /// Given by the caller.
    Explicit,
    /// The committed state's `last_reconciliation.git_hash` (on the default branch).
    LastReconciliation,
    /// The first of `main`, `origin/main`, `master`, `origin/master` that exists.
    DefaultBranch,
}

/// The base a check or status used.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UsedBase {
    /// The revision (a branch name or a commit).
    pub name: String,
    /// How it was chosen.
    pub source: BaseSource,
    /// The merge base with `HEAD` changes are counted from (`null`: none, every file is new).
    pub merge_base: Option<String>,
}

/// Choose and resolve the base: `explicit` when given, else as the module
/// header says. `state` is the committed state (for `last_reconciliation`).
pub fn choose_base(
    git: &GitRepo,
    state: &State,
    explicit: Option<&str>,
) -> Result<(Base, UsedBase), BaseError> {
    let used = |base: Base, source| {
        let merge_base = base.merge_base.map(|o| o.to_string());
        let name = base.name.clone();
        (
            base,
            UsedBase {
                name,
                source,
                merge_base,
            },
        )
    };
    if let Some(name) = explicit {
        return Ok(used(
            git.resolve_base(name).map_err(BaseError::Git)?,
            BaseSource::Explicit,
        ));
    }
    let repo = git.raw();
    let exists = |name: &str| {
        repo.revparse_single(name)
            .is_ok_and(|o| o.peel_to_commit().is_ok())
    };
    let default = DEFAULT_BASES.iter().copied().find(|b| exists(b));
    let (_, branch) = head_of(git);
    let on_default = match (&branch, default) {
        (Some(branch), Some(default)) => default.trim_start_matches("origin/") == branch,
        _ => false,
    };
    if on_default
        && let Some(hash) = state
            .last_reconciliation
            .as_ref()
            .and_then(|l| l.git_hash.as_deref())
        && let Ok(oid) = git2::Oid::from_str(hash)
        && let Ok(head) = repo.head().and_then(|h| h.peel_to_commit())
        && repo.find_commit(oid).is_ok()
        && (head.id() == oid || repo.graph_descendant_of(head.id(), oid).unwrap_or(false))
    {
        return Ok(used(
            git.resolve_base(hash).map_err(BaseError::Git)?,
            BaseSource::LastReconciliation,
        ));
    }
    match default {
        Some(name) => Ok(used(
            git.resolve_base(name).map_err(BaseError::Git)?,
            BaseSource::DefaultBranch,
        )),
        None => Err(BaseError::NoBase),
    }
}
