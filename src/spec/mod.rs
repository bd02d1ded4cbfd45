//! The spec model, its loader and its checks.
//!
//! - [`model`]: the typed spec format ([`Spec`] and friends).
//! - [`SpecSet::load_with`]: finds every `.notarai/**/*.spec.yaml`, parses each
//!   into the model with 1-based positions for every error, then checks
//!   across specs (refs, cycles, system spec, reachability, globs).
//! - [`check_file`]: the checks of one spec file on its own, for the hook and
//!   the MCP server.
//! - [`json_schema`]: the JSON Schema generated from the model, which the
//!   loader itself validates against, so the two cannot drift.

use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

use serde::Serialize;

mod document;
mod globs;
mod lineage;
mod load;
pub mod model;
mod refs;
mod schema_check;
mod yaml;

/// The largest spec file read, in bytes.
pub const MAX_SPEC_BYTES: usize = yaml::MAX_BYTES;

pub use document::{Document, parse_document, yaml_positions};
pub use globs::{compile_artifact_glob, emptied_globs};
pub use lineage::{Lineage, SpecLinks, applied_specs};
pub use load::{ParsedSet, discover, parse_set, read_text};
/// The spec model's top-level types; the rest of the model is named through
/// [`model`] (`spec::model::OutputType`).
pub use model::{Behavior, CoveragePolicy, SCHEMA_VERSION, SUPPORTED_VERSIONS, Spec, Tier};
pub use refs::resolve_ref;
pub use yaml::{MAX_BYTES, MAX_DEPTH, MAX_NODES};

pub use crate::layout::{CACHE_DIR, SPEC_DIR, SYSTEM_SPEC};

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The spec cannot be trusted.
    Error,
    /// Worth a look; the spec still works.
    Warning,
}

/// One problem found in a spec file, with its position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Repository-relative path of the spec file.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, for a person.
    pub message: String,
    /// What to write instead, when known.
    pub hint: Option<String>,
    /// The rule it breaks ([`crate::rules::RULES`]).
    pub code: crate::rules::Code,
}

impl Finding {
    /// An error at a position.
    pub fn error(path: &str, line: usize, column: usize, message: impl Into<String>) -> Finding {
        Finding {
            path: path.to_string(),
            line,
            column,
            severity: Severity::Error,
            message: message.into(),
            hint: None,
            code: crate::rules::Code::InvalidSpec,
        }
    }

    /// A warning at a position, of the rule `code`.
    pub fn warning(
        code: crate::rules::Code,
        path: &str,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            severity: Severity::Warning,
            code,
            ..Finding::error(path, line, column, message)
        }
    }

    /// The same finding of another rule.
    pub fn with_code(mut self, code: crate::rules::Code) -> Finding {
        self.code = code;
        self
    }

    /// The same finding with a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Finding {
        self.hint = Some(hint.into());
        self
    }

    /// Whether this finding is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    fn sort_key(&self) -> (&str, usize, usize, Severity, &str) {
        (
            &self.path,
            self.line,
            self.column,
            self.severity,
            &self.message,
        )
    }
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

/// Sort findings by file, position, severity and message, dropping duplicates.
pub fn sort_findings(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    findings.dedup();
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
    /// The errors of the spec files that failed to load, sorted by path and
    /// position: at least one per such file, several when a file has several
    /// problems. A file with an entry here has no entry in `specs`.
    pub invalid: Vec<Finding>,
    /// Findings about specs that loaded, sorted by path and position: errors
    /// (a `$ref` that resolves to no file, a `subsystems` cycle, an artifact
    /// glob that does not compile) and warnings (more than one system spec, a
    /// spec the system spec does not reach, an orphaned artifact glob).
    pub findings: Vec<Finding>,
    /// Index into `specs` of the system spec.
    pub system: Option<usize>,
}

impl SpecSet {
    /// Load every `.notarai/**/*.spec.yaml` under `root` (never
    /// `.notarai/.cache/`) and run every check. `files` are the repository's
    /// files (repository-relative, forward slashes), supplied by the caller
    /// (`project::load_specs` asks git for them; the spec layer never opens
    /// git): the orphaned artifact glob warnings match against them, and
    /// `None` skips those warnings. Never panics; a file that fails becomes
    /// findings in `invalid`.
    pub fn load_with(root: &Path, files: Option<&[String]>) -> SpecSet {
        load::load_set(root, files)
    }

    /// The system spec, when there is one.
    pub fn system_spec(&self) -> Option<&LoadedSpec> {
        self.system.map(|i| &self.specs[i])
    }

    /// Every file a `$ref` of a loaded spec resolves to (repository-relative,
    /// sorted, each once), spec files or not: what the set's validity also
    /// depends on, so a long-lived process stamps them beside the specs.
    pub fn ref_targets(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .specs
            .iter()
            .flat_map(|s| {
                refs::refs_of(&s.spec)
                    .into_iter()
                    .filter_map(|r| refs::resolve_ref(&s.path, r.reference))
                    .collect::<Vec<_>>()
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The loaded spec at a repository-relative path.
    pub fn get(&self, path: &str) -> Option<&LoadedSpec> {
        self.specs.iter().find(|s| s.path == path)
    }

    /// Every finding (load errors and cross-spec findings) about one spec
    /// file, sorted by position.
    pub fn findings_for(&self, path: &str) -> Vec<Finding> {
        let mut out: Vec<Finding> = self
            .invalid
            .iter()
            .chain(&self.findings)
            .filter(|f| f.path == path)
            .cloned()
            .collect();
        sort_findings(&mut out);
        out
    }

    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        !self.invalid.is_empty() || self.findings.iter().any(Finding::is_error)
    }

    /// The one verdict on the set, which `notarai validate`, the hook and
    /// the MCP server (`invalid_specs`, its instructions) all give: every
    /// error, of the spec files that failed to load and of the specs that
    /// loaded but have an error across specs (a `$ref` to a missing file, a
    /// `subsystems` cycle, a glob that does not compile), sorted by path and
    /// position. A spec file named here fails; its first entry is the first
    /// error `validate` prints for it. Warnings never make a spec fail.
    pub fn errors(&self) -> Vec<&Finding> {
        let mut out: Vec<&Finding> = self
            .invalid
            .iter()
            .chain(self.findings.iter().filter(|f| f.is_error()))
            .collect();
        out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        out
    }

    /// Whether the spec file at `path` fails: it has an error in [`SpecSet::errors`].
    pub fn fails(&self, path: &str) -> bool {
        self.invalid
            .iter()
            .chain(&self.findings)
            .any(|f| f.path == path && f.is_error())
    }
}

/// The checks of one spec file on its own: read it (`rel` is relative to
/// `root`, forward slashes), parse and validate it against the format, and
/// check that its `$ref`s point to existing files inside the repository and
/// its globs compile. Checks that need the other specs or the repository's
/// files (cycles, reachability, orphaned globs) are left to [`SpecSet::load`].
/// Returns the findings sorted by position; empty when the file is valid.
pub fn check_file(root: &Path, rel: &str) -> Vec<Finding> {
    let mut out = match load::read_and_parse(root, rel) {
        Ok((_, spec, tree)) => load::file_checks(root, rel, &spec, &tree),
        Err(findings) => findings,
    };
    sort_findings(&mut out);
    out
}

/// Read and parse the one spec file `rel` below `root` as [`SpecSet::load`]
/// does for each file (bounded read, YAML, schema check), without the
/// checks across files: the spec as it would load, or the errors that
/// keep it from loading.
pub fn load_one(root: &Path, rel: &str) -> Result<LoadedSpec, Vec<Finding>> {
    let (raw, spec, _) = load::read_and_parse(root, rel)?;
    Ok(LoadedSpec {
        path: rel.to_string(),
        raw,
        spec,
    })
}

/// Parse a spec from text, as the loader does. `path` is only used to label
/// the findings. The error side holds at least one finding.
pub fn parse_spec(path: &str, text: &str) -> Result<Spec, Vec<Finding>> {
    load::parse_text(path, text).map(|(spec, _)| spec)
}

/// The JSON Schema of the spec format (draft 2020-12), generated from
/// [`Spec`] with doc comments as descriptions, as a JSON value, identified
/// (`$id`) as the published schema of [`SCHEMA_VERSION`]. Optional fields do
/// not accept `null`, as in the published schema.
pub fn json_schema_value() -> &'static serde_json::Value {
    static SCHEMA: OnceLock<serde_json::Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let schema = schemars::generate::SchemaSettings::draft2020_12()
            .into_generator()
            .into_root_schema_for::<Spec>();
        let mut value = schema.to_value();
        strip_null(&mut value);
        // Put the identifying keys first, for a person reading the file.
        let serde_json::Value::Object(mut map) = value else {
            return value;
        };
        let mut ordered = serde_json::Map::new();
        if let Some(v) = map.remove("$schema") {
            ordered.insert("$schema".into(), v);
        }
        // The published schema's identifier for this version, so a reader
        // (and `init`) can tell which version a schema file describes.
        ordered.insert(
            "$id".into(),
            serde_json::Value::String(format!(
                "https://notarai.dev/schema/{SCHEMA_VERSION}/spec.schema.json"
            )),
        );
        for key in ["title", "description"] {
            if let Some(v) = map.remove(key) {
                ordered.insert(key.to_string(), v);
            }
        }
        ordered.extend(map);
        serde_json::Value::Object(ordered)
    })
}

/// The JSON Schema of the spec format, as pretty JSON text (what `notarai
/// schema` prints and `notarai init` writes).
pub fn json_schema() -> String {
    serde_json::to_string_pretty(json_schema_value()).expect("a schema serializes")
}

/// Remove the `null` that schemars allows for `Option` fields: an optional
/// key is omitted, never written as `~`.
fn strip_null(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    map.insert("type".into(), only);
                }
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = map.get_mut(key) {
                    branches.retain(|b| b.get("type").and_then(Value::as_str) != Some("null"));
                    if branches.len() == 1
                        && let Value::Object(only) = branches.remove(0)
                    {
                        map.remove(key);
                        for (k, v) in only {
                            map.entry(k).or_insert(v);
                        }
                    }
                }
            }
            if map.get("default") == Some(&Value::Null) {
                map.remove("default");
            }
            for child in map.values_mut() {
                strip_null(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_null),
        _ => {}
    }
}

/// Whether a repository-relative path names a spec file (`.notarai/**/*.spec.yaml`,
/// outside `.notarai/.cache/`).
pub fn is_spec_path(path: &str) -> bool {
    path.starts_with(".notarai/")
        && !path.starts_with(".notarai/.cache/")
        && path.ends_with(".spec.yaml")
}
