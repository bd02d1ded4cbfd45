//! `notarai hook validate` against the built binary: exit 2 with the errors on
//! stderr for a broken spec, exit 0 and silence for everything else.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{git, notarai_cmd, run, write};

const BROKEN: &str = "schema_version: '0.7'\nintent: 'x'\nartifacts: 3\n";
const VALID: &str = "schema_version: '0.7'\nintent: 'Auth.'\nbehaviors:\n  - name: login\n    given: 'a user'\n    then: 'a session'\nartifacts:\n  code:\n    - path: 'src/**'\n";

/// A project folder holding `.notarai/bad.spec.yaml`, `.notarai/good.spec.yaml`
/// and `src/lib.rs`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".notarai/bad.spec.yaml", BROKEN);
    write(root, ".notarai/good.spec.yaml", VALID);
    write(root, "src/lib.rs", "// lib\n");
    dir
}

/// Run the hook with `stdin`, in `cwd`, with `CLAUDE_PROJECT_DIR` set or not.
fn hook(stdin: &[u8], cwd: &Path, project_dir: Option<&Path>) -> Output {
    let mut cmd = notarai_cmd(cwd, &["hook", "validate"]);
    if let Some(dir) = project_dir {
        cmd.env("CLAUDE_PROJECT_DIR", dir);
    }
    run(cmd, stdin)
}

fn event(cwd: Option<&Path>, file_path: &str) -> Vec<u8> {
    let mut value = serde_json::json!({
        "session_id": "s",
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": file_path, "old_string": "a", "new_string": "b"},
        "tool_response": {"success": true},
        "some_future_field": [1, 2]
    });
    if let Some(cwd) = cwd {
        value["cwd"] = cwd.to_str().unwrap().into();
    }
    serde_json::to_vec(&value).unwrap()
}

fn assert_silent_success(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Exit 2, and stderr has a `.notarai/bad.spec.yaml:3:COL: message` line.
fn assert_broken_reported(out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(out.stdout.is_empty());
    let located = stderr.lines().any(|line| {
        let Some(rest) = line.strip_prefix(".notarai/bad.spec.yaml:3:") else {
            return false;
        };
        let (col, message) = rest.split_once(": ").unwrap_or(("", ""));
        !col.is_empty() && col.bytes().all(|b| b.is_ascii_digit()) && !message.is_empty()
    });
    assert!(located, "no path:line:col line in: {stderr}");
}

#[test]
fn broken_spec_absolute_path_exits_2_with_located_errors() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join(".notarai/bad.spec.yaml");
    let out = hook(&event(Some(&root), file.to_str().unwrap()), &root, None);
    assert_broken_reported(&out);
}

#[test]
fn broken_spec_relative_to_event_cwd() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let out = hook(
        &event(Some(&root), ".notarai/bad.spec.yaml"),
        elsewhere.path(),
        None,
    );
    assert_broken_reported(&out);
}

#[test]
fn relative_path_falls_back_to_claude_project_dir() {
    let dir = project();
    let elsewhere = tempfile::tempdir().unwrap();
    let out = hook(
        &event(None, ".notarai/bad.spec.yaml"),
        elsewhere.path(),
        Some(dir.path()),
    );
    assert_broken_reported(&out);
}

#[test]
fn broken_spec_in_a_subfolder_of_a_git_repo_found_from_cwd() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    git(&root, &["init", "-q"]);
    let sub = root.join("src");
    let out = hook(&event(Some(&sub), "../.notarai/bad.spec.yaml"), &sub, None);
    assert_broken_reported(&out);
}

#[test]
fn valid_spec_is_silent() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join(".notarai/good.spec.yaml");
    assert_silent_success(&hook(
        &event(Some(&root), file.to_str().unwrap()),
        &root,
        None,
    ));
}

#[test]
fn warnings_alone_do_not_fail() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    // A glob that matches no file: at most a warning.
    let orphan = VALID.replace("src/**", "nowhere/**");
    std::fs::write(root.join(".notarai/good.spec.yaml"), orphan).unwrap();
    let out = hook(&event(Some(&root), ".notarai/good.spec.yaml"), &root, None);
    assert_silent_success(&out);
}

#[test]
fn other_files_are_ignored_even_when_not_yaml() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join(".notarai/notes.yaml"), ": : :\n").unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/x.spec.yaml"), BROKEN).unwrap();
    std::fs::create_dir_all(root.join(".notarai/.cache")).unwrap();
    std::fs::write(root.join(".notarai/.cache/x.spec.yaml"), BROKEN).unwrap();
    for file in [
        "src/lib.rs",
        ".notarai/notes.yaml",
        "docs/x.spec.yaml",
        ".notarai/.cache/x.spec.yaml",
        ".notarai/missing.spec.yaml",
    ] {
        let out = hook(&event(Some(&root), file), &root, None);
        assert_silent_success(&out);
    }
}

#[test]
fn garbage_and_odd_input_exit_0_silently() {
    let dir = project();
    for input in [
        &b"this is not json"[..],
        b"",
        b"[1, 2, 3]",
        b"{\"tool_input\": {\"file_path\": 42}}",
        b"{\"tool_input\": null}",
        b"\xff\xfe\x00garbage",
    ] {
        assert_silent_success(&hook(input, dir.path(), Some(dir.path())));
    }
}

#[test]
fn spec_outside_the_project_is_ignored() {
    let project_dir = project();
    let other = project();
    let outside = other.path().join(".notarai/bad.spec.yaml");
    let out = hook(
        &event(Some(project_dir.path()), outside.to_str().unwrap()),
        project_dir.path(),
        Some(project_dir.path()),
    );
    assert_silent_success(&out);
    // The same through `..` from inside the project.
    let escaped = format!(
        "../{}/.notarai/bad.spec.yaml",
        other.path().file_name().unwrap().to_str().unwrap()
    );
    let out = hook(
        &event(Some(project_dir.path()), &escaped),
        project_dir.path(),
        Some(project_dir.path()),
    );
    assert_silent_success(&out);
}

#[test]
fn oversized_input_is_ignored() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    // A valid event naming the broken spec, padded past the 16 MiB bound.
    let mut input = event(Some(&root), ".notarai/bad.spec.yaml");
    input.extend(std::iter::repeat_n(b' ', 17 * 1024 * 1024));
    assert_silent_success(&hook(&input, &root, None));
    // The same event within the bound is checked.
    let input = event(Some(&root), ".notarai/bad.spec.yaml");
    assert_broken_reported(&hook(&input, &root, None));
}

#[test]
fn without_any_folder_the_project_is_the_one_holding_the_spec() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let file = root.join(".notarai/bad.spec.yaml");
    let out = hook(&event(None, file.to_str().unwrap()), elsewhere.path(), None);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains(".notarai/bad.spec.yaml:"));
}

// --- One real event per agent -------------------------------------------
//
// Each agent's own event shape (the fields it documents, README "The hook"),
// naming in turn the broken spec, the good spec and a file that is no spec.

/// Run the hook with `--agent <agent>` (or none) in `cwd`, no project env.
fn hook_as(agent: Option<&str>, stdin: &[u8], cwd: &Path) -> Output {
    let mut args = vec!["hook", "validate"];
    if let Some(agent) = agent {
        args.extend(["--agent", agent]);
    }
    let mut cmd = notarai_cmd(cwd, &args);
    cmd.env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("GEMINI_PROJECT_DIR");
    run(cmd, stdin)
}

/// Each agent's event naming `file` (absolute, or relative to `root` for the
/// formats that carry a folder) in the project at `root`.
fn agent_event(agent: &str, root: &Path, file: &str) -> serde_json::Value {
    let abs = root.join(file).to_str().unwrap().to_string();
    let cwd = root.to_str().unwrap();
    match agent {
        "claude" => serde_json::json!({
            "session_id": "abc", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
            "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": abs, "content": "..."},
            "tool_response": {"filePath": abs, "success": true}, "tool_use_id": "toolu_1"
        }),
        "codex" => serde_json::json!({
            "session_id": "s", "turn_id": "t", "transcript_path": null, "cwd": cwd,
            "hook_event_name": "PostToolUse", "model": "gpt-5-codex",
            "permission_mode": "default", "tool_name": "apply_patch",
            "tool_input": {"command": format!(
                "*** Begin Patch\n*** Update File: {file}\n@@\n-intent: 'a'\n+intent: 'b'\n*** End Patch\n"
            )},
            "tool_response": "Success. Updated the following files:\nM x", "tool_use_id": "call_1"
        }),
        "cursor" => serde_json::json!({
            "hook_event_name": "afterFileEdit", "conversation_id": "c", "generation_id": "g",
            "workspace_roots": [cwd], "file_path": abs,
            "edits": [{"old_string": "a", "new_string": "b"}],
            "cursor_version": "2.0.77"
        }),
        "gemini" => serde_json::json!({
            "session_id": "s", "transcript_path": "/tmp/t.json", "cwd": cwd,
            "hook_event_name": "AfterTool", "timestamp": "2026-11-23T18:00:00Z",
            "tool_name": "replace",
            "tool_input": {"file_path": abs, "old_string": "a", "new_string": "b"},
            "tool_response": {"llmContent": "ok", "returnDisplay": "ok", "error": null}
        }),
        "vscode" => serde_json::json!({
            "timestamp": "2026-11-23T18:00:00.000Z", "cwd": cwd, "sessionId": "s",
            "hookEventName": "PostToolUse", "transcript_path": "/tmp/t.json",
            "tool_name": "editFiles", "tool_input": {"files": [file]},
            "tool_use_id": "t1", "tool_response": ""
        }),
        "opencode" => serde_json::json!({
            "tool": "edit", "args": {"filePath": abs, "oldString": "a", "newString": "b"},
            "cwd": cwd
        }),
        "windsurf" => serde_json::json!({
            "agent_action_name": "post_write_code", "trajectory_id": "t", "execution_id": "e",
            "timestamp": "2026-11-23T18:00:00Z",
            "tool_info": {"file_path": abs, "edits": [{"old_string": "a", "new_string": "b"}]}
        }),
        other => panic!("no fixture for {other}"),
    }
}

const AGENTS: [&str; 7] = [
    "claude", "codex", "cursor", "gemini", "vscode", "opencode", "windsurf",
];

/// The agent's failing answer for `.notarai/bad.spec.yaml`.
fn assert_agent_failing_answer(agent: &str, out: &Output) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stderr.contains(".notarai/bad.spec.yaml:3:"),
        "{agent}: no located error on stderr: {stderr}"
    );
    match agent {
        "cursor" => {
            assert_eq!(out.status.code(), Some(0), "{agent}: {stderr}");
            let json: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
            let context = json["additional_context"].as_str().unwrap();
            assert!(context.contains(".notarai/bad.spec.yaml:3:"), "{context}");
        }
        "windsurf" => {
            assert_eq!(out.status.code(), Some(0), "{agent}: {stderr}");
            assert!(stdout.is_empty(), "{stdout}");
        }
        _ => {
            assert_eq!(out.status.code(), Some(2), "{agent}: {stderr}");
            assert!(stdout.is_empty(), "{stdout}");
        }
    }
}

#[test]
fn each_agents_event_gets_its_failing_answer_for_a_broken_spec() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    for agent in AGENTS {
        let event = agent_event(agent, &root, ".notarai/bad.spec.yaml");
        let input = serde_json::to_vec(&event).unwrap();
        // Named explicitly, and recognised from the event's fields alone.
        assert_agent_failing_answer(agent, &hook_as(Some(agent), &input, &root));
        assert_agent_failing_answer(agent, &hook_as(None, &input, &root));
    }
}

#[test]
fn each_agents_event_is_silent_for_a_good_spec_and_a_non_spec_file() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    for agent in AGENTS {
        for file in [".notarai/good.spec.yaml", "src/lib.rs"] {
            let input = serde_json::to_vec(&agent_event(agent, &root, file)).unwrap();
            let out = hook_as(Some(agent), &input, &root);
            assert_eq!(out.status.code(), Some(0), "{agent} {file}");
            assert!(out.stdout.is_empty(), "{agent} {file}");
            assert!(
                out.stderr.is_empty(),
                "{agent} {file}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn windsurf_without_a_folder_in_its_event_uses_the_hooks_working_folder() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let event = serde_json::json!({
        "agent_action_name": "post_write_code",
        "tool_info": {"file_path": ".notarai/bad.spec.yaml"}
    });
    let out = hook_as(
        Some("windsurf"),
        &serde_json::to_vec(&event).unwrap(),
        &root,
    );
    assert_agent_failing_answer("windsurf", &out);
}

#[test]
fn a_codex_patch_touching_several_files_checks_every_spec() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    write(&root, ".notarai/bad2.spec.yaml", BROKEN);
    let patch = "*** Begin Patch\n\
                 *** Update File: .notarai/bad.spec.yaml\n@@\n-a\n+b\n\
                 *** Update File: src/lib.rs\n@@\n-a\n+b\n\
                 *** Update File: .notarai/good.spec.yaml\n@@\n-a\n+b\n\
                 *** Update File: .notarai/old.spec.yaml\n*** Move to: .notarai/bad2.spec.yaml\n@@\n-a\n+b\n\
                 *** Delete File: .notarai/gone.spec.yaml\n\
                 *** End Patch\n";
    let event = serde_json::json!({
        "hook_event_name": "PostToolUse", "tool_name": "apply_patch",
        "cwd": root.to_str().unwrap(),
        "tool_input": {"command": ["apply_patch", patch]}
    });
    let out = hook_as(None, &serde_json::to_vec(&event).unwrap(), &root);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(".notarai/bad.spec.yaml:3:"), "{stderr}");
    assert!(stderr.contains(".notarai/bad2.spec.yaml:3:"), "{stderr}");
    assert!(!stderr.contains("good.spec.yaml"), "{stderr}");
}

#[test]
fn vscode_files_list_checks_every_spec_and_other_tools_are_silent() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let cwd = root.to_str().unwrap();
    let event = serde_json::json!({
        "hookEventName": "PostToolUse", "cwd": cwd, "tool_name": "editFiles",
        "tool_input": {"files": [".notarai/good.spec.yaml", root.join(".notarai/bad.spec.yaml")]}
    });
    // A `.claude/settings.json` hook (`--agent claude`) seeing VS Code's event.
    let out = hook_as(Some("claude"), &serde_json::to_vec(&event).unwrap(), &root);
    assert_broken_reported(&out);
    // VS Code runs the hook for every tool: a read of the broken spec is silent.
    for (tool, input) in [
        (
            "read_file",
            serde_json::json!({"filePath": ".notarai/bad.spec.yaml"}),
        ),
        (
            "run_in_terminal",
            serde_json::json!({"command": "cat .notarai/bad.spec.yaml"}),
        ),
    ] {
        let event = serde_json::json!({
            "hookEventName": "PostToolUse", "cwd": cwd, "tool_name": tool, "tool_input": input
        });
        let out = hook_as(Some("vscode"), &serde_json::to_vec(&event).unwrap(), &root);
        assert_silent_success(&out);
    }
}

#[test]
fn unknown_events_and_tools_are_silent_for_every_agent() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let bad = root.join(".notarai/bad.spec.yaml");
    let bad = bad.to_str().unwrap();
    for (agent, event) in [
        (
            "claude",
            serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"file_path": bad}}),
        ),
        (
            "claude",
            serde_json::json!({"hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": {"file_path": bad}}),
        ),
        (
            "codex",
            serde_json::json!({"hook_event_name": "PostToolUse", "tool_name": "shell", "tool_input": {"command": ["cat", bad]}}),
        ),
        (
            "cursor",
            serde_json::json!({"hook_event_name": "beforeReadFile", "file_path": bad, "workspace_roots": [root]}),
        ),
        (
            "gemini",
            serde_json::json!({"hook_event_name": "AfterTool", "tool_name": "read_file", "tool_input": {"file_path": bad}}),
        ),
        (
            "gemini",
            serde_json::json!({"hook_event_name": "BeforeTool", "tool_name": "write_file", "tool_input": {"file_path": bad}}),
        ),
        (
            "opencode",
            serde_json::json!({"tool": "read", "args": {"filePath": bad}}),
        ),
        (
            "windsurf",
            serde_json::json!({"agent_action_name": "pre_read_code", "tool_info": {"file_path": bad}}),
        ),
    ] {
        let out = hook_as(Some(agent), &serde_json::to_vec(&event).unwrap(), &root);
        assert_silent_success(&out);
    }
}

#[test]
fn opencode_plugin_events_in_either_shape_are_checked() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let cwd = root.to_str().unwrap();
    let patch =
        "*** Begin Patch\n*** Update File: .notarai/bad.spec.yaml\n@@\n-a\n+b\n*** End Patch\n";
    for event in [
        // The shape `init --agents opencode`'s plugin sends (src/init/templates/opencode_plugin.js).
        serde_json::json!({"hook_event_name": "tool.execute.after", "tool_name": "edit",
                           "tool_input": {"filePath": ".notarai/bad.spec.yaml"}, "cwd": cwd}),
        serde_json::json!({"hook_event_name": "tool.execute.after", "tool_name": "apply_patch",
                           "tool_input": {"patchText": patch}, "cwd": cwd}),
        // The short shape.
        serde_json::json!({"tool": "write", "args": {"filePath": ".notarai/bad.spec.yaml"}, "cwd": cwd}),
    ] {
        let input = serde_json::to_vec(&event).unwrap();
        assert_agent_failing_answer("opencode", &hook_as(Some("opencode"), &input, &root));
        assert_agent_failing_answer("opencode", &hook_as(None, &input, &root));
    }
    let read = serde_json::json!({"hook_event_name": "tool.execute.after", "tool_name": "read",
                                  "tool_input": {"filePath": ".notarai/bad.spec.yaml"}, "cwd": cwd});
    assert_silent_success(&hook_as(
        Some("opencode"),
        &serde_json::to_vec(&read).unwrap(),
        &root,
    ));
}
