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
    noisy_with(None)
}

/// [`noisy`], with `.notarai/check.yaml` committed on `main` when given.
fn noisy_with(config: Option<&str>) -> Repo {
    let repo = Repo::new();
    repo.write(".notarai/a.spec.yaml", crate::common::SPEC_A);
    repo.write("src/a.rs", "fn a() {}\n");
    repo.write("docs/a.md", "# A\n");
    if let Some(config) = config {
        repo.write(".notarai/check.yaml", config);
    }
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
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

#[test]
fn without_check_yaml_the_output_is_the_defaults_byte_for_byte() {
    let formats: [&[&str]; 4] = [
        &["--base", "main"],
        &["--base", "main", "--format", "json"],
        &["--base", "main", "--format", "github"],
        &["--base", "main", "--strict"],
    ];
    // Each output with the repository's merge base written as `MB`: the
    // repositories are built alike but their commits differ.
    let outputs = |repo: &Repo| -> Vec<String> {
        let mb = repo.git(&["merge-base", "main", "feat"]).trim().to_string();
        formats
            .iter()
            .map(|args| {
                let (code, out, _) = check(&repo.root, args);
                format!(
                    "{code}\n{}",
                    out.replace(&mb, "MB").replace(&mb[..12], "MB")
                )
            })
            .collect()
    };
    let without = outputs(&noisy_with(None));
    assert!(!without[1].contains("fail_on") && !without[1].contains("ignored"));
    // A file that restates every default, and an empty one, change nothing.
    for config in ["fail_on: error\nrules: {}\nignore: []\n", ""] {
        let with = outputs(&noisy_with(Some(config)));
        for (args, (before, after)) in formats.iter().zip(without.iter().zip(&with)) {
            assert_eq!(before, after, "{args:?} with {config:?}");
        }
    }
}

#[test]
fn check_yaml_sets_severities_fail_on_and_ignores_with_reasons_until_a_date() {
    let config = "\
# the gate, tuned
fail_on: warning
rules:
  N106: off                      # several specs: intended here
  glob-matches-nothing: notice   # by name
  N104: error
ignore:
  - code: N101
    paths: ['src/b.rs']
    reason: b is rewritten next sprint
    until: 2999-12-31
  - code: unreconciled-spec
    spec: .notarai/b.spec.yaml
    reason: the b spec is a draft
  - code: N101
    paths: ['src/a.rs']
    reason: a was going to be deleted
    until: 2020-01-31
";
    let repo = noisy_with(Some(config));
    let (code, json, err) = check(&repo.root, &["--base", "main", "--format", "json"]);
    assert_eq!(code, 1, "{json}{err}");
    let report: Value = serde_json::from_str(&json).unwrap();
    let findings = report["findings"].as_array().unwrap();
    let got: Vec<(String, String, String)> = findings
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let has = |code: &str, severity: &str, file: &str| {
        got.contains(&(code.to_string(), severity.to_string(), file.to_string()))
    };
    // Severities: off, lowered by name, raised.
    assert!(!got.iter().any(|g| g.0 == "N106"), "{got:?}");
    assert!(has("N003", "notice", ".notarai/b.spec.yaml"), "{got:?}");
    assert!(has("N104", "error", "notes.txt"), "{got:?}");
    // Ignored: src/b.rs's N101 (twice: two specs) by path, the b spec's N102 by spec.
    assert!(!got.iter().any(|g| g.2 == "src/b.rs"), "{got:?}");
    assert!(!got.iter().any(|g| g.0 == "N102"), "{got:?}");
    assert_eq!(report["summary"]["ignored"], 3, "{json}");
    // The expired entry ignores nothing and is reported at its line.
    assert!(has("N101", "error", "src/a.rs"), "{got:?}");
    let expired = findings.iter().find(|f| f["code"] == "N301").expect("N301");
    assert_eq!(expired["file"], ".notarai/check.yaml");
    assert_eq!(expired["line"], 15, "{expired}");
    assert_eq!(expired["severity"], "warning");
    assert!(
        expired["message"]
            .as_str()
            .unwrap()
            .contains("expired on 2020-01-31")
            && expired["message"]
                .as_str()
                .unwrap()
                .contains("a was going to be deleted"),
        "{expired}"
    );
    assert_eq!(report["fail_on"], "warning");

    let (_, text, _) = check(&repo.root, &["--base", "main"]);
    assert!(
        text.contains("3 ignored by .notarai/check.yaml (fail_on: warning)"),
        "{text}"
    );
    assert!(text.contains("[N301 expired-ignore]"), "{text}");
}

#[test]
fn fail_on_warning_fails_on_a_warning_alone() {
    // Only a warning is left: fails with `fail_on: warning`, passes without.
    let config = "fail_on: warning\nrules: {N101: off, N102: off, N106: off}\n";
    let repo = noisy_with(Some(config));
    let (code, text, _) = check(&repo.root, &["--base", "main"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("FAIL: 0 errors, 2 warnings"), "{text}");
    let repo = noisy_with(Some("rules: {N101: off, N102: off, N106: off}\n"));
    let (code, text, _) = check(&repo.root, &["--base", "main"]);
    assert_eq!(code, 0, "{text}");
}

#[test]
fn a_bad_check_yaml_is_a_usage_error_with_each_position() {
    let config = "\
rules:
  N999: off
ignore:
  - code: N104
    reason: ''
    until: 2027-02-30
";
    let repo = noisy_with(Some(config));
    let (code, out, err) = check(&repo.root, &["--base", "main"]);
    assert_eq!(code, 2, "{out}{err}");
    for expected in [
        ".notarai/check.yaml is not a valid gate configuration",
        ".notarai/check.yaml:2:9: `N999` is no rule's code or name",
        ".notarai/check.yaml:4:5: the entry names neither `paths` nor `spec`",
        ".notarai/check.yaml:5:13: the reason is empty",
        ".notarai/check.yaml:6:12: `2027-02-30` is not a date",
        "hint: write it as YYYY-MM-DD",
    ] {
        assert!(err.contains(expected), "{expected}\n{err}");
    }
    // A misspelt key, as a spec's: its position and a guess.
    let repo = noisy_with(Some("fail_on: error\nignores: []\n"));
    let (code, _, err) = check(&repo.root, &["--base", "main", "--format", "github"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(".notarai/check.yaml:2:1: unknown key `ignores`"),
        "{err}"
    );
    assert!(err.contains("did you mean `ignore`?"), "{err}");
}
