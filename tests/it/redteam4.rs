//! Red team round 4: quiet verdicts that hid a change, asked of the real
//! binary (`notarai mcp`, `notarai check`) in temporary git repositories:
//! a read id passed to another spec whose diff is wider (F7), a
//! `mark_reconciled` that records content the agent never read (F1), an
//! every-spec review counted for a spec that governs the file only since
//! (F4), a governed config named by `tested_by` read as a test (F10). Each
//! case has a quiet control beside it.

use serde_json::{Value, json};

use crate::common::{Repo, Server};

/// Whether the answer lists `path` under `key`.
fn lists(answer: &Value, key: &str, path: &str) -> bool {
    answer[key]
        .as_array()
        .is_some_and(|a| a.iter().any(|p| p == path))
}

/// `get_spec_diff` of `spec` against `main`, with `extra` arguments.
fn spec_diff(server: &mut Server, spec: &str, extra: Value) -> Value {
    let mut args = json!({"spec_path": spec, "base_branch": "main"});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    server.call_ok(1, "get_spec_diff", args)
}

/// A spec text: one behavior (with `tested_by` when given) and `artifacts`
/// (YAML lines under `artifacts:`).
fn spec_text(intent: &str, tested_by: Option<&str>, artifacts: &str) -> String {
    let tested = tested_by
        .map(|t| format!("    tested_by:\n      - path: {t}\n"))
        .unwrap_or_default();
    format!(
        "schema_version: '0.8'\nintent: {intent}\nbehaviors:\n  - name: b\n    given: x\n    then: y\n{tested}artifacts:\n{artifacts}"
    )
}

/// F10: a file the spec governs as `configs` or `docs` that a behavior's
/// `tested_by` also names is no mere test: its change is shown. Control:
/// the same file governed only as `tests` is still tests-only.
#[test]
fn a_governed_config_named_by_tested_by_is_shown() {
    for (category, quiet) in [("configs", false), ("docs", false), ("tests", true)] {
        let repo = Repo::new();
        repo.write(
            ".notarai/a.spec.yaml",
            spec_text(
                "The module computes things.",
                Some("src/settings.py"),
                &format!(
                    "  code:\n    - path: src/a.py\n  {category}:\n    - path: src/settings.py\n"
                ),
            ),
        );
        repo.write(".gitignore", ".notarai/.cache/\n");
        repo.write("src/a.py", "from settings import LIMIT\n");
        repo.write("src/settings.py", "LIMIT = 10\n");
        repo.commit("init");
        repo.git(&["checkout", "-q", "-b", "feat"]);
        repo.write("src/settings.py", "LIMIT = 100000\n");
        let answer = spec_diff(&mut repo.server(), ".notarai/a.spec.yaml", json!({}));
        let shown = lists(&answer, "files", "src/settings.py");
        let tests_only = answer["housekeeping_reasons"]["src/settings.py"] == "tests_only";
        assert_eq!(shown, !quiet, "{category}: {answer}");
        assert_eq!(tests_only, quiet, "{category}: {answer}");
    }
}
