//! The gate teams adopt (issue 41): every finding names its rule (a stable
//! code and a short name) in every format of `check` and `validate`, and
//! `notarai explain` prints the rule from the one table.

use std::path::Path;

use serde_json::Value;

use crate::common::{Repo, notarai, stderr, stdout};

/// `notarai check ARGS` in `dir`: exit code, stdout, stderr.
pub fn check(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    let out = notarai(dir, &all, b"");
    (out.status.code().unwrap(), stdout(&out), stderr(&out))
}

/// A branch with one unreconciled governed change, one ungoverned file and
/// an artifact glob that matches nothing.
fn noisy() -> Repo {
    let repo = Repo::with_spec();
    repo.spec("b", &["src/b.rs", "gone/**"]);
    repo.write("src/b.rs", "fn b() {}\n");
    repo.commit("b");
    repo.append("src/a.rs", "fn more() {}\n");
    repo.write("notes.txt", "loose\n");
    repo
}

#[test]
fn every_check_format_names_each_findings_rule() {
    let repo = noisy();
    let (code, text, err) = check(&repo.root, &["--base", "main"]);
    assert_eq!(code, 1, "{text}{err}");
    assert!(
        text.contains(
            "error    src/a.rs changed and is not reconciled with .notarai/a.spec.yaml [N101 unreconciled-change]"
        ),
        "{text}"
    );
    assert!(
        text.contains("notes.txt changed and no spec governs it")
            && text.contains("[N104 ungoverned-change]"),
        "{text}"
    );
    assert!(text.contains("[N003 glob-matches-nothing]"), "{text}");

    let (_, json, _) = check(&repo.root, &["--base", "main", "--format", "json"]);
    let report: Value = serde_json::from_str(&json).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    for f in findings {
        let code = f["code"].as_str().unwrap_or_else(|| panic!("no code: {f}"));
        assert!(notarai::rules::Code::parse(code).is_some(), "{code}");
    }
    let codes: Vec<&str> = findings
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    for expected in ["N101", "N104", "N003"] {
        assert!(codes.contains(&expected), "{codes:?}");
    }

    let (_, gh, _) = check(&repo.root, &["--base", "main", "--format", "github"]);
    let annotations: Vec<&str> = gh.lines().filter(|l| l.starts_with("::")).collect();
    assert!(!annotations.is_empty());
    // No state file on this branch, so no claims: every line is a finding.
    for line in &annotations {
        assert!(line.contains("title=N"), "{line}");
    }
    assert!(
        gh.contains("::error file=src/a.rs,title=N101 unreconciled-change::"),
        "{gh}"
    );
}

#[test]
fn explain_prints_the_rule_from_the_table_and_refuses_an_unknown_code() {
    let repo = Repo::new();
    for asked in ["N101", "n101", "unreconciled-change"] {
        let out = notarai(&repo.root, &["explain", asked], b"");
        assert_eq!(out.status.code(), Some(0));
        let text = stdout(&out);
        assert!(text.starts_with("N101 unreconciled-change\n"), "{text}");
        assert!(text.contains("default severity: error"), "{text}");
        assert!(text.contains("reported by:      check"), "{text}");
    }
    let all = stdout(&notarai(&repo.root, &["explain"], b""));
    assert_eq!(all.lines().count(), notarai::rules::RULES.len(), "{all}");
    for r in notarai::rules::RULES {
        assert!(all.contains(&format!("{} {}", r.id, r.name)), "{all}");
    }
    let out = notarai(&repo.root, &["explain", "N999"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`N999` is no rule's code or name"),
        "{}",
        stderr(&out)
    );
}
