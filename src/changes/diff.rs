//! The [`ChangeSet`] of one question and the helpers that make and read
//! libgit2's diffs of the work tree.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use git2::{Delta, Diff, DiffFindOptions, DiffOptions, Repository};

use super::kept::Kept;
use super::{ChangeError, ChangeKind, ChangedFile, MAX_DIFF_FILE, Patch, Unnameable};
use crate::glob::is_under;
use crate::governance::Scope;
use crate::layout::CACHE_DIR;

/// The changes within one scope, with what is needed to print their diffs.
pub struct ChangeSet<'r> {
    /// One diff per literal prefix of the scope (or one for everything).
    pub(super) diffs: Vec<Diff<'r>>,
    /// During a merge or rebase that stopped on conflicts, the index holds
    /// no single entry for a conflicted file, and the tree-to-index-to-work
    /// diff shows it as a bare mode change without content. This second
    /// diff, straight from the tree to the work tree and limited to the
    /// conflicted paths, carries their content, conflict markers included.
    pub(super) conflicts: Option<Diff<'r>>,
    /// The work tree, to sniff files too large to diff.
    pub(super) workdir: Option<PathBuf>,
    /// For a change set served from the kept status (no `diffs`): how to
    /// diff its files when a patch is asked for.
    pub(super) lazy: Option<LazyDiff<'r>>,
    /// Changed files, sorted by path.
    pub files: Vec<ChangedFile>,
    /// Changed files whose names are not UTF-8, sorted by lossy name.
    pub unnameable: Vec<Unnameable>,
}

impl fmt::Debug for ChangeSet<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChangeSet")
            .field("files", &self.files)
            .finish()
    }
}

/// A diff and the index of each new path's delta in it.
pub(super) type PathDiff<'r> = (Diff<'r>, HashMap<String, usize>);

/// The diff of a kept change set's files, made on the first patch asked.
pub(super) struct LazyDiff<'r> {
    pub(super) repo: &'r Repository,
    pub(super) tree: Option<git2::Tree<'r>>,
    pub(super) renames: bool,
    /// Patches of the kept answer made by earlier questions, by path: a
    /// file with no event since has the same patch.
    pub(super) known: HashMap<String, Patch>,
    /// Where new patches are kept, for the answer numbered `serial`.
    pub(super) store: &'r std::sync::Mutex<Kept>,
    pub(super) serial: u64,
    /// The diff over exactly the change set's paths, and each new path's delta.
    pub(super) made: std::cell::OnceCell<Result<PathDiff<'r>, git2::Error>>,
}

impl<'r> LazyDiff<'r> {
    /// The diff over exactly `files`' paths (a path list: libgit2 visits
    /// those paths only), renames paired as in the full diff: only added and
    /// deleted files pair up, and all of them are in the list.
    fn get(
        &self,
        files: &[ChangedFile],
    ) -> Result<(&Diff<'r>, &HashMap<String, usize>), ChangeError> {
        let made = self.made.get_or_init(|| {
            // The files whose patch is not known, with every file renames
            // could pair, so that pairs are the full diff's.
            let wanted = files.iter().filter(|f| {
                !self.known.contains_key(&f.path)
                    || (self.renames
                        && matches!(
                            f.status,
                            ChangeKind::Added | ChangeKind::Deleted | ChangeKind::Renamed
                        ))
            });
            let paths: Vec<&str> = wanted.flat_map(ChangedFile::paths).collect();
            let mut diff = super::exact::diff_exactly(self.repo, self.tree.as_ref(), &paths)?;
            if self.renames {
                find_renames(&mut diff, self.repo.workdir())
                    .map_err(|e| git2::Error::from_str(&e.to_string()))?;
            }
            let by_path = diff
                .deltas()
                .enumerate()
                .filter_map(|(i, d)| {
                    let path = d.new_file().path().or(d.old_file().path())?.to_str()?;
                    Some((path.trim_end_matches('/').to_string(), i))
                })
                .collect();
            Ok((diff, by_path))
        });
        match made {
            Ok((diff, by_path)) => Ok((diff, by_path)),
            Err(e) => Err(ChangeError::Git(git2::Error::from_str(e.message()))),
        }
    }

    /// Keep `patch` of `path` with the answer it was made for, if that
    /// answer is still kept.
    fn remember(&self, path: &str, patch: &Patch) {
        let mut kept = self.store.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(answer) = kept.answers.iter_mut().find(|a| a.serial == self.serial)
            && !answer.pending.contains(path)
        {
            answer.patches.insert(path.to_string(), patch.clone());
        }
    }
}

impl ChangeSet<'_> {
    /// Every changed path, both paths of a rename, sorted, each once.
    pub fn paths(&self) -> Vec<String> {
        let mut paths: Vec<String> = self
            .files
            .iter()
            .flat_map(|f| f.paths().map(str::to_string))
            .collect();
        paths.sort();
        paths.dedup();
        paths
    }

    /// The unified diff of one changed file, in git's format.
    pub fn patch(&self, file: &ChangedFile) -> Result<Patch, ChangeError> {
        if let Some(lazy) = &self.lazy {
            if let Some(patch) = lazy.known.get(&file.path) {
                return Ok(patch.clone());
            }
            let (diff, by_path) = lazy.get(&self.files)?;
            let index = *by_path.get(&file.path).ok_or_else(|| {
                ChangeError::Git(git2::Error::from_str(&format!(
                    "{} changed again while being answered; ask again",
                    file.path
                )))
            })?;
            let patch = self.patch_of(diff, index)?;
            lazy.remember(&file.path, &patch);
            return Ok(patch);
        }
        let (diff, index) = match (&self.conflicts, file.conflict_delta) {
            (Some(conflicts), Some(index)) => (conflicts, index),
            _ => match self.diffs.get(file.diff) {
                Some(diff) => (diff, file.delta),
                None => {
                    return Err(ChangeError::Git(git2::Error::from_str(
                        "diff index out of range",
                    )));
                }
            },
        };
        self.patch_of(diff, index)
    }

    /// The patch of delta `index` of `diff`.
    fn patch_of(&self, diff: &Diff<'_>, index: usize) -> Result<Patch, ChangeError> {
        let delta = diff
            .get_delta(index)
            .ok_or_else(|| ChangeError::Git(git2::Error::from_str("delta index out of range")))?;
        // libgit2 keeps a work-tree file's size in 32 bits (a 4 GiB file
        // reads as 0), so the work tree's own size is asked as well.
        let too_large = [delta.old_file(), delta.new_file()]
            .iter()
            .any(|f| f.size() > MAX_DIFF_FILE)
            || delta
                .new_file()
                .path()
                .and_then(Path::to_str)
                .zip(self.workdir.as_deref())
                .and_then(|(path, workdir)| work_tree_size(workdir, path))
                .is_some_and(|size| size > MAX_DIFF_FILE);
        if too_large {
            // git's own test: a NUL in the first 8000 bytes means binary. Only
            // that much is read, so a 200 MB binary is still called binary.
            let binary = delta
                .new_file()
                .path()
                .zip(self.workdir.as_deref())
                .and_then(|(path, workdir)| Some((path.to_str()?, workdir)))
                .is_some_and(|(path, workdir)| starts_binary(workdir, path));
            return Ok(if binary {
                Patch::Binary
            } else {
                Patch::TooLarge
            });
        }
        let Some(mut patch) = git2::Patch::from_diff(diff, index)? else {
            return Ok(Patch::Binary);
        };
        if patch.delta().flags().is_binary() {
            return Ok(Patch::Binary);
        }
        let buf = patch.to_buf()?;
        match buf.as_str() {
            Ok(text) => Ok(Patch::Text(text.to_string())),
            Err(_) => Ok(Patch::Text(String::from_utf8_lossy(&buf).into_owned())),
        }
    }
}

/// The patch from `old` to `new`, two contents of `path`, in git's unified
/// format with its headers (`diff --git a/path b/path`) and three lines of
/// context, as the work tree's diffs are: how a diff "since reconciled"
/// starts from the content last reviewed rather than from the base.
pub fn patch_between(path: &str, old: &[u8], new: &[u8]) -> Result<Patch, ChangeError> {
    if old.len() as u64 > MAX_DIFF_FILE || new.len() as u64 > MAX_DIFF_FILE {
        return Ok(Patch::TooLarge);
    }
    buffers_patch(path, old, new, false)
}

/// The patch from `old` to `new` as text whatever git's attributes or its
/// NUL test say, when both are UTF-8 text: a file git calls binary (`-diff`,
/// `binary` in `.gitattributes`, a NUL in a string literal) whose two sides
/// are text is still shown, so a branch cannot hide its change from the
/// reviewer by calling its file binary. `None` when a side is not UTF-8 (a
/// real binary) or too large.
pub fn text_patch_between(path: &str, old: &[u8], new: &[u8]) -> Option<Patch> {
    if old.len() as u64 > MAX_DIFF_FILE
        || new.len() as u64 > MAX_DIFF_FILE
        || std::str::from_utf8(old).is_err()
        || std::str::from_utf8(new).is_err()
    {
        return None;
    }
    buffers_patch(path, old, new, true).ok()
}

/// [`patch_between`]'s and [`text_patch_between`]'s one builder: three
/// lines of context, git's headers, binary unless `force_text`.
fn buffers_patch(
    path: &str,
    old: &[u8],
    new: &[u8],
    force_text: bool,
) -> Result<Patch, ChangeError> {
    let mut opts = DiffOptions::new();
    opts.context_lines(3).force_text(force_text);
    let mut patch = git2::Patch::from_buffers(
        old,
        Some(Path::new(path)),
        new,
        Some(Path::new(path)),
        Some(&mut opts),
    )?;
    if patch.delta().flags().is_binary() {
        return Ok(Patch::Binary);
    }
    let buf = patch.to_buf()?;
    Ok(Patch::Text(match buf.as_str() {
        Ok(text) => text.to_string(),
        Err(_) => String::from_utf8_lossy(&buf).into_owned(),
    }))
}

/// The pathspecs of one diff each for `scope`: one per literal prefix (none
/// for an empty scope), or a single unrestricted diff. With one plain
/// pathspec libgit2 bounds its tree, index and work-tree iterators to that
/// prefix, so the cost follows the prefix, not the size of the repository; a
/// list of pathspecs has no common prefix and scans every index entry.
pub(super) fn per_prefix(scope: &Scope) -> Vec<Option<&str>> {
    match scope {
        Scope::Everything => vec![None],
        Scope::Prefixes(prefixes) => prefixes.iter().map(|p| Some(p.as_str())).collect(),
    }
}

/// Options of every diff from a tree to the work tree: untracked files with
/// their content, type changes, git's three lines of context, and no file
/// over [`MAX_DIFF_FILE`] loaded.
pub(super) fn work_tree_diff_options() -> DiffOptions {
    let mut opts = DiffOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .show_untracked_content(true)
        .include_typechange(true)
        .context_lines(3)
        .max_size(MAX_DIFF_FILE as i64);
    opts
}

/// The size of the regular file at `rel` in the work tree, from `lstat`;
/// `None` for anything else or a path through a linked folder.
fn work_tree_size(workdir: &Path, rel: &str) -> Option<u64> {
    if crate::safe_fs::crosses_link(workdir, rel) {
        return None;
    }
    let meta = std::fs::symlink_metadata(workdir.join(rel)).ok()?;
    meta.is_file().then_some(meta.len())
}

/// Pair deletions and additions of similar content into renames, as git's
/// diff does by default (untracked files included).
///
/// libgit2 reads an added file whole to compare it, and sees a work-tree
/// file's size in 32 bits only; a diff holding an added work-tree file
/// larger than [`MAX_DIFF_FILE`] is left without rename pairing (its moves
/// show as a deletion and an addition) rather than have gigabytes read.
pub(super) fn find_renames(diff: &mut Diff<'_>, workdir: Option<&Path>) -> Result<(), ChangeError> {
    if let Some(workdir) = workdir {
        let huge = diff.deltas().find(|d| {
            matches!(d.status(), Delta::Added | Delta::Untracked)
                && d.new_file()
                    .path()
                    .and_then(Path::to_str)
                    .and_then(|p| work_tree_size(workdir, p))
                    .is_some_and(|size| size > MAX_DIFF_FILE)
        });
        if let Some(huge) = huge {
            tracing::debug!(
                "{} is larger than {MAX_DIFF_FILE} bytes: renames are not paired in this diff",
                huge.new_file().path().unwrap_or(Path::new("?")).display()
            );
            return Ok(());
        }
    }
    let mut find = DiffFindOptions::new();
    find.renames(true).for_untracked(true);
    diff.find_similar(Some(&mut find))?;
    Ok(())
}

/// Restrict a diff to one literal prefix (or nothing for `None`).
pub(super) fn restrict(opts: &mut DiffOptions, prefix: Option<&str>) {
    if let Some(prefix) = prefix {
        // A name libgit2 would read as pattern syntax is taken literally.
        if prefix.starts_with('!') || prefix.contains(['*', '?', '[', '\\']) {
            opts.disable_pathspec_match(true);
        }
        opts.pathspec(prefix);
    }
}

/// Append the changed files of `diff` (number `diff_index` of a change set);
/// those whose names are not UTF-8 go to `unnameable`.
pub(super) fn collect_files(
    diff: &Diff<'_>,
    diff_index: usize,
    files: &mut Vec<ChangedFile>,
    unnameable: &mut Vec<Unnameable>,
) {
    for (index, delta) in diff.deltas().enumerate() {
        let status = match delta.status() {
            Delta::Added | Delta::Untracked | Delta::Copied => ChangeKind::Added,
            Delta::Modified => ChangeKind::Modified,
            Delta::Deleted => ChangeKind::Deleted,
            Delta::Renamed => ChangeKind::Renamed,
            Delta::Typechange => ChangeKind::Typechange,
            Delta::Conflicted => ChangeKind::Conflicted,
            Delta::Unmodified | Delta::Ignored | Delta::Unreadable => continue,
        };
        if [delta.new_file().path(), delta.old_file().path()]
            .into_iter()
            .flatten()
            .any(|p| p.to_str().is_none())
        {
            if let Some(raw) = delta.new_file().path().or(delta.old_file().path()) {
                unnameable.push(Unnameable {
                    lossy_path: raw.to_string_lossy().into_owned(),
                    status,
                });
            }
            continue;
        }
        let new = delta.new_file().path().and_then(Path::to_str);
        let old = delta.old_file().path().and_then(Path::to_str);
        let Some(path) = new.or(old) else {
            continue;
        };
        // An untracked nested repository comes as `dir/`: the path is `dir`.
        let path = path.trim_end_matches('/');
        // notarai's own cache is not a change of the branch, unless git
        // tracks it: then it is content the branch committed, and shown.
        if is_under(path, CACHE_DIR) && delta.status() == Delta::Untracked {
            continue;
        }
        let old_path = match (status, old) {
            (ChangeKind::Renamed, Some(old)) if old != path => Some(old.to_string()),
            _ => None,
        };
        files.push(ChangedFile {
            path: path.to_string(),
            old_path,
            status,
            diff: diff_index,
            delta: index,
            conflict_delta: None,
        });
    }
}

/// Whether the file at `rel` below `workdir` holds a NUL in its first 8000
/// bytes (git's binary test). Unreadable or missing files are not binary, and
/// so is a path through a symbolic link (never opened).
fn starts_binary(workdir: &Path, rel: &str) -> bool {
    use std::io::Read;
    if crate::safe_fs::crosses_link(workdir, rel) {
        return false;
    }
    let Ok(meta) = std::fs::symlink_metadata(workdir.join(rel)) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let Ok(file) = crate::safe_fs::open_regular(&workdir.join(rel)) else {
        return false;
    };
    let mut head = Vec::with_capacity(8000);
    file.take(8000).read_to_end(&mut head).is_ok() && head.contains(&0)
}
