//! notarai's leaves, the floor every other crate of the workspace stands
//! on (`ARCHITECTURE.md` draws the crate graph): [`error`], the kind and
//! hint every error keeps to the edge; [`quote`], repository text as data;
//! [`layout`], where notarai keeps things; [`glob`], the glob primitives;
//! [`parallel`], a small thread pool; [`progress`], progress and
//! cancellation of one long piece of work; [`agent`], the coding agents by
//! name; [`workflow`], the agent workflows as typed steps; and
//! [`rpc_client`], the one JSON-RPC client of a stdio MCP server. It names
//! no git, SQLite or grammar: Cargo keeps it so.
#![warn(missing_docs)]
// No function longer than `too-many-lines-threshold` (clippy.toml).
#![warn(clippy::too_many_lines)]
// The one writer, reader, walker and process starter are lints
// (`clippy.toml`); unit tests may do anything.
#![cfg_attr(test, allow(clippy::disallowed_methods, clippy::disallowed_types))]

pub mod agent;
pub mod error;
pub mod glob;
pub mod layout;
pub mod parallel;
pub mod progress;
pub mod quote;
pub mod rpc_client;
pub mod rules;
pub mod workflow;
