//! Untrusted input, round 3 (issue 38, links and leftovers): the pre-edit
//! hook's memory read and written once per event (a 20,000-file event
//! within a CPU limit), session ids hashed and evicted least recently used
//! first, notarai's own files under the cache folder never ones git tracks,
//! no spec, kept index or memory read through a link, `export-context
//! --output` never into `.notarai/` or `.git/` through a link, and `init
//! --remove` giving back a hook file the user had.

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::{self, BIN, Repo, notarai, stderr};

/// A Claude Code `PreToolUse` event for `file` in `repo`'s session `session`.
fn event(repo: &Repo, session: &str, file: &str) -> Vec<u8> {
    json!({
        "session_id": session, "cwd": repo.root, "hook_event_name": "PreToolUse",
        "tool_name": "Edit", "tool_input": {"file_path": file, "old_string": "a", "new_string": "b"}
    })
    .to_string()
    .into_bytes()
}

/// What `notarai hook context` tells the model for `input` ("" when silent).
fn told(repo: &Repo, input: &[u8]) -> String {
    let out = notarai(&repo.root, &["hook", "context", "--agent", "claude"], input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    if out.stdout.is_empty() {
        return String::new();
    }
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A repository with a spec governing `src/**` whose constraint is `rule`.
fn governed(rule: &str) -> Repo {
    let repo = Repo::new();
    repo.write(
        ".notarai/a.spec.yaml",
        format!(
            "schema_version: '0.7'\nintent: A.\nbehaviors:\n  - name: b\n    given: g\n    then: t\nconstraints:\n  - '{rule}'\nartifacts:\n  code:\n    - path: 'src/**'\n"
        ),
    );
    repo.write("src/a.rs", "fn a() {}\n");
    repo.commit("init");
    repo
}

/// The real process answers a VS Code edit naming 20,000 governed files
/// within 8 s of CPU and 256 MiB of address space (it took 27 s of CPU,
/// 60 s in all, when it rewrote its memory once per file), and tells the
/// files its answer could not hold on the next event.
#[cfg(target_os = "linux")]
#[test]
fn a_20000_file_edit_event_is_answered_within_8_cpu_seconds() {
    let repo = governed("stay small");
    let files: Vec<String> = (0..20_000).map(|i| format!("src/m{i}.rs")).collect();
    let input = json!({
        "hookEventName": "PreToolUse", "sessionId": "s", "tool_name": "editFiles",
        "cwd": repo.root, "tool_input": {"files": files},
    })
    .to_string();
    let mut answers = Vec::new();
    for _ in 0..2 {
        let mut command = Command::new(BIN);
        command
            .current_dir(&repo.root)
            .args(["hook", "context", "--agent", "vscode"])
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        common::limit_cpu_seconds(&mut command, 8);
        common::limit_address_space(&mut command, 256 << 20);
        let out = common::run(command, input.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        let text = answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(text.chars().count() <= 1500, "{}", text.len());
        answers.push(text);
    }
    assert!(answers[0].contains("src/m0.rs"), "{}", answers[0]);
    assert!(!answers[1].contains("\"src/m0.rs\""), "{}", answers[1]);
    assert!(answers[1].contains("stay small"), "{}", answers[1]);
}

/// A session id of any length is one session: 40 events of a 300-character
/// id evict no other session, a session in use is kept while many others
/// come and go (least recently used first), and the memory holds no id,
/// and paths only as the governed files each session edited (the stop
/// hook names them), never the files told.
#[test]
fn long_and_many_session_ids_never_evict_a_session_in_use() {
    let repo = governed("stay small");
    let long = "x".repeat(300);
    assert!(!told(&repo, &event(&repo, "real", "src/a.rs")).is_empty());
    assert!(!told(&repo, &event(&repo, &long, "src/a.rs")).is_empty());
    for _ in 0..40 {
        assert_eq!(told(&repo, &event(&repo, &long, "src/a.rs")), "");
    }
    assert_eq!(told(&repo, &event(&repo, "real", "src/a.rs")), "");
    for i in 0..40 {
        let other = format!("other-{i}-{}", "y".repeat(250));
        assert!(!told(&repo, &event(&repo, &other, "src/a.rs")).is_empty());
        if i % 8 == 7 {
            assert_eq!(told(&repo, &event(&repo, "real", "src/a.rs")), "", "{i}");
        }
    }
    let memory =
        std::fs::read_to_string(repo.root.join(".notarai/.cache/hook-context.json")).unwrap();
    assert!(memory.len() < 4096, "{}", memory.len());
    for text in ["real", "xxxx", "other-"] {
        assert!(!memory.contains(text), "{text} in {memory}");
    }
    let value: serde_json::Value = serde_json::from_str(&memory).unwrap();
    for session in value["sessions"].as_array().unwrap() {
        assert_eq!(
            session["edited"],
            serde_json::json!(["src/a.rs"]),
            "{memory}"
        );
        assert!(
            !session["files"].to_string().contains("src/a.rs"),
            "{memory}"
        );
    }
}

/// The cache folder the hook makes keeps git out (`.gitignore` holding
/// `*`): nothing under it shows in `git status` or is added by `git add
/// -A`, with no ignore line of the project's. A memory file git tracks
/// (it came with the repository) is neither read nor rewritten.
#[test]
fn the_hooks_files_are_never_ones_git_tracks() {
    let repo = governed("stay small");
    assert!(!told(&repo, &event(&repo, "s", "src/a.rs")).is_empty());
    assert!(
        repo.root
            .join(".notarai/.cache/hook-context.json")
            .is_file()
    );
    let status = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert_eq!(status, "", "git sees notarai's files");
    repo.git(&["add", "-A"]);
    let staged = repo.git(&["diff", "--cached", "--name-only"]);
    assert_eq!(staged, "");

    // A committed memory that says `s` was told about src/a.rs.
    let tracked = governed("stay small");
    assert!(!told(&tracked, &event(&tracked, "s", "src/a.rs")).is_empty());
    let memory = std::fs::read(tracked.root.join(".notarai/.cache/hook-context.json")).unwrap();
    tracked.git(&["add", "-f", ".notarai/.cache/hook-context.json"]);
    tracked.git(&["commit", "-q", "-m", "a committed memory"]);
    assert!(!told(&tracked, &event(&tracked, "s", "src/a.rs")).is_empty());
    assert!(!told(&tracked, &event(&tracked, "t", "src/a.rs")).is_empty());
    assert_eq!(
        std::fs::read(tracked.root.join(".notarai/.cache/hook-context.json")).unwrap(),
        memory,
        "a tracked memory was rewritten"
    );
}

/// No spec, kept index or memory is read through a link: a spec linked out
/// of the repository, a spec folder linked out, and the hook's own kept
/// files linked to forged copies inside the repository are all ignored;
/// nothing outside is written.
#[test]
fn the_pre_edit_hook_reads_nothing_through_a_link() {
    let repo = governed("inside rule");
    let evil = "schema_version: '0.7'\nintent: E.\nbehaviors:\n  - name: b\n    given: g\n    then: t\nconstraints:\n  - 'OUTSIDE RULE'\nartifacts:\n  code:\n    - path: 'src/**'\n";
    common::write(&repo.outside, "evil.spec.yaml", evil);
    common::write(&repo.outside, "specs/evil.spec.yaml", evil);
    let link = |target: &str, at: &str| {
        std::os::unix::fs::symlink(target, repo.root.join(at)).unwrap();
    };
    link("../../outside/evil.spec.yaml", ".notarai/out.spec.yaml");
    link("../../outside/specs", ".notarai/linked");
    repo.commit("links out");
    let before = repo.outside_snapshot();
    let text = told(&repo, &event(&repo, "s", "src/a.rs"));
    assert!(text.contains("inside rule"), "{text}");
    assert!(!text.contains("OUTSIDE"), "{text}");

    // The kept index and the memory moved into the repository, forged, and
    // linked back: neither is read (the index is built again, the session
    // is told again).
    let cache = repo.root.join(".notarai/.cache");
    let index = std::fs::read_to_string(cache.join("spec-index.json")).unwrap();
    repo.write(
        "kept/index.json",
        index.replace("inside rule", "FORGED RULE"),
    );
    std::fs::remove_file(cache.join("spec-index.json")).unwrap();
    link("../../kept/index.json", ".notarai/.cache/spec-index.json");
    let memory = std::fs::read(cache.join("hook-context.json")).unwrap();
    repo.write("kept/memory.json", &memory);
    std::fs::remove_file(cache.join("hook-context.json")).unwrap();
    link(
        "../../kept/memory.json",
        ".notarai/.cache/hook-context.json",
    );
    let text = told(&repo, &event(&repo, "s", "src/a.rs"));
    assert!(
        text.contains("inside rule"),
        "memory read through a link: {text}"
    );
    assert!(!text.contains("FORGED"), "{text}");
    assert_eq!(
        std::fs::read(repo.root.join("kept/memory.json")).unwrap(),
        memory
    );
    assert_eq!(repo.outside_snapshot(), before, "something outside changed");
}

/// `export-context --output` never lands in `.notarai/` or `.git/`, however
/// it is reached: a link in the repository to either, a link outside it to
/// either, or a path that folds into them; the spec and git's config stay
/// byte for byte.
#[test]
fn export_output_never_lands_in_the_spec_or_git_folder_through_a_link() {
    let repo = Repo::with_spec();
    repo.write("src/a.rs", "fn a() { changed() }\n");
    let spec = std::fs::read(repo.root.join(".notarai/a.spec.yaml")).unwrap();
    let config = std::fs::read(repo.root.join(".git/config")).unwrap();
    std::os::unix::fs::symlink(".notarai", repo.root.join("out")).unwrap();
    std::os::unix::fs::symlink(".git", repo.root.join("g")).unwrap();
    std::fs::create_dir_all(&repo.outside).unwrap();
    std::os::unix::fs::symlink(repo.root.join(".notarai"), repo.outside.join("specs")).unwrap();
    let through_outside = repo.outside.join("specs/a.spec.yaml");
    for target in [
        "out/a.spec.yaml",
        "out/new/x.md",
        "g/config",
        "src/../out/a.spec.yaml",
        through_outside.to_str().unwrap(),
    ] {
        let out = notarai(
            &repo.root,
            &["export-context", "--base", "main", "--output", target],
            b"",
        );
        assert_eq!(out.status.code(), Some(1), "{target}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("does not write its export inside"),
            "{target}: {}",
            stderr(&out)
        );
    }
    assert_eq!(
        std::fs::read(repo.root.join(".notarai/a.spec.yaml")).unwrap(),
        spec
    );
    assert_eq!(
        std::fs::read(repo.root.join(".git/config")).unwrap(),
        config
    );
    assert!(!repo.root.join(".notarai/new").exists());
    // A plain file still works.
    let out = notarai(
        &repo.root,
        &["export-context", "--base", "main", "--output", "review.md"],
        b"",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(repo.root.join("review.md").is_file());
}

/// `init --remove` gives back every byte of a Cursor hook file the user had
/// before `init`, an empty `hooks` object included (it used to be deleted).
#[test]
fn init_remove_gives_back_a_hook_file_the_user_had() {
    let repo = Repo::new();
    repo.write("README.md", "# x\n");
    let original = "{\"version\": 1, \"hooks\": {}}\n";
    repo.write(".cursor/hooks.json", original);
    repo.commit("init");
    let init = notarai(&repo.root, &["init", "--agents", "cursor"], b"");
    assert!(init.status.success(), "{}", stderr(&init));
    let added = std::fs::read_to_string(repo.root.join(".cursor/hooks.json")).unwrap();
    assert!(added.contains("notarai hook"), "{added}");
    let remove = notarai(&repo.root, &["init", "--remove"], b"");
    assert!(remove.status.success(), "{}", stderr(&remove));
    assert_eq!(
        std::fs::read_to_string(repo.root.join(".cursor/hooks.json")).unwrap(),
        original
    );
}

/// `init --remove` takes back the `[merge "notarai"]` section it added to
/// `.git/config`, header included: the file is byte for byte as before.
/// A section the user keeps something in stays.
#[test]
fn init_remove_leaves_git_config_as_it_was() {
    let repo = Repo::new();
    repo.write("README.md", "# x\n");
    repo.commit("init");
    let config = repo.root.join(".git/config");
    let before = std::fs::read(&config).unwrap();
    let init = notarai(&repo.root, &["init", "--agents", "claude"], b"");
    assert!(init.status.success(), "{}", stderr(&init));
    let during = std::fs::read_to_string(&config).unwrap();
    assert!(during.contains("[merge \"notarai\"]"), "{during}");
    let remove = notarai(&repo.root, &["init", "--remove"], b"");
    assert!(remove.status.success(), "{}", stderr(&remove));
    assert_eq!(
        String::from_utf8(std::fs::read(&config).unwrap()).unwrap(),
        String::from_utf8(before).unwrap()
    );
    assert!(!repo.root.join(".git/config.lock").exists());
    // Something of the user's in the section: the header stays with it.
    let init = notarai(&repo.root, &["init", "--agents", "claude"], b"");
    assert!(init.status.success(), "{}", stderr(&init));
    repo.git(&["config", "merge.notarai.recursive", "binary"]);
    let remove = notarai(&repo.root, &["init", "--remove"], b"");
    assert!(remove.status.success(), "{}", stderr(&remove));
    let after = std::fs::read_to_string(&config).unwrap();
    assert!(
        after.contains("[merge \"notarai\"]") && after.contains("recursive = binary"),
        "{after}"
    );
    assert!(!after.contains("driver"), "{after}");
}
