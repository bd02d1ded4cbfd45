//! Progress and cancellation of one long piece of work (hashing thousands of
//! files, a wide diff), told to whoever started it.
//!
//! Domain code is handed a [`Progress`]: it says how much there is to do
//! ([`Progress::begin`]), what it is doing ([`Progress::stage`]), counts what
//! it did ([`Progress::advance`], safe from many threads) and asks whether to
//! stop ([`Progress::check`]). Reports go to a sink the caller chose (the
//! MCP layer turns them into `notifications/progress`; the CLI passes
//! [`Progress::none`]), never more often than every [`MIN_INTERVAL`], and
//! with a count that only grows. Nothing here knows about JSON-RPC.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The least time between two reports: work that advances often reports
/// every 50 ms or so, never more often (a report costs a line on stdout).
pub const MIN_INTERVAL: Duration = Duration::from_millis(50);

/// One report: `done` of `total` units of work, and what is being done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Units done so far; greater than in every earlier report.
    pub done: u64,
    /// Units in all, as known when reported.
    pub total: u64,
    /// What is being done, short (`hashing files`).
    pub message: String,
}

/// The work was cancelled by whoever started it: nothing half-done was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the work was cancelled before it finished; nothing was written")]
pub struct Cancelled;

impl crate::error::Diagnose for Cancelled {}

/// A flag the starter of the work raises to stop it; cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag not raised yet.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Ask the work to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether the work was asked to stop.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
}

/// Where reports go.
type Sink = Box<dyn Fn(Report) + Send + Sync>;

/// The last report sent.
#[derive(Debug, Default)]
struct Sent {
    at: Option<Instant>,
    done: Option<u64>,
}

struct Inner {
    sink: Sink,
    cancel: Cancel,
    done: AtomicU64,
    total: AtomicU64,
    stage: Mutex<String>,
    sent: Mutex<Sent>,
}

/// The reporter handed to domain functions: a no-op from [`Progress::none`].
#[derive(Clone, Default)]
pub struct Progress {
    inner: Option<Arc<Inner>>,
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("reporting", &self.inner.is_some())
            .finish()
    }
}

impl Progress {
    /// Reports nothing and is never cancelled.
    pub fn none() -> Progress {
        Progress::default()
    }

    /// Reports to `sink` and stops when `cancel` is raised.
    pub fn new(sink: impl Fn(Report) + Send + Sync + 'static, cancel: Cancel) -> Progress {
        Progress {
            inner: Some(Arc::new(Inner {
                sink: Box::new(sink),
                cancel,
                done: AtomicU64::new(0),
                total: AtomicU64::new(0),
                stage: Mutex::new(String::new()),
                sent: Mutex::new(Sent::default()),
            })),
        }
    }

    /// There are `total` units of work in all (added to what was begun
    /// before); reported at once when nothing was reported yet.
    pub fn begin(&self, total: u64, stage: &str) {
        let Some(inner) = &self.inner else { return };
        inner.total.fetch_add(total, Ordering::AcqRel);
        self.stage(stage);
        self.report(false);
    }

    /// Say what is being done now (`diffing files`).
    pub fn stage(&self, stage: &str) {
        let Some(inner) = &self.inner else { return };
        let mut current = inner.stage.lock().unwrap_or_else(|p| p.into_inner());
        current.clear();
        current.push_str(stage);
    }

    /// `n` more units done; reported when [`MIN_INTERVAL`] passed since the
    /// last report.
    pub fn advance(&self, n: u64) {
        let Some(inner) = &self.inner else { return };
        inner.done.fetch_add(n, Ordering::AcqRel);
        self.report(false);
    }

    /// Report where the work stands now, whatever the interval (the end of a
    /// stage), unless nothing was done since the last report.
    pub fn flush(&self) {
        self.report(true);
    }

    /// Whether the work was asked to stop.
    pub fn is_cancelled(&self) -> bool {
        self.inner
            .as_ref()
            .is_some_and(|inner| inner.cancel.is_cancelled())
    }

    /// `Err(Cancelled)` once the work was asked to stop.
    pub fn check(&self) -> Result<(), Cancelled> {
        match self.is_cancelled() {
            true => Err(Cancelled),
            false => Ok(()),
        }
    }

    fn report(&self, now: bool) {
        let Some(inner) = &self.inner else { return };
        if inner.cancel.is_cancelled() {
            return;
        }
        // Another thread reporting right now is enough.
        let Ok(mut sent) = inner.sent.try_lock() else {
            return;
        };
        let at = Instant::now();
        let due = now || sent.at.is_none_or(|last| at - last >= MIN_INTERVAL);
        let done = inner.done.load(Ordering::Acquire);
        if !due || sent.done.is_some_and(|last| done <= last) {
            return;
        }
        let total = inner.total.load(Ordering::Acquire).max(done);
        let message = inner
            .stage
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        sent.at = Some(at);
        sent.done = Some(done);
        (inner.sink)(Report {
            done,
            total,
            message,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collecting() -> (Progress, Arc<Mutex<Vec<Report>>>, Cancel) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let cancel = Cancel::new();
        let progress = Progress::new(move |r| sink.lock().unwrap().push(r), cancel.clone());
        (progress, seen, cancel)
    }

    #[test]
    fn reports_grow_and_are_spaced() {
        let (progress, seen, _) = collecting();
        progress.begin(1000, "hashing files");
        let start = Instant::now();
        for _ in 0..1000 {
            progress.advance(1);
            std::thread::sleep(Duration::from_micros(300));
        }
        progress.flush();
        let elapsed = start.elapsed();
        let seen = seen.lock().unwrap();
        assert_eq!(seen[0].done, 0, "the start is reported at once");
        assert_eq!(seen.last().unwrap().done, 1000, "the end is reported");
        assert!(seen.windows(2).all(|w| w[0].done < w[1].done), "{seen:?}");
        assert!(
            seen.iter()
                .all(|r| r.total == 1000 && r.message == "hashing files")
        );
        let most = 2 + (elapsed.as_millis() / MIN_INTERVAL.as_millis()) as usize;
        assert!(seen.len() <= most, "{} reports in {elapsed:?}", seen.len());
        assert!(seen.len() >= 3, "{seen:?}");
    }

    #[test]
    fn cancel_stops_reports_and_none_is_silent() {
        let (progress, seen, cancel) = collecting();
        progress.begin(10, "x");
        assert!(progress.check().is_ok());
        cancel.cancel();
        progress.advance(5);
        progress.flush();
        assert_eq!(progress.check(), Err(Cancelled));
        assert_eq!(seen.lock().unwrap().len(), 1);
        let none = Progress::none();
        none.begin(3, "x");
        none.advance(3);
        assert!(none.check().is_ok());
    }
}
