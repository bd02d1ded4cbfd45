//! `notarai export-context` on a fixture repository: JSON with the tools'
//! fields, Markdown with a table of contents and the governed diff, reconciled
//! files left out of the diff, the size and a token estimate on stderr, and
//! `--output` through the safe writer.

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stderr, stdout};

/// Spec A governs `src/**` and `docs/**`; on `feat`, `src/a.rs` changed
/// and `src/b.rs` is new and reconciled (the cache), `docs/a.md` changed.
fn fixture() -> Repo {
    let repo = Repo::with_spec();
    repo.git(&["checkout", "-q", "main"]);
    repo.spec("other", &["lib/**"]);
    repo.write("lib/x.rs", "x\n");
    repo.commit("other spec");
    repo.git(&["checkout", "-q", "feat"]);
    repo.git(&["merge", "-q", "--ff-only", "main"]);
    repo.append("src/a.rs", "fn a2() {}\n");
    repo.write("src/b.rs", "fn b() {}\n");
    repo.append("docs/a.md", "More.\n");
    let mut server = repo.server();
    server.call_ok(1, "mark_reconciled", json!({"files": ["src/b.rs"]}));
    server.finish();
    repo
}

/// The size and token estimate printed on stderr match what was written.
fn assert_size_reported(err: &str, bytes: usize) {
    let tokens = bytes.div_ceil(3);
    assert!(
        err.contains(&format!("{bytes} bytes")) && err.contains(&format!("about {tokens} tokens")),
        "{err}"
    );
}

#[test]
fn json_has_the_tools_fields_and_skips_reconciled_files() {
    let repo = fixture();
    let out = notarai(&repo.root, &["export-context", "--format", "json"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let doc: Value = serde_json::from_str(&text).unwrap();
    let affected = &doc["affected"];
    assert_eq!(affected["base"]["name"], "main");
    assert_eq!(
        affected["changed_files"],
        json!(["docs/a.md", "src/a.rs", "src/b.rs"])
    );
    let specs: Vec<&str> = affected["affected_specs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["spec_path"].as_str().unwrap())
        .collect();
    assert_eq!(specs, [".notarai/a.spec.yaml"]);
    assert_eq!(affected["affected_specs"][0]["intent"], "Module A");
    assert_eq!(affected["affected_specs"][0]["unreconciled_count"], 2);
    let spec = &doc["specs"][0];
    assert_eq!(spec["spec_path"], ".notarai/a.spec.yaml");
    let diff = &spec["diff"];
    assert_eq!(diff["files"], json!(["docs/a.md", "src/a.rs"]));
    assert_eq!(diff["skipped"], json!(["src/b.rs"]));
    assert_eq!(
        (diff["page"].clone(), diff["pages"].clone()),
        (json!(1), json!(1))
    );
    let text_diff = diff["diff"].as_str().unwrap();
    assert!(
        text_diff.contains("+fn a2() {}") && text_diff.contains("+More."),
        "{text_diff}"
    );
    assert!(
        !text_diff.contains("b.rs"),
        "a reconciled file is not in the diff"
    );
    assert_eq!(diff["plan"].as_array().unwrap().len(), 2);
    assert_size_reported(&stderr(&out), text.len());
}

#[test]
fn markdown_has_contents_the_spec_and_the_diff() {
    let repo = fixture();
    let out = notarai(&repo.root, &["export-context"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.starts_with("# Review context\n"), "{md}");
    assert!(
        md.contains("## Contents\n\n1. [`.notarai/a.spec.yaml`](#spec-1)"),
        "{md}"
    );
    assert!(
        md.contains("<a id=\"spec-1\"></a>\n## 1. `.notarai/a.spec.yaml`"),
        "{md}"
    );
    assert!(md.contains("### Intent\n\nModule A\n"), "{md}");
    assert!(md.contains("- **b**: given g, then t"), "{md}");
    assert!(md.contains("- `src/a.rs` (modified, +1 -0, code)"), "{md}");
    let diff = &md[md.find("```diff\n").expect("a diff block")..];
    assert!(
        diff.contains("+fn a2() {}") && !diff.contains("b.rs"),
        "{diff}"
    );
    assert!(
        md.contains("Skipped, already reconciled:\n\n- `src/b.rs`"),
        "{md}"
    );
    assert!(
        !md.contains("other.spec.yaml"),
        "an unaffected spec is left out"
    );
    assert_size_reported(&stderr(&out), md.len());

    // Only the specs asked for; one that nothing affects is said so.
    let out = notarai(
        &repo.root,
        &["export-context", "--spec", ".notarai/other.spec.yaml"],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(
        md.contains("## Not affected") && md.contains("`.notarai/other.spec.yaml`"),
        "{md}"
    );
    assert!(!md.contains("```diff"), "{md}");
}

#[test]
fn output_goes_through_the_safe_writer_and_bad_specs_are_named() {
    let repo = fixture();
    let expected = stdout(&notarai(&repo.root, &["export-context"], b""));

    // A file the user names outside the repository is fine.
    let file = repo.outside.join("context.md");
    let out = notarai(
        &repo.root,
        &["export-context", "--output", file.to_str().unwrap()],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "the document goes to the file only");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), expected);
    assert_size_reported(&stderr(&out), expected.len());

    // Inside the repository, a planted link leading out is never followed.
    std::os::unix::fs::symlink(&repo.outside, repo.root.join("out")).unwrap();
    let before = repo.outside_snapshot();
    let out = notarai(&repo.root, &["export-context", "--output", "out/x.md"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
    assert_eq!(repo.outside_snapshot(), before, "nothing written outside");
    std::fs::remove_file(repo.root.join("out")).unwrap();
    let out = notarai(&repo.root, &["export-context", "--output", "ctx/x.md"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(repo.root.join("ctx/x.md")).unwrap(),
        expected
    );

    // `-` is stdout; the spec folder and git's folder are never written.
    let now = stdout(&notarai(&repo.root, &["export-context"], b""));
    let out = notarai(&repo.root, &["export-context", "--output", "-"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), now);
    assert!(!repo.root.join("-").exists(), "no file named -");
    let spec_before = std::fs::read(repo.root.join(".notarai/a.spec.yaml")).unwrap();
    for target in [".notarai/a.spec.yaml", ".notarai/ctx.md", ".git/ctx.md"] {
        let out = notarai(&repo.root, &["export-context", "--output", target], b"");
        assert_eq!(out.status.code(), Some(1), "{target}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("does not write its export inside"), "{err}");
        assert!(err.contains("\nhint: "), "{err}");
    }
    assert_eq!(
        std::fs::read(repo.root.join(".notarai/a.spec.yaml")).unwrap(),
        spec_before
    );
    assert!(!repo.root.join(".notarai/ctx.md").exists());
    assert!(!repo.root.join(".git/ctx.md").exists());

    // An unknown spec, and a path out of the repository: error and hint, exit 1.
    for spec in [".notarai/nope.spec.yaml", "../outside/secret.txt"] {
        let out = notarai(&repo.root, &["export-context", "--spec", spec], b"");
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.starts_with("error: --spec: "), "{err}");
        assert!(err.contains("\nhint: "), "{err}");
        assert_eq!(stdout(&out), "");
    }
}

/// Paths are inline code that a backtick in the path cannot break: a spec
/// and a changed file whose names hold backticks stay whole in the table
/// of contents, the heading and the list of files.
#[test]
fn markdown_keeps_paths_with_backticks_whole() {
    let repo = Repo::with_spec();
    repo.write(
        ".notarai/we`ird.spec.yaml",
        "schema_version: '0.7'\nintent: Weird.\nbehaviors:\n  - name: w\n    given: a\n    then: b\nartifacts:\n  code:\n    - path: 'lib/**'\n",
    );
    repo.write("lib/x``y.rs", "x\n");
    let out = notarai(&repo.root, &["export-context", "--base", "main"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let md = stdout(&out);
    for line in [
        "1. [``.notarai/we`ird.spec.yaml``](#spec-1) (2 file(s) to review)",
        "## 1. ``.notarai/we`ird.spec.yaml``",
        "- ```lib/x``y.rs``` (added, +1 -0, code)",
        "- ``.notarai/we`ird.spec.yaml`` (spec, changed)",
        "### Spec ``.notarai/we`ird.spec.yaml``",
    ] {
        assert!(md.lines().any(|l| l == line), "no line {line:?} in:\n{md}");
    }
}

/// With no base given and no default branch, the error names the shell's
/// `--base` (not the tools' `base_branch`); the tools' error names theirs.
#[test]
fn no_base_names_the_flag_on_the_command_line() {
    let repo = Repo::new();
    repo.write(".notarai/a.spec.yaml", crate::common::SPEC_A);
    repo.commit("init");
    repo.git(&["branch", "-m", "trunk"]);
    let out = notarai(&repo.root, &["export-context"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("error: no base branch"), "{err}");
    assert!(err.contains("hint: ") && err.contains("`--base`"), "{err}");
    let mut server = repo.server();
    let answer = server.call(1, "list_affected_specs", json!({}));
    let text = answer.to_string();
    assert!(
        text.contains("no base branch") && text.contains("`base_branch`"),
        "{text}"
    );
    server.finish();
}

/// What the JSON carries about specs deleted on the branch and files that
/// cannot be reviewed, the Markdown says too (with their contents entries).
#[test]
fn markdown_names_deleted_specs_and_unreviewable_files() {
    let repo = Repo::with_spec();
    repo.git(&["checkout", "-q", "main"]);
    repo.spec("gone", &["lib/**"]);
    repo.commit("gone spec");
    repo.git(&["checkout", "-q", "feat"]);
    repo.git(&["merge", "-q", "--ff-only", "main"]);
    repo.remove(".notarai/gone.spec.yaml");
    std::fs::write(
        std::path::Path::new(&std::ffi::OsString::from(
            <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(
                &[repo.root.as_os_str().as_encoded_bytes(), b"/src/bad\xff.rs"].concat(),
            ),
        )),
        "x\n",
    )
    .unwrap();
    repo.append("src/a.rs", "fn a2() {}\n");
    let out = notarai(
        &repo.root,
        &["export-context", "--base", "main", "--format", "json"],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        doc["affected"]["deleted_specs"],
        json!([".notarai/gone.spec.yaml"])
    );
    assert_eq!(doc["affected"]["unreviewable"].as_array().unwrap().len(), 1);

    let out = notarai(&repo.root, &["export-context", "--base", "main"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.contains("- [Deleted specs](#deleted-specs)\n"), "{md}");
    assert!(
        md.contains("<a id=\"deleted-specs\"></a>\n## Deleted specs\n")
            && md.contains("- `.notarai/gone.spec.yaml`\n"),
        "{md}"
    );
    assert!(
        md.contains("- [Unreviewable files](#unreviewable)\n"),
        "{md}"
    );
    assert!(
        md.contains("<a id=\"unreviewable\"></a>\n## Unreviewable files\n")
            && md.contains("`src/bad\u{fffd}.rs`: "),
        "{md}"
    );
}
