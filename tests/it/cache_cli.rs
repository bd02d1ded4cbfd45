//! `notarai cache update/changed/status/clear` through the real binary.

use crate::common;

use common::{Repo, notarai, stdout};

#[test]
fn update_changed_status_clear() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    repo.write("dir/b.txt", "b\n");
    repo.write("c.txt", "c\n");

    let out = notarai(&repo.root, &["cache", "changed", "a.txt", "dir/b.txt"], b"");
    assert!(out.status.success());
    assert_eq!(stdout(&out), "a.txt\ndir/b.txt\n", "nothing cached yet");

    let out = notarai(&repo.root, &["cache", "update", "a.txt", "dir/b.txt"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out), "Updated 2 file(s)\n");

    // Paths from stdin, one per line.
    let out = notarai(&repo.root, &["cache", "update"], b"c.txt\n\n");
    assert_eq!(stdout(&out), "Updated 1 file(s)\n");

    let out = notarai(
        &repo.root,
        &["cache", "changed", "a.txt", "dir/b.txt", "c.txt"],
        b"",
    );
    assert_eq!(stdout(&out), "", "all cached and unchanged");

    repo.append("a.txt", "more\n");
    repo.remove("c.txt");
    let out = notarai(
        &repo.root,
        &["cache", "changed"],
        b"a.txt\ndir/b.txt\nc.txt\n",
    );
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "a.txt\nc.txt\n",
        "edited and deleted files are changed, as given"
    );

    // Keys are repository-relative paths, as the MCP tools and `check` use:
    // the same file named another way is the same entry.
    let abs = format!("{}/dir/b.txt", repo.root.display());
    let out = notarai(
        &repo.root,
        &["cache", "changed", &abs, "./dir/../dir/b.txt"],
        b"",
    );
    assert_eq!(stdout(&out), "");
    let db = rusqlite::Connection::open(repo.db()).unwrap();
    let key: String = db
        .query_row(
            "SELECT path FROM file_cache ORDER BY path LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(key, "a.txt");
    drop(db);

    let out = notarai(&repo.root, &["cache", "status"], b"");
    let text = stdout(&out);
    assert!(
        text.contains("notarai.db") && text.contains("entries: 3"),
        "{text}"
    );
    let out = notarai(&repo.root, &["cache", "clear"], b"");
    assert!(stdout(&out).starts_with("Removed "), "{}", stdout(&out));
    assert!(!repo.db().exists());
    assert!(!repo.root.join(".notarai/.cache/notarai.db-wal").exists());
    let out = notarai(&repo.root, &["cache", "clear"], b"");
    assert!(stdout(&out).starts_with("No cache database"));
    let out = notarai(&repo.root, &["cache", "status"], b"");
    assert!(stdout(&out).contains("entries: 0"));
}

#[test]
fn paths_outside_the_project_are_refused_and_nothing_is_written() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "s").unwrap();
    std::os::unix::fs::symlink(outside.path(), repo.root.join("link")).unwrap();
    let secret = outside.path().join("secret");
    // (A backslash is an ordinary name character on Unix, not refused.)
    for bad in ["../x", secret.to_str().unwrap(), "link/secret"] {
        let out = notarai(&repo.root, &["cache", "update", "a.txt", bad], b"");
        assert!(!out.status.success(), "{bad} refused");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(bad), "the error names {bad}: {err}");
        let out = notarai(&repo.root, &["cache", "changed", bad], b"");
        assert!(!out.status.success(), "{bad} refused");
    }
    assert!(!repo.db().exists(), "nothing written on refusal");
}

#[test]
fn corrupt_cache_is_set_aside_with_a_warning() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    repo.write(".notarai/.cache/notarai.db", vec![0x5au8; 4096]);
    let out = notarai(&repo.root, &["cache", "changed", "a.txt"], b"");
    assert!(out.status.success());
    assert_eq!(stdout(&out), "a.txt\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("corrupt"));
    let out = notarai(&repo.root, &["cache", "update", "a.txt"], b"");
    assert_eq!(stdout(&out), "Updated 1 file(s)\n");
    let aside = std::fs::read_dir(repo.root.join(".notarai/.cache"))
        .unwrap()
        .flatten()
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("notarai.db.corrupt-")
        });
    assert!(aside, "the corrupt file was kept aside");
}
