//! The diff of exactly a list of paths, from a tree through the index to
//! the work tree, made against a small in-memory index that holds only the
//! entries those paths can reach (issue 43).
//!
//! libgit2's `diff_tree_to_workdir_with_index` with a path list walks every
//! entry of the repository's index twice (tree to index, index to work
//! tree: its index iterator starts at the first entry and skips to the
//! list one entry at a time) and copies the entry list for each iterator,
//! so the kept status's few changed files cost a warm question time that
//! grew with the repository. The same two diffs, merged the same way, are
//! made here against an index holding only:
//!
//! - every entry (all stages) at a listed path or below it (a listed folder
//!   holds everything under it, as libgit2's path list says);
//! - every entry at a folder above a listed path: the work-tree iterator
//!   asks the index whether a folder it goes into is a submodule.
//!
//! Every entry libgit2's path list lets through is there, and its iterators
//! drop the others one by one whatever they are, so the diff has the same
//! deltas. Two properties of the repository's index are not an in-memory
//! index's, and are made up for:
//!
//! - **Racy entries.** libgit2 compares a file whose stat data matches its
//!   entry by content only when the file is as new as the index file
//!   (racy git); an index it did not read is never racy. Each entry whose
//!   work-tree file is as new as the index file (by the second, a superset
//!   of libgit2's test), or cannot be looked at, has its times cleared, so
//!   libgit2 compares it by content.
//! - **Case.** With `core.ignorecase` the repository's index sorts and
//!   matches without case; the whole-index diff is made then, as before.
//!
//! Anything unexpected while building the small index (an entry libgit2
//! refuses, a path and a folder of one name at one stage, which would
//! collapse) falls back to the whole-index diff, which is always right.

use std::path::Path;

use git2::{Diff, Index, IndexEntry, IndexTime, Repository, Tree};

use super::diff::work_tree_diff_options;

/// The diff from `tree` through the index to the work tree of exactly
/// `paths` (each a file, or a folder and everything under it), with the
/// work tree's diff options: what `diff_tree_to_workdir_with_index` makes
/// with these paths as a literal path list, without a walk of the whole
/// index. An empty list is the whole work tree, as libgit2 reads it.
pub(super) fn diff_exactly<'r, S: AsRef<str>>(
    repo: &'r Repository,
    tree: Option<&Tree<'_>>,
    paths: &[S],
) -> Result<Diff<'r>, git2::Error> {
    let mut opts = work_tree_diff_options();
    opts.disable_pathspec_match(true);
    for path in paths {
        opts.pathspec(path.as_ref());
    }
    let small = if paths.is_empty() || whole_index_forced() {
        None
    } else {
        small_index(repo, paths)
    };
    match small {
        Some(index) => {
            tracing::debug!(
                "exact diff: {} paths, {} entries of a small index",
                paths.len(),
                index.len()
            );
            let mut diff = repo.diff_tree_to_index(tree, Some(&index), Some(&mut opts))?;
            let work = repo.diff_index_to_workdir(Some(&index), Some(&mut opts))?;
            diff.merge(&work)?;
            Ok(diff)
        }
        None => repo.diff_tree_to_workdir_with_index(tree, Some(&mut opts)),
    }
}

/// The in-memory index of the entries `paths` can reach (see the module's
/// text), `None` where the whole-index diff must be made instead.
fn small_index<S: AsRef<str>>(repo: &Repository, paths: &[S]) -> Option<Index> {
    let workdir = repo.workdir()?;
    let index_secs = index_secs(repo);
    let mut whole = repo.index().ok()?;
    // As libgit2 reloads it for a diff: a failed read keeps what it had.
    let _ = whole.read(false);
    if super::repo::index_ignores_case(&whole) {
        return None;
    }
    let mut entries = std::collections::BTreeMap::new();
    for path in paths {
        let path = path.as_ref().trim_end_matches('/');
        reachable(&whole, path, &mut entries);
    }
    let count = entries.len();
    let mut small = Index::new().ok()?;
    for mut entry in entries.into_values() {
        let rel = String::from_utf8_lossy(&entry.path).into_owned();
        if may_be_racy(workdir, &rel, index_secs) {
            entry.mtime = IndexTime::new(0, 0);
            entry.ctime = IndexTime::new(0, 0);
        }
        small.add(&entry).ok()?;
    }
    (small.len() == count).then_some(small)
}

/// Add to `out` every entry of `whole` at `path` or below it, and at each
/// folder above it, every stage, keyed by (path, stage).
fn reachable(
    whole: &Index,
    path: &str,
    out: &mut std::collections::BTreeMap<(Vec<u8>, u16), IndexEntry>,
) {
    let mut add = |entry: IndexEntry| {
        let stage = (entry.flags >> 12) & 0x3;
        out.insert((entry.path.clone(), stage), entry);
    };
    let at = |p: &str, add: &mut dyn FnMut(IndexEntry)| {
        for stage in 0..=3 {
            if let Some(entry) = whole.get_path(Path::new(p), stage) {
                add(entry);
            }
        }
    };
    if path.is_empty() {
        return;
    }
    at(path, &mut add);
    for (i, _) in path.match_indices('/') {
        at(&path[..i], &mut add);
    }
    let folder = format!("{path}/");
    if let Ok(first) = whole.find_prefix(folder.as_str()) {
        let mut n = first;
        while let Some(entry) = whole.get(n) {
            if !entry.path.starts_with(folder.as_bytes()) {
                break;
            }
            add(entry);
            n += 1;
        }
    }
}

/// Whether libgit2 could call the entry at `rel` racy (its work-tree file
/// as new as the index file, whose time is `index_secs`), or that cannot be
/// told (no index file time, a path through a link, nothing there): then
/// its stat data must not be trusted.
fn may_be_racy(workdir: &Path, rel: &str, index_secs: Option<i64>) -> bool {
    let Some(index_secs) = index_secs else {
        return true;
    };
    if crate::safe_fs::crosses_link(workdir, rel) {
        return true;
    }
    let Ok(meta) = std::fs::symlink_metadata(workdir.join(rel)) else {
        return true;
    };
    let Some(secs) = mtime_secs(&meta) else {
        return true;
    };
    racy(secs, index_secs)
}

/// Whether a file modified at `secs` is as new as the index file, written
/// at `index_secs`: libgit2 then compares it by content, whatever its stat
/// data says. libgit2 compares 32-bit seconds; either comparison saying
/// "as new" counts.
pub(super) fn racy(secs: i64, index_secs: i64) -> bool {
    secs >= index_secs || (secs as i32) >= (index_secs as i32)
}

/// The index file's modification time in whole seconds, taken before the
/// index is read: libgit2's own stamp, taken when it reads, is the same or
/// later, so every entry it would call racy is called racy here too.
pub(super) fn index_secs(repo: &Repository) -> Option<i64> {
    std::fs::metadata(repo.path().join("index"))
        .ok()
        .and_then(|m| mtime_secs(&m))
}

/// A file's modification time in whole seconds since the epoch, as
/// libgit2 takes it from `stat`.
fn mtime_secs(meta: &std::fs::Metadata) -> Option<i64> {
    #[cfg(unix)]
    return Some(std::os::unix::fs::MetadataExt::mtime(meta));
    #[cfg(not(unix))]
    return meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok());
}

/// In a debug build, `NOTARAI_TEST_WHOLE_INDEX_DIFF` makes every diff of a
/// path list walk the whole index as before the small index, so the tests
/// can compare the two (`tests/it/exact_diff.rs`); a release build has no
/// such knob.
pub(super) fn whole_index_forced() -> bool {
    #[cfg(debug_assertions)]
    if std::env::var_os("NOTARAI_TEST_WHOLE_INDEX_DIFF").is_some() {
        return true;
    }
    false
}

#[cfg(test)]
pub(in crate::changes) mod tests {
    use std::path::Path;

    use git2::{Diff, Repository};

    use super::diff_exactly;
    use crate::changes::diff::work_tree_diff_options;

    /// `git` in `dir`, asserting it succeeds.
    pub(in crate::changes) fn git(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(["-c", "protocol.file.allow=always"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    }

    pub(in crate::changes) fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Each delta of `diff` in full: status, both sides' paths, ids, modes
    /// and flags, and its patch text.
    pub(in crate::changes) fn described(diff: &Diff<'_>) -> Vec<String> {
        (0..diff.deltas().len())
            .map(|i| {
                let d = diff.get_delta(i).unwrap();
                let patch = match git2::Patch::from_diff(diff, i) {
                    Ok(p) => p.map(|mut p| match p.to_buf() {
                        Ok(buf) => String::from_utf8_lossy(&buf).into_owned(),
                        Err(e) => format!("error: {}", e.message()),
                    }),
                    Err(e) => Some(format!("error: {}", e.message())),
                };
                let side = |f: git2::DiffFile<'_>| {
                    format!("{:?} {} {:o}", f.path(), f.id(), u32::from(f.mode()))
                };
                format!(
                    "{:?} {} -> {} flags {:?}\n{}",
                    d.status(),
                    side(d.old_file()),
                    side(d.new_file()),
                    d.flags(),
                    patch.unwrap_or_default()
                )
            })
            .collect()
    }

    /// `diff_exactly` of `paths` against libgit2's whole-index diff of the
    /// same path list, with and without renames paired.
    fn same(repo: &Repository, paths: &[&str]) {
        let tree = repo
            .revparse_single("main")
            .unwrap()
            .peel_to_tree()
            .unwrap();
        let mut opts = work_tree_diff_options();
        opts.disable_pathspec_match(true);
        for path in paths {
            opts.pathspec(path);
        }
        let mut whole = repo
            .diff_tree_to_workdir_with_index(Some(&tree), Some(&mut opts))
            .unwrap();
        let mut exact = diff_exactly(repo, Some(&tree), paths).unwrap();
        let (w, e) = (described(&whole), described(&exact));
        assert_eq!(e, w, "paths {paths:?}");
        let mut find = git2::DiffFindOptions::new();
        find.renames(true).for_untracked(true);
        whole.find_similar(Some(&mut find)).unwrap();
        exact.find_similar(Some(&mut find)).unwrap();
        assert_eq!(described(&exact), described(&whole), "renames, {paths:?}");
    }

    /// The scan's whole-work-tree diff (`scan.rs`) against libgit2's own,
    /// with and without renames paired.
    pub(in crate::changes) fn same_whole(repo: &Repository) {
        let tree = repo
            .revparse_single("main")
            .unwrap()
            .peel_to_tree()
            .unwrap();
        assert!(
            crate::changes::scan::changed_paths(repo, Some(&tree)).is_some(),
            "the scan makes this diff"
        );
        let mut opts = work_tree_diff_options();
        let mut whole = repo
            .diff_tree_to_workdir_with_index(Some(&tree), Some(&mut opts))
            .unwrap();
        let mut scanned = crate::changes::scan::whole_diff(repo, Some(&tree)).unwrap();
        assert_eq!(described(&scanned), described(&whole), "whole work tree");
        let mut find = git2::DiffFindOptions::new();
        find.renames(true).for_untracked(true);
        whole.find_similar(Some(&mut find)).unwrap();
        scanned.find_similar(Some(&mut find)).unwrap();
        assert_eq!(described(&scanned), described(&whole), "whole, renames");
    }

    /// Work-tree and index changes of every kind, on branch `feat` of
    /// the repository [`the_small_index_diffs_as_the_whole_index_does`]
    /// made.
    #[cfg(unix)]
    fn change_every_kind(root: &Path) {
        // Work-tree changes of every kind.
        write(root, "src/a.rs", "fn a() {}\nfn a2() {}\n");
        write(root, "src/dir/one.rs", "fn one() {}\nfn more() {}\n");
        std::fs::remove_file(root.join("src/dir/deep/two.rs")).unwrap();
        std::fs::remove_file(root.join("src/x.rs")).unwrap();
        write(root, "src/x.rs/inner.rs", "fn inner() {}\n");
        write(root, "src/notes.txt", "one\r\ntwo\r\n");
        write(root, "src/vendor/new.rs", "fn new() {}\n");
        write(root, "src/new/n.rs", "fn n() {}\n");
        std::fs::rename(root.join("src/c.rs"), root.join("src/moved.rs")).unwrap();
        std::fs::remove_file(root.join("src/link")).unwrap();
        std::os::unix::fs::symlink("b.rs", root.join("src/link")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let x = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(root.join("src/run.sh"), x).unwrap();
        write(root, "src/ita.rs", "fn ita() {}\n");
        git(root, &["add", "-N", "src/ita.rs"]);
        write(root, "src/skip.rs", "fn skip() {}\n");
        git(root, &["add", "src/skip.rs"]);
        git(root, &["update-index", "--skip-worktree", "src/skip.rs"]);
        write(root, "src/skip.rs", "fn skipped() {}\n");
        git(root, &["update-index", "--assume-unchanged", "src/b.rs"]);
        write(root, "src/b.rs", "fn b() {}\nfn assumed() {}\n");
        // Racy: staged with a time ahead of the index file's, then changed
        // keeping size and time (ctime not trusted, so only the racy test
        // can see it).
        git(root, &["config", "core.trustctime", "false"]);
        let ahead = std::time::SystemTime::now() + std::time::Duration::from_secs(30);
        let set_time = |t| {
            let f = std::fs::File::options()
                .write(true)
                .open(root.join("src/racy.rs"))
                .unwrap();
            f.set_modified(t).unwrap();
        };
        set_time(ahead);
        git(root, &["add", "src/racy.rs"]);
        write(root, "src/racy.rs", "fn RACY() {}\n");
        set_time(ahead);
    }

    /// A folder named in the list holds everything under it; a file below
    /// a submodule is not looked for inside it; an entry git would call
    /// racy is compared by content; every stage of a conflict, flags of the
    /// index (skip-worktree, assume-unchanged, intent to add), links,
    /// modes, CRLF and neighbours sorting between a name and its folder.
    #[test]
    #[cfg(unix)]
    fn the_small_index_diffs_as_the_whole_index_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = &dir.path().canonicalize().unwrap();
        git(root, &["init", "-q", "-b", "main"]);
        for (rel, text) in [
            ("src/a.rs", "fn a() {}\n"),
            ("src/b.rs", "fn b() {}\n"),
            ("src/c.rs", "fn c() {}\n"),
            ("src/x.rs", "fn x() {}\n"),
            ("src/x.rs.bak", "old\n"),
            ("src/x.rs-old/f.rs", "fn f() {}\n"),
            ("src/dir/one.rs", "fn one() {}\n"),
            ("src/dir/deep/two.rs", "fn two() {}\n"),
            ("src/notes.txt", "one\ntwo\n"),
            ("src/run.sh", "echo\n"),
            ("src/racy.rs", "fn racy() {}\n"),
            (".gitattributes", "*.txt text eol=crlf\n"),
        ] {
            write(root, rel, text);
        }
        std::os::unix::fs::symlink("a.rs", root.join("src/link")).unwrap();
        let vendor = root.join("src/vendor");
        std::fs::create_dir_all(&vendor).unwrap();
        git(&vendor, &["init", "-q", "-b", "main"]);
        write(&vendor, "lib.rs", "fn lib() {}\n");
        git(&vendor, &["add", "-A"]);
        git(&vendor, &["commit", "-qm", "v"]);
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "init"]);
        // A gitlink whose folder holds plain files (a submodule not
        // checked out as a repository): only the index says not to look in.
        let head = Repository::open(root)
            .unwrap()
            .head()
            .unwrap()
            .target()
            .unwrap();
        let cacheinfo = format!("160000,{head},src/gl");
        git(root, &["update-index", "--add", "--cacheinfo", &cacheinfo]);
        git(root, &["commit", "-qm", "gitlink"]);
        write(root, "src/gl/file.rs", "fn file() {}\n");
        git(root, &["checkout", "-q", "-b", "feat"]);
        change_every_kind(root);
        let repo = Repository::open(root).unwrap();
        let every = [
            "src/a.rs",
            "src/b.rs",
            "src/c.rs",
            "src/moved.rs",
            "src/x.rs",
            "src/x.rs/inner.rs",
            "src/notes.txt",
            "src/link",
            "src/run.sh",
            "src/ita.rs",
            "src/skip.rs",
            "src/racy.rs",
            "src/new/n.rs",
            "src/vendor",
        ];
        same(&repo, &every);
        for path in every {
            same(&repo, &[path]);
        }
        // A folder, with and without its slash; a file inside a
        // submodule; a name that is nothing; neighbours of a changed name.
        same(&repo, &["src/dir"]);
        same(&repo, &["src/dir/"]);
        same(&repo, &["src/dir", "src/dir/one.rs"]);
        same(&repo, &["src/vendor/lib.rs"]);
        same(&repo, &["src/gl/file.rs"]);
        same(&repo, &["src/gl", "src/gl/file.rs"]);
        same(&repo, &["src/vendor/new.rs", "src/a.rs"]);
        same(&repo, &["src/nothing", "src/x.rs.bak", "src/x.rs-old"]);
        same(&repo, &["src/racy.rs", "src/x.rs"]);
        same(&repo, &["src"]);
        same_whole(&repo);
    }

    /// With `core.ignorecase` libgit2 sorts the index without case: neither
    /// the small index nor the scan is made, libgit2's whole diff is.
    #[test]
    #[cfg(unix)]
    fn an_index_sorted_without_case_is_left_to_libgit2() {
        let dir = tempfile::tempdir().unwrap();
        let root = &dir.path().canonicalize().unwrap();
        git(root, &["init", "-q", "-b", "main"]);
        write(root, "src/a.rs", "fn a() {}\n");
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "init"]);
        let repo = Repository::open(root).unwrap();
        assert!(super::small_index(&repo, &["src/a.rs"]).is_some());
        assert!(crate::changes::scan::changed_paths(&repo, None).is_some());
        git(root, &["config", "core.ignorecase", "true"]);
        let repo = Repository::open(root).unwrap();
        assert!(super::small_index(&repo, &["src/a.rs"]).is_none());
        assert!(crate::changes::scan::changed_paths(&repo, None).is_none());
    }

    /// Every stage of a conflicted file, alone and beside other paths.
    #[test]
    fn the_small_index_diffs_a_conflict_as_the_whole_index_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = &dir.path().canonicalize().unwrap();
        git(root, &["init", "-q", "-b", "main"]);
        write(root, "src/a.rs", "fn a() {}\n");
        write(root, "src/b.rs", "fn b() {}\n");
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "init"]);
        git(root, &["checkout", "-q", "-b", "feat"]);
        write(root, "src/a.rs", "fn a() {}\nfn on_feat() {}\n");
        git(root, &["commit", "-qam", "feat"]);
        git(root, &["checkout", "-q", "main"]);
        write(root, "src/a.rs", "fn a() {}\nfn on_main() {}\n");
        write(root, "src/b.rs", "fn b() {}\nfn b_main() {}\n");
        git(root, &["commit", "-qam", "main"]);
        git(root, &["checkout", "-q", "feat"]);
        let merged = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "merge",
                "-q",
                "main",
            ])
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", root)
            .output()
            .unwrap();
        assert!(!merged.status.success(), "the merge stops on the conflict");
        write(root, "src/b.rs", "fn b() {}\nfn b_after() {}\n");
        let repo = Repository::open(root).unwrap();
        same(&repo, &["src/a.rs"]);
        same(&repo, &["src/a.rs", "src/b.rs"]);
        same(&repo, &["src"]);
        same_whole(&repo);
    }
}
