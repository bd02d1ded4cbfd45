//! Which file an agent would run for a configured command: a name is looked
//! up in `PATH` (the config's own `PATH` when it sets one), a path with a
//! slash is taken from the project root, where agents start MCP servers.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Why a command does not resolve to an executable file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// The config names no command.
    #[error("the entry names no command")]
    Empty,
    /// A bare name found in no folder of `PATH`.
    #[error("`{name}` is not found in any folder of PATH")]
    NotOnPath {
        /// The name looked up.
        name: String,
    },
    /// A path (with a slash) that names no file.
    #[error("{} does not exist", path.display())]
    Missing {
        /// The path, resolved against the root.
        path: PathBuf,
    },
    /// A file that is not executable (or a folder).
    #[error("{} is not an executable file", path.display())]
    NotExecutable {
        /// The file.
        path: PathBuf,
    },
}

impl crate::error::Diagnose for ResolveError {}

/// The file `command` runs, started in `cwd` with `path_var` as `PATH`.
pub fn resolve(
    command: &str,
    cwd: &Path,
    path_var: Option<&OsStr>,
) -> Result<PathBuf, ResolveError> {
    if command.is_empty() {
        return Err(ResolveError::Empty);
    }
    if command.contains('/') {
        let path = cwd.join(command);
        return if !path.exists() {
            Err(ResolveError::Missing { path })
        } else if is_executable(&path) {
            Ok(path)
        } else {
            Err(ResolveError::NotExecutable { path })
        };
    }
    let dirs = path_var.map(std::env::split_paths).into_iter().flatten();
    for dir in dirs {
        // An empty entry is the current folder (POSIX).
        let dir = if dir.as_os_str().is_empty() {
            cwd.to_path_buf()
        } else {
            cwd.join(dir)
        };
        let candidate = dir.join(command);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(ResolveError::NotOnPath {
        name: command.to_string(),
    })
}

/// A regular file (after links) with an execute bit.
fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_looked_up_in_path_and_paths_from_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let tool = bin.join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        let plain = bin.join("plain");
        std::fs::write(&plain, "x").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let path = std::env::join_paths(["/nonexistent", bin.to_str().unwrap()]).unwrap();
        assert_eq!(resolve("tool", dir.path(), Some(&path)), Ok(tool.clone()));
        assert_eq!(resolve("bin/tool", dir.path(), None), Ok(tool));
        assert!(matches!(
            resolve("missing", dir.path(), Some(&path)),
            Err(ResolveError::NotOnPath { .. })
        ));
        assert!(matches!(
            resolve("./bin/nothing", dir.path(), None),
            Err(ResolveError::Missing { .. })
        ));
        #[cfg(unix)]
        assert!(matches!(
            resolve("./bin/plain", dir.path(), None),
            Err(ResolveError::NotExecutable { .. })
        ));
        assert_eq!(resolve("", dir.path(), None), Err(ResolveError::Empty));
    }
}
