//! The whole review context at once (`notarai export-context`), for an LLM
//! without MCP: the answers of `list_affected_specs` and of `get_spec_diff`
//! for each affected spec, whole (unpaged), from the same functions the
//! tools call.

use schemars::JsonSchema;
use serde::Serialize;

use super::{
    AffectedSpecs, GetSpecDiffParams, Result, ReviewError, SpecDiff, spec_index,
    whole_affected_specs, whole_spec_diff,
};
use crate::progress::Progress;
use crate::project::Project;

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct ExportParams {
    /// The base changes are counted from (default: as `list_affected_specs`
    /// chooses it).
    pub base_branch: Option<String>,
    /// Only these specs (repository paths); every affected spec when empty.
    pub specs: Vec<String>,
}

/// The exported context.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ExportContext {
    /// `list_affected_specs`' whole answer; with `specs` asked for, only
    /// those in `affected_specs`.
    pub affected: AffectedSpecs,
    /// Specs asked for that no change on the branch affects.
    pub not_affected: Vec<String>,
    /// For each affected spec with files not reconciled yet, in the order of
    /// `affected.affected_specs`: `get_spec_diff`'s whole answer (reconciled
    /// files are in its `skipped`, not in its `diff`).
    pub specs: Vec<SpecContext>,
}

/// One spec's diff.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SpecContext {
    /// The spec's path.
    pub spec_path: String,
    /// `get_spec_diff`'s whole answer for it.
    pub diff: SpecDiff,
}

/// The affected specs (or those of `params.specs`) and, for each with work
/// left, the diff of its changed files that are not reconciled yet.
pub fn export_context(
    project: &mut Project,
    params: &ExportParams,
    progress: &Progress,
) -> Result<ExportContext> {
    let specs = project.specs();
    let mut wanted = Vec::with_capacity(params.specs.len());
    for given in &params.specs {
        let index = spec_index(project, &specs, given).map_err(|e| {
            let message = e.message.replacen("spec_path:", "--spec:", 1);
            let hint = e.hint.clone().unwrap_or_else(|| {
                "name a spec by its path from the repository root, such as \
                 .notarai/core.spec.yaml; `notarai validate` checks them all"
                    .into()
            });
            ReviewError::invalid(message).hinted(hint)
        })?;
        wanted.push(specs.set.specs[index].path.clone());
    }
    drop(specs);
    let mut affected = whole_affected_specs(project, params.base_branch.as_deref(), progress)?;
    if !wanted.is_empty() {
        affected
            .affected_specs
            .retain(|spec| wanted.contains(&spec.spec_path));
    }
    let mut not_affected: Vec<String> = wanted
        .into_iter()
        .filter(|path| !affected.affected_specs.iter().any(|s| &s.spec_path == path))
        .collect();
    not_affected.sort();
    not_affected.dedup();
    let mut out = Vec::new();
    for spec in &affected.affected_specs {
        if spec.all_reconciled {
            continue;
        }
        let diff_params = GetSpecDiffParams {
            spec_path: spec.spec_path.clone(),
            base_branch: params.base_branch.clone(),
            exclude_patterns: Vec::new(),
            bypass_cache: false,
            include_formatting: false,
            since: Default::default(),
            already_read: Vec::new(),
            specs_read: Vec::new(),
            full_lists: true,
            max_tokens: None,
            cursor: None,
        };
        out.push(SpecContext {
            spec_path: spec.spec_path.clone(),
            diff: whole_spec_diff(project, &diff_params, progress)?,
        });
    }
    Ok(ExportContext {
        affected,
        not_affected,
        specs: out,
    })
}
