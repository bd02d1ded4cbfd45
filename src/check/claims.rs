//! The claims a branch makes in the committed state: every record it adds
//! or changes relative to the state file at the merge base, and every drift
//! note it closes. A record in the state makes a change quiet (reconciled,
//! since-reconciled); written by the branch under review, it is the
//! branch's own word, so `check` lists each one with its spec for the
//! reviewer of the pull request, in every output format.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::changes::{Base, GitRepo};
use crate::governance::Governance;
use crate::record::split_key;
use crate::spec::SpecSet;
use crate::state::{self, HashKind, State};

/// How a branch changed a record of the committed state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ClaimChange {
    /// Not in the base's state file.
    Added,
    /// In the base's state file with another hash, hash kind, blob or
    /// `reviewed_after`.
    Changed,
    /// In the base's state file and gone on this branch (a drift note closed).
    Removed,
}

impl ClaimChange {
    /// The word a person reads (`added`, `changed`, `removed`).
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimChange::Added => "added",
            ClaimChange::Changed => "changed",
            ClaimChange::Removed => "removed",
        }
    }
}

/// Which record of the state file a claim is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClaimRecord {
    /// `file_fingerprints`: a file reviewed for every spec governing it.
    FileFingerprint,
    /// `spec_fingerprints`: a spec file reviewed.
    SpecFingerprint,
    /// `spec_reviews`: a file (or one symbol of it) reviewed for one spec.
    SpecReview,
    /// `drift_notes`: a note of drift nobody fixed, closed by the branch.
    DriftNote,
}

impl ClaimRecord {
    /// What the record says, for a person.
    pub fn describe(self) -> &'static str {
        match self {
            ClaimRecord::FileFingerprint => "reviewed for every spec",
            ClaimRecord::SpecFingerprint => "spec reviewed",
            ClaimRecord::SpecReview => "reviewed for this spec",
            ClaimRecord::DriftNote => "drift note closed",
        }
    }
}

/// A record the branch added or changed in the state file, or a drift note
/// it closed, relative to the state at the merge base: "this was marked
/// reviewed on this branch", for reviewers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Claim {
    /// The file (for a drift note: the spec it is about).
    pub path: String,
    /// The symbol, for a symbol-level review (`spec_reviews` key `path#symbol`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Which record of the state file.
    pub record: ClaimRecord,
    /// Added, changed or removed.
    pub change: ClaimChange,
    /// The hash claimed (`deleted` for a file reviewed while deleted; a
    /// drift note: its id).
    pub fingerprint: String,
    /// How the hash was computed, when not the bytes' BLAKE3 (`semantic`:
    /// formatting changes stay reconciled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash_kind: Option<String>,
    /// A closed drift note's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The specs the claim is for: the spec of a per-spec review or drift
    /// note, else the specs governing the file (empty when none does).
    pub specs: Vec<String>,
}

/// The state at the merge base of `base` (empty when there is none, or
/// when it cannot be read: every record then counts as the branch's).
pub fn state_at_base(git: &GitRepo, base: &Base) -> State {
    let Some(oid) = base.merge_base else {
        return State::default();
    };
    match state::read_at(git, oid) {
        Ok(loaded) => loaded.map(|l| l.state).unwrap_or_default(),
        Err(e) => {
            tracing::warn!("{e}; every entry of the state file counts as added on this branch");
            State::default()
        }
    }
}

/// Every claim of `state` (the work tree's) against `before` (the merge
/// base's), sorted by path, symbol and record.
pub fn claims(state: &State, before: &State, governance: &Governance, set: &SpecSet) -> Vec<Claim> {
    let governors = |path: &str| -> Vec<String> {
        governance
            .governors(path)
            .into_iter()
            .map(|g| set.specs[g].path.clone())
            .collect()
    };
    let mut out = fingerprint_claims(state, before, &governors);
    out.extend(review_claims(state, before, &governors));
    out.extend(closed_notes(state, before));
    out.sort_by(|a, b| {
        (&a.path, &a.symbol, a.record, &a.specs, &a.fingerprint).cmp(&(
            &b.path,
            &b.symbol,
            b.record,
            &b.specs,
            &b.fingerprint,
        ))
    });
    out
}

use crate::state::Identity;

/// How a record changed from `old` (absent: not in the base) to `new`;
/// `None` when it is the base's own.
fn change(old: Option<Identity>, new: Identity) -> Option<ClaimChange> {
    match old {
        None => Some(ClaimChange::Added),
        Some(old) if old != new => Some(ClaimChange::Changed),
        Some(_) => None,
    }
}

/// The file and spec fingerprints the branch added or changed.
fn fingerprint_claims(
    state: &State,
    before: &State,
    governors: &dyn Fn(&str) -> Vec<String>,
) -> Vec<Claim> {
    let mut out = Vec::new();
    for (path, f) in &state.file_fingerprints {
        let (Some(new), old) = (
            state.fingerprint_identity(path),
            before.fingerprint_identity(path),
        ) else {
            continue;
        };
        if let Some(change) = change(old, new) {
            out.push(Claim {
                path: path.clone(),
                symbol: None,
                record: ClaimRecord::FileFingerprint,
                change,
                fingerprint: f.blake3.clone(),
                hash_kind: None,
                note: None,
                specs: governors(path),
            });
        }
    }
    for (path, hash) in &state.spec_fingerprints {
        let old = before.fingerprint_identity(path);
        if let Some(change) = change(old, (hash.as_str(), "bytes", None, None)) {
            out.push(Claim {
                path: path.clone(),
                symbol: None,
                record: ClaimRecord::SpecFingerprint,
                change,
                fingerprint: hash.clone(),
                hash_kind: None,
                note: None,
                specs: governors(path),
            });
        }
    }
    out
}

/// The per-spec reviews (by spec, kind and symbol) the branch added or
/// changed.
fn review_claims(
    state: &State,
    before: &State,
    governors: &dyn Fn(&str) -> Vec<String>,
) -> Vec<Claim> {
    let mut out = Vec::new();
    for (spec, reviews) in &state.spec_reviews {
        for (key, review) in reviews {
            let old = before.review_identity(spec, key);
            let new = state::review_identity(review);
            let Some(change) = change(old, new) else {
                continue;
            };
            let (path, symbol) = split_key(key);
            out.push(Claim {
                path: path.to_string(),
                symbol: symbol.map(str::to_string),
                record: ClaimRecord::SpecReview,
                change,
                fingerprint: review.hash.clone(),
                hash_kind: (HashKind::parse(&review.kind) != Some(HashKind::Bytes))
                    .then(|| review.kind.clone()),
                note: None,
                // A symbol-level record for every spec is kept under "".
                specs: if spec.is_empty() {
                    governors(path)
                } else {
                    vec![spec.clone()]
                },
            });
        }
    }
    out
}

/// The drift notes of the base the branch closed.
fn closed_notes(state: &State, before: &State) -> Vec<Claim> {
    let kept: BTreeMap<(&str, &str), ()> = state
        .drift_notes
        .iter()
        .flat_map(|(spec, notes)| {
            notes
                .iter()
                .map(move |n| ((spec.as_str(), n.id.as_str()), ()))
        })
        .collect();
    let mut out = Vec::new();
    for (spec, notes) in &before.drift_notes {
        for note in notes {
            if kept.contains_key(&(spec.as_str(), note.id.as_str())) {
                continue;
            }
            out.push(Claim {
                path: spec.clone(),
                symbol: None,
                record: ClaimRecord::DriftNote,
                change: ClaimChange::Removed,
                fingerprint: note.id.clone(),
                hash_kind: None,
                note: Some(note.note.clone()),
                specs: vec![spec.clone()],
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{ContentHash, Record, Scope};

    /// A claim's path, symbol, record, change and specs.
    type Row = (
        String,
        Option<String>,
        ClaimRecord,
        ClaimChange,
        Vec<String>,
    );

    fn record(scope: Scope, path: &str, symbol: Option<&str>, hash: &str) -> Record {
        Record {
            scope,
            path: path.into(),
            symbol: symbol.map(Into::into),
            hash: ContentHash::bytes(hash),
            blob: None,
        }
    }

    #[test]
    fn every_record_the_branch_adds_or_changes_is_a_claim_and_closed_notes_too() {
        let set = SpecSet::default();
        let governance = Governance::build(&set);
        let a = ".notarai/a.spec.yaml";
        let mut before = State::empty();
        before.record(&record(Scope::Spec(a.into()), "src/same.rs", None, "s"));
        before.record(&record(Scope::Spec(a.into()), "src/moved.rs", None, "old"));
        before.add_drift(a, "kept open", vec![], "1Z".into());
        let closed = before.add_drift(a, "fixed here", vec!["src/x.rs".into()], "1Z".into());
        let mut after = before.clone();
        after.record(&record(Scope::Spec(a.into()), "src/moved.rs", None, "new"));
        after.record(&record(Scope::Spec(a.into()), "src/new.rs", Some("f"), "n"));
        after.record(&record(Scope::EverySpec, "src/all.rs", None, "e"));
        after
            .drift_notes
            .get_mut(a)
            .unwrap()
            .retain(|n| n.id != closed);
        let got: Vec<Row> = claims(&after, &before, &governance, &set)
            .into_iter()
            .map(|c| (c.path, c.symbol, c.record, c.change, c.specs))
            .collect();
        let spec = vec![a.to_string()];
        assert_eq!(
            got,
            [
                (
                    a.to_string(),
                    None,
                    ClaimRecord::DriftNote,
                    ClaimChange::Removed,
                    spec.clone()
                ),
                (
                    "src/all.rs".into(),
                    None,
                    ClaimRecord::FileFingerprint,
                    ClaimChange::Added,
                    vec![]
                ),
                (
                    "src/moved.rs".into(),
                    None,
                    ClaimRecord::SpecReview,
                    ClaimChange::Changed,
                    spec.clone()
                ),
                (
                    "src/new.rs".into(),
                    Some("f".into()),
                    ClaimRecord::SpecReview,
                    ClaimChange::Added,
                    spec
                ),
            ]
        );
        assert!(claims(&before, &before, &governance, &set).is_empty());
    }
}
