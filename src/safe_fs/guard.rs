//! The checks every write, removal and read of this module makes before it
//! touches the file system: the path relative to the root, links resolved
//! inside it, the folder chain checked once, git directories refused.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::{FsError, io_err, kind_name};

/// `path` relative to `root` (`root_canonical` is its canonical form):
/// accepted when it is relative, or absolute below either; refused when it
/// holds `..` or names the root itself.
pub(super) fn relative_to(
    root: &Path,
    root_canonical: &Path,
    path: &Path,
) -> Result<PathBuf, FsError> {
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

pub(super) fn canonical_root(root: &Path) -> Result<PathBuf, FsError> {
    root.canonicalize().map_err(io_err(root))
}

/// Resolve the link `path` and require the result inside `root_canonical`.
pub(super) fn resolve_inside(root_canonical: &Path, path: &Path) -> Result<PathBuf, FsError> {
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
pub(super) fn in_git_dir(root_canonical: &Path, git_dirs: &[PathBuf], path: &Path) -> bool {
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
pub(super) fn git_dirs(root_canonical: &Path) -> Vec<PathBuf> {
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
pub(super) fn checked_folder(
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
pub(super) fn checked_target(
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

/// Whether a folder on the way from `root` to `rel` (a path relative to the
/// root, with forward slashes) is not a real folder: a symbolic link (to
/// anything), or a file. Such a path is outside what the repository holds
/// there (a linked folder may lead anywhere) and is never opened by the
/// callers that ask. A missing folder stops the check: nothing is there.
pub fn crosses_link(root: &Path, rel: &str) -> bool {
    let mut end = 0;
    while let Some(i) = rel[end..].find('/').map(|i| end + i) {
        match fs::symlink_metadata(root.join(&rel[..i])) {
            Ok(meta) if !meta.is_dir() => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
        end = i + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
