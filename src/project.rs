//! Finding the project root.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// The project root: `explicit` when given (it must exist), else the work tree
/// of the git repository containing the current folder, else the current folder.
/// The result is canonical (absolute, symlinks resolved).
pub fn resolve_root(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    let start = match explicit {
        Some(dir) => {
            return dir
                .canonicalize()
                .with_context(|| format!("project root {} does not exist", dir.display()));
        }
        None => std::env::current_dir().context("cannot read the current folder")?,
    };
    let root = match git2::Repository::discover(&start) {
        Ok(repo) => repo.workdir().map(Path::to_path_buf).unwrap_or(start),
        Err(_) => start,
    };
    root.canonicalize()
        .with_context(|| format!("cannot resolve project root {}", root.display()))
}
