//! Shared fixtures for the integration tests: temp git repositories built
//! with the `git` program, the real `notarai` binary run as a CLI, and
//! `notarai mcp` behind the one JSON-RPC client (`notarai::rpc_client`),
//! every wait with a timeout.
//!
//! Nothing here mocks notarai: every helper drives the built binary.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use notarai::rpc_client::{Client, ClientError, SpawnOptions};
use serde_json::{Value, json};

/// The tools `notarai mcp` serves, in the order of `tools/list`
/// (`src/mcp/tools.rs`).
pub const TOOL_NAMES: [&str; 9] = [
    "get_reconciliation_status",
    "list_affected_specs",
    "get_spec_diff",
    "get_changed_artifacts",
    "get_governing_specs",
    "mark_reconciled",
    "report_drift",
    "snapshot_state",
    "clear_cache",
];

/// How many tools `notarai mcp` serves.
pub const TOOL_COUNT: usize = TOOL_NAMES.len();

/// The built binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_notarai");

/// How long any single answer (or the exit after end of input) may take
/// before a test fails.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// A spec governing `src/**` (code) and `docs/**` (docs).
pub const SPEC_A: &str = "schema_version: \"0.7\"\nintent: Module A\nbehaviors:\n  - name: b\n    given: g\n    then: t\nartifacts:\n  code:\n    - path: \"src/**\"\n  docs:\n    - path: \"docs/**\"\n";

/// `git` in `dir` with a fixed identity and no user or system configuration.
pub fn git_cmd(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_EDITOR", "true")
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "protocol.file.allow=always",
        ]);
    cmd
}

/// Run git in `dir`; panics with git's stderr on failure; returns stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_cmd(dir).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Run git in `dir` with `input` on its stdin; its output.
pub fn run_git_with_input(dir: &Path, args: &[&str], input: &str) -> Output {
    let mut cmd = git_cmd(dir);
    cmd.args(args);
    let mut child = spawn_piped(&mut cmd);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// Run git in `dir` and return whether it succeeded (for commands that are
/// expected to stop, like a conflicting merge).
pub fn git_status(dir: &Path, args: &[&str]) -> bool {
    git_cmd(dir)
        .args(args)
        .output()
        .expect("git runs")
        .status
        .success()
}

/// A `git clone` of `origin` in a fresh temp folder: the folder (kept alive
/// by the caller) and the clone's canonical path.
pub fn clone_of(origin: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().canonicalize().unwrap().join("clone");
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            origin.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    (dir, clone)
}

/// Write a file at `rel` below `root`, creating its folders.
pub fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A git repository in a temp folder, with a sibling folder `outside` that
/// stands for everything beyond the root (tests check it stays untouched).
pub struct Repo {
    _dir: tempfile::TempDir,
    /// The canonical work tree root.
    pub root: PathBuf,
    /// A folder next to the root, outside the repository.
    pub outside: PathBuf,
}

impl Repo {
    /// An empty repository on branch `main` (no commit yet).
    pub fn new() -> Repo {
        let dir = tempfile::tempdir().expect("tempdir");
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("repo");
        let outside = base.join("outside");
        std::fs::create_dir_all(&root).unwrap();
        write(&outside, "secret.txt", "outside the root\n");
        git(&root, &["init", "-q", "-b", "main"]);
        Repo {
            _dir: dir,
            root,
            outside,
        }
    }

    /// A repository with spec `.notarai/a.spec.yaml` ([`SPEC_A`]), `src/a.rs`
    /// and `docs/a.md` committed on `main`, and a branch `feat` checked out.
    pub fn with_spec() -> Repo {
        let repo = Repo::new();
        repo.write(".notarai/a.spec.yaml", SPEC_A);
        repo.write("src/a.rs", "fn a() {}\n");
        repo.write("docs/a.md", "# A\n");
        repo.commit("init");
        repo.git(&["checkout", "-q", "-b", "feat"]);
        repo
    }

    /// Run git in the root; panics on failure; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        git(&self.root, args)
    }

    /// Write a file (creating folders) relative to the root.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        write(&self.root, rel, content);
    }

    /// Append to a file relative to the root.
    pub fn append(&self, rel: &str, content: &str) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(self.root.join(rel))
            .unwrap();
        f.write_all(content.as_bytes()).unwrap();
    }

    /// Remove a file from the working tree.
    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.root.join(rel)).unwrap();
    }

    /// `git add -A && git commit` (an empty commit is allowed).
    pub fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message, "--allow-empty"]);
    }

    /// Write `.notarai/<name>.spec.yaml` governing `globs` (category `code`)
    /// with one behavior.
    pub fn spec(&self, name: &str, globs: &[&str]) {
        let mut text = format!(
            "schema_version: '0.7'\nintent: The {name} part.\nbehaviors:\n  - name: works\n    given: input\n    then: output\nconstraints:\n  - 'stay small'\nartifacts:\n  code:\n"
        );
        for glob in globs {
            text.push_str(&format!("    - path: '{glob}'\n"));
        }
        self.write(&format!(".notarai/{name}.spec.yaml"), text);
    }

    /// Path of the hash cache database.
    pub fn db(&self) -> PathBuf {
        self.root.join(".notarai/.cache/notarai.db")
    }

    /// Every file below `outside` with its content: compare before and
    /// after to prove nothing outside the root was written.
    pub fn outside_snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        snapshot(&self.outside)
    }

    /// Start `notarai mcp --root <root>`, past the handshake.
    pub fn server(&self) -> Server {
        Server::start(&self.root)
    }
}

/// Every file below `root` (recursively, outside `.git/`, not following
/// links into folders) by its path relative to `root`, with its bytes.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// The command `notarai <args>` in `cwd`, without the inherited
/// `CLAUDE_PROJECT_DIR` and `NOTARAI_LOG`.
pub fn notarai_cmd(cwd: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(cwd)
        .args(args)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("NOTARAI_LOG");
    cmd
}

/// Run the CLI `notarai <args>` in `cwd` with `stdin` and return its output.
pub fn notarai(cwd: &Path, args: &[&str], stdin: &[u8]) -> Output {
    run(notarai_cmd(cwd, args), stdin)
}

/// Set stdin, stdout and stderr of `cmd` to pipes and start it.
fn spawn_piped(cmd: &mut Command) -> Child {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("notarai starts")
}

/// Run a prepared `notarai` command with `stdin` (it may exit before
/// reading it all: a broken pipe is fine); asserts it did not panic.
pub fn run(mut cmd: Command, stdin: &[u8]) -> Output {
    let mut child = spawn_piped(&mut cmd);
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert_no_panic(&String::from_utf8_lossy(&out.stderr));
    out
}

/// The stdout of a finished command; panics unless it is UTF-8.
pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

/// The stderr of a finished command; panics unless it is UTF-8.
pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8")
}

/// Fail when a process's stderr shows a Rust panic.
pub fn assert_no_panic(stderr: &str) {
    assert!(
        !stderr.contains("panicked"),
        "notarai panicked; stderr:\n{stderr}"
    );
}

/// Strings of a JSON array.
pub fn strings(value: &Value) -> Vec<String> {
    // Answers leave empty lists out: absent reads as empty.
    if value.is_null() {
        return Vec::new();
    }
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// A running `notarai mcp` behind the one JSON-RPC client
/// (`notarai::rpc_client`), raw enough for tests of the framing: any JSON
/// or bytes can be sent, every line read. Dropping it kills a process that
/// is still running.
pub struct Server {
    client: Client,
}

impl Server {
    /// Spawn `notarai mcp --root root`, without the handshake.
    pub fn spawn(root: &Path) -> Server {
        Server::spawn_with(root, |_| {})
    }

    /// Spawn `notarai mcp --root root` after `configure` adjusted the command
    /// (environment, limits), without the handshake.
    pub fn spawn_with(root: &Path, configure: impl FnOnce(&mut Command)) -> Server {
        let mut cmd = Command::new(BIN);
        cmd.args(["mcp", "--root"]).arg(root);
        configure(&mut cmd);
        let options = SpawnOptions {
            timeout: ANSWER_TIMEOUT,
            ..SpawnOptions::default()
        };
        Server {
            client: Client::spawn(cmd, options).expect("notarai starts"),
        }
    }

    /// A long-lived server logging at debug level (after `configure`),
    /// the handshake done, once its watch is open (on Linux, up to a
    /// minute): a question asked before is answered from the disk and not
    /// kept, and the warm tests check that the kept path was taken.
    pub fn warm_with(root: &Path, configure: impl FnOnce(&mut Command)) -> Server {
        let mut server = Server::spawn_with(root, |cmd| {
            cmd.env("NOTARAI_LOG", "notarai=debug");
            configure(cmd);
        });
        server.initialize();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while cfg!(target_os = "linux")
            && !server.stderr().contains("watch opened")
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        server
    }

    /// Spawn and complete the handshake.
    pub fn start(root: &Path) -> Server {
        let mut server = Server::spawn(root);
        server.initialize();
        server
    }

    /// Write raw bytes to the server's stdin, as they are.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.client.send_raw(bytes).expect("write to notarai");
    }

    /// Close stdin (end of input) without waiting for the exit.
    pub fn close_stdin(&mut self) {
        self.client.close_stdin();
    }

    /// Write one JSON message (any JSON, valid JSON-RPC or not) and a newline.
    pub fn send(&mut self, message: &Value) {
        self.client.send(message).expect("write to notarai");
    }

    /// The next line from stdout as JSON (stdout must hold nothing else),
    /// or `None` after `timeout` or once stdout is closed.
    pub fn recv_timeout(&mut self, timeout: Duration) -> Option<Value> {
        match self.client.recv(timeout) {
            Ok(message) => Some(message.value),
            Err(ClientError::Timeout { .. } | ClientError::Closed) => None,
            Err(e) => panic!("stdout carried a line that is not JSON: {e}"),
        }
    }

    /// The next line from stdout; fails the test after [`ANSWER_TIMEOUT`].
    pub fn recv(&mut self) -> Value {
        match self.recv_timeout(ANSWER_TIMEOUT) {
            Some(v) => v,
            None => panic!("no answer from notarai; stderr:\n{}", self.stderr()),
        }
    }

    /// Wait for the answer with `id`, failing on any other line with a
    /// non-null id; answers with a null id are collected and returned too.
    pub fn answer(&mut self, id: &Value) -> (Value, Vec<Value>) {
        let answer = self
            .client
            .answer(id)
            .unwrap_or_else(|e| panic!("no answer to id {id} ({e}); stderr:\n{}", self.stderr()));
        let nulls = answer
            .others
            .into_iter()
            .map(|other| match other.id() {
                Some(Value::Null) => other.value,
                _ => panic!(
                    "unexpected message while waiting for id {id}: {}",
                    other.value
                ),
            })
            .collect();
        (answer.message.value, nulls)
    }

    /// Send request `method` with `params` under `id` and return its answer.
    pub fn request(&mut self, id: impl Into<Value>, method: &str, params: Value) -> Value {
        let id = id.into();
        self.client
            .request(&id, method, Some(params))
            .expect("write to notarai");
        self.answer(&id).0
    }

    /// The handshake (protocol 2025-06-18, then `notifications/initialized`);
    /// returns the initialize result.
    pub fn initialize(&mut self) -> Value {
        let answer = self
            .client
            .initialize("notarai-tests", "1")
            .unwrap_or_else(|e| panic!("initialize: {e}; stderr:\n{}", self.stderr()));
        let result = answer.message.result().cloned();
        result.unwrap_or_else(|| panic!("initialize failed: {}", answer.message.value))
    }

    /// Call a tool; returns the whole JSON-RPC answer.
    pub fn call(&mut self, id: impl Into<Value>, tool: &str, arguments: Value) -> Value {
        self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        )
    }

    /// Call a tool and return its `structuredContent`; fails on an error, and
    /// unless the text block carries the same JSON.
    pub fn call_ok(&mut self, id: impl Into<Value>, tool: &str, arguments: Value) -> Value {
        let answer = self.call(id, tool, arguments);
        assert!(
            answer.get("error").is_none() && answer["result"]["isError"] != json!(true),
            "{tool} failed: {answer}"
        );
        let result = &answer["result"];
        let structured = result["structuredContent"].clone();
        let text = result["content"][0]["text"].as_str().expect("a text block");
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            structured,
            "text block and structuredContent agree"
        );
        structured
    }

    /// Every page of `tool` with `arguments` (an object), following
    /// `next_cursor` (at most `max_pages`): each page's `structuredContent`.
    /// Fails on an error.
    pub fn pages(&mut self, tool: &str, arguments: Value, max_pages: usize) -> Vec<Value> {
        let arguments = arguments.as_object().expect("arguments are an object");
        self.client
            .pages(tool, arguments, max_pages)
            .unwrap_or_else(|e| panic!("{e}; stderr:\n{}", self.stderr()))
            .into_iter()
            .map(|page| page.result.structured.expect("structuredContent"))
            .collect()
    }

    /// The error of an answer: `(code, message)`; fails when it succeeded.
    pub fn error_of(answer: &Value) -> (i64, String) {
        let error = answer
            .get("error")
            .unwrap_or_else(|| panic!("expected an error, got {answer}"));
        (
            error["code"].as_i64().unwrap(),
            error["message"].as_str().unwrap_or_default().to_string(),
        )
    }

    /// What the server wrote to stderr so far.
    pub fn stderr(&self) -> String {
        self.client.stderr()
    }

    /// Peak resident memory of the server in KiB (`VmHWM`).
    pub fn peak_rss_kib(&self) -> u64 {
        peak_rss_kib(self.client.pid())
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.client.pid()
    }

    /// Bytes the server read through `read` calls so far (`rchar` of
    /// `/proc/<pid>/io`): holes of sparse files count, so this proves how
    /// much of a large file was read.
    pub fn bytes_read(&self) -> u64 {
        let io = std::fs::read_to_string(format!("/proc/{}/io", self.pid())).expect("proc io");
        io.lines()
            .find_map(|l| l.strip_prefix("rchar:"))
            .and_then(|v| v.trim().parse().ok())
            .expect("rchar in /proc io")
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        !self.client.exited()
    }

    /// Close stdin and wait for the exit; asserts exit status 0, no panic,
    /// and that nothing but JSON lines was left on stdout. Returns stderr.
    pub fn finish(mut self) -> String {
        self.client.close_stdin();
        assert!(
            self.client.exited_within(ANSWER_TIMEOUT),
            "notarai did not exit after stdin closed"
        );
        let status = self.client.kill().expect("notarai reaped");
        let stderr = self.client.stderr_at_end(ANSWER_TIMEOUT);
        assert_no_panic(&stderr);
        assert!(
            status.success(),
            "notarai exited with {status}; stderr:\n{stderr}"
        );
        for line in self.client.pending_lines() {
            serde_json::from_slice::<Value>(&line.bytes).unwrap_or_else(|_| {
                panic!("stray stdout: {:?}", String::from_utf8_lossy(&line.bytes))
            });
        }
        stderr
    }

    /// Kill the process with SIGKILL and reap it.
    pub fn kill(mut self) {
        self.client.kill();
    }
}

/// Peak resident memory of process `pid` in KiB, from `/proc/<pid>/status`.
pub fn peak_rss_kib(pid: u32) -> u64 {
    try_peak_rss_kib(pid).expect("VmHWM in /proc/<pid>/status")
}

/// [`peak_rss_kib`], or `None` when the process has exited (a zombie's
/// status has no memory lines) or is gone.
pub fn try_peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Limit the size of any file the command writes to `bytes` (a full disk
/// in miniature): `RLIMIT_FSIZE`, with `SIGXFSZ` ignored so a write past the
/// limit fails with `EFBIG` instead of killing the process.
pub fn limit_file_size(cmd: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let limit = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Limit the command's address space to `bytes` (`RLIMIT_AS`, set before
/// `exec`): an allocation past it fails and a Rust program aborts, so a
/// clean exit proves the process stayed under the limit. (`wait4`'s
/// `ru_maxrss` cannot tell: Linux carries the parent's high-water mark
/// across `exec`, so it would measure the test process.)
pub fn limit_address_space(cmd: &mut Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Limit the command's CPU time to `seconds` (`RLIMIT_CPU`, set before
/// `exec`): past it the kernel kills the process (`SIGXCPU`, then `SIGKILL`),
/// so an answer that comes proves the work stayed within that much CPU,
/// however busy the machine (a clock would not).
pub fn limit_cpu_seconds(cmd: &mut Command, seconds: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: seconds as libc::rlim_t,
                rlim_max: seconds as libc::rlim_t + 1,
            };
            if libc::setrlimit(libc::RLIMIT_CPU, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A count from environment variable `var`, or `default`.
fn env_count<T: std::str::FromStr>(var: &str, default: T) -> T {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// How many rounds a soak loop runs: `NOTARAI_SOAK_ROUNDS` or `default`.
pub fn soak_rounds(default: usize) -> usize {
    env_count("NOTARAI_SOAK_ROUNDS", default)
}

/// How many proptest cases to run: `NOTARAI_PROPTEST_CASES` or `default`.
pub fn proptest_cases(default: u32) -> u32 {
    env_count("NOTARAI_PROPTEST_CASES", default)
}

/// An rmcp client over a child `notarai mcp [extra...] --root <root>`,
/// handshake done: the client a real MCP host would be.
pub async fn rmcp_client(
    root: &Path,
    extra: &[&str],
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::ServiceExt;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    let root = root.to_path_buf();
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|cmd| {
        cmd.arg("mcp").args(&extra).arg("--root").arg(&root);
    }))
    .unwrap();
    ().serve(transport).await.unwrap()
}

/// Every agent by name, comma-separated, for `--agents`: `all` leaves a
/// retired agent (Gemini CLI) out where its folder is missing.
pub fn every_agent() -> String {
    notarai::agent::AgentId::ALL
        .iter()
        .map(|id| id.name())
        .collect::<Vec<_>>()
        .join(",")
}
