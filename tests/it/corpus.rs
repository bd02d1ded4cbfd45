//! A corpus of specs derived from the published schema: for each rule, one
//! spec that passes and one that fails. Shared by the loader and CLI tests.

#![allow(dead_code)]

/// A minimal valid spec; rules below are variations of it.
pub const BASE: &str = "schema_version: '0.7'
intent: Users can sign up and log in.
behaviors:
  - name: signup
    given: a valid email and password
    then: an account is created
artifacts:
  code:
    - path: 'src/auth/**'
";

/// The base spec with `extra` appended at the top level.
pub fn with(extra: &str) -> String {
    format!("{BASE}{extra}")
}

/// The base spec with the line holding `from` replaced by `to` (or removed when empty).
pub fn replace(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from} not in base");
    BASE.replace(from, to)
}

/// One corpus entry.
pub struct Case {
    /// The rule it exercises.
    pub rule: &'static str,
    /// The spec text.
    pub yaml: String,
    /// Whether the published schema accepts it.
    pub valid: bool,
}

fn case(rule: &'static str, yaml: impl Into<String>, valid: bool) -> Case {
    Case {
        rule,
        yaml: yaml.into(),
        valid,
    }
}

const NO_BEHAVIORS: &str = "schema_version: '0.7'
intent: A registered part.
artifacts:
  code:
    - path: 'src/**'
";

/// A minimal cross-cutting spec of 0.8: no artifacts, pulled in by `applies`.
pub const CROSS: &str = "schema_version: '0.8'
cross_cutting: true
intent: Every module follows the house style.
behaviors:
  - name: lint
    given: any change
    then: the linter passes
";

/// The cross-cutting spec with `extra` appended at the top level.
pub fn cross_with(extra: &str) -> String {
    format!("{CROSS}{extra}")
}

/// The base spec with a behavior that has `tested_by` lines `tested_by`.
fn tested_by(lines: &str) -> String {
    replace(
        "    then: an account is created\n",
        &format!("    then: an account is created\n    tested_by:\n{lines}"),
    )
}

/// The corpus: pass/fail pairs for each rule of the schema.
pub fn corpus() -> Vec<Case> {
    vec![
        case("base", BASE, true),
        // schema_version
        case("version 0.5", replace("'0.7'", "'0.5'"), true),
        case("version 0.6", replace("'0.7'", "\"0.6\""), true),
        case("version 0.8", replace("'0.7'", "'0.8'"), true),
        case("version 0.4", replace("'0.7'", "'0.4'"), false),
        case("version 0.3", replace("'0.7'", "'0.3'"), false),
        case("version 0.9", replace("'0.7'", "'0.9'"), false),
        case("version 0.8 as a number", replace("'0.7'", "0.8"), false),
        case("version as a number", replace("'0.7'", "0.7"), false),
        case(
            "version missing",
            replace("schema_version: '0.7'\n", ""),
            false,
        ),
        // intent
        case(
            "intent block scalar",
            replace(
                "intent: Users can sign up and log in.",
                "intent: |\n  Users sign up.\n  And log in.",
            ),
            true,
        ),
        case(
            "intent missing",
            replace("intent: Users can sign up and log in.\n", ""),
            false,
        ),
        case(
            "intent a number",
            replace("intent: Users can sign up and log in.", "intent: 42"),
            false,
        ),
        case(
            "intent null",
            replace("intent: Users can sign up and log in.", "intent:"),
            false,
        ),
        // artifacts
        case(
            "artifacts missing",
            replace("artifacts:\n  code:\n    - path: 'src/auth/**'\n", ""),
            false,
        ),
        case(
            "artifacts a list",
            replace(
                "artifacts:\n  code:\n    - path: 'src/auth/**'\n",
                "artifacts:\n  - src/**\n",
            ),
            false,
        ),
        case(
            "artifact custom category",
            with("  migrations:\n    - path: 'db/**'\n      role: schema history\n"),
            true,
        ),
        case(
            "artifact category not a list",
            with("  docs: 'docs/**'\n"),
            false,
        ),
        case(
            "artifact ref without path",
            with("  docs:\n    - role: docs\n"),
            false,
        ),
        case(
            "artifact ref unknown key",
            with("  docs:\n    - path: 'docs/**'\n      rol: x\n"),
            false,
        ),
        case(
            "artifact ref a string",
            with("  docs:\n    - 'docs/**'\n"),
            false,
        ),
        case(
            "artifact tier 4",
            with("  generated:\n    - path: 'dist/**'\n      tier: 4\n"),
            true,
        ),
        case(
            "artifact tier 4.0",
            with("  generated:\n    - path: 'dist/**'\n      tier: 4.0\n"),
            true,
        ),
        case(
            "artifact tier 5",
            with("  generated:\n    - path: 'dist/**'\n      tier: 5\n"),
            false,
        ),
        case(
            "artifact tier 0",
            with("  generated:\n    - path: 'dist/**'\n      tier: 0\n"),
            false,
        ),
        case(
            "artifact tier text",
            with("  generated:\n    - path: 'dist/**'\n      tier: '4'\n"),
            false,
        ),
        case(
            "artifact source",
            with("  data:\n    - path: 'data/web.parquet'\n      source: 'hf://datasets/x/y'\n"),
            true,
        ),
        // behaviors and tier
        case("behaviors missing", NO_BEHAVIORS, false),
        case(
            "tier registered without behaviors",
            format!("{NO_BEHAVIORS}tier: registered\n"),
            true,
        ),
        case(
            "tier derived without behaviors",
            format!("{NO_BEHAVIORS}tier: derived\n"),
            true,
        ),
        case(
            "tier full without behaviors",
            format!("{NO_BEHAVIORS}tier: full\n"),
            false,
        ),
        case("tier unknown", with("tier: partial\n"), false),
        case(
            "behaviors empty",
            format!("{NO_BEHAVIORS}behaviors: []\n"),
            false,
        ),
        case(
            "behaviors empty even when registered",
            format!("{NO_BEHAVIORS}tier: registered\nbehaviors: []\n"),
            false,
        ),
        case(
            "behavior missing then",
            replace("    then: an account is created\n", ""),
            false,
        ),
        case(
            "behavior unknown key",
            replace(
                "    then: an account is created\n",
                "    then: ok\n    when: now\n",
            ),
            false,
        ),
        case(
            "behavior name a number",
            replace("  - name: signup", "  - name: 12"),
            false,
        ),
        case(
            "behavior interaction",
            replace(
                "    then: an account is created\n",
                "    then: ok\n    interaction:\n      trigger: user_action\n      sequence: [click, type]\n",
            ),
            true,
        ),
        case(
            "behavior interaction bad trigger",
            replace(
                "    then: an account is created\n",
                "    then: ok\n    interaction:\n      trigger: click\n",
            ),
            false,
        ),
        case(
            "behavior state transition",
            replace(
                "    then: an account is created\n",
                "    then: ok\n    state_transition: {from: idle, to: busy}\n",
            ),
            true,
        ),
        case(
            "behavior state transition without to",
            replace(
                "    then: an account is created\n",
                "    then: ok\n    state_transition: {from: idle}\n",
            ),
            false,
        ),
        // unknown top-level keys
        case("unknown top-level key", with("behaviours: []\n"), false),
        // lists of strings
        case(
            "constraints",
            with(
                "constraints:\n  - 'rate limit: 5 per minute'\ninvariants:\n  - no plaintext passwords\nopen_questions:\n  - which provider?\n",
            ),
            true,
        ),
        case(
            "constraints a string",
            with("constraints: no plaintext\n"),
            false,
        ),
        case(
            "invariants item a number",
            with("invariants:\n  - 5\n"),
            false,
        ),
        // decisions
        case(
            "decision",
            with("decisions:\n  - date: '2024-01-15'\n    choice: JWT\n    rationale: stateless\n"),
            true,
        ),
        case(
            "decision unquoted date",
            with("decisions:\n  - date: 2024-01-15\n    choice: JWT\n"),
            true,
        ),
        case(
            "decision without choice",
            with("decisions:\n  - date: '2024-01-15'\n"),
            false,
        ),
        case(
            "decision unknown key",
            with("decisions:\n  - date: '2024-01-15'\n    choice: JWT\n    why: x\n"),
            false,
        ),
        // refs
        case(
            "subsystems and applies",
            with(
                "subsystems:\n  - $ref: ./cli.spec.yaml\napplies:\n  - $ref: ./_shared/security.spec.yaml\n",
            ),
            true,
        ),
        case(
            "subsystem without $ref",
            with("subsystems:\n  - path: ./cli.spec.yaml\n"),
            false,
        ),
        case(
            "subsystem ref extra key",
            with("subsystems:\n  - $ref: ./cli.spec.yaml\n    role: x\n"),
            false,
        ),
        case(
            "dependency",
            with(
                "dependencies:\n  - $ref: ./billing.spec.yaml\n    relationship: billing reads users\n",
            ),
            true,
        ),
        case(
            "dependency without relationship",
            with("dependencies:\n  - $ref: ./billing.spec.yaml\n"),
            false,
        ),
        // exclude, coverage, notes
        case(
            "exclude and coverage",
            with("exclude:\n  - 'vendor/**'\ncoverage:\n  policy: strict\n  message: spec it\n"),
            true,
        ),
        case("exclude a string", with("exclude: 'vendor/**'\n"), false),
        case(
            "coverage bad policy",
            with("coverage:\n  policy: loud\n"),
            false,
        ),
        case(
            "coverage unknown key",
            with("coverage:\n  level: warn\n"),
            false,
        ),
        case("notes", with("notes: free text\n"), true),
        case("notes a list", with("notes:\n  - a\n"), false),
        case("notes null", with("notes: ~\n"), false),
        // domain and output
        case("domain", with("domain: presentation\n"), true),
        case("domain unknown", with("domain: gaming\n"), false),
        case(
            "output",
            with(
                "output:\n  type: dataset\n  format: parquet\n  runtime: static-file\n  entry_point: dist/x.parquet\n",
            ),
            true,
        ),
        case(
            "output bad type",
            with("output:\n  type: spreadsheet\n"),
            false,
        ),
        case(
            "output bad runtime",
            with("output:\n  runtime: cloud\n"),
            false,
        ),
        case("output unknown key", with("output:\n  kind: app\n"), false),
        // content
        case(
            "content",
            with(
                "content:\n  structure: graph\n  sections:\n    - id: intro\n      type: slide\n      intent: hook\n      content_ref: slides/01.md\n      artifacts:\n        slides: ['slides/01.md']\n      connections:\n        - to: demo\n          label: next\n      duration: {value: 2.5, unit: minutes}\n      depends_on:\n        - id: setup\n      priority: 1\n      evidence:\n        - type: data\n          claim: 40% faster\n          source: data/bench.csv\n",
            ),
            true,
        ),
        case(
            "content section without id",
            with("content:\n  sections:\n    - intent: hook\n"),
            false,
        ),
        case(
            "content bad structure",
            with("content:\n  structure: tree\n"),
            false,
        ),
        case(
            "content evidence bad type",
            with(
                "content:\n  sections:\n    - id: a\n      evidence:\n        - type: anecdote\n          claim: x\n",
            ),
            false,
        ),
        case(
            "content duration without unit",
            with("content:\n  sections:\n    - id: a\n      duration: {value: 3}\n"),
            false,
        ),
        case(
            "content connection without to",
            with("content:\n  sections:\n    - id: a\n      connections:\n        - label: x\n"),
            false,
        ),
        case(
            "content priority a fraction",
            with("content:\n  sections:\n    - id: a\n      priority: 1.5\n"),
            false,
        ),
        // states
        case(
            "states",
            with(
                "states:\n  initial: idle\n  definitions:\n    - id: idle\n      transitions:\n        - to: busy\n          on: start\n          guard: ready\n          action: log\n",
            ),
            true,
        ),
        case(
            "states without initial",
            with("states:\n  definitions: []\n"),
            false,
        ),
        case(
            "state transition without on",
            with(
                "states:\n  initial: a\n  definitions:\n    - id: a\n      transitions:\n        - to: b\n",
            ),
            false,
        ),
        // design
        case(
            "design",
            with(
                "design:\n  style_guide:\n    - $ref: ./brand.spec.yaml\n  theme:\n    palette: ['#000', '#fff']\n    typography: {body: Inter}\n    modes:\n      dark: {palette: ['#111']}\n  layout: {type: slide-deck, dimensions: '16:9'}\n  assets:\n    - path: 'assets/**'\n  print: {margins: {top: 1in}, headers: true, footers: false, page_numbers: true, bleed: 0.125in}\n  responsive:\n    breakpoints:\n      - name: mobile\n        max_width: 600\n        layout_override: scrolling\n",
            ),
            true,
        ),
        case(
            "design theme unknown key",
            with("design:\n  theme:\n    colors: []\n"),
            false,
        ),
        case(
            "design layout bad type",
            with("design:\n  layout: {type: carousel}\n"),
            false,
        ),
        case(
            "design print headers text",
            with("design:\n  print: {headers: 'yes'}\n"),
            false,
        ),
        case(
            "design breakpoint width text",
            with(
                "design:\n  responsive:\n    breakpoints:\n      - name: m\n        min_width: wide\n",
            ),
            false,
        ),
        case(
            "design mode unknown key",
            with("design:\n  theme:\n    modes:\n      dark: {background: '#000'}\n"),
            false,
        ),
        case(
            "design typography number",
            with("design:\n  theme:\n    typography: {body: 12}\n"),
            false,
        ),
        // audience
        case(
            "audience",
            with(
                "audience:\n  role: investors\n  assumed_knowledge: finance\n  tone: formal\n  locale: en-US\n  accessibility: [captions]\n",
            ),
            true,
        ),
        case(
            "audience unknown key",
            with("audience:\n  age: 30\n"),
            false,
        ),
        case(
            "audience accessibility a string",
            with("audience:\n  accessibility: captions\n"),
            false,
        ),
        // variants
        case(
            "variants",
            with(
                "variants:\n  - id: short\n    description: 10 minutes\n    overrides:\n      audience.role: engineers\n      content: {structure: ordered}\nvariants_resolved: true\n",
            ),
            true,
        ),
        case(
            "variant without id",
            with("variants:\n  - description: x\n"),
            false,
        ),
        case(
            "variants_resolved text",
            with("variants_resolved: 'yes'\n"),
            false,
        ),
        // pipeline
        case(
            "pipeline",
            with(
                "pipeline:\n  steps:\n    - name: build\n      tool: marp\n      input: 'slides/*.md'\n      output: dist/deck.pdf\n      command: marp slides\n      condition: \"output.format == 'pdf'\"\n      on_failure: retry\n      depends_on: [lint]\n      env: {LANG: en}\n  preview: {command: marp -s, url: 'http://localhost:8080'}\n  env: {CI: '1'}\n",
            ),
            true,
        ),
        case(
            "pipeline bad on_failure",
            with("pipeline:\n  steps:\n    - name: build\n      on_failure: ignore\n"),
            false,
        ),
        case(
            "pipeline step without name",
            with("pipeline:\n  steps:\n    - tool: make\n"),
            false,
        ),
        case(
            "pipeline env number",
            with("pipeline:\n  env: {CI: 1}\n"),
            false,
        ),
        case(
            "pipeline preview unknown key",
            with("pipeline:\n  preview: {port: '8080'}\n"),
            false,
        ),
        // feedback
        case(
            "feedback",
            with(
                "feedback:\n  metrics:\n    - name: completion\n      source: data/metrics.csv\n      threshold: '>= 0.7'\n  reconciliation_trigger: weekly\n  triggers:\n    - condition:\n        metric: completion\n        operator: below_threshold\n        duration: {value: 7, unit: days}\n      action: reconcile\n      priority: high\n",
            ),
            true,
        ),
        case(
            "feedback bad operator",
            with("feedback:\n  triggers:\n    - condition: {metric: m, operator: equals}\n"),
            false,
        ),
        case(
            "feedback bad action",
            with(
                "feedback:\n  triggers:\n    - condition: {metric: m, operator: changed}\n      action: page\n",
            ),
            false,
        ),
        case(
            "feedback condition without metric",
            with("feedback:\n  triggers:\n    - condition: {operator: changed}\n"),
            false,
        ),
        // compliance
        case(
            "compliance",
            with(
                "compliance:\n  frameworks:\n    - name: SOC2\n      level: II\n      controls:\n        - id: CC6.1\n          satisfied_by:\n            invariants: [no plaintext passwords]\n      satisfied_by:\n        constraints: [rate limit]\n  audit_trail: true\n",
            ),
            true,
        ),
        case(
            "compliance control without id",
            with(
                "compliance:\n  frameworks:\n    - name: SOC2\n      controls:\n        - satisfied_by: {}\n",
            ),
            false,
        ),
        case(
            "compliance satisfied_by unknown key",
            with("compliance:\n  frameworks:\n    - name: SOC2\n      satisfied_by: {rules: []}\n"),
            false,
        ),
        case(
            "compliance audit_trail text",
            with("compliance:\n  audit_trail: 'true'\n"),
            false,
        ),
        // cross_cutting (0.8)
        case("cross_cutting without artifacts", CROSS, true),
        case(
            "cross_cutting with applies and rules",
            cross_with(
                "constraints: [rustfmt defaults]\ninvariants: [no unsafe]\napplies:\n  - $ref: ./security.spec.yaml\n",
            ),
            true,
        ),
        case(
            "cross_cutting with artifacts",
            cross_with("artifacts:\n  code:\n    - path: 'src/**'\n"),
            false,
        ),
        case(
            "cross_cutting with empty artifacts",
            cross_with("artifacts: {}\n"),
            false,
        ),
        case(
            "cross_cutting with subsystems",
            cross_with("subsystems:\n  - $ref: ./a.spec.yaml\n"),
            false,
        ),
        case(
            "cross_cutting with exclude",
            cross_with("exclude:\n  - 'vendor/**'\n"),
            false,
        ),
        case(
            "cross_cutting false without artifacts",
            CROSS.replace("cross_cutting: true", "cross_cutting: false"),
            false,
        ),
        case(
            "cross_cutting false with artifacts",
            with("cross_cutting: false\n"),
            true,
        ),
        case(
            "cross_cutting true on a 0.5 file",
            CROSS.replace("'0.8'", "'0.5'"),
            true,
        ),
        case(
            "cross_cutting as text",
            CROSS.replace("cross_cutting: true", "cross_cutting: 'true'"),
            false,
        ),
        case(
            "cross_cutting registered without behaviors",
            "schema_version: '0.8'\ncross_cutting: true\ntier: registered\nintent: Logging.\n",
            true,
        ),
        case(
            "cross_cutting full without behaviors",
            "schema_version: '0.8'\ncross_cutting: true\nintent: Logging.\n",
            false,
        ),
        case(
            "cross_cutting misspelt, with artifacts",
            with("cross_cuting: true\n"),
            false,
        ),
        // tested_by (0.8)
        case(
            "tested_by",
            tested_by(
                "      - path: tests/auth.rs\n        assertion: signup_creates_account\n      - path: tests/e2e.rs\n",
            ),
            true,
        ),
        case("tested_by empty", tested_by("      []\n"), true),
        case(
            "tested_by without path",
            tested_by("      - assertion: x\n"),
            false,
        ),
        case(
            "tested_by unknown key",
            tested_by("      - path: t.rs\n        line: 3\n"),
            false,
        ),
        case(
            "tested_by a string",
            tested_by("      tests/auth.rs\n"),
            false,
        ),
        case(
            "tested_by item a string",
            tested_by("      - tests/auth.rs\n"),
            false,
        ),
        case(
            "tested_by path a number",
            tested_by("      - path: 12\n"),
            false,
        ),
        // decision status, origin, related_files (0.8)
        case(
            "decision status origin related_files",
            with(
                "decisions:\n  - date: '2025-03-01'\n    choice: JWT\n    status: accepted\n    origin: reconciliation\n    related_files: [src/auth/jwt.rs, docs/auth.md]\n",
            ),
            true,
        ),
        case(
            "decision status proposed and rejected",
            with(
                "decisions:\n  - {date: '2025-03-01', choice: a, status: proposed}\n  - {date: '2025-03-02', choice: b, status: rejected}\n",
            ),
            true,
        ),
        case(
            "decision status unknown",
            with("decisions:\n  - {date: '2025-03-01', choice: a, status: done}\n"),
            false,
        ),
        case(
            "decision origin a list",
            with("decisions:\n  - {date: '2025-03-01', choice: a, origin: [x]}\n"),
            false,
        ),
        case(
            "decision related_files a string",
            with("decisions:\n  - {date: '2025-03-01', choice: a, related_files: src/a.rs}\n"),
            false,
        ),
        case(
            "decision related_files item a number",
            with("decisions:\n  - {date: '2025-03-01', choice: a, related_files: [3]}\n"),
            false,
        ),
        // shapes
        case("spec is a list", "- schema_version: '0.7'\n", false),
        case("spec is a scalar", "just text\n", false),
    ]
}

/// A software system spec of 0.7 with every software block.
pub const SYSTEM_07: &str = r#"# yaml-language-server: $schema=./notarai.spec.json
schema_version: '0.7'
domain: software
tier: full
intent: |
  A command-line tool and MCP server that keeps specs, code and docs in step.
behaviors:
  - name: validate
    given: a spec with an unknown key
    then: the error names the file, line and column
    interaction:
      trigger: user_action
      sequence:
        - run notarai validate
        - read the report
  - name: cache
    given: a changed file
    then: it is reported as changed
    state_transition:
      from: cached
      to: stale
constraints:
  - 'no network access at run time'
invariants:
  - 'never writes outside the repository'
decisions:
  - date: '2025-01-10'
    choice: one static binary
    rationale: easy install
open_questions:
  - should the cache be shared across worktrees?
artifacts:
  code:
    - path: 'src/**'
      role: implementation
  docs:
    - path: README.md
  tests:
    - path: 'tests/**'
  configs:
    - path: 'Cargo.toml'
subsystems:
  - $ref: ./cli.spec.yaml
applies:
  - $ref: ./_shared/security.spec.yaml
dependencies:
  - $ref: ./cli.spec.yaml
    relationship: the CLI calls the library
exclude:
  - 'target/**'
coverage:
  policy: warn
  message: please write a spec
notes: >
  The cache key space of the CLI and the MCP server are separate.
"#;

/// A 0.5 spec: the oldest version, registered tier.
pub const REGISTERED_05: &str = "schema_version: \"0.5\"
tier: registered
intent: Vendored third-party code, tracked but not specified.
artifacts:
  code:
    - path: 'vendor/**'
";

/// A 0.6 spec with decisions and dependencies.
pub const FEATURE_06: &str = "schema_version: '0.6'
intent: Billing charges customers monthly.
behaviors:
  - name: charge
    given: an active subscription at the start of a month
    then: the card is charged once
decisions:
  - date: '2024-06-01'
    choice: Stripe
dependencies:
  - $ref: ./auth.spec.yaml
    relationship: billing reads users from auth
artifacts:
  code:
    - path: 'src/billing/**'
";

/// A slide deck (presentation domain).
pub const SLIDES_07: &str = "schema_version: '0.7'
domain: presentation
intent: A 20-minute talk that convinces engineers to write specs.
behaviors:
  - name: hook
    given: the first two minutes
    then: the audience knows the problem
output:
  type: presentation
  format: pptx
  runtime: static-file
  entry_point: dist/talk.pptx
content:
  structure: ordered
  sections:
    - id: intro
      type: slide
      intent: Hook the audience with the core problem
      content_ref: slides/01-intro.md
      duration: {value: 2, unit: minutes}
    - id: demo
      type: slide
      depends_on:
        - id: intro
          relationship: builds on the problem
      connections:
        - to: close
          label: next
      evidence:
        - type: citation
          ref: Smith et al. 2024
          claim: drift costs a week per quarter
design:
  theme:
    palette: ['#1a1a2e', '#e94560']
    typography:
      heading: Inter
      body: Source Serif
  layout:
    type: slide-deck
    dimensions: '16:9'
  assets:
    - path: 'assets/**'
audience:
  role: senior engineers
  tone: casual
  locale: en-US
  accessibility: [high contrast, captions]
variants:
  - id: lightning
    description: five-minute version
    overrides:
      content.structure: free-form
pipeline:
  steps:
    - name: render
      tool: marp
      input: 'slides/*.md'
      output: dist/talk.pptx
  preview:
    command: marp -s slides
artifacts:
  slides:
    - path: 'slides/**'
  speaker_notes:
    - path: notes.md
";

/// A dataset (research domain) with external data, feedback and compliance.
pub const DATASET_07: &str = "schema_version: '0.7'
domain: research
tier: derived
intent: A cleaned web-text dataset for training small models.
output:
  type: dataset
  format: parquet
invariants:
  - no personal data in the released files
artifacts:
  data:
    - path: 'data/raw/**'
      source: 'hf://datasets/HuggingFaceFW/fineweb'
      role: source data
    - path: 'data/clean/*.parquet'
      tier: 4
  notebooks:
    - path: 'notebooks/*.ipynb'
pipeline:
  steps:
    - name: clean
      command: python clean.py
      on_failure: abort
      env:
        SEED: '42'
feedback:
  metrics:
    - name: dedup_ratio
      threshold: '< 0.05'
  triggers:
    - condition:
        metric: dedup_ratio
        operator: above_threshold
      action: warn
      priority: medium
compliance:
  frameworks:
    - name: GDPR
      satisfied_by:
        invariants: [no personal data in the released files]
  audit_trail: true
";

/// A game with a state machine.
pub const GAME_07: &str = "schema_version: '0.7'
intent: A small puzzle game.
output: {type: game, runtime: browser}
behaviors:
  - name: lose
    given: health reaches zero
    then: the game-over screen shows
    state_transition: {from: playing, to: over}
states:
  initial: menu
  definitions:
    - id: menu
      transitions:
        - {to: playing, on: start}
    - id: playing
      transitions:
        - {to: over, on: death, guard: health <= 0, action: play sound}
    - id: over
artifacts:
  code:
    - path: 'game/**'
";

/// A 0.8 feature spec: behaviors with `tested_by`, decisions with
/// `status`, `origin` and `related_files`, pulled-in cross-cutting specs.
pub const FEATURE_08: &str = "schema_version: '0.8'
intent: |
  Users sign up and log in; sessions expire after 30 minutes.
behaviors:
  - name: signup
    given: a valid email and a password of at least 12 characters
    then: an account is created and a welcome email is sent
    tested_by:
      - path: tests/auth/signup.rs
        assertion: signup_creates_account
  - name: session_timeout
    given: 30 minutes without a request
    then: the session is invalidated
    tested_by:
      - path: tests/auth/session.rs
decisions:
  - date: '2025-02-01'
    choice: JWT over session cookies
    rationale: stateless scaling
    status: accepted
    origin: design-review
    related_files:
      - src/auth/jwt.rs
applies:
  - $ref: ./_shared/style.spec.yaml
artifacts:
  code:
    - path: 'src/auth/**'
  tests:
    - path: 'tests/auth/**'
";

/// A 0.8 cross-cutting spec: no artifacts, constraints for everyone.
pub const CROSS_08: &str = "schema_version: '0.8'
cross_cutting: true
intent: Code and docs follow one house style.
tier: registered
constraints:
  - rustfmt defaults, no exceptions
invariants:
  - no `unwrap` outside tests
";

/// The realistic specs, by name.
pub fn realistic() -> Vec<(&'static str, &'static str)> {
    vec![
        ("feature 0.8", FEATURE_08),
        ("cross-cutting 0.8", CROSS_08),
        ("cross-cutting 0.8 with behaviors", CROSS),
        ("system 0.7", SYSTEM_07),
        ("registered 0.5", REGISTERED_05),
        ("feature 0.6", FEATURE_06),
        ("slides 0.7", SLIDES_07),
        ("dataset 0.7", DATASET_07),
        ("game 0.7", GAME_07),
    ]
}
