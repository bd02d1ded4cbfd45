//! The stdio transport: bounded lines in, typed messages to rmcp, typed
//! messages from rmcp out as whole lines.
//!
//! [`Framing`] is an rmcp [`Transport`]: rmcp's service loop receives the
//! messages this module decoded and sends its answers through it, with no
//! byte between them. Each line is parsed once ([`classify`]: the text
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
//!   `2026-07-28` request) is told by [`classify`]; rmcp serves both;
//! - the order of tool calls ([`super::projects`] states the concurrency
//!   model): a write tool starts once every tool call read before it is
//!   answered; write tools read meanwhile are held, in order; anything else
//!   is handed over at once, so a read is never held behind a write.
//!   `notifications/cancelled` is handed over at once too (it may cancel the
//!   very call waited for); one naming a held write drops that write;
//! - at the end of stdin, the requests in flight are answered before exit
//!   (after [`SHUTDOWN_GRACE`], with an error).
//!
//! One [`Shared`] state answers everything: every line written to stdout, by
//! rmcp or by this module, goes through its lock whole (a partial line is
//! never written), and it keeps the requests in flight by id.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage, ServerResult};
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
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

/// A request admitted and not answered yet.
#[derive(Debug)]
struct Pending {
    /// A `tools/call` (write tools wait for the ones before them).
    tool_call: bool,
    /// The batch its answer belongs in.
    batch: Option<u64>,
    /// `initialize`: its answer names the negotiated revision.
    initialize: bool,
    /// Handed to rmcp (not only queued).
    forwarded: bool,
    /// Its place in the order read.
    seq: u64,
}

/// The answers of one batch, collected until the last one is in.
#[derive(Debug, Default)]
struct Batch {
    /// Still being read: more requests may join.
    open: bool,
    /// Requests forwarded and not answered yet.
    waiting: usize,
    /// Each answer, serialized.
    answers: Vec<Vec<u8>>,
}

/// What the reader, the forwarder and the transport share.
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
    next_seq: u64,
}

impl State {
    /// The answer `line` for a request of `batch`: the line to write now,
    /// if any (a batch is written once its last answer is in).
    fn settle(&mut self, batch: Option<u64>, line: Vec<u8>) -> Option<Vec<u8>> {
        match batch {
            None => Some(line),
            Some(b) => {
                self.batches.entry(b).or_default().answers.push(line);
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
        (!entry.answers.is_empty()).then(|| {
            let mut line = b"[".to_vec();
            line.extend_from_slice(&entry.answers.join(&b","[..]));
            line.push(b']');
            line
        })
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

    /// Whether no tool call read before `seq` is still running.
    fn idle_before(&self, seq: u64) -> bool {
        !self
            .in_flight
            .values()
            .any(|p| p.forwarded && p.tool_call && p.seq < seq)
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
        let line = self.state().settle(batch, reply.to_string().into_bytes());
        match line {
            Some(line) => self.write_line(line).await,
            None => Ok(()),
        }
    }

    /// A message from rmcp: written, into its batch, or dropped when it
    /// answers a request no longer in flight (cancelled, or failed at
    /// shutdown).
    async fn deliver(&self, message: ServerJsonRpcMessage) -> std::io::Result<()> {
        let id = match &message {
            ServerJsonRpcMessage::Response(r) => Some(r.id.clone().into_json_value()),
            ServerJsonRpcMessage::Error(e) => e.id.clone().map(|id| id.into_json_value()),
            _ => None,
        };
        let line = serde_json::to_vec(&message)?;
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
                        if pending.initialize {
                            state.batches_allowed = matches!(&message,
                                ServerJsonRpcMessage::Response(r)
                                    if matches!(&r.result, ServerResult::InitializeResult(init)
                                        if init.protocol_version.as_str() == BATCH_REVISION));
                        }
                        state.settle(pending.batch, line)
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

    /// Wait until `done` holds of the state, or `limit` passed; whether it
    /// came to hold.
    async fn wait_for(&self, done: impl Fn(&State) -> bool, limit: Option<Duration>) -> bool {
        let deadline = limit.map(|l| tokio::time::Instant::now() + l);
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if done(&self.state()) {
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
                    let answer = error(id, code::INTERNAL_ERROR, message);
                    state.settle(pending.batch, answer.to_string().into_bytes())
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

/// The rmcp transport of one session: the messages the forwarder hands
/// over, in order, and every message rmcp sends, through [`Shared`].
struct Framing<W> {
    messages: mpsc::Receiver<ClientJsonRpcMessage>,
    shared: Arc<Shared<W>>,
}

impl<W> Transport<RoleServer> for Framing<W>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let shared = self.shared.clone();
        async move { shared.deliver(item).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.messages.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.messages.close();
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
            Ok(lines_tx.send(forward).await.is_ok())
        }
    }
}

/// Record a message about to be passed on: its place in the order read, a
/// request in flight (in its batch), the era it opens.
fn admit(state: &mut State, forward: &mut Forward, method: Option<&str>, batch: Option<u64>) {
    if method == Some("initialize") {
        state.initialized = true;
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

/// Run rmcp sessions on [`Framing`], handing them the screened messages in
/// order, until the line channel closes and the requests in flight are
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
        let (to_rmcp, messages) = mpsc::channel(64);
        let transport = Framing {
            messages,
            shared: shared.clone(),
        };
        let service = server.clone();
        let session = tokio::spawn(async move {
            match service.serve(transport).await {
                Ok(running) => {
                    let _ = running.waiting().await;
                }
                Err(e) => tracing::warn!("MCP session ended during the handshake: {e}"),
            }
        });
        let input_closed = queue.run(&shared, &mut lines, &to_rmcp, &session).await?;
        if input_closed
            && !shared
                .wait_for(nothing_forwarded, Some(SHUTDOWN_GRACE))
                .await
        {
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
        if input_closed {
            return Ok(());
        }
        tracing::warn!("restarting the MCP session");
        let mut state = shared.state();
        state.initialized = false;
        state.inline = false;
    }
}

fn nothing_forwarded(state: &State) -> bool {
    !state.in_flight.values().any(|p| p.forwarded)
}

/// Hand one screened message to rmcp; `false` when the session is gone.
async fn hand_over<W: AsyncWrite + Unpin>(
    forward: Forward,
    shared: &Shared<W>,
    to_rmcp: &mpsc::Sender<ClientJsonRpcMessage>,
) -> std::io::Result<bool> {
    if let Some(id) = &forward.id
        && let Some(pending) = shared.state().in_flight.get_mut(&key(id))
    {
        pending.forwarded = true;
    }
    if to_rmcp.send(forward.message).await.is_err() {
        return Ok(false);
    }
    if let Some(cancelled) = &forward.cancels {
        shared.forget(cancelled, true).await?;
    }
    Ok(true)
}

/// How many write tools are read ahead while one waits for its turn.
const HELD: usize = 64;

/// The write tools read while an earlier one waits, in order.
#[derive(Default)]
struct Queue {
    held: VecDeque<Forward>,
    closed: bool,
}

impl Queue {
    /// Hand the messages over in the order read until the input closes and
    /// nothing is held (`true`), or the session is gone (`false`). A write
    /// tool waits until every tool call read before it is answered (the
    /// writes before it included), and the writes read meanwhile wait
    /// behind it; anything else is handed over at once. A
    /// `notifications/cancelled` naming a held write drops that write.
    async fn run<W: AsyncWrite + Unpin>(
        &mut self,
        shared: &Shared<W>,
        lines: &mut mpsc::Receiver<Forward>,
        to_rmcp: &mpsc::Sender<ClientJsonRpcMessage>,
        session: &tokio::task::JoinHandle<()>,
    ) -> std::io::Result<bool> {
        loop {
            let turn = self.held.front().map(|f| f.seq);
            if let Some(seq) = turn
                && shared.state().idle_before(seq)
            {
                let write = self.held.pop_front().expect("a front");
                if !hand_over(write, shared, to_rmcp).await? || session.is_finished() {
                    return Ok(false);
                }
                continue;
            }
            if self.closed && self.held.is_empty() {
                return Ok(true);
            }
            let read_ahead = !self.closed && self.held.len() < HELD;
            tokio::select! {
                biased;
                _ = shared.wait_for(|s| s.idle_before(turn.unwrap_or(0)), None),
                    if turn.is_some() => {}
                next = lines.recv(), if read_ahead => match next {
                    None => self.closed = true,
                    Some(forward) => {
                        if !self.take(forward, shared, to_rmcp).await? || session.is_finished() {
                            return Ok(false);
                        }
                    }
                },
            }
        }
    }

    /// One message read: held (a write whose turn has not come), dropped
    /// with the held write it cancels, or handed over.
    async fn take<W: AsyncWrite + Unpin>(
        &mut self,
        forward: Forward,
        shared: &Shared<W>,
        to_rmcp: &mpsc::Sender<ClientJsonRpcMessage>,
    ) -> std::io::Result<bool> {
        if let Some(cancelled) = &forward.cancels {
            let before = self.held.len();
            self.held.retain(|h| h.id.as_ref() != Some(cancelled));
            if self.held.len() < before {
                shared.forget(cancelled, false).await?;
                return Ok(true);
            }
        }
        if forward.write && (!self.held.is_empty() || !shared.state().idle_before(forward.seq)) {
            self.held.push_back(forward);
            return Ok(true);
        }
        hand_over(forward, shared, to_rmcp).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_its_answers_as_one_json_array() {
        assert_eq!(
            rmcp::model::ProtocolVersion::V_2025_03_26.as_str(),
            BATCH_REVISION
        );
        let mut state = State::default();
        let open = Batch {
            open: true,
            ..Batch::default()
        };
        state.batches.insert(1, open);
        let first = json!({"jsonrpc": "2.0", "id": 1, "result": {"b": 1, "a": [2.5, "x"]}});
        let second = error(json!("2"), code::INTERNAL_ERROR, "no \"luck\"");
        assert_eq!(state.settle(Some(1), first.to_string().into_bytes()), None);
        state.batches.get_mut(&1).unwrap().open = false;
        let line = state.settle(Some(1), second.to_string().into_bytes());
        // The same bytes as the array of the answers, serialized whole.
        let whole = Value::Array(vec![first, second]).to_string().into_bytes();
        assert_eq!(line, Some(whole));
    }
}
