//! What the agent is told it holds is what it holds (red team F10, F9):
//! `already_read` counts a file only with the id of the content whose diff
//! was read (`read_ids`), `specs_read` a spec only with the id of its text
//! now, and a spec that applies a cross-cutting spec (its own `applies` or
//! a parent's) is served that spec's constraints and invariants, named by
//! their source, once per pass, on every surface that serves a spec.

use serde_json::{Value, json};

use crate::common::{Repo, Server, notarai, stdout, strings};

const A: &str = ".notarai/a.spec.yaml";
const SEC: &str = ".notarai/sec.spec.yaml";

/// `main`: a system spec with subsystem `a` (`src/a.ts`), and a
/// cross-cutting spec `sec` applied by `parent_applies` (the system spec)
/// or by `a` itself; branch `feat` with `src/a.ts` changed.
fn project(parent_applies: bool) -> Repo {
    let repo = Repo::new();
    repo.write(
        SEC,
        "schema_version: '0.8'\ncross_cutting: true\nintent: Security rules.\nbehaviors:\n  - name: s\n    given: any input\n    then: it is validated\nconstraints:\n  - Never log secrets.\ninvariants:\n  - Tokens stay opaque.\n",
    );
    let applies = "applies:\n  - $ref: ./sec.spec.yaml\n";
    repo.write(
        ".notarai/system.spec.yaml",
        format!(
            "schema_version: '0.8'\nintent: Test system.\nbehaviors:\n  - name: all\n    given: x\n    then: y\nartifacts:\n  docs:\n    - path: 'README.md'\nsubsystems:\n  - $ref: ./a.spec.yaml\n{}",
            if parent_applies { applies } else { "" }
        ),
    );
    repo.write(
        A,
        format!(
            "schema_version: '0.8'\nintent: A does things.\nbehaviors:\n  - name: b\n    given: x\n    then: y\nartifacts:\n  code:\n    - path: 'src/a.ts'\n{}",
            if parent_applies { "" } else { applies }
        ),
    );
    repo.write("README.md", "# R\n");
    repo.write(
        "src/a.ts",
        "export function foo(x: number): number {\n  return x + 1;\n}\n",
    );
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write(
        "src/a.ts",
        "export function foo(x: number): number {\n  return x + 2;\n}\n",
    );
    repo
}

fn diff(server: &mut Server, id: u64, extra: Value) -> Value {
    let mut args = json!({"spec_path": A, "base_branch": "main"});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    server.call_ok(id, "get_spec_diff", args)
}

#[test]
fn already_read_counts_only_the_content_that_was_read() {
    let repo = project(false);
    let mut server = repo.server();
    let first = diff(&mut server, 1, json!({}));
    let read = strings(&first["read_ids"]);
    assert_eq!(read.len(), 1, "{first}");
    let (path, id) = read[0].split_once('@').unwrap();
    assert_eq!((path, id.len()), ("src/a.ts", 12), "{first}");
    // The same content: named, not diffed, with its proof.
    let held = diff(&mut server, 2, json!({"already_read": read}));
    assert_eq!(held["already_read"], json!(["src/a.ts"]), "{held}");
    assert_eq!(held["diff"], "", "{held}");
    // Its proof is in the tool's description, read once a session.
    let tools = server.request(90, "tools/list", json!({}));
    let described = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "get_spec_diff")
        .unwrap()["description"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        described.contains("a bare path or an older id gets the diff again"),
        "{described}"
    );
    // The file changed after its diff was read: the new change is shown.
    repo.write(
        "src/a.ts",
        "export function foo(x: number): number {\n  return x * 1000;\n}\n",
    );
    let again = diff(&mut server, 3, json!({"already_read": read}));
    assert!(
        again["diff"].as_str().unwrap().contains("x * 1000"),
        "{again}"
    );
    assert!(again.get("already_read").is_none(), "{again}");
    assert!(
        again["read_again"]["src/a.ts"]
            .as_str()
            .unwrap()
            .contains("changed after you read")
    );
    assert_ne!(strings(&again["read_ids"]), read, "{again}");
    // A bare path says nothing of the content: the diff is shown.
    let bare = diff(&mut server, 4, json!({"already_read": ["src/a.ts"]}));
    assert!(
        bare["diff"].as_str().unwrap().contains("x * 1000"),
        "{bare}"
    );
    assert!(
        bare["read_again"]["src/a.ts"]
            .as_str()
            .unwrap()
            .contains("bare path")
    );
}

#[test]
fn a_bare_spec_path_in_specs_read_serves_the_text_now() {
    let repo = project(false);
    repo.commit("work");
    let mut server = repo.server();
    let first = diff(&mut server, 1, json!({}));
    let old = first["spec"]["text_id"].as_str().unwrap().to_string();
    // main's spec gains a constraint and the branch is rebased onto it.
    repo.git(&["checkout", "-q", "main"]);
    repo.append(A, "constraints:\n  - foo never returns more than x + 1.\n");
    repo.commit("spec: new constraint");
    repo.git(&["checkout", "-q", "feat"]);
    repo.git(&["rebase", "-q", "main"]);
    for (id, read) in [(2, format!("{A}@{old}")), (3, A.to_string())] {
        let now = diff(&mut server, id, json!({"specs_read": [read]}));
        assert!(now.get("spec_held").is_none(), "{now}");
        assert_eq!(
            now["spec"]["constraints"],
            json!(["foo never returns more than x + 1."]),
            "{now}"
        );
    }
}

#[test]
fn applied_constraints_come_with_their_spec_once_per_pass() {
    for parent_applies in [false, true] {
        let repo = project(parent_applies);
        let mut server = repo.server();
        let first = diff(&mut server, 1, json!({}));
        let applied = &first["applied"][0];
        assert_eq!(applied["path"], SEC, "{first}");
        assert_eq!(applied["constraints"], json!(["Never log secrets."]));
        assert_eq!(applied["invariants"], json!(["Tokens stay opaque."]));
        let id = applied["text_id"].as_str().unwrap().to_string();
        // Held: named, its texts left out.
        let held = diff(
            &mut server,
            2,
            json!({"specs_read": [format!("{SEC}@{id}")]}),
        );
        assert_eq!(held["applied"][0]["held"], true, "{held}");
        assert!(held["applied"][0].get("constraints").is_none(), "{held}");
        // A bare path holds nothing.
        let bare = diff(&mut server, 3, json!({"specs_read": [SEC]}));
        assert_eq!(
            bare["applied"][0]["constraints"],
            json!(["Never log secrets."])
        );
        // The cross-cutting spec changed: its new text reaches `a`.
        repo.append(SEC, "  - Never log tokens.\n");
        let changed = diff(
            &mut server,
            4,
            json!({"specs_read": [format!("{SEC}@{id}")]}),
        );
        assert_eq!(
            changed["applied"][0]["invariants"],
            json!(["Tokens stay opaque.", "Never log tokens."]),
            "{changed}"
        );
    }
}

#[test]
fn export_context_carries_the_applied_constraints() {
    let repo = project(true);
    let out = notarai(&repo.root, &["export-context", "--spec", A], b"");
    assert!(out.status.success(), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("Never log secrets."), "{text}");
    assert!(text.contains(SEC), "{text}");
}

#[test]
fn which_names_the_applied_spec_and_serves_its_constraints() {
    let repo = project(true);
    let out = notarai(&repo.root, &["which", "--format", "json", "src/a.ts"], b"");
    assert!(out.status.success(), "{}", stdout(&out));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let specs = answer["specs"].as_array().unwrap();
    let a = specs.iter().find(|s| s["spec_path"] == A).unwrap();
    assert_eq!(a["applies"], json!([SEC]), "{answer}");
    let sec = specs.iter().find(|s| s["spec_path"] == SEC).unwrap();
    assert_eq!(
        sec["constraints"],
        json!(["Never log secrets."]),
        "{answer}"
    );
    let text = stdout(&notarai(&repo.root, &["which", "src/a.ts"], b""));
    assert!(text.contains("applies: .notarai/sec.spec.yaml"), "{text}");
    assert!(text.contains("constraint: Never log secrets."), "{text}");
}

#[test]
fn the_pre_edit_hook_tells_the_applied_constraints_and_their_changes() {
    let repo = project(true);
    let event = |session: &str| {
        serde_json::to_vec(&json!({
            "session_id": session,
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "cwd": repo.root.to_str().unwrap(),
            "tool_input": {"file_path": repo.root.join("src/a.ts").to_str().unwrap(),
                "old_string": "a", "new_string": "b"},
        }))
        .unwrap()
    };
    let out = notarai(&repo.root, &["hook", "context"], &event("s1"));
    let text = stdout(&out);
    assert!(text.contains("Never log secrets."), "{text}");
    assert!(text.contains("Tokens stay opaque."), "{text}");
    assert!(text.contains("cross-cutting, applied by"), "{text}");
    // The cross-cutting spec changes: the kept index tells the new text.
    repo.append(SEC, "  - Never log tokens.\n");
    let text = stdout(&notarai(&repo.root, &["hook", "context"], &event("s2")));
    assert!(text.contains("Never log tokens."), "{text}");
}

#[test]
fn rule_files_carry_the_applied_constraints_and_go_stale_with_them() {
    let repo = project(true);
    let out = notarai(&repo.root, &["rules", "--agents", "claude"], b"");
    assert!(out.status.success(), "{}", stdout(&out));
    let rule = std::fs::read_to_string(repo.root.join(".claude/rules/notarai-a.md")).unwrap();
    assert!(
        rule.contains("cross-cutting spec `.notarai/sec.spec.yaml`"),
        "{rule}"
    );
    assert!(rule.contains("- constraint: Never log secrets."), "{rule}");
    repo.append(SEC, "  - Never log tokens.\n");
    let check = notarai(
        &repo.root,
        &["check", "--base", "main", "--format", "json"],
        b"",
    );
    let report: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == "stale_rule" && f["file"] == ".claude/rules/notarai-a.md"),
        "{report:#}"
    );
}
