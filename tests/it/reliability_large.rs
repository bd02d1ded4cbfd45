//! Large changes: a 50 MB text file and a 200 MB binary, changed in the work
//! tree. Memory stays bounded (hashing and diffing stream; nothing above
//! 8 MiB is loaded for a diff), the binary is listed in `binary_changes`, the
//! large text in `large_changes`, and `mark_reconciled` then skips both.

use crate::common;

use std::io::{Seek, SeekFrom, Write};

use common::{Repo, Server};
use serde_json::json;

/// Peak memory allowed while 250 MB of changes are examined, in KiB.
const MEMORY_BOUND_KIB: u64 = 96 * 1024;

#[test]
fn fifty_mb_text_and_two_hundred_mb_binary_in_bounded_memory() {
    let repo = Repo::with_spec();
    repo.write("src/big.txt", "small\n");
    repo.write("src/blob.bin", [0u8, 1, 2, 3]);
    repo.write("src/small.bin", [0u8, 159, 146, 150, 0, 0, 1]);
    repo.commit("small versions");
    // 50 MB of text lines.
    let line = "the quick brown fox jumps over the lazy dog, line after line\n";
    let mut text = String::with_capacity(1 << 20);
    while text.len() + line.len() <= 1 << 20 {
        text.push_str(line);
    }
    let mut big = std::fs::File::create(repo.root.join("src/big.txt")).unwrap();
    for _ in 0..50 {
        big.write_all(text.as_bytes()).unwrap();
    }
    drop(big);
    // 200 MB binary, sparse: a header with NULs, a hole, a tail.
    let mut blob = std::fs::File::create(repo.root.join("src/blob.bin")).unwrap();
    blob.write_all(b"\x7fELF\0\0\0binary header").unwrap();
    blob.seek(SeekFrom::Start(200 * 1024 * 1024 - 16)).unwrap();
    blob.write_all(b"tail of the blob").unwrap();
    drop(blob);
    // A small binary change goes to binary_changes, not to the diff.
    repo.write("src/small.bin", [0u8, 1, 0, 2, 0, 3, 255, 254]);

    let mut server = Server::start(&repo.root);
    let args =
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main", "full_lists": true});
    let diff = server.call_ok(1, "get_spec_diff", args.clone());
    assert_eq!(
        diff["files"],
        json!(["src/big.txt", "src/blob.bin", "src/small.bin"]),
        "{diff}"
    );
    assert_eq!(
        diff["binary_changes"],
        json!(["src/blob.bin", "src/small.bin"]),
        "{diff}"
    );
    assert_eq!(diff["large_changes"], json!(["src/big.txt"]), "{diff}");
    let text_diff = diff["diff"].as_str().unwrap();
    assert!(
        text_diff.len() < 64 * 1024,
        "the diff text stays small: {} bytes",
        text_diff.len()
    );
    assert!(!text_diff.contains("quick brown fox"));
    let affected = server.call_ok(2, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(
        affected["changed_files"],
        json!(["src/big.txt", "src/blob.bin", "src/small.bin"])
    );
    let marked = server.call_ok(
        3,
        "mark_reconciled",
        json!({"files": ["src/big.txt", "src/blob.bin", "src/small.bin"]}),
    );
    assert_eq!(marked["updated"], 3);
    let diff = server.call_ok(4, "get_spec_diff", args);
    assert_eq!(
        diff["skipped"],
        json!(["src/big.txt", "src/blob.bin", "src/small.bin"]),
        "{diff}"
    );
    let peak = server.peak_rss_kib();
    eprintln!("large: peak memory {peak} KiB for 250 MB of changes");
    assert!(peak < MEMORY_BOUND_KIB, "peak memory {peak} KiB");
    server.finish();
}
