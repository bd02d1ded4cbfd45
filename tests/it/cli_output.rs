//! What the CLI prints of a repository's text is escaped for the terminal
//! (`quote::Terminal`), in text and in JSON (the same value, JSON's own
//! escapes), and an error reaches the user with its hint.

use serde_json::Value;

use crate::common::{Repo, notarai, stderr, stdout};

/// Characters a hostile clone could use on a terminal: an escape sequence
/// (clear the screen, set the window title), a C1 control, a bidi override.
const HOSTILE: &str = "\u{1b}[2J\u{1b}]0;pwned\u{7}\u{9b}31m\u{202e}";

fn unsafe_char(c: char) -> bool {
    c != '\n' && (c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c))
}

fn hostile_state(repo: &Repo) {
    let branch = format!("main{HOSTILE}");
    let path = format!("src/a{HOSTILE}.txt");
    let state = serde_json::json!({
        "cli_version": "0.1.0",
        "file_fingerprints": {
            path: {"blake3": "44c77418e27569db9213c6b43d9049ecffb5496f7d0e3d4254bb68410adecc3e"}
        },
        "last_reconciliation": {
            "branch": branch,
            "git_hash": "ac06615f1765614895529a110f261a7fae78cf0c",
            "timestamp": format!("1795776778Z{HOSTILE}")
        },
        "schema_version": "2",
        "spec_fingerprints": {}
    });
    repo.write(
        ".notarai/reconciliation_state.json",
        serde_json::to_string_pretty(&state).unwrap(),
    );
}

#[test]
fn state_show_escapes_a_committed_state_files_text() {
    let repo = Repo::with_spec();
    hostile_state(&repo);
    let out = notarai(&repo.root, &["state", "show"], b"");
    let text = stdout(&out);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("last reconciliation:"), "{text}");
    assert!(!text.chars().any(unsafe_char), "{text:?}");
    assert!(
        text.contains("\\x1b[2J") && text.contains("\\u{202e}"),
        "{text}"
    );
    // JSON: the same value, escaped the JSON way.
    let out = notarai(&repo.root, &["state", "show", "--format", "json"], b"");
    let json = stdout(&out);
    assert!(!json.chars().any(unsafe_char), "{json:?}");
    let value: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["last_reconciliation"]["branch"],
        format!("main{HOSTILE}")
    );
}

#[test]
fn check_json_escapes_repository_text_and_keeps_its_value() {
    let repo = Repo::with_spec();
    let name = format!("src/b{HOSTILE}.rs");
    repo.write(&name, "fn b() {}\n");
    let out = notarai(
        &repo.root,
        &["check", "--base", "main", "--format", "json"],
        b"",
    );
    let json = stdout(&out);
    assert!(!json.chars().any(unsafe_char), "{json:?}");
    let value: Value = serde_json::from_str(&json).unwrap();
    let files: Vec<&str> = value["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["file"].as_str())
        .collect();
    assert!(files.contains(&name.as_str()), "{json}");
}

#[test]
fn reconcile_of_a_broken_spec_prints_the_error_with_its_hint() {
    let repo = Repo::with_spec();
    repo.write(".notarai/b.spec.yaml", "schema_version: '0.7'\nintent: x\n");
    let out = notarai(
        &repo.root,
        &["reconcile", "--spec", ".notarai/b.spec.yaml", "src/a.rs"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("\nhint: "), "{err}");
}

#[test]
fn reconcile_records_what_exists_and_names_what_it_skipped() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn b() {}\n");
    let out = notarai(&repo.root, &["reconcile", "src/a.rs", "src/typo.rs"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("Recorded 1 file(s)"), "{text}");
    assert!(
        text.contains("Skipped 1 path(s)") && text.contains("src/typo.rs"),
        "{text}"
    );
}
