//! A long-lived server judges a `$ref` that names a spec file by the stamp
//! it took of that spec file for the same question (issue 43: a system
//! spec naming every module spec no longer costs a second `stat` of each).
//! These tests check that nothing is missed by that: a referenced spec
//! edited, deleted and brought back is seen on the next question, exactly
//! as a fresh server sees it.

use serde_json::{Value, json};

use crate::common::{Repo, Server};

/// A system spec whose subsystems are `$ref`s to the `auth` and `billing`
/// specs; a change in each module on branch `feat`.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.write(
        ".notarai/system.spec.yaml",
        "schema_version: '0.7'\nintent: The system.\nbehaviors:\n  - name: all\n    \
         given: anything\n    then: it works\nartifacts:\n  docs:\n    - path: 'README.md'\n\
         subsystems:\n  - $ref: './auth.spec.yaml'\n  - $ref: './billing.spec.yaml'\n",
    );
    repo.spec("auth", &["src/auth/**"]);
    repo.spec("billing", &["src/billing/**"]);
    repo.write("README.md", "# r\n");
    repo.write("src/auth/a.rs", "fn a() {}\n");
    repo.write("src/billing/b.rs", "fn b() {}\n");
    repo.write("src/other/c.rs", "fn c() {}\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.append("src/auth/a.rs", "fn a2() {}\n");
    repo.append("src/billing/b.rs", "fn b2() {}\n");
    repo.append("src/other/c.rs", "fn c2() {}\n");
    repo
}

/// `list_affected_specs`' affected specs (each whole, as JSON text: its
/// path and files) and invalid specs' errors.
fn ask(server: &mut Server, id: u64) -> (Vec<String>, Vec<String>) {
    let list = server.call_ok(id, "list_affected_specs", json!({"base_branch": "main"}));
    let field = |name: &str| -> &Vec<Value> {
        list[name]
            .as_array()
            .unwrap_or_else(|| panic!("{name} missing: {list}"))
    };
    let affected = field("affected_specs").iter().map(Value::to_string);
    let invalid = field("invalid_specs")
        .iter()
        .map(|v| v["error"].as_str().unwrap_or_default().to_string());
    (affected.collect(), invalid.collect())
}

/// Whether the affected spec `spec` lists `path` among its files.
fn lists(answer: &(Vec<String>, Vec<String>), spec: &str, path: &str) -> bool {
    answer
        .0
        .iter()
        .any(|a| a.contains(&format!("\"{spec}\"")) && a.contains(&format!("\"{path}\"")))
}

/// The same question on a fresh server: what the disk says.
fn fresh(repo: &Repo) -> (Vec<String>, Vec<String>) {
    let mut server = Server::spawn(&repo.root);
    server.initialize();
    let answer = ask(&mut server, 100);
    server.finish();
    answer
}

#[test]
fn a_referenced_spec_edited_deleted_and_restored_is_seen_by_a_long_lived_server() {
    let repo = repo();
    let mut server = Server::spawn(&repo.root);
    server.initialize();
    let auth = ".notarai/auth.spec.yaml";
    let answer = ask(&mut server, 1);
    assert!(lists(&answer, auth, "src/auth/a.rs"), "{answer:?}");
    assert!(!lists(&answer, auth, "src/other/c.rs"), "{answer:?}");
    assert!(answer.1.is_empty(), "{answer:?}");
    assert_eq!(answer, fresh(&repo));
    // The referenced spec now governs another folder: seen at once.
    repo.spec("auth", &["src/other/**"]);
    let answer = ask(&mut server, 2);
    assert!(lists(&answer, auth, "src/other/c.rs"), "{answer:?}");
    // Still listed: the spec's text at the merge base governs it (a spec
    // changed on the branch is judged by both texts).
    assert!(lists(&answer, auth, "src/auth/a.rs"), "{answer:?}");
    assert_eq!(answer, fresh(&repo));
    repo.spec("auth", &["docs/**"]);
    let answer = ask(&mut server, 3);
    assert!(!lists(&answer, auth, "src/other/c.rs"), "{answer:?}");
    assert_eq!(answer, fresh(&repo));
    // Deleted: the system spec's `$ref` no longer resolves.
    let file = repo.root.join(auth);
    let kept = std::fs::read(&file).unwrap();
    std::fs::remove_file(&file).unwrap();
    let answer = ask(&mut server, 4);
    assert!(
        answer.1.iter().any(|e| e.contains("auth.spec.yaml")),
        "{answer:?}"
    );
    assert_eq!(answer, fresh(&repo));
    // Brought back as it was: valid again.
    std::fs::write(&file, kept).unwrap();
    let answer = ask(&mut server, 5);
    assert!(answer.1.is_empty(), "{answer:?}");
    assert!(!lists(&answer, auth, "src/other/c.rs"), "{answer:?}");
    assert_eq!(answer, fresh(&repo));
    server.finish();
}
