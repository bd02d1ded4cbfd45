//! The MCP surface: an rmcp server on stdio serving the five tools.
//!
//! [`surface`] lists the methods and [`tools::TOOLS`] the tools, each declared
//! once; [`stdio`] frames lines, answers what rmcp would drop and orders the
//! calls by asking those tables; [`server`] is the rmcp handler; [`tools`]
//! dispatches over [`crate::review`].

pub mod lines;
pub mod progress;
pub mod server;
pub mod stdio;
pub mod surface;
pub mod tools;

use std::path::PathBuf;

use crate::project::Project;

/// Serve the project at `root` on stdin/stdout until stdin closes.
pub fn serve(root: PathBuf) -> anyhow::Result<()> {
    crate::changes::keep_trees_cached();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let server = server::NotaraiServer::new(Project::new(root));
        stdio::serve(server, tokio::io::stdin(), tokio::io::stdout()).await
    })
}
