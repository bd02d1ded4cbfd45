//! The rmcp server handler: handshake, instructions, the tool table, and
//! the resources, prompts and completion of [`super::resources`] and
//! [`super::prompts`].

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams,
    CompleteResult, ContentBlock, DiscoverResult, ErrorCode, GetPromptRequestParams,
    GetPromptResponse, Implementation, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::projects::Side;
use crate::project::Project;

/// Protocol revisions this server serves: `2026-07-28` statelessly (every
/// request carries its version in `_meta`; `server/discover` answers), the
/// four older ones after an `initialize` handshake.
pub const SUPPORTED_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2026_07_28,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2024_11_05,
];

/// What the instructions say of the revisions served and what each era's
/// client sees.
const REVISIONS_SERVED: &str = "\nMCP revisions served: 2026-07-28 (stateless: every request \
     carries its revision in `_meta`; `server/discover` describes the server), and after an \
     `initialize` handshake 2025-11-25, 2025-06-18, 2025-03-26 and 2024-11-05. From 2025-11-25 \
     on, a tool's invalid argument is a result marked `isError` whose text carries the message \
     and its `hint:` line; before, the same text comes as a JSON-RPC failure (-32602).";

/// The notarai MCP server: one repository, read on one project and written
/// on another ([`super::projects`]).
#[derive(Clone)]
pub struct NotaraiServer {
    /// The reading and the writing project (the concurrency model).
    projects: super::projects::Projects,
    tools: Arc<Vec<Tool>>,
    read_only: bool,
}

/// The cache hints of the `2026-07-28` results that carry them (SEP-2549),
/// chosen for what notarai serves.
///
/// - `tools/list`, `prompts/list`, `resources/templates/list`: fixed for the
///   life of the process (they come from the binary and its flags, never
///   from the repository), the same for every user of this binary with
///   these flags: [`STATIC_TTL_MS`], `public`.
/// - `resources/list`, `resources/read` and `server/discover`: the spec
///   files' text, and the instructions' load status of the specs, change
///   whenever a file of the repository does, and no change notification is
///   sent: `0` (stale at once; the client asks again), `private` (the
///   repository's content is the user's).
pub mod cache {
    /// How long the lists fixed by the binary stay fresh: one hour. They
    /// change only with another binary, which is another process.
    pub const STATIC_TTL_MS: u64 = 3_600_000;
    /// How long what is read from the repository stays fresh: not at all.
    pub const REPOSITORY_TTL_MS: u64 = 0;
}

/// Whether the request is served on `2026-07-28` or later (its `_meta`
/// names the revision; the legacy revisions have a handshake instead).
fn modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| !v.has_initialize())
}

/// Whether a tool's invalid argument is a tool result with `isError`
/// (SEP-1303, from `2025-11-25` on) rather than a JSON-RPC error.
fn tool_errors_as_results(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2025_11_25.as_str())
}

/// A tool's invalid-argument error as the result the model reads: the
/// same message (its `hint:` line included), `isError: true`.
fn tool_error_result(error: ErrorData) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error.message.into_owned())])
}

/// The cursor of a request's params, if any.
fn cursor(request: &Option<PaginatedRequestParams>) -> Option<&str> {
    request.as_ref().and_then(|r| r.cursor.as_deref())
}

impl NotaraiServer {
    /// A server for `project`; a read-only one serves only the tools that
    /// read.
    pub fn new(project: Project, options: super::Options) -> NotaraiServer {
        let mut tools = super::tools::tools();
        if options.read_only {
            tools.retain(|t| {
                super::tools::find(&t.name)
                    .is_some_and(|d| d.access == super::tools::Access::ReadOnly)
            });
        }
        NotaraiServer {
            projects: super::projects::Projects::new(project),
            tools: Arc::new(crate::page::with_paging_notes(tools)),
            read_only: options.read_only,
        }
    }

    /// Start what the long-lived server keeps, before the first question
    /// ([`super::projects::Projects::start_keeping`]).
    pub fn start_keeping(&self) {
        self.projects.start_keeping();
    }

    /// The error of a call to a tool that writes, on a read-only server.
    fn refuse_write(name: &str) -> ErrorData {
        let hint = "recording a pass needs a server started without `--read-only` \
                    (`notarai mcp`): report your findings and leave the recording to the user";
        super::tools::rpc_error(
            crate::error::Error::invalid(format!(
                "`{}` writes, and this server is read-only (started with `notarai mcp \
                 --read-only`)",
                name.escape_debug()
            ))
            .hinted(hint),
        )
    }

    /// The `instructions` of the initialize answer: what the server is for,
    /// the order of a reconciliation pass, and the load status of the specs.
    pub fn instructions(&self) -> String {
        let (status, tracked_cache, state_problem) = self.projects.read_now(|project| {
            let state_problem = crate::state::problem(project.root());
            let warning = project.git().ok().and_then(|git| {
                let files = git.tracked_cache_files();
                (!files.is_empty()).then(|| crate::changes::tracked_cache_message(&files))
            });
            (project.load_status(), warning, state_problem)
        });
        let mut text = String::from(
            "notarai keeps this repository's specs (.notarai/*.spec.yaml), code and docs in step. ",
        );
        text.push_str(&crate::workflow::RECONCILE.pass());
        text.push('\n');
        text.push_str(crate::page::FOLLOW_CURSOR);
        text.push_str(REVISIONS_SERVED);
        if self.read_only {
            text.push('\n');
            text.push_str(&crate::workflow::read_only_server(&super::tools::writing()));
        }
        text.push_str(&format!("\nSpecs loaded: {}.", status.loaded));
        match &status.system {
            // Names and messages from the repository are quoted JSON
            // strings: data, never sentences of the instructions.
            Some(system) => text.push_str(&format!(
                " System spec: {}.",
                crate::quote::for_model(system)
            )),
            None => text.push_str(" No system spec (a spec with a `subsystems` key)."),
        }
        if status.loaded == 0 && status.invalid.is_empty() {
            text.push_str(
                " No spec files found: run `notarai init`, then write specs in .notarai/.",
            );
        }
        if !status.invalid.is_empty() {
            text.push_str(&format!(
                " {} error(s) in spec files that fail `notarai validate` (a spec that failed to \
                 load governs nothing until fixed):",
                status.invalid.len()
            ));
            for failure in status.invalid.iter().take(10) {
                text.push_str(&format!(
                    "\n- {}",
                    crate::quote::for_model(&failure.to_string())
                ));
            }
            if status.invalid.len() > 10 {
                text.push_str(&format!(
                    "\n- and {} more (run `notarai validate`)",
                    status.invalid.len() - 10
                ));
            }
        }
        if let Some(problem) = state_problem {
            tracing::warn!("{problem}");
            text.push_str(&format!(
                "\nWarning: the reconciliation state is ignored until fixed: {problem}."
            ));
        }
        if let Some(warning) = tracked_cache {
            tracing::warn!("{warning}");
            text.push_str(&format!("\nWarning: {warning}."));
        }
        text
    }
}

impl ServerHandler for NotaraiServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_completions()
            .enable_prompts()
            .enable_resources()
            .enable_tools()
            .build();
        let mut info = InitializeResult::new(capabilities);
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        let mut implementation = Implementation::new("notarai", env!("CARGO_PKG_VERSION"));
        implementation.title = Some("notarai".into());
        implementation.description = Some(env!("CARGO_PKG_DESCRIPTION").into());
        info.server_info = implementation;
        info.with_instructions(self.instructions())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(SUPPORTED_VERSIONS)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Every tool fits one page, so no cursor is ever issued.
        if let Some(cursor) = request.and_then(|r| r.cursor) {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown cursor `{}`: tools/list never issues one; list without a cursor",
                    cursor.escape_debug()
                ),
                None,
            ));
        }
        let list = ListToolsResult::with_all_items(self.tools.as_ref().clone());
        Ok(match modern(&context) {
            true => list
                .with_ttl_ms(cache::STATIC_TTL_MS)
                .with_cache_scope(CacheScope::Public),
            false => list,
        })
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.read_only
            && super::tools::find(&request.name)
                .is_some_and(|d| d.access != super::tools::Access::ReadOnly)
        {
            let refusal = Self::refuse_write(&request.name);
            return match tool_errors_as_results(&context) {
                true => Ok(tool_error_result(refusal).into()),
                false => Err(refusal),
            };
        }
        let as_result = tool_errors_as_results(&context);
        let (progress, tracker) = super::progress::Tracker::start(&context);
        let answer =
            super::tools::call(&self.projects, &request.name, request.arguments, progress).await;
        tracker.finish().await;
        match answer {
            // An unknown tool stays a protocol error (the tools page of the
            // specification); a known tool's invalid argument is the
            // model's to correct.
            Err(e)
                if as_result
                    && e.code == ErrorCode::INVALID_PARAMS
                    && super::tools::find(&request.name).is_some() =>
            {
                Ok(tool_error_result(e).into())
            }
            answer => answer.map(Into::into),
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let cursor = cursor(&request).map(str::to_owned);
        let list = self
            .projects
            .run(Side::Read, "resources/list", move |project| {
                super::resources::list(project, cursor.as_deref())
            })
            .await?;
        Ok(match modern(&context) {
            true => list
                .with_ttl_ms(cache::REPOSITORY_TTL_MS)
                .with_cache_scope(CacheScope::Private),
            false => list,
        })
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let list = super::resources::templates(cursor(&request))?;
        Ok(match modern(&context) {
            true => list
                .with_ttl_ms(cache::STATIC_TTL_MS)
                .with_cache_scope(CacheScope::Public),
            false => list,
        })
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let mut read = if super::resources::is_governing(&request.uri) {
            // What governs a file needs the project (its kept status).
            let read = self
                .projects
                .run(Side::Read, "resources/read", move |project| {
                    super::resources::read_governing(project, &request.uri)
                });
            read.await?
        } else {
            // On no project: a spec's text needs only the root.
            let root = self.projects.root();
            let legacy = !modern(&context);
            let read = tokio::task::spawn_blocking(move || {
                super::resources::read(&root, &request.uri, legacy)
            })
            .await;
            read.unwrap_or_else(|join| {
                tracing::error!("resources/read failed: {join}");
                Err(ErrorData::internal_error(
                    format!("resources/read failed unexpectedly: {join}"),
                    None,
                ))
            })?
        };
        if modern(&context) {
            read.ttl_ms = Some(cache::REPOSITORY_TTL_MS);
            read.cache_scope = Some(CacheScope::Private);
        }
        Ok(read.into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let list = super::prompts::list(cursor(&request))?;
        Ok(match modern(&context) {
            true => list
                .with_ttl_ms(cache::STATIC_TTL_MS)
                .with_cache_scope(CacheScope::Public),
            false => list,
        })
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        // The instructions carry the specs' load status: see [`cache`].
        Ok(
            DiscoverResult::from_server_info(SUPPORTED_VERSIONS.to_vec(), self.get_info())
                .with_ttl_ms(cache::REPOSITORY_TTL_MS)
                .with_cache_scope(CacheScope::Private),
        )
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let read_only = self.read_only;
        let get = self
            .projects
            .run(Side::Read, "prompts/get", move |project| {
                super::prompts::get(
                    project,
                    &request.name,
                    request.arguments.as_ref(),
                    read_only,
                )
            });
        get.await.map(Into::into)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let complete = self
            .projects
            .run(Side::Read, "completion/complete", move |project| {
                super::prompts::complete(project, &request)
            });
        complete.await
    }
}
