//! Costs a cloned repository or a hook's input can blow up stay bounded:
//! the hook's stdin is parsed within a small constant of its size (the
//! real process runs hostile input of the largest size it accepts within
//! 256 MiB of address space), and init's and doctor's JSON
//! reading finds duplicate keys in linear time (a 1 MB `.mcp.json` of
//! distinct keys parses; one duplicate among them is still found).
//! No timing is asserted; `benches/` and the report hold the figures.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::{self, BIN, Repo, notarai, stderr, stdout};

/// The most address space notarai may use on hostile input: 256 MiB.
#[cfg(target_os = "linux")]
const MEMORY_LIMIT: u64 = 256 * 1024 * 1024;

/// Run `notarai hook validate --agent claude` on `input` within
/// [`MEMORY_LIMIT`] of address space ([`common::limit_address_space`]); its
/// exit code (`None` when killed by a signal, as an abort is).
#[cfg(target_os = "linux")]
fn hook_exit_code_within_limit(root: &std::path::Path, input: &[u8]) -> Option<i32> {
    let mut command = Command::new(BIN);
    command
        .arg("--root")
        .arg(root)
        .args(["hook", "validate", "--agent", "claude"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    common::limit_address_space(&mut command, MEMORY_LIMIT);
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A hook that stopped reading early is fine: the pipe error is ignored.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait().unwrap().code()
}

#[cfg(target_os = "linux")]
#[test]
fn hostile_hook_input_of_the_largest_accepted_size_stays_under_256_mb() {
    let repo = Repo::with_spec();
    let size = 16 * 1024 * 1024 - 16;
    // Tiny values, many of them: serde_json's Value tree would be ~40x.
    let zeros = format!("[{}0]", "0,".repeat(size / 2 - 2));
    let objects = format!("[{}{{}}]", "{},".repeat(size / 3 - 2));
    let keys = {
        let mut text = String::from("{");
        let mut i = 0u64;
        while text.len() < size - 32 {
            text.push_str(&format!("\"{i:x}\":0,"));
            i += 1;
        }
        text.push_str("\"end\":0}");
        text
    };
    let long = format!(
        "{{\"tool_input\": {{\"file_path\": \"{}\"}}}}",
        "a".repeat(size - 40)
    );
    for (name, input) in [
        ("zeros", zeros),
        ("objects", objects),
        ("keys", keys),
        ("long string", long),
    ] {
        let code = hook_exit_code_within_limit(&repo.root, input.as_bytes());
        assert_eq!(
            code,
            Some(0),
            "{name}: over 256 MiB of address space, or failed"
        );
    }
    // A real event still works.
    let event = serde_json::json!({
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": repo.root.join(".notarai/a.spec.yaml")},
    });
    let out = notarai(
        &repo.root,
        &["hook", "validate", "--agent", "claude"],
        &serde_json::to_vec(&event).unwrap(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_1_mb_mcp_json_of_distinct_keys_parses_and_a_duplicate_is_found() {
    let repo = Repo::new();
    let mut servers: Vec<String> = (0..31_000)
        .map(|i| format!("\"server{i:06}\": {{\"command\": \"x\"}}"))
        .collect();
    servers.push("\"notarai\": {\"command\": \"notarai\", \"args\": [\"mcp\"]}".into());
    let text = format!("{{\"mcpServers\": {{{}}}}}", servers.join(","));
    assert!(text.len() > 1_000_000, "{}", text.len());
    repo.write(".mcp.json", &text);
    let out = notarai(
        &repo.root,
        &["doctor", "--agents", "claude", "--no-handshake"],
        b"",
    );
    let report = stdout(&out);
    assert!(report.contains(".mcp.json parses"), "{report}");
    // The same with one key twice, at the end: refused with its position.
    servers.push("\"server000000\": {\"command\": \"y\"}".into());
    repo.write(
        ".mcp.json",
        format!("{{\"mcpServers\": {{{}}}}}", servers.join(",")),
    );
    let out = notarai(
        &repo.root,
        &["doctor", "--agents", "claude", "--no-handshake"],
        b"",
    );
    let report = stdout(&out);
    assert!(report.contains("duplicate key `server000000`"), "{report}");
}

/// A committed state file of the largest size notarai reads (32 MiB), made
/// of the tiniest entries it accepts, and one of many tiny unknown keys:
/// `state show`, `check` and a server's status read them (or refuse them as
/// malformed) within 256 MiB of address space.
#[cfg(target_os = "linux")]
#[test]
fn a_hostile_state_file_is_read_within_256_mb() {
    let size = 32 * 1024 * 1024 - 64;
    let tiny_entries = {
        let mut text = String::from("{\"schema_version\":\"1\",\"file_fingerprints\":{");
        let mut i = 0u64;
        while text.len() < size {
            text.push_str(&format!("\"{i:x}\":{{\"blake3\":\"\"}},"));
            i += 1;
        }
        text.push_str("\"end\":{\"blake3\":\"\"}}}");
        text
    };
    let unknown_keys = {
        let mut text = String::from("{\"schema_version\":\"1\",\"x\":[");
        text.push_str(&"[],".repeat((size - 64) / 3));
        text.push_str("[]],\"file_fingerprints\":{}}");
        text
    };
    for (name, state) in [
        ("tiny entries", tiny_entries),
        ("unknown keys", unknown_keys),
    ] {
        let repo = Repo::with_spec();
        repo.write(".notarai/reconciliation_state.json", &state);
        repo.commit("hostile state");
        repo.append("src/a.rs", "x\n");
        for args in [&["state", "show"][..], &["check", "--base", "main"][..]] {
            let mut command = common::notarai_cmd(&repo.root, args);
            command.stdout(Stdio::null()).stderr(Stdio::piped());
            common::limit_address_space(&mut command, MEMORY_LIMIT);
            let out = command.output().unwrap();
            // Read or refused as malformed, never killed by the limit.
            assert!(
                matches!(out.status.code(), Some(0..=2)),
                "{name}: {args:?} ended with {:?}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            common::assert_no_panic(&String::from_utf8_lossy(&out.stderr));
        }
    }
}
