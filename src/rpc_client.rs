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
}

impl Default for SpawnOptions {
    fn default() -> SpawnOptions {
        SpawnOptions {
            stderr: StderrTo::Keep { tail: usize::MAX },
            max_line: 64 * 1024 * 1024,
            timeout: DEFAULT_TIMEOUT,
            own_group: false,
        }
    }
}

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
struct Request<'a, P: Serialize> {
    jsonrpc: &'static str,
    id: &'a Value,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<P>,
}

/// A notification as written on the wire.
#[derive(Serialize)]
struct Notification<'a, P: Serialize> {
    jsonrpc: &'static str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<P>,
}

/// `initialize`'s parameters.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InitializeParams<'a> {
    protocol_version: &'a str,
    capabilities: Map<String, Value>,
    client_info: Implementation<'a>,
}

/// `clientInfo`.
#[derive(Serialize)]
struct Implementation<'a> {
    name: &'a str,
    version: &'a str,
}

/// `tools/call`'s parameters.
#[derive(Serialize)]
struct CallParams<'a> {
    name: &'a str,
    arguments: &'a Map<String, Value>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<ProgressMeta<'a>>,
}

/// `_meta` asking for progress reports.
#[derive(Serialize)]
struct ProgressMeta<'a> {
    #[serde(rename = "progressToken")]
    progress_token: &'a str,
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

/// A running server behind a JSON-lines client. Dropping it kills a server
/// that is still running (its group too when it has one).
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    stderr: Option<Arc<KeptStderr>>,
    timeout: Duration,
    own_group: bool,
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

    /// The next stdout line as JSON within `within`; blank lines are
    /// skipped.
    pub fn recv(&mut self, within: Duration) -> Result<Message, ClientError> {
        let until = Instant::now() + within;
        loop {
            let line = self.recv_line(until.saturating_duration_since(Instant::now()))?;
            if line.bytes.iter().all(u8::is_ascii_whitespace) {
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
mod tests {
    use super::*;

    /// A client over `sh -c script`.
    fn sh(script: &str, options: SpawnOptions) -> Client {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        Client::spawn(command, options).unwrap()
    }

    fn quick() -> SpawnOptions {
        SpawnOptions {
            timeout: Duration::from_secs(20),
            ..SpawnOptions::default()
        }
    }

    #[test]
    fn a_request_is_one_json_line_and_its_answer_is_found_by_id() {
        // `cat` echoes each line: the request comes back as its own answer.
        let mut client = sh("cat", quick());
        client
            .send(&serde_json::json!({"jsonrpc": "2.0", "method": "note"}))
            .unwrap();
        let answer = client
            .ask("ping", Some(serde_json::json!({"a": 1})))
            .unwrap();
        assert_eq!(
            answer.message.value,
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"a": 1}})
        );
        assert_eq!(answer.others.len(), 1);
        assert!(answer.others[0].is_from_server());
        let answer = client.ask::<()>("next", None).unwrap();
        assert_eq!(answer.message.id(), Some(&Value::from(2)));
        assert_eq!(answer.message.value.get("params"), None);
        assert_eq!(answer.message.bytes, answer.message.value.to_string().len());
    }

    #[test]
    fn silence_is_a_timeout_an_exit_is_closed_and_a_log_line_is_not_protocol() {
        let mut silent = sh(
            "sleep 30",
            SpawnOptions {
                timeout: Duration::from_millis(50),
                ..SpawnOptions::default()
            },
        );
        assert!(matches!(
            silent.ask::<()>("ping", None),
            Err(ClientError::Timeout { after }) if after == Duration::from_millis(50)
        ));
        let mut gone = sh("echo bye >&2", quick());
        assert!(matches!(
            gone.ask::<()>("ping", None),
            Err(ClientError::Closed)
        ));
        assert_eq!(gone.stderr_at_end(Duration::from_secs(20)), "bye\n");
        assert!(gone.kill().is_some_and(|s| s.success()));
        let mut chatty = sh("echo starting up; cat", quick());
        match chatty.ask::<()>("ping", None) {
            Err(ClientError::NotProtocol { line }) => assert_eq!(line, "starting up"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_line_over_the_limit_is_not_protocol_and_reading_stops() {
        let mut client = sh(
            "printf '%s\\n' '{\"id\":1,\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}'; sleep 30",
            SpawnOptions {
                max_line: 16,
                ..quick()
            },
        );
        assert!(matches!(
            client.recv(Duration::from_secs(20)),
            Err(ClientError::NotProtocol { .. })
        ));
        assert!(matches!(
            client.recv(Duration::from_secs(20)),
            Err(ClientError::Closed)
        ));
    }

    #[test]
    fn the_stderr_tail_keeps_the_end() {
        let client = sh(
            "printf 'abcdefgh' >&2",
            SpawnOptions {
                stderr: StderrTo::Keep { tail: 3 },
                ..quick()
            },
        );
        assert_eq!(client.stderr_at_end(Duration::from_secs(20)), "fgh");
    }

    #[cfg(unix)]
    #[test]
    fn kill_stops_the_whole_group_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let script = format!("sleep 60 & echo $! > '{}'; wait", pid_file.display());
        let mut client = sh(
            &script,
            SpawnOptions {
                own_group: true,
                ..quick()
            },
        );
        let until = Instant::now() + Duration::from_secs(20);
        let pid = loop {
            if let Ok(text) = std::fs::read_to_string(&pid_file)
                && let Ok(pid) = text.trim().parse::<libc::pid_t>()
            {
                break pid;
            }
            assert!(Instant::now() < until, "the script did not start");
            std::thread::sleep(Duration::from_millis(5));
        };
        assert!(!client.exited());
        client.kill();
        // The grandchild is gone: signal 0 finds no such process (it is
        // reaped by init, so it may be a zombie a moment: wait for it).
        let until = Instant::now() + Duration::from_secs(20);
        // SAFETY: kill(2) with signal 0 only asks whether the process exists.
        while unsafe { libc::kill(pid, 0) } == 0 {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            if stat
                .rsplit(')')
                .next()
                .is_some_and(|s| s.trim_start().starts_with('Z'))
            {
                break;
            }
            assert!(Instant::now() < until, "the group's sleep still runs");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn pages_follow_next_cursor_to_the_last_page() {
        // A server in sh: the page is the cursor it was sent ("2", "3"),
        // 1 without one; pages 1 and 2 name the next, page 3 none.
        let script = r#"
while read -r line; do
  case $line in
    *'"cursor":"2"'*) n=2; next=',"next_cursor":"3"' ;;
    *'"cursor":"3"'*) n=3; next='' ;;
    *) n=1; next=',"next_cursor":"2"' ;;
  esac
  id=${line#*'"id":'}; id=${id%%,*}
  printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"p"}],"structuredContent":{"page":%d%s}}}\n' "$id" "$n" "$next"
done"#;
        let mut client = sh(script, quick());
        let pages = client.pages("t", &Map::new(), 10).unwrap();
        let seen: Vec<Value> = pages
            .iter()
            .map(|p| p.result.payload().unwrap()["page"].clone())
            .collect();
        assert_eq!(seen, [1, 2, 3].map(Value::from));
        let mut client = sh(script, quick());
        assert!(matches!(
            client.pages("t", &Map::new(), 2),
            Err(ClientError::Tool { .. })
        ));
    }
}
