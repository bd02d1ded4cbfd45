//! The hooks' session memory: which files the pre-edit hook already told
//! each session about, so that a file is told once per session; which
//! governed files the session set out to edit, and which of them the stop
//! hook's last nudge named, so that the end of a turn is told once per
//! unreconciled set ([`super::stop`]).
//!
//! Read once and written once per event, whatever the number of files the
//! event names (a lookup is a hash-set probe). Session ids and file paths
//! are kept as [`key`]s, fixed-size BLAKE3 digests: an id of any length is
//! one session and the file never holds repository text. At most
//! [`MAX_SESSIONS`] sessions are kept, the least recently used forgotten
//! first (a session that keeps arriving, whatever its id, takes one place
//! and evicts no more than one other), each with at most [`MAX_FILES`]
//! files (the oldest forgotten first), so the file stays under a few
//! megabytes. The governed files a session edits are kept as paths (the
//! stop hook names them), at most [`MAX_EDITED`] of at most
//! [`MAX_EDITED_PATH`] bytes each, the oldest forgotten first; what the
//! last nudge named as at most [`MAX_EDITED`] keys.
//!
//! The file is notarai's own, under the cache folder: it is read without
//! following any link (`safe_fs::read_own`), written through the safe
//! writer, never read nor written when git tracks the cache folder, and the
//! cache folder it makes carries a `.gitignore` holding `*`
//! ([`crate::project::make_cache_folder`]). A file that is missing, too
//! large, of another format or implausible is started afresh.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::project::Project;

/// Where the files told per session are remembered.
pub const MEMORY_FILE: &str = ".notarai/.cache/hook-context.json";

/// Sessions remembered (the least recently used is forgotten first).
pub const MAX_SESSIONS: usize = 16;

/// Files remembered per session (past it, the oldest may be told again).
pub const MAX_FILES: usize = 2000;

/// Governed files remembered as edited per session (past it, the oldest
/// is forgotten and no longer nudged about).
pub const MAX_EDITED: usize = 200;

/// Longest path remembered as edited, in bytes (a longer one is not).
pub const MAX_EDITED_PATH: usize = 512;

/// Largest memory file read: [`MAX_SESSIONS`] x ([`MAX_FILES`] keys and
/// [`MAX_EDITED`] paths and keys) fit in half of it.
const MEMORY_LIMIT: u64 = 6 << 20;

/// Version of the file's layout (1: ids and paths kept as text; 2: no
/// edited files).
const FORMAT: u32 = 3;

/// Bytes of a BLAKE3 digest kept in a key (128 bits).
const KEY_BYTES: usize = 16;

/// The key a session id or a file path is remembered by: the first
/// [`KEY_BYTES`] bytes of its BLAKE3 hash, in hex.
pub fn key(text: &str) -> String {
    let hash = blake3::hash(text.as_bytes());
    hash.as_bytes()[..KEY_BYTES]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `path` may be remembered as edited.
fn is_edited_path(path: &str) -> bool {
    !path.is_empty() && path.len() <= MAX_EDITED_PATH
}

/// Whether `text` could have been made by [`key`].
fn is_key(text: &str) -> bool {
    text.len() == 2 * KEY_BYTES && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The file as kept.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    /// [`FORMAT`].
    format: u32,
    /// Least recently used first.
    sessions: Vec<StoredSession>,
}

/// One session as kept.
#[derive(Debug, Serialize, Deserialize)]
struct StoredSession {
    /// The [`key`] of its id.
    session: String,
    /// The [`key`]s of the files told, oldest first.
    files: VecDeque<String>,
    /// The governed files the session set out to edit, oldest first.
    #[serde(default)]
    edited: VecDeque<String>,
    /// The [`key`]s of the (spec, file) pairs the last nudge named that
    /// were still unreconciled at the last stop.
    #[serde(default)]
    nudged: Vec<String>,
}

impl Stored {
    /// Whether this could have been written by [`Memory::save`].
    fn is_plausible(&self) -> bool {
        self.format == FORMAT
            && self.sessions.len() <= MAX_SESSIONS
            && self.sessions.iter().all(|s| {
                is_key(&s.session)
                    && s.files.len() <= MAX_FILES
                    && s.files.iter().all(|f| is_key(f))
                    && s.edited.len() <= MAX_EDITED
                    && s.edited.iter().all(|p| is_edited_path(p))
                    && s.nudged.len() <= MAX_EDITED
                    && s.nudged.iter().all(|k| is_key(k))
            })
    }
}

/// One session's memory for one event: read once ([`Memory::open`]),
/// asked and added to per file, written once ([`Memory::save`]).
#[derive(Debug)]
pub struct Memory {
    /// The project root.
    root: PathBuf,
    /// Every session kept; this event's is the last.
    stored: Stored,
    /// The keys of this session's files, for lookups.
    told: HashSet<String>,
    /// Whether `stored` differs from the file.
    changed: bool,
    /// Whether the memory may be kept at all (not when git tracks the
    /// cache folder, or it is not a real folder).
    usable: bool,
}

impl Memory {
    /// The memory of `session` in `project`, read once; made the most
    /// recently used. Empty (and never saved) when the cache folder is a
    /// link or git tracks it.
    pub fn open(project: &mut Project, session: &str) -> Memory {
        let root = project.root().to_path_buf();
        let usable = crate::cache::check_location(&root).is_ok() && !project.cache_tracked();
        let mut stored = if usable {
            crate::safe_fs::read_own(&root, Path::new(MEMORY_FILE), MEMORY_LIMIT)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Stored>(&bytes).ok())
                .filter(Stored::is_plausible)
                .unwrap_or_default()
        } else {
            Stored::default()
        };
        stored.format = FORMAT;
        let id = key(session);
        let mut changed = false;
        let entry = match stored.sessions.iter().position(|s| s.session == id) {
            Some(at) => {
                changed |= at + 1 != stored.sessions.len();
                stored.sessions.remove(at)
            }
            None => {
                changed = true;
                StoredSession {
                    session: id,
                    files: VecDeque::new(),
                    edited: VecDeque::new(),
                    nudged: Vec::new(),
                }
            }
        };
        stored.sessions.push(entry);
        let excess = stored.sessions.len().saturating_sub(MAX_SESSIONS);
        stored.sessions.drain(..excess);
        let told = current(&stored).files.iter().cloned().collect();
        Memory {
            root,
            stored,
            told,
            changed,
            usable,
        }
    }

    /// Whether notarai's cache folder may be trusted and written (neither
    /// a link nor tracked by git): the hash cache under it too.
    pub fn cache_trusted(&self) -> bool {
        self.usable
    }

    /// Whether `file` was told in this session already.
    pub fn told(&self, file: &str) -> bool {
        self.told.contains(&key(file))
    }

    /// Remember that `file` was told in this session.
    pub fn remember(&mut self, file: &str) {
        let file = key(file);
        if !self.told.insert(file.clone()) {
            return;
        }
        let files = &mut current_mut(&mut self.stored).files;
        files.push_back(file);
        while files.len() > MAX_FILES {
            if let Some(old) = files.pop_front() {
                self.told.remove(&old);
            }
        }
        self.changed = true;
    }

    /// Remember that the session set out to edit the governed `file`
    /// (repository-relative); a path over [`MAX_EDITED_PATH`] bytes is not.
    pub fn edited(&mut self, file: &str) {
        if !is_edited_path(file) {
            tracing::debug!("hook: a path over {MAX_EDITED_PATH} bytes is not remembered");
            return;
        }
        let edited = &mut current_mut(&mut self.stored).edited;
        if edited.iter().any(|f| f == file) {
            return;
        }
        edited.push_back(file.to_string());
        while edited.len() > MAX_EDITED {
            edited.pop_front();
        }
        self.changed = true;
    }

    /// The governed files the session set out to edit, oldest first.
    pub fn edited_files(&self) -> Vec<String> {
        current(&self.stored).edited.iter().cloned().collect()
    }

    /// The stop hook's once-per-state rule: `pairs` are the [`key`]s of the
    /// (spec, file) pairs unreconciled now. `true` when one of them was not
    /// named by the last nudge (tell them all); either way, what is
    /// remembered as named becomes `pairs`, so a pair reconciled since is
    /// forgotten and told again when it comes back.
    pub fn nudge(&mut self, pairs: &[String]) -> bool {
        let session = current_mut(&mut self.stored);
        let new = pairs.iter().any(|p| !session.nudged.contains(p));
        let mut kept: Vec<String> = pairs.iter().take(MAX_EDITED).cloned().collect();
        kept.sort_unstable();
        kept.dedup();
        if kept != session.nudged {
            session.nudged = kept;
            self.changed = true;
        }
        new
    }

    /// Write the memory once, when it changed (best effort: a cache folder
    /// that cannot be written only means a file may be told again).
    pub fn save(self) {
        if !self.usable || !self.changed {
            return;
        }
        let kept = crate::project::make_cache_folder(&self.root)
            .map_err(|e| e.to_string())
            .and_then(|_| serde_json::to_vec(&self.stored).map_err(|e| e.to_string()))
            .and_then(|bytes| {
                crate::safe_fs::write_cache_file(&self.root, Path::new(MEMORY_FILE), &bytes)
                    .map_err(|e| e.to_string())
            });
        if let Err(e) = kept {
            tracing::debug!("hook: cannot remember the session's files: {e}");
        }
    }
}

fn current(stored: &Stored) -> &StoredSession {
    stored
        .sessions
        .last()
        .expect("the session is pushed on open")
}

fn current_mut(stored: &mut Stored) -> &mut StoredSession {
    stored
        .sessions
        .last_mut()
        .expect("the session is pushed on open")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_fixed_size_hex_whatever_the_text() {
        for text in ["", "s", &"x".repeat(100_000), "é\u{0}\n"] {
            let k = key(text);
            assert!(is_key(&k), "{k}");
        }
        assert_ne!(key("a"), key("b"));
        assert!(!is_key("src/a.rs"));
    }

    fn open(root: &Path, session: &str) -> Memory {
        Memory::open(&mut Project::new(root.to_path_buf()), session)
    }

    #[test]
    fn sessions_are_least_recently_used_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut first = open(&root, "first");
        first.remember("src/a.rs");
        first.save();
        // Many events of other sessions, with `first` used in between.
        for i in 0..(3 * MAX_SESSIONS) {
            let mut other = open(&root, &format!("other {i} {}", "x".repeat(300)));
            other.remember("src/a.rs");
            other.save();
            if i % (MAX_SESSIONS / 2) == 0 {
                let again = open(&root, "first");
                assert!(again.told("src/a.rs"), "{i}");
                again.save();
            }
        }
        let bytes = std::fs::read(root.join(MEMORY_FILE)).unwrap();
        let stored: Stored = serde_json::from_slice(&bytes).unwrap();
        assert!(stored.is_plausible());
        assert_eq!(stored.sessions.len(), MAX_SESSIONS);
        assert!(!String::from_utf8_lossy(&bytes).contains("src/a.rs"));
        assert_eq!(
            std::fs::read_to_string(root.join(crate::layout::CACHE_GITIGNORE)).unwrap(),
            "*\n"
        );
    }

    #[test]
    fn a_nudge_is_once_per_unreconciled_set() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut memory = open(&root, "s");
        memory.edited("src/a.rs");
        memory.edited("src/a.rs");
        memory.edited(&"x".repeat(MAX_EDITED_PATH + 1));
        let (a, b) = (key("spec\0src/a.rs"), key("spec\0src/b.rs"));
        assert!(memory.nudge(std::slice::from_ref(&a)));
        memory.save();
        let mut memory = open(&root, "s");
        assert_eq!(memory.edited_files(), ["src/a.rs"]);
        assert!(!memory.nudge(std::slice::from_ref(&a)), "the same set");
        assert!(memory.nudge(&[a.clone(), b.clone()]), "a new pair");
        assert!(!memory.nudge(std::slice::from_ref(&b)), "a subset");
        assert!(memory.nudge(&[a.clone(), b]), "a reconciled pair came back");
        assert!(!memory.nudge(&[]));
        assert!(memory.nudge(&[a]));
    }

    #[test]
    fn a_session_keeps_its_last_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut memory = open(&root, "s");
        for i in 0..(MAX_FILES + 5) {
            memory.remember(&format!("f{i}"));
        }
        memory.save();
        let memory = open(&root, "s");
        assert!(!memory.told("f0") && !memory.told("f4"));
        assert!(memory.told("f5") && memory.told(&format!("f{}", MAX_FILES + 4)));
    }
}
