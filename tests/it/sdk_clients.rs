//! The official SDK clients of both eras against the real binary: the
//! Python SDK 2.x client (`pip install mcp`) in its default mode, which must
//! negotiate 2026-07-28, and forced to the legacy handshake; the TypeScript
//! SDK 2.x client (`@modelcontextprotocol/client`) probing, pinned to
//! 2026-07-28, and legacy. Each reaches every tool, resource, prompt and
//! completion (`clients/*`). A test whose SDK is not installed prints
//! `skipped: ...` and passes: `NOTARAI_TEST_PYTHON` names a Python with the
//! SDK (default `python3`), `NOTARAI_TEST_TS_SDK` a folder whose
//! `node_modules` holds the TypeScript one (`.ci/run` installs both).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{BIN, Repo};

fn clients() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/clients")
}

/// A repository with one spec and a change it governs.
fn repo() -> Repo {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    repo
}

/// Run a client script; its JSON summary, or `None` when its SDK is absent
/// (exit 3).
fn run(mut cmd: Command, what: &str) -> Option<Value> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() == Some(3) {
        println!("skipped: {what}: {}", stderr.trim());
        return None;
    }
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{stderr}",
        out.status
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    Some(serde_json::from_str(last).unwrap_or_else(|e| panic!("{what}: {e}: {stdout}\n{stderr}")))
}

/// What every client must have reached, on the revision `version`.
fn assert_reached_everything(what: &str, got: &Value, version: &str) {
    assert_eq!(got["version"], version, "{what}: {got}");
    let tools = crate::common::TOOL_NAMES;
    assert_eq!(got["tools"], json!(tools), "{what}: {got}");
    for tool in tools {
        assert_eq!(
            got["calls"][tool],
            json!({"is_error": false, "structured": true}),
            "{what}: {tool}: {got}"
        );
    }
    assert_eq!(got["bad_argument"]["is_error"], true, "{what}: {got}");
    assert!(
        got["bad_argument"]["text"]
            .as_str()
            .unwrap()
            .contains("`nope` is not a spec")
    );
    assert_eq!(
        got["resources"],
        json!(["notarai://spec/.notarai/a.spec.yaml"]),
        "{what}"
    );
    assert!(
        got["read"].as_str().unwrap().starts_with("schema_version"),
        "{what}: {got}"
    );
    assert_eq!(
        got["templates"],
        json!(["notarai://spec/{path}", "notarai://governing/{path}"]),
        "{what}"
    );
    assert_eq!(got["prompts"], json!(["reconcile", "bootstrap"]), "{what}");
    assert!(
        got["prompt_messages"].as_u64().unwrap() >= 1,
        "{what}: {got}"
    );
    assert_eq!(got["completion"], json!([".notarai/a.spec.yaml"]), "{what}");
}

#[test]
fn the_python_sdk_client_negotiates_2026_07_28_by_default_and_legacy_when_forced() {
    let python = std::env::var("NOTARAI_TEST_PYTHON").unwrap_or_else(|_| "python3".into());
    for (mode, version) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")] {
        let repo = repo();
        let mut cmd = Command::new(&python);
        cmd.arg(clients().join("python_client.py"))
            .arg(BIN)
            .arg(&repo.root)
            .arg(mode);
        let what = format!("Python SDK client, mode {mode}");
        let Some(got) = run(cmd, &what) else {
            return;
        };
        assert_reached_everything(&what, &got, version);
    }
}

#[test]
fn the_typescript_sdk_client_reaches_everything_on_both_eras() {
    let Ok(sdk) = std::env::var("NOTARAI_TEST_TS_SDK") else {
        println!(
            "skipped: no TypeScript MCP SDK (set NOTARAI_TEST_TS_SDK to a folder where \
             `npm install @modelcontextprotocol/client` ran)"
        );
        return;
    };
    for (mode, version) in [
        ("auto", "2026-07-28"),
        ("pin", "2026-07-28"),
        ("legacy", "2025-11-25"),
    ] {
        let repo = repo();
        let mut cmd = Command::new("node");
        cmd.arg(clients().join("ts_client.mjs"))
            .arg(BIN)
            .arg(&repo.root)
            .arg(mode)
            .arg(&sdk);
        let what = format!("TypeScript SDK client, mode {mode}");
        let Some(got) = run(cmd, &what) else {
            return;
        };
        assert_reached_everything(&what, &got, version);
    }
}
