//! Untrusted input, round 3 (issue 38, costs): every cost bounded by the
//! input's size. Each hostile repository is built in a temp folder and the
//! real process runs it under a CPU-time limit (`RLIMIT_CPU`: killed past
//! it, however busy the machine) and an address-space limit, both sized
//! for a small 2-core machine with wide margins over a debug build:
//! - 20,000 literal anchors against a 5,000-function file (`validate` took
//!   76 s and `check` 110 s when each anchor was matched against each
//!   symbol; now a lookup by name);
//! - 5,000 nested JavaScript functions (`check` 44 s, `get_spec_diff`
//!   40 s; past 256 levels the file is whole-file, and says why);
//! - 255 nested functions around a 900 KB body (305 s: each symbol's hash
//!   walked the body again; past 8x the file's size in symbol extents the
//!   file is whole-file, and says why);
//! - an 8 MB one-line array (1.7 GB to parse; past 1 MiB a file is hashed
//!   by its bytes, and says why).

use std::process::Stdio;

use serde_json::json;

use crate::common::{self, Repo, Server, stderr, stdout};

/// The most address space notarai may use on these repositories: 512 MiB.
const MEMORY_LIMIT: u64 = 512 * 1024 * 1024;

/// A spec governing `artifacts` (each an artifact path), one behavior.
fn spec_with(artifacts: impl Iterator<Item = String>) -> String {
    let mut text = String::from(
        "schema_version: '0.7'\nintent: A.\nbehaviors:\n  - name: b\n    given: g\n    then: t\nconstraints:\n  - 'c'\nartifacts:\n  code:\n",
    );
    for path in artifacts {
        text.push_str(&format!("    - path: '{path}'\n"));
    }
    text
}

/// Run notarai `args` in `repo` within `cpu_seconds` of CPU and
/// [`MEMORY_LIMIT`]: its output, which proves it finished within both (a
/// process past either is killed by a signal and has no exit code).
fn run_limited(repo: &Repo, args: &[&str], cpu_seconds: u64) -> std::process::Output {
    let mut command = common::notarai_cmd(&repo.root, args);
    command.stdin(Stdio::null());
    common::limit_cpu_seconds(&mut command, cpu_seconds);
    common::limit_address_space(&mut command, MEMORY_LIMIT);
    let out = command.output().unwrap();
    assert!(
        out.status.code().is_some(),
        "{args:?} killed past {cpu_seconds} CPU seconds or {MEMORY_LIMIT} bytes: {:?}\n{}",
        out.status,
        stderr(&out)
    );
    common::assert_no_panic(&stderr(&out));
    out
}

/// 20,000 literal anchors (each of 5,000 functions named four times, and
/// 2,000 naming none) on a 5,000-function Python file whose every function
/// changed: `validate` within 10 CPU seconds (it took 76 s), `check` within
/// 30 (110 s); a debug build takes about 1 s and 4 s.
#[cfg(target_os = "linux")]
#[test]
fn twenty_thousand_literal_anchors_are_looked_up_by_name() {
    let repo = Repo::new();
    let functions = 5_000;
    let body = |op: &str| -> String {
        (0..functions)
            .map(|i| format!("def f{i}(x):\n    return x {op} {i}\n\n"))
            .collect()
    };
    repo.write("src/a.py", body("+"));
    repo.write(
        ".notarai/a.spec.yaml",
        spec_with((0..20_000).map(|i| match i {
            0..18_000 => format!("src/a.py#f{}", i % functions),
            _ => format!("src/a.py#gone{i}"),
        })),
    );
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/a.py", body("-"));
    repo.commit("change");

    let out = run_limited(&repo, &["validate"], 10);
    let text = stdout(&out) + &stderr(&out);
    assert!(text.contains("#gone18000"), "{text}");
    assert!(!text.contains("#f4999`"), "f4999 exists: {text}");

    let out = run_limited(&repo, &["check", "--base", "main"], 30);
    let text = stdout(&out);
    assert!(
        text.contains("src/a.py changed and is not reconciled"),
        "{text}"
    );
}

/// 5,000 nested JavaScript functions (70 KB): the outline stops at 256
/// levels and the file is whole-file, which it says; `check` and the
/// server's `get_spec_diff` answer within 10 CPU seconds (they took 44 s
/// and 40 s with the read lock held).
#[cfg(target_os = "linux")]
#[test]
fn five_thousand_nested_functions_are_whole_file_within_10_cpu_seconds() {
    let repo = Repo::new();
    let nested = |value: u32| -> String {
        let mut text: String = (0..5_000)
            .map(|i| format!("function f{i}() {{\n"))
            .collect();
        text.push_str(&format!("return {value};\n"));
        text.push_str(&"}\n".repeat(5_000));
        text
    };
    repo.write("src/a.js", nested(1));
    repo.write(
        ".notarai/a.spec.yaml",
        spec_with(["src/a.js#f0".to_string()].into_iter()),
    );
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/a.js", nested(2));
    repo.commit("change");

    let out = run_limited(&repo, &["symbols", "src/a.js"], 10);
    let text = stdout(&out);
    assert!(text.contains("nested deeper than 256 levels"), "{text}");

    let out = run_limited(&repo, &["check", "--base", "main"], 10);
    assert!(
        stdout(&out).contains("src/a.js changed and is not reconciled"),
        "{}",
        stdout(&out)
    );

    let mut server = Server::spawn_with(&repo.root, |command| {
        common::limit_cpu_seconds(command, 10);
        common::limit_address_space(command, MEMORY_LIMIT);
    });
    server.initialize();
    let answer = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    assert!(answer.to_string().contains("return 2"), "{answer}");
    assert!(server.alive(), "the server was killed past its limits");
    server.kill();
}

/// 255 nested functions (within the nesting limit) around a 900 KB body:
/// each symbol's hash would walk the body again (`check` took 305 s of a
/// debug build); the symbols' extents add up to more than 8x the file, so
/// it is whole-file, says why, and `check` answers within 10 CPU seconds.
#[cfg(target_os = "linux")]
#[test]
fn nesting_around_a_large_body_is_bounded_by_the_files_size() {
    let repo = Repo::new();
    let nested = |value: u32| -> String {
        let mut text: String = (0..255).map(|i| format!("function f{i}() {{\n")).collect();
        text.push_str(&format!("x = [{}{value}];\n", "1,".repeat(450_000)));
        text.push_str(&"}\n".repeat(255));
        text
    };
    repo.write("src/a.js", nested(1));
    repo.write(
        ".notarai/a.spec.yaml",
        spec_with(["src/a.js#f0".to_string()].into_iter()),
    );
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/a.js", nested(2));
    repo.commit("change");
    let out = run_limited(&repo, &["symbols", "src/a.js"], 10);
    assert!(
        stdout(&out).contains("nested over 8x the file's size"),
        "{}",
        stdout(&out)
    );
    let out = run_limited(&repo, &["check", "--base", "main"], 10);
    assert!(
        stdout(&out).contains("src/a.js changed and is not reconciled"),
        "{}",
        stdout(&out)
    );
}

/// An 8 MB one-line JavaScript array (it cost 1.7 GB to parse) is hashed by
/// its bytes: `check` within 256 MiB of address space and 10 CPU seconds
/// shows its one-element change (never formatting-only), and its outline
/// says why it has none.
#[cfg(target_os = "linux")]
#[test]
fn an_8_mb_one_line_array_is_hashed_by_its_bytes_within_256_mb() {
    let repo = Repo::new();
    let array = |last: u32| format!("const a = [{}{last}];\n", "0,".repeat(4_000_000));
    repo.write("src/big.js", array(0));
    repo.write(
        ".notarai/a.spec.yaml",
        spec_with(["src/big.js".to_string()].into_iter()),
    );
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/big.js", array(1));
    repo.commit("change");

    let limited = |args: &[&str]| {
        let mut command = common::notarai_cmd(&repo.root, args);
        command.stdin(Stdio::null());
        common::limit_cpu_seconds(&mut command, 10);
        common::limit_address_space(&mut command, 256 * 1024 * 1024);
        let out = command.output().unwrap();
        assert!(
            out.status.code().is_some(),
            "{args:?} killed past its limits: {:?}\n{}",
            out.status,
            stderr(&out)
        );
        out
    };
    let out = limited(&["symbols", "src/big.js"]);
    assert!(
        stdout(&out).contains("larger than 1 MiB: not parsed, hashed by its bytes"),
        "{}",
        stdout(&out)
    );
    let out = limited(&["check", "--base", "main"]);
    assert!(
        stdout(&out).contains("src/big.js changed and is not reconciled"),
        "{}",
        stdout(&out)
    );
}
