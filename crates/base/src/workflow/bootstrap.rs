//! The bootstrap workflow: drafting the first specs of an existing codebase.

use super::{Argument, ArgumentKind, Call, Prompt, Step, Workflow};

/// Drafting the first specs: a system spec plus one spec per component.
pub const BOOTSTRAP: Workflow = Workflow {
    name: "notarai-bootstrap",
    description: "Draft the first NotarAI specs (.notarai/*.spec.yaml) for an existing codebase: \
                  a system spec plus one spec per component. Use when .notarai/ holds only the \
                  starter spec, or when the user asks to write specs for the project or a part \
                  of it.",
    when: "If `.notarai/` holds only the starter spec, draft real specs",
    pass_name: "Drafting the first specs",
    heading: "Draft the first specs of a codebase",
    intro: "Specs say what the project should do, in plain language, and which files each
part lives in. Write what the code and docs show the project intends, not a
tour of the implementation. Propose the drafts; write them once the user agrees.
",
    steps: &[
        Step {
            id: "read_layout",
            title: "Read the layout.",
            tool: None,
            brief: Some("read the layout, README, build manifest and entry points"),
            text: "List the top folders, read the README, the build
manifest (`Cargo.toml`, `package.json`, `pyproject.toml`, ...), and the
entry points. Note generated or vendored folders (`target/`, `dist/`,
`node_modules/`, `build/`): they belong in the system spec's `exclude`.",
            optional: false,
        },
        Step {
            id: "choose_components",
            title: "Choose components.",
            tool: None,
            brief: Some("agree on the components with the user"),
            text: "One spec per component a person would name: a
module, a service, a command, a document set. Aim for 3 to 10 specs; a spec
should govern files that change together. Agree on the list with the user.",
            optional: false,
        },
        Step {
            id: "write_specs",
            title: "Write one spec per component",
            tool: None,
            brief: Some("write one spec per component"),
            text: r#"as `.notarai/<component>.spec.yaml`:
```yaml
# yaml-language-server: $schema=./notarai.spec.json
schema_version: '0.8'
intent: |
  What this part is for and for whom, in two to four sentences.
behaviors:
  - name: short_snake_case_name
    given: 'the situation or input'
    then: 'the observable outcome'
constraints:
  - 'rules the implementation must follow'
invariants:
  - 'conditions that must never be false'
artifacts:
  code:
    - path: 'src/component/**'
  tests:
    - path: 'tests/component*'
  docs:
    - path: 'docs/component.md'
```
Take behaviors from tests, docs and public entry points; mark guesses as
questions under `open_questions` instead of stating them as fact. A part
with no behaviors worth stating can use `tier: registered` and omit
`behaviors`."#,
            optional: false,
        },
        Step {
            id: "check_globs",
            title: "Make globs match real files.",
            tool: None,
            brief: Some("check that every glob matches real files"),
            text: "Paths are relative to the repository root;
`**` crosses folders, `*` stays in one. Check each glob matches what you
mean (e.g. `git ls-files 'src/component/**'`). Every source file should be
governed by a spec or excluded.",
            optional: false,
        },
        Step {
            id: "system_spec",
            title: "Update the system spec",
            tool: None,
            brief: Some("list the component specs under the system spec's `subsystems`"),
            text: "`.notarai/system.spec.yaml`: replace its intent
with the project's purpose, list each component spec under `subsystems` as
`- $ref: ./<component>.spec.yaml`, keep the `exclude` list accurate, and
move project-wide rules into its `constraints`.",
            optional: false,
        },
        Step {
            id: "validate",
            title: "Validate.",
            tool: None,
            brief: Some("run `notarai validate` and fix every error"),
            text: "Run `notarai validate` and fix every `path:line:col` error
(unknown keys, wrong enum values, refs that point nowhere). Warnings about
globs that match nothing usually mean a wrong path.",
            optional: false,
        },
        Step {
            id: "seed_cache",
            title: "Seed the cache",
            tool: Some(Call {
                name: "mark_reconciled",
                args: "{files}",
            }),
            brief: Some("with the governed files once the user accepts the specs"),
            text: "once the user accepts the specs: call the
`mark_reconciled` MCP tool with the governed files, so the first
reconciliation only looks at later changes.",
            optional: false,
        },
    ],
    notes: &[],
    prompt: Prompt {
        name: "bootstrap",
        title: "Draft a first spec for a folder",
        arguments: &[Argument {
            name: "path",
            description: "The folder to write a first spec for, relative to the repository root \
                          (e.g. `src/auth`)",
            required: true,
            narrows: "Only the folder `{value}`: read its layout, README and entry points, \
                      draft the spec (or specs, one per component) of what lives there, with \
                      artifact globs under `{value}/`, and list it under the system spec's \
                      `subsystems` (write the system spec first if there is none).",
            kind: ArgumentKind::Folder,
        }],
    },
};
