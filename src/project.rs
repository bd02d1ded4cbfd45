//! The project as the server and the CLI see it: its root, its git
//! repository, its files and its specs. This is the layer that asks git for
//! the file list and hands it to the spec loader, which never opens git.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::layout::{CACHE_DIR, LOAD_STATUS_FILE};
use crate::spec::SpecSet;

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

/// The repository's files, repository-relative with forward slashes, sorted:
/// the git index plus untracked files git does not ignore when `root` is a
/// git work tree, else every file the one walker ([`crate::walk`]) finds
/// below `root`. Files under the cache folder are never listed.
pub fn repo_files(root: &Path) -> Vec<String> {
    repo_files_in(root, None)
}

/// [`repo_files`] at or below the folder `under` (checked: a path that is
/// not a clean repository path lists everything): git reads only that part
/// of the index and looks for untracked files only there.
pub fn repo_files_in(root: &Path, under: Option<&str>) -> Vec<String> {
    let under = under.and_then(|u| crate::repo_path::RepoPath::parse(u).ok());
    let scope = match &under {
        Some(folder) => crate::governance::Scope::Prefixes(vec![folder.as_str().to_string()]),
        None => crate::governance::Scope::Everything,
    };
    // Outside a work tree the whole folder is walked (from the root, so a
    // linked folder is never entered), then kept to the scope.
    let walk = || -> Vec<String> {
        crate::walk::files(root, "")
            .into_iter()
            .map(|e| e.rel)
            .filter(|f| scope.contains(f))
            .collect()
    };
    let mut files = match crate::changes::GitRepo::open(root) {
        Ok(repo) => repo.files(&scope).unwrap_or_else(|e| {
            tracing::warn!("cannot list the files of the git repository: {e}; walking the folder");
            walk()
        }),
        Err(_) => walk(),
    };
    files.retain(|f| !crate::glob::is_under(f, CACHE_DIR));
    files.sort();
    files.dedup();
    files
}

/// Load every spec under `root` and run every check, including orphaned
/// artifact globs against [`repo_files`]. Never panics; a file that fails
/// becomes findings in `invalid`.
pub fn load_specs(root: &Path) -> SpecSet {
    let files = repo_files(root);
    SpecSet::load_with(root, Some(&files))
}

/// A project as the long-lived server sees it: the root, the git repository
/// (opened once) and the parsed specs with their compiled globs, reloaded only
/// when a spec file changes on disk.
#[derive(Debug)]
pub struct Project {
    root: PathBuf,
    git: Option<crate::changes::GitRepo>,
    loaded: Option<(Stamps, Arc<Specs>)>,
    /// Whole answers kept for their next pages (see [`crate::answers`]).
    answers: crate::answers::Answers,
    /// How many times a write began or ended, counted by every project of
    /// this process opened with [`Project::for_writes`] from this one: a
    /// kept answer is served only while the count is the one it was kept
    /// under, so a write on a sibling project invalidates it too.
    writes: Arc<AtomicU64>,
    /// Never start the work-tree watch (a project that only writes: the
    /// long-lived questions are the reading project's).
    unwatched: bool,
    /// The watch's generation at which the loaded specs were stamped, when
    /// it watches every folder they and their `$ref` targets lie in (with
    /// those folders): while it stays, the stamps would be the same.
    specs_at: Option<(u64, Vec<String>)>,
    /// How many times the specs were loaded: which load a kept answer was
    /// made from.
    specs_loads: u64,
    /// What is known of the repository's contents (outlines and semantic
    /// hashes by content), shared with the sibling opened by
    /// [`Project::for_writes`]: a content the reading project outlined
    /// is known to the writing one, whose records compare against it.
    symbols: Arc<crate::symbols::SymbolCache>,
}

/// The specs of a project and their governance, compiled on first use.
#[derive(Debug)]
pub struct Specs {
    /// Every spec, loaded or failed.
    pub set: SpecSet,
    governance: OnceLock<crate::governance::Governance>,
    /// The specs a change since the last merge base asked was judged by
    /// (`review::against_base::specs`), a function of this set, that
    /// commit and the index's links, which it is kept with: `None` when
    /// they are these specs themselves.
    judged_at: std::sync::Mutex<Option<JudgedAt>>,
}

/// What [`Specs::judged_at`] keeps: the merge base and the links asked
/// with, and the answer.
type JudgedAt = (Option<git2::Oid>, Vec<(String, String)>, Option<Arc<Specs>>);

impl Specs {
    /// `set` with `governance` already compiled: the specs a change is
    /// judged by (`review::against_base`).
    pub fn judged(set: SpecSet, governance: crate::governance::Governance) -> Specs {
        Specs {
            set,
            governance: OnceLock::from(governance),
            judged_at: Default::default(),
        }
    }

    /// What [`Specs::keep_judged`] kept for `merge_base` and `links`:
    /// `Some(None)` when these specs are the ones a change is judged by.
    pub fn judged_at(
        &self,
        merge_base: Option<git2::Oid>,
        links: &[(String, String)],
    ) -> Option<Option<Arc<Specs>>> {
        let kept = self.judged_at.lock().unwrap_or_else(|e| e.into_inner());
        match &*kept {
            Some((base, kept_links, judged)) if *base == merge_base && kept_links == links => {
                Some(judged.clone())
            }
            _ => None,
        }
    }

    /// Keep the specs a change since `merge_base` is judged by, given
    /// `links` (`None`: these specs).
    pub fn keep_judged(
        &self,
        merge_base: Option<git2::Oid>,
        links: Vec<(String, String)>,
        judged: Option<Arc<Specs>>,
    ) {
        let mut kept = self.judged_at.lock().unwrap_or_else(|e| e.into_inner());
        *kept = Some((merge_base, links, judged));
    }

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

/// Identity of one spec file's content on disk, to tell when to reload:
/// with the status change time and the inode, which no one but the kernel
/// sets, so an edit in place that keeps the size and puts the modification
/// time back is still seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpecStamp {
    /// Repository-relative path of the spec file.
    pub path: String,
    modified_ns: Option<u128>,
    len: u64,
    #[serde(default)]
    changed: (i64, i64),
    #[serde(default)]
    ino: u64,
}

/// The load status of the last full load is kept in [`LOAD_STATUS_FILE`],
/// keyed by the spec files' stamps, so a new server answers `initialize`
/// without parsing every spec again when none changed. It is small; a larger
/// file is not ours and is not read.
const STATUS_LIMIT: u64 = 1 << 20;

#[derive(Debug, Serialize, Deserialize)]
struct StoredStatus {
    version: String,
    stamps: Vec<SpecStamp>,
    /// The stamps of the files the specs' `$ref`s name.
    #[serde(default)]
    refs: Vec<SpecStamp>,
    status: LoadStatus,
}

/// What a load of the specs depends on: the spec files' stamps, and the
/// stamps of the files their `$ref`s named when they were loaded (a target
/// outside `.notarai/` deleted or brought back changes what is valid).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamps {
    specs: Vec<SpecStamp>,
    refs: Vec<SpecStamp>,
}

impl Stamps {
    /// The folders the stamped files lie in, and the spec folder (where a
    /// new spec would appear), each once.
    fn folders(&self) -> Vec<String> {
        let mut folders: Vec<String> = self
            .specs
            .iter()
            .chain(&self.refs)
            .map(|s| {
                s.path
                    .rsplit_once('/')
                    .map_or("", |(dir, _)| dir)
                    .to_string()
            })
            .chain(std::iter::once(crate::layout::SPEC_DIR.to_string()))
            .collect();
        folders.sort();
        folders.dedup();
        folders
    }

    /// Whether the files `self` stamped are as they were: the same spec
    /// files (`specs`, stamped now) and the same `$ref` targets.
    fn still(&self, root: &Path, specs: &[SpecStamp]) -> bool {
        self.specs == specs && ref_stamps_still(root, &self.refs, specs)
    }
}

/// Whether each of `refs` still has its stamp. `specs` are the spec files
/// stamped a moment ago for the same question: a `$ref` naming one of them
/// (a system spec's subsystems do, one per spec) is judged by that stamp
/// rather than by a second `stat` of the same file, so a question costs
/// one `stat` per spec file, not two (issue 43: 2,000 refs at 10x).
fn ref_stamps_still(root: &Path, refs: &[SpecStamp], specs: &[SpecStamp]) -> bool {
    let fresh = stamped_now(specs);
    refs.iter().all(|r| ref_stamp(root, &r.path, &fresh) == *r)
}

/// The spec stamps of one question by path.
fn stamped_now(specs: &[SpecStamp]) -> HashMap<&str, &SpecStamp> {
    specs.iter().map(|s| (s.path.as_str(), s)).collect()
}

/// The stamp of the `$ref` target `path`: the spec file's stamp taken in
/// this question when it is one (`fresh`), else its own `stat` now.
fn ref_stamp(root: &Path, path: &str, fresh: &HashMap<&str, &SpecStamp>) -> SpecStamp {
    match fresh.get(path) {
        Some(stamp) => (*stamp).clone(),
        None => stamp_of(root, path.to_owned()),
    }
}

impl Project {
    /// A project at `root` (canonical). Nothing is read yet.
    pub fn new(root: PathBuf) -> Project {
        Project {
            root,
            git: None,
            loaded: None,
            answers: Default::default(),
            writes: Default::default(),
            unwatched: false,
            specs_at: None,
            specs_loads: 0,
            symbols: Default::default(),
        }
    }

    /// A second project on the same root for the long-lived server's writes
    /// (the MCP server reads on one project and writes on the other): its
    /// own repository handle and specs, no work-tree watch, and the write
    /// count of this one, so that its writes invalidate the answers this
    /// one keeps, and its symbol cache.
    pub fn for_writes(&self) -> Project {
        Project {
            writes: self.writes.clone(),
            unwatched: true,
            symbols: self.symbols.clone(),
            ..Project::new(self.root.clone())
        }
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The specs, reloaded when any spec file was added, removed or modified
    /// since the last call.
    ///
    /// A long-lived server does not stamp them again while its watch's
    /// generation has not moved since they were stamped and the watch
    /// covers the spec folder and every folder a spec or a `$ref` target
    /// lies in (issue 43: a listing and a `stat` per spec on every
    /// question): any write, creation, removal or rename there would have
    /// moved it (see [`crate::watch`]; a linked or ignored folder is not
    /// watched, so its specs are stamped on every question as before).
    pub fn specs(&mut self) -> Arc<Specs> {
        if let Some((at, folders)) = &self.specs_at
            && let Some((_, specs)) = &self.loaded
        {
            let (at, folders, specs) = (*at, folders.clone(), specs.clone());
            if self.watched_generation(&folders) == Some(at) {
                tracing::debug!("specs: not stamped again, the watch saw no change");
                return specs;
            }
        }
        // Taken before the stamps: a change after it moves it.
        let before = self.watched_generation(&[]);
        let stamps = spec_stamps(&self.root);
        let specs = self.specs_for(stamps);
        self.specs_at = None;
        if let (Some(before), Some((stamps, _))) = (before, &self.loaded) {
            let folders = stamps.folders();
            if self.watched_generation(&folders) == Some(before) {
                self.specs_at = Some((before, folders));
            }
        }
        specs
    }

    /// The watch's generation if it covers `folders` (see
    /// [`crate::changes::GitRepo::watched_generation`]); `None` for a
    /// project that does not watch or is not in a repository.
    fn watched_generation(&mut self, folders: &[String]) -> Option<u64> {
        if self.unwatched {
            return None;
        }
        let folders: Vec<&str> = folders.iter().map(String::as_str).collect();
        self.git().ok()?.watched_generation(&folders)
    }

    fn specs_for(&mut self, stamps: Vec<SpecStamp>) -> Arc<Specs> {
        if let Some((old, specs)) = &self.loaded
            && old.still(&self.root, &stamps)
        {
            return specs.clone();
        }
        // No orphaned-glob check here: it lists the whole repository, and the
        // server reports load errors, not warnings.
        let set = SpecSet::load_with(&self.root, None);
        let specs = Arc::new(Specs {
            set,
            governance: OnceLock::new(),
            judged_at: Default::default(),
        });
        let fresh = stamped_now(&stamps);
        let refs: Vec<SpecStamp> = specs
            .set
            .ref_targets()
            .iter()
            .map(|path| ref_stamp(&self.root, path, &fresh))
            .collect();
        self.store_status(&stamps, &refs, specs.status());
        let stamps = Stamps {
            specs: stamps,
            refs,
        };
        self.loaded = Some((stamps, specs.clone()));
        self.specs_loads += 1;
        specs
    }

    /// The load status of the specs: from the status kept by the last full
    /// load when no spec file changed since, else from a full load.
    pub fn load_status(&mut self) -> LoadStatus {
        let stamps = spec_stamps(&self.root);
        if self.loaded.is_none()
            && !self.cache_tracked()
            && let Some(stored) = self.stored_status()
            && stored.version == env!("CARGO_PKG_VERSION")
            && stored.stamps == stamps
            && ref_stamps_still(&self.root, &stored.refs, &stamps)
        {
            return stored.status;
        }
        self.specs_for(stamps).status()
    }

    /// Whether git tracks something under the cache folder: such a folder
    /// came with the repository (a committed link among it may lead into
    /// `.git/`), so what a process keeps for the next (the load-status
    /// stamp, the pre-edit hook's session memory) is neither read nor
    /// written there.
    pub fn cache_tracked(&mut self) -> bool {
        self.git()
            .is_ok_and(|git| !git.tracked_cache_files().is_empty())
    }

    fn stored_status(&self) -> Option<StoredStatus> {
        read_kept(&self.root, LOAD_STATUS_FILE, STATUS_LIMIT)
    }

    /// Keep the status for the next server; best effort (a missing or
    /// read-only cache folder only costs the next start a full load).
    fn store_status(&mut self, stamps: &[SpecStamp], refs: &[SpecStamp], status: LoadStatus) {
        let stored = StoredStatus {
            version: env!("CARGO_PKG_VERSION").into(),
            stamps: stamps.to_vec(),
            refs: refs.to_vec(),
            status,
        };
        self.keep_file(LOAD_STATUS_FILE, &stored, STATUS_LIMIT);
    }

    /// Keep `value` as JSON in `file` under the cache folder for the next
    /// process, what the spec files' stamps ([`spec_stamps`]) tell it is
    /// still valid: the load status, the pre-edit hook's index. Best effort
    /// and only where it is safe: nothing in a read-only process (`notarai
    /// mcp --read-only`), only into a cache folder that exists and is a
    /// real folder (starting a server must not create project folders; the
    /// first write to the cache does), never into a cache folder git tracks
    /// (it came with the repository), never a file over `limit` bytes.
    pub fn keep_file(&mut self, file: &str, value: &impl Serialize, limit: u64) {
        if crate::safe_fs::writes_forbidden() {
            return;
        }
        let folder = self.root.join(CACHE_DIR);
        if !std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir())
            || crate::cache::check_location(&self.root).is_err()
            || self.cache_tracked()
        {
            return;
        }
        let Ok(bytes) = serde_json::to_vec(value) else {
            return;
        };
        if bytes.len() as u64 > limit {
            return tracing::debug!("not keeping {file}: {} bytes", bytes.len());
        }
        let kept = make_cache_folder(&self.root)
            .and_then(|_| crate::safe_fs::write_cache_file(&self.root, Path::new(file), &bytes));
        if let Err(e) = kept {
            tracing::debug!("cannot keep {file}: {e}");
        }
    }

    /// The whole answer kept under `key` while nothing changed, or `None`;
    /// with the token to keep a newly computed one under ([`Project::keep`]),
    /// `None` when nothing may be kept (no watch runs).
    pub fn kept<T: std::any::Any + Send + Sync>(
        &mut self,
        key: &str,
    ) -> (Option<Arc<T>>, Option<crate::answers::Token>) {
        let writes = self.writes.load(Ordering::SeqCst);
        let generation = self.git().ok().and_then(|git| git.generation());
        if generation.is_some() {
            // The specs as they are now (reloaded if a stamp moved), so an
            // answer made from another load of them is not served.
            self.specs();
        }
        let token = crate::answers::Token::now(&self.root, generation, writes, self.specs_loads);
        let kept = token.as_ref().and_then(|t| self.answers.get::<T>(key, t));
        (kept, token)
    }

    /// Keep `answer` (about `bytes` large) under `key` for `token`.
    pub fn keep<T: std::any::Any + Send + Sync>(
        &mut self,
        key: String,
        token: crate::answers::Token,
        answer: T,
        bytes: usize,
    ) {
        self.answers.keep(key, token, answer, bytes);
    }

    /// Forget every kept answer: this server writes, or wrote, what they
    /// were made from. The answers kept by the sibling projects (see
    /// [`Project::for_writes`]) are no longer served either. A write calls
    /// it when it begins and when it ends, so an answer computed while a
    /// write ran is never served after it.
    pub fn forget_answers(&mut self) {
        self.writes.fetch_add(1, Ordering::SeqCst);
        self.answers.forget();
    }

    /// Start what a long-lived server keeps (the watch of the work tree)
    /// on another thread, before the first question. Nothing happens where
    /// there is no repository yet.
    pub fn start_keeping(&mut self) {
        if let Ok(git) = self.git() {
            git.start_watch();
        }
    }

    /// The git repository, opened on first use (and retried on each call
    /// until it opens, so `git init` after start is noticed).
    pub fn git(&mut self) -> Result<&crate::changes::GitRepo, crate::changes::ChangeError> {
        if self.git.is_none() {
            let git = crate::changes::GitRepo::open(&self.root)?.knowing(self.symbols.clone());
            self.git = Some(match self.unwatched {
                true => git.unwatched(),
                false => git,
            });
        }
        Ok(self.git.as_ref().expect("opened above"))
    }
}

/// Make the cache folder with its own `.gitignore` (see
/// [`crate::cache::make_folder`]).
pub fn make_cache_folder(root: &Path) -> Result<(), crate::safe_fs::FsError> {
    crate::cache::make_folder(root)
}

/// What [`Project::keep_file`] kept in `file` under the cache folder, read
/// through the bounded reader for notarai's own files (at most `limit`
/// bytes, a link anywhere on the way or anything but a regular file
/// refused: [`crate::safe_fs::read_own`]) from a cache folder that is a real folder; `None`
/// when it is absent, too large or does not parse. What it says is the
/// caller's to check against the stamps: it is never trusted as it is.
pub fn read_kept<T: serde::de::DeserializeOwned>(root: &Path, file: &str, limit: u64) -> Option<T> {
    crate::cache::check_location(root).ok()?;
    let bytes = crate::safe_fs::read_own(root, Path::new(file), limit).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Stamps of every spec file the loader would load, in its order: one
/// listing of the spec folder and one `stat` per spec, nothing parsed.
pub fn spec_stamps(root: &Path) -> Vec<SpecStamp> {
    crate::spec::discover(root)
        .into_iter()
        .map(|path| stamp_of(root, path))
        .collect()
}

/// The stamp of the file at `path` (repository-relative) as it is now; a
/// missing file has an empty stamp. Never follows a link out: a link is
/// stamped as itself.
fn stamp_of(root: &Path, path: String) -> SpecStamp {
    let meta = std::fs::symlink_metadata(root.join(&path)).ok();
    let modified_ns = meta
        .as_ref()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos());
    #[cfg(unix)]
    let (changed, ino) = meta.as_ref().map_or(((0, 0), 0), |m| {
        use std::os::unix::fs::MetadataExt;
        ((m.ctime(), m.ctime_nsec()), m.ino())
    });
    #[cfg(not(unix))]
    let (changed, ino) = ((0, 0), 0);
    SpecStamp {
        path,
        modified_ns,
        len: meta.map_or(0, |m| m.len()),
        changed,
        ino,
    }
}
