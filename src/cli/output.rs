//! The one output path of the CLI's commands: how a command prints
//! ([`Format`], text for people or one JSON document for programs) and the
//! JSON it prints, both through [`crate::quote::Terminal`] so no text from a
//! repository reaches a terminal raw.

use std::io::Write;

use serde::Serialize;

/// How a command prints (`--format`); what its text shows, each command's
/// `--format` help says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// For people: the command's own layout, repository text escaped.
    #[default]
    Text,
    /// One JSON document, pretty-printed, repository text as JSON escapes.
    Json,
}

/// Print `value` as one pretty JSON document and a newline on stdout,
/// through the terminal-safe writer ([`crate::quote::Terminal::json`]).
pub fn json(value: &impl Serialize) -> std::io::Result<()> {
    let mut out = crate::quote::Terminal::json(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()
}
