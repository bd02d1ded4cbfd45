//! Hostile spec files, through the real server: a YAML alias bomb, a 5 MB
//! spec, deep nesting, a spec that is a list or a scalar, a binary file named
//! `x.spec.yaml`. Each is a load error for that file, reported in
//! `instructions` and `invalid_specs`, in bounded time and memory; the other
//! specs keep working and nothing panics.

use crate::common;

use std::time::Instant;

use common::{Repo, Server};
use serde_json::json;

/// Peak memory allowed to a server that loaded the hostile specs, in KiB.
const MEMORY_BOUND_KIB: u64 = 256 * 1024;

/// CPU time allowed to the server from spawn to the last answer, in
/// seconds (`RLIMIT_CPU`: the kernel kills it past that, so the answers
/// never come). CPU time, not a clock: a busy machine does not move it.
const CPU_BOUND_SECS: u64 = 20;

fn alias_bomb() -> String {
    let mut y = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for (prev, name) in ["a", "b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .zip(["b", "c", "d", "e", "f", "g", "h", "i"])
    {
        let refs = vec![format!("*{prev}"); 9].join(",");
        y.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    y.push_str(
        "schema_version: \"0.7\"\nintent: *i\nartifacts:\n  code:\n    - path: \"src/**\"\n",
    );
    y
}

fn five_mb() -> String {
    let mut y = String::from(
        "schema_version: \"0.7\"\nintent: huge\nartifacts:\n  code:\n    - path: \"src/**\"\nconstraints:\n",
    );
    let line = format!("  - \"{}\"\n", "c".repeat(1000));
    while y.len() < 5 * 1024 * 1024 {
        y.push_str(&line);
    }
    y
}

fn deep(depth: usize) -> String {
    format!(
        "schema_version: \"0.7\"\nintent: deep\nartifacts:\n  code:\n    - path: \"src/**\"\nextra: {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    )
}

/// Each hostile spec, by file name.
fn hostile() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("bomb.spec.yaml", alias_bomb().into_bytes()),
        (
            "deepmap.spec.yaml",
            format!("a:\n{}", "{x: ".repeat(50_000)).into_bytes(),
        ),
        ("list.spec.yaml", b"- a\n- b\n".to_vec()),
        ("scalar.spec.yaml", b"just a string\n".to_vec()),
        ("x.spec.yaml", (0..=255u8).cycle().take(64 * 1024).collect()),
        ("empty.spec.yaml", Vec::new()),
    ]
}

/// Start a server over the good spec plus `specs`; check every one of them
/// is reported as failed to load, and the good spec still works.
fn check(specs: &[(&str, Vec<u8>)]) {
    let repo = Repo::with_spec();
    for (name, content) in specs {
        repo.write(&format!(".notarai/{name}"), content);
    }
    repo.write("src/a.rs", "fn a() { changed() }\n");
    let started = Instant::now();
    let mut server = Server::spawn_with(&repo.root, |cmd| {
        common::limit_cpu_seconds(cmd, CPU_BOUND_SECS)
    });
    let init = server.initialize();
    let instructions = init["instructions"].as_str().unwrap().to_string();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    let invalid = affected["invalid_specs"].as_array().unwrap();
    for (name, _) in specs {
        let path = format!(".notarai/{name}");
        let entry = invalid.iter().find(|i| i["spec_path"] == json!(path));
        let entry =
            entry.unwrap_or_else(|| panic!("{name} is not reported as invalid: {affected}"));
        assert!(!entry["error"].as_str().unwrap().is_empty(), "{entry}");
        assert!(
            instructions.contains(&path),
            "{name} missing from instructions: {instructions}"
        );
        let (code, message) = Server::error_of(&server.call(
            format!("d-{name}"),
            "get_spec_diff",
            json!({"spec_path": path, "base_branch": "main"}),
        ));
        assert_eq!(code, -32602);
        assert!(message.contains("failed to load"), "{message}");
    }
    assert_eq!(
        affected["affected_specs"][0]["spec_path"], ".notarai/a.spec.yaml",
        "{affected}"
    );
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(diff["files"], json!(["src/a.rs"]));
    let elapsed = started.elapsed();
    let peak = server.peak_rss_kib();
    eprintln!(
        "specs {:?}: {elapsed:?}, peak {peak} KiB",
        specs.iter().map(|s| s.0).collect::<Vec<_>>()
    );
    assert!(peak < MEMORY_BOUND_KIB, "peak memory {peak} KiB");
    server.finish();
}

#[test]
fn hostile_specs_are_load_errors_and_others_still_work() {
    check(&hostile());
}

/// Deep nesting under a key the simple loader ignores: it is accepted (not a
/// load error) and 100,000 levels take more than 20 s to parse.
#[test]
fn deep_nesting_is_a_load_error_in_bounded_time() {
    check(&[("deep.spec.yaml", deep(100_000).into_bytes())]);
}

/// A 5 MB spec is refused with a message naming its size (the simple loader
/// accepts it).
#[test]
fn five_mb_spec_is_a_load_error() {
    check(&[("big.spec.yaml", five_mb().into_bytes())]);
}
