//! The concurrency model of `notarai mcp` (`src/mcp/projects.rs`), through
//! the binary and by order of answers, never by time: a read sent before a
//! long write is answered while it waits, sees the state from before it
//! (never a half-written one), a read sent after it waits for it and sees
//! it, and two writes still run one after the other, in the order sent.
//!
//! The write is held long by a real condition, not a hook: another process
//! (this test) holds the hash cache's write lock (`BEGIN IMMEDIATE`), as a
//! shell `notarai reconcile` would, so `mark_reconciled` waits inside its
//! write (SQLite's busy timeout, 30 s) until the test lets go.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Repo, Server};

fn call(id: &str, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}})
}

/// The next line that answers a request, skipping notifications.
fn next_answer(server: &mut Server) -> Value {
    loop {
        let line = server.recv();
        if line.get("id").is_some() {
            return line;
        }
    }
}

fn unreconciled(answer: &Value) -> u64 {
    let specs = &answer["result"]["structuredContent"]["affected_specs"];
    specs[0]["unreconciled_count"]
        .as_u64()
        .unwrap_or_else(|| panic!("{answer}"))
}

#[test]
fn reads_sent_before_a_write_are_answered_while_it_waits_and_reads_sent_after_it_see_it() {
    let repo = Repo::with_spec();
    repo.write("keep.txt", "kept\n");
    repo.append("src/a.rs", "fn b() {}\n");
    let mut server = repo.server();
    // The cache exists (the test locks it below).
    server.call_ok("setup", "mark_reconciled", json!({"files": ["keep.txt"]}));

    let lock = rusqlite::Connection::open(repo.db()).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();

    // Reads, two writes, then a read, on the one connection.
    server.send(&call(
        "r1",
        "get_governing_specs",
        json!({"paths": ["src/a.rs"]}),
    ));
    server.send(&json!({"jsonrpc": "2.0", "id": "r2", "method": "resources/list"}));
    server.send(&call(
        "r3",
        "list_affected_specs",
        json!({"base_branch": "main"}),
    ));
    server.send(&call(
        "w1",
        "mark_reconciled",
        json!({"files": ["src/a.rs"]}),
    ));
    server.send(&call(
        "w2",
        "report_drift",
        json!({"spec_path": ".notarai/a.spec.yaml", "note": "a() grew a sibling"}),
    ));
    server.send(&call(
        "r4",
        "list_affected_specs",
        json!({"base_branch": "main"}),
    ));
    // `ping` is never held.
    server.send(&json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}));

    // Every read sent before the writes is answered while the first write
    // waits for the lock; the read sent after them is not.
    let mut reads = std::collections::BTreeMap::new();
    while reads.len() < 4 {
        let answer = next_answer(&mut server);
        let id = answer["id"].as_str().unwrap().to_string();
        assert!(
            ["r1", "r2", "r3", "p"].contains(&id.as_str()),
            "answered before the write it was sent after, or a write answered while locked: {answer}"
        );
        reads.insert(id, answer);
    }
    let governing = &reads["r1"]["result"]["structuredContent"];
    assert_eq!(
        governing["specs"][0]["spec_path"], ".notarai/a.spec.yaml",
        "{governing}"
    );
    assert!(
        reads["r2"]["result"]["resources"].is_array(),
        "{}",
        reads["r2"]
    );
    // The read sent before the write saw the state before it.
    assert_eq!(unreconciled(&reads["r3"]), 1, "{}", reads["r3"]);
    assert!(
        server.recv_timeout(Duration::from_millis(800)).is_none(),
        "r4 must wait for the writes sent before it"
    );

    lock.execute_batch("ROLLBACK").unwrap();
    drop(lock);
    let first = next_answer(&mut server);
    assert_eq!(first["id"], "w1", "the writes keep their order: {first}");
    assert_eq!(
        first["result"]["structuredContent"]["updated"], 1,
        "{first}"
    );
    let second = next_answer(&mut server);
    assert_eq!(second["id"], "w2", "{second}");
    assert!(
        second["result"]["structuredContent"]["id"].is_string(),
        "{second}"
    );
    // The read sent after the writes sees them.
    let after = next_answer(&mut server);
    assert_eq!(after["id"], "r4", "{after}");
    assert_eq!(unreconciled(&after), 0, "{after}");
    let stderr = server.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
}
