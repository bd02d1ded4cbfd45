//! Merging two sides of the state file (the git merge driver) and
//! registering that driver in a repository.

use super::merge_logs::{merge_decisions, merge_drift_notes};
use super::*;
/// A timestamp as written (`1773423102Z`, or digits alone) in seconds.
fn timestamp_secs(state: &State) -> Option<u64> {
    let t = &state.last_reconciliation.as_ref()?.timestamp;
    t.trim_end_matches('Z').parse().ok()
}

/// The three-way choice of one entry: a side that changed it wins over one
/// that did not (a removal counts as a change only when the other side kept
/// the base's entry); when both changed it differently, `tie` picks (true:
/// ours).
pub(super) fn choose<'v, V: PartialEq>(
    o: Option<&'v V>,
    a: Option<&'v V>,
    b: Option<&'v V>,
    tie: impl FnOnce(&V, &V) -> bool,
) -> Option<&'v V> {
    if a == b || b == o {
        a
    } else if a == o {
        b
    } else {
        match (a, b) {
            (Some(x), Some(y)) => Some(if tie(x, y) { x } else { y }),
            (Some(_), None) => a,
            (None, _) => b,
        }
    }
}

/// Three-way merge of two states with their common ancestor `base`: union by
/// path (and, for per-spec reviews, by spec and path); a side that changed an
/// entry wins over one that did not (a removal counts as a change only when
/// the other side kept the base's entry); when both changed it differently,
/// the entry matching `current(path)` (the merged work tree's fingerprint)
/// wins, else the side with the newer `last_reconciliation`. Keys this
/// version does not know merge the same way; one both sides changed
/// differently keeps ours and is named in `conflicts`.
#[cfg(test)]
pub fn merge(
    base: &State,
    ours: &State,
    theirs: &State,
    current: impl Fn(&str) -> Option<String>,
) -> State {
    merge_reporting(base, ours, theirs, current).0
}

/// [`merge`], with the unknown keys both sides changed differently.
pub fn merge_reporting(
    base: &State,
    ours: &State,
    theirs: &State,
    current: impl Fn(&str) -> Option<String>,
) -> (State, Vec<String>) {
    let ours_newer = timestamp_secs(ours) >= timestamp_secs(theirs);
    let mut out = ours.clone().upgraded();
    out.file_fingerprints.clear();
    out.spec_fingerprints.clear();
    out.spec_reviews.clear();
    out.drift_notes.clear();
    out.decisions.clear();
    out.other.clear();
    let conflicts = merge_unknown_keys(base, ours, theirs, &mut out);
    if !ours_newer {
        out.last_reconciliation = theirs.last_reconciliation.clone();
    }
    merge_fingerprints(base, ours, theirs, &mut out, &current, ours_newer);
    merge_reviews(base, ours, theirs, &mut out, &current, ours_newer);
    merge_drift_notes(base, ours, theirs, &mut out);
    merge_decisions(base, ours, theirs, &mut out);
    (out, conflicts)
}

/// The keys this build does not know, merged three-way; those both sides
/// changed differently (ours kept) are returned.
fn merge_unknown_keys(base: &State, ours: &State, theirs: &State, out: &mut State) -> Vec<String> {
    let mut conflicts = Vec::new();
    let keys: BTreeSet<&String> = ours.other.keys().chain(theirs.other.keys()).collect();
    for key in keys {
        let (o, a, b) = (
            base.other.get(key),
            ours.other.get(key),
            theirs.other.get(key),
        );
        let chosen = choose(o, a, b, |_, _| {
            conflicts.push(key.clone());
            true
        });
        if let Some(v) = chosen {
            out.other.insert(key.clone(), v.clone());
        }
    }
    conflicts
}

/// Each file's fingerprint, merged three-way; when both sides changed it,
/// the side matching the file's `current` content wins, else the newer
/// side. The entry keeps its side's unknown keys and blob id.
fn merge_fingerprints(
    base: &State,
    ours: &State,
    theirs: &State,
    out: &mut State,
    current: &impl Fn(&str) -> Option<String>,
    ours_newer: bool,
) {
    let (o, a, b) = (base.entries(), ours.entries(), theirs.entries());
    let paths: BTreeSet<&str> = a.keys().chain(b.keys()).copied().collect();
    for path in paths {
        let chosen = choose(o.get(path), a.get(path), b.get(path), |a, b| {
            let now = current(path);
            if now.as_deref() == Some(*a) {
                true
            } else if now.as_deref() == Some(*b) {
                false
            } else {
                ours_newer
            }
        });
        let Some(fingerprint) = chosen else {
            continue;
        };
        out.insert(path, fingerprint);
        let side = [ours, theirs]
            .into_iter()
            .find(|s| s.fingerprint(path) == Some(*fingerprint))
            .unwrap_or(ours);
        let extra = side
            .file_fingerprints
            .get(path)
            .or_else(|| ours.file_fingerprints.get(path))
            .or_else(|| theirs.file_fingerprints.get(path));
        if let (Some(extra), Some(entry)) = (extra, out.file_fingerprints.get_mut(path)) {
            entry.other = extra.other.clone();
            entry.blob = extra.blob.clone();
        }
    }
}

/// Each spec's reviews, merged three-way by (spec, key); when both sides
/// changed one, the side matching the file's `current` content wins, else
/// the newer side.
fn merge_reviews(
    base: &State,
    ours: &State,
    theirs: &State,
    out: &mut State,
    current: &impl Fn(&str) -> Option<String>,
    ours_newer: bool,
) {
    // The merge driver outlines nothing: a semantic record matches no
    // content here, and the newer side wins as for an unknown kind.
    let kept = SymbolCache::new();
    let flat = |s: &State| -> BTreeMap<(String, String), Review> {
        s.spec_reviews
            .iter()
            .flat_map(|(spec, e)| {
                e.iter()
                    .map(move |(k, r)| ((spec.clone(), k.clone()), r.clone()))
            })
            .collect()
    };
    let (o, a, b) = (flat(base), flat(ours), flat(theirs));
    let keys: BTreeSet<&(String, String)> = a.keys().chain(b.keys()).collect();
    for key in keys {
        let path = record::split_key(&key.1).0;
        let chosen = choose(o.get(key), a.get(key), b.get(key), |x, y| {
            let now = current(path);
            match now {
                Some(now) if x.matches(&kept, path, &now) => true,
                Some(now) if y.matches(&kept, path, &now) => false,
                _ => ours_newer,
            }
        });
        if let Some(review) = chosen {
            out.spec_reviews
                .entry(key.0.clone())
                .or_default()
                .insert(key.1.clone(), review.clone());
        }
    }
}

/// What the merge driver did.
#[derive(Debug)]
pub enum MergeOutcome {
    /// The merged state was written to ours.
    Merged,
    /// Written to ours, but not merged cleanly: git should report a
    /// conflict (the driver exits 1); the message says what and why.
    Conflict(String),
}

/// Whether `path` (git's `%P`, relative to the top of the work tree) names
/// the state file.
pub fn is_state_path(path: &Path) -> bool {
    let text = path.to_string_lossy();
    let mut text = text.as_ref();
    while let Some(rest) = text.strip_prefix("./") {
        text = rest;
    }
    text == STATE_FILE
}

/// The git merge driver: merge the files `base` (%O), `ours` (%A) and
/// `theirs` (%B) and write the result to `ours`. It merges only the state
/// file: `merged_path` (%P, when the registration passes it) must name
/// [`STATE_FILE`] and each side must read as a state file (at most
/// [`MAX_STATE_BYTES`], valid, with a key of the format); otherwise the
/// three are merged as text the way git would (conflict markers where both
/// sides changed the same lines) into ours and the outcome is a
/// [`MergeOutcome::Conflict`], so git stops with a conflict and nothing of
/// either side is lost.
///
/// Paths are hashed under `root` (the work tree being merged) to break ties.
/// Git's default merge (`ort`) writes the work tree after its drivers ran,
/// so a tie is broken by the content checked out before the merge (ours),
/// else by age; a `notarai state snapshot` after the merge drops whatever no
/// longer matches. An empty file (what git passes for a side without the
/// file, such as the ancestor when both branches added it) is an empty state.
pub fn merge_files(
    root: &Path,
    base: &Path,
    ours: &Path,
    theirs: &Path,
    merged_path: Option<&Path>,
) -> Result<MergeOutcome, StateError> {
    if let Some(path) = merged_path
        && !is_state_path(path)
    {
        return text_conflict(
            root,
            base,
            ours,
            theirs,
            format!(
                "{} is not {STATE_FILE}: notarai merges only its state file; the file is left to you as a conflict (route only {STATE_FILE} to `merge=notarai` in .gitattributes)",
                path.display()
            ),
        );
    }
    let load = |p: &Path| -> Result<State, StateError> {
        // git passes an empty file for a side without the file (both
        // branches added it: the ancestor is empty).
        if std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file() && m.len() == 0) {
            return Ok(State::empty());
        }
        let loaded = read_file(root, p)?.ok_or_else(|| StateError::Io {
            path: p.to_path_buf(),
            message: "missing".into(),
        })?;
        if !looks_like_state(&loaded.state) {
            return Err(StateError::Io {
                path: p.to_path_buf(),
                message: "has none of the state file's keys".into(),
            });
        }
        Ok(loaded.state)
    };
    let sides = (load(base), load(ours), load(theirs));
    let (o, a, b) = match sides {
        (Ok(o), Ok(a), Ok(b)) => (o, a, b),
        (o, a, b) => {
            let why = [o.err(), a.err(), b.err()]
                .into_iter()
                .flatten()
                .map(|e| e.to_string())
                .next()
                .unwrap_or_default();
            return text_conflict(
                root,
                base,
                ours,
                theirs,
                format!("not merged as a state file ({why}); left to you as a conflict"),
            );
        }
    };
    let (merged, conflicts) = merge_reporting(&o, &a, &b, |path| {
        let path = Guard::new(root).resolve_unfollowed(path).ok()?;
        hashing::hash_path(&path.to_fs(root))
            .ok()?
            .cache_value()
            .map(str::to_string)
    });
    write_file(root, ours, &merged)?;
    if conflicts.is_empty() {
        Ok(MergeOutcome::Merged)
    } else {
        Ok(MergeOutcome::Conflict(format!(
            "both sides changed the key{} {} (unknown to this notarai) differently; kept ours: check it, then `git add {STATE_FILE}`",
            if conflicts.len() == 1 { "" } else { "s" },
            conflicts
                .iter()
                .map(|k| format!("`{}`", k.escape_debug()))
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }
}

/// Whether a parsed file has at least one key of the format (a JSON object
/// such as `package.json` parses, but is not a state file).
fn looks_like_state(state: &State) -> bool {
    state.cli_version.is_some()
        || state.last_reconciliation.is_some()
        || !state.file_fingerprints.is_empty()
        || !state.spec_fingerprints.is_empty()
        || !state.spec_reviews.is_empty()
        || state.other.is_empty()
}

/// Merge the three files as text, as git's own merge would, into `ours`,
/// and report a conflict with `why`.
fn text_conflict(
    root: &Path,
    base: &Path,
    ours: &Path,
    theirs: &Path,
    why: String,
) -> Result<MergeOutcome, StateError> {
    let read = |p: &Path| -> Result<Vec<u8>, StateError> {
        match crate::safe_fs::read(root, p, MAX_STATE_BYTES) {
            Ok(bytes) => Ok(bytes),
            Err(crate::safe_fs::FsError::NotFound { .. }) => Ok(Vec::new()),
            Err(e) => Err(StateError::Io {
                path: p.to_path_buf(),
                message: format!("cannot read: {e}"),
            }),
        }
    };
    let (o, a, b) = (read(base)?, read(ours)?, read(theirs)?);
    fn input<'a>(bytes: &'a [u8], label: &str) -> git2::MergeFileInput<'a> {
        let mut f = git2::MergeFileInput::new();
        f.content(bytes).path(label);
        f
    }
    let mut options = git2::MergeFileOptions::new();
    options
        .ancestor_label("base")
        .our_label("ours")
        .their_label("theirs");
    let merged = git2::merge_file(
        &input(&o, "base"),
        &input(&a, "ours"),
        &input(&b, "theirs"),
        Some(&mut options),
    )
    .map_err(|e| StateError::Io {
        path: ours.to_path_buf(),
        message: format!("cannot merge as text: {}", e.message()),
    })?;
    crate::safe_fs::write_file(root, ours, merged.content()).map_err(|e| StateError::Io {
        path: ours.to_path_buf(),
        message: format!("cannot write: {e}"),
    })?;
    Ok(MergeOutcome::Conflict(why))
}

/// The `.gitattributes` line that routes the state file to the driver.
pub const GITATTRIBUTES_LINE: &str = ".notarai/reconciliation_state.json merge=notarai";

/// The git config key of the driver's command, and its value.
pub const DRIVER_KEY: &str = "merge.notarai.driver";
/// The command git runs to merge the state file (`%P`: the path merged,
/// so the driver refuses any other file).
pub const DRIVER_COMMAND: &str = "notarai state merge %O %A %B %P";

/// The command earlier versions registered (no `%P`); `init` replaces it.
pub const OLD_DRIVER_COMMAND: &str = "notarai state merge %O %A %B";

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
    // The registration of earlier versions lacks `%P`: replaced.
    let configured = config
        .get_string(DRIVER_KEY)
        .is_ok_and(|v| v != OLD_DRIVER_COMMAND);
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
        .is_ok_and(|v| v == DRIVER_COMMAND || v == OLD_DRIVER_COMMAND)
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
    drop(config);
    // libgit2 leaves the emptied `[merge "notarai"]` header: take it back
    // too, unless something of the user's (an entry, a comment) is in it.
    let path = git.raw().commondir().join("config");
    crate::safe_fs::edit_git_config(&path, |text| {
        without_empty_section(text, "merge \"notarai\"")
    })
    .map_err(|e| StateError::Io {
        path: path.clone(),
        message: e.to_string(),
    })?;
    Ok(())
}

/// `text` (a git config file) without the header `[name]` when its section
/// holds nothing but blank lines; `None` when there is no such empty
/// section.
fn without_empty_section(text: &str, name: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let header = format!("[{name}]");
    let at = lines.iter().position(|l| l.trim() == header)?;
    let body_end = lines[at + 1..]
        .iter()
        .position(|l| l.trim_start().starts_with('['))
        .map_or(lines.len(), |n| at + 1 + n);
    if !lines[at + 1..body_end].iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        if i != at {
            out.push_str(line);
        }
    }
    Some(out)
}

#[cfg(test)]
mod driver_tests {
    use super::*;

    #[test]
    fn only_an_empty_section_loses_its_header() {
        let name = "merge \"notarai\"";
        assert_eq!(
            without_empty_section(
                "[core]\n\tbare = false\n[merge \"notarai\"]\n[user]\n\tname = a\n",
                name
            )
            .as_deref(),
            Some("[core]\n\tbare = false\n[user]\n\tname = a\n")
        );
        assert_eq!(
            without_empty_section("[core]\n[merge \"notarai\"]\n", name).as_deref(),
            Some("[core]\n")
        );
        // Something of the user's in it: kept.
        assert_eq!(
            without_empty_section("[merge \"notarai\"]\n\t# mine\n", name),
            None
        );
        assert_eq!(
            without_empty_section("[merge \"notarai\"]\n\trecursive = x\n", name),
            None
        );
        assert_eq!(without_empty_section("[core]\n", name), None);
    }

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
            String::from_utf8(
                crate::safe_fs::read(&root, Path::new(".gitattributes"), 1 << 20).unwrap()
            )
            .unwrap(),
            format!("*.png binary\n{GITATTRIBUTES_LINE}\n")
        );
        let config = git2::Config::open(&root.join(".git/config")).unwrap();
        assert_eq!(config.get_string(DRIVER_KEY).unwrap(), DRIVER_COMMAND);
        let again = register_merge_driver(&root, &git, false).unwrap();
        assert!(!again.gitattributes_added && !again.driver_configured);
        assert_eq!(
            String::from_utf8(
                crate::safe_fs::read(&root, Path::new(".gitattributes"), 1 << 20).unwrap()
            )
            .unwrap()
            .matches("merge=notarai")
            .count(),
            1
        );
    }
}
