//! One spec's changed files and their diff (`get_spec_diff`).

use std::collections::HashMap;

use super::exclude::ExcludeMatcher;
use super::{
    GetSpecDiffParams, Result, SpecDiff, choose_base, hash_now, pages, quiet, spec_index,
    spec_text, symbolic, unreviewable,
};
use std::path::Path;

use crate::changes::{Base, ChangeKind, ChangeSet, ChangedFile, GitRepo, Patch};
use crate::hashing::FileHash;
use crate::progress::Progress;
use crate::project::{Project, Specs};
use crate::spec;
use crate::state::Reconciled;

mod emptied;
mod since;

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
        &params.specs_read,
        params.full_lists,
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
            (&params.specs_read, params.full_lists),
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
    // Judged by the spec as it is now and at the merge base.
    let specs = super::against_base::specs(specs, git, &base);
    let changes = git.changes(&base, specs.governance().scope(index), true)?;
    let (candidates, excluded) = candidates(&specs, index, &exclude, &changes);
    // A file of this spec deleted in the spec's part of the tree may have
    // moved out of it: the whole tree's changes, with renames, tell.
    let whole = if candidates
        .iter()
        .any(|(f, _)| f.status == ChangeKind::Deleted)
    {
        Some(git.changes(&base, &crate::governance::Scope::Everything, true)?)
    } else {
        None
    };
    let mut work = Work {
        params,
        specs: &specs,
        index,
        spec_path: specs.governance().spec_path(index),
        root: &root,
        git,
        base: &base,
        changes: &changes,
        whole: whole.as_ref(),
        already_read: params
            .already_read
            .iter()
            .map(|entry| match entry.rsplit_once('@') {
                Some((path, id)) => (path, Some(id)),
                None => (entry.as_str(), None),
            })
            .collect(),
        known: None,
        now: HashMap::new(),
    };
    work.hash(&candidates, progress)?;
    // A base the agent named is not echoed back (the status gives it).
    let chosen = params.base_branch.is_none().then_some(used);
    let mut out = SpecDiff::empty(chosen, excluded);
    out.excluded = params.exclude_patterns.clone();
    out.unreviewable = unreviewable(&changes, |p| {
        specs.governance().category(index, p).is_some() && !exclude.is_match(p)
    });
    // The files to be shown, outlined on all cores first (their hunks are
    // named by symbol): what the loop below skips is not parsed.
    let to_show: Vec<&ChangedFile> = candidates
        .iter()
        .filter(|(file, governed)| work.shown(file, governed))
        .map(|(file, _)| *file)
        .collect();
    symbolic::outline_ahead(&root, git, &base, &to_show);
    progress.stage("diffing files");
    let mut patches: Vec<pages::FilePatch> = Vec::new();
    for (file, governed) in &candidates {
        progress.check()?;
        progress.advance(1);
        patches.extend(work.file(&mut out, file, governed)?);
    }
    // The end of the stage is told, however quick it was.
    progress.flush();
    work.tests_only(&mut out, &mut patches);
    work.emptied_globs(&mut out, &candidates)?;
    work.finish(&mut out);
    Ok((out, patches))
}

/// The changed files the spec `index` governs, each with its governed
/// paths; and the governed paths `exclude_patterns` leaves out, by name.
fn candidates<'c>(
    specs: &Specs,
    index: usize,
    exclude: &ExcludeMatcher,
    changes: &'c ChangeSet<'_>,
) -> (Vec<(&'c ChangedFile, Vec<&'c str>)>, Vec<String>) {
    let mut excluded: Vec<String> = Vec::new();
    let candidates = changes
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
    (candidates, excluded)
}

/// Both sides of a changed file (when its language is outlined) and a
/// patch between them.
type Shown = (Option<symbolic::Sides>, Patch);

/// What every step of one spec's diff reads: the question, the spec, the
/// repository and its changes, and what is reconciled.
struct Work<'a, 'g> {
    params: &'a GetSpecDiffParams,
    specs: &'a Specs,
    index: usize,
    spec_path: &'a str,
    root: &'a Path,
    git: &'g GitRepo,
    base: &'a Base,
    changes: &'a ChangeSet<'g>,
    /// The whole tree's changes, when a file of the spec was deleted.
    whole: Option<&'a ChangeSet<'g>>,
    /// `already_read` as given: each path with its content id (`None` for
    /// a bare path, which counts for nothing).
    already_read: HashMap<&'a str, Option<&'a str>>,
    /// Reconciled per the local cache (unless git tracks it) or the
    /// committed state; `None` when the cache is bypassed.
    known: Option<Reconciled>,
    /// Each governed path's hash now.
    now: HashMap<&'a str, FileHash>,
}

impl<'a, 'g> Work<'a, 'g> {
    /// Hash what is there now, once per path, in parallel, and look up
    /// what is reconciled.
    fn hash(
        &mut self,
        candidates: &[(&'a ChangedFile, Vec<&'a str>)],
        progress: &Progress,
    ) -> Result<()> {
        let mut paths: Vec<&str> = candidates
            .iter()
            .flat_map(|(_, g)| g.iter().copied())
            .collect();
        paths.sort_unstable();
        paths.dedup();
        progress.begin((paths.len() + candidates.len()) as u64, "hashing files");
        self.now.reserve(paths.len());
        for (path, hash) in paths
            .iter()
            .zip(hash_now(self.root, Some(self.git), &paths, progress)?)
        {
            self.now.insert(path, hash?);
        }
        self.known = (!self.params.bypass_cache).then(|| {
            Reconciled::trusted(self.root, self.git, Some(self.base), paths.iter().copied())
        });
        Ok(())
    }

    /// Whether `path`'s content now is reconciled for this spec.
    fn reconciled(&self, path: &str) -> bool {
        match (
            self.now.get(path).and_then(FileHash::cache_value),
            &self.known,
        ) {
            (Some(current), Some(known)) => {
                known.matches_for(self.git.symbols(), self.spec_path, path, current)
            }
            _ => false,
        }
    }

    /// The rename that moved the deleted `file` out of the spec's files.
    fn moved(&self, file: &ChangedFile) -> Option<&'a ChangedFile> {
        if file.status != ChangeKind::Deleted {
            return None;
        }
        self.whole?.files.iter().find(|w| {
            w.status == ChangeKind::Renamed && w.old_path.as_deref() == Some(file.path.as_str())
        })
    }

    /// Whether `file`, shown from the base, has now the program of a
    /// content a proven review for this spec names: formatting-only since
    /// that review (`symbolic::reviewed`, as the status and `check` judge it).
    fn same_as_reviewed(&self, file: &ChangedFile) -> bool {
        let Some(known) = self
            .known
            .as_ref()
            .filter(|_| !self.params.include_formatting)
        else {
            return false;
        };
        let reviewed = known.proven_contents(self.git, self.spec_path, &file.path);
        !reviewed.is_empty()
            && symbolic::reviewed::content_in_place(self.root, self.git, self.changes, &file.path)
                .is_some_and(|now| {
                    symbolic::reviewed::same_as_reviewed(self.git, &file.path, &reviewed, &now)
                })
    }

    /// Whether the housekeeping rules of the spec cover every path.
    fn housekeeping(&self, paths: &[&str]) -> bool {
        paths
            .iter()
            .all(|p| self.specs.governance().is_housekeeping(self.index, p))
    }

    /// Whether [`Work::file`] will show `file`'s diff (as far as can be
    /// told before diffing it): the files outlined ahead.
    fn shown(&self, file: &ChangedFile, governed: &[&str]) -> bool {
        let other: Vec<&str> = governed
            .iter()
            .copied()
            .filter(|p| !spec::is_spec_path(p))
            .collect();
        !governed.iter().all(|p| self.reconciled(p))
            && !other.is_empty()
            && self.moved(file).is_none()
            && !self.housekeeping(&other)
            && !other.iter().all(|p| self.read_before(p))
    }

    /// The id of `path`'s content now, as `read_ids` gives it.
    fn read_id(&self, path: &str) -> Option<String> {
        Some(super::read_id(self.now.get(path)?.cache_value()?))
    }

    /// Whether `already_read` names `path` with the id of its content now:
    /// its diff, as it is now, was in an earlier answer of this pass.
    fn read_before(&self, path: &str) -> bool {
        matches!(
            (self.already_read.get(path), self.read_id(path)),
            (Some(Some(given)), Some(now)) if *given == now
        )
    }

    /// Why `already_read` names `path` and its diff is shown anyway.
    fn read_again(&self, path: &str) -> Option<String> {
        match self.already_read.get(path)? {
            None => Some(
                "a bare path says which file, not which content you read: pass `path@id` from \
                 `read_ids`"
                    .into(),
            ),
            Some(_) if !self.read_before(path) => Some(
                "the file changed after you read its diff (its content has another id now)".into(),
            ),
            Some(_) => None,
        }
    }

    /// One changed file of the spec: its spec files' text, or why it is
    /// not diffed, or its patch (with the lists it belongs to).
    fn file(
        &self,
        out: &mut SpecDiff,
        file: &ChangedFile,
        governed: &[&str],
    ) -> Result<Option<pages::FilePatch>> {
        if governed.iter().all(|p| self.reconciled(p)) {
            out.skipped.extend(governed.iter().map(|p| p.to_string()));
            return Ok(None);
        }
        let (spec_paths, other): (Vec<&str>, Vec<&str>) =
            governed.iter().partition(|p| spec::is_spec_path(p));
        self.spec_files(out, &spec_paths);
        if other.is_empty() {
            return Ok(None);
        }
        // Housekeeping (no review needed): named, not diffed.
        if self.housekeeping(&other) {
            for path in &other {
                if let Some(reason) = quiet::tier(self.specs.governance(), self.index, path) {
                    out.housekeeping_reasons.insert(path.to_string(), reason);
                }
                out.housekeeping.push(path.to_string());
            }
            return Ok(None);
        }
        // Read already in this pass, for another spec, as it is now:
        // named, not diffed.
        if other.iter().all(|p| self.read_before(p)) {
            out.already_read.extend(other.iter().map(|p| p.to_string()));
            return Ok(None);
        }
        let (sides, patch, since) = self.sides_and_patch(out, file)?;
        let judged = since.as_ref().map_or(&patch, |(_, p)| p);
        if self.versions_only(out, file, &other, judged) {
            return Ok(None);
        }
        // Each hunk named by its symbol; for an anchored spec only the hunks
        // touching its symbols; a formatting-only change set apart. The
        // verdict is the status's and `check`'s (`symbolic::decide`, from
        // the base); a diff since the reviewed content only shows it.
        let anchors = symbolic::spec_anchors(self.specs.governance(), self.index, &other);
        if let (Some(sides), Some(anchors)) = (&sides, &anchors)
            && let Some(why) = sides.whole_file_because(anchors)
        {
            out.whole_file_because.insert(file.path.clone(), why);
        }
        match symbolic::view(
            sides.as_ref(),
            patch,
            anchors.as_deref(),
            self.params.include_formatting,
        ) {
            symbolic::View::Show(..) if self.same_as_reviewed(file) => {
                out.formatting_only
                    .extend(other.iter().map(|p| p.to_string()));
                Ok(None)
            }
            symbolic::View::Show(patch, narrowed) => {
                let patch = self.since_view(out, file, patch, since, &anchors);
                // A read id says the file's whole diff from the base was
                // read: not one narrowed to anchors, cut of formatting or
                // started at a review (another spec may need more of it).
                let whole = !narrowed && !out.since_reconciled.contains(&file.path);
                Ok(Some(self.shown_patch(out, file, &other, patch, whole)))
            }
            symbolic::View::FormattingOnly => {
                out.formatting_only
                    .extend(other.iter().map(|p| p.to_string()));
                Ok(None)
            }
            symbolic::View::Untouched => {
                out.outside_anchors
                    .extend(other.iter().map(|p| p.to_string()));
                Ok(None)
            }
        }
    }

    /// The text of the spec files among a changed file's paths (deleted
    /// ones as such).
    fn spec_files(&self, out: &mut SpecDiff, spec_paths: &[&str]) {
        for path in spec_paths {
            out.spec_changes
                .push(spec_text::changed(self.git, self.base, self.root, path));
        }
    }

    /// A pin moved (dependency, tool or CI action): listed as housekeeping,
    /// not diffed. Whether it was.
    fn versions_only(
        &self,
        out: &mut SpecDiff,
        file: &ChangedFile,
        other: &[&str],
        patch: &Patch,
    ) -> bool {
        let Patch::Text(text) = patch else {
            return false;
        };
        let governance = self.specs.governance();
        if out.moved_out.contains_key(&file.path)
            || file.old_path.is_some()
            || !other
                .iter()
                .all(|p| quiet::versions_apply(governance, self.index, p))
            || !quiet::content_now(self.root, self.git, &file.path)
                .is_some_and(|new| quiet::versions_only(&file.path, text, &new))
        {
            return false;
        }
        out.since_reconciled.retain(|p| *p != file.path);
        for path in other {
            out.housekeeping.push(path.to_string());
            out.housekeeping_reasons
                .insert(path.to_string(), super::Quiet::Versions);
        }
        true
    }

    /// A file whose diff is shown: its paths listed (with the other specs
    /// sharing each and its category) and its patch, or the list saying
    /// why there is none (binary, too large).
    fn shown_patch(
        &self,
        out: &mut SpecDiff,
        file: &ChangedFile,
        other: &[&str],
        patch: Patch,
        whole: bool,
    ) -> pages::FilePatch {
        let governance = self.specs.governance();
        for path in other {
            let others: Vec<String> = governance
                .governors(path)
                .into_iter()
                .filter(|&g| g != self.index)
                .map(|g| governance.spec_path(g).to_string())
                .collect();
            if !others.is_empty() {
                out.shared.insert(path.to_string(), others);
            }
            out.files.push(path.to_string());
            if let Some(id) = self.read_id(path).filter(|_| whole) {
                out.read_ids.push(format!("{path}@{id}"));
            }
            if let Some(why) = self.read_again(path) {
                out.read_again.insert(path.to_string(), why);
            }
            if let Some(category) = governance.category(self.index, path) {
                out.file_categories
                    .insert(path.to_string(), category.to_string());
            }
        }
        // A file git calls binary whose sides are text is shown as text.
        let patch = match patch {
            Patch::Binary => self
                .git
                .text_despite_binary(self.root, self.base, file)
                .unwrap_or(Patch::Binary),
            patch => patch,
        };
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
        pages::FilePatch {
            paths: other.iter().map(|p| p.to_string()).collect(),
            status: file.status,
            patch,
        }
    }

    /// Only tests changed for this spec (its own file did not): the
    /// evidence changed, not the behavior; listed as housekeeping, not
    /// diffed.
    fn tests_only(&self, out: &mut SpecDiff, patches: &mut Vec<pages::FilePatch>) {
        let to_review = out.files.iter().chain(&out.already_read);
        if !out.spec_changes.is_empty()
            || out.files.is_empty()
            || !quiet::tests_only(
                self.specs.governance(),
                self.index,
                to_review.map(String::as_str),
            )
        {
            return;
        }
        for path in std::mem::take(&mut out.files) {
            out.file_categories.remove(&path);
            out.shared.remove(&path);
            out.since_reconciled.retain(|p| *p != path);
            out.housekeeping_reasons
                .insert(path.clone(), super::Quiet::TestsOnly);
            out.housekeeping.push(path);
        }
        patches.clear();
        out.read_ids.clear();
        out.read_again.clear();
        out.binary_changes.clear();
        out.large_changes.clear();
    }

    /// Every list sorted, the spec's own text to judge the diff against
    /// and the system spec's ([`spec_text::add`]), `skipped` counted.
    fn finish(&self, out: &mut SpecDiff) {
        for list in [
            &mut out.files,
            &mut out.skipped,
            &mut out.formatting_only,
            &mut out.outside_anchors,
            &mut out.binary_changes,
            &mut out.large_changes,
            &mut out.excluded_files,
            &mut out.housekeeping,
            &mut out.since_reconciled,
            &mut out.already_read,
            &mut out.read_ids,
        ] {
            list.sort();
            list.dedup();
        }
        out.spec_changes.sort_by(|a, b| a.path.cmp(&b.path));
        out.spec_changes.dedup_by(|a, b| a.path == b.path);
        spec_text::add(out, self.specs, self.index, &self.params.specs_read);
        out.skipped_count = out.skipped.len();
        if !self.params.full_lists {
            out.skipped.clear();
        }
    }
}
