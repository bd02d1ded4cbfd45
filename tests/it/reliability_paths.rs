//! Hostile paths against `spec_path`, `files` (mark_reconciled) and the CLI
//! `notarai cache update/changed`: every one is refused with a reason or
//! stays inside the root, nothing outside the root is written or shown, and
//! a refused `mark_reconciled` writes nothing. Plus a property test of the
//! path type itself: whatever `RepoPath` accepts stays inside the root.
//!
//! `NOTARAI_PROPTEST_CASES=100000 cargo test --test it reliability_paths::` runs
//! the property test longer.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;

use common::{Repo, Server, notarai, proptest_cases};
use notarai::repo_path::RepoPath;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::json;

/// A repository with links: `link` -> the outside folder, `leak.txt` -> a
/// file outside, `src/up` -> `../..` (above the root), `in` -> `src` (inside).
fn hostile_repo() -> Repo {
    let repo = Repo::with_spec();
    symlink(&repo.outside, repo.root.join("link")).unwrap();
    symlink(repo.outside.join("secret.txt"), repo.root.join("leak.txt")).unwrap();
    symlink("../..", repo.root.join("src/up")).unwrap();
    symlink("src", repo.root.join("in")).unwrap();
    repo
}

/// The hostile inputs, each with a word its refusal must contain (`None`:
/// the path is contained, i.e. accepted as a path inside the root).
fn hostile_table(repo: &Repo) -> Vec<(String, Option<&'static str>)> {
    let root = repo.root.display().to_string();
    let outside = repo.outside.display().to_string();
    vec![
        ("../x".into(), Some("climbs out")),
        ("../outside/secret.txt".into(), Some("climbs out")),
        ("a/../../b".into(), Some("climbs out")),
        ("./../../../../etc/passwd".into(), Some("climbs out")),
        ("/etc/passwd".into(), Some("outside the repository")),
        (
            format!("{outside}/secret.txt"),
            Some("outside the repository"),
        ),
        (
            format!("{root}/../outside/secret.txt"),
            Some("outside the repository"),
        ),
        ("/".into(), Some("outside the repository")),
        ("a\0b".into(), Some("NUL")),
        ("src/a.rs\0../../x".into(), Some("NUL")),
        // On Unix a backslash is part of a name, as git stores it: one
        // file in the root, which cannot climb out.
        ("..\\..\\x".into(), None),
        ("src\\a.rs".into(), None),
        ("a/".repeat(2100), Some("bytes long")),
        ("link/secret.txt".into(), Some("symbolic link")),
        ("link".into(), Some("symbolic link")),
        ("leak.txt".into(), Some("symbolic link")),
        ("src/up/outside/secret.txt".into(), Some("symbolic link")),
        (format!("{root}/link/secret.txt"), Some("symbolic link")),
        ("".into(), Some("empty")),
        (".".into(), Some("empty")),
        ("src/..".into(), Some("empty")),
        // Contained: a file literally named `~` inside the root, and a path
        // through a link that stays inside.
        ("~".into(), None),
        ("~/x".into(), None),
        ("in/a.rs".into(), None),
        ("../**".into(), Some("climbs out")),
    ]
}

/// The table's entries that name a link to outside as the last component.
fn is_final_link(input: &str) -> bool {
    input == "link" || input == "leak.txt"
}

#[test]
fn hostile_paths_refused_or_contained_everywhere() {
    let repo = hostile_repo();
    let before = repo.outside_snapshot();
    let mut server = Server::start(&repo.root);
    let mut n = 0;
    let mut tried = 0;
    for (input, refusal) in hostile_table(&repo) {
        // spec_path: never a spec; refused with the reason or "not a spec".
        for tool in ["get_spec_diff", "get_changed_artifacts"] {
            n += 1;
            tried += 1;
            let answer = server.call(n, tool, json!({"spec_path": input, "base_branch": "main"}));
            let (code, message) = Server::error_of(&answer);
            assert_eq!(code, -32602, "{tool} {input:?}: {answer}");
            let want = refusal.unwrap_or("not a spec");
            assert!(
                message.contains(want),
                "{tool} {input:?}: {message:?} lacks {want:?}"
            );
            assert!(
                !message.contains("outside the root\n"),
                "leaked content: {message}"
            );
        }
        // files: refused with the reason, and nothing written; or contained.
        n += 1;
        tried += 1;
        let answer = server.call(n, "mark_reconciled", json!({"files": ["src/a.rs", input]}));
        // A link named as the file itself is hashed as its target text, never
        // followed: contained for `files`, refused where it would be read.
        let refusal_for_files = if is_final_link(&input) { None } else { refusal };
        match refusal_for_files {
            Some(want) => {
                let (code, message) = Server::error_of(&answer);
                assert_eq!(code, -32602, "files {input:?}: {answer}");
                assert!(
                    message.contains(want),
                    "files {input:?}: {message:?} lacks {want:?}"
                );
                assert!(
                    !repo.db().exists(),
                    "a refused mark_reconciled wrote the cache ({input:?})"
                );
            }
            // Contained but absent and unknown to git: refused as a typo,
            // nothing written.
            None if answer.get("error").is_some() => {
                let (code, message) = Server::error_of(&answer);
                assert_eq!(code, -32602, "files {input:?}: {answer}");
                assert!(
                    message.contains("neither present nor known to git"),
                    "files {input:?}: {message:?}"
                );
                assert!(!repo.db().exists(), "{input:?}: a refused mark wrote");
            }
            None => {
                let result = &answer["result"]["structuredContent"];
                assert!(
                    result["updated"].as_u64().unwrap() >= 1,
                    "{input:?}: {answer}"
                );
                std::fs::remove_dir_all(repo.root.join(".notarai/.cache")).unwrap();
            }
        }
    }
    assert_eq!(
        repo.outside_snapshot(),
        before,
        "nothing outside the root was written"
    );
    eprintln!("paths: {tried} hostile calls over MCP");
    server.finish();

    // The CLI, with paths as arguments and on stdin, from the root.
    for (input, refusal) in hostile_table(&repo) {
        if input.contains('\0') {
            // An argument cannot hold NUL; stdin can.
            let out = notarai(
                &repo.root,
                &["cache", "update"],
                format!("{input}\n").as_bytes(),
            );
            assert!(!out.status.success(), "stdin {input:?} accepted");
            assert!(String::from_utf8_lossy(&out.stderr).contains("NUL"));
            continue;
        }
        if input.is_empty() || refusal.is_none() || is_final_link(&input) {
            continue;
        }
        for sub in ["update", "changed"] {
            let out = notarai(&repo.root, &["cache", sub, "src/a.rs", &input], b"");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "cache {sub} {input:?} accepted");
            assert!(
                stderr.contains("error:") && stderr.contains(refusal.unwrap()),
                "cache {sub} {input:?}: {stderr}"
            );
            assert!(
                out.stdout.is_empty(),
                "cache {sub} {input:?} printed {:?}",
                out.stdout
            );
        }
        assert!(
            !repo.db().exists(),
            "a refused cache update wrote the cache ({input:?})"
        );
    }
    // From a subfolder, `..` that stays inside is fine; one more is not.
    let out = notarai(
        &repo.root.join("src"),
        &["cache", "update", "../docs/a.md"],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = notarai(
        &repo.root.join("src"),
        &["cache", "update", "../../outside/secret.txt"],
        b"",
    );
    assert!(!out.status.success());
    assert_eq!(
        repo.outside_snapshot(),
        before,
        "nothing outside the root was written"
    );
}

/// A committed symbolic link pointing outside is diffed and hashed as its
/// target text, never followed: the outside file's content never shows.
#[test]
fn committed_link_to_outside_is_never_followed() {
    let repo = Repo::with_spec();
    symlink(
        repo.outside.join("secret.txt"),
        repo.root.join("src/leak.rs"),
    )
    .unwrap();
    symlink(&repo.outside, repo.root.join("src/dir")).unwrap();
    let before = repo.outside_snapshot();
    let mut server = Server::start(&repo.root);
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    let text = diff.to_string();
    assert!(
        !text.contains("outside the root"),
        "followed a link: {text}"
    );
    assert!(
        diff["files"]
            .as_array()
            .unwrap()
            .contains(&json!("src/leak.rs")),
        "{diff}"
    );
    let changed = server.call_ok(
        2,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/a.spec.yaml"}),
    );
    assert!(!changed.to_string().contains("secret"), "{changed}");
    // The link itself, by name, is contained: hashed as its target text
    // (as git stores it), never followed.
    let marked = server.call_ok(3, "mark_reconciled", json!({"files": ["src/leak.rs"]}));
    assert_eq!(marked["updated"], 1);
    let db = rusqlite::Connection::open(repo.db()).unwrap();
    let stored: String = db
        .query_row(
            "SELECT blake3_hash FROM file_cache WHERE path = 'src/leak.rs'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let link_text = repo.outside.join("secret.txt");
    assert_eq!(
        stored,
        blake3::hash(link_text.as_os_str().as_encoded_bytes())
            .to_hex()
            .to_string()
    );
    // Through the folder link, it is refused.
    let (code, message) = Server::error_of(&server.call(
        4,
        "mark_reconciled",
        json!({"files": ["src/dir/secret.txt"]}),
    ));
    assert_eq!(code, -32602);
    assert!(message.contains("symbolic link"), "{message}");
    assert_eq!(repo.outside_snapshot(), before);
    server.finish();
}

/// Specs whose globs try to leave the root govern nothing outside it; the
/// other specs keep working.
#[test]
fn spec_globs_cannot_leave_the_root() {
    let repo = Repo::with_spec();
    repo.write(
        ".notarai/evil.spec.yaml",
        "schema_version: \"0.7\"\nintent: evil\ntier: registered\nartifacts:\n  code:\n    - path: \"../../**\"\n    - path: \"../outside/*\"\n    - path: \"/etc/**\"\n    - path: \"link/**\"\n",
    );
    symlink(&repo.outside, repo.root.join("link")).unwrap();
    repo.write("src/a.rs", "fn a() { changed() }\n");
    let mut server = Server::start(&repo.root);
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    for spec in affected["affected_specs"].as_array().unwrap() {
        for file in spec["matched_files"].as_array().unwrap() {
            let file = file.as_str().unwrap();
            assert!(!file.starts_with("..") && !file.starts_with('/'), "{file}");
        }
    }
    let answer = server.call(
        2,
        "get_changed_artifacts",
        json!({"spec_path": ".notarai/evil.spec.yaml"}),
    );
    if answer.get("error").is_none() {
        let list = &answer["result"]["structuredContent"]["changed_artifacts"];
        for file in list.as_array().unwrap() {
            let file = file.as_str().unwrap();
            assert!(
                !file.starts_with("..") && !file.starts_with('/') && !file.contains("secret"),
                "{file}"
            );
        }
    } else {
        // A loader may refuse such globs: then it is an invalid spec, named.
        assert!(
            affected["invalid_specs"].to_string().contains("evil"),
            "{affected}"
        );
    }
    let diff = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(
        diff["files"],
        json!(["src/a.rs"]),
        "the good spec still works: {diff}"
    );
    server.finish();
}

/// Build the file system the property test resolves against.
fn link_farm() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("root");
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::create_dir_all(base.join("outside")).unwrap();
    std::fs::write(root.join("a/f"), "x").unwrap();
    symlink(base.join("outside"), root.join("out")).unwrap();
    symlink("../..", root.join("a/up")).unwrap();
    symlink("b", root.join("a/in")).unwrap();
    symlink("/", root.join("a/slash")).unwrap();
    symlink("missing", root.join("a/dangling")).unwrap();
    (dir, root)
}

/// The deepest existing ancestor of `path`, canonicalized.
fn canonical_prefix(path: &Path) -> std::path::PathBuf {
    let mut p = path.to_path_buf();
    loop {
        if let Ok(c) = p.canonicalize() {
            return c;
        }
        if !p.pop() {
            return p;
        }
    }
}

/// Whatever `RepoPath::resolve` accepts is relative, normalized, and (through
/// every link that exists) inside the root.
#[test]
fn prop_repo_path_accepts_only_what_stays_inside() {
    let (_dir, root) = link_farm();
    let part = prop::sample::select(vec![
        "..", ".", "", "a", "b", "f", "out", "up", "in", "slash", "dangling", "~", "x\\y", "\0",
        "root", "outside",
    ]);
    let prefix = prop::sample::select(vec!["", "/", "ROOT/", "ROOT/../", "ROOT/a/"]);
    let strategy = (prefix, prop::collection::vec(part, 0..8));
    let mut runner = TestRunner::new(Config {
        cases: proptest_cases(4096),
        failure_persistence: None,
        ..Config::default()
    });
    let root_str = root.display().to_string();
    let accepted = std::cell::Cell::new(0u32);
    runner
        .run(&strategy, |(prefix, parts)| {
            let input = format!("{}{}", prefix.replace("ROOT", &root_str), parts.join("/"));
            let Ok(path) = RepoPath::resolve(&root, &input) else {
                return Ok(());
            };
            accepted.set(accepted.get() + 1);
            let s = path.as_str();
            prop_assert!(
                !s.is_empty() && !s.starts_with('/'),
                "{:?} -> {:?}",
                input,
                s
            );
            prop_assert!(!s.contains('\0'), "{:?} -> {:?}", input, s);
            prop_assert!(
                s.split('/').all(|c| !c.is_empty() && c != "." && c != ".."),
                "{:?} -> {:?} is not normalized",
                input,
                s
            );
            let real = canonical_prefix(&path.to_fs(&root));
            prop_assert!(
                real.starts_with(&root),
                "{:?} -> {:?} reaches {:?}",
                input,
                s,
                real
            );
            // Parsing the accepted form again is a fixed point.
            let again = RepoPath::parse(s).map(RepoPath::into_string);
            prop_assert_eq!(again, Ok(s.to_string()));
            Ok(())
        })
        .unwrap();
    eprintln!("RepoPath: {} inputs accepted", accepted.get());
    assert!(
        accepted.get() > 0,
        "the generator never produced an acceptable path"
    );
}
