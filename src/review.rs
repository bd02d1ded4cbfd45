//! What each spec needs to review: the domain behind the MCP tools.
//!
//! One function per question, each taking typed parameters and returning a
//! typed result. The same structs are the tools' input and output schemas
//! (they derive `JsonSchema`), so what the code returns and what the server
//! declares cannot drift apart. Nothing here knows about JSON-RPC.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use globset::GlobSetBuilder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::cache::Cache;
use crate::changes::{ChangeError, Patch};
use crate::governance::{self, Scope};
use crate::hashing::{self, FileHash};
use crate::project::{Project, Specs};
use crate::repo_path::{Guard, RepoPath};
use crate::spec::{self, Behavior};
use crate::state::Reconciled;

/// Why a question could not be answered.
#[derive(Debug)]
pub enum ReviewError {
    /// The caller passed something wrong; the message says what and how to fix it.
    InvalidParams(String),
    /// git, the file system or the cache failed.
    Internal(String),
}

impl fmt::Display for ReviewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReviewError::InvalidParams(m) | ReviewError::Internal(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ReviewError {}

impl From<ChangeError> for ReviewError {
    fn from(e: ChangeError) -> Self {
        if e.is_invalid_input() {
            ReviewError::InvalidParams(e.to_string())
        } else {
            ReviewError::Internal(e.to_string())
        }
    }
}

type Result<T> = std::result::Result<T, ReviewError>;

// ---------------------------------------------------------------- parameters

/// Parameters of `list_affected_specs`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ListAffectedSpecsParams {
    /// The branch (or tag, or commit) this branch will merge into, e.g. `main`.
    /// Changes are counted from the merge base with it.
    pub base_branch: String,
}

/// Parameters of `get_spec_diff`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetSpecDiffParams {
    /// Path of the spec file relative to the repository root, e.g. `.notarai/auth.spec.yaml`.
    pub spec_path: String,
    /// The branch (or tag, or commit) to diff against, e.g. `main`.
    pub base_branch: String,
    /// Patterns of files to leave out, with git's `:(exclude)` meaning: `*`
    /// also matches `/`, and a plain path excludes itself and everything
    /// below it. Example: `["Cargo.lock", "*.lock"]`.
    #[serde(default)]
    pub exclude_patterns: Vec<String>,
    /// `true` to ignore the hash cache for this call (it is left untouched)
    /// and show every changed governed file.
    #[serde(default)]
    pub bypass_cache: bool,
}

/// Parameters of `get_changed_artifacts`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct GetChangedArtifactsParams {
    /// Path of the spec file relative to the repository root.
    pub spec_path: String,
    /// Only this artifact category of the spec (e.g. `docs`, `code`, `configs`).
    #[serde(default)]
    pub artifact_type: Option<String>,
}

/// Parameters of `mark_reconciled`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct MarkReconciledParams {
    /// Files reviewed in this pass, relative to the repository root. A path
    /// that no longer exists is remembered as reconciled while deleted.
    pub files: Vec<String>,
    /// `true` to also write `.notarai/reconciliation_state.json` afterwards,
    /// as the `snapshot_state` tool does.
    #[serde(default)]
    pub snapshot: bool,
}

// ------------------------------------------------------------------- results

/// Result of `list_affected_specs`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AffectedSpecs {
    /// Every file changed on this branch since the merge base with the base
    /// branch, plus staged, unstaged and untracked work; deletions included; sorted.
    pub changed_files: Vec<String>,
    /// Specs governing at least one changed file, sorted by path.
    pub affected_specs: Vec<AffectedSpec>,
    /// Every error of the spec files that fail `notarai validate`, in its
    /// order: a file that failed to load governs nothing until fixed; one that
    /// loaded but has an error across specs (a `$ref` to a missing file)
    /// still governs its artifacts.
    pub invalid_specs: Vec<InvalidSpec>,
    /// Spec files deleted on this branch: what they governed is now governed
    /// by no spec of theirs; review whether that is intended.
    pub deleted_specs: Vec<String>,
}

/// A spec governing changed files, with the context needed to review them.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AffectedSpec {
    /// Path of the spec file.
    pub spec_path: String,
    /// The spec's intent.
    pub intent: String,
    /// The spec's behaviors as written.
    pub behaviors: Vec<Behavior>,
    /// The spec's constraints.
    pub constraints: Vec<String>,
    /// The spec's invariants.
    pub invariants: Vec<String>,
    /// The changed files that made this spec affected.
    pub matched_files: Vec<String>,
}

/// An error of a spec file that fails `notarai validate`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct InvalidSpec {
    /// Path of the spec file.
    pub spec_path: String,
    /// What is wrong, as `path:line:col: message`.
    pub error: String,
}

/// Result of `get_spec_diff`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecDiff {
    /// Unified diff (git's format) of the files in `files`; binary and very
    /// large files are left out.
    pub diff: String,
    /// Changed non-spec files governed by the spec that need review.
    pub files: Vec<String>,
    /// Changed governed files whose content matches the hash cache or the
    /// committed `.notarai/reconciliation_state.json` (already reconciled).
    pub skipped: Vec<String>,
    /// The `exclude_patterns` as given.
    pub excluded: Vec<String>,
    /// Full content of each changed governed spec file (the spec itself included).
    pub spec_changes: Vec<SpecFile>,
    /// The system spec: full content, only `path` when it is in `spec_changes`,
    /// `null` when `spec_changes` is empty.
    pub system_spec: Option<SystemSpec>,
    /// Files of `files` whose content is binary (not in `diff`), large ones included.
    pub binary_changes: Vec<String>,
    /// Text files of `files` larger than 8 MiB (not in `diff`).
    pub large_changes: Vec<String>,
    /// For each file of `files`, the artifact category that governs it.
    pub file_categories: BTreeMap<String, String>,
}

/// A spec file and its full content.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecFile {
    /// Path of the spec file.
    pub path: String,
    /// Full text of the file (empty when deleted).
    pub content: String,
    /// `true` when the spec file was deleted on this branch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
}

/// The system spec as returned by `get_spec_diff`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SystemSpec {
    /// Path of the system spec.
    pub path: String,
    /// Full text; absent when the same content is already in `spec_changes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// Result of `get_changed_artifacts`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedArtifacts {
    /// Governed files that exist now and differ from both the hash cache and
    /// the committed state (all of them when neither has them), sorted.
    pub changed_artifacts: Vec<String>,
}

/// Result of `mark_reconciled`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MarkReconciled {
    /// Number of files hashed and stored.
    pub updated: usize,
    /// Number of paths that do not exist, remembered as reconciled while deleted.
    pub deleted: usize,
    /// What the snapshot wrote, when `snapshot` was `true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<crate::state::SnapshotSummary>,
}

/// Result of `clear_cache`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CacheCleared {
    /// `true` when a cache database existed and was removed.
    pub cleared: bool,
}

// ----------------------------------------------------------------- questions

/// Which specs govern the files changed on this branch.
pub fn list_affected_specs(
    project: &mut Project,
    params: &ListAffectedSpecsParams,
) -> Result<AffectedSpecs> {
    let specs = project.specs();
    let root = project.root().to_path_buf();
    let git = project.git()?;
    let base = git.resolve_base(&params.base_branch)?;
    let changes = git.changes(&base, &Scope::Everything, false)?;
    let changed_files = changes.paths();
    let mut matched: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for path in &changed_files {
        for spec in specs.governance().governors(path) {
            matched.entry(spec).or_default().push(path.clone());
        }
    }
    let affected_specs = matched
        .into_iter()
        .map(|(index, matched_files)| {
            let loaded = &specs.set.specs[index];
            AffectedSpec {
                spec_path: loaded.path.clone(),
                intent: loaded.spec.intent.clone(),
                behaviors: loaded.spec.behaviors.clone(),
                constraints: loaded.spec.constraints.clone(),
                invariants: loaded.spec.invariants.clone(),
                matched_files,
            }
        })
        .collect();
    let deleted_specs = changed_files
        .iter()
        .filter(|p| spec::is_spec_path(p) && std::fs::symlink_metadata(root.join(p)).is_err())
        .cloned()
        .collect();
    Ok(AffectedSpecs {
        deleted_specs,
        changed_files,
        affected_specs,
        invalid_specs: invalid_specs(&specs),
    })
}

/// The errors of the specs that fail, for every answer that lists specs:
/// the same verdict as `notarai validate` ([`spec::SpecSet::errors`]).
pub fn invalid_specs(specs: &Specs) -> Vec<InvalidSpec> {
    specs
        .set
        .errors()
        .into_iter()
        .map(|f| InvalidSpec {
            spec_path: f.path.clone(),
            error: f.to_string(),
        })
        .collect()
}

/// The changed files one spec governs, minus what the cache says was
/// already reconciled, with their diff.
pub fn get_spec_diff(project: &mut Project, params: &GetSpecDiffParams) -> Result<SpecDiff> {
    let specs = project.specs();
    let index = spec_index(project, &specs, &params.spec_path)?;
    let exclude = ExcludeMatcher::new(&params.exclude_patterns)?;
    let root = project.root().to_path_buf();
    let git = project.git()?;
    let base = git.resolve_base(&params.base_branch)?;
    let changes = git.changes(&base, specs.governance().scope(index), true)?;

    // The changed files this spec governs, each with its governed paths.
    let candidates: Vec<(&crate::changes::ChangedFile, Vec<&str>)> = changes
        .files
        .iter()
        .filter_map(|file| {
            let governed: Vec<&str> = file
                .paths()
                .filter(|p| specs.governance().category(index, p).is_some() && !exclude.is_match(p))
                .collect();
            (!governed.is_empty()).then_some((file, governed))
        })
        .collect();

    // Hash what is there now, once per path, in parallel.
    let mut paths: Vec<&str> = candidates
        .iter()
        .flat_map(|(_, g)| g.iter().copied())
        .collect();
    paths.sort_unstable();
    paths.dedup();
    let fs_paths: Vec<_> = paths.iter().map(|p| root.join(p)).collect();
    let mut now: HashMap<&str, FileHash> = HashMap::with_capacity(paths.len());
    for (path, hash) in paths.iter().zip(hashing::hash_many(&fs_paths)) {
        let hash = hash.map_err(|e| ReviewError::Internal(format!("cannot read {path}: {e}")))?;
        now.insert(path, hash);
    }
    // Reconciled per the local cache or the committed state.
    let known = (!params.bypass_cache).then(|| Reconciled::lookup(&root, paths.iter().copied()));
    let reconciled = |p: &str| match (now.get(p).and_then(FileHash::cache_value), &known) {
        (Some(current), Some(known)) => known.matches(p, current),
        _ => false,
    };

    let mut out = SpecDiff {
        diff: String::new(),
        files: Vec::new(),
        skipped: Vec::new(),
        excluded: params.exclude_patterns.clone(),
        spec_changes: Vec::new(),
        system_spec: None,
        binary_changes: Vec::new(),
        large_changes: Vec::new(),
        file_categories: BTreeMap::new(),
    };
    for (file, governed) in candidates {
        if governed.iter().all(|p| reconciled(p)) {
            out.skipped.extend(governed.iter().map(|p| p.to_string()));
            continue;
        }
        let (spec_paths, other): (Vec<&str>, Vec<&str>) =
            governed.iter().partition(|p| spec::is_spec_path(p));
        for path in spec_paths {
            let (content, deleted) = match read_unfollowed(&root.join(path)) {
                Some(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), false),
                None => (String::new(), true),
            };
            out.spec_changes.push(SpecFile {
                path: path.to_string(),
                content,
                deleted,
            });
        }
        if other.is_empty() {
            continue;
        }
        for path in &other {
            out.files.push(path.to_string());
            if let Some(category) = specs.governance().category(index, path) {
                out.file_categories
                    .insert(path.to_string(), category.to_string());
            }
        }
        match changes.patch(file)? {
            Patch::Text(text) => out.diff.push_str(&text),
            Patch::Binary => out
                .binary_changes
                .extend(other.iter().map(|p| p.to_string())),
            Patch::TooLarge => out
                .large_changes
                .extend(other.iter().map(|p| p.to_string())),
        }
    }
    for list in [
        &mut out.files,
        &mut out.skipped,
        &mut out.binary_changes,
        &mut out.large_changes,
    ] {
        list.sort();
        list.dedup();
    }
    out.spec_changes.sort_by(|a, b| a.path.cmp(&b.path));
    out.spec_changes.dedup_by(|a, b| a.path == b.path);
    if !out.spec_changes.is_empty()
        && let Some(system) = specs.set.system_spec()
    {
        let included = out.spec_changes.iter().any(|s| s.path == system.path);
        out.system_spec = Some(SystemSpec {
            path: system.path.clone(),
            content: (!included).then(|| system.raw.clone()),
        });
    }
    Ok(out)
}

/// The spec's governed files that exist now and differ from the cache.
pub fn get_changed_artifacts(
    project: &mut Project,
    params: &GetChangedArtifactsParams,
) -> Result<ChangedArtifacts> {
    let specs = project.specs();
    let index = spec_index(project, &specs, &params.spec_path)?;
    let loaded = &specs.set.specs[index];
    if let Some(kind) = &params.artifact_type
        && kind != governance::SELF_CATEGORY
        && !loaded.spec.artifacts.contains_key(kind)
    {
        let known: Vec<&str> = loaded.spec.artifacts.keys().map(String::as_str).collect();
        return Err(ReviewError::InvalidParams(format!(
            "artifact_type: spec {} has no artifact category `{kind}`; its categories are: {}",
            loaded.path,
            known.join(", ")
        )));
    }
    let root = project.root().to_path_buf();
    let git = project.git()?;
    let universe = git.files(specs.governance().scope(index))?;
    let governed: Vec<String> = universe
        .into_iter()
        .filter(|p| {
            let categories = specs.governance().categories(index, p);
            match params.artifact_type.as_deref() {
                Some(kind) => categories.contains(&kind),
                None => !categories.is_empty(),
            }
        })
        .collect();
    let fs_paths: Vec<_> = governed.iter().map(|p| root.join(p)).collect();
    let hashes = hashing::hash_many(&fs_paths);
    let known = Reconciled::lookup(&root, governed.iter().map(String::as_str));
    let mut changed_artifacts = Vec::new();
    for (path, hash) in governed.iter().zip(hashes) {
        let hash = hash.map_err(|e| ReviewError::Internal(format!("cannot read {path}: {e}")))?;
        if let FileHash::Content(current) = hash
            && !known.matches(path, &current)
        {
            changed_artifacts.push(path.clone());
        }
    }
    Ok(ChangedArtifacts { changed_artifacts })
}

/// Hash the given files and store them in the cache in one transaction.
/// Every path is checked before anything is written: one path outside the
/// repository fails the whole call.
pub fn mark_reconciled(
    project: &mut Project,
    params: &MarkReconciledParams,
) -> Result<MarkReconciled> {
    let root = project.root().to_path_buf();
    let mut guard = Guard::new(&root);
    let mut paths: Vec<RepoPath> = Vec::with_capacity(params.files.len());
    for input in &params.files {
        let path = guard.resolve_unfollowed(input).map_err(|e| {
            ReviewError::InvalidParams(format!("files: `{}`: {e}", input.escape_debug()))
        })?;
        paths.push(path);
    }
    paths.sort();
    paths.dedup();
    let fs_paths: Vec<_> = paths.iter().map(|p| p.to_fs(&root)).collect();
    let mut entries = Vec::with_capacity(paths.len());
    let (mut updated, mut deleted) = (0, 0);
    for (path, hash) in paths.iter().zip(hashing::hash_many(&fs_paths)) {
        let hash = hash.map_err(|e| ReviewError::Internal(format!("cannot read {path}: {e}")))?;
        match &hash {
            FileHash::Content(_) => updated += 1,
            FileHash::Missing => deleted += 1,
            FileHash::NotAFile => {
                tracing::info!("mark_reconciled: {path} is not a file; skipped");
                continue;
            }
        }
        if let Some(value) = hash.cache_value() {
            entries.push((path.as_str().to_string(), value.to_string()));
        }
    }
    if !entries.is_empty() {
        let mut cache =
            Cache::open_write(&root).map_err(|e| ReviewError::Internal(e.to_string()))?;
        cache
            .store(&entries)
            .map_err(|e| ReviewError::Internal(e.to_string()))?;
    }
    let snapshot = match params.snapshot {
        true => Some(
            crate::state::snapshot(&root, project.git()?, false)
                .map_err(|e| ReviewError::Internal(e.to_string()))?,
        ),
        false => None,
    };
    Ok(MarkReconciled {
        updated,
        deleted,
        snapshot,
    })
}

/// Delete the cache database.
pub fn clear_cache(project: &mut Project) -> Result<CacheCleared> {
    let cleared = Cache::clear(project.root()).map_err(|e| ReviewError::Internal(e.to_string()))?;
    Ok(CacheCleared { cleared })
}

/// A file's content as git sees it: a symbolic link is its target text,
/// never what it points to (which may lie outside the repository). `None`
/// when nothing is there.
fn read_unfollowed(path: &std::path::Path) -> Option<Vec<u8>> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if meta.file_type().is_symlink() {
        return std::fs::read_link(path)
            .ok()
            .map(|t| t.as_os_str().as_encoded_bytes().to_vec());
    }
    std::fs::read(path).ok()
}

/// Resolve `spec_path` to a loaded spec, or say precisely why not.
fn spec_index(project: &Project, specs: &Specs, spec_path: &str) -> Result<usize> {
    let path = RepoPath::resolve(project.root(), spec_path).map_err(|e| {
        ReviewError::InvalidParams(format!("spec_path: `{}`: {e}", spec_path.escape_debug()))
    })?;
    if let Some(index) = specs.governance().spec_index(path.as_str()) {
        return Ok(index);
    }
    if let Some(failure) = specs.set.invalid.iter().find(|f| f.path == path.as_str()) {
        return Err(ReviewError::InvalidParams(format!(
            "spec_path: {path} failed to load and cannot be diffed until fixed: {failure}"
        )));
    }
    const SHOWN: usize = 20;
    let known: Vec<&str> = specs.set.specs.iter().map(|s| s.path.as_str()).collect();
    let mut list = known
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if known.len() > SHOWN {
        list.push_str(&format!(" and {} more", known.len() - SHOWN));
    }
    if known.is_empty() {
        list = "none (create .notarai/*.spec.yaml files, or run `notarai init`)".into();
    }
    Err(ReviewError::InvalidParams(format!(
        "spec_path: `{path}` is not a spec of this repository; known specs: {list}"
    )))
}

/// `exclude_patterns` with git's `:(exclude)` pathspec meaning.
///
/// As git matches a pathspec item: a pattern that equals the path, or names a
/// folder above it, matches literally (so `src/x[1].rs` and `app/{id}` need no
/// escaping); otherwise it is a wildcard match over the whole path where `*`
/// and `?` also match `/`, `[...]` is a class, and braces are plain text.
struct ExcludeMatcher {
    literals: Vec<String>,
    globs: globset::GlobSet,
}

impl ExcludeMatcher {
    fn new(patterns: &[String]) -> Result<ExcludeMatcher> {
        let mut literals = Vec::new();
        let mut set = GlobSetBuilder::new();
        for given in patterns {
            let mut pattern = given
                .strip_prefix(":(exclude)")
                .or_else(|| given.strip_prefix(":!"))
                .unwrap_or(given);
            while let Some(rest) = pattern.strip_prefix("./") {
                pattern = rest;
            }
            if pattern.is_empty() {
                return Err(ReviewError::InvalidParams(format!(
                    "exclude_patterns: `{}` is empty and would exclude everything",
                    given.escape_debug()
                )));
            }
            literals.push(pattern.to_string());
            if pattern.contains(['*', '?', '[']) {
                let escaped = pattern.replace('{', "\\{").replace('}', "\\}");
                let glob = globset::GlobBuilder::new(&escaped)
                    .literal_separator(false)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| {
                        ReviewError::InvalidParams(format!(
                            "exclude_patterns: `{}`: {}",
                            given.escape_debug(),
                            e.kind()
                        ))
                    })?;
                set.add(glob);
            }
        }
        let globs = set
            .build()
            .map_err(|e| ReviewError::InvalidParams(format!("exclude_patterns: {e}")))?;
        Ok(ExcludeMatcher { literals, globs })
    }

    fn is_match(&self, path: &str) -> bool {
        self.literals
            .iter()
            .any(|lit| governance::is_under(path, lit))
            || self.globs.is_match(path)
    }
}
