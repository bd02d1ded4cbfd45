//! A file edited in formatting or comments only after a proven review
//! (issue 42): the verdict from the merge base shows it (its code changed
//! since the base), but a review that counts ([`crate::state`]'s one rule,
//! `line.rs`) covered the change from the base to the content it names,
//! and the content now has that content's program: nothing in it is
//! unreviewed, so it needs no review for that spec.
//!
//! Only a file the base's verdict shows, modified or added in place (not
//! deleted, not the old path of a rename), with a proven review for the
//! spec that names a blob git's object store has and that hashes to the
//! review, is read again. Both contents must parse cleanly and be the same
//! program by [`crate::symbols::Outline::same_program`], the comparison behind
//! `formatting_only` from the base. Anything else: no verdict, the file
//! stays shown.

use super::*;

/// Whether `now`, the content of `path` now, has the same program
/// ([`crate::symbols::Outline::same_program`], as [`Sides::formatting_only`]) as one of `reviewed`, the contents of
/// `path` proven reviews for a spec name ([`Reconciled::proven_contents`]).
pub fn same_as_reviewed(git: &GitRepo, path: &str, reviewed: &[Vec<u8>], now: &[u8]) -> bool {
    crate::state::same_program_as_any(git.symbols(), path, reviewed, now)
}

/// The content of the changed `path` now, when it is there in place (not
/// deleted, not renamed, as a "since reconciled" diff) and can be read: the work
/// tree's, or the index's for a skip-worktree entry.
pub fn content_in_place(
    root: &Path,
    git: &GitRepo,
    changes: &ChangeSet<'_>,
    path: &str,
) -> Option<Vec<u8>> {
    changes
        .files
        .iter()
        .find(|f| f.path == path && f.old_path.is_none() && f.status != ChangeKind::Deleted)?;
    match git.skip_worktree_content(path) {
        Some(bytes) => Some(bytes),
        None => crate::safe_fs::read(root, Path::new(path), MAX_DIFF_FILE).ok(),
    }
}

/// [`narrow`]'s second step: drop from each file's affected specs those
/// whose proven review it has the program of ([`same_as_reviewed`]); a
/// file that no spec is left affected by this way joins `formatting_only`.
pub(super) fn quiet_reviewed(
    root: &Path,
    git: &GitRepo,
    changes: &ChangeSet<'_>,
    governance: &Governance,
    known: &Reconciled,
    out: &mut Narrowed,
) {
    for (path, kept) in &mut out.affected {
        if kept.is_empty() || Lang::of_path(path).is_none() {
            continue;
        }
        let now = OnceCellBytes::default();
        let before = kept.len();
        kept.retain(|&g| {
            let reviewed = known.proven_contents(git, governance.spec_path(g), path);
            reviewed.is_empty()
                || !now
                    .get(|| content_in_place(root, git, changes, path))
                    .is_some_and(|now| same_as_reviewed(git, path, &reviewed, now))
        });
        if kept.is_empty() && before > 0 {
            out.formatting_only.push(path.clone());
        }
    }
    out.formatting_only.sort();
    out.formatting_only.dedup();
}

/// A content read at most once.
#[derive(Default)]
struct OnceCellBytes(std::cell::OnceCell<Option<Vec<u8>>>);

impl OnceCellBytes {
    /// The content, read by `read` the first time.
    fn get(&self, read: impl FnOnce() -> Option<Vec<u8>>) -> Option<&[u8]> {
        self.0.get_or_init(read).as_deref()
    }
}
