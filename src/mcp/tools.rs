//! The five tools of the contract: their declarations and their dispatch.
//!
//! Each tool's `inputSchema` and `outputSchema` are generated from the same
//! parameter and result types that [`crate::review`] uses, so the schemas
//! cannot drift from the code. Handlers are thin: decode the arguments, run
//! the domain function on the blocking pool, encode the typed result as both
//! `structuredContent` and a text block.

use std::sync::{Arc, Mutex};

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::project::Project;
use crate::review::{self, ReviewError};

/// Parameters of `clear_cache`: none.
#[derive(Debug, Clone, serde::Deserialize, JsonSchema)]
pub struct ClearCacheParams {}

/// Names of the tools, in the order of a reconciliation pass.
pub const TOOL_NAMES: [&str; 5] = [
    "list_affected_specs",
    "get_spec_diff",
    "get_changed_artifacts",
    "mark_reconciled",
    "clear_cache",
];

/// The tool declarations served by `tools/list`.
pub fn tools() -> Vec<Tool> {
    vec![
        declare::<review::ListAffectedSpecsParams, review::AffectedSpecs>(
            "list_affected_specs",
            "List affected specs",
            "Start of a reconciliation pass: which specs govern the files changed on this branch. \
             Changes are counted from the merge base with `base_branch` and include staged, unstaged \
             and untracked work and deletions. Returns `changed_files`, `affected_specs` (each with \
             its intent, behaviors, constraints, invariants and the `matched_files` that made it \
             affected) and `invalid_specs` (spec files that failed to load, with the error). Next, \
             call `get_spec_diff` for each affected spec.",
            ToolAnnotations::with_title("List affected specs")
                .read_only(true)
                .open_world(false),
        ),
        declare::<review::GetSpecDiffParams, review::SpecDiff>(
            "get_spec_diff",
            "Diff of one spec's changed files",
            "The changes one spec must be checked against: the unified diff of the changed files it \
             governs, leaving out files whose content was already reconciled (listed in `skipped`). \
             `spec_changes` holds the full text of changed spec files, `system_spec` the system \
             spec for context. Compare the diff with the spec's behaviors, constraints and \
             invariants, propose updates to spec, code or docs, and after the human approves, call \
             `mark_reconciled` with the files reviewed. Use `exclude_patterns` for lock files and \
             generated output.",
            ToolAnnotations::with_title("Diff of one spec's changed files")
                .read_only(true)
                .open_world(false),
        ),
        declare::<review::GetChangedArtifactsParams, review::ChangedArtifacts>(
            "get_changed_artifacts",
            "Changed artifacts of a spec",
            "The files a spec governs (optionally of one category such as `docs`) that exist now and \
             differ from the last reconciliation, whatever the branch. On a cold cache every governed \
             file is listed. Use it to find docs and other artifacts that need a look.",
            ToolAnnotations::with_title("Changed artifacts of a spec")
                .read_only(true)
                .open_world(false),
        ),
        declare::<review::MarkReconciledParams, review::MarkReconciled>(
            "mark_reconciled",
            "Mark files reconciled",
            "End of a reconciliation pass: record the current content (BLAKE3) of the files reviewed, \
             so later `get_spec_diff` calls skip them until they change again. Paths are relative to \
             the repository root; a path that no longer exists is remembered as reconciled while \
             deleted. Returns `updated` (files hashed) and `deleted`.",
            ToolAnnotations::with_title("Mark files reconciled")
                .read_only(false)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        ),
        declare::<ClearCacheParams, review::CacheCleared>(
            "clear_cache",
            "Clear the reconciliation cache",
            "Delete the reconciliation cache, so the next `get_spec_diff` shows every changed governed \
             file again. Prefer `bypass_cache: true` on `get_spec_diff` for a one-off full view. \
             Returns `cleared: true` when a cache existed.",
            ToolAnnotations::with_title("Clear the reconciliation cache")
                .read_only(false)
                .destructive(true)
                .idempotent(true)
                .open_world(false),
        ),
    ]
}

fn declare<P: JsonSchema + 'static, R: JsonSchema + 'static>(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    annotations: ToolAnnotations,
) -> Tool {
    Tool::new(name, description, JsonObject::new())
        .with_title(title)
        .with_input_schema::<P>()
        .with_output_schema::<R>()
        .with_annotations(annotations)
}

/// Run the tool `name` with `arguments` against the project.
pub async fn call(
    project: Arc<Mutex<Project>>,
    name: &str,
    arguments: Option<JsonObject>,
) -> Result<CallToolResult, ErrorData> {
    match name {
        "list_affected_specs" => run(project, name, arguments, review::list_affected_specs).await,
        "get_spec_diff" => run(project, name, arguments, review::get_spec_diff).await,
        "get_changed_artifacts" => {
            run(project, name, arguments, review::get_changed_artifacts).await
        }
        "mark_reconciled" => run(project, name, arguments, review::mark_reconciled).await,
        "clear_cache" => {
            run(project, name, arguments, |p, _: &ClearCacheParams| {
                review::clear_cache(p)
            })
            .await
        }
        other => Err(ErrorData::invalid_params(
            format!(
                "unknown tool `{}`; this server has: {}",
                other.escape_debug(),
                TOOL_NAMES.join(", ")
            ),
            None,
        )),
    }
}

/// Decode, run on the blocking pool, encode.
async fn run<P, R, F>(
    project: Arc<Mutex<Project>>,
    tool: &str,
    arguments: Option<JsonObject>,
    f: F,
) -> Result<CallToolResult, ErrorData>
where
    P: DeserializeOwned + Send + 'static,
    R: Serialize + Send + 'static,
    F: FnOnce(&mut Project, &P) -> Result<R, ReviewError> + Send + 'static,
{
    let params: P = decode(tool, arguments)?;
    let outcome = tokio::task::spawn_blocking(move || {
        let mut project = project
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut project, &params)
    })
    .await;
    let result = match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(ReviewError::InvalidParams(message))) => {
            return Err(ErrorData::invalid_params(message, None));
        }
        Ok(Err(ReviewError::Internal(message))) => {
            return Err(ErrorData::internal_error(message, None));
        }
        Err(join) => {
            tracing::error!("{tool} failed: {join}");
            return Err(ErrorData::internal_error(
                format!("{tool} failed unexpectedly: {join}"),
                None,
            ));
        }
    };
    let value = serde_json::to_value(result).map_err(|e| {
        ErrorData::internal_error(format!("{tool}: cannot encode the result: {e}"), None)
    })?;
    Ok(CallToolResult::structured(value))
}

/// Decode tool arguments; the error names the parameter that is missing or wrong.
pub fn decode<P: DeserializeOwned>(
    tool: &str,
    arguments: Option<JsonObject>,
) -> Result<P, ErrorData> {
    let value = serde_json::Value::Object(arguments.unwrap_or_default());
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = if path == "." {
            format!("{tool}: invalid arguments: {inner}")
        } else {
            format!("{tool}: invalid parameter `{path}`: {inner}")
        };
        ErrorData::invalid_params(message, None)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_names_the_parameter() {
        let args = |v: serde_json::Value| v.as_object().cloned();
        let err = decode::<review::GetSpecDiffParams>(
            "get_spec_diff",
            args(serde_json::json!({"spec_path": "x"})),
        )
        .unwrap_err();
        assert!(err.message.contains("base_branch"), "{}", err.message);
        let err = decode::<review::GetSpecDiffParams>(
            "get_spec_diff",
            args(serde_json::json!({"spec_path": 5, "base_branch": "main"})),
        )
        .unwrap_err();
        assert!(err.message.contains("`spec_path`"), "{}", err.message);
        let err = decode::<review::MarkReconciledParams>(
            "mark_reconciled",
            args(serde_json::json!({"files": [1]})),
        )
        .unwrap_err();
        assert!(err.message.contains("files[0]"), "{}", err.message);
    }

    #[test]
    fn every_tool_declares_schemas() {
        for tool in tools() {
            assert!(tool.output_schema.is_some(), "{}", tool.name);
            assert_eq!(
                tool.input_schema.get("type").and_then(|t| t.as_str()),
                Some("object")
            );
        }
    }
}
