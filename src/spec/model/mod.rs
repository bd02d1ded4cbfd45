//! The typed model of a spec file, one Rust type per object of the format.
//!
//! These types are the single source of truth: the loader validates against
//! the JSON Schema that schemars generates from them ([`super::json_schema`]),
//! then deserializes into them. Doc comments become schema descriptions.
//! Optional fields are skipped when serializing, so a spec (and in particular
//! its behaviors) serializes back as written.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod content;
mod design;

pub use content::*;
pub use design::*;

fn is_false(b: &bool) -> bool {
    !*b
}

/// The newest version of the spec format, the one new specs are written in.
pub const SCHEMA_VERSION: &str = "0.8";

/// Every `schema_version` notarai reads, newest first.
pub const SUPPORTED_VERSIONS: [&str; 4] = ["0.8", "0.7", "0.6", "0.5"];

/// A structured intent specification: what one part of a project should do,
/// and the files it governs. The canonical source of truth for that part.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "NotarAI Spec File", transform = conditional_requirements)]
pub struct Spec {
    /// The version of the spec format this file follows: "0.5" to "0.8".
    #[schemars(extend("enum" = SUPPORTED_VERSIONS))]
    pub schema_version: String,
    /// A cross-cutting concern (style, security, logging) that other specs
    /// pull in through `applies`: its constraints, invariants and behaviors
    /// apply to them. Such a spec governs no files itself: it has no
    /// `artifacts`, `subsystems` or `exclude`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cross_cutting: bool,
    /// The domain this spec applies to; decides which optional blocks are
    /// relevant. `software` when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<Domain>,
    /// The coverage tier of the whole spec. `full` (the default) has behaviors;
    /// `registered` declares intent and artifacts only; `derived` governs
    /// generated outputs tracked for staleness.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// What this part is for, in plain language a non-technical reader understands.
    pub intent: String,
    /// Expected behaviors in Given/Then form (empty when absent). Required,
    /// with at least one item, unless `tier` is `registered` or `derived`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(min = 1))]
    pub behaviors: Vec<Behavior>,
    /// Rules the system or artifact actively enforces (empty when absent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
    /// Conditions that must never be violated (empty when absent).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<String>,
    /// Decision log: significant choices and why they were made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decisions: Vec<Decision>,
    /// Unresolved design questions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_questions: Vec<String>,
    /// The files this spec governs: category (`code`, `docs`, `tests`,
    /// `configs`, `data`, `notebooks`, `slides`, ... any key) to a list of
    /// artifact refs. Required, except on a `cross_cutting` spec, which has
    /// none (empty when absent).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub artifacts: BTreeMap<String, Vec<ArtifactRef>>,
    /// Child specs. A spec with this key is the system spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subsystems: Option<Vec<SpecRef>>,
    /// Cross-cutting specs whose constraints and invariants apply to this
    /// spec and all its subsystems.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applies: Vec<SpecRef>,
    /// Other specs this one interacts with, and how.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<DependencyRef>,
    /// Globs of files explicitly out of scope (Tier 3); meaningful on the
    /// system spec.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// How unspecced files are treated; meaningful on the system spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// Free-form hints: implicit relationships, tribal knowledge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// What this spec ultimately produces (non-software specs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Output>,
    /// The structure of the output in content terms: slides, chapters, scenes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
    /// State machine of an interactive artifact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub states: Option<States>,
    /// Visual and design specifications.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub design: Option<Design>,
    /// Who the output is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Audience>,
    /// Versions of the same artifact with selective overrides.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    /// Whether variant overrides are resolved programmatically (default false).
    #[serde(default, skip_serializing_if = "is_false")]
    pub variants_resolved: bool,
    /// The build or generation process of the output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<Pipeline>,
    /// Output metrics that feed back into reconciliation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<Feedback>,
    /// Maps invariants and constraints to regulatory or standards frameworks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliance: Option<Compliance>,
}

impl Spec {
    /// The coverage tier, `full` when the spec does not say.
    pub fn tier(&self) -> Tier {
        self.tier.unwrap_or(Tier::Full)
    }

    /// A one-line title for the spec, from its intent: the first sentence of
    /// its first paragraph (its lines joined, so a sentence wrapped in a
    /// block scalar stays whole), at most [`TITLE_CHARS`] characters (cut at
    /// a word, with `...`). `None` when the intent is blank.
    pub fn title(&self) -> Option<String> {
        let paragraph: Vec<&str> = self
            .intent
            .lines()
            .map(str::trim)
            .skip_while(|l| l.is_empty())
            .take_while(|l| !l.is_empty())
            .collect();
        if paragraph.is_empty() {
            return None;
        }
        let line = paragraph.join(" ");
        let sentence = line
            .match_indices(". ")
            .next()
            .map_or(line.as_str(), |(at, _)| &line[..=at]);
        if sentence.chars().count() <= TITLE_CHARS {
            return Some(sentence.to_string());
        }
        let cut: String = sentence.chars().take(TITLE_CHARS - 3).collect();
        let cut = match cut.rfind(' ') {
            Some(at) if at > TITLE_CHARS / 2 => &cut[..at],
            _ => cut.as_str(),
        };
        Some(format!("{}...", cut.trim_end()))
    }
}

/// The longest [`Spec::title`], in characters.
const TITLE_CHARS: usize = 80;

/// Adds the rules that depend on other keys to the generated root schema,
/// as the published schema words them: a `cross_cutting: true` spec has no
/// `artifacts`, `subsystems` or `exclude`, every other spec has `artifacts`;
/// and `behaviors` is required unless `tier` is `registered` or `derived`.
fn conditional_requirements(schema: &mut schemars::Schema) {
    schema.insert(
        "allOf".into(),
        serde_json::json!([
            {
                "if": {
                    "properties": { "cross_cutting": { "const": true } },
                    "required": ["cross_cutting"]
                },
                "then": {
                    "description": "a `cross_cutting: true` spec governs no files itself: remove `artifacts`, `subsystems` and `exclude`, and pull it into other specs with `applies: [{$ref: ...}]`",
                    "not": {
                        "anyOf": [
                            { "required": ["subsystems"] },
                            { "required": ["exclude"] },
                            { "required": ["artifacts"] }
                        ]
                    }
                },
                "else": { "required": ["artifacts"] }
            },
            {
                "if": {
                    "properties": { "tier": { "enum": ["registered", "derived"] } },
                    "required": ["tier"]
                },
                "else": { "required": ["behaviors"] }
            }
        ]),
    );
}

/// The domain of a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Domain {
    /// Software (the default).
    Software,
    /// Slide decks and talks.
    Presentation,
    /// Reports.
    Report,
    /// Courses.
    Course,
    /// Marketing material.
    Marketing,
    /// Legal documents.
    Legal,
    /// Educational material.
    Education,
    /// Infrastructure definitions.
    Infrastructure,
    /// Research outputs.
    Research,
}

/// The coverage tier of a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Behaviors and constraints (the default).
    Full,
    /// Intent and artifact mapping only.
    Registered,
    /// Generated outputs, tracked for staleness.
    Derived,
}

/// One expected behavior, Given/Then, in natural language.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Behavior {
    /// Short unique identifier, e.g. `signup`.
    pub name: String,
    /// The precondition or trigger.
    pub given: String,
    /// The expected outcome.
    pub then: String,
    /// What initiates the behavior and the steps that follow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interaction: Option<Interaction>,
    /// The state machine transition this behavior performs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_transition: Option<StateTransition>,
    /// The test files that verify this behavior (0.8).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tested_by: Vec<TestRef>,
}

/// A test file that verifies a behavior.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestRef {
    /// Path of the test file, relative to the repository root.
    pub path: String,
    /// The test or assertion that exercises the behavior, for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion: Option<String>,
}

/// Interaction details of a behavior.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Interaction {
    /// What initiates this behavior.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<Trigger>,
    /// Ordered steps that occur when the behavior is triggered.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sequence: Vec<String>,
}

/// What initiates a behavior.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// A user does something.
    UserAction,
    /// A timer fires.
    Timer,
    /// A system event.
    SystemEvent,
    /// Data changes.
    DataChange,
    /// A schedule.
    Schedule,
    /// A signal from outside.
    ExternalSignal,
    /// A threshold is crossed.
    Threshold,
    /// A person starts it by hand.
    Manual,
    /// A lifecycle event.
    Lifecycle,
}

/// A state machine transition of a behavior.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateTransition {
    /// The state before.
    pub from: String,
    /// The state after.
    pub to: String,
}

/// A recorded design decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Decision {
    /// When it was decided (ISO 8601 date).
    pub date: String,
    /// What was decided.
    pub choice: String,
    /// Why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rationale: Option<String>,
    /// Where the decision came from, e.g. `reconciliation`, `design-review`,
    /// `manual` (0.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Where the decision stands; accepted decisions usually omit it (0.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<DecisionStatus>,
    /// Files relevant to the decision, e.g. the ones that motivated it (0.8).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub related_files: Vec<String>,
}

/// Where a recorded decision stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DecisionStatus {
    /// Proposed, not yet accepted.
    Proposed,
    /// Accepted.
    Accepted,
    /// Considered and rejected.
    Rejected,
}

/// A reference from a spec to the files it governs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactRef {
    /// Glob relative to the repository root (`src/auth/**`, `docs/auth.md`):
    /// `*` stays in one path segment, `**` crosses segments, `{a,b}` alternates.
    pub path: String,
    /// What these files do for the spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Coverage tier override for these files, 1 to 4 (4 = derived output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 4))]
    pub tier: Option<u8>,
    /// Where an artifact that is not a local file comes from (URL, dataset
    /// registry path, bucket).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// A `$ref` to another spec file, relative to the file that holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpecRef {
    /// Relative path of the referenced spec, e.g. `./auth.spec.yaml`.
    #[serde(rename = "$ref")]
    pub reference: String,
}

/// A spec this one interacts with, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DependencyRef {
    /// Relative path of the dependency spec.
    #[serde(rename = "$ref")]
    pub reference: String,
    /// How the specs relate, e.g. "billing reads user data from auth".
    pub relationship: String,
}

/// How unspecced files are treated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    /// `warn` (default), `strict` or `off`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<CoveragePolicy>,
    /// Custom message shown for unspecced files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The coverage policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CoveragePolicy {
    /// Warn about unspecced files.
    Warn,
    /// Block on unspecced files.
    Strict,
    /// No coverage checking.
    Off,
}
