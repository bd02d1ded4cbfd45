//! Reviews that predate the base never quiet a change (red team F1, F2,
//! F2b): a record the merge base's committed state already holds, for a
//! content the base moved away from, neither skips a file nor starts a
//! "since reconciled" diff; a cache row counts only when it was recorded on
//! this line of work after the merge base. The normal loop still quiets.

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stdout};

const SYSTEM: &str = "schema_version: \"0.8\"\nintent: Test system.\ntier: registered\nartifacts: {}\nsubsystems:\n  - $ref: ./a.spec.yaml\n";
const SPEC: &str = "schema_version: \"0.8\"\nintent: Passwords are checked.\nbehaviors:\n  - name: min\n    given: a password\n    then: it is long enough\nartifacts:\n  code:\n    - path: \"src/a.ts\"\n";
const SPEC_PATH: &str = ".notarai/a.spec.yaml";
const FILE: &str = "src/a.ts";

/// `src/a.ts` with `check` returning `check` and `other` returning `other`.
fn source(check: &str, other: u32) -> String {
    format!(
        "export function check(pw: string): boolean {{\n  return {check};\n}}\n\nexport function other(): number {{\n  return {other};\n}}\n"
    )
}

fn run(repo: &Repo, args: &[&str]) -> (i32, String) {
    let out = notarai(&repo.root, args, b"");
    (out.status.code().unwrap_or(-1), stdout(&out))
}

/// A repository whose `main` reviewed `reviewed` (committed state), then
/// changed the file to `fixed` without a review; `feat` branches from it.
fn main_moved_past_its_review(reviewed: &str, fixed: &str) -> Repo {
    let repo = Repo::new();
    repo.write(".notarai/system.spec.yaml", SYSTEM);
    repo.write(SPEC_PATH, SPEC);
    repo.write(FILE, reviewed);
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("base");
    let (code, out) = run(
        &repo,
        &[
            "reconcile",
            ".notarai/system.spec.yaml",
            SPEC_PATH,
            FILE,
            "--snapshot",
        ],
    );
    assert_eq!(code, 0, "{out}");
    repo.commit("reviewed (R)");
    repo.write(FILE, fixed);
    repo.commit("fix, no review");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

/// `get_spec_diff` of the spec against `main`.
fn spec_diff(repo: &Repo) -> Value {
    let mut server = repo.server();
    let got = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": SPEC_PATH, "base_branch": "main"}),
    );
    server.finish();
    got
}

#[test]
fn a_branch_reverting_main_to_an_older_reviewed_content_is_shown_and_fails_check() {
    let r = source("pw.length > 0", 1);
    let repo = main_moved_past_its_review(&r, &source("pw.length >= 12", 1));
    repo.write(FILE, &r);
    repo.commit("refactor");
    // No cache: the one record is the base's own, for R, older than B.
    std::fs::remove_dir_all(repo.root.join(".notarai/.cache")).ok();
    let got = spec_diff(&repo);
    assert_eq!(got["files"], json!([FILE]), "{got}");
    assert!(got["skipped_count"].as_u64().unwrap_or(0) == 0, "{got}");
    let diff = got["diff"].as_str().unwrap();
    assert!(diff.contains("-  return pw.length >= 12;"), "{diff}");
    let (code, out) = run(&repo, &["check", "--base", "main"]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("N101"), "{out}");
    // The reviewer looks at the revert and records it: quiet on this machine.
    let (code, out) = run(&repo, &["reconcile", "--spec", SPEC_PATH, FILE]);
    assert_eq!(code, 0, "{out}");
    let got = spec_diff(&repo);
    assert_eq!(got["files"], json!([]), "{got}");
    assert_eq!(got["skipped_count"], 1, "{got}");
    // Snapshotted and committed, the review is the branch's: CI (no cache)
    // passes and lists it as a claim.
    let (code, out) = run(&repo, &["state", "snapshot"]);
    assert_eq!(code, 0, "{out}");
    repo.commit("reviewed the revert");
    std::fs::remove_dir_all(repo.root.join(".notarai/.cache")).unwrap();
    let (code, out) = run(&repo, &["check", "--base", "main"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Marked reconciled on this branch"), "{out}");
}

#[test]
fn an_every_spec_review_of_the_reverted_content_is_written_as_the_branchs() {
    let r = source("pw.length > 0", 1);
    let repo = main_moved_past_its_review(&r, &source("pw.length >= 12", 1));
    repo.write(FILE, &r);
    repo.commit("refactor");
    // Reviewed for every spec: the same hash as the base's stale record.
    let (code, out) = run(&repo, &["reconcile", FILE, "--snapshot"]);
    assert_eq!(code, 0, "{out}");
    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.root.join(".notarai/reconciliation_state.json")).unwrap(),
    )
    .unwrap();
    let base = repo.git(&["merge-base", "main", "HEAD"]);
    assert_eq!(
        state["file_fingerprints"][FILE]["reviewed_after"],
        json!(base.trim()),
        "{state}"
    );
    repo.commit("reviewed the revert");
    std::fs::remove_dir_all(repo.root.join(".notarai/.cache")).unwrap();
    let (code, out) = run(&repo, &["check", "--base", "main"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("changed  src/a.ts"), "{out}");
}

#[test]
fn a_since_reconciled_diff_never_starts_at_a_review_older_than_the_base() {
    let repo =
        main_moved_past_its_review(&source("pw.length > 0", 1), &source("pw.length >= 12", 1));
    repo.write(FILE, source("pw.length > 0", 2));
    repo.commit("feature");
    std::fs::remove_dir_all(repo.root.join(".notarai/.cache")).ok();
    let got = spec_diff(&repo);
    let diff = got["diff"].as_str().unwrap();
    assert!(
        diff.contains("-  return pw.length >= 12;"),
        "the revert: {diff}"
    );
    assert!(diff.contains("-  return 1;"), "the feature: {diff}");
    assert!(got.get("since_reconciled").is_none(), "{got}");
}

#[test]
fn a_review_recorded_on_another_branch_never_starts_a_diff() {
    let strict = source("pw.length >= 12", 1);
    let repo = main_moved_past_its_review(&strict, &strict);
    // An abandoned experiment, reviewed on this machine only.
    repo.git(&["checkout", "-q", "-b", "experiment"]);
    repo.write(FILE, source("pw.length > 0", 1));
    repo.commit("experiment");
    let (code, out) = run(&repo, &["reconcile", "--spec", SPEC_PATH, FILE]);
    assert_eq!(code, 0, "{out}");
    repo.git(&["checkout", "-q", "feat"]);
    repo.write(FILE, source("pw.length > 0", 2));
    repo.commit("feature");
    let got = spec_diff(&repo);
    let diff = got["diff"].as_str().unwrap();
    assert!(diff.contains("-  return pw.length >= 12;"), "{diff}");
    assert!(got.get("since_reconciled").is_none(), "{got}");
    // The experiment's very content: not skipped either.
    repo.write(FILE, source("pw.length > 0", 1));
    repo.commit("the experiment again");
    let got = spec_diff(&repo);
    assert_eq!(got["files"], json!([FILE]), "{got}");
    // Nor is the experiment's review copied into the committed state.
    let (code, out) = run(&repo, &["state", "snapshot"]);
    assert_eq!(code, 0, "{out}");
    let state =
        std::fs::read_to_string(repo.root.join(".notarai/reconciliation_state.json")).unwrap();
    assert!(!state.contains("spec_reviews"), "{state}");
}

#[test]
fn the_normal_loop_still_quiets_locally_after_a_commit_and_in_ci() {
    let r = source("pw.length >= 12", 1);
    let repo = main_moved_past_its_review(&r, &r);
    // Edit, review, ask again: skipped.
    repo.write(FILE, source("pw.length >= 12", 2));
    let (code, out) = run(&repo, &["reconcile", "--spec", SPEC_PATH, FILE]);
    assert_eq!(code, 0, "{out}");
    let got = spec_diff(&repo);
    assert_eq!(
        (got["files"].clone(), got["skipped_count"].clone()),
        (json!([]), json!(1)),
        "{got}"
    );
    // Committed on the branch: still skipped.
    repo.commit("feature");
    let got = spec_diff(&repo);
    assert_eq!(got["skipped_count"], 1, "{got}");
    // Changed again: the diff starts at what was reviewed on this branch.
    repo.write(FILE, source("pw.length >= 12", 3));
    let got = spec_diff(&repo);
    assert_eq!(got["since_reconciled"], json!([FILE]), "{got}");
    let diff = got["diff"].as_str().unwrap();
    assert!(
        diff.contains("-  return 2;") && diff.contains("+  return 3;"),
        "{diff}"
    );
    // Reviewed, snapshotted and committed: CI (no cache) passes with claims.
    let (code, out) = run(
        &repo,
        &["reconcile", "--spec", SPEC_PATH, FILE, "--snapshot"],
    );
    assert_eq!(code, 0, "{out}");
    repo.commit("reviewed");
    std::fs::remove_dir_all(repo.root.join(".notarai/.cache")).unwrap();
    let (code, out) = run(&repo, &["check", "--base", "main"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("Marked reconciled on this branch"), "{out}");
    assert!(out.contains(FILE), "{out}");
}

#[test]
fn a_review_recorded_before_an_amend_shows_the_file_again() {
    let r = source("pw.length >= 12", 1);
    let repo = main_moved_past_its_review(&r, &r);
    repo.write(FILE, source("pw.length >= 12", 2));
    repo.commit("feature");
    let (code, out) = run(&repo, &["reconcile", "--spec", SPEC_PATH, FILE]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(spec_diff(&repo)["skipped_count"], 1);
    // The commit the review was recorded on is no longer on this line of
    // work: accepted noise (an amend or a rebase can revert anything).
    repo.git(&["commit", "-q", "--amend", "-m", "feature, amended"]);
    let got = spec_diff(&repo);
    assert_eq!(got["files"], json!([FILE]), "{got}");
}
