//! Reading the state file as untrusted input, within a small constant of
//! its size.
//!
//! A state file comes with a clone, so its reader is bounded: the file is
//! at most [`super::MAX_STATE_BYTES`]; no part of it is buffered into
//! serde's generic content tree (what `flatten` and `untagged` do, which
//! made a 20 MB file cost over 1 GB); each object is read key by key, a key
//! this version does not know is kept as its raw text and expanded only
//! while the unknown text of the whole file stays under [`MAX_UNKNOWN_BYTES`]
//! (beyond it the file is malformed, with a hint). A duplicate key in any
//! object is malformed too: which of the two values was meant cannot be
//! told (often a merge gone wrong). A leading byte order mark is accepted
//! with a warning (see [`super::State::parse`]).

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::{
    FileFingerprint, KNOWN_VERSIONS, LastReconciliation, Loaded, State, StateError, default_version,
};
use crate::record::{self, Review};
use crate::repo_path::RepoPath;

/// The most text of unknown keys, over the whole file, kept and expanded.
const MAX_UNKNOWN_BYTES: usize = 1024 * 1024;

/// The most entries of all maps of the file together. A real entry is a
/// path and a 64-digit hash (90 bytes and more), so a full-size file holds
/// fewer; tiny made-up entries would otherwise cost 12 times their text.
const MAX_ENTRIES: usize = 400_000;

thread_local! {
    static UNKNOWN_LEFT: Cell<usize> = const { Cell::new(MAX_UNKNOWN_BYTES) };
    static ENTRIES_LEFT: Cell<usize> = const { Cell::new(MAX_ENTRIES) };
}

/// Start a parse: the budgets are full again.
pub(super) fn reset_budget() {
    UNKNOWN_LEFT.with(|c| c.set(MAX_UNKNOWN_BYTES));
    ENTRIES_LEFT.with(|c| c.set(MAX_ENTRIES));
}

/// Count one map entry against [`MAX_ENTRIES`].
fn count_entry<E: de::Error>() -> Result<(), E> {
    let left = ENTRIES_LEFT.with(Cell::get);
    if left == 0 {
        return Err(E::custom(format!(
            "more than {MAX_ENTRIES} entries, more than notarai reads in one state file; rewrite it with `notarai state snapshot --force`"
        )));
    }
    ENTRIES_LEFT.with(|c| c.set(left - 1));
    Ok(())
}

/// An unknown key's raw value, expanded when the budget allows.
fn unknown<E: de::Error>(key: &str, raw: &RawValue) -> Result<serde_json::Value, E> {
    let len = raw.get().len();
    let left = UNKNOWN_LEFT.with(Cell::get);
    if len > left {
        return Err(E::custom(format!(
            "key `{}` holds more unknown content than notarai keeps (over {} KiB of keys it does not know in the whole file); remove it",
            key.escape_debug(),
            MAX_UNKNOWN_BYTES / 1024
        )));
    }
    UNKNOWN_LEFT.with(|c| c.set(left - len));
    serde_json::from_str(raw.get()).map_err(E::custom)
}

fn duplicate<E: de::Error>(key: &str) -> E {
    E::custom(format!(
        "duplicate key `{}` (which value is meant cannot be told; keep one)",
        key.escape_debug()
    ))
}

/// A JSON object whose keys are unique; a duplicate is an error.
pub struct UniqueMap<V>(pub BTreeMap<String, V>);

impl<'de, V: Deserialize<'de>> Deserialize<'de> for UniqueMap<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<V>(PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
            type Value = UniqueMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(key) = map.next_key::<String>()? {
                    count_entry()?;
                    if out.contains_key(&key) {
                        return Err(duplicate(&key));
                    }
                    let value = map.next_value()?;
                    out.insert(key, value);
                }
                Ok(UniqueMap(out))
            }
        }
        d.deserialize_map(V2(PhantomData))
    }
}

/// Read an object's keys: `known(key, map)` reads a known key's value and
/// says `true`; any other key is kept in `other` (bounded). Duplicates fail.
fn read_object<'de, A: MapAccess<'de>>(
    mut map: A,
    other: &mut BTreeMap<String, serde_json::Value>,
    mut known: impl FnMut(&str, &mut A) -> Result<bool, A::Error>,
) -> Result<(), A::Error> {
    let mut seen = std::collections::HashSet::new();
    while let Some(key) = map.next_key::<String>()? {
        if !seen.insert(key.clone()) {
            return Err(duplicate(&key));
        }
        if !known(&key, &mut map)? {
            let raw: Box<RawValue> = map.next_value()?;
            other.insert(key.clone(), unknown(&key, &raw)?);
        }
    }
    Ok(())
}

impl<'de> Deserialize<'de> for State {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = State;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a reconciliation state object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<State, A::Error> {
                let mut s = State {
                    schema_version: default_version(),
                    ..State::default()
                };
                let mut other = BTreeMap::new();
                read_object(map, &mut other, |key, map| {
                    match key {
                        "schema_version" => s.schema_version = map.next_value()?,
                        "cli_version" => s.cli_version = map.next_value()?,
                        "last_reconciliation" => s.last_reconciliation = map.next_value()?,
                        "file_fingerprints" => {
                            s.file_fingerprints = map.next_value::<UniqueMap<_>>()?.0
                        }
                        "spec_fingerprints" => {
                            s.spec_fingerprints = map.next_value::<UniqueMap<_>>()?.0
                        }
                        "spec_reviews" => {
                            s.spec_reviews = map
                                .next_value::<UniqueMap<UniqueMap<Review>>>()?
                                .0
                                .into_iter()
                                .map(|(k, v)| (k, v.0))
                                .collect()
                        }
                        "drift_notes" => {
                            s.drift_notes = map.next_value::<UniqueMap<Vec<super::DriftNote>>>()?.0
                        }
                        "decisions" => {
                            s.decisions = map.next_value::<UniqueMap<Vec<super::Decision>>>()?.0
                        }
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                s.other = other;
                Ok(s)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for LastReconciliation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LastReconciliation;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object with `timestamp`, `git_hash`, `branch`")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let mut l = LastReconciliation::default();
                let mut other = BTreeMap::new();
                read_object(map, &mut other, |key, map| {
                    match key {
                        "timestamp" => l.timestamp = map.next_value()?,
                        "git_hash" => l.git_hash = map.next_value()?,
                        "branch" => l.branch = map.next_value()?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                l.other = other;
                Ok(l)
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> Deserialize<'de> for FileFingerprint {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FileFingerprint;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hash, or an object with `blake3`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(FileFingerprint::new(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let mut blake3 = None;
                let mut blob = None;
                let mut other = BTreeMap::new();
                read_object(map, &mut other, |key, map| {
                    match key {
                        "blake3" => blake3 = Some(map.next_value::<String>()?),
                        "blob" => blob = map.next_value()?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                Ok(FileFingerprint {
                    blake3: blake3.ok_or_else(|| de::Error::missing_field("blake3"))?,
                    blob,
                    other,
                })
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Review {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Review;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object with `hash`")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let mut hash = None;
                let mut kind = None;
                let mut blob = None;
                let mut other = BTreeMap::new();
                read_object(map, &mut other, |key, map| {
                    match key {
                        "hash" => hash = Some(map.next_value::<String>()?),
                        "kind" => kind = Some(map.next_value::<String>()?),
                        "blob" => blob = map.next_value()?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                Ok(Review {
                    hash: hash.ok_or_else(|| de::Error::missing_field("hash"))?,
                    kind: kind.unwrap_or_else(|| "bytes".into()),
                    blob,
                    other,
                })
            }
        }
        d.deserialize_map(V)
    }
}

impl State {
    /// Parse the text of a state file; `path` names it in errors. Bounded:
    /// see the module's header. A leading byte order mark is dropped with a warning;
    /// a duplicate key anywhere is malformed.
    pub fn parse(text: &str, path: &Path) -> Result<Loaded, StateError> {
        let mut warnings = Vec::new();
        let text = match text.strip_prefix('\u{feff}') {
            Some(rest) => {
                warnings.push(format!(
                    "{}: starts with a byte order mark; read without it (the next snapshot writes the file without one)",
                    path.display()
                ));
                rest
            }
            None => text,
        };
        reset_budget();
        let mut state: State = serde_json::from_str(text).map_err(|e| StateError::Malformed {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        if !KNOWN_VERSIONS.contains(&state.schema_version.as_str()) {
            warnings.push(format!(
                "{}: schema_version `{}` is not one of {}; reading the fields this version knows",
                path.display(),
                state.schema_version.escape_debug(),
                KNOWN_VERSIONS.join(", ")
            ));
        }
        normalize_keys(&mut state.file_fingerprints, path, &mut warnings);
        normalize_keys(&mut state.spec_fingerprints, path, &mut warnings);
        let mut reviews = std::mem::take(&mut state.spec_reviews);
        for entries in reviews.values_mut() {
            normalize_keys(entries, path, &mut warnings);
        }
        let notes = std::mem::take(&mut state.drift_notes);
        state.drift_notes = safe_drift_notes(notes, path, &mut warnings);
        let decisions = std::mem::take(&mut state.decisions);
        state.decisions = safe_decisions(decisions, path, &mut warnings);
        for (spec, entries) in reviews {
            match RepoPath::parse(&spec) {
                Ok(p) => {
                    state
                        .spec_reviews
                        .entry(p.into_string())
                        .or_default()
                        .extend(entries);
                }
                Err(e) => warnings.push(format!(
                    "{}: reviews for spec `{}` ignored: {e}",
                    path.display(),
                    spec.escape_debug()
                )),
            }
        }
        Ok(Loaded { state, warnings })
    }
}

/// The entries of `map` under their normal repository path (`./a` is `a`;
/// the first of two spellings wins); an entry whose key is no repository
/// path is dropped with a warning.
fn normalize_keys<V>(map: &mut BTreeMap<String, V>, path: &Path, warnings: &mut Vec<String>) {
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        let (file, symbol) = record::split_key(&key);
        let normal = match RepoPath::parse(file) {
            Ok(p) if p.as_str() == file => continue,
            Ok(p) => Some(record::entry_key(p.as_str(), symbol)),
            Err(e) => {
                warnings.push(format!(
                    "{}: entry `{}` ignored: {e}",
                    path.display(),
                    key.escape_debug()
                ));
                None
            }
        };
        let entry = map.remove(&key).expect("listed");
        if let Some(normal) = normal {
            map.entry(normal).or_insert(entry);
        }
    }
}

/// The drift notes whose spec and paths are repository paths; the others
/// dropped with a warning.
fn safe_drift_notes(
    notes: BTreeMap<String, Vec<super::DriftNote>>,
    path: &Path,
    warnings: &mut Vec<String>,
) -> BTreeMap<String, Vec<super::DriftNote>> {
    safe_entries(notes, "drift note", |n| (&n.id, &n.paths), path, warnings)
}

/// The decisions whose spec and paths are repository paths; the others
/// dropped with a warning.
fn safe_decisions(
    decisions: BTreeMap<String, Vec<super::Decision>>,
    path: &Path,
    warnings: &mut Vec<String>,
) -> BTreeMap<String, Vec<super::Decision>> {
    safe_entries(decisions, "decision", |d| (&d.id, &d.paths), path, warnings)
}

/// The entries (by spec) whose spec and paths are repository paths; the
/// others dropped with a warning naming `what` and the entry's id.
fn safe_entries<T>(
    entries: BTreeMap<String, Vec<T>>,
    what: &str,
    parts: impl Fn(&T) -> (&String, &Vec<String>),
    path: &Path,
    warnings: &mut Vec<String>,
) -> BTreeMap<String, Vec<T>> {
    let mut kept: BTreeMap<String, Vec<T>> = BTreeMap::new();
    for (spec, mut list) in entries {
        list.retain(|n| {
            let (id, paths) = parts(n);
            let safe = paths
                .iter()
                .all(|p| RepoPath::parse(p).is_ok_and(|r| r.as_str() == p));
            if !safe {
                warnings.push(format!(
                    "{}: {what} `{}` ignored: a path of it is not a repository path",
                    path.display(),
                    id.escape_debug()
                ));
            }
            safe
        });
        match RepoPath::parse(&spec) {
            Ok(p) if !list.is_empty() => {
                kept.entry(p.into_string()).or_default().extend(list);
            }
            Ok(_) => {}
            Err(e) => warnings.push(format!(
                "{}: {what}s for spec `{}` ignored: {e}",
                path.display(),
                spec.escape_debug()
            )),
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_fail_and_unknown_is_bounded() {
        reset_budget();
        let e = serde_json::from_str::<State>(r#"{"file_fingerprints": {"a": "1", "a": "2"}}"#)
            .unwrap_err();
        assert!(e.to_string().contains("duplicate key `a`"), "{e}");
        let e = serde_json::from_str::<State>(r#"{"cli_version": "1", "cli_version": "2"}"#)
            .unwrap_err();
        assert!(e.to_string().contains("duplicate key"), "{e}");
        reset_budget();
        let big = format!(r#"{{"x": [{}0]}}"#, "0,".repeat(MAX_UNKNOWN_BYTES));
        let e = serde_json::from_str::<State>(&big).unwrap_err();
        assert!(e.to_string().contains("unknown content"), "{e}");
        reset_budget();
        let s: State = serde_json::from_str(
            r#"{"file_fingerprints": {"a": {"blake3": "h", "blob": "b", "z": 1}}, "y": {"k": 2}}"#,
        )
        .unwrap();
        assert_eq!(s.file_fingerprints["a"].blob.as_deref(), Some("b"));
        assert_eq!(s.file_fingerprints["a"].other["z"], 1);
        assert_eq!(s.other["y"]["k"], 2);
    }
}
