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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    /// The process did not start.
    #[error("cannot start it: {0}")]
    Spawn(String),
    /// No answer within the deadline; the process was killed.
    #[error(
        "no answer to `initialize` within {} s; killed{}",
        after.as_secs_f32(),
        stderr_tail(stderr)
    )]
    Timeout {
        /// The deadline.
        after: Duration,
        /// The end of its stderr.
        stderr: String,
    },
    /// The process exited (or closed stdout) without answering.
    #[error(
        "it {} without answering `initialize`{}",
        code.map_or("was killed by a signal".to_string(), |c| format!("exited with code {c}")),
        stderr_tail(stderr)
    )]
    Exited {
        /// Its exit code, when it exited with one.
        code: Option<i32>,
        /// The end of its stderr.
        stderr: String,
    },
    /// stdout carried something that is not a JSON-RPC message.
    #[error("its stdout is not MCP JSON-RPC: {line:?} (logs must go to stderr)")]
    NotProtocol {
        /// The start of the offending line.
        line: String,
    },
    /// The server answered `initialize` with an error or an unusable result.
    #[error("it refused `initialize`: {message}")]
    Refused {
        /// What it said.
        message: String,
    },
}

impl crate::error::Diagnose for HandshakeError {}

/// ` (stderr: <its last line>)`, or nothing when stderr was empty.
fn stderr_tail(stderr: &str) -> String {
    let last = stderr.trim().lines().last().unwrap_or("").trim();
    if last.is_empty() {
        String::new()
    } else {
        format!(" (stderr: {last})")
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
    // End of input: a well-behaved server exits; then its whole group is
    // stopped either way (what it left running in the background too).
    drop(stdin);
    exited_by(&mut child, Instant::now() + Duration::from_millis(500));
    kill(&mut child);
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
/// and reap it; its exit code when it had exited by itself.
fn kill(child: &mut Child) -> Option<i32> {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with the group of a child this process spawned in
        // a group of its own (`process_group(0)`: the group id is its pid),
        // not yet reaped ([`exited_by`] never reaps), so the id cannot
        // belong to anyone else.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    let _ = child.kill();
    child.wait().ok().and_then(|status| status.code())
}

/// The exit code once the process has exited (stdout closed first, so this
/// is short); killed after a second. Its group is killed either way.
fn wait_briefly(child: &mut Child) -> Option<i32> {
    exited_by(child, Instant::now() + Duration::from_secs(1));
    kill(child)
}

/// Whether the process exits before `until`, without reaping it: its id
/// stays its own (and its group's) until [`kill`] reaps it.
fn exited_by(child: &mut Child, until: Instant) -> bool {
    loop {
        #[cfg(unix)]
        let exited = {
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
        };
        #[cfg(not(unix))]
        let exited = matches!(child.try_wait(), Ok(Some(_)) | Err(_));
        if exited {
            return true;
        }
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Make this process the reaper of what its children leave behind (Linux:
/// `PR_SET_CHILD_SUBREAPER`): a process a started command detaches (a double
/// fork, `setsid`) stays a descendant, which [`stop_descendants`] finds.
/// Called by `notarai doctor` before it starts anything.
pub fn adopt_orphans() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(2) with an integer option on this process only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Kill every descendant of this process and reap them (Linux, from
/// `/proc`): what a configured command left running, even detached into a
/// session of its own. Called by `notarai doctor` when it is done.
pub fn stop_descendants() {
    #[cfg(target_os = "linux")]
    for _ in 0..50 {
        let me = std::process::id();
        let parents = process_parents();
        let mut found = vec![me];
        let mut i = 0;
        while i < found.len() {
            let of = found[i];
            found.extend(parents.iter().filter(|(_, p)| *p == of).map(|(c, _)| *c));
            i += 1;
        }
        found.remove(0);
        for pid in &found {
            if let Ok(pid) = libc::pid_t::try_from(*pid) {
                // SAFETY: kill(2) on a descendant of this process; as its
                // subreaper, this process reaps it, so the id is not reused
                // before the reaping below.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        // SAFETY: waitpid(2) on any child of this process, without blocking.
        while unsafe { libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG) } > 0 {}
        if found.is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Every process's parent, from `/proc/<pid>/stat`.
#[cfg(target_os = "linux")]
fn process_parents() -> Vec<(u32, u32)> {
    let proc = Path::new("/proc");
    let Ok(entries) = proc.read_dir() else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = crate::safe_fs::read(proc, Path::new(&format!("{pid}/stat")), 4096).ok()?;
            let stat = String::from_utf8_lossy(&stat);
            // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
            let rest = &stat[stat.rfind(')')? + 1..];
            let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect()
}
