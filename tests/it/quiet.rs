//! Changes that need no review although no tier says so (`review::quiet`):
//! a moved pin (dependency, tool or CI action version, commit hash) in a
//! configuration file, and a spec's tests changed alone. Each is listed as
//! housekeeping with its reason by the status, `get_spec_diff` and
//! `list_affected_specs`, never a review flag, and `check` warns instead of
//! failing; anything else stays a review. Also: a status lists only the
//! specs with something left, and a diff carries its spec's text once.

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stdout};

/// A spec of code, its tests, CI and the module file.
const SPEC: &str = "schema_version: '0.8'\nintent: The app\nbehaviors:\n  - name: serve\n    given: a request\n    then: an answer\n    tested_by:\n      - path: checks/serve_check.py\nconstraints:\n  - 'Never blocks'\nartifacts:\n  code:\n    - path: 'src/**'\n  tests:\n    - path: 'tests/**'\n  ci:\n    - path: '.github/**'\n  config:\n    - path: go.mod\n  test:\n    - path: 'checks/**'\n";

const CI: &str = "jobs:\n  test:\n    steps:\n      - uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0\n      - uses: actions/setup-go@v5\n      - run: go test ./...\n";

const GO_MOD: &str =
    "module example.com/app\n\ngo 1.23\n\nrequire (\n\tgolang.org/x/net v0.55.0\n)\n";

/// A repository on branch `feat` with the spec committed on `main`.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.write(".notarai/app.spec.yaml", SPEC);
    repo.write("src/app.py", "def serve():\n    return 1\n");
    repo.write("tests/test_app.py", "def test_serve():\n    assert True\n");
    repo.write("checks/serve_check.py", "def check():\n    pass\n");
    repo.write(".github/workflows/ci.yml", CI);
    repo.write("go.mod", GO_MOD);
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

const SPEC_PATH: &str = ".notarai/app.spec.yaml";

/// The status entry of the spec.
fn entry(status: &Value) -> &Value {
    status["specs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["spec_path"] == SPEC_PATH)
        .unwrap_or_else(|| panic!("{status}"))
}

#[test]
fn a_moved_pin_is_housekeeping_with_its_reason() {
    let repo = repo();
    let ci = CI
        .replace(
            "08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0",
            "93cb6efe18208431cddfb8368fd83d5badbf9bfd # v5.0.1",
        )
        .replace("setup-go@v5", "setup-go@v6");
    repo.write(".github/workflows/ci.yml", &ci);
    repo.write("go.mod", GO_MOD.replace("v0.55.0", "v0.56.0"));
    let mut server = repo.server();
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    assert_eq!(status["nothing_to_review"], true, "{status}");
    let spec = entry(&status);
    assert_eq!(
        spec["housekeeping_reasons"],
        json!({".github/workflows/ci.yml": "versions", "go.mod": "versions"}),
        "{status}"
    );
    let diff = server.call_ok(2, "get_spec_diff", json!({"spec_path": SPEC_PATH}));
    assert_eq!(diff["diff"], "", "{diff}");
    assert_eq!(
        diff["housekeeping"],
        json!([".github/workflows/ci.yml", "go.mod"])
    );
    assert_eq!(diff["housekeeping_reasons"]["go.mod"], "versions");
    assert!(diff.get("spec").is_none(), "nothing to review: {diff}");
    let listed = server.call_ok(3, "list_affected_specs", json!({}));
    assert_eq!(
        listed["affected_specs"][0]["all_reconciled"], true,
        "{listed}"
    );
    assert_eq!(listed["affected_specs"][0]["housekeeping_count"], 2);
    server.finish();
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("housekeeping: only pinned versions changed"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_projects_own_version_or_a_changed_step_is_a_review() {
    let repo = repo();
    // The minimum Go version is a setting of this project, not a pin.
    repo.write("go.mod", GO_MOD.replace("go 1.23", "go 1.24"));
    // A new CI step beside a moved pin.
    repo.write(
        ".github/workflows/ci.yml",
        CI.replace("setup-go@v5", "setup-go@v6") + "      - run: go vet ./...\n",
    );
    let mut server = repo.server();
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    assert_eq!(status["nothing_to_review"], false, "{status}");
    assert_eq!(
        entry(&status)["unreconciled"],
        json!([".github/workflows/ci.yml", "go.mod"])
    );
    let diff = server.call_ok(2, "get_spec_diff", json!({"spec_path": SPEC_PATH}));
    assert_eq!(
        diff["files"],
        json!([".github/workflows/ci.yml", "go.mod"]),
        "{diff}"
    );
    assert!(diff.get("housekeeping_reasons").is_none(), "{diff}");
    server.finish();
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn tests_changed_alone_are_housekeeping_with_code_they_are_reviewed() {
    let repo = repo();
    repo.write(
        "tests/test_app.py",
        "def test_serve():\n    assert serve() == 1\n",
    );
    repo.write("checks/serve_check.py", "def check():\n    return 2\n");
    let mut server = repo.server();
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    assert_eq!(status["nothing_to_review"], true, "{status}");
    assert_eq!(
        entry(&status)["housekeeping_reasons"],
        json!({"checks/serve_check.py": "tests_only", "tests/test_app.py": "tests_only"}),
        "{status}"
    );
    let diff = server.call_ok(2, "get_spec_diff", json!({"spec_path": SPEC_PATH}));
    assert_eq!(diff["files"], json!([]), "{diff}");
    assert_eq!(diff["diff"], "");
    assert_eq!(
        diff["housekeeping"],
        json!(["checks/serve_check.py", "tests/test_app.py"])
    );
    server.finish();
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));

    // With the code, the tests are part of the review; the spec's text
    // comes with the diff, once.
    repo.write("src/app.py", "def serve():\n    return 2\n");
    let mut server = repo.server();
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    assert_eq!(
        entry(&status)["unreconciled"],
        json!(["checks/serve_check.py", "src/app.py", "tests/test_app.py"]),
        "{status}"
    );
    let diff = server.call_ok(2, "get_spec_diff", json!({"spec_path": SPEC_PATH}));
    assert_eq!(
        diff["files"],
        json!(["checks/serve_check.py", "src/app.py", "tests/test_app.py"]),
        "{diff}"
    );
    assert_eq!(diff["spec"]["intent"], "The app", "{diff}");
    assert_eq!(diff["spec"]["constraints"], json!(["Never blocks"]));
    assert!(diff.get("plan").is_none(), "one page needs no plan: {diff}");
    // Recorded, the spec has nothing left: the status only counts it.
    server.call_ok(
        3,
        "mark_reconciled",
        json!({"files": ["checks/serve_check.py", "src/app.py", "tests/test_app.py"]}),
    );
    let status = server.call_ok(4, "get_reconciliation_status", json!({}));
    assert_eq!(status["specs"], json!([]), "{status}");
    assert_eq!(status["totals"]["reconciled_specs"], 1, "{status}");
    assert_eq!(status["nothing_to_review"], true);
    server.finish();
}

#[test]
fn export_context_names_the_quiet_files_and_why() {
    let repo = repo();
    repo.write("go.mod", GO_MOD.replace("v0.55.0", "v0.56.0"));
    repo.write("src/app.py", "def serve():\n    return 3\n");
    let out = notarai(&repo.root, &["export-context", "--base", "main"], b"");
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("only pinned versions changed"),
        "the reason is shown: {text}"
    );
}

#[test]
fn a_pin_moved_after_a_reviewed_edit_is_judged_since_the_review() {
    let repo = repo();
    // An edit of the workflow, reviewed and recorded.
    let edited = CI.to_string() + "      - run: go vet ./...\n";
    repo.write(".github/workflows/ci.yml", &edited);
    let mut server = repo.server();
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    assert_eq!(
        entry(&status)["unreconciled"],
        json!([".github/workflows/ci.yml"])
    );
    server.call_ok(
        2,
        "mark_reconciled",
        json!({"files": [".github/workflows/ci.yml"]}),
    );
    // Then only a pin moves: the status, the diff and check agree.
    repo.write(
        ".github/workflows/ci.yml",
        edited.replace("setup-go@v5", "setup-go@v6"),
    );
    let status = server.call_ok(3, "get_reconciliation_status", json!({}));
    assert_eq!(status["nothing_to_review"], true, "{status}");
    assert_eq!(
        entry(&status)["housekeeping_reasons"][".github/workflows/ci.yml"],
        "versions",
        "{status}"
    );
    let diff = server.call_ok(4, "get_spec_diff", json!({"spec_path": SPEC_PATH}));
    assert_eq!(diff["files"], json!([]), "{diff}");
    assert_eq!(
        diff["housekeeping_reasons"][".github/workflows/ci.yml"],
        "versions"
    );
    server.finish();
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}
