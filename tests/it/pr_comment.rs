//! `check --format markdown` (one sticky pull request comment) and
//! `check --format sarif` (code scanning), issue 41.

use serde_json::Value;

use crate::common::{Repo, notarai, stdout};

/// GitHub's limit on a comment's body, in characters.
const LIMIT: usize = 65_536;

fn check(repo: &Repo, format: &str) -> (i32, String) {
    let out = notarai(
        &repo.root,
        &["check", "--base", "main", "--format", format],
        b"",
    );
    (out.status.code().unwrap(), stdout(&out))
}

/// A branch that changes `n` governed files, one with an awkward name, and
/// records one of them (a claim).
fn branch(n: usize) -> Repo {
    let repo = Repo::with_spec();
    for i in 0..n {
        repo.write(&format!("src/gen/f{i:05}.rs"), format!("fn f{i}() {{}}\n"));
    }
    repo.write("src/we|ird `name` <b>@team.rs", "fn w() {}\n");
    repo.write("loose.txt", "x\n");
    repo.commit("many");
    let out = notarai(
        &repo.root,
        &["reconcile", "src/gen/f00000.rs", "--snapshot"],
        b"",
    );
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    repo.commit("state");
    repo
}

#[test]
fn the_comment_names_its_marker_and_shows_specs_findings_and_claims() {
    let repo = branch(3);
    let (code, body) = check(&repo, "markdown");
    assert_eq!(code, 1, "{body}");
    assert!(
        body.starts_with("<!-- notarai-check -->\n### notarai check: ❌ FAIL\n"),
        "{body}"
    );
    assert!(
        body.contains("| `.notarai/a.spec.yaml` | ❌ | 1 |"),
        "{body}"
    );
    assert!(
        body.contains("| error | `N101 unreconciled-change` | `src/gen/f00001.rs` |"),
        "{body}"
    );
    assert!(
        body.contains("| warning | `N104 ungoverned-change` | `loose.txt` |"),
        "{body}"
    );
    assert!(
        body.contains("#### Marked reconciled on this branch"),
        "{body}"
    );
    assert!(body.contains("| `src/gen/f00000.rs` |"), "{body}");
    // Repository text stays text: no cell split, no tag, no mention.
    let weird = body
        .lines()
        .find(|l| l.contains("N101") && l.contains("ird"))
        .expect("the awkward file's row");
    assert!(
        weird.contains("`` src/we\\|ird `name` <b>@team.rs ``"),
        "{weird}"
    );
    assert!(
        weird.contains("we\\|ird \\`name\\` &lt;b&gt;&#64;team.rs changed"),
        "{weird}"
    );
    assert!(!body.contains("Truncated"), "{body}");
}

#[test]
fn a_five_thousand_file_change_fits_one_comment_with_a_count() {
    let repo = branch(5_000);
    let (code, body) = check(&repo, "markdown");
    assert_eq!(code, 1);
    assert!(
        body.chars().count() <= LIMIT,
        "{} characters",
        body.chars().count()
    );
    assert!(body.len() <= LIMIT, "{} bytes", body.len());
    assert!(body.starts_with("<!-- notarai-check -->\n"));
    // Every finding is shown or counted: 4,999 + 1 unreconciled, 1 ungoverned,
    // (and the untested notice of none: the spec is 0.7).
    let json: Value = serde_json::from_str(&check(&repo, "json").1).unwrap();
    let total = json["findings"].as_array().unwrap().len();
    let shown = body
        .lines()
        .filter(|l| {
            l.starts_with("| error |")
                || l.starts_with("| warning |")
                || l.starts_with("| notice |")
        })
        .count();
    let note = body.lines().last().unwrap();
    let counted: usize = note
        .split("): ")
        .nth(1)
        .and_then(|rest| rest.split(" findings").next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count of findings left out: {note}"));
    assert!(shown > 100, "{shown}");
    assert_eq!(shown + counted, total, "{note}");
    assert!(note.contains("`notarai check` lists them all"), "{note}");
}

/// The SARIF output is valid against the official SARIF 2.1.0 schema
/// (`tests/fixtures/reference/sarif-schema-2.1.0.json`, from
/// github.com/oasis-tcs/sarif-spec, `sarif-2.1/schema/`, commit e058381),
/// with the rule table as the tool's rules.
#[test]
fn sarif_is_valid_sarif_2_1_0_with_the_rules_as_rules() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/reference/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let repo = branch(3);
    let (code, text) = check(&repo, "sarif");
    assert_eq!(code, 1);
    let sarif: Value = serde_json::from_str(&text).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(sarif["version"], "2.1.0");
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    assert_eq!(rules.len(), notarai::rules::RULES.len());
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let n101 = results
        .iter()
        .find(|r| {
            r["ruleId"] == "N101"
                && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    == "src/gen/f00001.rs"
        })
        .expect("an N101 result");
    assert_eq!(n101["level"], "error");
    assert_eq!(
        rules[n101["ruleIndex"].as_u64().unwrap() as usize]["id"],
        "N101"
    );
    let weird = results
        .iter()
        .find_map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .filter(|u| u.contains("ird"))
        })
        .unwrap();
    assert_eq!(weird, "src/we%7Cird%20%60name%60%20%3Cb%3E%40team.rs");
    // A document the schema refuses is refused: the check can fail.
    let mut broken = sarif.clone();
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validator.is_valid(&broken));
}
