//! The paths of the whole work tree that may differ from a tree, found the
//! way git's own status finds them (issue 43): every index entry's `lstat`
//! on every core, each tracked folder listed, and the tree compared with
//! the index; then [`diff_exactly`] of those paths makes the diff.
//!
//! libgit2's work-tree iterator `lstat`s every entry itself, on the calling
//! thread, and takes no stat data from outside: the whole-work-tree diff of
//! a fresh process cost about as much CPU as git's status, on one core.
//! Here the work is split the way git's preload-index splits it, and
//! libgit2 is asked only about the paths this finds:
//!
//! - **an index entry** is listed when its file's `lstat` differs from the
//!   stat data the index holds (mode, size, both times to the nanosecond,
//!   inode, owner), when the file is as new as the index file (git's racy
//!   case), when it cannot be looked at, and always when the entry is not
//!   a plain stage-0 file or link (a conflict, a submodule, skip-worktree,
//!   assume-unchanged, intent to add): libgit2 compares by content only an
//!   entry whose stat data differs or that is racy, so every entry it could
//!   find changed is listed;
//! - **a name in a tracked folder** is listed when the index holds neither
//!   it nor anything below it (untracked, ignored or not: libgit2's diff of
//!   the path applies the ignore rules and goes into an untracked folder),
//!   and a tracked folder that is not a folder on the disk is listed whole;
//! - **the tree and the index** are compared (ids and modes, no file
//!   read) through the index's cached tree where it can be trusted
//!   ([`super::cache_tree`]), by libgit2 otherwise, and both paths of each
//!   difference are listed.
//!
//! Whatever else could change a delta is left to libgit2's whole diff
//! ([`changed_paths`] answers `None`): a case-insensitive index, a name
//! that is not UTF-8, a root that cannot be listed, and more listed paths
//! than a quarter of the entries (an index written without nanoseconds,
//! say), where a list would cost more than it saves.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use git2::{Diff, IndexEntry, Repository, Tree};

use super::exact::{self, diff_exactly};

/// Listed paths above this many (and above a quarter of the entries): the
/// whole diff is made instead.
const MANY: usize = 2_000;

/// The flag of an index entry git trusts without a look (assume-unchanged).
const ASSUME_VALID: u16 = 0x8000;
/// The flag that says an entry has extended flags (intent to add,
/// skip-worktree).
const EXTENDED: u16 = 0x4000;

/// The whole work tree's diff from `tree` through the index, as libgit2's
/// `diff_tree_to_workdir_with_index` makes it with the work tree's options
/// and no path list: from the paths [`changed_paths`] finds, or libgit2's
/// own walk where it cannot tell.
pub(super) fn whole_diff<'r>(
    repo: &'r Repository,
    tree: Option<&Tree<'_>>,
) -> Result<Diff<'r>, git2::Error> {
    match changed_paths(repo, tree) {
        Some(paths) if paths.is_empty() => {
            tracing::debug!("scan: nothing changed");
            // A tree against itself: the empty diff, no file looked at.
            repo.diff_tree_to_tree(tree, tree, None)
        }
        Some(paths) => {
            tracing::debug!("scan: {} paths to diff", paths.len());
            diff_exactly(repo, tree, &paths)
        }
        // An empty list: libgit2's walk of the whole work tree.
        None => diff_exactly(repo, tree, &[] as &[&str]),
    }
}

/// Every path of the work tree that may differ from `tree` (see the
/// module's text), sorted, or `None` where libgit2's whole diff must be
/// made.
#[cfg(unix)]
pub(super) fn changed_paths(repo: &Repository, tree: Option<&Tree<'_>>) -> Option<Vec<String>> {
    if super::exact::whole_index_forced() {
        return None;
    }
    let workdir = repo.workdir()?;
    let index_secs = exact::index_secs(repo)?;
    let mut index = repo.index().ok()?;
    let _ = index.read(false);
    if super::repo::index_ignores_case(&index) {
        return None;
    }
    let entries: Vec<IndexEntry> = index.iter().collect();
    let mut listed: Vec<String> = Vec::new();
    // The paths of the entries that are not plain (few, all listed): still
    // tracked names of their folders.
    let mut others: HashSet<&str> = HashSet::new();
    // Each tracked folder with the plain entries directly in it, in the
    // index's order, so sorted by name. Entries come sorted by path, so
    // most follow one of the same folder: a run of those goes in at once.
    let mut folders: HashMap<&str, Vec<(&str, &IndexEntry)>> = HashMap::new();
    folders.insert("", Vec::new());
    let mut run: (&str, Vec<(&str, &IndexEntry)>) = ("", Vec::new());
    for entry in &entries {
        let path = std::str::from_utf8(&entry.path).ok()?;
        let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
        if folder != run.0 {
            if !run.1.is_empty() {
                folders.entry(run.0).or_default().append(&mut run.1);
            }
            run.0 = folder;
            // Each folder above it, deepest first, up to one already there
            // (whose own folders went in with it).
            for (i, _) in path.rmatch_indices('/') {
                if folders.contains_key(&path[..i]) {
                    break;
                }
                folders.insert(&path[..i], Vec::new());
            }
        }
        if plain(entry) {
            run.1.push((path, entry));
        } else {
            others.insert(path);
            listed.push(path.to_string());
        }
    }
    if !run.1.is_empty() {
        folders.entry(run.0).or_default().append(&mut run.1);
    }
    let work: Vec<(&str, &Vec<(&str, &IndexEntry)>)> = folders
        .iter()
        .map(|(folder, here)| (*folder, here))
        .collect();
    let found = notarai_base::parallel::map(
        &work,
        64,
        |(folder, here)| look_in(workdir, folder, here, &others, &folders, index_secs),
        |_| None,
    );
    for found in found {
        listed.extend(found?);
    }
    let limit = MANY.max(entries.len() / 4);
    if listed.len() > limit {
        tracing::debug!(
            "scan: {} paths listed, the whole diff instead",
            listed.len()
        );
        return None;
    }
    match super::cache_tree::staged_paths(repo, tree, &index, &entries) {
        Some(staged) => listed.extend(staged),
        None => {
            let mut opts = git2::DiffOptions::new();
            opts.include_typechange(true);
            let staged = repo
                .diff_tree_to_index(tree, Some(&index), Some(&mut opts))
                .ok()?;
            for delta in staged.deltas() {
                for file in [delta.old_file(), delta.new_file()] {
                    if let Some(path) = file.path() {
                        listed.push(path.to_str()?.to_string());
                    }
                }
            }
        }
    }
    listed.sort();
    listed.dedup();
    (listed.len() <= limit).then_some(listed)
}

/// Elsewhere there is no stat data to trust: libgit2 walks.
#[cfg(not(unix))]
pub(super) fn changed_paths(_: &Repository, _: Option<&Tree<'_>>) -> Option<Vec<String>> {
    None
}

/// A stage-0 regular file or link with no flag that changes how libgit2
/// looks at it: the entries whose stat data decides.
fn plain(entry: &IndexEntry) -> bool {
    let stage = (entry.flags >> 12) & 0x3;
    stage == 0
        && entry.flags & (ASSUME_VALID | EXTENDED) == 0
        && matches!(entry.mode, 0o100644 | 0o100755 | 0o120000)
}

/// The paths to list from `folder` (a tracked folder, `""` for the root,
/// holding the plain entries `here`, sorted by name; `others` are the paths
/// of the entries that are not plain): each entry whose file's stat data
/// is not the index's ([`same_stat`]), each name the index holds neither as
/// a file nor as a folder, each tracked folder that is something else on
/// the disk, and the folder itself when it cannot be opened or listed (a
/// link there included). `None` when the root cannot be, or a name is not
/// UTF-8.
#[cfg(unix)]
fn look_in(
    workdir: &Path,
    folder: &str,
    here: &[(&str, &IndexEntry)],
    others: &HashSet<&str>,
    folders: &HashMap<&str, Vec<(&str, &IndexEntry)>>,
    index_secs: i64,
) -> Option<Vec<String>> {
    use crate::walk::{Kind, OpenFolder};
    let root = folder.is_empty();
    let whole = || (!root).then(|| vec![folder.to_string()]);
    let opened = if root {
        OpenFolder::open(workdir, true)
    } else {
        OpenFolder::open(&workdir.join(folder), false)
    };
    let Ok(opened) = opened else {
        return whole();
    };
    // Where a name starts in a path of this folder.
    let skip = if root { 0 } else { folder.len() + 1 };
    let mut out = Vec::new();
    for (path, entry) in here {
        let same = opened
            .lstat(&path[skip..])
            .is_ok_and(|st| same_stat(&st, entry, index_secs));
        if !same {
            out.push(path.to_string());
        }
    }
    let Ok(names) = opened.names() else {
        return whole();
    };
    let mut rel = String::new();
    for (name, kind) in names {
        let name = name.to_str()?;
        // The repository's own folder (or file, in a linked worktree),
        // which libgit2 never diffs.
        if root && name == ".git" {
            continue;
        }
        rel.clear();
        if !root {
            rel.push_str(folder);
            rel.push('/');
        }
        rel.push_str(name);
        let file = here
            .binary_search_by(|(path, _)| path[skip..].cmp(name))
            .is_ok()
            || others.contains(rel.as_str());
        let list = if folders.contains_key(rel.as_str()) {
            kind != Kind::Dir || file
        } else {
            !file
        };
        if list {
            out.push(rel.clone());
        }
    }
    Some(out)
}

/// Whether a file's stat data `st` is what `entry` holds, and the file is
/// older than the index file: then libgit2 trusts it unchanged without
/// reading it.
#[cfg(unix)]
fn same_stat(st: &crate::walk::FileStat, entry: &IndexEntry, index_secs: i64) -> bool {
    const KIND: u32 = 0o170000;
    let kind = match entry.mode {
        0o120000 => st.mode & KIND == 0o120000,
        mode => st.mode & KIND == 0o100000 && (st.mode & 0o100 != 0) == (mode == 0o100755),
    };
    // libgit2 keeps 32 bits of each.
    kind && !exact::racy(st.mtime.0, index_secs)
        && st.size as u32 == entry.file_size
        && st.mtime.0 as i32 == entry.mtime.seconds()
        && st.mtime.1 == entry.mtime.nanoseconds()
        && st.ctime.0 as i32 == entry.ctime.seconds()
        && st.ctime.1 == entry.ctime.nanoseconds()
        && st.ino as u32 == entry.ino
        && st.uid == entry.uid
        && st.gid == entry.gid
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use git2::Repository;

    use super::changed_paths;
    use crate::changes::exact::tests::{git, same_whole, write};

    /// Set the modification time of `rel` to `at`.
    fn touch(root: &std::path::Path, rel: &str, at: SystemTime) {
        let file = std::fs::File::options()
            .write(true)
            .open(root.join(rel))
            .unwrap();
        file.set_modified(at).unwrap();
    }

    /// With every file older than the index, only what changed is listed
    /// (by size, by the status-change time, by kind, by a name the index
    /// does not hold, by the tree and the index differing), nothing
    /// untouched is, and the diff made from the list is libgit2's own.
    #[test]
    #[cfg(unix)]
    fn only_what_may_have_changed_is_listed_and_the_diff_is_libgit2s() {
        let dir = tempfile::tempdir().unwrap();
        let root = &dir.path().canonicalize().unwrap();
        git(root, &["init", "-q", "-b", "main"]);
        write(root, ".gitignore", "*.log\nbuild/\n");
        for i in 0..30 {
            write(
                root,
                &format!("src/f{i:02}.rs"),
                &format!("fn f{i:02}() {{}}\n"),
            );
        }
        write(root, "docs/sub/a.md", "# a\n");
        write(root, "docs/b.md", "# b\n");
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "init"]);
        git(root, &["checkout", "-q", "-b", "feat"]);
        let past = SystemTime::now() - Duration::from_secs(1000);
        let tracked = |root: &std::path::Path| {
            let out = std::process::Command::new("git")
                .args(["ls-files"])
                .current_dir(root)
                .output()
                .unwrap();
            String::from_utf8(out.stdout).unwrap()
        };
        for rel in tracked(root).lines() {
            touch(root, rel, past);
        }
        // Staged with an old time: only the tree and the index differ.
        write(root, "src/f04.rs", "fn staged() {}\n");
        touch(root, "src/f04.rs", past);
        git(root, &["add", "src/f04.rs"]);
        git(root, &["update-index", "-q", "--refresh"]);
        std::thread::sleep(Duration::from_millis(1100));
        git(root, &["rm", "-q", "--cached", "src/f05.rs"]);
        // The same size and time: only the status-change time tells.
        write(root, "src/f01.rs", "fn g01() {}\n");
        touch(root, "src/f01.rs", past);
        write(root, "src/f02.rs", "fn f02() {}\nfn more() {}\n");
        touch(root, "src/f02.rs", past + Duration::from_secs(1));
        std::fs::remove_file(root.join("src/f03.rs")).unwrap();
        write(root, "src/new.rs", "fn new() {}\n");
        write(root, "src/deep/new/x.rs", "fn x() {}\n");
        write(root, "src/x.log", "log\n");
        write(root, "build/out.o", "o\n");
        std::fs::remove_dir_all(root.join("docs/sub")).unwrap();
        write(root, "docs/sub", "now a file\n");
        for rel in [
            "src/new.rs",
            "src/deep/new/x.rs",
            "src/x.log",
            "build/out.o",
            "docs/sub",
        ] {
            touch(root, rel, past);
        }
        let repo = Repository::open(root).unwrap();
        let tree = repo
            .revparse_single("main")
            .unwrap()
            .peel_to_tree()
            .unwrap();
        let listed = changed_paths(&repo, Some(&tree)).unwrap();
        assert_eq!(
            listed,
            [
                "build",
                // A folder that is no longer one: listed whole.
                "docs/sub",
                "src/deep",
                "src/f01.rs",
                "src/f02.rs",
                "src/f03.rs",
                "src/f04.rs",
                "src/f05.rs",
                "src/new.rs",
                "src/x.log",
            ]
        );
        same_whole(&repo);
    }
}
