//! Merging two sides of the state file (the git merge driver) and
//! registering that driver in a repository.

use super::*;
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
        crate::safe_fs::write_file(root, &path, &with_attributes_line(&existing))
            .map_err(fs_error)?;
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

/// `.gitattributes` bytes with [`GITATTRIBUTES_LINE`] appended, in the
/// file's line ending, after a line break when the file lacks a final one.
pub fn with_attributes_line(existing: &[u8]) -> Vec<u8> {
    let eol: &[u8] = match existing.windows(2).any(|w| w == b"\r\n") {
        true => b"\r\n",
        false => b"\n",
    };
    let mut text = existing.to_vec();
    if !text.is_empty() && !text.ends_with(b"\n") {
        text.extend_from_slice(eol);
    }
    text.extend_from_slice(GITATTRIBUTES_LINE.as_bytes());
    text.extend_from_slice(eol);
    text
}

/// Whether the local git config names notarai's merge driver (set to
/// [`DRIVER_COMMAND`], as `init` writes it).
pub fn merge_driver_registered(git: &GitRepo) -> bool {
    git.raw()
        .config()
        .and_then(|c| c.open_level(git2::ConfigLevel::Local))
        .and_then(|c| c.get_string(DRIVER_KEY))
        .is_ok_and(|v| v == DRIVER_COMMAND)
}

/// Unset notarai's merge driver in the local git config (`init --remove`),
/// when it is the one `init` writes; the `.gitattributes` line is the
/// caller's.
pub fn unregister_merge_driver(git: &GitRepo) -> Result<(), StateError> {
    if !merge_driver_registered(git) {
        return Ok(());
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
    config.remove(DRIVER_KEY).map_err(config_error)?;
    let _ = config.remove("merge.notarai.name");
    Ok(())
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
