//! How the hook answers each agent so that the errors reach the model.
//!
//! | agent | broken spec | why |
//! | --- | --- | --- |
//! | Claude Code, Gemini CLI, VS Code | exit 2, errors on stderr | exit 2 feeds stderr to the model (Gemini puts it in place of the tool's result; the edit stays) |
//! | Codex CLI | exit 2, errors on stderr | exit 2 with a non-empty stderr is feedback to the model (empty stderr would count as a failed hook) |
//! | opencode | exit 2, errors on stderr | the notarai plugin appends stderr to the tool's output on exit 2 |
//! | Cursor | exit 0, `{"additional_context": "<errors>"}` on stdout, errors on stderr | `afterFileEdit` cannot block; `additional_context` is the channel newer builds read (unconfirmed), an older build ignores it and shows stderr in its hook log |
//! | Windsurf | exit 0, errors on stderr | `post_write_code` cannot block and has no documented channel to the model; `show_output` shows the output to the user |
//!
//! Everything else (a valid spec, another file, an event or tool the hook
//! does not handle) is exit 0 and silence.

use serde::Serialize;

use super::{HookAgent, Report, render_errors};

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

/// The answer to `report` in the channel its agent passes to the model.
pub fn answer(report: &Report) -> Answer {
    let message: String = report
        .invalid()
        .map(|(path, errors)| render_errors(path, errors))
        .collect();
    if message.is_empty() {
        return Answer::default();
    }
    match report.agent {
        HookAgent::Claude
        | HookAgent::Zed
        | HookAgent::Codex
        | HookAgent::Gemini
        | HookAgent::Vscode
        | HookAgent::Opencode => Answer {
            exit_code: EXIT_TO_MODEL,
            stdout: String::new(),
            stderr: message,
        },
        HookAgent::Cursor => {
            let json = serde_json::to_string(&CursorOutput {
                additional_context: &message,
            })
            .unwrap_or_default();
            Answer {
                exit_code: 0,
                stdout: format!("{json}\n"),
                stderr: message,
            }
        }
        HookAgent::Windsurf => Answer {
            exit_code: 0,
            stdout: String::new(),
            stderr: message,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::Outcome;
    use crate::spec::Finding;

    fn report(agent: HookAgent, broken: bool) -> Report {
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
            agent,
            outcomes: vec![outcome, Outcome::Ignored("not a spec file")],
        }
    }

    #[test]
    fn each_agent_gets_its_channel() {
        for agent in HookAgent::ALL {
            assert_eq!(answer(&report(agent, false)), Answer::default(), "{agent}");
            let got = answer(&report(agent, true));
            assert!(
                got.stderr.contains(".notarai/a.spec.yaml:3:1: bad"),
                "{agent}"
            );
            match agent {
                HookAgent::Cursor => {
                    assert_eq!(got.exit_code, 0);
                    let json: serde_json::Value = serde_json::from_str(&got.stdout).unwrap();
                    assert_eq!(json["additional_context"], got.stderr.as_str());
                }
                HookAgent::Windsurf => {
                    assert_eq!((got.exit_code, got.stdout.as_str()), (0, ""));
                }
                _ => assert_eq!((got.exit_code, got.stdout.as_str()), (EXIT_TO_MODEL, "")),
            }
        }
    }
}
