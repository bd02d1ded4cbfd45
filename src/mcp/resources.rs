//! The spec files as MCP resources: `resources/list` (paged), the template
//! `notarai://spec/{path}` and `resources/read`.
//!
//! A spec's URI is `notarai://spec/` followed by its repository-relative
//! path (`notarai://spec/.notarai/auth.spec.yaml`), bytes outside
//! `A-Za-z0-9-._~/` percent-encoded. Which specs exist, their titles and
//! their text come from [`crate::review`] ([`review::spec_catalog`],
//! [`review::read_spec`]); this module only maps URIs and protocol types.
//! A URI that is not a spec's is the caller's error (`-32602`) with a hint;
//! nothing outside `.notarai/` is read.
//!
//! The list does not announce changes (no `listChanged`): a client lists
//! again when it wants the current specs.

use rmcp::ErrorData;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate,
};

use crate::project::Project;
use crate::review::{self, ReviewError};

/// What every spec URI starts with.
const SPEC_URI: &str = "notarai://spec/";

/// The URI template of the specs (RFC 6570).
pub const SPEC_TEMPLATE: &str = "notarai://spec/{path}";

/// What every governing-specs URI starts with.
const GOVERNING_URI: &str = "notarai://governing/";

/// The URI template of the governing specs of a file (RFC 6570).
pub(crate) const GOVERNING_TEMPLATE: &str = "notarai://governing/{path}";

/// The MIME type of a spec.
const SPEC_MIME: &str = "application/yaml";

/// The hint of a URI that names no spec.
const URI_HINT: &str = "a spec's URI is `notarai://spec/<repository-relative path>`, e.g. \
                        `notarai://spec/.notarai/system.spec.yaml`; `resources/list` lists them";

/// The URI of the spec file at `path` (repository-relative).
fn spec_uri(path: &str) -> String {
    let mut uri = String::from(SPEC_URI);
    for byte in path.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'/' | b'-' | b'.' | b'_' | b'~' => {
                uri.push(byte as char)
            }
            other => uri.push_str(&format!("%{other:02X}")),
        }
    }
    uri
}

/// The repository-relative path a spec URI names (percent-decoded); the
/// caller's error when `uri` is no `notarai://spec/` URI.
pub fn spec_path(uri: &str) -> Result<String, ReviewError> {
    let not_ours = || {
        ReviewError::invalid(format!(
            "`{}` is not a notarai spec URI",
            uri.escape_debug()
        ))
        .hinted(URI_HINT)
    };
    let encoded = uri.strip_prefix(SPEC_URI).ok_or_else(not_ours)?;
    let encoded = encoded.split(['?', '#']).next().unwrap_or_default();
    let mut bytes = Vec::with_capacity(encoded.len());
    let mut rest = encoded.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == b'%' {
            let hex = tail
                .get(..2)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(not_ours)?;
            bytes.push(hex);
            rest = &tail[2..];
        } else {
            bytes.push(b);
            rest = tail;
        }
    }
    String::from_utf8(bytes).map_err(|_| not_ours())
}

fn rpc(e: ReviewError) -> ErrorData {
    super::tools::rpc_error(e)
}

/// One page of `resources/list`: the specs, paged by [`review::CATALOG_PAGE`].
pub fn list(project: &mut Project, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
    let page = review::spec_catalog(project, cursor).map_err(rpc)?;
    let resources = page
        .entries
        .into_iter()
        .map(|entry| {
            let name = entry.path.clone();
            let mut resource = Resource::new(spec_uri(&entry.path), name).with_mime_type(SPEC_MIME);
            if !entry.loaded {
                resource = resource.with_description(
                    "This spec fails to load, so it governs nothing until fixed: run \
                     `notarai validate`",
                );
            }
            if let Some(title) = entry.title {
                resource = resource.with_title(title);
            }
            if let Some(size) = entry.size {
                resource = resource.with_size(size);
            }
            resource
        })
        .collect();
    let mut result = ListResourcesResult::with_all_items(resources);
    result.next_cursor = page.next_cursor;
    Ok(result)
}

/// `resources/read` of a `notarai://governing/<path>` URI: the
/// `get_governing_specs` answer for that file (JSON, its first page). Needs
/// the project (the kept status tells what is unreconciled).
pub fn read_governing(project: &mut Project, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let encoded = uri.strip_prefix(GOVERNING_URI).unwrap_or(uri);
    let path = spec_path(&format!("{SPEC_URI}{encoded}")).map_err(rpc)?;
    let params = review::GoverningParams {
        paths: vec![path],
        lines: None,
        max_tokens: None,
        cursor: None,
    };
    let answer = review::get_governing_specs(project, &params).map_err(rpc)?;
    let text = serde_json::to_string(&answer)
        .map_err(|e| ErrorData::internal_error(format!("cannot encode the answer: {e}"), None))?;
    let contents = ResourceContents::text(text, uri).with_mime_type("application/json");
    Ok(ReadResourceResult::new(vec![contents]))
}

/// Whether `uri` names a governing answer (read with [`read_governing`]).
pub fn is_governing(uri: &str) -> bool {
    uri.starts_with(GOVERNING_URI)
}

/// `resources/read`: the YAML text of the spec `uri` names. A spec that
/// does not exist is each revision's own "resource not found": `-32002` on
/// the legacy revisions (`legacy`), `-32602` on `2026-07-28`.
pub fn read(
    root: &std::path::Path,
    uri: &str,
    legacy: bool,
) -> Result<ReadResourceResult, ErrorData> {
    let path = spec_path(uri).map_err(rpc)?;
    let spec = review::read_spec(root, &path).map_err(|e| {
        let not_found = e.kind == crate::error::ErrorKind::NotFound;
        let mut data = rpc(e);
        if legacy && not_found {
            data.code = rmcp::model::ErrorCode::RESOURCE_NOT_FOUND;
            let uri = serde_json::Value::String(uri.to_string());
            match &mut data.data {
                Some(serde_json::Value::Object(map)) => {
                    map.insert("uri".into(), uri);
                }
                _ => data.data = Some(serde_json::json!({ "uri": uri })),
            }
        }
        data
    })?;
    let contents =
        ResourceContents::text(spec.text, spec_uri(&spec.path)).with_mime_type(SPEC_MIME);
    Ok(ReadResourceResult::new(vec![contents]))
}

/// `resources/templates/list`: the templates of the specs and of the
/// specs governing a file.
pub fn templates(cursor: Option<&str>) -> Result<ListResourceTemplatesResult, ErrorData> {
    if let Some(cursor) = cursor {
        return Err(unknown_cursor("resources/templates/list", cursor));
    }
    let template = ResourceTemplate::new(SPEC_TEMPLATE, "spec")
        .with_title("A spec file")
        .with_description(
            "A spec of this project by its repository-relative path, e.g. \
             `.notarai/auth.spec.yaml` (`completion/complete` offers the paths)",
        )
        .with_mime_type(SPEC_MIME);
    let governing = ResourceTemplate::new(GOVERNING_TEMPLATE, "governing")
        .with_title("The specs governing a file")
        .with_description(
            "What governs a file before you edit it, by its repository-relative path, e.g. \
             `notarai://governing/src/auth.rs`: the `get_governing_specs` answer (JSON)",
        )
        .with_mime_type("application/json");
    Ok(ListResourceTemplatesResult::with_all_items(vec![
        template, governing,
    ]))
}

/// The error of a cursor on a list that fits one page and never issues one.
pub fn unknown_cursor(method: &str, cursor: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "unknown cursor `{}`: {method} never issues one\nhint: list without a cursor",
            cursor.escape_debug()
        ),
        Some(serde_json::json!({"hint": "list without a cursor"})),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_uri_round_trips_and_a_foreign_one_is_refused() {
        for path in [".notarai/a.spec.yaml", ".notarai/sub dir/é?.spec.yaml"] {
            assert_eq!(spec_path(&spec_uri(path)).unwrap(), path);
        }
        assert_eq!(
            spec_uri(".notarai/a b.spec.yaml"),
            "notarai://spec/.notarai/a%20b.spec.yaml"
        );
        for uri in [
            "file:///etc/passwd",
            "notarai://spec",
            "notarai://spec/%zz",
            "notarai://spec/%ff",
        ] {
            let e = spec_path(uri).unwrap_err();
            assert_eq!(e.kind, crate::error::ErrorKind::InvalidInput, "{uri}");
            assert!(e.hint.is_some());
        }
    }
}
