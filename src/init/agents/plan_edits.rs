//! The edits a plan is made of, on [`Planner`]: a merge into a file
//! (keeping a byte order mark), a removal edit, a generated file written
//! or taken out, notarai's section taken out of an instruction file. Each
//! reads the file's current text, or what an earlier step of the plan made
//! of it.

use super::merge::{Change, MergeError};
use crate::init::{InitError, Planner, claude_md, generated};

/// The byte order mark some Windows editors put at the start of a file.
const BOM: char = '\u{feff}';

/// `f` applied to `old` without its byte order mark, which the result keeps:
/// the parsers never see the mark, and no byte of the file is lost.
fn keeping_bom(
    old: Option<&str>,
    f: impl FnOnce(Option<&str>) -> Result<Option<String>, MergeError>,
) -> Result<Option<String>, MergeError> {
    match old.and_then(|t| t.strip_prefix(BOM)) {
        Some(body) => Ok(f(Some(body))?.map(|new| format!("{BOM}{new}"))),
        None => f(old),
    }
}

/// [`keeping_bom`] for a removal edit.
fn change_keeping_bom(
    old: &str,
    f: impl FnOnce(&str) -> Result<Change, MergeError>,
) -> Result<Change, MergeError> {
    let Some(body) = old.strip_prefix(BOM) else {
        return f(old);
    };
    Ok(match f(body)? {
        Change::Unchanged => Change::Unchanged,
        Change::Write(new) => Change::Write(format!("{BOM}{new}")),
        Change::Delete(rest) => Change::Delete(format!("{BOM}{rest}")),
    })
}

impl Planner<'_> {
    /// Plan an edit of `rel` from its current text (or what an earlier step
    /// of this plan made of it); a parse or shape error is a problem and the
    /// file is left alone.
    pub(crate) fn edit(
        &mut self,
        rel: &str,
        f: impl FnOnce(Option<&str>) -> Result<Option<String>, MergeError>,
    ) {
        if self.problems.iter().any(|e| e.path == rel) {
            return;
        }
        if let Some(i) = self.files.iter().position(|x| x.rel == rel) {
            let current = self.files[i].after().map(str::to_string);
            match keeping_bom(current.as_deref(), f) {
                Ok(Some(new)) => self.files[i].set_after(new),
                Ok(None) => {}
                Err(e) => self.problems.push(InitError::from_merge(rel, e)),
            }
            return;
        }
        let Ok(existing) = self.read(rel) else { return };
        match keeping_bom(existing.as_deref(), f) {
            Ok(new) => self.record(rel, existing.as_deref(), new),
            Err(e) => self.problems.push(InitError::from_merge(rel, e)),
        }
    }

    /// Plan a removal edit of `rel` (nothing when it does not exist).
    pub(crate) fn change(&mut self, rel: &str, f: impl FnOnce(&str) -> Result<Change, MergeError>) {
        if self.problems.iter().any(|e| e.path == rel) {
            return;
        }
        let planned = self.files.iter().position(|x| x.rel == rel);
        let current = match planned {
            Some(i) => match self.files[i].after() {
                Some(t) => t.to_string(),
                None => return,
            },
            None => match self.read(rel) {
                Ok(Some(t)) => t,
                _ => return,
            },
        };
        let change = match change_keeping_bom(&current, f) {
            Ok(c) => c,
            Err(e) => return self.problems.push(InitError::from_merge(rel, e)),
        };
        match (change, planned) {
            (Change::Unchanged, None) => self.record(rel, Some(&current), None),
            (Change::Unchanged, Some(_)) => {}
            (Change::Write(new), Some(i)) => self.files[i].set_after(new),
            (Change::Write(new), None) => self.record(rel, Some(&current), Some(new)),
            // A link stays: what is left is written through it.
            (Change::Delete(rest), Some(i)) if self.is_link(rel) => self.files[i].set_after(rest),
            (Change::Delete(rest), None) if self.is_link(rel) => {
                self.record(rel, Some(&current), Some(rest))
            }
            (Change::Delete(_), Some(i)) => self.files[i].set_deleted(),
            (Change::Delete(_), None) => self.delete(rel, &current),
        }
    }

    /// Whether `rel` is a symbolic link.
    fn is_link(&self, rel: &str) -> bool {
        self.root
            .join(rel)
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
    }

    /// Plan the removal of a generated file notarai wrote and nobody
    /// edited; an edited one is kept, with a note.
    pub(crate) fn remove_generated(&mut self, rel: &str) {
        if self.files.iter().any(|f| f.rel == rel) {
            return;
        }
        if !rel.ends_with(generated::NEW_SUFFIX) {
            // notarai's proposal beside a kept file is notarai's too.
            let beside = format!("{rel}{}", generated::NEW_SUFFIX);
            if let Ok(Some(text)) = self.read(&beside)
                && generated::origin(&text) == generated::Origin::Unedited
            {
                self.delete(&beside, &text);
            }
        }
        let Ok(Some(text)) = self.read(rel) else {
            return;
        };
        match generated::origin(&text) {
            generated::Origin::Unedited => self.delete(rel, &text),
            origin => {
                let why = match origin {
                    generated::Origin::Edited => "edited since notarai wrote it",
                    _ => "not written by notarai",
                };
                self.push(
                    rel,
                    crate::init::Outcome::Kept,
                    None,
                    Some(format!(
                        "{why}, so it is kept; delete it yourself if you want it gone"
                    )),
                );
            }
        }
    }

    /// Plan the removal of `rel` when its text is exactly `text`.
    pub(crate) fn remove_if_equal(&mut self, rel: &str, text: &str) {
        let Ok(Some(current)) = self.read(rel) else {
            return;
        };
        if current == text {
            self.delete(rel, &current);
        } else {
            self.push(
                rel,
                crate::init::Outcome::Kept,
                None,
                Some("changed since notarai wrote it, so it is kept".into()),
            );
        }
    }

    /// Plan taking notarai's unedited section out of an instruction file.
    pub(crate) fn remove_section(&mut self, rel: &str) {
        // Through a link inside the work tree, the section is in the
        // target, which is someone's file: emptied, it is kept.
        let target = self.link_target(rel);
        let linked = target.is_some();
        let rel = target.as_deref().unwrap_or(rel);
        if self.files.iter().any(|f| f.rel == rel) {
            return;
        }
        let beside = format!("{rel}{}", generated::NEW_SUFFIX);
        if let Ok(Some(text)) = self.read(&beside)
            && matches!(claude_md::remove(&text), claude_md::Removal::Text(_))
        {
            self.delete(&beside, &text);
        }
        let Ok(Some(text)) = self.read(rel) else {
            return;
        };
        match claude_md::remove(&text) {
            claude_md::Removal::Absent => {}
            claude_md::Removal::Edited => self.push(
                rel,
                crate::init::Outcome::Kept,
                None,
                Some("notarai's section was edited, so it is kept".into()),
            ),
            claude_md::Removal::Text(new) if new.is_empty() && !linked => self.delete(rel, &text),
            claude_md::Removal::Text(new) => self.record(rel, Some(&text), Some(new)),
        }
    }

    /// Plan a generated file: `body` notarai's text, `stamped` with its marker.
    pub(crate) fn generated_text(&mut self, rel: &str, body: &str, stamped: String) {
        if self.files.iter().any(|f| f.rel == rel) {
            return;
        }
        let Ok(existing) = self.read(rel) else { return };
        let replaces = existing
            .as_deref()
            .map(|old| crate::init::own_origin(old, body));
        self.generated(rel, existing.as_deref(), stamped, replaces);
    }
}
