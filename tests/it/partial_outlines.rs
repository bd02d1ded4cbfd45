//! Partial outlines through the binary (issue 42, point 1): a file with
//! syntax errors is outlined around them, an anchor whose symbol lies in
//! the damage governs the whole file and says so (validate, the status,
//! `get_spec_diff`, `notarai symbols`), and TypeScript's variance
//! annotations no longer damage anything.

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stdout};

/// Two functions and a class, the middle function broken (line 5 does not
/// parse).
const BROKEN: &str = "export function good(a: number): number {
  return a + 1;
}

export function broken(a: number {
  return a +;
}

export class After {
  run(): string {
    return \"after\";
  }
}
";

/// zod's shapes: variance annotations on interfaces and a class.
const VARIANCE: &str = "export interface $ZodCheck<in T = never> {
  check(value: T): void;
}

export class ZodType<
  out Output = unknown,
  out Input = unknown,
> {
  parse(data: unknown): Output {
    return data as Output;
  }
  safeParse(data: unknown): Output {
    return data as Output;
  }
}
";

/// A spec `name` governing `paths` (anchors allowed).
fn spec(repo: &Repo, name: &str, paths: &[&str]) {
    let mut text = format!(
        "schema_version: '0.8'\nintent: The {name} part.\nbehaviors:\n  - name: works\n    given: input\n    then: output\nartifacts:\n  code:\n"
    );
    for p in paths {
        text.push_str(&format!("    - path: '{p}'\n"));
    }
    repo.write(&format!(".notarai/{name}.spec.yaml"), text);
}

/// `main` with both files: `good` anchors the broken file's whole
/// function, `bad` its broken one, `zod` the variance file's methods.
fn project() -> Repo {
    let repo = Repo::new();
    repo.write("src/broken.ts", BROKEN);
    repo.write("src/schemas.ts", VARIANCE);
    repo.write(".gitignore", ".notarai/.cache/\n");
    spec(&repo, "good", &["src/broken.ts#good"]);
    spec(&repo, "bad", &["src/broken.ts#broken"]);
    spec(
        &repo,
        "zod",
        &["src/schemas.ts#ZodType.parse", "src/schemas.ts#$ZodCheck"],
    );
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

#[test]
fn validate_names_the_line_for_an_anchor_into_the_damage_only() {
    let repo = project();
    let out = notarai(&repo.root, &["validate"], b"");
    let text = format!("{}{}", stdout(&out), crate::common::stderr(&out));
    assert!(
        text.contains("anchor `#broken`: `src/broken.ts` does not parse where its symbol may lie")
            && text.contains("from line 5"),
        "{text}"
    );
    assert!(!text.contains("#good"), "{text}");
    // The variance annotations parse: no warning for zod's anchors.
    assert!(!text.contains("schemas.ts"), "{text}");
    assert!(text.contains("PASS .notarai/zod.spec.yaml"), "{text}");
}

#[test]
fn a_change_in_the_damage_is_the_whole_file_s_for_the_anchor_there_and_never_quiet() {
    let repo = project();
    repo.write(
        "src/broken.ts",
        BROKEN.replace("return a +;", "return a + 2;;"),
    );
    let mut server = repo.server();
    let status = server.call_ok(
        1,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    let whole = status["whole_file_because"].as_array().unwrap();
    assert_eq!(whole.len(), 1, "{status}");
    assert_eq!(whole[0]["spec_path"], ".notarai/bad.spec.yaml");
    assert_eq!(whole[0]["path"], "src/broken.ts");
    assert!(
        whole[0]["whole_file_because"]
            .as_str()
            .unwrap()
            .contains("stopped understanding it there"),
        "{status}"
    );
    // A change where the parser did not understand the file may hold
    // anything: `good`, whole and elsewhere, sees it too (never quiet).
    let specs: Vec<&Value> = status["specs"].as_array().unwrap().iter().collect();
    assert_eq!(specs.len(), 2, "`bad` and `good` see the change: {status}");
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/bad.spec.yaml", "base_branch": "main"}),
    );
    assert!(
        diff["whole_file_because"]["src/broken.ts"]
            .as_str()
            .unwrap()
            .contains("line 5"),
        "{diff}"
    );
    assert!(diff["diff"].as_str().unwrap().contains("return a + 2;;"));
    let good = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/good.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(good["files"], json!(["src/broken.ts"]), "{good}");
    assert!(good.get("outside_anchors").is_none(), "{good}");
    assert!(good.get("whole_file_because").is_none(), "{good}");
}

#[test]
fn a_change_to_a_whole_symbol_of_a_damaged_file_is_that_anchor_s() {
    let repo = project();
    repo.write("src/broken.ts", BROKEN.replace("a + 1", "a + 10"));
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/good.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(diff["files"], json!(["src/broken.ts"]), "{diff}");
    assert!(
        diff["diff"].as_str().unwrap().contains("symbol: good"),
        "{diff}"
    );
    assert!(diff.get("whole_file_because").is_none(), "{diff}");
    // `bad` anchors the damaged function: governed whole, it sees it too.
    let bad = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/bad.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(bad["files"], json!(["src/broken.ts"]), "{bad}");
}

#[test]
fn variance_annotations_keep_anchors_to_their_symbols() {
    let repo = project();
    // A change in `safeParse`, which no anchor names: zod's spec does not
    // see it (before, the file did not parse and the anchors governed it
    // whole); one in `parse` it does.
    repo.write(
        "src/schemas.ts",
        VARIANCE.replacen(
            "return data as Output;\n  }\n}",
            "return null as never;\n  }\n}",
            1,
        ),
    );
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/zod.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(diff["outside_anchors"], json!(["src/schemas.ts"]), "{diff}");
    repo.write(
        "src/schemas.ts",
        VARIANCE.replacen("data as Output", "data as never", 1),
    );
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/zod.spec.yaml", "base_branch": "main"}),
    );
    assert!(
        diff["diff"]
            .as_str()
            .unwrap()
            .contains("symbol: ZodType.parse"),
        "{diff}"
    );
    // Dropping a variance modifier changes the anchored interface.
    repo.write(
        "src/schemas.ts",
        VARIANCE.replace("<in T = never>", "<T = never>"),
    );
    let diff = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/zod.spec.yaml", "base_branch": "main"}),
    );
    assert!(
        diff["diff"].as_str().unwrap().contains("symbol: $ZodCheck"),
        "{diff}"
    );
}

#[test]
fn symbols_shows_the_damage_and_the_damaged_symbols() {
    let repo = project();
    let out = notarai(&repo.root, &["symbols", "src/broken.ts"], b"");
    let text = stdout(&out);
    assert!(
        text.contains("partial outline: the file does not parse as typescript from line 5"),
        "{text}"
    );
    assert!(text.contains("broken  (damaged)"), "{text}");
    assert!(text.contains("good\n"), "{text}");
    let out = notarai(
        &repo.root,
        &["symbols", "src/broken.ts", "--format", "json"],
        b"",
    );
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer["damage"]["first_line"], 5, "{answer}");
    assert!(answer.get("fallback").is_none(), "{answer}");
}

#[test]
fn before_an_edit_in_the_damage_the_spec_anchored_there_governs() {
    let repo = project();
    let mut server = repo.server();
    let specs_at = |server: &mut crate::common::Server, id: u64, lines: &str| {
        let answer = server.call_ok(
            id,
            "get_governing_specs",
            json!({"paths": ["src/broken.ts"], "lines": lines}),
        );
        answer["files"][0]["governed_by"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["spec_path"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // Line 6 is in the damage: `bad` (anchored to the damaged function)
    // governs it whole; `good`'s function is elsewhere.
    assert_eq!(specs_at(&mut server, 1, "6"), [".notarai/bad.spec.yaml"]);
    // Line 2 is `good`'s; `bad` still governs the whole file.
    assert_eq!(
        specs_at(&mut server, 2, "2"),
        [".notarai/bad.spec.yaml", ".notarai/good.spec.yaml"]
    );
}

#[test]
fn a_fresh_setup_anchored_into_variance_annotations_passes_check_strict() {
    let repo = Repo::new();
    repo.write("src/schemas.ts", VARIANCE);
    repo.write(".gitignore", ".notarai/.cache/\n");
    spec(
        &repo,
        "zod",
        &["src/schemas.ts#ZodType.parse", "src/schemas.ts#$ZodCheck"],
    );
    repo.commit("init");
    let out = notarai(&repo.root, &["check", "--base", "HEAD", "--strict"], b"");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        crate::common::stderr(&out)
    );
}
