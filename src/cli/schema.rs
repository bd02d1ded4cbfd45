//! `notarai schema`: print the JSON Schema of the spec format.

use std::io::Write;
use std::process::ExitCode;

/// Arguments of `notarai schema`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Run `notarai schema`: the schema generated from the loader's own types.
pub fn run(_args: Args) -> crate::error::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", crate::spec::json_schema())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
