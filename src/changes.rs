//! Change detection on git, through libgit2 (no `git` program needed).
//!
//! "Changed on this branch" means: what differs between the merge base of
//! the base revision and `HEAD`, and the working tree as it is now. That
//! counts committed, staged, unstaged and untracked (not ignored) changes,
//! additions and deletions, and both paths of a rename. Work done on the base
//! branch after the branch point is not the branch's own and is not counted.
//!
//! Every question is restricted to a [`Scope`]: a diff of one spec's files
//! hands libgit2 the literal prefixes of the spec's globs, so it neither
//! walks nor stats the rest of the working tree.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use git2::{Delta, Diff, DiffFindOptions, DiffOptions, ErrorCode, Oid, Repository};

use crate::glob::is_under;
use crate::governance::Scope;
use crate::hashing::FileHash;
use crate::layout::CACHE_DIR;
use crate::watch::{Poll, Watch};

/// A changed file larger than this is not loaded into memory for a diff;
/// it is reported in a list of its own.
pub const MAX_DIFF_FILE: u64 = crate::hashing::MAX_HASHED;

/// Why change detection failed.
#[derive(Debug)]
pub enum ChangeError {
    /// The root is not inside a git repository.
    NotARepository(PathBuf),
    /// The repository has no working tree.
    Bare(PathBuf),
    /// The root is inside a work tree but not at its top.
    NotTopLevel {
        /// The project root given.
        root: PathBuf,
        /// The top of the git work tree.
        workdir: PathBuf,
    },
    /// The base revision does not resolve; `branches` lists some local ones.
    BaseNotFound {
        /// The revision as given.
        base: String,
        /// Some local branch names, to help the caller.
        branches: Vec<String>,
    },
    /// The base revision is empty or malformed.
    BadBase(String),
    /// A shallow clone lacks the history to find the merge base.
    Shallow(String),
    /// libgit2 failed.
    Git(git2::Error),
}

impl ChangeError {
    /// Whether the caller passed something wrong (as opposed to an internal failure).
    pub fn is_invalid_input(&self) -> bool {
        matches!(
            self,
            ChangeError::BaseNotFound { .. } | ChangeError::BadBase(_)
        )
    }

    /// What to do about it, when the message does not already say.
    pub fn hint(&self) -> Option<String> {
        match self {
            ChangeError::BaseNotFound { .. } => Some(
                "pass the branch this work will merge into (`git branch -a` lists them); \
                 a remote one is written `origin/<name>`"
                    .into(),
            ),
            ChangeError::BadBase(_) => Some("pass a branch name such as `main`".into()),
            _ => None,
        }
    }
}

impl fmt::Display for ChangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChangeError::NotARepository(root) => write!(
                f,
                "{} is not in a git repository; change detection needs git (run `git init` and commit)",
                root.display()
            ),
            ChangeError::Bare(root) => write!(
                f,
                "{} is a bare git repository with no working tree; run notarai in a checkout",
                root.display()
            ),
            ChangeError::NotTopLevel { root, workdir } => write!(
                f,
                "{} is inside the git work tree {} but not at its top; run notarai with --root {}",
                root.display(),
                workdir.display(),
                workdir.display()
            ),
            ChangeError::BaseNotFound { base, branches } => {
                write!(
                    f,
                    "base branch `{base}` does not resolve to a commit in this repository"
                )?;
                if branches.is_empty() {
                    write!(f, "; the repository has no local branches yet")
                } else {
                    write!(f, "; local branches: {}", branches.join(", "))
                }
            }
            ChangeError::BadBase(why) => write!(f, "invalid base branch: {why}"),
            ChangeError::Shallow(base) => write!(
                f,
                "this is a shallow clone and the merge base of `{base}` and HEAD is not in its history; run `git fetch --unshallow`"
            ),
            ChangeError::Git(e) => write!(f, "git: {}", e.message()),
        }
    }
}

impl std::error::Error for ChangeError {}

impl From<git2::Error> for ChangeError {
    fn from(e: git2::Error) -> Self {
        ChangeError::Git(e)
    }
}

/// A base revision resolved against `HEAD`.
#[derive(Debug, Clone)]
pub struct Base {
    /// The revision as given.
    pub name: String,
    /// The merge base of the base and `HEAD`; `None` when `HEAD` has no
    /// commit yet or the histories are unrelated (then everything is new).
    pub merge_base: Option<Oid>,
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// New (committed, staged or untracked).
    Added,
    /// Content or mode changed.
    Modified,
    /// Gone from the working tree.
    Deleted,
    /// Moved (old and new path both reported).
    Renamed,
    /// Changed kind (file, link, submodule).
    Typechange,
    /// Unmerged.
    Conflicted,
}

impl ChangeKind {
    /// The status as it is serialized (`added`, `modified`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Renamed => "renamed",
            ChangeKind::Typechange => "typechange",
            ChangeKind::Conflicted => "conflicted",
        }
    }
}

/// One changed file of a [`ChangeSet`].
#[derive(Debug, Clone)]
pub struct ChangedFile {
    /// Path now (the new path of a rename).
    pub path: String,
    /// The old path of a rename.
    pub old_path: Option<String>,
    /// How it changed.
    pub status: ChangeKind,
    /// Index of the diff (one per scope prefix) holding this file.
    diff: usize,
    /// Index of the delta in that diff.
    delta: usize,
    /// For a conflicted file, index of its delta in the tree-to-work-tree
    /// diff that shows the file's content (see [`ChangeSet`]).
    conflict_delta: Option<usize>,
}

impl ChangedFile {
    /// The path and, for a rename, the old path.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.path.as_str()).chain(self.old_path.as_deref())
    }
}

/// The text of one file's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Patch {
    /// A unified diff in git's format (`diff --git a/.. b/..` and hunks).
    Text(String),
    /// Binary content: never put into diff text.
    Binary,
    /// Larger than [`MAX_DIFF_FILE`]: not loaded.
    TooLarge,
}

/// A changed file whose name is not UTF-8: notarai cannot name it in an
/// answer, take it as a tool parameter, or match it against a spec's globs,
/// so it is reported as unreviewable instead of being left out silently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unnameable {
    /// The name with every invalid byte replaced by U+FFFD.
    pub lossy_path: String,
    /// How it changed.
    pub status: ChangeKind,
}

/// The bit of an index entry's extended flags that marks it skip-worktree
/// (outside a sparse checkout, or `git update-index --skip-worktree`).
const SKIP_WORKTREE: u16 = 1 << 14;

/// The changes within one scope, with what is needed to print their diffs.
pub struct ChangeSet<'r> {
    /// One diff per literal prefix of the scope (or one for everything).
    diffs: Vec<Diff<'r>>,
    /// During a merge or rebase that stopped on conflicts, the index holds
    /// no single entry for a conflicted file, and the tree-to-index-to-work
    /// diff shows it as a bare mode change without content. This second
    /// diff, straight from the tree to the work tree and limited to the
    /// conflicted paths, carries their content, conflict markers included.
    conflicts: Option<Diff<'r>>,
    /// The work tree, to sniff files too large to diff.
    workdir: Option<PathBuf>,
    /// For a change set served from the kept status (no `diffs`): how to
    /// diff its files when a patch is asked for.
    lazy: Option<LazyDiff<'r>>,
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
type PathDiff<'r> = (Diff<'r>, HashMap<String, usize>);

/// The diff of a kept change set's files, made on the first patch asked.
struct LazyDiff<'r> {
    repo: &'r Repository,
    tree: Option<git2::Tree<'r>>,
    renames: bool,
    /// Patches of the kept answer made by earlier questions, by path: a
    /// file with no event since has the same patch.
    known: HashMap<String, Patch>,
    /// Where new patches are kept, for the answer numbered `serial`.
    store: &'r std::sync::Mutex<Kept>,
    serial: u64,
    /// The diff over exactly the change set's paths, and each new path's delta.
    made: std::cell::OnceCell<Result<PathDiff<'r>, git2::Error>>,
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
            let mut opts = work_tree_diff_options();
            opts.disable_pathspec_match(true);
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
            for file in wanted {
                for path in file.paths() {
                    opts.pathspec(path);
                }
            }
            let mut diff = self
                .repo
                .diff_tree_to_workdir_with_index(self.tree.as_ref(), Some(&mut opts))?;
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

/// The pathspecs of one diff each for `scope`: one per literal prefix (none
/// for an empty scope), or a single unrestricted diff. With one plain
/// pathspec libgit2 bounds its tree, index and work-tree iterators to that
/// prefix, so the cost follows the prefix, not the size of the repository; a
/// list of pathspecs has no common prefix and scans every index entry.
fn per_prefix(scope: &Scope) -> Vec<Option<&str>> {
    match scope {
        Scope::Everything => vec![None],
        Scope::Prefixes(prefixes) => prefixes.iter().map(|p| Some(p.as_str())).collect(),
    }
}

/// Options of every diff from a tree to the work tree: untracked files with
/// their content, type changes, git's three lines of context, and no file
/// over [`MAX_DIFF_FILE`] loaded.
fn work_tree_diff_options() -> DiffOptions {
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
    if crate::hashing::crosses_link(workdir, rel) {
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
fn find_renames(diff: &mut Diff<'_>, workdir: Option<&Path>) -> Result<(), ChangeError> {
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
fn restrict(opts: &mut DiffOptions, prefix: Option<&str>) {
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
fn collect_files(
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
    if crate::hashing::crosses_link(workdir, rel) {
        return false;
    }
    let Ok(meta) = std::fs::symlink_metadata(workdir.join(rel)) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let Ok(file) = std::fs::File::open(workdir.join(rel)) else {
        return false;
    };
    let mut head = Vec::with_capacity(8000);
    file.take(8000).read_to_end(&mut head).is_ok() && head.contains(&0)
}

/// The warning for a cache folder git tracks (`files` are its tracked
/// paths): such a cache came with the repository, so notarai ignores it.
pub fn tracked_cache_message(files: &[String]) -> String {
    format!(
        "git tracks notarai's cache ({}): a cache that came with the repository could mark \
         its own changes as reviewed, so notarai ignores it (cold cache) and will not write \
         to it; run `git rm -r --cached {CACHE_DIR}`, add `{CACHE_DIR}/` to .gitignore and \
         run `notarai cache clear`",
        files.join(", ")
    )
}

/// Let libgit2 keep parsed trees in its object cache between questions,
/// and read objects as git does, without hashing them again.
///
/// By default it caches no tree larger than 4 KiB, so a folder of a few
/// hundred files is read and inflated again on every diff; a long-lived
/// server answering many questions about the same merge base wants them kept.
/// Call once, before any other thread uses libgit2.
pub fn keep_trees_cached() {
    // SAFETY: libgit2's global options are not synchronized; this runs at
    // start-up, before the server spawns threads that use libgit2.
    let result =
        unsafe { git2::opts::set_cache_object_limit(git2::ObjectType::Tree, 4 * 1024 * 1024) };
    if let Err(e) = result {
        tracing::debug!("cannot raise libgit2's tree cache limit: {e}");
    }
    // libgit2 hashes every object it reads again to check its id, which
    // git itself does not do on reads (only `git fsck` does): a third of
    // the cost of reading the merge base's trees and the blobs of a diff.
    git2::opts::strict_hash_verification(false);
}

/// Whether the index (see [`GitRepo::index_may_hold`]) may hold `needle`,
/// read in blocks: true unless it is of version 2 or 3 and neither it nor a
/// shared index of a split index contains the bytes.
fn scan_index(git_dir: &Path, needle: &[u8]) -> bool {
    use std::io::Read;
    let finder = memchr::memmem::Finder::new(needle);
    // Blocks overlap by the needle's length less one, so no match is split.
    let holds = |path: &Path, check_header: bool| -> Option<bool> {
        let mut file = std::fs::File::open(path).ok()?;
        let mut buf = vec![0u8; 1 << 20];
        let mut kept = 0usize;
        let mut first = true;
        loop {
            let n = file.read(&mut buf[kept..]).ok()?;
            if n == 0 {
                return Some(false);
            }
            let filled = kept + n;
            if first && check_header {
                first = false;
                // "DIRC", then the version, big-endian; version 4 compresses paths.
                if filled < 8 || &buf[..4] != b"DIRC" {
                    return None;
                }
                let version = u32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]);
                if !matches!(version, 2 | 3) {
                    return None;
                }
            }
            if finder.find(&buf[..filled]).is_some() {
                return Some(true);
            }
            kept = needle.len().saturating_sub(1).min(filled);
            buf.copy_within(filled - kept..filled, 0);
        }
    };
    if holds(&git_dir.join("index"), true) != Some(false) {
        return true;
    }
    let Ok(entries) = std::fs::read_dir(git_dir) else {
        return true;
    };
    for entry in entries.flatten() {
        if entry
            .file_name()
            .as_encoded_bytes()
            .starts_with(b"sharedindex.")
            && holds(&entry.path(), false) != Some(false)
        {
            return true;
        }
    }
    false
}

/// A git repository opened at the project root.
pub struct GitRepo {
    repo: Repository,
    root: PathBuf,
    /// What the long-lived server keeps between questions; see [`Kept`].
    kept: std::sync::Mutex<Kept>,
    /// The last raw scan of the index: its stamp, the bytes looked for, the result.
    index_scan: std::sync::Mutex<Option<IndexScan>>,
}

/// See [`GitRepo::index_may_hold`].
type IndexScan = (crate::watch::Stamp, Vec<u8>, bool);

/// The kept status of a long-lived server: the changed files of the whole
/// work tree against a merge base. While the [`Watch`] says nothing changed
/// since they were computed (see `crate::watch` for why that is exact) they
/// are served as they are; when it names the files that changed, only those
/// are diffed again; otherwise (or when the index file's stamp moved) they
/// are computed again.
#[derive(Default)]
struct Kept {
    /// `None` until first needed; stays `None` where watching is impossible.
    watch: Option<Watch>,
    /// Whether opening the watch was tried.
    tried: bool,
    /// Answers by (merge-base tree, renames paired).
    answers: Vec<KeptAnswer>,
    /// The number of the next answer kept.
    next_serial: u64,
}

impl Kept {
    /// Keep an answer just computed.
    fn keep(
        &mut self,
        tree: Option<Oid>,
        renames: bool,
        index_stamp: Option<crate::watch::Stamp>,
        set: &ChangeSet<'_>,
    ) {
        self.next_serial += 1;
        self.answers.push(KeptAnswer {
            serial: self.next_serial,
            tree,
            renames,
            index_stamp,
            pending: Default::default(),
            patches: HashMap::new(),
            files: set.files.clone(),
            unnameable: set.unnameable.clone(),
        });
    }
}

struct KeptAnswer {
    /// Which answer this is, for patches made later.
    serial: u64,
    /// Patches made from this answer, by path; dropped when the path changes.
    patches: HashMap<String, Patch>,
    tree: Option<Oid>,
    renames: bool,
    index_stamp: Option<crate::watch::Stamp>,
    /// Files changed on disk since `files` was computed: to diff again.
    pending: std::collections::BTreeSet<String>,
    files: Vec<ChangedFile>,
    unnameable: Vec<Unnameable>,
}

impl fmt::Debug for GitRepo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GitRepo").field("root", &self.root).finish()
    }
}

impl GitRepo {
    /// Open the repository whose work tree is (or contains) `root`.
    pub fn open(root: &Path) -> Result<GitRepo, ChangeError> {
        let repo = match Repository::discover(root) {
            Ok(repo) => repo,
            Err(e) if e.code() == ErrorCode::NotFound => {
                return Err(ChangeError::NotARepository(root.to_path_buf()));
            }
            Err(e) => return Err(e.into()),
        };
        let Some(workdir) = repo.workdir() else {
            return Err(ChangeError::Bare(root.to_path_buf()));
        };
        // Paths from git are relative to the work tree; notarai's are
        // relative to the root. They must be the same folder.
        let workdir = workdir
            .canonicalize()
            .unwrap_or_else(|_| workdir.to_path_buf());
        let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        if workdir != canonical_root {
            return Err(ChangeError::NotTopLevel {
                root: root.to_path_buf(),
                workdir,
            });
        }
        Ok(GitRepo {
            repo,
            root: root.to_path_buf(),
            kept: std::sync::Mutex::new(Kept::default()),
            index_scan: std::sync::Mutex::new(None),
        })
    }

    /// The underlying libgit2 repository.
    pub fn raw(&self) -> &Repository {
        &self.repo
    }

    /// Resolve a base revision (branch, remote branch, tag or commit) and its
    /// merge base with `HEAD`.
    pub fn resolve_base(&self, name: &str) -> Result<Base, ChangeError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(ChangeError::BadBase(
                "the name is empty; pass a branch such as `main`".into(),
            ));
        }
        if name.starts_with('-') || name.contains(['\0', '\n']) {
            return Err(ChangeError::BadBase(format!(
                "`{}` is not a revision name",
                name.escape_debug()
            )));
        }
        let head = match self.repo.head() {
            Ok(head) => Some(head.peel_to_commit()?.id()),
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => None,
            Err(e) => return Err(e.into()),
        };
        let base = match self
            .repo
            .revparse_single(name)
            .and_then(|o| o.peel_to_commit())
        {
            Ok(commit) => commit.id(),
            // With no commit at all, the unborn branch itself is a fine base:
            // everything in the work tree is new.
            Err(_) if head.is_none() && self.is_unborn_branch(name) => {
                return Ok(Base {
                    name: name.to_string(),
                    merge_base: None,
                });
            }
            Err(_) => {
                return Err(ChangeError::BaseNotFound {
                    base: name.to_string(),
                    branches: self.local_branches(10),
                });
            }
        };
        let Some(head) = head else {
            return Ok(Base {
                name: name.to_string(),
                merge_base: None,
            });
        };
        match self.repo.merge_base(base, head) {
            Ok(mb) => Ok(Base {
                name: name.to_string(),
                merge_base: Some(mb),
            }),
            Err(e) if e.code() == ErrorCode::NotFound => {
                if self.repo.is_shallow() {
                    return Err(ChangeError::Shallow(name.to_string()));
                }
                tracing::warn!(
                    "`{name}` and HEAD share no history; every file on HEAD counts as changed"
                );
                Ok(Base {
                    name: name.to_string(),
                    merge_base: None,
                })
            }
            Err(e) => Err(e.into()),
        }
    }

    fn is_unborn_branch(&self, name: &str) -> bool {
        let Ok(head) = self.repo.find_reference("HEAD") else {
            return false;
        };
        head.symbolic_target().ok().flatten().is_some_and(|t| {
            t == name || t.strip_prefix("refs/heads/") == Some(name) || name == "HEAD"
        })
    }

    fn local_branches(&self, limit: usize) -> Vec<String> {
        let Ok(branches) = self.repo.branches(Some(git2::BranchType::Local)) else {
            return Vec::new();
        };
        branches
            .flatten()
            .filter_map(|(b, _)| b.name().ok().flatten().map(str::to_string))
            .take(limit)
            .collect()
    }

    /// The files changed since `base` within `scope`. With `renames`, moved
    /// files are paired (for rename headers in diffs); without, a move is a
    /// deletion and an addition, which lists the same two paths faster.
    pub fn changes(
        &self,
        base: &Base,
        scope: &Scope,
        renames: bool,
    ) -> Result<ChangeSet<'_>, ChangeError> {
        let tree = match base.merge_base {
            Some(oid) => Some(self.repo.find_commit(oid)?.tree()?),
            None => None,
        };
        let everything = matches!(scope, Scope::Everything);
        let tree_id = tree.as_ref().map(|t| t.id());
        let index_stamp = crate::watch::stamp(&self.repo.path().join("index"));
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        // The watch starts with the first whole-work-tree question; a
        // narrower one alone is cheap enough from the disk.
        if everything && !kept.tried {
            kept.tried = true;
            kept.watch = Watch::open(&self.repo);
        }
        match kept.watch.as_mut().map(|w| w.poll(&self.repo)) {
            Some(Some(Poll::Unchanged)) => {}
            Some(Some(Poll::Files(paths))) => {
                for answer in &mut kept.answers {
                    answer.pending.extend(paths.iter().cloned());
                }
            }
            Some(Some(Poll::Everything)) => kept.answers.clear(),
            Some(None) => {
                // Watching broke down: from the disk from now on.
                kept.watch = None;
                kept.answers.clear();
                return self.compute_changes(tree, scope, renames);
            }
            None => return self.compute_changes(tree, scope, renames),
        }
        kept.answers.retain(|a| a.index_stamp == index_stamp);
        // Bring this merge base's kept answers up to date.
        let mut at = 0;
        while at < kept.answers.len() {
            let pending = kept.answers[at].pending.len();
            if kept.answers[at].tree != tree_id || pending == 0 {
                at += 1;
            } else if self.diff_again(&mut kept.answers[at], tree.as_ref())? {
                tracing::debug!("kept status: {pending} changed files diffed again");
                at += 1;
            } else {
                kept.answers.remove(at);
            }
        }
        if everything
            && let Some(answer) = kept
                .answers
                .iter()
                .find(|a| a.tree == tree_id && a.renames == renames)
        {
            tracing::debug!("kept status: served");
            return Ok(ChangeSet {
                diffs: Vec::new(),
                conflicts: None,
                workdir: self.repo.workdir().map(Path::to_path_buf),
                lazy: Some(LazyDiff {
                    repo: &self.repo,
                    tree,
                    renames,
                    known: answer.patches.clone(),
                    store: &self.kept,
                    serial: answer.serial,
                    made: std::cell::OnceCell::new(),
                }),
                files: answer.files.clone(),
                unnameable: answer.unnameable.clone(),
            });
        }
        // Any other question is answered from the kept list of changed
        // files (renames not paired), when there is one: a diff over exactly
        // the changed paths within the scope.
        if let Some(answer) = kept
            .answers
            .iter()
            .find(|a| a.tree == tree_id && !a.renames)
        {
            let paths: Vec<String> = answer
                .files
                .iter()
                .filter(|f| scope.contains(&f.path))
                .map(|f| f.path.clone())
                .collect();
            let unnameable = answer
                .unnameable
                .iter()
                .filter(|u| scope.contains(&u.lossy_path))
                .cloned()
                .collect();
            tracing::debug!("kept status: {} files of a narrower scope", paths.len());
            let answer = self.diff_paths(tree, &paths, renames, unnameable)?;
            if everything {
                kept.keep(tree_id, renames, index_stamp, &answer);
            }
            return Ok(answer);
        }
        if !everything {
            return self.compute_changes(tree, scope, renames);
        }
        let computed = self.compute_changes(tree, scope, renames)?;
        // Kept only when plain: conflicts and files not checked out take
        // diffs of their own, which a lazy diff does not reproduce.
        let plain = computed.conflicts.is_none() && computed.diffs.len() == 1;
        if plain {
            tracing::debug!("kept status: computed from the disk and kept");
            kept.keep(tree_id, renames, index_stamp, &computed);
        }
        Ok(computed)
    }

    /// The changes of exactly `paths` (the changed files within a scope,
    /// from the kept status), renames among them paired when asked: the same
    /// as diffing the scope, whose renames pair only its own added and
    /// deleted files, all of which are in `paths`.
    fn diff_paths<'r>(
        &'r self,
        tree: Option<git2::Tree<'r>>,
        paths: &[String],
        renames: bool,
        unnameable: Vec<Unnameable>,
    ) -> Result<ChangeSet<'r>, ChangeError> {
        let mut diffs = Vec::new();
        let mut files = Vec::new();
        let mut unnameable = unnameable;
        if !paths.is_empty() {
            let mut opts = work_tree_diff_options();
            opts.disable_pathspec_match(true);
            for path in paths {
                opts.pathspec(path);
            }
            let mut diff = self
                .repo
                .diff_tree_to_workdir_with_index(tree.as_ref(), Some(&mut opts))?;
            if renames {
                find_renames(&mut diff, self.repo.workdir())?;
            }
            collect_files(&diff, 0, &mut files, &mut unnameable);
            diffs.push(diff);
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        unnameable.sort_by(|a, b| a.lossy_path.cmp(&b.lossy_path));
        unnameable.dedup();
        Ok(ChangeSet {
            diffs,
            conflicts: None,
            workdir: self.repo.workdir().map(Path::to_path_buf),
            lazy: None,
            files,
            unnameable,
        })
    }

    /// Bring a kept answer up to date by diffing again only its pending
    /// files: with renames, every added, deleted or renamed file too, as
    /// those are all the full diff pairs renames among. `false` when the
    /// result holds what a kept answer cannot (a conflict): compute it all.
    fn diff_again(
        &self,
        answer: &mut KeptAnswer,
        tree: Option<&git2::Tree<'_>>,
    ) -> Result<bool, ChangeError> {
        let mut paths = std::mem::take(&mut answer.pending);
        if answer.renames {
            for file in &answer.files {
                if matches!(
                    file.status,
                    ChangeKind::Added | ChangeKind::Deleted | ChangeKind::Renamed
                ) {
                    paths.extend(file.paths().map(str::to_string));
                }
            }
        }
        let mut opts = work_tree_diff_options();
        opts.disable_pathspec_match(true);
        for path in &paths {
            opts.pathspec(path);
        }
        let mut diff = self
            .repo
            .diff_tree_to_workdir_with_index(tree, Some(&mut opts))?;
        if answer.renames {
            find_renames(&mut diff, self.repo.workdir())?;
        }
        let mut fresh = Vec::new();
        let mut unnameable = Vec::new();
        collect_files(&diff, 0, &mut fresh, &mut unnameable);
        if !unnameable.is_empty() || fresh.iter().any(|f| f.status == ChangeKind::Conflicted) {
            return Ok(false);
        }
        answer
            .files
            .retain(|f| !f.paths().any(|p| paths.contains(p)));
        answer.patches.retain(|p, _| !paths.contains(p));
        answer.files.extend(fresh);
        answer.files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(true)
    }

    /// The changes within `scope` against `tree`, from the disk.
    fn compute_changes<'r>(
        &'r self,
        tree: Option<git2::Tree<'r>>,
        scope: &Scope,
        renames: bool,
    ) -> Result<ChangeSet<'r>, ChangeError> {
        let pathspecs = per_prefix(scope);
        let mut diffs = Vec::with_capacity(pathspecs.len());
        let mut files = Vec::new();
        let mut unnameable = Vec::new();
        for pathspec in pathspecs {
            let mut opts = work_tree_diff_options();
            restrict(&mut opts, pathspec);
            let mut diff = self
                .repo
                .diff_tree_to_workdir_with_index(tree.as_ref(), Some(&mut opts))?;
            if renames {
                find_renames(&mut diff, self.repo.workdir())?;
            }
            collect_files(&diff, diffs.len(), &mut files, &mut unnameable);
            diffs.push(diff);
        }
        if renames && diffs.len() > 1 {
            self.pair_renames_across_prefixes(tree.as_ref(), &mut diffs, &mut files)?;
        }
        self.use_index_for_skip_worktree(scope, tree.as_ref(), renames, &mut diffs, &mut files)?;
        unnameable.sort_by(|a, b| a.lossy_path.cmp(&b.lossy_path));
        unnameable.dedup();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let conflicted: Vec<&str> = files
            .iter()
            .filter(|f| f.status == ChangeKind::Conflicted)
            .map(|f| f.path.as_str())
            .collect();
        let conflicts = if conflicted.is_empty() {
            None
        } else {
            let mut opts = DiffOptions::new();
            opts.context_lines(3)
                .max_size(MAX_DIFF_FILE as i64)
                .disable_pathspec_match(true);
            for path in &conflicted {
                opts.pathspec(path);
            }
            let conflicts = self
                .repo
                .diff_tree_to_workdir(tree.as_ref(), Some(&mut opts))?;
            for (index, delta) in conflicts.deltas().enumerate() {
                let path = delta.new_file().path().and_then(Path::to_str);
                if let Some(file) = files.iter_mut().find(|f| Some(f.path.as_str()) == path) {
                    file.conflict_delta = Some(index);
                }
            }
            Some(conflicts)
        };
        Ok(ChangeSet {
            diffs,
            conflicts,
            workdir: self.repo.workdir().map(Path::to_path_buf),
            lazy: None,
            files,
            unnameable,
        })
    }

    /// The paths within `scope` that the index marks skip-worktree. An
    /// index of version 2 holds no such flag, which is the common case and
    /// costs nothing; otherwise the entries below each prefix are read.
    fn skip_worktree_in(&self, scope: &Scope) -> Result<Vec<String>, ChangeError> {
        let index = self.repo.index()?;
        if index.version() < 3 {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        let mut take = |entry: git2::IndexEntry| {
            if entry.flags_extended & SKIP_WORKTREE != 0
                && let Ok(path) = String::from_utf8(entry.path)
                && scope.contains(&path)
            {
                out.push(path);
            }
        };
        match scope {
            Scope::Everything => index.iter().for_each(&mut take),
            Scope::Prefixes(prefixes) => {
                for prefix in prefixes {
                    let Ok(start) = index.find_prefix(prefix.as_str()) else {
                        continue;
                    };
                    for entry in (start..index.len()).map_while(|i| index.get(i)) {
                        if !entry.path.starts_with(prefix.as_bytes()) {
                            break;
                        }
                        take(entry);
                    }
                }
            }
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// A file the index marks skip-worktree (outside a sparse checkout) is
    /// absent from the work tree on purpose, and git reads its content from
    /// the index. libgit2's work-tree diff sees it as deleted; replace those
    /// entries with a diff from the tree to the index over exactly those
    /// paths, so a committed change shows as what it is and an unchanged
    /// file not checked out is not a change at all.
    fn use_index_for_skip_worktree<'r>(
        &'r self,
        scope: &Scope,
        tree: Option<&git2::Tree<'r>>,
        renames: bool,
        diffs: &mut Vec<Diff<'r>>,
        files: &mut Vec<ChangedFile>,
    ) -> Result<(), ChangeError> {
        let skipped = self.skip_worktree_in(scope)?;
        if skipped.is_empty() {
            return Ok(());
        }
        let is_skipped = |p: &str| skipped.binary_search_by(|s| s.as_str().cmp(p)).is_ok();
        // The other side of a rename paired with a skipped path is diffed
        // again on its own.
        let mut orphans: Vec<String> = Vec::new();
        files.retain(|f| {
            let hit = f.paths().any(is_skipped);
            if hit {
                orphans.extend(f.paths().filter(|p| !is_skipped(p)).map(str::to_string));
            }
            !hit
        });
        let mut unnameable = Vec::new();
        let mut opts = DiffOptions::new();
        opts.context_lines(3)
            .include_typechange(true)
            .max_size(MAX_DIFF_FILE as i64)
            .disable_pathspec_match(true);
        for path in &skipped {
            opts.pathspec(path);
        }
        let index = self.repo.index()?;
        let mut from_index = self
            .repo
            .diff_tree_to_index(tree, Some(&index), Some(&mut opts))?;
        if renames {
            // From the tree to the index: nothing is read from the work tree.
            find_renames(&mut from_index, None)?;
        }
        collect_files(&from_index, diffs.len(), files, &mut unnameable);
        diffs.push(from_index);
        if !orphans.is_empty() {
            let mut opts = work_tree_diff_options();
            opts.disable_pathspec_match(true);
            for path in &orphans {
                opts.pathspec(path);
            }
            let rest = self
                .repo
                .diff_tree_to_workdir_with_index(tree, Some(&mut opts))?;
            collect_files(&rest, diffs.len(), files, &mut unnameable);
            diffs.push(rest);
        }
        Ok(())
    }

    /// For each of `paths` that the index marks skip-worktree (not checked
    /// out), the content git holds for it: the staged blob, hashed the way
    /// [`crate::hashing`] hashes a file in the work tree (a link's target
    /// text, a submodule's commit), so a later checkout of the same content
    /// matches. Paths not marked are absent from the map.
    pub fn skip_worktree_hashes(&self, paths: &[&str]) -> HashMap<String, FileHash> {
        let mut out = HashMap::new();
        let Ok(index) = self.repo.index() else {
            return out;
        };
        for path in paths {
            let Some(entry) = index.get_path(Path::new(path), 0) else {
                continue;
            };
            if entry.flags_extended & SKIP_WORKTREE == 0 {
                continue;
            }
            let hash = if entry.mode == 0o160000 {
                FileHash::Content(format!("commit:{}", entry.id))
            } else {
                match self.repo.find_blob(entry.id) {
                    Ok(blob) => {
                        FileHash::Content(blake3::hash(blob.content()).to_hex().to_string())
                    }
                    Err(_) => continue,
                }
            };
            out.insert(path.to_string(), hash);
        }
        out
    }

    /// The staged content of `path` when the index marks it skip-worktree
    /// (not checked out); `None` for any other path.
    pub fn skip_worktree_content(&self, path: &str) -> Option<Vec<u8>> {
        let index = self.repo.index().ok()?;
        let entry = index.get_path(Path::new(path), 0)?;
        if entry.flags_extended & SKIP_WORKTREE == 0 || entry.mode == 0o160000 {
            return None;
        }
        Some(self.repo.find_blob(entry.id).ok()?.content().to_vec())
    }

    /// The paths below notarai's cache folder that git tracks (in the index):
    /// a cache database that came with the repository is not trusted.
    pub fn tracked_cache_files(&self) -> Vec<String> {
        if !self.index_may_hold(CACHE_DIR.as_bytes()) {
            return Vec::new();
        }
        let Ok(index) = self.repo.index() else {
            return Vec::new();
        };
        let prefix = format!("{CACHE_DIR}/");
        let Ok(start) = index.find_prefix(prefix.as_str()) else {
            return Vec::new();
        };
        (start..index.len())
            .map_while(|i| index.get(i))
            .map(|e| String::from_utf8_lossy(&e.path).into_owned())
            .take_while(|p| p.starts_with(&prefix))
            .collect()
    }

    /// Whether the index may hold a path containing `needle`, from its raw
    /// bytes: versions 2 and 3 store every path whole, so when neither the
    /// index file nor a shared index of a split index contains the bytes,
    /// no entry does. Much cheaper than libgit2's full read, which checks
    /// the SHA-1 of the whole file (git does not on reads): the server's
    /// `initialize` asks this before anything else needs the index.
    /// The answer is kept with the index file's stamp, so a question asked
    /// again costs one `stat` while the index is unchanged.
    fn index_may_hold(&self, needle: &[u8]) -> bool {
        let git_dir = self.repo.path();
        let Some(stamp) = crate::watch::stamp(&git_dir.join("index")) else {
            return true;
        };
        let mut kept = self.index_scan.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, needle_at, holds)) = &*kept
            && *at == stamp
            && needle_at == needle
        {
            return *holds;
        }
        let holds = scan_index(git_dir, needle);
        // Kept only if the index did not change while it was read.
        if crate::watch::stamp(&git_dir.join("index")) == Some(stamp) {
            *kept = Some((stamp, needle.to_vec(), holds));
        }
        holds
    }

    /// A file moved from one prefix of the scope to another shows up as a
    /// deletion in one diff and an addition in another. Pair them the way
    /// git would: one more diff over exactly those paths, with rename
    /// detection, whose renames replace the separate entries.
    fn pair_renames_across_prefixes<'r>(
        &'r self,
        tree: Option<&git2::Tree<'r>>,
        diffs: &mut Vec<Diff<'r>>,
        files: &mut Vec<ChangedFile>,
    ) -> Result<(), ChangeError> {
        let of = |status| {
            files
                .iter()
                .filter(move |f: &&ChangedFile| f.status == status)
        };
        let cross =
            of(ChangeKind::Deleted).any(|d| of(ChangeKind::Added).any(|a| a.diff != d.diff));
        if !cross {
            return Ok(());
        }
        let mut opts = work_tree_diff_options();
        opts.disable_pathspec_match(true);
        for file in of(ChangeKind::Deleted).chain(of(ChangeKind::Added)) {
            opts.pathspec(&file.path);
        }
        let mut combined = self
            .repo
            .diff_tree_to_workdir_with_index(tree, Some(&mut opts))?;
        find_renames(&mut combined, self.repo.workdir())?;
        let mut paired = Vec::new();
        collect_files(&combined, diffs.len(), &mut paired, &mut Vec::new());
        let paired: Vec<ChangedFile> = paired
            .into_iter()
            .filter(|f| f.status == ChangeKind::Renamed)
            .collect();
        if paired.is_empty() {
            return Ok(());
        }
        files.retain(|f| {
            !paired.iter().any(|r| {
                (f.status == ChangeKind::Deleted && r.old_path.as_deref() == Some(f.path.as_str()))
                    || (f.status == ChangeKind::Added && r.path == f.path)
            })
        });
        files.extend(paired);
        diffs.push(combined);
        Ok(())
    }

    /// Every file in the index or untracked-and-not-ignored within `scope`:
    /// the universe of files that can be governed. Sorted, each once.
    pub fn files(&self, scope: &Scope) -> Result<Vec<String>, ChangeError> {
        let index = self.repo.index()?;
        let mut files: Vec<String> = Vec::new();
        let mut take = |entry: git2::IndexEntry| {
            if let Ok(path) = String::from_utf8(entry.path)
                && scope.contains(&path)
            {
                files.push(path);
            }
        };
        match scope {
            Scope::Everything => index.iter().for_each(&mut take),
            // Entries are sorted by path: read only the run below each prefix.
            Scope::Prefixes(prefixes) => {
                for prefix in prefixes {
                    let Ok(start) = index.find_prefix(prefix.as_str()) else {
                        continue;
                    };
                    for entry in (start..index.len()).map_while(|i| index.get(i)) {
                        if !entry.path.starts_with(prefix.as_bytes()) {
                            break;
                        }
                        take(entry);
                    }
                }
            }
        }
        for pathspec in per_prefix(scope) {
            let mut opts = DiffOptions::new();
            opts.include_untracked(true).recurse_untracked_dirs(true);
            restrict(&mut opts, pathspec);
            let diff = self
                .repo
                .diff_index_to_workdir(Some(&index), Some(&mut opts))?;
            for delta in diff.deltas() {
                if delta.status() == Delta::Untracked
                    && let Some(path) = delta.new_file().path().and_then(Path::to_str)
                {
                    files.push(path.to_string());
                }
            }
        }
        files.retain(|p| !is_under(p, CACHE_DIR));
        files.sort();
        files.dedup();
        Ok(files)
    }
}

#[cfg(test)]
mod tests {
    use super::scan_index;

    /// An index file of `version` with `body` after its header.
    fn index(dir: &std::path::Path, version: u32, body: &[u8]) {
        let mut bytes = b"DIRC".to_vec();
        bytes.extend_from_slice(&version.to_be_bytes());
        bytes.extend_from_slice(body);
        std::fs::write(dir.join("index"), bytes).unwrap();
    }

    #[test]
    fn the_raw_index_scan_finds_a_path_anywhere_and_trusts_only_v2_and_v3() {
        let dir = tempfile::tempdir().unwrap();
        let needle = b".notarai/.cache";
        index(dir.path(), 2, &vec![b'a'; 3 << 20]);
        assert!(!scan_index(dir.path(), needle));
        // Across the boundary of the 1 MiB blocks it is read in.
        for at in [(1 << 20) - 8 - 7, (1 << 20) - 8, (2 << 20) - 3] {
            let mut body = vec![b'a'; 3 << 20];
            body[at..at + needle.len()].copy_from_slice(needle);
            index(dir.path(), 3, &body);
            assert!(scan_index(dir.path(), needle), "at {at}");
        }
        // Version 4 compresses paths: never trusted to lack it.
        index(dir.path(), 4, b"nothing here");
        assert!(scan_index(dir.path(), needle));
        // A shared index of a split index is searched too.
        index(dir.path(), 2, b"nothing here");
        std::fs::write(dir.path().join("sharedindex.0123"), b"x/.notarai/.cache/db").unwrap();
        assert!(scan_index(dir.path(), needle));
    }
}
