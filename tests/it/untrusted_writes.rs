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

/// An instruction file linked to a regular file inside the work tree
/// (`CLAUDE.md -> AGENTS.md`, issue 40) is never written through: notarai's
/// section goes into the target itself, and the link stays a link.
#[test]
fn a_link_inside_the_repository_is_kept_and_its_target_edited() {
    let repo = Repo::new();
    repo.commit("init");
    repo.write("AGENTS.md", "# Agents\n\nKeep this.\n");
    std::os::unix::fs::symlink("AGENTS.md", repo.root.join("CLAUDE.md")).unwrap();
    let out = notarai(&repo.root, &["init", "--agents", "claude"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let meta = std::fs::symlink_metadata(repo.root.join("CLAUDE.md")).unwrap();
    assert!(meta.file_type().is_symlink());
    assert_eq!(
        std::fs::read_link(repo.root.join("CLAUDE.md")).unwrap(),
        std::path::Path::new("AGENTS.md")
    );
    let text = std::fs::read_to_string(repo.root.join("AGENTS.md")).unwrap();
    assert!(text.starts_with("# Agents\n\nKeep this.\n"), "{text}");
    assert_eq!(text.matches("<!-- notarai:begin").count(), 1, "{text}");
    assert!(repo.root.join(".mcp.json").is_file());
}

/// What only `src/safe_fs/` may call: writing, creating, renaming,
/// copying, linking, deleting or opening a file, creating or removing a
/// folder, changing a file's mode. Held by clippy (`clippy.toml`'s
/// `disallowed-methods`, which `cargo clippy -- -D warnings` in CI turns
/// into errors; it sees a call however it is imported or spelled, which
/// the text scan it replaced did not); this test holds the list.
const FILE_SYSTEM_CALLS: &[&str] = &[
    "std::fs::write",
    "std::fs::File::create",
    "std::fs::File::create_new",
    "std::fs::File::options",
    "std::fs::OpenOptions::new",
    "std::fs::DirBuilder::new",
    "std::fs::rename",
    "std::fs::copy",
    "std::fs::hard_link",
    "std::fs::set_permissions",
    "std::fs::remove_file",
    "std::fs::remove_dir",
    "std::fs::remove_dir_all",
    "std::fs::create_dir",
    "std::fs::create_dir_all",
    "std::fs::File::open",
    "std::fs::read",
    "std::fs::read_to_string",
    "std::fs::read_dir",
    "std::path::Path::read_dir",
    "std::process::Command::new",
];

/// The house's file-system and process rules are lints: every call above
/// is disallowed in `clippy.toml`, and only the one writer and reader
/// (`src/safe_fs/`), the one walker (`src/walk.rs`) and doctor's handshake
/// allow them, each with its reason.
#[test]
fn the_one_writer_reader_walker_and_starter_are_lints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = std::fs::read_to_string(root.join("clippy.toml")).unwrap();
    for call in FILE_SYSTEM_CALLS {
        assert!(
            config.contains(&format!("path = \"{call}\"")),
            "clippy.toml no longer disallows {call}"
        );
    }
    assert!(config.contains("too-many-lines-threshold = 100"));
    let mut allowing = Vec::new();
    for entry in notarai::walk::files(&root.join("src"), "") {
        if !entry.rel.ends_with(".rs") {
            continue;
        }
        let text = std::fs::read_to_string(&entry.path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        if code.contains("allow(clippy::disallowed_methods")
            || code.contains("allow(\n    clippy::disallowed_methods")
        {
            allowing.push(entry.rel);
        }
    }
    allowing.sort();
    assert_eq!(
        allowing,
        // lib.rs: only for unit tests (`cfg_attr(test, ...)`).
        ["doctor/handshake.rs", "lib.rs", "safe_fs/mod.rs", "walk.rs"],
        "a new exception to the house's rules: make it go through safe_fs, walk or rpc_client instead"
    );
}
