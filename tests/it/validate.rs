//! `notarai validate` and `notarai schema`, run as the real binary in
//! temporary projects.

use crate::common;
use crate::corpus;

use std::path::Path;

use common::{notarai, stderr, stdout, write};
use serde_json::Value;

/// A git project with `src/auth/login.rs` so the base spec's glob matches.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git2::Repository::init(dir.path()).unwrap();
    write(dir.path(), "src/auth/login.rs", "fn main() {}\n");
    dir
}

#[test]
fn all_valid_passes_with_exit_0() {
    let dir = project();
    write(dir.path(), ".notarai/auth.spec.yaml", corpus::BASE);
    write(
        dir.path(),
        ".notarai/old.spec.yaml",
        corpus::replace("'0.7'", "'0.5'"),
    );
    let o = notarai(dir.path(), &["validate"], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "PASS .notarai/auth.spec.yaml\nPASS .notarai/old.spec.yaml\n"
    );
    assert_eq!(stderr(&o), "");
}

#[test]
fn a_failure_shows_position_source_line_marker_and_hint() {
    let dir = project();
    write(dir.path(), ".notarai/auth.spec.yaml", corpus::BASE);
    write(
        dir.path(),
        ".notarai/bad.spec.yaml",
        corpus::with("behaviours: []\ntier: ful\n"),
    );
    let root = dir.path().to_str().unwrap();
    let o = notarai(Path::new("/"), &["validate", "--root", root], b"");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let expected = "\
PASS .notarai/auth.spec.yaml
FAIL .notarai/bad.spec.yaml
.notarai/bad.spec.yaml:10:1: unknown key `behaviours` [N001 invalid-spec]
  10 | behaviours: []
     | ^
  hint: did you mean `behaviors`?
.notarai/bad.spec.yaml:11:7: `tier` has an unknown value `ful` [N001 invalid-spec]
  11 | tier: ful
     |       ^
  hint: did you mean `full`? expected one of full, registered, derived
";
    assert_eq!(stdout(&o), expected);
}

#[test]
fn warnings_do_not_fail() {
    let dir = project();
    write(
        dir.path(),
        ".notarai/a.spec.yaml",
        corpus::with("  docs:\n    - path: 'docs/**'\n"),
    );
    let o = notarai(dir.path(), &["validate"], b"");
    assert_eq!(o.status.code(), Some(0));
    let out = stdout(&o);
    assert!(out.starts_with("PASS .notarai/a.spec.yaml\n.notarai/a.spec.yaml:11:13: warning: artifact glob `docs/**` matches no file in the repository [N003 glob-matches-nothing]\n"), "{out}");
}

#[test]
fn a_single_file_or_a_folder_can_be_checked() {
    let dir = project();
    write(dir.path(), ".notarai/auth.spec.yaml", corpus::BASE);
    write(
        dir.path(),
        ".notarai/bad.spec.yaml",
        corpus::replace("'0.7'", "0.7"),
    );
    write(dir.path(), ".notarai/sub/c.spec.yaml", corpus::BASE);
    write(
        dir.path(),
        "examples/e.spec.yaml",
        corpus::with("nope: 1\n"),
    );

    let o = notarai(dir.path(), &["validate", ".notarai/auth.spec.yaml"], b"");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "PASS .notarai/auth.spec.yaml\n");

    let o = notarai(dir.path(), &["validate", ".notarai/bad.spec.yaml"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("FAIL .notarai/bad.spec.yaml\n.notarai/bad.spec.yaml:1:17: `schema_version` must be text, found a number [N001 invalid-spec]\n"));

    let o = notarai(&dir.path().join(".notarai"), &["validate", "sub"], b"");
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o), "PASS .notarai/sub/c.spec.yaml\n");

    // A spec outside `.notarai/` is checked on its own.
    let o = notarai(dir.path(), &["validate", "examples"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).starts_with(
            "FAIL examples/e.spec.yaml\nexamples/e.spec.yaml:10:1: unknown key `nope` [N001 invalid-spec]\n"
        ),
        "{}",
        stdout(&o)
    );

    // A file outside the project root.
    let other = tempfile::tempdir().unwrap();
    write(other.path(), "x.spec.yaml", corpus::BASE);
    let file = other.path().join("x.spec.yaml");
    let o = notarai(dir.path(), &["validate", file.to_str().unwrap()], b"");
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    assert_eq!(stdout(&o), format!("PASS {}\n", file.display()));
}

#[test]
fn no_spec_passes_with_a_warning() {
    let dir = project();
    let o = notarai(dir.path(), &["validate"], b"");
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains("no spec file"), "{}", stderr(&o));
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    let o = notarai(dir.path(), &["validate", "empty"], b"");
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("warning: no spec file"));
}

#[test]
fn a_missing_path_is_an_error() {
    let dir = project();
    let o = notarai(dir.path(), &["validate", "nowhere.spec.yaml"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nowhere.spec.yaml"), "{}", stderr(&o));
    assert_eq!(stdout(&o), "");
}

#[test]
fn json_format_parses_and_carries_every_field() {
    let dir = project();
    write(dir.path(), ".notarai/auth.spec.yaml", corpus::BASE);
    write(
        dir.path(),
        ".notarai/bad.spec.yaml",
        corpus::with("tier: ful\n  docs:\n"),
    );
    write(
        dir.path(),
        ".notarai/orphan.spec.yaml",
        corpus::replace("src/auth/**", "gone/**"),
    );
    let o = notarai(dir.path(), &["validate", "--format", "json"], b"");
    assert_eq!(o.status.code(), Some(1));
    let doc: Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON");
    assert_eq!(doc["ok"], false);
    assert_eq!(
        doc["files"],
        serde_json::json!([
            {"file": ".notarai/auth.spec.yaml", "status": "pass"},
            {"file": ".notarai/bad.spec.yaml", "status": "fail"},
            {"file": ".notarai/orphan.spec.yaml", "status": "pass"},
        ])
    );
    let findings = doc["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 2, "{findings:#?}");
    assert_eq!(findings[0]["file"], ".notarai/bad.spec.yaml");
    assert_eq!(findings[0]["severity"], "error");
    assert!(findings[0]["line"].as_u64().unwrap() >= 10);
    assert!(findings[0]["column"].as_u64().is_some());
    assert!(
        findings[0]["message"]
            .as_str()
            .unwrap()
            .contains("YAML syntax error")
    );
    assert_eq!(
        findings[1],
        serde_json::json!({
            "file": ".notarai/orphan.spec.yaml",
            "line": 9,
            "column": 13,
            "severity": "warning",
            "code": "N003",
            "message": "artifact glob `gone/**` matches no file in the repository",
            "hint": "fix the glob or remove the ref; for something outside the repository add `source:`"
        })
    );

    write(dir.path(), ".notarai/bad.spec.yaml", corpus::BASE);
    let o = notarai(
        dir.path(),
        &["validate", "--format", "json", ".notarai/bad.spec.yaml"],
        b"",
    );
    assert_eq!(o.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["ok"], true);
    assert_eq!(doc["findings"], serde_json::json!([]));
}

#[test]
fn schema_prints_the_generated_json_schema() {
    let dir = project();
    let o = notarai(dir.path(), &["schema"], b"");
    assert_eq!(o.status.code(), Some(0));
    let printed: Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON");
    assert_eq!(&printed, notarai::spec::json_schema_value());
    assert!(jsonschema::meta::is_valid(&printed));
    let validator = jsonschema::validator_for(&printed).unwrap();
    for (name, yaml) in corpus::realistic() {
        let instance: Value = serde_yaml::from_str(yaml).unwrap();
        assert!(validator.is_valid(&instance), "{name}");
    }
    let bad: Value = serde_yaml::from_str(&corpus::with("behaviours: []\n")).unwrap();
    assert!(!validator.is_valid(&bad));
}

/// Values the model cannot hold are errors at their own line and column.
#[test]
fn values_the_model_cannot_hold_are_errors_at_their_position() {
    let head = "schema_version: '0.7'\nintent: x\ntier: registered\nartifacts: {}\n";
    for (tail, at, says) in [
        (
            "design:\n  responsive:\n    breakpoints:\n      - name: sm\n        max_width: 99999999999999999999\n",
            "t.spec.yaml:9:20:",
            "out of range",
        ),
        (
            "variants:\n  - id: v\n    overrides:\n      b: .inf\n",
            "t.spec.yaml:8:10:",
            "not finite",
        ),
    ] {
        let dir = project();
        write(dir.path(), ".notarai/t.spec.yaml", format!("{head}{tail}"));
        let o = notarai(dir.path(), &["validate", ".notarai/t.spec.yaml"], b"");
        let text = stdout(&o);
        assert!(!o.status.success());
        assert!(text.contains(at) && text.contains(says), "{text}");
    }
}
