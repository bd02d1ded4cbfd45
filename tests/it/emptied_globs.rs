//! A change that deletes the last file an artifact glob matches leaves the
//! spec naming what is gone: `get_spec_diff` says so (`emptied_globs`), so
//! the pass that reviews the deletion fixes the spec and `check --strict`
//! (N003) stays green after a faithful pass.

use serde_json::json;

use crate::common::{Repo, notarai, stdout, strings};

const DOCS: &str = ".notarai/docs.spec.yaml";

/// `main`: a docs spec naming `AUTHORS.md`, `docs/*.md` (two files) and
/// `guide/**` (one file); branch `feat`.
fn project() -> Repo {
    on_feat(
        &["AUTHORS.md", "docs/*.md", "guide/**"],
        &[
            ("AUTHORS.md", "# Authors\n- a\n"),
            ("docs/a.md", "# A\n"),
            ("docs/b.md", "# B\n"),
            ("guide/intro.md", "# Intro\n"),
        ],
    )
}

/// `main`: a docs spec naming `globs`, and `files`; branch `feat`.
fn on_feat(globs: &[&str], files: &[(&str, &str)]) -> Repo {
    let repo = Repo::new();
    let globs: String = globs
        .iter()
        .map(|g| format!("    - path: '{g}'\n"))
        .collect();
    repo.write(
        DOCS,
        format!(
            "schema_version: '0.8'\nintent: The documentation.\nbehaviors:\n  - name: b\n    given: x\n    then: y\nartifacts:\n  docs:\n{globs}"
        ),
    );
    for (path, text) in files {
        repo.write(path, text);
    }
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

fn emptied(repo: &Repo) -> Vec<String> {
    let mut server = repo.server();
    let answer = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": DOCS, "base_branch": "main"}),
    );
    strings(&answer["emptied_globs"])
}

#[test]
fn deleting_the_only_file_a_glob_names_is_said_and_check_strict_agrees() {
    let repo = project();
    repo.remove("AUTHORS.md");
    repo.remove("docs/a.md");
    repo.commit("drop authors and one doc");
    // `docs/*.md` still matches docs/b.md: only the literal path is gone.
    assert_eq!(emptied(&repo), vec!["AUTHORS.md".to_string()]);
    let out = notarai(&repo.root, &["check", "--strict", "--base", "main"], b"");
    assert!(
        stdout(&out).contains("`AUTHORS.md` matches no file"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_uncommitted_deletion_counts_and_a_wildcard_glob_emptied_too() {
    let repo = project();
    // Deleted in the work tree only (the index still has them).
    std::fs::remove_file(repo.root.join("guide/intro.md")).unwrap();
    std::fs::remove_file(repo.root.join("AUTHORS.md")).unwrap();
    assert_eq!(
        emptied(&repo),
        vec!["AUTHORS.md".to_string(), "guide/**".to_string()]
    );
}

#[test]
fn a_file_moved_elsewhere_or_replaced_is_not_an_emptied_glob() {
    let repo = project();
    // Renamed to a path the same glob still matches, and a new untracked
    // file under the wildcard glob's folder.
    repo.git(&["mv", "docs/a.md", "docs/c.md"]);
    std::fs::remove_file(repo.root.join("guide/intro.md")).unwrap();
    repo.write("guide/new.md", "# New\n");
    assert!(emptied(&repo).is_empty());
}

#[test]
fn the_answer_is_quiet_about_globs_when_nothing_was_deleted() {
    let repo = project();
    repo.write("AUTHORS.md", "# Authors\n- a\n- b\n");
    let mut server = repo.server();
    let answer = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": DOCS, "base_branch": "main"}),
    );
    assert!(answer.get("emptied_globs").is_none(), "{answer}");
}

#[test]
fn a_wildcard_glob_is_emptied_by_its_last_file_deleted_or_moved_away() {
    // A glob with no literal prefix looks at the whole repository; a file
    // moved elsewhere in the work tree only (the index still names it at
    // its old path) is not there any more.
    let repo = on_feat(
        &["**/*.txt", "notes/*.md"],
        &[
            ("a/one.txt", "one\n"),
            ("notes/a.md", "# A\n"),
            ("notes/b.md", "# B\n"),
        ],
    );
    repo.remove("a/one.txt");
    repo.remove("notes/a.md");
    std::fs::create_dir_all(repo.root.join("elsewhere")).unwrap();
    std::fs::rename(
        repo.root.join("notes/b.md"),
        repo.root.join("elsewhere/b.md"),
    )
    .unwrap();
    assert_eq!(
        emptied(&repo),
        vec!["**/*.txt".to_string(), "notes/*.md".to_string()]
    );
    // A new file anywhere keeps the wildcard glob matched.
    repo.write("deep/er/two.txt", "two\n");
    assert_eq!(emptied(&repo), vec!["notes/*.md".to_string()]);
}

/// With `core.ignorecase` (the default `git init` writes on macOS and
/// Windows) the index sorts without case, so `docs/API.md` lies between
/// `docs/api`'s entries: every entry below a prefix is still found, for the
/// emptied-glob check and for a spec's files.
#[test]
fn an_index_sorted_without_case_still_holds_every_file_below_a_prefix() {
    let repo = on_feat(
        &["docs/api/**"],
        &[
            ("docs/API.md", "# Index\n"),
            ("docs/api/a.md", "# A\n"),
            ("docs/api/x.md", "# X\n"),
        ],
    );
    // libgit2 sorts the index it reads by this setting.
    repo.git(&["config", "core.ignorecase", "true"]);
    repo.remove("docs/api/a.md");
    repo.commit("drop a");
    // `docs/api/x.md` is still there.
    assert!(emptied(&repo).is_empty());
    // The files below a folder, read from the index below its prefix.
    assert_eq!(
        notarai::project::repo_files_in(&repo.root, Some("docs/api")),
        vec!["docs/api/x.md".to_string()]
    );
}
