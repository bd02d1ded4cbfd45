//! The rules of the stdio line protocol, over the real binary with raw JSON
//! lines: how the loop ends, which ids it accepts, the order of answers a
//! client can rely on, batches under `2025-03-26`, cursors, and schemas any
//! validator can read.

use crate::common;

use std::time::Duration;

use common::{Repo, Server};
use serde_json::{Value, json};

fn code_of(answer: &Value) -> i64 {
    Server::error_of(answer).0
}

fn raw(server: &mut Server, lines: &[Value]) {
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line.to_string().as_bytes());
        bytes.push(b'\n');
    }
    server.send_raw(&bytes);
}

fn call(id: impl Into<Value>, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
}

/// Collect `n` answers, keyed by id.
fn answers(server: &mut Server, n: usize) -> Vec<Value> {
    (0..n).map(|_| server.recv()).collect()
}

fn by_id<'a>(answers: &'a [Value], id: &Value) -> &'a Value {
    answers
        .iter()
        .find(|a| &a["id"] == id)
        .unwrap_or_else(|| panic!("no answer for {id} in {answers:?}"))
}

#[test]
fn ids_that_are_not_a_string_or_integer_get_invalid_request_with_a_null_id() {
    let repo = Repo::with_spec();
    let mut server = Server::start(&repo.root);
    for id in ["{\"a\":1}", "[1]", "true", "1.5", "null"] {
        let line = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
        server.send_raw(line.as_bytes());
        let reply = server.recv();
        assert_eq!(code_of(&reply), -32600, "id {id}: {reply}");
        assert_eq!(reply["id"], Value::Null, "id {id}: {reply}");
    }
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\xff\"}\n");
    let reply = server.recv();
    assert_eq!((code_of(&reply), &reply["id"]), (-32700, &Value::Null));
    // Still serving.
    assert_eq!(server.request(2, "ping", json!({}))["result"], json!({}));
    server.finish();
}

#[test]
fn replies_in_flight_when_stdin_closes_are_written_whole_before_exit() {
    let repo = Repo::with_spec();
    // Answers of a full page each (the diff is longer than a page), small
    // enough that 8 of them finish well inside the shutdown grace on a
    // loaded 2-core machine (text files: no symbol outline to build).
    for i in 0..120 {
        repo.write(
            &format!("src/m{i}.txt"),
            format!("fn m{i}() {{}}\n").repeat(300),
        );
    }
    let diff = json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"});
    for round in 0..3 {
        let mut server = Server::start(&repo.root);
        let mut calls = Vec::new();
        for id in 0..8 {
            calls.push(call(id, "get_spec_diff", diff.clone()));
        }
        raw(&mut server, &calls);
        server.close_stdin();
        let got = answers(&mut server, 8);
        for id in 0..8 {
            let answer = by_id(&got, &json!(id));
            assert_eq!(
                answer["result"]["structuredContent"]["files"]
                    .as_array()
                    .map(Vec::len),
                Some(120),
                "round {round}, id {id}: {answer}"
            );
        }
        server.finish();
    }
}

#[test]
fn a_request_whose_id_is_in_flight_is_refused_naming_the_id() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    let mut server = Server::start(&repo.root);
    let diff = json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"});
    raw(
        &mut server,
        &[
            call("dup", "get_spec_diff", diff.clone()),
            call("dup", "get_spec_diff", diff),
        ],
    );
    let got = answers(&mut server, 2);
    let refused: Vec<&Value> = got.iter().filter(|a| a.get("error").is_some()).collect();
    assert_eq!(refused.len(), 1, "{got:?}");
    let (code, message) = Server::error_of(refused[0]);
    assert_eq!(code, -32600, "{message}");
    assert!(message.contains("\"dup\""), "{message}");
    assert_eq!(refused[0]["id"], json!("dup"));
    // Once answered, the id may be used again.
    assert_eq!(
        server.request("dup", "ping", json!({}))["result"],
        json!({})
    );
    server.finish();
}

#[test]
fn a_diff_asked_before_mark_reconciled_still_shows_the_file() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    let mut server = Server::start(&repo.root);
    let diff =
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "full_lists": true});
    let mark = json!({"files": ["src/a.rs"]});
    for round in 0..5 {
        let base = round * 10;
        // Reads, then a write: every read sees the file.
        let mut calls: Vec<Value> = (1..=4)
            .map(|i| call(base + i, "get_spec_diff", diff.clone()))
            .collect();
        calls.push(call(base + 5, "mark_reconciled", mark.clone()));
        raw(&mut server, &calls);
        let got = answers(&mut server, 5);
        for i in 1..=4 {
            let read = &by_id(&got, &json!(base + i))["result"]["structuredContent"];
            assert_eq!(read["files"], json!(["src/a.rs"]), "round {round}: {got:?}");
        }
        // Writes (in order), then, once they are answered, a read: it
        // skips the file. (A read sent while a write runs is not held for
        // it and may see the state before it: `concurrency.rs`.)
        raw(
            &mut server,
            &[
                call(base + 6, "clear_cache", json!({})),
                call(base + 7, "mark_reconciled", mark.clone()),
            ],
        );
        answers(&mut server, 2);
        raw(
            &mut server,
            &[call(base + 8, "get_spec_diff", diff.clone())],
        );
        let got = answers(&mut server, 1);
        let read = &by_id(&got, &json!(base + 8))["result"]["structuredContent"];
        assert_eq!(read["files"], json!([]), "round {round}: {got:?}");
        assert_eq!(read["skipped"], json!(["src/a.rs"]), "round {round}");
        server.call_ok(base + 9, "clear_cache", json!({}));
    }
    server.finish();
}

#[test]
fn tools_list_with_a_cursor_never_issued_is_invalid_params() {
    let repo = Repo::with_spec();
    let mut server = Server::start(&repo.root);
    let answer = server.request(1, "tools/list", json!({"cursor": "made-up"}));
    let (code, message) = Server::error_of(&answer);
    assert_eq!(code, -32602, "{answer}");
    assert!(message.contains("cursor"), "{message}");
    let all = server.request(2, "tools/list", json!({}));
    assert_eq!(
        all["result"]["tools"].as_array().unwrap().len(),
        notarai::mcp::tools::TOOLS.len()
    );
    assert!(all["result"].get("nextCursor").is_none());
    server.finish();
}

fn start_with(repo: &Repo, version: &str) -> Server {
    let mut server = Server::spawn(&repo.root);
    let init = server.request(
        "init",
        "initialize",
        json!({"protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], json!(version), "{init}");
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    server
}

#[test]
fn batches_are_answered_with_one_array_under_2025_03_26() {
    let repo = Repo::with_spec();
    let mut server = start_with(&repo, "2025-03-26");
    server.send(&json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
        {"jsonrpc": "2.0", "id": "t", "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "no/such"},
        5,
        call(4, "list_affected_specs", json!({"base_branch": "main"})),
    ]));
    let reply = server.recv();
    let items = reply.as_array().unwrap_or_else(|| panic!("{reply}"));
    assert_eq!(items.len(), 5, "{reply}");
    assert_eq!(by_id(items, &json!(1))["result"], json!({}));
    assert_eq!(
        by_id(items, &json!("t"))["result"]["tools"]
            .as_array()
            .unwrap()
            .len(),
        notarai::mcp::tools::TOOLS.len()
    );
    assert_eq!(code_of(by_id(items, &json!(3))), -32601);
    assert_eq!(code_of(by_id(items, &Value::Null)), -32600);
    assert!(by_id(items, &json!(4))["result"]["structuredContent"].is_object());
    // Only notifications: no answer at all.
    server.send(
        &json!([{"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 98}}]),
    );
    assert!(server.recv_timeout(Duration::from_millis(300)).is_none());
    // An empty batch is one error, not an array.
    server.send(&json!([]));
    let reply = server.recv();
    assert_eq!((code_of(&reply), &reply["id"]), (-32600, &Value::Null));
    server.finish();
}

#[test]
fn batches_are_refused_after_2025_03_26() {
    let repo = Repo::with_spec();
    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut server = start_with(&repo, version);
        server.send(&json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]));
        let reply = server.recv();
        assert_eq!(code_of(&reply), -32600, "{version}: {reply}");
        assert_eq!(reply["id"], Value::Null);
        server.finish();
    }
}

/// The `format` values JSON Schema 2020-12 defines.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

fn formats(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                if key == "format"
                    && let Some(f) = v.as_str()
                {
                    found.push(f.to_string());
                }
                formats(v, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| formats(v, found)),
        _ => {}
    }
}

#[test]
fn every_tool_schema_is_portable_json_schema_2020_12() {
    let repo = Repo::with_spec();
    let mut server = Server::start(&repo.root);
    let list = server.request(1, "tools/list", json!({}));
    for tool in list["result"]["tools"].as_array().unwrap() {
        for key in ["inputSchema", "outputSchema"] {
            let schema = &tool[key];
            assert!(schema.is_object(), "{} {key}", tool["name"]);
            assert!(
                jsonschema::draft202012::meta::is_valid(schema),
                "{} {key} is not valid JSON Schema 2020-12: {schema}",
                tool["name"]
            );
            let mut found = Vec::new();
            formats(schema, &mut found);
            for format in found {
                assert!(
                    STANDARD_FORMATS.contains(&format.as_str()),
                    "{} {key} uses the non-standard format `{format}`",
                    tool["name"]
                );
            }
        }
    }
    server.finish();
}
