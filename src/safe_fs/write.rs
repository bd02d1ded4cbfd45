//! The one safe writer, remover and folder maker (see the module header of
//! [`super`]).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::guard::{
    canonical_root, checked_folder, checked_target, git_dirs, in_git_dir, relative_to,
};
use super::{FsError, io_err, kind_name, read_only_error, writes_forbidden};

/// Write `contents` to `path` (relative to `root`, or absolute below it) as
/// the module header describes: folder chain checked and created, never in a
/// git directory, a target that is a symbolic link refused (never written
/// through, wherever it leads), a fresh exclusive temporary file synced and
/// renamed over the target. The permissions of a replaced file are kept.
pub fn write_file(root: &Path, path: &Path, contents: &[u8]) -> Result<(), FsError> {
    write_checked(root, path, contents, true)
}

/// Whether [`write_file`] would write `path` now: every check it makes
/// (writes allowed, inside the root, the folder chain, never in a git
/// directory, never through a link, a regular file or nothing there),
/// with nothing created. A folder still missing passes: the write creates
/// it. `notarai init` checks its whole plan so before it writes anything.
pub fn check_write(root: &Path, path: &Path) -> Result<(), FsError> {
    if writes_forbidden() {
        return Err(read_only_error(path));
    }
    let root_canonical = canonical_root(root)?;
    let rel = relative_to(root, &root_canonical, path)?;
    let git = git_dirs(&root_canonical);
    let name = rel.file_name().expect("a relative path with a component");
    let folders = rel.parent().unwrap_or(Path::new(""));
    let Some(dir) = checked_folder(&root_canonical, &git, folders, false)? else {
        return Ok(());
    };
    match checked_target(&root_canonical, &git, &dir, name)? {
        (target, Some(meta)) if !meta.is_file() => Err(FsError::NotRegular {
            path: target,
            kind: kind_name(meta.file_type()),
        }),
        _ => Ok(()),
    }
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

/// Edit the repository's own git configuration file `config` (the file
/// libgit2 names for the local level) the way git does: read it (a regular
/// file, not a link), apply `edit` (`None`: nothing to change), write the
/// result to `config.lock` created exclusively beside it (git's own lock: a
/// running git holds it, and then nothing is written), and rename it over.
/// The one write into a git directory besides libgit2's own: taking back the
/// empty `[merge "notarai"]` header `notarai init` left (libgit2 removes a
/// section's entries, never its header). `true` when the file changed.
pub fn edit_git_config(
    config: &Path,
    edit: impl FnOnce(&str) -> Option<String>,
) -> Result<bool, FsError> {
    if writes_forbidden() {
        return Err(read_only_error(config));
    }
    let meta = fs::symlink_metadata(config).map_err(io_err(config))?;
    if !meta.is_file() {
        return Err(FsError::NotRegular {
            path: config.to_path_buf(),
            kind: kind_name(meta.file_type()),
        });
    }
    let bytes = super::read::read_bounded(config, 1 << 20)?;
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Ok(false);
    };
    let Some(edited) = edit(text) else {
        return Ok(false);
    };
    let lock = config.with_file_name("config.lock");
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lock)
        .map_err(io_err(&lock))?;
    let written = (|| -> io::Result<()> {
        file.write_all(edited.as_bytes())?;
        file.set_permissions(meta.permissions())?;
        file.sync_all()
    })();
    if let Err(e) = written.and_then(|()| fs::rename(&lock, config)) {
        let _ = fs::remove_file(&lock);
        return Err(io_err(config)(e));
    }
    Ok(true)
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
}
