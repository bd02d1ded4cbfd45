//! An agent's row of the table made into the parts `init` adds, each with
//! its inverse, which `init --remove` applies: the one place both
//! directions are derived from, so they cannot drift apart.

use std::path::Path;

use super::merge;
use super::{
    Agent, AgentId, EntryShape, Form, Format, HookFile, HookKind, Mcp, McpFile, Moved, SERVER_NAME,
    context_hook_command, hook_command, merge_toml, server_entry, stop_hook_command,
};
use crate::init::{Planner, generated};
use crate::workflow;

/// One thing notarai adds for an agent.
pub(super) enum Part {
    /// The MCP server entry in a project file.
    Server {
        /// The file chosen among the candidates.
        rel: &'static str,
        /// Where in it, in which format and shape.
        file: McpFile,
    },
    /// An entry in a user-level file notarai never writes: a step by hand.
    UserServer {
        /// The agent.
        id: AgentId,
        /// The user file.
        path: &'static str,
        /// The key its servers live under.
        servers: &'static str,
        /// The entry the user adds, one line.
        snippet: String,
        /// Where the agent opens that file.
        opened_from: &'static str,
    },
    /// notarai's section in the agent's instruction file.
    Instructions(&'static Agent),
    /// A workflow file notarai writes whole.
    Generated {
        /// The file.
        rel: String,
        /// notarai's text without its marker.
        body: String,
        /// The text with its marker.
        stamped: String,
    },
    /// A part notarai added before and no longer adds: taken out by `init`
    /// and by `--remove` alike.
    Retired(Box<Part>),
    /// A hook registered in a JSON file.
    Hook {
        /// The agent.
        agent: &'static Agent,
        /// Where.
        file: HookFile,
        /// The command `init` registers, then those an older notarai did
        /// (taken out too).
        commands: Vec<String>,
        /// The post-edit hook (which the agent may have in another file).
        post_edit: bool,
    },
}

/// `value` as one line of JSON with a space after `:` and `,`.
fn one_line(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Object(map) => {
            let members: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", serde_json::Value::from(k.as_str()), one_line(v)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
        serde_json::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(one_line).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// The entry a user adds by hand, one line: `"notarai": {...}`.
fn snippet(shape: EntryShape) -> String {
    format!("\"{SERVER_NAME}\": {}", one_line(&server_entry(shape)))
}

/// The workflow files of `a`. With `chosen` (adding), none when the agent
/// reads those of a chosen agent, but for its own already at `root`; with
/// `None` (removing), every one it may have.
fn workflow_parts(a: &Agent, root: &Path, chosen: Option<&[AgentId]>) -> Vec<Part> {
    let Some(files) = a.workflows else {
        return Vec::new();
    };
    let shared = files
        .reads_those_of
        .is_some_and(|other| chosen.is_some_and(|c| c.contains(&other)));
    workflow_files(files)
        .filter(|part| {
            !shared || matches!(part, Part::Generated { rel, .. } if root.join(rel).symlink_metadata().is_ok())
        })
        .collect()
}

/// Every workflow file in the form and place of `files`.
fn workflow_files(files: super::WorkflowFiles) -> impl Iterator<Item = Part> {
    workflow::ALL.iter().map(move |w| {
        let rel = files.file(w.name);
        let body = w.render(files.form);
        let stamped = match files.form {
            Form::GeminiCommand => generated::stamp_line(&body, "#"),
            _ => generated::stamp_markdown(&body),
        };
        Part::Generated { rel, body, stamped }
    })
}

/// Every part of agent `a`, in the order `init` plans them: the MCP entry,
/// the instructions, the workflows, the places it moved from, the
/// post-edit hook, the pre-edit hook.
/// `chosen`: the agents being set up (adding), `None` (removing).
pub(super) fn parts(a: &'static Agent, root: &Path, chosen: Option<&[AgentId]>) -> Vec<Part> {
    let mut out = vec![match a.mcp {
        Mcp::Project(file) => Part::Server {
            rel: super::inspect::choose_file(root, &file),
            file,
        },
        Mcp::UserOnly {
            path,
            servers,
            shape,
            opened_from,
        } => Part::UserServer {
            id: a.id,
            path,
            servers: servers[0],
            snippet: snippet(shape),
            opened_from,
        },
    }];
    out.push(Part::Instructions(a));
    out.extend(workflow_parts(a, root, chosen));
    // Before the hooks: a retired registration is out of a hook file
    // before the new one goes in (a file left empty starts anew).
    if let Some(moved) = a.moved {
        out.extend(moved_parts(a, &moved, root, chosen));
    }
    if let Some(file) = a.hook {
        let mut commands = vec![hook_command(a.id)];
        commands.extend(a.legacy_hooks.iter().map(|c| c.to_string()));
        out.push(match file.kind {
            HookKind::Plugin { script } => Part::Generated {
                rel: file.file.to_string(),
                body: script.to_string(),
                stamped: generated::stamp_line(script, "//"),
            },
            _ => Part::Hook {
                agent: a,
                file,
                commands,
                post_edit: true,
            },
        });
    }
    if let Some(file) = a.context_hook {
        out.push(Part::Hook {
            agent: a,
            file,
            commands: vec![context_hook_command(a.id)],
            post_edit: false,
        });
    }
    if let Some(file) = a.stop_hook {
        out.push(Part::Hook {
            agent: a,
            file,
            commands: vec![stop_hook_command(a.id)],
            post_edit: false,
        });
    }
    out
}

/// The parts of the places `a` read before it moved: adding, its MCP entry
/// and workflow files where the file is already there (a user of the old
/// place keeps it working), a retired hook taken out; removing, all of it.
fn moved_parts(
    a: &'static Agent,
    moved: &Moved,
    root: &Path,
    chosen: Option<&[AgentId]>,
) -> Vec<Part> {
    let there = |rel: &str| chosen.is_none() || root.join(rel).symlink_metadata().is_ok();
    let mut out = Vec::new();
    if let Some(file) = moved.mcp {
        let rel = super::inspect::choose_file(root, &file);
        if there(rel) {
            out.push(Part::Server { rel, file });
        }
    }
    if let Some(files) = moved.workflows {
        out.extend(
            workflow_files(files)
                .filter(|part| matches!(part, Part::Generated { rel, .. } if there(rel))),
        );
    }
    if let Some(file) = moved.hook {
        out.push(Part::Retired(Box::new(Part::Hook {
            agent: a,
            file,
            commands: vec![hook_command(a.id)],
            post_edit: true,
        })));
    }
    out
}

impl Part {
    /// Plan adding this part; `chosen` are the agents being set up.
    pub(super) fn add(&self, p: &mut Planner, chosen: &[AgentId]) {
        match self {
            Part::Server { rel, file } => match file.format {
                Format::Toml => {
                    p.edit(rel, |old| merge_toml::add_toml_server(old, file.servers[0]))
                }
                format => p.edit(rel, |old| {
                    merge::add_json_server(old, format, file.servers, file.shape)
                }),
            },
            Part::UserServer {
                id,
                path,
                servers,
                snippet,
                opened_from,
            } => p.notes.push(format!(
                "{}: MCP servers live only in your user file {path}, which notarai never \
                 writes: add {snippet} under \"{servers}\" ({opened_from}), then refresh",
                id.title()
            )),
            Part::Instructions(a) => super::setup::plan_instructions(p, a, chosen),
            Part::Retired(part) => part.remove(p, false),
            Part::Generated { rel, body, stamped } => p.generated_text(rel, body, stamped.clone()),
            Part::Hook {
                agent,
                file,
                commands,
                post_edit,
            } => {
                if let Some((inline, _)) = agent.hook_also_in
                    && super::inspect::hook_also_in(agent, p.root).is_some()
                {
                    // Registered by the user in the agent's other hook
                    // file: a second one would run the hook twice, and a
                    // hook file beside it might not be read at all.
                    if !*post_edit {
                        p.notes.push(format!(
                            "{}: notarai's hooks are in {inline}, which notarai does not \
                             write: add `{}` there too, like the post-edit hook, for the \
                             governing specs before an edit",
                            agent.id.title(),
                            commands[0]
                        ));
                    }
                    return;
                }
                p.edit(file.file, |old| {
                    merge::add_hook(old, file.format, file.kind, &commands[0])
                })
            }
        }
    }

    /// Plan taking this part out again: the inverse of [`Part::add`].
    /// `everything`: every agent's part goes (no `--agents`). An
    /// instruction file's section is taken out after every agent's parts,
    /// once, when no agent kept still reads it (`setup::plan_remove`).
    pub(super) fn remove(&self, p: &mut Planner, everything: bool) {
        match self {
            Part::Server { rel, file } => match file.format {
                Format::Toml => {
                    p.change(rel, |t| merge_toml::remove_toml_server(t, file.servers[0]))
                }
                format => p.change(rel, |t| {
                    merge::remove_json_server(t, format, file.servers, file.shape)
                }),
            },
            Part::UserServer {
                id, path, snippet, ..
            } => {
                if !everything {
                    p.notes.push(format!(
                        "{}: take {snippet} out of {path} yourself if you added it",
                        id.title()
                    ));
                }
            }
            Part::Instructions(_) => {}
            Part::Retired(part) => part.remove(p, everything),
            Part::Generated { rel, .. } => p.remove_generated(rel),
            Part::Hook { file, commands, .. } => p.change(file.file, |t| {
                merge::remove_hook(t, file.format, file.kind, commands)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::merge::Change;
    use super::*;

    #[test]
    fn a_user_entry_is_shown_on_one_line() {
        assert_eq!(
            snippet(EntryShape::CommandArgs { typed: None }),
            r#""notarai": {"command": "notarai", "args": ["mcp"]}"#
        );
    }

    #[test]
    fn each_agent_gets_its_workflow_forms() {
        let root = tempfile::tempdir().unwrap();
        let paths = |id, chosen: Option<&[AgentId]>| -> Vec<String> {
            workflow_parts(super::super::agent(id), root.path(), chosen)
                .into_iter()
                .filter_map(|p| match p {
                    Part::Generated { rel, .. } => Some(rel),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(
            paths(AgentId::Cursor, Some(&[])),
            [
                ".cursor/rules/notarai-reconcile.mdc",
                ".cursor/rules/notarai-bootstrap.mdc"
            ]
        );
        assert!(paths(AgentId::Opencode, Some(&[AgentId::Claude])).is_empty());
        assert_eq!(paths(AgentId::Opencode, Some(&[])).len(), 2);
        assert_eq!(paths(AgentId::Opencode, None).len(), 2);
        assert!(paths(AgentId::Windsurf, Some(&[])).is_empty());
        for part in workflow_parts(super::super::agent(AgentId::Gemini), root.path(), None) {
            let Part::Generated { body, stamped, .. } = part else {
                panic!("a workflow is a generated file")
            };
            assert_eq!(generated::origin(&stamped), generated::Origin::Unedited);
            assert!(stamped.starts_with(&body));
        }
    }

    /// An edit added then removed: the text in between and the removal.
    type RoundTrip = Box<dyn Fn(&str) -> (String, Change)>;

    /// Small JSON values: nested objects and arrays of scalars.
    fn value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::Value;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            "[a-z\"é]{0,4}".prop_map(Value::from),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
                proptest::collection::btree_map("[a-z]{1,2}", inner, 0..3)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// For every row of the table, each JSON part (the MCP entry, the
        /// hooks) added to any object, in any layout, with or without
        /// comments where the format allows them, and taken out again gives
        /// back every byte (or deletes a file that was an empty object
        /// when that is what `init` writes from nothing).
        #[test]
        fn every_agents_json_parts_come_out_as_they_went_in(
            doc in proptest::collection::btree_map("[a-z]{1,2}", value(), 0..4),
            pretty in proptest::bool::ANY,
            comment in proptest::bool::ANY,
        ) {
            let doc = serde_json::Value::Object(doc.into_iter().collect());
            let mut plain = match pretty {
                true => serde_json::to_string_pretty(&doc).unwrap(),
                false => serde_json::to_string(&doc).unwrap(),
            };
            plain.push('\n');
            let commented = format!("// mine\n{plain}");
            for a in super::super::AGENTS {
                let mut edits: Vec<(Format, RoundTrip)> = Vec::new();
                if let Mcp::Project(file) = a.mcp
                    && file.format != Format::Toml
                {
                    edits.push((file.format, Box::new(move |text: &str| {
                        let added = merge::add_json_server(Some(text), file.format, file.servers, file.shape)
                            .unwrap()
                            .unwrap();
                        let removed = merge::remove_json_server(&added, file.format, file.servers, file.shape).unwrap();
                        (added, removed)
                    })));
                }
                let hooks = [(a.hook, hook_command(a.id)), (a.context_hook, context_hook_command(a.id)), (a.stop_hook, stop_hook_command(a.id))];
                for (hook, command) in hooks {
                    let Some(hook) = hook.filter(|h| !matches!(h.kind, HookKind::Plugin { .. })) else {
                        continue;
                    };
                    edits.push((hook.format, Box::new(move |text: &str| {
                        let added = merge::add_hook(Some(text), hook.format, hook.kind, &command)
                            .unwrap()
                            .unwrap();
                        let removed = merge::remove_hook(&added, hook.format, hook.kind, std::slice::from_ref(&command)).unwrap();
                        (added, removed)
                    })));
                }
                for (format, edit) in edits {
                    let text = match (format, comment) {
                        (Format::Jsonc, true) => commented.as_str(),
                        _ => plain.as_str(),
                    };
                    let (added, removed) = edit(text);
                    // An empty object may be byte for byte what `init`
                    // creates from nothing: then it cannot be told apart
                    // from a file `init` created, which is deleted.
                    let expected = match (&removed, doc.as_object().unwrap().is_empty() && text == plain) {
                        (Change::Delete(_), true) => Change::Delete(text.to_string()),
                        _ => Change::Write(text.to_string()),
                    };
                    proptest::prop_assert_eq!(removed, expected, "{:?}: {}", a.id, added);
                }
            }
        }
    }
}
