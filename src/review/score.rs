//! A drift score's parts and their sum: the typed answer `notarai score`,
//! the status tool and the pull-request comment share (computed in
//! `check::score`, which knows the check's findings and lint).

use schemars::JsonSchema;
use serde::Serialize;

/// Points per unit of each part, and the cap on its count.
pub const WEIGHTS: &[(&str, u64, u64)] = &[
    ("unreconciled_anchored", 3, u64::MAX),
    ("unreconciled_files", 1, u64::MAX),
    ("open_drift_notes", 4, u64::MAX),
    ("lint_errors", 3, u64::MAX),
    ("lint_warnings", 1, u64::MAX),
    ("commits_since_reconciled", 1, 20),
    ("days_since_reconciled", 1, 30),
];

/// One part of a score.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ScorePart {
    /// Which part (`unreconciled_anchored`, ...).
    pub part: &'static str,
    /// How many (before the cap).
    pub count: u64,
    /// Points per one.
    pub weight: u64,
    /// `min(count, cap) * weight`.
    pub points: u64,
}

/// One spec's score.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecScore {
    /// The spec.
    pub spec_path: String,
    /// The sum of its parts' points.
    pub score: u64,
    /// The parts with points, in [`WEIGHTS`]' order.
    pub parts: Vec<ScorePart>,
}

impl SpecScore {
    /// The score of `spec_path` from the count of each part, in
    /// [`WEIGHTS`]' order: each part capped and weighed, the parts with
    /// points kept, their points summed.
    pub fn from_counts(spec_path: String, counts: [u64; 7]) -> SpecScore {
        let parts: Vec<ScorePart> = WEIGHTS
            .iter()
            .zip(counts)
            .filter(|(_, count)| *count > 0)
            .map(|(&(part, weight, cap), count)| ScorePart {
                part,
                count,
                weight,
                points: count.min(cap) * weight,
            })
            .collect();
        SpecScore {
            spec_path,
            score: parts.iter().map(|p| p.points).sum(),
            parts,
        }
    }
}
