//! Errors keep their kind and their hint from the domain to the face that
//! shows them: a JSON-RPC error (`-32602` / `-32603`, the hint in the message
//! and in `data.hint`) or a CLI message (`error:` then `hint:`).

use serde_json::json;

use crate::common::{Repo, Server, notarai, stderr};

#[test]
fn an_unknown_base_is_the_callers_error_with_a_hint() {
    let repo = Repo::with_spec();
    let mut server = repo.server();
    let answer = server.call(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "no-such-branch"}),
    );
    let (code, message) = Server::error_of(&answer);
    assert_eq!(code, -32602, "{answer}");
    assert!(
        message.contains("`no-such-branch` does not resolve") && message.contains("\nhint: "),
        "{message}"
    );
    let hint = answer["error"]["data"]["hint"].as_str().unwrap();
    assert!(hint.contains("git branch -a"), "{hint}");
    assert!(message.ends_with(hint), "{message}");
    server.finish();
}

#[test]
fn a_spec_that_failed_to_load_carries_its_findings_hint() {
    let repo = Repo::with_spec();
    repo.write(".notarai/b.spec.yaml", "");
    let mut server = repo.server();
    let answer = server.call(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/b.spec.yaml", "base_branch": "main"}),
    );
    let (code, message) = Server::error_of(&answer);
    assert_eq!(code, -32602);
    assert!(message.contains("failed to load"), "{message}");
    let hint = answer["error"]["data"]["hint"].as_str().unwrap();
    assert!(hint.contains("notarai validate"), "{hint}");
    server.finish();
}

#[test]
fn the_cli_prints_the_hint_under_the_error() {
    let repo = Repo::with_spec();
    let out = notarai(&repo.root, &["check", "--base", "no-such-branch"], b"");
    assert!(!out.status.success());
    let err = stderr(&out);
    let error_at = err.find("error: ").unwrap_or_else(|| panic!("{err}"));
    let hint_at = err
        .find("\nhint: pass the branch")
        .unwrap_or_else(|| panic!("{err}"));
    assert!(error_at < hint_at, "{err}");
}

/// `NOTARAI_LOG` that is not `target=level` directives is named in a
/// warning and the command goes on at the default level; directives that
/// read give their log and no warning.
#[test]
fn an_unreadable_log_filter_is_named_and_the_command_goes_on() {
    let repo = Repo::with_spec();
    let run = |filter: &str| {
        let mut cmd = crate::common::notarai_cmd(&repo.root, &["check", "--base", "main"]);
        cmd.env("NOTARAI_LOG", filter);
        crate::common::run(cmd, b"")
    };
    let plain = notarai(&repo.root, &["check", "--base", "main"], b"");
    let bad = run("notarai[{x=1}]=debug");
    let log = stderr(&bad);
    assert!(
        log.contains(
            "NOTARAI_LOG \"notarai[{x=1}]=debug\" is not a list of `target=level` directives"
        ),
        "{log}"
    );
    assert_eq!(bad.status.code(), plain.status.code(), "{log}");
    assert_eq!(bad.stdout, plain.stdout);
    let good = run("notarai=debug");
    let log = stderr(&good);
    assert!(!log.contains("is not a list"), "{log}");
    assert!(log.contains("DEBUG"), "{log}");
}
