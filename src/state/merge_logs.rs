//! The state's logs merged three-way (the merge driver's part for them):
//! drift notes and decisions, each a union by (spec, id) where a removal on
//! one side wins over the other side keeping the base's entry.

use super::merge::choose;
use super::*;

/// Drift notes: union by (spec, id); a note one side closed (removed)
/// while the other kept it as the base had it stays closed.
pub(super) fn merge_drift_notes(base: &State, ours: &State, theirs: &State, out: &mut State) {
    let notes = |s: &State| -> BTreeMap<(String, String), DriftNote> {
        s.drift_notes
            .iter()
            .flat_map(|(spec, n)| {
                n.iter()
                    .map(move |n| ((spec.clone(), n.id.clone()), n.clone()))
            })
            .collect()
    };
    let (o, a, b) = (notes(base), notes(ours), notes(theirs));
    let keys: BTreeSet<&(String, String)> = a.keys().chain(b.keys()).collect();
    for key in keys {
        if let Some(note) = choose(o.get(key), a.get(key), b.get(key), |_, _| true) {
            out.drift_notes
                .entry(key.0.clone())
                .or_default()
                .push(note.clone());
        }
    }
}

/// Decisions: union by (spec, id), in the order recorded; one a side
/// removed while the other kept it as the base had it stays removed.
pub(super) fn merge_decisions(base: &State, ours: &State, theirs: &State, out: &mut State) {
    let all = |s: &State| -> BTreeMap<(String, String), crate::state::Decision> {
        s.decisions
            .iter()
            .flat_map(|(spec, d)| {
                d.iter()
                    .map(move |d| ((spec.clone(), d.id.clone()), d.clone()))
            })
            .collect()
    };
    let (o, a, b) = (all(base), all(ours), all(theirs));
    let keys: BTreeSet<&(String, String)> = a.keys().chain(b.keys()).collect();
    for key in keys {
        if let Some(d) = choose(o.get(key), a.get(key), b.get(key), |_, _| true) {
            out.decisions
                .entry(key.0.clone())
                .or_default()
                .push(d.clone());
        }
    }
    for list in out.decisions.values_mut() {
        list.sort_by(|x, y| (&x.recorded_at, &x.id).cmp(&(&y.recorded_at, &y.id)));
    }
}
