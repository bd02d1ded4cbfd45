//! The committed reconciliation state: `.notarai/reconciliation_state.json`.
//!
//! The hash cache (`cache`) says what was reconciled on one machine; this file,
//! committed with the code, says it for the whole team: a clone, a CI job, a
//! reviewer. It implements the existing NotarAI format, `schema_version` "1":
//!
//! ```json
//! {
//!   "cli_version": "0.4.0",
//!   "file_fingerprints": {"src/main.rs": {"blake3": "<64 hex>"}},
//!   "last_reconciliation": {"branch": "fix-16", "git_hash": "<sha>", "timestamp": "1773423102Z"},
//!   "schema_version": "1",
//!   "spec_fingerprints": {".notarai/cli.spec.yaml": "<64 hex>"}
//! }
//! ```
//!
//! Paths are repository-relative with `/`; a fingerprint is the BLAKE3 of
//! the file's bytes (a symbolic link: of its target text), or `deleted` for
//! a file reconciled while deleted. `spec_fingerprints` holds spec files,
//! `file_fingerprints` everything else.
//!
//! What it does: read every version the existing tool wrote (missing fields
//! default, a plain string is accepted where an object is expected, unknown
//! keys are kept and written back), write deterministically (sorted keys,
//! two-space indent, trailing newline) and atomically (a temporary file in
//! the same folder, renamed over the old one), and merge two sides (the git
//! merge driver). What it does not do: trust a path. An entry with an
//! absolute path, or one that climbs out of the repository, is dropped with
//! a warning when the file is read; no file is ever opened through it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use crate::cache::Cache;
use crate::changes::{Base, GitRepo};
use crate::governance::Scope;
use crate::hashing;
use crate::progress::{Cancelled, Progress};
pub(crate) use crate::record::{self, ContentHash, HashKind, Record, Review};
use crate::repo_path::{Guard, RepoPath};
use crate::symbols::SymbolCache;

mod base;
mod blobs;
mod file;
mod line;
mod merge;
mod merge_logs;
mod parse;
mod reconciled;
mod reviewed_program;

mod snapshot;

pub use base::{BaseError, BaseSource, DEFAULT_BASES, UsedBase, choose_base};
pub use blobs::{reviewed_content, store_all_reviewed};
pub use file::{
    MAX_STATE_BYTES, problem, read, read_at, read_file, read_lenient, state_path, write, write_file,
};
pub use line::{Identity, REVIEWED_AFTER, head_stamp, review_identity};
pub use merge::{
    DRIVER_KEY, GITATTRIBUTES_LINE, MergeDriverSetup, MergeOutcome, merge_driver_registered,
    merge_files, register_merge_driver, unregister_merge_driver, with_attributes_line,
};
pub(crate) use reconciled::specs_as_at_base;
pub use reconciled::{JudgeError, Reconciled, ReviewedBlob};
pub use reviewed_program::same_program_as_any;
pub use snapshot::{SnapshotSummary, head_of, snapshot};

/// Location of the state file relative to the project root.
pub const STATE_FILE: &str = ".notarai/reconciliation_state.json";

/// The format version this build writes: "2" adds `spec_reviews` and
/// `blob`; a build that knows only "1" still reads the file (with a
/// warning) and keeps the new keys.
pub const SCHEMA_VERSION: &str = "2";

/// The versions this build reads without a warning.
const KNOWN_VERSIONS: [&str; 2] = ["1", "2"];

/// The committed reconciliation state, as stored. Read by the bounded
/// reader of `parse.rs` (never through serde's buffering), written sorted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct State {
    /// Format version: "2" (per-spec reviews), "1", or absent in the oldest files.
    pub schema_version: String,
    /// Version of the program that last wrote the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cli_version: Option<String>,
    /// The commit and branch of the last snapshot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_reconciliation: Option<LastReconciliation>,
    /// Non-spec files reviewed for every spec that governs them, by path.
    pub file_fingerprints: BTreeMap<String, FileFingerprint>,
    /// Reconciled spec files by path: their BLAKE3.
    pub spec_fingerprints: BTreeMap<String, String>,
    /// Schema "2": what was reviewed for one spec only, by spec path, then by
    /// `path` (or `path#symbol`). A file here is reconciled for that spec,
    /// never for another one.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub spec_reviews: BTreeMap<String, BTreeMap<String, Review>>,
    /// Drift an agent reported and was not asked to fix (`report_drift`),
    /// by spec path: open until that spec is next reconciled. Older
    /// versions keep the key as one they do not know.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub drift_notes: BTreeMap<String, Vec<DriftNote>>,
    /// Why a divergence was accepted or which side was changed, recorded
    /// with a review (`mark_reconciled`'s `decision`, `notarai reconcile
    /// --decision`), by spec path: a log, never closed. Older versions keep
    /// the key as one they do not know.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub decisions: BTreeMap<String, Vec<Decision>>,
    /// Keys this version does not know, kept as they were (sections a later
    /// version adds, such as drift notes, included).
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// One drift note: what an agent noticed about a spec and did not fix.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize, JsonSchema)]
pub struct DriftNote {
    /// A short id (from the spec, the note and the paths), the same on
    /// every clone, so two branches reporting the same note merge into one.
    pub id: String,
    /// What drifted, in the agent's words.
    pub note: String,
    /// The files concerned, repository-relative (may be empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// When it was reported: seconds since the Unix epoch followed by `Z`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_at: Option<String>,
}

/// One decision: why a divergence between a spec and its files was
/// accepted, or which side was changed, in the reviewer's words.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize, JsonSchema)]
pub struct Decision {
    /// A short id (from the spec, the text and the paths), the same on
    /// every clone, so two branches recording it merge into one.
    pub id: String,
    /// The decision.
    pub decision: String,
    /// The files reviewed with it, repository-relative.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// When it was recorded: seconds since the Unix epoch followed by `Z`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_at: Option<String>,
    /// The branch checked out then (absent on a detached `HEAD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

impl DriftNote {
    /// The id of a note about `spec` saying `note` on `paths`.
    fn id_of(spec: &str, note: &str, paths: &[String]) -> String {
        let mut hasher = blake3::Hasher::new();
        for part in [spec, note]
            .into_iter()
            .chain(paths.iter().map(String::as_str))
        {
            hasher.update(part.as_bytes());
            hasher.update(&[0]);
        }
        hasher.finalize().to_hex()[..12].to_string()
    }
}

impl State {
    /// Add a drift note about `spec` (a note with the same id replaces the
    /// older one); returns its id.
    pub fn add_drift(&mut self, spec: &str, note: &str, paths: Vec<String>, at: String) -> String {
        let id = DriftNote::id_of(spec, note, &paths);
        let notes = self.drift_notes.entry(spec.to_string()).or_default();
        notes.retain(|n| n.id != id);
        notes.push(DriftNote {
            id: id.clone(),
            note: note.to_string(),
            paths,
            reported_at: Some(at),
        });
        id
    }

    /// Record a decision about `spec` (one with the same id replaces the
    /// older); returns its id.
    pub fn add_decision(
        &mut self,
        spec: &str,
        decision: &str,
        paths: Vec<String>,
        at: String,
        branch: Option<String>,
    ) -> String {
        let id = DriftNote::id_of(spec, decision, &paths);
        let list = self.decisions.entry(spec.to_string()).or_default();
        list.retain(|d| d.id != id);
        list.push(Decision {
            id: id.clone(),
            decision: decision.to_string(),
            paths,
            recorded_at: Some(at),
            branch,
        });
        id
    }

    /// Close (remove) every drift note of `specs`; returns how many.
    pub fn close_drift<'s>(&mut self, specs: impl IntoIterator<Item = &'s str>) -> usize {
        specs
            .into_iter()
            .filter_map(|s| self.drift_notes.remove(s))
            .map(|n| n.len())
            .sum()
    }
}

pub(crate) fn default_version() -> String {
    "1".to_string()
}

/// When and where the last snapshot was taken.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct LastReconciliation {
    /// Seconds since the Unix epoch followed by `Z`, e.g. `1773423102Z`.
    pub timestamp: String,
    /// The `HEAD` commit when the snapshot was taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_hash: Option<String>,
    /// The branch checked out then (absent on a detached `HEAD`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Keys this version does not know.
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// The fingerprint of one non-spec file (on disk an object, or in the
/// oldest files a bare hash).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FileFingerprint {
    /// BLAKE3 of the content, or `deleted`.
    pub blake3: String,
    /// The git blob id of the reviewed content (schema "2"; absent before).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    /// Keys this version does not know.
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: BTreeMap<String, serde_json::Value>,
}

impl FileFingerprint {
    /// A fingerprint with nothing but its hash.
    pub fn new(blake3: impl Into<String>) -> FileFingerprint {
        FileFingerprint {
            blake3: blake3.into(),
            blob: None,
            other: BTreeMap::new(),
        }
    }
}

/// Why the state file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// The file is not valid JSON or not the format.
    #[error(
        "{}:{line}:{column}: malformed reconciliation state: {message}; fix the file \
         (often a leftover merge conflict: run `notarai state merge` as the merge driver, \
         see `notarai init`), or rewrite it with `notarai state snapshot --force`",
        path.display()
    )]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser found.
        message: String,
    },
    /// Reading or writing failed.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// `snapshot` would replace a malformed file: the caller decides.
    #[error("{0}; not overwritten")]
    WouldOverwrite(Box<StateError>),
}

impl crate::error::Diagnose for StateError {
    fn kind(&self) -> crate::error::ErrorKind {
        match self {
            StateError::WouldOverwrite(_) => crate::error::ErrorKind::InvalidInput,
            _ => crate::error::ErrorKind::Internal,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            StateError::WouldOverwrite(_) => {
                Some("pass --force to replace it with a fresh snapshot".into())
            }
            _ => None,
        }
    }
}

/// A state read from disk with what was dropped from it.
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    /// The usable state (unsafe paths removed).
    pub state: State,
    /// One line per dropped entry or doubtful field, for a warning.
    pub warnings: Vec<String>,
}

impl State {
    /// An empty state of the current version.
    pub fn empty() -> State {
        State {
            schema_version: SCHEMA_VERSION.into(),
            ..State::default()
        }
    }

    /// This state as this build writes it: the current schema version.
    pub fn upgraded(mut self) -> State {
        self.schema_version = SCHEMA_VERSION.into();
        self
    }

    /// The stored fingerprint of `path` (spec or file), if any.
    pub fn fingerprint(&self, path: &str) -> Option<&str> {
        self.spec_fingerprints
            .get(path)
            .map(String::as_str)
            .or_else(|| self.file_fingerprints.get(path).map(|f| f.blake3.as_str()))
    }

    /// Every path with its fingerprint, sorted.
    pub fn entries(&self) -> BTreeMap<&str, &str> {
        let mut out: BTreeMap<&str, &str> = self
            .file_fingerprints
            .iter()
            .map(|(p, f)| (p.as_str(), f.blake3.as_str()))
            .collect();
        out.extend(
            self.spec_fingerprints
                .iter()
                .map(|(p, h)| (p.as_str(), h.as_str())),
        );
        out
    }

    /// Record `path` as reconciled at `fingerprint`, in the right map.
    pub fn insert(&mut self, path: &str, fingerprint: &str) {
        if crate::spec::is_spec_path(path) {
            self.file_fingerprints.remove(path);
            self.spec_fingerprints
                .insert(path.to_string(), fingerprint.to_string());
        } else {
            self.spec_fingerprints.remove(path);
            match self.file_fingerprints.get_mut(path) {
                Some(f) => f.blake3 = fingerprint.to_string(),
                None => {
                    self.file_fingerprints
                        .insert(path.to_string(), FileFingerprint::new(fingerprint));
                }
            }
        }
    }

    /// Record `record` (a whole file; a symbol-level record goes under
    /// its spec as `path#symbol`): for every spec in `file_fingerprints` or
    /// `spec_fingerprints`, for one spec in `spec_reviews`.
    pub fn record(&mut self, record: &Record) {
        match &record.scope {
            record::Scope::EverySpec if record.symbol.is_none() => {
                self.insert(&record.path, &record.hash.value);
                if let Some(f) = self.file_fingerprints.get_mut(&record.path) {
                    f.blob = record.blob.clone();
                }
            }
            scope => {
                self.spec_reviews
                    .entry(scope.key().to_string())
                    .or_default()
                    .insert(
                        record::entry_key(&record.path, record.symbol.as_deref()),
                        Review::new(&record.hash, record.blob.clone()),
                    );
            }
        }
    }

    /// The review of `path` (whole file) recorded for `spec` alone.
    pub fn review_for(&self, spec: &str, path: &str) -> Option<&Review> {
        self.spec_reviews.get(spec)?.get(path)
    }
}

// ---------------------------------------------------------------- at a commit

#[cfg(test)]
mod tests {
    use super::merge::merge;
    use super::*;

    const EXISTING: &str = r#"{
  "schema_version": "1",
  "cli_version": "0.4.0",
  "last_reconciliation": {"timestamp": "1773423102Z", "git_hash": "abc", "branch": "fix-16"},
  "file_fingerprints": {"src/main.rs": {"blake3": "aa"}, "/etc/passwd": {"blake3": "bb"}, "../x": {"blake3": "cc"}},
  "spec_fingerprints": {".notarai/cli.spec.yaml": "dd"},
  "future_key": [1, {"z": 1, "a": 2}]
}"#;

    #[test]
    fn drift_notes_round_trip_and_merge_keeping_both_sides() {
        let mut base = State::empty();
        let shared = base.add_drift(".notarai/a.spec.yaml", "old", vec![], "1Z".into());
        let mut ours = base.clone();
        let mut theirs = base.clone();
        ours.add_drift(
            ".notarai/a.spec.yaml",
            "ours",
            vec!["src/a.rs".into()],
            "2Z".into(),
        );
        theirs.add_drift(".notarai/b.spec.yaml", "theirs", vec![], "3Z".into());
        // Theirs reconciled spec a: its notes closed there, the shared one included.
        theirs.close_drift([".notarai/a.spec.yaml"]);
        let merged = merge(&base, &ours, &theirs, |_| None);
        let a: Vec<&str> = merged.drift_notes[".notarai/a.spec.yaml"]
            .iter()
            .map(|n| n.note.as_str())
            .collect();
        assert_eq!(a, ["ours"], "the closed note stays closed, ours is kept");
        assert_eq!(merged.drift_notes[".notarai/b.spec.yaml"][0].note, "theirs");
        assert!(
            !merged.drift_notes[".notarai/a.spec.yaml"]
                .iter()
                .any(|n| n.id == shared)
        );
        // Written and read back; an unsafe path drops the note with a warning.
        let text = merged.to_text();
        assert_eq!(State::parse(&text, Path::new("s")).unwrap().state, merged);
        let bad = text.replace("src/a.rs", "../x");
        let loaded = State::parse(&bad, Path::new("s")).unwrap();
        assert!(
            !loaded
                .state
                .drift_notes
                .contains_key(".notarai/a.spec.yaml")
        );
        assert!(!loaded.warnings.is_empty());
    }

    #[test]
    fn reads_the_existing_format_and_drops_unsafe_paths() {
        let loaded = State::parse(EXISTING, Path::new("s.json")).unwrap();
        let s = &loaded.state;
        assert_eq!(s.fingerprint("src/main.rs"), Some("aa"));
        assert_eq!(s.fingerprint(".notarai/cli.spec.yaml"), Some("dd"));
        assert_eq!(s.fingerprint("/etc/passwd"), None);
        assert_eq!(s.entries().len(), 2);
        assert_eq!(loaded.warnings.len(), 2, "{:?}", loaded.warnings);
        assert!(s.other.contains_key("future_key"));
        let last = s.last_reconciliation.as_ref().unwrap();
        assert_eq!(last.branch.as_deref(), Some("fix-16"));
    }

    #[test]
    fn writes_sorted_two_space_with_newline_and_keeps_unknown_keys() {
        let s = State::parse(EXISTING, Path::new("s.json")).unwrap().state;
        let text = s.to_text();
        assert!(text.ends_with("}\n"));
        assert!(text.contains("\n  \"cli_version\""));
        let order: Vec<usize> = [
            "\"cli_version\"",
            "\"file_fingerprints\"",
            "\"future_key\"",
            "\"last_reconciliation\"",
            "\"schema_version\"",
            "\"spec_fingerprints\"",
        ]
        .iter()
        .map(|k| text.find(k).unwrap())
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
        assert!(text.find("\"a\": 2").unwrap() < text.find("\"z\": 1").unwrap());
        let again = State::parse(&text, Path::new("s.json")).unwrap().state;
        assert_eq!(again, s);
        assert_eq!(again.to_text(), text, "deterministic");
    }

    #[test]
    fn oldest_shapes_read() {
        let s = State::parse(r#"{"file_fingerprints": {"a": "h"}}"#, Path::new("s"))
            .unwrap()
            .state;
        assert_eq!(s.fingerprint("a"), Some("h"));
        assert_eq!(s.schema_version, "1");
    }

    #[test]
    fn malformed_names_line_and_column() {
        let e = State::parse(
            "{\n  \"schema_version\": \"1\",\n<<<<<<< HEAD\n",
            Path::new("s.json"),
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with("s.json:3:1: "), "{text}");
        assert!(text.contains("--force"), "{text}");
    }

    fn state(ts: u64, entries: &[(&str, &str)]) -> State {
        let mut s = State::empty();
        s.last_reconciliation = Some(LastReconciliation {
            timestamp: format!("{ts}Z"),
            ..Default::default()
        });
        for (p, h) in entries {
            s.insert(p, h);
        }
        s
    }

    #[test]
    fn merge_is_a_union_with_ties_broken_by_the_work_tree_then_age() {
        let base = state(1, &[("keep", "k"), ("gone", "g"), ("both", "o")]);
        let ours = state(
            2,
            &[("keep", "k"), ("gone", "g"), ("a", "1"), ("both", "x")],
        );
        let theirs = state(3, &[("keep", "k"), ("b", "2"), ("both", "y")]);
        let m = merge(&base, &ours, &theirs, |_| None);
        let e = m.entries();
        assert_eq!(e.get("a"), Some(&"1"));
        assert_eq!(e.get("b"), Some(&"2"));
        assert_eq!(e.get("keep"), Some(&"k"));
        assert_eq!(
            e.get("gone"),
            None,
            "removed on one side, kept on the other"
        );
        assert_eq!(e.get("both"), Some(&"y"), "theirs is newer");
        let m = merge(&base, &ours, &theirs, |p| (p == "both").then(|| "x".into()));
        assert_eq!(m.entries().get("both"), Some(&"x"), "matches the work tree");
        assert_eq!(
            m.last_reconciliation.unwrap().timestamp,
            "3Z",
            "the newer side's last reconciliation"
        );
    }
}
