//! The one folder walker. Every place that lists the files below a folder
//! (spec discovery, the file list outside git, `validate DIR`, `init`'s look
//! at the root, the folders the warm server watches, the git folder's
//! shared index files, the work-tree scan's one folder at a time) goes
//! through here; all but [`OpenFolder`] skip the same things:
//!
//! - a folder named `.git` (git's own data, at any depth);
//! - notarai's cache folder (a `.cache` folder directly inside `.notarai`);
//! - symbolic links to folders, which are never followed (a link is reported
//!   as an entry of kind [`Kind::Symlink`], whatever it points at), so a
//!   repository cannot lead the walk outside itself or into a loop;
//! - names that are not UTF-8 (notarai names files with `String`s).
//!
//! What git ignores is not decided here: inside a git work tree the file list
//! comes from git itself (`changes::GitRepo::files`), and the walker is the
//! fallback for folders git does not know. A leaf module: it imports only
//! [`crate::layout`].

use std::path::{Path, PathBuf};

use crate::layout::{CACHE_DIR, GIT_DIR, SPEC_DIR};

/// What a walked entry is, as `lstat` sees it (links not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A regular file.
    File,
    /// A symbolic link (to anything); never followed by the walker.
    Symlink,
    /// A folder (only reported when it is not skipped).
    Dir,
    /// A FIFO, socket or device.
    Other,
}

/// One entry found by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its path relative to the walk's base, with forward slashes (prefixed
    /// by the `rel` the walk was given).
    pub rel: String,
    /// Its path on disk.
    pub path: PathBuf,
    /// What it is.
    pub kind: Kind,
}

/// Whether the walker skips the folder `name` inside the folder `parent`
/// (names only): `.git`, and `.cache` inside `.notarai`.
pub fn skips_folder(parent: Option<&str>, name: &str) -> bool {
    let cache = CACHE_DIR.rsplit('/').next().unwrap_or(CACHE_DIR);
    name == GIT_DIR || (name == cache && parent == Some(SPEC_DIR))
}

/// Every entry below `dir` (which is named `rel` relative to the walk's
/// base; `""` for the base itself), down to `max_depth` levels (1: `dir`'s
/// own entries), skipping what the module header lists, sorted by `rel`.
/// Folders are listed too (kind [`Kind::Dir`]); unreadable folders are
/// skipped silently.
pub fn entries(dir: &Path, rel: &str, max_depth: usize) -> Vec<Entry> {
    walk(dir, rel, max_depth, |_| true).entries
}

/// What [`walk`] found.
#[derive(Debug, Default)]
pub struct Listing {
    /// The entries, as in [`entries`].
    pub entries: Vec<Entry>,
    /// Entries skipped because their names are not UTF-8 (their paths).
    pub not_utf8: Vec<PathBuf>,
}

/// [`entries`], going into a folder (below `dir`) only when `descend`
/// says so for its entry (the folder is listed either way), and telling
/// which names it skipped for not being UTF-8.
pub fn walk(
    dir: &Path,
    rel: &str,
    max_depth: usize,
    mut descend: impl FnMut(&Entry) -> bool,
) -> Listing {
    let mut out = Listing::default();
    let mut todo = vec![(dir.to_path_buf(), rel.to_string(), 1usize)];
    while let Some((dir, rel, depth)) = todo.pop() {
        #[allow(clippy::disallowed_methods, reason = "the one walker")]
        let listing = std::fs::read_dir(&dir);
        let Ok(read) = listing else {
            continue;
        };
        let parent = dir.file_name().and_then(|n| n.to_str());
        for entry in read.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                tracing::debug!("skipping a name that is not UTF-8 in {}", dir.display());
                out.not_utf8.push(entry.path());
                continue;
            };
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let child = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let kind = if file_type.is_symlink() {
                Kind::Symlink
            } else if file_type.is_dir() {
                Kind::Dir
            } else if file_type.is_file() {
                Kind::File
            } else {
                Kind::Other
            };
            if kind == Kind::Dir && skips_folder(parent, &name) {
                continue;
            }
            let found = Entry {
                rel: child,
                path: entry.path(),
                kind,
            };
            if kind == Kind::Dir && depth < max_depth && descend(&found) {
                todo.push((found.path.clone(), found.rel.clone(), depth + 1));
            }
            out.entries.push(found);
        }
    }
    out.entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// What `lstat` says of a file, as git's index keeps it.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// Type and permission bits.
    pub mode: u32,
    /// Size in bytes.
    pub size: u64,
    /// Modification time: seconds and nanoseconds.
    pub mtime: (i64, u32),
    /// Status change time: seconds and nanoseconds.
    pub ctime: (i64, u32),
    /// Inode number.
    pub ino: u64,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
}

/// One folder held open, to `lstat` its files by name and list its names:
/// for the work-tree scan (`changes/scan.rs`), which looks at every tracked
/// file from its folder instead of walking its whole path each time, and
/// must see every name git's status sees (a nested `.git`, a name that is
/// not UTF-8): nothing is skipped and every failure is reported.
#[cfg(unix)]
#[derive(Debug)]
pub struct OpenFolder(rustix::fd::OwnedFd);

#[cfg(unix)]
impl OpenFolder {
    /// Open `dir`; with `follow` false, a link there is not followed (an
    /// error instead).
    pub fn open(dir: &Path, follow: bool) -> std::io::Result<OpenFolder> {
        use rustix::fs::{Mode, OFlags};
        let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        if !follow {
            flags |= OFlags::NOFOLLOW;
        }
        Ok(OpenFolder(rustix::fs::open(dir, flags, Mode::empty())?))
    }

    /// The `lstat` of `name` in this folder (a link is not followed).
    #[allow(clippy::unnecessary_cast, reason = "the field types differ by target")]
    pub fn lstat(&self, name: &str) -> std::io::Result<FileStat> {
        let st = rustix::fs::statat(&self.0, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(FileStat {
            mode: st.st_mode as u32,
            size: st.st_size as u64,
            mtime: (st.st_mtime as i64, st.st_mtime_nsec as u32),
            ctime: (st.st_ctime as i64, st.st_ctime_nsec as u32),
            ino: st.st_ino as u64,
            uid: st.st_uid as u32,
            gid: st.st_gid as u32,
        })
    }

    /// Every name in the folder (not `.` and `..`) with what it is, links
    /// not followed.
    pub fn names(self) -> std::io::Result<Vec<(std::ffi::OsString, Kind)>> {
        use std::os::unix::ffi::OsStrExt;
        let mut dir = rustix::fs::Dir::new(self.0)?;
        let mut out = Vec::new();
        while let Some(entry) = dir.read() {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let file_type = match entry.file_type() {
                // Some file systems do not say in the listing.
                rustix::fs::FileType::Unknown => {
                    let flags = rustix::fs::AtFlags::SYMLINK_NOFOLLOW;
                    let st = rustix::fs::statat(dir.fd()?, entry.file_name(), flags)?;
                    rustix::fs::FileType::from_raw_mode(st.st_mode as _)
                }
                known => known,
            };
            let kind = match file_type {
                rustix::fs::FileType::Symlink => Kind::Symlink,
                rustix::fs::FileType::Directory => Kind::Dir,
                rustix::fs::FileType::RegularFile => Kind::File,
                _ => Kind::Other,
            };
            out.push((std::ffi::OsStr::from_bytes(name).to_os_string(), kind));
        }
        Ok(out)
    }
}

/// Every file below `dir` (regular files and symbolic links, which are not
/// followed), repository-relative as in [`entries`], sorted.
pub fn files(dir: &Path, rel: &str) -> Vec<Entry> {
    entries(dir, rel, usize::MAX)
        .into_iter()
        .filter(|e| matches!(e.kind, Kind::File | Kind::Symlink))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_git_cache_and_does_not_follow_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "x").unwrap();
        for d in [".git/objects", ".notarai/.cache", "src/.cache", "src/a"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in [
            ".git/objects/o",
            ".notarai/.cache/notarai.db",
            ".notarai/a.spec.yaml",
            "src/.cache/kept",
            "src/a/b.rs",
        ] {
            std::fs::write(root.join(f), "x").unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(outside.path(), root.join("linked")).unwrap();
        let got: Vec<(String, Kind)> = files(root, "")
            .into_iter()
            .map(|e| (e.rel, e.kind))
            .collect();
        let mut want = vec![
            (".notarai/a.spec.yaml".to_string(), Kind::File),
            ("src/.cache/kept".to_string(), Kind::File),
            ("src/a/b.rs".to_string(), Kind::File),
        ];
        #[cfg(unix)]
        want.push(("linked".to_string(), Kind::Symlink));
        want.sort();
        assert_eq!(got, want);
        let top: Vec<String> = entries(root, "", 1).into_iter().map(|e| e.rel).collect();
        assert!(top.contains(&"src".to_string()) && !top.contains(&"src/a".to_string()));
    }
}
