//! `mark_reconciled` says what is left for the pass's base (`left`, the
//! status's `totals.unreconciled` after the record), so a pass that is done
//! needs no status call to know it; with a base that does not resolve, the
//! call fails before anything is recorded.

use serde_json::json;

use crate::common::Repo;

#[test]
fn left_counts_what_the_status_still_lists() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    repo.write("docs/a.md", "# A, changed\n");
    let mut server = repo.server();
    let one = server.call_ok(
        1,
        "mark_reconciled",
        json!({"files": ["src/a.rs"], "base_branch": "main"}),
    );
    assert_eq!(one["left"], 1, "{one}");
    let status = server.call_ok(
        2,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    assert_eq!(status["totals"]["unreconciled"], 1, "{status}");
    let all = server.call_ok(
        3,
        "mark_reconciled",
        json!({"files": ["docs/a.md"], "base_branch": "main"}),
    );
    assert_eq!(all["left"], 0, "{all}");
    // The base the other tools choose when none is named (`main` here).
    repo.write("src/a.rs", "fn c() {}\n");
    let default = server.call_ok(4, "mark_reconciled", json!({"files": ["docs/a.md"]}));
    assert_eq!(default["left"], 1, "{default}");
}

#[test]
fn a_base_that_does_not_resolve_records_nothing() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    let mut server = repo.server();
    let answer = server.call(
        1,
        "mark_reconciled",
        json!({"files": ["src/a.rs"], "base_branch": "no-such-branch"}),
    );
    let text = answer.to_string();
    assert!(text.contains("no-such-branch"), "{text}");
    let status = server.call_ok(
        2,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    assert_eq!(status["totals"]["unreconciled"], 1, "{status}");
}
