//! `notarai doctor` against the built binary: a healthy setup for every
//! agent passes with a real MCP handshake each; broken setups fail on the
//! right line with a fix (a missing binary, JSON that does not parse, the
//! wrong key, a command that is no MCP server, an invalid spec).

use crate::common;

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use common::{BIN, Repo, notarai_cmd, run, stdout};
use serde_json::Value;

/// `PATH` with the folder of the binary under test first, so `notarai` in
/// a config resolves to it.
fn path_with_notarai() -> String {
    let dir = Path::new(BIN).parent().unwrap();
    format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The handshake deadline of the tests whose servers never answer: they
/// wait it out, so it is short (the default is 5 s).
const HANG_DEADLINE_MS: &str = "1500";

/// Run `notarai doctor <args>` in `repo` with the test binary on PATH and
/// `home` as HOME (None: HOME unset).
fn doctor_in(root: &Path, args: &[&str], home: Option<&Path>) -> Output {
    doctor_with(root, args, home, None)
}

/// [`doctor_in`] with the handshake deadline `deadline_ms` when given.
fn doctor_with(
    root: &Path,
    args: &[&str],
    home: Option<&Path>,
    deadline_ms: Option<&str>,
) -> Output {
    let mut full = vec!["doctor"];
    full.extend(args);
    let mut cmd = notarai_cmd(root, &full);
    if let Some(ms) = deadline_ms {
        cmd.env("NOTARAI_HANDSHAKE_DEADLINE_MS", ms);
    }
    cmd.env("PATH", path_with_notarai());
    match home {
        Some(home) => cmd.env("HOME", home),
        None => cmd.env_remove("HOME"),
    };
    run(cmd, b"")
}

/// `doctor --format json` in `repo`: the exit code and the report.
fn doctor_json(root: &Path, args: &[&str], home: Option<&Path>) -> (Option<i32>, Value) {
    doctor_json_with(root, args, home, None)
}

/// [`doctor_json`] with the handshake deadline `deadline_ms` when given.
fn doctor_json_with(
    root: &Path,
    args: &[&str],
    home: Option<&Path>,
    deadline_ms: Option<&str>,
) -> (Option<i32>, Value) {
    let mut full = args.to_vec();
    full.extend(["--format", "json"]);
    let out = doctor_with(root, &full, home, deadline_ms);
    let report: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(&out)));
    (out.status.code(), report)
}

/// The check of `agent` (None: the repository's) named `kind`.
fn check<'a>(report: &'a Value, agent: Option<&str>, kind: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["agent"].as_str() == agent && c["check"] == kind)
        .unwrap_or_else(|| panic!("no {agent:?} {kind} check in {report:#}"))
}

fn has_check(report: &Value, agent: Option<&str>, kind: &str) -> bool {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["agent"].as_str() == agent && c["check"] == kind)
}

const SPEC: &str = "schema_version: '0.7'\nintent: 'The app.'\nbehaviors:\n  - name: works\n    given: 'input'\n    then: 'output'\nartifacts:\n  code:\n    - path: 'src/**'\n";

/// A repository with one valid spec.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.write(".notarai/app.spec.yaml", SPEC);
    repo.write("src/a.rs", "fn a() {}\n");
    repo
}

/// Every agent's MCP entry and hook written as `notarai init --agents`
/// writes them (the agents table's files and keys), running `notarai`.
fn configure_every_agent(repo: &Repo) {
    let hook = |agent: &str| format!("notarai hook validate --agent {agent}");
    repo.write(
        ".mcp.json",
        r#"{"mcpServers": {"notarai": {"type": "stdio", "command": "notarai", "args": ["mcp"]}}}"#,
    );
    repo.write(
        ".claude/settings.json",
        format!(
            r#"{{"hooks": {{"PostToolUse": [{{"matcher": "Write|Edit|MultiEdit", "hooks": [{{"type": "command", "command": "{}"}}]}}], "PreToolUse": [{{"matcher": "Write|Edit|MultiEdit", "hooks": [{{"type": "command", "command": "notarai hook context --agent claude"}}]}}], "Stop": [{{"hooks": [{{"type": "command", "command": "notarai hook stop --agent claude"}}]}}]}}}}"#,
            hook("claude")
        ),
    );
    repo.write(
        ".codex/config.toml",
        "# my settings\n[mcp_servers.notarai]\ncommand = \"notarai\"\nargs = [\"mcp\"]\n",
    );
    repo.write(
        ".codex/hooks.json",
        format!(
            r#"{{"hooks": {{"PostToolUse": [{{"matcher": "apply_patch", "hooks": [{{"type": "command", "command": "{}"}}]}}], "PreToolUse": [{{"matcher": "apply_patch", "hooks": [{{"type": "command", "command": "notarai hook context --agent codex"}}]}}]}}}}"#,
            hook("codex")
        ),
    );
    repo.write(
        ".cursor/mcp.json",
        r#"{"mcpServers": {"notarai": {"command": "notarai", "args": ["mcp"]}}}"#,
    );
    repo.write(
        ".cursor/hooks.json",
        format!(
            r#"{{"version": 1, "hooks": {{"afterFileEdit": [{{"command": "{}"}}], "preToolUse": [{{"command": "notarai hook context --agent cursor", "matcher": "Write"}}]}}}}"#,
            hook("cursor")
        ),
    );
    repo.write(
        ".gemini/settings.json",
        format!(
            "// project settings\n{{\"mcpServers\": {{\"notarai\": {{\"command\": \"notarai\", \"args\": [\"mcp\"]}}}},\n \"hooks\": {{\"AfterTool\": [{{\"matcher\": \"write_file|replace\", \"hooks\": [{{\"name\": \"notarai\", \"type\": \"command\", \"command\": \"{}\", \"timeout\": 60000}}]}}]}}}}\n",
            hook("gemini")
        ),
    );
    repo.write(
        ".vscode/mcp.json",
        r#"{"servers": {"notarai": {"type": "stdio", "command": "notarai", "args": ["mcp"]}}, "inputs": []}"#,
    );
    repo.write(
        ".github/hooks/notarai.json",
        format!(
            r#"{{"version": 1, "hooks": {{"postToolUse": [{{"type": "command", "command": "{}", "matcher": "edit|create", "timeoutSec": 30}}], "preToolUse": [{{"type": "command", "command": "notarai hook context --agent vscode", "matcher": "edit|create", "timeoutSec": 30}}]}}}}"#,
            hook("vscode")
        ),
    );
    repo.write(
        ".agents/mcp_config.json",
        r#"{"mcpServers": {"notarai": {"command": "notarai", "args": ["mcp"]}}}"#,
    );
    repo.write(
        ".agents/hooks.json",
        format!(
            r#"{{"hooks": {{"PostToolUse": [{{"matcher": "edit_file|write_to_file|create_file", "hooks": [{{"type": "command", "command": "{}", "timeout": 30}}]}}]}}}}"#,
            hook("antigravity")
        ),
    );
    repo.write(
        "opencode.json",
        r#"{"$schema": "https://opencode.ai/config.json", "mcp": {"notarai": {"type": "local", "command": ["notarai", "mcp"], "enabled": true}}}"#,
    );
    repo.write(
        ".opencode/plugins/notarai.js",
        format!("// runs `{}`\n", hook("opencode")),
    );
    repo.write(
        ".zed/settings.json",
        r#"{"context_servers": {"notarai": {"command": "notarai", "args": ["mcp"], "env": {}}}}"#,
    );
    repo.write(
        ".windsurf/hooks.json",
        format!(
            r#"{{"hooks": {{"post_write_code": [{{"command": "{}", "show_output": true}}]}}}}"#,
            hook("windsurf")
        ),
    );
}

const AGENTS: [&str; 9] = [
    "claude",
    "codex",
    "cursor",
    "gemini",
    "antigravity",
    "vscode",
    "opencode",
    "zed",
    "windsurf",
];

#[test]
fn a_healthy_setup_of_every_agent_passes_with_a_real_handshake_each() {
    let repo = repo();
    configure_every_agent(&repo);
    let home = tempfile::tempdir().unwrap();
    common::write(
        home.path(),
        ".codeium/windsurf/mcp_config.json",
        r#"{"mcpServers": {"other": {"command": "x"}, "notarai": {"command": "notarai", "args": ["mcp"], "env": {"A": "1"}}}}"#,
    );
    // Detected from the repository: every agent's files are there.
    let (code, report) = doctor_json(&repo.root, &[], Some(home.path()));
    assert_eq!(code, Some(0), "{report:#}");
    let detected: Vec<&str> = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["agent"].as_str().unwrap())
        .collect();
    assert_eq!(detected, AGENTS);
    let bin = Path::new(BIN).canonicalize().unwrap();
    for agent in AGENTS {
        for kind in ["config", "entry", "command", "handshake"] {
            assert_eq!(
                check(&report, Some(agent), kind)["verdict"],
                "ok",
                "{agent} {kind}: {report:#}"
            );
        }
        let command = check(&report, Some(agent), "command");
        assert_eq!(
            Path::new(command["resolved"].as_str().unwrap())
                .canonicalize()
                .unwrap(),
            bin
        );
        let server = &check(&report, Some(agent), "handshake")["server"];
        assert_eq!(server["name"], "notarai", "{agent}");
        assert!(
            server["protocol_version"]
                .as_str()
                .unwrap()
                .starts_with("20")
        );
        // Zed has no hooks; every other agent's hook is registered.
        assert_eq!(has_check(&report, Some(agent), "hook"), agent != "zed");
        if agent != "zed" {
            assert_eq!(
                check(&report, Some(agent), "hook")["verdict"],
                "ok",
                "{agent}"
            );
        }
    }
    let specs = check(&report, None, "specs");
    assert_eq!(specs["verdict"], "ok");
    assert_eq!(specs["specs"]["total"], 1);
    assert_eq!(report["verdict"], "ok");

    // The table says the same, one line per check.
    let out = doctor_in(&repo.root, &[], Some(home.path()));
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.lines()
            .any(|l| l.starts_with("vscode") && l.contains("handshake") && l.contains(" ok ")),
        "{text}"
    );
    assert!(text.contains("0 failed"), "{text}");
}

#[test]
fn after_notarai_init_agents_all_every_check_passes() {
    let repo = repo();
    let home = tempfile::tempdir().unwrap();
    let mut init = notarai_cmd(
        &repo.root,
        &["init", "--agents", &crate::common::every_agent()],
    );
    init.env("PATH", path_with_notarai())
        .env("HOME", home.path());
    let out = run(init, b"");
    assert!(out.status.success(), "{}", common::stderr(&out));
    // Windsurf's user file, as init tells the user to write it.
    common::write(
        home.path(),
        ".codeium/windsurf/mcp_config.json",
        r#"{"mcpServers": {"notarai": {"command": "notarai", "args": ["mcp"]}}}"#,
    );
    let (code, report) = doctor_json(&repo.root, &[], Some(home.path()));
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(report["agents"].as_array().unwrap().len(), AGENTS.len());
    let not_ok: Vec<&Value> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verdict"] != "ok")
        .collect();
    assert!(not_ok.is_empty(), "{not_ok:#?}");
    for agent in AGENTS {
        assert_eq!(check(&report, Some(agent), "handshake")["verdict"], "ok");
    }
    // And `--remove` takes it all out again: nothing left to check.
    let mut remove = notarai_cmd(
        &repo.root,
        &[
            "init",
            "--remove",
            "--agents",
            &crate::common::every_agent(),
        ],
    );
    remove.env("PATH", path_with_notarai());
    let out = run(remove, b"");
    assert!(out.status.success(), "{}", common::stderr(&out));
    let (code, report) = doctor_json(&repo.root, &["--agents", "vscode"], None);
    assert_eq!(code, Some(1));
    assert_ne!(check(&report, Some("vscode"), "config")["verdict"], "ok");
}

#[test]
fn a_missing_binary_fails_the_command_check_and_skips_the_handshake() {
    let repo = repo();
    repo.write(
        ".mcp.json",
        r#"{"mcpServers": {"notarai": {"command": "notarai-missing", "args": ["mcp"]}}}"#,
    );
    let (code, report) = doctor_json(&repo.root, &["--agents", "claude"], None);
    assert_eq!(code, Some(1));
    let command = check(&report, Some("claude"), "command");
    assert_eq!(command["verdict"], "fail");
    assert!(
        command["message"]
            .as_str()
            .unwrap()
            .contains("notarai-missing"),
        "{command}"
    );
    assert!(command["fix"].as_str().unwrap().contains("PATH"));
    assert!(!has_check(&report, Some("claude"), "handshake"));
    // A relative path is taken from the root and named when missing.
    repo.write(
        ".mcp.json",
        r#"{"mcpServers": {"notarai": {"command": "./bin/notarai", "args": ["mcp"]}}}"#,
    );
    let (_, report) = doctor_json(&repo.root, &["--agents", "claude"], None);
    let message = check(&report, Some("claude"), "command")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("bin/notarai does not exist"), "{message}");
}

#[test]
fn json_that_does_not_parse_is_reported_with_line_and_column() {
    let repo = repo();
    repo.write(
        ".cursor/mcp.json",
        "{\n  \"mcpServers\": {\n    \"notarai\": {\"command\": \"notarai\",, \"args\": [\"mcp\"]}\n  }\n}\n",
    );
    let (code, report) = doctor_json(&repo.root, &["--agents", "cursor"], None);
    assert_eq!(code, Some(1));
    let config = check(&report, Some("cursor"), "config");
    assert_eq!(config["verdict"], "fail");
    assert_eq!(config["file"], ".cursor/mcp.json");
    assert_eq!(config["position"]["line"], 3, "{config}");
    assert!(config["position"]["column"].as_u64().unwrap() > 1);
    assert!(config["fix"].as_str().unwrap().contains("line 3"));
    // In the table too.
    let text = stdout(&doctor_in(&repo.root, &["--agents", "cursor"], None));
    assert!(text.contains(".cursor/mcp.json:3:"), "{text}");
}

/// VS Code's Copilot harness reads `.mcp.json` under `mcpServers`: an entry
/// copied there under VS Code's Local key `servers` is named as misplaced.
#[test]
fn vscode_with_the_local_servers_key_names_the_right_key() {
    let repo = repo();
    repo.write(
        ".mcp.json",
        "{\"servers\": {\"notarai\": {\"type\": \"stdio\", \"command\": \"notarai\", \"args\": [\"mcp\"]}}}\n",
    );
    let (code, report) = doctor_json(&repo.root, &["--agents", "vscode"], None);
    assert_eq!(code, Some(1));
    assert_eq!(check(&report, Some("vscode"), "config")["verdict"], "ok");
    let entry = check(&report, Some("vscode"), "entry");
    assert_eq!(entry["verdict"], "fail");
    let message = entry["message"].as_str().unwrap();
    assert!(
        message.contains("`mcpServers`") && message.contains("`servers`"),
        "{message}"
    );
    assert!(
        entry["fix"]
            .as_str()
            .unwrap()
            .contains("notarai init --agents vscode")
    );
}

/// A setup a current agent no longer reads is flagged with its fix: VS
/// Code's `.vscode/mcp.json` alone (its Copilot harness reads `.mcp.json`),
/// Gemini CLI's `.gemini/` alone (retired; Antigravity CLI reads
/// `.agents/`). The fix makes doctor green and keeps the old files.
#[test]
fn a_setup_in_a_place_the_agent_moved_from_is_flagged_with_its_fix() {
    let repo = repo();
    let local = "{\n  // mine\n  \"servers\": {\"notarai\": {\"type\": \"stdio\", \"command\": \"notarai\", \"args\": [\"mcp\"]}}\n}\n";
    repo.write(".vscode/mcp.json", local);
    repo.write(
        ".gemini/settings.json",
        r#"{"mcpServers": {"notarai": {"command": "notarai", "args": ["mcp"]}}}"#,
    );
    let args = ["--agents", "vscode,gemini", "--no-handshake"];
    let (code, report) = doctor_json(&repo.root, &args, None);
    assert_eq!(code, Some(1), "{report:#}");
    let moved = check(&report, Some("vscode"), "moved");
    assert_eq!(moved["verdict"], "warn");
    assert_eq!(moved["file"], ".vscode/mcp.json");
    assert!(
        moved["message"]
            .as_str()
            .unwrap()
            .contains("Copilot harness"),
        "{moved}"
    );
    assert!(
        moved["fix"]
            .as_str()
            .unwrap()
            .contains("notarai init --agents vscode"),
        "{moved}"
    );
    let retired = check(&report, Some("gemini"), "moved");
    assert_eq!(retired["verdict"], "warn");
    assert!(
        retired["message"]
            .as_str()
            .unwrap()
            .contains("Antigravity CLI"),
        "{retired}"
    );
    assert!(
        retired["fix"]
            .as_str()
            .unwrap()
            .contains("notarai init --agents antigravity"),
        "{retired}"
    );
    let out = common::notarai(&repo.root, &["init", "--agents", "vscode,antigravity"], b"");
    assert!(out.status.success(), "{}", common::stderr(&out));
    // The Local harness's file is kept as it was.
    assert_eq!(
        std::fs::read_to_string(repo.root.join(".vscode/mcp.json")).unwrap(),
        local
    );
    let (code, report) = doctor_json(&repo.root, &args, None);
    assert_eq!(code, Some(0), "{report:#}");
    assert!(!has_check(&report, Some("vscode"), "moved"), "{report:#}");
    assert!(!has_check(&report, Some("gemini"), "moved"), "{report:#}");
}

#[test]
fn a_command_that_is_no_mcp_server_fails_the_handshake_in_time() {
    let repo = repo();
    // Never answers: killed at the deadline (waited out, never cut short).
    repo.write(
        ".mcp.json",
        r#"{"mcpServers": {"notarai": {"command": "sleep", "args": ["10"]}}}"#,
    );
    let started = Instant::now();
    let (code, report) = doctor_json_with(
        &repo.root,
        &["--agents", "claude", "--run-configured-commands"],
        None,
        Some(HANG_DEADLINE_MS),
    );
    let took = started.elapsed();
    assert_eq!(code, Some(1));
    assert!(took >= Duration::from_millis(1500), "took {took:?}");
    let handshake = check(&report, Some("claude"), "handshake");
    assert_eq!(handshake["verdict"], "fail");
    assert!(
        handshake["message"].as_str().unwrap().contains("no answer"),
        "{handshake}"
    );
    // Exits at once without a word.
    repo.write(
        ".mcp.json",
        r#"{"mcpServers": {"notarai": {"command": "true"}}}"#,
    );
    let (code, report) = doctor_json(
        &repo.root,
        &["--agents", "claude", "--run-configured-commands"],
        None,
    );
    assert_eq!(code, Some(1));
    let message = check(&report, Some("claude"), "handshake")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("exited with code 0"), "{message}");
    // Writes something else than JSON-RPC on stdout.
    repo.write(
        ".mcp.json",
        r#"{"mcpServers": {"notarai": {"command": "echo", "args": ["hello"]}}}"#,
    );
    let (_, report) = doctor_json(
        &repo.root,
        &["--agents", "claude", "--run-configured-commands"],
        None,
    );
    let message = check(&report, Some("claude"), "handshake")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("not MCP JSON-RPC"), "{message}");
}

#[test]
fn the_server_gets_the_entrys_args_and_env_and_starts_in_the_root() {
    let repo = repo();
    // Answers only when started in the root with NOTARAI_UNDER_TEST from the entry's env.
    let entry = serde_json::json!({"mcpServers": {"notarai": {
        "command": "sh",
        "args": ["-c", "test -f .notarai/app.spec.yaml && exec \"$NOTARAI_UNDER_TEST\" mcp"],
        "env": {"NOTARAI_UNDER_TEST": BIN}
    }}});
    repo.write(".mcp.json", entry.to_string());
    let (code, report) = doctor_json(
        &repo.root,
        &["--agents", "claude", "--run-configured-commands"],
        None,
    );
    assert_eq!(code, Some(0), "{report:#}");
    assert_eq!(check(&report, Some("claude"), "handshake")["verdict"], "ok");
    // Without the env var the same entry exits without answering.
    let mut entry = entry;
    entry["mcpServers"]["notarai"]["env"] = serde_json::json!({});
    repo.write(".mcp.json", entry.to_string());
    let (code, report) = doctor_json(
        &repo.root,
        &["--agents", "claude", "--run-configured-commands"],
        None,
    );
    assert_eq!(code, Some(1));
    let message = check(&report, Some("claude"), "handshake")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("without answering"), "{message}");
}

#[test]
fn an_invalid_spec_fails_with_its_first_error() {
    let repo = repo();
    configure_every_agent(&repo);
    repo.write(
        ".notarai/bad.spec.yaml",
        "schema_version: '0.7'\nintent: 'x'\nartifacts: 3\n",
    );
    let (code, report) = doctor_json(&repo.root, &["--agents", "claude"], None);
    assert_eq!(code, Some(1));
    let specs = check(&report, None, "specs");
    assert_eq!(specs["verdict"], "fail");
    assert_eq!(specs["specs"]["total"], 2);
    let invalid = specs["specs"]["invalid"].as_array().unwrap();
    assert_eq!(invalid.len(), 1);
    assert_eq!(invalid[0]["path"], ".notarai/bad.spec.yaml");
    // The first error `notarai validate` prints for it, with its position.
    let line = invalid[0]["position"]["line"].as_u64().unwrap();
    let column = invalid[0]["position"]["column"].as_u64().unwrap();
    assert!(line >= 1 && column >= 1);
    assert!(!invalid[0]["message"].as_str().unwrap().is_empty());
    let text = stdout(&doctor_in(&repo.root, &["--agents", "claude"], None));
    assert!(
        text.contains(&format!(".notarai/bad.spec.yaml:{line}:{column}: ")),
        "{text}"
    );
}

#[test]
fn windsurf_reads_the_users_file_only_and_warns_when_it_cannot() {
    let repo = repo();
    repo.write(".windsurf/rules/x.md", "# rules\n");
    // HOME unset: a warning with the snippet to add.
    let (code, report) = doctor_json(&repo.root, &["--agents", "windsurf"], None);
    assert_eq!(code, Some(0), "{report:#}");
    let config = check(&report, Some("windsurf"), "config");
    assert_eq!(config["verdict"], "warn");
    assert!(config["message"].as_str().unwrap().contains("HOME"));
    assert!(config["fix"].as_str().unwrap().contains("\"mcpServers\""));
    // HOME set, no file: the same, naming the file.
    let home = tempfile::tempdir().unwrap();
    let (_, report) = doctor_json(&repo.root, &["--agents", "windsurf"], Some(home.path()));
    let config = check(&report, Some("windsurf"), "config");
    assert_eq!(config["verdict"], "warn");
    assert!(
        config["message"]
            .as_str()
            .unwrap()
            .contains("does not exist")
    );
    // The file with a broken entry: its handshake fails; nothing is written there.
    common::write(
        home.path(),
        ".codeium/windsurf/mcp_config.json",
        r#"{"mcpServers": {"notarai": {"command": "notarai-missing", "args": ["mcp"]}}}"#,
    );
    let before = common::snapshot(home.path());
    let (code, report) = doctor_json(&repo.root, &["--agents", "windsurf"], Some(home.path()));
    assert_eq!(code, Some(1));
    assert_eq!(
        check(&report, Some("windsurf"), "command")["verdict"],
        "fail"
    );
    assert_eq!(common::snapshot(home.path()), before);
}

#[test]
fn no_configured_agent_fails_with_the_init_command() {
    let repo = repo();
    let (code, report) = doctor_json(&repo.root, &[], None);
    assert_eq!(code, Some(1));
    let agents = check(&report, None, "agents");
    assert_eq!(agents["verdict"], "fail");
    assert!(
        agents["fix"]
            .as_str()
            .unwrap()
            .contains("notarai init --agents")
    );
}

#[test]
fn unknown_agents_are_refused_and_all_expands() {
    let repo = repo();
    let out = doctor_in(&repo.root, &["--agents", "claude,emacs"], None);
    assert_eq!(out.status.code(), Some(2));
    let err = common::stderr(&out);
    assert!(err.contains("invalid value 'emacs'"), "{err}");
    assert!(
        err.contains("claude, codex, cursor"),
        "the known names: {err}"
    );
    // `all`: every agent but Gemini CLI, retired, without a .gemini/ folder.
    let (_, report) = doctor_json(
        &repo.root,
        &["--agents", "all,claude", "--no-handshake"],
        None,
    );
    let named: Vec<&str> = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["agent"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = AGENTS.into_iter().filter(|a| *a != "gemini").collect();
    assert_eq!(named, expected);
}

#[test]
fn servers_that_hang_are_waited_for_together() {
    let repo = repo();
    // Each server says it started, then waits (never answering) until all
    // three have, then exits: only servers started together all get that
    // far; handshakes one after the other would leave the first waiting out
    // its deadline alone, killed, and never `together`. Exiting, they cost
    // no deadline, so it can be long (a slow machine starts `sh` slowly).
    let server = |n: u32| {
        format!(
            r#"{{"command": "sh", "args": ["-c", "touch started.{n}; while [ ! -e started.1 ] || [ ! -e started.2 ] || [ ! -e started.3 ]; do sleep 0.05; done; touch together.{n}"]}}"#
        )
    };
    repo.write(
        ".mcp.json",
        format!(r#"{{"mcpServers": {{"notarai": {}}}}}"#, server(1)),
    );
    repo.write(
        ".cursor/mcp.json",
        format!(r#"{{"mcpServers": {{"notarai": {}}}}}"#, server(2)),
    );
    repo.write(
        ".zed/settings.json",
        format!(r#"{{"context_servers": {{"notarai": {}}}}}"#, server(3)),
    );
    let (code, report) = doctor_json_with(
        &repo.root,
        &["--agents", "claude,cursor,zed", "--run-configured-commands"],
        None,
        Some("30000"),
    );
    assert_eq!(code, Some(1));
    for (n, agent) in [(1, "claude"), (2, "cursor"), (3, "zed")] {
        let handshake = check(&report, Some(agent), "handshake");
        assert_eq!(handshake["verdict"], "fail", "{agent}");
        assert!(
            handshake["message"]
                .as_str()
                .unwrap()
                .contains("without answering"),
            "{handshake}"
        );
        assert!(
            repo.root.join(format!("together.{n}")).exists(),
            "{agent}'s server did not run with the others"
        );
    }
}

/// Whether process `pid` is still running (a zombie waiting for its
/// reaper is not).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().chars().next())
        })
        .flatten()
        .is_some_and(|state| state != 'Z' && state != 'X')
}

/// A server started through a wrapper (a shell script, `npx`) that hangs:
/// doctor stops the whole process it started, the wrapper's children too,
/// not only the wrapper (which left `sleep` running after doctor exited).
#[cfg(target_os = "linux")]
#[test]
fn a_hung_server_is_stopped_with_the_processes_it_started() {
    let repo = repo();
    repo.write(
        ".mcp.json",
        r#"{"mcpServers": {"notarai": {"command": "sh", "args": ["-c", "sleep 120 & echo $! > child.pid; sleep 120"]}}}"#,
    );
    let (code, report) = doctor_json_with(
        &repo.root,
        &["--agents", "claude", "--run-configured-commands"],
        None,
        Some(HANG_DEADLINE_MS),
    );
    assert_eq!(code, Some(1));
    let handshake = check(&report, Some("claude"), "handshake");
    assert!(handshake["message"].as_str().unwrap().contains("no answer"));
    let pid: u32 = std::fs::read_to_string(repo.root.join("child.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(2);
    while running(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let alive = running(pid);
    if alive {
        // SAFETY: a plain kill(2) of the process this test caused.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    }
    assert!(!alive, "the server's child {pid} outlived doctor");
}

/// A config that cannot be read (a link leading out of the repository) is
/// not read, and its fix says so; it said to make the servers key an object.
#[test]
fn an_unreadable_config_gets_a_fix_about_the_file() {
    let repo = repo();
    std::fs::write(
        repo.outside.join("mcp.json"),
        r#"{"mcpServers": {"notarai": {"command": "notarai", "args": ["mcp"]}}}"#,
    )
    .unwrap();
    std::os::unix::fs::symlink(repo.outside.join("mcp.json"), repo.root.join(".mcp.json")).unwrap();
    let (code, report) = doctor_json(&repo.root, &["--agents", "claude"], None);
    assert_eq!(code, Some(1));
    let config = check(&report, Some("claude"), "config");
    assert_eq!(config["verdict"], "fail");
    let fix = config["fix"].as_str().unwrap();
    assert!(!fix.contains("is an object of servers"), "{config}");
    assert!(
        fix.contains("readable file inside the repository"),
        "{config}"
    );
    let repo = repo_with_servers_number();
    let (_, report) = doctor_json(&repo.root, &["--agents", "claude"], None);
    let config = check(&report, Some("claude"), "config");
    assert!(
        config["fix"]
            .as_str()
            .unwrap()
            .contains("is an object of servers"),
        "{config}"
    );
}

/// A `.mcp.json` whose `mcpServers` is a number.
fn repo_with_servers_number() -> Repo {
    let repo = repo();
    repo.write(".mcp.json", r#"{"mcpServers": 5}"#);
    repo
}
