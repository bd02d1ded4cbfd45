//! Starting an agent's MCP entry: which entries doctor may start (notarai's
//! own server, or any named one with `--run-configured-commands`), the
//! command resolved on `PATH`, and the `initialize` handshakes, made ahead
//! at once so that several servers that hang cost one deadline.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::handshake::ServerHello;
use super::{
    Check, CheckKind, Options, Selection, Verdict, command, entry_checks, handshake,
    handshake_deadline,
};
use crate::agent::AgentId;
use crate::init::agents::{self, Mcp, ServerEntry};

/// Every distinct handshake the selected agents need, made at once (one
/// thread each), so that several servers that hang cost one deadline, not one
/// each.
pub(super) fn prefetch_handshakes(
    root: &Path,
    selected: &[(AgentId, Selection)],
    options: &Options,
) -> Handshakes {
    if options.no_handshake {
        return Handshakes::default();
    }
    let mut spawns: Vec<Spawned> = Vec::new();
    for (agent, _) in selected {
        let seen = agents::inspect(root, *agent);
        let Some(entry) = entry_checks(root, *agent, &seen, options, &mut Vec::new()) else {
            continue;
        };
        if let Ok(program) = resolve_entry(root, &entry, options)
            && may_start(root, *agent, &entry, &program, options).is_ok()
        {
            let key = (program, entry.args, entry.env);
            if !spawns.contains(&key) {
                spawns.push(key);
            }
        }
    }
    let results: Vec<Result<ServerHello, String>> = std::thread::scope(|scope| {
        let running: Vec<_> = spawns
            .iter()
            .map(|(program, args, env)| {
                scope.spawn(move || {
                    handshake::handshake(program, args, env, root, handshake_deadline())
                        .map_err(|e| e.to_string())
                })
            })
            .collect();
        running
            .into_iter()
            .map(|r| {
                r.join()
                    .unwrap_or_else(|_| Err("the handshake panicked".into()))
            })
            .collect()
    });
    Handshakes {
        done: spawns.into_iter().zip(results).collect(),
    }
}

/// The file an entry's command runs; the entry's own `PATH` wins, as it
/// would for the spawned process.
fn resolve_entry(
    root: &Path,
    entry: &ServerEntry,
    options: &Options,
) -> Result<PathBuf, command::ResolveError> {
    let path_var = entry
        .env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| OsString::from(v))
        .or_else(|| options.path_var.clone());
    command::resolve(&entry.command, root, path_var.as_deref())
}

/// The command line an entry spawns, for people: its environment
/// (`KEY=value`), command and arguments, each escaped for a terminal and
/// quoted when it holds a space or a quote.
pub(super) fn spawn_line(entry: &ServerEntry) -> String {
    fn word(text: &str) -> String {
        let shown = crate::quote::terminal(text);
        if shown.is_empty() || shown.contains([' ', '\'', '"', '`', '$']) {
            format!("'{}'", shown.replace('\'', "'\\''"))
        } else {
            shown.into_owned()
        }
    }
    entry
        .env
        .iter()
        .map(|(k, v)| format!("{}={}", word(k), word(v)))
        .chain(std::iter::once(word(&entry.command)))
        .chain(entry.args.iter().map(|a| word(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The environment variables an entry may set and still count as
/// notarai's own server: notarai's logging and `PATH` (which only chooses
/// the program, checked to be notarai itself).
const OWN_ENV: &[&str] = &[
    "NOTARAI_LOG",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "NO_COLOR",
    "PATH",
];

/// Why the entry is not notarai's own server, `None` when it is: `program`
/// is the running executable, the arguments are `mcp` with flags `notarai
/// mcp` knows (`--root` only naming the project), the environment only
/// [`OWN_ENV`].
pub fn own_server(
    root: &Path,
    entry: &ServerEntry,
    program: &Path,
    current_exe: Option<&Path>,
) -> Option<String> {
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !current_exe.is_some_and(|exe| same(program, exe)) {
        return Some(format!(
            "{} is not this notarai executable",
            crate::quote::terminal(&program.display().to_string())
        ));
    }
    let mut args = entry.args.iter();
    let mut subcommand = false;
    while let Some(arg) = args.next() {
        let root_value = if arg == "--root" {
            Some(args.next().map(String::as_str).unwrap_or(""))
        } else {
            arg.strip_prefix("--root=")
        };
        match (arg.as_str(), root_value) {
            (_, Some(dir)) => {
                if !same(&root.join(dir), root) {
                    return Some(format!(
                        "`--root {}` names another folder than the project",
                        crate::quote::terminal(dir)
                    ));
                }
            }
            ("mcp", None) if !subcommand => subcommand = true,
            ("--read-only", None) if subcommand => {}
            ("-v" | "-vv" | "-vvv" | "--verbose", None) => {}
            (other, None) => {
                return Some(format!(
                    "`{}` is not an argument of `notarai mcp`",
                    crate::quote::terminal(other)
                ));
            }
        }
    }
    if !subcommand {
        return Some("the arguments do not start `notarai mcp`".into());
    }
    if let Some((key, _)) = entry
        .env
        .iter()
        .find(|(k, _)| !OWN_ENV.contains(&k.as_str()))
    {
        return Some(format!(
            "it sets `{}`, which notarai does not read",
            crate::quote::terminal(key)
        ));
    }
    None
}

/// Whether doctor may start `entry` for the handshake: a switched-off entry
/// never; notarai's own server ([`own_server`]) yes; any other only when
/// the user named the agent and passed `--run-configured-commands`. When
/// not, the check that says so, showing what would have run.
fn may_start(
    root: &Path,
    agent: AgentId,
    entry: &ServerEntry,
    program: &Path,
    options: &Options,
) -> Result<(), Box<Check>> {
    let spawn = spawn_line(entry);
    if !entry.enabled {
        return Err(Box::new(Check::new(
            Some(agent),
            CheckKind::Handshake,
            Verdict::Warn,
            format!("not started: the entry is switched off (`{spawn}`)"),
        )));
    }
    // The user's own file (Windsurf's, in the home folder) is theirs, not
    // the repository's.
    if matches!(agents::agent(agent).mcp, Mcp::UserOnly { .. }) {
        return Ok(());
    }
    let exe = std::env::current_exe().ok();
    let Some(why) = own_server(root, entry, program, exe.as_deref()) else {
        return Ok(());
    };
    let named = options
        .agents
        .as_ref()
        .is_some_and(|list| list.contains(&agent));
    if named && options.run_configured {
        return Ok(());
    }
    Err(Box::new(
        Check::new(
            Some(agent),
            CheckKind::Handshake,
            Verdict::Warn,
            format!("not started: `{spawn}` is not notarai's own server ({why})"),
        )
        .fix(format!(
            "a cloned repository's config may name any command: read it, and if you trust it run \
             `notarai doctor --agents {agent} --run-configured-commands`"
        )),
    ))
}

/// The results of the handshakes already made, by what was spawned: agents
/// sharing one command line are answered by one handshake (made ahead by
/// [`prefetch_handshakes`]; one missing is made on the spot).
#[derive(Default)]
pub(super) struct Handshakes {
    done: BTreeMap<Spawned, Result<ServerHello, String>>,
}

/// What a handshake spawned: the program, its arguments, its environment.
type Spawned = (PathBuf, Vec<String>, Vec<(String, String)>);

/// The command and handshake checks of an entry.
pub(super) fn check_command(
    root: &Path,
    agent: AgentId,
    entry: &ServerEntry,
    options: &Options,
    handshakes: &mut Handshakes,
    out: &mut Vec<Check>,
) {
    let program = match resolve_entry(root, entry, options) {
        Ok(program) => program,
        Err(e) => {
            out.push(
                Check::new(Some(agent), CheckKind::Command, Verdict::Fail, e.to_string()).fix(
                    format!(
                        "install notarai (`cargo install --path .` in notarai's source, or put the binary on PATH), \
                         or write its absolute path as the entry's command; {} may not see your shell's PATH",
                        agent.title()
                    ),
                ),
            );
            return;
        }
    };
    let mut check = Check::new(
        Some(agent),
        CheckKind::Command,
        Verdict::Ok,
        format!("`{}` resolves to {}", entry.command, program.display()),
    );
    check.resolved = Some(program.display().to_string());
    out.push(check);
    if options.no_handshake {
        return;
    }
    if let Err(why) = may_start(root, agent, entry, &program, options) {
        out.push(*why);
        return;
    }
    let key = (program.clone(), entry.args.clone(), entry.env.clone());
    let result = handshakes
        .done
        .entry(key)
        .or_insert_with(|| {
            handshake::handshake(
                &program,
                &entry.args,
                &entry.env,
                root,
                handshake_deadline(),
            )
            .map_err(|e| e.to_string())
        })
        .clone();
    let spawn = spawn_line(entry);
    match result {
        Ok(hello) => {
            let mut check = Check::new(
                Some(agent),
                CheckKind::Handshake,
                Verdict::Ok,
                format!(
                    "`{spawn}` answered: {} {}, protocol {}, in {} ms",
                    hello.name, hello.version, hello.protocol_version, hello.millis
                ),
            );
            check.server = Some(hello);
            out.push(check);
        }
        Err(message) => out.push(
            Check::new(
                Some(agent),
                CheckKind::Handshake,
                Verdict::Fail,
                format!("`{spawn}`: {message}"),
            )
            .fix(format!(
                "the entry must run notarai's MCP server (`notarai mcp`); run `{spawn}` in {} to see what it does",
                root.display()
            )),
        ),
    }
}
