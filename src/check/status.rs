//! The reconciliation status: the changed files since a base, each judged
//! per governing spec (reconciled, housekeeping, to review), per spec and in
//! totals; behind `get_reconciliation_status` and the counts of `check`.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;

use crate::changes::{Base, ChangeSet, GitRepo};
use crate::governance::{Governance, Scope, is_under};
use crate::progress::Progress;
use crate::project::Project;
use crate::spec::{self, CACHE_DIR, SpecSet};
use crate::state::{self, JudgeError, Reconciled, STATE_FILE, State, choose_base};

use super::CheckError;

// -------------------------------------------------------------------- status

use crate::review::quiet::{self, Quiet};
use crate::review::{ReconciliationStatus, SpecStatus, Totals};

/// One changed file, judged.
#[derive(Debug)]
pub(super) struct Assessed {
    pub(super) path: String,
    pub(super) governors: Vec<usize>,
    /// Reconciled for every governor (for an ungoverned file: reviewed).
    pub(super) reconciled: bool,
    /// Reconciled for each governor, in `governors`' order.
    pub(super) reconciled_for: Vec<bool>,
    /// Housekeeping for each governor ([`Governance::is_housekeeping`]),
    /// in `governors`' order: no review needed, a warning when unreconciled.
    pub(super) housekeeping_for: Vec<bool>,
    /// For each governor, why the file is housekeeping: its proof
    /// (`review::quiet`), in `governors`' order.
    pub(super) reasons_for: Vec<Option<Quiet>>,
}

impl Assessed {
    /// Keep only the governors in `kept` (with their judgements).
    fn narrow_to(&mut self, kept: &[usize]) {
        let mut keep = self.governors.iter().map(|g| kept.contains(g));
        let mut keep2 = self.governors.iter().map(|g| kept.contains(g));
        let mut keep3 = self.governors.iter().map(|g| kept.contains(g));
        self.reconciled_for.retain(|_| keep.next().unwrap_or(false));
        self.housekeeping_for
            .retain(|_| keep2.next().unwrap_or(false));
        self.reasons_for.retain(|_| keep3.next().unwrap_or(false));
        self.governors.retain(|g| kept.contains(g));
        self.reconciled = self.reconciled_for.iter().all(|r| *r);
    }

    /// Whether the file needs a review for some governor: unreconciled and
    /// not housekeeping for it.
    fn needs_review(&self) -> bool {
        self.reconciled_for
            .iter()
            .zip(&self.housekeeping_for)
            .any(|(r, h)| !r && !h)
    }
}

/// The changed files since `base` (the state file and the cache left out),
/// with their governors and whether each is reconciled, and the reviews
/// that count for them (for [`by_symbols`]).
pub(super) fn assess(
    root: &Path,
    git: &GitRepo,
    base: &Base,
    changes: &ChangeSet<'_>,
    governance: &Governance,
    state: State,
    progress: &Progress,
) -> Result<(Vec<Assessed>, Reconciled), CheckError> {
    let paths: Vec<String> = changes
        .paths()
        .into_iter()
        .filter(|p| p != STATE_FILE && !is_under(p, CACHE_DIR))
        .collect();
    let known = Reconciled::with_state(
        root,
        git,
        Some(base),
        paths.iter().map(String::as_str),
        state,
    );
    progress.begin(paths.len() as u64, "hashing changed files");
    let governors: Vec<Vec<usize>> = paths.iter().map(|p| governance.governors(p)).collect();
    let spec_paths: Vec<Vec<&str>> = governors
        .iter()
        .map(|g| g.iter().map(|&i| governance.spec_path(i)).collect())
        .collect();
    let judged = known
        .judge_specs(root, Some(git), &paths, &spec_paths, progress)
        .map_err(|e| match e {
            JudgeError::Io(message) => CheckError::Io(message),
            JudgeError::Cancelled(c) => CheckError::Cancelled(c),
        })?;
    let mut out = Vec::with_capacity(paths.len());
    for ((path, governors), reconciled_for) in paths.into_iter().zip(governors).zip(judged) {
        let mut reasons_for = vec![None; governors.len()];
        let housekeeping_for = governors
            .iter()
            .zip(&reconciled_for)
            .zip(&mut reasons_for)
            .map(|((&g, &reconciled), reason)| {
                if let Some(tier) = quiet::tier(governance, g, &path) {
                    *reason = Some(tier);
                    return true;
                }
                let versions = !reconciled
                    && quiet::versions_only_change(
                        root,
                        git,
                        changes,
                        governance,
                        g,
                        &path,
                        Some(&known),
                    );
                if versions {
                    *reason = Some(Quiet::Versions);
                }
                versions
            })
            .collect();
        out.push(Assessed {
            housekeeping_for,
            reasons_for,
            reconciled: reconciled_for.iter().all(|r| *r),
            reconciled_for: if governors.is_empty() {
                Vec::new()
            } else {
                reconciled_for
            },
            governors,
            path,
        });
    }
    Ok((out, known))
}

/// The assessed files narrowed by their symbols (`review::narrow`): a
/// formatting-only change and an anchored spec whose symbols no hunk
/// touches are not counted, nor a spec whose proven review the file now
/// has the program of (`known`); a file left with no spec drops out.
#[allow(clippy::too_many_arguments)]
pub(super) fn by_symbols(
    root: &Path,
    git: &GitRepo,
    base: &crate::changes::Base,
    changes: &ChangeSet<'_>,
    governance: &Governance,
    assessed: Vec<Assessed>,
    include_formatting: bool,
    known: &Reconciled,
) -> (Vec<Assessed>, crate::review::Narrowed) {
    // A file reconciled for every spec needs no verdict (nothing would
    // change), unless a spec anchors it: its anchors may have broken.
    let anchored = |a: &Assessed| {
        a.governors
            .iter()
            .any(|&g| governance.anchors(g, &a.path).is_some())
    };
    let governed: Vec<(String, Vec<usize>)> = assessed
        .iter()
        .filter(|a| !a.governors.is_empty() && !spec::is_spec_path(&a.path))
        .filter(|a| !a.reconciled || anchored(a))
        .map(|a| (a.path.clone(), a.governors.clone()))
        .collect();
    let narrowed = crate::review::narrow(
        root,
        git,
        base,
        changes,
        governance,
        &governed,
        include_formatting,
        Some(known),
    );
    let mut assessed: Vec<Assessed> = assessed
        .into_iter()
        .filter_map(|mut a| match narrowed.affected.get(&a.path) {
            Some(kept) if kept.is_empty() => None,
            Some(kept) => {
                a.narrow_to(kept);
                Some(a)
            }
            None => Some(a),
        })
        .collect();
    quiet_tests(governance, &mut assessed);
    (assessed, narrowed)
}

/// The tests-only rule (`review::quiet`): for each spec whose files left
/// to review are all its tests, they become housekeeping for it.
fn quiet_tests(governance: &Governance, assessed: &mut [Assessed]) {
    let mut specs: Vec<usize> = assessed
        .iter()
        .flat_map(|a| a.governors.iter().copied())
        .collect();
    specs.sort_unstable();
    specs.dedup();
    for g in specs {
        let review = assessed.iter().filter_map(|a| {
            let i = a.governors.iter().position(|&x| x == g)?;
            (!a.reconciled_for[i] && !a.housekeeping_for[i]).then_some(a.path.as_str())
        });
        if !quiet::tests_only(governance, g, review) {
            continue;
        }
        for a in assessed.iter_mut() {
            if let Some(i) = a.governors.iter().position(|&x| x == g)
                && !a.reconciled_for[i]
                && !a.housekeeping_for[i]
            {
                a.housekeeping_for[i] = true;
                a.reasons_for[i] = Some(Quiet::TestsOnly);
            }
        }
    }
}

pub(super) fn per_spec(set: &SpecSet, assessed: &[Assessed]) -> (Vec<SpecStatus>, Totals) {
    let mut specs: BTreeMap<usize, SpecStatus> = BTreeMap::new();
    let mut totals = Totals {
        changed_files: assessed.len(),
        ..Totals::default()
    };
    for file in assessed {
        if file.governors.is_empty() {
            continue;
        }
        totals.governed_files += 1;
        if file.reconciled {
            totals.reconciled += 1;
        } else if file.needs_review() {
            totals.unreconciled += 1;
        } else {
            totals.housekeeping += 1;
        }
        for (((&g, &reconciled), &housekeeping), reason) in file
            .governors
            .iter()
            .zip(&file.reconciled_for)
            .zip(&file.housekeeping_for)
            .zip(&file.reasons_for)
        {
            let entry = specs.entry(g).or_insert_with(|| SpecStatus {
                spec_path: set.specs[g].path.clone(),
                unreconciled: Vec::new(),
                unreconciled_count: 0,
                reconciled: 0,
                all_reconciled: true,
                housekeeping: Vec::new(),
                housekeeping_reasons: BTreeMap::new(),
                continued: false,
            });
            if reconciled {
                entry.reconciled += 1;
            } else if housekeeping {
                entry.housekeeping.push(file.path.clone());
                if let Some(reason) = reason {
                    entry
                        .housekeeping_reasons
                        .insert(file.path.clone(), *reason);
                }
            } else {
                entry.unreconciled.push(file.path.clone());
                entry.unreconciled_count += 1;
                entry.all_reconciled = false;
            }
        }
    }
    // Say it once: a spec with nothing left is only counted.
    let (mut specs, done): (Vec<SpecStatus>, Vec<SpecStatus>) = specs
        .into_values()
        .partition(|s| !s.all_reconciled || !s.housekeeping.is_empty());
    totals.reconciled_specs = done.len();
    specs.sort_by(|a, b| a.spec_path.cmp(&b.spec_path));
    (specs, totals)
}

/// Per affected spec, the unreconciled files and the count of reconciled
/// ones since `base_branch` (default: as `check` chooses it). A malformed
/// state file does not fail the call: it is ignored and named in
/// `state_problem`. Behind the MCP tool `get_reconciliation_status`, and the
/// per-spec counts `list_affected_specs` can add.
pub fn status(
    project: &mut Project,
    base_branch: Option<&str>,
    progress: &Progress,
) -> Result<ReconciliationStatus, CheckError> {
    status_with(project, base_branch, false, progress)
}

/// [`status`], counting formatting-only changes when `include_formatting`.
pub fn status_with(
    project: &mut Project,
    base_branch: Option<&str>,
    include_formatting: bool,
    progress: &Progress,
) -> Result<ReconciliationStatus, CheckError> {
    let specs = project.specs();
    let root = project.root().to_path_buf();
    let state_problem = state::problem(&root);
    let state = state::read_lenient(&root);
    let git = project.git()?;
    let (base, used) = choose_base(git, &state, base_branch)?;
    // Judged by the specs as they are now and at the merge base.
    let specs = crate::review::against_base::specs(specs, git, &base);
    let decisions =
        crate::review::decisions::added_since(&state, &super::claims::state_at_base(git, &base));
    let changes = git.changes(&base, &Scope::Everything, false)?;
    let (assessed, known) = assess(
        &root,
        git,
        &base,
        &changes,
        specs.governance(),
        state,
        progress,
    )?;
    // Formatting-only files already recorded need no word again.
    let recorded: std::collections::HashSet<String> = assessed
        .iter()
        .filter(|a| a.reconciled && !a.governors.is_empty())
        .map(|a| a.path.clone())
        .collect();
    let (assessed, narrowed) = by_symbols(
        &root,
        git,
        &base,
        &changes,
        specs.governance(),
        assessed,
        include_formatting,
        &known,
    );
    let invalid_specs: Vec<String> = crate::review::invalid_specs(&specs)
        .into_iter()
        .map(|i| i.spec_path)
        .collect();
    let deleted_specs = crate::review::deleted_specs(&changes);
    let notes = crate::review::open_notes(&state::read_lenient(&root));
    let (per, totals) = per_spec(&specs.set, &assessed);
    let top_scores = super::score::status_scores(
        &root,
        specs.governance(),
        &per,
        &notes,
        &state::read_lenient(&root),
        TOP_SCORES,
    );
    let specs = per;
    Ok(ReconciliationStatus {
        quiet_proofs: Default::default(),
        base: used,
        nothing_to_review: totals.unreconciled == 0
            && invalid_specs.is_empty()
            && deleted_specs.is_empty()
            && state_problem.is_none(),
        invalid_specs,
        deleted_specs,
        specs,
        totals,
        state_problem,
        formatting_only: narrowed
            .formatting_only
            .into_iter()
            .filter(|p| !recorded.contains(p))
            .collect(),
        broken_anchors: narrowed.broken,
        outside_anchors: narrowed.outside_anchors,
        whole_file_because: narrowed.whole_file,
        drift_notes: notes,
        decisions,
        top_scores,
        page: 1,
        pages: 1,
        next_cursor: None,
    })
}

/// How many drift scores the status shows at most.
const TOP_SCORES: usize = 3;

// ----------------------------------------------------------- the MCP faces

/// Parameters of the MCP tool `get_reconciliation_status`.
#[derive(Debug, Clone, serde::Deserialize, JsonSchema)]
pub struct StatusParams {
    /// The branch (or tag, or commit) this branch merges into. When omitted:
    /// on the default branch the committed state's last reconciliation when
    /// reachable, else `main`, `origin/main`, `master`, `origin/master`.
    /// The answer's `base` says which was used.
    #[serde(default)]
    pub base_branch: Option<String>,
    /// `true` to count files changed in formatting or comments only (equal
    /// programs); by default they affect no spec and are listed in
    /// `formatting_only`.
    #[serde(default)]
    pub include_formatting: bool,
    /// Budget of one page in tokens (3 bytes each); see `next_cursor`.
    #[serde(default)]
    pub max_tokens: Option<crate::page::MaxTokens>,
    /// The `next_cursor` of the previous page, to get the next one; omit for the first page.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// A [`CheckError`] as the tool says it: a missing base names the
/// parameter; anything else keeps its kind and hint.
fn tool_error(e: CheckError) -> crate::error::Error {
    match e {
        CheckError::NoBase => crate::error::Error::invalid(format!("base_branch: {e}")),
        e => e.into(),
    }
}

/// The MCP tool `mark_reconciled`: the record
/// ([`crate::review::mark_reconciled`]), then how many changed files are
/// left to review for the pass's base (`left`), so a pass that is done
/// needs no status call to know it.
pub fn mark_tool(
    project: &mut Project,
    params: &crate::review::MarkReconciledParams,
    progress: &Progress,
) -> Result<crate::review::MarkReconciled, crate::review::ReviewError> {
    let mut recorded = crate::review::mark_reconciled(project, params, progress)?;
    recorded.left = status_with(project, params.base_branch.as_deref(), false, progress)
        .ok()
        .map(|s| s.totals.unreconciled);
    Ok(recorded)
}

/// The MCP tool `get_reconciliation_status`: [`status`] with the tools' error type.
pub fn status_tool(
    project: &mut Project,
    params: &StatusParams,
    progress: &Progress,
) -> Result<ReconciliationStatus, crate::review::ReviewError> {
    let full = status_with(
        project,
        params.base_branch.as_deref(),
        params.include_formatting,
        progress,
    )
    .map_err(tool_error)?;
    let args = (&params.base_branch, params.max_tokens);
    crate::review::status_page(full, &args, params.max_tokens, params.cursor.as_deref())
}
