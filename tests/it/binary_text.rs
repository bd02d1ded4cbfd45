//! A file git calls binary whose two sides are text is shown as text (red
//! team round 4, f9): a branch that marks its own file `-diff` or `binary`
//! in `.gitattributes`, or puts a NUL byte in a string literal, does not
//! hide its change from the reviewer. A real binary stays `binary_changes`.

use serde_json::{Value, json};

use crate::common::Repo;

fn repo_with(path: &str, old: &[u8]) -> Repo {
    let repo = Repo::new();
    repo.write(
        ".notarai/a.spec.yaml",
        format!(
            "schema_version: '0.7'\nintent: The a part.\nbehaviors:\n  - name: works\n    given: input\n    then: output\nartifacts:\n  code:\n    - path: '{path}'\n"
        ),
    );
    repo.write(path, old);
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

fn spec_diff(repo: &Repo) -> Value {
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    server.finish();
    diff
}

#[test]
fn a_text_file_the_branch_marks_binary_is_shown_as_text() {
    for attribute in ["-diff", "binary"] {
        let repo = repo_with("src/a.py", b"def foo():\n    return 1\n");
        repo.write(".gitattributes", format!("src/a.py {attribute}\n"));
        repo.write("src/a.py", "def foo():\n    return 2\n");
        let diff = spec_diff(&repo);
        let text = diff["diff"].as_str().unwrap();
        assert!(text.contains("+    return 2"), "{attribute}: {diff}");
        assert!(diff.get("binary_changes").is_none(), "{attribute}: {diff}");
    }
}

#[test]
fn a_nul_in_a_string_literal_does_not_hide_the_rest_of_the_change() {
    let repo = repo_with(
        "src/a.js",
        b"export const SEP = \"|\";\nexport function limit() { return 10; }\n",
    );
    repo.write(
        "src/a.js",
        b"export const SEP = \"\0\";\nexport function limit() { return 100000; }\n",
    );
    let diff = spec_diff(&repo);
    assert!(
        diff["diff"].as_str().unwrap().contains("return 100000"),
        "{diff}"
    );
}

#[test]
fn a_real_binary_stays_a_binary_change() {
    let png_like: Vec<u8> = [
        0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x80,
    ]
    .into_iter()
    .cycle()
    .take(400)
    .collect();
    let repo = repo_with("assets/logo.png", &png_like);
    let mut changed = png_like.clone();
    changed[100] = 0xc3;
    changed[101] = 0x28;
    repo.write("assets/logo.png", &changed);
    let diff = spec_diff(&repo);
    assert_eq!(diff["binary_changes"], json!(["assets/logo.png"]), "{diff}");
    assert!(
        !diff["diff"].as_str().unwrap_or("").contains("@@"),
        "{diff}"
    );
}
