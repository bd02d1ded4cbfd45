//! Where a shown diff starts: since the content last reconciled for the
//! spec when a proven review names one (`since_reconciled`), else the merge
//! base; and both sides of a changed file, from which its verdict is made.

use super::{Result, Shown, SpecDiff, Work, symbolic};
use crate::changes::{ChangedFile, Patch};
use crate::state::Reconciled;

impl Work<'_, '_> {
    /// The patch to show of a file the verdict shows: since the content
    /// last reconciled when there is one and it keeps a hunk (formatting
    /// included: the verdict is made, nothing is hidden any more), else
    /// `base` (the file then leaves `since_reconciled`).
    pub(super) fn since_view(
        &self,
        out: &mut SpecDiff,
        file: &ChangedFile,
        base: Patch,
        since: Option<Shown>,
        anchors: &Option<Vec<&crate::symbols::Anchor>>,
    ) -> Patch {
        let Some((sides, patch)) = since else {
            return base;
        };
        match symbolic::view(sides.as_ref(), patch, anchors.as_deref(), true) {
            symbolic::View::Show(Patch::Text(t), _) if t.is_empty() => {}
            symbolic::View::Show(patch, _) => return patch,
            _ => {}
        }
        out.since_reconciled.retain(|p| *p != file.path);
        base
    }

    /// Both sides of `file` (for its symbols) and its patch, from which the
    /// verdict is made: as the rename it is when it moved out of the
    /// spec's files, or since the base; and, when it is kept and asked
    /// for, both sides and the patch since the content last reconciled for
    /// this spec (what is shown).
    pub(super) fn sides_and_patch(
        &self,
        out: &mut SpecDiff,
        file: &ChangedFile,
    ) -> Result<(Option<symbolic::Sides>, Patch, Option<Shown>)> {
        let since = (self.params.since == crate::review::Since::Reconciled)
            .then(|| {
                since_reconciled(
                    self.root,
                    self.git,
                    file,
                    self.known.as_ref()?,
                    self.spec_path,
                )
            })
            .flatten();
        if since.is_some() {
            out.since_reconciled.push(file.path.clone());
        }
        Ok(match self.moved(file) {
            Some(renamed) => {
                out.moved_out
                    .insert(file.path.clone(), renamed.path.clone());
                let whole = self.whole.expect("a move was found in it");
                (
                    symbolic::sides(self.root, self.git, self.base, renamed),
                    whole.patch(renamed)?,
                    None,
                )
            }
            None => (
                symbolic::sides(self.root, self.git, self.base, file),
                self.changes.patch(file)?,
                since,
            ),
        })
    }
}

/// The diff of `file` from the content last reconciled for `spec` to the
/// work tree's, with both sides outlined: `None` when the file is not
/// modified in place, no reviewed content is kept, or it cannot be read
/// (the diff then starts from the base).
fn since_reconciled(
    root: &std::path::Path,
    git: &crate::changes::GitRepo,
    file: &crate::changes::ChangedFile,
    known: &Reconciled,
    spec: &str,
) -> Option<Shown> {
    if file.old_path.is_some()
        || !matches!(
            file.status,
            crate::changes::ChangeKind::Modified | crate::changes::ChangeKind::Added
        )
    {
        return None;
    }
    let blob = known.reviewed_blob(spec, &file.path)?;
    let old = crate::state::reviewed_content(git, blob)?;
    let new = crate::safe_fs::read(
        root,
        std::path::Path::new(&file.path),
        crate::changes::MAX_DIFF_FILE,
    )
    .ok()?;
    let patch = crate::changes::patch_between(&file.path, &old, &new).ok()?;
    Some((
        symbolic::sides_of(git.symbols(), &file.path, &old, &new),
        patch,
    ))
}
