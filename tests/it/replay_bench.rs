//! The replay benchmark's inputs stay usable: its specs pass `notarai
//! validate` (they are data the replay copies into flask and gin), and the
//! skill `notarai init` installs still names only tools the replay knows how
//! to play, with an `exclude_patterns` list it can read
//! (`benches/replay/skill.rs` is the replay's own reader).

use crate::common::{Repo, notarai, stdout};

#[allow(dead_code)]
#[path = "../../benches/replay/skill.rs"]
mod replay_skill;

/// The tools `benches/replay/pass.rs` plays.
const PLAYED: &[&str] = &[
    "get_reconciliation_status",
    "list_affected_specs",
    "get_spec_diff",
    "get_changed_artifacts",
    "mark_reconciled",
    "snapshot_state",
    "get_governing_specs",
];

#[test]
fn replay_specs_pass_validate() {
    let specs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/replay/specs");
    for project in ["flask", "gin"] {
        let repo = Repo::new();
        let mut count = 0;
        for entry in std::fs::read_dir(specs.join(project)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            repo.write(&format!(".notarai/{name}"), std::fs::read(&path).unwrap());
            count += 1;
        }
        assert!((8..=10).contains(&count), "{project}: {count} specs");
        let out = notarai(&repo.root, &["validate"], b"");
        let text = stdout(&out);
        assert!(out.status.success(), "{project}: {text}");
        assert_eq!(
            text.lines().filter(|l| l.starts_with("PASS")).count(),
            count,
            "{text}"
        );
    }
}

#[test]
fn installed_skill_names_only_tools_the_replay_plays() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    repo.commit("init");
    let out = notarai(&repo.root, &["init", "--agents", "claude"], b"");
    assert!(out.status.success());
    let (steps, _) = replay_skill::read(&repo.root).unwrap();
    let calls: Vec<&str> = steps
        .iter()
        .flat_map(|s| s.calls.iter().map(String::as_str))
        .collect();
    assert!(calls.contains(&"get_spec_diff"), "{calls:?}");
    for call in &calls {
        assert!(
            PLAYED.contains(call),
            "the skill calls {call}; teach benches/replay/pass.rs"
        );
    }
    let diff = steps
        .iter()
        .find(|s| s.calls.iter().any(|c| c == "get_spec_diff"))
        .unwrap();
    if diff.text.contains("exclude_patterns") {
        let patterns = diff
            .exclude_patterns()
            .expect("a readable exclude_patterns list");
        assert!(!patterns.is_empty());
    }
}
