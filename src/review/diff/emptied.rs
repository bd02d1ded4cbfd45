//! The spec's artifact globs a change leaves matching nothing
//! (`emptied_globs`): a glob that matched a file the change deletes and
//! matches no file there now.

use std::collections::HashSet;

use super::{Result, SpecDiff, Work};
use crate::changes::{ChangeKind, ChangedFile};
use crate::spec;

impl Work<'_, '_> {
    /// The spec's artifact globs that matched a file this change deletes
    /// and now match none (`emptied_globs`): only looked for when the spec
    /// has a deleted file, over the repository's files as they are (the
    /// index less what the whole change set deletes or moves away, plus
    /// what it adds), each glob below its literal prefix and until its
    /// first match, so a module's spec looks at its folder only.
    pub(super) fn emptied_globs(
        &self,
        out: &mut SpecDiff,
        candidates: &[(&ChangedFile, Vec<&str>)],
    ) -> Result<()> {
        let deleted: Vec<&str> = candidates
            .iter()
            .filter(|(f, _)| f.status == ChangeKind::Deleted && self.moved(f).is_none())
            .flat_map(|(_, governed)| governed.iter().copied())
            .collect();
        let Some(whole) = self.whole.filter(|_| !deleted.is_empty()) else {
            return Ok(());
        };
        let mut gone: HashSet<&str> = HashSet::new();
        let mut added: Vec<&str> = Vec::new();
        for file in &whole.files {
            match file.status {
                ChangeKind::Deleted => {
                    gone.insert(&file.path);
                }
                _ => added.push(&file.path),
            }
            if file.status == ChangeKind::Renamed
                && let Some(old) = &file.old_path
            {
                gone.insert(old);
            }
        }
        let spec = &self.specs.set.specs[self.index].spec;
        let mut failed = None;
        out.emptied_globs = spec::emptied_globs(spec, &deleted, &mut |prefix, test| {
            self.git
                .any_file(prefix, &gone, &added, test)
                .unwrap_or_else(|e| {
                    failed.get_or_insert(e);
                    true
                })
        });
        match failed {
            Some(e) => Err(e.into()),
            None => Ok(()),
        }
    }
}
