//! One spec's changed files and their diff (`get_spec_diff`).

use std::collections::{BTreeMap, HashMap};

use globset::GlobSetBuilder;

use super::{
    GetSpecDiffParams, Result, ReviewError, SpecDiff, SpecFile, SystemSpec, choose_base, hash_now,
    pages, quiet, spec_index, symbolic, unreviewable,
};
use crate::changes::Patch;
use crate::governance;
use crate::hashing::FileHash;
use crate::progress::Progress;
use crate::project::Project;
use crate::spec;
use crate::state::Reconciled;

/// The changed files one spec governs, minus what the cache says was
/// already reconciled, with their diff: the page `params.cursor` names.
/// Each path hashed and each file diffed advances `progress`; a cancel
/// stops the work.
pub fn get_spec_diff(
    project: &mut Project,
    params: &GetSpecDiffParams,
    progress: &Progress,
) -> Result<SpecDiff> {
    // Pages 2..N are copies of pages laid out, and kept, for page 1.
    let key = serde_json::json!([
        "get_spec_diff",
        &params.spec_path,
        &params.base_branch,
        &params.exclude_patterns,
        params.bypass_cache,
        params.include_formatting,
        params.since,
        &params.already_read,
        params.max_tokens,
    ])
    .to_string();
    super::kept::page(project, key, params.cursor.as_deref(), |project| {
        let (full, patches) = spec_diff_parts(project, params, progress)?;
        let args = (
            &params.spec_path,
            &params.base_branch,
            &params.exclude_patterns,
            params.bypass_cache,
            params.max_tokens,
            (params.since, &params.already_read),
        );
        Ok(pages::spec_diff_pages(
            full,
            patches,
            &args,
            params.max_tokens,
            progress,
        ))
    })
}

/// [`get_spec_diff`]'s whole answer on one page, however long (the diff of
/// every file, `plan` entries all on page 1); `max_tokens` and `cursor`
/// are ignored. For `notarai export-context`, whose output is a file.
pub fn whole_spec_diff(
    project: &mut Project,
    params: &GetSpecDiffParams,
    progress: &Progress,
) -> Result<SpecDiff> {
    let (full, patches) = spec_diff_parts(project, params, progress)?;
    Ok(pages::whole_spec_diff(full, patches))
}

/// The answer before paging: every field but `diff` and `plan`, and the
/// patches of the files to show.
fn spec_diff_parts(
    project: &mut Project,
    params: &GetSpecDiffParams,
    progress: &Progress,
) -> Result<(SpecDiff, Vec<pages::FilePatch>)> {
    let specs = project.specs();
    let index = spec_index(project, &specs, &params.spec_path)?;
    let exclude = ExcludeMatcher::new(&params.exclude_patterns)?;
    let root = project.root().to_path_buf();
    let git = project.git()?;
    let (base, used) = choose_base(&root, git, params.base_branch.as_deref())?;
    let changes = git.changes(&base, specs.governance().scope(index), true)?;

    // The changed files this spec governs, each with its governed paths;
    // the governed paths `exclude_patterns` leaves out, by name.
    let mut excluded: Vec<String> = Vec::new();
    let candidates: Vec<(&crate::changes::ChangedFile, Vec<&str>)> = changes
        .files
        .iter()
        .filter_map(|file| {
            let (governed, left_out): (Vec<&str>, Vec<&str>) = file
                .paths()
                .filter(|p| specs.governance().category(index, p).is_some())
                .partition(|p| !exclude.is_match(p));
            excluded.extend(left_out.into_iter().map(str::to_string));
            (!governed.is_empty()).then_some((file, governed))
        })
        .collect();
    let already_read: Vec<&str> = params.already_read.iter().map(String::as_str).collect();
    // A file of this spec deleted in the spec's part of the tree may have
    // moved out of it: the whole tree's changes, with renames, tell.
    let whole = if candidates
        .iter()
        .any(|(f, _)| f.status == crate::changes::ChangeKind::Deleted)
    {
        Some(git.changes(&base, &crate::governance::Scope::Everything, true)?)
    } else {
        None
    };
    let moved = |file: &crate::changes::ChangedFile| {
        (file.status == crate::changes::ChangeKind::Deleted)
            .then(|| {
                whole.as_ref()?.files.iter().find(|w| {
                    w.status == crate::changes::ChangeKind::Renamed
                        && w.old_path.as_deref() == Some(file.path.as_str())
                })
            })
            .flatten()
    };

    // Hash what is there now, once per path, in parallel.
    let mut paths: Vec<&str> = candidates
        .iter()
        .flat_map(|(_, g)| g.iter().copied())
        .collect();
    paths.sort_unstable();
    paths.dedup();
    progress.begin((paths.len() + candidates.len()) as u64, "hashing files");
    let mut now: HashMap<&str, FileHash> = HashMap::with_capacity(paths.len());
    for (path, hash) in paths
        .iter()
        .zip(hash_now(&root, Some(git), &paths, progress)?)
    {
        now.insert(path, hash?);
    }
    // Reconciled per the local cache (unless git tracks it) or the committed state.
    let known =
        (!params.bypass_cache).then(|| Reconciled::trusted(&root, git, paths.iter().copied()));
    let spec_path = specs.governance().spec_path(index);
    let reconciled = |p: &str| match (now.get(p).and_then(FileHash::cache_value), &known) {
        (Some(current), Some(known)) => known.matches_for(spec_path, p, current),
        _ => false,
    };

    let mut patches: Vec<pages::FilePatch> = Vec::new();
    let mut out = SpecDiff {
        base: used,
        diff: String::new(),
        files: Vec::new(),
        plan: Some(Vec::new()),
        spec: None,
        page: 1,
        pages: 1,
        next_cursor: None,
        skipped: Vec::new(),
        excluded,
        housekeeping: Vec::new(),
        housekeeping_reasons: BTreeMap::new(),
        since_reconciled: Vec::new(),
        already_read: Vec::new(),
        shared: BTreeMap::new(),
        moved_out: BTreeMap::new(),
        spec_changes: Vec::new(),
        system_spec: None,
        binary_changes: Vec::new(),
        large_changes: Vec::new(),
        file_categories: BTreeMap::new(),
        unreviewable: unreviewable(&changes, |p| {
            specs.governance().category(index, p).is_some() && !exclude.is_match(p)
        }),
        formatting_only: Vec::new(),
        outside_anchors: Vec::new(),
    };
    // The files to be shown, outlined on all cores first (their hunks are
    // named by symbol): what the loop below skips is not parsed.
    let to_show: Vec<&crate::changes::ChangedFile> = candidates
        .iter()
        .filter(|(file, governed)| {
            let other: Vec<&str> = governed
                .iter()
                .copied()
                .filter(|p| !spec::is_spec_path(p))
                .collect();
            !governed.iter().all(|p| reconciled(p))
                && !other.is_empty()
                && moved(file).is_none()
                && !other
                    .iter()
                    .all(|p| specs.governance().is_housekeeping(index, p))
                && !other.iter().all(|p| already_read.contains(p))
        })
        .map(|(file, _)| *file)
        .collect();
    symbolic::outline_ahead(&root, git, &base, &to_show);
    progress.stage("diffing files");
    for (file, governed) in candidates {
        progress.check()?;
        progress.advance(1);
        if governed.iter().all(|p| reconciled(p)) {
            out.skipped.extend(governed.iter().map(|p| p.to_string()));
            continue;
        }
        let (spec_paths, other): (Vec<&str>, Vec<&str>) =
            governed.iter().partition(|p| spec::is_spec_path(p));
        for path in spec_paths {
            let bytes = git
                .skip_worktree_content(path)
                .or_else(|| read_unfollowed(&root, path));
            let (content, deleted) = match bytes {
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
        // Housekeeping (no review needed): named, not diffed.
        if other
            .iter()
            .all(|p| specs.governance().is_housekeeping(index, p))
        {
            out.housekeeping.extend(other.iter().map(|p| p.to_string()));
            continue;
        }
        // Read already in this pass, for another spec: named, not diffed.
        if other.iter().all(|p| already_read.contains(p)) {
            out.already_read.extend(other.iter().map(|p| p.to_string()));
            continue;
        }
        // Since the content last reconciled for this spec, when it is kept.
        let since = (params.since == super::Since::Reconciled)
            .then(|| since_reconciled(&root, git, file, known.as_ref()?, spec_path))
            .flatten();
        // Each hunk named by its symbol; for an anchored spec only the hunks
        // touching its symbols; a formatting-only change set apart.
        let anchors = symbolic::spec_anchors(specs.governance(), index, &other);
        let (sides, patch) = match (since, moved(file)) {
            (Some((sides, patch)), _) => {
                out.since_reconciled.push(file.path.clone());
                (sides, patch)
            }
            // Moved out of the spec's files: shown as the rename it is.
            (None, Some(renamed)) => {
                out.moved_out
                    .insert(file.path.clone(), renamed.path.clone());
                let whole = whole.as_ref().expect("a move was found in it");
                (
                    symbolic::sides(&root, git, &base, renamed),
                    whole.patch(renamed)?,
                )
            }
            (None, None) => (
                symbolic::sides(&root, git, &base, file),
                changes.patch(file)?,
            ),
        };
        // A pin moved (dependency, tool or CI action): listed, not diffed.
        if let Patch::Text(text) = &patch
            && !out.moved_out.contains_key(&file.path)
            && other
                .iter()
                .all(|p| quiet::versions_apply(specs.governance(), index, p))
            && quiet::versions_only(text)
        {
            out.since_reconciled.retain(|p| *p != file.path);
            for path in &other {
                out.housekeeping.push(path.to_string());
                out.housekeeping_reasons
                    .insert(path.to_string(), super::Quiet::Versions);
            }
            continue;
        }
        let patch = match symbolic::view(
            sides.as_ref(),
            patch,
            anchors.as_deref(),
            params.include_formatting,
        ) {
            symbolic::View::Show(patch) => patch,
            symbolic::View::FormattingOnly => {
                out.formatting_only
                    .extend(other.iter().map(|p| p.to_string()));
                continue;
            }
            symbolic::View::Untouched => {
                out.outside_anchors
                    .extend(other.iter().map(|p| p.to_string()));
                continue;
            }
        };
        for path in &other {
            let others: Vec<String> = specs
                .governance()
                .governors(path)
                .into_iter()
                .filter(|&g| g != index)
                .map(|g| specs.governance().spec_path(g).to_string())
                .collect();
            if !others.is_empty() {
                out.shared.insert(path.to_string(), others);
            }
            out.files.push(path.to_string());
            if let Some(category) = specs.governance().category(index, path) {
                out.file_categories
                    .insert(path.to_string(), category.to_string());
            }
        }
        let patch = match patch {
            Patch::Text(text) => Some(text),
            Patch::Binary => {
                out.binary_changes
                    .extend(other.iter().map(|p| p.to_string()));
                None
            }
            Patch::TooLarge => {
                out.large_changes
                    .extend(other.iter().map(|p| p.to_string()));
                None
            }
        };
        patches.push(pages::FilePatch {
            paths: other.iter().map(|p| p.to_string()).collect(),
            status: file.status,
            patch,
        });
    }
    // Only tests changed for this spec (its own file did not): the
    // evidence changed, not the behavior; listed, not diffed.
    let to_review = out.files.iter().chain(&out.already_read);
    if out.spec_changes.is_empty()
        && !out.files.is_empty()
        && quiet::tests_only(specs.governance(), index, to_review.map(String::as_str))
    {
        for path in std::mem::take(&mut out.files) {
            out.file_categories.remove(&path);
            out.shared.remove(&path);
            out.since_reconciled.retain(|p| *p != path);
            out.housekeeping_reasons
                .insert(path.clone(), super::Quiet::TestsOnly);
            out.housekeeping.push(path);
        }
        patches.clear();
        out.binary_changes.clear();
        out.large_changes.clear();
    }
    // What to judge the diff (and the files read for another spec)
    // against, once: the spec's own text.
    let own_changed = out.spec_changes.iter().any(|s| s.path == spec_path);
    if (!out.files.is_empty() || !out.already_read.is_empty()) && !own_changed {
        let spec = &specs.set.specs[index].spec;
        out.spec = Some(super::SpecSays {
            intent: spec.intent.clone(),
            behaviors: spec.behaviors.clone(),
            constraints: spec.constraints.clone(),
            invariants: spec.invariants.clone(),
        });
    }
    for list in [
        &mut out.files,
        &mut out.skipped,
        &mut out.formatting_only,
        &mut out.outside_anchors,
        &mut out.binary_changes,
        &mut out.large_changes,
        &mut out.excluded,
        &mut out.housekeeping,
        &mut out.since_reconciled,
        &mut out.already_read,
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
    Ok((out, patches))
}

/// The diff of `file` from the content last reconciled for `spec` to the
/// work tree's, with both sides outlined: `None` when the file is not
/// modified in place, no reviewed content is kept, or it cannot be read
/// (the diff then starts from the base).
fn since_reconciled(
    root: &std::path::Path,
    git: &crate::changes::GitRepo,
    file: &crate::changes::ChangedFile,
    known: &Reconciled,
    spec: &str,
) -> Option<(Option<symbolic::Sides>, Patch)> {
    if file.old_path.is_some()
        || !matches!(
            file.status,
            crate::changes::ChangeKind::Modified | crate::changes::ChangeKind::Added
        )
    {
        return None;
    }
    let blob = known.reviewed_blob(spec, &file.path)?;
    let old = crate::state::reviewed_content(git, blob)?;
    let new = crate::safe_fs::read(
        root,
        std::path::Path::new(&file.path),
        crate::changes::MAX_DIFF_FILE,
    )
    .ok()?;
    let patch = crate::changes::patch_between(&file.path, &old, &new).ok()?;
    Some((symbolic::sides_of(&file.path, &old, &new), patch))
}

/// A file's content as git sees it: a symbolic link is its target text,
/// never what it points to (which may lie outside the repository), and a
/// path through a linked folder is not there. `None` when nothing is there.
fn read_unfollowed(root: &std::path::Path, rel: &str) -> Option<Vec<u8>> {
    // The one bounded, non-blocking reader: a spec swapped for a FIFO, a
    // device or a huge file is described, never opened or read whole.
    match crate::safe_fs::read_unfollowed(root, rel, spec::MAX_BYTES as u64) {
        Ok(bytes) => Some(bytes),
        Err(crate::safe_fs::FsError::NotFound { .. }) => None,
        Err(e) => Some(format!("(notarai did not read this file: {e})").into_bytes()),
    }
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
