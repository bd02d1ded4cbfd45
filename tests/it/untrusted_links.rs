//! A cloned repository is untrusted, round 2: a committed symbolic link at
//! any file notarai reads or writes is never written or deleted through,
//! even when it stays inside the repository (its `.git/` is inside too), and
//! a repository file swapped for a FIFO hangs nothing.
//!
//! Each test commits the links a hostile repository would, runs every
//! command that touches the linked file, and checks that git's own files are
//! byte for byte what they were and that git still works.

use std::path::Path;

use serde_json::json;

use crate::common::{Repo, Server, git_status, notarai, stderr, stdout};

/// `.git/HEAD` and `.git/config`, read now.
fn git_files(repo: &Repo) -> (Vec<u8>, Vec<u8>) {
    (
        std::fs::read(repo.root.join(".git/HEAD")).unwrap(),
        std::fs::read(repo.root.join(".git/config")).unwrap(),
    )
}

/// Git still works: HEAD resolves, the branch is there, the status reads.
fn assert_git_works(repo: &Repo) {
    assert!(git_status(&repo.root, &["rev-parse", "--verify", "HEAD"]));
    assert!(git_status(&repo.root, &["status", "--porcelain"]));
    let branches = repo.git(&["branch", "--list"]);
    assert!(branches.contains("main"), "{branches}");
}

fn link(repo: &Repo, target: &str, at: &str) {
    let path = repo.root.join(at);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, path).unwrap();
}

#[test]
fn committed_links_into_git_at_notarais_own_files_are_never_written_through() {
    let repo = Repo::with_spec();
    // The files notarai keeps, each a committed link into `.git/`.
    link(&repo, "../../.git/HEAD", ".notarai/.cache/load-status.json");
    link(&repo, "../../.git/config", ".notarai/.cache/notarai.db");
    link(
        &repo,
        "../.git/config",
        ".notarai/reconciliation_state.json",
    );
    repo.commit("links");
    repo.write("src/a.rs", "fn a() { changed() }\n");
    let before = git_files(&repo);
    let outside = repo.outside_snapshot();

    // Every server start, with the calls that write the stamp, the cache
    // and the state.
    let mut server = repo.server();
    server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    let marked = server.call(
        2,
        "mark_reconciled",
        json!({"files": ["src/a.rs"], "snapshot": true}),
    );
    let forced = server.call(3, "snapshot_state", json!({"force": true}));
    drop(server);
    assert!(
        marked.to_string().contains("tracks") || marked.to_string().contains("link"),
        "{marked}"
    );
    assert!(forced.to_string().contains("link"), "{forced}");
    for args in [
        &["doctor"][..],
        &["export-context", "--base", "main"],
        &["state", "snapshot", "--force"],
        &["check", "--base", "main"],
        &["cache", "status"],
    ] {
        let out = notarai(&repo.root, args, b"");
        crate::common::assert_no_panic(&stderr(&out));
    }
    assert_eq!(git_files(&repo), before, "a file under .git/ changed");
    assert_eq!(repo.outside_snapshot(), outside);
    assert_git_works(&repo);
    // The links are still links.
    for rel in [
        ".notarai/.cache/load-status.json",
        ".notarai/.cache/notarai.db",
        ".notarai/reconciliation_state.json",
    ] {
        let meta = std::fs::symlink_metadata(repo.root.join(rel)).unwrap();
        assert!(meta.file_type().is_symlink(), "{rel}");
    }
}

#[test]
fn a_state_file_linked_to_a_project_file_is_not_rewritten() {
    let repo = Repo::with_spec();
    repo.write("package.json", "{\"name\": \"victim\"}\n");
    link(
        &repo,
        "../package.json",
        ".notarai/reconciliation_state.json",
    );
    repo.write("src/a.rs", "fn a() { changed() }\n");
    let out = notarai(&repo.root, &["state", "snapshot", "--force"], b"");
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(stderr(&out).contains("link"), "{}", stderr(&out));
    let mut server = repo.server();
    let marked = server.call(
        1,
        "mark_reconciled",
        json!({"files": ["src/a.rs"], "snapshot": true}),
    );
    drop(server);
    assert!(marked.to_string().contains("link"), "{marked}");
    assert_eq!(
        std::fs::read_to_string(repo.root.join("package.json")).unwrap(),
        "{\"name\": \"victim\"}\n"
    );
}

#[test]
fn init_never_appends_through_links_into_git() {
    let repo = Repo::new();
    repo.write("README.md", "# P\n");
    repo.commit("init");
    // Every file `init` edits or creates, linked into `.git/`.
    link(&repo, ".git/HEAD", ".gitignore");
    link(&repo, ".git/config", ".gitattributes");
    link(&repo, ".git/config", "CLAUDE.md");
    link(&repo, ".git/HEAD", "AGENTS.md");
    link(&repo, "../.git/config", ".claude/settings.json");
    link(&repo, "../.git/config", ".cursor/hooks.json");
    let before = git_files(&repo);
    let out = notarai(
        &repo.root,
        &["init", "--agents", "claude,codex,cursor"],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(err.contains("never writes through a link"), "{err}");
    let out = notarai(&repo.root, &["init", "--remove"], b"");
    crate::common::assert_no_panic(&stderr(&out));
    // `init` registers its merge driver in `.git/config` through git; the
    // rest of the file and HEAD are what they were.
    let (head, config) = git_files(&repo);
    assert_eq!(head, before.0, ".git/HEAD changed");
    let config = String::from_utf8(config).unwrap();
    assert!(
        config.starts_with(std::str::from_utf8(&before.1).unwrap().trim_end()),
        "{config}"
    );
    assert!(!config.contains("NotarAI"), "{config}");
    assert_git_works(&repo);
}

#[test]
fn a_linked_folder_into_git_is_refused_for_writes() {
    let repo = Repo::with_spec();
    // `.notarai/.cache` itself linked into `.git/`, and an in-repo link to
    // `.git/` for export-context's output.
    link(&repo, "../.git", ".notarai/.cache");
    link(&repo, ".git", "gitlink");
    let before = git_files(&repo);
    let listing_before = std::fs::read_dir(repo.root.join(".git")).unwrap().count();
    let out = notarai(
        &repo.root,
        &[
            "export-context",
            "--base",
            "main",
            "--output",
            "gitlink/HEAD",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stderr(&out).contains("git directory"), "{}", stderr(&out));
    let out = notarai(
        &repo.root,
        &[
            "export-context",
            "--base",
            "main",
            "--output",
            "gitlink/new.md",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let mut server = repo.server();
    server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    let _ = server.call(2, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    drop(server);
    assert_eq!(git_files(&repo), before);
    assert_eq!(
        std::fs::read_dir(repo.root.join(".git")).unwrap().count(),
        listing_before,
        "a file was created in .git/"
    );
    assert!(!repo.root.join(".git/notarai.db").exists());
    assert!(!repo.root.join(".git/load-status.json").exists());
    assert_git_works(&repo);
}

#[test]
fn state_reset_through_a_linked_notarai_deletes_nothing_outside() {
    let repo = Repo::new();
    repo.commit("init");
    std::fs::create_dir_all(repo.outside.join("specs")).unwrap();
    std::fs::write(
        repo.outside.join("specs/reconciliation_state.json"),
        "{\"keep\": true}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(repo.outside.join("specs"), repo.root.join(".notarai")).unwrap();
    let before = repo.outside_snapshot();
    let out = notarai(&repo.root, &["state", "reset"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("outside"), "{}", stderr(&out));
    assert_eq!(repo.outside_snapshot(), before);
    // Nor through a linked `.notarai` leading into `.git/`.
    std::fs::remove_file(repo.root.join(".notarai")).unwrap();
    std::fs::write(repo.root.join(".git/reconciliation_state.json"), "x").unwrap();
    std::os::unix::fs::symlink(".git", repo.root.join(".notarai")).unwrap();
    let out = notarai(&repo.root, &["state", "reset"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(repo.root.join(".git/reconciliation_state.json").exists());
    assert_git_works(&repo);
}

#[test]
fn a_changed_spec_replaced_by_a_fifo_hangs_neither_the_diff_nor_later_calls() {
    let repo = Repo::new();
    repo.write(
        ".notarai/all.spec.yaml",
        "schema_version: '0.7'\nintent: All specs.\ntier: registered\nartifacts:\n  specs:\n    - path: '.notarai/**'\n",
    );
    repo.write(".notarai/b.spec.yaml", crate::common::SPEC_A);
    repo.commit("b");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write(
        ".notarai/b.spec.yaml",
        format!("{}# changed\n", crate::common::SPEC_A),
    );
    repo.commit("b changed");
    let fifo = repo.root.join(".notarai/b.spec.yaml");
    std::fs::remove_file(&fifo).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let mut server = Server::start(&repo.root);
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/all.spec.yaml", "base_branch": "main"}),
    );
    let text = diff.to_string();
    assert!(text.contains("b.spec.yaml"), "{text}");
    assert!(text.contains("FIFO"), "{text}");
    // The next call is answered too.
    server.call_ok(2, "list_affected_specs", json!({"base_branch": "main"}));
    drop(server);
    assert!(Path::new(&fifo).exists());
}
