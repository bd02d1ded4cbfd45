//! Partial outlines (a file with syntax errors outlined around them) and
//! the pre-pass for syntax newer than the grammars (`modern.rs`), on
//! real-shaped code.

use super::*;

fn lines_of(src: &str, a: u32, b: u32) -> Vec<Line> {
    (a..=b)
        .map(|l| {
            let text = src.lines().nth(l as usize - 1).unwrap_or("");
            (l, text.trim().is_empty())
        })
        .collect()
}

fn anchor(text: &str) -> Anchor {
    Anchor::parse(text).unwrap()
}

/// The shapes of zod's `v4/core/schemas.ts`, `checks.ts` and
/// `classic/schemas.ts` (TypeScript 4.7 variance annotations).
const ZOD_SHAPED: &str = r#"import * as core from "./core.js";

export interface $ZodTypeInternals<out O = unknown, out I = unknown> extends _$ZodTypeInternals {
  output: O;
  input: I;
}

export interface $ZodCheck<in T = never> {
  _zod: $ZodCheckInternals<T>;
}

export interface ZodType<
  out Output = unknown,
  out Input = unknown,
  out Internals extends core.$ZodTypeInternals<Output, Input> = core.$ZodTypeInternals<Output, Input>,
> extends core.$ZodType<Output, Input, Internals> {
  def: Internals["def"];
}

export class Box</* variance */ in out T> {
  set(value: T): void {}
  text(): string {
    return "<in T> and <out O> stay text";
  }
}

export type Setter<in T> = (value: T) => void;
"#;

#[test]
fn variance_annotations_are_outlined_in_place() {
    let o = outline("schemas.ts", ZOD_SHAPED.as_bytes());
    assert!(o.fallback.is_none(), "{:?}", o.fallback);
    assert!(o.damage.is_none(), "{:?}", o.damage);
    assert!(o.file_hash.tokens);
    let found: Vec<(&str, u32, u32)> = o
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s.start_line, s.end_line))
        .collect();
    for want in [
        ("$ZodTypeInternals", 3, 6),
        ("$ZodCheck", 8, 10),
        ("ZodType", 12, 18),
        ("Box", 20, 25),
        ("Box.set", 21, 21),
        ("Box.text", 22, 24),
        ("Setter", 27, 27),
    ] {
        assert!(found.contains(&want), "{want:?} in {found:?}");
    }
    // The same as the unblanked file's hash through the token path, and
    // the incremental pair.
    assert_eq!(
        semantic_hash("schemas.ts", ZOD_SHAPED.as_bytes()),
        o.file_hash
    );
    let edited = ZOD_SHAPED.replace("output: O;", "output:   O;");
    let (a, b) = semantic_hash_pair(
        "schemas.ts",
        ZOD_SHAPED.as_bytes(),
        "schemas.ts",
        edited.as_bytes(),
    );
    assert_eq!(a, o.file_hash);
    assert_eq!(b, a, "a reformat stays the same program");
}

#[test]
fn a_variance_modifier_is_part_of_the_program() {
    let o = outline("a.ts", ZOD_SHAPED.as_bytes());
    let without = ZOD_SHAPED.replace("<in T = never>", "<T = never>");
    let w = outline("a.ts", without.as_bytes());
    assert!(w.damage.is_none() && w.fallback.is_none());
    assert_ne!(
        o.file_hash, w.file_hash,
        "dropping `in` changes the program"
    );
    let hash = |o: &Outline, name: &str| o.symbols[o.named(name).next().unwrap()].hash;
    assert_ne!(hash(&o, "$ZodCheck"), hash(&w, "$ZodCheck"));
    assert_eq!(hash(&o, "ZodType"), hash(&w, "ZodType"));
    // `in` to `out` on the same parameter is a change too.
    let flipped = ZOD_SHAPED.replace("<in T = never>", "<out T = never>");
    let f = outline("a.ts", flipped.as_bytes());
    assert_ne!(hash(&o, "$ZodCheck"), hash(&f, "$ZodCheck"));
    // Text that looks like a modifier is not blanked: a string edit shows.
    let text = ZOD_SHAPED.replace("\"<in T> and", "\"<   T> and");
    let t = outline("a.ts", text.as_bytes());
    assert_ne!(hash(&o, "Box.text"), hash(&t, "Box.text"));
}

#[test]
fn words_that_are_not_modifiers_stay() {
    // `in` as an operator, names that start with `in`/`out`, a mapped type.
    let src = "type M<T> = { [K in keyof T]: T[K] };\nfunction f<input, outer>(a: input, b: outer) {\n  for (const k in a) {}\n  return k < inner, outer;\n}\n";
    let o = outline("m.ts", src.as_bytes());
    assert!(o.fallback.is_none() && o.damage.is_none(), "{o:?}");
    let names: Vec<&str> = o.symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["M", "f"]);
}

const BROKEN_TS: &str = r#"export function good(a: number): number {
  return a + 1;
}

export function broken(a: number {
  return a +;
}

export class After {
  run(): string {
    return "after";
  }
}
"#;

#[test]
fn a_file_with_errors_is_outlined_around_them() {
    let o = outline("b.ts", BROKEN_TS.as_bytes());
    assert!(o.fallback.is_none(), "{:?}", o.fallback);
    let damage = o.damage.as_ref().expect("damage");
    assert!((5..=6).contains(&damage.first_line), "{damage:?}");
    assert!(!o.file_hash.tokens, "a damaged file is hashed by its bytes");
    let good = o.named("good").next().map(|i| &o.symbols[i]).unwrap();
    assert!(!good.damaged);
    let after = o.named("After.run").next().map(|i| &o.symbols[i]).unwrap();
    assert!(!after.damaged, "{:?}", o.symbols);
    // Anchors: whole symbols anchored, the damaged or unknown ones fall
    // back to the whole file and say where it stops parsing.
    assert_eq!(whole_file_because(&[&anchor("good")], &o), None);
    assert_eq!(whole_file_because(&[&anchor("After.run")], &o), None);
    let line = format!("from line {}", damage.first_line);
    for a in ["broken", "gone", "After.*"] {
        let why = whole_file_because(&[&anchor(a)], &o).unwrap_or_default();
        assert!(why.contains(&line), "{a}: {why}");
    }
    // A hunk in `good` is good's; one in the damage is the whole file's.
    assert_eq!(
        attribute(&o, &lines_of(BROKEN_TS, 2, 2)).to_string(),
        "good"
    );
    let at = attribute(&o, &lines_of(BROKEN_TS, 6, 6));
    assert!(matches!(at, Attribution::WholeFile { .. }), "{at}");
}

#[test]
fn a_partial_outline_survives_the_facts() {
    let o = outline("b.ts", BROKEN_TS.as_bytes());
    let fact = Fact {
        key: ContentKey::of("b.ts", BROKEN_TS.as_bytes()),
        hash: o.file_hash,
        outline: Some(std::sync::Arc::new(o.clone())),
    };
    let text = fact.outline_text().unwrap();
    let back = Fact::from_kept(
        "typescript",
        blake3::hash(BROKEN_TS.as_bytes()).as_bytes(),
        &fact.hash_text(),
        Some(&text),
    )
    .unwrap();
    let back = back.outline.unwrap();
    assert_eq!(back.damage, o.damage);
    assert_eq!(back.symbols, o.symbols);
}

#[test]
fn a_rust_file_with_errors_keeps_its_whole_functions() {
    let src = "fn first() -> u32 {\n    1\n}\n\nfn second( -> u32 {\n    2 +\n}\n\nfn third() -> u32 {\n    3\n}\n";
    let o = outline("lib.rs", src.as_bytes());
    assert!(o.fallback.is_none() && o.damage.is_some(), "{o:?}");
    let first = &o.symbols[o.named("first").next().unwrap()];
    assert!(!first.damaged);
    assert_eq!(whole_file_because(&[&anchor("first")], &o), None);
    assert!(whole_file_because(&[&anchor("second")], &o).is_some());
}

/// hono's `context.ts` and `helper/factory/index.ts` shapes: overloaded
/// call signatures on their own lines, no `;` between; and
/// `export type *` (trpc's `tanstack-react-query/src/index.ts`).
const HONO_SHAPED: &str = r#"export type * from './types'

interface Get<E extends Env> {
  <Key extends keyof E['Variables']>(key: Key): E['Variables'][Key]
  <Key extends keyof ContextVariableMap>(key: Key): ContextVariableMap[Key]
}

export interface CreateHandlers<E extends Env> {
  <I extends Input = {}>(handler1: H<E, I>): [H<E, I>]

  // handler x2
  <
    I extends Input = {},
    I2 extends Input = I,
  >(
    handler1: H<E, I>,
    handler2: H<E, I2>
  ): [H<E, I>, H<E, I2>]
}

export function after(a: number): number {
  return a < 2 ? a : 2
}
"#;

#[test]
fn call_signatures_without_semicolons_and_type_star_exports_parse() {
    let o = outline("context.ts", HONO_SHAPED.as_bytes());
    assert!(o.fallback.is_none() && o.damage.is_none(), "{:?}", o.damage);
    let found: Vec<(&str, u32, u32)> = o
        .symbols
        .iter()
        .map(|s| (s.name.as_str(), s.start_line, s.end_line))
        .collect();
    assert_eq!(
        found,
        [("Get", 3, 6), ("CreateHandlers", 8, 19), ("after", 21, 23)]
    );
    assert_eq!(
        semantic_hash("context.ts", HONO_SHAPED.as_bytes()),
        o.file_hash
    );
    // `export type *` and `export *` are different programs; a `;` written
    // where the pre-pass implies one is the same program.
    let star = HONO_SHAPED.replace("export type *", "export *");
    assert_ne!(outline("c.ts", star.as_bytes()).file_hash, o.file_hash);
    let with_semicolon = HONO_SHAPED.replace("[Key]\n  <Key", "[Key];\n  <Key");
    let w = outline("c.ts", with_semicolon.as_bytes());
    assert!(w.damage.is_none());
    let hash = |o: &Outline| o.symbols[o.named("Get").next().unwrap()].hash;
    assert_eq!(hash(&w), hash(&o));
}

#[test]
fn a_comparison_at_the_start_of_a_line_is_left_alone() {
    // A line starting with `<` in clean code is never touched: the
    // pre-pass runs only where the parse has errors.
    let src = "export function f(a: number, b: number) {\n  return a\n    < b\n}\n";
    let o = outline("f.ts", src.as_bytes());
    assert!(o.damage.is_none());
    let moved = "export function f(a: number, b: number) {\n  return a < b\n}\n";
    assert_eq!(outline("f.ts", moved.as_bytes()).file_hash, o.file_hash);
}

#[test]
fn a_bare_ampersand_in_a_jsx_attribute_parses_and_counts() {
    let src = "export function Footer() {\n  return <a href=\"https://x.dev/?utm_source=trpc&utm_campaign=oss\">x</a>;\n}\n";
    let o = outline("footer.tsx", src.as_bytes());
    assert!(o.damage.is_none(), "{:?}", o.damage);
    assert_eq!(o.symbols.len(), 1);
    let spaced = src.replace("trpc&utm", "trpc utm");
    let s = outline("footer.tsx", spaced.as_bytes());
    assert!(s.damage.is_none());
    assert_ne!(s.file_hash, o.file_hash, "the `&` is part of the string");
    assert_ne!(s.symbols[0].hash, o.symbols[0].hash);
}

#[test]
fn the_pre_pass_stays_linear_on_hostile_input() {
    let start = std::time::Instant::now();
    // 40,000 variance modifiers in a file with an error elsewhere: past
    // the pre-pass's bound the file is outlined around its errors as is.
    let mut src = String::from("function broken( {\n");
    src.push_str(&"type A<in T> = T;\n".repeat(40_000));
    let o = outline("a.ts", src.as_bytes());
    assert!(o.damage.is_some());
    // A 400 KB JSX attribute of `&` on one line, and 400 KB of blanks
    // after `<` signs.
    let tsx = format!(
        "export function F() {{\n  return <a href=\"{}\">x</a>;\n}}\n",
        "&".repeat(400_000)
    );
    let _ = outline("f.tsx", tsx.as_bytes());
    let blanks = format!("let x = (\n{}", "< /*\n*/ ".repeat(50_000));
    let _ = outline("b.ts", blanks.as_bytes());
    assert!(
        start.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_body_cut_short_by_recovery_is_damaged() {
    // A stray closer ends `foo` early: the rest of its body is read as
    // top-level code, so `foo` is damaged (its anchor governs the whole
    // file) while `bar`, after it, is whole.
    let cases = [
        (
            "a.ts",
            "export function foo(x: number): number {\n  if (x > 0) {\n    x = x - 1;\n  }}\n  return x + 2;\n}\n\nexport function bar(y: number): number {\n  return y * 2;\n}\n",
        ),
        (
            "a.go",
            "package p\n\nfunc foo(x int) int {\n\ty := x\n\t}\n\ty = y + 7\n\treturn y\n}\n\nfunc bar(q int) int {\n\treturn q\n}\n",
        ),
        (
            "a.rs",
            "fn foo(x: i32) -> i32 {\n    let mut y = x;\n    }\n    y = y + 7;\n    y\n}\n\nfn bar(q: i32) -> i32 {\n    q\n}\n",
        ),
        // CPython refuses the indented lines after `return` (tree-sitter
        // takes them without an error node).
        (
            "a.py",
            "def foo(x):\n    y = x\nreturn\n    y = y + 7\n    return y\n\n\ndef bar(q):\n    return q\n",
        ),
    ];
    for (path, src) in cases {
        let o = outline(path, src.as_bytes());
        assert!(o.damage.is_some(), "{path}: {o:?}");
        let foo = &o.symbols[o.named("foo").next().unwrap()];
        assert!(foo.damaged, "{path}: {:?}", o.symbols);
        assert!(
            whole_file_because(&[&anchor("foo")], &o).is_some(),
            "{path}"
        );
        let bar = &o.symbols[o.named("bar").next().unwrap()];
        assert!(!bar.damaged, "{path}: {:?}", o.symbols);
    }
    // Python that CPython takes is not damaged: `a; b` on one line, a
    // one-line block, comments anywhere, continuation lines.
    let fine = "import a; import b\nif a: b()\nx = (1 +\n     2)\ndef f():\n    y = 1; z = 2\n  # a comment\n    return y\n";
    let o = outline("ok.py", fine.as_bytes());
    assert!(o.damage.is_none(), "{:?}", o.damage);
    let bom = "\u{feff}import os\n\ndef f():\n    return 1\n";
    let o = outline("bom.py", bom.as_bytes());
    assert!(o.damage.is_none(), "{:?}", o.damage);
}
