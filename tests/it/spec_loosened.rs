//! A branch that changes code and loosens the spec governing it in the same
//! change (red team round 4, F3): the change is judged by the spec as it is
//! now and as it was at the merge base, so a tier added, a spec made
//! `registered` or an anchor narrowed on the branch quiets nothing the base's
//! spec had to review. Controls: a spec unchanged, changed elsewhere, or new
//! on the branch keeps its quiet verdicts.

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stdout};

const SPEC: &str = ".notarai/a.spec.yaml";
const CODE: &str = "def foo():\n    return 1\n\n\ndef bar():\n    return 0\n";

/// The spec's text governing `artifact` (with `extra` after its path line,
/// `head` before its intent).
fn spec_text(head: &str, artifact: &str, extra: &str) -> String {
    format!(
        "schema_version: '0.8'\n{head}intent: The module computes things correctly.\nbehaviors:\n  - name: b\n    given: x\n    then: y\nartifacts:\n  code:\n    - path: '{artifact}'\n{extra}"
    )
}

/// A repository whose `main` holds `base_spec` (none: no spec) and
/// `src/a.py`; on branch `feat` the spec is `work_spec` and `foo` returns 2.
fn repo(base_spec: Option<&str>, work_spec: &str) -> Repo {
    let repo = Repo::new();
    repo.write(".gitignore", ".notarai/.cache/\n");
    if let Some(text) = base_spec {
        repo.write(SPEC, text);
    }
    repo.write("src/a.py", CODE);
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write(SPEC, work_spec);
    repo.write("src/a.py", CODE.replace("return 1", "return 2"));
    repo.commit("change and spec");
    repo
}

/// `get_spec_diff` of the spec against `main`.
fn spec_diff(repo: &Repo) -> Value {
    repo.server().call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": SPEC, "base_branch": "main"}),
    )
}

/// Whether `get_spec_diff` shows `src/a.py` with its changed line.
fn shows_code(answer: &Value) -> bool {
    answer["files"]
        .as_array()
        .is_some_and(|f| f.iter().any(|p| p == "src/a.py"))
        && answer["diff"]
            .as_str()
            .unwrap_or("")
            .contains("+    return 2")
}

/// `notarai check --base main`'s output.
fn check(repo: &Repo) -> String {
    stdout(&notarai(&repo.root, &["check", "--base", "main"], b""))
}

#[test]
fn loosening_the_spec_with_the_code_quiets_nothing() {
    let base = spec_text("", "src/a.py", "");
    let cases = [
        ("artifact tier 4", spec_text("", "src/a.py", "      tier: 4\n")),
        (
            "spec tier registered",
            "schema_version: '0.8'\ntier: registered\nintent: The module computes things correctly.\nartifacts:\n  code:\n    - path: 'src/a.py'\n".to_string(),
        ),
        ("anchor narrowed", spec_text("", "src/a.py#bar", "")),
        // The base's spec does not load: nothing quiet can be proven.
        ("artifact tier 4 over a broken base", spec_text("", "src/a.py", "      tier: 4\n")),
    ];
    for (i, (case, work)) in cases.iter().enumerate() {
        let base = if i == 3 {
            "schema_version: '0.8'\nintent: [unclosed\n".to_string()
        } else {
            base.clone()
        };
        let repo = repo(Some(&base), work);
        let answer = spec_diff(&repo);
        assert!(
            shows_code(&answer),
            "{case}: the change is hidden: {answer}"
        );
        let out = check(&repo);
        assert!(
            out.contains("src/a.py changed and is not reconciled"),
            "{case}: check does not count it:\n{out}"
        );
    }
}

#[test]
fn a_spec_unchanged_changed_elsewhere_or_new_keeps_its_quiet_verdicts() {
    let tier4 = spec_text("", "src/a.py", "      tier: 4\n");
    let anchored = spec_text("", "src/a.py#bar", "");
    let cases = [
        (
            "unchanged tier 4",
            Some(tier4.clone()),
            tier4.clone(),
            "housekeeping_reasons",
        ),
        (
            "tier 4 on both, intent reworded",
            Some(tier4.clone()),
            tier4.replace("computes things correctly", "computes things"),
            "housekeeping_reasons",
        ),
        (
            "tier 4 new on the branch",
            None,
            tier4.clone(),
            "housekeeping_reasons",
        ),
        (
            "anchored on both",
            Some(anchored.clone()),
            anchored.replace("then: y", "then: z"),
            "outside_anchors",
        ),
    ];
    for (case, base, work, key) in cases {
        let repo = repo(base.as_deref(), &work);
        let answer = spec_diff(&repo);
        assert!(
            !shows_code(&answer),
            "{case}: the quiet verdict is lost: {answer}"
        );
        let listed = match &answer[key] {
            Value::Object(map) => map.contains_key("src/a.py"),
            Value::Array(list) => list.iter().any(|p| p == "src/a.py"),
            _ => false,
        };
        assert!(listed, "{case}: not {key}: {answer}");
        if base.is_none() {
            let diffs = answer["spec_changes"].as_array().into_iter().flatten();
            assert!(
                diffs.filter(|c| c.get("diff").is_some()).count() == 0,
                "{case}: a new spec has no base to diff: {answer}"
            );
        }
    }
}

/// The text bytes of a `tools/call` answer's content blocks.
fn text_bytes(answer: &Value) -> usize {
    answer["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| c["text"].as_str().unwrap_or_default().len())
        .sum()
}

#[test]
fn a_large_spec_diff_is_paged_within_the_budget() {
    // A spec of ~40 KB whose every behavior the branch rewrites: its text
    // and its diff against the base are far larger than a 2,000-token page.
    let behaviors = |word: &str| -> String {
        (0..400)
            .map(|i| format!("  - name: b{i}\n    given: input {i}\n    then: {word} {i}\n"))
            .collect()
    };
    let text = |word: &str| {
        format!(
            "schema_version: '0.8'\nintent: The module computes things correctly.\nbehaviors:\n{}artifacts:\n  code:\n    - path: 'src/a.py'\n",
            behaviors(word)
        )
    };
    let repo = repo(Some(&text("output")), &text("result"));
    let mut server = repo.server();
    let tokens = 2_000u64;
    let budget = tokens as usize * 3;
    let (mut content, mut diff) = (String::new(), String::new());
    let mut cursor: Option<String> = None;
    for call in 0.. {
        assert!(call < 200, "the pages do not end");
        let mut args = json!({"spec_path": SPEC, "base_branch": "main", "max_tokens": tokens});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let answer = server.call(format!("p{call}"), "get_spec_diff", args);
        let bytes = text_bytes(&answer);
        assert!(bytes <= budget, "page {call}: {bytes} > {budget} bytes");
        let page = &answer["result"]["structuredContent"];
        for entry in page["spec_changes"].as_array().into_iter().flatten() {
            content.push_str(entry["content"].as_str().unwrap_or_default());
            diff.push_str(entry["diff"].as_str().unwrap_or_default());
        }
        cursor = page["next_cursor"].as_str().map(str::to_string);
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(content, text("result"), "the pages' texts join to the spec");
    assert!(diff.starts_with("diff --git"), "{diff:.200}");
    for i in [0, 199, 399] {
        assert!(
            diff.contains(&format!("-    then: output {i}\n+    then: result {i}\n")),
            "behavior {i} is missing from the joined diff"
        );
    }
}
