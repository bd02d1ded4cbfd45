//! The decision log: why a divergence between a spec and its files was
//! accepted, or which side was changed, recorded with a review
//! (`mark_reconciled`'s `decision`, `notarai reconcile --decision`) in the
//! committed state (`decisions`), merged by the merge driver like the
//! rest, listed by `notarai decisions`, the status tool and the pull
//! request comment. A log: a decision is never closed.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Result, ReviewError};
use crate::state::{self, Decision};

/// Longest decision, in characters (as a drift note).
pub const MAX_DECISION: usize = super::MAX_NOTE;

/// A decision with the spec it is about.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecDecision {
    /// The spec it is about.
    pub spec_path: String,
    /// The decision as recorded.
    #[serde(flatten)]
    pub decision: Decision,
}

/// The decision text, checked: trimmed, not empty, not too long.
pub fn checked(decision: &str) -> Result<&str> {
    let text = decision.trim();
    if text.is_empty() {
        return Err(ReviewError::invalid("decision: empty").hinted(
            "say why the divergence was accepted, or which side (spec or code) was changed; omit `decision` when there is none",
        ));
    }
    if text.chars().count() > MAX_DECISION {
        return Err(ReviewError::invalid(format!(
            "decision: longer than {MAX_DECISION} characters"
        ))
        .hinted("keep the decision to the why; the diff shows the rest"));
    }
    Ok(text)
}

/// Record `decision` (already [`checked`]) for each of `specs`, with the
/// files reviewed, in the state file. Returns how many were recorded.
pub fn record(
    root: &std::path::Path,
    specs: &[&str],
    decision: &str,
    paths: &[String],
    branch: Option<String>,
) -> Result<usize> {
    if specs.is_empty() {
        return Ok(0);
    }
    let mut current = super::drift::read_for_write(root)?;
    let at = format!(
        "{}Z",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    );
    let mut paths = paths.to_vec();
    paths.sort();
    paths.dedup();
    for spec in specs {
        current.add_decision(spec, decision, paths.clone(), at.clone(), branch.clone());
    }
    state::write(root, &current.upgraded()).map_err(ReviewError::from)?;
    Ok(specs.len())
}

/// Every decision of `state` (of one spec when given), by spec then in the
/// order recorded.
pub fn decisions_of(state: &state::State, spec: Option<&str>) -> Vec<SpecDecision> {
    state
        .decisions
        .iter()
        .filter(|(s, _)| spec.is_none_or(|want| want.trim_start_matches("./") == s.as_str()))
        .flat_map(|(s, list)| {
            list.iter().map(|d| SpecDecision {
                spec_path: s.clone(),
                decision: d.clone(),
            })
        })
        .collect()
}

/// The decisions of `current` that `at_base` (the state at the merge base)
/// does not have: those recorded on this branch.
pub fn added_since(current: &state::State, at_base: &state::State) -> Vec<SpecDecision> {
    decisions_of(current, None)
        .into_iter()
        .filter(|d| {
            !at_base
                .decisions
                .get(&d.spec_path)
                .is_some_and(|list| list.iter().any(|b| b.id == d.decision.id))
        })
        .collect()
}
