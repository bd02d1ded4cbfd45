//! The one safe way to write a file and the one bounded way to read a file
//! that came from the repository.
//!
//! A cloned repository is untrusted input: whoever committed it controls the
//! names, kinds and targets of every entry in it, including symbolic links
//! under any name notarai might write, FIFOs where notarai expects a file, and
//! files of any size. This module is where notarai's guarantees are kept:
//!
//! - **Writes** ([`write_file`]) never follow a link out of the repository: the
//!   folder chain below the root is checked once (a linked folder must
//!   resolve inside the root; a missing one is created), the target is
//!   refused when it is a link that resolves outside the root (or nowhere),
//!   and the bytes go to a temporary file with an unpredictable name created
//!   exclusively in the target's folder (`O_CREAT|O_EXCL`, which does not
//!   follow a planted link), synced, then renamed over the target. A crash
//!   leaves the old file or the new one, never half of one (plus, at worst,
//!   a stray `.name.*.notarai.tmp` file).
//! - **Reads** ([`read`]) look before they open: `lstat` first; anything but
//!   a regular file (FIFO, socket, device, folder) is refused and never
//!   opened; a link (or linked folder) resolving outside the root is refused;
//!   the size is checked before reading and no more than the limit is read.
//!   The file is opened with `O_NONBLOCK|O_NOFOLLOW` and checked again with
//!   `fstat`, so swapping it for a FIFO between the look and the open cannot
//!   hang the reader.
//!
//! - **Read-only processes** ([`forbid_writes`]): `notarai mcp --read-only`
//!   turns every write of this module into an error for the rest of the
//!   process, and the SQLite cache and the load-status stamp
//!   ask [`writes_forbidden`] before touching a file.
//!
//! A leaf module: it imports nothing of notarai.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once by a read-only process; never cleared.
static WRITES_FORBIDDEN: AtomicBool = AtomicBool::new(false);

/// Forbid every write of this process from now on (`notarai mcp
/// --read-only`): [`write_file`] and [`rename_aside`] fail, and the modules that
/// write their own files (the SQLite cache, the load-status stamp) check
/// [`writes_forbidden`] first. There is no way back.
pub fn forbid_writes() {
    WRITES_FORBIDDEN.store(true, Ordering::SeqCst);
}

/// Whether this process is read-only ([`forbid_writes`]).
pub fn writes_forbidden() -> bool {
    WRITES_FORBIDDEN.load(Ordering::SeqCst)
}

/// The error of a write refused because the process is read-only.
fn read_only_error(path: &Path) -> FsError {
    FsError::Io {
        path: path.to_path_buf(),
        source: io::Error::new(
            io::ErrorKind::PermissionDenied,
            "this notarai process is read-only (`notarai mcp --read-only`) and writes no file",
        ),
    }
}

/// Why a file could not be read or written safely.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// The path is not inside the repository root.
    #[error("{} is outside the project; notarai only reads and writes files inside it", path.display())]
    OutsideRoot {
        /// The path as given.
        path: PathBuf,
    },
    /// The path, or a folder on the way to it, is a symbolic link that
    /// resolves outside the repository (or to nothing).
    #[error(
        "{} is a symbolic link that leads outside the project (or nowhere); notarai does not follow it (replace the link with the file itself)",
        path.display()
    )]
    LinkOutside {
        /// The link.
        path: PathBuf,
    },
    /// The target of a write or removal is a symbolic link: notarai never
    /// writes through a link, wherever it leads.
    #[error(
        "{} is a symbolic link (to {}); notarai never writes through a link (replace the link with a regular file, or make the change in {} yourself)",
        path.display(),
        target.display(),
        target.display()
    )]
    Link {
        /// The link.
        path: PathBuf,
        /// Where it leads, as written in the link.
        target: PathBuf,
    },
    /// The path lies in the repository's git directory (`.git/`, the common
    /// folder of linked worktrees, a nested repository's): notarai never
    /// writes or deletes there.
    #[error(
        "{} is inside the git directory; notarai never writes or deletes there (a link in the repository may lead there: remove it)",
        path.display()
    )]
    GitDir {
        /// The path.
        path: PathBuf,
    },
    /// The path is not a regular file (a folder, FIFO, socket or device).
    #[error(
        "{} is a {kind}, not a regular file; notarai does not open it (replace it with a file)",
        path.display()
    )]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
    /// Something other than a folder is where a folder must be (or be
    /// created).
    #[error("cannot create folder {}: a {kind} is in the way (move or remove it)", path.display())]
    NotFolder {
        /// The path.
        path: PathBuf,
        /// What is there instead.
        kind: &'static str,
    },
    /// The file is larger than the reader's limit.
    #[error("{} is larger than {limit} bytes, the limit for this file", path.display())]
    TooLarge {
        /// The path.
        path: PathBuf,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The file does not exist.
    #[error("{} does not exist", path.display())]
    NotFound {
        /// The path.
        path: PathBuf,
    },
    /// Any other I/O error.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
}

impl crate::error::Diagnose for FsError {}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> FsError + '_ {
    move |source| {
        if source.kind() == io::ErrorKind::NotFound {
            FsError::NotFound {
                path: path.to_path_buf(),
            }
        } else {
            FsError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    }
}

/// What a file type is, in words, for messages.
fn kind_name(file_type: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "FIFO";
        }
        if file_type.is_socket() {
            return "socket";
        }
        if file_type.is_block_device() || file_type.is_char_device() {
            return "device";
        }
    }
    if file_type.is_dir() {
        "folder"
    } else if file_type.is_symlink() {
        "symbolic link"
    } else if file_type.is_file() {
        "file"
    } else {
        "special file"
    }
}

/// `path` relative to `root` (`root_canonical` is its canonical form):
/// accepted when it is relative, or absolute below either; refused when it
/// holds `..` or names the root itself.
fn relative_to(root: &Path, root_canonical: &Path, path: &Path) -> Result<PathBuf, FsError> {
    let rel = if path.is_absolute() {
        path.strip_prefix(root)
            .or_else(|_| path.strip_prefix(root_canonical))
            .map_err(|_| FsError::OutsideRoot {
                path: path.to_path_buf(),
            })?
            .to_path_buf()
    } else {
        path.to_path_buf()
    };
    let mut clean = PathBuf::new();
    for component in rel.components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::CurDir => {}
            _ => {
                return Err(FsError::OutsideRoot {
                    path: path.to_path_buf(),
                });
            }
        }
    }
    if clean.as_os_str().is_empty() {
        return Err(FsError::OutsideRoot {
            path: path.to_path_buf(),
        });
    }
    Ok(clean)
}

fn canonical_root(root: &Path) -> Result<PathBuf, FsError> {
    root.canonicalize().map_err(io_err(root))
}

/// Resolve the link `path` and require the result inside `root_canonical`.
fn resolve_inside(root_canonical: &Path, path: &Path) -> Result<PathBuf, FsError> {
    match path.canonicalize() {
        Ok(target) if target.starts_with(root_canonical) => Ok(target),
        _ => Err(FsError::LinkOutside {
            path: path.to_path_buf(),
        }),
    }
}

/// Whether `path` (canonical, or a canonical folder joined with a name) lies
/// in a git directory: below `root_canonical` under a component named `.git`
/// (the repository's own, a nested repository's or a submodule's), or in the
/// git directory or common directory git itself finds for the root (a
/// linked worktree's, or one set by a `.git` file).
fn in_git_dir(root_canonical: &Path, git_dirs: &[PathBuf], path: &Path) -> bool {
    if let Ok(rel) = path.strip_prefix(root_canonical)
        && rel
            .components()
            .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"))
    {
        return true;
    }
    git_dirs.iter().any(|dir| path.starts_with(dir))
}

/// The git directory and common directory git finds for the root
/// (canonical), asked once per write or removal. The common case, a root
/// holding a git directory of its own (`.git` with `HEAD` and `objects`,
/// not a linked worktree's, which has a `commondir`), is answered from
/// those few `lstat`s: it is what git finds there, and opening the
/// repository would cost a short-lived process (a hook) a good part of its
/// time. Anything else is asked of git.
fn git_dirs(root_canonical: &Path) -> Vec<PathBuf> {
    let dot_git = root_canonical.join(".git");
    let is = |rel: &str, dir: bool| {
        fs::symlink_metadata(dot_git.join(rel))
            .is_ok_and(|m| if dir { m.is_dir() } else { m.is_file() })
    };
    let root_in_git_dir = root_canonical
        .components()
        .any(|c| c.as_os_str().eq_ignore_ascii_case(".git"));
    // `lstat` of `.git` itself: a link to a git directory elsewhere is
    // asked of git, which resolves it.
    if !root_in_git_dir
        && fs::symlink_metadata(&dot_git).is_ok_and(|m| m.is_dir())
        && is("HEAD", false)
        && is("objects", true)
        && fs::symlink_metadata(dot_git.join("commondir")).is_err()
    {
        return vec![dot_git];
    }
    let Ok(repo) = git2::Repository::discover(root_canonical) else {
        return Vec::new();
    };
    [repo.path(), repo.commondir()]
        .iter()
        .filter_map(|dir| dir.canonicalize().ok())
        .collect()
}

/// The folder the parent of `rel` (relative, clean) resolves to, checked
/// once from the root down: each folder on the way is a real folder or a
/// link resolving to a folder inside the root. A missing folder is created
/// when `create` (with `create_dir`, which never follows a link), else the
/// answer is `None`. The result is never in a git directory.
fn checked_folder(
    root_canonical: &Path,
    git: &[PathBuf],
    folders: &Path,
    create: bool,
) -> Result<Option<PathBuf>, FsError> {
    let mut dir = root_canonical.to_path_buf();
    for part in folders.components() {
        dir.push(part);
        if in_git_dir(root_canonical, git, &dir) {
            return Err(FsError::GitDir { path: dir });
        }
        match fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(meta) if meta.file_type().is_symlink() => {
                dir = resolve_inside(root_canonical, &dir)?;
                if !dir.is_dir() {
                    return Err(FsError::NotFolder {
                        path: dir,
                        kind: "link to something other than a folder",
                    });
                }
            }
            Ok(meta) => {
                return Err(FsError::NotFolder {
                    path: dir,
                    kind: kind_name(meta.file_type()),
                });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => match fs::create_dir(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && dir.is_dir() => {}
                Err(e) => return Err(io_err(&dir)(e)),
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(&dir)(e)),
        }
    }
    if in_git_dir(root_canonical, git, &dir) {
        return Err(FsError::GitDir { path: dir });
    }
    Ok(Some(dir))
}

/// The target `name` in the checked folder `dir`: refused when it is in a
/// git directory or a symbolic link (never written or deleted through).
/// Its metadata when it exists.
fn checked_target(
    root_canonical: &Path,
    git: &[PathBuf],
    dir: &Path,
    name: &std::ffi::OsStr,
) -> Result<(PathBuf, Option<fs::Metadata>), FsError> {
    let target = dir.join(name);
    if in_git_dir(root_canonical, git, &target) {
        return Err(FsError::GitDir { path: target });
    }
    match fs::symlink_metadata(&target) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let link_target = fs::read_link(&target).unwrap_or_default();
            Err(FsError::Link {
                path: target,
                target: link_target,
            })
        }
        Ok(meta) => Ok((target, Some(meta))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((target, None)),
        Err(e) => Err(io_err(&target)(e)),
    }
}

/// Write `contents` to `path` (relative to `root`, or absolute below it) as
/// the module header describes: folder chain checked and created, never in a
/// git directory, a target that is a symbolic link refused (never written
/// through, wherever it leads), a fresh exclusive temporary file synced and
/// renamed over the target. The permissions of a replaced file are kept.
pub fn write_file(root: &Path, path: &Path, contents: &[u8]) -> Result<(), FsError> {
    write_checked(root, path, contents, true)
}

/// [`write_file`] without syncing the temporary file before the rename: for
/// a cache file whose loss or truncation after a crash only costs work done
/// again (the kept load status, the pre-edit hook's session memory), where
/// a sync would cost a short-lived process most of its time. Every check is
/// the same.
pub fn write_cache_file(root: &Path, path: &Path, contents: &[u8]) -> Result<(), FsError> {
    write_checked(root, path, contents, false)
}

fn write_checked(root: &Path, path: &Path, contents: &[u8], sync: bool) -> Result<(), FsError> {
    if writes_forbidden() {
        return Err(read_only_error(path));
    }
    let root_canonical = canonical_root(root)?;
    let rel = relative_to(root, &root_canonical, path)?;
    let git = git_dirs(&root_canonical);
    let name = rel.file_name().expect("a relative path with a component");
    let folders = rel.parent().unwrap_or(Path::new(""));
    let dir =
        checked_folder(&root_canonical, &git, folders, true)?.expect("created folders are there");
    let (target, meta) = checked_target(&root_canonical, &git, &dir, name)?;
    let permissions = match meta {
        Some(meta) if meta.is_file() => Some(meta.permissions()),
        Some(meta) => {
            return Err(FsError::NotRegular {
                path: target,
                kind: kind_name(meta.file_type()),
            });
        }
        None => None,
    };
    let file_name = name.to_string_lossy().into_owned();
    // `tempfile` creates with O_CREAT|O_EXCL and a random name, retrying on a
    // name that exists (a planted link included).
    let prefix = format!(".{file_name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".notarai.tmp");
    // A new file gets the mode a plain create would give (0666 less the
    // umask), not tempfile's private 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(&dir).map_err(io_err(&dir))?;
    let result = (|| -> io::Result<()> {
        tmp.write_all(contents)?;
        if let Some(permissions) = permissions {
            tmp.as_file().set_permissions(permissions)?;
        }
        match sync {
            true => tmp.as_file().sync_all(),
            false => Ok(()),
        }
    })();
    result.map_err(io_err(&target))?;
    // `rename` replaces whatever entry is at the target (a link planted
    // since the check included) and never follows it.
    tmp.persist(&target).map_err(|e| io_err(&target)(e.error))?;
    Ok(())
}

/// Delete the file `path` (relative to `root`, or absolute below it): the
/// folder chain checked as for a write (a linked folder must resolve inside
/// the root; nothing in a git directory), a link deleted itself (never what
/// it points to), a folder refused. `false` when nothing was there.
pub fn remove_file(root: &Path, path: &Path) -> Result<bool, FsError> {
    if writes_forbidden() {
        return Err(read_only_error(path));
    }
    let root_canonical = canonical_root(root)?;
    let rel = relative_to(root, &root_canonical, path)?;
    let git = git_dirs(&root_canonical);
    let name = rel.file_name().expect("a relative path with a component");
    let folders = rel.parent().unwrap_or(Path::new(""));
    let Some(dir) = checked_folder(&root_canonical, &git, folders, false)? else {
        return Ok(false);
    };
    let target = dir.join(name);
    if in_git_dir(&root_canonical, &git, &target) {
        return Err(FsError::GitDir { path: target });
    }
    match fs::symlink_metadata(&target) {
        Ok(meta) if meta.is_dir() => Err(FsError::NotRegular {
            path: target,
            kind: "folder",
        }),
        // `unlink` removes the entry itself: a link, never its target.
        Ok(_) => match fs::remove_file(&target) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(io_err(&target)(e)),
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_err(&target)(e)),
    }
}

/// Remove the folders on the way from `root` to `path` (relative, or
/// absolute below the root; `path` itself included when it is a folder)
/// that are empty, deepest first, stopping at the first that is not empty,
/// not a real folder (a link is never removed through) or the root.
pub fn remove_empty_folders(root: &Path, path: &Path) -> Result<(), FsError> {
    if writes_forbidden() {
        return Err(read_only_error(path));
    }
    let root_canonical = canonical_root(root)?;
    let rel = relative_to(root, &root_canonical, path)?;
    let git = git_dirs(&root_canonical);
    let mut current = Some(rel.as_path());
    while let Some(rel) = current.filter(|r| !r.as_os_str().is_empty()) {
        let full = root_canonical.join(rel);
        if in_git_dir(&root_canonical, &git, &full) {
            return Err(FsError::GitDir { path: full });
        }
        // Every folder above must be real: no link is walked through.
        let parent = rel.parent().unwrap_or(Path::new(""));
        let chain_real = parent.ancestors().all(|a| {
            a.as_os_str().is_empty()
                || fs::symlink_metadata(root_canonical.join(a)).is_ok_and(|m| m.is_dir())
        });
        let is_dir = fs::symlink_metadata(&full).is_ok_and(|m| m.is_dir());
        if is_dir && (!chain_real || fs::remove_dir(&full).is_err()) {
            break;
        }
        current = rel.parent();
    }
    Ok(())
}

/// Create the folder `path` (relative to `root`, or absolute below it) and
/// every missing one on the way, checked as a write's folder chain: a
/// linked folder must resolve inside the root, nothing in a git directory.
/// The folder's real path.
pub fn create_dir_all(root: &Path, path: &Path) -> Result<PathBuf, FsError> {
    if writes_forbidden() {
        return Err(read_only_error(path));
    }
    let root_canonical = canonical_root(root)?;
    let rel = relative_to(root, &root_canonical, path)?;
    let git = git_dirs(&root_canonical);
    Ok(checked_folder(&root_canonical, &git, &rel, true)?.expect("created folders are there"))
}

/// Rename `from` to `to` in the same folder (setting a corrupt file
/// aside). `rename` never follows a link at `to`: a planted link there is
/// replaced, not written through, so no byte outside the folder changes.
pub fn rename_aside(from: &Path, to: &Path) -> Result<(), FsError> {
    if writes_forbidden() {
        return Err(read_only_error(from));
    }
    if from.parent() != to.parent() {
        return Err(FsError::OutsideRoot {
            path: to.to_path_buf(),
        });
    }
    fs::rename(from, to).map_err(io_err(from))
}

/// Check that `path` (relative to `root`, or absolute below it) can be read
/// safely: it exists, is a regular file or a link to one inside the root,
/// and is at most `limit` bytes. The path to open (the link resolved) and
/// the file's size.
pub fn check_readable(root: &Path, path: &Path, limit: u64) -> Result<(PathBuf, u64), FsError> {
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

/// Read at most `limit` bytes of the regular file `path` (relative to
/// `root`, or absolute below it), as the module header describes.
pub fn read(root: &Path, path: &Path, limit: u64) -> Result<Vec<u8>, FsError> {
    let (resolved, len) = check_readable(root, path, limit)?;
    let file = open_regular(&resolved)?;
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(io_err(&resolved))?;
    if bytes.len() as u64 > limit {
        return Err(FsError::TooLarge {
            path: resolved,
            limit,
        });
    }
    Ok(bytes)
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

    #[test]
    fn write_replaces_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        write_file(dir.path(), Path::new("a/b/file.txt"), b"one").unwrap();
        write_file(dir.path(), Path::new("a/b/file.txt"), b"two").unwrap();
        let path = dir.path().join("a/b/file.txt");
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec!["file.txt"]);
    }

    #[test]
    fn write_refuses_paths_outside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["../x", "/etc/x", "", "."] {
            assert!(
                matches!(
                    write_file(dir.path(), Path::new(bad), b"x"),
                    Err(FsError::OutsideRoot { .. })
                ),
                "{bad}"
            );
        }
    }

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
    }

    #[cfg(unix)]
    #[test]
    fn nothing_is_written_removed_or_created_in_a_git_directory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::write(root.join(".git/config"), "keep").unwrap();
        std::os::unix::fs::symlink(".git", root.join("g")).unwrap();
        std::os::unix::fs::symlink(".git/config", root.join("c")).unwrap();
        for name in [".git/config", "g/config", "g/new", ".git/x/y", "sub/.git/z"] {
            let err = write_file(root, Path::new(name), b"bad").unwrap_err();
            assert!(matches!(err, FsError::GitDir { .. }), "{name}: {err}");
        }
        for name in [".git/config", "g/config"] {
            let err = remove_file(root, Path::new(name)).unwrap_err();
            assert!(matches!(err, FsError::GitDir { .. }), "{name}: {err}");
        }
        assert!(matches!(
            create_dir_all(root, Path::new("g/hooks")),
            Err(FsError::GitDir { .. })
        ));
        // A link at the target is refused, and removing it removes the link.
        let err = write_file(root, Path::new("c"), b"bad").unwrap_err();
        assert!(matches!(err, FsError::Link { .. }), "{err}");
        assert!(remove_file(root, Path::new("c")).unwrap());
        assert!(!remove_file(root, Path::new("c")).unwrap());
        assert_eq!(
            fs::read_to_string(root.join(".git/config")).unwrap(),
            "keep"
        );
        assert!(!root.join(".git/new").exists() && !root.join(".git/hooks").exists());
    }

    /// The few `lstat`s answer what git's discovery does for a root with a
    /// git directory of its own; a linked worktree is asked of git.
    #[test]
    fn the_git_directories_are_what_git_finds() {
        let git = |root: &Path, args: &[&str]| {
            let ok = std::process::Command::new("git")
                .arg("-C")
                .arg(root)
                .args(args)
                .output()
                .is_ok_and(|o| o.status.success());
            assert!(ok, "git {args:?}");
        };
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("repo");
        fs::create_dir_all(&root).unwrap();
        git(&root, &["init", "-q"]);
        git(
            &root,
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "x",
            ],
        );
        let asked = |root: &Path| -> Vec<PathBuf> {
            let repo = git2::Repository::discover(root).unwrap();
            let mut dirs: Vec<PathBuf> = [repo.path(), repo.commondir()]
                .iter()
                .filter_map(|d| d.canonicalize().ok())
                .collect();
            dirs.dedup();
            dirs
        };
        let mut found = git_dirs(&root);
        found.dedup();
        assert_eq!(found, asked(&root));
        let worktree = root.parent().unwrap().join("wt");
        git(
            &root,
            &["worktree", "add", "-q", worktree.to_str().unwrap()],
        );
        let mut found = git_dirs(&worktree);
        found.dedup();
        assert_eq!(found, asked(&worktree));
        assert_eq!(found.len(), 2, "{found:?}");
    }

    #[test]
    fn removal_leaves_no_empty_folder_and_stops_at_a_full_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write_file(root, Path::new("a/b/c/f"), b"x").unwrap();
        write_file(root, Path::new("a/keep"), b"x").unwrap();
        assert!(remove_file(root, Path::new("a/b/c/f")).unwrap());
        remove_empty_folders(root, Path::new("a/b/c")).unwrap();
        assert!(!root.join("a/b").exists());
        assert!(root.join("a/keep").is_file());
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_the_mode_of_a_plain_create() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("plain"), "x").unwrap();
        write_file(dir.path(), Path::new("safe"), b"x").unwrap();
        let mode = |n: &str| {
            fs::metadata(dir.path().join(n))
                .unwrap()
                .permissions()
                .mode()
        };
        assert_eq!(mode("safe"), mode("plain"));
    }

    #[cfg(unix)]
    #[test]
    fn write_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
        write_file(dir.path(), &path, b"new").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o750);
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
}
