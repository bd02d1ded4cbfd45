//! Shared fixtures for the integration tests: real git repositories in
//! temporary folders, and the real `notarai` binary spoken to over stdio.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// Path of the built binary.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_notarai")
}

/// A git repository in a temporary folder.
pub struct Repo {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl Repo {
    /// `git init` on branch `main` with an identity.
    pub fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let repo = Repo { dir, root };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.email", "t@example.com"]);
        repo.git(&["config", "user.name", "t"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    /// Run git in the repository; panics on failure; returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.root)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Write a file (folders created).
    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) {
        let full = self.root.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }

    /// Append to a file.
    pub fn append(&self, path: &str, content: &str) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(self.root.join(path))
            .unwrap();
        f.write_all(content.as_bytes()).unwrap();
    }

    /// Remove a file from the working tree.
    pub fn remove(&self, path: &str) {
        std::fs::remove_file(self.root.join(path)).unwrap();
    }

    /// `git add -A && git commit`.
    pub fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", message, "--allow-empty"]);
    }

    /// Write a spec governing `globs` (category `code`) with one behavior.
    pub fn spec(&self, name: &str, globs: &[&str]) {
        let mut text = format!(
            "schema_version: '0.7'\nintent: The {name} part.\nbehaviors:\n  - name: works\n    given: input\n    then: output\nconstraints:\n  - 'stay small'\nartifacts:\n  code:\n"
        );
        for glob in globs {
            text.push_str(&format!("    - path: '{glob}'\n"));
        }
        self.write(&format!(".notarai/{name}.spec.yaml"), text);
    }

    /// Start `notarai mcp` on this repository, initialized.
    pub fn server(&self) -> Server {
        Server::start(&self.root, &[])
    }
}

/// A running `notarai mcp` child spoken to with raw JSON lines.
pub struct Server {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: i64,
}

/// How long to wait for one answer.
pub const TIMEOUT: Duration = Duration::from_secs(60);

impl Server {
    /// Spawn and complete the handshake.
    pub fn start(root: &Path, env: &[(&str, &str)]) -> Server {
        let mut server = Server::spawn(root, env);
        let init = server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "initialize failed: {init}");
        server.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    /// Spawn without a handshake.
    pub fn spawn(root: &Path, env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(bin());
        cmd.args(["mcp", "--root"])
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            lines: rx,
            next_id: 1,
        }
    }

    /// Write one raw line (a newline is added).
    pub fn send_raw(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    /// Write raw bytes as they are.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The next line on stdout, parsed; panics on timeout or non-JSON.
    pub fn next_message(&mut self) -> Value {
        match self.lines.recv_timeout(TIMEOUT) {
            Ok(line) => serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}")),
            Err(RecvTimeoutError::Timeout) => panic!("no answer within {TIMEOUT:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed stdout"),
        }
    }

    /// Whether a line arrives within `wait`.
    pub fn try_next(&mut self, wait: Duration) -> Option<Value> {
        self.lines
            .recv_timeout(wait)
            .ok()
            .map(|l| serde_json::from_str(&l).unwrap())
    }

    /// Send a request and wait for the response with its id.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_raw(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        loop {
            let message = self.next_message();
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
        }
    }

    /// Call a tool: `Ok(structuredContent)` or `Err((code, message))`.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Result<Value, (i64, String)> {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        if let Some(error) = response.get("error") {
            return Err((
                error["code"].as_i64().unwrap(),
                error["message"].as_str().unwrap_or("").to_string(),
            ));
        }
        let result = &response["result"];
        assert_ne!(result["isError"], json!(true), "tool error: {result}");
        let structured = result["structuredContent"].clone();
        let text = result["content"][0]["text"].as_str().expect("a text block");
        assert_eq!(
            serde_json::from_str::<Value>(text).unwrap(),
            structured,
            "text block and structuredContent agree"
        );
        Ok(structured)
    }

    /// Call a tool that must succeed.
    pub fn ok(&mut self, tool: &str, arguments: Value) -> Value {
        self.call(tool, arguments)
            .unwrap_or_else(|e| panic!("{tool} failed: {e:?}"))
    }

    /// Close stdin and wait for the exit status; returns (success, stderr).
    pub fn finish(mut self) -> (bool, String) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let mut stderr = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut stderr);
        }
        // Nothing but protocol lines may remain on stdout.
        while let Ok(line) = self.lines.try_recv() {
            serde_json::from_str::<Value>(&line).unwrap_or_else(|_| panic!("stray stdout: {line}"));
        }
        (status.success(), stderr)
    }
}

/// Strings of a JSON array.
pub fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}
