//! `notarai explain [CODE]`: what a rule finds, its default severity, which
//! commands report it and what to do, from the one table
//! ([`crate::rules::RULES`]); without a code, every rule on a line.

use std::io::Write;
use std::process::ExitCode;

use crate::rules::{Code, RULES, Rule};

/// Arguments of `notarai explain`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A rule's code (`N101`) or short name (`unreconciled-change`); without
    /// it, every rule is listed.
    pub code: Option<String>,
}

/// Run `notarai explain`.
pub fn run(args: Args) -> crate::error::Result<ExitCode> {
    let mut out = crate::quote::Terminal::new(std::io::stdout().lock());
    let Some(asked) = args.code else {
        for r in RULES {
            writeln!(out, "{} {:<26} {}", r.id, r.name, r.finds)?;
        }
        return Ok(ExitCode::SUCCESS);
    };
    match Code::parse(&asked) {
        Some(code) => {
            explain(&mut out, code.rule())?;
            Ok(ExitCode::SUCCESS)
        }
        None => {
            drop(out);
            eprintln!(
                "{}",
                crate::quote::terminal_lines(&format!(
                    "error: `{asked}` is no rule's code or name\nhint: `notarai explain` lists every rule (N001 to {})",
                    RULES.last().map_or("", |r| r.id)
                ))
            );
            Ok(ExitCode::from(2))
        }
    }
}

/// One rule for a person.
fn explain(out: &mut impl Write, r: &Rule) -> std::io::Result<()> {
    writeln!(out, "{} {}", r.id, r.name)?;
    writeln!(out)?;
    writeln!(out, "{}", r.finds)?;
    writeln!(out)?;
    writeln!(out, "reported by:      {}", r.reported_by)?;
    writeln!(out, "default severity: {}", r.default.describe())?;
    writeln!(out, "what to do:       {}", r.fix)?;
    writeln!(
        out,
        "configure:        in .notarai/check.yaml, `rules: {{{}: error|warning|notice|off}}`, or an `ignore` entry with a reason",
        r.id
    )?;
    Ok(())
}
