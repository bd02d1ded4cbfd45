//! The benchmarks' view of `notarai mcp`, over the one JSON-RPC client
//! (`notarai::rpc_client`): it spawns `notarai mcp --root <repo>` with its
//! stderr in a log file, performs the handshake and sends `tools/call`
//! requests, timing each from the write of the request to the arrival of the
//! line that answers it, and turns the client's errors into the bench's
//! (`anyhow`, with the end of the server's log).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use notarai::rpc_client::{Answer, Client, ClientError, SpawnOptions, StderrTo};
use serde_json::Value;

/// A running `notarai mcp` process.
pub struct Server {
    /// The client speaking to it (it kills the server when dropped).
    client: Client,
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
        let mut command = Command::new(bin);
        command.arg("mcp").arg("--root").arg(root).current_dir(root);
        let options = SpawnOptions {
            stderr: StderrTo::Stdio(log.into()),
            timeout,
            ..SpawnOptions::default()
        };
        let client = Client::spawn(command, options)
            .with_context(|| format!("spawning {}", bin.display()))?;
        Ok(Server {
            client,
            stderr_log: stderr_log.to_owned(),
            killed: false,
            notifications: 0,
        })
    }

    /// The process id, for `/proc`.
    pub fn pid(&self) -> u32 {
        self.client.pid()
    }

    /// Send `initialize` and, once answered, `notifications/initialized`.
    pub fn initialize(&mut self) -> Result<Reply> {
        let answer = self
            .client
            .initialize("notarai-bench", env!("CARGO_PKG_VERSION"));
        let answer = self.check("initialize", answer)?;
        self.reply("initialize", answer)
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
        let Value::Object(arguments) = arguments else {
            bail!("{name}: the arguments are not an object");
        };
        let call = self.client.call_tool(name, &arguments, token);
        let call = self.check(name, call)?;
        self.notifications += call.notifications;
        let text = call.result.texts().next();
        if call.result.is_error {
            bail!("{name}: tool error: {}", text.unwrap_or("(no text)"));
        }
        let payload = call.result.payload().ok_or_else(|| {
            anyhow!("{name}: result has no structured content and no JSON text block")
        })?;
        Ok(ToolReply {
            elapsed: call.elapsed,
            bytes: call.bytes,
            text_bytes: call.result.texts().map(str::len).sum(),
            payload,
        })
    }

    /// Every page of tool `name` with `arguments` (the client follows
    /// `next_cursor`; at most 10,000 pages), each page as a [`ToolReply`].
    pub fn pages(&mut self, name: &str, arguments: Value) -> Result<Vec<ToolReply>> {
        let Value::Object(arguments) = arguments else {
            bail!("{name}: the arguments are not an object");
        };
        let pages = self.client.pages(name, &arguments, 10_000);
        let pages = self.check(name, pages)?;
        pages
            .into_iter()
            .map(|call| {
                self.notifications += call.notifications;
                let payload = call.result.payload().ok_or_else(|| {
                    anyhow!("{name}: a page has no structured content and no JSON text block")
                })?;
                Ok(ToolReply {
                    elapsed: call.elapsed,
                    bytes: call.bytes,
                    text_bytes: call.result.texts().map(str::len).sum(),
                    payload,
                })
            })
            .collect()
    }

    /// Send a request and wait for the response with its id, skipping
    /// notifications and anything else in between.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Reply> {
        let answer = self.client.ask(method, Some(params));
        let answer = self.check(method, answer)?;
        self.reply(method, answer)
    }

    /// How many notifications the server has sent so far.
    pub fn notifications(&self) -> usize {
        self.notifications
    }

    /// Peak resident set size so far (`VmHWM`), in KiB.
    pub fn peak_rss_kib(&self) -> Option<u64> {
        peak_rss_kib(self.pid())
    }

    /// Close stdin and wait (up to the timeout) for the server to exit.
    /// A server killed after a timeout has already been reported.
    pub fn shutdown(mut self) -> Result<()> {
        self.client.close_stdin();
        if self.killed {
            return Ok(());
        }
        if !self.client.exited_within(self.client.timeout()) {
            bail!("the server did not exit after stdin closed");
        }
        match self.client.kill() {
            Some(status) if !status.success() => {
                bail!("the server exited with {status} after stdin closed")
            }
            _ => Ok(()),
        }
    }

    /// The answer as a [`Reply`] (a JSON-RPC error is an error), counting
    /// the notifications read before it.
    fn reply(&mut self, method: &str, answer: Answer) -> Result<Reply> {
        let message = answer.message;
        self.notifications += answer.others.iter().filter(|m| m.is_from_server()).count();
        if let Some(error) = message.error() {
            bail!(
                "{method}: JSON-RPC error {} (code {})",
                error.message,
                error.code
            );
        }
        let result = message
            .result()
            .cloned()
            .ok_or_else(|| anyhow!("{method}: response has neither result nor error"))?;
        Ok(Reply {
            arrived: message.arrived,
            bytes: message.bytes,
            result,
        })
    }

    /// The client's error as the bench's, killing the server after a
    /// timeout and saying how it ended when it closed its stdout.
    fn check<T>(&mut self, what: &str, outcome: Result<T, ClientError>) -> Result<T> {
        match outcome {
            Ok(value) => Ok(value),
            Err(ClientError::Timeout { after }) => {
                self.client.kill();
                self.killed = true;
                bail!("{what}: no answer within {after:?}")
            }
            Err(e @ (ClientError::Closed | ClientError::Write(_))) => {
                bail!("{what}: {e} ({})", self.exit_note())
            }
            Err(e) => bail!("{what}: {e}"),
        }
    }

    /// How the child ended (waiting briefly for it), with the last line of
    /// its stderr log, for error messages.
    fn exit_note(&mut self) -> String {
        let status = if self.client.exited_within(Duration::from_millis(500)) {
            self.client
                .kill()
                .map_or("exited".to_owned(), |s| format!("exited with {s}"))
        } else {
            "still running".to_owned()
        };
        let last = std::fs::read_to_string(&self.stderr_log)
            .ok()
            .and_then(|log| log.lines().rev().find(|l| !l.trim().is_empty()).map(clip));
        match last {
            Some(line) => format!("{status}; stderr: {line}"),
            None => status,
        }
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
