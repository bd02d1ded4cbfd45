//! "Formatting only" means the same program (issue 37, points 2 and 3),
//! through the binary: each change below that alters the program is shown
//! by `check` and by the tools, never called formatting-only; the changes
//! the languages' formatters make are still quiet. Then the differential
//! corpus: real files of each language (`tests/fixtures/corpus/`), their
//! formatter's output judged formatting-only, mutations that change the
//! program flagged, with the languages' own parsers as oracles when they
//! can be run here (the test says which it skipped, and why).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stdout};

/// The files `check` calls formatting-only, and whether it passed.
fn quiet_files(repo: &Repo) -> (BTreeSet<String>, bool) {
    let out = notarai(
        &repo.root,
        &["check", "--base", "main", "--format", "json"],
        b"",
    );
    let report: Value =
        serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(&out)));
    let quiet = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "formatting_only")
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    (quiet, out.status.success())
}

/// The files `list_affected_specs` calls formatting-only.
fn tool_quiet_files(repo: &Repo) -> BTreeSet<String> {
    let mut server = repo.server();
    let answer = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    answer["formatting_only"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect()
}

/// A repository whose spec governs `src/**`, with `files` committed on
/// `main` and a branch `feat` checked out.
fn repo_with(files: &[(String, String)]) -> Repo {
    let repo = Repo::new();
    repo.spec("all", &["src/**"]);
    for (path, content) in files {
        repo.write(path, content);
    }
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

/// One change: a file's content before and after.
struct Change {
    path: String,
    old: String,
    new: String,
}

fn change(path: &str, old: &str, new: &str) -> Change {
    Change {
        path: format!("src/{path}"),
        old: old.into(),
        new: new.into(),
    }
}

/// Commit every change's old side, write its new side, and return what
/// `check` and `list_affected_specs` call formatting-only (they agree).
fn judge(changes: &[Change]) -> (BTreeSet<String>, bool) {
    let olds: Vec<(String, String)> = changes
        .iter()
        .map(|c| (c.path.clone(), c.old.clone()))
        .collect();
    let repo = repo_with(&olds);
    for c in changes {
        repo.write(&c.path, &c.new);
    }
    let (quiet, passed) = quiet_files(&repo);
    assert_eq!(quiet, tool_quiet_files(&repo), "check and the tool agree");
    (quiet, passed)
}

/// Every change that alters the program, one file each (the classes of
/// issue 37 and a few more).
fn program_changes() -> Vec<Change> {
    vec![
        // JavaScript/TypeScript: automatic semicolon insertion.
        change(
            "asi_return.js",
            "export function f(x) {\n  return (x)\n}\n",
            "export function f(x) {\n  return\n  (x)\n}\n",
        ),
        change(
            "asi_return_array.ts",
            "export function f(x: number) {\n  return [x]\n}\n",
            "export function f(x: number) {\n  return\n  [x]\n}\n",
        ),
        change(
            "asi_return_template.js",
            "export function f(x) {\n  return `a${x}`\n}\n",
            "export function f(x) {\n  return\n  `a${x}`\n}\n",
        ),
        change(
            "asi_return_minus.js",
            "export function f() {\n  return -1\n}\n",
            "export function f() {\n  return\n  -1\n}\n",
        ),
        change(
            "asi_yield.js",
            "export function* f(x) {\n  yield (x)\n}\n",
            "export function* f(x) {\n  yield\n  (x)\n}\n",
        ),
        change(
            "asi_break.js",
            "a: for (;;) {\n  for (;;) { break a }\n}\n",
            "a: for (;;) {\n  for (;;) { break\n a }\n}\n",
        ),
        change("asi_postfix.js", "let a = b++\nc\n", "let a = b\n++c\n"),
        change(
            "asi_async.js",
            "export const f = async function () {}\n",
            "export const f = async\nfunction () {}\n",
        ),
        change(
            "asi_semicolon.js",
            "let a = b;\n(c || d).run()\n",
            "let a = b\n(c || d).run()\n",
        ),
        change(
            "optional_chain.js",
            "export const v = (a?.b).c\n",
            "export const v = a?.b.c\n",
        ),
        change(
            "directive.js",
            "\"use strict\";\nexport const v = 1\n",
            "(\"use strict\");\nexport const v = 1\n",
        ),
        change(
            "jsx_space.jsx",
            "export const A = () => <a>x y</a>\n",
            "export const A = () => <a>x  y</a>\n",
        ),
        change(
            "jsx_edge.tsx",
            "export const A = () => <a> </a>\n",
            "export const A = () => <a></a>\n",
        ),
        change(
            "pure.js",
            "export const v = /*#__PURE__*/ make()\n",
            "export const v = make()\n",
        ),
        change(
            "pragma.jsx",
            "/** @jsx h */\nexport const A = <a />\n",
            "/** @jsx React.createElement */\nexport const A = <a />\n",
        ),
        change(
            "shebang.js",
            "#!/usr/bin/env node\nconsole.log(1)\n",
            "#!/usr/bin/env bun\nconsole.log(1)\n",
        ),
        // Go: comments that are code, the semicolon rule.
        change(
            "build.go",
            "//go:build linux\n\npackage a\n",
            "//go:build windows\n\npackage a\n",
        ),
        change(
            "old_build.go",
            "// +build linux\n\npackage a\n",
            "// +build windows\n\npackage a\n",
        ),
        change(
            "embed.go",
            "package a\n\nimport _ \"embed\"\n\n//go:embed a.txt\nvar s string\n",
            "package a\n\nimport _ \"embed\"\n\n//go:embed secrets.txt\nvar s string\n",
        ),
        change(
            "generate.go",
            "package a\n\n//go:generate stringer -type=A\ntype A int\n",
            "package a\n\n//go:generate rm -rf /\ntype A int\n",
        ),
        change(
            "cgo.go",
            "package a\n\n// #define LIMIT 1\nimport \"C\"\n",
            "package a\n\n// #define LIMIT 9\nimport \"C\"\n",
        ),
        change(
            "semicolon.go",
            "package a\n\nfunc f(a, b int) int {\n\treturn g(a,\n\t\tb)\n}\n",
            "package a\n\nfunc f(a, b int) int {\n\treturn g(a,\n\t\tb\n\t)\n}\n",
        ),
        // Python: the coding line, type comments, indentation, lines.
        change(
            "coding.py",
            "# -*- coding: latin-1 -*-\nS = 'x'\n",
            "# -*- coding: utf-8 -*-\nS = 'x'\n",
        ),
        change(
            "type_comment.py",
            "def f(a):\n    # type: (int) -> int\n    return a\n",
            "def f(a):\n    # type: (str) -> str\n    return a\n",
        ),
        change(
            "tabs.py",
            "if a:\n        b()\n        c()\n",
            "if a:\n        b()\n\tc()\n",
        ),
        change("split.py", "x = a \\\n    - b\n", "x = a\n-b\n"),
        change("tuple_index.py", "v = d[a,]\n", "v = d[a]\n"),
        change("string_space.py", "S = 'a b'\n", "S = 'a  b'\n"),
        change(
            "shebang.py",
            "#!/usr/bin/env python2\nprint(1)\n",
            "#!/usr/bin/env python3\nprint(1)\n",
        ),
        // Rust: doc comments run as doctests; tuples.
        change(
            "doc.rs",
            "/// ```\n/// assert_eq!(a::f(), 1);\n/// ```\npub fn f() -> u8 {\n    1\n}\n",
            "/// ```\n/// assert_eq!(a::f(), 2);\n/// ```\npub fn f() -> u8 {\n    1\n}\n",
        ),
        change(
            "inner_doc.rs",
            "//! ```\n//! a::f();\n//! ```\npub fn f() {}\n",
            "//! ```\n//! a::g();\n//! ```\npub fn f() {}\n",
        ),
        change("tuple.rs", "type T = (u8,);\n", "type T = (u8);\n"),
        // A file with a syntax error on one side.
        change(
            "broken.ts",
            "export function f() {\n  return 1\n}\n",
            "export function f() {\n  return 1\n",
        ),
    ]
}

/// Changes the formatters make: the same program.
fn formatter_changes() -> Vec<Change> {
    vec![
        change(
            "prettier.ts",
            "const a = {'b': 'c', d: [1,2,],}\nlet f = x => x\nnew Foo\nfunction g(x) { return <T>(x) }\n",
            "const a = { b: \"c\", d: [1, 2] };\nlet f = (x) => x;\nnew Foo();\nfunction g(x) {\n  return <T>x;\n}\n",
        ),
        change(
            "prettier_jsx.jsx",
            "export const A = () => <div className='a'>\n    hello\n    world\n  </div>\n",
            "export const A = () => (\n  <div className=\"a\">\n    hello world\n  </div>\n);\n",
        ),
        change(
            "black.py",
            // Four spaces on both sides: a re-indentation is shown (the
            // indentation of every logical line is compared as written).
            "if a:\n    b('x', 0XAB, u'y',)\n    c(); d()\nx = aaa + bbb\n",
            "if a:\n    b(\"x\", 0xAB, \"y\")\n    c()\n    d()\nx = (\n    aaa\n    + bbb\n)\n",
        ),
        change(
            "gofmt.go",
            "package a\nimport (\n\"b\"\n\"a\"\n)\nfunc f() int {\nreturn 0X1F // n\n}\n",
            "package a\n\nimport (\n\t\"a\"\n\t\"b\"\n)\n\nfunc f() int {\n\treturn 0x1f // n\n}\n",
        ),
        change(
            "rustfmt.rs",
            "fn a(x: u8,) -> u8 { f(x,) }\n// note\n",
            "fn a(x: u8) -> u8 {\n    f(x)\n}\n// other note\n",
        ),
    ]
}

#[test]
fn a_change_that_alters_the_program_is_never_formatting_only() {
    let mut all = program_changes();
    all.extend(formatter_changes());
    let (quiet, passed) = judge(&all);
    let wrong: Vec<String> = program_changes()
        .into_iter()
        .map(|c| c.path)
        .filter(|p| quiet.contains(p))
        .collect();
    assert!(
        wrong.is_empty(),
        "called formatting-only: {wrong:?}\n(all quiet: {quiet:?})"
    );
    assert!(!passed, "the changes are shown: check fails");
    let formatted: BTreeSet<String> = formatter_changes().into_iter().map(|c| c.path).collect();
    assert_eq!(
        quiet, formatted,
        "what the formatters change is still formatting-only"
    );
}

#[test]
fn a_doc_comment_edit_touches_the_anchored_symbol() {
    let repo = Repo::new();
    let text = "/// ```\n/// assert_eq!(a::f(), 1);\n/// ```\npub fn f() -> u8 {\n    1\n}\n\n// plain\npub fn g() {}\n";
    repo.write("src/a.rs", text);
    repo.write(
        ".notarai/f.spec.yaml",
        "schema_version: '0.8'\nintent: F.\nbehaviors:\n  - name: works\n    given: input\n    then: output\nartifacts:\n  code:\n    - path: 'src/a.rs#f'\n",
    );
    repo.write(
        ".notarai/g.spec.yaml",
        "schema_version: '0.8'\nintent: G.\nbehaviors:\n  - name: works\n    given: input\n    then: output\nartifacts:\n  code:\n    - path: 'src/a.rs#g'\n",
    );
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write(
        "src/a.rs",
        text.replace("a::f(), 1", "a::f(), 2")
            .replace("// plain", "// plain, edited"),
    );
    let mut server = repo.server();
    let answer = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    let affected: Vec<&str> = answer["affected_specs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["spec_path"].as_str().unwrap())
        .collect();
    assert_eq!(affected, vec![".notarai/f.spec.yaml"], "{answer}");
}

// ---------------------------------------------------------------------
// The differential corpus.

/// `tests/fixtures/corpus/`.
fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus")
}

/// One corpus file: its path below the corpus, its text, and the committed
/// formatter outputs (`<name>.formatted/<tool>.<ext>`).
struct Entry {
    rel: String,
    text: String,
    formatted: Vec<(String, String)>,
}

/// Every corpus file, by language folder, in name order.
fn corpus() -> Vec<Entry> {
    let mut out = Vec::new();
    for lang in ["rust", "typescript", "javascript", "python", "go"] {
        let dir = corpus_dir().join(lang);
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<String> = read
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| !n.ends_with(".formatted") && !n.ends_with(".md"))
            .collect();
        names.sort();
        for name in names {
            let text = std::fs::read_to_string(dir.join(&name)).unwrap();
            let fdir = dir.join(format!("{name}.formatted"));
            let mut formatted = Vec::new();
            if let Ok(read) = std::fs::read_dir(&fdir) {
                let mut fs: Vec<String> = read
                    .map(|e| e.unwrap().file_name().into_string().unwrap())
                    .collect();
                fs.sort();
                for f in fs {
                    formatted.push((f.clone(), std::fs::read_to_string(fdir.join(&f)).unwrap()));
                }
            }
            out.push(Entry {
                rel: format!("{lang}/{name}"),
                text,
                formatted,
            });
        }
    }
    out
}

/// The extension of a corpus path.
fn ext(rel: &str) -> &str {
    rel.rsplit_once('.').map_or("", |(_, e)| e)
}

/// Mutations of `text` that change the program, each named: every
/// applicable one of the issue's classes and a few more, found by text.
fn mutations(rel: &str, text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(at) = space_in_string(text) {
        let mut t = text.to_string();
        t.insert(at, ' ');
        out.push(("string-space".to_string(), t));
    }
    // The first occurrence outside comments (and, for a template, at an
    // opening backtick): without the language's parser to tell (a fresh
    // clone), a mutation must not land where it changes nothing
    // (`// return the value`, a JSDoc's `code`, after a closing backtick).
    let comments = comment_mask(rel, text);
    let mut first = |name: &str, from: &str, to: &str| {
        let at = text.match_indices(from).map(|(at, _)| at).find(|&at| {
            !comments[at]
                && (!from.starts_with('`')
                    || text[..at]
                        .char_indices()
                        .filter(|&(i, c)| c == '`' && !comments[i])
                        .count()
                        % 2
                        == 0)
        });
        if let Some(at) = at {
            let mut t = text.to_string();
            t.replace_range(at..at + from.len(), to);
            out.push((name.to_string(), t));
        }
    };
    match ext(rel) {
        "js" | "ts" | "tsx" | "jsx" | "mjs" => {
            first("return-newline", "return ", "return\n");
            first("yield-newline", "yield ", "yield\n");
            first("throw-newline", "throw new ", "throw /*\n*/ new ");
            first("template-space", "` ", "`  ");
            first("pure", "= ", "= /*#__PURE__*/ ");
            first("comparison", " === ", " !== ");
            first("number", " 0", " 1");
            first("arrow-newline", ") =>", ")\n=>");
            first("jsx-text", "> ", ">  x ");
        }
        "py" => {
            first("coding", "\n", "\n# -*- coding: latin-1 -*-\n");
            first("tab-indent", ":\n    ", ":\n\t");
            first("split-line", " = ", " =\n");
            first("type-comment", "):\n", "):  # type: () -> None\n");
            first("comparison", " == ", " != ");
            first("return-none", "return ", "return\n");
        }
        "go" => {
            first("directive", "package ", "//go:build ignore\n\npackage ");
            first("generate", "\nfunc ", "\n//go:generate echo x\nfunc ");
            first("closing-line", "x)\n", "x\n)\n");
            first("comparison", " == ", " != ");
            first("return-split", "return ", "return\n");
        }
        "rs" => {
            first("doc-comment", "/// ", "/// x ");
            first("comparison", " == ", " != ");
            first("tuple", "(", "((");
            first("inner-doc", "\n", "\n//! x\n");
        }
        _ => {}
    }
    out
}

/// For each byte of `text`, whether it is inside a comment (`//` and
/// `/* */` in the C-like languages, `#` in Python), strings not told
/// apart: a rough mask, enough to keep the text mutations out of comments.
fn comment_mask(rel: &str, text: &str) -> Vec<bool> {
    let bytes = text.as_bytes();
    let mut mask = vec![false; bytes.len() + 1];
    let python = ext(rel) == "py";
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        let end = if python && rest[0] == b'#' || !python && rest.starts_with(b"//") {
            text[i..].find('\n').map_or(bytes.len(), |n| i + n)
        } else if !python && rest.starts_with(b"/*") {
            text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |n| i + 2 + n + 2)
        } else {
            i += 1;
            continue;
        };
        for m in &mut mask[i..end] {
            *m = true;
        }
        i = end;
    }
    mask
}

/// Where a space sits inside a one-line string literal of `text`, between
/// two letters (a space added there changes the string's value).
fn space_in_string(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let code = !(t.starts_with("//") || t.starts_with('#') || t.starts_with('*'));
        let mut quote: Option<u8> = None;
        let b = line.as_bytes();
        for i in 0..b.len() {
            match (quote, b[i]) {
                (None, q @ (b'"' | b'\'')) if code => quote = Some(q),
                (Some(_), b'\\') => break,
                (Some(q), c) if c == q => quote = None,
                (Some(_), b' ')
                    if i > 0
                        && i + 1 < b.len()
                        && b[i - 1].is_ascii_alphabetic()
                        && b[i + 1].is_ascii_alphabetic() =>
                {
                    return Some(offset + i);
                }
                _ => {}
            }
        }
        offset += line.len();
    }
    None
}

/// What a corpus file's mutation was named, from its path in the repository.
fn mutation_path(rel: &str, name: &str) -> String {
    let (stem, e) = rel.rsplit_once('.').unwrap();
    format!("src/{stem}.mut-{name}.{e}")
}

/// Run `program args...`, its stdout when it succeeded.
fn tool(program: &Path, args: &[&str], cwd: &Path) -> Result<String, String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} {args:?}: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The language's own parser's view of `text` (`None`, with the reason
/// printed once, when it cannot be run here): equal views are the same
/// program.
struct Oracles {
    python: Option<PathBuf>,
    node: Option<(PathBuf, PathBuf)>,
    go: Option<PathBuf>,
    rustc: Option<PathBuf>,
    work: tempfile::TempDir,
}

impl Oracles {
    fn find() -> Oracles {
        let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tools");
        let python = ["python3"]
            .iter()
            .map(PathBuf::from)
            .find(|p| tool(p, &["-c", "import ast"], Path::new(".")).is_ok());
        let ts = tools.join("node_modules/typescript");
        let node = (ts.exists() && tool(Path::new("node"), &["-e", "1"], Path::new(".")).is_ok())
            .then(|| (PathBuf::from("node"), ts));
        let go = tool(Path::new("go"), &["version"], Path::new("."))
            .is_ok()
            .then(|| PathBuf::from("go"));
        let rustc = tool(Path::new("rustc"), &["--version"], Path::new("."))
            .is_ok()
            .then(|| PathBuf::from("rustc"));
        for (name, found) in [
            ("python3 (ast)", python.is_some()),
            ("node + typescript (target/test-tools)", node.is_some()),
            ("go (go/parser)", go.is_some()),
            ("rustc (-Zunpretty=normal)", rustc.is_some()),
        ] {
            if !found {
                eprintln!("corpus oracle skipped: {name} is not available here");
            }
        }
        Oracles {
            python,
            node,
            go,
            rustc,
            work: tempfile::tempdir().unwrap(),
        }
    }

    /// The parser's view of every text, by language, in one run per
    /// language; `None` for a language whose oracle is missing.
    fn views(&self, lang_ext: &str, texts: &[String]) -> Option<Vec<Option<String>>> {
        let dir = self
            .work
            .path()
            .join(format!("o-{lang_ext}-{}", texts.len()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut files = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            let f = dir.join(format!("f{i}.{lang_ext}"));
            std::fs::write(&f, t).unwrap();
            files.push(f.display().to_string());
        }
        let script_dir = corpus_dir().join("oracles");
        let out = match lang_ext {
            "py" => {
                let py = self.python.as_ref()?;
                let script = script_dir.join("python_ast.py").display().to_string();
                let mut args = vec![script.as_str()];
                args.extend(files.iter().map(String::as_str));
                tool(py, &args, &dir)
            }
            "js" | "ts" | "tsx" | "jsx" => {
                let (node, ts) = self.node.as_ref()?;
                let script = script_dir.join("ts_ast.js").display().to_string();
                let ts = ts.display().to_string();
                let mut args = vec![script.as_str(), ts.as_str()];
                args.extend(files.iter().map(String::as_str));
                tool(node, &args, &dir)
            }
            "go" => {
                let go = self.go.as_ref()?;
                let build = dir.join("oracle");
                std::fs::create_dir_all(&build).unwrap();
                std::fs::copy(script_dir.join("go_ast.go"), build.join("main.go")).unwrap();
                let built = Command::new(go)
                    .args(["build", "-o", "go_ast", "main.go"])
                    .current_dir(&build)
                    .env("GO111MODULE", "off")
                    .output();
                match built {
                    Ok(o) if o.status.success() => {
                        let args: Vec<&str> = files.iter().map(String::as_str).collect();
                        tool(&build.join("go_ast"), &args, &dir)
                    }
                    Ok(o) => Err(String::from_utf8_lossy(&o.stderr).into_owned()),
                    Err(e) => Err(e.to_string()),
                }
            }
            "rs" => {
                let rustc = self.rustc.as_ref()?;
                let mut views = Vec::new();
                for f in &files {
                    let out = Command::new(rustc)
                        .args(["-Zunpretty=normal", "--edition=2021", "--crate-type=lib", f])
                        .env("RUSTC_BOOTSTRAP", "1")
                        .current_dir(&dir)
                        .output()
                        .ok()?;
                    views.push(
                        out.status
                            .success()
                            .then(|| String::from_utf8_lossy(&out.stdout).into_owned()),
                    );
                }
                return Some(views);
            }
            _ => return None,
        };
        let out = match out {
            Ok(out) => out,
            Err(e) => {
                eprintln!("corpus oracle for .{lang_ext} failed, skipped: {e}");
                return None;
            }
        };
        // One view a line, in order, JSON strings (`null`: did not parse).
        let views: Vec<Option<String>> = out
            .lines()
            .map(|l| serde_json::from_str::<Option<String>>(l).unwrap())
            .collect();
        assert_eq!(views.len(), texts.len(), "{out}");
        Some(views)
    }
}

/// What each formatter installed here makes of the corpus files, run once
/// per tool over a copy of them all: `(corpus path, tool, output)`. A tool
/// that is missing or fails is skipped, and says so.
fn live_formatter_outputs(entries: &[Entry]) -> Vec<(String, String, String)> {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tools");
    let work = tempfile::tempdir().unwrap();
    let venv = tools.join("venv/bin");
    let runs: Vec<(&str, &[&str], PathBuf, Vec<String>)> = vec![
        (
            "prettier",
            &["js", "ts", "tsx"],
            tools.join("node_modules/.bin/prettier"),
            vec!["--write".into(), ".".into()],
        ),
        (
            "black",
            &["py"],
            venv.join("black"),
            vec!["-q".into(), ".".into()],
        ),
        (
            "ruff",
            &["py"],
            venv.join("ruff"),
            vec!["format".into(), "-q".into(), ".".into()],
        ),
        (
            "gofmt",
            &["go"],
            PathBuf::from("gofmt"),
            vec!["-w".into(), ".".into()],
        ),
        (
            "rustfmt",
            &["rs"],
            PathBuf::from("rustfmt"),
            vec!["--edition".into(), "2021".into()],
        ),
    ];
    let mut out = Vec::new();
    for (name, exts, program, mut args) in runs {
        let dir = work.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let mut files = Vec::new();
        for e in entries.iter().filter(|e| exts.contains(&ext(&e.rel))) {
            let file = e.rel.replace('/', "__");
            std::fs::write(dir.join(&file), &e.text).unwrap();
            files.push((e.rel.clone(), file));
        }
        if name == "rustfmt" {
            args.extend(files.iter().map(|(_, f)| f.clone()));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if let Err(e) = tool(&program, &args, &dir) {
            eprintln!("corpus formatter {name} skipped: {e}");
            continue;
        }
        for (rel, file) in files {
            let text = std::fs::read_to_string(dir.join(file)).unwrap();
            out.push((rel, name.to_string(), text));
        }
    }
    out
}

/// Counts of one language, for the report.
#[derive(Default, Debug)]
struct Counts {
    files: usize,
    formatted_judged: usize,
    formatted_quiet: usize,
    mutations: usize,
    mutations_flagged: usize,
    formatted_changed_program: usize,
    mutations_unchanged: usize,
    oracle_checked: usize,
}

#[test]
fn the_corpus_formatter_outputs_are_quiet_and_its_mutations_are_shown() {
    let entries = corpus();
    assert!(
        entries.len() >= 8,
        "the corpus is in tests/fixtures/corpus ({} files)",
        entries.len()
    );
    let oracles = Oracles::find();
    // Known noise: formatter outputs notarai cannot prove equal (listed in
    // tests/fixtures/corpus/NOISE.md, each with why). They must be shown,
    // never quiet by accident of this list.
    let noise: BTreeSet<String> = std::fs::read_to_string(corpus_dir().join("NOISE.md"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    // One repository: the originals on main; on the branch, each formatted
    // output and each mutation as a file of its own, the original beside.
    let mut base: Vec<(String, String)> = Vec::new();
    let mut head: Vec<(String, String, String, bool)> = Vec::new(); // path, lang, text, same?
    for e in &entries {
        let lang = e.rel.split('/').next().unwrap().to_string();
        for (tool_name, text) in &e.formatted {
            let (stem, x) = e.rel.rsplit_once('.').unwrap();
            let tool_stem = tool_name
                .rsplit_once('.')
                .map_or(tool_name.as_str(), |t| t.0);
            let path = format!("src/{stem}.fmt-{tool_stem}.{x}");
            base.push((path.clone(), e.text.clone()));
            head.push((path, lang.clone(), text.clone(), true));
        }
        for (name, text) in mutations(&e.rel, &e.text) {
            let path = mutation_path(&e.rel, &name);
            base.push((path.clone(), e.text.clone()));
            head.push((path, lang.clone(), text, false));
        }
    }
    // The formatters themselves, when they run here (the committed outputs
    // above were made by `regen.sh`; these by the versions installed now).
    for (rel, tool_name, text) in live_formatter_outputs(&entries) {
        let e = entries.iter().find(|e| e.rel == rel).unwrap();
        if text == e.text {
            continue;
        }
        let (stem, x) = rel.rsplit_once('.').unwrap();
        let path = format!("src/{stem}.live-{tool_name}.{x}");
        base.push((path.clone(), e.text.clone()));
        head.push((path, rel.split('/').next().unwrap().to_string(), text, true));
    }
    let repo = repo_with(&base);
    for (path, _, text, _) in &head {
        repo.write(path, text);
    }
    let (quiet, _) = quiet_files(&repo);
    // The oracles: a formatter output must be the same program, a mutation
    // a different one (or no program at all), by the language's parser.
    let mut by_ext: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for (i, (path, ..)) in head.iter().enumerate() {
        by_ext.entry(ext(path).to_string()).or_default().push(i);
    }
    let mut verdicts: Vec<Option<bool>> = vec![None; head.len()];
    for (x, idx) in &by_ext {
        let mut texts = Vec::new();
        for &i in idx {
            let orig = &base.iter().find(|(p, _)| *p == head[i].0).unwrap().1;
            texts.push(orig.clone());
            texts.push(head[i].2.clone());
        }
        if let Some(views) = oracles.views(x, &texts) {
            for (k, &i) in idx.iter().enumerate() {
                let (a, b) = (&views[2 * k], &views[2 * k + 1]);
                verdicts[i] = Some(a.is_some() && a == b);
            }
        }
    }
    let mut counts: std::collections::BTreeMap<String, Counts> = Default::default();
    for e in &entries {
        counts
            .entry(e.rel.split('/').next().unwrap().to_string())
            .or_default()
            .files += 1;
    }
    let mut failures = Vec::new();
    for (i, (path, lang, _, same)) in head.iter().enumerate() {
        let c = counts.entry(lang.clone()).or_default();
        let is_quiet = quiet.contains(path);
        // What the language's parser says, when it ran: a formatter output
        // it sees as another program (a formatter that changed a string)
        // must be shown like a mutation; a mutation it sees as the same
        // program landed in a comment or between tokens, except a pragma
        // comment (`__PURE__`): code to the bundler, not to the parser.
        let code_comment = path.contains(".mut-pure.");
        let changes_program = match verdicts[i] {
            Some(oracle_same) => {
                c.oracle_checked += 1;
                !oracle_same || code_comment
            }
            None => !*same,
        };
        if !*same && !changes_program {
            // The text mutation landed where the parser sees no change (a
            // comment): no test of notarai.
            c.mutations_unchanged += 1;
            continue;
        }
        if *same && !changes_program {
            c.formatted_judged += 1;
            if is_quiet {
                c.formatted_quiet += 1;
            } else if !noise.contains(path) {
                failures.push(format!(
                    "{path}: formatter output not called formatting-only"
                ));
            }
        } else {
            if *same {
                c.formatted_changed_program += 1;
                eprintln!("corpus: the parser says {path} is another program (shown)");
            }
            c.mutations += 1;
            if is_quiet {
                failures.push(format!("{path}: a changed program called formatting-only"));
            } else {
                c.mutations_flagged += 1;
            }
        }
    }
    for n in &noise {
        assert!(
            !quiet.contains(n),
            "{n} is listed as noise but is quiet: drop it from NOISE.md"
        );
    }
    eprintln!("corpus counts: {counts:#?}");
    assert!(failures.is_empty(), "{failures:#?}");
    for (lang, c) in &counts {
        assert!(c.files > 0 && c.mutations > 0, "{lang}: {c:?}");
    }
}
