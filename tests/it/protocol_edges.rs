//! The protocol's edges, over the real binary with raw JSON lines: one
//! handshake per process, no handshake inside a batch, a batch pipelined
//! right after a `2025-03-26` `initialize`, a request declaring
//! `2026-07-28` judged by that revision whatever came before, and each
//! revision's own "resource not found".

use crate::common::Repo;
use crate::common::Server;

use serde_json::{Value, json};

fn code_of(answer: &Value) -> i64 {
    Server::error_of(answer).0
}

fn init(id: impl Into<Value>, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
}

fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}})
}

fn lines(server: &mut Server, messages: &[Value]) {
    let mut bytes = Vec::new();
    for m in messages {
        bytes.extend_from_slice(m.to_string().as_bytes());
        bytes.push(b'\n');
    }
    server.send_raw(&bytes);
}

#[test]
fn a_second_initialize_is_refused_and_the_session_keeps_serving() {
    let repo = Repo::with_spec();
    let mut server = Server::spawn(&repo.root);
    lines(&mut server, &[init(1, "2025-06-18")]);
    let first = server.recv();
    assert_eq!(first["result"]["protocolVersion"], "2025-06-18", "{first}");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    lines(&mut server, &[init(2, "2024-11-05")]);
    let second = server.recv();
    assert_eq!(second["id"], 2, "{second}");
    assert_eq!(code_of(&second), -32600, "{second}");
    assert!(Server::error_of(&second).1.contains("already"), "{second}");
    // The first session's revision still holds, and it still serves.
    let list = server.request(3, "tools/list", json!({}));
    assert!(list["result"]["tools"].is_array(), "{list}");
    server.finish();
}

#[test]
fn initialize_inside_a_batch_is_refused() {
    let repo = Repo::with_spec();
    let mut server = Server::spawn(&repo.root);
    lines(&mut server, &[init(1, "2025-03-26")]);
    assert_eq!(server.recv()["result"]["protocolVersion"], "2025-03-26");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server.send(&json!([init(2, "2025-03-26"), {"jsonrpc": "2.0", "id": 3, "method": "ping"}]));
    let reply = server.recv();
    let items = reply.as_array().unwrap_or_else(|| panic!("{reply}"));
    let refused = items.iter().find(|a| a["id"] == 2).expect("an answer to 2");
    assert_eq!(code_of(refused), -32600, "{reply}");
    assert!(Server::error_of(refused).1.contains("batch"), "{reply}");
    let ping = items.iter().find(|a| a["id"] == 3).expect("an answer to 3");
    assert_eq!(ping["result"], json!({}), "{reply}");
    server.finish();
}

#[test]
fn a_batch_pipelined_right_after_a_2025_03_26_initialize_is_served() {
    let repo = Repo::with_spec();
    let mut server = Server::spawn(&repo.root);
    // One write: the handshake, its notification and a batch, before any
    // answer is read.
    lines(
        &mut server,
        &[
            init(1, "2025-03-26"),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!([{"jsonrpc": "2.0", "id": 2, "method": "ping"},
                {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}]),
        ],
    );
    let first = server.recv();
    assert_eq!(first["result"]["protocolVersion"], "2025-03-26", "{first}");
    let batch = server.recv();
    let items = batch.as_array().unwrap_or_else(|| panic!("{batch}"));
    assert_eq!(items.len(), 2, "{batch}");
    assert!(items.iter().all(|a| a.get("result").is_some()), "{batch}");
    server.finish();
}

#[test]
fn a_2026_07_28_initialize_is_method_not_found_whatever_came_before() {
    let repo = Repo::with_spec();
    let modern_init = json!({"jsonrpc": "2.0", "id": 9, "method": "initialize",
        "params": {"protocolVersion": "2026-07-28", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}, "_meta": modern_meta()}});
    // Fresh.
    let mut fresh = Server::spawn(&repo.root);
    lines(&mut fresh, std::slice::from_ref(&modern_init));
    let a = fresh.recv();
    fresh.finish();
    // After one stateless request.
    let mut after = Server::spawn(&repo.root);
    lines(
        &mut after,
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"_meta": modern_meta()}})],
    );
    assert!(after.recv()["result"]["tools"].is_array());
    lines(&mut after, std::slice::from_ref(&modern_init));
    let b = after.recv();
    after.finish();
    // After a legacy handshake.
    let mut legacy = Server::spawn(&repo.root);
    lines(&mut legacy, &[init(1, "2025-11-25")]);
    assert!(legacy.recv()["result"].is_object());
    lines(&mut legacy, &[modern_init]);
    let c = legacy.recv();
    legacy.finish();
    for (name, answer) in [("fresh", &a), ("after stateless", &b), ("after legacy", &c)] {
        assert_eq!(code_of(answer), -32601, "{name}: {answer}");
    }
}

#[test]
fn a_missing_spec_resource_is_each_revisions_own_not_found() {
    let repo = Repo::with_spec();
    let uri = "notarai://spec/.notarai/nope.spec.yaml";
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut server = Server::spawn(&repo.root);
        lines(&mut server, &[init(1, version)]);
        assert!(server.recv()["result"].is_object());
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        let answer = server.request(2, "resources/read", json!({"uri": uri}));
        assert_eq!(code_of(&answer), -32002, "{version}: {answer}");
        assert_eq!(answer["error"]["data"]["uri"], uri, "{version}: {answer}");
        // A malformed URI stays the caller's invalid params.
        let bad = server.request(3, "resources/read", json!({"uri": "file:///etc/passwd"}));
        assert_eq!(code_of(&bad), -32602, "{version}: {bad}");
        server.finish();
    }
    let mut server = Server::spawn(&repo.root);
    let answer = server.request(
        1,
        "resources/read",
        json!({"uri": uri, "_meta": modern_meta()}),
    );
    assert_eq!(code_of(&answer), -32602, "2026-07-28: {answer}");
    server.finish();
}
