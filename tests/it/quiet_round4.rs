//! Quiet verdicts that must not hide a change, red team round 4: each case
//! is a base and a work tree of one file that one spec governs (whole or
//! through an anchor), asked of the real binary's `get_spec_diff`; the
//! change must be shown, and a control beside each rule stays quiet.

use serde_json::{Value, json};

use crate::common::Repo;

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
fn spec_diff(path: &str, artifact: &str, base: &str, work: &str) -> Value {
    repo(path, artifact, base, work).server().call_ok(
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
fn shown(case: &str, path: &str, artifact: &str, base: &str, work: &str) {
    let answer = spec_diff(path, artifact, base, work);
    assert!(
        lists(&answer, "files", path),
        "{case}: the change is hidden: {answer}"
    );
}

/// Asserts `get_spec_diff` gives `path` the quiet verdict `key`.
#[track_caller]
fn quiet(case: &str, key: &str, path: &str, artifact: &str, base: &str, work: &str) {
    let answer = spec_diff(path, artifact, base, work);
    assert!(lists(&answer, key, path), "{case}: not {key}: {answer}");
}

#[test]
fn a_lone_carriage_return_in_a_comment_is_code() {
    let (p, base) = (
        "src/a.py",
        "LIMIT = 1  # the limit\n\n\ndef f():\n    return LIMIT\n",
    );
    shown(
        "module level",
        p,
        p,
        base,
        "LIMIT = 1  # the limit\rLIMIT = 1000\n\n\ndef f():\n    return LIMIT\n",
    );
    shown(
        "in an anchored function",
        p,
        "src/a.py#f",
        "def f():\n    x = 1  # one\n    return x\n",
        "def f():\n    x = 1  # one\r    x = 1000\n    return x\n",
    );
    shown(
        "rust",
        "src/a.rs",
        "src/a.rs",
        "// a\nfn f() {}\n",
        "// a\rb\nfn f() {}\n",
    );
    // Control: a comment edit in a CR LF file is formatting only.
    quiet(
        "crlf comment edit",
        "formatting_only",
        p,
        p,
        "LIMIT = 1  # the limit\r\n",
        "LIMIT = 1  # the new limit\r\n",
    );
}

#[test]
fn a_line_break_after_using_is_code() {
    let p = "src/a.ts";
    shown(
        "using",
        p,
        p,
        "declare function open(): Disposable;\nexport function f() {\n  using res = open();\n  return 1;\n}\n",
        "declare function open(): Disposable;\nexport function f() {\n  using\n  res = open();\n  return 1;\n}\n",
    );
    shown(
        "await using",
        p,
        p,
        "declare function open(): AsyncDisposable;\nexport async function f() {\n  await using res = open();\n  return 1;\n}\n",
        "declare function open(): AsyncDisposable;\nexport async function f() {\n  await using\n  res = open();\n  return 1;\n}\n",
    );
    // Control: reindenting the declaration is formatting only.
    quiet(
        "using reindented",
        "formatting_only",
        p,
        p,
        "export function f() {\n  using res = open();\n  return 1;\n}\n",
        "export function f() {\n    using res = open();\n    return 1;\n}\n",
    );
}

#[test]
fn a_go_examples_output_comment_is_code() {
    let p = "a/example_test.go";
    let with = |out: &str| {
        format!("package a\n\nimport \"fmt\"\n\nfunc ExampleF() {{\n\tfmt.Println(F())\n{out}}}\n")
    };
    let base = with("\t// Output: 1\n");
    shown("output changed", p, p, &base, &with("\t// Output: 2\n"));
    shown("output removed", p, p, &base, &with(""));
    shown(
        "unordered output changed",
        p,
        p,
        &with("\t// Unordered output: 1\n"),
        &with("\t// unordered output: 2\n"),
    );
    // Control: another comment in the example stays formatting only.
    quiet(
        "plain comment",
        "formatting_only",
        p,
        p,
        &with("\t// prints F\n\t// Output: 1\n"),
        &with("\t// prints F()\n\t// Output: 1\n"),
    );
}

#[test]
fn updates_frames_and_computed_globals_rebind_an_anchor() {
    let py = "def foo():\n    return 1\n\n\ndef bar():\n    return 2\n";
    for (case, line) in [
        ("__globals__", "bar.__globals__[\"fo\" + \"o\"] = bar\n"),
        (
            "f_globals",
            "inspect.currentframe().f_globals[\"fo\" + \"o\"] = bar\n",
        ),
    ] {
        let work = format!("{py}\n\n{line}");
        shown(case, "src/a.py", "src/a.py#foo", py, &work);
    }
    let js = "export function foo() { return 1; }\nexport function bar() { return 2; }\n";
    for (case, line) in [
        (
            "new Function",
            "new Function(\"fo\" + \"o = () => 2\")();\n",
        ),
        ("globalThis[...]", "globalThis[\"fo\" + \"o\"] = () => 2;\n"),
        ("foo++", "foo++;\n"),
    ] {
        let work = format!("{js}{line}");
        shown(case, "src/a.js", "src/a.js#foo", js, &work);
    }
    // Control: a line outside the anchor that writes another name.
    quiet(
        "bar++",
        "outside_anchors",
        "src/a.js",
        "src/a.js#foo",
        &format!("{js}let n = 0;\n"),
        &format!("{js}let n = 0;\nn++;\n"),
    );
}

#[test]
fn an_owners_header_and_module_statements_reach_an_anchor() {
    let classes = "class A:\n    def refresh(self):\n        return 1\n\n\nclass B:\n    def refresh(self):\n        return 2\n\n\n";
    let session = |base: &str| {
        format!(
            "{classes}class Session({base}):\n    def refresh(self):\n        return super().refresh()\n"
        )
    };
    let p = "src/a.py";
    shown(
        "base class swapped",
        p,
        "src/a.py#Session.refresh",
        &session("A"),
        &session("B"),
    );
    let member = |deco: &str| {
        format!(
            "def a(f):\n    return f\n\n\ndef b(f):\n    return f\n\n\n@{deco}\ndef foo():\n    return 1\n"
        )
    };
    shown(
        "member decorator",
        p,
        "src/a.py#foo",
        &member("a"),
        &member("b"),
    );
    let owner = |deco: &str| {
        format!("import dataclasses\n\n\n@{deco}\nclass S:\n    def foo(self):\n        return 1\n")
    };
    shown(
        "owner decorator",
        p,
        "src/a.py#S.foo",
        &owner("dataclasses.dataclass"),
        &owner("dataclasses.dataclass(frozen=True)"),
    );
    let rs_mod = "pub mod a {\n    pub fn bar() -> u32 {\n        0\n    }\n\n    pub fn foo() -> u32 {\n        1\n    }\n}\n";
    shown(
        "cfg on the owner mod",
        "src/lib.rs",
        "src/lib.rs#a::foo",
        rs_mod,
        &format!("#[cfg(any())]\n{rs_mod}"),
    );
    let rs = "pub fn bar() -> u32 {\n    0\n}\n\npub fn foo() -> u32 {\n    1\n}\n";
    shown(
        "inner cfg",
        "src/a.rs",
        "src/a.rs#foo",
        &format!("//! Module a.\n\n{rs}"),
        &format!("//! Module a.\n#![cfg(any())]\n\n{rs}"),
    );
    let py = "def bar():\n    return 0\n\n\ndef foo():\n    return 1\n";
    shown(
        "raise at the top",
        p,
        "src/a.py#foo",
        py,
        &format!("raise ImportError(\"disabled\")\n\n\n{py}"),
    );
    let js = "export function foo() { return 1; }\n";
    shown(
        "throw at the top",
        "src/a.js",
        "src/a.js#foo",
        js,
        &format!("throw new Error(\"disabled\");\n{js}"),
    );
    // Controls: a changed top-level constant no anchor names, a changed
    // import, a comment on the owner, a sibling member's body.
    for (case, base, work) in [
        (
            "constant",
            format!("LIMIT = 1\n{py}"),
            format!("LIMIT = 2\n{py}"),
        ),
        (
            "multi-line constant",
            format!("TABLE = {{\n    'a': 1,\n}}\n{py}"),
            format!("TABLE = {{\n    'a': 2,\n}}\n{py}"),
        ),
        (
            "import",
            format!("import os\n{py}"),
            format!("import sys\n{py}"),
        ),
    ] {
        quiet(case, "outside_anchors", p, "src/a.py#foo", &base, &work);
    }
    let owned = |comment: &str, bar: &str| {
        format!(
            "class S:\n    # {comment}\n    def bar(self):\n        return {bar}\n\n    def foo(self):\n        return 1\n"
        )
    };
    quiet(
        "sibling member",
        "outside_anchors",
        p,
        "src/a.py#S.foo",
        &owned("c", "0"),
        &owned("c", "2"),
    );
    quiet(
        "owner comment",
        "formatting_only",
        p,
        "src/a.py#S.foo",
        &format!("# one\n{}", owned("c", "0")),
        &format!("# two\n{}", owned("c", "0")),
    );
}
