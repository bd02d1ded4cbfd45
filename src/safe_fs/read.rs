//! The one bounded reader (see the module header of [`super`]).

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};

use super::guard::{canonical_root, crosses_link, relative_to, resolve_inside};
use super::{FsError, io_err, kind_name};

/// Check that `path` (relative to `root`, or absolute below it) can be read
/// safely: it exists, is a regular file or a link to one inside the root,
/// and is at most `limit` bytes. The path to open (the link resolved) and
/// the file's size.
pub fn check_readable(root: &Path, path: &Path, limit: u64) -> Result<(PathBuf, u64), FsError> {
    if let Some(found) = regular_without_links(root, path, limit) {
        return found;
    }
    let root_canonical = canonical_root(root)?;
    let rel = relative_to(root, &root_canonical, path)?;
    let full = root_canonical.join(&rel);
    let meta = fs::symlink_metadata(&full).map_err(io_err(&full))?;
    // A link, or a path through a linked folder, must resolve inside the root.
    let resolved = resolve_inside(&root_canonical, &full)?;
    let meta = if meta.file_type().is_symlink() {
        fs::symlink_metadata(&resolved).map_err(io_err(&resolved))?
    } else {
        meta
    };
    if !meta.is_file() {
        return Err(FsError::NotRegular {
            path: full,
            kind: kind_name(meta.file_type()),
        });
    }
    if meta.len() > limit {
        return Err(FsError::TooLarge { path: full, limit });
    }
    Ok((resolved, meta.len()))
}

/// [`check_readable`]'s answer without resolving a path, for the common
/// case: `path` names a regular file inside `root` (no `..`, not an
/// absolute path elsewhere) reached through real folders
/// ([`crosses_link`]), so there is no link to resolve and what is opened
/// lies inside the root. `None` for anything else (a link on the way or at
/// the end, a folder, a missing file): the resolving checks decide. The
/// `canonicalize` of the root and of the path cost about ten system calls
/// a file.
fn regular_without_links(
    root: &Path,
    path: &Path,
    limit: u64,
) -> Option<Result<(PathBuf, u64), FsError>> {
    let (full, Some(meta)) = through_real_folders(root, path).ok()? else {
        return None;
    };
    if !meta.file_type().is_file() {
        return None;
    }
    if meta.len() > limit {
        return Some(Err(FsError::TooLarge { path: full, limit }));
    }
    Some(Ok((full, meta.len())))
}

/// `path` below `root` without resolving it: refused when it leaves the
/// root (`..`, an absolute path elsewhere: [`relative_to`]); else its full
/// path and, when every folder on the way from the root is a real folder
/// ([`crosses_link`]), its own `lstat`. Nothing on the way is a link then,
/// so what the path names lies inside the root.
fn through_real_folders(
    root: &Path,
    path: &Path,
) -> Result<(PathBuf, Option<fs::Metadata>), FsError> {
    let rel = relative_to(root, root, path)?;
    let full = root.join(&rel);
    if rel.to_str().is_none_or(|text| crosses_link(root, text)) {
        return Ok((full, None));
    }
    let meta = fs::symlink_metadata(&full).map_err(io_err(&full))?;
    Ok((full, Some(meta)))
}

/// Read at most `limit` bytes of the regular file `path` (relative to
/// `root`, or absolute below it), as the module header describes.
pub fn read(root: &Path, path: &Path, limit: u64) -> Result<Vec<u8>, FsError> {
    let (resolved, _) = check_readable(root, path, limit)?;
    read_bounded(&resolved, limit)
}

/// Read the regular file at `path` (already looked at, or a file of the
/// user's outside any repository: an agent's user settings) through
/// [`open_regular`], refusing it when it holds more than `limit` bytes:
/// never more than `limit + 1` bytes are read, whatever the file's size.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, FsError> {
    let file = open_regular(path)?;
    let len = file.metadata().map_or(0, |m| m.len());
    if len > limit {
        return Err(FsError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(io_err(path))?;
    if bytes.len() as u64 > limit {
        return Err(FsError::TooLarge {
            path: path.to_path_buf(),
            limit,
        });
    }
    Ok(bytes)
}

/// Read at most `limit` bytes of one of notarai's own files, `rel`
/// (relative to `root`, forward slashes: the session memory, the kept
/// index and load status), never through a link: the file and every folder
/// on the way from the root must be real (a link is refused wherever it
/// leads, inside the root too: what notarai keeps is never a file the
/// repository can point it at), and only a regular file is opened.
pub fn read_own(root: &Path, rel: &Path, limit: u64) -> Result<Vec<u8>, FsError> {
    let path = root.join(rel);
    let text = rel.to_string_lossy();
    if rel.is_absolute() || crosses_link(root, &text) {
        return Err(FsError::LinkOutside { path });
    }
    let meta = fs::symlink_metadata(&path).map_err(io_err(&path))?;
    if meta.file_type().is_symlink() {
        let target = fs::read_link(&path).unwrap_or_default();
        return Err(FsError::Link { path, target });
    }
    if !meta.is_file() {
        return Err(FsError::NotRegular {
            kind: kind_name(meta.file_type()),
            path,
        });
    }
    read_bounded(&path, limit)
}

/// The content of `rel` (relative to `root`, forward slashes) as git stores
/// it, never following a link: a symbolic link is its target text (never
/// what it points to, which may lie outside the repository), a regular
/// file its bytes (at most `limit`, as [`read`]). A path through a linked
/// folder ([`crosses_link`]) is [`FsError::NotFound`]: git sees nothing
/// there either.
///
/// The checks are [`read`]'s, made without resolving a path
/// ([`through_real_folders`]), and the file is opened without following a
/// link ([`open_regular`]), so what is read lies inside the root. (A
/// `canonicalize` of the root and of the path, as [`read`] makes, cost
/// eleven more system calls a file: most of `mark_reconciled`'s time on
/// 10,000 files.)
pub fn read_unfollowed(root: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, FsError> {
    let (path, Some(meta)) = through_real_folders(root, Path::new(rel))? else {
        return Err(FsError::NotFound {
            path: root.join(rel),
        });
    };
    if meta.file_type().is_symlink() {
        let target = fs::read_link(&path).map_err(io_err(&path))?;
        return Ok(target.as_os_str().as_encoded_bytes().to_vec());
    }
    if !meta.is_file() {
        return Err(FsError::NotRegular {
            path,
            kind: kind_name(meta.file_type()),
        });
    }
    read_bounded(&path, limit)
}

/// The first `n` bytes (or fewer) of the regular file `path`, whatever its
/// size, with the checks of [`read`]: enough to sniff a header or a marker.
pub fn read_prefix(root: &Path, path: &Path, n: u64) -> Result<Vec<u8>, FsError> {
    let (resolved, len) = check_readable(root, path, u64::MAX)?;
    let file = open_regular(&resolved)?;
    let mut bytes = Vec::with_capacity(len.min(n) as usize);
    file.take(n)
        .read_to_end(&mut bytes)
        .map_err(io_err(&resolved))?;
    Ok(bytes)
}

/// Open `path` for reading without following a link and without blocking
/// on a FIFO, and require a regular file (checked on the open descriptor).
pub fn open_regular(path: &Path) -> Result<File, FsError> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    let file = options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return FsError::LinkOutside {
                path: path.to_path_buf(),
            };
        }
        io_err(path)(e)
    })?;
    let meta = file.metadata().map_err(io_err(path))?;
    if !meta.is_file() {
        return Err(FsError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_name(meta.file_type()),
        });
    }
    Ok(file)
}

/// The kind of the entry at `path` when it exists and is not a regular file
/// (links not followed): `Some("FIFO")`, `Some("folder")`, ...
pub fn irregular_kind(path: &Path) -> Option<&'static str> {
    let meta = fs::symlink_metadata(path).ok()?;
    (!meta.is_file()).then(|| kind_name(meta.file_type()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::safe_fs::write_file;

    #[cfg(unix)]
    #[test]
    fn links_out_of_the_root_are_refused_for_reads_and_writes() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("folder")).unwrap();
        for name in ["out", "folder/victim"] {
            let err = write_file(dir.path(), Path::new(name), b"bad").unwrap_err();
            assert!(
                matches!(err, FsError::LinkOutside { .. } | FsError::Link { .. }),
                "{name}: {err}"
            );
            let err = read(dir.path(), Path::new(name), 100).unwrap_err();
            assert!(matches!(err, FsError::LinkOutside { .. }), "{name}: {err}");
        }
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        // A link inside the root is read through but never written through.
        fs::write(dir.path().join("real.md"), "old").unwrap();
        std::os::unix::fs::symlink("real.md", dir.path().join("CLAUDE.md")).unwrap();
        let err = write_file(dir.path(), Path::new("CLAUDE.md"), b"new").unwrap_err();
        assert!(matches!(err, FsError::Link { .. }), "{err}");
        assert_eq!(
            fs::read_to_string(dir.path().join("real.md")).unwrap(),
            "old"
        );
        assert_eq!(read(dir.path(), Path::new("CLAUDE.md"), 3).unwrap(), b"old");
        // Through a linked folder inside the root: read; out by `..` or an
        // absolute path: refused, whichever way the path is checked.
        fs::create_dir(dir.path().join("inner")).unwrap();
        fs::write(dir.path().join("inner/x.md"), "inner").unwrap();
        std::os::unix::fs::symlink("inner", dir.path().join("alias")).unwrap();
        assert_eq!(
            read(dir.path(), Path::new("alias/x.md"), 9).unwrap(),
            b"inner"
        );
        assert_eq!(
            read(dir.path(), Path::new("inner/x.md"), 9).unwrap(),
            b"inner"
        );
        let name = outside.path().file_name().unwrap().to_str().unwrap();
        for escape in [
            format!("../{name}/victim"),
            victim.to_str().unwrap().to_string(),
        ] {
            let err = read(dir.path(), Path::new(&escape), 100).unwrap_err();
            assert!(
                matches!(err, FsError::OutsideRoot { .. }),
                "{escape}: {err}"
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn read_refuses_fifos_and_large_files_without_opening_them() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let err = read(dir.path(), Path::new("pipe"), 100).unwrap_err();
        assert!(
            matches!(err, FsError::NotRegular { kind: "FIFO", .. }),
            "{err}"
        );
        assert!(matches!(
            open_regular(&fifo),
            Err(FsError::NotRegular { .. })
        ));
        fs::write(dir.path().join("big"), vec![b'x'; 101]).unwrap();
        let err = read(dir.path(), Path::new("big"), 100).unwrap_err();
        assert!(matches!(err, FsError::TooLarge { .. }), "{err}");
        assert_eq!(read(dir.path(), Path::new("big"), 101).unwrap().len(), 101);
    }

    #[cfg(unix)]
    #[test]
    fn own_files_are_never_read_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("real")).unwrap();
        fs::write(root.join("real/own"), "mine").unwrap();
        std::os::unix::fs::symlink("real", root.join("linked")).unwrap();
        std::os::unix::fs::symlink("real/own", root.join("link")).unwrap();
        assert_eq!(read_own(root, Path::new("real/own"), 10).unwrap(), b"mine");
        for rel in ["linked/own", "link"] {
            let err = read_own(root, Path::new(rel), 10).unwrap_err();
            assert!(
                matches!(err, FsError::Link { .. } | FsError::LinkOutside { .. }),
                "{rel}: {err}"
            );
        }
        assert!(matches!(
            read_own(root, Path::new("real"), 10),
            Err(FsError::NotRegular { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn unfollowed_reads_see_what_git_stores() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::write(outside.path().join("secret"), "secret").unwrap();
        fs::write(root.join("file"), "mine").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("folder")).unwrap();
        assert_eq!(read_unfollowed(root, "file", 10).unwrap(), b"mine");
        let target = outside.path().join("secret");
        assert_eq!(
            read_unfollowed(root, "link", 10).unwrap(),
            target.as_os_str().as_encoded_bytes()
        );
        assert!(matches!(
            read_unfollowed(root, "folder/secret", 10),
            Err(FsError::NotFound { .. })
        ));
        assert!(matches!(
            read_unfollowed(root, "file", 3),
            Err(FsError::TooLarge { .. })
        ));
        // Never out of the root by `..` or an absolute path.
        let name = outside.path().file_name().unwrap().to_str().unwrap();
        for escape in [
            format!("../{name}/secret"),
            format!("./../{name}/secret"),
            target.to_str().unwrap().to_string(),
        ] {
            assert!(
                matches!(
                    read_unfollowed(root, &escape, 10),
                    Err(FsError::OutsideRoot { .. })
                ),
                "{escape}"
            );
        }
        fs::create_dir(root.join("sub")).unwrap();
        assert!(matches!(
            read_unfollowed(root, "sub", 10),
            Err(FsError::NotRegular { .. })
        ));
        assert!(matches!(
            read_bounded(&root.join("file"), 3),
            Err(FsError::TooLarge { .. })
        ));
    }
}
