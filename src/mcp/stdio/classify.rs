//! The classifier: what one line read from stdin is, and what to do with
//! it. The line is parsed once: its text becomes a JSON tree, the checks
//! below read the tree, then the tree becomes rmcp's message type (what is
//! handed over); nothing is serialized again. A line that rmcp must not see (not JSON, not a valid request, an
//! unknown method, malformed parameters, a request before `initialize`, an
//! id already in flight, a batch where the revision has none, a request of
//! the other era) is answered here; anything else is forwarded, marked when
//! it calls a write tool.
//!
//! The two eras (the specification's versioning page): an `initialize`
//! opens the legacy era for this process (`2024-11-05` to `2025-11-25`,
//! exactly as before); a request whose `_meta` declares `2026-07-28` with
//! every required key (a `server/discover` probe included) opens the
//! stateless one. After a stateless request, `initialize` and `ping` are not
//! methods (`-32601` naming the era, as `logging/setLevel` and subscriptions
//! are everywhere): rmcp's session then asks every request for its `_meta`,
//! so a legacy client starts its own `notarai mcp`. After `initialize`, a
//! request declaring `2026-07-28` is still served on its own `_meta` (the
//! specification lets a dual-era server serve both eras in one process; a
//! bridge that shares one process between clients needs it). A `server/discover`
//! is answered in either era. rmcp checks each stateless request's `_meta`
//! itself: `-32022` with `data.supported` for a revision not served,
//! `-32602` for a missing or malformed required key.

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion, RequestMetaObject,
};
use serde::Deserialize;
use serde_json::Value;

use super::{BATCH_REVISION, State, code, error, key};
use crate::mcp::surface::{self, Kind};
use crate::mcp::tools::{self, Access};

/// A message for rmcp, in the order read.
#[derive(Debug)]
pub(super) struct Forward {
    /// The message as rmcp takes it.
    pub(super) message: ClientJsonRpcMessage,
    /// Its request id, if a request.
    pub(super) id: Option<Value>,
    /// A call of a write tool: ordered against every other tool call.
    pub(super) write: bool,
    /// A request that reads what a write changes (anything but `ping` and
    /// `initialize`): sent after a write, it starts once the write is
    /// answered, so it sees it.
    pub(super) ordered: bool,
    /// The request id a `notifications/cancelled` cancels.
    pub(super) cancels: Option<Value>,
    /// A request whose `_meta` declares `2026-07-28` completely: it opens
    /// the stateless era when no era is open.
    pub(super) modern: bool,
    /// An `initialize` asking for the one revision with batches: a batch
    /// read right after it (before its answer) is served.
    pub(super) batches: bool,
    /// Its place in the order read (set when admitted).
    pub(super) seq: u64,
}

/// What a request's `_meta` declares of the protocol revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Declared {
    /// No revision: a legacy request (or a stateless one missing its `_meta`).
    Nothing,
    /// `2026-07-28`, with every key that revision requires.
    Modern,
    /// Some other revision, or `2026-07-28` with a key missing: rmcp
    /// answers `-32022` or `-32602`.
    Other,
}

/// The key of the revision a request declares in its `_meta`.
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// What `value`'s `params._meta` declares of the revision.
pub(super) fn declared(value: &Value) -> Declared {
    match value.get("params").and_then(|p| p.get("_meta")) {
        Some(Value::Object(meta)) => declared_in(&RequestMetaObject::from(meta.clone())),
        _ => Declared::Nothing,
    }
}

/// What a request's `_meta` declares of the revision.
fn declared_in(meta: &RequestMetaObject) -> Declared {
    if !meta.contains_key(VERSION_KEY) {
        return Declared::Nothing;
    }
    let modern = meta.protocol_version().is_some_and(|v| {
        !v.has_initialize() && crate::mcp::server::SUPPORTED_VERSIONS.contains(&v)
    }) && meta
        .missing_required_keys(&ProtocolVersion::V_2026_07_28)
        .is_empty();
    match modern {
        true => Declared::Modern,
        false => Declared::Other,
    }
}

/// What one message is, and what to do with it.
#[derive(Debug)]
pub(super) enum Verdict {
    /// Nothing to answer (a blank line, a client's response, a notification
    /// that cannot be served).
    Ignore,
    /// Answer here with this error.
    Reply(Value),
    /// Hand it to rmcp.
    Forward(Box<Forward>, Option<&'static str>),
    /// A JSON-RPC batch of these messages.
    Batch(Vec<Value>),
}

/// What one line is: parsed, and a batch only where the negotiated revision
/// has them.
pub(super) fn classify(line: &[u8], state: &State) -> Verdict {
    let Ok(text) = std::str::from_utf8(line) else {
        let message = "parse error: the message is not valid UTF-8";
        return Verdict::Reply(error(Value::Null, code::PARSE_ERROR, message));
    };
    let text = text.trim();
    if text.is_empty() {
        return Verdict::Ignore;
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            let message = format!("parse error: {e}");
            return Verdict::Reply(error(Value::Null, code::PARSE_ERROR, &message));
        }
    };
    match value {
        Value::Array(items) if items.is_empty() => Verdict::Reply(error(
            Value::Null,
            code::INVALID_REQUEST,
            "invalid request: an empty batch",
        )),
        Value::Array(items) if state.batches_allowed => Verdict::Batch(items),
        Value::Array(_) => Verdict::Reply(error(
            Value::Null,
            code::INVALID_REQUEST,
            &format!(
                "invalid request: batches (JSON arrays) are only supported under protocol \
                 {BATCH_REVISION}; send one message per line"
            ),
        )),
        value => classify_value(&value, state),
    }
}

/// What one JSON message is.
pub(super) fn classify_value(value: &Value, state: &State) -> Verdict {
    let Value::Object(object) = value else {
        let message = "invalid request: not a JSON-RPC object";
        return Verdict::Reply(error(Value::Null, code::INVALID_REQUEST, message));
    };
    match envelope(object) {
        Err(Some(reply)) => Verdict::Reply(reply),
        Err(None) => Verdict::Ignore,
        Ok((None, method)) => classify_notification(value, method, state),
        Ok((Some(id), method)) => classify_request(value, id, method, state),
    }
}

/// The `id` and `method` of a message, checked; or the error to answer
/// instead (`None`: nothing to answer, a client's response).
fn envelope(
    object: &serde_json::Map<String, Value>,
) -> Result<(Option<Value>, &str), Option<Value>> {
    let reply = |id: &Value, code: i32, message: &str| Err(Some(error(id.clone(), code, message)));
    // An id that is present must be a string or an integer.
    let id = match object.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(id @ Value::Number(n)) if n.is_i64() || n.is_u64() => Some(id.clone()),
        Some(_) => {
            let message = "invalid request: `id` must be a string or an integer";
            return reply(&Value::Null, code::INVALID_REQUEST, message);
        }
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    let is_response = object.contains_key("result") || object.contains_key("error");
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        // JSON-RPC 2.0 answers every invalid request, `{}` included, with
        // `-32600`; only what looks like a response (`result` or `error`)
        // from the client is left unanswered, so two peers never trade
        // errors about each other's errors.
        if is_response {
            return Err(None);
        }
        return reply(
            &reply_id,
            code::INVALID_REQUEST,
            "invalid request: `jsonrpc` must be \"2.0\"",
        );
    }
    let method = match object.get("method") {
        Some(Value::String(m)) => m.as_str(),
        Some(_) => {
            return reply(
                &reply_id,
                code::INVALID_REQUEST,
                "invalid request: `method` must be a string",
            );
        }
        // A response from the client: rmcp only wants those for its own
        // requests, which this server never sends. Anything else is invalid.
        None if id.is_some() && is_response => {
            tracing::debug!("ignoring a response from the client");
            return Err(None);
        }
        None => {
            return reply(
                &reply_id,
                code::INVALID_REQUEST,
                "invalid request: no `method`",
            );
        }
    };
    Ok((id, method))
}

/// A notification: forwarded when rmcp decodes it and the session exists,
/// else dropped; never answered.
fn classify_notification(value: &Value, method: &str, state: &State) -> Verdict {
    let known = surface::method(method);
    if known.is_some()
        && (state.initialized || state.inline)
        && let Ok(message) = ClientJsonRpcMessage::deserialize(value)
    {
        let cancels = (method == "notifications/cancelled")
            .then(|| {
                value
                    .get("params")
                    .and_then(|p| p.get("requestId"))
                    .cloned()
            })
            .flatten();
        let forward = Forward {
            message,
            id: None,
            write: false,
            cancels,
            ordered: false,
            modern: false,
            batches: false,
            seq: 0,
        };
        return Verdict::Forward(Box::new(forward), known.map(|m| m.name));
    }
    tracing::debug!("dropping notification `{method}`");
    Verdict::Ignore
}

/// A request: answered here when its id is in flight, its method unknown,
/// its params malformed or it comes before `initialize`; else forwarded.
fn classify_request(value: &Value, id: Value, method: &str, state: &State) -> Verdict {
    let reply =
        |id: &Value, code: i32, message: &str| Verdict::Reply(error(id.clone(), code, message));
    let known = surface::method(method);
    if state.in_flight.contains_key(&key(&id)) {
        let message = format!(
            "invalid request: request id {id} is already in flight; use a new id for each request"
        );
        return reply(&id, code::INVALID_REQUEST, &message);
    }
    let Some(known) = known else {
        let message = format!("method not found: `{}`", method.escape_debug());
        return reply(&id, code::METHOD_NOT_FOUND, &message);
    };
    if known.kind == Kind::Notification {
        let message = format!("`{method}` is a notification and must not carry an `id`");
        return reply(&id, code::INVALID_REQUEST, &message);
    }
    // The era first: a method of the other era is refused whatever its params.
    if let Some(refusal) = other_era(method, value, state) {
        return reply(&id, refusal.0, &refusal.1);
    }
    // One handshake per process: a second `initialize` is not a new session.
    if method == "initialize" && state.initialized {
        let message = "invalid request: `initialize` was already sent in this session; \
                       a new session is a new `notarai mcp` process";
        return reply(&id, code::INVALID_REQUEST, message);
    }
    let params = value.get("params");
    let (message, declared) = match ClientJsonRpcMessage::deserialize(value) {
        Err(e) => {
            let message = format!("invalid params for `{method}`: {e}");
            return reply(&id, code::INVALID_PARAMS, &message);
        }
        Ok(ClientJsonRpcMessage::Request(request)) => {
            // rmcp reads a known method whose params do not fit its type as
            // a custom request, then answers `-32601` with the bare method
            // name; and the optional params of a list whose fields do not fit
            // (`"cursor": 5`) as no params at all, which would serve the first
            // page again. Say what is wrong with the params instead.
            if let Some(why) = params_refused(&request.request, method, params) {
                let message = format!("invalid params for `{method}`: {why}");
                return reply(&id, code::INVALID_PARAMS, &message);
            }
            let declared = declared_in(request.request.get_meta());
            (ClientJsonRpcMessage::Request(request), declared)
        }
        Ok(message) => (message, Declared::Nothing),
    };
    if !state.initialized
        && !state.modern
        && !known.before_initialize
        && declared == Declared::Nothing
    {
        let message = format!("`{method}` before `initialize`: send `initialize` first");
        return reply(&id, code::INVALID_REQUEST, &message);
    }
    let write = method == "tools/call"
        && params
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .and_then(tools::find)
            .is_some_and(|t| t.access != Access::ReadOnly);
    let batches = method == "initialize"
        && params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            == Some(BATCH_REVISION);
    let forward = Forward {
        message,
        id: Some(id),
        write,
        cancels: None,
        ordered: !matches!(method, "ping" | "initialize"),
        modern: declared == Declared::Modern,
        batches,
        seq: 0,
    };
    Verdict::Forward(Box::new(forward), Some(known.name))
}

/// Why the params of a request rmcp decoded do not fit `method`: a custom
/// request for a known method, or a list whose params rmcp read as none
/// while the line has some (only then are the params checked again).
fn params_refused(request: &ClientRequest, method: &str, params: Option<&Value>) -> Option<String> {
    let listed_none = match request {
        ClientRequest::CustomRequest(_) => {
            let why = surface::params_error(method, params);
            return Some(why.unwrap_or_else(|| "the params do not fit this method".into()));
        }
        ClientRequest::ListToolsRequest(r) => r.params.is_none(),
        ClientRequest::ListResourcesRequest(r) => r.params.is_none(),
        ClientRequest::ListResourceTemplatesRequest(r) => r.params.is_none(),
        ClientRequest::ListPromptsRequest(r) => r.params.is_none(),
        _ => false,
    };
    let has_fields = params
        .and_then(Value::as_object)
        .is_some_and(|p| p.keys().any(|k| k != "_meta"));
    (listed_none && has_fields)
        .then(|| surface::params_error(method, params))
        .flatten()
}

/// The refusal (code, message) of a request that is not a method of the
/// era it comes in: `ping` and `initialize` declaring `2026-07-28` (judged
/// by that revision whatever came before, even first), and `initialize`
/// once a stateless request opened the process's era.
fn other_era(method: &str, value: &Value, state: &State) -> Option<(i32, String)> {
    let stateless = state.modern && !state.initialized;
    match method {
        "initialize" if declared(value) == Declared::Modern => Some((
            code::METHOD_NOT_FOUND,
            "method not found: `initialize` is not part of MCP 2026-07-28 (a request that \
             declares it in `_meta` has no handshake); send the request itself with its `_meta`"
                .into(),
        )),
        "ping" if stateless || declared(value) == Declared::Modern => Some((
            code::METHOD_NOT_FOUND,
            "method not found: `ping` is not part of MCP 2026-07-28 (it ended with the \
             handshake of the legacy revisions); send any request with its `_meta`"
                .into(),
        )),
        "initialize" if stateless => Some((
            code::METHOD_NOT_FOUND,
            "`initialize` after a 2026-07-28 request: this process serves MCP 2026-07-28 (no \
             handshake; every request carries its revision in `_meta`); a legacy client starts \
             its own `notarai mcp`"
                .into(),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::Pending;
    use super::*;

    fn error_code(verdict: &Verdict) -> Option<i64> {
        match verdict {
            Verdict::Reply(reply) => reply["error"]["code"].as_i64(),
            _ => None,
        }
    }

    #[test]
    fn classify_answers_what_rmcp_must_not_see() {
        let mut state = State::default();
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert!(matches!(classify(ping, &state), Verdict::Forward(..)));
        let list = br#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        assert_eq!(error_code(&classify(list, &state)), Some(-32600));
        state.initialized = true;
        assert!(matches!(classify(list, &state), Verdict::Forward(..)));
        // An id already in flight.
        state.in_flight.insert(
            key(&json!(2)),
            Pending {
                tool_call: false,
                write: false,
                batch: None,
                initialize: false,
                forwarded: true,
                seq: 1,
            },
        );
        assert_eq!(error_code(&classify(list, &state)), Some(-32600));
        // `"2"` is another id than `2`.
        let list_s = br#"{"jsonrpc":"2.0","id":"2","method":"tools/list"}"#;
        assert!(matches!(classify(list_s, &state), Verdict::Forward(..)));
        // Batches only where negotiated; an empty one never.
        let batch = br#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#;
        assert_eq!(error_code(&classify(batch, &state)), Some(-32600));
        state.batches_allowed = true;
        assert!(matches!(classify(batch, &state), Verdict::Batch(items) if items.len() == 1));
        assert_eq!(error_code(&classify(b"[]", &state)), Some(-32600));
        assert_eq!(error_code(&classify(b"\xff", &state)), Some(-32700));
        assert!(matches!(classify(b"  ", &state), Verdict::Ignore));
    }

    #[test]
    fn the_era_comes_from_initialize_or_a_complete_2026_07_28_meta() {
        let meta = |version: &str| {
            json!({"io.modelcontextprotocol/protocolVersion": version,
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}})
        };
        let with = |meta: Value| {
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"_meta": meta}})
        };
        assert_eq!(declared(&with(meta("2026-07-28"))), Declared::Modern);
        assert_eq!(declared(&with(meta("1900-01-01"))), Declared::Other);
        assert_eq!(
            declared(&with(
                json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"})
            )),
            Declared::Other
        );
        assert_eq!(
            declared(&with(json!({"progressToken": 1}))),
            Declared::Nothing
        );
        let ping = |meta: Option<Value>| match meta {
            Some(meta) => json!({"jsonrpc": "2.0", "id": 1, "method": "ping",
                "params": {"_meta": meta}}),
            None => json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        };
        let fresh = State::default();
        let plain = ping(None);
        assert_eq!(other_era("ping", &plain, &fresh), None);
        let modern_ping = ping(Some(meta("2026-07-28")));
        assert_eq!(
            other_era("ping", &modern_ping, &fresh).map(|r| r.0),
            Some(-32601)
        );
        assert_eq!(other_era("initialize", &plain, &fresh), None);
        let stateless = State {
            modern: true,
            ..State::default()
        };
        assert_eq!(
            other_era("initialize", &plain, &stateless).map(|r| r.0),
            Some(-32601)
        );
        let modern_list = with(meta("2026-07-28"));
        assert_eq!(other_era("server/discover", &modern_list, &stateless), None);
        let legacy = State {
            initialized: true,
            ..State::default()
        };
        assert_eq!(other_era("tools/list", &modern_list, &legacy), None);
        // A stateless request first, before any era: forwarded to rmcp.
        let line = with(meta("2026-07-28")).to_string();
        assert!(matches!(classify(line.as_bytes(), &fresh), Verdict::Forward(f, _) if f.modern));
    }

    #[test]
    fn only_write_tools_are_ordered() {
        let state = State {
            initialized: true,
            ..State::default()
        };
        let call = |tool: &str| {
            let line = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": tool, "arguments": {}}})
            .to_string();
            match classify(line.as_bytes(), &state) {
                Verdict::Forward(forward, _) => forward.write,
                other => panic!("{other:?}"),
            }
        };
        assert!(call("mark_reconciled"));
        assert!(call("clear_cache"));
        assert!(!call("get_spec_diff"));
        assert!(!call("no_such_tool"));
    }
}
