//! Progress and cancellation of a tool call, over MCP.
//!
//! A `tools/call` whose `_meta` carries a `progressToken` gets
//! `notifications/progress` (`progressToken`, `progress`, `total`, a short
//! `message`) while its work runs: the domain reports through a
//! [`Progress`] (at most every [`crate::progress::MIN_INTERVAL`], the count
//! only growing), and a task here sends each report through rmcp, so it is
//! written whole by the one output writer of [`super::stdio`]. Every report
//! is sent before the call's answer. Without a token nothing is sent.
//!
//! `notifications/cancelled` for the call's id cancels rmcp's token of the
//! request; this raises the [`Cancel`] flag the domain checks, so the work
//! stops, writes nothing half-done, and reports no more. The framing
//! ([`super::stdio`]) and rmcp both drop the answer of a cancelled id.

use rmcp::RoleServer;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::progress::{Cancel, Progress, Report};

/// The notifications of one call, sent while it runs.
pub struct Tracker {
    task: JoinHandle<()>,
}

impl Tracker {
    /// Start tracking the call of `context`: the [`Progress`] to hand to its
    /// work, and the tracker to [`Tracker::finish`] once the work returned.
    pub fn start(context: &RequestContext<RoleServer>) -> (Progress, Tracker) {
        let cancel = Cancel::new();
        let ct = context.ct.clone();
        let token = context.meta.get_progress_token();
        let (tx, mut rx) = mpsc::unbounded_channel::<Report>();
        // Without a token nothing is sent, but the sender lives as long as
        // the work does: the task watches for a cancel until then.
        let reporting = token.is_some();
        let sink = move |report| {
            if reporting {
                let _ = tx.send(report);
            }
        };
        let progress = Progress::new(sink, cancel.clone());
        let peer = context.peer.clone();
        let task = tokio::spawn(async move {
            loop {
                tokio::select! {
                    biased;
                    () = ct.cancelled() => {
                        cancel.cancel();
                        return;
                    }
                    report = rx.recv() => {
                        let (Some(report), Some(token)) = (report, token.clone()) else {
                            return;
                        };
                        let param = ProgressNotificationParam::new(token, report.done as f64)
                            .with_total(report.total as f64)
                            .with_message(report.message);
                        if let Err(e) = peer.notify_progress(param).await {
                            tracing::debug!("cannot send a progress notification: {e}");
                        }
                    }
                }
            }
        });
        (progress, Tracker { task })
    }

    /// Wait until every report of the finished work is sent (the work's
    /// [`Progress`] is dropped), so none follows the answer.
    pub async fn finish(self) {
        let _ = self.task.await;
    }
}
