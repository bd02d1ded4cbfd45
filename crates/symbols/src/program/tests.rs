use super::super::{outline, semantic_hash};

/// Whether `a` and `b`, as contents of `path`, hash as one program
/// (both parse: a file with errors is never formatting only).
fn same(path: &str, a: &str, b: &str) -> bool {
    let (x, y) = (
        semantic_hash(path, a.as_bytes()),
        semantic_hash(path, b.as_bytes()),
    );
    // A file whose layout is code is compared by its bytes.
    for text in [a, b] {
        let lang = super::super::Lang::of_path(path).unwrap();
        if super::layout_is_code(lang, text.as_bytes()).is_none() {
            let h = semantic_hash(path, text.as_bytes());
            assert!(h.tokens, "{path} does not parse: {text:?}");
        }
    }
    x == y
}

#[track_caller]
pub(super) fn differ(path: &str, pairs: &[(&str, &str)]) {
    for (a, b) in pairs {
        assert!(
            !same(path, a, b),
            "{path}: called the same program:\n{a}\n---\n{b}"
        );
    }
}

#[track_caller]
pub(super) fn equal(path: &str, pairs: &[(&str, &str)]) {
    for (a, b) in pairs {
        assert!(
            same(path, a, b),
            "{path}: not the same program:\n{a}\n---\n{b}"
        );
    }
}

#[test]
fn javascript_restricted_productions_keep_their_newlines() {
    for path in ["a.js", "a.ts", "a.tsx"] {
        differ(
            path,
            &[
                (
                    "function f(x) { return (x) }\n",
                    "function f(x) { return\n(x) }\n",
                ),
                (
                    "function f(x) { return [x] }\n",
                    "function f(x) { return\n[x] }\n",
                ),
                (
                    "function f(x) { return `a` }\n",
                    "function f(x) { return\n`a` }\n",
                ),
                (
                    "function f(x) { return -1 }\n",
                    "function f(x) { return\n-1 }\n",
                ),
                (
                    "function* f(x) { yield (x) }\n",
                    "function* f(x) { yield\n(x) }\n",
                ),
                (
                    "function f(x) { throw x }\n",
                    "function f(x) { throw /*\n*/ x }\n",
                ),
                ("a: for (;;) { break a }\n", "a: for (;;) { break\na }\n"),
                ("let a = b\n++c\n", "let a = b++\nc\n"),
                (
                    "const f = async function () {}\n",
                    "const f = async\nfunction () {}\n",
                ),
            ],
        );
    }
    equal(
        "a.js",
        &[
            ("const v = ++x\n", "const v =\n  ++x;\n"),
            (
                "function f() { return }\n",
                "function f() {\n  return;\n}\n",
            ),
            (
                "function f(x) { return (x) }\n",
                "function f(x) {\n  return x;\n}\n",
            ),
            (
                "function f(x) { return <div/> }\n",
                "function f(x) {\n  return (\n    <div />\n  );\n}\n",
            ),
        ],
    );
}

#[test]
fn javascript_formatter_changes_are_the_same_program() {
    equal(
        "a.ts",
        &[
            (
                "const a = {'b': 'c', d: [1,2,],}\nlet f = x => x\nnew Foo\n",
                "const a = { b: \"c\", d: [1, 2] };\nlet f = (x) => x;\nnew Foo();\n",
            ),
            ("let x = 0.50 + .5 + 0XFF\n", "let x = 0.5 + 0.5 + 0xff;\n"),
            (
                "interface I { a: string, b: number }\ntype U = | A | B\n",
                "interface I {\n  a: string;\n  b: number;\n}\ntype U = A | B;\n",
            ),
            ("a = (b + c) * d\nx = (y)\n", "a = (b + c) * d;\nx = y;\n"),
        ],
    );
    differ(
        "a.js",
        &[
            ("x = (a?.b).c\n", "x = a?.b.c\n"),
            ("(\"use strict\");\n", "\"use strict\";\n"),
            ("x = [,]\n", "x = []\n"),
            ("x = 'a b'\n", "x = 'a  b'\n"),
            ("x = `a ${b} c`\n", "x = `a ${b}  c`\n"),
            ("x = 010\n", "x = 10\n"),
            ("a = b;\n(c)\n", "a = b\n(c)\n"),
            ("a = b;\n`c`\n", "a = b\n`c`\n"),
        ],
    );
}

#[test]
fn jsx_text_is_compared_as_it_compiles() {
    differ(
        "a.jsx",
        &[
            ("x = <a> </a>\n", "x = <a></a>\n"),
            ("x = <a>b c</a>\n", "x = <a>b  c</a>\n"),
            ("x = <a>// b</a>\n", "x = <a>// c</a>\n"),
        ],
    );
    equal(
        "a.jsx",
        &[(
            "x = <a>\n    b\n    c\n  </a>\n",
            "x = (\n  <a>\n    b c\n  </a>\n);\n",
        )],
    );
}

#[test]
fn jsx_fragments_and_attributes_keep_their_text() {
    differ(
        "a.tsx",
        &[
            ("x = <>a b</>\n", "x = <>a  b</>\n"),
            ("x = <> </>\n", "x = <></>\n"),
            ("x = <a b='c d' />\n", "x = <a b='c  d' />\n"),
        ],
    );
    equal("a.tsx", &[("x = <a b='c' />\n", "x = <a b=\"c\" />;\n")]);
}

#[test]
fn a_symbols_hash_keeps_what_the_files_keeps() {
    let hash = |src: &str| outline("a.ts", src.as_bytes()).symbols[0].hash;
    assert_ne!(
        hash("export function f(x) {\n  return (x)\n}\n"),
        hash("export function f(x) {\n  return\n  (x)\n}\n")
    );
    assert_eq!(
        hash("export function f(x) {\n  return (x)\n}\n"),
        hash("export function f(x) {\n  return x;\n}\n")
    );
    let go = |src: &str| outline("a.go", src.as_bytes()).symbols[0].hash;
    assert_ne!(
        go("package a\n\nfunc f() int {\n\treturn g(1)\n}\n"),
        go("package a\n\nfunc f() int {\n\treturn g(1\n\t)\n}\n")
    );
}

#[test]
fn comments_that_are_code_count() {
    differ(
        "a.js",
        &[
            ("x = /*#__PURE__*/ f()\n", "x = f()\n"),
            (
                "/** @jsx h */\nx = <a/>\n",
                "/** @jsx React.h */\nx = <a/>\n",
            ),
            ("// @ts-ignore\nx = 1\n", "x = 1\n"),
        ],
    );
    differ(
        "a.go",
        &[
            (
                "//go:build linux\n\npackage a\n",
                "//go:build darwin\n\npackage a\n",
            ),
            (
                "package a\n\n//go:embed a.txt\nvar s string\n",
                "package a\n\n//go:embed b.txt\nvar s string\n",
            ),
            (
                "package a\n\n// #include <a.h>\nimport \"C\"\n",
                "package a\n\n// #include <b.h>\nimport \"C\"\n",
            ),
        ],
    );
    equal(
        "a.go",
        &[(
            "package a\n\n// plain\nfunc f() {}\n",
            "package a\n\n// other\nfunc f() {}\n",
        )],
    );
    differ(
        "a.py",
        &[
            ("# coding: latin-1\nx = 1\n", "# coding: utf-8\nx = 1\n"),
            ("x = []  # type: List[int]\n", "x = []  # type: List[str]\n"),
            ("#!/usr/bin/python2\nx = 1\n", "#!/usr/bin/python3\nx = 1\n"),
        ],
    );
    equal("a.py", &[("x = 1  # note\n", "x = 1  # other note\n")]);
    differ(
        "a.rs",
        &[
            (
                "/// ```\n/// assert!(true);\n/// ```\nfn a() {}\n",
                "/// ```\n/// assert!(false);\n/// ```\nfn a() {}\n",
            ),
            ("//! a\nfn a() {}\n", "//! b\nfn a() {}\n"),
            (
                "#!/usr/bin/env a\nfn a() {}\n",
                "#!/usr/bin/env b\nfn a() {}\n",
            ),
        ],
    );
    equal("a.rs", &[("// a\nfn a() {}\n", "// b\nfn a() {}\n")]);
    // A doc comment is part of its symbol's hash, a plain comment not.
    let doc =
        |d: &str| outline("a.rs", format!("/// {d}\nfn a() {{}}\n").as_bytes()).symbols[0].hash;
    assert_ne!(doc("x"), doc("y"));
    let plain =
        |d: &str| outline("a.rs", format!("// {d}\nfn a() {{}}\n").as_bytes()).symbols[0].hash;
    assert_eq!(plain("x"), plain("y"));
}

#[test]
fn go_newlines_end_statements() {
    differ(
        "a.go",
        &[(
            "package a\n\nfunc f() int {\n\tx := g(a,\n\t\tb)\n\treturn x\n}\n",
            "package a\n\nfunc f() int {\n\tx := g(a,\n\t\tb\n\t)\n\treturn x\n}\n",
        )],
    );
    equal(
        "a.go",
        &[(
            "package a\n\nfunc g() {\n\tfor i := 0; i < 3; i++ { println(i); }\n}\n",
            "package a\n\nfunc g() {\n\tfor i := 0; i < 3; i++ {\n\t\tprintln(i)\n\t}\n}\n",
        )],
    );
    differ(
        "a.go",
        &[(
            "package a\n\nfunc g() {\n\tfor i := 0; i < 3; i++ { println(i) }\n}\n",
            "package a\n\nfunc g() {\n\tfor i := 0; i < 3; i++ { println(i\n) }\n}\n",
        )],
    );
    equal(
        "a.go",
        &[(
            "package a\nimport (\n\"b\"\n\"a\"\n)\nfunc f() int {\nreturn 0X1F\n}\n",
            "package a\n\nimport (\n\t\"a\"\n\t\"b\"\n)\n\nfunc f() int {\n\treturn 0x1f\n}\n",
        )],
    );
}

#[test]
fn python_lines_and_indentation_are_code() {
    differ(
        "a.py",
        &[
            ("if a:\n    b()\n    c()\n", "if a:\n    b()\n\tc()\n"),
            ("if a:\n\tb()\n", "if a:\n        b()\n"),
            ("x = a \\\n  + b\n", "x = a\n+ b\n"),
            ("print(a)\n", "print\n(a)\n"),
            ("d[a,]\n", "d[a]\n"),
            ("x = (a,)\n", "x = (a)\n"),
            ("(a,) = b\n", "(a) = b\n"),
            ("x = 'a b'\n", "x = 'a  b'\n"),
        ],
    );
    equal(
        "a.py",
        &[
            (
                "if a:\n    b('x', 0XAB, u'y',)\n    c(); d()\n",
                "if a:\n    b(\"x\", 0xAB, \"y\")\n    c()\n    d()\n",
            ),
            ("x = aaa + bbb\n", "x = (\n    aaa\n    + bbb\n)\n"),
            (
                "from a import b, c\n",
                "from a import (\n    b,\n    c,\n)\n",
            ),
            (
                "def f(a, b,):\n    return (a)\n",
                "def f(a, b):\n    return a\n",
            ),
        ],
    );
}

/// The red team's changes of the program that an earlier version of
/// these rules called formatting-only: each is shown now.
#[test]
fn the_red_teams_program_changes_are_shown() {
    differ(
        "a.js",
        &[
            (
                "class A { static;\n x = 1 }\n",
                "class A { static\n x = 1 }\n",
            ),
            (
                "class A { get;\n x() { return 1 } }\n",
                "class A { get\n x() { return 1 } }\n",
            ),
            ("let;\nx = 1\n", "let\nx = 1\n"),
            (
                "export default function () { return 1 }\n",
                "export default (function () { return 1 });\n",
            ),
            ("var x = a <!--b\n", "var x = a < !--b\n"),
            ("x = (-a) ** 2\n", "x = -a ** 2\n"),
            ("x = (a && b) ?? c\n", "x = a && b ?? c\n"),
            ("(function(){})()\n", "function(){}()\n"),
            ("x = a || (() => b)\n", "x = a || () => b\n"),
            ("/* turbopackIgnore: true */ x()\n", "x()\n"),
            ("/*@__KEY__*/ x()\n", "x()\n"),
        ],
    );
    differ("a.ts", &[("x = (a?.b!).c\n", "x = a?.b!.c\n")]);
    differ("a.tsx", &[("x = <a>x\ty</a>\n", "x = <a>x y</a>\n")]);
    differ(
        "a.py",
        &[
            ("x: F[a,] = 0\n", "x: F[a] = 0\n"),
            ("f(x for x in y)\n", "f(x for x in y,)\n"),
            ("if a:\n    b()\nc()\n", "if a:\n    b()\n  c()\n"),
        ],
    );
    differ(
        "a.go",
        &[
            (
                "// +build ignore\n\npackage a\n",
                "// +build ignore\npackage a\n",
            ),
            (
                "package a\n\n// #include <stdio.h>\nimport \"C\"\n",
                "package a\n\n// #include <stdio.h>\n\nimport \"C\"\n",
            ),
            (
                "package a\n\nfunc f() {\n//line foo.go:100\n}\n",
                "package a\n\nfunc f() {\n\t//line foo.go:100\n}\n",
            ),
            (
                "package a\n\nimport (\n\t// #include <stdio.h>\n\t\"C\"\n\t\"fmt\"\n)\n",
                "package a\n\nimport (\n\t\"C\"\n\t// #include <stdio.h>\n\t\"fmt\"\n)\n",
            ),
        ],
    );
    differ(
        "a.rs",
        &[
            (
                "fn f() { stringify!(a+b); }\n",
                "fn f() { stringify!(a + b); }\n",
            ),
            (
                "/**\nText\n\n    assert!(false);\n*/\npub fn f() {}\n",
                "/**\nText\n\nassert!(false);\n*/\npub fn f() {}\n",
            ),
        ],
    );
}

#[test]
fn rust_trailing_commas_fold_but_not_in_tuples() {
    equal(
        "a.rs",
        &[("fn a(x: u8,) { f(x,); }\n", "fn a(x: u8) {\n    f(x);\n}\n")],
    );
    differ(
        "a.rs",
        &[
            ("type T = (u8,);\n", "type T = (u8);\n"),
            ("fn a() { let x = (1,); }\n", "fn a() { let x = (1); }\n"),
            ("fn a() { m!(1,); }\n", "fn a() { m!(1); }\n"),
        ],
    );
}

#[test]
fn a_file_with_errors_or_missing_nodes_has_no_program_hash() {
    for (path, src) in [
        ("a.js", "function f() { return 1 "),
        ("a.go", "package a\nfunc f() {\n"),
        ("a.py", "def f(:\n"),
        ("a.rs", "fn a() { let x = ; }"),
    ] {
        assert!(!semantic_hash(path, src.as_bytes()).tokens, "{path}");
    }
}

/// Whether `a` and `b`, as contents of `path`, hash differently (a side
/// that does not parse hashes by its bytes: shown too).
fn shown(path: &str, a: &str, b: &str) -> bool {
    semantic_hash(path, a.as_bytes()) != semantic_hash(path, b.as_bytes())
}

#[test]
fn typescript_words_that_need_the_next_token_on_their_line_keep_the_newline() {
    // Each: the word with its next token on the same line, then a line
    // break after it; tsc reads the second otherwise or refuses it.
    let pairs = [
        (
            "function f(x: unknown): asserts x is string {}\n",
            "function f(x: unknown): asserts\nx is string {}\n",
        ),
        (
            "function f(x: unknown): x is string { return true }\n",
            "function f(x: unknown): x\nis string { return true }\n",
        ),
        (
            "interface Sink<in T> { put(x: T): void }\n",
            "interface Sink<in\nT> { put(x: T): void }\n",
        ),
        (
            "interface Src<out T> { get(): T }\n",
            "interface Src<out\nT> { get(): T }\n",
        ),
        ("abstract class A {}\n", "abstract\nclass A {}\n"),
        ("declare const x: number;\n", "declare\nconst x: number;\n"),
        (
            "class A { readonly x = 1 }\n",
            "class A { readonly\nx = 1 }\n",
        ),
        ("const f = async () => 1;\n", "const f = async\n() => 1;\n"),
        (
            "class A { get x() { return 1 } }\n",
            "class A { get\nx() { return 1 } }\n",
        ),
        ("class A { static x = 1 }\n", "class A { static\nx = 1 }\n"),
        (
            "class A { accessor x = 1 }\n",
            "class A { accessor\nx = 1 }\n",
        ),
        (
            "class A { private x = 1 }\n",
            "class A { private\nx = 1 }\n",
        ),
        (
            "class A { protected x = 1 }\n",
            "class A { protected\nx = 1 }\n",
        ),
        ("class A { public x = 1 }\n", "class A { public\nx = 1 }\n"),
        (
            "class B extends A { override x = 1 }\n",
            "class B extends A { override\nx = 1 }\n",
        ),
        ("type T = number;\n", "type\nT = number;\n"),
        ("namespace N {}\n", "namespace\nN {}\n"),
        ("declare module M {}\n", "declare module\nM {}\n"),
        ("let\nx = 1;\n", "let;\nx = 1;\n"),
        (
            "function f(x) { return x }\n",
            "function f(x) { return\nx }\n",
        ),
        (
            "function f(x) { throw x }\n",
            "function f(x) { throw\nx }\n",
        ),
        (
            "function* f(x) { yield x }\n",
            "function* f(x) { yield\nx }\n",
        ),
        (
            "a: for (;;) { continue a }\n",
            "a: for (;;) { continue\na }\n",
        ),
        ("let a = b\n--c\n", "let a = b--\nc\n"),
    ];
    for (a, b) in pairs {
        assert!(
            shown("a.ts", a, b),
            "called the same program:\n{a}\n---\n{b}"
        );
    }
}

#[test]
fn go_and_python_newlines_that_end_statements_are_kept() {
    let go = |body: &str| format!("package a\n\nfunc f(x []int, y int) int {{\n{body}\n}}\n");
    for (a, b) in [
        ("\treturn y", "\treturn\n\ty"),
        ("\tg(y)\n\treturn 0", "\tg(y\n\t)\n\treturn 0"),
        ("\treturn x[0]", "\treturn x[0\n\t]"),
        ("\tg(\"s\")\n\treturn 0", "\tg(\"s\"\n\t)\n\treturn 0"),
        ("\ty++\n\treturn y", "\ty++\n\treturn\n\ty"),
        (
            "\treturn func() int { return y }()",
            "\treturn func() int { return y }\n\t()",
        ),
        (
            "\tL: for {\n\t\tbreak L\n\t}\n\treturn 0",
            "\tL: for {\n\t\tbreak\n\t\tL\n\t}\n\treturn 0",
        ),
        ("\treturn g(y)", "\treturn g(y)\n\t;"),
    ] {
        assert!(
            shown("a.go", &go(a), &go(b)),
            "called the same:\n{a}\n---\n{b}"
        );
    }
    // Python: a line break outside brackets ends a logical line; inside
    // brackets it does not (a `\` continuation is kept as written: shown).
    differ(
        "a.py",
        &[
            (
                "def f(x):\n    return x\n",
                "def f(x):\n    return\n    x\n",
            ),
            ("x = a + b\n", "x = a\n+ b\n"),
        ],
    );
    equal(
        "a.py",
        &[
            ("x = (a +\n     b)\n", "x = (a + b)\n"),
            (
                "def f(x):\n    return (\n        x\n    )\n",
                "def f(x):\n    return x\n",
            ),
        ],
    );
}

#[test]
fn deprecation_notices_and_docstrings_are_code() {
    let go =
        |doc: &str| format!("package a\n\n// F does it.\n{doc}func F() int {{\n\treturn 1\n}}\n");
    differ(
        "a.go",
        &[
            (&go(""), &go("//\n// Deprecated: use G.\n")),
            (&go(""), &go("/*\n   Deprecated: use G.\n*/\n")),
        ],
    );
    // Plain prose of a Go doc comment stays a comment.
    equal("a.go", &[(&go(""), &go("// It returns one.\n"))]);
    differ(
        "a.ts",
        &[(
            "/** Adds. */\nexport function f() { return 1 }\n",
            "/** Adds.\n * @deprecated use g */\nexport function f() { return 1 }\n",
        )],
    );
    differ(
        "a.py",
        &[(
            "def f():\n    \"\"\"Adds.\"\"\"\n    return 1\n",
            "def f():\n    \"\"\"Adds.\n\n    .. deprecated:: use g\n    \"\"\"\n    return 1\n",
        )],
    );
}
