//! Which specs the branch affects (`list_affected_specs`) and the
//! reconciliation status, page by page.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{
    AffectedSpec, AffectedSpecs, ListAffectedSpecsParams, ReconciliationStatus, Result,
    ReviewError, choose_base, invalid_specs, pages, unreviewable,
};
use crate::governance::Scope;
use crate::page::MaxTokens;
use crate::progress::Progress;
use crate::project::Project;
use crate::state::{JudgeError, Reconciled};

/// The page of a reconciliation status named by `cursor` (the first
/// without): per-spec `unreconciled` lists cut across pages, `base` and
/// `totals` on every page.
pub fn status_page(
    full: ReconciliationStatus,
    args: &impl Serialize,
    max_tokens: Option<MaxTokens>,
    cursor: Option<&str>,
) -> Result<ReconciliationStatus> {
    pages::status(full, args, max_tokens, cursor).map_err(|e| ReviewError::invalid(e.to_string()))
}

// ----------------------------------------------------------------- questions

/// Which specs govern the files changed on this branch: the page
/// `params.cursor` names. Each governed file hashed advances `progress`; a
/// cancel stops the work.
pub fn list_affected_specs(
    project: &mut Project,
    params: &ListAffectedSpecsParams,
    progress: &Progress,
) -> Result<AffectedSpecs> {
    // Pages 2..N are copies of pages laid out, and kept, for page 1.
    let key = serde_json::json!([
        "list_affected_specs",
        &params.base_branch,
        params.include_formatting,
        params.max_tokens,
    ])
    .to_string();
    super::kept::page(project, key, params.cursor.as_deref(), |project| {
        let full = affected_specs_with(
            project,
            params.base_branch.as_deref(),
            params.include_formatting,
            progress,
        )?;
        let args = (&params.base_branch, params.max_tokens);
        Ok(pages::affected_specs_pages(full, &args, params.max_tokens))
    })
}

/// [`list_affected_specs`]' whole answer on one page, however long. For
/// `notarai export-context`, whose output is a file.
pub fn whole_affected_specs(
    project: &mut Project,
    base_branch: Option<&str>,
    progress: &Progress,
) -> Result<AffectedSpecs> {
    affected_specs_with(project, base_branch, false, progress)
}

/// [`whole_affected_specs`], showing formatting-only changes when
/// `include_formatting`.
fn affected_specs_with(
    project: &mut Project,
    base_branch: Option<&str>,
    include_formatting: bool,
    progress: &Progress,
) -> Result<AffectedSpecs> {
    let specs = project.specs();
    let root = project.root().to_path_buf();
    let git = project.git()?;
    let (base, used) = choose_base(&root, git, base_branch)?;
    // Judged by the specs as they are now and at the merge base.
    let specs = super::against_base::specs(specs, git, &base);
    let changes = git.changes(&base, &Scope::Everything, false)?;
    let changed_files = changes.paths();
    let governed: Vec<(String, Vec<usize>)> = changed_files
        .iter()
        .map(|p| (p.clone(), specs.governance().governors(p)))
        .filter(|(_, g)| !g.is_empty())
        .collect();
    let known = Reconciled::trusted(
        &root,
        git,
        Some(&base),
        governed.iter().map(|(p, _)| p.as_str()),
    );
    // Formatting-only changes (from the base, or from a proven review's
    // content) and anchored specs whose symbols no hunk touches.
    let narrowed = super::narrow(
        &root,
        git,
        &base,
        &changes,
        specs.governance(),
        &governed,
        include_formatting,
        Some(&known),
    );
    let governed: Vec<(&String, Vec<usize>)> = governed
        .iter()
        .filter_map(|(p, g)| {
            let kept = narrowed
                .affected
                .get(p)
                .cloned()
                .unwrap_or_else(|| g.clone());
            (!kept.is_empty()).then_some((p, kept))
        })
        .collect();
    let governed_paths: Vec<&str> = governed.iter().map(|(p, _)| p.as_str()).collect();
    progress.begin(governed_paths.len() as u64, "hashing changed files");
    // Reconciled per spec: a file reviewed for one spec is still new to another.
    let spec_paths: Vec<Vec<&str>> = governed
        .iter()
        .map(|(_, g)| g.iter().map(|&i| specs.governance().spec_path(i)).collect())
        .collect();
    let judged = known
        .judge_specs(&root, Some(git), &governed_paths, &spec_paths, progress)
        .map_err(|e| match e {
            JudgeError::Io(message) => ReviewError::internal(message),
            JudgeError::Cancelled(c) => c.into(),
        })?;
    let matched = by_spec(
        &root,
        git,
        &changes,
        specs.governance(),
        &governed,
        judged,
        &known,
    );
    let affected_specs = matched
        .into_iter()
        .map(|(index, judged)| affected_spec(&specs, index, judged))
        .collect();
    let deleted_specs = super::deleted_specs(&changes);
    Ok(AffectedSpecs {
        quiet_proofs: Default::default(),
        base: used,
        unreviewable: unreviewable(&changes, |_| true),
        deleted_specs,
        changed_count: changed_files.len(),
        changed_files,
        affected_specs,
        invalid_specs: invalid_specs(&specs),
        formatting_only: narrowed.formatting_only,
        broken_anchors: narrowed.broken,
        page: 1,
        pages: 1,
        next_cursor: None,
    })
}

/// One changed file as a spec sees it: its path, whether it is reconciled
/// for the spec, whether it is housekeeping for it.
type Judged = (String, bool, bool);

/// Each spec's changed files, judged: `judged` holds, for each governed
/// path, whether it is reconciled for each of its governors; a pin moved
/// or a housekeeping rule makes a file housekeeping.
fn by_spec(
    root: &std::path::Path,
    git: &crate::changes::GitRepo,
    changes: &crate::changes::ChangeSet<'_>,
    governance: &crate::governance::Governance,
    governed: &[(&String, Vec<usize>)],
    judged: Vec<Vec<bool>>,
    known: &Reconciled,
) -> BTreeMap<usize, Vec<Judged>> {
    let mut matched: BTreeMap<usize, Vec<Judged>> = BTreeMap::new();
    for ((path, governors), reconciled) in governed.iter().zip(judged) {
        for (&spec, reconciled) in governors.iter().zip(reconciled) {
            let housekeeping = governance.is_housekeeping(spec, path)
                || (!reconciled
                    && super::quiet::versions_only_change(
                        root,
                        git,
                        changes,
                        governance,
                        spec,
                        path,
                        Some(known),
                    ));
            matched
                .entry(spec)
                .or_default()
                .push(((*path).clone(), reconciled, housekeeping));
        }
    }
    matched
}

/// The spec `index` with its judged files: only tests left to review make
/// them housekeeping (the evidence changed, not the behavior); a spec with
/// nothing to review is said in one line.
fn affected_spec(
    specs: &crate::project::Specs,
    index: usize,
    mut judged: Vec<Judged>,
) -> AffectedSpec {
    let loaded = &specs.set.specs[index];
    let review = judged.iter().filter(|(_, r, h)| !r && !h);
    if super::quiet::tests_only(
        specs.governance(),
        index,
        review.map(|(p, _, _)| p.as_str()),
    ) {
        for entry in judged.iter_mut().filter(|(_, r, _)| !r) {
            entry.2 = true;
        }
    }
    let unreconciled_count = judged.iter().filter(|(_, r, h)| !r && !h).count();
    let housekeeping_count = judged.iter().filter(|(_, r, h)| !r && *h).count();
    let matched_count = judged.len();
    let all_reconciled = unreconciled_count == 0;
    let spec = (!all_reconciled).then_some(&loaded.spec);
    AffectedSpec {
        unreconciled_count,
        housekeeping_count,
        all_reconciled,
        spec_path: loaded.path.clone(),
        intent: spec.map(|s| s.intent.clone()).unwrap_or_default(),
        behaviors: spec.map(|s| s.behaviors.clone()).unwrap_or_default(),
        constraints: spec.map(|s| s.constraints.clone()).unwrap_or_default(),
        invariants: spec.map(|s| s.invariants.clone()).unwrap_or_default(),
        matched_count,
        matched_files: if all_reconciled {
            Vec::new()
        } else {
            judged.into_iter().map(|(p, _, _)| p).collect()
        },
        continued: false,
    }
}
