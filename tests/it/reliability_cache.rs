//! The hash cache under damage, crashes and contention, driven through the
//! real binary: a corrupt database, a future schema, a cache folder that
//! cannot be written, a missing folder, a full disk (a tiny file-size limit),
//! SIGKILL in the middle of a large `mark_reconciled`, and two MCP servers
//! plus two `notarai cache update` loops writing at once.
//!
//! Reads degrade to a cold cache with a warning; writes fail with `-32603` or
//! a CLI error that says why; nothing panics; the database always opens with
//! `PRAGMA integrity_check` = ok and holds either the old or the new hashes.
//!
//! The long soak: `NOTARAI_SOAK_ROUNDS=1000 cargo test --test it reliability_cache:: -- --ignored`.
//!
//! Tests run as root here, where permission bits do not stop a write, so a
//! "read-only" cache is made honestly unwritable by putting a file where the
//! folder must be, and a database that is a folder; a full disk is simulated
//! with `RLIMIT_FSIZE`.

use crate::common;

use std::path::Path;

use common::{Repo, Server, limit_file_size, notarai, notarai_cmd, run, soak_rounds};
use notarai::hashing::{FileHash, hash_path};
use serde_json::{Value, json};

const SPEC: &str = ".notarai/a.spec.yaml";

fn diff_args() -> Value {
    json!({"spec_path": SPEC, "base_branch": "main", "full_lists": true})
}

/// The hex hash notarai stores for the file at `path`.
fn hash_of(path: &Path) -> String {
    match hash_path(path).unwrap() {
        FileHash::Content(h) => h,
        other => panic!("{}: {other:?}", path.display()),
    }
}

/// Open the database read-only, check its integrity and read every entry.
fn entries(db: &Path) -> std::collections::HashMap<String, String> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE)
            .expect("the database opens");
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok", "integrity_check of {}", db.display());
    let mut stmt = conn
        .prepare("SELECT path, blake3_hash FROM file_cache")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// A repository with one changed governed file and a server.
fn changed_repo() -> (Repo, Server) {
    let repo = Repo::with_spec();
    repo.write("src/a.rs", "fn a() { changed() }\n");
    let server = Server::start(&repo.root);
    (repo, server)
}

#[test]
fn corrupt_database_is_a_cold_cache_then_rewritten() {
    let (repo, mut server) = changed_repo();
    server.call_ok(1, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    assert_eq!(
        server.call_ok(2, "get_spec_diff", diff_args())["skipped"],
        json!(["src/a.rs"])
    );
    for (round, garbage) in [
        vec![0x42u8; 8192],
        b"SQLite format 3\0garbage".repeat(300),
        Vec::new(),
    ]
    .into_iter()
    .enumerate()
    {
        let _ = std::fs::remove_file(format!("{}-wal", repo.db().display()));
        let _ = std::fs::remove_file(format!("{}-shm", repo.db().display()));
        std::fs::write(repo.db(), &garbage).unwrap();
        let id = 10 * (round as u64 + 1);
        let diff = server.call_ok(id, "get_spec_diff", diff_args());
        assert_eq!(
            diff["files"],
            json!(["src/a.rs"]),
            "cold after corruption {round}: {diff}"
        );
        let marked = server.call_ok(id + 1, "mark_reconciled", json!({"files": ["src/a.rs"]}));
        assert_eq!(marked["updated"], 1);
        assert_eq!(
            server.call_ok(id + 2, "get_spec_diff", diff_args())["skipped"],
            json!(["src/a.rs"])
        );
        entries(&repo.db());
    }
    let stderr = server.stderr();
    assert!(
        stderr.contains("corrupt"),
        "a warning names the corruption: {stderr}"
    );
    server.finish();
    // The CLI reads a corrupt cache as cold, too.
    std::fs::write(repo.db(), vec![7u8; 4096]).unwrap();
    let out = notarai(&repo.root, &["cache", "changed", "src/a.rs"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "src/a.rs\n");
}

#[test]
fn future_schema_is_cold_for_reads_and_refused_for_writes() {
    let (repo, mut server) = changed_repo();
    server.call_ok(1, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    let conn = rusqlite::Connection::open(repo.db()).unwrap();
    conn.execute_batch("PRAGMA user_version = 7; CREATE TABLE future_things (x);")
        .unwrap();
    drop(conn);
    let diff = server.call_ok(2, "get_spec_diff", diff_args());
    assert_eq!(diff["files"], json!(["src/a.rs"]), "cold: {diff}");
    let (code, message) =
        Server::error_of(&server.call(3, "mark_reconciled", json!({"files": ["src/a.rs"]})));
    assert_eq!(code, -32603);
    assert!(message.contains("newer notarai"), "{message}");
    let out = notarai(&repo.root, &["cache", "update", "src/a.rs"], b"");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("newer notarai"));
    let conn = rusqlite::Connection::open(repo.db()).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 7, "the newer database is left as it was");
    assert!(
        server.stderr().contains("newer notarai"),
        "a warning on read"
    );
    server.finish();
}

/// Running as root, permission bits do not stop writes; a file where the
/// cache folder must be does, for root too.
#[test]
fn unwritable_cache_folder_fails_writes_clearly_and_reads_cold() {
    let (repo, mut server) = changed_repo();
    std::fs::write(repo.root.join(".notarai/.cache"), "not a folder").unwrap();
    let diff = server.call_ok(1, "get_spec_diff", diff_args());
    assert_eq!(diff["files"], json!(["src/a.rs"]));
    let changed = server.call_ok(2, "get_changed_artifacts", json!({"spec_path": SPEC}));
    assert!(
        changed["changed_artifacts"]
            .as_array()
            .unwrap()
            .contains(&json!("src/a.rs"))
    );
    let (code, message) =
        Server::error_of(&server.call(3, "mark_reconciled", json!({"files": ["src/a.rs"]})));
    assert_eq!(code, -32603);
    assert!(message.contains("cannot create folder"), "{message}");
    let cleared = server.call_ok(4, "clear_cache", json!({}));
    assert_eq!(cleared["cleared"], false);
    let out = notarai(&repo.root, &["cache", "update", "src/a.rs"], b"");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot create folder"));
    let out = notarai(&repo.root, &["cache", "changed", "src/a.rs"], b"");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "src/a.rs\n");

    // A database path that is a folder.
    std::fs::remove_file(repo.root.join(".notarai/.cache")).unwrap();
    std::fs::create_dir_all(repo.db()).unwrap();
    let diff = server.call_ok(5, "get_spec_diff", diff_args());
    assert_eq!(diff["files"], json!(["src/a.rs"]));
    let (code, message) =
        Server::error_of(&server.call(6, "mark_reconciled", json!({"files": ["src/a.rs"]})));
    assert_eq!(code, -32603, "{message}");
    assert!(message.contains("hash cache"), "{message}");
    let answer = server.call(7, "clear_cache", json!({}));
    if let Some(error) = answer.get("error") {
        assert_eq!(error["code"], -32603, "{answer}");
    }
    // Fixed by hand: the next write works.
    let _ = std::fs::remove_dir_all(repo.db());
    server.call_ok(8, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    assert_eq!(
        server.call_ok(9, "get_spec_diff", diff_args())["skipped"],
        json!(["src/a.rs"])
    );
    server.finish();
}

#[test]
fn missing_cache_folder_is_cold_and_recreated() {
    let (repo, mut server) = changed_repo();
    assert!(!repo.root.join(".notarai/.cache").exists());
    assert_eq!(
        server.call_ok(1, "get_spec_diff", diff_args())["files"],
        json!(["src/a.rs"])
    );
    assert_eq!(
        server.call_ok(2, "clear_cache", json!({}))["cleared"],
        false
    );
    server.call_ok(3, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    // Removed behind the server's back, between calls.
    std::fs::remove_dir_all(repo.root.join(".notarai/.cache")).unwrap();
    assert_eq!(
        server.call_ok(4, "get_spec_diff", diff_args())["files"],
        json!(["src/a.rs"])
    );
    server.call_ok(5, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    assert_eq!(
        server.call_ok(6, "get_spec_diff", diff_args())["skipped"],
        json!(["src/a.rs"])
    );
    std::fs::remove_dir_all(repo.root.join(".notarai")).unwrap();
    let answer = server.call(7, "list_affected_specs", json!({"base_branch": "main"}));
    assert!(answer.get("result").is_some(), "{answer}");
    server.finish();
}

/// A full disk in miniature: every file notarai writes is capped at 48 KiB.
#[test]
fn full_disk_fails_writes_clearly_and_keeps_the_database() {
    let (repo, mut server) = changed_repo();
    server.call_ok(1, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    server.finish();
    // 800 entries of ~150 bytes outgrow the 48 KiB cap about twice over.
    let names: Vec<String> = (0..800)
        .map(|i| format!("gen/file-with-a-long-name-{i:05}.txt"))
        .collect();
    for name in &names {
        repo.write(name, name);
    }
    let mut full = Server::spawn_with(&repo.root, |cmd| limit_file_size(cmd, 48 * 1024));
    full.initialize();
    let (code, message) =
        Server::error_of(&full.call(2, "mark_reconciled", json!({"files": names})));
    assert_eq!(code, -32603, "{message}");
    assert!(
        message.contains("hash cache") && message.contains("write failed"),
        "{message}"
    );
    // Reads still work, and the database still holds the earlier entry.
    assert_eq!(
        full.call_ok(3, "get_spec_diff", diff_args())["skipped"],
        json!(["src/a.rs"])
    );
    full.finish();
    let mut cmd = notarai_cmd(&repo.root, &["cache", "update"]);
    limit_file_size(&mut cmd, 48 * 1024);
    let stdin = names.join("\n");
    let out = run(cmd, stdin.as_bytes());
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: ") && stderr.contains("write failed"),
        "{stderr}"
    );
    let stored = entries(&repo.db());
    assert_eq!(
        stored.get("src/a.rs"),
        Some(&hash_of(&repo.root.join("src/a.rs")))
    );
    assert!(
        !stored.contains_key(&names[0]),
        "the failed transaction left nothing"
    );
}

/// Write `count` files under `gen/` with content for `version`; return their paths.
/// A file of the previous version is removed first: ext4 flushes a file
/// truncated and rewritten in place on close (`auto_da_alloc`), which costs
/// seconds for thousands of files on a busy disk.
fn write_generation(repo: &Repo, count: usize, version: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            let name = format!("gen/{:02}/f{i:05}.txt", i % 50);
            let _ = std::fs::remove_file(repo.root.join(&name));
            repo.write(&name, format!("version {version} of file {i}\n"));
            name
        })
        .collect()
}

/// The stages `mark_reconciled` reports, in order (`src/review/record.rs`).
const MARK_STAGES: [&str; 4] = [
    "checking paths",
    "hashing files",
    "keeping the reviewed content in git's object store",
    "writing the cache",
];

/// SIGKILL at every stage of a large `mark_reconciled` (once its progress
/// report of that stage, or of a later one, arrives) and once past its
/// answer: afterwards the database opens, `integrity_check` is ok, and it
/// holds for every file either all the old hashes or all the new ones (one
/// transaction); after the answer, the new ones. The kills follow the
/// server's own reports, not a clock, so a slow machine moves them with the
/// work (a report may be read after the server went further: either is fine).
#[test]
fn sigkill_during_large_mark_reconciled_keeps_old_or_new() {
    let repo = Repo::with_spec();
    // Enough files that each stage lasts several reports; the kills follow
    // the reports, so more files would only make it slower, not stricter.
    let count = 400;
    let files = write_generation(&repo, count, 0);
    let mut server = Server::start(&repo.root);
    server.call_ok(1, "mark_reconciled", json!({"files": files}));
    server.finish();
    let hashes = |repo: &Repo| -> Vec<String> {
        files.iter().map(|f| hash_of(&repo.root.join(f))).collect()
    };
    let mut old = hashes(&repo);
    let (mut kept_old, mut got_new) = (0, 0);
    for round in 0..=MARK_STAGES.len() {
        write_generation(&repo, count, round + 1);
        let new = hashes(&repo);
        let mut server = Server::start(&repo.root);
        server.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "mark_reconciled", "arguments": {"files": files},
                       "_meta": {"progressToken": "k"}}}));
        // Read until a report of this round's stage or a later one (the
        // last round: the answer), then kill.
        let stage = loop {
            let message = server.recv();
            if message.get("id") == Some(&json!(2)) {
                break MARK_STAGES.len();
            }
            let said = message["params"]["message"].as_str().unwrap_or_default();
            if let Some(at) = MARK_STAGES.iter().position(|s| *s == said)
                && at >= round
            {
                break at;
            }
        };
        server.kill();
        let stored = entries(&repo.db());
        let now: Vec<&String> = files
            .iter()
            .map(|f| stored.get(f).expect("every file cached"))
            .collect();
        if now.iter().zip(&old).all(|(a, b)| *a == b) {
            assert!(stage < MARK_STAGES.len(), "answered, yet the old hashes");
            kept_old += 1;
        } else if now.iter().zip(&new).all(|(a, b)| *a == b) {
            got_new += 1;
            old = new;
        } else {
            let mixed = now.iter().zip(&old).filter(|(a, b)| **a != *b).count();
            panic!(
                "round {round}: {mixed} of {count} entries changed: neither all old nor all new"
            );
        }
    }
    eprintln!("sigkill: {kept_old} kills kept the old hashes, {got_new} the new");
    // The next server reads and writes the database normally.
    let mut server = Server::start(&repo.root);
    server.call_ok(3, "mark_reconciled", json!({"files": files}));
    server.finish();
    let stored = entries(&repo.db());
    assert_eq!(stored[&files[0]], hash_of(&repo.root.join(&files[0])));
}

/// Write round `r` of writer `<kind><w>`: its own file `<kind><w>/r<r>.txt`
/// and its `<kind><w>/shared.txt`; returns both paths.
fn write_round(root: &Path, kind: &str, w: usize, r: usize) -> (String, String) {
    let own = format!("{kind}{w}/r{r:04}.txt");
    let shared = format!("{kind}{w}/shared.txt");
    // Removed first, as in `write_generation`: no flush of a file truncated
    // in place every round.
    let _ = std::fs::remove_file(root.join(&shared));
    common::write(root, &own, format!("{w} {r}"));
    common::write(root, &shared, format!("shared {w} {r}"));
    (own, shared)
}

/// Two MCP servers and two `notarai cache update` loops write the same cache
/// for `rounds` rounds each: every call succeeds, no write is lost, and the
/// database passes `integrity_check`.
fn concurrent_writers(rounds: usize) {
    let repo = Repo::with_spec();
    repo.write("src/a.rs", "fn a() { changed() }\n");
    let root = repo.root.clone();
    let mut workers = Vec::new();
    for w in 0..2 {
        let root = root.clone();
        workers.push(std::thread::spawn(move || {
            let mut server = Server::start(&root);
            for r in 0..rounds {
                let (own, shared) = write_round(&root, "mcp", w, r);
                let result =
                    server.call_ok(r as u64, "mark_reconciled", json!({"files": [own, shared]}));
                assert_eq!(result["updated"], 2, "mcp{w} round {r}: {result}");
                if r % 10 == 0 {
                    server.call_ok(format!("d{r}"), "get_spec_diff", diff_args());
                }
            }
            let stderr = server.stderr();
            server.finish();
            stderr
        }));
    }
    for w in 0..2 {
        let root = root.clone();
        workers.push(std::thread::spawn(move || {
            let mut stderr = String::new();
            for r in 0..rounds {
                let (own, shared) = write_round(&root, "cli", w, r);
                let out = notarai(&root, &["cache", "update", &own, &shared], b"");
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(out.status.success(), "cli{w} round {r}: {err}");
                assert_eq!(String::from_utf8_lossy(&out.stdout), "Updated 2 file(s)\n");
                stderr.push_str(&err);
            }
            stderr
        }));
    }
    for worker in workers {
        let stderr = worker.join().expect("a writer failed");
        assert!(
            !stderr.contains("WARN") && !stderr.contains("error"),
            "{stderr}"
        );
    }
    let stored = entries(&repo.db());
    let mut checked = 0;
    for w in 0..2 {
        for r in 0..rounds {
            for (key, file) in [
                (format!("mcp{w}/r{r:04}.txt"), format!("mcp{w}/r{r:04}.txt")),
                // One key space: the shell records repository-relative paths too.
                (format!("cli{w}/r{r:04}.txt"), format!("cli{w}/r{r:04}.txt")),
            ] {
                let got = stored
                    .get(&key)
                    .unwrap_or_else(|| panic!("lost write: {key}"));
                assert_eq!(got, &hash_of(&root.join(&file)), "{key}");
                checked += 1;
            }
        }
        let shared = hash_of(&root.join(format!("mcp{w}/shared.txt")));
        assert_eq!(
            stored[&format!("mcp{w}/shared.txt")],
            shared,
            "last write wins"
        );
        let key = format!("cli{w}/shared.txt");
        assert_eq!(
            stored[&key],
            hash_of(&root.join(format!("cli{w}/shared.txt")))
        );
    }
    eprintln!("concurrency: 4 writers x {rounds} rounds, {checked} entries checked");
}

#[test]
fn concurrent_writers_quick() {
    // Four writers on one database: 40 rounds each overlap their
    // transactions hundreds of times; the soak below runs 1,000.
    concurrent_writers(40);
}

#[test]
#[ignore = "soak: NOTARAI_SOAK_ROUNDS=1000 cargo test --test it reliability_cache:: -- --ignored"]
fn concurrent_writers_soak() {
    concurrent_writers(soak_rounds(1000));
}
