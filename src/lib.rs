//! notarai: keeps a project's specs, code and docs from drifting apart.
//!
//! The library behind the `notarai` binary. Every feature asks one question,
//! *which files changed on this branch, and which spec governs each?*, and the
//! modules here answer it in layers (`ARCHITECTURE.md` is the map; each layer
//! names only lower ones): the leaves [`layout`], [`glob`] and [`repo_path`]
//! (the repository boundary), the file system helpers [`walk`] (the one
//! walker) and `safe_fs` (the one safe writer and bounded reader), then
//! [`spec`] loads the YAML specs it is given, [`governance`] maps files to
//! specs, [`changes`] asks git what changed, `cache` remembers what was
//! reconciled on this machine and `state` what the team committed, `check`
//! is the CI gate over both, [`project`] ties them together, and [`mcp`] and [`cli`] are
//! the two faces a user sees. [`init`] sets a repository up for an agent,
//! `hook` checks the specs it writes, and `doctor` checks that every
//! configured agent can reach the server.
#![warn(missing_docs)]
// No function longer than `too-many-lines-threshold` (clippy.toml).
#![warn(clippy::too_many_lines)]
// The one writer, reader, walker and process starter are lints
// (`clippy.toml`); unit tests may do anything.
#![cfg_attr(test, allow(clippy::disallowed_methods, clippy::disallowed_types))]

// The leaves, from the crate below (`crates/base`): named here as they
// always were, `crate::error`, `notarai::rpc_client`.
pub use notarai_base::{
    agent, error, glob, layout, parallel, progress, quote, rpc_client, rules, workflow,
};
// The symbol outline, from its crate (`crates/symbols`, the only one with the
// grammars): `crate::symbols` as before.
pub use notarai_symbols as symbols;

// The API: what the binary (`cli`), the integration tests and the
// benchmarks use is `pub`; every other room is the crate's own
// (`pub(crate)`), so a newcomer sees what a room may be asked from outside.
pub(crate) mod answers;
pub(crate) mod cache;
pub mod changes;
pub(crate) mod check;
pub mod cli;
pub(crate) mod doctor;
pub mod governance;
pub mod hashing;
pub(crate) mod hook;
pub mod init;
pub mod mcp;
pub(crate) mod page;
pub mod project;
pub(crate) mod record;
pub mod repo_path;
pub mod review;
pub(crate) mod rule_files;
pub(crate) mod safe_fs;
pub mod spec;
pub(crate) mod state;
pub mod walk;
pub(crate) mod watch;
