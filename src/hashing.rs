//! BLAKE3 content hashes of files, streamed and in parallel.
//!
//! A file is read in fixed-size chunks, never whole, so a 1 GB file costs a
//! buffer, not a gigabyte. A symbolic link is hashed as its target text, the
//! way git stores it, and is never followed: hashing cannot read outside the
//! repository through a link. A path whose folders include a symbolic link
//! (a tracked folder replaced by a link) is not there as far as git is
//! concerned, and is [`FileHash::Missing`] here, never opened.
//!
//! Nothing reads more than [`MAX_HASHED`] bytes of one file: a larger file is
//! identified by its size and modification time instead of its content.

use std::collections::HashMap;
use std::io::{self, Read};
use std::path::Path;

use crate::progress::{Cancelled, Progress};

/// The largest file whose content is hashed (also the per-file diff limit,
/// `changes::MAX_DIFF_FILE`).
/// Anything larger is identified as `large:<bytes>:<mtime ns>` without being
/// read: it is too large to review as a diff, so what matters is whether it
/// changed, and reading 20 GB to learn that would stall every answer.
pub const MAX_HASHED: u64 = 8 * 1024 * 1024;

/// The cache value that records "reconciled while deleted".
pub const DELETED: &str = "deleted";

/// What hashing one path found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileHash {
    /// A file (or a symbolic link) and its hex BLAKE3 hash; for a submodule
    /// or nested repository, `commit:` and the commit checked out there.
    Content(String),
    /// Nothing exists at the path.
    Missing,
    /// A plain folder or another non-file: nothing to hash.
    NotAFile,
}

impl FileHash {
    /// The value stored in the cache for this state, if any: the hex hash,
    /// or [`DELETED`] for a missing file.
    pub fn cache_value(&self) -> Option<&str> {
        match self {
            FileHash::Content(h) => Some(h),
            FileHash::Missing => Some(DELETED),
            FileHash::NotAFile => None,
        }
    }
}

/// Hash the file at `path` without following a final symbolic link.
pub fn hash_path(path: &Path) -> io::Result<FileHash> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(FileHash::Missing),
        Err(e) if e.raw_os_error() == Some(20) => return Ok(FileHash::Missing), // ENOTDIR
        Err(e) => return Err(e),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        let target = std::fs::read_link(path)?;
        let hash = blake3::hash(target.as_os_str().as_encoded_bytes());
        return Ok(FileHash::Content(hash.to_hex().to_string()));
    }
    if kind.is_dir() {
        // A submodule or a nested repository: git records its commit, so
        // its state is the commit checked out there.
        return Ok(
            match git2::Repository::open(path)
                .ok()
                .and_then(|r| r.head().ok()?.target())
            {
                Some(commit) => FileHash::Content(format!("commit:{commit}")),
                None => FileHash::NotAFile,
            },
        );
    }
    if !kind.is_file() {
        return Ok(FileHash::NotAFile);
    }
    if meta.len() > MAX_HASHED {
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        return Ok(FileHash::Content(format!(
            "large:{}:{modified}",
            meta.len()
        )));
    }
    // Opened without following a link and without blocking on a FIFO
    // swapped in since the look above, and required regular on the handle.
    let file = crate::safe_fs::open_regular(path).map_err(io::Error::other)?;
    // Never more than the size seen above, even if the file grows meanwhile.
    Ok(FileHash::Content(hash_reader(file.take(MAX_HASHED))?))
}

/// Hash many paths relative to `root` (as git names them), in parallel,
/// in input order. A path whose folders cross a symbolic link is
/// [`FileHash::Missing`] and never opened; each folder is checked once.
pub fn hash_many_in<S: AsRef<str> + Sync>(root: &Path, rels: &[S]) -> Vec<io::Result<FileHash>> {
    hash_many_tracked(root, rels, &Progress::none())
}

/// [`hash_many_in`], advancing `progress` by one per path hashed. Once the
/// work is cancelled the paths not hashed yet are not opened: their result
/// is an error, and the caller asks [`Progress::check`] first.
pub fn hash_many_tracked<S: AsRef<str> + Sync>(
    root: &Path,
    rels: &[S],
    progress: &Progress,
) -> Vec<io::Result<FileHash>> {
    // Whether each folder prefix is a real folder reached through real folders.
    let mut real: HashMap<&str, bool> = HashMap::new();
    let mut blocked = Vec::with_capacity(rels.len());
    for rel in rels {
        let rel = rel.as_ref();
        let mut ok = true;
        let mut end = 0;
        while let Some(i) = rel[end..].find('/').map(|i| end + i) {
            let prefix = &rel[..i];
            let here = *real.entry(prefix).or_insert_with(|| {
                !std::fs::symlink_metadata(root.join(prefix)).is_ok_and(|m| !m.is_dir())
            });
            if !here {
                ok = false;
                break;
            }
            end = i + 1;
        }
        blocked.push(!ok);
    }
    let jobs: Vec<(std::path::PathBuf, bool)> = rels
        .iter()
        .zip(blocked)
        .map(|(rel, blocked)| (root.join(rel.as_ref()), blocked))
        .collect();
    crate::parallel::map(
        &jobs,
        64,
        |(path, blocked)| {
            if progress.is_cancelled() {
                return Err(io::Error::new(io::ErrorKind::Interrupted, Cancelled));
            }
            let hash = if *blocked {
                Ok(FileHash::Missing)
            } else {
                hash_path(path)
            };
            progress.advance(1);
            hash
        },
        |(path, _)| {
            Err(io::Error::other(format!(
                "hashing {} failed unexpectedly",
                path.display()
            )))
        },
    )
}

/// Hash everything `reader` yields, streaming through a 64 KiB buffer.
fn hash_reader(mut reader: impl Read) -> io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                hasher.update(&buf[..n]);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(hasher.finalize().to_hex().to_string())
}

/// Hash many paths on all cores; results come back in input order.
pub fn hash_many<P: AsRef<Path> + Sync>(paths: &[P]) -> Vec<io::Result<FileHash>> {
    crate::parallel::map(
        paths,
        64,
        |p| hash_path(p.as_ref()),
        |p| {
            Err(io::Error::other(format!(
                "hashing {} failed unexpectedly",
                p.as_ref().display()
            )))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_files_links_and_missing() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, b"hello").unwrap();
        assert_eq!(
            hash_path(&f).unwrap(),
            FileHash::Content(blake3::hash(b"hello").to_hex().to_string())
        );
        assert_eq!(
            hash_path(&dir.path().join("nope")).unwrap(),
            FileHash::Missing
        );
        assert_eq!(
            hash_path(&f.join("below-a-file")).unwrap(),
            FileHash::Missing
        );
        assert_eq!(hash_path(dir.path()).unwrap(), FileHash::NotAFile);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink("/etc/hostname", &link).unwrap();
        assert_eq!(
            hash_path(&link).unwrap(),
            FileHash::Content(blake3::hash(b"/etc/hostname").to_hex().to_string())
        );
        let many: Vec<_> = (0..100).map(|_| f.clone()).collect();
        assert!(
            hash_many(&many)
                .iter()
                .all(|h| h.as_ref().unwrap() == &hash_path(&f).unwrap())
        );
    }

    #[test]
    fn linked_folders_are_never_crossed_and_large_files_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("a.rs"), "secret").unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "mine").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("docs")).unwrap();
        assert!(crate::safe_fs::crosses_link(dir.path(), "docs/a.rs"));
        assert!(!crate::safe_fs::crosses_link(dir.path(), "src/a.rs"));
        assert!(!crate::safe_fs::crosses_link(dir.path(), "gone/a.rs"));
        let got = hash_many_in(dir.path(), &["docs/a.rs", "src/a.rs", "docs"]);
        assert_eq!(got[0].as_ref().unwrap(), &FileHash::Missing);
        assert_eq!(
            got[1].as_ref().unwrap(),
            &FileHash::Content(blake3::hash(b"mine").to_hex().to_string())
        );
        assert!(matches!(got[2].as_ref().unwrap(), FileHash::Content(_)));
        let big = dir.path().join("big");
        let sparse = std::fs::File::create(&big).unwrap();
        sparse.set_len(MAX_HASHED + 1).unwrap();
        let FileHash::Content(value) = hash_path(&big).unwrap() else {
            panic!("a large file has a value");
        };
        assert!(
            value.starts_with(&format!("large:{}:", MAX_HASHED + 1)),
            "{value}"
        );
    }

    #[test]
    fn streams_large_input() {
        let data = vec![7u8; 3 * 64 * 1024 + 17];
        assert_eq!(
            hash_reader(&data[..]).unwrap(),
            blake3::hash(&data).to_hex().to_string()
        );
    }
}
