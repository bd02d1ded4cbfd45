//! The committed reconciliation state and the CI gate, over real git: a pass
//! in one clone is seen by a fresh clone, `check` in its three formats, the
//! merge driver in a real `git merge`, bad state files, and the existing
//! tool's format.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{self, BIN, Repo, notarai, stderr, stdout};

const STATE: &str = ".notarai/reconciliation_state.json";

fn blake3_of(path: &Path) -> String {
    blake3::hash(&std::fs::read(path).unwrap())
        .to_hex()
        .to_string()
}

fn check(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    let out = notarai(dir, &all, b"");
    (out.status.code().unwrap(), stdout(&out), stderr(&out))
}

fn mark(repo: &Repo, files: &[&str]) {
    let mut server = repo.server();
    server.call_ok(1, "mark_reconciled", json!({ "files": files }));
    server.finish();
}

#[test]
fn a_pass_in_one_clone_is_seen_by_a_fresh_clone() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn more() {}\n");
    repo.append("docs/a.md", "More.\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    // Not yet reconciled: the gate fails and names both.
    let (code, text, _) = check(&repo.root, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("src/a.rs") && text.contains("docs/a.md"),
        "{text}"
    );

    mark(&repo, &["src/a.rs", "docs/a.md"]);
    let out = notarai(&repo.root, &["state", "snapshot"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("2 new"), "{}", stdout(&out));
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.root.join(STATE)).unwrap()).unwrap();
    assert_eq!(
        state["file_fingerprints"]["src/a.rs"]["blake3"],
        json!(blake3_of(&repo.root.join("src/a.rs")))
    );
    assert_eq!(state["last_reconciliation"]["branch"], json!("feat"));
    repo.commit("reconciled");

    let (_dir, clone) = crate::common::clone_of(&repo.root);
    assert!(!clone.join(".notarai/.cache/notarai.db").exists());

    let (code, text, err) = check(&clone, &[]);
    assert_eq!(code, 0, "{text}\n{err}");
    assert!(
        text.contains("base origin/main (the default branch)"),
        "{text}"
    );
    assert!(text.contains("PASS"), "{text}");
    // The claims the branch made are shown to the reviewer.
    assert!(text.contains("Marked reconciled on this branch"), "{text}");
    let (_, json_text, _) = check(&clone, &["--format", "json"]);
    let report: Value = serde_json::from_str(&json_text).unwrap();
    let claimed: Vec<&str> = report["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    assert_eq!(claimed, ["docs/a.md", "src/a.rs"]);
    assert_eq!(
        report["claims"][1]["specs"],
        json!([".notarai/a.spec.yaml"])
    );
    assert_eq!(report["claims"][1]["change"], json!("added"));

    // The server in the clone takes the committed state as reconciled.
    let mut server = common::Server::start(&clone);
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "origin/main", "full_lists": true}),
    );
    assert_eq!(common::strings(&diff["skipped"]), ["docs/a.md", "src/a.rs"]);
    assert_eq!(diff["files"], json!([]));
    let changed = server.call_ok(
        2,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/a.spec.yaml"}),
    );
    // Changed on the branch and not reconciled: nothing (the two files are
    // reconciled, the spec did not change).
    assert_eq!(changed["changed_artifacts"], json!([]));
    server.finish();

    // A new edit fails the gate, named in all three formats.
    common::write(&clone, "src/a.rs", "fn changed_again() {}\n");
    let (code, text, _) = check(&clone, &[]);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("src/a.rs changed and is not reconciled with .notarai/a.spec.yaml"),
        "{text}"
    );
    assert!(text.contains("notarai state snapshot"), "{text}");
    assert!(!text.contains("docs/a.md changed"), "{text}");
    let (code, json_text, _) = check(&clone, &["--format", "json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&json_text).unwrap();
    let errors: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| (f["kind"].as_str().unwrap(), f["file"].as_str().unwrap()))
        .collect();
    assert_eq!(errors, [("unreconciled", "src/a.rs")]);
    assert_eq!(report["summary"]["errors"], json!(1));
    let (code, gh, _) = check(&clone, &["--format", "github"]);
    assert_eq!(code, 1);
    assert!(
        gh.lines().any(|l| l
            == "::error file=src/a.rs,title=N101 unreconciled-change::src/a.rs changed and is not reconciled with .notarai/a.spec.yaml"),
        "{gh}"
    );
}

#[test]
fn check_warns_on_ungoverned_changes_and_strict_fails_them() {
    let repo = Repo::with_spec();
    repo.write("notes.txt", "loose\n");
    // notarai's own schema (what `init` writes) is no ungoverned change.
    repo.write(".notarai/notarai.spec.json", "{}\n");
    let (code, text, _) = check(&repo.root, &["--base", "main"]);
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("notarai.spec.json"), "{text}");
    assert!(
        text.contains("warning  notes.txt changed and no spec governs it"),
        "{text}"
    );
    assert!(text.contains("base main (given with --base)"), "{text}");
    let (code, gh, _) = check(&repo.root, &["--strict", "--format", "github"]);
    assert_eq!(code, 1, "{gh}");
    assert!(
        gh.contains("::error file=notes.txt,title=N104 ungoverned-change::"),
        "{gh}"
    );
    assert!(!gh.contains("notarai.spec.json"), "{gh}");
    // A bad base is a usage error that says what exists.
    let (code, _, err) = check(&repo.root, &["--base", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("`nope`") && err.contains("main"), "{err}");
}

#[test]
fn no_default_branch_asks_for_base() {
    let repo = Repo::new();
    repo.git(&["checkout", "-q", "-b", "trunk"]);
    repo.write("a.txt", "a\n");
    repo.commit("init");
    let (code, _, err) = check(&repo.root, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("--base"), "{err}");
}

#[test]
fn on_the_default_branch_the_base_is_the_last_reconciliation() {
    let repo = Repo::with_spec();
    repo.git(&["checkout", "-q", "main"]);
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("ignore the cache");
    repo.append("src/a.rs", "const _: u8 = 11; // one\n");
    mark(&repo, &["src/a.rs"]);
    assert!(
        notarai(&repo.root, &["state", "snapshot"], b"")
            .status
            .success()
    );
    repo.commit("reconciled on main");
    // Work after the snapshot's commit; main as base would see nothing.
    repo.append("docs/a.md", "later\n");
    repo.commit("later work");
    let (code, json_text, err) = check(&repo.root, &["--format", "json"]);
    assert_eq!(code, 1, "{json_text}\n{err}");
    let report: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(report["base"]["source"], json!("last_reconciliation"));
    let files: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["file"].as_str())
        .collect();
    assert_eq!(files, ["docs/a.md"], "{json_text}");
}

/// Two branches reconcile different files; with the merge driver a real
/// `git merge` ends with both branches' entries and no conflict.
#[test]
fn the_merge_driver_merges_two_branches() {
    let repo = Repo::new();
    repo.write(".notarai/a.spec.yaml", common::SPEC_A);
    repo.write("src/a.rs", "a\n");
    repo.write("src/b.rs", "b\n");
    repo.write(
        ".gitattributes",
        format!("*.png binary\n{STATE} merge=notarai\n"),
    );
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    assert!(
        notarai(&repo.root, &["state", "snapshot"], b"")
            .status
            .success()
    );
    repo.commit("empty state");

    repo.git(&["checkout", "-q", "-b", "x"]);
    repo.append("src/a.rs", "x\n");
    mark(&repo, &["src/a.rs"]);
    assert!(
        notarai(&repo.root, &["state", "snapshot"], b"")
            .status
            .success()
    );
    repo.commit("x reconciled a");

    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["checkout", "-q", "-b", "y"]);
    repo.append("src/b.rs", "y\n");
    mark(&repo, &["src/b.rs"]);
    let out = notarai(&repo.root, &["state", "snapshot"], b"");
    assert!(stdout(&out).contains("1 entries"), "{}", stdout(&out));
    repo.commit("y reconciled b");

    // Without the driver the pretty-printed JSON conflicts.
    assert!(!common::git_status(
        &repo.root,
        &["merge", "-q", "--no-edit", "x"]
    ));
    repo.git(&["merge", "--abort"]);

    repo.git(&[
        "config",
        "merge.notarai.driver",
        &format!("{BIN} state merge %O %A %B"),
    ]);
    repo.git(&["merge", "-q", "--no-edit", "x"]);
    let text = std::fs::read_to_string(repo.root.join(STATE)).unwrap();
    let state: Value = serde_json::from_str(&text).unwrap();
    for f in ["src/a.rs", "src/b.rs"] {
        assert_eq!(
            state["file_fingerprints"][f]["blake3"],
            json!(blake3_of(&repo.root.join(f))),
            "{text}"
        );
    }
    assert!(text.ends_with("}\n") && text.contains("\n  \"file_fingerprints\""));
    let (code, out, _) = check(&repo.root, &["--base", "main"]);
    assert_eq!(code, 0, "{out}");
}

/// Hints reach the CLI from any error type, not from a closed list: the
/// state file's (`StateError`) and a base's (`ChangeError` inside
/// `CheckError`) through `notarai state`, whose edge printed no hint before.
#[test]
fn a_hint_of_any_error_type_reaches_the_cli() {
    let repo = Repo::with_spec();
    repo.write(STATE, "{\n  \"schema_version\": \"1\",\n<<<<<<< HEAD\n");
    let out = notarai(&repo.root, &["state", "snapshot"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: ")
            && err.contains(&format!("{STATE}:3:1: malformed reconciliation state"))
            && err.contains(
                "; not overwritten\nhint: pass --force to replace it with a fresh snapshot\n"
            ),
        "{err}"
    );
    let out = notarai(&repo.root, &["state", "status", "--base", "nope"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("base branch `nope` does not resolve")
            && err.contains("\nhint: pass the branch this work will merge into"),
        "{err}"
    );
}

#[test]
fn a_malformed_state_file_is_an_error_that_says_where() {
    let repo = Repo::with_spec();
    let broken = "{\n  \"schema_version\": \"1\",\n<<<<<<< HEAD\n";
    repo.write(STATE, broken);
    for args in [
        &["check"][..],
        &["state", "show"][..],
        &["state", "snapshot"][..],
    ] {
        let out = notarai(&repo.root, args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{STATE}:3:1: malformed reconciliation state")),
            "{args:?}: {err}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(repo.root.join(STATE)).unwrap(),
        broken,
        "snapshot refuses to overwrite it"
    );

    // The server keeps serving, with the state ignored and a warning.
    repo.append("src/a.rs", "const _: u8 = 12; // edit\n");
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(common::strings(&diff["files"]), ["src/a.rs"]);
    let err = server.finish();
    assert!(err.contains("malformed reconciliation state"), "{err}");

    let out = notarai(&repo.root, &["state", "snapshot", "--force"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = notarai(&repo.root, &["state", "show"], b"");
    assert!(out.status.success());
    let out = notarai(&repo.root, &["state", "reset"], b"");
    assert_eq!(stdout(&out), format!("Removed {STATE}\n"));
    assert!(!repo.root.join(STATE).exists());
}

/// A state file as the existing tool writes it reads; unknown keys survive a
/// rewrite; entries outside the repository are ignored with a warning.
#[test]
fn the_existing_tools_format_reads() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "const _: u8 = 13; // reconciled elsewhere\n");
    let hash = blake3_of(&repo.root.join("src/a.rs"));
    let outside = repo.outside.join("secret.txt");
    let existing = format!(
        r#"{{
  "schema_version": "1",
  "cli_version": "0.4.0",
  "last_reconciliation": {{"timestamp": "1773423102Z", "git_hash": "0000000000000000000000000000000000000000", "branch": "fix-16"}},
  "file_fingerprints": {{"src/a.rs": {{"blake3": "{hash}"}}, "{}": {{"blake3": "{hash}"}}, "../outside/secret.txt": {{"blake3": "{hash}"}}}},
  "spec_fingerprints": {{".notarai/a.spec.yaml": "{}"}},
  "future": {{"kept": true}}
}}"#,
        outside.display(),
        blake3_of(&repo.root.join(".notarai/a.spec.yaml"))
    );
    repo.write(STATE, &existing);
    let out = notarai(&repo.root, &["state", "show", "--format", "json"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let shown: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(shown["future"], json!({"kept": true}));
    assert_eq!(shown["cli_version"], json!("0.4.0"));
    assert_eq!(
        shown["file_fingerprints"].as_object().unwrap().len(),
        1,
        "only the entry inside the repository"
    );
    let err = stderr(&out);
    assert!(err.contains("ignored"), "{err}");

    let (code, text, _) = check(&repo.root, &["--base", "main"]);
    assert_eq!(code, 0, "{text}");
    let before = repo.outside_snapshot();
    let out = notarai(&repo.root, &["state", "snapshot"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(repo.outside_snapshot(), before);
    let rewritten: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.root.join(STATE)).unwrap()).unwrap();
    assert_eq!(rewritten["future"], json!({"kept": true}));
    assert_eq!(
        rewritten["file_fingerprints"]["src/a.rs"]["blake3"],
        json!(hash)
    );
    // Rewritten in the current format, which a "1" reader still reads.
    assert_eq!(rewritten["schema_version"], json!("2"));
}

/// For 0.8 specs: a `tested_by` file that does not exist is an error, a
/// behavior of a `full` spec with no `tested_by` a warning; a file under two
/// specs is a notice.
#[test]
fn check_reports_test_coverage_of_08_specs_and_double_governance() {
    let repo = Repo::with_spec();
    repo.write(
        ".notarai/t.spec.yaml",
        "schema_version: '0.8'\nintent: Tested part.\nbehaviors:\n  - name: covered\n    given: g\n    then: t\n    tested_by:\n      - path: tests/missing.rs\n  - name: bare\n    given: g\n    then: t\nartifacts:\n  code:\n    - path: 'src/a.rs'\n",
    );
    let (code, summary_text, _) = check(&repo.root, &["--format", "json", "--base", "main"]);
    assert_eq!(code, 1, "{summary_text}");
    // By default one summary notice; `--untested` lists each behavior.
    assert!(
        summary_text.contains("1 behaviors in 1 specs name no test"),
        "{summary_text}"
    );
    let (_, json_text, _) = check(
        &repo.root,
        &["--format", "json", "--base", "main", "--untested"],
    );
    let report: Value = serde_json::from_str(&json_text).unwrap();
    let kinds: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["spec"] == ".notarai/t.spec.yaml")
        .map(|f| (f["kind"].as_str().unwrap(), f["severity"].as_str().unwrap()))
        .collect();
    assert!(kinds.contains(&("missing_test", "error")), "{json_text}");
    assert!(!kinds.contains(&("spec_warning", "warning")), "{json_text}");
    assert!(kinds.contains(&("untested", "warning")), "{json_text}");
    assert!(
        kinds.contains(&("spec_unreconciled", "error")),
        "{json_text}"
    );
    repo.append("src/a.rs", "const _: u8 = 14; // both govern me\n");
    let (_, text, _) = check(&repo.root, &["--base", "main"]);
    assert!(
        !text.contains("tests/missing.rs (`tested_by`) did not change"),
        "{text}"
    );
    repo.write("tests/missing.rs", "#[test] fn t() {}\n");
    repo.commit("the test and the spec");
    repo.append("src/a.rs", "const _: u8 = 15; // newer than its test\n");
    let (_, text, _) = check(&repo.root, &["--base", "HEAD"]);
    assert!(
        text.contains("warning  tests/missing.rs (`tested_by`) did not change since the base while code it covers did (src/a.rs)"),
        "{text}"
    );
    let (_, text, _) = check(&repo.root, &["--base", "main"]);
    assert!(
        text.contains("notice   src/a.rs is governed by 2 specs"),
        "{text}"
    );
}

/// `state status` (the domain of the MCP tool `get_reconciliation_status`):
/// per spec what is left, and a malformed state file reported, not fatal.
#[test]
fn status_tells_per_spec_what_is_left() {
    let repo = Repo::with_spec();
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("ignore the cache");
    repo.append("src/a.rs", "const _: u8 = 16; // 1\n");
    repo.append("docs/a.md", "2\n");
    mark(&repo, &["docs/a.md"]);
    let out = notarai(&repo.root, &["state", "status"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let status: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(status["base"]["name"], json!("main"));
    assert_eq!(status["base"]["source"], json!("default_branch"));
    assert_eq!(
        status["specs"][0]["spec_path"],
        json!(".notarai/a.spec.yaml")
    );
    assert_eq!(status["specs"][0]["unreconciled"], json!(["src/a.rs"]));
    assert_eq!(status["specs"][0]["reconciled"], json!(1));
    assert_eq!(status["specs"][0]["all_reconciled"], json!(false));
    assert_eq!(status["totals"]["unreconciled"], json!(1));
    assert!(status.get("state_problem").is_none());

    repo.write(STATE, "{ nope");
    let out = notarai(&repo.root, &["state", "status", "--base", "main"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let status: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let problem = status["state_problem"].as_str().unwrap();
    assert!(problem.contains(&format!("{STATE}:1:3")), "{problem}");
    assert_eq!(
        status["totals"]["reconciled"],
        json!(1),
        "the cache still counts"
    );
}

/// `mark_reconciled` with `snapshot: true` writes the state file too.
#[test]
fn mark_reconciled_can_snapshot() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "const _: u8 = 17; // edited\n");
    let mut server = repo.server();
    let answer = server.call_ok(
        1,
        "mark_reconciled",
        json!({"files": ["src/a.rs"], "snapshot": true}),
    );
    assert_eq!(answer["updated"], json!(1));
    assert_eq!(answer["snapshot"]["entries"], json!(1));
    assert_eq!(answer["snapshot"]["branch"], json!("feat"));
    let without = server.call_ok(2, "mark_reconciled", json!({"files": ["docs/a.md"]}));
    assert!(without.get("snapshot").is_none());
    server.finish();
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.root.join(STATE)).unwrap()).unwrap();
    assert_eq!(
        state["file_fingerprints"]["src/a.rs"]["blake3"],
        json!(blake3_of(&repo.root.join("src/a.rs")))
    );
    assert!(state["file_fingerprints"].get("docs/a.md").is_none());
}

/// A file deleted on the branch and marked reconciled is in the snapshot
/// (as `deleted`), so a clone without the cache passes.
#[test]
fn a_reconciled_deletion_is_committed_too() {
    let repo = Repo::with_spec();
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.remove("docs/a.md");
    assert_eq!(check(&repo.root, &[]).0, 1);
    mark(&repo, &["docs/a.md"]);
    let out = notarai(&repo.root, &["state", "snapshot"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.root.join(STATE)).unwrap()).unwrap();
    assert_eq!(
        state["file_fingerprints"]["docs/a.md"]["blake3"],
        json!("deleted")
    );
    repo.commit("deleted docs");
    std::fs::remove_dir_all(repo.root.join(".notarai/.cache")).unwrap();
    let (code, text, err) = check(&repo.root, &[]);
    assert_eq!(code, 0, "{text}\n{err}");
}

/// `check` lists the repository's files from the change set it already has
/// (`GitRepo::files_with`) instead of walking the work tree a second time:
/// the list is the same as `GitRepo::files` gives, with tracked, untracked
/// (also in new folders), ignored, deleted, staged-deleted and renamed
/// files around, at a base on another branch and on an unborn-like base.
#[test]
fn the_file_list_from_the_change_set_equals_the_walked_one() {
    use notarai::changes::GitRepo;
    use notarai::governance::Scope;
    let repo = Repo::with_spec();
    repo.write(".gitignore", "ignored/\n*.log\n");
    repo.write("kept.rs", "k\n");
    repo.write("gone.rs", "g\n");
    repo.write("unstaged.rs", "u\n");
    repo.write("moved.rs", "m\n");
    repo.commit("more");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("new/deep/untracked.rs", "n\n");
    repo.write("top.rs", "t\n");
    repo.write("ignored/x.rs", "i\n");
    repo.write("trace.log", "l\n");
    repo.write("staged.rs", "s\n");
    repo.git(&["add", "staged.rs"]);
    std::fs::remove_file(repo.root.join("unstaged.rs")).unwrap();
    repo.git(&["rm", "-q", "gone.rs"]);
    repo.git(&["mv", "moved.rs", "renamed.rs"]);
    repo.write("kept.rs", "k2\n");
    let git = GitRepo::open(&repo.root).unwrap();
    let walked = git.files(&Scope::Everything).unwrap();
    for base in ["main", "HEAD"] {
        let base = git.resolve_base(base).unwrap();
        let changes = git.changes(&base, &Scope::Everything, false).unwrap();
        let from_changes = git.files_with(&Scope::Everything, &changes).unwrap();
        assert_eq!(from_changes, walked, "base {base:?}");
    }
    assert!(walked.contains(&"new/deep/untracked.rs".to_string()));
    assert!(
        walked.contains(&"unstaged.rs".to_string()),
        "deleted in the work tree only: still in the index"
    );
    assert!(
        !walked
            .iter()
            .any(|p| p == "gone.rs" || p.starts_with("ignored/") || p == "trace.log")
    );
}

/// A `.gitattributes` line that routes `*.json` to notarai's driver (a
/// hostile or careless clone) must not let `git merge` drop one side's
/// changes to another JSON file: the driver merges only the state file and
/// leaves git's conflict for anything else.
#[test]
fn the_merge_driver_refuses_a_file_other_than_the_state_file() {
    let repo = Repo::new();
    repo.write(".notarai/a.spec.yaml", common::SPEC_A);
    repo.write(
        "package.json",
        "{\n  \"name\": \"x\",\n  \"version\": \"1.0.0\"\n}\n",
    );
    repo.write(".gitattributes", "*.json merge=notarai\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&[
        "config",
        "merge.notarai.driver",
        &format!("{BIN} state merge %O %A %B %P"),
    ]);
    repo.git(&["checkout", "-q", "-b", "x"]);
    repo.write(
        "package.json",
        "{\n  \"name\": \"theirs\",\n  \"version\": \"1.0.0\"\n}\n",
    );
    repo.commit("x renames the package");
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        "package.json",
        "{\n  \"name\": \"x\",\n  \"version\": \"2.0.0\"\n}\n",
    );
    repo.commit("main bumps the version");

    let merged = common::git_status(&repo.root, &["merge", "-q", "--no-edit", "x"]);
    assert!(!merged, "git merge must stop on a conflict in package.json");
    let text = std::fs::read_to_string(repo.root.join("package.json")).unwrap();
    // Neither side's change is lost: both are in the conflicted file.
    assert!(text.contains("theirs") && text.contains("2.0.0"), "{text}");
    let status = repo.git(&["status", "--porcelain"]);
    assert!(status.contains("UU package.json"), "{status}");

    // The same driver still merges the state file itself (the content is
    // checked too: a file that does not read as a state file conflicts).
    repo.git(&["merge", "--abort"]);
    let base = repo.root.join("base.json");
    let ours = repo.root.join("ours.json");
    let theirs = repo.root.join("theirs.json");
    for (p, t) in [
        (&base, "{}"),
        (&ours, "{\"not\": \"a state\"}"),
        (&theirs, "[]"),
    ] {
        std::fs::write(p, t).unwrap();
    }
    let out = notarai(
        &repo.root,
        &[
            "state",
            "merge",
            base.to_str().unwrap(),
            ours.to_str().unwrap(),
            theirs.to_str().unwrap(),
            ".notarai/reconciliation_state.json",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}
