//! Nothing quiet on the branch's own word (issue 37, point 5): every record
//! a branch adds to the committed state is a claim `check` lists with its
//! spec; a reviewed blob is used only from this machine's cache or the
//! state at the merge base, and only when it hashes to its review; a cache
//! or facts database in a folder that belongs to another repository is
//! never read, never written and never cleared.

use serde_json::{Value, json};

use crate::common::{Repo, notarai, run_git_with_input, stdout};

const SPEC_PATH: &str = ".notarai/app.spec.yaml";

/// A spec of code and CI, with a constraint.
const SPEC: &str = "schema_version: '0.7'\nintent: The app\nbehaviors:\n  - name: serve\n    given: a request\n    then: an answer\nconstraints:\n  - 'Anonymous users are refused'\nartifacts:\n  code:\n    - path: 'src/**'\n  ci:\n    - path: '.github/**'\n";

const CI: &str = "jobs:\n  deploy:\n    steps:\n      - uses: actions/checkout@v4\n      - run: ./deploy --allow-anonymous=false\n";

const AUTH: &str = "def allowed(user):\n    return user.is_admin\n";

/// A repository whose `main` holds the spec, `src/auth.py`, the CI file
/// and `state` (a state file's JSON, when given), on a branch `feat`.
fn repo(state: Option<Value>) -> Repo {
    let repo = Repo::new();
    repo.write(SPEC_PATH, SPEC);
    repo.write("src/auth.py", AUTH);
    repo.write(".github/workflows/ci.yml", CI);
    repo.write(".gitignore", ".notarai/.cache/\n");
    if let Some(state) = state {
        write_state(&repo, &state);
    }
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo
}

fn write_state(repo: &Repo, state: &Value) {
    repo.write(
        ".notarai/reconciliation_state.json",
        serde_json::to_string_pretty(state).unwrap(),
    );
}

/// The BLAKE3 of `bytes`, as the state file records it.
fn blake3(bytes: &str) -> String {
    blake3::hash(bytes.as_bytes()).to_hex().to_string()
}

/// Put `content` in the repository's object store; its blob id.
fn blob(repo: &Repo, content: &str) -> String {
    let out = run_git_with_input(&repo.root, &["hash-object", "-w", "--stdin"], content);
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// `notarai check --base main` in `format`: exit code and stdout.
fn check(repo: &Repo, format: &str) -> (i32, String) {
    let out = notarai(
        &repo.root,
        &["check", "--base", "main", "--format", format],
        b"",
    );
    (out.status.code().unwrap(), stdout(&out))
}

#[test]
fn every_record_the_branch_adds_is_a_claim_with_its_spec_in_every_format() {
    let repo = repo(Some(json!({
        "schema_version": "2",
        "file_fingerprints": {},
        "spec_fingerprints": {},
        "drift_notes": {SPEC_PATH: [{"id": "n1", "note": "deploy lets anonymous users in"}]},
    })));
    // The branch changes the code and marks it reviewed for the spec, the
    // whole file and one symbol, and closes the drift note: its own word.
    let changed = "def allowed(user):\n    return True\n";
    repo.write("src/auth.py", changed);
    write_state(
        &repo,
        &json!({
            "schema_version": "2",
            "file_fingerprints": {},
            "spec_fingerprints": {},
            "spec_reviews": {SPEC_PATH: {
                "src/auth.py": {"hash": blake3(changed)},
                "src/auth.py#allowed": {"hash": blake3(changed)},
            }},
        }),
    );
    repo.commit("reviewed, says the branch");

    let (code, json_text) = check(&repo, "json");
    assert_eq!(code, 0, "the records count: {json_text}");
    let report: Value = serde_json::from_str(&json_text).unwrap();
    let claims: Vec<(String, String, String, String)> = report["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert_eq!(c["specs"], json!([SPEC_PATH]), "{c}");
            (
                c["path"].as_str().unwrap().to_string(),
                c["symbol"].as_str().unwrap_or("").to_string(),
                c["record"].as_str().unwrap().to_string(),
                c["change"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let claim = |p: &str, s: &str, r: &str, c: &str| (p.into(), s.into(), r.into(), c.into());
    assert_eq!(
        claims,
        [
            claim(SPEC_PATH, "", "drift_note", "removed"),
            claim("src/auth.py", "", "spec_review", "added"),
            claim("src/auth.py", "allowed", "spec_review", "added"),
        ],
        "{json_text}"
    );
    assert_eq!(
        report["claims"][0]["note"],
        "deploy lets anonymous users in"
    );

    let (_, text) = check(&repo, "text");
    assert!(text.contains("Marked reconciled on this branch"), "{text}");
    assert!(
        text.contains(&format!(
            "  {SPEC_PATH}\n    removed  drift note closed: deploy lets anonymous users in\n    added    src/auth.py (reviewed for this spec)\n    added    src/auth.py#allowed (reviewed for this spec)\n"
        )),
        "{text}"
    );
    let (_, github) = check(&repo, "github");
    assert!(
        github.contains(&format!(
            "::notice file=src/auth.py::marked reconciled on this branch (added, {SPEC_PATH}): src/auth.py (reviewed for this spec)"
        )),
        "{github}"
    );
    assert!(
        github.contains(&format!(
            "::notice file={SPEC_PATH}::marked reconciled on this branch (removed, {SPEC_PATH}): drift note closed"
        )),
        "{github}"
    );

    // A record the base already has is no claim of this branch.
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--ff-only", "feat"]);
    repo.git(&["checkout", "-q", "-b", "next"]);
    let (_, json_text) = check(&repo, "json");
    let report: Value = serde_json::from_str(&json_text).unwrap();
    assert_eq!(report["claims"], json!([]), "{json_text}");
}

/// The CI file as the branch leaves it: the pin moved and anonymous
/// users let in.
fn ci_changed() -> String {
    CI.replace("checkout@v4", "checkout@v5")
        .replace("anonymous=false", "anonymous=true")
}

/// A crafted "reviewed" content: everything the branch did but the pin.
fn ci_crafted() -> String {
    CI.replace("anonymous=false", "anonymous=true")
}

/// The check fails on the CI file and names it unreconciled, not
/// housekeeping: the change of `--allow-anonymous` is shown.
fn assert_ci_needs_review(repo: &Repo) {
    let (code, json_text) = check(repo, "json");
    assert_eq!(code, 1, "{json_text}");
    let report: Value = serde_json::from_str(&json_text).unwrap();
    let kinds: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == ".github/workflows/ci.yml")
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["unreconciled"], "{json_text}");
    let mut server = repo.server();
    let status = server.call_ok(
        1,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    assert_eq!(status["nothing_to_review"], false, "{status}");
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": SPEC_PATH, "base_branch": "main"}),
    );
    assert!(
        diff["diff"]
            .as_str()
            .unwrap()
            .contains("+      - run: ./deploy --allow-anonymous=true"),
        "{diff}"
    );
    assert_eq!(diff["since_reconciled"], Value::Null, "{diff}");
    server.finish();
}

#[test]
fn a_blob_the_branch_names_in_its_own_record_is_not_where_the_diff_starts() {
    let repo = repo(None);
    repo.write(".github/workflows/ci.yml", ci_changed());
    // The branch's record: a content it says was reviewed, which differs
    // from its change by the pin alone (its hash and blob agree).
    let crafted = ci_crafted();
    let id = blob(&repo, &crafted);
    write_state(
        &repo,
        &json!({
            "schema_version": "2",
            "file_fingerprints": {},
            "spec_fingerprints": {},
            "spec_reviews": {SPEC_PATH: {
                ".github/workflows/ci.yml": {"hash": blake3(&crafted), "blob": id},
            }},
        }),
    );
    repo.commit("pin moved, says the branch");
    assert_ci_needs_review(&repo);
    // The record is listed for the reviewer all the same.
    let (_, text) = check(&repo, "text");
    assert!(
        text.contains("added    .github/workflows/ci.yml (reviewed for this spec)"),
        "{text}"
    );
}

#[test]
fn a_blob_that_does_not_hash_to_its_review_is_not_where_the_diff_starts() {
    // The state at the merge base names, for the CI file as it is on main,
    // a blob holding other content: it does not hash to the review.
    let crafted = ci_crafted();
    let scratch = Repo::new();
    let id = blob(&scratch, &crafted);
    let state = json!({
        "schema_version": "2",
        "file_fingerprints": {".github/workflows/ci.yml": {"blake3": blake3(CI), "blob": id}},
        "spec_fingerprints": {},
    });
    let repo = repo(Some(state));
    assert_eq!(blob(&repo, &crafted), id);
    repo.write(".github/workflows/ci.yml", ci_changed());
    repo.commit("pin moved");
    assert_ci_needs_review(&repo);
}

#[test]
fn a_branchs_claim_quiets_a_formatting_edit_only_as_a_listed_claim_and_never_starts_the_diff() {
    let repo = repo(None);
    let changed = "def allowed(user):\n    return True\n";
    repo.write("src/auth.py", changed);
    // "Reviewed": the change with a comment, so that only a comment differs.
    let crafted = "def allowed(user):\n    return True  # reviewed\n";
    let id = blob(&repo, crafted);
    write_state(
        &repo,
        &json!({
            "schema_version": "2",
            "file_fingerprints": {},
            "spec_fingerprints": {},
            "spec_reviews": {SPEC_PATH: {"src/auth.py": {"hash": blake3(crafted), "blob": id}}},
        }),
    );
    repo.commit("reviewed, says the branch");
    let mut server = repo.server();
    let diff = server.call_ok(
        1,
        "get_spec_diff",
        json!({"spec_path": SPEC_PATH, "base_branch": "main"}),
    );
    server.finish();
    // A record the branch adds counts (it is a claim `check` lists): the
    // content now has the program of the content it names, so the file is
    // formatting-only since that review (issue 42), exactly as a claim
    // naming the content now would skip it. The diff never starts at it.
    assert_eq!(diff["formatting_only"], json!(["src/auth.py"]), "{diff}");
    assert_eq!(diff["since_reconciled"], Value::Null, "{diff}");
    let (_, text) = check(&repo, "text");
    assert!(
        text.lines()
            .any(|l| l.contains("src/auth.py") && l.contains("reviewed for this spec")),
        "{text}"
    );
    // Without the claim, the change is shown from the base.
    repo.git(&["rm", "-q", ".notarai/reconciliation_state.json"]);
    repo.commit("no claim");
    let mut server = repo.server();
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": SPEC_PATH, "base_branch": "main"}),
    );
    server.finish();
    let text = diff["diff"].as_str().unwrap_or_else(|| panic!("{diff}"));
    assert!(text.contains("-    return user.is_admin"), "{text}");
    assert!(text.contains("+    return True"), "{text}");
}

/// A git repository at `dir` holding `files` (relative path, bytes), committed.
fn other_repository(dir: &std::path::Path, files: &[(&str, Vec<u8>)]) {
    std::fs::create_dir_all(dir).unwrap();
    crate::common::git(dir, &["init", "-q", "-b", "main"]);
    for (rel, bytes) in files {
        crate::common::write(dir, rel, bytes);
    }
    crate::common::git(dir, &["add", "-A"]);
    crate::common::git(dir, &["commit", "-q", "-m", "cache"]);
}

/// The hash cache and facts another checkout made while `src/auth.py` held
/// `content`, reviewed: the files of its `.notarai/.cache`.
fn foreign_cache(content: &str) -> Vec<(&'static str, Vec<u8>)> {
    let scratch = repo(None);
    scratch.write("src/auth.py", content);
    // The facts: a check outlines the changed file, not reviewed yet.
    let out = notarai(&scratch.root, &["check", "--base", "main"], b"");
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let out = notarai(&scratch.root, &["reconcile", "src/auth.py"], b"");
    assert!(out.status.success(), "{}", crate::common::stderr(&out));
    let cache = scratch.root.join(".notarai/.cache");
    ["notarai.db", "facts.db"]
        .into_iter()
        .filter_map(|name| Some((name, std::fs::read(cache.join(name)).ok()?)))
        .collect()
}

/// Every file of the folder `dir` (outside `.git`), with its bytes.
fn files_of(dir: &std::path::Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    crate::common::snapshot(dir)
}

#[test]
fn a_submodule_at_the_cache_folder_is_never_read_written_or_cleared() {
    let changed = "def allowed(user):\n    return True\n";
    let delivered = foreign_cache(changed);
    assert!(delivered.iter().any(|(n, _)| *n == "notarai.db"));
    let repo = Repo::new();
    repo.write(SPEC_PATH, SPEC);
    repo.write("src/auth.py", AUTH);
    repo.commit("init");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    let other = repo.outside.join("cache-repo");
    other_repository(&other, &delivered);
    repo.git(&[
        "submodule",
        "add",
        "-q",
        other.to_str().unwrap(),
        ".notarai/.cache",
    ]);
    repo.write("src/auth.py", changed);
    repo.commit("the branch, with a cache that says it was reviewed");
    let cache = repo.root.join(".notarai/.cache");
    let before = files_of(&cache);

    let (code, json_text) = check(&repo, "json");
    assert_eq!(code, 1, "the delivered cache is not read: {json_text}");
    let report: Value = serde_json::from_str(&json_text).unwrap();
    let kinds: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"tracked_cache"), "{json_text}");
    assert!(kinds.contains(&"unreconciled"), "{json_text}");

    let mut server = repo.server();
    let status = server.call_ok(
        1,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    assert_eq!(status["nothing_to_review"], false, "{status}");
    let diff = server.call_ok(
        2,
        "get_spec_diff",
        json!({"spec_path": SPEC_PATH, "base_branch": "main"}),
    );
    assert!(
        diff["diff"].as_str().unwrap().contains("+    return True"),
        "{diff}"
    );
    server.finish();
    let out = notarai(&repo.root, &["reconcile", "src/auth.py"], b"");
    assert!(!out.status.success(), "nothing is written there");
    let out = notarai(&repo.root, &["cache", "clear"], b"");
    assert!(
        crate::common::stderr(&out).contains("another repository"),
        "{}",
        crate::common::stderr(&out)
    );
    assert_eq!(
        files_of(&cache),
        before,
        "the other repository's files stay"
    );
    assert_eq!(
        crate::common::git(&cache, &["status", "--porcelain", "--ignored"]),
        ""
    );
}

#[test]
fn a_submodule_at_the_spec_folder_keeps_its_cache_and_facts() {
    let delivered = foreign_cache("def allowed(user):\n    return True\n");
    let names: Vec<&str> = delivered.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["notarai.db", "facts.db"]);
    let repo = Repo::new();
    repo.write("src/auth.py", AUTH);
    repo.commit("init");
    let other = repo.outside.join("specs-repo");
    let mut files: Vec<(&str, Vec<u8>)> = vec![("app.spec.yaml", SPEC.as_bytes().to_vec())];
    let cached: Vec<(String, Vec<u8>)> = delivered
        .into_iter()
        .map(|(n, b)| (format!(".cache/{n}"), b))
        .collect();
    files.extend(cached.iter().map(|(n, b)| (n.as_str(), b.clone())));
    other_repository(&other, &files);
    repo.git(&[
        "submodule",
        "add",
        "-q",
        other.to_str().unwrap(),
        ".notarai",
    ]);
    repo.commit("specs from another repository");
    repo.git(&["checkout", "-q", "-b", "feat"]);
    repo.write("src/auth.py", "def allowed(user):\n    return True\n");
    let specs = repo.root.join(".notarai");
    let before = files_of(&specs);

    let _ = notarai(&repo.root, &["check", "--base", "main"], b"");
    let mut server = repo.server();
    server.call_ok(
        1,
        "get_reconciliation_status",
        json!({"base_branch": "main"}),
    );
    server.finish();
    let _ = notarai(&repo.root, &["reconcile", "src/auth.py"], b"");
    let out = notarai(&repo.root, &["cache", "status"], b"");
    assert!(
        !stdout(&out).contains("entries: 1"),
        "the other repository's cache is not read: {}",
        stdout(&out)
    );
    let out = notarai(&repo.root, &["cache", "clear"], b"");
    assert!(
        crate::common::stderr(&out).contains("another repository"),
        "{}",
        crate::common::stderr(&out)
    );
    assert_eq!(
        files_of(&specs),
        before,
        "the other repository's files stay"
    );
    assert_eq!(
        crate::common::git(&specs, &["status", "--porcelain", "--ignored"]),
        ""
    );
}
