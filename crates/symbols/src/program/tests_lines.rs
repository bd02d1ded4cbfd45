//! Red team round 4: line terminators and comments that are code.

use super::tests::{differ, equal};

#[test]
fn red_team_round_four_changes_are_shown() {
    // A lone carriage return ends a line (CPython, JavaScript): text after
    // it in a comment is code, in every language.
    differ(
        "a.py",
        &[
            (
                "LIMIT = 1  # the limit\n",
                "LIMIT = 1  # the limit\rLIMIT = 1000\n",
            ),
            (
                "def f():\n    x = 1  # one\n    return x\n",
                "def f():\n    x = 1  # one\r    x = 1000\n    return x\n",
            ),
        ],
    );
    for path in ["a.rs", "a.go", "a.ts"] {
        differ(path, &[("// a\n", "// a\rb\n")]);
    }
    // A comment with a CR LF ending is no lone CR: a comment edit stays quiet.
    equal("a.py", &[("x = 1  # a\r\n", "x = 1  # b\r\n")]);
    // `using` / `await using` end their statement at a line break.
    differ(
        "a.ts",
        &[
            (
                "export function f() {\n  using res = open();\n  return 1;\n}\n",
                "export function f() {\n  using\n  res = open();\n  return 1;\n}\n",
            ),
            (
                "export async function f() {\n  await using res = open();\n  return 1;\n}\n",
                "export async function f() {\n  await using\n  res = open();\n  return 1;\n}\n",
            ),
        ],
    );
    // A Go example's `// Output:` is its assertion.
    differ(
        "a_test.go",
        &[
            (
                "package a\n\nfunc ExampleF() {\n\tprintln(1)\n\t// Output: 1\n}\n",
                "package a\n\nfunc ExampleF() {\n\tprintln(1)\n\t// Output: 2\n}\n",
            ),
            (
                "package a\n\nfunc ExampleF() {\n\tprintln(1)\n\t// Output: 1\n}\n",
                "package a\n\nfunc ExampleF() {\n\tprintln(1)\n}\n",
            ),
            (
                "package a\n\nfunc ExampleF() {\n\tprintln(1)\n\t// Unordered output: 1\n}\n",
                "package a\n\nfunc ExampleF() {\n\tprintln(1)\n\t// Unordered output: 2\n}\n",
            ),
        ],
    );
    equal(
        "a_test.go",
        &[(
            "package a\n\nfunc ExampleF() {\n\t// prints one\n\tprintln(1)\n}\n",
            "package a\n\nfunc ExampleF() {\n\t// prints 1\n\tprintln(1)\n}\n",
        )],
    );
}
