//! `notarai score` (issue 41): specs ranked by how likely they drifted,
//! each score the sum of its parts, shown in the pull request comment.

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stderr, stdout};

const A: &str = "schema_version: '0.7'\nintent: The a part computes the answer.\nbehaviors:\n  - name: f\n    given: input\n    then: output\nartifacts:\n  code:\n    - path: 'src/a.rs#f'\n";
const B: &str = "schema_version: '0.7'\nintent: TODO\nbehaviors:\n  - name: b\n    given: input\n    then: output\nartifacts:\n  code:\n    - path: 'lib/**'\n";

#[test]
fn scores_rank_specs_and_add_up_from_their_parts() {
    let repo = Repo::new();
    repo.write(".notarai/a.spec.yaml", A);
    repo.write(".notarai/b.spec.yaml", B);
    repo.write(
        "src/a.rs",
        "fn f() -> i32 {\n    1\n}\n\nfn g() -> i32 {\n    2\n}\n",
    );
    repo.write("lib/b.rs", "fn b() {}\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    let out = notarai(&repo.root, &["state", "snapshot"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    repo.commit("snapshot");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write(
        "src/a.rs",
        "fn f() -> i32 {\n    41 + 1\n}\n\nfn g() -> i32 {\n    2\n}\n",
    );
    repo.commit("f changes");
    repo.write("lib/b.rs", "fn b() { let _ = 1; }\n");
    repo.commit("b changes");
    let mut server = repo.server();
    server.call_ok(
        1,
        "report_drift",
        json!({"spec_path": ".notarai/a.spec.yaml", "note": "f no longer returns 1"}),
    );
    server.finish();
    let hash = {
        let state: Value = serde_json::from_str(
            &std::fs::read_to_string(repo.root.join(".notarai/reconciliation_state.json")).unwrap(),
        )
        .unwrap();
        state["last_reconciliation"]["git_hash"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let commits: u64 = repo
        .git(&["rev-list", "--count", &format!("{hash}..HEAD")])
        .trim()
        .parse()
        .unwrap();
    assert!(commits >= 2);

    let out = notarai(
        &repo.root,
        &["score", "--base", "main", "--format", "json"],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let specs = report["specs"].as_array().unwrap();
    assert_eq!(specs.len(), 2, "{report}");
    let part = |s: &Value, name: &str| -> Option<(u64, u64)> {
        s["parts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["part"] == name)
            .map(|p| (p["count"].as_u64().unwrap(), p["points"].as_u64().unwrap()))
    };
    for s in specs {
        let sum: u64 = s["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["points"].as_u64().unwrap())
            .sum();
        assert_eq!(s["score"].as_u64().unwrap(), sum, "{s}");
        for p in s["parts"].as_array().unwrap() {
            let (count, weight) = (p["count"].as_u64().unwrap(), p["weight"].as_u64().unwrap());
            assert!(p["points"].as_u64().unwrap() <= count * weight, "{p}");
        }
    }
    // a: its anchored symbol changed (3), an open drift note (4), the commits since the snapshot.
    let a = &specs[0];
    assert_eq!(a["spec_path"], ".notarai/a.spec.yaml", "{report}");
    assert_eq!(part(a, "unreconciled_anchored"), Some((1, 3)), "{a}");
    assert_eq!(part(a, "open_drift_notes"), Some((1, 4)), "{a}");
    assert_eq!(
        part(a, "commits_since_reconciled"),
        Some((commits, commits)),
        "{a}"
    );
    assert_eq!(part(a, "unreconciled_files"), None, "{a}");
    // b: a whole file (1), its placeholder intent (a lint warning, 1), the commits.
    let b = &specs[1];
    assert_eq!(part(b, "unreconciled_files"), Some((1, 1)), "{b}");
    assert_eq!(part(b, "lint_warnings"), Some((1, 1)), "{b}");
    assert_eq!(b["score"].as_u64().unwrap(), 2 + commits, "{b}");
    assert!(a["score"].as_u64().unwrap() > b["score"].as_u64().unwrap());

    // The status tool shows the top of it, from what it knows (no lint):
    // a the same, b without its lint warning.
    let mut server = repo.server();
    let status = server.call_ok(
        2,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    server.finish();
    let top = status["top_scores"].as_array().expect("top_scores");
    assert_eq!(top.len(), 2, "{status}");
    assert_eq!(top[0]["spec_path"], ".notarai/a.spec.yaml", "{status}");
    assert_eq!(top[0]["score"], a["score"], "{status}");
    assert_eq!(top[1]["spec_path"], ".notarai/b.spec.yaml", "{status}");
    assert_eq!(top[1]["score"].as_u64().unwrap(), 1 + commits, "{status}");
    assert!(part(&top[1], "lint_warnings").is_none(), "{status}");

    let text = stdout(&notarai(&repo.root, &["score", "--base", "main"], b""));
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains(".notarai/a.spec.yaml"),
        "{text}"
    );
    assert!(text.contains("unreconciled_anchored 1 x 3 = 3"), "{text}");
    let body = stdout(&notarai(
        &repo.root,
        &["check", "--base", "main", "--format", "markdown"],
        b"",
    ));
    assert!(body.contains("#### Most likely to have drifted"), "{body}");
    assert!(
        body.contains(&format!("| `.notarai/a.spec.yaml` | {} |", a["score"])),
        "{body}"
    );

    // Reconciled and the note closed: a scores nothing.
    let out = notarai(
        &repo.root,
        &["reconcile", "src/a.rs", ".notarai/a.spec.yaml"],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = notarai(
        &repo.root,
        &["score", "--base", "main", "--format", "json"],
        b"",
    );
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(
        report["specs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["spec_path"] != ".notarai/a.spec.yaml"),
        "{report}"
    );
    // One spec left to look at: no ranking to show.
    let mut server = repo.server();
    let status = server.call_ok(
        3,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    server.finish();
    assert!(status.get("top_scores").is_none(), "{status}");
}
