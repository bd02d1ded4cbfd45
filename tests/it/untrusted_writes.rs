//! A cloned repository is untrusted input: nothing notarai writes may land
//! outside it.
//!
//! Threat model. Whoever committed the repository controls every entry in
//! it: names, kinds (file, folder, symbolic link, FIFO) and link targets,
//! including links planted under any name notarai might write, for any
//! process id it might run with. They do not control the user's machine
//! beyond that: the files outside the repository, notarai's binary, its
//! arguments. notarai guarantees that running `notarai init` or starting
//! `notarai mcp` in such a repository changes no byte outside it: every file
//! is written by the one safe writer (`safe_fs::write_file`), which creates its
//! temporary file exclusively under an unpredictable name (a planted link is
//! never opened), checks the folder chain once (never into a git directory),
//! and refuses a target that is a symbolic link, wherever it leads: a
//! `CLAUDE.md` linked to `AGENTS.md` is reported, not written through, as a
//! committed link into `.git/` would be.

use std::path::Path;

use crate::common::{Repo, notarai, stderr, stdout};

/// Every file `notarai init` and the server write.
const WRITTEN: &[&str] = &[
    ".mcp.json",
    ".gitignore",
    ".claude/settings.json",
    ".claude/skills/notarai-reconcile/SKILL.md",
    ".claude/skills/notarai-bootstrap/SKILL.md",
    "CLAUDE.md",
    ".notarai/notarai.spec.json",
    ".notarai/README.md",
    ".notarai/system.spec.yaml",
    ".notarai/.cache/load-status.json",
];

/// Every file `init` and the server write is a regular file in place,
/// nothing outside changes. (Links planted under the writer's temporary
/// names can no longer be hit: `safe_fs::write_file` creates them through
/// `tempfile`, random and exclusive; the test that planted 31,000 links
/// under the names of old could not fail.)
#[test]
fn init_and_the_server_write_every_file_in_place() {
    let repo = Repo::new();
    repo.write("README.md", "# Project\n");
    repo.commit("init");
    // The server keeps its load status only in a cache folder that exists.
    std::fs::create_dir_all(repo.root.join(".notarai/.cache")).unwrap();
    let before = repo.outside_snapshot();

    let out = notarai(&repo.root, &["init"], b"");
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    let mut server = repo.server();
    server.call_ok(
        1,
        "list_affected_specs",
        serde_json::json!({"base_branch": "main"}),
    );
    drop(server);

    assert_eq!(
        repo.outside_snapshot(),
        before,
        "a byte outside the repository changed"
    );
    for rel in WRITTEN {
        let meta = std::fs::symlink_metadata(repo.root.join(rel))
            .unwrap_or_else(|e| panic!("{rel} was not written: {e}"));
        assert!(meta.is_file(), "{rel} is a regular file");
    }
    let status =
        std::fs::read_to_string(repo.root.join(".notarai/.cache/load-status.json")).unwrap();
    assert!(status.contains("system.spec.yaml"), "{status}");
}

#[test]
fn a_target_linked_outside_the_repository_is_refused() {
    let repo = Repo::new();
    repo.commit("init");
    let victim = repo.outside.join("secret.txt");
    std::os::unix::fs::symlink(&victim, repo.root.join("CLAUDE.md")).unwrap();
    let before = repo.outside_snapshot();
    let out = notarai(&repo.root, &["init"], b"");
    assert!(!out.status.success(), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("CLAUDE.md") && err.contains("outside"),
        "{err}"
    );
    assert_eq!(repo.outside_snapshot(), before);

    // The server's status stamp, linked out, is neither read nor written.
    std::fs::remove_file(repo.root.join("CLAUDE.md")).unwrap();
    repo.spec("a", &["src/**"]);
    std::fs::create_dir_all(repo.root.join(".notarai/.cache")).unwrap();
    std::os::unix::fs::symlink(&victim, repo.root.join(".notarai/.cache/load-status.json"))
        .unwrap();
    let mut server = repo.server();
    server.call_ok(
        1,
        "list_affected_specs",
        serde_json::json!({"base_branch": "main"}),
    );
    drop(server);
    assert_eq!(repo.outside_snapshot(), before);
}

#[test]
fn a_link_inside_the_repository_is_refused_and_kept() {
    let repo = Repo::new();
    repo.commit("init");
    repo.write("AGENTS.md", "# Agents\n\nKeep this.\n");
    std::os::unix::fs::symlink("AGENTS.md", repo.root.join("CLAUDE.md")).unwrap();
    let out = notarai(&repo.root, &["init", "--agents", "claude"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("CLAUDE.md") && err.contains("never writes through a link"),
        "{err}"
    );
    let meta = std::fs::symlink_metadata(repo.root.join("CLAUDE.md")).unwrap();
    assert!(meta.file_type().is_symlink());
    let text = std::fs::read_to_string(repo.root.join("AGENTS.md")).unwrap();
    assert_eq!(text, "# Agents\n\nKeep this.\n");
    // The rest of the setup is done.
    assert!(repo.root.join(".mcp.json").is_file());
}

/// What only `src/safe_fs/` may call: writing, creating, renaming,
/// copying, linking, deleting or opening a file, creating or removing a
/// folder, changing a file's mode.
const FILE_SYSTEM_CALLS: &[&str] = &[
    "fs::write(",
    "File::create(",
    "File::create_new(",
    "File::options(",
    "OpenOptions::new(",
    "DirBuilder::new(",
    "fs::rename(",
    "fs::copy(",
    "fs::hard_link(",
    "fs::set_permissions(",
    "fs::remove_file(",
    "fs::remove_dir(",
    "fs::remove_dir_all(",
    "fs::create_dir(",
    "fs::create_dir_all(",
    "File::open(",
    "fs::read(",
    "fs::read_to_string(",
    "tempfile::",
];

/// The same calls imported by name (`use std::fs::{remove_file, ...}`),
/// which the qualified search above would miss.
const IMPORTED: &[&str] = &[
    "write",
    "rename",
    "copy",
    "hard_link",
    "set_permissions",
    "remove_file",
    "remove_dir",
    "remove_dir_all",
    "create_dir",
    "create_dir_all",
    "read",
    "read_to_string",
    "OpenOptions",
    "DirBuilder",
];

/// Every line of `src/` (code before its unit tests) that calls the file
/// system directly, `src/safe_fs/` included when `with_safe_fs`.
fn direct_file_system_calls(with_safe_fs: bool) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for entry in notarai::walk::files(&src, "") {
        if (!with_safe_fs && entry.rel.starts_with("safe_fs/")) || !entry.rel.ends_with(".rs") {
            continue;
        }
        let text = std::fs::read_to_string(&entry.path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in code.lines().enumerate() {
            let called = FILE_SYSTEM_CALLS.iter().any(|w| {
                line.match_indices(w).any(|(at, _)| {
                    // `safe_fs::write_file(` is the one writer itself.
                    !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                })
            });
            let imported = line
                .trim_start()
                .strip_prefix("use std::fs::")
                .is_some_and(|names| {
                    names
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|name| IMPORTED.contains(&name))
                });
            if called || imported {
                found.push(format!("src/{}:{}: {}", entry.rel, n + 1, line.trim()));
            }
        }
    }
    found
}

/// Writes, removals, folder creations and reads of files go through one
/// module: no other source file writes, creates, renames, deletes or opens a
/// file, or creates or removes a folder (tests excluded).
#[test]
fn every_write_goes_through_the_one_safe_writer() {
    let offenders = direct_file_system_calls(false);
    assert!(
        offenders.is_empty(),
        "file system calls outside src/safe_fs/ (use notarai::safe_fs):\n{}",
        offenders.join("\n")
    );
}

/// The scan sees what it looks for: the one writer's own writes, removals,
/// folder creations and opens.
#[test]
fn the_write_scan_finds_the_safe_writers_calls() {
    let found = direct_file_system_calls(true).join("\n");
    for call in [
        "fs::remove_file(",
        "fs::remove_dir(",
        "fs::create_dir(",
        "fs::rename(",
        "OpenOptions::new(",
    ] {
        assert!(
            found.contains(call) && found.contains("src/safe_fs/"),
            "the scan missed {call} in src/safe_fs/:\n{found}"
        );
    }
}
