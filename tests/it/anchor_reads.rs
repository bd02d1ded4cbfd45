//! Data an anchored symbol reads, declared outside it, is part of what the
//! anchor does: a change to a package-level `var`, a constant or a static
//! whose name the anchored symbol mentions is shown, never called outside
//! the anchors. A change to data no anchored symbol mentions, or to a
//! function it calls (another symbol, with its own anchors), stays outside.

use serde_json::{Value, json};

use crate::common::{Repo, strings};

const SPEC: &str = ".notarai/c.spec.yaml";

/// `main`: a spec anchoring `anchor` in `file` (with `text`); branch `feat`.
fn project(file: &str, anchor: &str, text: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        SPEC,
        format!(
            "schema_version: '0.8'\nintent: Compression.\nbehaviors:\n  - name: defaults\n    given: no types\n    then: the default list is used\nartifacts:\n  code:\n    - path: '{file}#{anchor}'\n"
        ),
    );
    repo.write(file, text);
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

fn diff(repo: &Repo) -> Value {
    repo.server().call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": SPEC, "base_branch": "main"}),
    )
}

const GO: &str = "package m\n\nvar defaultTypes = []string{\n\t\"text/html\",\n\t\"text/css\",\n}\n\nvar (\n\tlevel = 5\n\tunused = []string{\n\t\t\"a\",\n\t}\n)\n\nfunc helper() int {\n\treturn 1\n}\n\nfunc NewCompressor(types ...string) []string {\n\tif len(types) == 0 {\n\t\treturn append(defaultTypes, helper2(level))\n\t}\n\treturn types\n}\n\nfunc helper2(n int) string {\n\treturn \"x\"\n}\n";

#[test]
fn a_go_var_the_anchor_reads_is_shown() {
    let repo = project("c.go", "NewCompressor", GO);
    repo.write(
        "c.go",
        GO.replace(
            "\t\"text/css\",\n",
            "\t\"text/css\",\n\t\"application/json\",\n",
        ),
    );
    let answer = diff(&repo);
    assert_eq!(strings(&answer["files"]), ["c.go"], "{answer}");
    assert!(
        answer["diff"]
            .as_str()
            .unwrap()
            .contains("+\t\"application/json\","),
        "{answer}"
    );
    // The same in a grouped declaration.
    let repo = project("c.go", "NewCompressor", GO);
    repo.write("c.go", GO.replace("\tlevel = 5\n", "\tlevel = 9\n"));
    assert_eq!(strings(&diff(&repo)["files"]), ["c.go"]);
}

#[test]
fn data_no_anchor_reads_and_a_callee_stay_outside() {
    let repo = project("c.go", "NewCompressor", GO);
    repo.write("c.go", GO.replace("\t\t\"a\",\n", "\t\t\"b\",\n"));
    let answer = diff(&repo);
    assert!(strings(&answer["files"]).is_empty(), "{answer}");
    assert_eq!(strings(&answer["outside_anchors"]), ["c.go"], "{answer}");
    // A function it calls is another symbol (decided: not followed).
    let repo = project("c.go", "NewCompressor", GO);
    repo.write("c.go", GO.replace("return \"x\"", "return \"y\""));
    let answer = diff(&repo);
    assert_eq!(strings(&answer["outside_anchors"]), ["c.go"], "{answer}");
}

#[test]
fn a_rust_static_and_a_python_constant_the_anchor_reads_are_shown() {
    let rust = "pub static TYPES: &[&str] = &[\n    \"text/html\",\n];\n\npub fn compressible(t: &str) -> bool {\n    TYPES.contains(&t)\n}\n";
    let repo = project("src/c.rs", "compressible", rust);
    repo.write(
        "src/c.rs",
        rust.replace("\"text/html\",\n", "\"text/html\",\n    \"image/png\",\n"),
    );
    assert_eq!(strings(&diff(&repo)["files"]), ["src/c.rs"]);
    let python =
        "TYPES = [\n    'text/html',\n]\n\n\ndef compressible(t):\n    return t in TYPES\n";
    let repo = project("c.py", "compressible", python);
    repo.write(
        "c.py",
        python.replace("'text/html',\n", "'text/html',\n    '*/*',\n"),
    );
    assert_eq!(strings(&diff(&repo)["files"]), ["c.py"]);
    let ts = "export const TYPES = [\n  'text/html',\n];\n\nexport function compressible(t: string): boolean {\n  return TYPES.includes(t);\n}\n";
    let repo = project("c.ts", "compressible", ts);
    repo.write(
        "c.ts",
        ts.replace("'text/html',\n", "'text/html',\n  '*/*',\n"),
    );
    assert_eq!(strings(&diff(&repo)["files"]), ["c.ts"]);
}

#[test]
fn the_status_and_check_agree() {
    let repo = project("c.go", "NewCompressor", GO);
    repo.write(
        "c.go",
        GO.replace(
            "\t\"text/css\",\n",
            "\t\"text/css\",\n\t\"application/json\",\n",
        ),
    );
    let status = repo.server().call_ok(
        1,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    assert_eq!(status["totals"]["unreconciled"], 1, "{status}");
    let out = crate::common::notarai(&repo.root, &["check", "--base", "main"], b"");
    assert!(!out.status.success(), "{}", crate::common::stdout(&out));
}
