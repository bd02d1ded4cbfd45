//! `notarai mcp --read-only`: the tools that write are neither listed nor
//! callable, and nothing under `.notarai/` is written: after a session that
//! exercises every tool, resource and prompt, every file there has the same
//! bytes and modification time and no file appeared (no load-status stamp,
//! no SQLite `-wal`/`-shm`), while the cache is still read.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use common::{Repo, Server, strings};
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

const WRITE_TOOLS: [&str; 4] = [
    "mark_reconciled",
    "report_drift",
    "snapshot_state",
    "clear_cache",
];
const READ_TOOLS: [&str; 5] = [
    "get_reconciliation_status",
    "list_affected_specs",
    "get_spec_diff",
    "get_changed_artifacts",
    "get_governing_specs",
];

/// Every entry below `dir` (folders too) with its bytes (files) and
/// modification time, not following links.
fn state_of(dir: &Path) -> BTreeMap<PathBuf, (Option<Vec<u8>>, SystemTime)> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, (Option<Vec<u8>>, SystemTime)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let bytes = meta.is_file().then(|| std::fs::read(&path).unwrap());
            out.insert(rel, (bytes, meta.modified().unwrap()));
            if meta.is_dir() {
                walk(root, &path, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn read_only(root: &Path) -> Server {
    let mut server = Server::spawn_with(root, |cmd| {
        cmd.arg("--read-only");
    });
    server.initialize();
    server
}

/// A branch with a change reconciled (after a snapshot) by a writing server,
/// a load-status stamp kept, then a spec edited so that the stamp is stale
/// (a writing server would rewrite it).
fn reconciled_repo() -> Repo {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    repo.write("docs/a.md", "# A, changed\n");
    let mut server = repo.server();
    // The state first, so what is reconciled is only in the cache.
    server.call_ok(1, "snapshot_state", json!({}));
    server.call_ok(2, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    server.finish();
    // A second writing server keeps the load status, now that the cache folder exists.
    repo.server().finish();
    assert!(repo.root.join(".notarai/.cache/load-status.json").is_file());
    assert!(repo.db().is_file());
    repo.spec("more", &["lib/**"]);
    repo
}

#[test]
fn a_read_only_session_writes_nothing_under_notarai() {
    let repo = reconciled_repo();
    let before = state_of(&repo.root.join(".notarai"));
    let mut server = read_only(&repo.root);

    let tools = server.request(1, "tools/list", json!({}));
    let names: Vec<String> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, READ_TOOLS);

    let status = server.call_ok(
        2,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    assert_eq!(
        status["totals"]["reconciled"], 1,
        "the cache is read: {status}"
    );
    let affected = server.call_ok(3, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(
        strings(&affected["changed_files"]),
        [
            ".notarai/more.spec.yaml",
            ".notarai/reconciliation_state.json",
            "docs/a.md",
            "src/a.rs"
        ]
    );
    let diff = server.call_ok(
        4,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "full_lists": true}),
    );
    assert_eq!(strings(&diff["skipped"]), ["src/a.rs"], "{diff}");
    assert_eq!(strings(&diff["files"]), ["docs/a.md"]);
    server.call_ok(
        5,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/a.spec.yaml", "artifact_type": "docs"}),
    );
    for (i, tool) in WRITE_TOOLS.iter().enumerate() {
        let arguments = match *tool {
            "mark_reconciled" => json!({"files": ["docs/a.md"]}),
            _ => json!({}),
        };
        let answer = server.call(10 + i as i64, tool, arguments);
        let error = &answer["error"];
        assert_eq!(error["code"], -32602, "{tool}: {answer}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("read-only"), "{message}");
        assert!(
            error["data"]["hint"]
                .as_str()
                .unwrap()
                .contains("without `--read-only`"),
            "{answer}"
        );
    }
    // Resources, prompts and completion read only.
    let listed = server.request(20, "resources/list", json!({}));
    assert_eq!(listed["result"]["resources"].as_array().unwrap().len(), 2);
    let read = server.request(
        21,
        "resources/read",
        json!({"uri": "notarai://spec/.notarai/more.spec.yaml"}),
    );
    assert!(read["result"]["contents"][0]["text"].is_string(), "{read}");
    let prompt = server.request(22, "prompts/get", json!({"name": "reconcile"}));
    let text = prompt["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("This server is read-only"), "{text}");
    let completion = server.request(
        23,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "reconcile"},
            "argument": {"name": "base_branch", "value": ""}}),
    );
    assert_eq!(
        strings(&completion["result"]["completion"]["values"]),
        ["feat", "main"]
    );
    // The diff again, after the refused writes: still answered from the cache.
    let again = server.call_ok(
        24,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "full_lists": true}),
    );
    assert_eq!(strings(&again["skipped"]), ["src/a.rs"]);
    server.finish();

    let after = state_of(&repo.root.join(".notarai"));
    let names = |s: &BTreeMap<PathBuf, _>| s.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&after),
        names(&before),
        "no file appeared or vanished"
    );
    for (path, (bytes, modified)) in &before {
        let (bytes_now, modified_now) = &after[path];
        assert_eq!(bytes_now, bytes, "{} changed", path.display());
        assert_eq!(modified_now, modified, "{} was touched", path.display());
    }
}

#[test]
fn a_read_only_server_says_so_and_creates_no_cache() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    // A cache folder without a stamp: a writing server would keep one.
    std::fs::create_dir_all(repo.root.join(".notarai/.cache")).unwrap();
    let before = state_of(&repo.root.join(".notarai"));
    let mut server = Server::spawn_with(&repo.root, |cmd| {
        cmd.arg("--read-only");
    });
    let info = server.initialize();
    let instructions = info["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("This server is read-only")
            && instructions.contains("Specs loaded: 1."),
        "{instructions}"
    );
    let status = server.call_ok(
        1,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    assert_eq!(status["totals"]["reconciled"], 0);
    let answer = server.call(2, "clear_cache", json!({}));
    assert_eq!(answer["error"]["code"], -32602);
    server.finish();
    assert_eq!(state_of(&repo.root.join(".notarai")), before);

    // The same server without the flag keeps its stamp: the test above is not vacuous.
    repo.server().finish();
    assert!(repo.root.join(".notarai/.cache/load-status.json").is_file());
}

#[tokio::test]
async fn rmcp_client_sees_only_the_reading_tools() {
    let repo = reconciled_repo();
    let client = common::rmcp_client(&repo.root, &["--read-only"]).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, READ_TOOLS);
    assert!(
        tools
            .iter()
            .all(|t| t.annotations.as_ref().unwrap().read_only_hint == Some(true))
    );
    // rmcp's client negotiates 2025-11-25: the refusal is a result the
    // model reads (isError), as every invalid argument from that revision on.
    for tool in WRITE_TOOLS {
        let refused = client
            .call_tool(CallToolRequestParams::new(tool))
            .await
            .unwrap();
        assert_eq!(refused.is_error, Some(true), "{tool}: {refused:?}");
        assert!(
            format!("{:?}", refused.content).contains("read-only"),
            "{tool}: {refused:?}"
        );
    }
    let status: Value = client
        .call_tool(
            CallToolRequestParams::new("get_reconciliation_status")
                .with_arguments(json!({"base_branch": "main"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap()
        .structured_content
        .unwrap();
    assert_eq!(status["totals"]["reconciled"], 1);
    client.cancel().await.unwrap();
}

#[test]
fn a_live_writers_wal_is_read_and_a_corrupt_cache_left_alone() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    repo.write("docs/a.md", "# A, changed\n");
    let mut server = repo.server();
    server.call_ok(
        1,
        "mark_reconciled",
        json!({"files": ["src/a.rs", "docs/a.md"]}),
    );
    server.finish();
    let reconciled = || {
        let mut server = read_only(&repo.root);
        let status = server.call_ok(
            1,
            "get_reconciliation_status",
            json!({"base_branch": "main"}),
        );
        server.finish();
        status["totals"]["reconciled"].clone()
    };
    assert_eq!(reconciled(), 2, "the database as the writer closed it");

    // Another process holds the database open and has forgotten one file:
    // the change sits in its `-wal`, not yet in the database file.
    let writer = rusqlite::Connection::open(repo.db()).unwrap();
    let mode: String = writer
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    // Both of its records: for every spec, and for the spec governing it.
    writer
        .execute_batch(
            "DELETE FROM file_cache WHERE path = 'src/a.rs';
             DELETE FROM reviews WHERE path = 'src/a.rs';",
        )
        .unwrap();
    let cache = repo.root.join(".notarai/.cache");
    let wal = cache.join("notarai.db-wal");
    assert!(wal.is_file());
    let before = state_of(&cache);
    assert_eq!(
        reconciled(),
        1,
        "the writer's change is read through its -wal"
    );
    let after = state_of(&cache);
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>(),
        "no file appeared"
    );
    for name in ["notarai.db", "notarai.db-wal"] {
        assert_eq!(before[Path::new(name)], after[Path::new(name)], "{name}");
    }
    drop(writer);

    // A corrupt database is a cold cache, and stays where it is.
    std::fs::write(
        repo.db(),
        b"this is not a database, but long enough to look like one",
    )
    .unwrap();
    let before = state_of(&repo.root.join(".notarai"));
    assert_eq!(reconciled(), 0);
    assert_eq!(
        state_of(&repo.root.join(".notarai")),
        before,
        "not set aside"
    );
}
