//! The stdio transport: bounded lines in, typed messages to rmcp, typed
//! messages from rmcp out as whole lines.
//!
//! `sessions::Framing` is an rmcp `Transport`: rmcp's service loop receives the
//! messages this module decoded and sends its answers through it, with no
//! byte between them. Each line is parsed once (`classify`: the text
//! becomes a JSON tree, checked, then that tree becomes rmcp's message type);
//! each answer is serialized once. rmcp's own stdio transport would not do:
//! it drops a line it cannot decode and ends the session on some malformed
//! messages, where JSON-RPC 2.0 and the notarai contract want an answer
//! (`-32700` with `"id": null`, `-32600`, `-32601`, `-32602`, a request
//! before `initialize`, an id already in flight) and the server must keep
//! serving; it has no batches, and its line bound drops a long line without
//! an answer. What only notarai needs stays here:
//!
//! - lines are bounded ([`MAX_LINE`], [`super::lines`]): a longer one is
//!   discarded as it streams in and answered with an error;
//! - under protocol `2025-03-26`, a JSON-RPC batch gets one array of answers;
//! - the era of the process (legacy after `initialize`, stateless after a
//!   `2026-07-28` request) is told by `classify`; rmcp serves both;
//! - the order of tool calls ([`super::projects`] states the concurrency
//!   model): a write tool starts once every tool call read before it is
//!   answered; write tools read meanwhile are held, in order; anything else
//!   is handed over at once, so a read is never held behind a write.
//!   `notifications/cancelled` is handed over at once too (it may cancel the
//!   very call waited for); one naming a held write drops that write;
//! - at the end of stdin, the requests in flight are answered before exit
//!   (after [`SHUTDOWN_GRACE`], with an error).
//!
//! One `state::Shared` state answers everything: every line written to
//! stdout, by rmcp or by this module, goes through its lock whole (a partial
//! line is never written), and it keeps the requests in flight by id. This
//! file reads the lines; `sessions` runs rmcp and hands the messages over
//! in order.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, Notify, mpsc};

mod classify;
mod sessions;
mod state;

use self::classify::{Forward, Verdict, classify, classify_value};
use self::sessions::run_sessions;
use self::state::{Batch, Pending, Shared, State};
use super::lines::{Line, read_bounded_line};
use super::server::NotaraiServer;

/// The longest message accepted on one line. A longer line is discarded as
/// it streams in (memory stays bounded) and answered with an error.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// How long requests in flight at the end of stdin may take before they are
/// answered with an error and the server exits.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

/// The one protocol revision that has JSON-RPC batches.
const BATCH_REVISION: &str = "2025-03-26";

/// JSON-RPC error codes.
pub mod code {
    /// The line is not JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// JSON, but not a valid request.
    pub const INVALID_REQUEST: i32 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Missing or malformed parameters.
    pub const INVALID_PARAMS: i32 = -32602;
    /// The server failed to answer.
    pub const INTERNAL_ERROR: i32 = -32603;
}

/// A JSON-RPC error answer.
fn error(id: Value, code: i32, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// The key of a request id in the in-flight table (`1` and `"1"` differ).
fn key(id: &Value) -> String {
    id.to_string()
}

/// Serve `server` on `input`/`output` until `input` ends and every request
/// read is answered.
pub async fn serve<R, W>(server: NotaraiServer, input: R, output: W) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let shared = Arc::new(Shared {
        out: Mutex::new(output),
        state: std::sync::Mutex::new(State::default()),
        changed: Notify::new(),
    });
    let (lines_tx, lines_rx) = mpsc::channel::<Forward>(64);
    let sessions = tokio::spawn(run_sessions(server, lines_rx, shared.clone()));
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    loop {
        match read_bounded_line(&mut reader, &mut line, MAX_LINE).await {
            Ok(Line::Eof) => break,
            Ok(Line::TooLong) => {
                tracing::warn!("discarded a message longer than {MAX_LINE} bytes");
                let message =
                    format!("message longer than {MAX_LINE} bytes; send smaller requests");
                shared
                    .reply(None, error(Value::Null, code::INVALID_REQUEST, &message))
                    .await?;
            }
            Ok(Line::Complete) => {
                if !handle_line(&line, &shared, &lines_tx).await? {
                    break;
                }
            }
            Err(e) => {
                tracing::warn!("stdin: {e}");
                break;
            }
        }
    }
    drop(lines_tx);
    sessions.await??;
    let mut out = shared.out.lock().await;
    out.flush().await?;
    Ok(())
}

/// Classify one line and act on it: answer here, or pass it on to be
/// handed to rmcp. `false` when the sessions are gone.
async fn handle_line<W: AsyncWrite + Unpin>(
    line: &[u8],
    shared: &Shared<W>,
    lines_tx: &mpsc::Sender<Forward>,
) -> std::io::Result<bool> {
    let verdict = classify(line, &shared.state());
    let Verdict::Batch(items) = verdict else {
        return act(verdict, None, shared, lines_tx).await;
    };
    let b = {
        let mut state = shared.state();
        state.next_batch += 1;
        let b = state.next_batch;
        let open = Batch {
            open: true,
            ..Batch::default()
        };
        state.batches.insert(b, open);
        b
    };
    for item in items {
        let verdict = match item {
            Value::Array(_) => Verdict::Reply(error(
                Value::Null,
                code::INVALID_REQUEST,
                "invalid request: a batch inside a batch",
            )),
            // JSON-RPC batches (2025-03-26) never carry the handshake.
            item if item.get("method").and_then(Value::as_str) == Some("initialize") => {
                Verdict::Reply(error(
                    item.get("id").cloned().unwrap_or(Value::Null),
                    code::INVALID_REQUEST,
                    "invalid request: `initialize` must not be part of a JSON-RPC batch; \
                     send it alone on its line",
                ))
            }
            item => classify_value(&item, &shared.state()),
        };
        if !act(verdict, Some(b), shared, lines_tx).await? {
            return Ok(false);
        }
    }
    let done = {
        let mut state = shared.state();
        if let Some(entry) = state.batches.get_mut(&b) {
            entry.open = false;
        }
        state.finish_batch(b)
    };
    if let Some(line) = done {
        shared.write_line(line).await?;
    }
    Ok(true)
}

/// Carry out one verdict, alone or as part of `batch`.
async fn act<W: AsyncWrite + Unpin>(
    verdict: Verdict,
    batch: Option<u64>,
    shared: &Shared<W>,
    lines_tx: &mpsc::Sender<Forward>,
) -> std::io::Result<bool> {
    match verdict {
        Verdict::Ignore => Ok(true),
        Verdict::Reply(reply) => shared.reply(batch, reply).await.map(|()| true),
        Verdict::Batch(_) => unreachable!("batches are unpacked by handle_line"),
        Verdict::Forward(mut forward, method) => {
            admit(&mut shared.state(), &mut forward, method, batch);
            Ok(lines_tx.send(*forward).await.is_ok())
        }
    }
}

/// Record a message about to be passed on: its place in the order read, a
/// request in flight (in its batch), the era it opens.
fn admit(state: &mut State, forward: &mut Forward, method: Option<&str>, batch: Option<u64>) {
    if method == Some("initialize") {
        state.initialized = true;
        // Asked for the revision with batches: the server serves it, so a
        // batch pipelined before the answer is served (the answer confirms).
        state.batches_allowed = forward.batches;
    }
    if forward.modern && !state.initialized {
        state.modern = true;
        state.inline |= method != Some("server/discover");
    }
    state.next_seq += 1;
    forward.seq = state.next_seq;
    if let Some(id) = &forward.id {
        let pending = Pending {
            tool_call: method == Some("tools/call"),
            write: forward.write,
            batch,
            initialize: method == Some("initialize"),
            forwarded: false,
            seq: forward.seq,
        };
        state.in_flight.insert(key(id), pending);
        if let Some(b) = batch
            && let Some(entry) = state.batches.get_mut(&b)
        {
            entry.waiting += 1;
        }
    }
}
