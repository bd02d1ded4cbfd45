//! The spec files as a catalog: what the server offers as resources (one
//! page at a time), the text of one spec, and the values offered while an
//! argument is typed (spec paths, folders, branches). The MCP side only
//! turns these into URIs and protocol types.

use std::path::Path;

use serde::Serialize;

use super::{Result, ReviewError};
use crate::page::{CursorError, fingerprint, next_cursor, requested_page};
use crate::project::Project;
use crate::repo_path::RepoPath;

/// Most specs on one page of the catalog: a listing never grows without
/// bound, whatever the number of specs.
pub const CATALOG_PAGE: usize = 100;

/// Most values one completion offers (the protocol's limit).
pub const MAX_COMPLETIONS: usize = 100;

/// The cursor tag of the catalog's pages (the tools use 1 to 4).
const SPEC_CATALOG: u8 = 16;

/// One spec file of the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CatalogEntry {
    /// Repository-relative path, e.g. `.notarai/auth.spec.yaml`.
    pub path: String,
    /// The spec's title, from its intent ([`crate::spec::Spec::title`]);
    /// `None` for a spec that fails to load or has a blank intent.
    pub title: Option<String>,
    /// The file's size in bytes, when it is a regular file.
    pub size: Option<u64>,
    /// Whether the spec loaded (a spec that fails `notarai validate` for
    /// its own content did not).
    pub loaded: bool,
}

/// One page of the catalog.
#[derive(Debug, Clone)]
pub struct CatalogPage {
    /// The specs on this page, by path.
    pub entries: Vec<CatalogEntry>,
    /// The cursor of the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// The text of one spec file.
#[derive(Debug, Clone)]
pub struct SpecText {
    /// Repository-relative path.
    pub path: String,
    /// The file's text as on disk.
    pub text: String,
}

/// The values offered for a partly typed argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// At most [`MAX_COMPLETIONS`] values, sorted as their source lists them.
    pub values: Vec<String>,
    /// How many values match in all.
    pub total: usize,
    /// Whether more match than are offered.
    pub has_more: bool,
}

/// Page `cursor` (the first without one) of every spec file of the
/// project, loaded or not, by path. A cursor this process did not issue,
/// or issued for another list of specs, is the caller's error.
pub fn spec_catalog(project: &mut Project, cursor: Option<&str>) -> Result<CatalogPage> {
    let specs = project.specs();
    let root = project.root().to_path_buf();
    // One lookup table, not a search of every spec for every file.
    let loaded: std::collections::HashMap<&str, &crate::spec::LoadedSpec> = specs
        .set
        .specs
        .iter()
        .map(|s| (s.path.as_str(), s))
        .collect();
    let entries: Vec<CatalogEntry> = crate::spec::discover(&root)
        .into_iter()
        .map(|path| {
            let spec = loaded.get(path.as_str()).copied();
            let title = spec.and_then(|s| s.spec.title());
            let size = std::fs::symlink_metadata(root.join(&path))
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len());
            CatalogEntry {
                loaded: spec.is_some(),
                path,
                title,
                size,
            }
        })
        .collect();
    let pages = entries.len().div_ceil(CATALOG_PAGE).max(1);
    let fp = fingerprint(&"resources/list", &entries);
    let page = requested_page(cursor, SPEC_CATALOG, fp, pages).map_err(|e| {
        let why = match e {
            CursorError::Foreign => {
                "not a cursor this server issued for the list of specs (forged, truncated, or \
                 from another server process)"
            }
            CursorError::Moved => "the spec files changed since this cursor was issued",
        };
        ReviewError::invalid(format!(
            "unknown cursor `{}`: {why}",
            cursor.unwrap_or_default().escape_debug()
        ))
        .hinted("list again without a cursor to start from the first page")
    })?;
    let next = next_cursor(SPEC_CATALOG, page, pages, fp);
    Ok(CatalogPage {
        entries: entries
            .into_iter()
            .skip(page * CATALOG_PAGE)
            .take(CATALOG_PAGE)
            .collect(),
        next_cursor: next,
    })
}

/// The text of the spec file `path` (repository-relative): refused unless it
/// names a spec file of the project (`.notarai/**/*.spec.yaml`, as the
/// loader finds them), and read through the bounded reader, so nothing
/// outside the repository is ever read.
pub fn read_spec(root: &Path, path: &str) -> Result<SpecText> {
    const HINT: &str = "name a spec file by its repository-relative path, e.g. \
                        `.notarai/system.spec.yaml`; `resources/list` lists them";
    let rel = RepoPath::parse(path).map_err(|e| {
        ReviewError::invalid(format!("`{}`: {e}", path.escape_debug())).hinted(HINT)
    })?;
    let rel = rel.as_str();
    if !crate::spec::is_spec_path(rel) {
        return Err(ReviewError::invalid(format!(
            "`{}` is not a spec file: only `.notarai/**/*.spec.yaml` files are served",
            rel.escape_debug()
        ))
        .hinted(HINT));
    }
    if !crate::spec::discover(root).iter().any(|p| p == rel) {
        let linked = crate::safe_fs::crosses_link(root, rel)
            || std::fs::symlink_metadata(root.join(rel)).is_ok_and(|m| m.is_symlink());
        let why = if linked {
            " (it is reached through a symbolic link, which is never followed)"
        } else {
            ""
        };
        return Err(ReviewError::not_found(format!(
            "no spec file `{}` in this project{why}",
            rel.escape_debug()
        ))
        .hinted(HINT));
    }
    let text = crate::spec::read_text(root, rel).map_err(|finding| {
        let error = ReviewError::invalid(finding.to_string());
        match finding.hint {
            Some(hint) => error.hinted(hint),
            None => error,
        }
    })?;
    Ok(SpecText {
        path: rel.to_string(),
        text,
    })
}

/// Whether `path` (repository-relative, checked) names a spec file of the
/// project, as [`spec_catalog`] lists them.
pub fn is_project_spec(project: &Project, path: &RepoPath) -> bool {
    crate::spec::discover(project.root())
        .iter()
        .any(|p| p == path.as_str())
}

/// Whether `path` (repository-relative, checked) names something that is
/// there and is not a folder (a file, a link): no first spec is written
/// for it.
pub fn is_not_a_folder(project: &Project, path: &RepoPath) -> bool {
    std::fs::symlink_metadata(project.root().join(path.as_str())).is_ok_and(|m| !m.is_dir())
}

/// The values of `candidates` that start with `typed`, at most
/// [`MAX_COMPLETIONS`] of them.
pub fn complete(candidates: impl IntoIterator<Item = String>, typed: &str) -> Completion {
    let mut values = Vec::new();
    let mut total = 0;
    for candidate in candidates {
        if candidate.starts_with(typed) {
            total += 1;
            if values.len() < MAX_COMPLETIONS {
                values.push(candidate);
            }
        }
    }
    Completion {
        has_more: total > values.len(),
        values,
        total,
    }
}

/// The spec files whose path starts with `typed`, or whose path below
/// `.notarai/` does (`auth` offers `.notarai/auth.spec.yaml`).
pub fn complete_spec_paths(project: &Project, typed: &str) -> Completion {
    let dir = format!("{}/", crate::layout::SPEC_DIR);
    let specs = crate::spec::discover(project.root());
    let matching = specs.into_iter().filter(|p| {
        p.starts_with(typed) || p.strip_prefix(&dir).is_some_and(|r| r.starts_with(typed))
    });
    complete(matching, "")
}

/// The folders of the repository (every folder holding a file of git's
/// file list, or of the walk outside a work tree) that start with `typed`.
pub fn complete_folders(project: &Project, typed: &str) -> Completion {
    let mut folders: Vec<String> = Vec::new();
    for file in crate::project::repo_files(project.root()) {
        let mut at = file.len();
        while let Some(slash) = file[..at].rfind('/') {
            folders.push(file[..slash].to_string());
            at = slash;
        }
    }
    folders.sort();
    folders.dedup();
    complete(folders, typed)
}

/// The paths of the repository that start with `typed`: every file of
/// git's file list (of the walk outside a work tree) and every folder
/// holding one, sorted (a folder before what it holds), for the
/// `notarai://governing/{path}` template.
pub fn complete_repo_paths(project: &Project, typed: &str) -> Completion {
    // Every match lies in the folder typed so far (`src/auth/se`: `src/auth`):
    // only that part of the repository is listed.
    let folder = typed.rsplit_once('/').map(|(folder, _)| folder);
    let mut paths: Vec<String> = Vec::new();
    for file in crate::project::repo_files_in(project.root(), folder) {
        // A folder is a prefix of its files: none of a file's folders
        // matches when the file does not.
        if !file.starts_with(typed) {
            continue;
        }
        let mut at = file.len();
        while let Some(slash) = file[..at].rfind('/') {
            paths.push(file[..slash].to_string());
            at = slash;
        }
        paths.push(file);
    }
    paths.sort();
    paths.dedup();
    complete(paths, typed)
}

/// The branches (local, then remote-tracking) that start with `typed`;
/// none outside a git repository.
pub fn complete_branches(project: &mut Project, typed: &str) -> Completion {
    let names = project
        .git()
        .map(|git| git.branch_names())
        .unwrap_or_default();
    complete(names, typed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_caps_the_values_and_counts_them_all() {
        let many = (0..250).map(|i| format!("b{i:03}"));
        let c = complete(many, "b1");
        assert_eq!((c.values.len(), c.total, c.has_more), (100, 100, false));
        let c = complete((0..250).map(|i| format!("b{i:03}")), "b");
        assert_eq!((c.values.len(), c.total, c.has_more), (100, 250, true));
        assert_eq!(c.values[0], "b000");
        let none = complete(["main".to_string()], "x");
        assert_eq!(
            (none.values.len(), none.total, none.has_more),
            (0, 0, false)
        );
    }
}
