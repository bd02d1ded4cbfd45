//! Reading a repository that someone else committed: no hang, no read
//! outside it, no read beyond a limit.
//!
//! Threat model: as in `untrusted_writes.rs`, the repository's author
//! controls every entry's name, kind and link target, and file sizes. A
//! FIFO blocks whoever opens it for reading until a writer comes, forever;
//! a link can point at any file of the user; a sparse file can claim any
//! size. notarai guarantees that every file that came from the repository
//! is read through the one bounded reader (`safe_fs::read`): `lstat` first,
//! anything but a regular file is refused with a message and never opened,
//! a link resolving outside the repository is refused, and no more than the
//! limit is read (a spec: 1 MiB). A cache database that is not a regular
//! file is a cold cache with a warning for reads and an error for writes.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{BIN, Repo, stderr, stdout};

/// Run `notarai <args>` in `cwd`; fails the test when it runs longer than
/// `limit` (a hang on a FIFO), killing it first.
fn notarai_within(cwd: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(BIN)
        .current_dir(cwd)
        .args(args)
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("NOTARAI_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("notarai {args:?} hung for more than {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

const LIMIT: Duration = Duration::from_secs(20);

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

#[test]
fn a_fifo_cache_database_is_a_cold_cache_for_reads_and_an_error_for_writes() {
    let repo = Repo::with_spec();
    repo.append("src/a.rs", "fn more() {}\n");
    mkfifo(&repo.db());

    let out = notarai_within(&repo.root, &["cache", "status"], LIMIT);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));
    let out = notarai_within(&repo.root, &["cache", "changed", "src/a.rs"], LIMIT);
    assert!(
        stdout(&out).contains("src/a.rs"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let out = notarai_within(&repo.root, &["cache", "update", "src/a.rs"], LIMIT);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("FIFO"), "{}", stderr(&out));

    // The server's tools read the cache: they answer (cold), not hang.
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        serde_json::json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    assert!(
        diff["diff"].as_str().unwrap().contains("+fn more() {}"),
        "{diff}"
    );
    server.call_ok(
        2,
        "list_affected_specs",
        serde_json::json!({"base_branch": "main"}),
    );
}

#[test]
fn a_fifo_spec_is_reported_not_opened() {
    let repo = Repo::with_spec();
    mkfifo(&repo.root.join(".notarai/pipe.spec.yaml"));
    for args in [&["validate"][..], &["validate", ".notarai/pipe.spec.yaml"]] {
        let out = notarai_within(&repo.root, args, LIMIT);
        assert!(!out.status.success());
        let text = stdout(&out);
        assert!(
            text.contains("FAIL .notarai/pipe.spec.yaml") && text.contains("FIFO"),
            "{text}"
        );
    }
    // The server loads the other specs and reports this one.
    let mut server = repo.server();
    server.call_ok(
        1,
        "list_affected_specs",
        serde_json::json!({"base_branch": "main"}),
    );
}

#[test]
fn validate_does_not_follow_a_spec_linked_outside() {
    let repo = Repo::with_spec();
    let secret = repo.outside.join("credentials.yaml");
    std::fs::write(&secret, "token: hunter2-very-secret\n").unwrap();
    std::os::unix::fs::symlink(&secret, repo.root.join(".notarai/leak.spec.yaml")).unwrap();
    let out = notarai_within(&repo.root, &["validate", ".notarai/leak.spec.yaml"], LIMIT);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(!out.status.success(), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
    assert!(text.contains("outside the project"), "{text}");
}

#[test]
fn validate_does_not_read_a_huge_spec_whole() {
    let repo = Repo::with_spec();
    let path = repo.root.join(".notarai/huge.spec.yaml");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(1 << 30).unwrap(); // sparse: 1 GiB of zeros, no disk used
    drop(file);
    let out = notarai_within(&repo.root, &["validate", ".notarai/huge.spec.yaml"], LIMIT);
    let text = stdout(&out);
    assert!(!out.status.success());
    assert!(text.contains("larger than"), "{text}");
}
