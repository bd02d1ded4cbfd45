//! Red team round 4: quiet verdicts that hid a change, asked of the real
//! binary (`notarai mcp`, `notarai check`) in temporary git repositories:
//! a read id passed to another spec whose diff is wider (F7), a
//! `mark_reconciled` that records content the agent never read (F1), an
//! every-spec review counted for a spec that governs the file only since
//! (F4), a governed config named by `tested_by` read as a test (F10). Each
//! case has a quiet control beside it.

use serde_json::{Value, json};

use crate::common::{Repo, Server, clone_of, git, notarai, stdout};

/// Whether the answer lists `path` under `key`.
fn lists(answer: &Value, key: &str, path: &str) -> bool {
    answer[key]
        .as_array()
        .is_some_and(|a| a.iter().any(|p| p == path))
}

/// `get_spec_diff` of `spec` against `main`, with `extra` arguments.
fn spec_diff(server: &mut Server, spec: &str, extra: Value) -> Value {
    let mut args = json!({"spec_path": spec, "base_branch": "main"});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    server.call_ok(1, "get_spec_diff", args)
}

/// A spec text: one behavior (with `tested_by` when given) and `artifacts`
/// (YAML lines under `artifacts:`).
fn spec_text(intent: &str, tested_by: Option<&str>, artifacts: &str) -> String {
    let tested = tested_by
        .map(|t| format!("    tested_by:\n      - path: {t}\n"))
        .unwrap_or_default();
    format!(
        "schema_version: '0.8'\nintent: {intent}\nbehaviors:\n  - name: b\n    given: x\n    then: y\n{tested}artifacts:\n{artifacts}"
    )
}

/// F10: a file the spec governs as `configs` or `docs` that a behavior's
/// `tested_by` also names is no mere test: its change is shown. Control:
/// the same file governed only as `tests` is still tests-only.
#[test]
fn a_governed_config_named_by_tested_by_is_shown() {
    for (category, quiet) in [("configs", false), ("docs", false), ("tests", true)] {
        let repo = Repo::new();
        repo.write(
            ".notarai/a.spec.yaml",
            spec_text(
                "The module computes things.",
                Some("src/settings.py"),
                &format!(
                    "  code:\n    - path: src/a.py\n  {category}:\n    - path: src/settings.py\n"
                ),
            ),
        );
        repo.write(".gitignore", ".notarai/.cache/\n");
        repo.write("src/a.py", "from settings import LIMIT\n");
        repo.write("src/settings.py", "LIMIT = 10\n");
        repo.commit("init");
        repo.git(&["checkout", "-q", "-b", "feat"]);
        repo.write("src/settings.py", "LIMIT = 100000\n");
        let answer = spec_diff(&mut repo.server(), ".notarai/a.spec.yaml", json!({}));
        let shown = lists(&answer, "files", "src/settings.py");
        let tests_only = answer["housekeeping_reasons"]["src/settings.py"] == "tests_only";
        assert_eq!(shown, !quiet, "{category}: {answer}");
        assert_eq!(tests_only, quiet, "{category}: {answer}");
    }
}

/// A repository where spec A governs `a_artifact` and spec B the whole of
/// `src/a.py` (B's constraint keeps `LIMIT` small); `src/a.py` committed on
/// `main`, branch `feat` checked out.
fn two_specs(a_artifact: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        ".notarai/a.spec.yaml",
        spec_text(
            "The module computes things.",
            None,
            &format!("  code:\n    - path: '{a_artifact}'\n"),
        ),
    );
    repo.write(
        ".notarai/b.spec.yaml",
        spec_text(
            "Limits are never raised.",
            None,
            "  code:\n    - path: src/a.py\n",
        )
        .replace(
            "artifacts:",
            "constraints:\n  - LIMIT stays at most 10.\nartifacts:",
        ),
    );
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.write(
        "src/a.py",
        "LIMIT = 10\n\n\ndef f():\n    return LIMIT\n\n\ndef g():\n    return 0\n",
    );
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

/// Asks spec A's diff, then spec B's with A's `read_ids` in
/// `already_read`: B must show `src/a.py` with the `LIMIT` hunk unless
/// `quiet` (then B lists it as already read).
#[track_caller]
fn b_after_a(repo: &Repo, quiet: bool) {
    let mut server = repo.server();
    let a = spec_diff(&mut server, ".notarai/a.spec.yaml", json!({}));
    assert!(lists(&a, "files", "src/a.py"), "A shows the file: {a}");
    let ids = a["read_ids"].clone();
    let b = spec_diff(
        &mut server,
        ".notarai/b.spec.yaml",
        json!({"already_read": if ids.is_null() { json!([]) } else { ids }}),
    );
    if quiet {
        assert!(lists(&b, "already_read", "src/a.py"), "{a}\n{b}");
    } else {
        assert!(lists(&b, "files", "src/a.py"), "B hides it: {a}\n{b}");
        let diff = b["diff"].as_str().unwrap_or_default();
        assert!(diff.contains("LIMIT = 100000"), "B's diff: {b}");
    }
}

/// F7: a read id is given only for a file whose whole diff from the base
/// was shown. Spec A's diff narrowed to its anchor `#g`, or started at A's
/// own review, gives none, so spec B still shows the `LIMIT` hunk.
/// Control: A governs the whole file, never reviewed: B gets it as read.
#[test]
fn a_read_id_names_only_a_whole_diff_from_the_base() {
    // Narrowed by an anchor.
    let repo = two_specs("src/a.py#g");
    let work = "LIMIT = 100000\n\n\ndef f():\n    return LIMIT\n\n\ndef g():\n    return 1\n";
    repo.write("src/a.py", work);
    b_after_a(&repo, false);
    // Started at A's review of the first commit.
    let repo = two_specs("src/a.py");
    repo.write("src/a.py", work.replace("return 1", "return 0"));
    repo.commit("c1");
    repo.server().call_ok(
        1,
        "mark_reconciled",
        json!({"files": ["src/a.py"], "spec_path": ".notarai/a.spec.yaml"}),
    );
    repo.write("src/a.py", work);
    repo.commit("c2");
    b_after_a(&repo, false);
    // Control: the whole diff from the base was read for A.
    let repo = two_specs("src/a.py");
    repo.write("src/a.py", work);
    b_after_a(&repo, true);
}

/// Specs A (`src/a.py`) and B (`src/b.py`, and `src/a.py` too when
/// `b_governs_a`) on `main`, branch `feat` checked out, where `src/a.py`
/// changed and was marked reconciled for every spec (no `spec_path`).
fn marked_for_every_spec(b_governs_a: bool) -> Repo {
    let repo = Repo::new();
    repo.write(
        ".notarai/a.spec.yaml",
        spec_text("A computes.", None, "  code:\n    - path: src/a.py\n"),
    );
    let b_artifacts = if b_governs_a {
        "  code:\n    - path: src/b.py\n    - path: src/a.py\n"
    } else {
        "  code:\n    - path: src/b.py\n"
    };
    repo.write(
        ".notarai/b.spec.yaml",
        spec_text("No function returns more than 1.", None, b_artifacts),
    );
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.write("src/a.py", "def foo():\n    return 1\n");
    repo.write("src/b.py", "def bar():\n    return 0\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/a.py", "def foo():\n    return 1000\n");
    repo.commit("chg");
    repo.server()
        .call_ok(1, "mark_reconciled", json!({"files": ["src/a.py"]}));
    repo
}

/// Write spec B (`b`) with `intent`, governing `src/b.py` and `src/a.py`.
fn b_governs_a(repo: &Repo, intent: &str) {
    repo.write(
        ".notarai/b.spec.yaml",
        spec_text(
            intent,
            None,
            "  code:\n    - path: src/b.py\n    - path: src/a.py\n",
        ),
    );
}

/// F4: a review recorded for every spec while only spec A governed
/// `src/a.py` does not count for spec B, which the branch then makes
/// govern it (B's file changed since the merge base); it still counts for
/// A. Control: when B governed `src/a.py` at the base already, the same
/// record counts for B.
#[test]
fn an_every_spec_review_counts_only_for_specs_as_at_the_base() {
    let repo = marked_for_every_spec(false);
    let b = ".notarai/b.spec.yaml";
    b_governs_a(&repo, "No function returns more than 1.");
    repo.commit("B governs a.py too");
    repo.server().call_ok(
        1,
        "mark_reconciled",
        json!({"files": [b], "snapshot": true}),
    );
    repo.commit("state");
    let mut server = repo.server();
    let answer = spec_diff(&mut server, b, json!({}));
    assert!(
        lists(&answer, "files", "src/a.py"),
        "hidden for B: {answer}"
    );
    let a = spec_diff(&mut server, ".notarai/a.spec.yaml", json!({}));
    assert!(!lists(&a, "files", "src/a.py"), "A reviewed it: {a}");
    // Control: B governed it at the base, the review counts for B.
    let repo = marked_for_every_spec(true);
    let answer = spec_diff(&mut repo.server(), b, json!({}));
    assert!(!lists(&answer, "files", "src/a.py"), "{answer}");
    assert_eq!(answer["skipped_count"], 1, "{answer}");
}

/// F1: `mark_reconciled` takes `path@id` from `read_ids` and refuses it,
/// recording nothing for any file of the call, when the file changed after
/// its diff was read. Controls: the id read from the content there now is
/// recorded; a bare path still is (the contract's `files: string[]`).
#[test]
fn mark_reconciled_refuses_a_read_id_of_older_content() {
    let repo = two_specs("src/a.py");
    repo.write("src/b.py", "X = 1\n");
    repo.commit("b");
    repo.write("src/a.py", "LIMIT = 11\n");
    repo.write("src/b.py", "X = 2\n");
    let mut server = repo.server();
    let a = ".notarai/a.spec.yaml";
    let read = spec_diff(&mut server, a, json!({}));
    let id = read["read_ids"][0].as_str().expect("a read id").to_string();
    assert!(id.starts_with("src/a.py@"), "{read}");
    // Changed after the diff was read.
    repo.write("src/a.py", "LIMIT = 100000\n");
    let answer = server.call(2, "mark_reconciled", json!({"files": [id, "src/b.py"]}));
    let (_, message) = Server::error_of(&answer);
    assert!(
        message.contains("src/a.py") && message.contains("changed since you read its diff"),
        "{message}"
    );
    let b = spec_diff(&mut server, ".notarai/b.spec.yaml", json!({}));
    assert!(lists(&b, "files", "src/a.py"), "nothing recorded: {b}");
    let after = spec_diff(&mut server, a, json!({}));
    assert!(lists(&after, "files", "src/a.py"), "{after}");
    assert!(
        after["diff"].as_str().unwrap().contains("LIMIT = 100000"),
        "{after}"
    );
    // Control: the id of the content there now is recorded.
    let id = after["read_ids"][0].as_str().unwrap().to_string();
    server.call_ok(3, "mark_reconciled", json!({"files": [id], "spec_path": a}));
    let done = spec_diff(&mut server, a, json!({}));
    assert!(!lists(&done, "files", "src/a.py"), "{done}");
    // Control: a bare path still records (src/b.py is no file of A: every spec).
    server.call_ok(4, "mark_reconciled", json!({"files": ["src/b.py"]}));
}

/// The other side of F4: a review recorded for every spec AFTER the branch
/// changed a spec counts for that spec, in this clone and, once the state is
/// committed, in a fresh clone (`check`): the skill records without
/// `spec_path`, so a pass over a spec changed on the branch must be able to
/// finish. A later edit of the file is still shown.
#[test]
fn an_every_spec_review_made_after_the_spec_changed_counts_for_it() {
    let repo = marked_for_every_spec(false);
    let b = ".notarai/b.spec.yaml";
    b_governs_a(&repo, "No function returns more than 1.");
    repo.commit("B governs a.py too");
    // The pass after the spec change: a.py read for B, recorded for every spec.
    let mut server = repo.server();
    let before = spec_diff(&mut server, b, json!({}));
    assert!(lists(&before, "files", "src/a.py"), "{before}");
    server.call_ok(
        2,
        "mark_reconciled",
        json!({"files": ["src/a.py", b], "snapshot": true}),
    );
    let after = spec_diff(&mut server, b, json!({}));
    assert!(!lists(&after, "files", "src/a.py"), "{after}");
    repo.commit("state");
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    assert!(out.status.success(), "{}", stdout(&out));
    // A fresh clone has only the committed state.
    let (_dir, clone) = clone_of(&repo.root);
    git(&clone, &["checkout", "-q", "feat"]);
    let out = notarai(&clone, &["check", "--base", "origin/main"], b"");
    assert!(out.status.success(), "{}", stdout(&out));
    // A later edit is shown for B again.
    repo.write("src/a.py", "def foo():\n    return 7\n");
    let again = spec_diff(&mut repo.server(), b, json!({}));
    assert!(lists(&again, "files", "src/a.py"), "{again}");
}

/// The control of the rule above: a review recorded for every spec while a
/// spec was as at the base counts for it only while it stays so; once the
/// branch changes that spec (a new constraint), the file is shown for it
/// again, as the review was read against its older text.
#[test]
fn an_every_spec_review_made_before_the_spec_changed_is_shown_again() {
    let repo = marked_for_every_spec(true);
    let b = ".notarai/b.spec.yaml";
    let before = spec_diff(&mut repo.server(), b, json!({}));
    assert!(!lists(&before, "files", "src/a.py"), "{before}");
    b_governs_a(&repo, "No function returns more than 10.");
    let after = spec_diff(&mut repo.server(), b, json!({}));
    assert!(lists(&after, "files", "src/a.py"), "{after}");
    // CI agrees from the committed state alone.
    repo.commit("B says more");
    repo.server().call_ok(2, "snapshot_state", json!({}));
    repo.commit("state");
    let (_dir, clone) = clone_of(&repo.root);
    git(&clone, &["checkout", "-q", "feat"]);
    let out = notarai(&clone, &["check", "--base", "origin/main"], b"");
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains("src/a.py"), "{}", stdout(&out));
}

/// The same on one long-lived server, whose specs as at the base are kept
/// while its watch vouches for the spec folder: the spec's edit moves
/// them, and the review made before it no longer quiets the file.
#[test]
fn a_warm_server_shows_again_a_file_reviewed_before_the_spec_changed() {
    let repo = marked_for_every_spec(true);
    let b = ".notarai/b.spec.yaml";
    let mut server = Server::warm_with(&repo.root, |_| {});
    let before = spec_diff(&mut server, b, json!({}));
    assert!(!lists(&before, "files", "src/a.py"), "{before}");
    assert!(!lists(
        &spec_diff(&mut server, b, json!({})),
        "files",
        "src/a.py"
    ));
    b_governs_a(&repo, "No function returns more than 10.");
    let after = spec_diff(&mut server, b, json!({}));
    assert!(lists(&after, "files", "src/a.py"), "{after}");
    server.finish();
}

/// `notarai reconcile --base` records as `mark_reconciled` with
/// `base_branch` does: after the branch changed spec B, a file recorded
/// from the shell counts for B, and `check` passes; a base that does not
/// resolve records nothing and says why.
#[test]
fn reconcile_from_the_shell_records_for_a_spec_the_branch_changed() {
    let repo = marked_for_every_spec(false);
    let b = ".notarai/b.spec.yaml";
    b_governs_a(&repo, "No function returns more than 1.");
    let bad = notarai(
        &repo.root,
        &["reconcile", "--base", "nope", "src/a.py", b],
        b"",
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        crate::common::stderr(&bad).contains("nope"),
        "{}",
        crate::common::stderr(&bad)
    );
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    assert!(!out.status.success(), "{}", stdout(&out));
    let ok = notarai(
        &repo.root,
        &["reconcile", "--base", "main", "src/a.py", b],
        b"",
    );
    assert!(ok.status.success(), "{}", stdout(&ok));
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    assert!(out.status.success(), "{}", stdout(&out));
}
