//! The daily loop: a pass reads only what is new ("since reconciled"),
//! says nothing twice (a spec with nothing to review is one line, a file
//! two specs govern is diffed once), housekeeping files (a spec's or an
//! artifact's tier) are listed but never a review flag, and following the
//! reconcile skill to the letter ends with `notarai check` green.

use serde_json::{Value, json};

use crate::common::{Repo, Server, notarai, stdout, strings};

/// A spec of code with a lock file (`tier: 4`) and a changelog (`tier: 3`)
/// among its artifacts.
const CODE_SPEC: &str = "schema_version: '0.8'\nintent: The code\nbehaviors:\n  - name: b\n    given: g\n    then: t\nartifacts:\n  code:\n    - path: 'src/**'\n    - path: Cargo.lock\n      tier: 4\n  docs:\n    - path: CHANGELOG.md\n      tier: 3\n";

/// A second spec governing `src/shared.rs` too.
const SHARED_SPEC: &str = "schema_version: '0.8'\nintent: The shared part\nbehaviors:\n  - name: s\n    given: g\n    then: t\nartifacts:\n  code:\n    - path: src/shared.rs\n";

/// A registered spec (intent and mapping only) governing the README.
const README_SPEC: &str = "schema_version: '0.8'\nintent: The README\ntier: registered\nartifacts:\n  docs:\n    - path: README.md\n";

/// Twenty numbered lines.
fn lines() -> String {
    (1..=20).map(|i| format!("line {i}\n")).collect()
}

/// A repository on branch `feat` with the three specs committed on `main`.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.write(".notarai/code.spec.yaml", CODE_SPEC);
    repo.write(".notarai/shared.spec.yaml", SHARED_SPEC);
    repo.write(".notarai/readme.spec.yaml", README_SPEC);
    repo.write("src/a.txt", lines());
    repo.write("src/shared.rs", "fn shared() {}\n");
    repo.write("Cargo.lock", "version = 1\n");
    repo.write("CHANGELOG.md", "# Changes\n");
    repo.write("README.md", "# Readme\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

/// Every page of `tool` with `args`, following `next_cursor`: the pages.
fn all_pages(server: &mut Server, id: &mut i64, tool: &str, args: Value) -> Vec<Value> {
    let mut pages = Vec::new();
    let mut args = args;
    loop {
        *id += 1;
        let page = server.call_ok(*id, tool, args.clone());
        let next = page.get("next_cursor").cloned();
        pages.push(page);
        match next {
            Some(cursor) => args["cursor"] = cursor,
            None => return pages,
        }
    }
}

/// The strings of `value[key]` over every page.
fn collect(pages: &[Value], key: &str) -> Vec<String> {
    let mut out: Vec<String> = pages
        .iter()
        .flat_map(|p| p[key].as_array().cloned().unwrap_or_default())
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn a_file_changed_again_shows_only_what_is_new_since_it_was_reconciled() {
    let repo = repo();
    let mut text = lines().replace("line 2\n", "line two\n");
    repo.write("src/a.txt", &text);
    let mut server = repo.server();
    server.call_ok(
        1,
        "mark_reconciled",
        json!({"files": ["src/a.txt"], "spec_path": ".notarai/code.spec.yaml"}),
    );
    text = text.replace("line 18\n", "line eighteen\n");
    repo.write("src/a.txt", &text);
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/code.spec.yaml"}),
    );
    assert_eq!(diff["since_reconciled"], json!(["src/a.txt"]), "{diff}");
    let body = diff["diff"].as_str().unwrap();
    assert!(body.contains("+line eighteen"), "{body}");
    assert!(!body.contains("+line two"), "only what is new: {body}");
    assert!(
        body.starts_with("diff --git a/src/a.txt b/src/a.txt"),
        "{body}"
    );
    // The whole branch diff is one parameter away.
    let whole = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/code.spec.yaml", "since": "base"}),
    );
    let body = whole["diff"].as_str().unwrap();
    assert!(body.contains("+line two") && body.contains("+line eighteen"));
    assert!(whole.get("since_reconciled").is_none(), "{whole}");
    // Another spec governing nothing of it is unaffected; export-context agrees.
    server.finish();
    let out = notarai(
        &repo.root,
        &["export-context", "--base", "main", "--format", "json"],
        b"",
    );
    let export: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let text = export.to_string();
    assert!(text.contains("line eighteen") && !text.contains("+line two"));
}

#[test]
fn a_file_back_to_its_base_tokens_is_formatting_only_in_the_status_and_the_diff() {
    let repo = repo();
    let base = "fn shared() {}\n";
    repo.write("src/shared.rs", "fn shared() { more() }\n");
    let mut server = repo.server();
    server.call_ok(
        1,
        "mark_reconciled",
        json!({"files": ["src/shared.rs"], "spec_path": ".notarai/shared.spec.yaml"}),
    );
    // Back to the base's code, formatted differently: nothing to review
    // against the base, though it differs from what was reconciled.
    assert_ne!(base, "fn shared() {\n}\n");
    repo.write("src/shared.rs", "fn shared() {\n}\n");
    let status = server.call_ok(2, "get_reconciliation_status", json!({}));
    assert_eq!(
        status["formatting_only"],
        json!(["src/shared.rs"]),
        "{status}"
    );
    let diff = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/shared.spec.yaml"}),
    );
    assert_eq!(diff["formatting_only"], json!(["src/shared.rs"]), "{diff}");
    assert!(diff.get("since_reconciled").is_none(), "{diff}");
    assert_eq!(diff["diff"], json!(""), "{diff}");
    // Asked for formatting, it is shown, from the content reconciled.
    let shown = server.call_ok(
        4,
        "get_spec_diff",
        json!({"spec_path": ".notarai/shared.spec.yaml", "include_formatting": true}),
    );
    assert_eq!(
        shown["since_reconciled"],
        json!(["src/shared.rs"]),
        "{shown}"
    );
    server.finish();
}

#[test]
fn housekeeping_files_are_listed_never_a_review_flag() {
    let repo = repo();
    repo.write("Cargo.lock", "version = 2\n");
    repo.write("CHANGELOG.md", "# Changes\n- more\n");
    repo.write("README.md", "# Readme\nMore.\n");
    let mut server = repo.server();
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    assert_eq!(status["totals"]["unreconciled"], 0, "{status}");
    assert_eq!(status["totals"]["housekeeping"], 3, "{status}");
    assert_eq!(status["nothing_to_review"], true, "{status}");
    let affected = server.call_ok(2, "list_affected_specs", json!({}));
    for spec in affected["affected_specs"].as_array().unwrap() {
        // Nothing to review: one line, no texts.
        assert_eq!(spec["all_reconciled"], true, "{spec}");
        // (The contract's `behaviors`, `constraints` and `invariants` stay, empty.)
        assert!(spec.get("intent").is_none() && spec["behaviors"] == json!([]));
        assert!(spec["housekeeping_count"].as_u64().unwrap() > 0, "{spec}");
    }
    let diff = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/code.spec.yaml"}),
    );
    assert_eq!(diff["housekeeping"], json!(["CHANGELOG.md", "Cargo.lock"]));
    assert_eq!(diff["diff"], "", "{diff}");
    server.finish();
    // check warns, it does not fail; --strict fails.
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("housekeeping"), "{}", stdout(&out));
    let out = notarai(&repo.root, &["check", "--base", "main", "--strict"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn excluded_names_files_and_a_shared_file_is_diffed_once() {
    let repo = repo();
    repo.write("src/shared.rs", "fn shared() { more() }\n");
    repo.write("src/a.txt", lines() + "line 21\n");
    let mut server = repo.server();
    let first = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/code.spec.yaml", "exclude_patterns": ["*.txt"]}),
    );
    assert_eq!(first["excluded_files"], json!(["src/a.txt"]), "{first}");
    assert_eq!(first["excluded"], json!(["*.txt"]), "{first}");
    assert_eq!(
        first["shared"],
        json!({"src/shared.rs": [".notarai/shared.spec.yaml"]})
    );
    let read: Vec<String> = strings(&first["read_ids"])
        .into_iter()
        .filter(|r| r.starts_with("src/shared.rs@"))
        .collect();
    assert_eq!(read.len(), 1, "{first}");
    let second = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/shared.spec.yaml", "already_read": read}),
    );
    assert_eq!(second["already_read"], json!(["src/shared.rs"]), "{second}");
    assert_eq!(second["diff"], "", "{second}");
}

/// The reconcile skill, played step by step as it is written (the text
/// `init` installs is checked for each step's wording first), on a branch
/// with a lock file, a changelog, docs and a file two specs govern: at the
/// end `notarai check` passes.
#[test]
fn following_the_skill_to_the_letter_ends_with_check_green() {
    let repo = repo();
    let init = notarai(&repo.root, &["init", "--agents", "claude"], b"");
    assert!(init.status.success(), "{}", stdout(&init));
    let skill =
        std::fs::read_to_string(repo.root.join(".claude/skills/notarai-reconcile/SKILL.md"))
            .unwrap();
    let flat = skill.split_whitespace().collect::<Vec<_>>().join(" ");
    for words in [
        "nothing_to_review",
        "`get_spec_diff` with `{spec_path, already_read, specs_read}`",
        "`already_read` lists the `read_ids` (`path@id`, copied as given)",
        "`path@text_id` with the `text_id` of the `spec`, `applied` entry or `system_spec` you read",
        "For each spec the status lists with `unreconciled` files",
        "`housekeeping` and `formatting_only` files of the status",
        "the `files`, `housekeeping`, `already_read`, `formatting_only` and `outside_anchors` of each diff",
    ] {
        assert!(flat.contains(words), "the skill says {words:?}:\n{skill}");
    }
    repo.commit("notarai init");
    repo.write("src/a.txt", lines().replace("line 5\n", "line five\n"));
    repo.write("src/shared.rs", "fn shared() { more() }\n");
    repo.write("Cargo.lock", "version = 2\n");
    repo.write("CHANGELOG.md", "# Changes\n- five\n");
    repo.write("README.md", "# Readme\nFive.\n");

    let mut server = repo.server();
    let mut id = 0;
    // Status (the base chosen by notarai: main).
    let status = all_pages(&mut server, &mut id, "get_reconciliation_status", json!({}));
    assert_eq!(status[0]["nothing_to_review"], false);
    // No invalid or deleted spec: no need for list_affected_specs; each
    // spec the status lists with unreconciled files is diffed.
    assert!(status[0].get("invalid_specs").is_none(), "{}", status[0]);
    let mut to_record: Vec<String> = Vec::new();
    let mut already_read: Vec<String> = Vec::new();
    let mut specs_read: Vec<String> = Vec::new();
    for page in &status {
        for spec in page["specs"].as_array().unwrap() {
            if spec["all_reconciled"] == true || spec["continued"] == true {
                continue;
            }
            let pages = all_pages(
                &mut server,
                &mut id,
                "get_spec_diff",
                json!({"spec_path": spec["spec_path"], "already_read": already_read,
                    "specs_read": specs_read}),
            );
            for page in &pages {
                if let Some(id) = page["spec"]["text_id"].as_str() {
                    specs_read.push(format!("{}@{id}", spec["spec_path"].as_str().unwrap()));
                }
                if let (Some(path), Some(id)) = (
                    page["system_spec"]["path"].as_str(),
                    page["system_spec"]["text_id"].as_str(),
                ) {
                    specs_read.push(format!("{path}@{id}"));
                }
            }
            let files = collect(&pages, "files");
            already_read.extend(collect(&pages, "read_ids"));
            to_record.extend(files);
            to_record.extend(collect(&pages, "housekeeping"));
            to_record.extend(collect(&pages, "already_read"));
            to_record.extend(collect(&pages, "formatting_only"));
            to_record.extend(collect(&pages, "outside_anchors"));
            for page in &pages {
                for s in page["spec_changes"].as_array().cloned().unwrap_or_default() {
                    to_record.push(s["path"].as_str().unwrap().to_string());
                }
            }
        }
    }
    // The status's housekeeping files (a spec with nothing to review).
    for page in &status {
        for spec in page["specs"].as_array().unwrap() {
            to_record.extend(
                spec["housekeeping"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .filter_map(|v| v.as_str().map(str::to_string)),
            );
        }
    }
    to_record.sort();
    to_record.dedup();
    assert!(
        to_record.contains(&"Cargo.lock".to_string()),
        "{to_record:?}"
    );
    id += 1;
    server.call_ok(id, "mark_reconciled", json!({"files": to_record}));
    let after = all_pages(&mut server, &mut id, "get_reconciliation_status", json!({}));
    assert_eq!(after[0]["nothing_to_review"], true, "{}", after[0]);
    assert_eq!(after[0]["totals"]["unreconciled"], 0);
    assert_eq!(after[0]["totals"]["housekeeping"], 0, "{}", after[0]);
    id += 1;
    server.call_ok(id, "snapshot_state", json!({}));
    server.finish();
    let out = notarai(&repo.root, &["check", "--strict"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn a_fresh_setup_passes_check_strict() {
    let repo = Repo::new();
    repo.write("src/main.rs", "fn main() {}\n");
    repo.commit("code");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    let init = notarai(&repo.root, &["init", "--agents", "all"], b"");
    assert!(init.status.success(), "{}", stdout(&init));
    let out = notarai(&repo.root, &["check", "--base", "main", "--strict"], b"");
    let text = stdout(&out);
    assert!(
        !text.contains("no spec governs"),
        "init's own files are not ungoverned: {text}"
    );
}

#[test]
fn get_changed_artifacts_lists_branch_changes_not_yet_reconciled() {
    let repo = repo();
    repo.write("src/a.txt", lines() + "line 21\n");
    let mut server = repo.server();
    let changed = server.call_ok(
        1,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/code.spec.yaml"}),
    );
    // Only what changed on the branch, not every governed file.
    assert_eq!(
        changed["changed_artifacts"],
        json!(["src/a.txt"]),
        "{changed}"
    );
    server.call_ok(2, "mark_reconciled", json!({"files": ["src/a.txt"]}));
    let changed = server.call_ok(
        3,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/code.spec.yaml"}),
    );
    assert_eq!(changed["changed_artifacts"], json!([]), "{changed}");
}

#[test]
fn a_file_moved_out_of_a_spec_reads_as_a_rename_with_its_new_path() {
    let repo = Repo::new();
    repo.write(
        ".notarai/a.spec.yaml",
        "schema_version: '0.8'\nintent: A\nbehaviors:\n  - name: b\n    given: g\n    then: t\nartifacts:\n  code:\n    - path: 'src/a/**'\n",
    );
    repo.write("src/a/x.txt", lines());
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    std::fs::create_dir_all(repo.root.join("lib")).unwrap();
    repo.git(&["mv", "src/a/x.txt", "lib/x.txt"]);
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml"}),
    );
    assert_eq!(
        diff["moved_out"],
        json!({"src/a/x.txt": "lib/x.txt"}),
        "{diff}"
    );
    let body = diff["diff"].as_str().unwrap();
    assert!(
        body.contains("rename from src/a/x.txt") && body.contains("rename to lib/x.txt"),
        "{body}"
    );
    assert!(!body.contains("-line 1\n"), "not a whole deletion: {body}");
}

/// The skill records the status's `formatting_only` files (issue 42): once
/// recorded they leave every later status (the list no longer grows with
/// the branch), and a later change of their code is still shown.
#[test]
fn recorded_formatting_only_files_leave_the_status_and_a_later_code_change_is_shown() {
    let repo = repo();
    repo.write("src/shared.rs", "fn shared() {\n}\n");
    let mut server = repo.server();
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    assert_eq!(status["nothing_to_review"], true, "{status}");
    assert_eq!(status["formatting_only"], json!(["src/shared.rs"]));
    assert!(status["quiet_proofs"].get("formatting_only").is_some());
    server.call_ok(2, "mark_reconciled", json!({"files": ["src/shared.rs"]}));
    let status = server.call_ok(3, "get_reconciliation_status", json!({}));
    assert!(status.get("formatting_only").is_none(), "{status}");
    assert!(status.get("quiet_proofs").is_none(), "{status}");
    // A real change of the same file: flagged for both specs, and shown.
    repo.write("src/shared.rs", "fn shared() {\n    changed()\n}\n");
    let status = server.call_ok(4, "get_reconciliation_status", json!({}));
    assert_eq!(status["nothing_to_review"], false, "{status}");
    let flagged: Vec<&str> = status["specs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["spec_path"].as_str().unwrap())
        .collect();
    assert_eq!(
        flagged,
        [".notarai/code.spec.yaml", ".notarai/shared.spec.yaml"],
        "{status}"
    );
    let diff = server.call_ok(
        5,
        "get_spec_diff",
        json!({"spec_path": ".notarai/shared.spec.yaml"}),
    );
    assert_eq!(diff["files"], json!(["src/shared.rs"]), "{diff}");
    assert!(
        diff["diff"].as_str().unwrap().contains("+    changed()"),
        "{diff}"
    );
    server.finish();
}
