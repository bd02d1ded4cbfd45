//! Each agent's documented hook events (`tests/fixtures/hooks/`, one file
//! per agent and event, taken from the reference's JSON) fed to the binary:
//! the pre-edit hook answers in that agent's own channel and shape, within
//! the same budget, once per file and session, silent for files no spec
//! governs; the Copilot format's post-edit answer reaches the model.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common::{Repo, notarai, stderr};

/// `src/auth.rs` governed through the anchor `Session` by the auth spec,
/// `src/billing.rs` by the billing spec, `src/util.rs` by nothing.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.write(
        ".notarai/auth.spec.yaml",
        "schema_version: '0.7'\nintent: Sessions.\nbehaviors:\n  - name: expire\n    given: idle 30 minutes\n    then: the session ends\nconstraints:\n  - 'sessions expire after 30 minutes of inactivity'\ninvariants:\n  - 'a token is never logged'\nartifacts:\n  code:\n    - path: 'src/auth.rs#Session'\n",
    );
    repo.write(
        ".notarai/billing.spec.yaml",
        "schema_version: '0.7'\nintent: Billing.\nbehaviors:\n  - name: charge\n    given: an order\n    then: it is charged once\nconstraints:\n  - 'amounts are integer cents'\nartifacts:\n  code:\n    - path: 'src/billing.rs'\n",
    );
    repo.write(
        "src/auth.rs",
        "struct Session;\nimpl Session {\n    fn refresh() {}\n}\n",
    );
    repo.write("src/util.rs", "fn util() {}\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo
}

/// The fixture `name` with the repository's root in place of `/repo`.
fn fixture(repo: &Repo, name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hooks")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    text.replace("/repo", repo.root.to_str().unwrap())
}

fn run(repo: &Repo, args: &[&str], input: &str) -> Output {
    let out = notarai(&repo.root, args, input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    out
}

/// The context an answer carries, checking that the answer has exactly
/// the agent's shape (no other key, no permission decision).
fn context_of(shape: &str, out: &Output) -> String {
    let value: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let text = match shape {
        "nested" => {
            let object = value.as_object().unwrap();
            assert_eq!(object.len(), 1, "{value}");
            let inner = value["hookSpecificOutput"].as_object().unwrap();
            assert_eq!(inner.len(), 2, "{value}");
            assert_eq!(inner["hookEventName"], "PreToolUse", "{value}");
            inner["additionalContext"].as_str().unwrap()
        }
        "flat" => {
            assert_eq!(value.as_object().unwrap().len(), 1, "{value}");
            value["additionalContext"].as_str().unwrap()
        }
        "snake" => {
            assert_eq!(value.as_object().unwrap().len(), 1, "{value}");
            value["additional_context"].as_str().unwrap()
        }
        other => panic!("{other}"),
    };
    assert!(text.chars().count() <= 1500, "{}", text.chars().count());
    text.to_string()
}

/// (fixture, `--agent`, answer shape)
const PRE_EDIT: &[(&str, &str, &str)] = &[
    ("claude.PreToolUse.json", "claude", "nested"),
    ("codex.PreToolUse.json", "codex", "nested"),
    ("vscode.PreToolUse.json", "vscode", "nested"),
    ("copilot.preToolUse.json", "vscode", "flat"),
    ("cursor.preToolUse.json", "cursor", "snake"),
];

#[test]
fn each_agents_pre_edit_event_gets_the_context_in_its_own_shape() {
    for &(name, agent, shape) in PRE_EDIT {
        let repo = repo();
        let input = fixture(&repo, name);
        let out = run(&repo, &["hook", "context", "--agent", agent], &input);
        let text = context_of(shape, &out);
        assert!(
            text.contains("sessions expire after 30 minutes of inactivity")
                && text.contains("a token is never logged"),
            "{name}: {text}"
        );
        if agent == "codex" {
            // Every file the patch touches: the added one too; the
            // ungoverned one says nothing.
            assert!(text.contains("amounts are integer cents"), "{text}");
            assert!(!text.contains("src/util.rs"), "{text}");
        }
        // Once per file and session: the same event again is silent.
        let again = run(&repo, &["hook", "context", "--agent", agent], &input);
        assert!(again.stdout.is_empty(), "{name}: told twice");
        // The shape is recognised without --agent (another session).
        let other = input
            .replace("\"s1\"", "\"s2\"")
            .replace("\"c1\"", "\"c2\"");
        let out = run(&repo, &["hook", "context"], &other);
        assert_eq!(context_of(shape, &out), text, "{name} without --agent");
    }
}

#[test]
fn each_agents_pre_edit_event_is_silent_for_a_file_no_spec_governs() {
    for &(name, agent, _) in PRE_EDIT {
        let repo = repo();
        let input = fixture(&repo, name)
            .replace("src/auth.rs", "src/util.rs")
            .replace("src/billing.rs", "src/util.rs");
        let out = run(&repo, &["hook", "context", "--agent", agent], &input);
        assert!(
            out.stdout.is_empty(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        // Another tool, or the agent's post-edit event, is silent too.
        let read = input
            .replace("\"Edit\"", "\"Read\"")
            .replace("\"Write\"", "\"Read\"")
            .replace("\"edit\"", "\"view\"")
            .replace("\"editFiles\"", "\"readFile\"")
            .replace("\"apply_patch\"", "\"shell\"");
        let out = run(&repo, &["hook", "context", "--agent", agent], &read);
        assert!(out.stdout.is_empty(), "{name}: another tool");
    }
}

/// The Copilot format's `postToolUse`: exit 2 only warns the user there, so
/// a broken spec is told to the model as `{"additionalContext": ...}`,
/// exit 0.
#[test]
fn the_copilot_post_edit_event_gets_additional_context() {
    let repo = repo();
    repo.write(
        ".notarai/auth.spec.yaml",
        "schema_version: '0.7'\nintent: Sessions.\nbogus: 1\n",
    );
    let input = fixture(&repo, "copilot.postToolUse.json");
    for args in [
        &["hook", "validate", "--agent", "vscode"][..],
        &["hook", "validate"][..],
    ] {
        let out = run(&repo, args, &input);
        let value: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(value.as_object().unwrap().len(), 1, "{value}");
        let text = value["additionalContext"].as_str().unwrap();
        assert!(text.contains(".notarai/auth.spec.yaml:3:1"), "{text}");
    }
    // A good spec: silent.
    repo.write(
        ".notarai/auth.spec.yaml",
        "schema_version: '0.7'\nintent: Sessions.\nbehaviors:\n  - name: a\n    given: b\n    then: c\nartifacts:\n  code:\n    - path: 'src/auth.rs'\n",
    );
    let out = run(&repo, &["hook", "validate", "--agent", "vscode"], &input);
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

/// Antigravity's `PostToolUse` (camelCase, the tool in `toolCall`, no
/// `cwd`): a broken spec is reported on stderr with exit 0, since no
/// channel to its model is known; another tool is silent.
#[test]
fn the_antigravity_post_edit_event_is_read() {
    let repo = repo();
    repo.write(
        ".notarai/auth.spec.yaml",
        "schema_version: '0.7'\nintent: Sessions.\nbogus: 1\n",
    );
    let input = fixture(&repo, "antigravity.PostToolUse.json");
    for args in [
        &["hook", "validate", "--agent", "antigravity"][..],
        &["hook", "validate"][..],
    ] {
        let out = run(&repo, args, &input);
        assert!(out.stdout.is_empty());
        let err = stderr(&out);
        assert!(err.contains(".notarai/auth.spec.yaml:3:1"), "{err}");
    }
    let view = input.replace("\"edit_file\"", "\"view_file\"");
    let out = run(
        &repo,
        &["hook", "validate", "--agent", "antigravity"],
        &view,
    );
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

/// A VS Code setup an older notarai wrote for the Local harness
/// (`.vscode/mcp.json`, prompt files, a `PostToolUse` hook entry) moves to
/// the Copilot harness's places on `init`: the old hook entry is taken out,
/// the old files the user has are kept up to date, and `--remove` takes
/// all of it out, giving back the repository as it was before notarai.
#[test]
fn an_older_vscode_setup_moves_and_comes_out_whole() {
    let repo = Repo::new();
    repo.write("README.md", "# x\n");
    repo.commit("start");
    let before = crate::common::snapshot(&repo.root);
    // What an older notarai wrote, byte for byte.
    repo.write(
        ".vscode/mcp.json",
        "{\n  \"servers\": {\n    \"notarai\": {\n      \"type\": \"stdio\",\n      \"command\": \"notarai\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n",
    );
    repo.write(
        ".github/hooks/notarai.json",
        "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\n        \"type\": \"command\",\n        \"command\": \"notarai hook validate --agent vscode\",\n        \"timeout\": 30\n      }\n    ]\n  }\n}\n",
    );
    let out = notarai(&repo.root, &["init", "--agents", "vscode"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hooks: Value = serde_json::from_str(
        &std::fs::read_to_string(repo.root.join(".github/hooks/notarai.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(hooks["version"], 1, "{hooks}");
    assert!(hooks["hooks"].get("PostToolUse").is_none(), "{hooks}");
    assert_eq!(
        hooks["hooks"]["postToolUse"][0]["command"],
        "notarai hook validate --agent vscode"
    );
    assert!(repo.root.join(".vscode/mcp.json").is_file());
    assert!(repo.root.join(".mcp.json").is_file());
    assert!(!repo.root.join(".github/prompts").exists());
    let out = notarai(&repo.root, &["init", "--remove"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(crate::common::snapshot(&repo.root), before);
}
