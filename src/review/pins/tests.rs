//! The pin forms, line by line, on real bumps and on what is no pin.

use super::*;

fn one(form: Form, line: &str, above: &str) -> Option<Pin> {
    let above: Vec<&str> = above.lines().collect();
    pin(form, line, &above)
}

fn moved(form: Form, old: &str, new: &str, above: &str) -> bool {
    match (one(form, old, above), one(form, new, above)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

#[test]
fn forms_by_path() {
    assert_eq!(Form::of(".github/workflows/ci.yml"), Some(Form::Workflow));
    assert_eq!(
        Form::of("a/.github/actions/x/action.yaml"),
        Some(Form::Workflow)
    );
    assert_eq!(Form::of("config/app.yaml"), None);
    assert_eq!(Form::of("deploy/docker-compose.yml"), None);
    assert_eq!(Form::of("web/package.json"), Some(Form::PackageJson));
    assert_eq!(Form::of("requirements-dev.txt"), Some(Form::Requirements));
    assert_eq!(Form::of("requirements/base.txt"), Some(Form::Requirements));
    assert_eq!(Form::of("notes.txt"), None);
    assert_eq!(Form::of("Cargo.lock"), Some(Form::Lock));
    assert_eq!(Form::of(".env"), None);
    assert_eq!(Form::of("settings.toml"), None);
}

#[test]
fn named_versions_move() {
    assert!(moved(
        Form::Workflow,
        "      - uses: actions/checkout@v6",
        "      - uses: actions/checkout@v7",
        ""
    ));
    assert!(moved(
        Form::Workflow,
        "      - uses: 'github/codeql-action/init@v3.1.0'",
        "      - uses: 'github/codeql-action/init@v3.2.0'",
        ""
    ));
    let pkg = "{\n  \"name\": \"x\",\n  \"dependencies\": {\n    \"a\": \"1\",";
    assert!(moved(
        Form::PackageJson,
        "    \"ky\": \"^1.2.3\",",
        "    \"ky\": \"^1.3.0\",",
        pkg
    ));
    let cargo = "[package]\nname = \"x\"\n\n[dependencies]\n";
    assert!(moved(
        Form::CargoToml,
        "serde = \"1.0\"",
        "serde = \"1.1\"",
        cargo
    ));
    assert!(moved(
        Form::CargoToml,
        "tokio = { version = \"1.37\", features = [\"full\"] }",
        "tokio = { version = \"1.38\", features = [\"full\"] }",
        "[target.'cfg(unix)'.dependencies]"
    ));
    assert!(moved(
        Form::CargoToml,
        "version = \"0.4\"",
        "version = \"0.5\"",
        "[dev-dependencies.insta]\nfeatures = [\"json\"]"
    ));
    assert!(moved(
        Form::Requirements,
        "flask==3.0.0",
        "flask==3.0.3",
        ""
    ));
    assert!(moved(
        Form::Requirements,
        "Django[argon2]>=4.2.0,<5.0  # LTS",
        "Django[argon2]>=4.2.1,<5.1  # LTS",
        ""
    ));
    // A bound with another number of parts is another kind of ref (`=1`
    // is not `=1.0.100`): shown, whichever way it went.
    assert!(!moved(
        Form::Requirements,
        "Django[argon2]>=4.2,<5.0  # LTS",
        "Django[argon2]>=4.2.1,<5.1  # LTS",
        ""
    ));
    assert!(moved(
        Form::Requirements,
        "    --hash=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef \\",
        "    --hash=sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210 \\",
        "flask==3.0.0 \\"
    ));
    assert!(moved(
        Form::Lock,
        "checksum = \"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"",
        "checksum = \"fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210\"",
        ""
    ));
    assert!(moved(
        Form::Lock,
        "      \"resolved\": \"https://registry.npmjs.org/ky/-/ky-1.7.2.tgz\",",
        "      \"resolved\": \"https://registry.npmjs.org/ky/-/ky-1.7.3.tgz\",",
        ""
    ));
    assert!(moved(
        Form::Lock,
        "      \"integrity\": \"sha512-Z8l5Yp6u1pUQq1+6vQk0Fzo2Bb9Y6L5Ggk8T1bXg+3yZ1aS9B/0a==\",",
        "      \"integrity\": \"sha512-Qd4Pj5Zg7M3ko8Qm0Xf9vR2c1Kx+Zqv9u1Rk2Q9Ty/0aZkq1Cs9vw==\",",
        ""
    ));
    assert!(moved(
        Form::Lock,
        "golang.org/x/net v0.55.0 h1:abcdefghijABCDEFGHIJ0123456789+/abcdefghij=",
        "golang.org/x/net v0.56.0 h1:ZYXWVUTSRQponmlkjihg9876543210+/zyxwvutsrq=",
        ""
    ));
}

#[test]
fn pyproject_dependencies() {
    let project = "[project]\nname = \"x\"\ndependencies = [\n    \"a>=1\",";
    assert!(moved(
        Form::PyProject,
        "    \"flask>=3.0\",",
        "    \"flask>=3.1\",",
        project
    ));
    assert!(moved(
        Form::PyProject,
        "pytest = \"^8.0\"",
        "pytest = \"^8.3\"",
        "[tool.poetry.group.dev.dependencies]"
    ));
    // The project's own version, its Python, another array.
    assert!(!moved(
        Form::PyProject,
        "version = \"1.0\"",
        "version = \"1.1\"",
        "[project]"
    ));
    assert!(!moved(
        Form::PyProject,
        "python = \"^3.10\"",
        "python = \"^3.11\"",
        "[tool.poetry.dependencies]"
    ));
    assert!(!moved(
        Form::PyProject,
        "    \"E501>=1.0\",",
        "    \"E501>=2.0\",",
        "[tool.ruff]\nignore = ["
    ));
    assert_eq!(Form::of("pyproject.toml"), Some(Form::PyProject));
}

#[test]
fn unnamed_numbers_are_no_pins() {
    // A URL's host, an address or a CIDR, a duration, a rate, a size,
    // a password hash: in no pin form, so never a pin.
    for line in [
        "upstream: http://10.0.0.5/api",
        "trusted_proxies: 10.0.0.1/32",
        "session_ttl_hours: 0.5 # see docs/auth.md",
        "rate_limit = \"100.0/minute\"",
        "admin_hash: 5f4dcc3b5aa765d61d8327deb882cf99 # @admin",
    ] {
        for form in [
            Form::Workflow,
            Form::PreCommit,
            Form::GoMod,
            Form::PackageJson,
            Form::CargoToml,
        ] {
            assert_eq!(
                one(form, line, "[dependencies]\nrequire (\n"),
                None,
                "{line}"
            );
        }
    }
    // A lock file's URL host is kept, not set aside.
    assert!(!moved(
        Form::Lock,
        "source = \"registry+http://10.0.0.5/index\"",
        "source = \"registry+http://10.0.0.6/index\"",
        ""
    ));
    // The project's own version, a setting outside a dependency table.
    assert!(!moved(
        Form::CargoToml,
        "version = \"1.2.0\"",
        "version = \"1.3.0\"",
        "[package]\nname = \"x\""
    ));
    assert!(!moved(
        Form::PackageJson,
        "  \"version\": \"1.2.0\",",
        "  \"version\": \"1.3.0\",",
        "{\n  \"name\": \"x\","
    ));
    // A dependency's non-version value moved: a git branch, a path.
    assert!(!moved(
        Form::PackageJson,
        "    \"ky\": \"github:sindresorhus/ky#main\",",
        "    \"ky\": \"github:evil/ky#main\",",
        "{\n  \"dependencies\": {"
    ));
    // `rev:` with no repository URL above it.
    assert_eq!(
        one(Form::PreCommit, "    rev: v1.2.3", "- repo: local"),
        None
    );
    // Inside a script, `uses:` is text.
    assert_eq!(
        one(
            Form::Workflow,
            "          uses: a/b@v1",
            "jobs:\n  t:\n    steps:\n      - run: |\n          echo"
        ),
        None
    );
    assert!(
        one(
            Form::Workflow,
            "      - uses: a/b@v1",
            "jobs:\n  t:\n    steps:\n      - run: |\n          echo"
        )
        .is_some()
    );
    // In a lock file, a name that looks like a version or a word of
    // hexadecimal letters is a name.
    assert!(!moved(
        Form::Lock,
        "\"node_modules/v8-compile-cache\": {",
        "\"node_modules/v9-compile-cache\": {",
        ""
    ));
    assert!(!moved(
        Form::Lock,
        "name = \"effaced\"",
        "name = \"defaced\"",
        ""
    ));
    // A local action, a docker image.
    assert_eq!(one(Form::Workflow, "  uses: ./.github/actions/x", ""), None);
    assert_eq!(
        one(Form::Workflow, "  uses: docker://alpine:3.19", ""),
        None
    );
    // go.mod: the Go version, a replace block.
    assert_eq!(one(Form::GoMod, "go 1.24", ""), None);
    assert_eq!(one(Form::GoMod, "\ta.b/c v1.2.3", "replace ("), None);
    assert!(one(Form::GoMod, "\ta.b/c v1.2.3", "require (").is_some());
}

#[test]
fn an_exact_pin_that_becomes_a_range_or_a_commit_is_no_version_move() {
    // The red team's cases: a loosened pin is a change to review.
    let deps = "{\n  \"dependencies\": {";
    assert!(moved(
        Form::PackageJson,
        r#"    "lodash": "4.17.21""#,
        r#"    "lodash": "4.17.22""#,
        deps
    ));
    assert!(!moved(
        Form::PackageJson,
        r#"    "lodash": "4.17.21""#,
        r#"    "lodash": "4.x""#,
        deps
    ));
    assert!(!moved(
        Form::PackageJson,
        r#"    "lodash": "4.17.21""#,
        r#"    "lodash": "4""#,
        deps
    ));
    assert!(moved(
        Form::Requirements,
        "requests==2.31.0",
        "requests==2.32.3",
        ""
    ));
    assert!(!moved(
        Form::Requirements,
        "requests==2.31.0",
        "requests==2.*",
        ""
    ));
    let cargo = "[dependencies]";
    assert!(!moved(
        Form::CargoToml,
        r#"serde = "=1.0.100""#,
        r#"serde = "=1""#,
        cargo
    ));
    assert!(moved(
        Form::CargoToml,
        r#"serde = "=1.0.100""#,
        r#"serde = "=1.0.101""#,
        cargo
    ));
    let step = "      - uses: actions/checkout@";
    assert!(!moved(
        Form::Workflow,
        &format!("{step}v4.1.1"),
        &format!("{step}v4"),
        ""
    ));
    assert!(moved(
        Form::Workflow,
        &format!("{step}v4.1.1"),
        &format!("{step}v4.2.0"),
        ""
    ));
    let require = "module m\n\nrequire (";
    assert!(moved(
        Form::GoMod,
        "\texample.com/x v1.2.3",
        "\texample.com/x v1.2.4",
        require
    ));
    assert!(!moved(
        Form::GoMod,
        "\texample.com/x v1.2.3",
        "\texample.com/x v1.2.4-0.20240101000000-abcdef123456",
        require
    ));
}
