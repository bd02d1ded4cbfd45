//! Claude Code's per-handler `if` on notarai's pre-edit hook (issue 40):
//! `init` and `notarai rules` give the hook one handler per governed glob, in place
//! (the user's own handlers byte for byte), none past the cap; `check` and
//! `doctor` report an `if` the specs no longer match, with the command that
//! refreshes it; `init --remove` takes the handlers out.

use serde_json::Value;

use crate::common::{Repo, notarai, stderr, stdout};

const SETTINGS: &str = ".claude/settings.json";
const USERS: &str = r#"{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "if": "Bash(git *)"}]}"#;

fn spec(repo: &Repo, globs: &[&str]) {
    let mut text = String::from(
        "schema_version: '0.8'\nintent: A.\nbehaviors:\n  - name: b\n    given: x\n    then: y\nconstraints:\n  - stay small\nartifacts:\n  code:\n",
    );
    for g in globs {
        text.push_str(&format!("    - path: '{g}'\n"));
    }
    repo.write(".notarai/a.spec.yaml", text);
}

fn ifs(repo: &Repo) -> Vec<Option<String>> {
    let text = std::fs::read_to_string(repo.root.join(SETTINGS)).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["hooks"]["PreToolUse"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["hooks"].as_array().unwrap().clone())
        .filter(|h| h["command"].as_str().unwrap().contains("hook context"))
        .map(|h| h["if"].as_str().map(str::to_string))
        .collect()
}

fn stale_settings(repo: &Repo) -> Vec<String> {
    let out = notarai(&repo.root, &["check", "--format", "json"], b"");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "stale_rule" && f["file"] == SETTINGS)
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn rules_give_the_pre_edit_hook_its_if_and_check_tells_when_it_is_stale() {
    let repo = Repo::new();
    spec(&repo, &["src/*.ts", "docs/a.md"]);
    repo.write(
        SETTINGS,
        format!("{{\n  \"hooks\": {{\n    \"PreToolUse\": [\n      {USERS}\n    ]\n  }}\n}}\n"),
    );
    repo.commit("init");
    let init = notarai(&repo.root, &["init", "--agents", "claude"], b"");
    assert!(init.status.success(), "{}", stderr(&init));
    let want = [
        "Edit(.notarai/**)",
        "Edit(docs/a.md)",
        "Edit(docs/a.md/**)",
        "Edit(src/*.ts)",
    ];
    assert_eq!(ifs(&repo), want.map(|w| Some(w.to_string())));
    let text = std::fs::read_to_string(repo.root.join(SETTINGS)).unwrap();
    assert!(
        text.contains(USERS),
        "the user's handler is kept byte for byte:\n{text}"
    );
    assert!(stale_settings(&repo).is_empty());
    // `notarai rules` after init: nothing changes.
    let again = notarai(&repo.root, &["rules", "--agents", "claude"], b"");
    assert!(!stdout(&again).contains(SETTINGS), "{}", stdout(&again));

    // The spec now governs `lib/`: the `if` would skip it, and says so.
    spec(&repo, &["src/*.ts", "docs/a.md", "lib/**"]);
    let stale = stale_settings(&repo);
    assert_eq!(stale.len(), 1, "{stale:?}");
    assert!(stale[0].contains("run `notarai rules`"), "{stale:?}");
    let doctor = notarai(
        &repo.root,
        &[
            "doctor",
            "--agents",
            "claude",
            "--no-handshake",
            "--format",
            "json",
        ],
        b"",
    );
    let report: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    assert!(
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["check"] == "rules"
                && c["verdict"] == "warn"
                && c["file"] == SETTINGS
                && c["fix"] == "run `notarai rules`"),
        "{report:#}"
    );
    let out = notarai(&repo.root, &["rules", "--agents", "claude"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(ifs(&repo).contains(&Some("Edit(lib/**)".to_string())));
    assert!(stale_settings(&repo).is_empty());

    // A spec the agent edits: the post-edit hook brings the `if` up to it.
    spec(&repo, &["src/*.ts", "docs/a.md", "lib/**", "tools/**"]);
    assert_eq!(stale_settings(&repo).len(), 1);
    let event = serde_json::json!({
        "session_id": "s",
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "cwd": repo.root.to_str().unwrap(),
        "tool_input": {"file_path": repo.root.join(".notarai/a.spec.yaml").to_str().unwrap(),
            "old_string": "a", "new_string": "b"},
        "tool_response": {"success": true},
    });
    let out = notarai(
        &repo.root,
        &["hook", "validate", "--agent", "claude"],
        &serde_json::to_vec(&event).unwrap(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(ifs(&repo).contains(&Some("Edit(tools/**)".to_string())));
    assert!(stale_settings(&repo).is_empty());

    // A spec that does not load: its globs are unknown, so no `if`.
    repo.write(".notarai/b.spec.yaml", "schema_version: '0.8'\nintent: [\n");
    notarai(&repo.root, &["rules", "--agents", "claude"], b"");
    assert_eq!(ifs(&repo), [None]);
    repo.remove(".notarai/b.spec.yaml");

    // Past the cap: one handler without `if`, never a partial list.
    let many: Vec<String> = (0..20).map(|i| format!("m{i}/*.rs")).collect();
    spec(&repo, &many.iter().map(String::as_str).collect::<Vec<_>>());
    notarai(&repo.root, &["rules", "--agents", "claude"], b"");
    assert_eq!(ifs(&repo), [None]);
    assert!(stale_settings(&repo).is_empty(), "no `if` is never stale");

    // `init --remove` takes notarai's handlers out, `if` or not; the
    // user's stays as it was.
    spec(&repo, &["src/*.ts"]);
    notarai(&repo.root, &["rules", "--agents", "claude"], b"");
    assert_eq!(ifs(&repo).len(), 2);
    let out = notarai(&repo.root, &["init", "--remove"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(repo.root.join(SETTINGS)).unwrap();
    assert!(!text.contains("hook context"), "{text}");
    assert!(text.contains(USERS), "{text}");
}
