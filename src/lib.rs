//! notarai: keeps a project's specs, code and docs from drifting apart.
//!
//! The library behind the `notarai` binary. Every feature asks one question,
//! *which files changed on this branch, and which spec governs each?*, and the
//! modules here answer it in layers: [`repo_path`] guards the repository
//! boundary, [`spec`] loads the YAML specs, [`governance`] maps files to specs,
//! [`changes`] asks git what changed, [`cache`] remembers what was reconciled,
//! and [`mcp`] and [`cli`] are the two faces a user sees. [`init`] sets a
//! repository up for an agent, and [`hook`] checks the specs it writes.
#![warn(missing_docs)]

pub mod cache;
pub mod changes;
pub mod cli;
pub mod governance;
pub mod hashing;
pub mod hook;
pub mod init;
pub mod mcp;
pub mod parallel;
pub mod project;
pub mod repo_path;
pub mod review;
pub mod spec;
pub mod watch;
