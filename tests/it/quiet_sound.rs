//! Quiet verdicts that must not hide a change (red-team findings F4-F7,
//! the issue 42 replay's Go deprecation): each case is a base and a work
//! tree of one file that one spec governs (whole or through an anchor),
//! asked of the real binary's `get_spec_diff`; the change must be shown,
//! and a control beside each rule stays quiet.

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stdout};

const SPEC: &str = ".notarai/a.spec.yaml";

/// A repository where `.notarai/a.spec.yaml` governs `artifact` (`path`
/// or `path#Symbol`), `path` holds `base` on `main` and `work` in the work
/// tree of branch `feat`.
fn repo(path: &str, artifact: &str, base: &str, work: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        SPEC,
        format!(
            "schema_version: '0.8'\nintent: The a part.\nbehaviors:\n  - name: works\n    given: input\n    then: output\nartifacts:\n  code:\n    - path: '{artifact}'\n"
        ),
    );
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.write(path, base);
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write(path, work);
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

/// Whether the answer lists `path` under `key`.
fn lists(answer: &Value, key: &str, path: &str) -> bool {
    answer[key]
        .as_array()
        .is_some_and(|a| a.iter().any(|p| p == path))
}

/// Asserts `get_spec_diff` shows `path` (its change is no quiet verdict).
#[track_caller]
fn shown(case: &str, path: &str, artifact: &str, base: &str, work: &str) -> Value {
    let answer = spec_diff(&repo(path, artifact, base, work));
    assert!(
        lists(&answer, "files", path),
        "{case}: the change is hidden: {answer}"
    );
    answer
}

/// Asserts `get_spec_diff` gives `path` the quiet verdict `key`.
#[track_caller]
fn quiet(case: &str, key: &str, path: &str, artifact: &str, base: &str, work: &str) {
    let answer = spec_diff(&repo(path, artifact, base, work));
    assert!(lists(&answer, key, path), "{case}: not {key}: {answer}");
}

/// F4: a stray closer on both sides ends `foo` early; the changed line of
/// its body is read as top-level code. In Python tree-sitter takes the
/// indented lines CPython refuses without an error node.
const CUT_SHORT: &[(&str, &str, &str)] = &[
    (
        "src/a.ts",
        "export function foo(x: number): number {\n  if (x > 0) {\n    x = x - 1;\n  }}\n  return x + 2;\n}\n\nexport function bar(y: number): number {\n  return y * 2;\n}\n",
        "return x + 2;",
    ),
    (
        "src/a.go",
        "package p\n\nfunc foo(x int) int {\n\ty := x\n\t}\n\ty = y + 7\n\treturn y\n}\n\nfunc bar(q int) int {\n\treturn q\n}\n",
        "y = y + 7",
    ),
    (
        "src/a.rs",
        "fn foo(x: i32) -> i32 {\n    let mut y = x;\n    }\n    y = y + 7;\n    y\n}\n\nfn bar(q: i32) -> i32 {\n    q\n}\n",
        "y = y + 7;",
    ),
    (
        "src/a.py",
        "def foo(x):\n    y = x\nreturn\n    y = y + 7\n    return y\n\n\ndef bar(q):\n    return q\n",
        "y = y + 7",
    ),
];

#[test]
fn a_body_cut_short_by_error_recovery_governs_the_whole_file() {
    for (path, base, line) in CUT_SHORT {
        let work = base.replace(line, &line.replace('7', "700").replace('2', "200"));
        assert_ne!(&work, base);
        let answer = shown(path, path, &format!("{path}#foo"), base, &work);
        assert!(
            answer["whole_file_because"][*path]
                .as_str()
                .is_some_and(|w| w.contains("did not understand")),
            "{path}: {answer}"
        );
        assert!(!lists(&answer, "outside_anchors", path), "{path}: {answer}");
    }
    // `check` agrees: an error, no outside-anchors warning.
    let (path, base, line) = CUT_SHORT[0];
    let repo = repo(
        path,
        &format!("{path}#foo"),
        base,
        &base.replace(line, "return x + 200;"),
    );
    let out = notarai(
        &repo.root,
        &["check", "--base", "main", "--format", "json"],
        b"",
    );
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let kinds: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == path)
        .filter_map(|f| f["kind"].as_str())
        .collect();
    assert!(kinds.contains(&"unreconciled"), "{report}");
    assert!(!kinds.contains(&"outside_anchors"), "{report}");
    // Control: `bar`, after the damage and whole, keeps its own anchor.
    let (path, base, line) = CUT_SHORT[0];
    quiet(
        "bar",
        "outside_anchors",
        path,
        &format!("{path}#bar"),
        base,
        &base.replace(line, "return x + 200;"),
    );
}

#[test]
fn what_changes_an_anchored_symbol_from_outside_it_is_shown() {
    // F5: a guard making an unchanged rebinding live, a write through an
    // alias, code run from a string.
    let cases = [
        (
            "src/a.py",
            "def foo():\n    return 1\n\n\nENABLE = False\nif ENABLE:\n    foo = lambda: 2\n",
            "def foo():\n    return 1\n\n\nENABLE = True\nif ENABLE:\n    foo = lambda: 2\n",
        ),
        (
            "src/a.js",
            "export function foo() { return 1; }\nconst on = false;\nif (on) { foo = () => 2; }\n",
            "export function foo() { return 1; }\nconst on = true;\nif (on) { foo = () => 2; }\n",
        ),
        (
            "src/a.py",
            "def foo(x, n=1):\n    return x + n\n\n\nf = foo\n",
            "def foo(x, n=1):\n    return x + n\n\n\nf = foo\nf.__defaults__ = (100,)\n",
        ),
        (
            "src/a.py",
            "def foo():\n    return 1\n\n\ndef bar():\n    return 2\n",
            "def foo():\n    return 1\n\n\ndef bar():\n    return 2\n\n\nexec(\"fo\" + \"o = bar\")\n",
        ),
    ];
    for (path, base, work) in cases {
        shown(work, path, &format!("{path}#foo"), base, work);
    }
    // Control: a file that never rebinds `foo` keeps `outside_anchors`.
    let base = "def foo():\n    return 1\n\n\nENABLE = False\n";
    quiet(
        "no rebinding",
        "outside_anchors",
        "src/a.py",
        "src/a.py#foo",
        base,
        &base.replace("False", "True"),
    );
}

#[test]
fn rebindings_nested_in_expressions_loops_patterns_and_exports_are_shown() {
    // F6.
    let ts = "export let foo = (): number => 1;\n";
    let cases = [
        ("src/a.ts", ts, "export const z = (foo = () => 2);\n"),
        (
            "src/a.ts",
            ts,
            "export const o = { init: (foo = () => 2) };\n",
        ),
        ("src/a.ts", ts, "for (foo of [() => 2]);\n"),
        ("src/a.ts", ts, "for (foo in { a: 1 });\n"),
        (
            "src/a.ts",
            ts,
            "\nexport class C {\n  static init = (() => { foo = () => 2; })();\n}\n",
        ),
        (
            "src/a.js",
            "export let foo = () => 1;\n",
            "export const z = (foo = () => 2);\n",
        ),
        (
            "src/a.py",
            "def foo():\n    return 1\n",
            "\n\nmatch [lambda: 2]:\n    case [foo]:\n        pass\n",
        ),
        (
            "src/a.js",
            "function foo() { return 1; }\n",
            "exports.foo = () => 2;\n",
        ),
    ];
    for (path, base, added) in cases {
        shown(
            added,
            path,
            &format!("{path}#foo"),
            base,
            &format!("{base}{added}"),
        );
    }
    // CommonJS: the exported `foo` replaced through an object literal key.
    let base = "function foo() { return 1; }\nmodule.exports = { foo };\n";
    shown(
        "module.exports",
        "src/a.js",
        "src/a.js#foo",
        base,
        &base.replace("{ foo }", "{ foo: () => 2 }"),
    );
}

#[test]
fn a_line_break_that_changes_what_typescript_means_is_shown() {
    // F7: tsc refuses both new files (TS1434/TS1228, TS1359).
    for (base, work) in [
        (
            "export function f(x: unknown): asserts x is string {}\n",
            "export function f(x: unknown): asserts\nx is string {}\n",
        ),
        (
            "export interface Sink<in T> {\n  put(x: T): void;\n}\n",
            "export interface Sink<in\nT> {\n  put(x: T): void;\n}\n",
        ),
    ] {
        let answer = shown(work, "src/a.ts", "src/a.ts", base, work);
        assert!(!lists(&answer, "formatting_only", "src/a.ts"), "{answer}");
    }
    // Control: spaces on the same line stay formatting.
    let base = "export function f(x: unknown): asserts x is string {}\n";
    quiet(
        "spaces",
        "formatting_only",
        "src/a.ts",
        "src/a.ts",
        base,
        &base.replace("asserts x", "asserts   x"),
    );
}

#[test]
fn a_deprecation_in_a_doc_comment_is_shown() {
    let go = |doc: &str| {
        format!(
            "package p\n\n// Check reports whether x is allowed.\n{doc}func Check(x int) bool {{\n\treturn x > 0\n}}\n"
        )
    };
    shown(
        "Go Deprecated:",
        "src/a.go",
        "src/a.go#Check",
        &go(""),
        &go("//\n// Deprecated: use Allow.\n"),
    );
    shown(
        "JSDoc @deprecated",
        "src/a.ts",
        "src/a.ts#check",
        "/** Checks. */\nexport function check(): number {\n  return 1;\n}\n",
        "/**\n * Checks.\n * @deprecated use allow\n */\nexport function check(): number {\n  return 1;\n}\n",
    );
    shown(
        "Python docstring",
        "src/a.py",
        "src/a.py#check",
        "def check():\n    \"\"\"Checks.\"\"\"\n    return 1\n",
        "def check():\n    \"\"\"Checks.\n\n    .. deprecated:: use allow\n    \"\"\"\n    return 1\n",
    );
    // Control: plain prose in a Go doc comment stays a comment.
    quiet(
        "Go prose",
        "formatting_only",
        "src/a.go",
        "src/a.go#Check",
        &go(""),
        &go("// It is pure.\n"),
    );
}
