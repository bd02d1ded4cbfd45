//! The format's objects for what an artifact outputs and holds: outputs,
//! runtimes, content and its sections, evidence, states.

use super::*;

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
