//! The one integration test binary: every area of notarai's behaviour is a
//! module here, so the crate is linked once for all of them (ripgrep's
//! `tests/tests.rs` layout). Every test drives the built `notarai` binary.
//!
//! Add a test file by adding a `mod` line below; `every_test_file_is_a_module`
//! fails when a file in this folder is not listed.

// Tests and benchmarks build repositories as they like: the house's
// file-system and process rules (clippy.toml) are for `src/`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod common;
mod corpus;

mod action;
mod agent_events;
mod anchor_reads;
mod binary_text;
mod cache_cli;
mod cli_output;
mod concurrency;
mod containment;
mod contract;
mod daily_loop;
mod decisions;
mod docs;
mod doctor;
mod emptied_globs;
mod errors;
mod exact_diff;
mod export_context;
mod facts;
mod gate;
mod governing;
mod held_context;
mod hook;
mod hook_if;
mod init;
mod init_agents;
mod init_keep;
mod init_links;
mod kept_answers;
mod layers;
mod lint;
mod mark_left;
mod modern;
mod packaging;
mod pages;
mod partial_outlines;
mod pr_comment;
mod predating_reviews;
mod progress;
mod prompts;
mod protocol;
mod protocol_edges;
mod quiet;
mod quiet_anchors;
mod quiet_claims;
mod quiet_formatting;
mod quiet_proofs;
mod quiet_round4;
mod quiet_rules;
mod quiet_sound;
mod read_only;
mod redteam4;
mod ref_stamps;
mod reliability_cache;
mod reliability_large;
mod reliability_paths;
mod reliability_protocol;
mod reliability_repo_states;
mod reliability_specs;
mod replay_bench;
mod resources;
mod reviewed_formatting;
mod rules;
mod scans;
mod score;
mod sdk_clients;
mod snapshots;
mod spec08;
mod spec_loader;
mod spec_loosened;
mod spec_set;
mod spec_text_once;
mod spec_watch;
mod state;
mod state_mcp;
mod stdio_rules;
mod stop_hook;
mod symbols;
mod symlink_targets;
mod tools;
mod untrusted_costs;
mod untrusted_costs3;
mod untrusted_doctor;
mod untrusted_git;
mod untrusted_links;
mod untrusted_reads;
mod untrusted_round3;
mod untrusted_text;
mod untrusted_writes;
mod validate;
mod warm_server;
mod workflow;

/// Every `.rs` file of `tests/it/` is declared as a module of this binary, and
/// no other file sits directly in `tests/` (it would build as a binary of its own).
#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let main = std::fs::read_to_string(dir.join("it/main.rs")).unwrap();
    for entry in std::fs::read_dir(dir.join("it")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        if stem == "main" {
            continue;
        }
        assert!(
            main.lines().any(|l| l.trim() == format!("mod {stem};")),
            "tests/it/{name} is not declared in tests/it/main.rs: add `mod {stem};`"
        );
    }
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        assert!(
            path.is_dir() || path.extension().is_none_or(|e| e != "rs"),
            "{} would build as a test binary of its own: move it to tests/it/",
            path.display()
        );
    }
}
