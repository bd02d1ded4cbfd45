//! What the git index says beyond a diff: the skip-worktree entries (their
//! paths, hashes and content), the cache files git tracks, the entries of a
//! scope, and a quick scan of the raw index for a name.

use super::*;

impl GitRepo {
    /// The paths within `scope` that the index marks skip-worktree. An
    /// index of version 2 holds no such flag, which is the common case and
    /// costs nothing; otherwise the entries below each prefix are read.
    pub(super) fn skip_worktree_in(&self, scope: &Scope) -> Result<Vec<String>, ChangeError> {
        let index = self.repo.index()?;
        if index.version() < 3 {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        let take = |entry: git2::IndexEntry| {
            if entry.flags_extended & SKIP_WORKTREE != 0
                && let Ok(path) = String::from_utf8(entry.path)
                && scope.contains(&path)
            {
                out.push(path);
            }
        };
        index_entries_in(&index, scope).for_each(take);
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
    pub(super) fn use_index_for_skip_worktree<'r>(
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

    /// What git tracks of notarai's cache (in the index): the paths below
    /// the cache folder, and a gitlink (a submodule, another repository)
    /// at the cache folder or at the spec folder above it. A cache that
    /// came with the repository, or that another repository delivers, is
    /// not trusted.
    pub fn tracked_cache_files(&self) -> Vec<String> {
        // A gitlink at `.notarai` is the path `.notarai` alone: a v2 or v3
        // index stores it with its terminating NUL.
        // The entries themselves, walked without libgit2's full read (and
        // kept while the index is unchanged): a scan for `.notarai\0` alone
        // would also find the cached-tree extension of any index that
        // tracks the spec folder.
        let index_file = self.repo.path().join("index");
        if let Some(found) =
            self.kept_by_index(&self.cache_entries, || raw_cache_entries(&index_file))
        {
            return found;
        }
        let at_spec_dir = [SPEC_DIR.as_bytes(), b"\0"].concat();
        if !self.index_may_hold(CACHE_DIR.as_bytes()) && !self.index_may_hold(&at_spec_dir) {
            return Vec::new();
        }
        let Ok(index) = self.repo.index() else {
            return Vec::new();
        };
        let mut out: Vec<String> = [SPEC_DIR, CACHE_DIR]
            .into_iter()
            .filter(|dir| {
                index
                    .get_path(Path::new(dir), 0)
                    .is_some_and(|e| e.mode == GITLINK)
            })
            .map(str::to_string)
            .collect();
        let prefix = format!("{CACHE_DIR}/");
        let below = Scope::Prefixes(vec![prefix.clone()]);
        out.extend(
            index_entries_in(&index, &below).map(|e| String::from_utf8_lossy(&e.path).into_owned()),
        );
        out
    }

    /// Whether the index may hold a path containing `needle`, from its raw
    /// bytes: versions 2 and 3 store every path whole, so when neither the
    /// index file nor a shared index of a split index contains the bytes,
    /// no entry does. Much cheaper than libgit2's full read, which checks
    /// the SHA-1 of the whole file (git does not on reads): the server's
    /// `initialize` asks this before anything else needs the index.
    /// The answer is kept with the index file's stamp, so a question asked
    /// again costs one `stat` while the index is unchanged.
    pub(super) fn index_may_hold(&self, needle: &[u8]) -> bool {
        let git_dir = self.repo.path();
        let Some(stamp) = crate::watch::stamp(&git_dir.join("index")) else {
            return true;
        };
        let mut kept = self.index_scan.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, answers)) = &*kept
            && *at == stamp
            && let Some((_, holds)) = answers.iter().find(|(n, _)| n == needle)
        {
            return *holds;
        }
        let holds = scan_index(git_dir, needle);
        // Kept only if the index did not change while it was read.
        if crate::watch::stamp(&git_dir.join("index")) == Some(stamp) {
            match &mut *kept {
                Some((at, answers)) if *at == stamp => answers.push((needle.to_vec(), holds)),
                _ => *kept = Some((stamp, vec![(needle.to_vec(), holds)])),
            }
        }
        holds
    }
}

/// The index's symbolic links, `(path, link text)`, with the index file's
/// stamp they were read at.
pub(super) type TrackedLinks = (crate::watch::Stamp, std::sync::Arc<Vec<(String, String)>>);

/// The cache's entries from the raw index (`None`: an index the raw walk
/// leaves to libgit2), with the index file's stamp they were read at.
pub(super) type CacheEntries = (crate::watch::Stamp, Option<Vec<String>>);

impl GitRepo {
    /// Every symbolic link git's index tracks, as its path and the text it
    /// holds (names or texts that are not UTF-8 left out). Kept with the
    /// index file's stamp (a rewritten index is a new file: another inode),
    /// so a question asked again while the index is unchanged costs one
    /// `stat`, not a read of the whole index.
    pub fn tracked_links(&self) -> std::sync::Arc<Vec<(String, String)>> {
        self.kept_by_index(&self.links, || {
            let Ok(index) = self.repo.index() else {
                return Default::default();
            };
            std::sync::Arc::new(
                index
                    .iter()
                    .filter(|e| e.mode == 0o120000)
                    .filter_map(|e| {
                        let link = String::from_utf8(e.path.clone()).ok()?;
                        let blob = self.repo.find_blob(e.id).ok()?;
                        let text = std::str::from_utf8(blob.content()).ok()?.to_string();
                        Some((link, text))
                    })
                    .collect(),
            )
        })
    }

    /// What `compute` finds in the index, kept in `slot` with the index
    /// file's stamp (a rewritten index is a new file: another inode), so
    /// asking again while the index is unchanged costs one `stat`. Kept
    /// only if the index did not change while it was computed.
    fn kept_by_index<T: Clone>(
        &self,
        slot: &std::sync::Mutex<Option<(crate::watch::Stamp, T)>>,
        compute: impl FnOnce() -> T,
    ) -> T {
        let index = self.repo.path().join("index");
        let at = crate::watch::stamp(&index);
        let mut kept = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let (Some(at), Some((then, value))) = (&at, &*kept)
            && at == then
        {
            return value.clone();
        }
        let value = compute();
        if let Some(at) = at
            && crate::watch::stamp(&index) == Some(at)
        {
            *kept = Some((at, value.clone()));
        }
        value
    }
}

/// [`GitRepo::tracked_cache_files`] from the raw entries of an index of
/// version 2 or 3 with no shared index (git's index format: a 12-byte
/// header, then each entry's 62 bytes of stat data, hash and flags, two
/// more bytes of extended flags when flagged, its path and 1 to 8 NULs up
/// to a multiple of 8). `None` for anything else (version 4, a split
/// index, a file that does not read as that format): libgit2 reads it.
fn raw_cache_entries(index: &Path) -> Option<Vec<String>> {
    let bytes = crate::safe_fs::read_bounded(index, 1 << 30).ok()?;
    if bytes.len() < 12 || &bytes[..4] != b"DIRC" {
        return None;
    }
    let version = u32::from_be_bytes(bytes[4..8].try_into().ok()?);
    if !matches!(version, 2 | 3) {
        return None;
    }
    let count = u32::from_be_bytes(bytes[8..12].try_into().ok()?) as usize;
    let prefix = format!("{CACHE_DIR}/");
    let mut out = Vec::new();
    let mut at = 12usize;
    for _ in 0..count {
        let fixed = bytes.get(at..at + 62)?;
        let mode = u32::from_be_bytes(fixed[24..28].try_into().ok()?);
        let flags = u16::from_be_bytes(fixed[60..62].try_into().ok()?);
        let start = at + 62 + if flags & 0x4000 != 0 { 2 } else { 0 };
        let len = bytes.get(start..)?.iter().position(|&b| b == 0)?;
        let path = &bytes[start..start + len];
        let entry_len = start - at + len;
        at += (entry_len + 8) & !7;
        if path.starts_with(prefix.as_bytes())
            || (mode == GITLINK && (path == SPEC_DIR.as_bytes() || path == CACHE_DIR.as_bytes()))
        {
            out.push(String::from_utf8_lossy(path).into_owned());
        }
    }
    // A shared index (`link`) holds entries this file does not.
    let mut ext = at;
    while ext + 8 <= bytes.len().saturating_sub(20) {
        let size = u32::from_be_bytes(bytes[ext + 4..ext + 8].try_into().ok()?) as usize;
        if &bytes[ext..ext + 4] == b"link" {
            return None;
        }
        ext = ext.checked_add(8 + size)?;
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// The bit of an index entry's extended flags that marks it skip-worktree
/// (outside a sparse checkout, or `git update-index --skip-worktree`).
pub(super) const SKIP_WORKTREE: u16 = 1 << 14;

/// Whether the index (see [`GitRepo::index_may_hold`]) may hold `needle`,
/// read in blocks: true unless it is of version 2 or 3 and neither it nor a
/// shared index of a split index contains the bytes.
pub(super) fn scan_index(git_dir: &Path, needle: &[u8]) -> bool {
    use std::io::Read;
    let finder = memchr::memmem::Finder::new(needle);
    // Blocks overlap by the needle's length less one, so no match is split.
    let holds = |path: &Path, check_header: bool| -> Option<bool> {
        let mut file = crate::safe_fs::open_regular(path).ok()?;
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
    crate::walk::entries(git_dir, "", 1).iter().any(|entry| {
        entry.rel.starts_with("sharedindex.") && holds(&entry.path, false) != Some(false)
    })
}

/// See [`GitRepo::index_may_hold`].
/// The index file's stamp and, for each needle asked, whether it may hold it.
pub(super) type IndexScan = (crate::watch::Stamp, Vec<(Vec<u8>, bool)>);

/// Whether libgit2 sorts and searches `index` without case (it took
/// `core.ignorecase` from its repository when it read it): its prefix
/// search is then no way to find every entry below a prefix.
pub(in crate::changes) fn index_ignores_case(index: &git2::Index) -> bool {
    unsafe extern "C" {
        fn git_index_caps(index: *const std::ffi::c_void) -> std::ffi::c_int;
    }
    /// `GIT_INDEX_CAPABILITY_IGNORE_CASE` (`git2/index.h`).
    const IGNORE_CASE: std::ffi::c_int = 1;
    let raw = git2::Binding::raw(index)
        .cast::<std::ffi::c_void>()
        .cast_const();
    // SAFETY: `raw` is the live index `index` borrows; `git_index_caps`
    // only reads its flags.
    unsafe { git_index_caps(raw) & IGNORE_CASE != 0 }
}

/// The mode of a gitlink entry (a submodule's commit).
const GITLINK: u32 = 0o160000;

/// The paths of the index entries within `scope` (names that are not
/// UTF-8 are left out).
pub(super) fn index_paths(index: &git2::Index, scope: &Scope) -> Vec<String> {
    index_entries_in(index, scope)
        .filter_map(|entry| String::from_utf8(entry.path).ok())
        .filter(|path| scope.contains(path))
        .collect()
}

/// Every index entry within `scope`, in index order: all of them for
/// [`Scope::Everything`], else only the run below each prefix (entries are
/// sorted by path, so a prefix's entries are found without a full scan).
/// An index that sorts without case (`core.ignorecase`) interleaves `src/A`
/// with `src/a/x`, and libgit2's prefix search then misses entries: it is
/// read whole, each entry tested.
pub(super) fn index_entries_in<'i>(
    index: &'i git2::Index,
    scope: &'i Scope,
) -> Box<dyn Iterator<Item = git2::IndexEntry> + 'i> {
    match scope {
        Scope::Everything => Box::new(index.iter()),
        Scope::Prefixes(prefixes) if index_ignores_case(index) => Box::new(
            index
                .iter()
                .filter(|e| prefixes.iter().any(|p| e.path.starts_with(p.as_bytes()))),
        ),
        Scope::Prefixes(prefixes) => Box::new(prefixes.iter().flat_map(move |prefix| {
            let start = index.find_prefix(prefix.as_str()).unwrap_or(index.len());
            (start..index.len())
                .map_while(|i| index.get(i))
                .take_while(move |e| e.path.starts_with(prefix.as_bytes()))
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::{raw_cache_entries, scan_index};

    /// `git` in `dir`, asserting it succeeds.
    fn git(dir: &std::path::Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    /// The raw walk of the entries answers as libgit2's read does, on
    /// indexes git itself writes: version 2 with the cached-tree
    /// extension naming `.notarai`, a tracked cache file, version 3 with
    /// an extended flag (intent to add), and a version 4 it leaves alone.
    #[test]
    fn the_raw_entry_walk_finds_the_cache_files_libgit2_finds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        for (rel, text) in [
            (".notarai/a.spec.yaml", "x"),
            ("src/a.rs", "fn a() {}"),
            ("src/b/c.rs", "fn c() {}"),
        ] {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        git(root, &["add", "-A"]);
        git(
            root,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qm",
                "x",
            ],
        );
        let index = root.join(".git/index");
        // The cached tree names `.notarai`, no entry is the cache's.
        assert_eq!(raw_cache_entries(&index), Some(Vec::new()));
        std::fs::create_dir_all(root.join(".notarai/.cache")).unwrap();
        std::fs::write(root.join(".notarai/.cache/notarai.db"), "db").unwrap();
        git(root, &["add", "-f", ".notarai/.cache/notarai.db"]);
        let want = vec![".notarai/.cache/notarai.db".to_string()];
        assert_eq!(raw_cache_entries(&index), Some(want.clone()));
        // Version 3: an intent-to-add entry carries extended flags.
        std::fs::write(root.join("src/new.rs"), "fn n() {}").unwrap();
        git(root, &["add", "-N", "src/new.rs"]);
        let bytes = std::fs::read(&index).unwrap();
        assert_eq!(u32::from_be_bytes(bytes[4..8].try_into().unwrap()), 3);
        assert_eq!(raw_cache_entries(&index), Some(want));
        // Version 4 is libgit2's to read.
        git(root, &["update-index", "--index-version", "4"]);
        assert_eq!(raw_cache_entries(&index), None);
    }

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
