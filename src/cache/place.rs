//! Where the hash cache lives and whether it may be used: its path, the
//! cache folder made with its `.gitignore`, a folder that belongs to another
//! repository or a database that is not a regular file refused, a database
//! removed with its side files.

use super::*;

/// The database path for a project root.
pub fn db_path(root: &Path) -> PathBuf {
    root.join(DB_RELATIVE)
}

/// Check that the cache lives in real folders of the project: `.notarai`,
/// `.notarai/.cache` and the database file must not be symbolic links, which
/// could make notarai read, write or delete a file outside the project (a
/// committed link is enough), and neither folder may belong to another
/// repository (a `.git` entry, file or folder, in it: a submodule or a
/// nested clone could deliver a cache that hides a change). `Err` says
/// which. Every reader and writer of the cache folder asks it first: the
/// hash cache, the facts, the kept load status and spec index, the hook's
/// memory, and `cache clear`, which then leaves the folder alone.
pub fn check_location(root: &Path) -> Result<(), String> {
    check_location_of(root, DB_RELATIVE)
}

/// [`check_location`] for the database file `relative` to the root.
pub(super) fn check_location_of(root: &Path, relative: &str) -> Result<(), String> {
    let mut path = root.to_path_buf();
    let mut parts = relative.split('/').peekable();
    while let Some(part) = parts.next() {
        path.push(part);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(format!(
                    "{} is a symbolic link; notarai keeps its cache only in a real folder of the project (remove the link)",
                    path.display()
                ));
            }
            Ok(_) => {}
            Err(_) => return Ok(()),
        }
        let git = path.join(crate::layout::GIT_DIR);
        if parts.peek().is_some() && std::fs::symlink_metadata(&git).is_ok() {
            return Err(format!(
                "{} belongs to another repository ({} is there); notarai neither reads, writes nor clears a cache in it",
                path.display(),
                git.display()
            ));
        }
    }
    Ok(())
}

/// Why the database cannot be opened without risk of a hang: the database
/// or one of SQLite's side files (`-wal`, `-shm`, `-journal`) exists and is
/// not a regular file (a FIFO blocks the opener forever, a device or folder
/// is not ours). `None` when every one that exists is a regular file.
pub(super) fn check_regular(root: &Path) -> Option<String> {
    check_regular_at(&db_path(root))
}

/// [`check_regular`] for the database `db`.
pub(super) fn check_regular_at(db: &Path) -> Option<String> {
    ["", "-wal", "-shm", "-journal"].iter().find_map(|suffix| {
        let file = PathBuf::from(format!("{}{suffix}", db.display()));
        crate::safe_fs::irregular_kind(&file).map(|kind| {
            format!(
                "{} is a {kind}, not a regular file; notarai keeps its cache only in a regular file (remove it, or run `notarai cache clear`)",
                file.display()
            )
        })
    })
}

/// Remove the database `db` and SQLite's side files beside it, each
/// through the safe remover. A file where the cache folder should be
/// means there is no database to remove, which is not a failure.
pub(super) fn remove_database(root: &Path, db: &Path) -> Result<(), crate::safe_fs::FsError> {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let file = PathBuf::from(format!("{}{suffix}", db.display()));
        match crate::safe_fs::remove_file(root, &file) {
            Ok(_)
            | Err(
                crate::safe_fs::FsError::NotRegular { .. }
                | crate::safe_fs::FsError::NotFolder { .. },
            ) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Make the cache folder (through the safe writer) with its own
/// `.gitignore` holding `*` ([`crate::layout::CACHE_GITIGNORE`]), written
/// when it is missing: whatever notarai keeps there (the hash cache, the
/// facts, the kept load status, the hook's index and memory) is never a
/// file git tracks, nor one `git add -A` would add, whatever the project's
/// own `.gitignore` says. Every writer of the folder makes it here.
pub fn make_folder(root: &Path) -> Result<(), crate::safe_fs::FsError> {
    crate::safe_fs::create_dir_all(root, Path::new(crate::layout::CACHE_DIR))?;
    let ignore = Path::new(crate::layout::CACHE_GITIGNORE);
    if std::fs::symlink_metadata(root.join(ignore)).is_err() {
        crate::safe_fs::write_cache_file(root, ignore, b"*\n")?;
    }
    Ok(())
}
