//! Every quiet verdict names its proof (issue 37, point 1): a page of
//! `get_spec_diff`, `list_affected_specs` or `get_reconciliation_status`
//! that leaves a file out of a review on a judgement of the change carries
//! `quiet_proofs`, keyed by each such verdict it gives, with what it
//! proves; a page that gives none carries none; the record verdicts
//! (`skipped`, `since_reconciled`, `already_read`, issue 42) give theirs
//! once, in `get_spec_diff`'s description; and the README's list is the
//! code's table, word for word.

use serde_json::{Value, json};

use notarai::review::proofs::QuietVerdict;

use crate::common::Repo;

fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

#[test]
fn each_page_names_the_proof_of_each_quiet_verdict_it_gives() {
    let repo = Repo::new();
    repo.write(
        ".notarai/a.spec.yaml",
        "schema_version: '0.7'\nintent: A.\nbehaviors:\n  - name: b\n    given: g\n    then: t\nartifacts:\n  code:\n    - path: 'src/**'\n    - path: 'lib/a.py#check'\n  configs:\n    - path: 'Cargo.lock'\n",
    );
    repo.write("src/fmt.rs", "fn a() -> u32 { 1 }\n");
    repo.write("src/seen.rs", "fn s() {}\n");
    repo.write("src/code.rs", "fn c() {}\n");
    repo.write(
        "lib/a.py",
        "def check(user):\n    return user.ok\n\n\ndef other():\n    return 1\n",
    );
    repo.write(
        "Cargo.lock",
        "[[package]]\nname = \"serde\"\nversion = \"1.0.1\"\n",
    );
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    // Formatting only; reviewed already; a real change; outside the anchor;
    // a pin moved.
    repo.write("src/fmt.rs", "fn a() -> u32 {\n    1\n}\n");
    repo.write("src/seen.rs", "fn s() { seen() }\n");
    repo.write("src/code.rs", "fn c() { changed() }\n");
    repo.write(
        "lib/a.py",
        "def check(user):\n    return user.ok\n\n\ndef other():\n    return 2\n",
    );
    repo.write(
        "Cargo.lock",
        "[[package]]\nname = \"serde\"\nversion = \"1.0.2\"\n",
    );
    let mut server = repo.server();
    server.call_ok(1, "mark_reconciled", json!({"files": ["src/seen.rs"]}));
    // The id of `src/code.rs`'s content, as an answer that showed it gives it.
    let shown = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "full_lists": true}),
    );
    let read: Vec<&str> = shown["read_ids"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r.as_str().filter(|r| r.starts_with("src/code.rs@")))
        .collect();
    assert_eq!(read.len(), 1, "{shown:#}");
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "already_read": read, "full_lists": true}),
    );
    let proofs = &diff["quiet_proofs"];
    let mut expected: Vec<String> = Vec::new();
    for (list, verdict) in [
        ("formatting_only", QuietVerdict::FormattingOnly),
        ("outside_anchors", QuietVerdict::OutsideAnchors),
        ("skipped", QuietVerdict::Skipped),
        ("already_read", QuietVerdict::AlreadyRead),
    ] {
        let listed = diff[list].as_array().is_some_and(|l| !l.is_empty());
        assert!(listed, "{list} should be given here: {diff:#}");
        // A record verdict's proof is in the tool's description (below),
        // not restated in every answer.
        if verdict.is_record() {
            assert!(proofs.get(verdict.name()).is_none(), "{diff:#}");
            continue;
        }
        assert_eq!(proofs[verdict.name()], verdict.proof(), "{diff:#}");
        expected.push(verdict.name().into());
    }
    assert_eq!(
        diff["housekeeping_reasons"]["Cargo.lock"], "versions",
        "{diff:#}"
    );
    assert_eq!(proofs["versions"], QuietVerdict::Versions.proof());
    expected.push("versions".into());
    expected.sort();
    assert_eq!(keys(proofs), expected, "only the verdicts given: {diff:#}");

    let affected = server.call_ok(3, "list_affected_specs", json!({}));
    assert_eq!(
        keys(&affected["quiet_proofs"]),
        ["formatting_only"],
        "{affected:#}"
    );
    let status = server.call_ok(4, "get_reconciliation_status", json!({}));
    assert_eq!(
        keys(&status["quiet_proofs"]),
        ["formatting_only", "versions"],
        "{status:#}"
    );

    // A change with nothing quiet: no proofs at all.
    let quiet_free = server.call_ok(
        5,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "include_formatting": true,
            "bypass_cache": true, "exclude_patterns": ["lib", "Cargo.lock"]}),
    );
    assert!(quiet_free.get("quiet_proofs").is_none(), "{quiet_free:#}");
    server.finish();
}

/// The record verdicts (`skipped`, `since_reconciled`, `already_read`) follow
/// from a review record or the agent's own argument, not from a judgement of
/// the change: their proofs are written once, in `get_spec_diff`'s
/// description, which the agent holds from `tools/list`, word for word the
/// code's table; no other verdict is one.
#[test]
fn record_verdicts_give_their_proof_in_the_tool_description() {
    let repo = Repo::new();
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    let mut server = repo.server();
    let listed = server.request(2, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let described = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .and_then(|t| t["description"].as_str())
            .unwrap_or_else(|| panic!("{name} is served with a description"))
            .to_string()
    };
    let records: Vec<QuietVerdict> = QuietVerdict::ALL
        .into_iter()
        .filter(|v| v.is_record())
        .collect();
    assert_eq!(
        records,
        [
            QuietVerdict::SinceReconciled,
            QuietVerdict::Skipped,
            QuietVerdict::AlreadyRead
        ]
    );
    let diff = described("get_spec_diff");
    for v in records {
        let line = format!("`{}`: {}", v.name(), v.proof());
        assert!(
            diff.contains(&line),
            "get_spec_diff's description lacks {line}: {diff}"
        );
    }
    // The status and `list_affected_specs` give no record verdict.
    assert!(!described("get_reconciliation_status").contains("Proofs of the verdicts"));
    server.finish();
}

#[test]
fn the_readme_lists_every_quiet_verdict_with_the_codes_proof() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    // The README wraps nothing in the list: one line per verdict.
    for v in QuietVerdict::ALL {
        let line = format!("- `{}`: {}.", v.name(), v.proof());
        assert!(
            readme.lines().any(|l| l == line),
            "README.md lacks the line\n{line}\n(copy it from src/review/proofs.rs)"
        );
    }
}
