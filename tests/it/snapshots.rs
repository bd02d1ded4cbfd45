//! What people read, reviewed as snapshots (`insta`): the `--help` of every
//! command, found by walking clap's own command tree so a new command is
//! included without editing this file, and `notarai validate` on a spec with
//! errors in both formats.
//!
//! A changed look fails here: review the new text in
//! `tests/it/snapshots/*.snap.new` and accept it with `cargo insta accept`
//! (or `INSTA_UPDATE=always cargo test`).

use crate::common::{Repo, notarai, stdout};
use clap::CommandFactory;

/// clap's own consistency checks over the whole command tree.
#[test]
fn cli_definition_is_consistent() {
    notarai::cli::Cli::command().debug_assert();
}

/// Every command path of the CLI (`["cache", "update"]` ...), depth first.
fn command_paths(cmd: &clap::Command, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(prefix.clone());
    for sub in cmd.get_subcommands() {
        let mut path = prefix.clone();
        path.push(sub.get_name().to_string());
        command_paths(sub, path, out);
    }
}

#[test]
fn help_of_every_command() {
    let repo = Repo::new();
    let mut paths = Vec::new();
    command_paths(&notarai::cli::Cli::command(), Vec::new(), &mut paths);
    let mut text = String::new();
    for path in paths {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let out = notarai(&repo.root, &args, b"");
        assert!(out.status.success(), "notarai {args:?} fails");
        text.push_str(&format!("$ notarai {}\n{}\n", args.join(" "), stdout(&out)));
    }
    insta::assert_snapshot!(text);
}

/// A spec with an unknown key, and a valid system spec that reaches it.
fn repo_with_a_broken_spec() -> Repo {
    let repo = Repo::new();
    repo.write(
        ".notarai/auth.spec.yaml",
        "schema_version: \"0.7\"\nintent: Log users in\nbehaviours:\n  - name: login\n    given: a user\n    then: a session\nartifacts:\n  code:\n    - path: \"src/**\"\n",
    );
    repo.write(
        ".notarai/system.spec.yaml",
        "schema_version: \"0.7\"\nintent: The system\nbehaviors:\n  - name: b\n    given: g\n    then: t\nsubsystems:\n  - $ref: ./auth.spec.yaml\nartifacts:\n  docs:\n    - path: README.md\n",
    );
    repo.write("README.md", "# r\n");
    repo.write("src/a.rs", "fn a() {}\n");
    repo
}

#[test]
fn validate_text_output() {
    let repo = repo_with_a_broken_spec();
    let out = notarai(&repo.root, &["validate"], b"");
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn validate_json_output() {
    let repo = repo_with_a_broken_spec();
    let out = notarai(&repo.root, &["validate", "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(stdout(&out));
}
