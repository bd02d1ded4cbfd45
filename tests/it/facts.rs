//! What one process learned of contents (semantic hashes, outlines) is
//! kept in `.notarai/.cache/facts.db` and used by the next: a content
//! seen before is not parsed again. Never from a cache folder git tracks
//! (a cloned repository could carry facts that hide a change), never
//! written by a read-only server, and a damaged database is only a miss.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Repo, Server};

const OLD: &str = "fn a() -> u8 {\n    1\n}\n";
const NEW: &str = "fn a() -> u8 {\n    2\n}\n";

/// A spec governing `src/**`, `src/a.rs` committed on `main` as [`OLD`],
/// branch `feat` with it changed to [`NEW`] (a real change).
fn repo() -> Repo {
    let repo = Repo::new();
    repo.spec("code", &["src/**"]);
    repo.write("src/a.rs", OLD);
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/a.rs", NEW);
    repo
}

fn facts_db(repo: &Repo) -> std::path::PathBuf {
    repo.root.join(".notarai/.cache/facts.db")
}

/// The status's files to review and its formatting-only files.
fn status(root: &Path, read_only: bool) -> (Vec<String>, Value) {
    let mut server = if read_only {
        Server::spawn_with(root, |cmd| {
            cmd.arg("--read-only");
        })
    } else {
        Server::spawn(root)
    };
    server.initialize();
    let status = server.call_ok(
        1,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    server.finish();
    let unreconciled = status["specs"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["unreconciled"].as_array().cloned().unwrap_or_default())
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    (unreconciled, status["formatting_only"].clone())
}

/// Make the kept fact of [`NEW`] say what the kept fact of [`OLD`] says:
/// a lie only a process that reads the facts can tell.
fn plant_false_fact(db: &Path) {
    let conn = rusqlite::Connection::open(db).unwrap();
    let hash_of = |text: &str| -> String {
        conn.query_row(
            "SELECT hash FROM facts WHERE content = ?1",
            [&blake3::hash(text.as_bytes()).as_bytes()[..]],
            |r| r.get(0),
        )
        .unwrap()
    };
    let old = hash_of(OLD);
    assert_ne!(old, hash_of(NEW), "a real change has another hash");
    let changed = conn
        .execute(
            "UPDATE facts SET hash = ?1, outline = NULL WHERE content = ?2",
            rusqlite::params![old, &blake3::hash(NEW.as_bytes()).as_bytes()[..]],
        )
        .unwrap();
    assert_eq!(changed, 1);
}

#[test]
fn facts_one_process_learned_are_used_by_the_next_but_never_from_a_tracked_cache() {
    let repo = repo();
    let (unreconciled, formatting) = status(&repo.root, false);
    assert_eq!(unreconciled, vec!["src/a.rs"]);
    assert_eq!(formatting, Value::Null);
    assert!(
        facts_db(&repo).is_file(),
        "the first process kept what it learned"
    );

    // The next process reads them: a planted fact changes its answer,
    // which proves the content was not parsed again.
    plant_false_fact(&facts_db(&repo));
    let (unreconciled, formatting) = status(&repo.root, false);
    assert!(unreconciled.is_empty(), "{unreconciled:?}");
    assert_eq!(formatting, json!(["src/a.rs"]));

    // The same facts arriving with the repository (git tracks them) are
    // never read: the change is flagged again.
    repo.git(&["add", "-f", ".notarai/.cache/facts.db"]);
    repo.git(&["commit", "-q", "-m", "a cache in the repository"]);
    let (unreconciled, _) = status(&repo.root, false);
    assert_eq!(unreconciled, vec!["src/a.rs"]);
}

#[test]
fn a_damaged_facts_database_is_a_miss_and_a_read_only_server_keeps_none() {
    let repo = repo();
    // Read-only: the answer is right and nothing is kept.
    let (unreconciled, _) = status(&repo.root, true);
    assert_eq!(unreconciled, vec!["src/a.rs"]);
    assert!(!facts_db(&repo).exists());
    // Garbage where the database goes: the same answer.
    repo.write(".notarai/.cache/facts.db", "not a database at all");
    let (unreconciled, _) = status(&repo.root, false);
    assert_eq!(unreconciled, vec!["src/a.rs"]);
    // ... and it was started again, with the facts learned.
    let conn = rusqlite::Connection::open(facts_db(&repo)).unwrap();
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM facts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 2, "both sides of src/a.rs");
    drop(conn);
    // Cleared with the hash cache.
    let out = crate::common::notarai(&repo.root, &["cache", "clear"], b"");
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    assert!(!facts_db(&repo).exists());
}

#[test]
fn a_one_shot_check_never_opens_the_watch_and_the_server_does() {
    let repo = repo();
    let out = crate::common::run(
        {
            let mut cmd = crate::common::notarai_cmd(&repo.root, &["check", "--base", "main"]);
            cmd.env("NOTARAI_LOG", "notarai=debug");
            cmd
        },
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        crate::common::stderr(&out)
    );
    let log = crate::common::stderr(&out);
    assert!(
        !log.contains("watch opened"),
        "check watched the work tree:\n{log}"
    );
    if cfg!(target_os = "linux") {
        let mut server = Server::spawn_with(&repo.root, |cmd| {
            cmd.env("NOTARAI_LOG", "notarai=debug");
        });
        server.initialize();
        server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
        let log = server.finish();
        assert!(log.contains("watch opened"), "{log}");
    }
}
