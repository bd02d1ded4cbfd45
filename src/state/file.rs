//! The state file on disk: where it is, read (bounded; leniently for the
//! server; as committed at a commit), written deterministically through the
//! one safe writer (`notarai state reset` removes it through
//! `safe_fs::remove_file`).

use super::*;

impl State {
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

/// The largest state file read: 32 MiB, about 250,000 reviewed files.
/// Parsed, a file costs a small multiple of its size (`parse.rs`), so a
/// hostile one stays far under 256 MB of memory.
pub const MAX_STATE_BYTES: u64 = 32 * 1024 * 1024;

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
    crate::safe_fs::write_file(root, path, state.to_text().as_bytes()).map_err(|e| StateError::Io {
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
    if blob.size() as u64 > MAX_STATE_BYTES {
        return Err(StateError::Io {
            path: PathBuf::from(&name),
            message: format!(
                "is larger than {} MiB; notarai does not read a state file that large",
                MAX_STATE_BYTES >> 20
            ),
        });
    }
    let text = String::from_utf8_lossy(blob.content());
    State::parse(&text, Path::new(&name)).map(Some)
}
