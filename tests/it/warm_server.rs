//! The long-lived server keeps the status of the work tree between questions
//! (`src/watch/`): these tests change the repository between two calls on
//! the same server and check that the second answer sees the change, and
//! that it is exactly what a fresh server answers from the disk.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Repo, Server, strings};

/// A repository with a spec over `**/*.rs` (the whole-work-tree question,
/// the one the kept status serves), `src/a.rs`, `src/b.rs`, `.gitignore`
/// ignoring `build/`, committed on `main`; branch `feat` checked out.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.spec("rust", &["**/*.rs"]);
    repo.spec("src", &["src/**/*.rs"]);
    repo.write("src/a.rs", "fn a() {}\n");
    repo.write("src/b.rs", "fn b() {}\n");
    repo.write(".gitignore", "build/\n.notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

/// The long-lived server under test, logging how it answered.
fn warm(repo: &Repo) -> Server {
    warm_at(&repo.root)
}

/// [`warm`] on the work tree at `root`.
fn warm_at(root: &Path) -> Server {
    Server::warm_with(root, |_| {})
}

/// Close the warm server; on Linux its log must show it served kept
/// answers (so the tests above exercised the warm path, not only the disk).
fn finish(server: Server, diffed_again: bool) {
    let log = server.finish();
    if cfg!(target_os = "linux") {
        // Served from the kept status, or from a whole answer kept from it.
        assert!(
            log.contains("kept status: served") || log.contains("kept answer served"),
            "{log}"
        );
        assert!(log.contains("files of a narrower scope"), "{log}");
        if diffed_again {
            assert!(log.contains("changed files diffed again"), "{log}");
        }
    }
}

/// The whole-work-tree answers of `server` against `base` (the list, the
/// `**/*.rs` diff), with the `src/**/*.rs` diff (a narrower scope, answered
/// from the kept list) folded into the second.
fn answers(server: &mut Server, base: &str) -> (Value, Value) {
    let list = server.call_ok(1, "list_affected_specs", json!({"base_branch": base}));
    let diff = |server: &mut Server, spec: &str| {
        server.call_ok(
            2,
            "get_spec_diff",
            json!({"spec_path": spec, "base_branch": base, "bypass_cache": true}),
        )
    };
    let all = diff(server, ".notarai/rust.spec.yaml");
    let src = diff(server, ".notarai/src.spec.yaml");
    (list, json!({"diff": all["diff"], "all": all, "src": src}))
}

/// Ask the warm server, check it answers what a fresh server answers, and
/// return the changed files and the diff text.
fn ask(repo: &Repo, warm: &mut Server, base: &str) -> (Vec<String>, String) {
    ask_at(&repo.root, warm, base)
}

/// [`ask`] on the work tree at `root`.
fn ask_at(root: &Path, warm: &mut Server, base: &str) -> (Vec<String>, String) {
    let (list, diff) = answers(warm, base);
    let mut fresh = Server::start(root);
    let (fresh_list, fresh_diff) = answers(&mut fresh, base);
    fresh.finish();
    assert_eq!(list, fresh_list, "warm list_affected_specs is stale");
    assert_eq!(diff, fresh_diff, "warm get_spec_diff is stale");
    (
        strings(&list["changed_files"]),
        diff["diff"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn an_edit_between_two_calls_is_seen() {
    let repo = repo();
    let mut server = warm(&repo);
    let (files, _) = ask(&repo, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    // Served twice from the kept status, then an edit.
    ask(&repo, &mut server, "main");
    repo.append("src/a.rs", "fn first() {}\n");
    let (files, diff) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/a.rs"]);
    assert!(diff.contains("+fn first() {}"), "{diff}");
    // The same file again: the list is the same, the diff is not.
    repo.append("src/a.rs", "fn second() {}\n");
    let (files, diff) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/a.rs"]);
    assert!(diff.contains("+fn second() {}"), "{diff}");
    // A change of mode only.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let path = repo.root.join("src/b.rs");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (files, _) = ask(&repo, &mut server, "main");
        assert_eq!(files, ["src/a.rs", "src/b.rs"]);
    }
    finish(server, true);
}

#[test]
fn a_new_untracked_file_is_seen_in_old_and_new_folders() {
    let repo = repo();
    let mut server = warm(&repo);
    ask(&repo, &mut server, "main");
    repo.write("src/new.rs", "fn new() {}\n");
    let (files, diff) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/new.rs"]);
    assert!(diff.contains("+fn new() {}"), "{diff}");
    // A new folder tree, then a file inside it once the folder is known.
    repo.write("lib/deep/x.rs", "fn x() {}\n");
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["lib/deep/x.rs", "src/new.rs"]);
    repo.write("lib/deep/y.rs", "fn y() {}\n");
    repo.write("lib/deep/er/z.rs", "fn z() {}\n");
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(
        files,
        [
            "lib/deep/er/z.rs",
            "lib/deep/x.rs",
            "lib/deep/y.rs",
            "src/new.rs"
        ]
    );
    finish(server, true);
}

#[test]
fn a_deletion_is_seen() {
    let repo = repo();
    let mut server = warm(&repo);
    ask(&repo, &mut server, "main");
    repo.remove("src/b.rs");
    let (files, diff) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/b.rs"]);
    assert!(diff.contains("-fn b() {}"), "{diff}");
    // A whole folder goes.
    std::fs::remove_dir_all(repo.root.join("src")).unwrap();
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/a.rs", "src/b.rs"]);
    finish(server, true);
}

#[test]
fn a_git_commit_is_seen() {
    let repo = repo();
    let mut server = warm(&repo);
    repo.append("src/a.rs", "fn edit() {}\n");
    // Against the branch itself: what is not committed yet.
    let (files, _) = ask(&repo, &mut server, "feat");
    assert_eq!(files, ["src/a.rs"]);
    repo.commit("edit");
    let (files, _) = ask(&repo, &mut server, "feat");
    assert!(files.is_empty(), "{files:?}");
    // Against main the committed edit stays a change of the branch.
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/a.rs"]);
    // Only the index changes: the file leaves it and stays on disk.
    repo.git(&["rm", "-q", "--cached", "src/b.rs"]);
    let (files, _) = ask(&repo, &mut server, "feat");
    assert_eq!(files, ["src/b.rs"]);
    // Nothing changed since: the kept answer, still right.
    let (files, _) = ask(&repo, &mut server, "feat");
    assert_eq!(files, ["src/b.rs"]);
    finish(server, false);
}

#[test]
fn a_git_checkout_is_seen() {
    let repo = repo();
    let mut server = warm(&repo);
    repo.append("src/a.rs", "fn edit() {}\n");
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/a.rs"]);
    repo.git(&["checkout", "-q", "--", "src/a.rs"]);
    let (files, _) = ask(&repo, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    // A commit on the branch, then back to main: nothing is the branch's.
    repo.write("src/c.rs", "fn c() {}\n");
    repo.commit("c");
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/c.rs"]);
    repo.git(&["checkout", "-q", "main"]);
    let (files, _) = ask(&repo, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    repo.git(&["checkout", "-q", "feat"]);
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/c.rs"]);
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/c.rs"]);
    finish(server, false);
}

#[test]
fn a_change_of_gitignore_is_seen() {
    let repo = repo();
    repo.write("build/out.rs", "fn out() {}\n");
    let mut server = warm(&repo);
    let (files, _) = ask(&repo, &mut server, "main");
    assert!(files.is_empty(), "ignored: {files:?}");
    // No longer ignored: its files are new, and so are later ones there.
    repo.write(".gitignore", ".notarai/.cache/\n");
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, [".gitignore", "build/out.rs"]);
    repo.write("build/later.rs", "fn later() {}\n");
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, [".gitignore", "build/later.rs", "build/out.rs"]);
    // Ignored again, through a nested ignore file this time.
    repo.write("build/.gitignore", "*\n");
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, [".gitignore"]);
    // And through the repository's own exclude file.
    repo.write(".gitignore", "build/\n.notarai/.cache/\n");
    std::fs::remove_file(repo.root.join("build/.gitignore")).unwrap();
    repo.write("src/tmp.rs", "fn tmp() {}\n");
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/tmp.rs"]);
    repo.write(".git/info/exclude", "src/tmp.rs\n");
    let (files, _) = ask(&repo, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    finish(server, true);
}

#[test]
fn a_move_is_paired_as_a_rename() {
    let repo = repo();
    let mut server = warm(&repo);
    ask(&repo, &mut server, "main");
    std::fs::rename(repo.root.join("src/b.rs"), repo.root.join("src/moved.rs")).unwrap();
    let (files, diff) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/b.rs", "src/moved.rs"]);
    assert!(diff.contains("rename from src/b.rs"), "{diff}");
    // Moved on within the narrower scope, then an edit of another file.
    std::fs::rename(
        repo.root.join("src/moved.rs"),
        repo.root.join("src/again.rs"),
    )
    .unwrap();
    repo.append("src/a.rs", "fn more() {}\n");
    let (files, diff) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/a.rs", "src/again.rs", "src/b.rs"]);
    assert!(diff.contains("rename to src/again.rs"), "{diff}");
    finish(server, true);
}

#[cfg(unix)]
fn chmod_x(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Append `text` to the file at `path` (anywhere, not only in the root).
fn append_at(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[test]
#[cfg(unix)]
fn a_write_through_a_hard_link_from_outside_is_seen() {
    let repo = repo();
    // A second name of `src/a.rs`, in a folder no watch covers.
    let outside = repo.outside.join("a-link.rs");
    std::fs::hard_link(repo.root.join("src/a.rs"), &outside).unwrap();
    let mut server = warm(&repo);
    let (files, _) = ask(&repo, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    append_at(&outside, "fn through_the_link() {}\n");
    let (files, diff) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/a.rs"]);
    assert!(diff.contains("+fn through_the_link() {}"), "{diff}");
    append_at(&outside, "fn again() {}\n");
    let (_, diff) = ask(&repo, &mut server, "main");
    assert!(diff.contains("+fn again() {}"), "{diff}");
    // A link made inside the tree later: a write through the new name
    // changes the old one too.
    std::fs::hard_link(repo.root.join("src/b.rs"), repo.root.join("src/b2.rs")).unwrap();
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/a.rs", "src/b2.rs"]);
    append_at(&repo.root.join("src/b2.rs"), "fn shared() {}\n");
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/a.rs", "src/b.rs", "src/b2.rs"]);
    finish(server, true);
}

#[test]
#[cfg(target_os = "linux")]
fn a_write_through_a_shared_mapping_is_seen_when_released() {
    let repo = repo();
    let mut server = warm(&repo);
    ask(&repo, &mut server, "main");
    let path = repo.root.join("src/a.rs");
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    // SAFETY: a shared mapping of a file this test owns, unmapped below.
    let map = unsafe {
        use std::os::fd::AsRawFd;
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    assert_ne!(map, libc::MAP_FAILED);
    // The descriptor is closed before any write: the mapping stays, and
    // no `write` call is ever made.
    drop(file);
    // SAFETY: byte 3 ("fn a() {}": the name) is within the mapping; the
    // mapping is not used after `munmap`.
    unsafe {
        *(map as *mut u8).add(3) = b'z';
        assert_eq!(libc::msync(map, len, libc::MS_SYNC), 0);
        libc::munmap(map, len);
    }
    let (files, diff) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/a.rs"]);
    assert!(diff.contains("+fn z() {}"), "{diff}");
    finish(server, true);
}

/// The diff text of the `src` spec against `main`.
fn src_diff(server: &mut Server) -> String {
    let answer = server.call_ok(
        3,
        "get_spec_diff",
        json!({"spec_path": ".notarai/src.spec.yaml", "base_branch": "main", "bypass_cache": true}),
    );
    answer["diff"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_spec_edited_in_place_keeping_size_and_time_is_seen() {
    let repo = repo();
    repo.append("src/a.rs", "fn edit() {}\n");
    repo.write("lib/c.rs", "fn lib() {}\n");
    let mut server = warm(&repo);
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["lib/c.rs", "src/a.rs"]);
    let diff = src_diff(&mut server);
    assert!(diff.contains("+fn edit() {}") && !diff.contains("fn lib()"));
    // The `src` spec governs another folder now: same size, same time.
    let path = repo.root.join(".notarai/src.spec.yaml");
    let before = std::fs::metadata(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replace("src/**/*.rs", "lib/**/*.rs");
    assert_eq!(edited.len(), text.len());
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::io::Write::write_all(&mut &file, edited.as_bytes()).unwrap();
    file.set_modified(before.modified().unwrap()).unwrap();
    drop(file);
    let after = std::fs::metadata(&path).unwrap();
    assert_eq!(after.modified().unwrap(), before.modified().unwrap());
    assert_eq!(after.len(), before.len());
    ask(&repo, &mut server, "main");
    // The new glob is seen: `lib/c.rs` is the spec's now. `src/a.rs` stays
    // shown: the spec at the merge base governed it (a spec narrowed away
    // from a change in the same change quiets nothing).
    let diff = src_diff(&mut server);
    assert!(diff.contains("+fn lib() {}") && diff.contains("+fn edit() {}"));
    finish(server, false);
}

#[test]
#[cfg(unix)]
fn a_linked_worktrees_shared_exclude_and_config_are_seen() {
    let repo = repo();
    let wt = repo.root.parent().unwrap().join("wt");
    repo.git(&["worktree", "add", "-q", "-b", "wt", wt.to_str().unwrap()]);
    crate::common::write(&wt, "src/tmp.rs", "fn tmp() {}\n");
    let mut server = warm_at(&wt);
    let (files, _) = ask_at(&wt, &mut server, "main");
    assert_eq!(files, ["src/tmp.rs"]);
    // The main repository's `info/exclude` holds the linked worktree's rules.
    crate::common::write(&repo.root, ".git/info/exclude", "src/tmp.rs\n");
    let (files, _) = ask_at(&wt, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    // And its config: a change of mode stops counting.
    chmod_x(&wt.join("src/b.rs"));
    let (files, _) = ask_at(&wt, &mut server, "main");
    assert_eq!(files, ["src/b.rs"]);
    repo.git(&["config", "core.fileMode", "false"]);
    let (files, _) = ask_at(&wt, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    finish(server, false);
}

#[test]
#[cfg(unix)]
fn config_pulled_in_by_include_path_is_seen() {
    let repo = repo();
    let included = repo.outside.join("included.gitconfig");
    std::fs::write(&included, "").unwrap();
    repo.git(&["config", "include.path", included.to_str().unwrap()]);
    chmod_x(&repo.root.join("src/b.rs"));
    let mut server = warm(&repo);
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/b.rs"]);
    std::fs::write(&included, "[core]\n\tfileMode = false\n").unwrap();
    let (files, _) = ask(&repo, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    // A file that included file includes in turn.
    let nested = repo.outside.join("nested.gitconfig");
    std::fs::write(&nested, "").unwrap();
    std::fs::write(
        &included,
        format!("[include]\n\tpath = {}\n", nested.display()),
    )
    .unwrap();
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/b.rs"]);
    std::fs::write(&nested, "[core]\n\tfileMode = false\n").unwrap();
    let (files, _) = ask(&repo, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    // Nothing changed since: the kept answer.
    ask(&repo, &mut server, "main");
    finish(server, false);
}

#[test]
#[cfg(unix)]
fn an_excludes_file_named_by_an_included_config_is_seen() {
    let repo = repo();
    repo.write("src/new.rs", "fn n() {}\n");
    let ignore = repo.outside.join("ignore");
    std::fs::write(&ignore, "src/new.rs\n").unwrap();
    let included = repo.outside.join("included.gitconfig");
    std::fs::write(&included, "").unwrap();
    repo.git(&["config", "include.path", included.to_str().unwrap()]);
    let mut server = warm(&repo);
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/new.rs"]);
    // The included file names an excludes file: the untracked file is ignored.
    std::fs::write(
        &included,
        format!("[core]\n\texcludesFile = {}\n", ignore.display()),
    )
    .unwrap();
    let (files, _) = ask(&repo, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    // The excludes file changes: seen too.
    std::fs::write(&ignore, "other\n").unwrap();
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/new.rs"]);
    // Under `includeIf` (a condition that holds for this repository).
    std::fs::write(&included, "").unwrap();
    std::fs::write(&ignore, "src/new.rs\n").unwrap();
    let conditional = repo.outside.join("conditional.gitconfig");
    std::fs::write(&conditional, "").unwrap();
    repo.git(&[
        "config",
        &format!("includeIf.gitdir:{}/.path", repo.root.display()),
        conditional.to_str().unwrap(),
    ]);
    let (files, _) = ask(&repo, &mut server, "main");
    assert_eq!(files, ["src/new.rs"]);
    std::fs::write(
        &conditional,
        format!("[core]\n\texcludesFile = {}\n", ignore.display()),
    )
    .unwrap();
    let (files, _) = ask(&repo, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    server.finish();
}

#[test]
#[cfg(unix)]
fn an_excludes_file_named_by_a_linked_worktrees_shared_config_is_seen() {
    let repo = repo();
    let wt = repo.root.parent().unwrap().join("wt");
    repo.git(&["worktree", "add", "-q", "-b", "wt", wt.to_str().unwrap()]);
    crate::common::write(&wt, "src/tmp.rs", "fn tmp() {}\n");
    let ignore = repo.outside.join("ignore");
    std::fs::write(&ignore, "src/tmp.rs\n").unwrap();
    let mut server = warm_at(&wt);
    let (files, _) = ask_at(&wt, &mut server, "main");
    assert_eq!(files, ["src/tmp.rs"]);
    // The main repository's config, shared by the linked worktree.
    repo.git(&["config", "core.excludesFile", ignore.to_str().unwrap()]);
    let (files, _) = ask_at(&wt, &mut server, "main");
    assert!(files.is_empty(), "{files:?}");
    repo.git(&["config", "--unset", "core.excludesFile"]);
    let (files, _) = ask_at(&wt, &mut server, "main");
    assert_eq!(files, ["src/tmp.rs"]);
    server.finish();
}

/// A spec whose `$ref` names a file outside `.notarai/`: a long-lived
/// server sees the target deleted and brought back, and a new server does
/// not trust a load status kept while it was there.
#[test]
fn a_ref_target_outside_the_spec_folder_is_stamped_like_a_spec() {
    let repo = Repo::new();
    repo.write(
        ".notarai/auth.spec.yaml",
        "schema_version: '0.7'\nintent: Auth.\nbehaviors:\n  - name: login\n    given: a user\n    then: a session\ndesign:\n  style_guide:\n    - $ref: ../docs/style.md\nartifacts:\n  code:\n    - path: 'src/**'\n",
    );
    repo.write("docs/style.md", "# style\n");
    repo.write("src/a.rs", "fn a() {}\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.append("src/a.rs", "fn b() {}\n");
    let invalid = |server: &mut Server| -> Vec<String> {
        let list = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
        list["invalid_specs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["error"].as_str().unwrap().to_string())
            .collect()
    };
    let mut server = warm(&repo);
    assert!(invalid(&mut server).is_empty());
    // Create the cache folder, so the load status is kept for the next server.
    server.call_ok(2, "mark_reconciled", json!({"files": ["docs/style.md"]}));
    std::fs::remove_file(repo.root.join("docs/style.md")).unwrap();
    let errors = invalid(&mut server);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("docs/style.md"), "{errors:?}");
    server.finish();
    // A new server, the status kept with the target missing: it came back.
    repo.write("docs/style.md", "# style\n");
    let mut server = warm(&repo);
    let init_again = server.call_ok(3, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(init_again["invalid_specs"], json!([]), "{init_again}");
    server.finish();
    // And the initialize instructions of a fresh server agree.
    let mut server = Server::spawn(&repo.root);
    let info = server.initialize();
    let text = info["instructions"].as_str().unwrap_or_default();
    assert!(!text.contains("docs/style.md"), "{text}");
    server.finish();
}
