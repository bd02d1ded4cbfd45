//! The compiled globs, the exclusions, and the rules of what needs no review.

use super::quiet::names_word;
use super::*;

fn loaded(path: &str, text: &str) -> crate::spec::LoadedSpec {
    crate::spec::LoadedSpec {
        path: path.into(),
        raw: text.into(),
        spec: crate::spec::parse_spec(path, text).unwrap(),
    }
}

/// A spec's governance with `globs` as its `code` artifacts.
fn spec(path: &str, globs: &[&str]) -> SpecGlobs {
    SpecGlobs {
        path: path.into(),
        housekeeping: false,
        artifacts: globs
            .iter()
            .map(|g| ArtifactGlob {
                category: "code".into(),
                path: g.to_string(),
                housekeeping: false,
            })
            .collect(),
        tested_by: Vec::new(),
        rules: Vec::new(),
        unproven: false,
    }
}

#[test]
fn exclude_never_takes_a_file_from_a_spec_that_names_it() {
    let system = loaded(
        ".notarai/system.spec.yaml",
        "schema_version: '0.8'\nintent: s\ntier: registered\nsubsystems: []\nartifacts:\n  docs:\n    - path: README.md\nexclude:\n  - '.claude/**'\n",
    );
    let style = loaded(
        ".notarai/style.spec.yaml",
        "schema_version: '0.8'\nintent: s\ntier: registered\nartifacts:\n  docs:\n    - path: .claude/rules/style.md\n",
    );
    let set = SpecSet {
        specs: vec![style, system],
        system: Some(1),
        ..SpecSet::default()
    };
    let g = Governance::build(&set);
    assert_eq!(g.governors(".claude/rules/style.md"), vec![0]);
    assert_eq!(g.categories(0, ".claude/rules/style.md"), vec!["docs"]);
    assert!(!g.is_excluded(".claude/rules/style.md"));
    assert!(g.governors(".claude/settings.json").is_empty());
    assert!(g.is_excluded(".claude/settings.json"));
    assert!(!g.is_excluded("src/unspecced.rs"));
    assert!(g.is_excluded(".notarai/.cache/notarai.db"));
}

#[test]
fn may_govern_holds_every_governed_path() {
    let specs = vec![
        spec(".notarai/a.spec.yaml", &["src/a/**", "docs/a.md"]),
        spec(
            ".notarai/b.spec.yaml",
            &["src/b.rs#Session::refresh", "{lib,bin}/*.rs"],
        ),
        spec(".notarai/c.spec.yaml", &["**/*.py", "src/c"]),
        spec(".notarai/d.spec.yaml", &["[broken", "./tools/*.sh"]),
    ];
    let g = Governance::from_globs(specs.clone(), None);
    let paths = [
        "src/a/x.rs",
        "docs/a.md",
        "docs/a.md/x",
        "src/b.rs",
        "lib/x.rs",
        "bin/y.rs",
        "x/y.py",
        "src/c/d.rs",
        "src/cd",
        "tools/t.sh",
        ".notarai/a.spec.yaml",
        ".notarai/.cache/x.py",
        "README.md",
    ];
    let mut governed = 0;
    for path in paths {
        for i in g.governors(path) {
            governed += 1;
            assert!(specs[i].may_govern(path), "{} {path}", specs[i].path);
        }
    }
    assert!(governed >= 10, "{governed}");
    assert!(!specs[0].may_govern("README.md"));
    assert!(!specs[0].may_govern("lib/x.rs"));
    assert!(
        specs[1].may_govern("src/a/x.rs"),
        "no literal prefix: anywhere"
    );
}

#[test]
fn constraints_that_name_a_file_keep_it_reviewed() {
    let spec = |tier: &str, rules: &str| {
        loaded(
            ".notarai/release.spec.yaml",
            &format!(
                "schema_version: '0.8'\nintent: r\n{tier}{rules}artifacts:\n  build:\n    - path: Cargo.toml\n    - path: 'dist/**'\n      tier: 4\n    - path: CHANGELOG.md\n      tier: 3\n    - path: 'scripts/**'\n"
            ),
        )
    };
    let g = |s| {
        Governance::build(&SpecSet {
            specs: vec![s],
            ..SpecSet::default()
        })
    };
    // Registered, no constraints: every file is housekeeping.
    let plain = g(spec("tier: registered\n", ""));
    assert_eq!(
        plain.housekeeping(0, "Cargo.toml"),
        Some(Housekeeping::SpecTier)
    );
    // Registered with a constraint: reviewed; tier 3/4 artifacts stay
    // housekeeping unless a constraint or invariant names them.
    let stated = g(spec(
        "tier: registered\n",
        "constraints:\n  - 'The version in cargo.toml matches the tag.'\ninvariants:\n  - 'Files under `dist/**` are built, never edited.'\n",
    ));
    assert_eq!(stated.housekeeping(0, "Cargo.toml"), None);
    assert_eq!(stated.housekeeping(0, "scripts/release.sh"), None);
    assert!(stated.is_named(0, "Cargo.toml"));
    assert!(stated.is_named(0, "dist/app.js"), "named by its glob");
    assert_eq!(stated.housekeeping(0, "dist/app.js"), None);
    assert!(!stated.is_named(0, "CHANGELOG.md"));
    assert_eq!(
        stated.housekeeping(0, "CHANGELOG.md"),
        Some(Housekeeping::ArtifactTier)
    );
    assert!(!stated.is_named(0, "scripts/release.sh"));
    // A file name names the file, not a longer name; a folder with its
    // slash names what it holds.
    assert!(names_word("see changelog.md.", "changelog.md"));
    assert!(!names_word("see changelog.md.orig", "changelog.md"));
    assert!(!names_word("see old-changelog.md", "changelog.md"));
    assert!(!names_word("see web/changelog.md", "changelog.md"));
    assert!(names_word("output in dist/ is built", "dist/"));
    assert!(names_word("output in `dist/**` is built", "dist/"));
    assert!(!names_word("dist/app.js is built", "dist/"));
    assert!(!names_word("output in webdist/ is built", "dist/"));
}

#[test]
fn a_registered_spec_applying_rules_is_reviewed() {
    let security = loaded(
        ".notarai/security.spec.yaml",
        "schema_version: '0.8'\nintent: s\ncross_cutting: true\nbehaviors:\n  - name: b\n    given: g\n    then: t\ninvariants:\n  - 'The Dockerfile never runs as root.'\n",
    );
    let deploy = loaded(
        ".notarai/deploy.spec.yaml",
        "schema_version: '0.8'\nintent: d\ntier: registered\napplies:\n  - $ref: ./security.spec.yaml\nartifacts:\n  build:\n    - path: Dockerfile\n      tier: 4\n    - path: deploy/x.yaml\n",
    );
    let g = Governance::build(&SpecSet {
        specs: vec![security, deploy],
        ..SpecSet::default()
    });
    assert_eq!(g.housekeeping(1, "deploy/x.yaml"), None);
    assert!(g.is_named(1, "Dockerfile"));
    assert_eq!(g.housekeeping(1, "Dockerfile"), None);
}

#[test]
fn prefixes() {
    assert_eq!(
        minimize(vec![
            "src/a".into(),
            "src".into(),
            "docs/x.md".into(),
            "src".into()
        ]),
        vec!["docs/x.md".to_string(), "src".to_string()]
    );
}

#[test]
fn rules_a_parent_applies_reach_its_registered_subsystems() {
    // The red team's case: the system spec applies "never log secrets";
    // a registered subsystem stating nothing itself is still reviewed.
    let security = loaded(
        ".notarai/security.spec.yaml",
        "schema_version: '0.8'\nintent: s\ncross_cutting: true\nbehaviors:\n  - name: b\n    given: g\n    then: t\nconstraints:\n  - 'Never log secrets.'\n",
    );
    let system = loaded(
        ".notarai/system.spec.yaml",
        "schema_version: '0.8'\nintent: sys\ntier: registered\napplies:\n  - $ref: ./security.spec.yaml\nsubsystems:\n  - $ref: ./web.spec.yaml\nartifacts: {}\n",
    );
    let web = loaded(
        ".notarai/web.spec.yaml",
        "schema_version: '0.8'\nintent: w\ntier: registered\nartifacts:\n  code:\n    - path: 'web/**'\n",
    );
    let plain = loaded(
        ".notarai/tools.spec.yaml",
        "schema_version: '0.8'\nintent: t\ntier: registered\nartifacts:\n  code:\n    - path: 'tools/**'\n",
    );
    let g = Governance::build(&SpecSet {
        specs: vec![security, system, web, plain],
        ..SpecSet::default()
    });
    assert_eq!(g.housekeeping(2, "web/app.js"), None);
    // A registered spec nobody applies rules to stays housekeeping.
    assert_eq!(
        g.housekeeping(3, "tools/x.sh"),
        Some(Housekeeping::SpecTier)
    );
}

/// The scope index finds exactly the specs a comparison with every spec's
/// scope finds, on prefixes that are files, folders, siblings sharing
/// characters (`src/auth` and `src/authz.rs`) and a spec scoped to all.
#[test]
fn governors_found_through_the_scope_index_are_every_governor() {
    let specs = vec![
        spec(".notarai/auth.spec.yaml", &["src/auth/**", "docs/auth.md"]),
        spec(".notarai/authz.spec.yaml", &["src/authz.rs"]),
        spec(".notarai/all.spec.yaml", &["**/*.rs"]),
        spec(".notarai/src.spec.yaml", &["src/"]),
        spec(
            ".notarai/deep.spec.yaml",
            &["src/auth/deep/*.rs", "./lib/x/**/*.py"],
        ),
        spec(".notarai/none.spec.yaml", &[]),
    ];
    let g = Governance::from_globs(specs, None);
    let paths = [
        "src/auth/login.rs",
        "src/auth/deep/a.rs",
        "src/auth",
        "src/authz.rs",
        "src/auth.rs",
        "docs/auth.md",
        "docs/auth.md/x",
        "docs/authx.md",
        "lib/x/y/z.py",
        "lib/x.py",
        "README.md",
        ".notarai/auth.spec.yaml",
        ".notarai/none.spec.yaml",
        ".notarai/.cache/x.rs",
    ];
    for path in paths {
        let brute: Vec<usize> = g
            .rules
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.path == path
                    || (!is_under(path, CACHE_DIR)
                        && r.scope.contains(path)
                        && r.set().is_match(path))
            })
            .map(|(i, _)| i)
            .collect();
        assert_eq!(g.governors(path), brute, "{path}");
    }
    assert_eq!(g.governors("src/auth/deep/a.rs"), vec![0, 2, 3, 4]);
    assert_eq!(g.governors("src/authz.rs"), vec![1, 2, 3]);
}
