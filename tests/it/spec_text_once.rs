//! The spec's text once per pass (issue 42, point 2): `get_spec_diff`
//! leaves out the text of a spec the agent says it holds (`specs_read`,
//! `path@text_id`), brings it back when the id no longer matches, the
//! agent names it bare or stops naming it, and counts `skipped` unless `full_lists` asks
//! for the list.

use serde_json::{Value, json};

use crate::common::{Repo, strings};

const A: &str = ".notarai/a.spec.yaml";
const SYSTEM: &str = ".notarai/system.spec.yaml";

/// `main` with spec `a` governing `src/*.rs` (two files) under a system
/// spec; branch `feat` with both files changed.
fn project() -> Repo {
    let repo = Repo::new();
    repo.spec("a", &["src/*.rs"]);
    repo.write(
        SYSTEM,
        "schema_version: '0.7'\nintent: The system.\nbehaviors:\n  - name: all\n    given: x\n    then: y\nartifacts:\n  docs:\n    - path: 'README.md'\nsubsystems:\n  - $ref: './a.spec.yaml'\n",
    );
    repo.write("README.md", "# R\n");
    repo.write("src/one.rs", "fn one() {}\n");
    repo.write("src/two.rs", "fn two() {}\n");
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/one.rs", "fn one() { let _ = 1; }\n");
    repo.write("src/two.rs", "fn two() { let _ = 2; }\n");
    repo
}

fn diff(server: &mut crate::common::Server, id: u64, extra: Value) -> Value {
    let mut args = json!({"spec_path": A, "base_branch": "main"});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    server.call_ok(id, "get_spec_diff", args)
}

#[test]
fn a_spec_s_text_comes_once_while_the_agent_holds_it() {
    let repo = project();
    let mut server = repo.server();
    let first = diff(&mut server, 1, json!({}));
    let id = first["spec"]["text_id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 12, "{first}");
    assert_eq!(first["spec"]["constraints"], json!(["stay small"]));
    assert!(first.get("spec_held").is_none());
    // Held: left out, and said so; the diff is all there.
    let held = diff(&mut server, 2, json!({"specs_read": [format!("{A}@{id}")]}));
    assert!(held.get("spec").is_none(), "{held}");
    assert_eq!(held["spec_held"], true);
    assert_eq!(held["diff"], first["diff"]);
    // A bare path holds nothing (it cannot say which text was read): the
    // text is served (red team F10 (b)).
    let bare = diff(&mut server, 3, json!({"specs_read": [A]}));
    assert!(bare.get("spec_held").is_none(), "{bare}");
    assert_eq!(bare["spec"]["text_id"], id.as_str(), "{bare}");
    // The spec file changed since: the id no longer matches, the text
    // comes back (whole, in `spec_changes`, as the spec changed itself).
    repo.append(A, "open_questions:\n  - 'and fast?'\n");
    let stale = diff(&mut server, 4, json!({"specs_read": [format!("{A}@{id}")]}));
    assert!(stale.get("spec_held").is_none(), "{stale}");
    assert!(
        stale["spec_changes"][0]["content"]
            .as_str()
            .unwrap()
            .contains("and fast"),
        "{stale}"
    );
}

#[test]
fn a_stale_id_brings_the_text_back() {
    let repo = project();
    let mut server = repo.server();
    let again = diff(
        &mut server,
        1,
        json!({"specs_read": [format!("{A}@000000000000")]}),
    );
    assert!(
        again["spec"]["intent"]
            .as_str()
            .unwrap()
            .contains("The a part"),
        "{again}"
    );
    assert!(again.get("spec_held").is_none());
}

#[test]
fn the_system_spec_s_text_comes_once_too() {
    let repo = project();
    // A change to the spec file makes `spec_changes` non-empty, which
    // brings the system spec.
    repo.append(A, "open_questions:\n  - 'and fast?'\n");
    let mut server = repo.server();
    let first = diff(&mut server, 1, json!({}));
    assert_eq!(first["system_spec"]["path"], SYSTEM);
    assert!(
        first["system_spec"]["content"]
            .as_str()
            .unwrap()
            .contains("subsystems")
    );
    let id = first["system_spec"]["text_id"].as_str().unwrap();
    let held = diff(
        &mut server,
        2,
        json!({"specs_read": [format!("{SYSTEM}@{id}")]}),
    );
    assert_eq!(held["system_spec"]["path"], SYSTEM, "{held}");
    assert!(held["system_spec"].get("content").is_none(), "{held}");
    // The spec's own changed text stays whole (the contract's `spec_changes`).
    assert!(
        held["spec_changes"][0]["content"]
            .as_str()
            .unwrap()
            .contains("and fast")
    );
}

#[test]
fn skipped_is_counted_unless_full_lists() {
    let repo = project();
    let mut server = repo.server();
    server.call_ok(
        1,
        "mark_reconciled",
        json!({"files": ["src/one.rs"], "spec_path": A}),
    );
    let counted = diff(&mut server, 2, json!({}));
    assert_eq!(counted["skipped"], json!([]), "{counted}");
    assert_eq!(counted["skipped_count"], 1);
    assert_eq!(strings(&counted["files"]), ["src/two.rs"]);
    // `skipped` is a record verdict: its proof is in the tool description.
    assert!(counted.get("quiet_proofs").is_none(), "{counted}");
    let listed = diff(&mut server, 3, json!({"full_lists": true}));
    assert_eq!(listed["skipped"], json!(["src/one.rs"]), "{listed}");
    assert_eq!(listed["skipped_count"], 1);
}
