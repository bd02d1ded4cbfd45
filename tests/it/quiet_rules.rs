//! The quiet verdicts of versions, tests and tiers are sound (issue 37,
//! point 4): a verdict is quiet only when the change provably cannot alter
//! what the spec governs. A version counts only when a name owns it by the
//! syntax of a known pin form (an address, a duration, a rate, a hash no
//! name owns, a project's own version are reviewed); tiers and `tests_only`
//! never quiet a file the spec's constraints or invariants name; a
//! `registered` spec that states constraints is reviewed. Each case is
//! asked of the status, `get_spec_diff`, `list_affected_specs` and
//! `check --format json`, which must give the one verdict, and each quiet
//! file names its proof.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::common::{Repo, notarai, stderr, stdout};

/// What each of the four answers says of each file of one spec.
#[derive(Debug, Default)]
struct Verdicts {
    /// Per file: `"review"`, or the quiet reason the answer names.
    status: BTreeMap<String, String>,
    diff: BTreeMap<String, String>,
    check: BTreeMap<String, String>,
    /// `list_affected_specs`: files to review and quiet ones, counted.
    unreconciled_count: u64,
    housekeeping_count: u64,
    check_exit: Option<i32>,
}

/// Ask the four answers about spec `spec` on branch `feat` against `main`.
fn verdicts(repo: &Repo, spec: &str) -> Verdicts {
    let mut v = Verdicts::default();
    let mut server = repo.server();
    let status = server.call_ok(1, "get_reconciliation_status", json!({}));
    if let Some(entry) = status["specs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["spec_path"] == spec)
    {
        for f in entry["unreconciled"].as_array().into_iter().flatten() {
            v.status.insert(f.as_str().unwrap().into(), "review".into());
        }
        for f in entry["housekeeping"].as_array().into_iter().flatten() {
            let f = f.as_str().unwrap();
            let why = entry["housekeeping_reasons"][f]
                .as_str()
                .unwrap_or("(no proof)");
            v.status.insert(f.into(), why.into());
        }
    }
    let diff = server.call_ok(2, "get_spec_diff", json!({"spec_path": spec}));
    for f in diff["files"].as_array().into_iter().flatten() {
        v.diff.insert(f.as_str().unwrap().into(), "review".into());
    }
    for f in diff["housekeeping"].as_array().into_iter().flatten() {
        let f = f.as_str().unwrap();
        let why = diff["housekeeping_reasons"][f]
            .as_str()
            .unwrap_or("(no proof)");
        v.diff.insert(f.into(), why.into());
    }
    let listed = server.call_ok(3, "list_affected_specs", json!({}));
    if let Some(entry) = listed["affected_specs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["spec_path"] == spec)
    {
        v.unreconciled_count = entry["unreconciled_count"].as_u64().unwrap();
        v.housekeeping_count = entry["housekeeping_count"].as_u64().unwrap_or(0);
    }
    server.finish();
    let out = notarai(
        &repo.root,
        &["check", "--base", "main", "--format", "json"],
        b"",
    );
    v.check_exit = out.status.code();
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    for finding in report["findings"].as_array().unwrap() {
        if finding["spec"] != spec {
            continue;
        }
        let Some(file) = finding["file"].as_str() else {
            continue;
        };
        let message = finding["message"].as_str().unwrap_or("");
        let verdict = match finding["kind"].as_str() {
            Some("unreconciled") => "review".to_string(),
            Some("housekeeping") => message
                .split("housekeeping: ")
                .nth(1)
                .and_then(|m| m.split(", no review needed").next())
                .unwrap_or("(no proof)")
                .to_string(),
            _ => continue,
        };
        v.check.insert(file.into(), verdict);
    }
    v
}

/// The words `check` uses for each proof (`Quiet::says`).
fn says(reason: &str) -> &'static str {
    match reason {
        "versions" => "only pinned versions changed",
        "tests_only" => "only the spec's tests changed",
        "spec_tier" => "the spec is registered or derived and states no constraints",
        "artifact_tier" => "the artifact's tier is 3 or 4",
        "review" => "review",
        other => panic!("unknown reason {other}"),
    }
}

/// Assert the one verdict per file (`"review"` or a quiet reason) in the
/// status, the diff and `check`, and the counts of `list_affected_specs`.
fn assert_verdicts(repo: &Repo, spec: &str, expected: &[(&str, &str)]) {
    let v = verdicts(repo, spec);
    let want: BTreeMap<String, String> = expected
        .iter()
        .map(|(f, r)| (f.to_string(), r.to_string()))
        .collect();
    assert_eq!(v.status, want, "status of {spec}: {v:?}");
    assert_eq!(v.diff, want, "get_spec_diff of {spec}: {v:?}");
    let want_check: BTreeMap<String, String> = expected
        .iter()
        .map(|(f, r)| (f.to_string(), says(r).to_string()))
        .collect();
    assert_eq!(v.check, want_check, "check of {spec}: {v:?}");
    let reviews = expected.iter().filter(|(_, r)| *r == "review").count() as u64;
    assert_eq!(v.unreconciled_count, reviews, "list_affected_specs: {v:?}");
    assert_eq!(
        v.housekeeping_count,
        expected.len() as u64 - reviews,
        "list_affected_specs: {v:?}"
    );
    let fails = reviews > 0;
    assert_eq!(v.check_exit, Some(i32::from(fails)), "check exit: {v:?}");
}

/// A repository with `files` and the spec `spec` (at `path`) committed on
/// `main`, on a new branch `feat`.
fn repo_with(path: &str, spec: &str, files: &[(&str, &str)]) -> Repo {
    let repo = Repo::new();
    repo.write(path, spec);
    for (file, content) in files {
        repo.write(file, content);
    }
    repo.write(".gitignore", ".notarai/.cache/\n");
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

const CONFIG_SPEC: &str = ".notarai/service.spec.yaml";

/// A full spec of a service's configuration, CI and manifests.
const SERVICE: &str = "schema_version: '0.8'\nintent: The service\nbehaviors:\n  - name: serve\n    given: a request\n    then: an answer\nartifacts:\n  config:\n    - path: 'config/**'\n    - path: settings.toml\n    - path: .env\n    - path: Cargo.toml\n    - path: package.json\n    - path: go.mod\n    - path: requirements.txt\n    - path: .pre-commit-config.yaml\n    - path: Cargo.lock\n    - path: package-lock.json\n    - path: pyproject.toml\n  ci:\n    - path: '.github/**'\n";

/// Each case of the issue: before, after.
const NUMBERS: &[(&str, &str, &str)] = &[
    (
        "config/upstream.yaml",
        "upstream: http://10.0.0.5/api\n",
        "upstream: http://10.0.0.66/api\n",
    ),
    (
        "config/admin.yaml",
        "admin_password: 5f4dcc3b5aa765d61d8327deb882cf99 # user @admin\n",
        "admin_password: 0cc175b9c0f1b6a831c399e269772661 # user @admin\n",
    ),
    (
        "config/auth.yaml",
        "session_ttl_hours: 0.5 # see docs/auth.md\n",
        "session_ttl_hours: 720.0 # see docs/auth.md\n",
    ),
    (
        "settings.toml",
        "[limits]\nrate_limit = \"100.0/minute\"\n",
        "[limits]\nrate_limit = \"100000.0/minute\"\n",
    ),
    (
        ".github/workflows/deploy.yml",
        "env:\n  TRUSTED_PROXIES: 10.0.0.1/32\njobs:\n  d:\n    steps:\n      - uses: actions/checkout@v4\n",
        "env:\n  TRUSTED_PROXIES: 192.168.0.1/32\njobs:\n  d:\n    steps:\n      - uses: actions/checkout@v4\n",
    ),
    (
        ".env",
        "API_KEY=1a2b3c4d5e6f7a8b9c0d # key/owner@ops\nMAX_UPLOAD=1.5/MB\n",
        "API_KEY=9f8e7d6c5b4a3f2e1d0c # key/owner@ops\nMAX_UPLOAD=1500.5/MB\n",
    ),
    (
        "Cargo.toml",
        "[package]\nname = \"svc\"\nversion = \"1.2.0\"\n\n[dependencies]\nserde = \"1.0\"\n",
        "[package]\nname = \"svc\"\nversion = \"2.0.0\"\n\n[dependencies]\nserde = \"1.0\"\n",
    ),
    (
        "pyproject.toml",
        "[project]\nname = \"svc\"\nversion = \"1.2.0\"\nrequires-python = \">=3.9\"\n",
        "[project]\nname = \"svc\"\nversion = \"1.2.0\"\nrequires-python = \">=3.12\"\n",
    ),
    (
        "package.json",
        "{\n  \"name\": \"svc\",\n  \"version\": \"1.2.0\",\n  \"dependencies\": {\n    \"ky\": \"github:sindresorhus/ky#v1.2.0\"\n  }\n}\n",
        "{\n  \"name\": \"svc\",\n  \"version\": \"1.2.0\",\n  \"dependencies\": {\n    \"ky\": \"github:someone/ky#v1.2.1\"\n  }\n}\n",
    ),
];

#[test]
fn numbers_no_name_owns_are_reviewed() {
    let before: Vec<(&str, &str)> = NUMBERS.iter().map(|(f, old, _)| (*f, *old)).collect();
    let repo = repo_with(CONFIG_SPEC, SERVICE, &before);
    for (file, _, new) in NUMBERS {
        repo.write(file, new);
    }
    let expected: Vec<(&str, &str)> = NUMBERS.iter().map(|(f, _, _)| (*f, "review")).collect();
    assert_verdicts(&repo, CONFIG_SPEC, &expected);
}

/// Real pin bumps, one per form: before, after.
const PINS: &[(&str, &str, &str)] = &[
    (
        ".github/workflows/ci.yml",
        "jobs:\n  t:\n    steps:\n      - uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8 # v5.0.0\n      - uses: actions/setup-go@v5\n      - run: go test ./...\n",
        "jobs:\n  t:\n    steps:\n      - uses: actions/checkout@93cb6efe18208431cddfb8368fd83d5badbf9bfd # v5.0.1\n      - uses: actions/setup-go@v6\n      - run: go test ./...\n",
    ),
    (
        "go.mod",
        "module example.com/app\n\ngo 1.23\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.10.0\n\tgolang.org/x/net v0.55.0 // indirect\n)\n",
        "module example.com/app\n\ngo 1.23\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.10.1\n\tgolang.org/x/net v0.56.0 // indirect\n)\n",
    ),
    (
        "package.json",
        "{\n  \"name\": \"svc\",\n  \"version\": \"1.2.0\",\n  \"devDependencies\": {\n    \"ky\": \"^1.7.2\",\n    \"typescript\": \"~5.4.0\"\n  }\n}\n",
        "{\n  \"name\": \"svc\",\n  \"version\": \"1.2.0\",\n  \"devDependencies\": {\n    \"ky\": \"^1.8.0\",\n    \"typescript\": \"~5.5.2\"\n  }\n}\n",
    ),
    (
        "Cargo.toml",
        "[package]\nname = \"svc\"\nversion = \"1.2.0\"\n\n[dependencies]\nserde = \"1.0.200\"\nclap = { version = \"4.5\", features = [\"derive\"] }\n",
        "[package]\nname = \"svc\"\nversion = \"1.2.0\"\n\n[dependencies]\nserde = \"1.0.210\"\nclap = { version = \"4.6\", features = [\"derive\"] }\n",
    ),
    (
        "requirements.txt",
        "flask==3.0.0\nrequests>=2.31,<3\n",
        "flask==3.0.3\nrequests>=2.32,<3\n",
    ),
    (
        "pyproject.toml",
        "[project]\nname = \"svc\"\nversion = \"1.2.0\"\ndependencies = [\n    \"flask>=3.0\",\n    \"click>=8.1.3\",\n]\n",
        "[project]\nname = \"svc\"\nversion = \"1.2.0\"\ndependencies = [\n    \"flask>=3.1\",\n    \"click>=8.1.7\",\n]\n",
    ),
    (
        ".pre-commit-config.yaml",
        "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.14.14\n    hooks:\n      - id: ruff\n",
        "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.15.0\n    hooks:\n      - id: ruff\n",
    ),
    (
        "Cargo.lock",
        "[[package]]\nname = \"libc\"\nversion = \"0.2.155\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"97b3888a4aecf77e811145cadf6eef5901f4782c53886191b2f693f24761847c\"\n",
        "[[package]]\nname = \"libc\"\nversion = \"0.2.158\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"d8cc4b5a9e1e3b4a3c4a5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d\"\n",
    ),
    (
        "package-lock.json",
        "{\n  \"packages\": {\n    \"node_modules/ky\": {\n      \"version\": \"1.7.2\",\n      \"resolved\": \"https://registry.npmjs.org/ky/-/ky-1.7.2.tgz\",\n      \"integrity\": \"sha512-OzIvbHKKDpi60TnF9t7UUVAF1B4mcqc02z5PIvrm08Wyb+yOcz63GRvEuVxNT18a9E1SrNouhB4W2NNLeD7Ykg==\"\n    }\n  }\n}\n",
        "{\n  \"packages\": {\n    \"node_modules/ky\": {\n      \"version\": \"1.8.0\",\n      \"resolved\": \"https://registry.npmjs.org/ky/-/ky-1.8.0.tgz\",\n      \"integrity\": \"sha512-DoKGmG27nT8t/1F9gV8vNzggJ3mLAyD49J8tTMWHeZvS8qLc7GlyTieicYtFzvDznMe/q2u38peOjkWc5/pjvw==\"\n    }\n  }\n}\n",
    ),
];

#[test]
fn real_pin_bumps_stay_quiet_with_their_proof() {
    let before: Vec<(&str, &str)> = PINS.iter().map(|(f, old, _)| (*f, *old)).collect();
    let repo = repo_with(CONFIG_SPEC, SERVICE, &before);
    for (file, _, new) in PINS {
        repo.write(file, new);
    }
    let expected: Vec<(&str, &str)> = PINS.iter().map(|(f, _, _)| (*f, "versions")).collect();
    assert_verdicts(&repo, CONFIG_SPEC, &expected);
}

const RELEASE_SPEC: &str = ".notarai/release.spec.yaml";

/// A registered release spec: no behaviors, but a constraint and an
/// invariant; a changelog of tier 3 and packaged output of tier 4.
const RELEASE: &str = "schema_version: '0.8'\nintent: How a release is cut\ntier: registered\nconstraints:\n  - 'The version in Cargo.toml matches the release tag.'\ninvariants:\n  - 'Files under `dist/**` are built by make dist, never edited by hand.'\nartifacts:\n  build:\n    - path: Cargo.toml\n    - path: 'scripts/**'\n    - path: CHANGELOG.md\n      tier: 3\n    - path: 'dist/**'\n      tier: 4\n    - path: 'pkg/**'\n      tier: 4\n";

#[test]
fn a_registered_spec_that_states_constraints_is_reviewed() {
    let repo = repo_with(
        RELEASE_SPEC,
        RELEASE,
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"svc\"\nversion = \"1.2.0\"\n",
            ),
            ("scripts/release.sh", "#!/bin/sh\ncargo publish\n"),
            ("CHANGELOG.md", "# Changes\n"),
            ("dist/app.js", "x\n"),
            ("pkg/svc.txt", "x\n"),
        ],
    );
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"svc\"\nversion = \"1.3.0\"\n",
    );
    repo.write(
        "scripts/release.sh",
        "#!/bin/sh\ncargo publish --no-verify\n",
    );
    repo.write("CHANGELOG.md", "# Changes\n\n## 1.3.0\n");
    repo.write("dist/app.js", "y\n");
    repo.write("pkg/svc.txt", "y\n");
    // The spec's constraints apply to every file it governs; the tier 3
    // and 4 artifacts stay housekeeping unless a text names them
    // (dist/** is named by the invariant).
    assert_verdicts(
        &repo,
        RELEASE_SPEC,
        &[
            ("CHANGELOG.md", "artifact_tier"),
            ("Cargo.toml", "review"),
            ("dist/app.js", "review"),
            ("pkg/svc.txt", "artifact_tier"),
            ("scripts/release.sh", "review"),
        ],
    );
}

#[test]
fn a_registered_spec_without_constraints_names_its_tier() {
    let spec = "schema_version: '0.8'\nintent: Where the docs live\ntier: registered\nartifacts:\n  docs:\n    - path: 'docs/**'\n";
    let repo = repo_with(
        ".notarai/docs.spec.yaml",
        spec,
        &[("docs/guide.md", "# Guide\n")],
    );
    repo.write("docs/guide.md", "# Guide\n\nMore.\n");
    assert_verdicts(
        &repo,
        ".notarai/docs.spec.yaml",
        &[("docs/guide.md", "spec_tier")],
    );
}

const APP_SPEC: &str = ".notarai/app.spec.yaml";

/// A full spec whose constraint names one of its tests and whose
/// invariant names its lock file.
const APP: &str = "schema_version: '0.8'\nintent: The app\nbehaviors:\n  - name: login\n    given: a user\n    then: a session\nconstraints:\n  - 'tests/test_roles.py covers every role; a role without a test is a bug.'\ninvariants:\n  - 'Builds use the committed Cargo.lock (`--locked`).'\nartifacts:\n  code:\n    - path: 'src/**'\n  tests:\n    - path: 'tests/**'\n  build:\n    - path: Cargo.lock\n      tier: 4\n";

const LOCK: &str = "[[package]]\nname = \"libc\"\nversion = \"0.2.155\"\n";

#[test]
fn tests_and_tiers_never_quiet_a_file_the_constraints_name() {
    let repo = repo_with(
        APP_SPEC,
        APP,
        &[
            ("src/app.py", "def login():\n    return 1\n"),
            ("tests/test_roles.py", "def test_admin():\n    pass\n"),
            ("tests/test_login.py", "def test_login():\n    pass\n"),
            ("Cargo.lock", LOCK),
        ],
    );
    // Another test alone: tests_only.
    repo.write("tests/test_login.py", "def test_login():\n    assert 1\n");
    assert_verdicts(&repo, APP_SPEC, &[("tests/test_login.py", "tests_only")]);
    // The test the constraint names: reviewed, and the other test with it.
    repo.write("tests/test_roles.py", "def test_admin():\n    assert 0\n");
    assert_verdicts(
        &repo,
        APP_SPEC,
        &[
            ("tests/test_login.py", "review"),
            ("tests/test_roles.py", "review"),
        ],
    );
    // The tier 4 lock file the invariant names: reviewed, even a version
    // bump.
    repo.git(&["checkout", "-q", "--", "tests"]);
    repo.write("Cargo.lock", LOCK.replace("0.2.155", "0.2.158"));
    assert_verdicts(&repo, APP_SPEC, &[("Cargo.lock", "review")]);
}

#[test]
fn each_status_page_carries_the_proofs_of_its_own_files() {
    let spec = "schema_version: '0.8'\nintent: Where the docs live\ntier: registered\nartifacts:\n  docs:\n    - path: 'docs/**'\n";
    let names: Vec<String> = (0..120)
        .map(|i| format!("docs/a-rather-long-folder-name/guide-number-{i:03}.md"))
        .collect();
    let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "# Guide\n")).collect();
    let repo = repo_with(".notarai/docs.spec.yaml", spec, &files);
    for name in &names {
        repo.write(name, "# Guide\n\nMore.\n");
    }
    let mut server = repo.server();
    let mut cursor: Option<String> = None;
    let mut seen = 0;
    let mut pages = 0;
    loop {
        let mut args = json!({"max_tokens": 1000});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let status = server.call_ok(pages + 1, "get_reconciliation_status", args);
        pages += 1;
        for entry in status["specs"].as_array().unwrap() {
            let listed: Vec<&str> = entry["housekeeping"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|f| f.as_str().unwrap())
                .collect();
            let proofs = entry["housekeeping_reasons"].as_object();
            let proved: Vec<&str> = proofs
                .into_iter()
                .flatten()
                .map(|(f, why)| {
                    assert_eq!(why, "spec_tier");
                    f.as_str()
                })
                .collect();
            assert_eq!(listed, proved, "page {pages}: {status}");
            seen += listed.len();
        }
        match status["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    server.finish();
    assert!(pages > 1, "the answer is paged");
    assert_eq!(seen, names.len());
}

/// The second red team's changes the versions and tests rules called
/// housekeeping: each needs a review now.
#[test]
fn pins_that_change_kind_operator_host_or_hash_alone_are_reviewed() {
    let cases: &[(&str, &str, &str)] = &[
        // A commit hash unpinned to a tag; a full hash to a short one.
        (
            ".github/workflows/ci.yml",
            "jobs:\n  a:\n    steps:\n      - uses: actions/checkout@8ade135a41bc03ea155e62e844d188df1ea18608 # v4.1.0\n",
            "jobs:\n  a:\n    steps:\n      - uses: actions/checkout@v4 # v4.1.0\n",
        ),
        (
            ".github/workflows/ci.yml",
            "jobs:\n  a:\n    steps:\n      - uses: actions/checkout@8ade135a41bc03ea155e62e844d188df1ea18608\n",
            "jobs:\n  a:\n    steps:\n      - uses: actions/checkout@8ade135\n",
        ),
        // An exact requirement opened to a range.
        (
            "Cargo.toml",
            "[package]\nname = \"x\"\n\n[dependencies]\nring = \"=0.17.8\"\n",
            "[package]\nname = \"x\"\n\n[dependencies]\nring = \">=0.16\"\n",
        ),
        (
            "package.json",
            "{\n  \"dependencies\": {\n    \"ky\": \"^1.2.3\"\n  }\n}\n",
            "{\n  \"dependencies\": {\n    \"ky\": \">=0.0.0\"\n  }\n}\n",
        ),
        // A requirements-like file of settings.
        (
            "docs/security-requirements/limits.txt",
            "max_login_attempts<=5\n",
            "max_login_attempts<=500\n",
        ),
        // A host that reads as a version.
        (
            "Gemfile.lock",
            "GIT\n  remote: git@10.0.0.5:acme/auth.git\n",
            "GIT\n  remote: git@10.6.6.6:acme/auth.git\n",
        ),
        // A hash moved with its version unchanged; an algorithm downgraded.
        (
            "Cargo.lock",
            "[[package]]\nname = \"a\"\nversion = \"1.0.0\"\nchecksum = \"97b3aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa847c\"\n",
            "[[package]]\nname = \"a\"\nversion = \"1.0.0\"\nchecksum = \"97b3bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb847c\"\n",
        ),
        // An object line that closes one object and opens the next.
        (
            "package.json",
            "{\n  \"dependencies\": {\n    \"ky\": \"^1.2.3\"\n  }, \"config\": {\n    \"port\": \"8080.0\"\n  }\n}\n",
            "{\n  \"dependencies\": {\n    \"ky\": \"^1.2.3\"\n  }, \"config\": {\n    \"port\": \"9999.0\"\n  }\n}\n",
        ),
    ];
    for (path, before, after) in cases {
        let repo = Repo::new();
        repo.write(
            ".notarai/a.spec.yaml",
            format!("schema_version: '0.7'\nintent: Build.\nbehaviors:\n  - name: b\n    given: g\n    then: t\nartifacts:\n  configs:\n    - path: '{path}'\n"),
        );
        repo.write(path, before);
        repo.commit("init");
        repo.git(&["checkout", "-q", "-b", "feat"]);
        repo.write(path, after);
        let out = notarai(
            &repo.root,
            &["check", "--base", "main", "--format", "json"],
            b"",
        );
        let report: Value =
            serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("{e}: {}", stderr(&out)));
        let kinds: Vec<&str> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["file"] == *path)
            .map(|f| f["kind"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            ["unreconciled"],
            "{path}: {before:?} -> {after:?}: {report:#}"
        );
    }
    // A code file a behavior's `tested_by` names is code too: not tests_only.
    let repo = Repo::new();
    repo.write(
        ".notarai/a.spec.yaml",
        "schema_version: '0.8'\nintent: Parse.\nbehaviors:\n  - name: b\n    given: g\n    then: t\n    tested_by:\n      - path: src/parser.rs\nartifacts:\n  code:\n    - path: src/parser.rs\n",
    );
    repo.write(
        "src/parser.rs",
        "fn p(s: &str) -> bool {\n    if s.len() > 9 { return false; }\n    true\n}\n",
    );
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/parser.rs", "fn p(s: &str) -> bool {\n    true\n}\n");
    let out = notarai(
        &repo.root,
        &["check", "--base", "main", "--format", "json"],
        b"",
    );
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["file"] == "src/parser.rs" && f["kind"] == "unreconciled"),
        "{report:#}"
    );
}
