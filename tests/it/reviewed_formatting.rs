//! Issue 42's last sound rule: a file whose code changed earlier on the
//! branch, reviewed (a proven record naming the reviewed content's blob),
//! then edited in comments or formatting only, needs no review for that
//! spec: its content has the reviewed content's program. The status,
//! `list_affected_specs`, `get_spec_diff` and `check` agree, on this
//! machine (the cache) and in CI (a fresh clone, the committed claims).
//! Anything short of that proof leaves the file shown.

use serde_json::{Value, json};

use crate::common::{Repo, git, notarai, stdout};

const SYSTEM: &str = "schema_version: \"0.8\"\nintent: Test system.\ntier: registered\nartifacts: {}\nsubsystems:\n  - $ref: ./a.spec.yaml\n";
const SPEC_PATH: &str = ".notarai/a.spec.yaml";

/// The spec governing `file` whole, as code.
fn spec(file: &str) -> String {
    format!(
        "schema_version: \"0.8\"\nintent: Limits are checked.\nbehaviors:\n  - name: limit\n    given: a request\n    then: it is limited\nartifacts:\n  code:\n    - path: \"{file}\"\n"
    )
}

const GO: &str = "src/limit.go";

/// `src/limit.go` returning `n`, with `doc` above `Limit`.
fn go(doc: &str, n: u32) -> String {
    format!("package limit\n\n{doc}func Limit() int {{\n\treturn {n}\n}}\n")
}

fn run(root: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = notarai(root, args, b"");
    (out.status.code().unwrap_or(-1), stdout(&out))
}

/// `main` with the spec and `file` as `base`; `feat` changes its code to
/// `reviewed`, commits it and records the review (`mark_reconciled`).
fn reviewed_on_feat(file: &str, base: &str, reviewed: &str) -> Repo {
    let repo = Repo::new();
    repo.write(".notarai/system.spec.yaml", SYSTEM);
    repo.write(SPEC_PATH, spec(file));
    repo.write(file, base);
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write(file, reviewed);
    repo.commit("feature");
    let mut server = repo.server();
    server.call_ok(1, "mark_reconciled", json!({"files": [file]}));
    server.finish();
    repo
}

/// The four answers on `file` against `main`: whether the status, `check`,
/// `list_affected_specs` and `get_spec_diff` show it.
fn shown(root: &std::path::Path, file: &str) -> [bool; 4] {
    let mut server = crate::common::Server::start(root);
    let status = server.call_ok(
        1,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    let affected = server.call_ok(2, "list_affected_specs", json!({"base_branch": "main"}));
    let diff = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": SPEC_PATH, "base_branch": "main"}),
    );
    server.finish();
    let (code, out) = run(root, &["check", "--base", "main"]);
    let listed = |v: &Value| v.to_string().contains(&format!("\"{file}\""));
    let in_status = status["specs"].as_array().into_iter().flatten().any(|s| {
        s["unreconciled"]
            .as_array()
            .is_some_and(|u| u.iter().any(|p| p == file))
    });
    let in_affected = affected["affected_specs"]
        .as_array()
        .into_iter()
        .flatten()
        .any(listed);
    let in_diff = diff["files"]
        .as_array()
        .is_some_and(|f| f.iter().any(|p| p == file));
    if !in_diff {
        assert!(
            diff["formatting_only"]
                .as_array()
                .is_some_and(|f| f.iter().any(|p| p == file)),
            "quiet in get_spec_diff means formatting_only: {diff}"
        );
    }
    assert!(code == 0 || out.contains(file), "{out}");
    [in_status, code != 0, in_affected, in_diff]
}

/// A fresh clone of `repo` with `feat` checked out, as CI has it: only
/// the objects its branches reach (`--no-local`: a local clone would copy
/// every object, the loose ones a review wrote too), no cache.
fn ci_clone(repo: &Repo) -> (tempfile::TempDir, std::path::PathBuf) {
    repo.git(&["checkout", "-q", "main"]);
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().canonicalize().unwrap().join("clone");
    let origin = repo.root.to_str().unwrap();
    git(
        dir.path(),
        &["clone", "-q", "--no-local", origin, clone.to_str().unwrap()],
    );
    git(&clone, &["checkout", "-q", "feat"]);
    (dir, clone)
}

#[test]
fn a_comment_edit_after_a_review_is_quiet_here_and_in_ci() {
    let repo = reviewed_on_feat(GO, &go("", 1), &go("", 2));
    repo.write(
        GO,
        go("// Limit says how many.\n", 2).replace("\treturn 2", "\treturn 2 // two"),
    );
    assert_eq!(shown(&repo.root, GO), [false; 4]);
    // CI: the branch commits its claims and the content; a fresh clone
    // with no cache.
    let (code, out) = run(&repo.root, &["state", "snapshot"]);
    assert_eq!(code, 0, "{out}");
    repo.commit("comment, state");
    let (_dir, clone) = ci_clone(&repo);
    assert!(!clone.join(".notarai/.cache").exists());
    assert_eq!(shown(&clone, GO), [false; 4]);
}

#[test]
fn a_code_change_after_the_review_is_shown() {
    let repo = reviewed_on_feat(GO, &go("", 1), &go("", 2));
    repo.write(GO, go("// Limit says how many.\n", 3));
    assert_eq!(shown(&repo.root, GO), [true; 4]);
}

#[test]
fn a_review_that_predates_the_base_is_shown() {
    // main reviewed R (committed state), then moved to B without a review;
    // the branch puts R back with a comment.
    let r = go("", 1);
    let repo = Repo::new();
    repo.write(".notarai/system.spec.yaml", SYSTEM);
    repo.write(SPEC_PATH, spec(GO));
    repo.write(GO, &r);
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("base");
    let (code, out) = run(
        &repo.root,
        &[
            "reconcile",
            ".notarai/system.spec.yaml",
            SPEC_PATH,
            GO,
            "--snapshot",
        ],
    );
    assert_eq!(code, 0, "{out}");
    repo.commit("reviewed R");
    repo.write(GO, go("", 5));
    repo.commit("B, no review");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write(GO, go("// back to one\n", 1));
    assert_eq!(shown(&repo.root, GO), [true; 4]);
}

#[test]
fn a_reviewed_content_git_does_not_have_is_shown() {
    // The reviewed content was never committed: the clone lacks its blob.
    let repo = reviewed_on_feat(GO, &go("", 1), &go("", 1));
    repo.write(GO, go("", 2));
    let mut server = repo.server();
    server.call_ok(1, "mark_reconciled", json!({"files": [GO]}));
    server.finish();
    repo.write(GO, go("// two\n", 2));
    assert_eq!(shown(&repo.root, GO), [false; 4], "here the blob is kept");
    let (code, out) = run(&repo.root, &["state", "snapshot"]);
    assert_eq!(code, 0, "{out}");
    repo.commit("comment, state");
    let (_dir, clone) = ci_clone(&repo);
    assert_eq!(shown(&clone, GO), [true; 4]);
}

#[test]
fn a_comment_that_is_code_after_a_review_is_shown() {
    // Go: a `Deprecated:` paragraph (go doc, gopls, staticcheck act on it).
    let repo = reviewed_on_feat(GO, &go("", 1), &go("", 2));
    repo.write(
        GO,
        go("// Limit says how many.\n//\n// Deprecated: use Max.\n", 2),
    );
    assert_eq!(shown(&repo.root, GO), [true; 4]);
    // TypeScript: a line break after `asserts` changes the program.
    const TS: &str = "src/guard.ts";
    let ts = |sep: &str, n: u32| {
        format!(
            "export function isLimit(v: unknown): asserts{sep}v is number {{\n  if (typeof v !== \"number\") throw new Error(\"{n}\");\n}}\n"
        )
    };
    let repo = reviewed_on_feat(TS, &ts(" ", 1), &ts(" ", 2));
    repo.write(TS, format!("// A guard.\n{}", ts(" ", 2)));
    assert_eq!(
        shown(&repo.root, TS),
        [false; 4],
        "a plain comment is quiet"
    );
    repo.write(TS, ts("\n  ", 2));
    assert_eq!(shown(&repo.root, TS), [true; 4]);
}
