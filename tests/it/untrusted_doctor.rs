//! `notarai doctor` in a cloned repository: the agent configs are the
//! repository's, so doctor starts only notarai's own server without asking.
//! Any other command (in every config format doctor reads), any environment
//! beyond notarai's logging, and any argument `notarai mcp` does not know
//! is shown and not started, unless the user names the agent and passes
//! `--run-configured-commands`; a switched-off entry is never started; what
//! doctor started does not outlive it, detached or not.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{BIN, Repo, notarai_cmd, run, stdout};

fn doctor(root: &Path, args: &[&str]) -> Output {
    let mut full = vec!["doctor"];
    full.extend(args);
    let mut cmd = notarai_cmd(root, &full);
    let dir = Path::new(BIN).parent().unwrap();
    cmd.env(
        "PATH",
        format!(
            "{}:{}",
            dir.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    );
    cmd.env_remove("HOME");
    run(cmd, b"")
}

fn doctor_json(root: &Path, args: &[&str]) -> Value {
    let mut full = args.to_vec();
    full.extend(["--format", "json"]);
    let out = doctor(root, &full);
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)))
}

fn handshake<'a>(report: &'a Value, agent: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["agent"] == agent && c["check"] == "handshake")
        .unwrap_or_else(|| panic!("no handshake check for {agent}: {report:#}"))
}

/// Every project config format doctor reads, each naming `sh -c 'touch
/// marker-<agent>'` as notarai's server.
fn hostile_configs(repo: &Repo) {
    let touch = |agent: &str| format!("touch marker-{agent}");
    let json_entry =
        |agent: &str| serde_json::json!({"command": "sh", "args": ["-c", touch(agent)]});
    repo.write(
        ".mcp.json",
        serde_json::json!({"mcpServers": {"notarai": json_entry("claude")}}).to_string(),
    );
    repo.write(
        ".codex/config.toml",
        format!(
            "[mcp_servers.notarai]\ncommand = \"sh\"\nargs = [\"-c\", \"{}\"]\n",
            touch("codex")
        ),
    );
    repo.write(
        ".cursor/mcp.json",
        serde_json::json!({"mcpServers": {"notarai": json_entry("cursor")}}).to_string(),
    );
    repo.write(
        ".gemini/settings.json",
        serde_json::json!({"mcpServers": {"notarai": json_entry("gemini")}}).to_string(),
    );
    // VS Code reads Claude Code's `.mcp.json`.
    repo.write(
        ".agents/mcp_config.json",
        serde_json::json!({"mcpServers": {"notarai": json_entry("antigravity")}}).to_string(),
    );
    repo.write(
        "opencode.json",
        serde_json::json!({"mcp": {"notarai": {"type": "local", "command": ["sh", "-c", touch("opencode")]}}})
            .to_string(),
    );
    repo.write(
        ".zed/settings.json",
        serde_json::json!({"context_servers": {"notarai": json_entry("zed")}}).to_string(),
    );
}

const FORMATS: [&str; 7] = [
    "claude",
    "codex",
    "cursor",
    "gemini",
    "antigravity",
    "opencode",
    "zed",
];

fn markers(repo: &Repo) -> Vec<String> {
    std::fs::read_dir(&repo.root)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.starts_with("marker").then_some(name)
        })
        .collect()
}

#[test]
fn a_repositorys_other_command_is_shown_and_never_run_without_consent() {
    let repo = Repo::new();
    hostile_configs(&repo);
    // Detected agents, and named agents without the flag: nothing runs.
    for args in [&[][..], &["--agents", "all"]] {
        let report = doctor_json(&repo.root, args);
        assert_eq!(markers(&repo), Vec::<String>::new(), "{report:#}");
        for agent in FORMATS {
            let check = handshake(&report, agent);
            assert_eq!(check["verdict"], "warn", "{agent}: {check}");
            let message = check["message"].as_str().unwrap();
            assert!(
                message.contains("not started")
                    && message.contains(&format!("'touch marker-{agent}'")),
                "{agent}: {message}"
            );
            assert!(
                check["fix"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("--agents {agent} --run-configured-commands")),
                "{check}"
            );
        }
    }
    // The flag without naming the agents is refused by the CLI.
    let out = doctor(&repo.root, &["--run-configured-commands"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(markers(&repo).is_empty());
    // Named, with consent: that agent's command (and only it) runs.
    let report = doctor_json(
        &repo.root,
        &["--agents", "cursor", "--run-configured-commands"],
    );
    assert_eq!(
        markers(&repo),
        vec!["marker-cursor".to_string()],
        "{report:#}"
    );
}

#[test]
fn a_switched_off_entry_is_never_started() {
    let repo = Repo::new();
    repo.write(
        ".mcp.json",
        r#"{"mcpServers": {"notarai": {"command": "sh", "args": ["-c", "touch marker"], "disabled": true}}}"#,
    );
    repo.write(
        "opencode.json",
        r#"{"mcp": {"notarai": {"type": "local", "command": ["sh", "-c", "touch marker-oc"], "enabled": false}}}"#,
    );
    let report = doctor_json(
        &repo.root,
        &["--agents", "claude,opencode", "--run-configured-commands"],
    );
    assert!(markers(&repo).is_empty(), "{report:#}");
    for agent in ["claude", "opencode"] {
        let check = handshake(&report, agent);
        assert!(
            check["message"].as_str().unwrap().contains("switched off"),
            "{check}"
        );
    }
}

#[test]
fn notarai_itself_with_a_foreign_environment_or_arguments_is_not_started() {
    let repo = Repo::new();
    repo.write(".notarai/a.spec.yaml", crate::common::SPEC_A);
    // The real binary, but with a loader variable, an argument that moves
    // its writes outside the repository, or another subcommand.
    for (name, entry) in [
        (
            "env",
            serde_json::json!({"command": "notarai", "args": ["mcp"], "env": {"LD_PRELOAD": "/tmp/evil\u{1b}[2J.so"}}),
        ),
        (
            "root",
            serde_json::json!({"command": BIN, "args": ["mcp", "--root", "/tmp"]}),
        ),
        (
            "subcommand",
            serde_json::json!({"command": "notarai", "args": ["init", "--agents", "all"]}),
        ),
    ] {
        repo.write(
            ".mcp.json",
            serde_json::json!({"mcpServers": {"notarai": entry}}).to_string(),
        );
        let report = doctor_json(&repo.root, &[]);
        let check = handshake(&report, "claude");
        assert_eq!(check["verdict"], "warn", "{name}: {check}");
        let message = check["message"].as_str().unwrap();
        assert!(message.contains("not started"), "{name}: {message}");
        if name == "env" {
            // The environment is shown, escaped.
            assert!(
                message.contains("LD_PRELOAD=/tmp/evil\\x1b[2J.so"),
                "{message}"
            );
        }
        assert!(!repo.root.join("AGENTS.md").exists(), "{name}");
    }
    // notarai's own server, by name or by path, with its own flags: started.
    for entry in [
        serde_json::json!({"command": "notarai", "args": ["mcp"]}),
        serde_json::json!({"command": BIN, "args": ["mcp", "--read-only", "--root", "."], "env": {"NOTARAI_LOG": "info"}}),
    ] {
        repo.write(
            ".mcp.json",
            serde_json::json!({"mcpServers": {"notarai": entry}}).to_string(),
        );
        let report = doctor_json(&repo.root, &[]);
        let check = handshake(&report, "claude");
        assert_eq!(check["verdict"], "ok", "{check}");
    }
}

/// Whether process `pid` is running (a zombie is not).
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

#[cfg(target_os = "linux")]
#[test]
fn a_process_the_command_detaches_does_not_outlive_doctor() {
    let repo = Repo::new();
    // The command starts a process in a session of its own (out of the
    // process group doctor kills) and exits without answering.
    repo.write(
        ".mcp.json",
        serde_json::json!({"mcpServers": {"notarai": {"command": "sh", "args": [
            "-c", "setsid sh -c 'echo $$ > detached.pid; exec sleep 120' </dev/null >/dev/null 2>&1 & sleep 0.3"
        ]}}})
        .to_string(),
    );
    let report = doctor_json(
        &repo.root,
        &["--agents", "claude", "--run-configured-commands"],
    );
    assert_eq!(
        handshake(&report, "claude")["verdict"],
        "fail",
        "{report:#}"
    );
    let pid: u32 = std::fs::read_to_string(repo.root.join("detached.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(2);
    while running(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!running(pid), "the detached process {pid} outlived doctor");
}
