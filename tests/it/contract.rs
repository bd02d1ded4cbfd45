//! The seed contract (`notarai-mcp-server.md`), field by field, through
//! the real binary: each tool's parameters, the fields of its answer (the
//! contract's are always present, empty lists included) and their
//! semantics, the cache behaviour and the error codes. A change that drifts
//! from the contract fails here.

use serde_json::{Value, json};

use crate::common::{Repo, Server, strings};

/// A system spec (it has `subsystems`) governing `README.md`, and a module
/// spec governing `src/**` and `docs/**`.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.write(
        ".notarai/system.spec.yaml",
        "schema_version: '0.7'\nintent: The system.\nbehaviors:\n  - name: whole\n    given: g\n    then: t\nsubsystems:\n  - $ref: auth.spec.yaml\nartifacts:\n  docs:\n    - path: README.md\n",
    );
    repo.write(
        ".notarai/auth.spec.yaml",
        "schema_version: '0.7'\nintent: Auth.\nbehaviors:\n  - name: login\n    given: a user\n    then: a session\nconstraints:\n  - sessions expire\ninvariants:\n  - no anonymous access\nartifacts:\n  code:\n    - path: 'src/**'\n  docs:\n    - path: 'docs/**'\n",
    );
    repo.write("README.md", "# R\n");
    repo.write("src/auth.rs", "fn login() {}\n");
    repo.write("src/utils.rs", "fn util() {}\n");
    repo.write("docs/auth.md", "# Auth\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

/// The keys of an object.
fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {value}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    keys
}

fn has_all(value: &Value, fields: &[&str]) {
    for field in fields {
        assert!(
            value.get(field).is_some(),
            "the contract's `{field}` is missing: {value}"
        );
    }
}

#[test]
fn list_affected_specs_returns_changed_files_and_each_specs_behaviors_constraints_invariants() {
    let repo = repo();
    repo.append("src/auth.rs", "fn logout() {}\n");
    let mut server = repo.server();
    let answer = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    has_all(&answer, &["changed_files", "affected_specs"]);
    assert_eq!(strings(&answer["changed_files"]), ["src/auth.rs"]);
    let specs = answer["affected_specs"].as_array().unwrap();
    assert_eq!(specs.len(), 1, "{answer}");
    let spec = &specs[0];
    has_all(
        spec,
        &["spec_path", "behaviors", "constraints", "invariants"],
    );
    assert_eq!(spec["spec_path"], ".notarai/auth.spec.yaml");
    assert_eq!(spec["behaviors"][0]["name"], "login");
    assert_eq!(spec["constraints"], json!(["sessions expire"]));
    assert_eq!(spec["invariants"], json!(["no anonymous access"]));
    // Reconciled: the texts are empty, the fields still there.
    server.call_ok(2, "mark_reconciled", json!({"files": ["src/auth.rs"]}));
    let again = server.call_ok(3, "list_affected_specs", json!({"base_branch": "main"}));
    let spec = &again["affected_specs"][0];
    has_all(
        spec,
        &["spec_path", "behaviors", "constraints", "invariants"],
    );
    // A missing required parameter of another tool, and an unknown tool.
    let missing = server.call(4, "get_spec_diff", json!({}));
    assert_eq!(Server::error_of(&missing).0, -32602, "{missing}");
    assert!(
        Server::error_of(&missing).1.contains("spec_path"),
        "{missing}"
    );
    let unknown = server.request(5, "no/such", json!({}));
    assert_eq!(Server::error_of(&unknown).0, -32601, "{unknown}");
    server.send_raw(b"{not json\n");
    let parse = server.recv();
    assert_eq!(Server::error_of(&parse).0, -32700, "{parse}");
    assert_eq!(parse["id"], Value::Null);
    server.finish();
}

#[test]
fn get_spec_diff_has_every_contract_field_and_its_meaning() {
    let repo = repo();
    repo.append("src/auth.rs", "fn logout() {}\n");
    repo.append("src/utils.rs", "fn more() {}\n");
    repo.write("Cargo.lock", "# lock\n");
    let mut server = repo.server();
    let args = json!({"spec_path": ".notarai/auth.spec.yaml", "base_branch": "main",
        "exclude_patterns": ["*.md"]});
    // Cold cache: every governed changed file is in the diff.
    let cold = server.call_ok(1, "get_spec_diff", args.clone());
    has_all(
        &cold,
        &[
            "diff",
            "files",
            "skipped",
            "excluded",
            "spec_changes",
            "system_spec",
        ],
    );
    assert_eq!(strings(&cold["files"]), ["src/auth.rs", "src/utils.rs"]);
    assert_eq!(cold["skipped"], json!([]));
    // `excluded`: the patterns passed.
    assert_eq!(cold["excluded"], json!(["*.md"]));
    assert_eq!(cold["spec_changes"], json!([]));
    assert_eq!(
        cold["system_spec"],
        Value::Null,
        "null when no spec changed"
    );
    let diff = cold["diff"].as_str().unwrap();
    assert!(
        diff.contains("+fn logout() {}") && diff.contains("+fn more() {}"),
        "{diff}"
    );
    // A file whose hash matches the cache is skipped, not diffed: counted
    // (`skipped_count`), listed in `skipped` with `full_lists` (issue 42:
    // the list grows with the branch, not with the change).
    server.call_ok(2, "mark_reconciled", json!({"files": ["src/utils.rs"]}));
    let counted = server.call_ok(3, "get_spec_diff", args.clone());
    assert_eq!(counted["skipped"], json!([]), "{counted}");
    assert_eq!(counted["skipped_count"], 1, "{counted}");
    let mut args = args;
    args["full_lists"] = json!(true);
    let warm = server.call_ok(3, "get_spec_diff", args.clone());
    assert_eq!(strings(&warm["files"]), ["src/auth.rs"]);
    assert_eq!(strings(&warm["skipped"]), ["src/utils.rs"]);
    assert!(!warm["diff"].as_str().unwrap().contains("more"), "{warm}");
    // `bypass_cache` diffs everything and leaves the cache as it was.
    let mut bypass = args.clone();
    bypass["bypass_cache"] = json!(true);
    let all = server.call_ok(4, "get_spec_diff", bypass);
    assert_eq!(strings(&all["files"]), ["src/auth.rs", "src/utils.rs"]);
    assert_eq!(all["skipped"], json!([]));
    let after = server.call_ok(5, "get_spec_diff", args.clone());
    assert_eq!(
        strings(&after["skipped"]),
        ["src/utils.rs"],
        "the cache kept"
    );
    // A changed spec file: its full content in `spec_changes`, the system
    // spec in full in `system_spec`.
    repo.append(".notarai/auth.spec.yaml", "# more\n");
    let spec = server.call_ok(6, "get_spec_diff", args.clone());
    let changes = spec["spec_changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{spec}");
    assert_eq!(keys(&changes[0]), ["content", "diff", "path"]);
    assert!(
        changes[0]["diff"].as_str().unwrap().contains("+# more"),
        "its diff against the base: {spec}"
    );
    assert_eq!(changes[0]["path"], ".notarai/auth.spec.yaml");
    assert!(
        changes[0]["content"]
            .as_str()
            .unwrap()
            .ends_with("# more\n")
    );
    assert_eq!(spec["system_spec"]["path"], ".notarai/system.spec.yaml");
    assert!(
        spec["system_spec"]["content"]
            .as_str()
            .unwrap()
            .contains("subsystems"),
        "{spec}"
    );
    // The system spec itself changed: in `spec_changes` in full, and only
    // its path in `system_spec`.
    repo.append(".notarai/system.spec.yaml", "# sys\n");
    let system = server.call_ok(
        7,
        "get_spec_diff",
        json!({"spec_path": ".notarai/system.spec.yaml", "base_branch": "main"}),
    );
    let changes = system["spec_changes"].as_array().unwrap();
    assert!(
        changes
            .iter()
            .any(|c| c["path"] == ".notarai/system.spec.yaml"),
        "{system}"
    );
    assert_eq!(
        system["system_spec"],
        json!({"path": ".notarai/system.spec.yaml"}),
        "{system}"
    );
    server.finish();
}

#[test]
fn get_changed_artifacts_lists_what_differs_from_the_cache_by_type() {
    let repo = repo();
    repo.append("src/auth.rs", "fn logout() {}\n");
    repo.append("docs/auth.md", "more\n");
    let mut server = repo.server();
    let spec = ".notarai/auth.spec.yaml";
    let all = server.call_ok(1, "get_changed_artifacts", json!({"spec_path": spec}));
    assert_eq!(
        strings(&all["changed_artifacts"]),
        ["docs/auth.md", "src/auth.rs"]
    );
    let docs = server.call_ok(
        2,
        "get_changed_artifacts",
        json!({"spec_path": spec, "artifact_type": "docs"}),
    );
    assert_eq!(strings(&docs["changed_artifacts"]), ["docs/auth.md"]);
    server.call_ok(3, "mark_reconciled", json!({"files": ["docs/auth.md"]}));
    let docs = server.call_ok(
        4,
        "get_changed_artifacts",
        json!({"spec_path": spec, "artifact_type": "docs"}),
    );
    assert_eq!(docs["changed_artifacts"], json!([]), "{docs}");
    server.finish();
}

#[test]
fn mark_reconciled_records_what_exists_and_skips_what_does_not() {
    let repo = repo();
    repo.append("src/auth.rs", "fn logout() {}\n");
    let mut server = repo.server();
    let marked = server.call_ok(
        1,
        "mark_reconciled",
        json!({"files": ["src/auth.rs", "src/typo.rs"]}),
    );
    assert_eq!(marked["updated"], 1, "{marked}");
    assert_eq!(marked["not_found"], json!(["src/typo.rs"]), "{marked}");
    // The file that exists was recorded.
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/auth.spec.yaml", "base_branch": "main", "full_lists": true}),
    );
    assert_eq!(strings(&diff["skipped"]), ["src/auth.rs"], "{diff}");
    // Only missing paths: nothing updated, not an error.
    let none = server.call_ok(3, "mark_reconciled", json!({"files": ["nope.rs"]}));
    assert_eq!(none["updated"], 0, "{none}");
    assert_eq!(none["not_found"], json!(["nope.rs"]), "{none}");
    // A path outside the repository is still refused.
    let outside = server.call(4, "mark_reconciled", json!({"files": ["../x"]}));
    assert!(
        outside.get("error").is_some() || outside["result"]["isError"] == json!(true),
        "{outside}"
    );
    server.finish();
}

#[test]
fn clear_cache_says_whether_a_database_was_deleted() {
    let repo = repo();
    repo.append("src/auth.rs", "fn logout() {}\n");
    let mut server = repo.server();
    server.call_ok(1, "mark_reconciled", json!({"files": ["src/auth.rs"]}));
    let first = server.call_ok(2, "clear_cache", json!({}));
    assert_eq!(keys(&first), ["cleared"]);
    assert_eq!(first["cleared"], true);
    assert!(!repo.db().exists());
    let second = server.call_ok(3, "clear_cache", json!({}));
    assert_eq!(second["cleared"], false);
    // The cold cache diffs every governed file again.
    let diff = server.call_ok(
        4,
        "get_spec_diff",
        json!({"spec_path": ".notarai/auth.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(strings(&diff["files"]), ["src/auth.rs"]);
    server.finish();
}
