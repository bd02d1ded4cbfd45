//! Agent-reported drift (`report_drift`): what an agent noticed about a
//! spec and was not asked to fix, kept in the committed state file
//! (`drift_notes`) so teammates and CI see it, listed by
//! `get_reconciliation_status` and `notarai check`, and closed when that
//! spec is next reconciled ([`close_for`], called by `mark_reconciled`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Result, ReviewError, spec_index};
use crate::project::Project;
use crate::repo_path::Guard;
use crate::state::{self, State, StateError};

/// The longest note kept, in characters.
pub const MAX_NOTE: usize = 2000;

/// Most paths one note names.
const MAX_NOTE_PATHS: usize = 50;

/// Parameters of `report_drift`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ReportDriftParams {
    /// The spec that drifted, e.g. `.notarai/auth.spec.yaml`.
    pub spec_path: String,
    /// What drifted, in a sentence or two: a behavior the code no longer
    /// has, a constraint it breaks, a statement that is no longer true (at
    /// most 2,000 characters).
    pub note: String,
    /// The files concerned, relative to the repository root (at most 50).
    #[serde(default)]
    pub paths: Vec<String>,
}

/// Result of `report_drift`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DriftReported {
    /// The spec the note is about.
    pub spec_path: String,
    /// The note's id (the same note reported twice is kept once).
    pub id: String,
    /// How many notes are open for this spec now.
    pub open_notes: usize,
    /// The state file holding the notes: commit it so teammates and CI see them.
    pub state_file: String,
}

/// One open drift note as the status and `check` list it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OpenDrift {
    /// The spec it is about.
    pub spec_path: String,
    /// The note.
    #[serde(flatten)]
    pub note: state::DriftNote,
}

/// Every open note of `state`, by spec then in the order reported.
pub fn open_notes(state: &State) -> Vec<OpenDrift> {
    state
        .drift_notes
        .iter()
        .flat_map(|(spec, notes)| {
            notes.iter().map(|n| OpenDrift {
                spec_path: spec.clone(),
                note: n.clone(),
            })
        })
        .collect()
}

/// The MCP tool `report_drift`: keep the note in the state file.
pub fn report_drift(project: &mut Project, params: &ReportDriftParams) -> Result<DriftReported> {
    let specs = project.specs();
    let index = spec_index(project, &specs, &params.spec_path)?;
    let spec_path = specs.governance().spec_path(index).to_string();
    let note = params.note.trim();
    if note.is_empty() {
        return Err(ReviewError::invalid("note: empty").hinted(
            "say what drifted: the behavior, constraint or statement that no longer holds",
        ));
    }
    if note.chars().count() > MAX_NOTE {
        return Err(
            ReviewError::invalid(format!("note: longer than {MAX_NOTE} characters"))
                .hinted("keep the note to what drifted; the diff shows the rest"),
        );
    }
    if params.paths.len() > MAX_NOTE_PATHS {
        return Err(ReviewError::invalid(format!(
            "paths: {} paths, more than the {MAX_NOTE_PATHS} a note names",
            params.paths.len()
        )));
    }
    let root = project.root().to_path_buf();
    let mut guard = Guard::new(&root);
    let mut paths = Vec::with_capacity(params.paths.len());
    for input in &params.paths {
        let path = guard.given("paths", input).map_err(ReviewError::from)?;
        paths.push(path.into_string());
    }
    paths.sort();
    paths.dedup();
    let mut state = read_for_write(&root)?;
    let at = format!("{}Z", now_secs());
    let id = state.add_drift(&spec_path, note, paths, at);
    state::write(&root, &state.upgraded()).map_err(ReviewError::from)?;
    let state = state::read_lenient(&root);
    Ok(DriftReported {
        open_notes: state.drift_notes.get(&spec_path).map_or(0, Vec::len),
        spec_path,
        id,
        state_file: state::STATE_FILE.into(),
    })
}

/// Close the drift notes of `specs` (they were just reconciled): rewrite
/// the state file without them when it has any. Returns how many closed.
pub fn close_for(root: &std::path::Path, specs: &[&str]) -> Result<usize> {
    let current = state::read_lenient(root);
    if !specs.iter().any(|s| current.drift_notes.contains_key(*s)) {
        return Ok(0);
    }
    let mut state = read_for_write(root)?;
    let closed = state.close_drift(specs.iter().copied());
    if closed > 0 {
        state::write(root, &state).map_err(ReviewError::from)?;
    }
    Ok(closed)
}

/// The state file to change: a missing one is empty; a malformed one is
/// refused (it would be overwritten).
pub(super) fn read_for_write(root: &std::path::Path) -> Result<State> {
    match state::read(root) {
        Ok(Some(loaded)) => Ok(loaded.state),
        Ok(None) => Ok(State::empty()),
        Err(e @ StateError::Malformed { .. }) => Err(ReviewError::invalid(e.to_string())
            .hinted("fix the state file (or rewrite it with `notarai state snapshot --force`), then report again")),
        Err(e) => Err(ReviewError::from(e)),
    }
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
