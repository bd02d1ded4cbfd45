//! `notarai init` with linked instruction files and all-or-nothing setup
//! (issue 40, point 5), through the binary. The case met on a TypeScript
//! project (colinhacks/zod): `CLAUDE.md` is a link to `AGENTS.md`, the
//! convention of one instructions file, linked. `init` failed there after it
//! had already written `.gitignore`, `.mcp.json` and `.notarai/`, and its
//! dry run had said it would update `CLAUDE.md`.

use std::path::Path;

use crate::common::{Repo, notarai, snapshot, stderr, stdout};

/// A repository whose `CLAUDE.md` is a link to `AGENTS.md`, committed.
fn linked_repo() -> Repo {
    let repo = Repo::new();
    repo.write(
        "AGENTS.md",
        "# Contributing with agents\n\nRun the tests.\n",
    );
    std::os::unix::fs::symlink("AGENTS.md", repo.root.join("CLAUDE.md")).unwrap();
    repo.write("README.md", "# zod-like\n");
    repo.commit("linked instructions");
    repo
}

fn is_link(path: &Path) -> bool {
    path.symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
}

/// The zod case: the section goes to the link's target, once, the link
/// stays a link, the dry run names the file the real run writes, and
/// `--remove` gives back every byte.
#[test]
fn a_claude_md_linked_to_agents_md_gets_the_section_in_agents_md() {
    let repo = linked_repo();
    let before = snapshot(&repo.root);
    let dry = notarai(&repo.root, &["init", "--dry-run"], b"");
    assert!(dry.status.success(), "{}", stderr(&dry));
    let planned = stdout(&dry);
    assert!(planned.contains("would update  AGENTS.md"), "{planned}");
    assert!(!planned.contains("CLAUDE.md\n"), "{planned}");
    assert_eq!(snapshot(&repo.root), before, "a dry run writes nothing");

    let out = notarai(&repo.root, &["init", "--agents", "claude,codex"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    let report = stdout(&out);
    assert!(report.contains("updated  AGENTS.md"), "{report}");
    assert!(is_link(&repo.root.join("CLAUDE.md")));
    let agents_md = std::fs::read_to_string(repo.root.join("AGENTS.md")).unwrap();
    assert!(
        agents_md.starts_with("# Contributing with agents\n\nRun the tests.\n"),
        "{agents_md}"
    );
    // One section, the one every agent reads (Claude Code and Codex both
    // read this file).
    assert_eq!(agents_md.matches("<!-- notarai:begin").count(), 1);
    assert!(repo.root.join(".mcp.json").is_file());
    assert!(repo.root.join(".codex/config.toml").is_file());
    // Planned once: a second run has nothing to write.
    let again = notarai(&repo.root, &["init", "--agents", "claude,codex"], b"");
    assert!(
        stdout(&again).contains("Already set up"),
        "{}",
        stdout(&again)
    );

    let out = notarai(&repo.root, &["init", "--remove"], b"");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(snapshot(&repo.root), before);
    assert!(is_link(&repo.root.join("CLAUDE.md")));
}

/// A link that leaves the work tree, or leads into `.git/`, is never
/// written through: `init` refuses it by name, writes nothing at all (no
/// `.gitignore`, `.mcp.json` or `.notarai/` half-setup), and its dry run
/// reports the same refusal with the same exit status.
#[test]
fn a_link_out_of_the_work_tree_or_into_git_stops_every_write() {
    for target in ["outside", "git"] {
        let repo = Repo::new();
        repo.write("README.md", "# x\n");
        let link = match target {
            "outside" => repo.outside.join("secret.txt"),
            _ => repo.root.join(".git/description"),
        };
        std::os::unix::fs::symlink(&link, repo.root.join("CLAUDE.md")).unwrap();
        repo.commit("link");
        let before = snapshot(&repo.root);
        let outside = repo.outside_snapshot();
        let git_description = std::fs::read(repo.root.join(".git/description")).unwrap();
        let dry = notarai(&repo.root, &["init", "--dry-run"], b"");
        let real = notarai(&repo.root, &["init"], b"");
        for (run, out) in [("dry", &dry), ("real", &real)] {
            assert_eq!(
                out.status.code(),
                Some(1),
                "{target} {run}: {}",
                stdout(out)
            );
            let err = stderr(out);
            assert!(err.contains("error: CLAUDE.md"), "{target} {run}: {err}");
            assert!(err.contains("nothing"), "{target} {run}: {err}");
            // The same files are listed, as planned, not as written; Claude
            // Code, whose file it is, is not set up.
            let listed = stdout(out);
            assert!(
                listed.contains("would create  .gitignore"),
                "{target} {run}"
            );
            assert!(listed.contains("Claude Code: not set up"), "{target} {run}");
        }
        assert!(stderr(&dry).contains("nothing would be written"));
        assert!(stderr(&real).contains("nothing was written"));
        assert_eq!(snapshot(&repo.root), before, "{target}: nothing written");
        assert!(!repo.root.join(".notarai").exists());
        assert_eq!(repo.outside_snapshot(), outside);
        assert_eq!(
            std::fs::read(repo.root.join(".git/description")).unwrap(),
            git_description
        );
    }
}

/// A config file that is a link (even inside the project) is never written
/// through; the refusal is found while planning, so nothing else is
/// written either, and `--dry-run` reports it too.
#[test]
fn a_linked_config_stops_the_whole_setup_in_dry_run_and_real_run() {
    let repo = Repo::new();
    repo.write("shared/cursor-mcp.json", "{\"mcpServers\": {}}\n");
    std::fs::create_dir_all(repo.root.join(".cursor")).unwrap();
    std::os::unix::fs::symlink(
        "../shared/cursor-mcp.json",
        repo.root.join(".cursor/mcp.json"),
    )
    .unwrap();
    let before = snapshot(&repo.root);
    for args in [
        &["init", "--agents", "claude,cursor", "--dry-run"][..],
        &["init", "--agents", "claude,cursor"][..],
    ] {
        let out = notarai(&repo.root, args, b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains(".cursor/mcp.json") && err.contains("never writes through a link"),
            "{args:?}: {err}"
        );
        assert_eq!(snapshot(&repo.root), before, "{args:?}");
    }
}
