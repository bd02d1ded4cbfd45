//! Nothing outside the project is read, written or deleted through a symbolic
//! link: links that a repository can carry (committed or not) in the places
//! notarai reads and writes.

use crate::common;

use common::{Repo, Server, notarai, strings};
use serde_json::json;

#[test]
fn a_linked_spec_file_is_shown_as_its_link_text_not_the_outside_file() {
    let repo = Repo::with_spec();
    // A spec that governs every spec file, so the linked one is governed.
    repo.write(
        ".notarai/all.spec.yaml",
        "schema_version: '0.7'\nintent: All specs.\ntier: registered\nartifacts:\n  specs:\n    - path: '.notarai/**'\n",
    );
    repo.commit("all");
    std::os::unix::fs::symlink(
        repo.outside.join("secret.txt"),
        repo.root.join(".notarai/evil.spec.yaml"),
    )
    .unwrap();
    let mut server = Server::start(&repo.root);
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/all.spec.yaml", "base_branch": "main"}),
    );
    let text = diff.to_string();
    assert!(
        !text.contains("outside the root"),
        "the outside file's content leaked: {text}"
    );
    let evil = diff["spec_changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["path"] == ".notarai/evil.spec.yaml")
        .unwrap();
    assert!(
        evil["content"].as_str().unwrap().ends_with("secret.txt"),
        "{evil}"
    );
    server.finish();
}

#[test]
fn a_linked_cache_folder_is_refused_and_nothing_outside_changes() {
    let repo = Repo::with_spec();
    let before = repo.outside_snapshot();
    std::os::unix::fs::symlink(&repo.outside, repo.root.join(".notarai/.cache")).unwrap();
    repo.append("src/a.rs", "const _: u8 = 1; // more\n");
    let mut server = Server::start(&repo.root);
    // Reads are a cold cache; writes and clearing are refused with the reason.
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(strings(&diff["files"]), ["src/a.rs"]);
    for (id, tool, args) in [
        (2, "mark_reconciled", json!({"files": ["src/a.rs"]})),
        (3, "clear_cache", json!({})),
    ] {
        let answer = server.call(id, tool, args);
        let (code, message) = Server::error_of(&answer);
        assert_eq!(code, -32603, "{tool}");
        assert!(message.contains("symbolic link"), "{tool}: {message}");
    }
    server.finish();
    let out = notarai(&repo.root, &["cache", "update", "src/a.rs"], b"");
    assert!(!out.status.success());
    let out = notarai(&repo.root, &["cache", "clear"], b"");
    assert!(!out.status.success());
    assert_eq!(
        repo.outside_snapshot(),
        before,
        "nothing outside the root was written or deleted"
    );
}

#[test]
fn a_linked_spec_folder_outside_loads_no_specs() {
    let repo = Repo::new();
    repo.write("src/a.rs", "fn a() {}\n");
    repo.commit("base");
    std::fs::create_dir_all(repo.outside.join("specs")).unwrap();
    std::fs::write(
        repo.outside.join("specs/x.spec.yaml"),
        "schema_version: '0.7'\nintent: Outside.\ntier: registered\nartifacts:\n  code:\n    - path: 'src/**'\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(repo.outside.join("specs"), repo.root.join(".notarai")).unwrap();
    repo.append("src/a.rs", "const _: u8 = 2; // more\n");
    let mut server = Server::start(&repo.root);
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(affected["affected_specs"], json!([]));
    server.finish();
}

#[test]
fn init_refuses_links_to_outside_and_writes_nothing() {
    let repo = Repo::new();
    std::fs::write(repo.outside.join("claude.md"), "outside\n").unwrap();
    std::os::unix::fs::symlink(repo.outside.join("claude.md"), repo.root.join("CLAUDE.md"))
        .unwrap();
    let before = repo.outside_snapshot();
    let out = notarai(&repo.root, &["init"], b"");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("CLAUDE.md") && stderr.contains("outside"),
        "{stderr}"
    );
    assert_eq!(repo.outside_snapshot(), before);
    assert!(
        !repo.root.join(".mcp.json").exists(),
        "nothing of Claude Code's was written"
    );
}

#[test]
fn a_listed_link_to_outside_can_be_marked_reconciled_without_being_followed() {
    let repo = Repo::with_spec();
    std::os::unix::fs::symlink(repo.outside.join("secret.txt"), repo.root.join("src/host"))
        .unwrap();
    repo.append("src/a.rs", "const _: u8 = 3; // more\n");
    let mut server = Server::start(&repo.root);
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(strings(&diff["files"]), ["src/a.rs", "src/host"]);
    assert!(!diff["diff"].as_str().unwrap().contains("outside the root"));
    let marked = server.call_ok(2, "mark_reconciled", json!({"files": diff["files"]}));
    assert_eq!(marked["updated"], 2);
    let again = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "full_lists": true}),
    );
    assert_eq!(strings(&again["skipped"]), ["src/a.rs", "src/host"]);
    // A folder link to outside is still refused.
    std::os::unix::fs::symlink(&repo.outside, repo.root.join("out")).unwrap();
    let (code, _) =
        Server::error_of(&server.call(4, "mark_reconciled", json!({"files": ["out/secret.txt"]})));
    assert_eq!(code, -32602);
    server.finish();
}

#[test]
fn cache_update_of_a_link_keeps_its_target_entry() {
    let repo = Repo::with_spec();
    std::os::unix::fs::symlink("a.rs", repo.root.join("src/link")).unwrap();
    assert!(
        notarai(&repo.root, &["cache", "update", "src/a.rs"], b"")
            .status
            .success()
    );
    assert!(
        notarai(&repo.root, &["cache", "update", "src/link"], b"")
            .status
            .success()
    );
    let out = notarai(
        &repo.root,
        &["cache", "changed", "src/a.rs", "src/link"],
        b"",
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "",
        "a link and its target are two entries"
    );
}
