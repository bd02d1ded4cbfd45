//! Repository states a server meets in real life: mid-merge with conflicts,
//! mid-rebase, a shallow clone, a linked worktree, a submodule, a bare
//! repository, no repository, no commit yet. Each gives a correct answer or
//! a clear error naming the situation, and the server keeps serving.

use crate::common;

use common::{Repo, SPEC_A, Server, git, git_status};
use serde_json::{Value, json};

fn affected(server: &mut Server, id: u64) -> Value {
    server.call(id, "list_affected_specs", json!({"base_branch": "main"}))
}

fn diff(server: &mut Server, id: u64) -> Value {
    server.call(
        id,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    )
}

/// The `changed_files` of a tool answer; fails showing the answer when it
/// has none.
fn changed_files(answer: &Value) -> &Vec<Value> {
    answer["result"]["structuredContent"]["changed_files"]
        .as_array()
        .unwrap_or_else(|| panic!("{answer}"))
}

/// `feat` and `main` both edit `src/a.rs`, so merging or rebasing conflicts.
fn diverged() -> Repo {
    let repo = Repo::with_spec();
    repo.write("src/a.rs", "fn a() { feat() }\n");
    repo.write("src/b.rs", "fn b() {}\n");
    repo.commit("feat");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/a.rs", "fn a() { main() }\n");
    repo.commit("main");
    repo.git(&["checkout", "-q", "feat"]);
    repo
}

#[test]
fn mid_merge_with_conflicts() {
    let repo = diverged();
    assert!(
        !git_status(&repo.root, &["merge", "main"]),
        "the merge conflicts"
    );
    assert!(repo.root.join(".git/MERGE_HEAD").exists());
    let mut server = Server::start(&repo.root);
    let answer = affected(&mut server, 1);
    let files = changed_files(&answer);
    assert!(
        files.contains(&json!("src/a.rs")),
        "the conflicted file is a change: {answer}"
    );
    assert!(files.contains(&json!("src/b.rs")), "{answer}");
    let answer = diff(&mut server, 2);
    let result = &answer["result"]["structuredContent"];
    assert!(
        result["files"]
            .as_array()
            .unwrap()
            .contains(&json!("src/a.rs")),
        "{answer}"
    );
    assert!(
        result["diff"].as_str().unwrap().contains("<<<<<<<"),
        "the diff shows the conflict: {answer}"
    );
    server.call_ok(3, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    server.finish();
}

#[test]
fn mid_rebase_with_conflicts() {
    let repo = diverged();
    assert!(
        !git_status(&repo.root, &["rebase", "main"]),
        "the rebase stops"
    );
    assert!(
        repo.root.join(".git/rebase-merge").exists()
            || repo.root.join(".git/rebase-apply").exists()
    );
    let mut server = Server::start(&repo.root);
    // HEAD is detached at main's tip during the rebase: the conflicted file
    // is the change against main.
    let answer = affected(&mut server, 1);
    let files = changed_files(&answer);
    assert!(files.contains(&json!("src/a.rs")), "{answer}");
    let answer = diff(&mut server, 2);
    assert!(answer.get("result").is_some(), "{answer}");
    server.finish();
}

#[test]
fn shallow_clone_names_the_situation() {
    let origin = diverged();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", origin.root.display());
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            "--depth",
            "1",
            "--no-single-branch",
            "-b",
            "feat",
            &url,
            "clone",
        ],
    );
    let clone = dir.path().join("clone").canonicalize().unwrap();
    git(&clone, &["branch", "-q", "main", "origin/main"]);
    let mut server = Server::start(&clone);
    let (code, message) = Server::error_of(&affected(&mut server, 1));
    assert_eq!(code, -32603, "{message}");
    assert!(
        message.contains("shallow") && message.contains("unshallow"),
        "{message}"
    );
    // A base inside the shallow history still works.
    let answer = server.call(2, "list_affected_specs", json!({"base_branch": "HEAD"}));
    assert_eq!(
        answer["result"]["structuredContent"]["changed_files"],
        json!([]),
        "{answer}"
    );
    server.finish();
}

#[test]
fn linked_worktree_is_a_checkout_of_its_own() {
    let repo = Repo::with_spec();
    repo.write("src/a.rs", "fn a() { in_main_checkout() }\n");
    let dir = tempfile::tempdir().unwrap();
    let wt = dir.path().canonicalize().unwrap().join("wt");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "other",
        wt.to_str().unwrap(),
        "main",
    ]);
    std::fs::write(wt.join("docs/a.md"), "# A, edited in the worktree\n").unwrap();
    let mut server = Server::start(&wt);
    let answer = affected(&mut server, 1);
    assert_eq!(
        answer["result"]["structuredContent"]["changed_files"],
        json!(["docs/a.md"]),
        "{answer}"
    );
    server.call_ok(2, "mark_reconciled", json!({"files": ["docs/a.md"]}));
    assert!(
        wt.join(".notarai/.cache/notarai.db").exists(),
        "the worktree has its own cache"
    );
    assert!(!repo.db().exists());
    server.finish();
}

#[test]
fn submodule_is_one_changed_path() {
    let sub = Repo::new();
    sub.write("lib.rs", "pub fn lib() {}\n");
    sub.commit("sub");
    let repo = Repo::with_spec();
    let url = format!("file://{}", sub.root.display());
    repo.git(&["submodule", "add", "-q", &url, "src/vendor"]);
    repo.commit("add submodule");
    std::fs::write(repo.root.join("src/vendor/lib.rs"), "pub fn changed() {}\n").unwrap();
    let mut server = Server::start(&repo.root);
    let answer = affected(&mut server, 1);
    assert!(
        changed_files(&answer).contains(&json!("src/vendor")),
        "{answer}"
    );
    let answer = diff(&mut server, 2);
    assert!(answer.get("result").is_some(), "{answer}");
    server.call_ok(
        3,
        "mark_reconciled",
        json!({"files": ["src/vendor", ".gitmodules"]}),
    );
    server.finish();
}

#[test]
fn bare_repository_names_the_situation() {
    let dir = tempfile::tempdir().unwrap();
    let bare = dir.path().canonicalize().unwrap().join("bare.git");
    git(
        dir.path(),
        &["init", "-q", "--bare", bare.to_str().unwrap()],
    );
    let mut server = Server::start(&bare);
    let (code, message) = Server::error_of(&affected(&mut server, 1));
    assert_eq!(code, -32603);
    assert!(message.contains("bare"), "{message}");
    server.finish();
}

#[test]
fn no_repository_names_the_situation() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join(".notarai")).unwrap();
    std::fs::write(root.join(".notarai/a.spec.yaml"), SPEC_A).unwrap();
    let mut server = Server::start(&root);
    for (id, answer) in [(1, affected(&mut server, 1)), (2, diff(&mut server, 2))] {
        let (code, message) = Server::error_of(&answer);
        assert_eq!(code, -32603, "{id}");
        assert!(
            message.contains("not in a git repository") && message.contains("git init"),
            "{message}"
        );
    }
    // The cache works without git.
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.rs"), "x").unwrap();
    server.call_ok(3, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    // `git init` after the start is noticed.
    git(&root, &["init", "-q", "-b", "main"]);
    let answer = affected(&mut server, 4);
    assert!(
        changed_files(&answer).contains(&json!("src/a.rs")),
        "{answer}"
    );
    server.finish();
}

#[test]
fn no_commit_yet_everything_is_new() {
    let repo = Repo::new();
    repo.write(".notarai/a.spec.yaml", SPEC_A);
    repo.write("src/a.rs", "fn a() {}\n");
    let mut server = Server::start(&repo.root);
    let answer = affected(&mut server, 1);
    assert_eq!(
        answer["result"]["structuredContent"]["changed_files"],
        json!([".notarai/a.spec.yaml", "src/a.rs"]),
        "{answer}"
    );
    let (code, message) =
        Server::error_of(&server.call(2, "list_affected_specs", json!({"base_branch": "develop"})));
    assert_eq!(code, -32602);
    assert!(message.contains("develop"), "{message}");
    server.finish();
}
