//! The `notarai` binary: parse the command line, set up logging, run.

use std::process::ExitCode;

fn main() -> ExitCode {
    notarai::cli::main()
}
