//! The files of the repository that artifact globs are matched against.

use std::path::Path;

use super::CACHE_DIR;

/// The repository's files, repository-relative with forward slashes, sorted:
/// the git index plus untracked files git does not ignore when `root` is a
/// git work tree, else every file below `root` (skipping `.git`). Files under
/// `.notarai/.cache/` are never listed.
pub fn repo_files(root: &Path) -> Vec<String> {
    let mut files = match crate::changes::GitRepo::open(root) {
        Ok(repo) => repo
            .files(&crate::governance::Scope::Everything)
            .unwrap_or_else(|e| {
                tracing::warn!(
                    "cannot list the files of the git repository: {e}; walking the folder"
                );
                walk(root)
            }),
        Err(_) => walk(root),
    };
    let cache = format!("{CACHE_DIR}/");
    files.retain(|f| !f.starts_with(&cache));
    files.sort();
    files.dedup();
    files
}

fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let child = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if name != ".git" && child != CACHE_DIR {
                    todo.push((entry.path(), child));
                }
            } else {
                out.push(child);
            }
        }
    }
    out
}
