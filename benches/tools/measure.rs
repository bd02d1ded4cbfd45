//! Timing series and the interleaved notarai/baseline loop.
//!
//! Every case runs one untimed warm-up of each side, then `runs` timed
//! rounds, each round one notarai call followed by one baseline run, so that
//! drift of a shared machine hits both sides alike. A side that fails stops
//! being called; the other goes on.

use std::time::Duration;

use anyhow::{Context, Result};

/// One side's timings in a case.
#[derive(Debug, Default)]
pub struct Series {
    /// Timed samples (the warm-up excluded).
    pub times: Vec<Duration>,
    /// Bytes of the last answer.
    pub bytes: usize,
    /// The first error, after which the side is no longer called.
    pub error: Option<String>,
}

impl Series {
    /// A series that failed before its first call.
    pub fn failed(error: String) -> Self {
        Series {
            error: Some(error),
            ..Series::default()
        }
    }

    /// Whether this side is still being measured.
    pub fn active(&self) -> bool {
        self.error.is_none()
    }

    /// Keep one outcome; a warm-up's time is dropped, its error is not.
    pub fn record(&mut self, outcome: Result<(Duration, usize)>, warm_up: bool) {
        match outcome {
            Ok((time, bytes)) => {
                self.bytes = bytes;
                if !warm_up {
                    self.times.push(time);
                }
            }
            Err(err) => self.error = Some(format!("{err:#}")),
        }
    }

    /// Median in milliseconds, when the series completed.
    pub fn median_ms(&self) -> Option<f64> {
        if self.error.is_some() || self.times.is_empty() {
            return None;
        }
        Some(median(&self.times).as_secs_f64() * 1000.0)
    }
}

/// Median of `times` (mean of the middle two for an even count).
pub fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2
    }
}

/// Run a warm-up and `runs` rounds of `notarai` then `baseline`, each
/// returning its own measured time and answer size.
pub fn interleave(
    runs: usize,
    mut notarai: Series,
    mut call: impl FnMut() -> Result<(Duration, usize)>,
    mut baseline: impl FnMut() -> Result<(Duration, usize)>,
) -> (Series, Series) {
    let mut base = Series::default();
    for round in 0..=runs {
        let warm_up = round == 0;
        if notarai.active() {
            notarai.record(call(), warm_up);
        }
        if base.active() {
            base.record(baseline(), warm_up);
        }
    }
    (notarai, base)
}

/// Time `f`, returning its duration and the size it reports.
pub fn timed(f: impl FnOnce() -> Result<usize>) -> Result<(Duration, usize)> {
    let started = std::time::Instant::now();
    let bytes = f()?;
    Ok((started.elapsed(), bytes))
}

/// A child process run to its exit by [`run_to_exit`].
#[derive(Debug)]
pub struct Exited {
    /// Spawn to exit.
    pub elapsed: Duration,
    /// Bytes it printed on stdout.
    pub stdout_bytes: usize,
    /// Its exit code (`None` when a signal ended it).
    pub code: Option<i32>,
    /// Its peak resident memory in KiB: `ru_maxrss` of `wait4`, which the
    /// kernel keeps until the child is reaped (Linux counts in KiB).
    pub peak_kib: u64,
}

/// Spawn `cmd` (stdin closed, stderr discarded), read its stdout to the end
/// and reap it with `wait4`, which gives its resource usage.
pub fn run_to_exit(cmd: &mut std::process::Command) -> Result<Exited> {
    use std::io::Read;
    use std::process::Stdio;
    let started = std::time::Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("spawning the child")?;
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .context("the child has no stdout")?
        .read_to_end(&mut stdout)?;
    let pid = libc::pid_t::try_from(child.id()).context("pid out of range")?;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own unreaped child; both pointers are to live locals.
        let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if reaped == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err).context("wait4");
        }
    }
    let elapsed = started.elapsed();
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    Ok(Exited {
        elapsed,
        stdout_bytes: stdout.len(),
        code,
        peak_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
    })
}
