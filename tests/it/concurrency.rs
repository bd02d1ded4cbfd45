//! The concurrency model of `notarai mcp` (`src/mcp/projects.rs`), through
//! the binary and by order of answers, never by time: a read sent after a
//! long write is answered before it, sees the state from before it (never a
//! half-written one), and two writes still run one after the other, in the
//! order sent.
//!
//! The write is held long by a real condition, not a hook: another process
//! (this test) holds the hash cache's write lock (`BEGIN IMMEDIATE`), as a
//! shell `notarai reconcile` would, so `mark_reconciled` waits inside its
//! write (SQLite's busy timeout, 30 s) until the test lets go.

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
fn reads_are_answered_while_a_write_waits_and_writes_keep_their_order() {
    let repo = Repo::with_spec();
    repo.write("keep.txt", "kept\n");
    repo.append("src/a.rs", "fn b() {}\n");
    let mut server = repo.server();
    // The cache exists (the test locks it below).
    server.call_ok("setup", "mark_reconciled", json!({"files": ["keep.txt"]}));
    let before = server.call(
        "before",
        "list_affected_specs",
        json!({"base_branch": "main"}),
    );
    assert_eq!(unreconciled(&before), 1, "{before}");

    let lock = rusqlite::Connection::open(repo.db()).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();

    // Two writes, then reads, on the one connection.
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

    // Every read is answered while the first write still waits for the lock.
    let mut reads = std::collections::BTreeMap::new();
    while reads.len() < 3 {
        let answer = next_answer(&mut server);
        let id = answer["id"].as_str().unwrap().to_string();
        assert!(
            id.starts_with('r'),
            "a write answered before the reads: {answer}"
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
    // The read saw the state before the write: nothing half-written.
    assert_eq!(unreconciled(&reads["r3"]), 1, "{}", reads["r3"]);

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

    // After the write, a read sees it: no answer kept during the write is
    // served.
    let after = server.call(
        "after",
        "list_affected_specs",
        json!({"base_branch": "main"}),
    );
    assert_eq!(unreconciled(&after), 0, "{after}");
    let stderr = server.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
}
