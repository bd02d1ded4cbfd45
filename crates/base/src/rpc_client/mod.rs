//! The one JSON-RPC client of a stdio MCP server (`notarai mcp`, or any
//! command an agent's config names): `doctor`'s handshake, the integration
//! tests' raw client and the benchmarks all speak through it, so none of
//! them writes JSON-RPC lines or reads a child's stdout by hand
//! (`tests/it/scans.rs` checks).
//!
//! [`Client::spawn`] starts a prepared [`Command`] with piped stdio; a
//! reader thread turns its stdout into lines (bounded, each with its arrival
//! time) and another keeps its stderr (or stderr goes where the caller said),
//! so every wait has a deadline and nothing hangs. On top: requests and
//! notifications as typed envelopes, raw lines for tests of the framing, the
//! answer to one id (what came before it kept apart), the `initialize`
//! handshake, tool calls and following `next_cursor` to the last page.
//!
//! Messages are `serde_json::Value`: a client of any server cannot know the
//! shape of every answer; the envelopes it writes and the parts it reads
//! itself (`result`, `error`, a tool's content) are typed.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod wire;

pub use wire::{Answer, ContentBlock, Line, Message, RpcError, ToolCall, ToolResult};
use wire::{CallParams, Implementation, InitializeParams, Notification, ProgressMeta, Request};

/// The protocol revision [`Client::initialize`] asks for.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// How long one answer may take unless [`SpawnOptions::timeout`] says
/// otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// What went wrong between the client and the server.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The process did not start.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program, as given.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// Nothing arrived within the wait.
    #[error("no answer within {} ms", after.as_millis())]
    Timeout {
        /// How long the client waited.
        after: Duration,
    },
    /// The server closed its stdout (it exited, most likely).
    #[error("the server closed its stdout")]
    Closed,
    /// A stdout line that is not a JSON-RPC message (a log line on stdout,
    /// a line over the limit).
    #[error("its stdout is not MCP JSON-RPC: {line:?} (logs must go to stderr)")]
    NotProtocol {
        /// The start of the line.
        line: String,
    },
    /// Writing to the server's stdin failed (it exited), or stdin is closed.
    #[error("cannot write to the server: {0}")]
    Write(std::io::Error),
    /// A tool answered with a JSON-RPC error or `isError: true`.
    #[error("{tool}: {message}")]
    Tool {
        /// The tool.
        tool: String,
        /// What the server said.
        message: String,
    },
}

impl crate::error::Diagnose for ClientError {}

/// Where the server's stderr goes.
#[derive(Debug)]
pub enum StderrTo {
    /// Kept in memory, its last `tail` bytes ([`Client::stderr`]).
    Keep {
        /// How many bytes of its end are kept (`usize::MAX`: all).
        tail: usize,
    },
    /// Where the caller says (a log file, `Stdio::null()`).
    Stdio(Stdio),
}

/// How [`Client::spawn`] starts and reads the server.
#[derive(Debug)]
pub struct SpawnOptions {
    /// Where stderr goes.
    pub stderr: StderrTo,
    /// Longest stdout line read; a longer one is a [`ClientError::NotProtocol`]
    /// and the end of reading.
    pub max_line: usize,
    /// How long [`Client::answer`] and what builds on it wait.
    pub timeout: Duration,
    /// Start it in a process group of its own, so that [`Client::kill`]
    /// stops what it started too (a wrapper script's or `npx`'s children).
    pub own_group: bool,
    /// Skip blank stdout lines instead of calling them
    /// [`ClientError::NotProtocol`] (doctor is lenient with a server an
    /// agent would still understand; the tests are strict).
    pub skip_blank_lines: bool,
}

impl Default for SpawnOptions {
    fn default() -> SpawnOptions {
        SpawnOptions {
            stderr: StderrTo::Keep { tail: usize::MAX },
            max_line: 64 * 1024 * 1024,
            timeout: DEFAULT_TIMEOUT,
            own_group: false,
            skip_blank_lines: false,
        }
    }
}

/// A running server behind a JSON-lines client. Dropping it kills a server
/// that is still running (its group too when it has one).
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    stderr: Option<Arc<KeptStderr>>,
    timeout: Duration,
    own_group: bool,
    skip_blank_lines: bool,
    next_id: u64,
}

/// The end of the server's stderr, and whether it was closed.
#[derive(Default)]
struct KeptStderr {
    bytes: Mutex<Vec<u8>>,
    closed: AtomicBool,
}

impl Client {
    /// Start `command` (its program, arguments, environment and folder as
    /// the caller prepared them) with piped stdin and stdout.
    pub fn spawn(mut command: Command, options: SpawnOptions) -> Result<Client, ClientError> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        let tail = match options.stderr {
            StderrTo::Keep { tail } => {
                command.stderr(Stdio::piped());
                Some(tail)
            }
            StderrTo::Stdio(stdio) => {
                command.stderr(stdio);
                None
            }
        };
        #[cfg(unix)]
        if options.own_group {
            std::os::unix::process::CommandExt::process_group(&mut command, 0);
        }
        let mut child = command.spawn().map_err(|source| ClientError::Spawn {
            program: command.get_program().to_string_lossy().into_owned(),
            source,
        })?;
        let stderr = tail.and_then(|tail| Some(keep_stderr(child.stderr.take()?, tail)));
        let (tx, lines) = channel();
        if let Some(stdout) = child.stdout.take() {
            let max = options.max_line;
            std::thread::spawn(move || read_lines(stdout, max, |line| tx.send(line).is_ok()));
        }
        Ok(Client {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            timeout: options.timeout,
            own_group: options.own_group,
            skip_blank_lines: options.skip_blank_lines,
            next_id: 1,
        })
    }

    /// How long [`Client::answer`] waits.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Write `bytes` to the server's stdin as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), ClientError> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| ClientError::Write(std::io::ErrorKind::BrokenPipe.into()))?;
        stdin
            .write_all(bytes)
            .and_then(|()| stdin.flush())
            .map_err(ClientError::Write)
    }

    /// Write `message` as one JSON line (anything: a batch, a malformed
    /// request a test sends on purpose).
    pub fn send<T: Serialize + ?Sized>(&mut self, message: &T) -> Result<(), ClientError> {
        let mut line = serde_json::to_vec(message)
            .map_err(|e| ClientError::Write(std::io::Error::other(e)))?;
        line.push(b'\n');
        self.send_raw(&line)
    }

    /// A fresh numeric id for a request.
    pub fn fresh_id(&mut self) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        Value::from(id)
    }

    /// Send request `method` under `id` (`params` left out when `None`).
    pub fn request<P: Serialize>(
        &mut self,
        id: &Value,
        method: &str,
        params: Option<P>,
    ) -> Result<(), ClientError> {
        self.send(&Request {
            jsonrpc: "2.0",
            id,
            method,
            params,
        })
    }

    /// Send notification `method` (`params` left out when `None`).
    pub fn notify<P: Serialize>(
        &mut self,
        method: &str,
        params: Option<P>,
    ) -> Result<(), ClientError> {
        self.send(&Notification {
            jsonrpc: "2.0",
            method,
            params,
        })
    }

    /// The next stdout line within `within`.
    pub fn recv_line(&mut self, within: Duration) -> Result<Line, ClientError> {
        match self.lines.recv_timeout(within) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(ClientError::Timeout { after: within }),
            Err(RecvTimeoutError::Disconnected) => Err(ClientError::Closed),
        }
    }

    /// The next stdout line as JSON within `within` (a blank one skipped
    /// when [`SpawnOptions::skip_blank_lines`] says so).
    pub fn recv(&mut self, within: Duration) -> Result<Message, ClientError> {
        let until = Instant::now() + within;
        loop {
            let line = self.recv_line(until.saturating_duration_since(Instant::now()))?;
            if self.skip_blank_lines && line.bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            return match serde_json::from_slice(&line.bytes) {
                Ok(value) => Ok(Message {
                    value,
                    arrived: line.arrived,
                    bytes: line.bytes.len(),
                }),
                Err(_) => Err(not_protocol(&line.bytes)),
            };
        }
    }

    /// Wait (at most the client's timeout) for the answer to `id`; what
    /// arrives before it is kept in [`Answer::others`]. A line that is not
    /// a JSON object (or a batch) is [`ClientError::NotProtocol`].
    pub fn answer(&mut self, id: &Value) -> Result<Answer, ClientError> {
        let until = Instant::now() + self.timeout;
        let mut others = Vec::new();
        loop {
            let message = self
                .recv(until.saturating_duration_since(Instant::now()))
                .map_err(|e| match e {
                    ClientError::Timeout { .. } => ClientError::Timeout {
                        after: self.timeout,
                    },
                    e => e,
                })?;
            if !message.value.is_object() && !message.value.is_array() {
                return Err(not_protocol(message.value.to_string().as_bytes()));
            }
            if message.id() == Some(id) {
                return Ok(Answer { message, others });
            }
            others.push(message);
        }
    }

    /// Send request `method` under a fresh id and wait for its answer. When
    /// the write fails (the server exited), what it left on stdout still
    /// says why (a log line, an early answer); the write's error otherwise.
    pub fn ask<P: Serialize>(
        &mut self,
        method: &str,
        params: Option<P>,
    ) -> Result<Answer, ClientError> {
        let id = self.fresh_id();
        match self.request(&id, method, params) {
            Ok(()) => self.answer(&id),
            Err(write) => match self.answer(&id) {
                Err(ClientError::Closed | ClientError::Timeout { .. }) => Err(write),
                read => read,
            },
        }
    }

    /// The `initialize` handshake as `client` (its name): the request (the
    /// protocol [`PROTOCOL_VERSION`], no capabilities), its answer, then,
    /// when it is a result, `notifications/initialized`. The answer either
    /// way: the caller tells a refusal from a result.
    pub fn initialize(&mut self, client: &str, version: &str) -> Result<Answer, ClientError> {
        let answer = self.ask(
            "initialize",
            Some(InitializeParams {
                protocol_version: PROTOCOL_VERSION,
                capabilities: Map::new(),
                client_info: Implementation {
                    name: client,
                    version,
                },
            }),
        )?;
        if answer.message.result().is_some() {
            self.notify::<()>("notifications/initialized", None)?;
        }
        Ok(answer)
    }

    /// Call tool `name` with `arguments`, asking for progress under
    /// `progress` when given; timed from the write to the answer's arrival.
    /// A JSON-RPC error is [`ClientError::Tool`]; `isError` is the caller's
    /// to read.
    pub fn call_tool(
        &mut self,
        name: &str,
        arguments: &Map<String, Value>,
        progress: Option<&str>,
    ) -> Result<ToolCall, ClientError> {
        let params = CallParams {
            name,
            arguments,
            meta: progress.map(|progress_token| ProgressMeta { progress_token }),
        };
        let started = Instant::now();
        let answer = self.ask("tools/call", Some(params))?;
        if let Some(error) = answer.message.error() {
            return Err(ClientError::Tool {
                tool: name.into(),
                message: format!("{} (code {})", error.message, error.code),
            });
        }
        let result = answer
            .message
            .result()
            .map(ToolResult::deserialize)
            .transpose()
            .map_err(|e| ClientError::Tool {
                tool: name.into(),
                message: format!("the result is not a tool result: {e}"),
            })?
            .unwrap_or_default();
        Ok(ToolCall {
            elapsed: answer.message.arrived.saturating_duration_since(started),
            bytes: answer.message.bytes,
            result,
            notifications: answer.others.iter().filter(|m| m.is_from_server()).count(),
        })
    }

    /// Every page of tool `name` with `arguments`: the first call, then one
    /// per `next_cursor` (passed as `cursor`) until a page has none. A page
    /// with `isError` is [`ClientError::Tool`]; at most `max_pages` pages.
    pub fn pages(
        &mut self,
        name: &str,
        arguments: &Map<String, Value>,
        max_pages: usize,
    ) -> Result<Vec<ToolCall>, ClientError> {
        let mut arguments = arguments.clone();
        let mut pages = Vec::new();
        loop {
            let page = self.call_tool(name, &arguments, None)?;
            if page.result.is_error {
                return Err(ClientError::Tool {
                    tool: name.into(),
                    message: page.result.texts().collect::<Vec<_>>().join("\n"),
                });
            }
            let next = page.result.next_cursor();
            pages.push(page);
            match next {
                Some(cursor) if pages.len() < max_pages => {
                    arguments.insert("cursor".into(), Value::String(cursor));
                }
                Some(_) => {
                    return Err(ClientError::Tool {
                        tool: name.into(),
                        message: format!("more than {max_pages} pages"),
                    });
                }
                None => return Ok(pages),
            }
        }
    }

    /// Close stdin: end of input.
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Whether the server has exited (not reaped: its id stays its own until
    /// [`Client::kill`]).
    pub fn exited(&mut self) -> bool {
        exited(&mut self.child)
    }

    /// Whether the server exits within `within` (polled every 5 ms; not
    /// reaped).
    pub fn exited_within(&mut self, within: Duration) -> bool {
        let until = Instant::now() + within;
        loop {
            if self.exited() {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Kill the server (with its group when it has one), reap it and return
    /// how it ended: its own exit status when it had exited by itself.
    pub fn kill(&mut self) -> Option<ExitStatus> {
        #[cfg(unix)]
        if self.own_group
            && !self.exited()
            && let Ok(pid) = libc::pid_t::try_from(self.child.id())
        {
            // SAFETY: kill(2) on the group of a child this client spawned in
            // a group of its own (`process_group(0)`: the group id is its
            // pid), not yet reaped (nothing here reaps before this), so the
            // id cannot belong to anyone else.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        let _ = self.child.kill();
        self.child.wait().ok()
    }

    /// What the server wrote to stderr so far (its kept end; empty when
    /// stderr went elsewhere).
    pub fn stderr(&self) -> String {
        self.stderr.as_ref().map_or_else(String::new, |kept| {
            let bytes = kept.bytes.lock().unwrap_or_else(|e| e.into_inner());
            String::from_utf8_lossy(&bytes).into_owned()
        })
    }

    /// [`Client::stderr`] once stderr is closed (the server exited), waiting
    /// at most `within` for the reader to reach its end.
    pub fn stderr_at_end(&self, within: Duration) -> String {
        if let Some(kept) = &self.stderr {
            let until = Instant::now() + within;
            while !kept.closed.load(Ordering::Acquire) && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        self.stderr()
    }

    /// The lines already read and not yet taken, without waiting.
    pub fn pending_lines(&mut self) -> Vec<Line> {
        self.lines.try_iter().collect()
    }
}

impl Drop for Client {
    /// Never leave a server behind.
    fn drop(&mut self) {
        self.kill();
    }
}

/// The start of a line that is not a message, for [`ClientError::NotProtocol`].
fn not_protocol(bytes: &[u8]) -> ClientError {
    ClientError::NotProtocol {
        line: String::from_utf8_lossy(bytes)
            .trim()
            .chars()
            .take(120)
            .collect(),
    }
}

/// Read `from` line by line (at most `max` bytes each, newline dropped)
/// into `sink` until it closes, fails, refuses a line, or a line is over
/// `max` (handed on, then reading stops).
fn read_lines(from: impl Read, max: usize, mut sink: impl FnMut(Line) -> bool) {
    let mut reader = BufReader::new(from);
    loop {
        let mut bytes = Vec::new();
        let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
        match (&mut reader).take(limit).read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let whole = bytes.last() == Some(&b'\n');
        if whole {
            bytes.pop();
        }
        let arrived = Instant::now();
        if !sink(Line { arrived, bytes }) || !whole {
            return;
        }
    }
}

/// A thread keeping the last `tail` bytes of `pipe`.
fn keep_stderr(mut pipe: impl Read + Send + 'static, tail: usize) -> Arc<KeptStderr> {
    let kept = Arc::new(KeptStderr::default());
    let keep = Arc::clone(&kept);
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            let mut bytes = keep.bytes.lock().unwrap_or_else(|e| e.into_inner());
            bytes.extend_from_slice(&buf[..n]);
            let excess = bytes.len().saturating_sub(tail);
            bytes.drain(..excess);
        }
        keep.closed.store(true, Ordering::Release);
    });
    kept
}

/// Whether `child` has exited, without reaping it (unix: `waitid` with
/// `WNOWAIT`), so that its id, and its group's, stay its own.
fn exited(child: &mut Child) -> bool {
    #[cfg(unix)]
    {
        // SAFETY: waitid(2) on our own unreaped child, WNOWAIT leaves it
        // waitable; `info` is a plain C struct zeroed before the call.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let rc = unsafe {
            libc::waitid(
                libc::P_PID,
                child.id() as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
            )
        };
        rc != 0 || unsafe { info.si_pid() } != 0
    }
    #[cfg(not(unix))]
    {
        matches!(child.try_wait(), Ok(Some(_)) | Err(_))
    }
}

#[cfg(test)]
mod tests;
