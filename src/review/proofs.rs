//! Every quiet verdict notarai gives (a changed file it does not show for
//! review) and what it proves: the one table the tools' answers name
//! (`quiet_proofs`), the README lists and `tests/it/quiet_proofs.rs` holds
//! to. The rule behind them: a verdict is quiet only when the change
//! provably cannot alter what the spec governs; when notarai is not sure,
//! it shows the change.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::{AffectedSpecs, Quiet, ReconciliationStatus, SpecDiff};

/// A quiet verdict, named as the answers' lists and reasons name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QuietVerdict {
    /// `formatting_only`: the same program.
    FormattingOnly,
    /// `outside_anchors`: no anchored symbol touched or rebound.
    OutsideAnchors,
    /// `since_reconciled`: shown from the content last reviewed.
    SinceReconciled,
    /// `skipped`: the content reviewed already.
    Skipped,
    /// `already_read`: read earlier in this pass.
    AlreadyRead,
    /// `versions` (in `housekeeping_reasons`): only pins moved.
    Versions,
    /// `tests_only` (in `housekeeping_reasons`): only the spec's evidence.
    TestsOnly,
    /// `spec_tier` (in `housekeeping_reasons`): a spec with nothing to check.
    SpecTier,
    /// `artifact_tier` (in `housekeeping_reasons`): a tier 3 or 4 artifact.
    ArtifactTier,
}

impl QuietVerdict {
    /// Every quiet verdict, in the order the README lists them.
    pub const ALL: [QuietVerdict; 9] = [
        QuietVerdict::FormattingOnly,
        QuietVerdict::OutsideAnchors,
        QuietVerdict::SinceReconciled,
        QuietVerdict::Skipped,
        QuietVerdict::AlreadyRead,
        QuietVerdict::Versions,
        QuietVerdict::TestsOnly,
        QuietVerdict::SpecTier,
        QuietVerdict::ArtifactTier,
    ];

    /// The name the answers use.
    pub fn name(self) -> &'static str {
        match self {
            QuietVerdict::FormattingOnly => "formatting_only",
            QuietVerdict::OutsideAnchors => "outside_anchors",
            QuietVerdict::SinceReconciled => "since_reconciled",
            QuietVerdict::Skipped => "skipped",
            QuietVerdict::AlreadyRead => "already_read",
            QuietVerdict::Versions => "versions",
            QuietVerdict::TestsOnly => "tests_only",
            QuietVerdict::SpecTier => "spec_tier",
            QuietVerdict::ArtifactTier => "artifact_tier",
        }
    }

    /// Whether the verdict follows from a record alone (a review recorded
    /// for this content, or the agent's own `already_read`), with no
    /// judgement of the change: its proof is written once in
    /// `get_spec_diff`'s description ([`record_proofs`]), which the agent
    /// holds from `tools/list`, and is not restated in every answer. A
    /// verdict that judges the change (its content, its pins, its files'
    /// tiers) names its proof in each answer that gives it.
    pub fn is_record(self) -> bool {
        matches!(
            self,
            QuietVerdict::SinceReconciled | QuietVerdict::Skipped | QuietVerdict::AlreadyRead
        )
    }

    /// What the verdict proves, in one sentence.
    pub fn proof(self) -> &'static str {
        match self {
            QuietVerdict::FormattingOnly => {
                "both sides parse without error to the same program: equal syntax trees with every \
                 token the language treats as code kept (statement-ending newlines, indentation, \
                 strings, code comments); the old side is the base's content or a proven review's"
            }
            QuietVerdict::OutsideAnchors => {
                "no hunk changes (either side) an anchored symbol's or its owners' own lines, \
                 unparsed lines or data an anchor mentions; no line may rebind an anchored name \
                 or alias; no top-level statement may stop or guard one; each anchor keeps its \
                 program"
            }
            QuietVerdict::SinceReconciled => {
                "the diff starts at the content last reviewed for this spec, from a cache row \
                 recorded on this line of work after the merge base and hashing to its review, \
                 never from the committed state; whether to show the file was judged from the \
                 merge base"
            }
            QuietVerdict::Skipped => {
                "the content hashes to a review for this spec recorded after the merge base: a \
                 cache row on this line of work, or a record the branch adds to the state (a \
                 claim `check` lists); one the base's state holds counts only if it held the \
                 base's content"
            }
            QuietVerdict::AlreadyRead => {
                "you passed `path@id` in `already_read` with the id its content has now (from an \
                 earlier answer's `read_ids`): that diff was read; a bare path or an older id gets \
                 the diff again"
            }
            QuietVerdict::Versions => {
                "in a file with a pin form, every changed line is the same pin as the line it \
                 replaced with only a version or commit hash moved, and no constraint or invariant \
                 names the file"
            }
            QuietVerdict::TestsOnly => {
                "only tests the spec lists changed for it, the spec did not, and its constraints \
                 and invariants name none of them"
            }
            QuietVerdict::SpecTier => {
                "the spec is registered or derived and states no constraints or invariants, and \
                 no cross-cutting spec applies to it (by its own `applies` or a parent's), in its \
                 text now and at the merge base"
            }
            QuietVerdict::ArtifactTier => {
                "every artifact matching the file has tier 3 or 4, and no constraint or invariant \
                 names it, in the spec's text now and at the merge base"
            }
        }
    }
}

impl From<Quiet> for QuietVerdict {
    fn from(quiet: Quiet) -> QuietVerdict {
        match quiet {
            Quiet::Versions => QuietVerdict::Versions,
            Quiet::TestsOnly => QuietVerdict::TestsOnly,
            Quiet::SpecTier => QuietVerdict::SpecTier,
            Quiet::ArtifactTier => QuietVerdict::ArtifactTier,
        }
    }
}

/// The proofs of `verdicts` (each once), keyed by verdict: what an answer
/// page that gives them carries in `quiet_proofs`. A record verdict's
/// proof is in the tool's description ([`record_proofs`]), not repeated
/// here.
pub fn proofs_of(
    verdicts: impl IntoIterator<Item = QuietVerdict>,
) -> BTreeMap<QuietVerdict, &'static str> {
    verdicts
        .into_iter()
        .filter(|v| !v.is_record())
        .map(|v| (v, v.proof()))
        .collect()
}

/// The proofs of the record verdicts ([`QuietVerdict::is_record`]), as
/// `get_spec_diff`'s description ends: where the agent reads them once.
pub fn record_proofs() -> String {
    let each: Vec<String> = QuietVerdict::ALL
        .into_iter()
        .filter(|v| v.is_record())
        .map(|v| format!("`{}`: {}", v.name(), v.proof()))
        .collect();
    format!(
        "Proofs of the verdicts a record gives (not repeated in `quiet_proofs`): {}.",
        each.join("; ")
    )
}

// What verdicts each answer (or page) gives, from its lists.

impl SpecDiff {
    /// The quiet verdicts this answer (or page) gives.
    pub fn quiet_verdicts(&self) -> Vec<QuietVerdict> {
        let mut out: Vec<QuietVerdict> = [
            (
                !self.formatting_only.is_empty(),
                QuietVerdict::FormattingOnly,
            ),
            (
                !self.outside_anchors.is_empty(),
                QuietVerdict::OutsideAnchors,
            ),
            (
                !self.since_reconciled.is_empty(),
                QuietVerdict::SinceReconciled,
            ),
            (
                !self.skipped.is_empty() || self.skipped_count > 0,
                QuietVerdict::Skipped,
            ),
            (!self.already_read.is_empty(), QuietVerdict::AlreadyRead),
        ]
        .into_iter()
        .filter_map(|(given, v)| given.then_some(v))
        .collect();
        out.extend(
            self.housekeeping_reasons
                .values()
                .map(|&q| QuietVerdict::from(q)),
        );
        out.sort();
        out.dedup();
        out
    }
}

impl AffectedSpecs {
    /// The quiet verdicts this answer (or page) gives.
    pub fn quiet_verdicts(&self) -> Vec<QuietVerdict> {
        match self.formatting_only.is_empty() {
            true => Vec::new(),
            false => vec![QuietVerdict::FormattingOnly],
        }
    }
}

impl ReconciliationStatus {
    /// The quiet verdicts this answer (or page) gives.
    pub fn quiet_verdicts(&self) -> Vec<QuietVerdict> {
        let mut out: Vec<QuietVerdict> = self
            .specs
            .iter()
            .flat_map(|s| s.housekeeping_reasons.values())
            .map(|&q| QuietVerdict::from(q))
            .collect();
        if !self.formatting_only.is_empty() {
            out.push(QuietVerdict::FormattingOnly);
        }
        out.sort();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_verdict_serializes_as_its_name_and_has_a_proof() {
        for v in QuietVerdict::ALL {
            assert_eq!(serde_json::to_value(v).unwrap(), v.name());
            assert!(v.proof().len() > 20 && v.proof().len() < 260, "{v:?}");
        }
        for q in [
            Quiet::Versions,
            Quiet::TestsOnly,
            Quiet::SpecTier,
            Quiet::ArtifactTier,
        ] {
            assert_eq!(
                serde_json::to_value(q).unwrap(),
                QuietVerdict::from(q).name()
            );
        }
    }
}
