//! Progress and cancellation of tool calls, over raw JSON lines: a call
//! with `_meta.progressToken` gets `notifications/progress` (growing,
//! spaced, all before its answer), one without gets none, and
//! `notifications/cancelled` stops a `mark_reconciled` before it writes
//! anything, the server serving on.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Repo, Server};

/// `n` small files under `src/`, not committed; their repo paths.
fn many_files(repo: &Repo, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let rel = format!("src/d{}/f{i}.rs", i % 64);
            repo.write(&rel, format!("fn f{i}() {{}}\n"));
            rel
        })
        .collect()
}

/// Every line up to the answer to `id`, each with when it arrived.
fn lines_until(server: &mut Server, id: &Value) -> (Value, Vec<(Instant, Value)>) {
    let mut seen = Vec::new();
    loop {
        let line = server.recv();
        if line.get("id") == Some(id) {
            return (line, seen);
        }
        seen.push((Instant::now(), line));
    }
}

fn call(id: &Value, files: &[String], token: Option<&str>) -> Value {
    let mut params = json!({"name": "mark_reconciled", "arguments": {"files": files}});
    if let Some(token) = token {
        params["_meta"] = json!({"progressToken": token});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

/// The notifications of `seen`, checked to be progress reports for `token`
/// whose `progress` strictly grows up to `total`.
fn progress_of(seen: &[(Instant, Value)], token: &str, total: u64) -> Vec<(Instant, u64)> {
    seen.iter()
        .map(|(at, line)| {
            assert_eq!(line["method"], "notifications/progress", "{line}");
            assert!(line.get("id").is_none(), "{line}");
            let params = &line["params"];
            assert_eq!(params["progressToken"], token, "{line}");
            assert_eq!(params["total"].as_f64(), Some(total as f64), "{line}");
            assert!(
                params["message"].as_str().is_some_and(|m| !m.is_empty()),
                "{line}"
            );
            let progress = params["progress"].as_f64().unwrap();
            assert!(progress >= 0.0 && progress <= total as f64, "{line}");
            (*at, progress as u64)
        })
        .collect()
}

#[test]
fn a_long_call_reports_progress_only_with_a_token() {
    let repo = Repo::new();
    let files = many_files(&repo, 1000);
    let mut server = repo.server();

    let id = json!("with-token");
    server.send(&call(&id, &files, Some("tok-1")));
    let (answer, seen) = lines_until(&mut server, &id);
    assert_eq!(
        answer["result"]["structuredContent"]["updated"], 1000,
        "{answer}"
    );
    // Each file counts twice: hashed, then its content kept in git's store.
    let reports = progress_of(&seen, "tok-1", 2000);
    assert!(reports.len() >= 2, "start and end at least: {seen:?}");
    assert_eq!(reports[0].1, 0, "the start is reported at once");
    assert_eq!(reports.last().unwrap().1, 2000, "the end is reported");
    for pair in reports.windows(2) {
        assert!(
            pair[0].1 < pair[1].1,
            "progress strictly grows: {reports:?}"
        );
    }

    // Without a token: the answer and nothing else.
    let id = json!("no-token");
    server.send(&call(&id, &files, None));
    let (answer, seen) = lines_until(&mut server, &id);
    assert!(answer.get("result").is_some(), "{answer}");
    assert!(seen.is_empty(), "no notification without a token: {seen:?}");
    assert!(
        server.recv_timeout(Duration::from_millis(200)).is_none(),
        "nothing follows the answer"
    );

    // A read tool reports too, every report before its answer.
    repo.spec("code", &["src/**"]);
    let id = json!("diff");
    let params = json!({"name": "get_spec_diff", "arguments":
        {"spec_path": ".notarai/code.spec.yaml", "base_branch": "HEAD", "bypass_cache": true},
        "_meta": {"progressToken": 7}});
    repo.commit("specs and files");
    repo.append("src/d1/f1.rs", "// changed\n");
    server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
    let (answer, seen) = lines_until(&mut server, &id);
    assert!(answer.get("result").is_some(), "{answer}");
    assert!(!seen.is_empty(), "a report for get_spec_diff");
    for (_, line) in &seen {
        assert_eq!(line["params"]["progressToken"], 7, "{line}");
    }
    assert!(
        server.recv_timeout(Duration::from_millis(200)).is_none(),
        "no report after the answer"
    );
    server.finish();
}

#[test]
fn a_cancelled_mark_reconciled_writes_nothing_and_the_server_serves_on() {
    let repo = Repo::new();
    repo.write("keep.txt", "kept\n");
    // Seconds of work for the server, a round trip for the cancel.
    let files = many_files(&repo, 10_000);
    let mut server = repo.server();

    let id = json!("long");
    server.send(&call(&id, &files, Some("tok-c")));
    let first = server.recv();
    assert_eq!(first["method"], "notifications/progress", "{first}");
    // A write queued behind the write tool, cancelled before it ran:
    // dropped (a read is not queued behind a write: `concurrency.rs`).
    let held = json!("held");
    server.send(
        &json!({"jsonrpc": "2.0", "id": held, "method": "tools/call",
        "params": {"name": "clear_cache", "arguments": {}}}),
    );
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": held}}),
    );
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": "the user changed their mind"}}),
    );

    // A later call is served (after the cancelled one stopped).
    let next = json!("next");
    server.send(&call(&next, &["keep.txt".to_string()], None));
    let (answer, seen) = lines_until(&mut server, &next);
    assert_eq!(
        answer["result"]["structuredContent"]["updated"], 1,
        "{answer}"
    );
    for (_, line) in &seen {
        assert_eq!(
            line["method"], "notifications/progress",
            "only reports: {line}"
        );
        assert_eq!(line["params"]["progressToken"], "tok-c", "{line}");
    }
    // The cancelled call is never answered.
    while let Some(line) = server.recv_timeout(Duration::from_millis(500)) {
        assert!(
            line.get("id") != Some(&id) && line.get("id") != Some(&held),
            "a cancelled call was answered: {line}"
        );
    }

    let db = rusqlite::Connection::open(repo.db()).unwrap();
    let check: String = db
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let rows: Vec<String> = db
        .prepare("SELECT path FROM file_cache")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows, ["keep.txt"], "no row of the cancelled call");
    drop(db);

    // The same files, not cancelled this time, are all recorded.
    let again = json!("again");
    server.send(&call(&again, &files[..100], None));
    let (answer, _) = lines_until(&mut server, &again);
    assert_eq!(
        answer["result"]["structuredContent"]["updated"], 100,
        "{answer}"
    );
    let stderr = server.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// A cancel that names no call in flight (a call not sent yet, or one
/// already answered) cancels nothing: the request sent right after it
/// under that id is run and answered, not silently swallowed (which left
/// a write tool's work done and its client waiting forever).
#[test]
fn a_cancel_naming_no_call_in_flight_never_swallows_a_later_answer() {
    let repo = Repo::with_spec();
    repo.write("src/b.rs", "fn b() {}\n");
    let mut server = repo.server();
    let cancel = |id: &Value| {
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id}})
    };
    // The cancel and the request it names arrive together, the cancel first.
    let early = json!("early");
    let mut lines = cancel(&early).to_string();
    lines.push('\n');
    lines.push_str(&call(&early, &["src/b.rs".to_string()], None).to_string());
    lines.push('\n');
    server.send_raw(lines.as_bytes());
    let (answer, _) = server.answer(&early);
    assert_eq!(
        answer["result"]["structuredContent"]["updated"], 1,
        "{answer}"
    );

    // A cancel for a call already answered, then a new call under that id.
    let done = json!(7);
    let answer = server.request(done.clone(), "ping", json!({}));
    assert_eq!(answer["result"], json!({}), "{answer}");
    let mut lines = cancel(&done).to_string();
    lines.push('\n');
    lines.push_str(&call(&done, &["src/a.rs".to_string()], None).to_string());
    lines.push('\n');
    server.send_raw(lines.as_bytes());
    let (answer, _) = server.answer(&done);
    assert_eq!(
        answer["result"]["structuredContent"]["updated"], 1,
        "{answer}"
    );
    let stderr = server.finish();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `initialize` cannot be cancelled (MCP): a cancel naming it is ignored
/// and the handshake is answered.
#[test]
fn a_cancel_of_initialize_is_ignored() {
    let repo = Repo::with_spec();
    let mut server = Server::spawn(&repo.root);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}});
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 0}});
    server.send_raw(format!("{init}\n{cancel}\n").as_bytes());
    let (answer, _) = server.answer(&json!(0));
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-06-18",
        "{answer}"
    );
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let answer = server.request(1, "ping", json!({}));
    assert_eq!(answer["result"], json!({}), "{answer}");
    server.finish();
}

/// Laying out the pages of a wide diff is work too: after the diffing,
/// `get_spec_diff` reports `laying out pages` (no silent stretch between the
/// last file diffed and the answer), its count still growing to its total.
#[test]
fn get_spec_diff_reports_while_it_lays_out_pages() {
    let repo = Repo::with_spec();
    repo.spec("code", &["src/**"]);
    repo.commit("spec");
    // Text files: hashed whole (a debug build's token hashing of 300 Rust
    // files cost seconds and said nothing about pages).
    for i in 0..300 {
        let body: String = (0..200).map(|l| format!("line {l} of {i}\n")).collect();
        repo.write(&format!("src/w/f{i}.txt"), body);
    }
    let mut server = repo.server();
    let id = json!("wide");
    server.send(
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params":
        {"name": "get_spec_diff", "arguments":
            {"spec_path": ".notarai/code.spec.yaml", "base_branch": "main"},
         "_meta": {"progressToken": "lay"}}}),
    );
    let (answer, seen) = lines_until(&mut server, &id);
    assert!(
        answer["result"]["structuredContent"]["pages"].as_u64() > Some(1),
        "{answer}"
    );
    let stages: Vec<&str> = seen
        .iter()
        .map(|(_, l)| l["params"]["message"].as_str().unwrap())
        .collect();
    let last = seen.last().expect("reports").1["params"].clone();
    assert!(
        stages.contains(&"diffing files") && stages.last() == Some(&"laying out pages"),
        "{stages:?}"
    );
    let total = last["total"].as_f64().unwrap();
    let mut before = -1.0;
    for (_, line) in &seen {
        let p = &line["params"];
        let progress = p["progress"].as_f64().unwrap();
        assert!(
            progress > before && progress <= p["total"].as_f64().unwrap(),
            "{line}"
        );
        before = progress;
    }
    assert!(total > 0.0);
    server.finish();
}
