//! Line framing on stdio, in front of rmcp.
//!
//! rmcp's own stdio transport silently drops a line it cannot decode, and
//! ends the session on some malformed messages. JSON-RPC 2.0 and the notarai
//! contract want an answer instead, and the server must keep serving. So this
//! module reads stdin itself, one bounded line at a time, [`classify`]es each
//! line (answering here what rmcp would not: `-32700` parse errors with
//! `"id": null`, `-32600` invalid requests, `-32601` unknown methods, `-32602`
//! malformed parameters, requests before `initialize`, ids already in flight),
//! and hands rmcp only messages it can decode, through an in-memory pipe.
//!
//! The concurrency model, as it is: rmcp runs the requests handed to it
//! concurrently, but every tool call and every read of the project takes
//! the one lock over the project ([`super::on_project`],
//! [`super::tools::call`]), so they run one at a time in lock order
//! (`resources/read` needs only the root and takes no lock); what this
//! module adds is the order of write tools below. (Reading tools not
//! waiting behind a long call is not done yet: `docs/mcp-revisions.md`.)
//!
//! The era of the process (legacy after `initialize`, stateless after a
//! `2026-07-28` request) is told by [`classify`]; rmcp serves both.
//!
//! One [`Shared`] state answers everything: every line written to stdout, by
//! rmcp or by this module, goes through its lock whole (a partial line is
//! never written), and it keeps the requests in flight, so that
//! - a write tool (`mark_reconciled`, `clear_cache`) waits for the calls sent
//!   before it and the calls sent after it wait for it: answers are as if run
//!   in the order sent; meanwhile the lines read are held, except
//!   `notifications/cancelled`, handed over at once (it may cancel the very
//!   call waited for; one for a request still held drops that request);
//! - at the end of stdin, the requests in flight are answered before exit
//!   (after [`SHUTDOWN_GRACE`], with an error);
//! - under protocol `2025-03-26`, a JSON-RPC batch gets one array of answers.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, Notify, mpsc};

mod classify;

use self::classify::{Forward, Verdict, classify, classify_value};
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

/// A request forwarded to rmcp and not answered yet.
#[derive(Debug)]
struct Pending {
    /// A `tools/call` (ordered against write tools).
    tool_call: bool,
    /// The batch its answer belongs in.
    batch: Option<u64>,
    /// `initialize`: its answer names the negotiated revision.
    initialize: bool,
    /// Handed to rmcp (not only queued).
    forwarded: bool,
}

/// The answers of one batch, collected until the last one is in.
#[derive(Debug, Default)]
struct Batch {
    /// Still being read: more requests may join.
    open: bool,
    /// Requests forwarded and not answered yet.
    waiting: usize,
    answers: Vec<Value>,
}

/// What the reader, the forwarder and the output pump share.
#[derive(Debug, Default)]
struct State {
    /// `initialize` was read: the legacy era, for this process.
    initialized: bool,
    /// A `2026-07-28` request was read first: the stateless era, for this
    /// process (see [`classify`] for how the eras are told apart).
    modern: bool,
    /// A `2026-07-28` request other than `server/discover` was handed to
    /// rmcp: its session left the opening phase (where a notification would
    /// end it) and serves every request by its own `_meta`.
    inline: bool,
    /// The negotiated revision allows batches.
    batches_allowed: bool,
    in_flight: HashMap<String, Pending>,
    batches: HashMap<u64, Batch>,
    next_batch: u64,
}

impl State {
    /// The answer `value` for a request of `batch`: the line to write now,
    /// if any (a batch is written once its last answer is in).
    fn settle(
        &mut self,
        batch: Option<u64>,
        value: Value,
        raw: Option<Vec<u8>>,
    ) -> Option<Vec<u8>> {
        match batch {
            None => Some(raw.unwrap_or_else(|| value.to_string().into_bytes())),
            Some(b) => {
                let entry = self.batches.entry(b).or_default();
                entry.answers.push(value);
                self.finish_batch(b)
            }
        }
    }

    /// The batch's array line when it is complete (nothing for a batch of
    /// notifications only).
    fn finish_batch(&mut self, b: u64) -> Option<Vec<u8>> {
        let entry = self.batches.get(&b)?;
        if entry.open || entry.waiting > 0 {
            return None;
        }
        let entry = self.batches.remove(&b)?;
        (!entry.answers.is_empty()).then(|| Value::Array(entry.answers).to_string().into_bytes())
    }

    /// Forget request `id` (answered, cancelled or failed); its batch, if any.
    fn take(&mut self, id: &Value) -> Option<Pending> {
        let pending = self.in_flight.remove(&key(id))?;
        if let Some(b) = pending.batch
            && let Some(batch) = self.batches.get_mut(&b)
        {
            batch.waiting -= 1;
        }
        Some(pending)
    }
}

/// The output and the state, behind their locks.
struct Shared<W> {
    out: Mutex<W>,
    state: std::sync::Mutex<State>,
    changed: Notify,
}

impl<W: AsyncWrite + Unpin> Shared<W> {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Write one whole line (a newline is added) and flush.
    async fn write_line(&self, mut line: Vec<u8>) -> std::io::Result<()> {
        line.push(b'\n');
        let mut out = self.out.lock().await;
        out.write_all(&line).await?;
        out.flush().await
    }

    /// Answer with `reply` here, alone or as part of `batch`.
    async fn reply(&self, batch: Option<u64>, reply: Value) -> std::io::Result<()> {
        let line = self.state().settle(batch, reply, None);
        match line {
            Some(line) => self.write_line(line).await,
            None => Ok(()),
        }
    }

    /// An answer from rmcp: written as is, into its batch, or dropped when
    /// its request was already answered (cancelled, or failed at shutdown).
    async fn deliver(&self, line: Vec<u8>) -> std::io::Result<()> {
        #[derive(serde::Deserialize)]
        struct Head {
            id: Option<Value>,
        }
        let id = serde_json::from_slice::<Head>(&line)
            .ok()
            .and_then(|h| h.id);
        let mut out = self.out.lock().await;
        let to_write = {
            let mut state = self.state();
            match id {
                None => Some(line),
                Some(id) => match state.take(&id) {
                    None => {
                        tracing::debug!("dropping an answer to {id}, no longer in flight");
                        None
                    }
                    Some(pending) => {
                        let value = if pending.initialize || pending.batch.is_some() {
                            serde_json::from_slice::<Value>(&line).unwrap_or(Value::Null)
                        } else {
                            Value::Null
                        };
                        if pending.initialize {
                            state.batches_allowed =
                                value["result"]["protocolVersion"] == json!(BATCH_REVISION);
                        }
                        state.settle(pending.batch, value, Some(line))
                    }
                },
            }
        };
        let result = match to_write {
            Some(mut line) => {
                line.push(b'\n');
                match out.write_all(&line).await {
                    Ok(()) => out.flush().await,
                    Err(e) => Err(e),
                }
            }
            None => Ok(()),
        };
        drop(out);
        self.changed.notify_waiters();
        result
    }

    /// Wait until no forwarded request matching `which` is in flight, or
    /// `limit` passed; whether it became idle.
    async fn wait_idle(&self, which: fn(&Pending) -> bool, limit: Option<Duration>) -> bool {
        let deadline = limit.map(|l| tokio::time::Instant::now() + l);
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if !self
                .state()
                .in_flight
                .values()
                .any(|p| p.forwarded && which(p))
            {
                return true;
            }
            match deadline {
                Some(deadline) => {
                    if tokio::time::timeout_at(deadline, notified).await.is_err() {
                        return false;
                    }
                }
                None => notified.await,
            }
        }
    }

    /// Forget request `id`, cancelled by the client: rmcp sends no answer
    /// to it, so nothing waits for one (its batch may be complete now).
    /// With `forwarded_only`, a request not handed to rmcp yet is kept: it
    /// was read after the cancel (the reader runs ahead of the forwarder),
    /// so the cancel named no call in flight and cancels nothing.
    /// `initialize` is never forgotten: it cannot be cancelled (MCP), rmcp
    /// answers it anyway.
    async fn forget(&self, id: &Value, forwarded_only: bool) -> std::io::Result<()> {
        let done = {
            let mut state = self.state();
            let in_flight = state
                .in_flight
                .get(&key(id))
                .is_some_and(|p| !p.initialize && (p.forwarded || !forwarded_only));
            in_flight
                .then(|| state.take(id))
                .flatten()
                .and_then(|p| p.batch)
                .and_then(|b| state.finish_batch(b))
        };
        if let Some(line) = done {
            self.write_line(line).await?;
        }
        self.changed.notify_waiters();
        Ok(())
    }

    /// Answer every forwarded request still in flight with an error.
    async fn fail_in_flight(&self, message: &str) -> std::io::Result<()> {
        let lines: Vec<Vec<u8>> = {
            let mut state = self.state();
            let ids: Vec<String> = state
                .in_flight
                .iter()
                .filter(|(_, p)| p.forwarded)
                .map(|(k, _)| k.clone())
                .collect();
            ids.iter()
                .filter_map(|k| {
                    let id: Value = serde_json::from_str(k).ok()?;
                    let pending = state.take(&id)?;
                    state.settle(
                        pending.batch,
                        error(id, code::INTERNAL_ERROR, message),
                        None,
                    )
                })
                .collect()
        };
        for line in lines {
            self.write_line(line).await?;
        }
        self.changed.notify_waiters();
        Ok(())
    }
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

/// Classify one line and act on it: answer here, or forward to rmcp.
/// `false` when rmcp is gone.
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
            item => classify_value(item, &shared.state()),
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
        Verdict::Forward(forward, method) => {
            admit(&mut shared.state(), &forward, method, batch);
            Ok(lines_tx.send(forward).await.is_ok())
        }
    }
}

/// Record a message about to be forwarded: a request in flight (in its
/// batch), the session started by `initialize`.
fn admit(state: &mut State, forward: &Forward, method: Option<&str>, batch: Option<u64>) {
    if method == Some("initialize") {
        state.initialized = true;
    }
    if forward.modern && !state.initialized {
        state.modern = true;
        state.inline |= method != Some("server/discover");
    }
    if let Some(id) = &forward.id {
        let pending = Pending {
            tool_call: method == Some("tools/call"),
            batch,
            initialize: method == Some("initialize"),
            forwarded: false,
        };
        state.in_flight.insert(key(id), pending);
        if let Some(b) = batch
            && let Some(entry) = state.batches.get_mut(&b)
        {
            entry.waiting += 1;
        }
    }
}

fn is_tool_call(p: &Pending) -> bool {
    p.tool_call
}

fn any_request(_: &Pending) -> bool {
    true
}

/// Run rmcp sessions over in-memory pipes, feeding them the screened lines
/// in order, until the line channel closes and the requests in flight are
/// answered. A session that ends early (it should not) is replaced by a
/// fresh one, so the server keeps serving.
async fn run_sessions<W>(
    server: NotaraiServer,
    mut lines: mpsc::Receiver<Forward>,
    shared: Arc<Shared<W>>,
) -> anyhow::Result<()>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    let mut queue = Queue::default();
    loop {
        let (mut to_rmcp, rmcp_in) = tokio::io::duplex(1 << 20);
        let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 20);
        let pump = tokio::spawn(pump_out(from_rmcp, shared.clone()));
        let service = server.clone();
        let session = tokio::spawn(async move {
            match service.serve((rmcp_in, rmcp_out)).await {
                Ok(running) => {
                    let _ = running.waiting().await;
                }
                Err(e) => tracing::warn!("MCP session ended during the handshake: {e}"),
            }
        });
        let mut input_closed = true;
        while let Some(forward) = queue.next(&mut lines).await {
            // A write tool starts after every tool call before it (the
            // write before it included); the calls after it are not held
            // for it. Cancellations are let through meanwhile: they stop
            // what is waited for.
            if forward.write && !queue.wait_idle(&shared, &mut lines, &mut to_rmcp).await? {
                input_closed = false;
                break;
            }
            if !hand_over(forward, &shared, &mut to_rmcp).await? || session.is_finished() {
                input_closed = false;
                break;
            }
        }
        if input_closed && !shared.wait_idle(any_request, Some(SHUTDOWN_GRACE)).await {
            tracing::warn!(
                "requests still running {}s after stdin closed; answering them with an error",
                SHUTDOWN_GRACE.as_secs()
            );
        }
        shared
            .fail_in_flight("the server stopped before this request was answered (stdin closed)")
            .await?;
        drop(to_rmcp);
        let _ = session.await;
        let _ = pump.await;
        if input_closed {
            return Ok(());
        }
        tracing::warn!("restarting the MCP session");
        let mut state = shared.state();
        state.initialized = false;
        state.inline = false;
    }
}

/// Hand one screened message to rmcp; `false` when the session is gone.
async fn hand_over<W: AsyncWrite + Unpin>(
    forward: Forward,
    shared: &Shared<W>,
    to_rmcp: &mut (impl AsyncWrite + Unpin),
) -> std::io::Result<bool> {
    if let Some(id) = &forward.id
        && let Some(pending) = shared.state().in_flight.get_mut(&key(id))
    {
        pending.forwarded = true;
    }
    let mut line = forward.bytes;
    line.push(b'\n');
    if to_rmcp.write_all(&line).await.is_err() {
        return Ok(false);
    }
    if let Some(cancelled) = &forward.cancels {
        shared.forget(cancelled, true).await?;
    }
    Ok(true)
}

/// How many messages are read ahead while a write tool holds the line.
const HELD: usize = 64;

/// The messages read while waiting for a write tool, handed over after it.
#[derive(Default)]
struct Queue {
    held: std::collections::VecDeque<Forward>,
    closed: bool,
}

impl Queue {
    /// The next message to hand over, in the order read.
    async fn next(&mut self, lines: &mut mpsc::Receiver<Forward>) -> Option<Forward> {
        match self.held.pop_front() {
            Some(forward) => Some(forward),
            None if self.closed => None,
            None => lines.recv().await,
        }
    }

    /// Wait until no tool call is in flight, reading ahead meanwhile: a
    /// `notifications/cancelled` is handed over at once (the call it
    /// cancels may be what is waited for), or, when it cancels a request
    /// still held here, that request is dropped and forgotten; anything else
    /// waits its turn. `false` when the session is gone.
    async fn wait_idle<W: AsyncWrite + Unpin>(
        &mut self,
        shared: &Shared<W>,
        lines: &mut mpsc::Receiver<Forward>,
        to_rmcp: &mut (impl AsyncWrite + Unpin),
    ) -> std::io::Result<bool> {
        loop {
            let read_ahead = !self.closed && self.held.len() < HELD;
            tokio::select! {
                biased;
                _ = shared.wait_idle(is_tool_call, None) => return Ok(true),
                next = lines.recv(), if read_ahead => match next {
                    None => self.closed = true,
                    Some(forward) => match &forward.cancels {
                        Some(cancelled) => {
                            let before = self.held.len();
                            self.held.retain(|h| h.id.as_ref() != Some(cancelled));
                            if self.held.len() < before {
                                shared.forget(cancelled, false).await?;
                            } else if !hand_over(forward, shared, to_rmcp).await? {
                                return Ok(false);
                            }
                        }
                        None => self.held.push_back(forward),
                    },
                },
            }
        }
    }
}

/// Copy rmcp's output to stdout, one whole line at a time; a last line
/// without its newline is incomplete and is dropped, never written.
async fn pump_out<R, W>(from_rmcp: R, shared: Arc<Shared<W>>) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        if line.pop() != Some(b'\n') {
            tracing::warn!("dropping an incomplete message from the MCP session");
            return Ok(());
        }
        shared.deliver(line).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_pump_never_writes_a_partial_line() {
        let (out, mut read_out) = tokio::io::duplex(1 << 16);
        let shared = Arc::new(Shared {
            out: Mutex::new(out),
            state: std::sync::Mutex::new(State::default()),
            changed: Notify::new(),
        });
        let from_rmcp: &[u8] =
            b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"res";
        pump_out(from_rmcp, shared.clone()).await.unwrap();
        drop(shared);
        let mut written = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut read_out, &mut written)
            .await
            .unwrap();
        assert_eq!(written, b"{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n");
    }
}
