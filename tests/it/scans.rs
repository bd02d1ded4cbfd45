//! "One of each" rules of ARCHITECTURE.md that a scan of the source can
//! check and no lint does (the layers have `layers.rs`; the one writer,
//! reader and walker are clippy's, `clippy.toml`): a work-tree watch
//! without `unsafe`, errors that keep
//! their kind and hint to the edge without a list of types, and one
//! JSON-RPC client.

use std::path::Path;

/// The source folders of the workspace: the top crate's `src/` and each
/// crate's under `crates/` (a module's path is relative to its `src/`).
fn source_folders() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("src")];
    for entry in notarai::walk::files(&root.join("crates"), "") {
        if let Some(krate) = entry.rel.strip_suffix("/Cargo.toml") {
            out.push(root.join("crates").join(krate).join("src"));
        }
    }
    out
}

/// Every source file of the workspace (relative path, code before its unit
/// tests).
fn sources() -> Vec<(String, String)> {
    source_folders()
        .into_iter()
        .flat_map(|src| notarai::walk::files(&src, ""))
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

/// The watch uses the `inotify` crate: no `unsafe`, no raw `libc` calls;
/// and its folders come from the one walker.
#[test]
fn the_watch_has_no_unsafe_code_and_uses_the_walker() {
    let watch: Vec<(String, String)> = sources()
        .into_iter()
        .filter(|(rel, _)| rel.starts_with("watch/"))
        .collect();
    assert!(
        watch.iter().any(|(rel, _)| rel == "watch/mod.rs"),
        "src/watch/mod.rs"
    );
    for (rel, code) in &watch {
        assert!(!code.contains("unsafe"), "src/{rel} holds `unsafe`");
        assert!(!code.contains("libc::"), "src/{rel} calls libc");
    }
    assert!(
        watch
            .iter()
            .any(|(_, code)| code.contains("use crate::walk") && code.contains("walk::walk(")),
        "the watch finds its folders without the one walker (crate::walk)"
    );
}

/// Every error type derives `thiserror::Error` (no hand-written `Display`
/// or `std::error::Error` for it) and implements `error::Diagnose`, so its
/// kind and hint reach the CLI and the tools through `error::Error`.
#[test]
fn every_error_type_derives_thiserror_and_diagnoses() {
    let mut wrong = Vec::new();
    for (rel, code) in sources() {
        // The edge type itself (`error::Error`) is no domain error.
        if rel == "error.rs" {
            continue;
        }
        for line in code.lines() {
            let line = line.trim_start();
            if line.starts_with("impl std::error::Error for")
                || line.starts_with("impl Error for")
                || (line.contains("Display for ") && line.trim_end().ends_with("Error {"))
            {
                wrong.push(format!("src/{rel}: {line}"));
            }
        }
        for (at, _) in code.match_indices("thiserror::Error") {
            // The type the derive is on: the next `enum X` or `struct X`.
            let rest = &code[at..];
            let name = rest
                .split_whitespace()
                .skip_while(|w| *w != "enum" && *w != "struct")
                .nth(1)
                .map(|n| {
                    let end = n
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(n.len());
                    &n[..end]
                })
                .unwrap_or_default();
            if !name.is_empty() && !code.contains(&format!("Diagnose for {name}")) {
                wrong.push(format!(
                    "src/{rel}: {name} derives thiserror::Error without `impl Diagnose for {name}`"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "error types off the rule:\n{}",
        wrong.join("\n")
    );
}

/// The CLI's edge reads kinds and hints through `error::Error`, never by
/// downcasting to a list of domain error types.
#[test]
fn the_cli_edge_downcasts_no_domain_error() {
    let found: Vec<String> = sources()
        .into_iter()
        .filter(|(rel, code)| rel.starts_with("cli/") && code.contains("downcast"))
        .map(|(rel, _)| rel)
        .collect();
    assert!(found.is_empty(), "the CLI downcasts errors in {found:?}");
}

/// The Rust files of `src/`, `tests/` and `benches/` (path from the
/// package root, whole text) that both name JSON-RPC's version key and pipe
/// a process's stdio (the needles are spelled apart here, so that this file
/// is not found): a hand-written JSON-RPC client; but `except`.
fn hand_written_rpc_clients(except: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for folder in ["src", "crates", "tests", "benches"] {
        for entry in notarai::walk::files(&root.join(folder), folder) {
            if !entry.rel.ends_with(".rs") || except.contains(&entry.rel.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(&entry.path).unwrap();
            if text.contains(concat!("json", "rpc")) && text.contains(concat!("Stdio::", "piped")) {
                found.push(entry.rel);
            }
        }
    }
    found
}

/// One JSON-RPC client (`src/rpc_client/`): doctor, the tests and the
/// benchmarks spawn a server and speak to it through it, never by writing
/// JSON-RPC lines to a child's stdin by hand. (Tests that are an MCP host
/// use rmcp's client, which spawns for itself.)
#[test]
fn only_the_rpc_client_speaks_json_rpc_to_a_child() {
    let found = hand_written_rpc_clients(&["crates/base/src/rpc_client/mod.rs"]);
    assert!(
        found.is_empty(),
        "a child spoken to in JSON-RPC by hand (use notarai::rpc_client::Client): {found:?}"
    );
}

/// The scans see what they look for.
#[test]
fn the_scans_find_a_listing() {
    assert_eq!(
        files_naming("read_dir", &[]),
        ["doctor/handshake.rs", "walk.rs"]
    );
    assert_eq!(
        hand_written_rpc_clients(&[]),
        ["crates/base/src/rpc_client/mod.rs"]
    );
}
