//! What `notarai init` plans, as values: each file's change and its
//! [`Outcome`], a file it cannot read or merge ([`InitError`]), the merge
//! driver's part, and the whole [`Plan`].

use std::path::PathBuf;

use super::agents;

/// What `notarai init` does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The file does not exist and is written.
    Created,
    /// The file exists and its content changes.
    Updated,
    /// The file is left as it is.
    Unchanged,
    /// The file differs from notarai's version but is kept: edited, foreign
    /// or newer (see the note).
    Kept,
    /// An edited or foreign file replaced (`--force`, or a schema older than
    /// notarai's), after a backup.
    Replaced,
    /// The file held only what notarai wrote, and is deleted (`--remove`).
    Removed,
}

impl Outcome {
    /// The word for the report, `would` form for a dry run.
    pub fn describe(self, dry_run: bool) -> &'static str {
        match (self, dry_run) {
            (Outcome::Created, false) => "created",
            (Outcome::Updated, false) => "updated",
            (Outcome::Created, true) => "would create",
            (Outcome::Updated, true) => "would update",
            (Outcome::Replaced, false) => "replaced",
            (Outcome::Replaced, true) => "would replace",
            (Outcome::Kept, false) => "kept",
            (Outcome::Kept, true) => "would keep",
            (Outcome::Removed, false) => "removed",
            (Outcome::Removed, true) => "would remove",
            (Outcome::Unchanged, _) => "unchanged",
        }
    }
}

/// One file of the plan.
#[derive(Debug, Clone)]
pub struct FileChange {
    /// Path relative to the root, with forward slashes.
    pub rel: String,
    /// What happens to it.
    pub status: Outcome,
    /// Why, when the status alone does not say it (a kept or replaced file).
    pub note: Option<String>,
    /// The new content, when the file is written.
    pub(super) contents: Option<String>,
    /// The content before, when the file existed.
    pub(super) before: Option<String>,
}

impl FileChange {
    /// The file's text before (`None`: it does not exist).
    pub fn before(&self) -> Option<&str> {
        self.before.as_deref()
    }

    /// The file's text after (`None`: it is deleted or does not exist).
    pub fn after(&self) -> Option<&str> {
        match self.status {
            Outcome::Removed => None,
            _ => self.contents.as_deref().or(self.before.as_deref()),
        }
    }

    /// Plan `new` as the file's text (an edit after an earlier one).
    pub(super) fn set_after(&mut self, new: String) {
        (self.status, self.contents) = match self.before.as_deref() {
            Some(old) if old == new => (Outcome::Unchanged, None),
            Some(_) => (Outcome::Updated, Some(new)),
            None => (Outcome::Created, Some(new)),
        };
    }

    /// Plan the file to be deleted (or, when it did not exist, left absent).
    pub(super) fn set_deleted(&mut self) {
        self.contents = None;
        self.status = match self.before {
            Some(_) => Outcome::Removed,
            None => Outcome::Unchanged,
        };
    }

    /// Whether applying the plan writes or deletes this file.
    pub fn changes(&self) -> bool {
        self.contents.is_some() || self.status == Outcome::Removed
    }
}

/// A file `notarai init` could not read or merge: reported, left untouched,
/// and its agent is not set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{}", at_position(*position, message))]
pub struct InitError {
    /// Path relative to the root.
    pub path: String,
    /// 1-based line and column of a JSON parse error.
    pub position: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

/// `line:column: message`, or ` message` without a position (after the
/// file name and its colon).
fn at_position(position: Option<(usize, usize)>, message: &str) -> String {
    match position {
        Some((line, column)) => format!("{line}:{column}: {message}"),
        None => format!(" {message}"),
    }
}

impl InitError {
    /// The problem of a JSON file that cannot be merged.
    pub(super) fn from_merge(path: &str, error: agents::merge::MergeError) -> InitError {
        let path = path.to_string();
        match error {
            agents::merge::MergeError::Parse {
                line,
                column,
                message,
            } => InitError {
                message: match path.ends_with(".toml") {
                    true => format!("not valid TOML: {message}"),
                    false => format!("not valid JSON: {message}"),
                },
                path,
                position: Some((line, column)),
            },
            agents::merge::MergeError::Shape(message) => InitError {
                path,
                position: None,
                message: format!("unexpected shape: {message}"),
            },
        }
    }
}

impl crate::error::Diagnose for InitError {}

/// Everything `notarai init` would do at a root.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The project root.
    pub root: PathBuf,
    /// Each file, in report order.
    pub files: Vec<FileChange>,
    /// The merge driver of the state file: what registering it would change.
    pub merge_driver: MergeDriver,
    /// The agents set up (or taken out), each with why.
    pub agents: Vec<(agents::AgentId, agents::Reason)>,
    /// What the user still does by hand (a user-level file notarai does not
    /// write, trust prompts), one line each.
    pub notes: Vec<String>,
    /// Files that could not be read or edited: reported and left untouched,
    /// while everything else is planned.
    pub problems: Vec<InitError>,
}

/// The merge driver part of the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeDriver {
    /// The root is a git work tree's top: what would change (nothing when
    /// both the attribute and the config are there).
    Planned {
        /// Whether `.gitattributes` existed before.
        attributes_existed: bool,
        /// What [`crate::state::register_merge_driver`] would change.
        setup: crate::state::MergeDriverSetup,
        /// `.gitattributes` before and after, when the line is added.
        attributes: Option<(String, String)>,
    },
    /// Not registered, and why (not in git, not the work tree's top, git failed).
    Skipped(String),
    /// `--remove`: whether the local git config names notarai's driver
    /// (it is then unset; the `.gitattributes` line is a planned file).
    Unregister {
        /// `merge.notarai.driver` is set to notarai's command.
        configured: bool,
    },
}

impl MergeDriver {
    /// Whether registering writes anything.
    pub fn changes(&self) -> bool {
        match self {
            MergeDriver::Planned { setup, .. } => {
                setup.gitattributes_added || setup.driver_configured
            }
            MergeDriver::Unregister { configured } => *configured,
            MergeDriver::Skipped(_) => false,
        }
    }
}

impl Plan {
    /// Whether applying the plan writes nothing.
    pub fn is_noop(&self) -> bool {
        self.files.iter().all(|f| !f.changes()) && !self.merge_driver.changes()
    }
}
