//! The format's objects for how an artifact looks and is produced: design,
//! themes, layout, print, audiences, variants, pipelines, preview,
//! feedback.

use super::*;

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
