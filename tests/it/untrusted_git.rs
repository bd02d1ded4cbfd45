//! What a cloned repository's git state claims is not what notarai trusts.
//!
//! Every repository here is built with the real `git` program and every
//! answer comes from the real binary: a sparse checkout (files the index
//! marks skip-worktree), a hash cache committed to the branch, a tracked
//! folder replaced by a link to outside the repository, hook events naming
//! a spec in another tree, file names that are not UTF-8 or hold a
//! backslash, and a huge sparse untracked file.

use crate::common;

use std::os::unix::ffi::OsStrExt;

use common::{Repo, Server, notarai_cmd, run, strings};
use serde_json::{Value, json};

fn diff_args() -> Value {
    json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "full_lists": true})
}

/// A file outside the sparse checkout, changed on the branch, is diffed from
/// what the branch committed: never served as deleted, and reconciled as its
/// committed content. An untouched file outside the checkout is no change.
#[test]
fn sparse_checkout_serves_committed_changes_not_deletions() {
    let repo = Repo::with_spec();
    repo.write("docs/b.md", "# B\n");
    repo.commit("b");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "feat"]);
    repo.git(&["checkout", "-q", "feat"]);
    repo.write("docs/a.md", "# A\nchanged on the branch\n");
    repo.commit("change docs");
    // Only src/ and .notarai/ are checked out; docs/ is skip-worktree.
    repo.git(&["sparse-checkout", "set", "src", ".notarai"]);
    assert!(!repo.root.join("docs/a.md").exists());
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "git sees no change"
    );

    let mut server = Server::start(&repo.root);
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(strings(&affected["changed_files"]), ["docs/a.md"]);
    assert_eq!(affected["deleted_specs"], json!([]));
    let diff = server.call_ok(2, "get_spec_diff", diff_args());
    assert_eq!(strings(&diff["files"]), ["docs/a.md"], "{diff}");
    let text = diff["diff"].as_str().unwrap();
    assert!(text.contains("+changed on the branch"), "{text}");
    assert!(!text.contains("deleted file"), "{text}");
    let marked = server.call_ok(3, "mark_reconciled", json!({"files": ["docs/a.md"]}));
    assert_eq!(marked, json!({"updated": 1, "deleted": 0, "left": 0}));
    let again = server.call_ok(4, "get_spec_diff", diff_args());
    assert_eq!(strings(&again["skipped"]), ["docs/a.md"], "{again}");
    assert_eq!(again["files"], json!([]));
    // Checking the file out with the same content keeps it reconciled.
    repo.git(&["sparse-checkout", "disable"]);
    let out = server.call_ok(5, "get_spec_diff", diff_args());
    assert_eq!(strings(&out["skipped"]), ["docs/a.md"], "{out}");
    server.finish();
}

/// The same through `git update-index --skip-worktree` with the file removed.
#[test]
fn skip_worktree_bit_is_not_a_deletion() {
    let repo = Repo::with_spec();
    repo.write("src/b.rs", "fn b() {}\n");
    repo.commit("add b");
    repo.git(&["update-index", "--skip-worktree", "src/b.rs", "src/a.rs"]);
    repo.remove("src/b.rs");
    repo.remove("src/a.rs");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let mut server = Server::start(&repo.root);
    let diff = server.call_ok(1, "get_spec_diff", diff_args());
    // src/b.rs is new on the branch (added, from the index); src/a.rs is
    // unchanged and absent on purpose: no change at all.
    assert_eq!(strings(&diff["files"]), ["src/b.rs"], "{diff}");
    let text = diff["diff"].as_str().unwrap();
    assert!(text.contains("+fn b() {}"), "{text}");
    assert!(!text.contains("deleted file"), "{text}");
    let marked = server.call_ok(2, "mark_reconciled", json!({"files": ["src/b.rs"]}));
    assert_eq!(marked, json!({"updated": 1, "deleted": 0, "left": 0}));
    server.finish();
}

/// A branch that commits its own cache database with its change marked as
/// reviewed: in a fresh clone the cache is ignored and said so, the change
/// is shown, the database change itself is listed, and nothing is written
/// into the tracked file.
#[test]
fn committed_cache_database_is_not_trusted() {
    let origin = Repo::with_spec();
    origin.write("src/a.rs", "fn a() { evil() }\n");
    origin.commit("change a");
    let mut server = Server::start(&origin.root);
    let marked = server.call_ok(1, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    assert_eq!(marked["updated"], 1);
    server.finish();
    origin.git(&["add", "-f", ".notarai/.cache/notarai.db"]);
    origin.git(&["commit", "-q", "-m", "pre-reviewed"]);

    let clone = Repo::new();
    std::fs::remove_dir_all(&clone.root).unwrap();
    common::git(
        clone.root.parent().unwrap(),
        &[
            "clone",
            "-q",
            "-b",
            "feat",
            origin.root.to_str().unwrap(),
            "repo",
        ],
    );
    clone.git(&["branch", "main", "origin/main"]);
    let db_before = std::fs::read(clone.db()).unwrap();

    let mut server = Server::spawn(&clone.root);
    let init = server.initialize();
    let instructions = init["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("git tracks notarai's cache"),
        "{instructions}"
    );
    let diff = server.call_ok(1, "get_spec_diff", diff_args());
    assert_eq!(strings(&diff["files"]), ["src/a.rs"], "{diff}");
    assert_eq!(diff["skipped"], json!([]), "{diff}");
    let artifacts = server.call_ok(
        2,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/a.spec.yaml"}),
    );
    assert!(
        strings(&artifacts["changed_artifacts"]).contains(&"src/a.rs".to_string()),
        "{artifacts}"
    );
    let affected = server.call_ok(3, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(
        strings(&affected["changed_files"]),
        [".notarai/.cache/notarai.db", "src/a.rs"]
    );
    let (code, message) =
        Server::error_of(&server.call(4, "mark_reconciled", json!({"files": ["src/a.rs"]})));
    assert_eq!(code, -32602);
    assert!(message.contains("git rm -r --cached"), "{message}");
    let stderr = server.finish();
    assert!(stderr.contains("git tracks notarai's cache"), "{stderr}");
    assert_eq!(
        std::fs::read(clone.db()).unwrap(),
        db_before,
        "the tracked database is not written"
    );
    // The CI gate says so too, and still counts src/a.rs as unreconciled.
    let out = common::notarai(
        &clone.root,
        &["check", "--base", "main", "--format", "json"],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        common::stdout(&out),
        common::stderr(&out)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let kinds: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"tracked_cache"), "{report}");
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == "unreconciled" && f["file"] == "src/a.rs"),
        "{report}"
    );
}

/// A tracked folder replaced on the branch by a link to outside the
/// repository: its files are deleted as git says, never hashed through the
/// link (whose target here holds the same content, which would hide the
/// deletion behind the cache and tell that the outside file exists).
#[test]
fn a_folder_replaced_by_a_link_to_outside_is_never_followed() {
    let repo = Repo::with_spec();
    let mut server = Server::start(&repo.root);
    server.call_ok(1, "mark_reconciled", json!({"files": ["docs/a.md"]}));
    server.finish();
    common::write(&repo.outside, "a.md", "# A\n");
    repo.git(&["rm", "-q", "-r", "docs"]);
    std::os::unix::fs::symlink(&repo.outside, repo.root.join("docs")).unwrap();
    repo.commit("docs is a link now");
    let before = repo.outside_snapshot();

    let mut server = Server::start(&repo.root);
    let diff = server.call_ok(2, "get_spec_diff", diff_args());
    assert_eq!(diff["skipped"], json!([]), "{diff}");
    assert!(
        strings(&diff["files"]).contains(&"docs/a.md".to_string()),
        "{diff}"
    );
    assert!(diff["diff"].as_str().unwrap().contains("deleted file"));
    let artifacts = server.call_ok(
        3,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/a.spec.yaml"}),
    );
    assert!(
        !strings(&artifacts["changed_artifacts"]).contains(&"docs/a.md".to_string()),
        "{artifacts}"
    );
    server.finish();
    assert_eq!(repo.outside_snapshot(), before);
}

/// With `CLAUDE_PROJECT_DIR` unset, an event naming a broken spec in
/// another tree through `..` is ignored, from the event's `cwd` or the
/// hook's own working folder.
#[test]
fn hook_ignores_a_spec_outside_the_project_without_claude_project_dir() {
    let repo = Repo::with_spec();
    let other = repo.root.parent().unwrap().join("other");
    common::write(
        &other,
        ".notarai/x.spec.yaml",
        "schema_version: '0.7'\nintent: 3: [\n",
    );
    for event in [
        json!({"cwd": repo.root, "tool_name": "Write",
               "tool_input": {"file_path": "../other/.notarai/x.spec.yaml"}}),
        json!({"tool_name": "Write",
               "tool_input": {"file_path": "../other/.notarai/x.spec.yaml"}}),
    ] {
        let out = run(
            notarai_cmd(&repo.root, &["hook", "validate"]),
            event.to_string().as_bytes(),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{event}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A name that is not UTF-8 is reported as unreviewable, not dropped; a
/// name with a backslash is an ordinary file that can be reconciled.
#[test]
fn odd_file_names_are_reported_and_reconcilable() {
    let repo = Repo::with_spec();
    let bad = std::ffi::OsStr::from_bytes(b"src/caf\xe9.rs");
    std::fs::write(repo.root.join(bad), "fn x() {}\n").unwrap();
    repo.write("src/a\\b.rs", "fn y() {}\n");
    repo.commit("odd names");

    let mut server = Server::start(&repo.root);
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(strings(&affected["changed_files"]), ["src/a\\b.rs"]);
    let unreviewable = affected["unreviewable"].as_array().unwrap();
    assert_eq!(unreviewable.len(), 1, "{affected}");
    assert_eq!(unreviewable[0]["path"], "src/caf\u{fffd}.rs");
    assert!(
        unreviewable[0]["reason"]
            .as_str()
            .unwrap()
            .contains("not valid UTF-8")
    );
    let diff = server.call_ok(2, "get_spec_diff", diff_args());
    assert_eq!(strings(&diff["files"]), ["src/a\\b.rs"], "{diff}");
    assert_eq!(diff["unreviewable"][0]["path"], "src/caf\u{fffd}.rs");
    let marked = server.call_ok(3, "mark_reconciled", json!({"files": ["src/a\\b.rs"]}));
    assert_eq!(marked, json!({"updated": 1, "deleted": 0, "left": 0}));
    let again = server.call_ok(4, "get_spec_diff", diff_args());
    assert_eq!(strings(&again["skipped"]), ["src/a\\b.rs"], "{again}");
    assert_eq!(again["files"], json!([]));
    server.finish();
}

/// Untracked sparse files of 4 GiB (which libgit2 sizes as 0 in 32 bits)
/// and 1 GiB are not read past the 8 MiB diff limit by any tool (bytes read
/// counted by the kernel, holes included), and are reconciled all the same.
#[test]
fn a_huge_untracked_file_is_not_read() {
    const HUGE: u64 = 4 << 30;
    const BOUND: u64 = 64 << 20;
    let repo = Repo::with_spec();
    let file = std::fs::File::create(repo.root.join("src/huge.bin")).unwrap();
    file.set_len(HUGE).unwrap();
    let big = std::fs::File::create(repo.root.join("src/big.bin")).unwrap();
    big.set_len(1 << 30).unwrap();
    drop((file, big));
    let mut server = Server::start(&repo.root);
    let start = server.bytes_read();
    let diff = server.call_ok(1, "get_spec_diff", diff_args());
    assert!(
        strings(&diff["files"]).contains(&"src/huge.bin".to_string()),
        "{diff}"
    );
    server.call_ok(2, "list_affected_specs", json!({"base_branch": "main"}));
    server.call_ok(
        3,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/a.spec.yaml"}),
    );
    server.call_ok(
        4,
        "mark_reconciled",
        json!({"files": ["src/big.bin", "src/huge.bin"]}),
    );
    let again = server.call_ok(5, "get_spec_diff", diff_args());
    assert_eq!(
        strings(&again["skipped"]),
        ["src/big.bin", "src/huge.bin"],
        "{again}"
    );
    let read = server.bytes_read() - start;
    eprintln!("huge untracked file: {read} bytes read by five tool calls");
    assert!(read < BOUND, "{read} bytes read");
    server.finish();
}

/// A file not checked out is not paired as the old side of a rename with a
/// new file of the same content: the new file is added, nothing is deleted.
#[test]
fn skip_worktree_file_is_not_the_source_of_a_rename() {
    let repo = Repo::with_spec();
    repo.git(&["update-index", "--skip-worktree", "src/a.rs"]);
    std::fs::rename(repo.root.join("src/a.rs"), repo.root.join("src/moved.rs")).unwrap();
    let mut server = Server::start(&repo.root);
    let diff = server.call_ok(1, "get_spec_diff", diff_args());
    assert_eq!(strings(&diff["files"]), ["src/moved.rs"], "{diff}");
    let text = diff["diff"].as_str().unwrap();
    assert!(text.contains("new file mode"), "{text}");
    assert!(!text.contains("rename from"), "{text}");
    server.finish();
}
