//! The tools of the server: their declarations and their dispatch.
//!
//! Each tool's `inputSchema` and `outputSchema` are generated from the same
//! parameter and result types that [`crate::review`] uses, so the schemas
//! cannot drift from the code. Handlers are thin: decode the arguments, run
//! the domain function on the blocking pool, encode the typed result as both
//! `structuredContent` and a text block.

use std::sync::{Arc, LazyLock};

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::ErrorKind;
use crate::progress::Progress;
use crate::project::Project;
use crate::review::{self, ReviewError};

/// Parameters of `clear_cache`: none.
#[derive(Debug, Clone, serde::Deserialize, JsonSchema)]
pub struct ClearCacheParams {}

/// Whether a tool only reads, or changes the reconciliation cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reads only: runs on the reading project, side by side with a write
    /// (see [`super::projects`]).
    ReadOnly,
    /// Writes the cache or the state: runs on the writing project, after
    /// the tool calls sent before it (see [`super::projects`]).
    Write {
        /// Whether it removes what earlier calls recorded.
        destructive: bool,
    },
}

/// A type-erased tool handler: decode the arguments, run (reporting to the
/// progress given), encode.
type Handler = Box<
    dyn Fn(&mut Project, Option<JsonObject>, &Progress) -> Result<CallToolResult, ErrorData>
        + Send
        + Sync,
>;

/// One tool of the surface, declared once: its name, title, description,
/// schemas (from the Rust types), access and handler.
pub struct ToolDef {
    /// The name clients call it by.
    pub name: &'static str,
    /// Whether it only reads.
    pub access: Access,
    tool: Tool,
    handler: Handler,
}

impl ToolDef {
    /// A tool whose work is short: it reports no progress and runs to the end.
    fn new<P, R>(
        name: &'static str,
        title: &'static str,
        description: &'static str,
        access: Access,
        f: fn(&mut Project, &P) -> Result<R, ReviewError>,
    ) -> ToolDef
    where
        P: JsonSchema + DeserializeOwned + 'static,
        R: JsonSchema + Serialize + 'static,
    {
        let run = move |project: &mut Project, params: &P, _: &Progress| f(project, params);
        ToolDef::build(name, title, description, access, run)
    }

    /// A tool whose work may be long: it reports progress and stops when
    /// the call is cancelled.
    fn tracked<P, R>(
        name: &'static str,
        title: &'static str,
        description: &'static str,
        access: Access,
        f: fn(&mut Project, &P, &Progress) -> Result<R, ReviewError>,
    ) -> ToolDef
    where
        P: JsonSchema + DeserializeOwned + 'static,
        R: JsonSchema + Serialize + 'static,
    {
        ToolDef::build(name, title, description, access, f)
    }

    fn build<P, R>(
        name: &'static str,
        title: &'static str,
        description: &'static str,
        access: Access,
        f: impl Fn(&mut Project, &P, &Progress) -> Result<R, ReviewError> + Send + Sync + 'static,
    ) -> ToolDef
    where
        P: JsonSchema + DeserializeOwned + 'static,
        R: JsonSchema + Serialize + 'static,
    {
        let annotations = ToolAnnotations::with_title(title).open_world(false);
        let annotations = match access {
            Access::ReadOnly => annotations.read_only(true),
            Access::Write { destructive } => annotations
                .read_only(false)
                .destructive(destructive)
                .idempotent(true),
        };
        let mut description = match crate::workflow::RECONCILE.tool_note(name) {
            Some(note) => format!("{description} {note}"),
            None => description.to_string(),
        };
        // The one tool whose answers give record verdicts says once what
        // they prove (its answers' `quiet_proofs` leave them out).
        if name == "get_spec_diff" {
            description.push(' ');
            description.push_str(&crate::review::proofs::record_proofs());
        }
        let mut tool = Tool::new(name, description, JsonObject::new())
            .with_title(title)
            .with_input_schema::<P>()
            .with_output_schema::<R>()
            .with_annotations(annotations);
        tool.input_schema = Arc::new(portable(tool.input_schema.as_ref().clone()));
        tool.output_schema = tool
            .output_schema
            .map(|schema| Arc::new(terse(portable(schema.as_ref().clone()))));
        let handler: Handler = Box::new(move |project, arguments, progress| {
            let params: P = decode(name, arguments)?;
            let result = f(project, &params, progress).map_err(rpc_error)?;
            let value = serde_json::to_value(result).map_err(|e| {
                ErrorData::internal_error(format!("{name}: cannot encode the result: {e}"), None)
            })?;
            Ok(CallToolResult::structured(value))
        });
        ToolDef {
            name,
            access,
            tool,
            handler,
        }
    }

    /// The declaration served by `tools/list`.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }
}

/// Any error as a JSON-RPC error: `-32602` for the caller's mistakes,
/// `-32603` for internal failures (its [`crate::error::Diagnose::kind`]); the
/// hint on its own line of the message and as `data.hint`.
pub fn rpc_error(e: impl Into<crate::error::Error>) -> ErrorData {
    let e: crate::error::Error = e.into();
    let data = e
        .hint
        .as_ref()
        .map(|hint| serde_json::json!({ "hint": hint }));
    match e.kind {
        ErrorKind::InvalidInput | ErrorKind::NotFound => {
            ErrorData::invalid_params(e.rpc_message(), data)
        }
        ErrorKind::Internal => ErrorData::internal_error(e.rpc_message(), data),
    }
}

fn clear_cache(
    project: &mut Project,
    _: &ClearCacheParams,
) -> Result<review::CacheCleared, ReviewError> {
    review::clear_cache(project)
}

/// The names of the tools that write (not read-only), in table order: what
/// a read-only server does not offer.
pub fn writing() -> Vec<&'static str> {
    TOOLS
        .iter()
        .filter(|t| matches!(t.access, Access::Write { .. }))
        .map(|t| t.name)
        .collect()
}

/// The tools, in the order of a reconciliation pass: the one table the
/// declarations, the dispatch and the line framing all read.
pub static TOOLS: LazyLock<Vec<ToolDef>> = LazyLock::new(|| {
    vec![
        ToolDef::tracked(
            "get_reconciliation_status",
            "Reconciliation status",
            "Where a reconciliation pass stands: per spec with something left, the changed files \
             it governs that are not reconciled yet (`unreconciled`) and how many are \
             (`reconciled`, `all_reconciled`), the files that need no review (`housekeeping`, \
             `housekeeping_reasons`), plus `totals` (specs with nothing left are only counted, \
             `reconciled_specs`), \
             `invalid_specs`, `deleted_specs` and `nothing_to_review` (when true the pass can \
             stop). A file counts as reconciled when its current content matches the local cache \
             or the committed `.notarai/reconciliation_state.json` for that spec, so a fresh \
             clone sees what the team reconciled. `base_branch` is optional; `base` says which \
             base was used and how it was chosen. `state_problem` names a malformed state file \
             (then ignored).",
            Access::ReadOnly,
            crate::check::status_tool,
        ),
        ToolDef::tracked(
            "list_affected_specs",
            "List affected specs",
            "Which specs govern the files changed on this branch. \
             Changes are counted from the merge base with `base_branch` and include staged, unstaged \
             and untracked work and deletions. Returns `changed_files`, `affected_specs` (each with \
             its intent, behaviors, constraints, invariants and the `matched_files` that made it \
             affected, `unreconciled_count` and `housekeeping_count` of them; a spec that is \
             `all_reconciled` is one line, without its texts), `invalid_specs` (errors of spec \
             files that fail `notarai validate`), `deleted_specs` and `base` (the base used: \
             `base_branch` is optional).",
            Access::ReadOnly,
            review::list_affected_specs,
        ),
        ToolDef::tracked(
            "get_spec_diff",
            "Diff of one spec's changed files",
            "The changes one spec must be checked against: the unified diff of the changed files it \
             governs, leaving out files whose content was already reconciled (counted in \
             `skipped_count`; `full_lists: true` lists them in `skipped`). A file \
             reconciled before and changed since is shown from its reconciled content \
             (`since_reconciled`; `since: \"base\"` for the whole branch diff). `spec` is the \
             spec's intent, behaviors, constraints and invariants to judge it against, and \
             `applied` the constraints and invariants of the cross-cutting specs it applies (with \
             their spec), once: name the specs whose text you hold in `specs_read` \
             (`path@text_id`; a bare path holds nothing) and it is left out (`spec_held`, `held`). \
             Files that \
             need no review are named in `housekeeping` (with `housekeeping_reasons` when no tier \
             says so: pinned versions moved, or only the spec's tests changed), files named in \
             `already_read` as `path@id` (copied from an answer's `read_ids`) are not diffed \
             again while their content keeps that id (a bare path or a changed file is shown \
             again, `read_again` says why), `shared` names the other specs of a file, `excluded` the files \
             `exclude_patterns` left out. `spec_changes` holds the full text of changed spec \
             files and their `diff` against the base, `system_spec` the system spec for context. `base_branch` is optional (chosen \
             as in `list_affected_specs`); `base` says which base was used when notarai chose it.",
            Access::ReadOnly,
            review::get_spec_diff,
        ),
        ToolDef::new(
            "get_changed_artifacts",
            "Changed artifacts of a spec",
            "The files a spec governs (optionally of one category such as `docs`) that changed on \
             the branch (since the merge base with `base_branch`, work in progress included), \
             exist now and are not reconciled for this spec. Use it to find docs and other \
             artifacts that need a look; `base` says which base was used.",
            Access::ReadOnly,
            review::get_changed_artifacts,
        ),
        ToolDef::new(
            "get_governing_specs",
            "Specs governing files, before an edit",
            "Before editing a file, which specs govern it and what they require. For each of \
             `paths` (optionally only `lines` `A-B`: a spec anchored to symbols, `file#Symbol`, \
             counts only when the lines touch its symbols) the `governed_by` specs with their \
             categories, `excluded` when the system spec excludes it, and `unreconciled` when it \
             already has changes since the base not reconciled; `specs` holds each governing \
             spec once, with its intent, behaviors, constraints and invariants. Keep an edit \
             within them; if a spec no longer tells the truth, say so instead of silently \
             diverging.",
            Access::ReadOnly,
            review::get_governing_specs,
        ),
        ToolDef::tracked(
            "mark_reconciled",
            "Mark files reconciled",
            "Record the current content (BLAKE3) of the files reviewed, \
             so later `get_spec_diff` calls skip them until they change again. Paths are relative to \
             the repository root; a path that no longer exists is remembered as reconciled while \
             deleted. With `spec_path` the files are recorded for that spec only (other specs \
             governing them still see the change); without it, for every spec. Pass a file whose \
             diff you read as `path@id` from `read_ids`: if it changed since, nothing is recorded \
             and the call says which file to read again. Returns `updated` (files hashed), \
             `deleted`, and `left`: the changed files still to review for the pass's base \
             (`base_branch`), 0 when the pass is done.",
            Access::Write { destructive: false },
            crate::check::mark_tool,
        ),
        ToolDef::new(
            "report_drift",
            "Report drift you were not asked to fix",
            "Keep a note that a spec and its files disagree when fixing it is not your task now \
             (a behavior the code no longer has, a constraint it breaks, a statement that is no \
             longer true): `spec_path`, a short `note`, and optionally the `paths` concerned. \
             Notes are kept in `.notarai/reconciliation_state.json` (commit it so teammates and \
             CI see them), listed by `get_reconciliation_status` (`drift_notes`) and `notarai \
             check`, and closed when that spec is next reconciled (`mark_reconciled`). Returns \
             the note's `id` and the spec's `open_notes`.",
            Access::Write { destructive: false },
            review::report_drift,
        ),
        ToolDef::new(
            "snapshot_state",
            "Snapshot the reconciliation state",
            "Write `.notarai/reconciliation_state.json`, the committed record of what was \
             reconciled, from the local cache and the existing state: entries that still match the \
             work tree are kept, new reconciliations added, stale ones dropped, and \
             `last_reconciliation` set from HEAD. Commit the file afterwards so teammates, CI and \
             other clones see the work. A malformed state file is refused unless `force: true`. \
             Returns the file's `path` and its `entries`, `added` and `dropped` counts.",
            Access::Write { destructive: false },
            review::snapshot_tool,
        ),
        ToolDef::new(
            "clear_cache",
            "Clear the reconciliation cache",
            "Delete the reconciliation cache, so the next `get_spec_diff` shows every changed governed \
             file again. Prefer `bypass_cache: true` on `get_spec_diff` for a one-off full view. \
             Returns `cleared: true` when a cache existed.",
            Access::Write { destructive: true },
            clear_cache,
        ),
    ]
});

/// `schema` with the `format` values schemars adds for Rust number types
/// (`uint`, `int64`, `double`, ...) taken out, since JSON Schema does not
/// define them and strict validators refuse them; an unsigned type says
/// `minimum: 0` instead.
fn portable(mut schema: JsonObject) -> JsonObject {
    fn walk(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                let rust_format = map.get("format").and_then(|f| f.as_str()).filter(|f| {
                    matches!(*f, "float" | "double")
                        || f.strip_prefix("uint")
                            .or_else(|| f.strip_prefix("int"))
                            .is_some_and(|bits| {
                                bits.is_empty() || bits.chars().all(|c| c.is_ascii_digit())
                            })
                });
                if let Some(format) = rust_format.map(str::to_owned) {
                    map.remove("format");
                    if format.starts_with("uint") && !map.contains_key("minimum") {
                        map.insert("minimum".into(), 0.into());
                    }
                }
                map.values_mut().for_each(walk);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    schema.values_mut().for_each(walk);
    schema
}

/// `schema` without its `description`s and `title`s: an output schema is
/// for validating `structuredContent`, and every client sends `tools/list`
/// into the model's context, where the fields are explained once, by the
/// tool's description and the workflow (this halves `tools/list`).
fn terse(mut schema: JsonObject) -> JsonObject {
    fn walk(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                // A property named `description` is a field, not a keyword.
                for keyword in ["description", "title"] {
                    if map.get(keyword).is_some_and(serde_json::Value::is_string) {
                        map.remove(keyword);
                    }
                }
                for (key, child) in map.iter_mut() {
                    if key == "properties" {
                        if let serde_json::Value::Object(props) = child {
                            props.values_mut().for_each(walk);
                        }
                    } else {
                        walk(child);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    let mut value = serde_json::Value::Object(std::mem::take(&mut schema));
    walk(&mut value);
    match value {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// The tool named `name`, if this server has it.
pub fn find(name: &str) -> Option<&'static ToolDef> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The tool declarations served by `tools/list`.
pub fn tools() -> Vec<Tool> {
    TOOLS.iter().map(|t| t.tool.clone()).collect()
}

/// Run the tool `name` with `arguments` on its side of `projects` (the
/// writing project for a tool that writes), on the blocking pool,
/// reporting to `progress` (see [`super::progress`]).
pub async fn call(
    projects: &super::projects::Projects,
    name: &str,
    arguments: Option<JsonObject>,
    progress: Progress,
) -> Result<CallToolResult, ErrorData> {
    let Some(def) = find(name) else {
        let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
        return Err(ErrorData::invalid_params(
            format!(
                "unknown tool `{}`; this server has: {}",
                name.escape_debug(),
                names.join(", ")
            ),
            None,
        ));
    };
    let side = match def.access {
        Access::ReadOnly => super::projects::Side::Read,
        Access::Write { .. } => super::projects::Side::Write,
    };
    projects
        .run(side, def.name, move |project| {
            // Cancelled while it waited for the calls before it.
            if progress.is_cancelled() {
                return Err(rpc_error(ReviewError::from(crate::progress::Cancelled)));
            }
            (def.handler)(project, arguments, &progress)
        })
        .await
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
            args(serde_json::json!({"base_branch": "main"})),
        )
        .unwrap_err();
        assert!(err.message.contains("spec_path"), "{}", err.message);
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
    fn portable_schemas_drop_rust_number_formats() {
        let schema = serde_json::json!({"type": "object", "properties": {
            "n": {"type": "integer", "format": "uint", "minimum": 0},
            "m": {"type": ["integer", "null"], "format": "uint32"},
            "i": {"type": "integer", "format": "int64"},
            "f": {"type": "number", "format": "double"},
            "d": {"type": "string", "format": "date-time"}}});
        let out = serde_json::Value::Object(portable(schema.as_object().unwrap().clone()));
        assert_eq!(
            out["properties"],
            serde_json::json!({
                "n": {"type": "integer", "minimum": 0},
                "m": {"type": ["integer", "null"], "minimum": 0},
                "i": {"type": "integer"},
                "f": {"type": "number"},
                "d": {"type": "string", "format": "date-time"}})
        );
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
