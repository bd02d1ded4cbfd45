//! The spec model and its loader.
//!
//! INTERFACE STUB: the spec helper replaces this module with the full model of
//! `spec-format.md`, positions for every error, ref resolution and validation.
//! The names below are the contract the rest of the crate compiles against.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Folder under the root that holds the specs.
pub const SPEC_DIR: &str = ".notarai";
/// Folder under [`SPEC_DIR`] that holds notarai's own state, never specs.
pub const CACHE_DIR: &str = ".notarai/.cache";

/// One behavior of a spec, Given/Then.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Behavior {
    /// Short identifier.
    pub name: String,
    /// The situation.
    pub given: String,
    /// The expected outcome.
    pub then: String,
}

/// A reference from a spec to the files it governs.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ArtifactRef {
    /// Glob relative to the repository root.
    pub path: String,
    /// What these files do for the spec.
    #[serde(default)]
    pub role: Option<String>,
    /// Tier override, 1..=4.
    #[serde(default)]
    pub tier: Option<u8>,
    /// Where a non-local artifact comes from.
    #[serde(default)]
    pub source: Option<String>,
}

/// A `$ref` to another spec file, relative to the file that holds it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SpecRef {
    /// The referenced path as written.
    #[serde(rename = "$ref")]
    pub reference: String,
}

/// A parsed spec file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Spec {
    /// Format version.
    pub schema_version: String,
    /// What this part should do.
    pub intent: String,
    /// Expected behaviors (empty when absent).
    #[serde(default)]
    pub behaviors: Vec<Behavior>,
    /// Rules the system follows (empty when absent).
    #[serde(default)]
    pub constraints: Vec<String>,
    /// Conditions never violated (empty when absent).
    #[serde(default)]
    pub invariants: Vec<String>,
    /// Category -> artifact refs.
    pub artifacts: BTreeMap<String, Vec<ArtifactRef>>,
    /// Child specs; present only on the system spec.
    #[serde(default)]
    pub subsystems: Option<Vec<SpecRef>>,
    /// Globs out of scope (meaningful on the system spec).
    #[serde(default)]
    pub exclude: Vec<String>,
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The spec cannot be trusted.
    Error,
    /// Worth a look; the spec still works.
    Warning,
}

/// One problem found in a spec file, with its position.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Repository-relative path of the spec file.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, for a person.
    pub message: String,
    /// What to write instead, when known.
    pub hint: Option<String>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.path, self.line, self.column, self.message
        )
    }
}

/// A spec that loaded, with its raw text.
#[derive(Debug, Clone)]
pub struct LoadedSpec {
    /// Repository-relative path with forward slashes, e.g. `.notarai/auth.spec.yaml`.
    pub path: String,
    /// The file's text as read.
    pub raw: String,
    /// The parsed spec.
    pub spec: Spec,
}

/// Every spec under a root: the loaded ones, the ones that failed, and the
/// findings across specs.
#[derive(Debug, Clone, Default)]
pub struct SpecSet {
    /// Specs that parsed, sorted by path.
    pub specs: Vec<LoadedSpec>,
    /// One error per spec file that failed to parse, sorted by path.
    pub invalid: Vec<Finding>,
    /// Cross-spec findings: unresolved refs, cycles (errors) and warnings.
    pub findings: Vec<Finding>,
    /// Index into `specs` of the system spec.
    pub system: Option<usize>,
}

impl SpecSet {
    /// Load every `.notarai/**/*.spec.yaml` under `root` (never `.notarai/.cache/`).
    pub fn load(root: &Path) -> SpecSet {
        let mut set = SpecSet::default();
        let mut files = Vec::new();
        collect(&root.join(SPEC_DIR), SPEC_DIR, &mut files);
        files.sort();
        for rel in files {
            let raw = match std::fs::read_to_string(root.join(&rel)) {
                Ok(raw) => raw,
                Err(e) => {
                    set.invalid
                        .push(error(&rel, 1, 1, format!("cannot read: {e}")));
                    continue;
                }
            };
            match serde_yaml::from_str::<Spec>(&raw) {
                Ok(spec) => set.specs.push(LoadedSpec {
                    path: rel,
                    raw,
                    spec,
                }),
                Err(e) => {
                    let (l, c) = e
                        .location()
                        .map(|l| (l.line(), l.column()))
                        .unwrap_or((1, 1));
                    set.invalid.push(error(&rel, l, c, e.to_string()));
                }
            }
        }
        set.system = set
            .specs
            .iter()
            .position(|s| s.path == ".notarai/system.spec.yaml" && s.spec.subsystems.is_some())
            .or_else(|| set.specs.iter().position(|s| s.spec.subsystems.is_some()));
        set
    }

    /// The system spec, when there is one.
    pub fn system_spec(&self) -> Option<&LoadedSpec> {
        self.system.map(|i| &self.specs[i])
    }

    /// The loaded spec at a repository-relative path.
    pub fn get(&self, path: &str) -> Option<&LoadedSpec> {
        self.specs.iter().find(|s| s.path == path)
    }
}

/// The JSON Schema of the spec format, generated from [`Spec`], as pretty JSON text.
pub fn json_schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(Spec)).expect("a schema serializes")
}

/// Whether a repository-relative path names a spec file (`.notarai/**/*.spec.yaml`,
/// outside `.notarai/.cache/`).
pub fn is_spec_path(path: &str) -> bool {
    path.starts_with(".notarai/")
        && !path.starts_with(".notarai/.cache/")
        && path.ends_with(".spec.yaml")
}

fn error(path: &str, line: usize, column: usize, message: String) -> Finding {
    Finding {
        path: path.to_string(),
        line,
        column,
        severity: Severity::Error,
        message,
        hint: None,
    }
}

fn collect(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let child = format!("{rel}/{name}");
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if child != CACHE_DIR {
                collect(&entry.path(), &child, out);
            }
        } else if kind.is_file() && is_spec_path(&child) {
            out.push(child);
        }
    }
}
