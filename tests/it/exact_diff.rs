//! A warm server diffs the kept status's changed files against a small
//! in-memory index of exactly their entries (`src/changes/exact.rs`, issue
//! 43) instead of walking the repository's whole index. These tests make
//! each kind of change git knows on a real repository between questions and
//! check that the warm server's answers are byte for byte those of a warm
//! server that walks the whole index (the debug build's
//! `NOTARAI_TEST_WHOLE_INDEX_DIFF`, the code before the small index) and of
//! a fresh server, which computes everything from the disk.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Repo, Server, git};

/// A long-lived server with the watch open, logging how it answered;
/// `whole` forces the whole-index diff.
fn warm(root: &Path, whole: bool) -> Server {
    Server::warm_with(root, |cmd| {
        if whole {
            cmd.env("NOTARAI_TEST_WHOLE_INDEX_DIFF", "1");
        }
    })
}

/// The answers compared: `list_affected_specs`, then `get_spec_diff` of
/// the whole-work-tree spec (served from the kept status, patches made on
/// demand) and of the `src/**` spec (a narrower scope: the kept list's
/// files within it diffed again), every page of each.
fn answers(server: &mut Server) -> Value {
    let list = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    let mut diffs = Vec::new();
    for spec in [".notarai/all.spec.yaml", ".notarai/src.spec.yaml"] {
        let args = json!({"spec_path": spec, "base_branch": "main", "bypass_cache": true});
        diffs.push(Value::Array(server.pages("get_spec_diff", args, 50)));
    }
    json!({"list": list, "diffs": diffs})
}

/// The warm server under test and one walking the whole index, over the
/// same repository.
struct Pair {
    small: Server,
    whole: Server,
}

impl Pair {
    fn new(root: &Path) -> Pair {
        Pair {
            small: warm(root, false),
            whole: warm(root, true),
        }
    }

    /// Ask both warm servers and a fresh one; all three must agree. Returns
    /// the answers and the text of every diff page.
    fn check(&mut self, root: &Path, step: &str) -> (Value, String) {
        let small = answers(&mut self.small);
        let whole = answers(&mut self.whole);
        let mut fresh = Server::start(root);
        let fresh_answers = answers(&mut fresh);
        fresh.finish();
        assert_eq!(
            small, whole,
            "{step}: the small index differs from the whole"
        );
        assert_eq!(small, fresh_answers, "{step}: the warm answer is stale");
        let text = small["diffs"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|pages| pages.as_array().into_iter().flatten())
            .map(|page| page["diff"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<_>>()
            .join("\n");
        (small, text)
    }

    /// Close both; on Linux the server under test must have diffed through
    /// a small index and the other never.
    fn finish(self) {
        let small = self.small.finish();
        let whole = self.whole.finish();
        if cfg!(target_os = "linux") {
            assert!(small.contains("entries of a small index"), "{small}");
            assert!(!whole.contains("entries of a small index"), "{whole}");
        }
    }
}

/// Specs over everything and over `src/`; files whose names sort next to
/// each other's folders (`x.rs`, `x.rs.bak`, `x.rs-old/`, `x.rs/` later),
/// a link, a script, a text file under `eol=crlf`; a commit on `feat`.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.spec("all", &["**/*"]);
    repo.spec("src", &["src/**"]);
    for name in ["a", "b", "c", "d"] {
        repo.write(&format!("src/{name}.rs"), format!("fn {name}() {{}}\n"));
    }
    repo.write("src/x.rs", "fn x() {}\n");
    repo.write("src/x.rs.bak", "old x\n");
    repo.write("src/x.rs-old/f.rs", "fn f() {}\n");
    repo.write("src/run.sh", "echo run\n");
    repo.write("src/notes.txt", "one\ntwo\n");
    repo.write(".gitattributes", "*.txt text eol=crlf\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink("a.rs", repo.root.join("src/link")).unwrap();
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.append("src/a.rs", "fn committed() {}\n");
    repo.commit("on feat");
    repo
}

#[test]
fn work_tree_changes_diff_the_same_through_the_small_index() {
    let repo = repo();
    let root = repo.root.clone();
    let mut pair = Pair::new(&root);
    pair.check(&root, "start");
    // An edit, a new file in a new folder, a deletion.
    repo.append("src/b.rs", "fn b2() {}\n");
    repo.write("src/new/n.rs", "fn n() {}\n");
    repo.remove("src/c.rs");
    let (_, text) = pair.check(&root, "edit, new, deletion");
    assert!(
        text.contains("+fn b2() {}") && text.contains("-fn c() {}"),
        "{text}"
    );
    // A move within the work tree (paired as a rename), then an edit of the
    // file the branch committed.
    std::fs::rename(root.join("src/d.rs"), root.join("src/moved.rs")).unwrap();
    repo.append("src/a.rs", "fn uncommitted() {}\n");
    let (_, text) = pair.check(&root, "move");
    assert!(text.contains("rename to src/moved.rs"), "{text}");
    // A file becomes a folder of the same name; its neighbours
    // (`x.rs.bak`, `x.rs-old/`) stay as they are.
    repo.remove("src/x.rs");
    repo.write("src/x.rs/inner.rs", "fn inner() {}\n");
    let (answers, _) = pair.check(&root, "file to folder");
    let listed = answers["list"].to_string();
    assert!(listed.contains("src/x.rs/inner.rs"), "{listed}");
    assert!(
        !listed.contains("x.rs.bak") && !listed.contains("x.rs-old"),
        "{listed}"
    );
    // An executable bit, then the same content written in CRLF (no change
    // under `eol=crlf`), then a real change of that text file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(root.join("src/run.sh"), mode).unwrap();
        let (_, text) = pair.check(&root, "chmod +x");
        assert!(text.contains("new mode 100755"), "{text}");
    }
    // (libgit2 calls a file whose size moved changed without cleaning it
    // first, as git would: listed by all three alike.)
    repo.write("src/notes.txt", "one\r\ntwo\r\n");
    pair.check(&root, "CRLF, same text");
    repo.write("src/notes.txt", "one\r\n2\r\n");
    let (_, text) = pair.check(&root, "CRLF, changed");
    assert!(text.contains("+2"), "{text}");
    // A link retargeted, then a file replaced by a link.
    #[cfg(unix)]
    {
        repo.remove("src/link");
        std::os::unix::fs::symlink("b.rs", root.join("src/link")).unwrap();
        pair.check(&root, "link retargeted");
        repo.remove("src/moved.rs");
        std::os::unix::fs::symlink("a.rs", root.join("src/moved.rs")).unwrap();
        pair.check(&root, "file to link");
    }
    pair.finish();
}

#[test]
fn index_flags_and_staging_diff_the_same_through_the_small_index() {
    let repo = repo();
    let root = repo.root.clone();
    // Read once by the servers: ctime not trusted, for the racy case below.
    repo.git(&["config", "core.trustctime", "false"]);
    let mut pair = Pair::new(&root);
    repo.append("src/b.rs", "fn b2() {}\n");
    pair.check(&root, "start");
    // Intent to add: in the index without content.
    repo.write("src/ita.rs", "fn ita() {}\n");
    repo.git(&["add", "-N", "src/ita.rs"]);
    pair.check(&root, "intent to add");
    repo.append("src/ita.rs", "fn more() {}\n");
    pair.check(&root, "intent to add, edited");
    // Skip-worktree on the file the branch committed, assume-unchanged on
    // another, each then edited in the work tree.
    repo.git(&["update-index", "--skip-worktree", "src/a.rs"]);
    repo.append("src/a.rs", "fn hidden() {}\n");
    pair.check(&root, "skip-worktree");
    repo.git(&["update-index", "--assume-unchanged", "src/d.rs"]);
    repo.append("src/d.rs", "fn assumed() {}\n");
    pair.check(&root, "assume-unchanged");
    repo.append("src/d.rs", "fn assumed_again() {}\n");
    pair.check(&root, "assume-unchanged, edited again");
    // Racy in git's sense: staged with a time ahead of the index file's,
    // then changed keeping its size and time (ctime not trusted): only
    // libgit2's racy test sees it, which the small index must keep. (The
    // answers show a file's diff from both sides read whole, so this step
    // checks the answer end to end; the unit test of `src/changes/exact.rs`
    // checks libgit2's deltas themselves.)
    let ahead = std::time::SystemTime::now() + std::time::Duration::from_secs(30);
    let set_time = || {
        let file = std::fs::File::options()
            .write(true)
            .open(root.join("src/b.rs"))
            .unwrap();
        file.set_modified(ahead).unwrap();
    };
    set_time();
    repo.git(&["add", "src/b.rs"]);
    pair.check(&root, "staged");
    repo.write("src/b.rs", "fn b() {}\nfn b3() {}\n");
    set_time();
    let (_, text) = pair.check(&root, "racy edit");
    assert!(text.contains("+fn b3() {}"), "{text}");
    // Deleted from the index but kept in the work tree.
    repo.git(&["rm", "-q", "--cached", "src/c.rs"]);
    pair.check(&root, "removed from the index");
    repo.append("src/c.rs", "fn c2() {}\n");
    pair.check(&root, "untracked again, edited");
    pair.finish();
}

#[test]
fn a_merge_conflict_diffs_the_same_through_the_small_index() {
    let repo = repo();
    let root = repo.root.clone();
    repo.git(&["checkout", "-q", "main"]);
    repo.append("src/a.rs", "fn on_main() {}\n");
    repo.append("src/b.rs", "fn b_main() {}\n");
    repo.commit("main moves");
    repo.git(&["checkout", "-q", "feat"]);
    let mut pair = Pair::new(&root);
    pair.check(&root, "start");
    let merged = crate::common::git_status(&root, &["merge", "-q", "main"]);
    assert!(!merged, "the merge must stop on the conflict");
    pair.check(&root, "conflicted");
    repo.append("src/b.rs", "fn after() {}\n");
    repo.append("src/a.rs", "fn resolving() {}\n");
    pair.check(&root, "conflicted, edited");
    repo.write("src/a.rs", "fn a() {}\nfn resolved() {}\n");
    repo.git(&["add", "src/a.rs"]);
    pair.check(&root, "resolved");
    repo.append("src/a.rs", "fn later() {}\n");
    pair.check(&root, "resolved, edited");
    pair.finish();
}

#[test]
fn a_submodule_diffs_the_same_through_the_small_index() {
    let repo = repo();
    let root = repo.root.clone();
    let sub = Repo::new();
    sub.write("lib.rs", "fn lib() {}\n");
    sub.commit("sub");
    git(
        &root,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            sub.root.to_str().unwrap(),
            "src/vendor",
        ],
    );
    repo.commit("a submodule");
    let mut pair = Pair::new(&root);
    repo.append("src/b.rs", "fn b2() {}\n");
    pair.check(&root, "start");
    let inner = root.join("src/vendor");
    crate::common::write(&inner, "lib.rs", "fn lib2() {}\n");
    git(&inner, &["commit", "-q", "-am", "moved"]);
    pair.check(&root, "submodule moved");
    repo.append("src/a.rs", "fn more() {}\n");
    pair.check(&root, "submodule moved, edit beside it");
    drop(pair.small.finish());
    drop(pair.whole.finish());
}
