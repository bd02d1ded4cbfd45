//! The specs' texts a `get_spec_diff` answer carries: each changed spec
//! file whole (`spec_changes`, read without following links), and the
//! spec's own text (`spec`) and the system spec's once per pass: left out
//! while the agent says it holds them (`specs_read`, `path@text_id`).

use super::{SpecDiff, SpecFile, SpecSays, SystemSpec};
use crate::changes::GitRepo;
use crate::project::Specs;
use crate::spec;

/// The changed spec file at `path` whole (empty and `deleted` when gone).
pub(super) fn changed(git: &GitRepo, root: &std::path::Path, path: &str) -> SpecFile {
    let bytes = git
        .skip_worktree_content(path)
        .or_else(|| read_unfollowed(root, path));
    let (content, deleted) = match bytes {
        Some(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), false),
        None => (String::new(), true),
    };
    SpecFile {
        path: path.to_string(),
        content,
        deleted,
    }
}

/// Add to `out` (its `spec_changes` sorted) spec `index`'s text, when
/// there is something to judge against it and its file is not in
/// `spec_changes` (whose text is whole), and the system spec's when a spec
/// file changed: each left out when `specs_read` holds it.
pub(super) fn add(out: &mut SpecDiff, specs: &Specs, index: usize, specs_read: &[String]) {
    let loaded = &specs.set.specs[index];
    let own_changed = out.spec_changes.iter().any(|s| s.path == loaded.path);
    if (!out.files.is_empty() || !out.already_read.is_empty()) && !own_changed {
        if holds(specs_read, &loaded.path, &loaded.raw) {
            out.spec_held = true;
        } else {
            let spec = &loaded.spec;
            out.spec = Some(SpecSays {
                intent: spec.intent.clone(),
                behaviors: spec.behaviors.clone(),
                constraints: spec.constraints.clone(),
                invariants: spec.invariants.clone(),
                text_id: text_id(&loaded.raw),
            });
        }
    }
    if !out.spec_changes.is_empty()
        && let Some(system) = specs.set.system_spec()
    {
        let included = out.spec_changes.iter().any(|s| s.path == system.path);
        let held = holds(specs_read, &system.path, &system.raw);
        out.system_spec = Some(SystemSpec {
            path: system.path.clone(),
            content: (!included && !held).then(|| system.raw.clone()),
            text_id: (!included).then(|| text_id(&system.raw)),
        });
    }
}

/// Whether `specs_read` says the agent holds the text `raw` of the spec at
/// `path`: `path` alone, or `path@id` with the id of `raw`.
fn holds(specs_read: &[String], path: &str, raw: &str) -> bool {
    let id = std::cell::OnceCell::new();
    specs_read.iter().any(|held| match held.split_once('@') {
        Some((p, given)) => p == path && given == id.get_or_init(|| text_id(raw)),
        None => held == path,
    })
}

/// The id of a spec file's text: 12 hex digits of its BLAKE3.
fn text_id(raw: &str) -> String {
    blake3::hash(raw.as_bytes()).to_hex()[..12].to_string()
}

/// A file's content as git sees it: a symbolic link is its target text,
/// never what it points to (which may lie outside the repository), and a
/// path through a linked folder is not there. `None` when nothing is there.
fn read_unfollowed(root: &std::path::Path, rel: &str) -> Option<Vec<u8>> {
    // The one bounded, non-blocking reader: a spec swapped for a FIFO, a
    // device or a huge file is described, never opened or read whole.
    match crate::safe_fs::read_unfollowed(root, rel, spec::MAX_BYTES as u64) {
        Ok(bytes) => Some(bytes),
        Err(crate::safe_fs::FsError::NotFound { .. }) => None,
        Err(e) => Some(format!("(notarai did not read this file: {e})").into_bytes()),
    }
}
