//! How the hook answers each agent so that the errors reach the model: the
//! channel is the event shape's, in the agents table
//! (`crate::agent::hooks`).
//!
//! | agent | broken spec | why |
//! | --- | --- | --- |
//! | Claude Code, Gemini CLI, VS Code | exit 2, errors on stderr | exit 2 feeds stderr to the model (Gemini puts it in place of the tool's result; the edit stays) |
//! | Codex CLI | exit 2, errors on stderr | exit 2 with a non-empty stderr is feedback to the model (empty stderr would count as a failed hook) |
//! | opencode | exit 2, errors on stderr | the notarai plugin appends stderr to the tool's output on exit 2 |
//! | Cursor | exit 0, `{"additional_context": "<errors>"}` on stdout, errors on stderr | `afterFileEdit` cannot block; `additional_context` is the channel newer builds read (unconfirmed), an older build ignores it and shows stderr in its hook log |
//! | the Copilot format (VS Code's Copilot harness, Copilot CLI) | exit 0, `{"additionalContext": "<errors>"}` on stdout, errors on stderr | exit 2 only warns the user there; `additionalContext` is appended to the tool's result for the model |
//! | Windsurf | exit 0, errors on stderr | `post_write_code` cannot block and has no documented channel to the model; `show_output` shows the output to the user |
//!
//! Everything else (a valid spec, another file, an event or tool the hook
//! does not handle) is exit 0 and silence.

use serde::Serialize;

use super::event::Channel;
use super::{Report, render_errors};

/// Exit code whose stderr Claude Code, Codex, Gemini CLI and VS Code feed
/// back to the model.
const EXIT_TO_MODEL: u8 = 2;

/// What `notarai hook validate` prints and exits with.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answer {
    /// The process's exit code.
    pub exit_code: u8,
    /// Printed on stdout.
    pub stdout: String,
    /// Printed on stderr.
    pub stderr: String,
}

/// Cursor's hook output: context added to the conversation.
#[derive(Debug, Serialize)]
struct CursorOutput<'a> {
    additional_context: &'a str,
}

/// The Copilot format's `postToolUse` output: appended to the tool's result
/// for the model (exit 2 reaches only the user there).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct CopilotOutput<'a> {
    additional_context: &'a str,
}

/// The answer to `report` in the channel its agent passes to the model.
pub fn answer(report: &Report) -> Answer {
    let message: String = report
        .invalid()
        .map(|(path, errors)| render_errors(path, errors))
        .collect();
    if message.is_empty() {
        return Answer::default();
    }
    match report.channel {
        Channel::ExitTwo => Answer {
            exit_code: EXIT_TO_MODEL,
            stdout: String::new(),
            stderr: message,
        },
        Channel::FlatSnake => Answer {
            exit_code: 0,
            stdout: json_line(&CursorOutput {
                additional_context: &message,
            }),
            stderr: message,
        },
        Channel::Flat => Answer {
            exit_code: 0,
            stdout: json_line(&CopilotOutput {
                additional_context: &message,
            }),
            stderr: message,
        },
        Channel::HookSpecific => Answer {
            exit_code: 0,
            stdout: json_line(&super::context::Output::new("PostToolUse", &message)),
            stderr: message,
        },
        Channel::UserOnly => Answer {
            exit_code: 0,
            stdout: String::new(),
            stderr: message,
        },
    }
}

/// `value` as one line of JSON.
fn json_line(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::Outcome;
    use crate::spec::Finding;

    fn report(channel: Channel, broken: bool) -> Report {
        let outcome = if broken {
            Outcome::Invalid {
                path: ".notarai/a.spec.yaml".into(),
                errors: vec![Finding::error(".notarai/a.spec.yaml", 3, 1, "bad")],
            }
        } else {
            Outcome::Valid {
                path: ".notarai/a.spec.yaml".into(),
            }
        };
        Report {
            channel,
            outcomes: vec![outcome, Outcome::Ignored("not a spec file")],
            projects: Vec::new(),
        }
    }

    #[test]
    fn each_channel_has_its_shape() {
        for channel in [
            Channel::ExitTwo,
            Channel::HookSpecific,
            Channel::Flat,
            Channel::FlatSnake,
            Channel::UserOnly,
        ] {
            assert_eq!(answer(&report(channel, false)), Answer::default());
            let got = answer(&report(channel, true));
            assert!(got.stderr.contains(".notarai/a.spec.yaml:3:1: bad"));
            let json = || serde_json::from_str::<serde_json::Value>(&got.stdout).unwrap();
            match channel {
                Channel::ExitTwo => {
                    assert_eq!((got.exit_code, got.stdout.as_str()), (EXIT_TO_MODEL, ""))
                }
                Channel::FlatSnake => {
                    assert_eq!(got.exit_code, 0);
                    assert_eq!(json()["additional_context"], got.stderr.as_str());
                }
                Channel::Flat => {
                    assert_eq!(got.exit_code, 0);
                    assert_eq!(json()["additionalContext"], got.stderr.as_str());
                }
                Channel::HookSpecific => {
                    assert_eq!(got.exit_code, 0);
                    let out = &json()["hookSpecificOutput"];
                    assert_eq!(out["additionalContext"], got.stderr.as_str());
                }
                Channel::UserOnly => assert_eq!((got.exit_code, got.stdout.as_str()), (0, "")),
            }
        }
    }
}
