//! The committed state through MCP, over the real binary and real git:
//! `get_reconciliation_status` and `snapshot_state`, the unreconciled counts
//! of `list_affected_specs`, an omitted `base_branch` and the base every
//! answer reports, and a malformed state file in `instructions`.

use serde_json::{Value, json};

use crate::common::{Repo, Server, strings};

const STATE: &str = ".notarai/reconciliation_state.json";
const SPEC: &str = ".notarai/a.spec.yaml";

/// The affected spec `path` of a `list_affected_specs` answer.
fn affected<'a>(listed: &'a Value, path: &str) -> &'a Value {
    listed["affected_specs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["spec_path"] == path)
        .unwrap_or_else(|| panic!("{path} not affected: {listed}"))
}

#[test]
fn a_fresh_clone_sees_the_state_snapshotted_over_mcp() {
    let repo = Repo::with_spec();
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.append("src/a.rs", "fn more() {}\n");
    repo.append("docs/a.md", "More.\n");
    let mut server = repo.server();
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    assert_eq!(status["base"]["name"], "main", "{status}");
    assert_eq!(status["base"]["source"], "default_branch");
    assert_eq!(status["totals"]["unreconciled"], 2, "{status}");
    assert_eq!(
        strings(&status["specs"][0]["unreconciled"]),
        ["docs/a.md", "src/a.rs"]
    );
    assert_eq!(status["specs"][0]["all_reconciled"], false);

    server.call_ok(
        2,
        "mark_reconciled",
        json!({"files": ["src/a.rs", "docs/a.md"]}),
    );
    let written = server.call_ok(3, "snapshot_state", json!({}));
    assert_eq!(written["path"], STATE, "{written}");
    assert_eq!(written["added"], 2, "{written}");
    assert_eq!(written["branch"], "feat");
    server.finish();
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.root.join(STATE)).unwrap()).unwrap();
    let hash = blake3::hash(&std::fs::read(repo.root.join("src/a.rs")).unwrap());
    assert_eq!(
        state["file_fingerprints"]["src/a.rs"]["blake3"],
        hash.to_hex().as_str()
    );
    repo.commit("reconciled");

    let (_dir, clone) = crate::common::clone_of(&repo.root);
    assert!(!clone.join(".notarai/.cache").exists());
    let mut server = Server::start(&clone);
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    assert_eq!(status["base"]["name"], "origin/main", "{status}");
    assert_eq!(status["totals"]["unreconciled"], 0, "{status}");
    assert_eq!(status["totals"]["reconciled"], 2, "{status}");
    // Nothing left: the spec is only counted.
    assert_eq!(status["specs"], json!([]), "{status}");
    assert_eq!(status["totals"]["reconciled_specs"], 1, "{status}");
    let listed = server.call_ok(2, "list_affected_specs", json!({}));
    assert_eq!(affected(&listed, SPEC)["unreconciled_count"], 0, "{listed}");
    assert_eq!(affected(&listed, SPEC)["all_reconciled"], true);
    // What changed since is all that is left.
    std::fs::write(clone.join("src/a.rs"), "fn changed() {}\n").unwrap();
    let status = server.call_ok(3, "get_reconciliation_status", json!({}));
    assert_eq!(strings(&status["specs"][0]["unreconciled"]), ["src/a.rs"]);
    let diff = server.call_ok(
        4,
        "get_spec_diff",
        json!({"spec_path": SPEC, "full_lists": true}),
    );
    assert_eq!(strings(&diff["files"]), ["src/a.rs"], "{diff}");
    assert_eq!(strings(&diff["skipped"]), ["docs/a.md"], "{diff}");
    assert_eq!(diff["base"]["source"], "default_branch");
    // A base the agent named is not echoed back: the status gives it.
    let named = server.call_ok(
        5,
        "get_spec_diff",
        json!({"spec_path": SPEC, "base_branch": "origin/main"}),
    );
    assert_eq!(strings(&named["files"]), ["src/a.rs"], "{named}");
    assert!(named.get("base").is_none(), "{named}");
    server.finish();
}

#[test]
fn unreconciled_counts_drop_after_mark_reconciled() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn more() {}\n");
    repo.append("docs/a.md", "More.\n");
    repo.write("src/b.rs", "fn b() {}\n");
    let mut server = repo.server();
    let count = |server: &mut Server, id: i64| {
        let listed = server.call_ok(id, "list_affected_specs", json!({"base_branch": "main"}));
        assert_eq!(listed["base"]["source"], "explicit", "{listed}");
        let spec = affected(&listed, SPEC);
        assert_eq!(spec["matched_count"], 3, "{listed}");
        (
            spec["unreconciled_count"].as_u64().unwrap(),
            spec["all_reconciled"].as_bool().unwrap(),
        )
    };
    assert_eq!(count(&mut server, 1), (3, false));
    server.call_ok(2, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    assert_eq!(count(&mut server, 3), (2, false));
    server.call_ok(
        4,
        "mark_reconciled",
        json!({"files": ["docs/a.md", "src/b.rs"], "snapshot": true}),
    );
    assert_eq!(count(&mut server, 5), (0, true));
    let status = server.call_ok(
        6,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    assert_eq!(status["totals"]["reconciled"], 3, "{status}");
    assert_eq!(status["totals"]["reconciled_specs"], 1, "{status}");
    assert_eq!(status["specs"], json!([]), "{status}");
    // An edit after the pass counts again.
    repo.append("src/b.rs", "fn c() {}\n");
    assert_eq!(count(&mut server, 7), (1, false));
    server.finish();
    // The snapshot of `mark_reconciled` holds all three, and counts without the cache.
    std::fs::remove_dir_all(repo.root.join(".notarai/.cache")).unwrap();
    let mut server = repo.server();
    let listed = server.call_ok(1, "list_affected_specs", json!({}));
    assert_eq!(affected(&listed, SPEC)["unreconciled_count"], 1, "{listed}");
    server.finish();
}

#[test]
fn the_status_is_paged_under_a_small_budget() {
    let repo = Repo::with_spec();
    for i in 0..200 {
        repo.write(
            &format!("src/a_rather_long_module_name_for_paging_{i:04}.rs"),
            "fn x() {}\n",
        );
    }
    let mut server = repo.server();
    let whole = server.call_ok(1, "get_reconciliation_status", json!({}));
    assert_eq!(whole["pages"], 1);
    let all = strings(&whole["specs"][0]["unreconciled"]);
    assert_eq!(all.len(), 200);

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut args = json!({"max_tokens": 1000});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = server.call_ok(10 + pages, "get_reconciliation_status", args);
        pages += 1;
        assert!(
            page.to_string().len() <= 3000,
            "page {pages} is {} bytes",
            page.to_string().len()
        );
        assert_eq!(page["totals"], whole["totals"], "totals on every page");
        assert_eq!(page["base"], whole["base"], "base on every page");
        for spec in page["specs"].as_array().unwrap() {
            assert_eq!(spec["unreconciled_count"], 200);
            seen.extend(strings(&spec["unreconciled"]));
            if pages > 1 {
                assert_eq!(spec["continued"], true, "{spec}");
            }
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => {
                assert_eq!(page["page"], page["pages"]);
                break;
            }
        }
    }
    assert!(pages > 2, "{pages} pages");
    assert_eq!(seen, all, "the pages joined hold the whole list once");
    // A cursor of another tool is refused.
    let listed = server.call_ok(
        100,
        "list_affected_specs",
        json!({"base_branch": "main", "max_tokens": 1000}),
    );
    let foreign = listed["next_cursor"].as_str().unwrap();
    let answer = server.call(
        101,
        "get_reconciliation_status",
        json!({"max_tokens": 1000, "cursor": foreign}),
    );
    assert_eq!(Server::error_of(&answer).0, -32602, "{answer}");
    server.finish();
}

#[test]
fn an_omitted_base_is_the_last_reconciliation_on_the_default_branch() {
    let repo = Repo::with_spec();
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.append("src/a.rs", "fn more() {}\n");
    repo.commit("work");
    let reconciled_at = repo.git(&["rev-parse", "HEAD"]).trim().to_string();
    let mut server = repo.server();
    server.call_ok(1, "mark_reconciled", json!({"files": ["src/a.rs"]}));
    server.call_ok(2, "snapshot_state", json!({}));
    server.finish();
    repo.commit("reconciled");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "-m", "merge feat", "feat"]);
    repo.append("docs/a.md", "After the merge.\n");

    let mut server = repo.server();
    let listed = server.call_ok(1, "list_affected_specs", json!({}));
    assert_eq!(
        listed["base"],
        json!({"name": reconciled_at, "source": "last_reconciliation",
               "merge_base": reconciled_at}),
        "{listed}"
    );
    assert_eq!(
        strings(&listed["changed_files"]),
        [STATE, "docs/a.md"],
        "only what changed since the last reconciliation"
    );
    let diff = server.call_ok(2, "get_spec_diff", json!({"spec_path": SPEC}));
    assert_eq!(diff["base"]["source"], "last_reconciliation");
    assert_eq!(strings(&diff["files"]), ["docs/a.md"], "{diff}");
    let status = server.call_ok(3, "get_reconciliation_status", json!({}));
    assert_eq!(status["base"]["source"], "last_reconciliation");
    assert_eq!(strings(&status["specs"][0]["unreconciled"]), ["docs/a.md"]);
    // An explicit base behaves as before.
    let listed = server.call_ok(4, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(listed["base"]["source"], "explicit");
    assert_eq!(listed["base"]["name"], "main");
    assert_eq!(strings(&listed["changed_files"]), ["docs/a.md"]);
    server.finish();
}

#[test]
fn a_malformed_state_file_is_named_in_instructions_and_status() {
    let repo = Repo::with_spec();
    repo.write(STATE, "{\n  \"schema_version\": \n");
    repo.append("src/a.rs", "fn more() {}\n");
    let mut server = Server::spawn(&repo.root);
    let info = server.initialize();
    let instructions = info["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("reconciliation state is ignored until fixed")
            && instructions.contains(STATE),
        "{instructions}"
    );
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    let problem = status["state_problem"].as_str().unwrap();
    assert!(problem.contains(STATE), "{problem}");
    assert_eq!(strings(&status["specs"][0]["unreconciled"]), ["src/a.rs"]);
    let refused = server.call(2, "snapshot_state", json!({}));
    let (code, message) = Server::error_of(&refused);
    assert_eq!(code, -32602);
    assert!(message.contains("force: true"), "{message}");
    server.call_ok(3, "snapshot_state", json!({"force": true}));
    server.finish();
}

/// `notarai init` registers the driver that `git merge` then runs (found on
/// `PATH`, as a user's install is): two branches that each snapshotted over
/// MCP merge with both entries and no conflict.
#[test]
fn init_registers_the_driver_a_real_merge_uses() {
    let repo = Repo::new();
    repo.write(SPEC, crate::common::SPEC_A);
    repo.write("src/a.rs", "a\n");
    repo.write("src/b.rs", "b\n");
    let out = crate::common::notarai(&repo.root, &["init"], b"");
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    assert!(
        crate::common::stdout(&out).contains("created  merge.notarai.driver (local git config)"),
        "{}",
        crate::common::stdout(&out)
    );
    repo.commit("init");
    let snapshot = |file: &str| {
        repo.append(file, "more\n");
        let mut server = repo.server();
        server.call_ok(1, "mark_reconciled", json!({"files": [file]}));
        server.call_ok(2, "snapshot_state", json!({}));
        server.finish();
        repo.commit(&format!("reconciled {file}"));
    };
    repo.git(&["checkout", "-q", "-b", "x"]);
    snapshot("src/a.rs");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["checkout", "-q", "-b", "y"]);
    snapshot("src/b.rs");

    let bin_dir = std::path::Path::new(crate::common::BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let merged = crate::common::git_cmd(&repo.root)
        .args(["merge", "-q", "--no-edit", "x"])
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.root.join(STATE)).unwrap()).unwrap();
    for file in ["src/a.rs", "src/b.rs"] {
        let hash = blake3::hash(&std::fs::read(repo.root.join(file)).unwrap());
        assert_eq!(
            state["file_fingerprints"][file]["blake3"],
            hash.to_hex().as_str(),
            "{state}"
        );
    }
}
