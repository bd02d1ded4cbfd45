//! A minimal MCP client over stdio: JSON-RPC 2.0, one message per line.
//!
//! It spawns `notarai mcp --root <repo>`, performs the handshake
//! (`initialize` request, then the `notifications/initialized` notification)
//! and sends `tools/call` requests, timing each from the write of the request
//! to the arrival of the line that answers it. A reader thread feeds lines
//! through a channel so that every wait has a timeout and nothing hangs.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};

/// Protocol revision the client asks for.
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// A running `notarai mcp` process.
pub struct Server {
    /// The child process.
    child: Child,
    /// Its stdin; `None` once closed.
    stdin: Option<ChildStdin>,
    /// Lines of its stdout, with their arrival time.
    lines: Receiver<(Instant, String)>,
    /// Id of the next request.
    next_id: u64,
    /// How long one call may take.
    timeout: Duration,
    /// Where its stderr goes, quoted when it dies.
    stderr_log: PathBuf,
    /// Whether we killed it after a timeout.
    killed: bool,
    /// Notifications read while waiting for answers (progress reports).
    notifications: usize,
}

/// The answer to one request.
#[derive(Debug)]
pub struct Reply {
    /// From writing the request to receiving its answer.
    pub elapsed: Duration,
    /// When the answering line arrived.
    pub arrived: Instant,
    /// Size of the answering line, newline excluded.
    pub bytes: usize,
    /// The `result` member of the response.
    pub result: Value,
}

/// The answer to one `tools/call`.
#[derive(Debug)]
pub struct ToolReply {
    /// Time and size of the JSON-RPC exchange.
    pub elapsed: Duration,
    /// Size of the answering line.
    pub bytes: usize,
    /// Bytes of the answer's text blocks: what an agent reads (used by the
    /// replay bench, which shares this client).
    #[allow(dead_code)]
    pub text_bytes: usize,
    /// The tool's JSON answer: `structuredContent`, else the first text block
    /// parsed as JSON.
    pub payload: Value,
}

impl Server {
    /// Spawn `bin mcp --root root` with its stderr appended to `stderr_log`.
    pub fn spawn(bin: &Path, root: &Path, stderr_log: &Path, timeout: Duration) -> Result<Self> {
        let log = File::options()
            .create(true)
            .append(true)
            .open(stderr_log)
            .with_context(|| format!("opening {}", stderr_log.display()))?;
        let mut child = Command::new(bin)
            .arg("mcp")
            .arg("--root")
            .arg(root)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .with_context(|| format!("spawning {}", bin.display()))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().context("no stdout of the server")?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Ok(Server {
            child,
            stdin,
            lines,
            next_id: 1,
            timeout,
            stderr_log: stderr_log.to_owned(),
            killed: false,
            notifications: 0,
        })
    }

    /// The process id, for `/proc`.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Send `initialize` and, once answered, `notifications/initialized`.
    pub fn initialize(&mut self) -> Result<Reply> {
        let reply = self.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "notarai-bench", "version": env!("CARGO_PKG_VERSION")},
            }),
        )?;
        self.notify("notifications/initialized", json!({}))?;
        Ok(reply)
    }

    /// Call tool `name` with `arguments`. A JSON-RPC error or a result with
    /// `isError: true` is an error carrying the server's message.
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Result<ToolReply> {
        self.call_tool_with(name, arguments, None)
    }

    /// [`Server::call_tool`] with `_meta.progressToken` set when `token` is
    /// given, so the server reports progress while it works.
    pub fn call_tool_with(
        &mut self,
        name: &str,
        arguments: Value,
        token: Option<&str>,
    ) -> Result<ToolReply> {
        let mut params = json!({"name": name, "arguments": arguments});
        if let Some(token) = token {
            params["_meta"] = json!({"progressToken": token});
        }
        let reply = self.request("tools/call", params)?;
        let blocks = reply.result["content"].as_array();
        let text = blocks.and_then(|blocks| blocks.iter().find_map(|b| b["text"].as_str()));
        let text_bytes = blocks.map_or(0, |blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .map(str::len)
                .sum()
        });
        if reply.result["isError"] == json!(true) {
            bail!("{name}: tool error: {}", text.unwrap_or("(no text)"));
        }
        let payload = match reply.result.get("structuredContent") {
            Some(structured) if structured.is_object() => structured.clone(),
            _ => {
                let text = text.ok_or_else(|| anyhow!("{name}: result has no text block"))?;
                serde_json::from_str(text)
                    .with_context(|| format!("{name}: text block is not JSON"))?
            }
        };
        Ok(ToolReply {
            elapsed: reply.elapsed,
            bytes: reply.bytes,
            text_bytes,
            payload,
        })
    }

    /// Send a request and wait for the response with its id, skipping
    /// notifications and anything else in between.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Reply> {
        let id = self.next_id;
        self.next_id += 1;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let started = Instant::now();
        self.send(&message)?;
        let deadline = started + self.timeout;
        loop {
            let wait = deadline.saturating_duration_since(Instant::now());
            let (arrived, line) = match self.lines.recv_timeout(wait) {
                Ok(received) => received,
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    self.killed = true;
                    bail!("{method}: no answer within {:?}", self.timeout)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    bail!("{method}: the server closed stdout ({})", self.exit_note())
                }
            };
            let Ok(response) = serde_json::from_str::<Value>(&line) else {
                bail!("{method}: stdout line is not JSON: {}", clip(&line));
            };
            if response.get("method").is_some() {
                self.notifications += 1;
                continue;
            }
            if response["id"] != json!(id) {
                continue;
            }
            if let Some(error) = response.get("error") {
                bail!("{method}: JSON-RPC error {error}");
            }
            let result = response
                .get("result")
                .cloned()
                .ok_or_else(|| anyhow!("{method}: response has neither result nor error"))?;
            return Ok(Reply {
                elapsed: arrived - started,
                arrived,
                bytes: line.len(),
                result,
            });
        }
    }

    /// How many notifications the server has sent so far.
    pub fn notifications(&self) -> usize {
        self.notifications
    }

    /// Send a notification (no id, no answer).
    pub fn notify(&mut self, method: &str, params: Value) -> Result<()> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Write one message as one line and flush.
    fn send(&mut self, message: &Value) -> Result<()> {
        let stdin = self.stdin.as_mut().context("stdin already closed")?;
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        stdin
            .write_all(&line)
            .and_then(|()| stdin.flush())
            .with_context(|| format!("writing to the server ({})", self.exit_note()))
    }

    /// Peak resident set size so far (`VmHWM`), in KiB.
    pub fn peak_rss_kib(&self) -> Option<u64> {
        peak_rss_kib(self.pid())
    }

    /// Close stdin and wait (up to the timeout) for the server to exit.
    /// A server killed after a timeout has already been reported.
    pub fn shutdown(mut self) -> Result<()> {
        drop(self.stdin.take());
        if self.killed {
            return Ok(());
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(status) = self.child.try_wait()? {
                if !status.success() {
                    bail!("the server exited with {status} after stdin closed");
                }
                return Ok(());
            }
            if Instant::now() >= deadline {
                bail!("the server did not exit after stdin closed");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// How the child ended (waiting briefly for it), with the last line of
    /// its stderr log, for error messages.
    fn exit_note(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => break None,
            }
        };
        let last = std::fs::read_to_string(&self.stderr_log)
            .ok()
            .and_then(|log| log.lines().rev().find(|l| !l.trim().is_empty()).map(clip));
        let status = status.map_or("still running".to_owned(), |s| format!("exited with {s}"));
        match last {
            Some(line) => format!("{status}; stderr: {line}"),
            None => status,
        }
    }
}

impl Drop for Server {
    /// Never leave a server behind: kill it if it is still running.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// `VmHWM` of process `pid` from `/proc/<pid>/status`, in KiB.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The first 200 characters of `text`, for messages.
fn clip(text: &str) -> String {
    text.chars().take(200).collect()
}
