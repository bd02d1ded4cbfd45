//! "One of each" rules of ARCHITECTURE.md that a scan of the source can
//! check (the layers have `layers.rs`, the one writer `untrusted_writes.rs`):
//! one folder walker, and a work-tree watch without `unsafe`.

use std::path::Path;

/// Every source file of `src/` (relative path, code before its unit tests).
fn sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    notarai::walk::files(&src, "")
        .into_iter()
        .filter(|e| e.rel.ends_with(".rs"))
        .map(|e| {
            let text = std::fs::read_to_string(&e.path).unwrap();
            // Unit tests may list folders and call anything.
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            (e.rel, code)
        })
        .collect()
}

/// Files of `sources()` whose code contains `needle`, but `except`.
fn files_naming(needle: &str, except: &[&str]) -> Vec<String> {
    sources()
        .into_iter()
        .filter(|(rel, code)| !except.contains(&rel.as_str()) && code.contains(needle))
        .map(|(rel, _)| rel)
        .collect()
}

/// One walker: every folder listing goes through `walk.rs`, which skips
/// `.git` and `.notarai/.cache` and never follows a linked folder.
#[test]
fn only_the_walker_lists_folders() {
    // doctor lists `/proc` to find the processes its handshake started:
    // the kernel's process table, not a folder of the repository.
    let found = files_naming("read_dir", &["walk.rs", "doctor/handshake.rs"]);
    assert!(
        found.is_empty(),
        "folders listed outside src/walk.rs (use notarai::walk): {found:?}"
    );
}

/// The watch uses the `inotify` crate: no `unsafe`, no raw `libc` calls.
#[test]
fn the_watch_has_no_unsafe_code() {
    let watch = sources()
        .into_iter()
        .find(|(rel, _)| rel == "watch.rs")
        .expect("src/watch.rs")
        .1;
    assert!(!watch.contains("unsafe"), "src/watch.rs holds `unsafe`");
    assert!(!watch.contains("libc::"), "src/watch.rs calls libc");
}

/// The scans see what they look for.
#[test]
fn the_scans_find_a_listing() {
    assert_eq!(
        files_naming("read_dir", &[]),
        ["doctor/handshake.rs", "walk.rs"]
    );
}
