//! Spec format 0.8 on a realistic project, `exclude` as the format means it,
//! and one verdict on a spec from `validate`, the hook and the MCP server.
//! Everything goes through the built binary.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{Repo, Server, notarai, notarai_cmd, run, stderr, stdout, strings};
use serde_json::{Value, json};

const SYSTEM: &str = "# yaml-language-server: $schema=./notarai.spec.json
schema_version: '0.8'
intent: |
  A small web shop: accounts, billing, an HTTP API and a command line.
behaviors:
  - name: checkout
    given: a signed-in user with a full cart
    then: the order is paid and confirmed by email
    tested_by:
      - path: tests/e2e/checkout.rs
        assertion: checkout_pays_and_confirms
subsystems:
  - $ref: ./auth.spec.yaml
  - $ref: ./billing.spec.yaml
  - $ref: ./api.spec.yaml
  - $ref: ./cli.spec.yaml
  - $ref: ./docs.spec.yaml
applies:
  - $ref: ./_shared/style.spec.yaml
  - $ref: ./_shared/security.spec.yaml
artifacts:
  docs:
    - path: README.md
  configs:
    - path: Cargo.toml
exclude:
  - '.claude/**'
  - 'target/**'
coverage:
  policy: warn
";

const AUTH: &str = "schema_version: '0.8'
intent: Users sign up, log in and stay signed in for 30 minutes.
behaviors:
  - name: signup
    given: a valid email and a password of at least 12 characters
    then: an account is created
    tested_by:
      - path: tests/auth/signup.rs
        assertion: signup_creates_account
  - name: session_timeout
    given: 30 minutes without a request
    then: the session ends
    tested_by:
      - path: tests/auth/session.rs
decisions:
  - date: '2025-02-01'
    choice: JWT over session cookies
    rationale: stateless scaling
    status: accepted
    origin: design-review
    related_files:
      - src/auth/jwt.rs
  - date: '2025-03-10'
    choice: passkeys
    status: proposed
applies:
  - $ref: ./_shared/security.spec.yaml
artifacts:
  code:
    - path: 'src/auth/**'
  tests:
    - path: 'tests/auth/**'
";

const BILLING: &str = "schema_version: '0.8'
intent: Orders are charged once, in the customer's currency.
behaviors:
  - name: charge_once
    given: an order paid twice by a retried request
    then: the card is charged once
    tested_by:
      - path: tests/billing.rs
dependencies:
  - $ref: ./auth.spec.yaml
    relationship: billing reads the signed-in user from auth
artifacts:
  code:
    - path: 'src/billing/**'
  tests:
    - path: tests/billing.rs
";

const API: &str = "schema_version: '0.7'
intent: The HTTP API the web front end calls.
behaviors:
  - name: errors_are_json
    given: any failing request
    then: the answer is a JSON error with a code
artifacts:
  code:
    - path: 'src/api/**'
";

const CLI: &str = "schema_version: '0.6'
intent: An admin command line.
behaviors:
  - name: help
    given: '`shop --help`'
    then: every command is listed
artifacts:
  code:
    - path: src/main.rs
";

const DOCS: &str = "schema_version: '0.8'
tier: registered
intent: The user guide.
artifacts:
  docs:
    - path: 'docs/**'
";

const STYLE: &str = "schema_version: '0.8'
cross_cutting: true
intent: Code and docs follow one house style.
behaviors:
  - name: formatted
    given: any change to code
    then: rustfmt leaves it unchanged
    tested_by:
      - path: tests/style.rs
constraints:
  - rustfmt defaults, no exceptions
";

const SECURITY: &str = "schema_version: '0.8'
cross_cutting: true
tier: registered
intent: Secrets never leave the server.
invariants:
  - no secret is logged or returned in an answer
";

/// The 0.8 project of the issue: eight specs, two of them cross-cutting
/// (no artifacts, pulled in by `applies`), behaviors with `tested_by`,
/// committed on `main`, branch `feat` checked out.
fn shop() -> Repo {
    let repo = Repo::new();
    for (path, text) in [
        (".notarai/system.spec.yaml", SYSTEM),
        (".notarai/auth.spec.yaml", AUTH),
        (".notarai/billing.spec.yaml", BILLING),
        (".notarai/api.spec.yaml", API),
        (".notarai/cli.spec.yaml", CLI),
        (".notarai/docs.spec.yaml", DOCS),
        (".notarai/_shared/style.spec.yaml", STYLE),
        (".notarai/_shared/security.spec.yaml", SECURITY),
    ] {
        repo.write(path, text);
    }
    for file in [
        "README.md",
        "Cargo.toml",
        "src/main.rs",
        "src/auth/mod.rs",
        "src/auth/jwt.rs",
        "src/billing/mod.rs",
        "src/api/mod.rs",
        "docs/guide.md",
        "tests/e2e/checkout.rs",
        "tests/auth/signup.rs",
        "tests/auth/session.rs",
        "tests/billing.rs",
        "tests/style.rs",
        ".claude/settings.json",
    ] {
        repo.write(file, format!("// {file}\n"));
    }
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("shop");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

fn validate_json(root: &Path) -> (Output, Value) {
    let out = notarai(
        root,
        &[
            "validate",
            "--format",
            "json",
            "--root",
            root.to_str().unwrap(),
        ],
        b"",
    );
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    (out, report)
}

/// `notarai hook validate` on an Edit of `rel`, as Claude Code sends it.
fn hook(root: &Path, rel: &str) -> Output {
    let event = json!({
        "session_id": "s",
        "hook_event_name": "PostToolUse",
        "cwd": root,
        "tool_name": "Edit",
        "tool_input": {"file_path": root.join(rel), "old_string": "a", "new_string": "b"},
        "tool_response": {"success": true}
    });
    run(
        notarai_cmd(root, &["hook", "validate"]),
        &serde_json::to_vec(&event).unwrap(),
    )
}

fn instructions(root: &Path) -> String {
    let mut server = Server::spawn(root);
    let info = server.initialize();
    server.finish();
    info["instructions"].as_str().unwrap().to_string()
}

#[test]
fn a_real_0_8_project_loads_with_no_error_anywhere() {
    let repo = shop();
    let root = &repo.root;
    // validate: every spec passes, with no error and no warning at all.
    let (out, report) = validate_json(root);
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["ok"], true);
    assert_eq!(report["files"].as_array().unwrap().len(), 8, "{report:#}");
    assert_eq!(report["findings"], json!([]), "{report:#}");

    // Edits on the branch: code, a test, both cross-cutting specs and a 0.8 spec.
    repo.append("src/auth/jwt.rs", "fn rotate() {}\n");
    repo.append(
        "tests/auth/session.rs",
        "const _: u8 = 18; // timeout test\n",
    );
    repo.append(
        ".notarai/_shared/style.spec.yaml",
        "invariants:\n  - no tabs in code\n",
    );
    repo.append(
        ".notarai/auth.spec.yaml",
        "constraints:\n  - passwords are hashed with argon2id\n",
    );
    repo.append(
        ".notarai/_shared/security.spec.yaml",
        "constraints:\n  - tokens expire\n",
    );

    // The hook passes every spec edit.
    for spec in [
        ".notarai/system.spec.yaml",
        ".notarai/auth.spec.yaml",
        ".notarai/_shared/style.spec.yaml",
        ".notarai/_shared/security.spec.yaml",
        ".notarai/docs.spec.yaml",
    ] {
        let out = hook(root, spec);
        assert_eq!(out.status.code(), Some(0), "{spec}: {}", stderr(&out));
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{spec}");
    }

    // The server loads all eight specs and reports no invalid one.
    let text = instructions(root);
    assert!(text.contains("Specs loaded: 8."), "{text}");
    assert!(
        text.contains("System spec: \".notarai/system.spec.yaml\"."),
        "{text}"
    );
    assert!(!text.contains("error"), "{text}");

    let mut server = repo.server();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(affected["invalid_specs"], json!([]), "{affected:#}");
    let by_spec: Vec<(String, Vec<String>)> = affected["affected_specs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["spec_path"].as_str().unwrap().to_string(),
                strings(&s["matched_files"]),
            )
        })
        .collect();
    assert_eq!(
        by_spec,
        vec![
            (
                ".notarai/_shared/security.spec.yaml".to_string(),
                vec![".notarai/_shared/security.spec.yaml".to_string()]
            ),
            (
                ".notarai/_shared/style.spec.yaml".to_string(),
                vec![".notarai/_shared/style.spec.yaml".to_string()]
            ),
            (
                ".notarai/auth.spec.yaml".to_string(),
                vec![
                    ".notarai/auth.spec.yaml".to_string(),
                    "src/auth/jwt.rs".to_string(),
                    "tests/auth/session.rs".to_string()
                ]
            ),
        ],
        "{affected:#}"
    );
    // The auth spec's behaviors come back as written, tested_by included.
    let auth = &affected["affected_specs"][2];
    assert_eq!(
        auth["behaviors"][0]["tested_by"],
        json!([{"path": "tests/auth/signup.rs", "assertion": "signup_creates_account"}])
    );

    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/auth.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(
        strings(&diff["files"]),
        ["src/auth/jwt.rs", "tests/auth/session.rs"]
    );
    assert_eq!(diff["file_categories"]["src/auth/jwt.rs"], "code");
    assert_eq!(diff["file_categories"]["tests/auth/session.rs"], "tests");
    assert!(diff["diff"].as_str().unwrap().contains("+fn rotate() {}"));
    assert_eq!(diff["spec_changes"][0]["path"], ".notarai/auth.spec.yaml");
    assert_eq!(diff["system_spec"]["path"], ".notarai/system.spec.yaml");

    // A cross-cutting spec answers too: it governs only its own file.
    let diff = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/_shared/style.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(strings(&diff["files"]), Vec::<String>::new());
    assert_eq!(
        diff["spec_changes"][0]["path"],
        ".notarai/_shared/style.spec.yaml"
    );
    assert!(
        diff["spec_changes"][0]["content"]
            .as_str()
            .unwrap()
            .contains("no tabs in code")
    );
    server.finish();

    // And after the edits, validate still finds nothing.
    let (out, report) = validate_json(root);
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["findings"], json!([]), "{report:#}");
}

#[test]
fn a_missing_tested_by_file_is_a_warning_at_its_position() {
    let repo = shop();
    let root = &repo.root;
    repo.remove("tests/auth/session.rs");
    let out = notarai(
        root,
        &[
            "validate",
            ".notarai/auth.spec.yaml",
            "--root",
            root.to_str().unwrap(),
        ],
        b"",
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "a warning passes: {text}");
    assert!(text.starts_with("PASS .notarai/auth.spec.yaml\n"), "{text}");
    assert!(
        text.contains(
            ".notarai/auth.spec.yaml:14:15: warning: behavior `session_timeout`: test file `tests/auth/session.rs` (`tested_by`) does not exist"
        ),
        "{text}"
    );
    assert!(
        text.contains("  14 |       - path: tests/auth/session.rs\n"),
        "{text}"
    );
    assert!(text.contains("hint: `tested_by` paths are relative to the repository root"));
    // A path that leaves the repository is never looked up outside it.
    repo.write(
        ".notarai/auth.spec.yaml",
        AUTH.replace("tests/auth/session.rs", "../outside/secret.txt"),
    );
    let (out, report) = validate_json(root);
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    let finding = &report["findings"][0];
    assert_eq!(finding["severity"], "warning");
    assert_eq!(
        (finding["line"].clone(), finding["column"].clone()),
        (json!(14), json!(15))
    );
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("is not a path inside the repository"),
        "{finding}"
    );
    // A warning never makes the hook fail, nor the server list the spec.
    assert_eq!(hook(root, ".notarai/auth.spec.yaml").status.code(), Some(0));
    let mut server = repo.server();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(affected["invalid_specs"], json!([]));
}

#[test]
fn cross_cutting_rules_are_checked_with_positions() {
    let repo = shop();
    let root = &repo.root;
    // A cross-cutting spec with artifacts fails, at the key.
    repo.append(
        ".notarai/_shared/style.spec.yaml",
        "artifacts:\n  code:\n    - path: 'src/**'\n",
    );
    // A cross-cutting spec listed as a subsystem is a warning with the fix.
    repo.write(
        ".notarai/system.spec.yaml",
        SYSTEM.replace(
            "  - $ref: ./docs.spec.yaml\n",
            "  - $ref: ./docs.spec.yaml\n  - $ref: ./_shared/security.spec.yaml\n",
        ),
    );
    let out = notarai(root, &["validate", "--root", root.to_str().unwrap()], b"");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FAIL .notarai/_shared/style.spec.yaml"),
        "{text}"
    );
    assert!(
        text.contains(".notarai/_shared/style.spec.yaml:12:1: `artifacts` is not allowed here"),
        "{text}"
    );
    assert!(
        text.contains("hint: a `cross_cutting: true` spec governs no files itself"),
        "{text}"
    );
    assert!(text.contains("PASS .notarai/system.spec.yaml"), "{text}");
    assert!(
        text.contains(".notarai/system.spec.yaml:18:11: warning: `.notarai/_shared/security.spec.yaml` is a cross-cutting spec, listed under `subsystems`"),
        "{text}"
    );
    assert!(
        text.contains("hint: move `- $ref: ./_shared/security.spec.yaml` under `applies:`"),
        "{text}"
    );
    // The hook agrees: the broken cross-cutting spec stops the edit.
    let out = hook(root, ".notarai/_shared/style.spec.yaml");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("`artifacts` is not allowed here"));
}

#[test]
fn old_formats_are_unsupported_versions_with_a_hint() {
    let repo = shop();
    let root = &repo.root;
    repo.write(
        ".notarai/legacy.spec.yaml",
        "schema_version: '0.4'\nintent: An old spec.\ncomponents:\n  - name: x\nartifacts:\n  - src/**\n",
    );
    let out = notarai(
        root,
        &[
            "validate",
            ".notarai/legacy.spec.yaml",
            "--root",
            root.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "FAIL .notarai/legacy.spec.yaml\n\
         .notarai/legacy.spec.yaml:1:17: unsupported spec format version `0.4` [N001 invalid-spec]\n  \
         1 | schema_version: '0.4'\n  \
         \x20 |                 ^\n  \
         hint: notarai reads schema_version 0.8, 0.7, 0.6, 0.5; update the file to the newest format and write `schema_version: '0.8'`\n"
    );
}

#[test]
fn exclude_never_takes_a_file_from_a_spec_that_names_it() {
    let repo = shop();
    let root = &repo.root;
    // The style spec of the issue: an explicit artifact under the excluded `.claude/`.
    repo.write(
        ".notarai/_shared/rules.spec.yaml",
        "schema_version: '0.8'\nintent: The rules agents follow.\nbehaviors:\n  - name: short\n    given: a rule\n    then: it is short\nartifacts:\n  docs:\n    - path: .claude/rules/style.md\n",
    );
    repo.write(
        ".notarai/system.spec.yaml",
        SYSTEM.replace(
            "  - $ref: ./docs.spec.yaml\n",
            "  - $ref: ./docs.spec.yaml\n  - $ref: ./_shared/rules.spec.yaml\n",
        ),
    );
    repo.write(".claude/rules/style.md", "# Style\n");
    repo.commit("rules");
    // Only what follows is a change against `feat` (the base of this pass).
    repo.append(".claude/rules/style.md", "Use short sentences.\n");
    repo.append(".claude/settings.json", "// still excluded\n");

    let mut server = repo.server();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "feat"}));
    assert_eq!(
        strings(&affected["changed_files"]),
        [".claude/rules/style.md", ".claude/settings.json"]
    );
    let specs: Vec<&Value> = affected["affected_specs"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(specs.len(), 1, "{affected:#}");
    assert_eq!(specs[0]["spec_path"], ".notarai/_shared/rules.spec.yaml");
    assert_eq!(
        strings(&specs[0]["matched_files"]),
        [".claude/rules/style.md"]
    );

    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/_shared/rules.spec.yaml", "base_branch": "feat"}),
    );
    assert_eq!(strings(&diff["files"]), [".claude/rules/style.md"]);
    assert_eq!(diff["file_categories"][".claude/rules/style.md"], "docs");
    assert!(
        diff["diff"]
            .as_str()
            .unwrap()
            .contains("+Use short sentences.")
    );
    let changed = server.call_ok(
        3,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/_shared/rules.spec.yaml", "base_branch": "feat"}),
    );
    // What changed since `feat` and is not reconciled.
    assert_eq!(
        strings(&changed["changed_artifacts"]),
        [".claude/rules/style.md"]
    );
    server.finish();
    // validate: the explicit artifact matches a file, so no orphan warning.
    let (out, report) = validate_json(root);
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(report["findings"], json!([]), "{report:#}");
}

#[test]
fn a_dangling_ref_gets_one_verdict_from_validate_the_hook_and_the_server() {
    let repo = shop();
    let root = &repo.root;
    // The cli spec is deleted on the branch; the system spec still lists it.
    repo.remove(".notarai/cli.spec.yaml");
    repo.append("src/main.rs", "fn main() {}\n");

    let (out, report) = validate_json(root);
    assert_eq!(out.status.code(), Some(1), "{report:#}");
    let errors: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{report:#}");
    let first = errors[0];
    assert_eq!(first["file"], ".notarai/system.spec.yaml");
    let first_line = format!(
        "{}:{}:{}: {}",
        first["file"].as_str().unwrap(),
        first["line"],
        first["column"],
        first["message"].as_str().unwrap()
    );
    assert_eq!(
        first_line,
        ".notarai/system.spec.yaml:16:11: `$ref: ./cli.spec.yaml` points to `.notarai/cli.spec.yaml`, which does not exist"
    );
    let failed: Vec<&Value> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "fail")
        .collect();
    assert_eq!(
        failed,
        [&json!({"file": ".notarai/system.spec.yaml", "status": "fail"})]
    );

    // The hook fails the same spec with the same message.
    let out = hook(root, ".notarai/system.spec.yaml");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains(&first_line), "{}", stderr(&out));

    // The server: the same first message in invalid_specs, and in its instructions.
    let text = instructions(root);
    assert!(text.contains(&first_line), "{text}");
    let mut server = repo.server();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(
        affected["invalid_specs"],
        json!([{"spec_path": ".notarai/system.spec.yaml", "error": first_line}]),
        "{affected:#}"
    );
    assert_eq!(
        strings(&affected["deleted_specs"]),
        [".notarai/cli.spec.yaml"]
    );
    // The system spec parsed: it still governs its own artifacts.
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/system.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(diff["spec_changes"], json!([]), "{diff}");
    server.finish();

    // Fixed: every verdict is clean again.
    repo.write(
        ".notarai/system.spec.yaml",
        SYSTEM.replace("  - $ref: ./cli.spec.yaml\n", ""),
    );
    let (out, _) = validate_json(root);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        hook(root, ".notarai/system.spec.yaml").status.code(),
        Some(0)
    );
    let mut server = repo.server();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(affected["invalid_specs"], json!([]));
}
