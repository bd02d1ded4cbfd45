//! The five tools through the real binary, on real git repositories.
//! Each `known_gap_N` test fails on the behaviour `known-gaps.md` measured
//! in the old implementation.

use crate::common;

use common::{Repo, Server, strings};
use serde_json::{Value, json};

/// main: src/auth/{a,b,c}.rs, docs/auth.md; branch `feature` checked out.
fn auth_repo() -> Repo {
    let repo = Repo::new();
    repo.spec("auth", &["src/**"]);
    for f in ["a", "b", "c"] {
        repo.write(&format!("src/auth/{f}.rs"), format!("fn {f}() {{}}\n"));
    }
    repo.write("docs/auth.md", "# Auth\n");
    repo.write(".gitignore", "target/\n.notarai/.cache/\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo
}

const AUTH: &str = ".notarai/auth.spec.yaml";

#[test]
fn known_gap_1_dir_glob_governs_files_in_spec_diff() {
    let repo = auth_repo();
    repo.append("src/auth/a.rs", "fn more() {}\n");
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main"}),
    );
    assert_eq!(strings(&diff["files"]), ["src/auth/a.rs"]);
    assert!(diff["diff"].as_str().unwrap().contains("+fn more() {}"));
    let affected = server.call_ok(2, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(affected["affected_specs"][0]["spec_path"], AUTH);
}

#[test]
fn known_gap_2_ignored_files_are_never_governed() {
    let repo = Repo::new();
    repo.spec("rust", &["**/*.rs"]);
    repo.write("src/lib.rs", "fn x() {}\n");
    repo.write(".gitignore", "target/\n");
    repo.commit("base");
    for i in 0..50 {
        repo.write(&format!("target/debug/junk{i}.rs"), "junk\n");
    }
    repo.append("src/lib.rs", "fn y() {}\n");
    let mut server = repo.server();
    let spec = ".notarai/rust.spec.yaml";
    let changed = server.call_ok(1, "get_changed_artifacts", json!({"spec_path": spec}));
    let listed = strings(&changed["changed_artifacts"]);
    assert!(
        listed.iter().all(|p| !p.starts_with("target/")),
        "{listed:?}"
    );
    assert!(listed.contains(&"src/lib.rs".to_string()));
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": spec, "base_branch": "main", "bypass_cache": true}),
    );
    assert_eq!(strings(&diff["files"]), ["src/lib.rs"]);
    let affected = server.call_ok(3, "list_affected_specs", json!({"base_branch": "main"}));
    assert!(
        strings(&affected["changed_files"])
            .iter()
            .all(|p| !p.starts_with("target/"))
    );
}

#[test]
fn known_gap_3_deleted_files_are_changes() {
    let repo = auth_repo();
    repo.git(&["rm", "-q", "src/auth/b.rs"]);
    repo.commit("delete b");
    repo.remove("src/auth/c.rs"); // uncommitted deletion too
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main"}),
    );
    assert_eq!(strings(&diff["files"]), ["src/auth/b.rs", "src/auth/c.rs"]);
    let text = diff["diff"].as_str().unwrap();
    assert!(text.contains("deleted file mode"), "{text}");
    assert!(text.contains("-fn b() {}") && text.contains("-fn c() {}"));
    let affected = server.call_ok(2, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(
        strings(&affected["changed_files"]),
        ["src/auth/b.rs", "src/auth/c.rs"]
    );
}

#[test]
fn known_gap_4_untracked_files_show_as_added() {
    let repo = auth_repo();
    repo.write("src/auth/new.rs", "fn brand_new() {}\n");
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main"}),
    );
    assert_eq!(strings(&diff["files"]), ["src/auth/new.rs"]);
    let text = diff["diff"].as_str().unwrap();
    assert!(
        text.contains("diff --git a/src/auth/new.rs b/src/auth/new.rs"),
        "{text}"
    );
    assert!(text.contains("new file mode 100644"), "{text}");
    assert!(text.contains("+fn brand_new() {}"), "{text}");
}

#[test]
fn known_gap_5_base_branch_work_is_not_the_branch_s() {
    let repo = auth_repo();
    repo.append("src/auth/a.rs", "const _: u8 = 4; // on feature\n");
    repo.commit("feature work");
    repo.git(&["checkout", "-q", "main"]);
    repo.append(
        "src/auth/b.rs",
        "const _: u8 = 5; // on main after branching\n",
    );
    repo.commit("main moves on");
    repo.git(&["checkout", "-q", "feature"]);
    let mut server = repo.server();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(strings(&affected["changed_files"]), ["src/auth/a.rs"]);
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main"}),
    );
    assert_eq!(strings(&diff["files"]), ["src/auth/a.rs"]);
    assert!(
        !diff["diff"]
            .as_str()
            .unwrap()
            .contains("on main after branching")
    );
}

#[test]
fn known_gap_6_files_lists_only_changed_files() {
    let repo = Repo::new();
    repo.spec("many", &["lib/**/*.rs"]);
    for i in 0..40 {
        repo.write(&format!("lib/m/f{i}.rs"), format!("fn f{i}() {{}}\n"));
    }
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.append("lib/m/f3.rs", "const _: u8 = 6; // changed\n");
    repo.append("lib/m/f17.rs", "const _: u8 = 7; // changed\n");
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/many.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(strings(&diff["files"]), ["lib/m/f17.rs", "lib/m/f3.rs"]);
    assert_eq!(
        diff["file_categories"],
        json!({"lib/m/f17.rs": "code", "lib/m/f3.rs": "code"})
    );
}

#[test]
fn known_gap_7_a_spec_s_own_edit_is_in_its_spec_changes() {
    let repo = auth_repo();
    repo.write(
        ".notarai/system.spec.yaml",
        "schema_version: '0.7'\nintent: The system.\nbehaviors:\n  - name: all\n    given: x\n    then: y\nartifacts:\n  docs:\n    - path: 'README.md'\nsubsystems:\n  - $ref: './auth.spec.yaml'\n",
    );
    repo.commit("system spec");
    repo.git(&["checkout", "-q", "-b", "feature2"]);
    repo.append(AUTH, "open_questions:\n  - 'should auth expire?'\n");
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "feature"}),
    );
    assert_eq!(diff["spec_changes"][0]["path"], AUTH);
    assert!(
        diff["spec_changes"][0]["content"]
            .as_str()
            .unwrap()
            .contains("should auth expire?")
    );
    assert_eq!(strings(&diff["files"]), Vec::<String>::new());
    // The system spec comes with full content when it is not itself changed.
    assert_eq!(diff["system_spec"]["path"], ".notarai/system.spec.yaml");
    assert!(
        diff["system_spec"]["content"]
            .as_str()
            .unwrap()
            .contains("subsystems")
    );
    let affected = server.call_ok(2, "list_affected_specs", json!({"base_branch": "feature"}));
    assert_eq!(
        affected["affected_specs"][0]["matched_files"],
        json!([AUTH])
    );
}

#[test]
fn system_spec_is_a_reference_when_it_changed_itself() {
    let repo = Repo::new();
    repo.write(
        ".notarai/system.spec.yaml",
        "schema_version: '0.7'\nintent: The system.\nbehaviors:\n  - name: all\n    given: x\n    then: y\nartifacts:\n  docs:\n    - path: 'README.md'\nsubsystems: []\n",
    );
    repo.write("README.md", "# r\n");
    repo.commit("base");
    repo.append(".notarai/system.spec.yaml", "notes: 'changed'\n");
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/system.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(diff["spec_changes"][0]["path"], ".notarai/system.spec.yaml");
    assert_eq!(
        diff["system_spec"],
        json!({"path": ".notarai/system.spec.yaml"})
    );
    // No spec change: system_spec is null.
    repo.git(&["checkout", "--", ".notarai/system.spec.yaml"]);
    repo.append("README.md", "more\n");
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": ".notarai/system.spec.yaml", "base_branch": "main"}),
    );
    assert_eq!(diff["spec_changes"], json!([]), "{diff}");
    assert_eq!(diff["system_spec"], Value::Null, "{diff}");
    assert_eq!(strings(&diff["files"]), ["README.md"]);
}

#[test]
fn known_gap_8_paths_outside_the_repository_are_refused() {
    let repo = auth_repo();
    let mut server = repo.server();
    for files in [
        json!(["/etc/passwd"]),
        json!(["../../../etc/hostname"]),
        json!(["src/auth/a.rs", "../x"]),
    ] {
        let (code, message) =
            Server::error_of(&server.call(1, "mark_reconciled", json!({"files": files})));
        assert_eq!(code, -32602, "{message}");
        assert!(
            message.contains("outside") || message.contains("climbs out"),
            "{message}"
        );
    }
    assert!(!repo.db().exists(), "nothing was written");
    for spec_path in ["../../etc/passwd", "/etc/passwd"] {
        let (code, message) = Server::error_of(&server.call(
            2,
            "get_spec_diff",
            json!({"spec_path": spec_path, "base_branch": "main"}),
        ));
        assert_eq!(code, -32602, "{message}");
    }
    let (code, message) = Server::error_of(&server.call(
        3,
        "get_spec_diff",
        json!({"spec_path": "src/auth/a.rs", "base_branch": "main"}),
    ));
    assert_eq!(code, -32602);
    assert!(
        message.contains("known specs: .notarai/auth.spec.yaml"),
        "{message}"
    );
    // An absolute path inside the repository is the same file.
    let inside = format!("{}/src/auth/a.rs", repo.root.display());
    assert_eq!(
        server.call_ok(4, "mark_reconciled", json!({"files": [inside]}))["updated"],
        1
    );
}

#[test]
fn known_gap_12_no_git_program_needed() {
    let repo = auth_repo();
    repo.append("src/auth/a.rs", "fn more() {}\n");
    let mut server = Server::spawn_with(&repo.root, |cmd| {
        cmd.env("PATH", "/nonexistent");
    });
    server.initialize();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(strings(&affected["changed_files"]), ["src/auth/a.rs"]);
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main"}),
    );
    assert!(diff["diff"].as_str().unwrap().contains("+fn more() {}"));
}

#[test]
fn reconciliation_pass_skips_what_was_reviewed_until_it_changes() {
    let repo = auth_repo();
    repo.append("src/auth/a.rs", "fn more() {}\n");
    repo.write("src/auth/new.rs", "fn n() {}\n");
    repo.remove("src/auth/c.rs");
    let mut server = repo.server();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(
        strings(&affected["changed_files"]),
        ["src/auth/a.rs", "src/auth/c.rs", "src/auth/new.rs"]
    );
    let first = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main"}),
    );
    assert_eq!(
        strings(&first["files"]),
        ["src/auth/a.rs", "src/auth/c.rs", "src/auth/new.rs"]
    );
    let marked = server.call_ok(3, "mark_reconciled", json!({"files": first["files"]}));
    assert_eq!(marked, json!({"updated": 2, "deleted": 1, "left": 0}));
    let second = server.call_ok(
        4,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main", "full_lists": true}),
    );
    assert_eq!(strings(&second["files"]), Vec::<String>::new());
    assert_eq!(second["diff"], "");
    assert_eq!(
        strings(&second["skipped"]),
        ["src/auth/a.rs", "src/auth/c.rs", "src/auth/new.rs"]
    );
    // bypass_cache shows everything again and leaves the cache alone.
    let bypass = server.call_ok(
        5,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main", "bypass_cache": true}),
    );
    assert_eq!(strings(&bypass["files"]).len(), 3);
    // An edit brings the file back.
    repo.append("src/auth/a.rs", "fn again() {}\n");
    let third = server.call_ok(
        6,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main", "full_lists": true}),
    );
    assert_eq!(strings(&third["files"]), ["src/auth/a.rs"]);
    assert_eq!(
        strings(&third["skipped"]),
        ["src/auth/c.rs", "src/auth/new.rs"]
    );
    // Recreating the deleted file brings it back too.
    repo.write("src/auth/c.rs", "fn c2() {}\n");
    let fourth = server.call_ok(
        7,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main"}),
    );
    assert_eq!(
        strings(&fourth["files"]),
        ["src/auth/a.rs", "src/auth/c.rs"]
    );
    // get_changed_artifacts follows the cache too: what changed on the
    // branch, exists and is not reconciled.
    let changed = server.call_ok(8, "get_changed_artifacts", json!({"spec_path": AUTH}));
    assert_eq!(
        strings(&changed["changed_artifacts"]),
        ["src/auth/a.rs", "src/auth/c.rs"]
    );
    assert_eq!(
        server.call_ok(9, "clear_cache", json!({})),
        json!({"cleared": true})
    );
    assert_eq!(
        server.call_ok(10, "clear_cache", json!({})),
        json!({"cleared": false})
    );
    let after = server.call_ok(
        11,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main"}),
    );
    assert_eq!(strings(&after["files"]).len(), 3);
    server.finish();
}

#[test]
fn renames_binaries_staged_and_excludes() {
    let repo = auth_repo();
    repo.write("src/auth/logo.png", [0u8, 1, 2, 3, 0, 255].repeat(100));
    repo.write("src/auth/Cargo.lock", "lock\n");
    repo.write("src/auth/gen/out.rs", "generated\n");
    repo.git(&["mv", "src/auth/b.rs", "src/auth/renamed.rs"]);
    repo.append("src/auth/a.rs", "const _: u8 = 8; // staged\n");
    repo.git(&["add", "src/auth/a.rs"]);
    repo.append("src/auth/a.rs", "const _: u8 = 9; // unstaged\n");
    let mut server = repo.server();
    let diff = server.call_ok(1, "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main", "exclude_patterns": ["*.lock", "src/auth/gen"]}),);
    let files = strings(&diff["files"]);
    assert_eq!(
        files,
        [
            "src/auth/a.rs",
            "src/auth/b.rs",
            "src/auth/logo.png",
            "src/auth/renamed.rs"
        ]
    );
    assert_eq!(strings(&diff["binary_changes"]), ["src/auth/logo.png"]);
    // The files the patterns left out, by name.
    assert_eq!(
        diff["excluded_files"],
        json!(["src/auth/Cargo.lock", "src/auth/gen/out.rs"])
    );
    let text = diff["diff"].as_str().unwrap();
    assert!(
        text.contains("rename from src/auth/b.rs")
            && text.contains("rename to src/auth/renamed.rs"),
        "{text}"
    );
    assert!(
        text.contains("; // staged") && text.contains("; // unstaged"),
        "{text}"
    );
    assert!(
        !text.contains("logo.png") && !text.contains("Binary files"),
        "{text}"
    );
    let affected = server.call_ok(2, "list_affected_specs", json!({"base_branch": "main"}));
    let changed = strings(&affected["changed_files"]);
    assert!(
        changed.contains(&"src/auth/b.rs".to_string())
            && changed.contains(&"src/auth/renamed.rs".to_string())
    );
}

#[test]
fn errors_name_the_problem_and_the_server_keeps_serving() {
    let repo = auth_repo();
    repo.write(
        ".notarai/broken.spec.yaml",
        "schema_version: '0.7'\nintent: [unclosed\n",
    );
    let mut server = repo.server();
    let (code, message) =
        Server::error_of(&server.call(1, "list_affected_specs", json!({"base_branch": "nope"})));
    assert_eq!(code, -32602);
    assert!(
        message.contains("`nope`") && message.contains("feature") && message.contains("main"),
        "{message}"
    );
    let (code, message) =
        Server::error_of(&server.call(2, "list_affected_specs", json!({"base_branch": ["main"]})));
    assert_eq!(code, -32602);
    assert!(message.contains("base_branch"), "{message}");
    let (code, message) = Server::error_of(&server.call(
        3,
        "get_spec_diff",
        json!({"spec_path": 3, "base_branch": "main"}),
    ));
    assert_eq!(code, -32602);
    assert!(message.contains("spec_path"), "{message}");
    let (code, message) = Server::error_of(&server.call(4, "no_such_tool", json!({})));
    assert_eq!(code, -32602);
    assert!(message.contains("list_affected_specs"), "{message}");
    // A category the spec does not use is no error: an empty list and a
    // note naming the spec's categories.
    let answer = server.call_ok(
        5,
        "get_changed_artifacts",
        json!({"spec_path": AUTH, "artifact_type": "doc"}),
    );
    assert_eq!(answer["changed_artifacts"], json!([]));
    let note = answer["note"].as_str().unwrap();
    assert!(note.contains("`doc`") && note.contains("code"), "{note}");
    let (code, message) = Server::error_of(&server.call(
        6,
        "get_spec_diff",
        json!({"spec_path": ".notarai/broken.spec.yaml", "base_branch": "main"}),
    ));
    assert_eq!(code, -32602);
    assert!(message.contains("failed to load"), "{message}");
    let affected = server.call_ok(7, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(
        affected["invalid_specs"][0]["spec_path"],
        ".notarai/broken.spec.yaml"
    );
    assert!(
        affected["invalid_specs"][0]["error"]
            .as_str()
            .unwrap()
            .starts_with(".notarai/broken.spec.yaml:")
    );
    assert!(strings(&affected["changed_files"]).contains(&".notarai/broken.spec.yaml".to_string()));
}

#[test]
fn unborn_and_detached_head() {
    let repo = Repo::new();
    repo.spec("auth", &["src/**"]);
    repo.write("src/a.rs", "fn a() {}\n");
    let mut server = repo.server();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(strings(&affected["changed_files"]), [AUTH, "src/a.rs"]);
    let (code, _) =
        Server::error_of(&server.call(2, "list_affected_specs", json!({"base_branch": "develop"})));
    assert_eq!(code, -32602);
    drop(server);
    repo.commit("base");
    let head = repo.git(&["rev-parse", "HEAD"]);
    repo.git(&["checkout", "-q", "--detach", head.trim()]);
    repo.append("src/a.rs", "const _: u8 = 10; // detached\n");
    let mut server = repo.server();
    let affected = server.call_ok(3, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(strings(&affected["changed_files"]), ["src/a.rs"]);
    let affected = server.call_ok(
        4,
        "list_affected_specs",
        json!({"base_branch": head.trim()}),
    );
    assert_eq!(strings(&affected["changed_files"]), ["src/a.rs"]);
}

#[test]
fn specs_reload_when_edited_while_the_server_runs() {
    let repo = auth_repo();
    repo.write("lib/x.rs", "fn x() {}\n");
    let mut server = repo.server();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "main"}));
    assert_eq!(affected["affected_specs"], json!([]));
    repo.spec("lib", &["lib/**"]);
    let affected = server.call_ok(2, "list_affected_specs", json!({"base_branch": "main"}));
    let specs: Vec<&str> = affected["affected_specs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["spec_path"].as_str().unwrap())
        .collect();
    assert_eq!(specs, [".notarai/lib.spec.yaml"]);
}

#[test]
fn exclude_patterns_mean_what_git_exclude_pathspecs_mean() {
    let repo = auth_repo();
    for file in [
        "src/x.lock/y.rs",
        "src/Cargo.lock",
        "src/{a,b}.rs",
        "src/a.rs.bak",
        "src/x[1].rs",
        "src/deep/er/z.lock",
        "src/gen/out.rs",
        "src/generated.rs",
    ] {
        repo.write(file, "x\n");
    }
    repo.git(&["add", "-A"]);
    let patterns = [
        "*.lock",
        "src/{a,b}.rs",
        "src/x[1].rs",
        "src/gen",
        "./src/a.rs.ba?",
    ];
    // The oracle: git itself, with the same patterns as :(exclude) pathspecs.
    let mut args = vec!["diff", "--cached", "--name-only", "main", "--", "src"];
    let excludes: Vec<String> = patterns.iter().map(|p| format!(":(exclude){p}")).collect();
    args.extend(excludes.iter().map(String::as_str));
    let mut expected: Vec<String> = repo.git(&args).lines().map(str::to_string).collect();
    expected.sort();
    assert_eq!(
        expected,
        ["src/generated.rs", "src/x.lock/y.rs"],
        "the oracle itself"
    );
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main", "exclude_patterns": patterns}),
    );
    assert_eq!(strings(&diff["files"]), expected);
    let (code, message) = Server::error_of(&server.call(
        2,
        "get_spec_diff",
        json!({"spec_path": AUTH, "base_branch": "main", "exclude_patterns": [""]}),
    ));
    assert_eq!(code, -32602);
    assert!(message.contains("exclude_patterns"), "{message}");
}

#[test]
fn artifact_type_finds_files_a_spec_lists_under_several_categories() {
    let repo = Repo::new();
    repo.write(
        ".notarai/a.spec.yaml",
        "schema_version: '0.7'\nintent: A.\ntier: registered\nartifacts:\n  code:\n    - path: 'src/**'\n  tests:\n    - path: 'src/a_test.rs'\n",
    );
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/a.rs", "fn a() {}\n");
    repo.write("src/a_test.rs", "fn t() {}\n");
    let mut server = repo.server();
    let spec = ".notarai/a.spec.yaml";
    let tests = server.call_ok(
        1,
        "get_changed_artifacts",
        json!({"spec_path": spec, "artifact_type": "tests"}),
    );
    assert_eq!(strings(&tests["changed_artifacts"]), ["src/a_test.rs"]);
    let code = server.call_ok(
        2,
        "get_changed_artifacts",
        json!({"spec_path": spec, "artifact_type": "code"}),
    );
    assert_eq!(
        strings(&code["changed_artifacts"]),
        ["src/a.rs", "src/a_test.rs"]
    );
}

#[test]
fn a_move_between_two_folders_of_a_spec_is_one_rename() {
    let repo = Repo::new();
    repo.write(
        ".notarai/a.spec.yaml",
        "schema_version: '0.7'\nintent: A.\nbehaviors:\n  - name: b\n    given: g\n    then: t\nartifacts:\n  code:\n    - path: 'src/**'\n  docs:\n    - path: 'docs/**'\n",
    );
    repo.write(
        "docs/guide.md",
        "# Guide\n\nline one\nline two\nline three\n",
    );
    repo.write("src/a.rs", "fn a() {}\n");
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.git(&["mv", "docs/guide.md", "src/guide.md"]);
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": ".notarai/a.spec.yaml", "base_branch": "main"}),
    );
    let text = diff["diff"].as_str().unwrap();
    assert!(
        text.contains("rename from docs/guide.md") && text.contains("rename to src/guide.md"),
        "{text}"
    );
    assert!(!text.contains("deleted file mode"), "{text}");
    assert_eq!(strings(&diff["files"]), ["docs/guide.md", "src/guide.md"]);
}

#[test]
fn a_spec_deleted_on_the_branch_is_reported() {
    let repo = auth_repo();
    repo.spec("gone", &["lib/**"]);
    repo.commit("second spec");
    repo.git(&["checkout", "-q", "-b", "feature2"]);
    repo.git(&["rm", "-q", ".notarai/gone.spec.yaml"]);
    let mut server = repo.server();
    let affected = server.call_ok(1, "list_affected_specs", json!({"base_branch": "feature"}));
    assert_eq!(
        affected["deleted_specs"],
        json!([".notarai/gone.spec.yaml"])
    );
    assert_eq!(
        strings(&affected["changed_files"]),
        [".notarai/gone.spec.yaml"]
    );
}

#[test]
fn nested_repositories_and_gitlinks_can_be_reconciled() {
    let repo = auth_repo();
    let nested = repo.root.join("src/nested");
    std::fs::create_dir_all(&nested).unwrap();
    common::git(&nested, &["init", "-q", "-b", "main"]);
    common::write(&nested, "x.txt", "x\n");
    common::git(&nested, &["add", "-A"]);
    common::git(&nested, &["commit", "-q", "-m", "inner"]);
    let mut server = repo.server();
    let args = json!({"spec_path": AUTH, "base_branch": "main", "full_lists": true});
    let first = server.call_ok(1, "get_spec_diff", args.clone());
    assert_eq!(
        strings(&first["files"]),
        ["src/nested"],
        "untracked nested repository, no trailing slash"
    );
    let marked = server.call_ok(2, "mark_reconciled", json!({"files": first["files"]}));
    assert_eq!(marked["updated"], 1);
    let second = server.call_ok(3, "get_spec_diff", args.clone());
    assert_eq!(strings(&second["skipped"]), ["src/nested"]);
    // Recorded as a gitlink (a submodule entry), then a new inner commit.
    repo.git(&["add", "src/nested"]);
    let third = server.call_ok(4, "get_spec_diff", args.clone());
    assert_eq!(
        strings(&third["skipped"]),
        ["src/nested"],
        "same commit, still reconciled"
    );
    common::write(&nested, "y.txt", "y\n");
    common::git(&nested, &["add", "-A"]);
    common::git(&nested, &["commit", "-q", "-m", "inner 2"]);
    let fourth = server.call_ok(5, "get_spec_diff", args);
    assert_eq!(
        strings(&fourth["files"]),
        ["src/nested"],
        "a new inner commit is a change"
    );
}
