//! Loading a whole `.notarai/` folder: refs, cycles, the system spec,
//! reachability and orphaned globs, in real temporary repositories.

use crate::common;
use crate::corpus;

use std::path::Path;

use common::write;
use notarai::spec::{self, Finding, Severity, SpecSet};

fn spec_with(extra: &str, glob: &str) -> String {
    format!(
        "schema_version: '0.7'\nintent: a part\ntier: registered\nartifacts:\n  code:\n    - path: '{glob}'\n{extra}"
    )
}

fn messages(findings: &[Finding], path: &str) -> Vec<String> {
    findings
        .iter()
        .filter(|f| f.path == path)
        .map(|f| format!("{}:{}:{:?}: {}", f.line, f.column, f.severity, f.message))
        .collect()
}

#[test]
fn refs_resolve_relative_to_their_file_and_missing_ones_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/a.rs", "");
    write(
        root,
        ".notarai/system.spec.yaml",
        spec_with(
            "subsystems:\n  - $ref: ./sub/a.spec.yaml\n  - $ref: ./missing.spec.yaml\napplies:\n  - $ref: ./_shared/sec.spec.yaml\n",
            "src/**",
        ),
    );
    write(
        root,
        ".notarai/sub/a.spec.yaml",
        spec_with(
            "dependencies:\n  - $ref: ../_shared/sec.spec.yaml\n    relationship: uses\n  - $ref: ./sec.spec.yaml\n    relationship: wrong folder\n",
            "src/a.rs",
        ),
    );
    write(
        root,
        ".notarai/_shared/sec.spec.yaml",
        spec_with("", "src/**"),
    );
    let set = notarai::project::load_specs(root);
    assert!(set.invalid.is_empty(), "{:?}", set.invalid);
    assert_eq!(
        messages(&set.findings, ".notarai/system.spec.yaml"),
        vec![
            "9:11:Error: `$ref: ./missing.spec.yaml` points to `.notarai/missing.spec.yaml`, which does not exist"
        ]
    );
    let sub = set.findings_for(".notarai/sub/a.spec.yaml");
    assert_eq!(sub.len(), 1, "{sub:?}");
    assert_eq!((sub[0].line, sub[0].column), (10, 11));
    assert_eq!(
        sub[0].hint.as_deref(),
        Some("did you mean `../_shared/sec.spec.yaml`?")
    );
    assert!(
        set.findings_for(".notarai/_shared/sec.spec.yaml")
            .is_empty()
    );
    assert!(set.has_errors());

    // The same checks for one file alone.
    let alone = spec::check_file(root, ".notarai/system.spec.yaml");
    assert_eq!(alone.len(), 1);
    assert_eq!((alone[0].line, alone[0].column), (9, 11));
    assert!(spec::check_file(root, ".notarai/_shared/sec.spec.yaml").is_empty());
}

#[test]
fn refs_that_leave_the_repository_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        ".notarai/a.spec.yaml",
        spec_with(
            "applies:\n  - $ref: ../../outside.spec.yaml\n  - $ref: /etc/hosts\n",
            "x",
        ),
    );
    let found = spec::check_file(root, ".notarai/a.spec.yaml");
    let refs: Vec<_> = found
        .iter()
        .filter(|f| f.message.contains("not a path inside"))
        .collect();
    assert_eq!(refs.len(), 2, "{found:?}");
    assert_eq!((refs[0].line, refs[0].column), (8, 11));
}

#[test]
fn subsystem_cycles_are_errors_at_the_closing_ref() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        ".notarai/system.spec.yaml",
        spec_with("subsystems:\n  - $ref: ./a.spec.yaml\n", "x"),
    );
    write(
        root,
        ".notarai/a.spec.yaml",
        spec_with("subsystems:\n  - $ref: ./b.spec.yaml\n", "x"),
    );
    write(
        root,
        ".notarai/b.spec.yaml",
        spec_with("subsystems:\n  - $ref: ./a.spec.yaml\n", "x"),
    );
    let set = SpecSet::load_with(root, None);
    let cycles: Vec<&Finding> = set
        .findings
        .iter()
        .filter(|f| f.message.contains("cycle"))
        .collect();
    assert_eq!(cycles.len(), 1, "{:?}", set.findings);
    assert_eq!(cycles[0].path, ".notarai/b.spec.yaml");
    assert_eq!((cycles[0].line, cycles[0].column), (8, 11));
    assert_eq!(
        cycles[0].message,
        "`subsystems` cycle: .notarai/a.spec.yaml -> .notarai/b.spec.yaml -> .notarai/a.spec.yaml"
    );
    assert!(cycles[0].is_error());
    // a and b also have `subsystems`: more than one system spec.
    let many: Vec<&Finding> = set
        .findings
        .iter()
        .filter(|f| f.message.contains("more than one system spec"))
        .collect();
    assert_eq!(many.len(), 2);
    assert!(
        many.iter()
            .all(|f| f.severity == Severity::Warning && f.line == 7)
    );
}

#[test]
fn a_self_reference_is_a_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        ".notarai/system.spec.yaml",
        spec_with("subsystems:\n  - $ref: ./system.spec.yaml\n", "x"),
    );
    let set = SpecSet::load_with(root, None);
    assert_eq!(
        messages(&set.findings, ".notarai/system.spec.yaml"),
        vec![
            "8:11:Error: `subsystems` cycle: .notarai/system.spec.yaml -> .notarai/system.spec.yaml"
        ]
    );
}

#[test]
fn the_system_spec_is_chosen_and_unreachable_specs_are_warned() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        ".notarai/a.spec.yaml",
        spec_with("subsystems: []\n", "x"),
    );
    write(
        root,
        ".notarai/system.spec.yaml",
        spec_with(
            "subsystems:\n  - $ref: ./child.spec.yaml\napplies:\n  - $ref: ./shared.spec.yaml\n",
            "x",
        ),
    );
    write(
        root,
        ".notarai/child.spec.yaml",
        spec_with("subsystems:\n  - $ref: ./grandchild.spec.yaml\n", "x"),
    );
    write(root, ".notarai/grandchild.spec.yaml", spec_with("", "x"));
    write(root, ".notarai/shared.spec.yaml", spec_with("", "x"));
    write(root, ".notarai/lonely/l.spec.yaml", spec_with("", "x"));
    let set = SpecSet::load_with(root, None);
    assert_eq!(set.system_spec().unwrap().path, ".notarai/system.spec.yaml");
    let lonely = set.findings_for(".notarai/lonely/l.spec.yaml");
    assert_eq!(lonely.len(), 1);
    assert_eq!(lonely[0].severity, Severity::Warning);
    assert!(
        lonely[0].message.contains("`.notarai/system.spec.yaml`"),
        "{lonely:?}"
    );
    assert_eq!(
        lonely[0].hint.as_deref(),
        Some(
            "add `- $ref: ./lonely/l.spec.yaml` under `subsystems:` in `.notarai/system.spec.yaml`"
        )
    );
    assert!(set.findings_for(".notarai/grandchild.spec.yaml").is_empty());
    assert!(set.findings_for(".notarai/shared.spec.yaml").is_empty());
    // a.spec.yaml is a second system spec, and nothing reaches it.
    let a = messages(&set.findings, ".notarai/a.spec.yaml");
    assert_eq!(a.len(), 2, "{a:?}");
    assert!(a[0].starts_with("1:1:Warning: no `subsystems`"));
    assert!(a[1].starts_with("7:1:Warning: more than one system spec"));
    assert!(!set.has_errors());

    // Without system.spec.yaml, the first spec with `subsystems` is the system spec,
    // and with no system spec there are no reachability warnings.
    std::fs::remove_file(root.join(".notarai/system.spec.yaml")).unwrap();
    let set = SpecSet::load_with(root, None);
    assert_eq!(set.system_spec().unwrap().path, ".notarai/a.spec.yaml");
    std::fs::remove_file(root.join(".notarai/a.spec.yaml")).unwrap();
    std::fs::remove_file(root.join(".notarai/child.spec.yaml")).unwrap();
    let set = SpecSet::load_with(root, None);
    assert!(set.system.is_none());
    assert!(set.findings.is_empty(), "{:?}", set.findings);
}

fn git(root: &Path) -> git2::Repository {
    let repo = git2::Repository::init(root).unwrap();
    repo.config().unwrap().set_str("user.name", "t").unwrap();
    repo.config().unwrap().set_str("user.email", "t@t").unwrap();
    repo
}

fn add(repo: &git2::Repository, rel: &str) {
    let mut index = repo.index().unwrap();
    index.add_path(Path::new(rel)).unwrap();
    index.write().unwrap();
}

#[test]
fn orphaned_globs_are_warned_against_the_git_universe() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let repo = git(root);
    write(root, "src/auth/login.rs", "");
    add(&repo, "src/auth/login.rs");
    write(root, "docs/new.md", ""); // untracked, not ignored
    write(root, ".gitignore", "build/\n");
    write(root, "build/out.bin", ""); // ignored
    write(root, ".notarai/.cache/x.db", "");
    write(
        root,
        ".notarai/a.spec.yaml",
        "schema_version: '0.7'\nintent: x\ntier: registered\nartifacts:\n  code:\n    - path: src/auth\n    - path: 'src/*.rs'\n  docs:\n    - path: 'docs/*.md'\n  build:\n    - path: 'build/**'\n    - path: './src/**'\n  data:\n    - path: 'data/x.csv'\n      source: 's3://bucket/x.csv'\n  cache:\n    - path: '.notarai/.cache/**'\n",
    );
    let set = notarai::project::load_specs(root);
    let orphans: Vec<(usize, usize, String)> = set
        .findings
        .iter()
        .map(|f| (f.line, f.column, f.message.clone()))
        .collect();
    assert_eq!(
        orphans,
        vec![
            (
                7,
                13,
                "artifact glob `src/*.rs` matches no file in the repository".to_string()
            ),
            (
                11,
                13,
                "artifact glob `build/**` matches no file in the repository".to_string()
            ),
            (
                17,
                13,
                "artifact glob `.notarai/.cache/**` matches no file in the repository".to_string()
            ),
        ]
    );
    assert!(set.findings.iter().all(|f| f.severity == Severity::Warning));
    // `./src/**` means `src/**`: the same rule as everywhere else.

    let files = notarai::project::repo_files(root);
    assert!(files.contains(&"docs/new.md".to_string()));
    assert!(files.contains(&"src/auth/login.rs".to_string()));
    assert!(
        !files
            .iter()
            .any(|f| f.starts_with("build/") || f.starts_with(".notarai/.cache/"))
    );
}

/// A glob is tried only on the files whose paths start with its literal
/// prefix (a range of the sorted list): a sibling that shares the prefix's
/// characters (`src/authz.rs` for `src/auth`) falls in the range and the
/// glob itself must refuse it, and a glob with no prefix looks everywhere.
#[test]
fn a_globs_literal_prefix_narrows_where_it_looks_never_what_it_matches() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let repo = git(root);
    for file in ["src/authz.rs", "deep/er/est/notes.txt"] {
        write(root, file, "");
        add(&repo, file);
    }
    write(
        root,
        ".notarai/a.spec.yaml",
        "schema_version: '0.7'\nintent: x\ntier: registered\nartifacts:\n  code:\n    - path: 'src/auth/**'\n    - path: 'src/auth*.rs'\n  docs:\n    - path: '**/*.txt'\n    - path: '**/*.md'\n",
    );
    let set = notarai::project::load_specs(root);
    let orphans: Vec<String> = set.findings.iter().map(|f| f.message.clone()).collect();
    assert_eq!(
        orphans,
        vec![
            "artifact glob `src/auth/**` matches no file in the repository".to_string(),
            "artifact glob `**/*.md` matches no file in the repository".to_string(),
        ]
    );
}

#[test]
fn orphans_outside_git_use_a_folder_walk() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "lib/x.py", "");
    write(root, ".notarai/a.spec.yaml", spec_with("", "lib/**"));
    write(root, ".notarai/b.spec.yaml", spec_with("", "nowhere/**"));
    let set = notarai::project::load_specs(root);
    assert!(set.findings_for(".notarai/a.spec.yaml").is_empty());
    assert_eq!(set.findings_for(".notarai/b.spec.yaml").len(), 1);
}

#[test]
fn bad_globs_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        ".notarai/a.spec.yaml",
        spec_with("exclude:\n  - 'vendor/{a,b'\n", "src/[a-"),
    );
    let found = spec::check_file(root, ".notarai/a.spec.yaml");
    let at: Vec<(usize, usize, bool)> = found
        .iter()
        .map(|f| (f.line, f.column, f.is_error()))
        .collect();
    assert_eq!(at, vec![(6, 13, true), (8, 5, true)], "{found:?}");
    assert!(
        found[0]
            .message
            .starts_with("artifact glob `src/[a-` is not a valid glob")
    );
    assert!(
        found[1]
            .message
            .starts_with("exclude glob `vendor/{a,b` is not a valid glob")
    );
}

#[test]
fn one_bad_spec_does_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".notarai/good.spec.yaml", corpus::BASE);
    write(
        root,
        ".notarai/bad.spec.yaml",
        corpus::with("behaviours: []\ntier: ful\n"),
    );
    std::fs::write(
        root.join(".notarai/binary.spec.yaml"),
        [0u8, 159, 146, 150, 0, 1],
    )
    .unwrap();
    std::fs::write(root.join(".notarai/latin1.spec.yaml"), b"intent: caf\xe9\n").unwrap();
    write(root, ".notarai/huge.spec.yaml", "# x\n".repeat(400_000));
    write(root, ".notarai/.cache/ignored.spec.yaml", "not: a spec");
    write(root, ".notarai/notes.yaml", "not: a spec");
    let set = SpecSet::load_with(root, None);
    assert_eq!(
        set.specs
            .iter()
            .map(|s| s.path.as_str())
            .collect::<Vec<_>>(),
        vec![".notarai/good.spec.yaml"]
    );
    assert_eq!(
        set.get(".notarai/good.spec.yaml").unwrap().raw,
        corpus::BASE
    );
    let bad: Vec<(&str, usize, usize)> = set
        .invalid
        .iter()
        .map(|f| (f.path.as_str(), f.line, f.column))
        .collect();
    assert_eq!(
        bad,
        vec![
            (".notarai/bad.spec.yaml", 10, 1),
            (".notarai/bad.spec.yaml", 11, 7),
            (".notarai/binary.spec.yaml", 1, 1),
            (".notarai/huge.spec.yaml", 1, 1),
            (".notarai/latin1.spec.yaml", 1, 12),
        ]
    );
    assert!(set.invalid[2].message.contains("binary"));
    assert!(set.invalid[3].message.contains("larger than"));
    assert!(set.invalid[4].message.contains("UTF-8"));
    assert!(set.has_errors());
}

#[test]
fn spec_paths() {
    assert!(spec::is_spec_path(".notarai/a.spec.yaml"));
    assert!(spec::is_spec_path(".notarai/x/y/a.spec.yaml"));
    assert!(!spec::is_spec_path(".notarai/.cache/a.spec.yaml"));
    assert!(!spec::is_spec_path("docs/a.spec.yaml"));
    assert!(!spec::is_spec_path(".notarai/a.yaml"));
    assert_eq!(
        spec::resolve_ref(".notarai/x/a.spec.yaml", "../b.spec.yaml").as_deref(),
        Some(".notarai/b.spec.yaml")
    );
}

#[test]
fn errors_are_the_one_verdict_over_failed_and_loaded_specs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/a.rs", "");
    write(
        root,
        ".notarai/system.spec.yaml",
        spec_with(
            "subsystems:\n  - $ref: ./a.spec.yaml\n  - $ref: ./gone.spec.yaml\n",
            "src/**",
        ),
    );
    write(
        root,
        ".notarai/a.spec.yaml",
        spec_with("nope: 1\n", "src/a.rs"),
    );
    write(root, ".notarai/b.spec.yaml", spec_with("", "nothing/**"));
    let set = notarai::project::load_specs(root);
    let errors: Vec<String> = set.errors().iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        vec![
            ".notarai/a.spec.yaml:7:1: unknown key `nope`".to_string(),
            ".notarai/system.spec.yaml:9:11: `$ref: ./gone.spec.yaml` points to `.notarai/gone.spec.yaml`, which does not exist".to_string(),
        ]
    );
    assert!(set.fails(".notarai/a.spec.yaml"));
    assert!(set.fails(".notarai/system.spec.yaml"));
    // Warnings (an orphaned glob, an unreachable spec) never fail a spec.
    assert!(
        set.findings_for(".notarai/b.spec.yaml")
            .iter()
            .all(|f| f.severity == Severity::Warning)
    );
    assert!(!set.findings_for(".notarai/b.spec.yaml").is_empty());
    assert!(!set.fails(".notarai/b.spec.yaml"));
    // The loaded spec with a dangling ref still governs its files.
    assert!(set.get(".notarai/system.spec.yaml").is_some());
}

#[test]
fn a_cross_cutting_spec_under_subsystems_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/a.rs", "");
    write(
        root,
        ".notarai/system.spec.yaml",
        spec_with(
            "subsystems:\n  - $ref: ./style.spec.yaml\napplies:\n  - $ref: ./sec.spec.yaml\n",
            "src/**",
        ),
    );
    let cross = "schema_version: '0.8'\ncross_cutting: true\ntier: registered\nintent: a concern\n";
    write(root, ".notarai/style.spec.yaml", cross);
    write(root, ".notarai/sec.spec.yaml", cross);
    let set = notarai::project::load_specs(root);
    assert!(!set.has_errors(), "{:?}", set.errors());
    assert_eq!(
        messages(&set.findings, ".notarai/system.spec.yaml"),
        vec![
            "8:11:Warning: `.notarai/style.spec.yaml` is a cross-cutting spec, listed under `subsystems`"
        ]
    );
    assert!(set.findings_for(".notarai/sec.spec.yaml").is_empty());
}
