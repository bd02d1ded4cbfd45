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
