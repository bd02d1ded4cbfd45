//! The decision log (issue 41): a `decision` given to `mark_reconciled` or
//! `notarai reconcile --decision` is kept in the committed state for each
//! spec reconciled, merged by the merge driver, listed by `notarai
//! decisions`, the status tool and the pull request comment.

use serde_json::{Value, json};

use crate::common::{BIN, Repo, notarai, stderr, stdout};

fn state(repo: &Repo) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(repo.root.join(".notarai/reconciliation_state.json")).unwrap(),
    )
    .unwrap()
}

#[test]
fn reconcile_records_a_decision_listed_by_spec() {
    let repo = Repo::with_spec();
    repo.spec("b", &["lib/**"]);
    repo.write("lib/b.rs", "fn b() {}\n");
    repo.commit("b");
    repo.append("src/a.rs", "fn more() {}\n");
    let out = notarai(
        &repo.root,
        &[
            "reconcile",
            "src/a.rs",
            "--snapshot",
            "--decision",
            "kept the old retry count: the spec was wrong, fixed it",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("Recorded the decision for 1 spec(s)"),
        "{}",
        stdout(&out)
    );
    let decisions = &state(&repo)["decisions"][".notarai/a.spec.yaml"];
    assert_eq!(decisions.as_array().unwrap().len(), 1, "{decisions}");
    assert_eq!(
        decisions[0]["decision"],
        "kept the old retry count: the spec was wrong, fixed it"
    );
    assert_eq!(decisions[0]["paths"], json!(["src/a.rs"]));
    assert_eq!(decisions[0]["branch"], "feat");
    // A decision about the b spec, through --spec.
    let out = notarai(
        &repo.root,
        &[
            "reconcile",
            "lib/b.rs",
            "--spec",
            ".notarai/b.spec.yaml",
            "--decision",
            "b stays as it is",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));

    let all = stdout(&notarai(&repo.root, &["decisions"], b""));
    assert!(
        all.contains(".notarai/a.spec.yaml\n") && all.contains(".notarai/b.spec.yaml\n"),
        "{all}"
    );
    assert!(all.contains("(feat): kept the old retry count"), "{all}");
    assert!(all.contains("    files: src/a.rs"), "{all}");
    let one = stdout(&notarai(
        &repo.root,
        &[
            "decisions",
            "--spec",
            ".notarai/b.spec.yaml",
            "--format",
            "json",
        ],
        b"",
    ));
    let one: Value = serde_json::from_str(&one).unwrap();
    assert_eq!(one.as_array().unwrap().len(), 1, "{one}");
    assert_eq!(one[0]["spec_path"], ".notarai/b.spec.yaml");
    assert_eq!(one[0]["decision"], "b stays as it is");
    // An empty decision is refused before anything is written.
    let before = std::fs::read(repo.root.join(".notarai/reconciliation_state.json")).unwrap();
    let out = notarai(
        &repo.root,
        &["reconcile", "src/a.rs", "--decision", "  "],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("decision: empty"), "{}", stderr(&out));
    assert_eq!(
        before,
        std::fs::read(repo.root.join(".notarai/reconciliation_state.json")).unwrap()
    );
}

#[test]
fn mark_reconciled_takes_a_decision_the_status_and_the_comment_show() {
    let repo = Repo::with_spec();
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.append("src/a.rs", "fn more() {}\n");
    let mut server = repo.server();
    let marked = server.call_ok(
        1,
        "mark_reconciled",
        json!({"files": ["src/a.rs"], "decision": "accepted: the extra fn is a test helper", "snapshot": true}),
    );
    assert_eq!(marked["decisions_recorded"], 1, "{marked}");
    let status = server.call_ok(2, "get_reconciliation_status", json!({}));
    assert_eq!(
        status["decisions"][0]["spec_path"], ".notarai/a.spec.yaml",
        "{status}"
    );
    assert_eq!(
        status["decisions"][0]["decision"],
        "accepted: the extra fn is a test helper"
    );
    server.finish();
    repo.commit("reviewed");
    let out = notarai(
        &repo.root,
        &["check", "--base", "main", "--format", "markdown"],
        b"",
    );
    let body = stdout(&out);
    assert!(body.contains("#### Decisions on this branch"), "{body}");
    assert!(
        body.contains(
            "| `.notarai/a.spec.yaml` | accepted: the extra fn is a test helper | `src/a.rs` |"
        ),
        "{body}"
    );
}

#[test]
fn decisions_from_two_branches_merge_through_the_driver() {
    let repo = Repo::with_spec();
    repo.git(&["checkout", "-q", "main"]);
    repo.write(
        ".gitattributes",
        ".notarai/reconciliation_state.json merge=notarai\n",
    );
    repo.commit("attributes");
    repo.git(&[
        "config",
        "merge.notarai.driver",
        &format!("{BIN} state merge %O %A %B"),
    ]);
    let branch = |name: &str, file: &str, decision: &str| {
        repo.git(&["checkout", "-q", "-b", name, "main"]);
        repo.append(file, "more\n");
        let out = notarai(
            &repo.root,
            &["reconcile", file, "--snapshot", "--decision", decision],
            b"",
        );
        assert!(out.status.success(), "{}", stderr(&out));
        repo.commit(name);
    };
    branch("one", "src/a.rs", "one: the code was right");
    branch("two", "docs/a.md", "two: the docs follow the spec now");
    repo.git(&["checkout", "-q", "one"]);
    repo.git(&["merge", "-q", "--no-edit", "two"]);
    let merged = &state(&repo)["decisions"][".notarai/a.spec.yaml"];
    let texts: Vec<&str> = merged
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["decision"].as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 2, "{merged}");
    assert!(
        texts.contains(&"one: the code was right")
            && texts.contains(&"two: the docs follow the spec now"),
        "{texts:?}"
    );
    let listed = stdout(&notarai(&repo.root, &["decisions"], b""));
    assert!(
        listed.contains("(one): one: the code was right")
            && listed.contains("(two): two: the docs follow"),
        "{listed}"
    );
}

#[test]
fn a_long_decision_log_is_paged_not_repeated() {
    let repo = Repo::with_spec();
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("ignore the cache");
    let wanted: Vec<String> = (0..30)
        .map(|i| {
            format!(
                "decision {i:02}: {}",
                "the reason is long. ".repeat(10).trim_end()
            )
        })
        .collect();
    for (i, decision) in wanted.iter().enumerate() {
        repo.append("src/a.rs", &format!("fn more{i}() {{}}\n"));
        let out = notarai(
            &repo.root,
            &["reconcile", "src/a.rs", "--decision", decision],
            b"",
        );
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let mut server = repo.server();
    let mut seen: Vec<String> = Vec::new();
    let mut args = json!({"base_branch": "main", "max_tokens": 1_000});
    let mut pages = 0;
    loop {
        let page = server.call_ok(10 + pages, "get_reconciliation_status", args.clone());
        pages += 1;
        assert!(
            page.to_string().len() <= 3_000,
            "page over its budget: {page}"
        );
        for d in page["decisions"].as_array().into_iter().flatten() {
            seen.push(d["decision"].as_str().unwrap().to_string());
        }
        match page.get("next_cursor") {
            Some(cursor) => args["cursor"] = cursor.clone(),
            None => break,
        }
    }
    server.finish();
    assert!(pages > 1, "30 long decisions fit one page of 1,000 tokens?");
    let mut got = seen.clone();
    got.sort();
    got.dedup();
    assert_eq!(got.len(), seen.len(), "a decision served twice: {seen:?}");
    assert_eq!(got, wanted);
}
