//! `notarai init` against the built binary, in temporary folders.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{git, notarai, snapshot, stderr, stdout};

use serde_json::{Value, json};

/// Every file `notarai init` writes on a fresh folder, in report order.
const ALL_FILES: [&str; 9] = [
    ".mcp.json",
    ".gitignore",
    ".claude/settings.json",
    ".claude/skills/notarai-reconcile/SKILL.md",
    ".claude/skills/notarai-bootstrap/SKILL.md",
    "CLAUDE.md",
    ".notarai/notarai.spec.json",
    ".notarai/README.md",
    ".notarai/system.spec.yaml",
];

/// A temporary git repository with a README and a `target/` folder.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join("README.md"), "# Demo\n").unwrap();
    std::fs::create_dir(dir.path().join("target")).unwrap();
    std::fs::write(dir.path().join("target/.rustc_info.json"), "{}").unwrap();
    dir
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

fn read_json(root: &Path, rel: &str) -> Value {
    serde_json::from_str(&read(root, rel)).unwrap()
}

/// The status word `notarai init` printed for `rel`.
fn reported(out: &Output, rel: &str) -> String {
    stdout(out)
        .lines()
        .find_map(|line| {
            let line = line.trim();
            line.strip_suffix(rel)
                .filter(|head| head.ends_with(' '))
                .map(|head| head.trim().to_string())
        })
        .unwrap_or_else(|| panic!("{rel} not reported in:\n{}", stdout(out)))
}

fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        stdout(out),
        stderr(out)
    );
}

#[test]
fn fresh_repository_gets_everything() {
    let dir = repo();
    let root = dir.path();
    let out = notarai(root, &["init"], b"");
    assert_success(&out);
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    for rel in ALL_FILES {
        assert_eq!(reported(&out, rel), "created", "{rel}");
    }

    assert_eq!(
        read_json(root, ".mcp.json"),
        json!({"mcpServers": {"notarai": {"type": "stdio", "command": "notarai", "args": ["mcp"]}}})
    );
    assert!(read(root, ".mcp.json").contains("\n  \"mcpServers\": {\n    \"notarai\""));
    assert_eq!(read(root, ".gitignore"), ".notarai/.cache/\n");
    let settings = read_json(root, ".claude/settings.json");
    assert_eq!(
        settings["hooks"]["PostToolUse"],
        json!([{"matcher": "Write|Edit|MultiEdit",
                "hooks": [{"type": "command", "command": "notarai hook validate"}]}])
    );
    for name in ["notarai-reconcile", "notarai-bootstrap"] {
        let skill = read(root, &format!(".claude/skills/{name}/SKILL.md"));
        assert!(
            skill.starts_with(&format!("---\nname: {name}\ndescription: ")),
            "{skill}"
        );
    }
    let reconcile = read(root, ".claude/skills/notarai-reconcile/SKILL.md");
    for tool in [
        "list_affected_specs",
        "get_spec_diff",
        "get_changed_artifacts",
        "mark_reconciled",
        "exclude_patterns",
    ] {
        assert!(reconcile.contains(tool), "reconcile skill lacks {tool}");
    }
    assert!(read(root, "CLAUDE.md").starts_with("## NotarAI\n"));
    assert_eq!(
        read(root, ".notarai/notarai.spec.json"),
        format!("{}\n", notarai::spec::json_schema())
    );

    let starter = read(root, ".notarai/system.spec.yaml");
    assert!(starter.starts_with("# yaml-language-server: $schema=./notarai.spec.json\n"));
    let specs = notarai::project::load_specs(root);
    assert!(specs.invalid.is_empty(), "{:?}", specs.invalid);
    assert!(specs.findings.is_empty(), "{:?}", specs.findings);
    let system = specs.system_spec().expect("the starter is the system spec");
    assert_eq!(system.path, ".notarai/system.spec.yaml");
    assert_eq!(system.spec.artifacts["docs"][0].path, "README.md");
    assert_eq!(system.spec.exclude, ["target/**"]);
}

#[test]
fn second_run_is_byte_identical_and_reports_unchanged() {
    let dir = repo();
    assert_success(&notarai(dir.path(), &["init"], b""));
    let before = snapshot(dir.path());
    let out = notarai(dir.path(), &["init"], b"");
    assert_success(&out);
    assert_eq!(snapshot(dir.path()), before);
    for rel in ALL_FILES {
        assert_eq!(reported(&out, rel), "unchanged", "{rel}");
    }
    assert!(
        stdout(&out).contains("nothing to write"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn dry_run_writes_nothing() {
    let dir = repo();
    let before = snapshot(dir.path());
    let out = notarai(dir.path(), &["init", "--dry-run"], b"");
    assert_success(&out);
    assert_eq!(snapshot(dir.path()), before);
    for rel in ALL_FILES {
        assert_eq!(reported(&out, rel), "would create", "{rel}");
    }
    // After a real run, a dry run reports an outdated section as an update.
    assert_success(&notarai(dir.path(), &["init"], b""));
    std::fs::write(dir.path().join("CLAUDE.md"), "## NotarAI\n\nold\n").unwrap();
    let before = snapshot(dir.path());
    let out = notarai(dir.path(), &["init", "--dry-run"], b"");
    assert_eq!(reported(&out, "CLAUDE.md"), "would update");
    assert_eq!(reported(&out, ".mcp.json"), "unchanged");
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn existing_mcp_json_keeps_other_servers_and_keys() {
    let dir = repo();
    let original = "{\n    \"before\": true,\n    \"mcpServers\": {\n        \"other\": {\"type\": \"stdio\", \"command\": \"npx\", \"args\": [\"-y\", \"x\"], \"env\": {\"K\": \"V\"}}\n    },\n    \"after\": [1, 2.5, null]\n}\n";
    std::fs::write(dir.path().join(".mcp.json"), original).unwrap();
    let out = notarai(dir.path(), &["init"], b"");
    assert_success(&out);
    assert_eq!(reported(&out, ".mcp.json"), "updated");
    let text = read(dir.path(), ".mcp.json");
    let value: Value = serde_json::from_str(&text).unwrap();
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["before", "mcpServers", "after"]);
    let servers: Vec<&String> = value["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(servers, ["other", "notarai"]);
    assert_eq!(
        value["mcpServers"]["other"],
        json!({"type": "stdio", "command": "npx", "args": ["-y", "x"], "env": {"K": "V"}})
    );
    assert_eq!(value["after"], json!([1, 2.5, null]));
    assert!(
        text.contains("\n  \"before\": true,\n"),
        "2-space indent:\n{text}"
    );

    // An entry that is already right keeps the user's formatting.
    let compact =
        r#"{"mcpServers":{"notarai":{"type":"stdio","command":"notarai","args":["mcp"]}}}"#;
    std::fs::write(dir.path().join(".mcp.json"), compact).unwrap();
    let out = notarai(dir.path(), &["init"], b"");
    assert_eq!(reported(&out, ".mcp.json"), "unchanged");
    assert_eq!(read(dir.path(), ".mcp.json"), compact);
}

#[test]
fn existing_settings_keep_their_hooks_and_get_ours_once() {
    let dir = repo();
    let original = json!({
        "permissions": {"allow": ["Bash(cargo test:*)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "check-bash"}]}],
            "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}]
        }
    });
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        serde_json::to_string(&original).unwrap(),
    )
    .unwrap();
    let out = notarai(dir.path(), &["init"], b"");
    assert_success(&out);
    assert_eq!(reported(&out, ".claude/settings.json"), "updated");
    let value = read_json(dir.path(), ".claude/settings.json");
    assert_eq!(value["permissions"], original["permissions"]);
    assert_eq!(
        value["hooks"]["PreToolUse"],
        original["hooks"]["PreToolUse"]
    );
    let post = value["hooks"]["PostToolUse"].as_array().unwrap();
    assert_eq!(post.len(), 2);
    assert_eq!(post[0], original["hooks"]["PostToolUse"][0]);
    assert_eq!(post[1]["hooks"][0]["command"], "notarai hook validate");

    let out = notarai(dir.path(), &["init"], b"");
    assert_eq!(reported(&out, ".claude/settings.json"), "unchanged");
    let again = read_json(dir.path(), ".claude/settings.json");
    assert_eq!(again["hooks"]["PostToolUse"].as_array().unwrap().len(), 2);
}

#[test]
fn claude_md_without_the_section_keeps_every_byte() {
    let dir = repo();
    let original = "# Project rules\r\n\r\nRun `make test`.  \r\n\r\n## Style\r\nTabs.\r\n";
    std::fs::write(dir.path().join("CLAUDE.md"), original).unwrap();
    let out = notarai(dir.path(), &["init"], b"");
    assert_success(&out);
    assert_eq!(reported(&out, "CLAUDE.md"), "updated");
    let text = read(dir.path(), "CLAUDE.md");
    let rest = text
        .strip_prefix(original)
        .expect("the original is kept as a prefix");
    assert!(rest.starts_with("\r\n## NotarAI\r\n"), "{rest:?}");
    assert!(
        !rest.replace("\r\n", "").contains('\n'),
        "line endings kept"
    );
}

#[test]
fn claude_md_section_is_replaced_in_place() {
    let dir = repo();
    let head = "# Project\n\nIntro.\n\n";
    let tail = "## Testing\n\nRun it.\n```\n## NotarAI\n```\n";
    let original =
        format!("{head}## NotarAI\n\nAn old, outdated text.\n\n### Details\nold\n\n{tail}");
    std::fs::write(dir.path().join("CLAUDE.md"), &original).unwrap();
    let out = notarai(dir.path(), &["init"], b"");
    assert_success(&out);
    assert_eq!(reported(&out, "CLAUDE.md"), "updated");
    let text = read(dir.path(), "CLAUDE.md");
    assert!(text.starts_with(&format!("{head}## NotarAI\n")), "{text}");
    assert!(text.ends_with(&format!("\n\n{tail}")), "{text}");
    assert!(!text.contains("outdated") && !text.contains("### Details"));
    assert_eq!(
        text.matches("\n## NotarAI\n").count(),
        2,
        "one section + the fenced line"
    );
    let out = notarai(dir.path(), &["init"], b"");
    assert_eq!(reported(&out, "CLAUDE.md"), "unchanged");
}

#[test]
fn malformed_mcp_json_stops_everything() {
    let dir = repo();
    let broken = "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\",}\n  }\n}\n";
    std::fs::write(dir.path().join(".mcp.json"), broken).unwrap();
    let before = snapshot(dir.path());
    let out = notarai(dir.path(), &["init"], b"");
    assert!(!out.status.success());
    assert_eq!(snapshot(dir.path()), before, "nothing written");
    let err = stderr(&out);
    assert!(err.contains(".mcp.json:3:"), "{err}");
    assert!(err.contains("not valid JSON"), "{err}");

    let out = notarai(dir.path(), &["init", "--dry-run"], b"");
    assert!(!out.status.success());
    assert!(stderr(&out).contains(".mcp.json:3:"));
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn settings_of_an_unexpected_shape_stop_everything() {
    let dir = repo();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::fs::write(
        dir.path().join(".claude/settings.json"),
        "{\"hooks\": []}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join(".mcp.json"), "[1]").unwrap();
    let before = snapshot(dir.path());
    let out = notarai(dir.path(), &["init"], b"");
    assert!(!out.status.success());
    assert_eq!(snapshot(dir.path()), before);
    let err = stderr(&out);
    assert!(
        err.contains(".claude/settings.json: unexpected shape"),
        "{err}"
    );
    assert!(err.contains(".mcp.json: unexpected shape"), "{err}");
}

#[test]
fn outside_git_it_scaffolds_and_warns() {
    let dir = tempfile::tempdir().unwrap();
    let out = notarai(dir.path(), &["init"], b"");
    assert_success(&out);
    assert!(
        stderr(&out).contains("not in a git repository"),
        "{}",
        stderr(&out)
    );
    for rel in ALL_FILES {
        assert!(dir.path().join(rel).is_file(), "{rel}");
    }
    let specs = notarai::project::load_specs(dir.path());
    assert!(specs.invalid.is_empty() && specs.findings.is_empty());
    assert!(
        specs.specs[0].spec.artifacts.is_empty(),
        "no README, no artifact"
    );
}

#[test]
fn existing_specs_get_no_starter_and_gitignore_is_appended() {
    let dir = repo();
    std::fs::create_dir_all(dir.path().join(".notarai/auth")).unwrap();
    std::fs::write(
        dir.path().join(".notarai/auth/login.spec.yaml"),
        "schema_version: '0.7'\nintent: x\ntier: registered\nartifacts: {}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join(".gitignore"), "/target").unwrap();
    let out = notarai(dir.path(), &["init"], b"");
    assert_success(&out);
    assert!(!dir.path().join(".notarai/system.spec.yaml").exists());
    assert!(!stdout(&out).contains("system.spec.yaml"));
    assert_eq!(
        read(dir.path(), ".gitignore"),
        "/target\n.notarai/.cache/\n"
    );
}

#[test]
fn root_is_the_git_work_tree_of_the_current_folder() {
    let dir = repo();
    let sub = dir.path().join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    assert_success(&notarai(&sub, &["init"], b""));
    assert!(dir.path().join(".mcp.json").is_file());
    assert!(!sub.join(".mcp.json").exists());

    let other = tempfile::tempdir().unwrap();
    let root_arg = other.path().to_str().unwrap();
    assert_success(&notarai(dir.path(), &["init", "--root", root_arg], b""));
    assert!(other.path().join(".mcp.json").is_file());
}

/// The repository's own setup is made by `notarai init` and kept current.
#[test]
fn this_repository_is_set_up_and_its_specs_are_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mcp = read_json(root, ".mcp.json");
    assert_eq!(
        mcp["mcpServers"]["notarai"],
        notarai::init::json_merge::server_entry()
    );
    let specs = notarai::project::load_specs(root);
    assert!(specs.invalid.is_empty(), "{:#?}", specs.invalid);
    let errors: Vec<_> = specs
        .findings
        .iter()
        .filter(|f| f.severity == notarai::spec::Severity::Error)
        .map(ToString::to_string)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let system = specs.system_spec().expect("a system spec");
    assert!(
        system
            .spec
            .subsystems
            .as_ref()
            .is_some_and(|s| s.len() >= 7)
    );
    // Every file init manages is current: a dry run changes nothing.
    let out = notarai(
        root,
        &["init", "--dry-run", "--root", root.to_str().unwrap()],
        b"",
    );
    assert_success(&out);
    assert!(
        stdout(&out).contains("nothing to write"),
        "run `notarai init` in the repository:\n{}",
        stdout(&out)
    );
}
