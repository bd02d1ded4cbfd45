//! `cargo bench --bench tools`: notarai's MCP tools against plain git.
//!
//! Builds (once, then reuses) the synthetic repository of `make_repo.py`
//! under `/tmp/notarai-bench`, plus a copy with 4x the files for the scaling
//! row, then times every case of issue 6 on the release `notarai` binary
//! over stdio and plain `git` on the same repository, interleaved, medians
//! of the same number of runs, and prints a Markdown table.
//!
//! Options (after `--`, or as environment variables):
//!
//! | option | variable | default |
//! | --- | --- | --- |
//! | `--dir DIR` | `NOTARAI_BENCH_DIR` | `/tmp/notarai-bench` |
//! | `--modules N` | `NOTARAI_BENCH_MODULES` | 200 |
//! | `--files-per-module N` | `NOTARAI_BENCH_FILES_PER_MODULE` | 250 |
//! | `--ignored N` | `NOTARAI_BENCH_IGNORED` | 20000 |
//! | `--seed N` | `NOTARAI_BENCH_SEED` | 7 |
//! | `--runs N` | `NOTARAI_BENCH_RUNS` | 7 |
//! | `--mark-files N` | `NOTARAI_BENCH_MARK_FILES` | 10000 |
//! | `--timeout SECS` | `NOTARAI_BENCH_TIMEOUT` | 120 |
//! | `--no-scaling` | `NOTARAI_BENCH_NO_SCALING=1` | scaling on |
//! | `--scale` | `NOTARAI_BENCH_SCALE=1` | off: builds (minutes, ~5 GB) and times the 10x repository |
//! | `--markdown FILE` | `NOTARAI_BENCH_MARKDOWN` | none |
//! | `--notarai PATH` | `NOTARAI_BENCH_BIN` | this package's binary |
//! | `--generate-only` | `NOTARAI_BENCH_GENERATE_ONLY=1` | off |
//! | `--only TEXT` | `NOTARAI_BENCH_ONLY` | every case (else those whose name holds TEXT; `scale TEXT`: the scale questions whose name holds TEXT) |

// Tests and benchmarks build repositories as they like: the house's
// file-system and process rules (clippy.toml) are for `src/`.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod before_edit;
mod cases;
mod client;
mod gitside;
mod measure;
mod paging;
mod pyrandom;
mod repo;
mod report;
mod scale;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use cases::{Ctx, Facts, Row};
use repo::RepoParams;

/// Everything the command line and environment decide.
#[derive(Debug)]
struct Options {
    /// Folder holding the generated repositories and the server's stderr log.
    dir: PathBuf,
    /// Sizes of the default repository.
    params: RepoParams,
    /// Timed rounds per case.
    runs: usize,
    /// Files `mark_reconciled` hashes.
    mark_files: usize,
    /// Limit of one call, in seconds.
    timeout_secs: u64,
    /// Whether to build and time the 4x repository.
    scaling: bool,
    /// Whether to build the 10x repository and time the scale group.
    scale: bool,
    /// Where to write the table too.
    markdown: Option<PathBuf>,
    /// The notarai binary under test.
    bin: PathBuf,
    /// Build the repositories and stop.
    generate_only: bool,
    /// Run only the cases whose name holds this text.
    only: Option<String>,
}

/// Usage text for `--help`.
const USAGE: &str = "usage: cargo bench --bench tools -- [--dir DIR] [--modules N] \
[--files-per-module N] [--ignored N] [--seed N] [--runs N] [--mark-files N] [--timeout SECS] \
[--no-scaling] [--scale] [--markdown FILE] [--notarai PATH] [--generate-only] [--only TEXT]
Each option also reads NOTARAI_BENCH_<NAME> (e.g. NOTARAI_BENCH_RUNS=3); see benches/tools/main.rs.";

impl Options {
    /// Defaults, then environment variables, then arguments.
    fn parse(args: impl Iterator<Item = String>) -> Result<Option<Self>> {
        let mut opts = Options {
            dir: PathBuf::from("/tmp/notarai-bench"),
            params: RepoParams {
                modules: 200,
                files_per_module: 250,
                ignored: 20_000,
                seed: 7,
                untouched: 0,
            },
            runs: 7,
            mark_files: 10_000,
            timeout_secs: 120,
            scaling: true,
            scale: false,
            markdown: None,
            bin: PathBuf::from(env!("CARGO_BIN_EXE_notarai")),
            generate_only: false,
            only: None,
        };
        for (key, value) in std::env::vars() {
            if let Some(name) = key.strip_prefix("NOTARAI_BENCH_") {
                let flag = format!("--{}", name.to_ascii_lowercase().replace('_', "-"));
                opts.apply(&flag, &mut Source::Env(Some(value)))?;
            }
        }
        let mut args = args;
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-h" | "--help" => {
                    println!("{USAGE}");
                    return Ok(None);
                }
                // What `cargo bench` passes to every bench target.
                "--bench" => {}
                _ => opts.apply(&arg, &mut Source::Args(&mut args))?,
            }
        }
        Ok(Some(opts))
    }

    /// Apply one option, taking its value from `source` when it has one.
    fn apply(&mut self, flag: &str, source: &mut Source<'_>) -> Result<()> {
        let mut num = || -> Result<usize> {
            let v = source.value(flag)?;
            v.parse()
                .with_context(|| format!("{flag}: not a number: {v}"))
        };
        match flag {
            "--modules" => self.params.modules = num()?,
            "--files-per-module" => self.params.files_per_module = num()?,
            "--ignored" => self.params.ignored = num()?,
            "--seed" => self.params.seed = num()? as u64,
            "--runs" => self.runs = num()?.max(1),
            "--mark-files" => self.mark_files = num()?,
            "--timeout" => self.timeout_secs = num()? as u64,
            "--dir" => self.dir = source.value(flag)?.into(),
            "--markdown" => self.markdown = Some(source.value(flag)?.into()),
            "--notarai" | "--bin" => self.bin = source.value(flag)?.into(),
            "--no-scaling" => self.scaling = !source.switch(),
            "--scale" => self.scale = source.switch(),
            "--generate-only" => self.generate_only = source.switch(),
            "--only" => self.only = Some(source.value(flag)?),
            _ => bail!("unknown option {flag}\n{USAGE}"),
        }
        Ok(())
    }
}

/// Where an option's value comes from.
enum Source<'a> {
    /// An environment variable's value (taken once).
    Env(Option<String>),
    /// The following command-line argument.
    Args(&'a mut dyn Iterator<Item = String>),
}

impl Source<'_> {
    /// The option's value: the variable, or the next argument.
    fn value(&mut self, flag: &str) -> Result<String> {
        match self {
            Source::Env(value) => value.take(),
            Source::Args(args) => args.next(),
        }
        .with_context(|| format!("{flag} needs a value"))
    }

    /// A switch: a bare flag is on; a variable is on unless empty or `0`.
    fn switch(&mut self) -> bool {
        match self {
            Source::Env(value) => value.as_deref().is_some_and(|v| !v.is_empty() && v != "0"),
            Source::Args(_) => true,
        }
    }
}

fn main() -> ExitCode {
    let options = match Options::parse(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => return ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Build or reuse the repositories, run every case, print the table.
fn run(options: &Options) -> Result<()> {
    let repo = repo::ensure(&options.dir, &options.params)?;
    let larger = if options.scaling {
        let params = RepoParams {
            untouched: 3 * options.params.module_files(),
            ..options.params
        };
        Some(repo::ensure(&options.dir, &params)?)
    } else {
        None
    };
    let scale = if options.scale {
        Some(repo::ensure(&options.dir, &scale::params(&options.params))?)
    } else {
        None
    };
    if options.generate_only {
        return Ok(());
    }
    if !options.bin.is_file() {
        bail!(
            "{} not found; build it with cargo build --release",
            options.bin.display()
        );
    }
    let ctx = Ctx {
        bin: options.bin.clone(),
        stderr_log: options.dir.join("notarai-mcp.stderr.log"),
        runs: options.runs,
        timeout: Duration::from_secs(options.timeout_secs),
        mark_files: options.mark_files,
    };
    eprintln!(
        "timing {} against git, {} runs per case; server stderr in {}",
        ctx.bin.display(),
        ctx.runs,
        ctx.stderr_log.display()
    );
    let only = options.only.as_deref();
    let mut rows = run_cases(&ctx, &repo, larger.as_deref(), only);
    // The scale group: `--scale`, and `--only` naming it (or no `--only`);
    // `--only "scale TEXT"` runs its questions whose label holds TEXT.
    let mut scale_table = None;
    let scale_only = only.and_then(|only| only.strip_prefix(SCALE_GROUP));
    if let Some(scale) = &scale
        && only.is_none_or(|only| SCALE_GROUP.contains(only) || scale_only.is_some())
    {
        let wanted = scale_only.map(str::trim).unwrap_or("");
        let pairs = scale::pairs(&ctx, &repo, scale, wanted);
        let (scale_rows, table) = scale::rows(pairs);
        rows.extend(scale_rows);
        scale_table = Some(table);
    }
    let find = |label: &str| {
        let case = cases::module_diff_case(label);
        rows.iter().find(|row| row.case == case)
    };
    let scaling = match (find(""), find(LARGER_LABEL)) {
        (Some(default), Some(larger)) => Some(report::Scaling { default, larger }),
        _ => None,
    };
    let mut table = report::render(&header(options)?, &rows, scaling);
    if let Some(scale_table) = scale_table {
        table.push('\n');
        table.push_str(&scale_table);
    }
    println!("{table}");
    if let Some(path) = &options.markdown {
        std::fs::write(path, &table).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("table written to {}", path.display());
    }
    Ok(())
}

/// What `--only` names to run the scale group alone.
const SCALE_GROUP: &str = "scale";

/// Suffix of the scaling row's case name.
const LARGER_LABEL: &str = ", repository with 4x the files";

/// One case, run on demand.
type Step<'a> = Box<dyn Fn() -> Row + 'a>;

/// Every case in table order; the scaling row, when on, comes last.
fn run_cases(ctx: &Ctx, repo: &Path, larger: Option<&Path>, only: Option<&str>) -> Vec<Row> {
    let steps: Vec<(&str, Step<'_>)> = vec![
        ("spawn", Box::new(|| cases::spawn_to_initialize(ctx, repo))),
        (
            "hook validate, non-spec file",
            Box::new(|| cases::hook_validate(ctx, repo, "src/m000/f2.rs", "<= 5 ms")),
        ),
        (
            "hook validate, spec edit",
            Box::new(|| cases::hook_validate(ctx, repo, ".notarai/m000.spec.yaml", "<= 20 ms")),
        ),
        (
            "hook context, governed file",
            Box::new(|| before_edit::hook_context(ctx, repo)),
        ),
        (
            "hook stop, one edited file unreconciled",
            Box::new(|| before_edit::hook_stop(ctx, repo)),
        ),
        (
            "get_governing_specs, 10 paths",
            Box::new(|| before_edit::governing_specs(ctx, repo)),
        ),
        (
            "list_affected_specs, fresh server",
            Box::new(|| cases::first_call(ctx, repo, &cases::list_question(), Facts::None)),
        ),
        (
            "list_affected_specs, fresh server, facts kept",
            Box::new(|| cases::first_call(ctx, repo, &cases::list_question(), Facts::Kept)),
        ),
        (
            "list_affected_specs",
            Box::new(|| cases::list_affected_specs(ctx, repo)),
        ),
        (
            "list_affected_specs, after one edit",
            Box::new(|| cases::after_one_edit(ctx, repo, &cases::list_question())),
        ),
        (
            "get_spec_diff m000",
            Box::new(|| cases::module_diff_cold(ctx, repo, "", "<= 1.0x git")),
        ),
        (
            "get_spec_diff **/*.rs",
            Box::new(|| cases::allrs_diff_cold(ctx, repo)),
        ),
        (
            "get_spec_diff **/*.rs, fresh server",
            Box::new(|| cases::first_call(ctx, repo, &cases::allrs_question(), Facts::None)),
        ),
        (
            "get_spec_diff **/*.rs, fresh server, facts kept",
            Box::new(|| cases::first_call(ctx, repo, &cases::allrs_question(), Facts::Kept)),
        ),
        (
            "get_spec_diff **/*.rs, after one edit",
            Box::new(|| cases::after_one_edit(ctx, repo, &cases::allrs_question())),
        ),
        (
            "get_spec_diff **/*.rs warm",
            Box::new(|| cases::allrs_diff_warm(ctx, repo)),
        ),
        (
            "get_changed_artifacts",
            Box::new(|| cases::changed_artifacts(ctx, repo)),
        ),
        (
            "mark_reconciled",
            Box::new(|| cases::mark_reconciled(ctx, repo, false)),
        ),
        (
            "mark_reconciled, with a progressToken",
            Box::new(|| cases::mark_reconciled(ctx, repo, true)),
        ),
        (
            "resources/list",
            Box::new(|| cases::resources_list(ctx, repo)),
        ),
        ("whole pass", Box::new(|| cases::whole_pass(ctx, repo))),
        ("check", Box::new(|| cases::check(ctx, repo, Facts::None))),
        (
            "check, facts kept",
            Box::new(|| cases::check(ctx, repo, Facts::Kept)),
        ),
        (
            "export-context",
            Box::new(|| cases::export_context(ctx, repo)),
        ),
    ];
    let mut rows = Vec::new();
    for (name, step) in steps {
        if only.is_some_and(|only| !name.contains(only)) {
            continue;
        }
        eprintln!("case: {name}");
        rows.push(step());
    }
    let paged = "paged answers";
    if only.is_none_or(|only| paged.contains(only)) {
        eprintln!("case: {paged}, default repository");
        for fresh in [false, true] {
            rows.extend(paging::paged_rows(ctx, repo, &paging::allrs(""), fresh));
        }
        match paging::ensure_big(repo) {
            Ok(big) => {
                let label = format!(", branch adding {} files", paging::NEW_FILES);
                eprintln!("case: {paged}{label}");
                for fresh in [false, true] {
                    rows.extend(paging::paged_rows(ctx, &big, &paging::allrs(&label), fresh));
                    rows.extend(paging::paged_rows(ctx, &big, &paging::list(&label), fresh));
                }
            }
            Err(err) => eprintln!("the big branch could not be built: {err:#}"),
        }
    }
    if let Some(larger) = larger
        && only.is_none_or(|only| "check".contains(only))
    {
        eprintln!("case: check on the 4x repository");
        let mut row = cases::check(ctx, larger, Facts::None);
        row.case.push_str(LARGER_LABEL);
        rows.push(row);
    }
    if let Some(larger) = larger {
        eprintln!("case: get_spec_diff m000 on the 4x repository");
        rows.push(cases::module_diff_cold(
            ctx,
            larger,
            LARGER_LABEL,
            "<= 1.5x the default repository",
        ));
    }
    rows
}

/// The line above the table: sizes, runs, git version, cores.
fn header(options: &Options) -> Result<String> {
    let git = gitside::git(Path::new("."), &["--version"])?;
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let p = &options.params;
    Ok(format!(
        "Synthetic repository: {} modules x {} files, {} ignored files, seed {}; \
         medians of {} runs per case, interleaved with git; {}, {} cores.",
        p.modules,
        p.files_per_module,
        p.ignored,
        p.seed,
        options.runs,
        String::from_utf8_lossy(&git).trim(),
        cores
    ))
}
