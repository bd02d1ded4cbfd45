//! Finding the project root.

use std::path::{Path, PathBuf};

use std::sync::{Arc, OnceLock};

use anyhow::Context;
use serde::{Deserialize, Serialize};

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
    loaded: Option<(Vec<SpecStamp>, Arc<Specs>)>,
}

/// The specs of a project and their governance, compiled on first use.
#[derive(Debug)]
pub struct Specs {
    /// Every spec, loaded or failed.
    pub set: crate::spec::SpecSet,
    governance: OnceLock<crate::governance::Governance>,
}

impl Specs {
    /// The compiled globs of `set`.
    pub fn governance(&self) -> &crate::governance::Governance {
        self.governance
            .get_or_init(|| crate::governance::Governance::build(&self.set))
    }

    /// The summary the server's `instructions` report.
    pub fn status(&self) -> LoadStatus {
        LoadStatus {
            loaded: self.set.specs.len(),
            system: self.set.system_spec().map(|s| s.path.clone()),
            invalid: self.set.errors().iter().map(|f| f.to_string()).collect(),
        }
    }
}

/// How the specs loaded: what a model needs to know before its first call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadStatus {
    /// Number of specs that loaded.
    pub loaded: usize,
    /// Path of the system spec, if any.
    pub system: Option<String>,
    /// Every error of the specs that fail `notarai validate` (the ones that
    /// failed to load and the ones with an error across specs), as
    /// `path:line:col: message`.
    pub invalid: Vec<String>,
}

/// Identity of one spec file's content on disk, to tell when to reload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecStamp {
    path: String,
    modified_ns: Option<u128>,
    len: u64,
}

/// Where the load status of the last full load is kept, keyed by the spec
/// files' stamps, so a new server answers `initialize` without parsing every
/// spec again when none changed.
const STATUS_FILE: &str = ".notarai/.cache/load-status.json";

#[derive(Debug, Serialize, Deserialize)]
struct StoredStatus {
    version: String,
    stamps: Vec<SpecStamp>,
    status: LoadStatus,
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
    pub fn specs(&mut self) -> Arc<Specs> {
        let stamps = spec_stamps(&self.root);
        self.specs_for(stamps)
    }

    fn specs_for(&mut self, stamps: Vec<SpecStamp>) -> Arc<Specs> {
        if let Some((old, specs)) = &self.loaded
            && *old == stamps
        {
            return specs.clone();
        }
        // No orphaned-glob check here: it lists the whole repository, and the
        // server reports load errors, not warnings.
        let set = crate::spec::SpecSet::load_with(&self.root, None);
        let specs = Arc::new(Specs {
            set,
            governance: OnceLock::new(),
        });
        self.store_status(&stamps, specs.status());
        self.loaded = Some((stamps, specs.clone()));
        specs
    }

    /// The load status of the specs: from the status kept by the last full
    /// load when no spec file changed since, else from a full load.
    pub fn load_status(&mut self) -> LoadStatus {
        let stamps = spec_stamps(&self.root);
        if self.loaded.is_none()
            && let Some(stored) = self.stored_status()
            && stored.version == env!("CARGO_PKG_VERSION")
            && stored.stamps == stamps
        {
            return stored.status;
        }
        self.specs_for(stamps).status()
    }

    fn stored_status(&self) -> Option<StoredStatus> {
        crate::cache::check_location(&self.root).ok()?;
        let path = self.root.join(STATUS_FILE);
        if !std::fs::symlink_metadata(&path).ok()?.is_file() {
            return None;
        }
        let text = std::fs::read(path).ok()?;
        serde_json::from_slice(&text).ok()
    }

    /// Keep the status for the next server; best effort (a missing or
    /// read-only cache folder only costs the next start a full load).
    fn store_status(&self, stamps: &[SpecStamp], status: LoadStatus) {
        let stored = StoredStatus {
            version: env!("CARGO_PKG_VERSION").into(),
            stamps: stamps.to_vec(),
            status,
        };
        let path = self.root.join(STATUS_FILE);
        // Only into a cache folder that exists: starting a server must not
        // create project folders; the first write to the cache does.
        if !path.parent().is_some_and(Path::is_dir)
            || crate::cache::check_location(&self.root).is_err()
        {
            return;
        }
        let write = || -> std::io::Result<()> {
            let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
            std::fs::write(
                &tmp,
                serde_json::to_vec(&stored).map_err(std::io::Error::other)?,
            )?;
            std::fs::rename(&tmp, &path)
        };
        if let Err(e) = write() {
            tracing::debug!(
                "cannot keep the spec load status in {}: {e}",
                path.display()
            );
        }
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

/// Stamps of every spec file the loader would load, in its order.
fn spec_stamps(root: &Path) -> Vec<SpecStamp> {
    crate::spec::discover(root)
        .into_iter()
        .map(|path| {
            let meta = std::fs::metadata(root.join(&path)).ok();
            let modified_ns = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|d| d.as_nanos());
            SpecStamp {
                path,
                modified_ns,
                len: meta.map_or(0, |m| m.len()),
            }
        })
        .collect()
}
