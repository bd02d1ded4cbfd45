//! The paths where a tree and the index may differ, found through the
//! index file's cached tree (git's `TREE` extension) the way git's own
//! status skips unchanged folders (issue 43).
//!
//! libgit2's diff from a tree to the index reads every folder of the tree
//! and walks every entry of the index: 10 ms of a `check` on the benchmark
//! repository, where git's status compares the same in under 1 ms. The
//! index file keeps, for each folder whose entries have not changed since
//! it was last computed, the id of the tree those entries make; where that
//! id is the base tree's id for the same folder, the folder's entries are
//! the base's, and nothing in it is looked at. Only the other folders'
//! entries are compared with the base tree, by id and mode.
//!
//! The answer is a superset of the paths of libgit2's tree-to-index diff
//! (every path present on one side only, or with another id or mode on
//! the other, and every entry of a stage other than 0 outside the folders
//! skipped), which the caller diffs exactly. Entries the cached tree does
//! not account for (other stages, intent to add) are not all listed here:
//! the caller lists every entry that is not a plain stage-0 file or link
//! on its own ([`super::scan`]), and must. Wherever the cached tree cannot be trusted the answer is
//! `None` and libgit2 compares: no base tree, an index file that is not
//! the one libgit2 read (its checksum, all zeros with `index.skipHash`), a
//! version, extension or entry this reader does not know, or any bound
//! crossed while reading.

use std::io::BufRead;
use std::path::Path;

use git2::{Index, IndexEntry, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};

/// Length of a SHA-1 id, the only object format read here.
const ID: usize = 20;

/// One folder of the cached tree: its path (empty for the root, no
/// trailing `/`), the id its entries make when known, and its sub-folders.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Folder {
    pub(super) path: String,
    pub(super) id: Option<Oid>,
    pub(super) children: Vec<Folder>,
}

/// The paths where `tree` and `index` may differ (see the module's text),
/// each once, or `None` where libgit2 must compare them. `entries` are
/// `index`'s entries, as read with it.
pub(super) fn staged_paths(
    repo: &Repository,
    tree: Option<&Tree<'_>>,
    index: &Index,
    entries: &[IndexEntry],
) -> Option<Vec<String>> {
    let tree = tree?;
    let (root, sum) = read_index_file(&repo.path().join("index"))?;
    if sum.iter().all(|b| *b == 0) || sum != checksum(index)? {
        return None;
    }
    // The skipped folders are ranges of entries sorted by path: an index
    // out of order (git refuses one) is left to libgit2.
    if entries.windows(2).any(|w| w[0].path > w[1].path) {
        return None;
    }
    let mut clean = Vec::new();
    clean_folders(repo, &root, tree, &mut clean)?;
    tracing::debug!("cached tree: {} folders as at the base", clean.len());
    if clean.iter().any(String::is_empty) {
        return Some(Vec::new());
    }
    let mut out = Vec::new();
    // The index side: every stage-0 entry outside the clean folders, in
    // the index's order (by path); the others are listed.
    let mut skipped = vec![false; entries.len()];
    for folder in &clean {
        let prefix = format!("{folder}/");
        let start = entries.partition_point(|e| e.path.as_slice() < prefix.as_bytes());
        let end =
            start + entries[start..].partition_point(|e| e.path.starts_with(prefix.as_bytes()));
        skipped[start..end].fill(true);
    }
    let mut index_side: Vec<&IndexEntry> = Vec::new();
    for (entry, skip) in entries.iter().zip(&skipped) {
        if *skip {
            continue;
        }
        if (entry.flags >> 12) & 0x3 != 0 {
            out.push(String::from_utf8(entry.path.clone()).ok()?);
        } else {
            index_side.push(entry);
        }
    }
    // The tree side: every entry outside the clean folders, sorted as the
    // index is, then both compared in one pass.
    let clean: std::collections::HashSet<String> = clean.into_iter().collect();
    let mut tree_side: Vec<(String, Oid, u32)> = Vec::new();
    let mut failed = false;
    tree.walk(TreeWalkMode::PreOrder, |folder, entry| {
        let Ok(name) = entry.name() else {
            failed = true;
            return TreeWalkResult::Abort;
        };
        let path = format!("{folder}{name}");
        if entry.kind() == Some(git2::ObjectType::Tree) {
            return if clean.contains(&path) {
                TreeWalkResult::Skip
            } else {
                TreeWalkResult::Ok
            };
        }
        tree_side.push((path, entry.id(), entry.filemode() as u32));
        TreeWalkResult::Ok
    })
    .ok()?;
    if failed {
        return None;
    }
    tree_side.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let (mut i, mut t) = (0, 0);
    while i < index_side.len() || t < tree_side.len() {
        let order = match (index_side.get(i), tree_side.get(t)) {
            (Some(e), Some(s)) => e.path.as_slice().cmp(s.0.as_bytes()),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match order {
            std::cmp::Ordering::Less => {
                out.push(String::from_utf8(index_side[i].path.clone()).ok()?);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(std::mem::take(&mut tree_side[t].0));
                t += 1;
            }
            std::cmp::Ordering::Equal => {
                let (e, s) = (index_side[i], &mut tree_side[t]);
                if e.id != s.1 || e.mode != s.2 {
                    out.push(std::mem::take(&mut s.0));
                }
                i += 1;
                t += 1;
            }
        }
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// The folders of `cached` whose entries are known to make the tree
/// `base` holds at the same path: the whole folder when its id is `base`'s,
/// else those of its sub-folders, recursively. `None` when a tree cannot be
/// read.
fn clean_folders(
    repo: &Repository,
    cached: &Folder,
    base: &Tree<'_>,
    out: &mut Vec<String>,
) -> Option<()> {
    if cached.id == Some(base.id()) {
        out.push(cached.path.clone());
        return Some(());
    }
    for child in &cached.children {
        let name = child.path.rsplit('/').next().unwrap_or(&child.path);
        let Some(entry) = base.get_name(name) else {
            continue;
        };
        if entry.kind() != Some(git2::ObjectType::Tree) {
            continue;
        }
        if child.id == Some(entry.id()) {
            out.push(child.path.clone());
            continue;
        }
        let sub = repo.find_tree(entry.id()).ok()?;
        clean_folders(repo, child, &sub, out)?;
    }
    Some(())
}

/// The checksum libgit2 read with `index` (the index file's last 20
/// bytes, or what it computed when those are zeros).
fn checksum(index: &Index) -> Option<[u8; ID]> {
    unsafe extern "C" {
        fn git_index_checksum(index: *mut std::ffi::c_void) -> *const u8;
    }
    let raw = git2::Binding::raw(index).cast::<std::ffi::c_void>();
    // SAFETY: `raw` is the live index `index` borrows; the function returns
    // a pointer to the 20-byte (SHA-1) checksum field inside it, read here
    // while `index` is borrowed.
    let ptr = unsafe { git_index_checksum(raw) };
    if ptr.is_null() {
        return None;
    }
    let mut out = [0u8; ID];
    // SAFETY: as above; the field holds at least `ID` bytes.
    unsafe { std::ptr::copy_nonoverlapping(ptr, out.as_mut_ptr(), ID) };
    Some(out)
}

/// The cached tree and the checksum of the index file at `path`, read
/// through the one safe reader in blocks (the entries are skipped, never
/// kept: 4 MB of entries cost a copy each).
fn read_index_file(path: &Path) -> Option<(Folder, Vec<u8>)> {
    let file = crate::safe_fs::open_regular(path).ok()?;
    read_cached(std::io::BufReader::with_capacity(1 << 16, file))
}

/// The cached tree of the index file `bytes` (see [`read_cached`]).
#[cfg(test)]
pub(super) fn cached_tree(bytes: &[u8]) -> Option<Folder> {
    read_cached(bytes).map(|(tree, _)| tree)
}

/// The cached tree of an index file (versions 2 to 4) and its checksum,
/// or `None` when it has none, or holds what this reader does not know: a
/// required extension (its name does not start with an uppercase letter:
/// a split or sparse index), or anything out of bounds.
fn read_cached(mut file: impl BufRead) -> Option<(Folder, Vec<u8>)> {
    let mut header = [0u8; 12];
    file.read_exact(&mut header).ok()?;
    if &header[..4] != b"DIRC" {
        return None;
    }
    let version = u32::from_be_bytes(header[4..8].try_into().ok()?);
    let count = u32::from_be_bytes(header[8..12].try_into().ok()?);
    if !(2..=4).contains(&version) {
        return None;
    }
    let mut scratch = Vec::new();
    for _ in 0..count {
        skip_entry(&mut file, version, &mut scratch)?;
    }
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).ok()?;
    let sum = tail.split_off(tail.len().checked_sub(ID)?);
    let mut at = 0usize;
    let mut tree = None;
    while at < tail.len() {
        let name = tail.get(at..at + 4)?;
        let size = u32::from_be_bytes(tail.get(at + 4..at + 8)?.try_into().ok()?) as usize;
        let data = tail.get(at + 8..(at + 8).checked_add(size)?)?;
        if !name[0].is_ascii_uppercase() {
            return None;
        }
        if name == b"TREE" {
            let mut pos = 0;
            let root = folder(data, &mut pos, "", 0)?;
            if !root.path.is_empty() || pos != data.len() {
                return None;
            }
            tree = Some(root);
        }
        at += 8 + size;
    }
    Some((tree?, sum))
}

/// Read past one entry of an index of `version`.
fn skip_entry(file: &mut impl BufRead, version: u32, scratch: &mut Vec<u8>) -> Option<()> {
    // ctime, mtime, dev, ino, mode, uid, gid, size (4 bytes each but the
    // times, 8), the id, then the flags.
    const FIXED: usize = 40 + ID + 2;
    let mut fixed = [0u8; FIXED];
    file.read_exact(&mut fixed).ok()?;
    let flags = u16::from_be_bytes([fixed[FIXED - 2], fixed[FIXED - 1]]);
    let extended = flags & 0x4000 != 0;
    if extended && version < 3 {
        return None;
    }
    let head = FIXED + if extended { 2 } else { 0 };
    skip(file, head - FIXED)?;
    if version == 4 {
        // A varint (how much of the previous path to drop), then the rest
        // of the path, NUL-terminated, no padding.
        let mut byte = [0x80u8];
        while byte[0] & 0x80 != 0 {
            file.read_exact(&mut byte).ok()?;
        }
        scratch.clear();
        file.read_until(0, scratch).ok()?;
        return (scratch.last() == Some(&0)).then_some(());
    }
    // The path and 1 to 8 NULs, to a multiple of 8 bytes from the entry.
    let (len, read) = match usize::from(flags & 0x0fff) {
        0x0fff => {
            scratch.clear();
            file.read_until(0, scratch).ok()?;
            if scratch.last() != Some(&0) {
                return None;
            }
            (scratch.len() - 1, scratch.len())
        }
        len => (len, 0),
    };
    let size = (head + len + 8) & !7;
    skip(file, size - head - read)
}

/// Read past `n` bytes.
fn skip(file: &mut impl BufRead, mut n: usize) -> Option<()> {
    while n > 0 {
        let got = file.fill_buf().ok()?.len().min(n);
        if got == 0 {
            return None;
        }
        file.consume(got);
        n -= got;
    }
    Some(())
}

/// One folder of a `TREE` extension at `*pos` and its sub-folders: its
/// name, NUL, its entry count (-1 when invalid), a space, its sub-folder
/// count, a newline, and its id when the count is not -1.
fn folder(data: &[u8], pos: &mut usize, parent: &str, depth: usize) -> Option<Folder> {
    if depth > 4096 {
        return None;
    }
    let rest = data.get(*pos..)?;
    let nul = rest.iter().position(|b| *b == 0)?;
    let name = std::str::from_utf8(&rest[..nul]).ok()?;
    let after = &rest[nul + 1..];
    let space = after.iter().position(|b| *b == b' ')?;
    let newline = after.iter().position(|b| *b == b'\n')?;
    if newline < space {
        return None;
    }
    let entries: i64 = std::str::from_utf8(&after[..space]).ok()?.parse().ok()?;
    let subtrees: usize = std::str::from_utf8(&after[space + 1..newline])
        .ok()?
        .parse()
        .ok()?;
    *pos += nul + 1 + newline + 1;
    let id = if entries >= 0 {
        let id = Oid::from_bytes(data.get(*pos..*pos + ID)?).ok()?;
        *pos += ID;
        Some(id)
    } else {
        None
    };
    let path = match (parent, name) {
        ("", name) => name.to_string(),
        (parent, name) => format!("{parent}/{name}"),
    };
    if depth > 0 && (name.is_empty() || name.contains('/')) {
        return None;
    }
    let mut children = Vec::with_capacity(subtrees.min(1024));
    for _ in 0..subtrees {
        children.push(folder(data, pos, &path, depth + 1)?);
    }
    Some(Folder { path, id, children })
}

#[cfg(test)]
mod tests {
    use git2::{DiffOptions, Repository};

    use super::{cached_tree, staged_paths};
    use crate::changes::exact::tests::{git, write};

    /// Both paths of every delta of libgit2's diff from `rev`'s tree to the
    /// index, and what the cached tree finds for the same (`None`: it
    /// could not be used).
    fn both(repo: &Repository, rev: &str) -> (Vec<String>, Option<Vec<String>>) {
        let tree = repo.revparse_single(rev).unwrap().peel_to_tree().unwrap();
        let mut index = repo.index().unwrap();
        index.read(true).unwrap();
        let mut opts = DiffOptions::new();
        opts.include_typechange(true);
        let diff = repo
            .diff_tree_to_index(Some(&tree), Some(&index), Some(&mut opts))
            .unwrap();
        let mut paths: Vec<String> = diff
            .deltas()
            .flat_map(|d| [d.old_file().path(), d.new_file().path()])
            .flatten()
            .map(|p| p.to_str().unwrap().to_string())
            .collect();
        paths.sort();
        paths.dedup();
        let entries: Vec<_> = index.iter().collect();
        (paths, staged_paths(repo, Some(&tree), &index, &entries))
    }

    /// A repository of nested folders on `main`, and a branch `feat` whose
    /// commits change some of them.
    fn repository() -> (tempfile::TempDir, Repository) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        for m in 0..6 {
            for f in 0..4 {
                write(
                    root,
                    &format!("src/m{m}/f{f}.rs"),
                    &format!("fn f{f}() {{}}\n"),
                );
            }
            write(root, &format!("src/m{m}/deep/x.rs"), "fn x() {}\n");
        }
        write(root, "docs/sub", "a file\n");
        write(root, "run.sh", "echo\n");
        write(root, "README.md", "# r\n");
        git(root, &["add", "-A"]);
        git(root, &["commit", "-qm", "init"]);
        git(root, &["checkout", "-q", "-b", "feat"]);
        write(root, "src/m1/f0.rs", "fn changed() {}\n");
        std::fs::remove_file(root.join("src/m2/f1.rs")).unwrap();
        write(root, "src/m3/new/y.rs", "fn y() {}\n");
        std::fs::remove_dir_all(root.join("src/m4/deep")).unwrap();
        std::fs::remove_file(root.join("docs/sub")).unwrap();
        write(root, "docs/sub/now.md", "a folder now\n");
        git(root, &["add", "-A"]);
        git(root, &["update-index", "--chmod=+x", "run.sh"]);
        git(root, &["commit", "-qm", "feat"]);
        let repo = Repository::open(root).unwrap();
        (dir, repo)
    }

    /// Against the merge base, with a cached tree valid everywhere (just
    /// committed) and then invalidated where files are staged, removed or
    /// added: the paths are exactly libgit2's, and against `HEAD` none.
    #[test]
    fn the_cached_tree_finds_the_paths_libgit2s_tree_to_index_diff_finds() {
        let (dir, repo) = repository();
        let root = dir.path();
        let (libgit2, ours) = both(&repo, "main");
        assert!(libgit2.len() >= 7, "{libgit2:?}");
        assert_eq!(ours.as_ref(), Some(&libgit2));
        assert_eq!(both(&repo, "HEAD"), (Vec::new(), Some(Vec::new())));
        // Staged changes invalidate the cached folders on their way.
        write(root, "src/m5/deep/x.rs", "fn staged() {}\n");
        write(root, "src/m0/added.rs", "fn added() {}\n");
        write(root, "README.md", "# staged\n");
        git(
            root,
            &["add", "src/m5/deep/x.rs", "src/m0/added.rs", "README.md"],
        );
        git(root, &["rm", "-q", "--cached", "src/m3/f2.rs"]);
        // Unmerged stages of one path, as a stopped merge leaves them.
        let id = String::from_utf8(
            std::process::Command::new("git")
                .args(["rev-parse", "HEAD:src/m0/f1.rs"])
                .current_dir(root)
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        let id = id.trim();
        let info = format!(
            "0 {z}\tsrc/m0/f1.rs\n100644 {id} 1\tsrc/m0/f1.rs\n100644 {id} 2\tsrc/m0/f1.rs\n",
            z = "0".repeat(40)
        );
        let mut child = std::process::Command::new("git")
            .args(["update-index", "--index-info"])
            .current_dir(root)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(info.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
        for rev in ["main", "HEAD"] {
            let (libgit2, ours) = both(&repo, rev);
            let ours = ours.expect("the cached tree is read");
            for path in &libgit2 {
                assert!(ours.contains(path), "{rev}: {path} missing from {ours:?}");
            }
            for path in [
                "src/m0/added.rs",
                "src/m0/f1.rs",
                "src/m3/f2.rs",
                "README.md",
            ] {
                assert!(ours.contains(&path.to_string()), "{rev}: {path}");
            }
            // Nothing where the index is the tree.
            assert!(!ours.iter().any(|p| p.starts_with("src/m5/f")), "{ours:?}");
        }
    }

    /// Versions 2, 3 (an intent-to-add entry) and 4 (compressed paths) are
    /// read to the same cached tree; a split index, a truncated file, an
    /// index changed after libgit2 read it and a checksum of zeros are
    /// left to libgit2.
    #[test]
    fn each_index_version_is_read_and_what_cannot_be_trusted_is_refused() {
        let (dir, repo) = repository();
        let root = dir.path();
        let head = repo.head().unwrap().peel_to_tree().unwrap().id();
        let read = || std::fs::read(root.join(".git/index")).unwrap();
        let root_id = |bytes: &[u8]| cached_tree(bytes).and_then(|t| t.id);
        assert_eq!(root_id(&read()), Some(head));
        // Sub-folders come in git's order of writing, with their full paths.
        let top = cached_tree(&read()).unwrap();
        let mut names: Vec<&str> = top.children.iter().map(|c| c.path.as_str()).collect();
        names.sort();
        assert_eq!(names, ["docs", "src"]);
        let src = top.children.iter().find(|c| c.path == "src").unwrap();
        assert!(src.children.iter().any(|c| c.path == "src/m0"));
        git(root, &["update-index", "--index-version", "4"]);
        assert_eq!(root_id(&read()), Some(head));
        assert_eq!(both(&repo, "main").1, Some(both(&repo, "main").0));
        write(root, "later.rs", "fn later() {}\n");
        git(root, &["add", "-N", "later.rs"]);
        git(root, &["update-index", "--index-version", "3"]);
        let bytes = read();
        assert_eq!(u32::from_be_bytes(bytes[4..8].try_into().unwrap()), 3);
        assert!(cached_tree(&bytes).is_some());
        git(root, &["update-index", "--index-version", "2"]);
        // Version 2 cannot hold an intent-to-add entry: git keeps 3.
        assert!(cached_tree(&read()).is_some());
        git(root, &["rm", "-q", "--cached", "later.rs"]);
        // A path longer than the 12 bits of an entry's name length (which
        // libgit2 refuses to read), in each version: read past.
        let long = format!("{}/long.rs", vec!["x".repeat(200); 24].join("/"));
        let blob = repo.blob(b"fn long() {}\n").unwrap().to_string();
        let info = format!("100644,{blob},{long}");
        git(root, &["update-index", "--add", "--cacheinfo", &info]);
        git(root, &["write-tree"]);
        for version in ["2", "4", "3"] {
            git(root, &["update-index", "--index-version", version]);
            let top = cached_tree(&read()).expect(version);
            let names: Vec<&str> = top.children.iter().map(|c| c.path.as_str()).collect();
            assert!(names.contains(&"x".repeat(200).as_str()), "{version}");
        }
        git(root, &["rm", "-q", "--cached", &long]);
        // Truncated: refused.
        let bytes = read();
        assert_eq!(cached_tree(&bytes[..bytes.len() / 2]), None);
        // Changed on the disk after libgit2 read it: refused.
        let tree = repo
            .revparse_single("main")
            .unwrap()
            .peel_to_tree()
            .unwrap();
        let mut index = repo.index().unwrap();
        index.read(true).unwrap();
        let entries: Vec<_> = index.iter().collect();
        write(root, "another.rs", "fn another() {}\n");
        git(root, &["add", "another.rs"]);
        assert_eq!(staged_paths(&repo, Some(&tree), &index, &entries), None);
        // An extension git does not know: optional when its name starts
        // with an uppercase letter, else required, and refused.
        let with_extension = |name: &[u8; 4]| {
            let bytes = read();
            let (body, sum) = bytes.split_at(bytes.len() - 20);
            [body, name.as_slice(), &[0, 0, 0, 0], sum].concat()
        };
        assert!(cached_tree(&with_extension(b"Zzzz")).is_some());
        for name in [b"zzzz", b"1zzz", b"_zzz"] {
            assert_eq!(cached_tree(&with_extension(name)), None);
        }
        // A split index (a required `link` extension): refused.
        git(root, &["update-index", "--split-index"]);
        assert_eq!(cached_tree(&read()), None);
        git(root, &["update-index", "--no-split-index"]);
        assert!(cached_tree(&read()).is_some());
        // A checksum of zeros (`index.skipHash`): left to libgit2.
        let mut bytes = read();
        let n = bytes.len();
        bytes[n - 20..].fill(0);
        std::fs::write(root.join(".git/index"), &bytes).unwrap();
        let mut index = repo.index().unwrap();
        index.read(true).unwrap();
        let entries: Vec<_> = index.iter().collect();
        assert_eq!(staged_paths(&repo, Some(&tree), &index, &entries), None);
    }
}
