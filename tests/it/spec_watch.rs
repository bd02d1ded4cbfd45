//! A long-lived server does not stamp the spec files again while its
//! watch's generation has not moved and the watch covers every folder the
//! specs and their `$ref` targets lie in (`Project::specs`, issue 43).
//! These tests change specs by every means between two questions on one
//! warm server and check that the next answer sees it, exactly as a fresh
//! server does, and that the stamps are skipped only where the watch
//! covers the specs.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Repo, Server};

/// A long-lived server with its watch open, logging how it answered.
fn warm(root: &Path) -> Server {
    Server::warm_with(root, |_| {})
}

/// What depends on the specs' texts: the affected specs with their files,
/// the invalid specs' errors, the reconciliation status and the `auth`
/// spec's diff.
fn answers(server: &mut Server) -> Value {
    let list = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    let status = server.call_ok(
        2,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    // The whole answer: once the spec is deleted it is an error.
    let diff = server.call(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/auth.spec.yaml", "base_branch": "main"}),
    );
    json!({
        "diff": diff,
        "affected": list["affected_specs"],
        "invalid": list["invalid_specs"],
        "status": status,
    })
}

/// Ask twice without a change (the second may skip the stamps), then
/// check the answer against a fresh server's.
fn check(root: &Path, server: &mut Server, step: &str) -> Value {
    let first = answers(server);
    let again = answers(server);
    assert_eq!(first, again, "{step}: asked twice");
    let mut fresh = Server::start(root);
    let fresh_answers = answers(&mut fresh);
    fresh.finish();
    assert_eq!(
        first, fresh_answers,
        "{step}: the warm server's specs are stale"
    );
    first
}

/// How many times `server` skipped the stamps so far.
fn skips(server: &Server) -> usize {
    server.stderr().matches("specs: not stamped again").count()
}

/// Specs `auth` (over `src/auth/**`) and `system` (`$ref` to it), a change
/// on branch `feat`.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.write(
        ".notarai/system.spec.yaml",
        "schema_version: '0.7'\nintent: The system.\nbehaviors:\n  - name: all\n    \
         given: anything\n    then: it works\nartifacts:\n  docs:\n    - path: 'README.md'\n\
         subsystems:\n  - $ref: './auth.spec.yaml'\n",
    );
    repo.spec("auth", &["src/auth/**"]);
    repo.write("README.md", "# r\n");
    repo.write("src/auth/a.rs", "fn a() {}\n");
    repo.write("src/other/c.rs", "fn c() {}\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.append("src/auth/a.rs", "fn a2() {}\n");
    repo.append("src/other/c.rs", "fn c2() {}\n");
    repo
}

#[test]
fn a_spec_changed_by_any_means_is_seen_by_a_warm_server_that_skips_stamps() {
    let repo = repo();
    let root = repo.root.clone();
    let mut server = warm(&root);
    check(&root, &mut server, "start");
    let skipped = skips(&server);
    if cfg!(target_os = "linux") {
        assert!(skipped > 0, "no stamps were skipped:\n{}", server.stderr());
    }
    // Edited in place.
    repo.spec("auth", &["src/other/**"]);
    let answer = check(&root, &mut server, "edited in place");
    assert!(answer.to_string().contains("src/other/c.rs"), "{answer}");
    // Written whole elsewhere and renamed over it, as editors save.
    let spec = root.join(".notarai/auth.spec.yaml");
    let text = std::fs::read_to_string(&spec).unwrap();
    let temp = root.join(".notarai/.auth.spec.yaml.swp");
    std::fs::write(&temp, text.replace("src/other/**", "docs/**")).unwrap();
    std::fs::rename(&temp, &spec).unwrap();
    let answer = check(&root, &mut server, "renamed over");
    assert!(!answer.to_string().contains("src/other/c.rs"), "{answer}");
    // Edited keeping its size and times.
    let before = std::fs::metadata(&spec).unwrap();
    let same_size = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("docs/**", "src/**");
    std::fs::write(&spec, &same_size).unwrap();
    let file = std::fs::File::options().write(true).open(&spec).unwrap();
    file.set_modified(before.modified().unwrap()).unwrap();
    drop(file);
    let answer = check(&root, &mut server, "same size and time");
    assert!(answer.to_string().contains("src/other/c.rs"), "{answer}");
    // A new spec, then the referenced one deleted (the `$ref` breaks).
    repo.spec("other", &["src/other/**"]);
    check(&root, &mut server, "new spec");
    std::fs::remove_file(&spec).unwrap();
    let answer = check(&root, &mut server, "deleted");
    assert!(
        answer["invalid"].to_string().contains("auth.spec.yaml"),
        "{answer}"
    );
    // Committed, then `git checkout` of the commit before: every spec as
    // it was there.
    repo.commit("specs moved");
    repo.git(&["checkout", "-q", "HEAD~1"]);
    let answer = check(&root, &mut server, "checkout");
    assert!(
        answer["invalid"].as_array().is_some_and(Vec::is_empty),
        "{answer}"
    );
    if cfg!(target_os = "linux") {
        assert!(skips(&server) > skipped, "{}", server.stderr());
    }
    server.finish();
}

#[test]
#[cfg(unix)]
fn specs_behind_a_link_to_an_ignored_folder_are_stamped_on_every_question() {
    let repo = Repo::new();
    // `.notarai` is a link to `store/specs`, which git ignores: no folder
    // the watch covers holds the specs.
    std::fs::create_dir_all(repo.root.join("store/specs")).unwrap();
    std::os::unix::fs::symlink("store/specs", repo.root.join(".notarai")).unwrap();
    repo.spec("auth", &["src/auth/**"]);
    repo.write("src/auth/a.rs", "fn a() {}\n");
    repo.write("src/other/c.rs", "fn c() {}\n");
    repo.write(".gitignore", "store/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.append("src/other/c.rs", "fn c2() {}\n");
    let root = repo.root.clone();
    let mut server = warm(&root);
    check(&root, &mut server, "start");
    repo.spec("auth", &["src/other/**"]);
    let answer = check(&root, &mut server, "edited behind the link");
    assert!(answer.to_string().contains("src/other/c.rs"), "{answer}");
    assert_eq!(skips(&server), 0, "{}", server.stderr());
    server.finish();
}

#[test]
fn a_ref_target_in_an_ignored_folder_is_stamped_on_every_question() {
    let repo = repo();
    // The system spec also names a spec kept in an ignored folder, which
    // exists (so its creation is no new folder) but lacks the file.
    repo.write(
        ".notarai/system.spec.yaml",
        "schema_version: '0.7'\nintent: The system.\nbehaviors:\n  - name: all\n    \
         given: anything\n    then: it works\nartifacts:\n  docs:\n    - path: 'README.md'\n\
         subsystems:\n  - $ref: './auth.spec.yaml'\n  - $ref: '../build/extra.spec.yaml'\n",
    );
    repo.write(".gitignore", ".notarai/.cache/\nbuild/\n");
    repo.write("build/keep.txt", "x\n");
    let root = repo.root.clone();
    let mut server = warm(&root);
    let answer = check(&root, &mut server, "target missing");
    assert!(
        answer["invalid"].to_string().contains("extra.spec.yaml"),
        "{answer}"
    );
    crate::common::write(
        &root,
        "build/extra.spec.yaml",
        "schema_version: '0.7'\nintent: Extra.\nbehaviors:\n  - name: x\n    given: a\n    \
         then: b\nartifacts:\n  code:\n    - path: 'src/other/**'\n",
    );
    let answer = check(&root, &mut server, "target created in the ignored folder");
    assert!(
        answer["invalid"].as_array().is_some_and(Vec::is_empty),
        "{answer}"
    );
    server.finish();
}
