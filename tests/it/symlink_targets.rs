//! A governed path that is a symbolic link to a file inside the repository
//! (red team round 4, F11): a change to the target is a change to the
//! governed file, shown by `get_spec_diff` under the spec governing the link
//! and counted by `check`. A link out of the repository is never followed,
//! and a file no governed link points to stays ungoverned.
#![cfg(unix)]

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stdout};

const SPEC: &str = ".notarai/a.spec.yaml";

/// A repository where the spec governs `src/a.py`, a link to
/// `../lib/real.py`, and `src/out.py`, a link out of the repository; on
/// branch `feat` `lib/real.py` and `lib/other.py` changed.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.write(
        SPEC,
        "schema_version: '0.8'\nintent: The module computes things correctly.\nbehaviors:\n  - name: b\n    given: x\n    then: y\nartifacts:\n  code:\n    - path: 'src/a.py'\n    - path: 'src/out.py'\n",
    );
    repo.write("lib/real.py", "def foo():\n    return 1\n");
    repo.write("lib/other.py", "X = 1\n");
    std::fs::create_dir_all(repo.root.join("src")).unwrap();
    std::os::unix::fs::symlink("../lib/real.py", repo.root.join("src/a.py")).unwrap();
    std::os::unix::fs::symlink("../../outside.py", repo.root.join("src/out.py")).unwrap();
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("lib/real.py", "def foo():\n    return 2\n");
    repo.write("lib/other.py", "X = 2\n");
    repo.commit("change the target");
    repo
}

fn spec_diff(repo: &Repo) -> Value {
    repo.server().call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": SPEC, "base_branch": "main"}),
    )
}

fn check(repo: &Repo) -> String {
    stdout(&notarai(&repo.root, &["check", "--base", "main"], b""))
}

#[test]
fn a_change_to_a_governed_links_target_is_shown_and_counted() {
    let repo = repo();
    let answer = spec_diff(&repo);
    let files: Vec<&str> = answer["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(files, ["lib/real.py"], "{answer}");
    assert!(
        answer["diff"].as_str().unwrap().contains("+    return 2"),
        "{answer}"
    );
    let out = check(&repo);
    assert!(
        out.contains("lib/real.py changed and is not reconciled with .notarai/a.spec.yaml"),
        "{out}"
    );
    assert!(out.contains("FAIL"), "{out}");
    // Control: the file no governed link points to stays ungoverned.
    assert!(
        out.contains("lib/other.py changed and no spec governs it"),
        "{out}"
    );
    // Once reviewed for the link's spec, the gate passes.
    let recorded = repo.server().call_ok(
        2,
        "mark_reconciled",
        json!({"files": ["lib/real.py"], "spec_path": SPEC}),
    );
    assert!(recorded.to_string().contains("a.spec.yaml"), "{recorded}");
    let out = check(&repo);
    assert!(
        !out.contains("lib/real.py changed and is not reconciled"),
        "{out}"
    );
}
