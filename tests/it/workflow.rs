//! One source for the workflow: the server's `instructions`, the tools'
//! descriptions, the installed skills and the MCP prompts are rendered from
//! `notarai::workflow`, so they name the same steps and tools in the same
//! order. These tests read each rendering as a user or agent gets it.

use notarai::workflow::{BOOTSTRAP, RECONCILE};
use serde_json::{Value, json};

use crate::common::{self, Repo, notarai};

/// The names of `universe` that `text` mentions (as whole words), in the
/// order of their first mention.
fn named_in_order(text: &str, universe: &[String]) -> Vec<String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found: Vec<(usize, String)> = universe
        .iter()
        .filter_map(|name| {
            text.match_indices(name.as_str())
                .find(|(at, _)| {
                    let before = text[..*at].chars().next_back();
                    let after = text[at + name.len()..].chars().next();
                    !before.is_some_and(word) && !after.is_some_and(word)
                })
                .map(|(at, _)| (at, name.clone()))
        })
        .collect();
    found.sort();
    found.into_iter().map(|(_, name)| name).collect()
}

/// The part of a skill between `## Steps` and the next heading.
fn steps_section(skill: &str) -> &str {
    let start = skill.find("## Steps").expect("a Steps section");
    let rest = &skill[start..];
    let end = rest.find("\n## Notes").unwrap_or(rest.len());
    &rest[..end]
}

#[test]
fn every_rendering_names_the_same_tools_in_the_same_order() {
    let repo = Repo::with_spec();
    let mut server = common::Server::spawn(&repo.root);
    let info = server.initialize();
    let listed = server.request(2, "tools/list", json!({}));
    let prompt_text = |server: &mut common::Server, id: i64, params: Value| -> String {
        let answer = server.request(id, "prompts/get", params);
        answer["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{answer}"))
            .to_string()
    };
    let reconcile_prompts = [
        prompt_text(&mut server, 3, json!({"name": "reconcile"})),
        prompt_text(
            &mut server,
            4,
            json!({"name": "reconcile", "arguments":
                {"base_branch": "main", "spec_path": ".notarai/a.spec.yaml"}}),
        ),
    ];
    let bootstrap_prompt = prompt_text(
        &mut server,
        5,
        json!({"name": "bootstrap", "arguments": {"path": "src"}}),
    );
    server.finish();
    let instructions = info["instructions"].as_str().unwrap().to_string();
    let served: Vec<(String, String)> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t: &Value| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["description"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let universe: Vec<String> = served.iter().map(|(name, _)| name.clone()).collect();
    let order: Vec<String> = RECONCILE.tools().iter().map(|s| s.to_string()).collect();
    for tool in &order {
        assert!(
            universe.contains(tool),
            "the workflow calls `{tool}`, which the server does not have"
        );
    }

    // The instructions' pass, the installed skill's steps: the same tools, in order.
    let pass_start = instructions.find(RECONCILE.pass_name).unwrap();
    let pass_end = pass_start + instructions[pass_start..].find('\n').unwrap();
    assert_eq!(
        named_in_order(&instructions[pass_start..pass_end], &universe),
        order,
        "{instructions}"
    );
    notarai(&repo.root, &["init"], b"");
    let installed =
        std::fs::read_to_string(repo.root.join(".claude/skills/notarai-reconcile/SKILL.md"))
            .unwrap();
    assert_eq!(named_in_order(steps_section(&installed), &universe), order);
    // The prompts: the skill's steps, word for word, under any arguments.
    let skill_steps = {
        let start = installed.find("## Steps").unwrap();
        let end = installed.find("<!--").unwrap_or(installed.len());
        installed[start..end].trim_end_matches('\n')
    };
    for prompt in &reconcile_prompts {
        assert_eq!(named_in_order(steps_section(prompt), &universe), order);
        let prompt_steps = prompt[prompt.find("## Steps").unwrap()..].trim_end_matches('\n');
        assert_eq!(
            prompt_steps, skill_steps,
            "the reconcile prompt and the skill differ"
        );
    }

    // Each tool's description places it in the pass: the tool before it and
    // the tools after it, up to the next step every pass takes.
    for (at, tool) in order.iter().enumerate() {
        let Some((_, description)) = served.iter().find(|(name, _)| name == tool) else {
            continue;
        };
        let mut expected = Vec::new();
        if at > 0 {
            expected.push(order[at - 1].clone());
        }
        let optional: Vec<&str> = RECONCILE
            .steps
            .iter()
            .filter(|s| s.optional)
            .filter_map(|s| s.tool.map(|c| c.name))
            .collect();
        for next in &order[at + 1..] {
            expected.push(next.clone());
            if !optional.contains(&next.as_str()) {
                break;
            }
        }
        let note = &description[description
            .find(RECONCILE.pass_name)
            .unwrap_or_else(|| panic!("{tool} is not placed in the pass: {description}"))..];
        let note = &note[..note.find('\n').unwrap_or(note.len())];
        let named: Vec<String> = named_in_order(note, &universe)
            .into_iter()
            .filter(|name| name != tool && order.contains(name))
            .collect();
        assert_eq!(named, expected, "{tool}: {description}");
    }

    // The bootstrap skill ends by seeding the cache with the reconcile tool.
    let bootstrap =
        std::fs::read_to_string(repo.root.join(".claude/skills/notarai-bootstrap/SKILL.md"))
            .unwrap();
    assert_eq!(
        named_in_order(steps_section(&bootstrap), &universe),
        BOOTSTRAP.tools()
    );
    assert_eq!(
        named_in_order(steps_section(&bootstrap_prompt), &universe),
        BOOTSTRAP.tools()
    );
    assert!(bootstrap_prompt.contains("Only the folder `src`"));
}

#[test]
fn a_step_reference_follows_the_numbering() {
    let skill = RECONCILE.skill();
    let n = RECONCILE.number("status").unwrap();
    assert!(
        skill.contains(&format!("follow `next_cursor` as in\n     step {n} ")),
        "{skill}"
    );
    assert!(skill.starts_with("---\nname: notarai-reconcile\ndescription: "));
}

/// Every agent's form of the workflows, as `init --agents all` installs it
/// (skills, Cursor rules, Gemini commands, VS Code prompts), names the same
/// tools in the same order as the skill.
#[test]
fn every_agents_form_names_the_same_tools_in_the_same_order() {
    let repo = Repo::with_spec();
    let mut server = common::Server::spawn(&repo.root);
    server.initialize();
    let listed = server.request(2, "tools/list", json!({}));
    server.finish();
    let universe: Vec<String> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t: &Value| t["name"].as_str().unwrap().to_string())
        .collect();
    let out = notarai(
        &repo.root,
        &["init", "--agents", &crate::common::every_agent()],
        b"",
    );
    assert!(out.status.success());
    for workflow in [&RECONCILE, &BOOTSTRAP] {
        let name = workflow.name;
        let order: Vec<String> = workflow.tools().iter().map(|s| s.to_string()).collect();
        let forms = [
            format!(".claude/skills/{name}/SKILL.md"),
            format!(".agents/skills/{name}/SKILL.md"),
            format!(".cursor/rules/{name}.mdc"),
            format!(".gemini/commands/{name}.toml"),
            // VS Code's prompt files, kept up to date where a user of its
            // Local harness still has them: rendered, not created.
            format!(".github/prompts/{name}.prompt.md"),
        ];
        for rel in forms {
            let text = match rel.ends_with(".prompt.md") {
                true => workflow.render(notarai::workflow::Form::VscodePrompt),
                false => std::fs::read_to_string(repo.root.join(&rel))
                    .unwrap_or_else(|e| panic!("{rel}: {e}")),
            };
            assert_eq!(
                named_in_order(steps_section(&text), &universe),
                order,
                "{rel}"
            );
        }
        // The Gemini command's prompt is the TOML string the agent reads.
        let toml: toml_edit::DocumentMut =
            std::fs::read_to_string(repo.root.join(format!(".gemini/commands/{name}.toml")))
                .unwrap()
                .parse()
                .unwrap();
        let prompt = toml["prompt"].as_str().unwrap();
        assert_eq!(prompt, workflow.body());
    }
}

/// The texts around the workflows (the server's instructions and prompts,
/// `init`'s templates and code, the advice rendered in `src/workflow/`)
/// name no tool and no workflow by hand: tools come from the tools table
/// (`notarai::mcp::tools::TOOLS`, with its access), workflows from
/// `notarai::workflow`, so a renamed tool or workflow cannot leave a stale
/// copy. Only the steps themselves (`reconcile.rs`, `bootstrap.rs`) and the
/// tools table name them.
#[test]
fn no_tool_or_workflow_is_named_by_hand_around_the_workflows() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let scanned: Vec<(String, String)> = notarai::walk::files(&src, "")
        .into_iter()
        .filter(|e| {
            e.rel.starts_with("init/")
                || e.rel == "mcp/server.rs"
                || e.rel == "mcp/prompts.rs"
                || e.rel == "workflow/advice.rs"
                || e.rel == "workflow/forms.rs"
                || e.rel == "workflow/mod.rs"
        })
        .map(|e| {
            let text = std::fs::read_to_string(&e.path).unwrap();
            // Unit tests may name anything.
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            (e.rel, code)
        })
        .collect();
    assert!(
        scanned
            .iter()
            .any(|(rel, _)| rel.starts_with("init/templates/")),
        "the templates are scanned"
    );
    let mut names: Vec<&str> = notarai::mcp::tools::TOOLS.iter().map(|t| t.name).collect();
    assert!(names.len() >= 9, "{names:?}");
    names.extend([RECONCILE.name, BOOTSTRAP.name]);
    let mut found = Vec::new();
    for (rel, code) in &scanned {
        for name in &names {
            if code.contains(name) {
                found.push(format!("{rel}: {name}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "named by hand (render it from notarai::workflow or the tools table): {found:?}"
    );
}
