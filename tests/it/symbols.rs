//! Symbols through the binary: `notarai symbols`, anchors in specs
//! (`path#Symbol`), hunks named by their symbol, formatting-only changes,
//! and broken anchors, in `get_spec_diff`, `list_affected_specs`,
//! `get_reconciliation_status`, `check` and `export-context`.

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stderr, stdout};

const AUTH: &str = "pub struct Session {}

impl Session {
    /// Refresh the session.
    pub fn refresh(&self) -> u32 {
        1
    }

    pub fn close(&self) {}
}

pub const A: u8 = 1;
pub const B: u8 = 2;
pub const C: u8 = 3;
pub const D: u8 = 4;

pub fn other() -> u32 {
    2
}
";

fn spec(repo: &Repo, name: &str, paths: &[&str]) {
    let mut text = format!(
        "schema_version: '0.8'\nintent: The {name} part.\nbehaviors:\n  - name: works\n    given: input\n    then: output\nartifacts:\n  code:\n"
    );
    for p in paths {
        text.push_str(&format!("    - path: '{p}'\n"));
    }
    repo.write(&format!(".notarai/{name}.spec.yaml"), text);
}

/// `main` with `src/auth.rs`, a spec anchored to `Session::refresh` and a
/// spec of the whole file; branch `feat` checked out.
fn anchored_repo() -> Repo {
    let repo = Repo::new();
    repo.write("src/auth.rs", AUTH);
    spec(&repo, "refresh", &["src/auth.rs#Session::refresh"]);
    spec(&repo, "whole", &["src/auth.rs"]);
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

fn affected(repo: &Repo) -> Vec<String> {
    let mut server = repo.server();
    let answer = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    answer["affected_specs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["spec_path"].as_str().unwrap().to_string())
        .collect()
}

fn spec_diff(repo: &Repo, name: &str, extra: Value) -> Value {
    let mut server = repo.server();
    let mut args =
        json!({"spec_path": format!(".notarai/{name}.spec.yaml"), "base_branch": "main"});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    server.call_ok(1, "get_spec_diff", args)
}

#[test]
fn symbols_prints_the_outline_and_attributes_lines() {
    let repo = anchored_repo();
    let out = notarai(&repo.root, &["symbols", "src/auth.rs"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("function    Session::refresh"), "{text}");
    assert!(text.contains("    4-7     function"), "{text}");
    let out = notarai(&repo.root, &["symbols", "src/auth.rs", "--lines", "6"], b"");
    assert_eq!(stdout(&out), "src/auth.rs:6-6: Session::refresh\n");
    let out = notarai(
        &repo.root,
        &[
            "symbols",
            "src/auth.rs",
            "--lines",
            "14-18",
            "--format",
            "json",
        ],
        b"",
    );
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["attribution"]["kind"], "multiple");
    assert_eq!(v["attribution"]["touched"], json!(["C", "D", "other"]));
    // Lines covering a symbol whole: added when HEAD did not have it.
    repo.write("src/auth.rs", format!("{AUTH}\npub fn fresh() {{}}\n"));
    let out = notarai(
        &repo.root,
        &["symbols", "src/auth.rs", "--lines", "20-21"],
        b"",
    );
    assert_eq!(
        stdout(&out),
        "src/auth.rs:20-21: <top-level>; adds: fresh\n"
    );
    let out = notarai(
        &repo.root,
        &["symbols", "src/auth.rs", "--lines", "14"],
        b"",
    );
    assert_eq!(stdout(&out), "src/auth.rs:14-14: C\n");
    // --rev reads the commit, not the work tree.
    repo.write("src/auth.rs", "pub fn only() {}\n");
    let out = notarai(
        &repo.root,
        &["symbols", "src/auth.rs", "--rev", "main", "--lines", "6"],
        b"",
    );
    assert_eq!(stdout(&out), "src/auth.rs:6-6: Session::refresh\n");
    // Another language: whole-file, and the answer says so.
    repo.write("notes.md", "# x\n");
    let out = notarai(&repo.root, &["symbols", "notes.md"], b"");
    assert!(stdout(&out).contains("no outline"), "{}", stdout(&out));
    // A file that does not parse: whole-file too.
    repo.write("bad.rs", "fn a( {\n");
    let out = notarai(&repo.root, &["symbols", "bad.rs", "--lines", "1"], b"");
    assert!(
        stdout(&out).contains("<whole-file> (the file does not parse as rust"),
        "{}",
        stdout(&out)
    );
    // Outside the repository: refused, nothing read.
    let outside = repo.outside.join("secret.txt");
    let out = notarai(&repo.root, &["symbols", outside.to_str().unwrap()], b"");
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("outside the repository"),
        "{}",
        stderr(&out)
    );
    let out = notarai(&repo.root, &["symbols", "../outside/secret.txt"], b"");
    assert!(!out.status.success());
    assert!(!stdout(&out).contains("outside the root"));
}

#[test]
fn an_anchored_spec_is_affected_only_by_hunks_touching_its_symbols() {
    let repo = anchored_repo();
    // A change in `other`: the whole-file spec is affected, the anchored one not.
    repo.write("src/auth.rs", AUTH.replace("    2\n", "    3\n"));
    assert_eq!(affected(&repo), vec![".notarai/whole.spec.yaml"]);
    let diff = spec_diff(&repo, "refresh", json!({}));
    assert_eq!(diff["files"], json!([]));
    assert_eq!(diff["outside_anchors"], json!(["src/auth.rs"]));
    let diff = spec_diff(&repo, "whole", json!({}));
    assert!(
        diff["diff"]
            .as_str()
            .unwrap()
            .contains("@@ symbol: other\n"),
        "{diff}"
    );
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    let text = stdout(&out);
    assert!(
        text.contains("not reconciled with .notarai/whole.spec.yaml"),
        "{text}"
    );
    assert!(
        !text.contains("not reconciled with .notarai/refresh.spec.yaml"),
        "{text}"
    );

    // A change in `refresh` too: both affected; the anchored diff shows only its hunk.
    repo.write(
        "src/auth.rs",
        AUTH.replace("    2\n", "    3\n")
            .replace("        1\n", "        10\n"),
    );
    assert_eq!(
        affected(&repo),
        vec![".notarai/refresh.spec.yaml", ".notarai/whole.spec.yaml"]
    );
    let diff = spec_diff(&repo, "refresh", json!({}));
    let text = diff["diff"].as_str().unwrap();
    assert!(text.contains("@@ symbol: Session::refresh\n"), "{text}");
    assert!(!text.contains("symbol: other"), "{text}");
    let diff = spec_diff(&repo, "whole", json!({}));
    let text = diff["diff"].as_str().unwrap();
    assert!(
        text.contains("@@ symbol: Session::refresh\n") && text.contains("@@ symbol: other\n"),
        "{text}"
    );
    let mut server = repo.server();
    let status = server.call_ok(
        1,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    let specs: Vec<&str> = status["specs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["spec_path"].as_str().unwrap())
        .collect();
    assert_eq!(
        specs,
        vec![".notarai/refresh.spec.yaml", ".notarai/whole.spec.yaml"]
    );
}

#[test]
fn a_comment_change_in_the_symbol_is_formatting_only() {
    let repo = anchored_repo();
    // Comments and layout only: no spec affected, listed apart (a doc
    // comment is code, `tests/it/quiet_formatting.rs`; a plain one is not).
    repo.write(
        "src/auth.rs",
        AUTH.replace("        1\n", "        // one\n        1\n")
            .replace("    2\n", "      2 // two\n"),
    );
    assert_eq!(affected(&repo), Vec::<String>::new());
    let mut server = repo.server();
    let answer = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(answer["formatting_only"], json!(["src/auth.rs"]));
    let answer = server.call_ok(
        2,
        "list_affected_specs",
        json!({"base_branch": "main", "include_formatting": true}),
    );
    assert_eq!(
        answer["affected_specs"].as_array().unwrap().len(),
        2,
        "{answer}"
    );
    let diff = spec_diff(&repo, "refresh", json!({}));
    assert_eq!(diff["formatting_only"], json!(["src/auth.rs"]));
    let diff = spec_diff(&repo, "refresh", json!({"include_formatting": true}));
    let text = diff["diff"].as_str().unwrap();
    assert!(text.contains("@@ symbol: Session::refresh\n"), "{text}");
    assert!(!text.contains("symbol: other"), "{text}");
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("formatting or comments only"),
        "{}",
        stdout(&out)
    );
    let out = notarai(
        &repo.root,
        &["check", "--base", "main", "--include-formatting"],
        b"",
    );
    assert!(!out.status.success(), "{}", stdout(&out));
}

#[test]
fn a_removed_anchored_symbol_breaks_the_anchor_and_a_rename_is_named() {
    let repo = anchored_repo();
    // `refresh` renamed `renew`, same body: the anchor is broken, the rename named.
    repo.write("src/auth.rs", AUTH.replace("fn refresh", "fn renew"));
    let out = notarai(
        &repo.root,
        &["check", "--base", "main", "--format", "json"],
        b"",
    );
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let broken: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "broken_anchor")
        .collect();
    assert_eq!(broken.len(), 1, "{report}");
    let message = broken[0]["message"].as_str().unwrap();
    assert!(
        message.contains("`src/auth.rs#Session::renew`"),
        "{message}"
    );
    // The deleted symbol's hunk counts for the anchored spec (old side).
    assert!(affected(&repo).contains(&".notarai/refresh.spec.yaml".to_string()));
    let mut server = repo.server();
    let status = server.call_ok(
        1,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    assert_eq!(
        status["broken_anchors"][0]["likely_moved_to"],
        "src/auth.rs#Session::renew"
    );
    // Removed outright: broken, no successor named.
    repo.write("src/auth.rs", AUTH.replace("    /// Refresh the session.\n    pub fn refresh(&self) -> u32 {\n        1\n    }\n\n", ""));
    let out = notarai(&repo.root, &["check", "--base", "main"], b"");
    assert!(
        stdout(&out).contains("the symbol was removed"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn validate_reports_an_anchor_naming_no_symbol_with_the_closest_names() {
    let repo = Repo::new();
    repo.write("src/auth.rs", AUTH);
    repo.write("web/router.ts", "export class Router {\n  get() {}\n}\n");
    spec(
        &repo,
        "a",
        &[
            "src/auth.rs#Session::refesh",
            "web/**/*.ts#Router.*",
            "web/*.ts#Nope",
        ],
    );
    repo.commit("init");
    let out = notarai(&repo.root, &["validate"], b"");
    let text = stdout(&out);
    assert!(text.contains(".notarai/a.spec.yaml:9:"), "{text}");
    assert!(
        text.contains("anchor `#Session::refesh` names no symbol"),
        "{text}"
    );
    assert!(
        text.contains("closest existing names: Session::refresh"),
        "{text}"
    );
    assert!(!text.contains("#Router.*"), "{text}");
    assert!(text.contains("anchor `#Nope`"), "{text}");
    let out = notarai(&repo.root, &["check", "--base", "HEAD"], b"");
    assert!(
        stdout(&out).contains("anchor `#Session::refesh` names no symbol"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn export_context_names_each_hunk_symbol() {
    let repo = anchored_repo();
    repo.write("src/auth.rs", AUTH.replace("        1\n", "        10\n"));
    let out = notarai(
        &repo.root,
        &["export-context", "--base", "main", "--format", "json"],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("symbol: Session::refresh"),
        "{}",
        stdout(&out)
    );
}
