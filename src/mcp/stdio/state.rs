//! What the reader, the forwarder and rmcp's answers share: the requests
//! in flight, the batches being answered, the era, and stdout, written one
//! whole line at a time.

use std::collections::HashMap;
use std::time::Duration;

use rmcp::model::{ServerJsonRpcMessage, ServerResult};
use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{Mutex, Notify};

use super::{BATCH_REVISION, code, error, key};

/// A request admitted and not answered yet.
#[derive(Debug)]
pub(super) struct Pending {
    /// A `tools/call` (write tools wait for the ones before them).
    pub(super) tool_call: bool,
    /// A call of a write tool (the requests after it wait for its answer).
    pub(super) write: bool,
    /// The batch its answer belongs in.
    pub(super) batch: Option<u64>,
    /// `initialize`: its answer names the negotiated revision.
    pub(super) initialize: bool,
    /// Handed to rmcp (not only queued).
    pub(super) forwarded: bool,
    /// Its place in the order read.
    pub(super) seq: u64,
}

/// The answers of one batch, collected until the last one is in.
#[derive(Debug, Default)]
pub(super) struct Batch {
    /// Still being read: more requests may join.
    pub(super) open: bool,
    /// Requests forwarded and not answered yet.
    pub(super) waiting: usize,
    /// Each answer, serialized.
    pub(super) answers: Vec<Vec<u8>>,
}

/// What the reader, the forwarder and the transport share.
#[derive(Debug, Default)]
pub(super) struct State {
    /// `initialize` was read: the legacy era, for this process.
    pub(super) initialized: bool,
    /// A `2026-07-28` request was read first: the stateless era, for this
    /// process (see [`classify`] for how the eras are told apart).
    pub(super) modern: bool,
    /// A `2026-07-28` request other than `server/discover` was handed to
    /// rmcp: its session left the opening phase (where a notification would
    /// end it) and serves every request by its own `_meta`.
    pub(super) inline: bool,
    /// The negotiated revision allows batches.
    pub(super) batches_allowed: bool,
    pub(super) in_flight: HashMap<String, Pending>,
    pub(super) batches: HashMap<u64, Batch>,
    pub(super) next_batch: u64,
    pub(super) next_seq: u64,
}

impl State {
    /// The answer `line` for a request of `batch`: the line to write now,
    /// if any (a batch is written once its last answer is in).
    pub(super) fn settle(&mut self, batch: Option<u64>, line: Vec<u8>) -> Option<Vec<u8>> {
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
    pub(super) fn finish_batch(&mut self, b: u64) -> Option<Vec<u8>> {
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
    pub(super) fn take(&mut self, id: &Value) -> Option<Pending> {
        let pending = self.in_flight.remove(&key(id))?;
        if let Some(b) = pending.batch
            && let Some(batch) = self.batches.get_mut(&b)
        {
            batch.waiting -= 1;
        }
        Some(pending)
    }

    /// Whether no tool call read before `seq` is still running.
    pub(super) fn idle_before(&self, seq: u64) -> bool {
        !self
            .in_flight
            .values()
            .any(|p| p.forwarded && p.tool_call && p.seq < seq)
    }

    /// Whether no write tool read before `seq` is still running.
    pub(super) fn no_write_before(&self, seq: u64) -> bool {
        !self
            .in_flight
            .values()
            .any(|p| p.forwarded && p.write && p.seq < seq)
    }

    /// Whether a request may start now (the order of the concurrency model,
    /// [`crate::mcp::projects`]): a write once every tool call read before
    /// it is answered, a request that reads once every write read before it
    /// is answered, anything else at once.
    pub(super) fn may_start(&self, turn: Turn) -> bool {
        match turn {
            Turn {
                write: true, seq, ..
            } => self.idle_before(seq),
            Turn {
                ordered: true, seq, ..
            } => self.no_write_before(seq),
            _ => true,
        }
    }
}

/// What the order needs of a request: its place, and whether it writes or
/// reads what a write changes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Turn {
    /// Its place in the order read.
    pub(super) seq: u64,
    /// A write tool.
    pub(super) write: bool,
    /// A request that reads what a write changes.
    pub(super) ordered: bool,
}

/// The output and the state, behind their locks.
pub(super) struct Shared<W> {
    pub(super) out: Mutex<W>,
    pub(super) state: std::sync::Mutex<State>,
    pub(super) changed: Notify,
}

impl<W: AsyncWrite + Unpin> Shared<W> {
    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Write one whole line (a newline is added) and flush.
    pub(super) async fn write_line(&self, mut line: Vec<u8>) -> std::io::Result<()> {
        line.push(b'\n');
        let mut out = self.out.lock().await;
        out.write_all(&line).await?;
        out.flush().await
    }

    /// Answer with `reply` here, alone or as part of `batch`.
    pub(super) async fn reply(&self, batch: Option<u64>, reply: Value) -> std::io::Result<()> {
        let line = self.state().settle(batch, reply.to_string().into_bytes());
        match line {
            Some(line) => self.write_line(line).await,
            None => Ok(()),
        }
    }

    /// A message from rmcp: written, into its batch, or dropped when it
    /// answers a request no longer in flight (cancelled, or failed at
    /// shutdown).
    pub(super) async fn deliver(&self, message: ServerJsonRpcMessage) -> std::io::Result<()> {
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
    pub(super) async fn wait_for(
        &self,
        done: impl Fn(&State) -> bool,
        limit: Option<Duration>,
    ) -> bool {
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
    pub(super) async fn forget(&self, id: &Value, forwarded_only: bool) -> std::io::Result<()> {
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
    pub(super) async fn fail_in_flight(&self, message: &str) -> std::io::Result<()> {
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

#[cfg(test)]
mod tests {
    use serde_json::json;

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
