//! The starter system spec written when a repository has no spec yet.

use std::path::Path;

/// Folders of generated or downloaded files that a starter spec excludes when
/// they exist at the root.
const GENERATED_DIRS: &[&str] = &[
    "target",
    "node_modules",
    "dist",
    "build",
    "out",
    ".venv",
    "venv",
    "__pycache__",
    ".next",
    ".tox",
    "coverage",
];

/// What the starter spec is built from: what `notarai init` found at the root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StarterInputs {
    /// File name of the root README, when there is one.
    pub readme: Option<String>,
    /// Generated folders present at the root, in [`GENERATED_DIRS`] order.
    pub generated_dirs: Vec<String>,
}

impl StarterInputs {
    /// Look at the root: its README (`README.md` preferred, else any file
    /// named `README` or `README.*`, case-insensitively, first by name) and
    /// the generated folders that exist.
    pub fn scan(root: &Path) -> StarterInputs {
        let mut readmes: Vec<String> = crate::walk::entries(root, "", 1)
            .into_iter()
            .filter(|e| e.kind == crate::walk::Kind::File)
            .map(|e| e.rel)
            .filter(|name| {
                let upper = name.to_ascii_uppercase();
                upper == "README" || upper.starts_with("README.")
            })
            .collect();
        readmes.sort_by_key(|name| (name != "README.md", name.clone()));
        let generated_dirs = GENERATED_DIRS
            .iter()
            .filter(|dir| root.join(dir).is_dir())
            .map(|dir| dir.to_string())
            .collect();
        StarterInputs {
            readme: readmes.into_iter().next(),
            generated_dirs,
        }
    }
}

/// A YAML single-quoted scalar.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The text of the starter `.notarai/system.spec.yaml`.
///
/// It is the system spec (it has a `subsystems` key, empty for now) so that
/// its `exclude` list takes effect and component specs have a parent to be
/// listed in. It has no behaviors yet, so it is honestly `tier: registered`
/// (intent and file mapping only) until someone describes the project.
pub fn system_spec(inputs: &StarterInputs) -> String {
    let mut out = format!(
        "# yaml-language-server: $schema=./notarai.spec.json\n\
         #\n\
         # Starter system spec written by `notarai init`. Replace the intent with\n\
         # what this project is for, then add one spec per component and list it\n\
         # under `subsystems` (the `{}` skill drafts them).\n\
         schema_version: '0.8'\n\
         intent: |\n  \
           TODO: say in two to four sentences what this project is for and who\n  \
           uses it.\n\
         # Intent and file mapping only, for now. Remove this line (the default\n\
         # tier is `full`) once the spec lists behaviors.\n\
         tier: registered\n\
         # A spec with a `subsystems` key is the system spec. Add component specs\n\
         # as `- $ref: ./component.spec.yaml`.\n\
         subsystems: []\n",
        crate::workflow::BOOTSTRAP.name
    );
    match &inputs.readme {
        Some(readme) => {
            out.push_str("artifacts:\n  docs:\n");
            out.push_str(&format!(
                "    - path: {}\n      role: 'project overview'\n",
                quote(readme)
            ));
        }
        None => out.push_str(
            "# Map files to this spec by category, e.g. `docs: [{path: 'README.md'}]`.\n\
             artifacts: {}\n",
        ),
    }
    out.push_str("# Generated files that no spec needs to govern.\n");
    if inputs.generated_dirs.is_empty() {
        out.push_str("exclude: []\n");
    } else {
        out.push_str("exclude:\n");
        for dir in &inputs.generated_dirs {
            out.push_str(&format!("  - {}\n", quote(&format!("{dir}/**"))));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_finds_readme_and_generated_dirs() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("readme.txt"), "x").unwrap();
        std::fs::write(dir.path().join("README.md"), "x").unwrap();
        std::fs::create_dir(dir.path().join("node_modules")).unwrap();
        std::fs::create_dir(dir.path().join("target")).unwrap();
        std::fs::write(dir.path().join("dist"), "a file, not a folder").unwrap();
        let inputs = StarterInputs::scan(dir.path());
        assert_eq!(inputs.readme.as_deref(), Some("README.md"));
        assert_eq!(inputs.generated_dirs, ["target", "node_modules"]);
    }

    #[test]
    fn starter_parses_as_a_system_spec() {
        for inputs in [
            StarterInputs::default(),
            StarterInputs {
                readme: Some("READ'ME".into()),
                generated_dirs: vec!["target".into(), "dist".into()],
            },
        ] {
            let text = system_spec(&inputs);
            assert!(text.starts_with("# yaml-language-server: $schema=./notarai.spec.json\n"));
            let value: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
            assert_eq!(value["schema_version"], "0.8");
            assert_eq!(value["tier"], "registered");
            assert!(value["subsystems"].as_sequence().unwrap().is_empty());
            if let Some(readme) = &inputs.readme {
                assert_eq!(value["artifacts"]["docs"][0]["path"], readme.as_str());
                assert_eq!(value["exclude"][1], "dist/**");
            }
        }
    }
}
