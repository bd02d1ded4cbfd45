//! A real MCP `initialize` handshake with a configured server, as an agent
//! starts it: the command, its arguments and environment from the config,
//! the project root as working folder, JSON lines on stdio.
//!
//! Send `initialize`, read the answer, send `notifications/initialized`,
//! close stdin. The whole exchange has a deadline; a server that has not
//! answered by then, or that exits first, fails, and is killed.

#![allow(
    clippy::disallowed_methods,
    reason = "doctor starts the servers it shakes hands with, and lists /proc (the kernel's process table) for what they started"
)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::rpc_client::{Client, ClientError, Message, SpawnOptions, StderrTo};

/// Longest stdout line read (a larger answer is not an `initialize` result).
const MAX_LINE: usize = 1024 * 1024;

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

/// Run `program args` in `cwd` with `env` added to the inherited
/// environment, and shake hands within `deadline` (through the one
/// JSON-RPC client, [`crate::rpc_client`]).
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
        .current_dir(cwd);
    let options = SpawnOptions {
        stderr: StderrTo::Keep { tail: STDERR_TAIL },
        max_line: MAX_LINE,
        timeout: deadline,
        // A process group of its own, so that stopping the server stops what
        // it started too (a wrapper script's or `npx`'s children).
        own_group: true,
        // An agent reads past a blank line; so does doctor.
        skip_blank_lines: true,
    };
    let mut client = Client::spawn(command, options).map_err(|e| match e {
        ClientError::Spawn { source, .. } => HandshakeError::Spawn(source.to_string()),
        e => HandshakeError::Spawn(e.to_string()),
    })?;
    let outcome = match client.initialize("notarai-doctor", env!("CARGO_PKG_VERSION")) {
        Ok(answer) => hello(&answer.message, started),
        Err(ClientError::Closed | ClientError::Write(_)) => {
            client.exited_within(Duration::from_secs(1));
            Err(HandshakeError::Exited {
                code: client.kill().and_then(|status| status.code()),
                stderr: client.stderr_at_end(Duration::from_millis(100)),
            })
        }
        Err(ClientError::Timeout { .. }) => {
            client.kill();
            Err(HandshakeError::Timeout {
                after: deadline,
                stderr: client.stderr(),
            })
        }
        Err(ClientError::NotProtocol { line }) => Err(HandshakeError::NotProtocol { line }),
        Err(e) => Err(HandshakeError::Refused {
            message: e.to_string(),
        }),
    };
    // End of input: a well-behaved server exits; then its whole group is
    // stopped either way (what it left running in the background too).
    client.close_stdin();
    client.exited_within(Duration::from_millis(500));
    client.kill();
    outcome
}

/// The hello in an `initialize` answer.
fn hello(message: &Message, started: Instant) -> Result<ServerHello, HandshakeError> {
    if let Some(error) = message.error() {
        return Err(HandshakeError::Refused {
            message: format!("{} (code {})", error.message, error.code),
        });
    }
    let result = message
        .result()
        .and_then(|r| InitializeResult::deserialize(r).ok())
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
