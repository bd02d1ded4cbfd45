//! Writing the rule files (`notarai rules`): every file the specs give the
//! chosen agents written, each of notarai's files whose spec is gone
//! removed; every write checked before the first is made, so a refused one
//! leaves everything as it was. A user's own files are never touched.

use std::path::Path;

use crate::agent::AgentId;
use crate::agent::rules::rules;
use crate::safe_fs;
use crate::spec::SpecSet;

use super::{existing, expected};

/// What `notarai rules` did to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Written where there was none.
    Created,
    /// Rewritten: it no longer matched its spec.
    Updated,
    /// Already what the spec gives.
    Unchanged,
    /// Removed: its spec is gone.
    Removed,
}

impl Outcome {
    /// The word for people.
    pub fn describe(self) -> &'static str {
        match self {
            Outcome::Created => "created",
            Outcome::Updated => "updated",
            Outcome::Unchanged => "unchanged",
            Outcome::Removed => "removed",
        }
    }
}

/// One file and what was done to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    /// The agent that reads it.
    pub agent: AgentId,
    /// The file, relative to the root.
    pub rel: String,
    /// What was done.
    pub outcome: Outcome,
}

/// The plan for `agents` at `root`: each file with its outcome and, for a
/// write, its text. Agents without path-scoped rules are skipped.
pub fn plan(root: &Path, set: &SpecSet, agents: &[AgentId]) -> Vec<(Written, Option<String>)> {
    let mut out = Vec::new();
    for files in agents.iter().filter_map(|id| rules(*id)) {
        let have = existing(root, files);
        for want in expected(set, files) {
            let old = have.iter().find(|h| h.rel == want.rel);
            let exists = root.join(&want.rel).symlink_metadata().is_ok();
            let outcome = match old {
                Some(h) if h.text == want.text => Outcome::Unchanged,
                Some(_) => Outcome::Updated,
                // A file of that name that is not notarai's is the user's.
                None if exists => continue,
                None => Outcome::Created,
            };
            let text = (outcome != Outcome::Unchanged).then_some(want.text);
            out.push((
                Written {
                    agent: files.id,
                    rel: want.rel,
                    outcome,
                },
                text,
            ));
        }
        let want: Vec<String> = expected(set, files).into_iter().map(|w| w.rel).collect();
        for h in have.into_iter().filter(|h| !want.contains(&h.rel)) {
            out.push((
                Written {
                    agent: files.id,
                    rel: h.rel,
                    outcome: Outcome::Removed,
                },
                None,
            ));
        }
    }
    out
}

/// Apply a [`plan`]: every write checked first ([`safe_fs::check_write`]),
/// then each file written atomically or removed.
pub fn apply(root: &Path, plan: &[(Written, Option<String>)]) -> Result<(), safe_fs::FsError> {
    for (file, text) in plan {
        if text.is_some() {
            safe_fs::check_write(root, Path::new(&file.rel))?;
        }
    }
    for (file, text) in plan {
        match (file.outcome, text) {
            (Outcome::Removed, _) => {
                safe_fs::remove_file(root, Path::new(&file.rel))?;
            }
            (_, Some(text)) => safe_fs::write_file(root, Path::new(&file.rel), text.as_bytes())?,
            _ => {}
        }
    }
    Ok(())
}
