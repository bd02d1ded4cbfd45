//! The long-lived server keeps the whole answer it cut pages from: pages
//! 2..N are served from it while nothing changed, and never after the work
//! tree moved (each kind of change of `warm_server.rs`, made between two
//! pages, makes the old cursor refused: the answer it pointed into is gone).
//! The same holds for a fresh server's first answer, computed before its
//! watch is ready and kept under a fence (`src/changes/fence.rs`): the
//! debug build's `NOTARAI_TEST_WATCH_DELAY_MS` holds the watch back so the
//! first question surely comes before it.

use serde_json::{Value, json};

use crate::common::{Repo, Server, notarai};

/// A repository whose `**/*.rs` spec has a diff of many pages, branch
/// `feat` checked out.
fn repo() -> Repo {
    let repo = Repo::new();
    repo.spec("rust", &["**/*.rs"]);
    repo.write(".gitignore", "build/\n.notarai/.cache/\n");
    repo.write("src/keep.rs", "fn keep() {}\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    for i in 0..40 {
        repo.write(
            &format!("src/m{i}.rs"),
            format!("fn m{i}() {{}}\n").repeat(40),
        );
    }
    repo
}

fn warm(repo: &Repo) -> Server {
    let mut server = Server::spawn_with(&repo.root, |cmd| {
        cmd.env("NOTARAI_LOG", "notarai=debug");
    });
    server.initialize();
    server
}

/// How long a fresh server's watch is held back: its first answer is
/// computed before the watch is ready.
const WATCH_DELAY_MS: &str = "1500";

/// A fresh server whose watch opens only after [`WATCH_DELAY_MS`].
fn fresh(repo: &Repo) -> Server {
    // A file written within a tick of the clock before the question began
    // leaves the fence unconfirmable (by design): let the repository's
    // files be older than that.
    std::thread::sleep(std::time::Duration::from_millis(100));
    let mut server = Server::spawn_with(&repo.root, |cmd| {
        cmd.env("NOTARAI_LOG", "notarai=debug")
            .env("NOTARAI_TEST_WATCH_DELAY_MS", WATCH_DELAY_MS);
    });
    server.initialize();
    server
}

fn args() -> Value {
    json!({"spec_path": ".notarai/rust.spec.yaml", "base_branch": "main", "max_tokens": 1000})
}

/// Page 1, then (after `change`) the next page with its cursor.
fn page_two_after(server: &mut Server, change: impl FnOnce()) -> Value {
    let first = server.call_ok(1, "get_spec_diff", args());
    assert!(first["pages"].as_u64().unwrap() > 2, "{}", first["pages"]);
    change();
    let mut next = args();
    next["cursor"] = first["next_cursor"].clone();
    server.call(2, "get_spec_diff", next)
}

fn refused(answer: &Value) -> bool {
    answer.get("error").is_some() || answer["result"]["isError"] == json!(true)
}

/// Every page of `args`' answer, from page 1 through each next cursor,
/// each checked to be the next page; the number of pages and the next
/// free request id.
fn every_page(server: &mut Server, args: &Value) -> (u64, u64) {
    let mut page = server.call_ok(1, "get_spec_diff", args.clone());
    let pages = page["pages"].as_u64().unwrap();
    assert!(pages > 2, "{pages}");
    let mut id = 2;
    while !page["next_cursor"].is_null() {
        let mut next = args.clone();
        next["cursor"] = page["next_cursor"].clone();
        page = server.call_ok(id, "get_spec_diff", next);
        assert_eq!(page["page"], json!(id), "{page}");
        id += 1;
    }
    assert_eq!(id - 1, pages);
    (pages, id)
}

/// `page`, the answer to an old cursor after the work tree moved: refused,
/// or the page 2 a fresh server gives now (its own cursors are its own, so
/// it is asked page 1 first).
fn refused_or_fresh(page: &Value, root: &std::path::Path, args: &Value, what: &str) {
    if refused(page) {
        return;
    }
    let mut fresh = Server::start(root);
    let fresh_first = fresh.call_ok(1, "get_spec_diff", args.clone());
    let mut fresh_next = args.clone();
    fresh_next["cursor"] = fresh_first["next_cursor"].clone();
    let mut fresh_page = fresh.call_ok(2, "get_spec_diff", fresh_next);
    fresh.finish();
    let mut page = page["result"]["structuredContent"].clone();
    for page in [&mut page, &mut fresh_page] {
        page.as_object_mut().unwrap().remove("next_cursor");
    }
    assert_eq!(page, fresh_page, "{what}");
}

#[test]
fn pages_are_cut_from_the_kept_answer_while_nothing_changed() {
    let repo = repo();
    let mut server = warm(&repo);
    // An answer computed before the server's watch is ready is kept under
    // a fence, which a file written within a clock tick of the question
    // leaves unconfirmable (this repository was just written). Ask again,
    // a bounded number of times, until one is kept and its page 2 served
    // from it.
    for _ in 0..20 {
        let second = page_two_after(&mut server, || {});
        assert!(!refused(&second), "{second}");
        assert_eq!(second["result"]["structuredContent"]["page"], 2);
        if server.stderr().contains("kept answer served") {
            break;
        }
    }
    let log = server.finish();
    if cfg!(target_os = "linux") {
        assert!(log.contains("kept answer served"), "{log}");
    }
}

#[test]
fn every_page_of_a_fresh_servers_first_answer_is_kept() {
    let repo = repo();
    let mut server = fresh(&repo);
    let (pages, id) = every_page(&mut server, &args());
    // The same first question again: its kept page 1.
    let again = server.call_ok(id, "get_spec_diff", args());
    assert_eq!(again["page"], 1);
    let log = server.finish();
    if cfg!(target_os = "linux") {
        assert!(log.contains("fence held"), "{log}");
        assert!(!log.contains("fence broken"), "{log}");
        assert_eq!(
            log.matches("kept answer served").count() as u64,
            pages,
            "{log}"
        );
    }
}

#[test]
fn a_narrower_first_answer_of_a_fresh_server_is_computed_again() {
    // A spec with a literal prefix: its first answer looks into `src/`
    // only, for which the fence cannot vouch (the rest of the work tree was
    // not looked at): its next page is computed again, from the work tree
    // as it is then.
    let repo = Repo::new();
    repo.spec("src", &["src/**/*.rs"]);
    repo.write(".gitignore", "build/\n.notarai/.cache/\n");
    repo.write("src/keep.rs", "fn keep() {}\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    for i in 0..40 {
        repo.write(
            &format!("src/m{i}.rs"),
            format!("fn m{i}() {{}}\n").repeat(40),
        );
    }
    let narrow =
        json!({"spec_path": ".notarai/src.spec.yaml", "base_branch": "main", "max_tokens": 1000});
    let mut server = fresh(&repo);
    let first = server.call_ok(1, "get_spec_diff", narrow.clone());
    assert!(first["pages"].as_u64().unwrap() > 2, "{}", first["pages"]);
    repo.append("src/m0.rs", "fn more() {}\n");
    let mut next = narrow.clone();
    next["cursor"] = first["next_cursor"].clone();
    let page = server.call(2, "get_spec_diff", next);
    refused_or_fresh(&page, &repo.root, &narrow, "an edit within its scope");
    let log = server.finish();
    if cfg!(target_os = "linux") {
        assert!(log.contains("fence broken"), "{log}");
        assert!(!log.contains("kept answer served"), "{log}");
    }
}

/// A spec with a literal prefix whose change deletes a file: its first
/// answer computes the whole work tree's status too (to find renames out of
/// it), which vouches for what lies outside its scope. Branch `feat`.
fn narrow_with_a_deletion() -> Repo {
    let repo = Repo::new();
    repo.spec("src", &["src/**/*.rs"]);
    repo.write(".gitignore", "build/\n.notarai/.cache/\n");
    repo.write("src/keep.rs", "fn keep() {}\n");
    repo.write("src/gone.rs", "fn gone() {}\n");
    repo.write("docs/other.md", "# other\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.remove("src/gone.rs");
    for i in 0..40 {
        repo.write(
            &format!("src/m{i}.rs"),
            format!("fn m{i}() {{}}\n").repeat(40),
        );
    }
    repo
}

fn narrow_args() -> Value {
    json!({"spec_path": ".notarai/src.spec.yaml", "base_branch": "main", "max_tokens": 1000})
}

#[test]
fn every_page_of_a_narrower_first_answer_that_saw_the_whole_work_tree_is_kept() {
    let repo = narrow_with_a_deletion();
    let mut server = fresh(&repo);
    let (pages, _) = every_page(&mut server, &narrow_args());
    let log = server.finish();
    if cfg!(target_os = "linux") {
        assert!(log.contains("fence held"), "{log}");
        assert_eq!(
            log.matches("kept answer served").count() as u64,
            pages - 1,
            "{log}"
        );
    }
}

#[test]
fn a_narrower_first_answer_is_never_served_after_the_work_tree_moved() {
    let changes: Vec<(&str, Change)> = vec![
        (
            "an edit within its scope",
            Box::new(|r: &Repo| r.append("src/m3.rs", "fn more() {}\n")),
        ),
        (
            "its deleted file back",
            Box::new(|r: &Repo| r.write("src/gone.rs", "fn gone() {}\n")),
        ),
        (
            "a new file of its own, put back as at the base",
            Box::new(|r: &Repo| r.remove("src/m7.rs")),
        ),
        (
            "an edit outside its scope",
            Box::new(|r: &Repo| r.append("docs/other.md", "more\n")),
        ),
        (
            "its spec edited",
            Box::new(|r: &Repo| r.append(".notarai/src.spec.yaml", "# more\n")),
        ),
    ];
    for (what, change) in &changes {
        let repo = narrow_with_a_deletion();
        let mut server = fresh(&repo);
        let first = server.call_ok(1, "get_spec_diff", narrow_args());
        change(&repo);
        let mut next = narrow_args();
        next["cursor"] = first["next_cursor"].clone();
        let page = server.call(2, "get_spec_diff", next);
        refused_or_fresh(&page, &repo.root, &narrow_args(), what);
        let log = server.finish();
        if cfg!(target_os = "linux") {
            assert!(log.contains("fence broken"), "{what}: {log}");
            assert!(!log.contains("kept answer served"), "{what}: {log}");
        }
    }
}

/// One way to change the work tree.
type Change = Box<dyn Fn(&Repo)>;

#[test]
fn a_kept_answer_is_never_served_after_the_work_tree_moved() {
    let repo = repo();
    let changes: Vec<(&str, Change)> = vec![
        (
            "an edit",
            Box::new(|r: &Repo| r.append("src/m3.rs", "fn more() {}\n")),
        ),
        (
            "a new file",
            Box::new(|r: &Repo| r.write("src/new.rs", "fn n() {}\n")),
        ),
        ("a deletion", Box::new(|r: &Repo| r.remove("src/keep.rs"))),
        ("a commit", Box::new(|r: &Repo| r.commit("work"))),
        (
            "a checkout",
            Box::new(|r: &Repo| {
                r.git(&["stash", "-u", "-q"]);
            }),
        ),
        (
            "an ignore rule",
            Box::new(|r: &Repo| r.write(".gitignore", "build/\n.notarai/.cache/\nsrc/m1.rs\n")),
        ),
        (
            "a move",
            Box::new(|r: &Repo| {
                std::fs::rename(r.root.join("src/m5.rs"), r.root.join("src/moved.rs")).unwrap()
            }),
        ),
        (
            "a rule in .git/info/exclude",
            Box::new(|r: &Repo| r.write(".git/info/exclude", "src/m7.rs\n")),
        ),
        (
            "a change of mode",
            Box::new(|r: &Repo| {
                use std::os::unix::fs::PermissionsExt;
                let path = r.root.join("src/keep.rs");
                let mut perms = std::fs::metadata(&path).unwrap().permissions();
                perms.set_mode(0o755);
                std::fs::set_permissions(&path, perms).unwrap();
            }),
        ),
        (
            "config pulled in by include.path",
            Box::new(|r: &Repo| {
                let included = r.outside.join("included.gitconfig");
                std::fs::write(&included, "[diff]\n\tcontext = 9\n").unwrap();
                r.git(&["config", "include.path", included.to_str().unwrap()]);
            }),
        ),
        (
            "a spec edited in place, size and time kept",
            Box::new(|r: &Repo| {
                let path = r.root.join(".notarai/rust.spec.yaml");
                let before = std::fs::metadata(&path).unwrap();
                let text = std::fs::read_to_string(&path).unwrap();
                let edited = text.replace("**/*.rs", "**/*.rz");
                assert_eq!(edited.len(), text.len());
                let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                std::io::Write::write_all(&mut &file, edited.as_bytes()).unwrap();
                file.set_modified(before.modified().unwrap()).unwrap();
            }),
        ),
        (
            "a reconciliation by another process",
            Box::new(|r: &Repo| {
                let out = notarai(&r.root, &["reconcile", "src/m0.rs"], b"");
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }),
        ),
    ];
    // Each change on a fresh copy of the same starting point, made after
    // page 1 of a server whose watch was ready, then of one whose watch was
    // not (the first answer kept under a fence).
    for ((what, change), held_back) in changes.iter().flat_map(|c| [(c, false), (c, true)]) {
        let repo = super::kept_answers::repo();
        let mut server = if held_back { fresh(&repo) } else { warm(&repo) };
        let first = server.call_ok(1, "get_spec_diff", args());
        change(&repo);
        let mut next = args();
        next["cursor"] = first["next_cursor"].clone();
        // The warm server answers the old cursor from the new state: refused
        // when the answer moved, else the page a fresh server gives.
        let warm_page = server.call(2, "get_spec_diff", next);
        refused_or_fresh(&warm_page, &repo.root, &args(), what);
        // The server keeps serving, from the new state.
        let mut again = server.call_ok(3, "get_spec_diff", args());
        assert_eq!(again["page"], 1, "{what}");
        // ... the page 1 a fresh server gives now.
        let mut fresh = Server::start(&repo.root);
        let mut fresh_first = fresh.call_ok(1, "get_spec_diff", args());
        fresh.finish();
        for page in [&mut again, &mut fresh_first] {
            page.as_object_mut().unwrap().remove("next_cursor");
        }
        assert_eq!(again, fresh_first, "{what}");
        // Nothing kept from before the change was served: at most the one
        // kept answer made after it, for call 3.
        let log = server.finish();
        if cfg!(target_os = "linux") {
            assert!(
                log.matches("kept answer served").count() <= 1,
                "{what}: {log}"
            );
            // The fenced path was taken (a reconciliation by another
            // process leaves the work tree as it was: the hash cache's
            // stamps, checked on every page, refuse the kept answer).
            if held_back {
                assert!(log.contains("fence "), "{what}: {log}");
            }
        }
    }
    drop(repo);
}

#[test]
fn a_reconciliation_of_this_server_forgets_the_kept_answers() {
    let repo = repo();
    let mut server = warm(&repo);
    let first = server.call_ok(1, "get_spec_diff", args());
    server.call_ok(2, "mark_reconciled", json!({"files": ["src/m0.rs"]}));
    let mut next = args();
    next["cursor"] = first["next_cursor"].clone();
    let second = server.call(3, "get_spec_diff", next);
    assert!(refused(&second), "{second}");
    server.finish();
}

/// The thread that opens the watch runs below the questions' priority
/// (nice 10), so a fresh server's first question keeps the cores; the
/// server's own threads keep theirs. Held open by the debug build's
/// `NOTARAI_TEST_WATCH_DELAY_MS`, the thread is looked at in `/proc`.
#[test]
#[cfg(target_os = "linux")]
fn the_watch_opens_below_the_questions_priority() {
    let repo = Repo::with_spec();
    let mut server = Server::spawn_with(&repo.root, |cmd| {
        cmd.env("NOTARAI_TEST_WATCH_DELAY_MS", "5000");
    });
    server.initialize();
    let task = std::path::PathBuf::from(format!("/proc/{}/task", server.pid()));
    // A thread's nice value: the 19th field of its `stat`, counted after
    // the name in parentheses (field 2).
    let nice = |tid: &std::path::Path| -> i64 {
        let stat = std::fs::read_to_string(tid.join("stat")).unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        after.split(' ').nth(16).unwrap().parse().unwrap()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(4);
    let watch = loop {
        let found = std::fs::read_dir(&task).unwrap().flatten().find(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|c| c.trim() == "notarai-watch")
        });
        if let Some(found) = found {
            break found.path();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no notarai-watch thread"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    // Lowered as it starts: give it the moment.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while nice(&watch) != 10 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(nice(&watch), 10);
    assert_eq!(nice(&task.join(server.pid().to_string())), 0);
    server.finish();
}
