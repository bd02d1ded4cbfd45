//! The workflows as MCP prompts (`prompts/list`, `prompts/get`) and the
//! completion of their arguments and of the resource templates' `{path}`
//! (`completion/complete`).
//!
//! Every prompt is rendered from [`crate::workflow`], the source of the
//! skills and the server's instructions ([`Workflow::prompt_text`]), so a
//! prompt names the same steps and tools as the skill. The values completion
//! offers come from [`crate::review`]: spec files, folders and files from
//! git's file list, branches.

use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptResult, JsonObject,
    ListPromptsResult, Prompt, PromptArgument, PromptMessage, Reference, Role,
};

use crate::project::Project;
use crate::repo_path::RepoPath;
use crate::review;
use crate::workflow::{self, ArgumentKind, Workflow};

fn invalid(message: String, hint: &str) -> ErrorData {
    super::tools::rpc_error(crate::error::Error::invalid(message).hinted(hint))
}

/// The workflow whose prompt is `name`.
fn find(name: &str) -> Result<&'static Workflow, ErrorData> {
    workflow::ALL
        .into_iter()
        .find(|w| w.prompt.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = workflow::ALL.iter().map(|w| w.prompt.name).collect();
            invalid(
                format!("unknown prompt `{}`", name.escape_debug()),
                &format!("this server has the prompts: {}", names.join(", ")),
            )
        })
}

/// `prompts/list`: one prompt per workflow.
pub fn list(cursor: Option<&str>) -> Result<ListPromptsResult, ErrorData> {
    if let Some(cursor) = cursor {
        return Err(super::resources::unknown_cursor("prompts/list", cursor));
    }
    let prompts = workflow::ALL
        .iter()
        .map(|w| {
            let arguments = w
                .prompt
                .arguments
                .iter()
                .map(|a| {
                    PromptArgument::new(a.name)
                        .with_description(a.description)
                        .with_required(a.required)
                })
                .collect();
            Prompt::new(w.prompt.name, Some(w.description), Some(arguments))
                .with_title(w.prompt.title)
        })
        .collect();
    Ok(ListPromptsResult::with_all_items(prompts))
}

/// Why `value` does not fit an argument of `kind` in `project`, if it does
/// not: a spec path must name a spec of the project, a folder must not be
/// a file (a folder not made yet is fine).
fn check_value(project: &Project, kind: ArgumentKind, value: &str) -> Option<String> {
    match kind {
        ArgumentKind::Branch => value
            .chars()
            .any(|c| c.is_control() || c == ' ')
            .then(|| "a branch name has no spaces or control characters".to_string()),
        ArgumentKind::Folder => match RepoPath::parse(value) {
            Err(e) => Some(e.to_string()),
            Ok(path) if review::is_not_a_folder(project, &path) => {
                Some("a file, not a folder: name the folder that holds it".to_string())
            }
            Ok(_) => None,
        },
        ArgumentKind::SpecPath => match RepoPath::parse(value) {
            Err(e) => Some(e.to_string()),
            Ok(path) if !crate::spec::is_spec_path(path.as_str()) => {
                Some("not a spec file (`.notarai/**/*.spec.yaml`)".to_string())
            }
            Ok(path) if !review::is_project_spec(project, &path) => {
                Some("no spec file of this project has this path".to_string())
            }
            Ok(_) => None,
        },
    }
}

/// `prompts/get`: the workflow's text under the arguments given, as one
/// user message. An unknown prompt or argument, a missing required one or
/// a value that does not fit (a spec path naming no spec of `project`, a
/// folder that is a file) is the caller's error.
pub fn get(
    project: &Project,
    name: &str,
    arguments: Option<&JsonObject>,
    read_only: bool,
) -> Result<GetPromptResult, ErrorData> {
    let workflow = find(name)?;
    let declared = workflow.prompt.arguments;
    let names: Vec<&str> = declared.iter().map(|a| a.name).collect();
    let mut given: Vec<(&str, String)> = Vec::new();
    for (key, value) in arguments.into_iter().flatten() {
        let Some(arg) = declared.iter().find(|a| a.name == key) else {
            return Err(invalid(
                format!("prompt `{name}` has no argument `{}`", key.escape_debug()),
                &format!("its arguments are: {}", names.join(", ")),
            ));
        };
        let Some(value) = value.as_str() else {
            return Err(invalid(
                format!("prompt `{name}`: argument `{key}` must be a string"),
                "pass every argument as a string",
            ));
        };
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        if let Some(why) = check_value(project, arg.kind, value) {
            return Err(invalid(
                format!(
                    "prompt `{name}`: argument `{key}` = `{}`: {why}",
                    value.escape_debug()
                ),
                "`completion/complete` offers the values this argument takes",
            ));
        }
        given.push((arg.name, value.to_string()));
    }
    if let Some(missing) = declared
        .iter()
        .find(|a| a.required && !given.iter().any(|(n, _)| *n == a.name))
    {
        return Err(invalid(
            format!("prompt `{name}` needs the argument `{}`", missing.name),
            &format!("pass `{}`: {}", missing.name, missing.description),
        ));
    }
    let pairs: Vec<(&str, &str)> = given.iter().map(|(n, v)| (*n, v.as_str())).collect();
    // On a read-only server, the prompt says which of its tools are not
    // there (from the tools table's access).
    let note = read_only
        .then(|| workflow.read_only_note(&super::tools::writing()))
        .flatten();
    let extra: Vec<&str> = note.as_deref().into_iter().collect();
    let text = workflow.prompt_text(&pairs, &extra);
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description(workflow.prompt.title),
    )
}

/// What a completion offers values of.
#[derive(Debug, Clone, Copy)]
enum Values {
    /// A prompt's argument.
    Argument(ArgumentKind),
    /// The `{path}` of the governing template: any path of the repository.
    RepoPath,
}

/// `completion/complete`: the values for a prompt's argument or for a
/// resource template's `{path}` (spec files for the spec template, the
/// repository's files and folders for the governing template), matching
/// what is typed so far.
pub fn complete(
    project: &mut Project,
    params: &CompleteRequestParams,
) -> Result<CompleteResult, ErrorData> {
    let argument = &params.argument;
    let kind = match &params.r#ref {
        Reference::Prompt(prompt) => {
            let workflow = find(&prompt.name)?;
            let arg = workflow
                .prompt
                .arguments
                .iter()
                .find(|a| a.name == argument.name)
                .ok_or_else(|| {
                    let names: Vec<&str> =
                        workflow.prompt.arguments.iter().map(|a| a.name).collect();
                    invalid(
                        format!(
                            "prompt `{}` has no argument `{}`",
                            prompt.name,
                            argument.name.escape_debug()
                        ),
                        &format!("its arguments are: {}", names.join(", ")),
                    )
                })?;
            Values::Argument(arg.kind)
        }
        Reference::Resource(template) => {
            use super::resources::{GOVERNING_TEMPLATE, SPEC_TEMPLATE};
            let values = match template.uri.as_str() {
                SPEC_TEMPLATE => Values::Argument(ArgumentKind::SpecPath),
                GOVERNING_TEMPLATE => Values::RepoPath,
                other => {
                    return Err(invalid(
                        format!("unknown resource template `{}`", other.escape_debug()),
                        &format!(
                            "this server's templates are `{SPEC_TEMPLATE}` and \
                             `{GOVERNING_TEMPLATE}`"
                        ),
                    ));
                }
            };
            if argument.name != "path" {
                return Err(invalid(
                    format!(
                        "the template `{}` has no variable `{}`",
                        template.uri.escape_debug(),
                        argument.name.escape_debug()
                    ),
                    "complete `path`",
                ));
            }
            values
        }
        _ => {
            return Err(invalid(
                "unknown completion reference".into(),
                "complete a prompt's argument (`ref/prompt`) or a resource template's `path` \
                 (`ref/resource`)",
            ));
        }
    };
    let typed = argument.value.as_str();
    let found = match kind {
        Values::Argument(ArgumentKind::Branch) => review::complete_branches(project, typed),
        Values::Argument(ArgumentKind::SpecPath) => review::complete_spec_paths(project, typed),
        Values::Argument(ArgumentKind::Folder) => review::complete_folders(project, typed),
        Values::RepoPath => review::complete_repo_paths(project, typed),
    };
    let total = u32::try_from(found.total).unwrap_or(u32::MAX);
    let info = CompletionInfo::with_pagination(found.values, Some(total), found.has_more)
        .map_err(|e| ErrorData::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}
