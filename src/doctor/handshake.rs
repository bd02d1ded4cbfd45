//! A real MCP `initialize` handshake with a configured server, as an agent
//! starts it: the command, its arguments and environment from the config,
//! the project root as working folder, JSON lines on stdio.
//!
//! Send `initialize`, read the answer, send `notifications/initialized`,
//! close stdin. The whole exchange has a deadline; a server that has not
//! answered by then, or that exits first, fails, and is killed.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The protocol revision the handshake asks for (servers answer with theirs).
pub const PROTOCOL_VERSION: &str = "2025-06-18";

/// Longest stdout line read (a larger answer is not an `initialize` result).
const MAX_LINE: u64 = 1024 * 1024;

/// How much of the server's stderr is kept for the report (its end).
const STDERR_TAIL: usize = 2048;

/// What the server said about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ServerHello {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version`.
    pub version: String,
    /// The protocol revision it chose.
    pub protocol_version: String,
    /// How long the answer took, in milliseconds.
    pub millis: u64,
}

/// Why the handshake failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandshakeError {
    /// The process did not start.
    Spawn(String),
    /// No answer within the deadline; the process was killed.
    Timeout {
        /// The deadline.
        after: Duration,
        /// The end of its stderr.
        stderr: String,
    },
    /// The process exited (or closed stdout) without answering.
    Exited {
        /// Its exit code, when it exited with one.
        code: Option<i32>,
        /// The end of its stderr.
        stderr: String,
    },
    /// stdout carried something that is not a JSON-RPC message.
    NotProtocol {
        /// The start of the offending line.
        line: String,
    },
    /// The server answered `initialize` with an error or an unusable result.
    Refused {
        /// What it said.
        message: String,
    },
}

impl std::fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tail = |stderr: &str| {
            let last = stderr
                .trim()
                .lines()
                .last()
                .unwrap_or("")
                .trim()
                .to_string();
            if last.is_empty() {
                String::new()
            } else {
                format!(" (stderr: {last})")
            }
        };
        match self {
            HandshakeError::Spawn(e) => write!(f, "cannot start it: {e}"),
            HandshakeError::Timeout { after, stderr } => write!(
                f,
                "no answer to `initialize` within {} s; killed{}",
                after.as_secs_f32(),
                tail(stderr)
            ),
            HandshakeError::Exited { code, stderr } => {
                let how = code.map_or("was killed by a signal".to_string(), |c| {
                    format!("exited with code {c}")
                });
                write!(f, "it {how} without answering `initialize`{}", tail(stderr))
            }
            HandshakeError::NotProtocol { line } => write!(
                f,
                "its stdout is not MCP JSON-RPC: {line:?} (logs must go to stderr)"
            ),
            HandshakeError::Refused { message } => {
                write!(f, "it refused `initialize`: {message}")
            }
        }
    }
}

/// The `initialize` result's fields the report uses.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitializeResult {
    protocol_version: String,
    server_info: Implementation,
}

/// `serverInfo`.
#[derive(Debug, Deserialize)]
struct Implementation {
    name: String,
    #[serde(default)]
    version: String,
}

/// A JSON-RPC message from the server (only what the handshake reads).
#[derive(Debug, Deserialize)]
struct Message {
    id: Option<serde_json::Value>,
    result: Option<serde_json::Value>,
    error: Option<RpcError>,
}

/// A JSON-RPC error object.
#[derive(Debug, Deserialize)]
struct RpcError {
    #[serde(default)]
    code: i64,
    #[serde(default)]
    message: String,
}

/// Run `program args` in `cwd` with `env` added to the inherited
/// environment, and shake hands within `deadline`.
pub fn handshake(
    program: &Path,
    args: &[String],
    env: &[(String, String)],
    cwd: &Path,
    deadline: Duration,
) -> Result<ServerHello, HandshakeError> {
    let started = Instant::now();
    let mut command = Command::new(program);
    command
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A process group of its own, so that stopping the server stops what it
    // started too (a wrapper script's or `npx`'s children), not the wrapper alone.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .spawn()
        .map_err(|e| HandshakeError::Spawn(e.to_string()))?;
    let stderr = Arc::new(Mutex::new(Vec::<u8>::new()));
    if let Some(mut pipe) = child.stderr.take() {
        let keep = Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut kept = keep.lock().unwrap_or_else(|e| e.into_inner());
                kept.extend_from_slice(&buf[..n]);
                let excess = kept.len().saturating_sub(STDERR_TAIL);
                kept.drain(..excess);
            }
        });
    }
    let (lines_tx, lines) = channel::<Vec<u8>>();
    if let Some(pipe) = child.stdout.take() {
        std::thread::spawn(move || {
            let mut reader = BufReader::new(pipe);
            loop {
                let mut line = Vec::new();
                match (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if lines_tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
    }
    let stderr_tail = |stderr: &Arc<Mutex<Vec<u8>>>| {
        String::from_utf8_lossy(&stderr.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    };
    let mut stdin = child.stdin.take();
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "notarai-doctor", "version": env!("CARGO_PKG_VERSION")}
        }
    });
    // A server that already exited makes this fail: the read below says how.
    let _ = send(&mut stdin, &initialize);
    let outcome = loop {
        let left = deadline.saturating_sub(started.elapsed());
        match lines.recv_timeout(left) {
            Ok(line) => {
                let text = String::from_utf8_lossy(&line);
                if text.trim().is_empty() {
                    continue;
                }
                let Ok(message) = serde_json::from_str::<Message>(&text) else {
                    break Err(HandshakeError::NotProtocol {
                        line: text.trim().chars().take(120).collect(),
                    });
                };
                // Notifications (logging) and requests from the server wait.
                if message.id != Some(serde_json::json!(1)) {
                    continue;
                }
                break answer(message, started);
            }
            Err(RecvTimeoutError::Timeout) => {
                kill(&mut child);
                break Err(HandshakeError::Timeout {
                    after: deadline,
                    stderr: stderr_tail(&stderr),
                });
            }
            Err(RecvTimeoutError::Disconnected) => {
                let code = wait_briefly(&mut child);
                break Err(HandshakeError::Exited {
                    code,
                    stderr: stderr_tail(&stderr),
                });
            }
        }
    };
    if outcome.is_ok() {
        let _ = send(
            &mut stdin,
            &serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
    }
    // End of input: a well-behaved server exits; the rest are stopped.
    drop(stdin);
    if wait_until(&mut child, Instant::now() + Duration::from_millis(500)).is_none() {
        kill(&mut child);
    }
    outcome
}

/// The hello in an `initialize` answer.
fn answer(message: Message, started: Instant) -> Result<ServerHello, HandshakeError> {
    if let Some(error) = message.error {
        return Err(HandshakeError::Refused {
            message: format!("{} (code {})", error.message, error.code),
        });
    }
    let result: InitializeResult = message
        .result
        .and_then(|r| serde_json::from_value(r).ok())
        .ok_or_else(|| HandshakeError::Refused {
            message: "the answer has no protocolVersion and serverInfo".into(),
        })?;
    Ok(ServerHello {
        name: result.server_info.name,
        version: result.server_info.version,
        protocol_version: result.protocol_version,
        millis: started.elapsed().as_millis() as u64,
    })
}

/// Write one JSON line to the server's stdin.
fn send(
    stdin: &mut Option<std::process::ChildStdin>,
    message: &serde_json::Value,
) -> std::io::Result<()> {
    let Some(stdin) = stdin.as_mut() else {
        return Ok(());
    };
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    stdin.write_all(&line)?;
    stdin.flush()
}

/// Kill the process, with every process of its group (what it started),
/// and reap it.
fn kill(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with the group of a child this process spawned in
        // a group of its own (`process_group(0)`: the group id is its pid),
        // not yet reaped, so the id cannot belong to anyone else.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The exit code once the process has exited (stdout closed first, so this
/// is short); killed after a second.
fn wait_briefly(child: &mut Child) -> Option<i32> {
    match wait_until(child, Instant::now() + Duration::from_secs(1)) {
        Some(code) => code,
        None => {
            kill(child);
            None
        }
    }
}

/// `Some(exit code)` once the process exits before `until`, `None` if it runs on.
fn wait_until(child: &mut Child, until: Instant) -> Option<Option<i32>> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status.code()),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => return None,
            Err(_) => return Some(None),
        }
    }
}
