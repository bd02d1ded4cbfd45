//! The stop nudge (`notarai hook stop`), driven through the binary with
//! Claude Code's documented events (`tests/fixtures/hooks/`): after the
//! session's pre-edit event for a governed file and the edit, the end of
//! the turn tells the model which specs and what to run, in Claude Code's
//! `Stop` shape, once per unreconciled set; silent when nothing the
//! session edited is unreconciled, when a stop hook already kept the turn
//! going, and for agents whose end of turn takes no context.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::common::{Repo, notarai, stderr};

/// `src/auth.rs` governed by the auth spec, `src/util.rs` by nothing.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.write(
        ".notarai/auth.spec.yaml",
        "schema_version: '0.7'\nintent: Sessions.\nbehaviors:\n  - name: expire\n    given: idle 30 minutes\n    then: the session ends\nconstraints:\n  - 'sessions expire after 30 minutes of inactivity'\nartifacts:\n  code:\n    - path: 'src/auth.rs'\n",
    );
    repo.write("src/auth.rs", "struct Session;\n");
    repo.write("src/util.rs", "fn util() {}\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo
}

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

/// The pre-edit event of session `session` for `file`, as the agent sends it.
fn pre_edit(repo: &Repo, session: &str, file: &str) {
    let input = fixture(repo, "claude.PreToolUse.json")
        .replace("\"s1\"", &format!("{session:?}"))
        .replace("src/auth.rs", file);
    run(repo, &["hook", "context", "--agent", "claude"], &input);
}

/// What the stop hook answers for `session` ("" when silent), checking
/// that an answer has exactly Claude Code's `Stop` shape: no decision.
fn stop(repo: &Repo, session: &str, args: &[&str]) -> String {
    let input = fixture(repo, "claude.Stop.json").replace("\"s1\"", &format!("{session:?}"));
    let mut all = vec!["hook", "stop"];
    all.extend_from_slice(args);
    let out = run(repo, &all, &input);
    if out.stdout.is_empty() {
        return String::new();
    }
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value.as_object().unwrap().len(), 1, "{value}");
    let inner = value["hookSpecificOutput"].as_object().unwrap();
    assert_eq!(inner.len(), 2, "{value}");
    assert_eq!(inner["hookEventName"], "Stop", "{value}");
    let text = inner["additionalContext"].as_str().unwrap();
    assert!(text.chars().count() <= 1500);
    text.to_string()
}

#[test]
fn the_end_of_a_turn_names_the_unreconciled_specs_once_per_set() {
    let repo = repo();
    // Nothing edited in the session: silent.
    assert_eq!(stop(&repo, "s1", &["--agent", "claude"]), "");
    pre_edit(&repo, "s1", "src/auth.rs");
    repo.write("src/auth.rs", "struct Session;\nfn expire() {}\n");
    let text = stop(&repo, "s1", &["--agent", "claude"]);
    assert!(
        text.contains("- \".notarai/auth.spec.yaml\": \"src/auth.rs\"")
            && text.contains("notarai-reconcile")
            && text.contains("get_reconciliation_status"),
        "{text}"
    );
    // The same set again, with or without --agent: silent.
    assert_eq!(stop(&repo, "s1", &["--agent", "claude"]), "");
    repo.write("src/auth.rs", "struct Session;\nfn expire() { }\n");
    assert_eq!(stop(&repo, "s1", &[]), "", "the same file edited again");
    // Another session has its own memory, and a stop hook that already
    // kept the turn going is silent.
    pre_edit(&repo, "s2", "src/auth.rs");
    let active = fixture(&repo, "claude.Stop.json")
        .replace("\"s1\"", "\"s2\"")
        .replace("\"stop_hook_active\":false", "\"stop_hook_active\":true");
    let out = run(&repo, &["hook", "stop", "--agent", "claude"], &active);
    assert!(out.stdout.is_empty());
    assert_ne!(stop(&repo, "s2", &[]), "");
    // Reconciled: silent; changed after the review: told again.
    let out = run(&repo, &["reconcile", "src/auth.rs"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stop(&repo, "s1", &[]), "");
    repo.write("src/auth.rs", "struct Session;\nfn expire() { todo!() }\n");
    assert_ne!(stop(&repo, "s1", &[]), "", "changed since the review");
    // An ungoverned file edited: nothing new to tell.
    pre_edit(&repo, "s1", "src/util.rs");
    repo.write("src/util.rs", "fn util() { }\n");
    assert_eq!(stop(&repo, "s1", &[]), "");
}

#[test]
fn a_stop_is_silent_when_the_edits_are_reconciled_or_the_agent_takes_no_context() {
    let repo = repo();
    pre_edit(&repo, "s1", "src/auth.rs");
    repo.write("src/auth.rs", "struct Session;\nfn expire() {}\n");
    let out = run(&repo, &["reconcile", "src/auth.rs"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stop(&repo, "s1", &["--agent", "claude"]), "");
    // The same unreconciled state, read as an agent whose stop can only
    // block (Codex) or as another event: silent.
    repo.write("src/auth.rs", "struct Session;\nfn expire() { }\n");
    assert_eq!(stop(&repo, "s1", &["--agent", "codex"]), "");
    let subagent = fixture(&repo, "claude.Stop.json").replace("\"Stop\"", "\"SubagentStop\"");
    let out = run(&repo, &["hook", "stop", "--agent", "claude"], &subagent);
    assert!(out.stdout.is_empty());
    let out = run(&repo, &["hook", "stop"], "not json");
    assert!(out.stdout.is_empty());
    // VS Code runs `.claude/settings.json`'s hooks with its own `Stop`,
    // which only a block continues; Copilot CLI's names no event: silent.
    let root = repo.root.to_str().unwrap();
    for other in [
        serde_json::json!({"hookEventName": "Stop", "sessionId": "s1", "cwd": root, "stop_hook_active": false}),
        serde_json::json!({"sessionId": "s1", "session_id": "s1", "cwd": root, "stopReason": "end_turn"}),
    ] {
        let out = run(
            &repo,
            &["hook", "stop", "--agent", "claude"],
            &other.to_string(),
        );
        assert!(out.stdout.is_empty(), "{other}");
    }
    // Still unreconciled for Claude Code.
    assert_ne!(stop(&repo, "s1", &["--agent", "claude"]), "");
}

/// The check `name` of doctor's report for Claude Code.
fn doctor_check(repo: &Repo, name: &str) -> Value {
    let out = notarai(
        &repo.root,
        &["doctor", "--agents", "claude", "--format", "json"],
        b"",
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == name)
        .unwrap_or_else(|| panic!("{report:#}"))
        .clone()
}

#[test]
fn init_registers_the_stop_hook_doctor_checks_it_remove_takes_it_out() {
    let repo = repo();
    let settings = repo.root.join(".claude/settings.json");
    let original = "{\n  \"hooks\": {\n    \"Stop\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}\n    ]\n  }\n}\n";
    repo.write(".claude/settings.json", original);
    let init = |args: &[&str]| {
        let out = notarai(&repo.root, args, b"");
        assert!(out.status.success(), "{}", stderr(&out));
    };
    init(&["init", "--agents", "claude"]);
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let groups = value["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(groups.len(), 2, "{value}");
    assert_eq!(
        groups[1],
        serde_json::json!({"hooks": [{"type": "command", "command": "notarai hook stop --agent claude"}]}),
        "no matcher: Stop is about no tool"
    );
    let before = std::fs::read_to_string(&settings).unwrap();
    init(&["init", "--agents", "claude"]);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);
    assert_eq!(doctor_check(&repo, "stop_hook")["verdict"], "ok");

    // The hook as registered answers through the real binary.
    pre_edit(&repo, "s1", "src/auth.rs");
    repo.write("src/auth.rs", "struct Session;\nfn expire() {}\n");
    assert_ne!(stop(&repo, "s1", &["--agent", "claude"]), "");

    init(&["init", "--remove", "--agents", "claude"]);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), original);
    let check = doctor_check(&repo, "stop_hook");
    assert_eq!(check["verdict"], "warn", "{check}");
    assert!(
        check["fix"]
            .as_str()
            .is_some_and(|f| f.contains("notarai init --agents claude")),
        "{check}"
    );
}
