//! What the client writes and reads: JSON-RPC envelopes (the requests and
//! notifications it writes, typed; the messages it reads, as JSON with
//! typed views), and the MCP parameters and results it handles itself
//! (`initialize`, `tools/call`).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One stdout line, without its newline.
#[derive(Debug, Clone)]
pub struct Line {
    /// When the reader thread got it.
    pub arrived: Instant,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// One message from the server.
#[derive(Debug, Clone)]
pub struct Message {
    /// The message (an object, or an array for a batch's answers).
    pub value: Value,
    /// When its line arrived.
    pub arrived: Instant,
    /// The size of its line, newline excluded.
    pub bytes: usize,
}

impl Message {
    /// Its `id`, when it has one (`Some(Null)` for `"id": null`).
    pub fn id(&self) -> Option<&Value> {
        self.value.get("id")
    }

    /// Whether it is a notification or a request from the server (it has a
    /// `method`).
    pub fn is_from_server(&self) -> bool {
        self.value.get("method").is_some()
    }

    /// Its JSON-RPC `error`, when it is an error answer.
    pub fn error(&self) -> Option<RpcError> {
        let error = self.value.get("error")?;
        Some(RpcError::deserialize(error).unwrap_or(RpcError {
            code: 0,
            message: error.to_string(),
            data: None,
        }))
    }

    /// Its `result`, when it is a successful answer.
    pub fn result(&self) -> Option<&Value> {
        self.value.get("result")
    }
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RpcError {
    /// The code (`-32602` the caller's input, ...).
    #[serde(default)]
    pub code: i64,
    /// What the server said.
    #[serde(default)]
    pub message: String,
    /// Anything more (`data.hint`).
    #[serde(default)]
    pub data: Option<Value>,
}

/// The answer to one request, and what arrived before it.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The message with the request's id.
    pub message: Message,
    /// Everything before it: notifications, requests from the server,
    /// answers to other ids (`"id": null` for lines it could not parse).
    pub others: Vec<Message>,
}

/// A request as written on the wire.
#[derive(Serialize)]
pub(super) struct Request<'a, P: Serialize> {
    pub(super) jsonrpc: &'static str,
    pub(super) id: &'a Value,
    pub(super) method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) params: Option<P>,
}

/// A notification as written on the wire.
#[derive(Serialize)]
pub(super) struct Notification<'a, P: Serialize> {
    pub(super) jsonrpc: &'static str,
    pub(super) method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) params: Option<P>,
}

/// `initialize`'s parameters.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct InitializeParams<'a> {
    pub(super) protocol_version: &'a str,
    pub(super) capabilities: Map<String, Value>,
    pub(super) client_info: Implementation<'a>,
}

/// `clientInfo`.
#[derive(Serialize)]
pub(super) struct Implementation<'a> {
    pub(super) name: &'a str,
    pub(super) version: &'a str,
}

/// `tools/call`'s parameters.
#[derive(Serialize)]
pub(super) struct CallParams<'a> {
    pub(super) name: &'a str,
    pub(super) arguments: &'a Map<String, Value>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub(super) meta: Option<ProgressMeta<'a>>,
}

/// `_meta` asking for progress reports.
#[derive(Serialize)]
pub(super) struct ProgressMeta<'a> {
    #[serde(rename = "progressToken")]
    pub(super) progress_token: &'a str,
}

/// A tool's answer (`tools/call`'s result).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ToolResult {
    /// Its content blocks.
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Its JSON answer, when the tool has an output schema.
    #[serde(default, rename = "structuredContent")]
    pub structured: Option<Value>,
    /// Whether the tool failed.
    #[serde(default, rename = "isError")]
    pub is_error: bool,
}

impl ToolResult {
    /// The text of its text blocks, in order.
    pub fn texts(&self) -> impl Iterator<Item = &str> {
        self.content.iter().filter_map(|b| b.text.as_deref())
    }

    /// Its JSON answer: `structuredContent`, else the first text block read
    /// as JSON.
    pub fn payload(&self) -> Option<Value> {
        match &self.structured {
            Some(structured) if structured.is_object() => Some(structured.clone()),
            _ => serde_json::from_str(self.texts().next()?).ok(),
        }
    }

    /// The cursor of the next page (`next_cursor` of the payload).
    pub fn next_cursor(&self) -> Option<String> {
        self.payload()?
            .get("next_cursor")?
            .as_str()
            .map(str::to_string)
    }
}

/// One content block (only what a client of notarai reads).
#[derive(Debug, Clone, Deserialize)]
pub struct ContentBlock {
    /// `text`, `resource`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// The text of a text block.
    #[serde(default)]
    pub text: Option<String>,
}

/// A tool's answer with the time it took.
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// From writing the request to the arrival of its answer.
    pub elapsed: Duration,
    /// The size of the answer's line.
    pub bytes: usize,
    /// The result.
    pub result: ToolResult,
    /// How many notifications (progress) came before it.
    pub notifications: usize,
}
