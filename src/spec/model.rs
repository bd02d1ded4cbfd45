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

/// What a spec produces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// The kind of output.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<OutputType>,
    /// The output format, e.g. `pptx`, `html`, `pdf`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Where the output runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Runtime>,
    /// Path of the main output file or entry point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_point: Option<String>,
}

/// The kind of output a spec produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum OutputType {
    /// An application.
    App,
    /// A slide deck.
    Presentation,
    /// An interactive document.
    InteractiveDoc,
    /// A game.
    Game,
    /// A dashboard.
    Dashboard,
    /// A report.
    Report,
    /// A library.
    Library,
    /// A service.
    Service,
    /// A document.
    Document,
    /// A course.
    Course,
    /// An API.
    Api,
    /// Infrastructure.
    Infrastructure,
    /// A dataset.
    Dataset,
    /// A design system.
    DesignSystem,
    /// A campaign.
    Campaign,
    /// A template.
    Template,
}

/// Where an output runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Runtime {
    /// In a browser.
    Browser,
    /// Natively.
    Native,
    /// As a static file.
    StaticFile,
    /// Embedded.
    Embedded,
    /// On a server.
    Server,
}

/// The content structure of an output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Content {
    /// How sections relate (`ordered` by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structure: Option<ContentStructure>,
    /// The logical units: slides, chapters, scenes, pages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<ContentSection>,
}

/// How the sections of a content block relate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ContentStructure {
    /// A sequence.
    Ordered,
    /// A tree.
    Hierarchical,
    /// A graph.
    Graph,
    /// No structure.
    FreeForm,
}

/// One logical unit of an output's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContentSection {
    /// Unique identifier, e.g. `intro`.
    pub id: String,
    /// Kind of section (free-form: slide, chapter, scene, ...).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// What this section should accomplish.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<String>,
    /// Path of the source file of this section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_ref: Option<String>,
    /// Artifact globs scoped to this section, by category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<BTreeMap<String, Vec<String>>>,
    /// Directed edges to other sections.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub connections: Vec<Connection>,
    /// Expected time for this section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
    /// Sections whose concepts this one builds on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<SectionDependency>,
    /// Ordering weight for free-form structures; lower is more important.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    /// Data sources or citations backing claims in this section.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

/// A directed edge between content sections.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Connection {
    /// Target section id.
    pub to: String,
    /// Label of the edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// When this edge is followed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

/// An amount of time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Duration {
    /// How many units.
    pub value: f64,
    /// The unit: seconds, minutes, hours, weeks, ...
    pub unit: String,
}

/// A content prerequisite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SectionDependency {
    /// Id of the prerequisite section.
    pub id: String,
    /// How this section depends on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relationship: Option<String>,
}

/// Evidence backing a claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// Kind of evidence.
    #[serde(rename = "type")]
    pub kind: EvidenceType,
    /// Path of the data file or artifact backing the claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Citation, e.g. "Smith et al. 2024".
    #[serde(rename = "ref", default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The claim this evidence supports.
    pub claim: String,
    /// How the evidence relates to the claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relationship: Option<String>,
}

/// Kind of evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EvidenceType {
    /// A data file.
    Data,
    /// A citation.
    Citation,
    /// A reference.
    Reference,
}

/// The state machine of an interactive artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct States {
    /// Id of the starting state.
    pub initial: String,
    /// The states.
    pub definitions: Vec<StateDefinition>,
}

/// One state of a state machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StateDefinition {
    /// Unique identifier.
    pub id: String,
    /// Transitions out of this state.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transitions: Vec<TransitionRule>,
}

/// A transition between states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransitionRule {
    /// Target state id.
    pub to: String,
    /// The event that triggers it.
    pub on: String,
    /// Condition that must hold, in natural language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<String>,
    /// Side effect, in natural language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

/// Visual and design specifications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Design {
    /// Style guide or brand specs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub style_guide: Vec<SpecRef>,
    /// Visual theme.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
    /// Layout constraints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<Layout>,
    /// Design assets: images, fonts, icons.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assets: Vec<ArtifactRef>,
    /// Print layout for paginated documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub print: Option<Print>,
    /// Responsive breakpoints for web outputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub responsive: Option<Responsive>,
}

/// Visual theme settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Theme {
    /// Colors, as hex values or names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub palette: Vec<String>,
    /// Font families by text role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typography: Option<BTreeMap<String, String>>,
    /// Named visual modes (light, dark) with palette overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modes: Option<BTreeMap<String, ThemeMode>>,
}

/// A visual mode of a theme.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ThemeMode {
    /// Palette of this mode.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub palette: Vec<String>,
}

/// Layout constraints of an output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Layout {
    /// The layout paradigm.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<LayoutType>,
    /// Aspect ratio or dimensions, e.g. `16:9`, `A4`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<String>,
}

/// A layout paradigm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum LayoutType {
    /// Slides.
    SlideDeck,
    /// One scrolling page.
    Scrolling,
    /// Spatial canvas.
    Spatial,
    /// A grid.
    Grid,
    /// No layout.
    FreeForm,
    /// Pages.
    Paginated,
    /// A canvas.
    Canvas,
    /// A timeline.
    Timeline,
    /// Tabs.
    Tabbed,
}

/// Print settings of a paginated document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Print {
    /// Margins by side.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margins: Option<BTreeMap<String, String>>,
    /// Whether pages have headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<bool>,
    /// Whether pages have footers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footers: Option<bool>,
    /// Whether pages are numbered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_numbers: Option<bool>,
    /// Bleed area, e.g. `0.125in`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bleed: Option<String>,
}

/// Responsive design settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Responsive {
    /// The breakpoints.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breakpoints: Vec<Breakpoint>,
}

/// A responsive breakpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Breakpoint {
    /// Name of the breakpoint.
    pub name: String,
    /// Minimum width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_width: Option<i64>,
    /// Maximum width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_width: Option<i64>,
    /// Layout type used at this breakpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout_override: Option<String>,
}

/// Who an output is for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Audience {
    /// Who the audience is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// What the audience already knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assumed_knowledge: Option<String>,
    /// Communication tone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tone: Option<String>,
    /// Language or locale code, e.g. `en-US`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// Accessibility requirements.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accessibility: Vec<String>,
}

/// A variant of an artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    /// Unique identifier, e.g. `investor-deck`.
    pub id: String,
    /// What the variant is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Dot-path field overrides on top of the base spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overrides: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The build or generation process of an output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pipeline {
    /// Ordered steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<PipelineStep>,
    /// How to preview the output locally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<Preview>,
    /// Environment shared by all steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
}

/// One step of a pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PipelineStep {
    /// Name of the step.
    pub name: String,
    /// Tool or command that runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Input glob or path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// Output glob or path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Explicit shell command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Expression deciding whether the step runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// What to do when the step fails (`abort` by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<OnFailure>,
    /// Steps that must finish first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<String>,
    /// Per-step environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, String>>,
}

/// Failure strategy of a pipeline step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnFailure {
    /// Go on with the next step.
    Skip,
    /// Stop the pipeline.
    Abort,
    /// Run the step again.
    Retry,
}

/// Local preview of an output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Preview {
    /// Command that starts the preview.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// URL of the preview.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// Output metrics feeding back into reconciliation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Feedback {
    /// Tracked metrics.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<FeedbackMetric>,
    /// Deprecated: use `triggers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reconciliation_trigger: Option<String>,
    /// Metric conditions linked to actions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<FeedbackTrigger>,
}

/// A tracked metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeedbackMetric {
    /// Metric name.
    pub name: String,
    /// Data file or endpoint providing it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Expected value or range, e.g. `>= 0.7`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<String>,
}

/// A feedback trigger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FeedbackTrigger {
    /// When it fires.
    pub condition: TriggerCondition,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<TriggerAction>,
    /// How urgent it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<TriggerPriority>,
}

/// The condition of a feedback trigger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TriggerCondition {
    /// A metric name from `feedback.metrics`.
    pub metric: String,
    /// How the metric is compared.
    pub operator: TriggerOperator,
    /// How long the condition must hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Duration>,
}

/// Comparison of a trigger condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TriggerOperator {
    /// Below the threshold.
    BelowThreshold,
    /// Above the threshold.
    AboveThreshold,
    /// The value changed.
    Changed,
    /// The value is stale.
    Stale,
}

/// Action of a trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TriggerAction {
    /// Start a reconciliation.
    Reconcile,
    /// Warn.
    Warn,
    /// Notify someone.
    Notify,
}

/// Priority of a trigger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TriggerPriority {
    /// Low.
    Low,
    /// Medium.
    Medium,
    /// High.
    High,
}

/// Compliance mapping.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Compliance {
    /// The frameworks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frameworks: Vec<Framework>,
    /// Whether changes to compliance-mapped rules are flagged for audit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_trail: Option<bool>,
}

/// A regulatory or standards framework.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Framework {
    /// Name, e.g. `SOC2`, `WCAG`.
    pub name: String,
    /// Compliance level, e.g. `AA`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Individual controls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<Control>,
    /// Framework-level satisfaction mapping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub satisfied_by: Option<SatisfiedBy>,
}

/// A control of a framework.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Control {
    /// Control id, e.g. `CC6.1`.
    pub id: String,
    /// What satisfies it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub satisfied_by: Option<SatisfiedBy>,
}

/// The invariants and constraints that satisfy a control.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SatisfiedBy {
    /// Invariants, as written in the spec.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invariants: Vec<String>,
    /// Constraints, as written in the spec.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub constraints: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_intent(intent: &str) -> Spec {
        let yaml = format!(
            "schema_version: '0.8'\nintent: {}\ntier: registered\nartifacts:\n  code:\n    - path: 'x'\n",
            serde_json::to_string(intent).unwrap()
        );
        serde_yaml::from_str(&yaml).unwrap()
    }

    #[test]
    fn a_title_is_the_first_sentence_of_the_intent() {
        assert_eq!(
            with_intent("\n  Login and sessions. Tokens expire.\nMore.").title(),
            Some("Login and sessions.".into())
        );
        assert_eq!(
            with_intent("Login and\n  sessions for users. Tokens expire.\n\nMore.").title(),
            Some("Login and sessions for users.".into()),
            "a sentence wrapped over lines is whole"
        );
        assert_eq!(with_intent("  \n ").title(), None);
        let long = with_intent(&"word ".repeat(40)).title().unwrap();
        assert!(
            long.ends_with("...") && long.chars().count() <= TITLE_CHARS,
            "{long}"
        );
        let unbroken = with_intent(&"é".repeat(200)).title().unwrap();
        assert_eq!(unbroken.chars().count(), TITLE_CHARS);
    }
}
