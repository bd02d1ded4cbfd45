//! The MCP surface: an rmcp server on stdio serving the tools, the specs as
//! resources, the workflows as prompts, and completion of their arguments.
//!
//! [`surface`] lists the methods and [`tools::TOOLS`] the tools, each declared
//! once; [`stdio`] frames lines, answers what rmcp would drop and orders the
//! calls by asking those tables; [`projects`] states the concurrency model
//! and holds the projects the requests run on; [`server`] is the rmcp
//! handler; [`tools`] dispatches over [`crate::review`]; [`resources`]
//! serves the spec files and [`prompts`] the workflows of
//! [`crate::workflow`] and completion.

pub mod lines;
pub mod progress;
pub mod projects;
pub mod prompts;
pub mod resources;
pub mod server;
pub mod stdio;
pub mod surface;
pub mod tools;

use std::path::PathBuf;

use crate::project::Project;

/// How the server runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// `--read-only`: only the tools that read are served, and this process
    /// writes no file ([`crate::safe_fs::forbid_writes`]).
    pub read_only: bool,
}

/// Serve the project at `root` on stdin/stdout until stdin closes.
pub fn serve(root: PathBuf, options: Options) -> anyhow::Result<()> {
    if options.read_only {
        crate::safe_fs::forbid_writes();
    }
    crate::changes::keep_trees_cached();
    crate::changes::GitRepo::keep_status_in_this_process();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let server = server::NotaraiServer::new(Project::new(root), options);
        server.start_keeping();
        stdio::serve(server, tokio::io::stdin(), tokio::io::stdout()).await
    })
}
