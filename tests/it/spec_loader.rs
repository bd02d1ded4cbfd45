//! The spec loader against a corpus derived from the published schema, the
//! reference schema itself (0.8, which reads 0.5 to 0.8 files), and the
//! schema `notarai schema` prints.

use crate::corpus;

use notarai::spec::{self, Finding, Tier, parse_spec};
use serde_json::Value;

/// The published 0.8 schema, kept in the repository
/// (`tests/fixtures/reference/`), so the tests below run in a fresh clone.
const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/reference/notarai-spec-schema-0.8.json"
);

/// The text of the published schema; where the shared reference folder is
/// beside the repository (`$NOTARAI_SHARED`, else `../shared`), the kept
/// copy must be the same file.
fn reference_text() -> Option<String> {
    let kept = std::fs::read_to_string(REFERENCE).expect("the kept reference schema");
    let shared = std::env::var("NOTARAI_SHARED")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../shared").to_string());
    if let Ok(published) =
        std::fs::read_to_string(format!("{shared}/reference/notarai-spec-schema-0.8.json"))
    {
        assert_eq!(
            kept, published,
            "tests/fixtures/reference/notarai-spec-schema-0.8.json differs from the published schema: copy it again"
        );
    }
    Some(kept)
}

fn yaml_to_json(yaml: &str) -> Value {
    serde_yaml::from_str(yaml).expect("corpus YAML parses")
}

/// The published schema (kept in the repository).
fn reference_validator() -> Option<jsonschema::Validator> {
    let text = reference_text()?;
    let schema: Value = serde_json::from_str(&text).unwrap();
    Some(jsonschema::validator_for(&schema).expect("the reference schema compiles"))
}

fn generated_validator() -> jsonschema::Validator {
    jsonschema::validator_for(spec::json_schema_value()).expect("the generated schema compiles")
}

#[test]
fn loader_agrees_with_the_corpus() {
    let mut wrong = Vec::new();
    for case in corpus::corpus() {
        let got = parse_spec("x.spec.yaml", &case.yaml);
        if got.is_ok() != case.valid {
            wrong.push(format!(
                "{}: expected valid={}, got {:?}",
                case.rule,
                case.valid,
                got.err()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn reference_schema_agrees_with_the_corpus() {
    // Guards the corpus itself: each entry is judged as the published schema judges it.
    let Some(reference) = reference_validator() else {
        return;
    };
    let wrong: Vec<&str> = corpus::corpus()
        .iter()
        .filter(|c| reference.is_valid(&yaml_to_json(&c.yaml)) != c.valid)
        .map(|c| c.rule)
        .collect();
    assert!(wrong.is_empty(), "reference schema disagrees on: {wrong:?}");
}

#[test]
fn generated_schema_is_valid_json_schema_and_agrees_with_the_corpus() {
    let schema = spec::json_schema_value();
    assert!(
        jsonschema::meta::is_valid(schema),
        "the generated schema is a valid JSON Schema"
    );
    let text = spec::json_schema();
    let reparsed: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(&reparsed, schema);
    let generated = generated_validator();
    let wrong: Vec<&str> = corpus::corpus()
        .iter()
        .filter(|c| generated.is_valid(&yaml_to_json(&c.yaml)) != c.valid)
        .map(|c| c.rule)
        .collect();
    assert!(wrong.is_empty(), "generated schema disagrees on: {wrong:?}");
}

#[test]
fn generated_schema_carries_descriptions() {
    let schema = spec::json_schema_value();
    assert_eq!(schema["title"], "NotarAI Spec File");
    let intent = schema["properties"]["intent"]["description"]
        .as_str()
        .unwrap();
    assert!(intent.contains("plain language"), "{intent}");
    let defs = schema["$defs"].as_object().unwrap();
    for (name, def) in defs {
        assert!(
            def.get("description").is_some(),
            "{name} has no description"
        );
    }
    // `artifacts` is required through the cross-cutting rule, not at the top.
    assert!(
        !schema["required"]
            .as_array()
            .unwrap()
            .contains(&Value::from("artifacts"))
    );
    assert_eq!(
        schema["allOf"][0]["else"]["required"],
        serde_json::json!(["artifacts"])
    );
    assert_eq!(
        schema["properties"]["schema_version"]["enum"],
        serde_json::json!(["0.8", "0.7", "0.6", "0.5"])
    );
    assert_eq!(
        schema["$id"],
        "https://notarai.dev/schema/0.8/spec.schema.json"
    );
}

#[test]
fn generated_schema_has_the_published_shape_of_0_8() {
    // The keys and enums 0.8 adds, where the published schema has them.
    let Some(text) = reference_text() else {
        return;
    };
    let reference: Value = serde_json::from_str(&text).unwrap();
    let ours = spec::json_schema_value();
    assert_eq!(ours["allOf"][0]["if"], reference["allOf"][0]["if"]);
    assert_eq!(
        ours["allOf"][0]["then"]["not"],
        reference["allOf"][0]["then"]["not"]
    );
    assert_eq!(ours["allOf"][1], reference["allOf"][1]);
    assert_eq!(
        ours["properties"]["schema_version"]["enum"],
        reference["properties"]["schema_version"]["enum"]
    );
    // Our enums carry a description per value: `oneOf` of `const`s.
    let statuses: Vec<&Value> = ours["$defs"]["DecisionStatus"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| &v["const"])
        .collect();
    let published: Vec<&Value> = reference["$defs"]["decision"]["properties"]["status"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    assert_eq!(statuses, published);
}

#[test]
fn realistic_specs_of_every_version_load_and_match_both_schemas() {
    let Some(reference) = reference_validator() else {
        return;
    };
    let generated = generated_validator();
    for (name, yaml) in corpus::realistic() {
        let spec = parse_spec("x.spec.yaml", yaml).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let json = yaml_to_json(yaml);
        assert!(reference.is_valid(&json), "{name}: reference rejects");
        assert!(generated.is_valid(&json), "{name}: generated rejects");
        // Every field survives a round trip through the model.
        let back = serde_json::to_value(&spec).unwrap();
        let again: spec::Spec = serde_json::from_value(back).unwrap();
        assert_eq!(again, spec, "{name}");
    }
}

#[test]
fn typed_fields_carry_the_content() {
    let system = parse_spec("s", corpus::SYSTEM_07).unwrap();
    assert_eq!(system.schema_version, "0.7");
    assert_eq!(system.tier(), Tier::Full);
    assert_eq!(system.behaviors.len(), 2);
    assert_eq!(
        system.subsystems.as_ref().unwrap()[0].reference,
        "./cli.spec.yaml"
    );
    assert_eq!(system.applies[0].reference, "./_shared/security.spec.yaml");
    assert_eq!(
        system.dependencies[0].relationship,
        "the CLI calls the library"
    );
    assert_eq!(system.artifacts["code"][0].path, "src/**");
    assert_eq!(system.exclude, vec!["target/**"]);
    assert_eq!(
        system.coverage.as_ref().unwrap().policy,
        Some(spec::model::CoveragePolicy::Warn)
    );
    assert!(
        system
            .notes
            .as_deref()
            .unwrap()
            .starts_with("The cache key")
    );

    let dataset = parse_spec("d", corpus::DATASET_07).unwrap();
    assert_eq!(dataset.tier(), Tier::Derived);
    assert!(dataset.behaviors.is_empty());
    assert_eq!(dataset.artifacts["data"][1].tier, Some(4));
    assert_eq!(
        dataset.artifacts["data"][0].source.as_deref(),
        Some("hf://datasets/HuggingFaceFW/fineweb")
    );
    assert_eq!(
        dataset.output.unwrap().kind,
        Some(spec::model::OutputType::Dataset)
    );

    let slides = parse_spec("p", corpus::SLIDES_07).unwrap();
    let content = slides.content.unwrap();
    assert_eq!(content.sections[0].duration.as_ref().unwrap().value, 2.0);
    assert_eq!(
        slides.variants[0].overrides.as_ref().unwrap()["content.structure"],
        "free-form"
    );

    let feature = parse_spec("f", corpus::FEATURE_08).unwrap();
    assert!(!feature.cross_cutting);
    assert_eq!(
        feature.behaviors[0].tested_by[0].path,
        "tests/auth/signup.rs"
    );
    assert_eq!(
        feature.behaviors[0].tested_by[0].assertion.as_deref(),
        Some("signup_creates_account")
    );
    assert_eq!(feature.behaviors[1].tested_by[0].assertion, None);
    let decision = &feature.decisions[0];
    assert_eq!(decision.status, Some(spec::model::DecisionStatus::Accepted));
    assert_eq!(decision.origin.as_deref(), Some("design-review"));
    assert_eq!(decision.related_files, vec!["src/auth/jwt.rs"]);
    let cross = parse_spec("c", corpus::CROSS_08).unwrap();
    assert!(cross.cross_cutting);
    assert!(cross.artifacts.is_empty());
    assert_eq!(cross.tier(), Tier::Registered);

    let game = parse_spec("g", corpus::GAME_07).unwrap();
    assert_eq!(
        game.states.unwrap().definitions[1].transitions[0]
            .guard
            .as_deref(),
        Some("health <= 0")
    );
}

#[test]
fn behaviors_serialize_back_as_written() {
    let spec = parse_spec("s", corpus::BASE).unwrap();
    let json = serde_json::to_value(&spec.behaviors[0]).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"name": "signup", "given": "a valid email and password", "then": "an account is created"})
    );
    let system = parse_spec("s", corpus::SYSTEM_07).unwrap();
    let json = serde_json::to_value(&system.behaviors[1]).unwrap();
    assert_eq!(
        json["state_transition"],
        serde_json::json!({"from": "cached", "to": "stale"})
    );
    assert!(json.get("interaction").is_none());
}

/// The single finding of a spec that fails, checked for position and words.
fn only_error(yaml: &str) -> Finding {
    let errors = parse_spec(".notarai/x.spec.yaml", yaml).expect_err("the spec fails");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    errors.into_iter().next().unwrap()
}

#[track_caller]
fn assert_error(yaml: &str, line: usize, column: usize, message: &str, hint: Option<&str>) {
    let f = only_error(yaml);
    assert_eq!((f.line, f.column), (line, column), "{f:?}");
    assert_eq!(f.message, message, "{f:?}");
    if let Some(hint) = hint {
        assert_eq!(f.hint.as_deref(), Some(hint), "{f:?}");
    }
    assert_eq!(f.path, ".notarai/x.spec.yaml");
    assert!(f.is_error());
}

#[test]
fn each_error_kind_has_its_exact_position_and_hint() {
    // Unknown key, with a suggestion.
    assert_error(
        &corpus::replace("behaviors:", "behaviours:"),
        3,
        1,
        "unknown key `behaviours`",
        None,
    );
    let f = only_error(&corpus::with("behaviours: []\n"));
    assert_eq!((f.line, f.column), (10, 1));
    assert_eq!(f.hint.as_deref(), Some("did you mean `behaviors`?"));
    // Unknown key deep inside, with its path.
    assert_error(
        &corpus::with("    - path: 'docs/**'\n      rol: x\n"),
        11,
        7,
        "unknown key `rol` in `artifacts.code[1]`",
        Some("did you mean `role`?"),
    );
    // Wrong enum value.
    assert_error(
        &corpus::with("tier: ful\n"),
        10,
        7,
        "`tier` has an unknown value `ful`",
        Some("did you mean `full`? expected one of full, registered, derived"),
    );
    // An unsupported version: the one finding, naming the supported ones.
    let supported = "notarai reads schema_version 0.8, 0.7, 0.6, 0.5; update the file to the newest format and write `schema_version: '0.8'`";
    assert_error(
        &corpus::replace("'0.7'", "'0.4'"),
        1,
        17,
        "unsupported spec format version `0.4`",
        Some(supported),
    );
    assert_error(
        "schema_version: '0.3'\nintent: old\ncomponents: [a]\nartifacts:\n  - src/**\n",
        1,
        17,
        "unsupported spec format version `0.3`",
        Some(supported),
    );
    // Cross-cutting rules (0.8), at the key that breaks them.
    let cross_hint = "a `cross_cutting: true` spec governs no files itself: remove `artifacts`, `subsystems` and `exclude`, and pull it into other specs with `applies: [{$ref: ...}]`";
    assert_error(
        &corpus::cross_with("artifacts:\n  code:\n    - path: 'src/**'\n"),
        8,
        1,
        "`artifacts` is not allowed here",
        Some(cross_hint),
    );
    assert_error(
        &corpus::cross_with("exclude: []\n"),
        8,
        1,
        "`exclude` is not allowed here",
        Some(cross_hint),
    );
    assert_error(
        &corpus::CROSS.replace("cross_cutting: true", "cross_cutting: false"),
        1,
        1,
        "missing required key `artifacts`",
        Some(
            "add `artifacts:` with the files this spec governs, or set `cross_cutting: true` for a concern that other specs pull in with `applies`",
        ),
    );
    let f = only_error(&corpus::with("cross_cuting: true\n"));
    assert_eq!(f.message, "unknown key `cross_cuting`");
    assert_eq!(f.hint.as_deref(), Some("did you mean `cross_cutting`?"));
    assert_error(
        &corpus::replace(
            "    then: an account is created\n",
            "    then: ok\n    tested_by:\n      - path: t.rs\n        test: x\n",
        ),
        9,
        9,
        "unknown key `test` in `behaviors[0].tested_by[0]`",
        Some("allowed keys here: path, assertion"),
    );
    assert_error(
        &corpus::with("decisions:\n  - {date: '2025-01-01', choice: a, status: done}\n"),
        11,
        45,
        "`decisions[0].status` has an unknown value `done`",
        Some("expected one of proposed, accepted, rejected"),
    );
    // Wrong type, with the fix.
    assert_error(
        &corpus::replace("'0.7'", "0.7"),
        1,
        17,
        "`schema_version` must be text, found a number",
        Some("put it in quotes: '0.7'"),
    );
    assert_error(
        &corpus::with("  docs:\n    - 'docs/**'\n"),
        11,
        7,
        "`artifacts.docs[0]` must be a mapping of `key: value` lines, found text",
        Some("write `path: 'docs/**'`"),
    );
    assert_error(
        &corpus::with("constraints: be fast\n"),
        10,
        14,
        "`constraints` must be a list, found text",
        Some("write a list, one item per line: `- 'be fast'`"),
    );
    assert_error(
        &corpus::with("subsystems: ./cli.spec.yaml\n"),
        10,
        13,
        "`subsystems` must be a list, found text",
        Some("write a list, one item per line: `- $ref: './cli.spec.yaml'`"),
    );
    // Missing required keys.
    assert_error(
        &corpus::replace("intent: Users can sign up and log in.\n", ""),
        1,
        1,
        "missing required key `intent`",
        Some("add `intent: ...`"),
    );
    assert_error(
        &corpus::replace("    then: an account is created\n", ""),
        4,
        5,
        "missing required key `then` in `behaviors[0]`",
        None,
    );
    let f = only_error("schema_version: '0.7'\nintent: x\nartifacts: {}\n");
    assert_eq!(f.message, "missing required key `behaviors`");
    assert!(f.hint.unwrap().contains("tier: registered"));
    // Out of range.
    assert_error(
        &corpus::with("      tier: 9\n"),
        10,
        13,
        "`artifacts.code[0].tier` is 9, out of range",
        Some("use a value from 1 to 4"),
    );
    // Too few items.
    assert_error(
        &corpus::replace(
            "behaviors:\n  - name: signup\n    given: a valid email and password\n    then: an account is created\n",
            "behaviors: []\n",
        ),
        3,
        12,
        "`behaviors` needs at least 1 item(s), found 0",
        None,
    );
    // YAML-level problems.
    assert_error(
        &corpus::with("intent: again\n"),
        10,
        1,
        "duplicate key `intent`",
        None,
    );
    let f = only_error("schema_version: '0.7'\nintent: [unclosed\n");
    assert!(f.message.starts_with("YAML syntax error"), "{f:?}");
    assert!(f.line >= 2, "{f:?}");
    assert_error(
        "- a\n- b\n",
        1,
        1,
        "the spec must be a mapping of `key: value` lines, found a list",
        None,
    );
    assert_error(
        "hello\n",
        1,
        1,
        "the spec must be a mapping of `key: value` lines, found text",
        None,
    );
    assert_error("# nothing\n", 1, 1, "the spec is empty", None);
    let f = only_error(&format!("{}---\nintent: x\n", corpus::BASE));
    assert!(f.message.contains("one YAML document"), "{f:?}");
    assert_eq!((f.line, f.column), (10, 1));
}

#[test]
fn several_errors_are_all_reported_in_order() {
    let yaml = "schema_version: 0.7\nintent:\nbehaviours: []\nartifacts:\n  code:\n    - path: x\n      tier: 5\n";
    let errors = parse_spec("x", yaml).unwrap_err();
    let at: Vec<(usize, usize)> = errors.iter().map(|f| (f.line, f.column)).collect();
    assert_eq!(at, vec![(1, 17), (2, 7), (3, 1), (7, 13)], "{errors:#?}");
    assert_eq!(errors[2].message, "unknown key `behaviours`");
}

/// An error, not a blow-up (one would hang here; no clock is asserted, so
/// a slow machine cannot fail it).
fn assert_quick_error(text: &str, what: &str) {
    let errors = parse_spec("x", text).expect_err(what);
    assert!(!errors.is_empty());
}

#[test]
fn hostile_inputs_fail_fast_without_panicking() {
    // Billion laughs.
    let mut bomb = String::from(
        "schema_version: '0.7'\nintent: x\nartifacts: {}\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for i in 1..9u8 {
        let (p, c) = ((b'a' + i - 1) as char, (b'a' + i) as char);
        bomb.push_str(&format!(
            "{c}: &{c} [*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p},*{p}]\n"
        ));
    }
    assert_quick_error(&bomb, "alias bomb");
    let errors = parse_spec("x", &bomb).unwrap_err();
    assert!(errors[0].message.contains("more than"), "{errors:?}");
    // Large file.
    let big = format!("{}notes: '{}'\n", corpus::BASE, "x".repeat(5 * 1024 * 1024));
    assert_quick_error(&big, "5 MB spec");
    // Deep nesting, block and flow.
    assert_quick_error(&format!("a: {}", "[".repeat(100_000)), "deep flow nesting");
    let mut deep = String::new();
    for i in 0..200 {
        deep.push_str(&format!("{}k:\n", " ".repeat(i)));
    }
    assert_quick_error(&deep, "deep block nesting");
    // Wrong shapes and garbage.
    assert_quick_error("[1, 2, 3]", "a list");
    assert_quick_error("42", "a scalar");
    assert_quick_error("\u{7f}\u{1}\u{2}: [}", "garbage");
    assert_quick_error("a: !!binary aGVsbG8=\n", "unknown tag");
    assert_quick_error("? [a, b]\n: c\n", "complex key");
    assert_quick_error("a: *nowhere\n", "unknown alias");
    // Many small errors stay bounded.
    let mut many = String::from("schema_version: '0.7'\nintent: x\nartifacts: {}\n");
    for i in 0..5000 {
        many.push_str(&format!("k{i}: 1\n"));
    }
    let errors = parse_spec("x", &many).unwrap_err();
    assert!(errors.len() <= 51, "{}", errors.len());
    assert!(errors.last().unwrap().message.contains("more error"));
}

#[test]
fn line_endings_and_byte_order_mark_do_not_matter() {
    let crlf = corpus::BASE.replace('\n', "\r\n");
    assert_eq!(
        parse_spec("x", &crlf).unwrap(),
        parse_spec("x", corpus::BASE).unwrap()
    );
    let bom = format!("\u{feff}{}", corpus::BASE);
    assert!(parse_spec("x", &bom).is_ok());
    let errors = parse_spec("x", &corpus::with("nope: 1\n").replace('\n', "\r\n")).unwrap_err();
    assert_eq!((errors[0].line, errors[0].column), (10, 1));
}

#[test]
fn optional_keys_never_accept_null_in_the_schema() {
    assert!(!spec::json_schema().contains("\"null\""));
}

#[test]
fn aliases_within_limits_work() {
    let yaml = "schema_version: '0.7'\nintent: &i shared text\nbehaviors:\n  - &b {name: a, given: b, then: c}\n  - *b\nnotes: *i\nartifacts: {code: [{path: 'src/**'}]}\n";
    let spec = parse_spec("x", yaml).unwrap();
    assert_eq!(spec.behaviors.len(), 2);
    assert_eq!(spec.notes.as_deref(), Some("shared text"));
}
