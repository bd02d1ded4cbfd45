//! BLAKE3 content hashes of files, streamed and in parallel.
//!
//! A file is read in fixed-size chunks, never whole, so a 1 GB file costs a
//! buffer, not a gigabyte. A symbolic link is hashed as its target text, the
//! way git stores it, and is never followed: hashing cannot read outside the
//! repository through a link.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

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
    let file = File::open(path)?;
    Ok(FileHash::Content(hash_reader(file)?))
}

/// Hash everything `reader` yields, streaming through a 64 KiB buffer.
pub fn hash_reader(mut reader: impl Read) -> io::Result<String> {
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
    fn streams_large_input() {
        let data = vec![7u8; 3 * 64 * 1024 + 17];
        assert_eq!(
            hash_reader(&data[..]).unwrap(),
            blake3::hash(&data).to_hex().to_string()
        );
    }
}
