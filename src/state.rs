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
use std::fmt;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cache::Cache;
use crate::changes::{Base, GitRepo};
use crate::governance::Scope;
use crate::hashing;
use crate::repo_path::{Guard, RepoPath};

/// Location of the state file relative to the project root.
pub const STATE_FILE: &str = ".notarai/reconciliation_state.json";

/// The format version this build writes.
pub const SCHEMA_VERSION: &str = "1";

/// The committed reconciliation state, as stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct State {
    /// Format version; "1" (absent in the oldest files).
    #[serde(default = "default_version")]
    pub schema_version: String,
    /// Version of the program that last wrote the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_version: Option<String>,
    /// The commit and branch of the last snapshot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_reconciliation: Option<LastReconciliation>,
    /// Reconciled non-spec files by path.
    #[serde(default)]
    pub file_fingerprints: BTreeMap<String, FileFingerprint>,
    /// Reconciled spec files by path: their BLAKE3.
    #[serde(default)]
    pub spec_fingerprints: BTreeMap<String, String>,
    /// Keys this version does not know, kept as they were.
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: BTreeMap<String, serde_json::Value>,
}

fn default_version() -> String {
    SCHEMA_VERSION.to_string()
}

/// When and where the last snapshot was taken.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LastReconciliation {
    /// Seconds since the Unix epoch followed by `Z`, e.g. `1773423102Z`.
    #[serde(default)]
    pub timestamp: String,
    /// The `HEAD` commit when the snapshot was taken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_hash: Option<String>,
    /// The branch checked out then (absent on a detached `HEAD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Keys this version does not know.
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// The fingerprint of one non-spec file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(from = "FingerprintRepr")]
pub struct FileFingerprint {
    /// BLAKE3 of the content, or `deleted`.
    pub blake3: String,
    /// Keys this version does not know.
    #[serde(flatten)]
    #[schemars(skip)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// What a file fingerprint may look like on disk: the object, or a bare hash.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum FingerprintRepr {
    Object {
        blake3: String,
        #[serde(flatten)]
        other: BTreeMap<String, serde_json::Value>,
    },
    Bare(String),
}

impl From<FingerprintRepr> for FileFingerprint {
    fn from(r: FingerprintRepr) -> Self {
        match r {
            FingerprintRepr::Object { blake3, other } => FileFingerprint { blake3, other },
            FingerprintRepr::Bare(blake3) => FileFingerprint::new(blake3),
        }
    }
}

impl FileFingerprint {
    /// A fingerprint with nothing but its hash.
    pub fn new(blake3: impl Into<String>) -> FileFingerprint {
        FileFingerprint {
            blake3: blake3.into(),
            other: BTreeMap::new(),
        }
    }
}

/// Why the state file could not be read or written.
#[derive(Debug)]
pub enum StateError {
    /// The file is not valid JSON or not the format.
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
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// `snapshot` would replace a malformed file.
    WouldOverwrite(Box<StateError>),
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StateError::Malformed {
                path,
                line,
                column,
                message,
            } => write!(
                f,
                "{}:{line}:{column}: malformed reconciliation state: {message}; fix the file \
                 (often a leftover merge conflict: run `notarai state merge` as the merge driver, \
                 see `notarai init`), or rewrite it with `notarai state snapshot --force`",
                path.display()
            ),
            StateError::Io { path, message } => write!(f, "{}: {message}", path.display()),
            StateError::WouldOverwrite(inner) => write!(
                f,
                "{inner}\n(not overwritten: pass --force to replace it with a fresh snapshot)"
            ),
        }
    }
}

impl std::error::Error for StateError {}

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

    /// Parse the text of a state file; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Loaded, StateError> {
        let mut state: State = serde_json::from_str(text).map_err(|e| StateError::Malformed {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        let mut warnings = Vec::new();
        if state.schema_version != SCHEMA_VERSION {
            warnings.push(format!(
                "{}: schema_version `{}` is not `{SCHEMA_VERSION}`; reading the fields this version knows",
                path.display(),
                state.schema_version
            ));
        }
        let mut unsafe_paths = |keys: Vec<String>| -> Vec<(String, Option<String>)> {
            keys.into_iter()
                .filter_map(|key| match RepoPath::parse(&key) {
                    Ok(p) if p.as_str() == key => None,
                    Ok(p) => Some((key, Some(p.into_string()))),
                    Err(e) => {
                        warnings.push(format!(
                            "{}: entry `{}` ignored: {e}",
                            path.display(),
                            key.escape_debug()
                        ));
                        Some((key, None))
                    }
                })
                .collect()
        };
        for (key, normal) in unsafe_paths(state.file_fingerprints.keys().cloned().collect()) {
            let entry = state.file_fingerprints.remove(&key).expect("listed");
            if let Some(normal) = normal {
                state.file_fingerprints.entry(normal).or_insert(entry);
            }
        }
        for (key, normal) in unsafe_paths(state.spec_fingerprints.keys().cloned().collect()) {
            let entry = state.spec_fingerprints.remove(&key).expect("listed");
            if let Some(normal) = normal {
                state.spec_fingerprints.entry(normal).or_insert(entry);
            }
        }
        Ok(Loaded { state, warnings })
    }

    /// The file's text: sorted keys, two-space indent, trailing newline.
    pub fn to_text(&self) -> String {
        let value = serde_json::to_value(self).expect("a state serializes");
        let mut text = serde_json::to_string_pretty(&sorted(value)).expect("a value serializes");
        text.push('\n');
        text
    }
}

/// `value` with every object's keys in sorted order.
fn sorted(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<_> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.into_iter().map(sorted).collect())
        }
        other => other,
    }
}

/// Path of the state file under `root`.
pub fn state_path(root: &Path) -> PathBuf {
    root.join(STATE_FILE)
}

/// The largest state file read (a repository of a million files stays
/// well below it).
const MAX_STATE_BYTES: u64 = 256 * 1024 * 1024;

/// Read a state file at `path`; `Ok(None)` when there is none.
pub fn read_file(root: &Path, path: &Path) -> Result<Option<Loaded>, StateError> {
    let bytes = match crate::safe_fs::read(root, path, MAX_STATE_BYTES) {
        Ok(bytes) => bytes,
        Err(crate::safe_fs::FsError::NotFound { .. }) => return Ok(None),
        Err(e) => {
            return Err(StateError::Io {
                path: path.to_path_buf(),
                message: format!("cannot read: {e}"),
            });
        }
    };
    let text = String::from_utf8(bytes).map_err(|_| StateError::Io {
        path: path.to_path_buf(),
        message: "is not UTF-8 text; restore it from git or run `notarai state snapshot --force`"
            .into(),
    })?;
    State::parse(&text, path).map(Some)
}

/// Read the project's state file; `Ok(None)` when there is none.
pub fn read(root: &Path) -> Result<Option<Loaded>, StateError> {
    read_file(root, &state_path(root))
}

/// The project's state for answering "is it reconciled?": never fails. A
/// malformed file is ignored with a warning on stderr (see [`problem`]).
pub fn read_lenient(root: &Path) -> State {
    match read(root) {
        Ok(Some(loaded)) => {
            for w in &loaded.warnings {
                tracing::warn!("{w}");
            }
            loaded.state
        }
        Ok(None) => State::empty(),
        Err(e) => {
            tracing::warn!("{e}; the committed state is ignored until fixed");
            State::empty()
        }
    }
}

/// What is wrong with the project's state file, for the server's
/// `instructions` and the status tool; `None` when it reads (or is absent).
pub fn problem(root: &Path) -> Option<String> {
    read(root).err().map(|e| e.to_string())
}

/// Write `state` to `path` (inside `root`) through the one safe writer: a
/// temporary file in the same folder, flushed to disk, renamed over the old
/// file. A crash leaves the old file or the new one, never half of either.
pub fn write_file(root: &Path, path: &Path, state: &State) -> Result<(), StateError> {
    crate::safe_fs::write(root, path, state.to_text().as_bytes()).map_err(|e| StateError::Io {
        path: path.to_path_buf(),
        message: format!("cannot write: {e}"),
    })
}

/// Write the project's state file.
pub fn write(root: &Path, state: &State) -> Result<(), StateError> {
    crate::cache::check_location(root).map_err(|message| StateError::Io {
        path: state_path(root),
        message,
    })?;
    write_file(root, &state_path(root), state)
}

/// Remove the project's state file; `true` when one existed.
pub fn reset(root: &Path) -> Result<bool, StateError> {
    let path = state_path(root);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(StateError::Io {
            path,
            message: format!("cannot remove: {e}"),
        }),
    }
}

// ---------------------------------------------------------------- reconciled

/// The two sources of "reconciled": the local hash cache and the committed
/// state. A file is reconciled when its current fingerprint equals its entry
/// in either.
#[derive(Debug, Default)]
pub struct Reconciled {
    cache: HashMap<String, String>,
    state: State,
}

impl Reconciled {
    /// Look up `paths` in the cache and read the state file (leniently).
    pub fn lookup<'k>(root: &Path, paths: impl IntoIterator<Item = &'k str>) -> Reconciled {
        Reconciled::from(Some(Cache::open_read(root)), root, paths)
    }

    /// Sources for `paths` from `cache` (`None`: a cache not to be trusted,
    /// such as one git tracks) and the committed state of `root`.
    pub fn from<'k>(
        cache: Option<Cache>,
        root: &Path,
        paths: impl IntoIterator<Item = &'k str>,
    ) -> Reconciled {
        Reconciled {
            cache: cache.map_or_else(Default::default, |c| c.lookup(paths)),
            state: read_lenient(root),
        }
    }

    /// Sources for `paths` with this state instead of the file on disk.
    pub fn with_state<'k>(
        root: &Path,
        paths: impl IntoIterator<Item = &'k str>,
        state: State,
    ) -> Reconciled {
        Reconciled {
            cache: Cache::open_read(root).lookup(paths),
            state,
        }
    }

    /// Whether `path`, whose fingerprint now is `current` (a hash or
    /// `deleted`), was reconciled in this content.
    pub fn matches(&self, path: &str, current: &str) -> bool {
        self.cache.get(path).is_some_and(|c| c == current)
            || self.state.fingerprint(path) == Some(current)
    }
}

impl Reconciled {
    /// The cache for `paths` when it can be trusted (`None` when git tracks
    /// it: a cache that came with the repository could mark the branch's own
    /// changes as reviewed), and the committed state of `root` (leniently).
    pub fn trusted<'k>(
        root: &Path,
        git: &GitRepo,
        paths: impl IntoIterator<Item = &'k str>,
    ) -> Reconciled {
        let tracked = git.tracked_cache_files();
        let cache = if tracked.is_empty() {
            Some(Cache::open_read(root))
        } else {
            tracing::warn!("{}", crate::changes::tracked_cache_message(&tracked));
            None
        };
        Reconciled::from(cache, root, paths)
    }

    /// Whether each of the changed files `paths` is reconciled in its
    /// current content, in order: the one judgement behind
    /// `list_affected_specs`' counts, `get_reconciliation_status` and
    /// `notarai check`. A file is hashed as git sees it (never through a
    /// symbolic link; a deleted file is `deleted`; with `git`, a file the
    /// index marks skip-worktree is its staged content); what is not a file
    /// (a folder where a file was) is not reconciled.
    pub fn judge<S: AsRef<str> + Sync>(
        &self,
        root: &Path,
        git: Option<&GitRepo>,
        paths: &[S],
    ) -> Result<Vec<bool>, String> {
        // A file outside a sparse checkout is its staged content, not deleted.
        let rels: Vec<&str> = paths.iter().map(AsRef::as_ref).collect();
        let mut staged = git
            .map(|g| g.skip_worktree_hashes(&rels))
            .unwrap_or_default();
        rels.iter()
            .zip(hashing::hash_many_in(root, &rels))
            .map(|(path, hash)| {
                let hash = match staged.remove(*path) {
                    Some(staged) => staged,
                    None => hash.map_err(|e| format!("cannot read {path}: {e}"))?,
                };
                Ok(hash
                    .cache_value()
                    .is_some_and(|current| self.matches(path, current)))
            })
            .collect()
    }
}

// ------------------------------------------------------------------ snapshot

/// What a snapshot changed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SnapshotSummary {
    /// Path of the state file written.
    pub path: String,
    /// Entries in the new state.
    pub entries: usize,
    /// Entries not in the old state (or with another fingerprint there).
    pub added: usize,
    /// Entries of the old state dropped because the file changed since.
    pub dropped: usize,
    /// The commit recorded as `last_reconciliation.git_hash`.
    pub git_hash: Option<String>,
    /// The branch recorded, if `HEAD` is on one.
    pub branch: Option<String>,
}

/// Compute the snapshot of `root`: every path whose current fingerprint
/// matches the cache or `existing`, plus `last_reconciliation` from `HEAD`.
pub fn compute_snapshot(
    root: &Path,
    git: &GitRepo,
    existing: &State,
) -> Result<(State, SnapshotSummary), StateError> {
    let io = |message: String| StateError::Io {
        path: state_path(root),
        message,
    };
    let universe = git
        .files(&Scope::Everything)
        .map_err(|e| io(e.to_string()))?;
    let mut keys: BTreeSet<String> = universe.into_iter().collect();
    keys.extend(existing.entries().keys().map(|k| k.to_string()));
    // Files deleted on the branch are in no listing of the work tree; the
    // changes since the base `check` would use name them.
    if let Ok((base, _)) = choose_base(git, existing, None)
        && let Ok(changes) = git.changes(&base, &Scope::Everything, false)
    {
        keys.extend(changes.paths());
    }
    keys.remove(STATE_FILE);
    let cached = Cache::open_read(root).lookup(keys.iter().map(String::as_str));
    // Only what one of the two sources names needs hashing.
    let mut guard = Guard::new(root);
    let candidates: Vec<RepoPath> = keys
        .iter()
        .filter(|k| cached.contains_key(*k) || existing.fingerprint(k).is_some())
        .filter_map(|k| guard.resolve_unfollowed(k).ok())
        .collect();
    let fs: Vec<PathBuf> = candidates.iter().map(|p| p.to_fs(root)).collect();
    let mut state = State {
        other: existing.other.clone(),
        ..State::empty()
    };
    let (mut added, mut kept) = (0, 0);
    for (path, hash) in candidates.iter().zip(hashing::hash_many(&fs)) {
        let hash = hash.map_err(|e| io(format!("cannot read {path}: {e}")))?;
        let Some(current) = hash.cache_value() else {
            continue;
        };
        let path = path.as_str();
        let in_state = existing.fingerprint(path) == Some(current);
        if in_state || cached.get(path).is_some_and(|c| c == current) {
            state.insert(path, current);
            // Keep what the old entry carried besides its hash.
            if let Some(old) = existing.file_fingerprints.get(path)
                && let Some(new) = state.file_fingerprints.get_mut(path)
            {
                new.other = old.other.clone();
            }
            if in_state { kept += 1 } else { added += 1 }
        }
    }
    let dropped = existing.entries().len() - kept;
    let (git_hash, branch) = head_of(git);
    state.cli_version = Some(env!("CARGO_PKG_VERSION").into());
    state.last_reconciliation = Some(LastReconciliation {
        timestamp: format!("{}Z", now_secs()),
        git_hash: git_hash.clone(),
        branch: branch.clone(),
        other: existing
            .last_reconciliation
            .as_ref()
            .map(|l| l.other.clone())
            .unwrap_or_default(),
    });
    let summary = SnapshotSummary {
        path: STATE_FILE.into(),
        entries: state.entries().len(),
        added,
        dropped,
        git_hash,
        branch,
    };
    Ok((state, summary))
}

/// Snapshot the project's state: read the existing file (refusing a
/// malformed one unless `force`), compute, write. The domain function behind
/// `notarai state snapshot` and the MCP tool `snapshot_state`.
pub fn snapshot(root: &Path, git: &GitRepo, force: bool) -> Result<SnapshotSummary, StateError> {
    let existing = match read(root) {
        Ok(Some(loaded)) => {
            for w in &loaded.warnings {
                tracing::warn!("{w}");
            }
            loaded.state
        }
        Ok(None) => State::empty(),
        Err(e @ StateError::Malformed { .. }) if !force => {
            return Err(StateError::WouldOverwrite(Box::new(e)));
        }
        Err(StateError::Malformed { .. }) => State::empty(),
        Err(e) => return Err(e),
    };
    let (state, summary) = compute_snapshot(root, git, &existing)?;
    write(root, &state)?;
    Ok(summary)
}

/// `HEAD`'s commit and branch name.
pub fn head_of(git: &GitRepo) -> (Option<String>, Option<String>) {
    let Ok(head) = git.raw().head() else {
        return (None, None);
    };
    let hash = head.target().map(|o| o.to_string());
    let branch = head
        .is_branch()
        .then(|| head.shorthand().ok().map(str::to_string))
        .flatten();
    (hash, branch)
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

// --------------------------------------------------------------------- merge

/// A timestamp as written (`1773423102Z`, or digits alone) in seconds.
fn timestamp_secs(state: &State) -> Option<u64> {
    let t = &state.last_reconciliation.as_ref()?.timestamp;
    t.trim_end_matches('Z').parse().ok()
}

/// Three-way merge of two states with their common ancestor `base`: union by
/// path; a side that changed an entry wins over one that did not (a removal
/// counts as a change only when the other side kept the base's entry); when
/// both changed it differently, the entry matching `current(path)` (the
/// merged work tree's fingerprint) wins, else the side with the newer
/// `last_reconciliation`.
pub fn merge(
    base: &State,
    ours: &State,
    theirs: &State,
    current: impl Fn(&str) -> Option<String>,
) -> State {
    let ours_newer = timestamp_secs(ours) >= timestamp_secs(theirs);
    let mut out = ours.clone();
    out.file_fingerprints.clear();
    out.spec_fingerprints.clear();
    for (k, v) in &theirs.other {
        out.other.entry(k.clone()).or_insert_with(|| v.clone());
    }
    if !ours_newer {
        out.last_reconciliation = theirs.last_reconciliation.clone();
    }
    let (o, a, b) = (base.entries(), ours.entries(), theirs.entries());
    let paths: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
    for path in paths {
        let (o, a, b) = (o.get(path), a.get(path), b.get(path));
        let chosen = if a == b || b == o {
            a
        } else if a == o {
            b
        } else {
            match (a, b) {
                (Some(_), None) => a,
                (None, Some(_)) => b,
                _ => {
                    let now = current(path);
                    if now.as_deref() == a.copied() {
                        a
                    } else if now.as_deref() == b.copied() {
                        b
                    } else if ours_newer {
                        a
                    } else {
                        b
                    }
                }
            }
        };
        if let Some(fingerprint) = chosen {
            out.insert(path, fingerprint);
            let extra = ours
                .file_fingerprints
                .get(path)
                .or_else(|| theirs.file_fingerprints.get(path));
            if let (Some(extra), Some(entry)) = (extra, out.file_fingerprints.get_mut(path)) {
                entry.other = extra.other.clone();
            }
        }
    }
    out
}

/// The git merge driver: merge the files `base` (%O), `ours` (%A) and
/// `theirs` (%B) and write the result to `ours`. Paths are hashed under
/// `root` (the work tree being merged) to break ties. Git's default merge
/// (`ort`) writes the work tree after its drivers ran, so a tie is broken by
/// the content checked out before the merge (ours), else by age; a
/// `notarai state snapshot` after the merge drops whatever no longer matches.
/// An empty file (what git passes for a side without the file, such as the
/// ancestor when both branches added it) is an empty state.
pub fn merge_files(
    root: &Path,
    base: &Path,
    ours: &Path,
    theirs: &Path,
) -> Result<State, StateError> {
    let load = |p: &Path| -> Result<State, StateError> {
        // git passes an empty file for a side without the file (both
        // branches added it: the ancestor is empty).
        if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file() && m.len() == 0) {
            return Ok(State::empty());
        }
        Ok(read_file(root, p)?
            .map(|l| l.state)
            .unwrap_or_else(State::empty))
    };
    let (o, a, b) = (load(base)?, load(ours)?, load(theirs)?);
    let merged = merge(&o, &a, &b, |path| {
        let path = Guard::new(root).resolve_unfollowed(path).ok()?;
        hashing::hash_path(&path.to_fs(root))
            .ok()?
            .cache_value()
            .map(str::to_string)
    });
    write_file(root, ours, &merged)?;
    Ok(merged)
}

// ---------------------------------------------------------------- at a commit

/// The state file as committed in `commit` (`None` when it has none).
/// A malformed one there is an error like any other.
pub fn read_at(git: &GitRepo, commit: git2::Oid) -> Result<Option<Loaded>, StateError> {
    let repo = git.raw();
    let name = format!("{STATE_FILE} at {commit}");
    let io = |e: git2::Error| StateError::Io {
        path: PathBuf::from(&name),
        message: e.message().to_string(),
    };
    let tree = repo
        .find_commit(commit)
        .and_then(|c| c.tree())
        .map_err(io)?;
    let entry = match tree.get_path(Path::new(STATE_FILE)) {
        Ok(entry) => entry,
        Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let blob = repo.find_blob(entry.id()).map_err(io)?;
    let text = String::from_utf8_lossy(blob.content());
    State::parse(&text, Path::new(&name)).map(Some)
}

#[cfg(test)]
mod tests {
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

// ------------------------------------------------------- merge driver set-up

/// The `.gitattributes` line that routes the state file to the driver.
pub const GITATTRIBUTES_LINE: &str = ".notarai/reconciliation_state.json merge=notarai";

/// The git config key of the driver's command, and its value.
pub const DRIVER_KEY: &str = "merge.notarai.driver";
/// The command git runs to merge the state file.
pub const DRIVER_COMMAND: &str = "notarai state merge %O %A %B";

/// What [`register_merge_driver`] changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct MergeDriverSetup {
    /// `true` when the `.gitattributes` line was added (false: it was there).
    pub gitattributes_added: bool,
    /// `true` when `merge.notarai.driver` was set in the repository's local
    /// git config (false: it already had a value, left as it was).
    pub driver_configured: bool,
}

/// Register `notarai state merge` as the merge driver of the state file:
/// append [`GITATTRIBUTES_LINE`] to `.gitattributes` unless a line already
/// gives the state file a `merge=` attribute (every other byte of the file
/// stays as it was), and set [`DRIVER_KEY`] in the repository's local git
/// config unless it is set (the user's other config untouched). For
/// `notarai init`; `dry_run` reports without writing.
pub fn register_merge_driver(
    root: &Path,
    git: &GitRepo,
    dry_run: bool,
) -> Result<MergeDriverSetup, StateError> {
    let path = root.join(".gitattributes");
    let fs_error = |e: crate::safe_fs::FsError| StateError::Io {
        path: path.clone(),
        message: e.to_string(),
    };
    let existing = match crate::safe_fs::read(root, &path, MAX_STATE_BYTES) {
        Ok(bytes) => bytes,
        Err(crate::safe_fs::FsError::NotFound { .. }) => Vec::new(),
        Err(e) => return Err(fs_error(e)),
    };
    let has_line = String::from_utf8_lossy(&existing).lines().any(|l| {
        let mut words = l.split_whitespace();
        words
            .next()
            .is_some_and(|p| p.trim_start_matches('/') == STATE_FILE)
            && words.any(|w| w.starts_with("merge="))
    });
    if !has_line && !dry_run {
        // In the file's line ending, after a newline when it lacks one.
        let eol: &[u8] = match existing.windows(2).any(|w| w == b"\r\n") {
            true => b"\r\n",
            false => b"\n",
        };
        let mut text = existing.clone();
        if !text.is_empty() && !text.ends_with(b"\n") {
            text.extend_from_slice(eol);
        }
        text.extend_from_slice(GITATTRIBUTES_LINE.as_bytes());
        text.extend_from_slice(eol);
        crate::safe_fs::write(root, &path, &text).map_err(fs_error)?;
    }
    let config_error = |e: git2::Error| StateError::Io {
        path: git.raw().path().join("config"),
        message: e.message().to_string(),
    };
    let mut config = git
        .raw()
        .config()
        .and_then(|c| c.open_level(git2::ConfigLevel::Local))
        .map_err(config_error)?;
    let configured = config.get_string(DRIVER_KEY).is_ok();
    if !configured && !dry_run {
        config
            .set_str(DRIVER_KEY, DRIVER_COMMAND)
            .map_err(config_error)?;
        config
            .set_str("merge.notarai.name", "notarai reconciliation state")
            .map_err(config_error)?;
    }
    Ok(MergeDriverSetup {
        gitattributes_added: !has_line,
        driver_configured: !configured,
    })
}

#[cfg(test)]
mod driver_tests {
    use super::*;

    #[test]
    fn registers_once_and_keeps_the_users_attributes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        git2::Repository::init(&root).unwrap();
        std::fs::write(root.join(".gitattributes"), "*.png binary").unwrap();
        let git = GitRepo::open(&root).unwrap();
        let first = register_merge_driver(&root, &git, false).unwrap();
        assert_eq!(
            first,
            MergeDriverSetup {
                gitattributes_added: true,
                driver_configured: true
            }
        );
        assert_eq!(
            std::fs::read_to_string(root.join(".gitattributes")).unwrap(),
            format!("*.png binary\n{GITATTRIBUTES_LINE}\n")
        );
        let config = git2::Config::open(&root.join(".git/config")).unwrap();
        assert_eq!(config.get_string(DRIVER_KEY).unwrap(), DRIVER_COMMAND);
        let again = register_merge_driver(&root, &git, false).unwrap();
        assert!(!again.gitattributes_added && !again.driver_configured);
        assert_eq!(
            std::fs::read_to_string(root.join(".gitattributes"))
                .unwrap()
                .matches("merge=notarai")
                .count(),
            1
        );
    }
}

// ------------------------------------------------------------ the MCP face

// ---------------------------------------------------------------------- base

/// The branches tried, in order, when no base is given.
pub const DEFAULT_BASES: [&str; 4] = ["main", "origin/main", "master", "origin/master"];

/// Why no base could be chosen.
#[derive(Debug)]
pub enum BaseError {
    /// No base given and none of [`DEFAULT_BASES`] exists.
    NoBase,
    /// git failed, or the base does not resolve.
    Git(crate::changes::ChangeError),
}

impl fmt::Display for BaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BaseError::NoBase => write!(
                f,
                "no base branch: none of {} exists; pass the branch this one merges into with --base",
                DEFAULT_BASES.join(", ")
            ),
            BaseError::Git(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for BaseError {}

/// How the base was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BaseSource {
    /// Given by the caller.
    Explicit,
    /// The committed state's `last_reconciliation.git_hash` (on the default branch).
    LastReconciliation,
    /// The first of `main`, `origin/main`, `master`, `origin/master` that exists.
    DefaultBranch,
}

/// The base a check or status used.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct UsedBase {
    /// The revision (a branch name or a commit).
    pub name: String,
    /// How it was chosen.
    pub source: BaseSource,
    /// The merge base with `HEAD` changes are counted from (`null`: none, every file is new).
    pub merge_base: Option<String>,
}

/// Choose and resolve the base: `explicit` when given, else as the module
/// header says. `state` is the committed state (for `last_reconciliation`).
pub fn choose_base(
    git: &GitRepo,
    state: &State,
    explicit: Option<&str>,
) -> Result<(Base, UsedBase), BaseError> {
    let used = |base: Base, source| {
        let merge_base = base.merge_base.map(|o| o.to_string());
        let name = base.name.clone();
        (
            base,
            UsedBase {
                name,
                source,
                merge_base,
            },
        )
    };
    if let Some(name) = explicit {
        return Ok(used(
            git.resolve_base(name).map_err(BaseError::Git)?,
            BaseSource::Explicit,
        ));
    }
    let repo = git.raw();
    let exists = |name: &str| {
        repo.revparse_single(name)
            .is_ok_and(|o| o.peel_to_commit().is_ok())
    };
    let default = DEFAULT_BASES.iter().copied().find(|b| exists(b));
    let (_, branch) = head_of(git);
    let on_default = match (&branch, default) {
        (Some(branch), Some(default)) => default.trim_start_matches("origin/") == branch,
        _ => false,
    };
    if on_default
        && let Some(hash) = state
            .last_reconciliation
            .as_ref()
            .and_then(|l| l.git_hash.as_deref())
        && let Ok(oid) = git2::Oid::from_str(hash)
        && let Ok(head) = repo.head().and_then(|h| h.peel_to_commit())
        && repo.find_commit(oid).is_ok()
        && (head.id() == oid || repo.graph_descendant_of(head.id(), oid).unwrap_or(false))
    {
        return Ok(used(
            git.resolve_base(hash).map_err(BaseError::Git)?,
            BaseSource::LastReconciliation,
        ));
    }
    match default {
        Some(name) => Ok(used(
            git.resolve_base(name).map_err(BaseError::Git)?,
            BaseSource::DefaultBranch,
        )),
        None => Err(BaseError::NoBase),
    }
}
