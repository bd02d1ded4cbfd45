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

/// A project as the long-lived server sees it: the root, the git repository
/// (opened once) and the parsed specs with their compiled globs, reloaded only
/// when a spec file changes on disk.
#[derive(Debug)]
pub struct Project {
    root: PathBuf,
    git: Option<crate::changes::GitRepo>,
    loaded: Option<(Vec<SpecStamp>, std::sync::Arc<Specs>)>,
}

/// The specs of a project and their compiled governance.
#[derive(Debug)]
pub struct Specs {
    /// Every spec, loaded or failed.
    pub set: crate::spec::SpecSet,
    /// Compiled globs of `set`.
    pub governance: crate::governance::Governance,
}

/// Identity of one spec file's content on disk, to tell when to reload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecStamp {
    path: PathBuf,
    modified: Option<std::time::SystemTime>,
    len: u64,
}

impl Project {
    /// A project at `root` (canonical). Nothing is read yet.
    pub fn new(root: PathBuf) -> Project {
        Project {
            root,
            git: None,
            loaded: None,
        }
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The specs, reloaded when any spec file was added, removed or modified
    /// since the last call.
    pub fn specs(&mut self) -> std::sync::Arc<Specs> {
        let stamps = spec_stamps(&self.root);
        if let Some((old, specs)) = &self.loaded
            && *old == stamps
        {
            return specs.clone();
        }
        // No orphaned-glob check here: it lists the whole repository, and the
        // server reports load errors, not warnings.
        let set = crate::spec::SpecSet::load_with(&self.root, None);
        let governance = crate::governance::Governance::build(&set);
        let specs = std::sync::Arc::new(Specs { set, governance });
        self.loaded = Some((stamps, specs.clone()));
        specs
    }

    /// The git repository, opened on first use (and retried on each call
    /// until it opens, so `git init` after start is noticed).
    pub fn git(&mut self) -> Result<&crate::changes::GitRepo, crate::changes::ChangeError> {
        if self.git.is_none() {
            self.git = Some(crate::changes::GitRepo::open(&self.root)?);
        }
        Ok(self.git.as_ref().expect("opened above"))
    }
}

/// Stamps of every `*.spec.yaml` below `.notarai/` (outside the cache), sorted.
fn spec_stamps(root: &Path) -> Vec<SpecStamp> {
    fn walk(dir: &Path, cache: &Path, out: &mut Vec<SpecStamp>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                if path != cache {
                    walk(&path, cache, out);
                }
            } else if path.to_str().is_some_and(|p| p.ends_with(".spec.yaml")) {
                out.push(SpecStamp {
                    modified: meta.modified().ok(),
                    len: meta.len(),
                    path,
                });
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &root.join(crate::spec::SPEC_DIR),
        &root.join(crate::spec::CACHE_DIR),
        &mut out,
    );
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}
