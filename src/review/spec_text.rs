//! The specs' texts a `get_spec_diff` answer carries: each changed spec
//! file whole (`spec_changes`, read without following links), and the
//! spec's own text (`spec`), the cross-cutting specs it applies (`applied`)
//! and the system spec's once per pass: left out while the agent says it
//! holds them (`specs_read`, `path@text_id` with the id of the text now; a
//! bare path holds nothing, so a spec changed since it was read comes again).

use schemars::JsonSchema;
use serde::Serialize;

use super::SpecDiff;
use crate::changes::GitRepo;
use crate::project::Specs;
use crate::spec;
use crate::spec::Behavior;

/// What a spec says, to judge a diff against: its intent, behaviors,
/// constraints and invariants.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecSays {
    /// The spec's intent.
    pub intent: String,
    /// Its behaviors as written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub behaviors: Vec<Behavior>,
    /// Its constraints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
    /// Its invariants.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<String>,
    /// An id of the spec file's text (BLAKE3, 12 hex digits): pass
    /// `path@text_id` in `specs_read` while you hold this text.
    pub text_id: String,
}

/// A cross-cutting spec applied to the spec of a `get_spec_diff` answer.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AppliedSpec {
    /// Path of the cross-cutting spec the rules come from.
    pub path: String,
    /// Its constraints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
    /// Its invariants.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<String>,
    /// An id of its text (as `SpecSays::text_id`), for `specs_read`.
    pub text_id: String,
    /// `true` when its texts were left out because `specs_read` holds
    /// `path@text_id`: judge the diff against the text you have.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub held: bool,
}

/// A spec file and its full content.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecFile {
    /// Path of the spec file. A spec longer than a page comes in consecutive
    /// entries with the same path: join their `content`, and their `diff`.
    pub path: String,
    /// Full text of the file (empty when deleted).
    pub content: String,
    /// The file's unified diff against the merge base (absent for a spec new
    /// on the branch): what the branch changed in it, a tier or anchor
    /// loosened included. The changes it governs are judged by both texts.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// `true` when the spec file was deleted on this branch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
}

/// The system spec as returned by `get_spec_diff`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SystemSpec {
    /// Path of the system spec.
    pub path: String,
    /// Full text; absent when the same content is already in `spec_changes`,
    /// or when `specs_read` says you hold it.
    /// A system spec longer than a page comes on consecutive pages: join them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// An id of its text (as `SpecSays::text_id`), for `specs_read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_id: Option<String>,
}

/// The changed spec file at `path` whole (empty and `deleted` when gone),
/// with its diff against the merge base of `base`.
pub(super) fn changed(
    git: &GitRepo,
    base: &crate::changes::Base,
    root: &std::path::Path,
    path: &str,
) -> SpecFile {
    let bytes = git
        .skip_worktree_content(path)
        .or_else(|| read_unfollowed(root, path));
    let (content, deleted) = match bytes {
        Some(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), false),
        None => (String::new(), true),
    };
    let limit = spec::MAX_BYTES as u64;
    let diff = match git.read_at_base(base, path, limit) {
        crate::changes::BlobRead::Bytes(old) => {
            match crate::changes::patch_between(path, &old, content.as_bytes()) {
                Ok(crate::changes::Patch::Text(text)) => text,
                _ => String::new(),
            }
        }
        crate::changes::BlobRead::TooLarge(size) => {
            format!(
                "(notarai did not read the base's text: {size} bytes, over the limit for a spec)"
            )
        }
        crate::changes::BlobRead::Absent => String::new(),
    };
    SpecFile {
        path: path.to_string(),
        content,
        diff,
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
        out.applied = applied(specs, &loaded.path, specs_read);
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

/// The cross-cutting specs applied to the spec at `path` (its own
/// `applies` and its parents'), each with its constraints and invariants,
/// or `held` when `specs_read` holds its text now.
fn applied(specs: &Specs, path: &str, specs_read: &[String]) -> Vec<AppliedSpec> {
    let lineage = spec::Lineage::of(&specs.set);
    spec::applied_specs(&specs.set, &lineage, path)
        .into_iter()
        .map(|cross| {
            let held = holds(specs_read, &cross.path, &cross.raw);
            let (constraints, invariants) = match held {
                true => (Vec::new(), Vec::new()),
                false => (
                    cross.spec.constraints.clone(),
                    cross.spec.invariants.clone(),
                ),
            };
            AppliedSpec {
                path: cross.path.clone(),
                constraints,
                invariants,
                text_id: text_id(&cross.raw),
                held,
            }
        })
        .collect()
}

/// Whether `specs_read` says the agent holds the text `raw` of the spec at
/// `path`: `path@id` with the id of `raw` now. A bare `path` holds
/// nothing: it cannot tell which text was read, so the text is served.
fn holds(specs_read: &[String], path: &str, raw: &str) -> bool {
    let id = std::cell::OnceCell::new();
    specs_read.iter().any(|held| {
        held.rsplit_once('@')
            .is_some_and(|(p, given)| p == path && given == id.get_or_init(|| text_id(raw)))
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
