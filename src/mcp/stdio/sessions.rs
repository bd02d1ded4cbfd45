//! The rmcp sessions: the transport each runs on ([`Framing`]), and the
//! order the screened messages are handed over in (the write tools'
//! turns, [`Queue`]).

use std::collections::VecDeque;
use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::{RoleServer, ServiceExt};
use tokio::io::AsyncWrite;
use tokio::sync::mpsc;

use super::classify::Forward;
use super::state::{Shared, State, Turn};
use super::{SHUTDOWN_GRACE, key};
use crate::mcp::server::NotaraiServer;

/// The rmcp transport of one session: the messages the forwarder hands
/// over, in order, and every message rmcp sends, through [`Shared`].
pub(super) struct Framing<W> {
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

/// Run rmcp sessions on [`Framing`], handing them the screened messages in
/// order, until the line channel closes and the requests in flight are
/// answered. A session that ends early (it should not) is replaced by a
/// fresh one, so the server keeps serving.
pub(super) async fn run_sessions<W>(
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

/// How many requests are read ahead while one waits for its turn.
const HELD: usize = 64;

/// The requests read while an earlier one waits for its turn, in order.
#[derive(Default)]
struct Queue {
    held: VecDeque<Forward>,
    closed: bool,
}

impl Queue {
    /// Hand the messages over in the order read until the input closes and
    /// nothing is held (`true`), or the session is gone (`false`). A write
    /// tool waits until every tool call read before it is answered (the
    /// writes before it included); a request that reads waits until every
    /// write read before it is answered (so it sees them); what is read
    /// meanwhile waits behind, in order; anything else (`ping`,
    /// notifications) is handed over at once. A `notifications/cancelled`
    /// naming a held request drops it.
    async fn run<W: AsyncWrite + Unpin>(
        &mut self,
        shared: &Shared<W>,
        lines: &mut mpsc::Receiver<Forward>,
        to_rmcp: &mpsc::Sender<ClientJsonRpcMessage>,
        session: &tokio::task::JoinHandle<()>,
    ) -> std::io::Result<bool> {
        loop {
            let turn = self.held.front().map(turn_of);
            if let Some(turn) = turn
                && shared.state().may_start(turn)
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
                _ = shared.wait_for(|s| turn.is_some_and(|t| s.may_start(t)), None),
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

    /// One message read: held (a request whose turn has not come, or read
    /// while others are held), dropped with the held request it cancels, or
    /// handed over.
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
        let turn = turn_of(&forward);
        if (turn.write || turn.ordered)
            && (!self.held.is_empty() || !shared.state().may_start(turn))
        {
            self.held.push_back(forward);
            return Ok(true);
        }
        hand_over(forward, shared, to_rmcp).await
    }
}

/// What the order needs of `forward`.
fn turn_of(forward: &Forward) -> Turn {
    Turn {
        seq: forward.seq,
        write: forward.write,
        ordered: forward.ordered && forward.id.is_some(),
    }
}
