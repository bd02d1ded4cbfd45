//! The methods of the MCP surface, declared once.
//!
//! The line framing ([`super::stdio`]) asks this table which methods exist
//! and which are notifications; the tools themselves are declared in
//! [`super::tools::TOOLS`], which the framing asks whether a call only reads.
//! A new method is one row here plus its handler in [`super::server`] (and
//! its params type in [`params_error`]).

use serde_json::Value;

/// Whether a method is a request (answered) or a notification (never answered).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Carries an `id` and gets an answer.
    Request,
    /// Carries no `id` and gets no answer.
    Notification,
}

/// One method a client may send.
#[derive(Debug)]
pub struct Method {
    /// The JSON-RPC method name.
    pub name: &'static str,
    /// Request or notification.
    pub kind: Kind,
    /// Whether it may be sent before `initialize` without the `_meta` of
    /// `2026-07-28` (a request carrying that `_meta` may always be sent).
    pub before_initialize: bool,
}

const fn request(name: &'static str) -> Method {
    Method {
        name,
        kind: Kind::Request,
        before_initialize: false,
    }
}

const fn notification(name: &'static str) -> Method {
    Method {
        name,
        kind: Kind::Notification,
        before_initialize: false,
    }
}

/// Every method this server understands.
pub const METHODS: &[Method] = &[
    Method {
        before_initialize: true,
        ..request("initialize")
    },
    Method {
        before_initialize: true,
        ..request("ping")
    },
    Method {
        before_initialize: true,
        ..request("server/discover")
    },
    request("tools/list"),
    request("tools/call"),
    request("resources/list"),
    request("resources/templates/list"),
    request("resources/read"),
    request("prompts/list"),
    request("prompts/get"),
    request("completion/complete"),
    notification("notifications/initialized"),
    notification("notifications/cancelled"),
    notification("notifications/progress"),
    notification("notifications/roots/list_changed"),
];

/// The method named `name`, if this server has it.
pub fn method(name: &str) -> Option<&'static Method> {
    METHODS.iter().find(|m| m.name == name)
}

/// Why `params` do not decode as the params of `method`, for the methods
/// whose params have a type in rmcp: the message of a request rmcp read as
/// a custom one, or of a list whose params it read as none (rmcp takes
/// params that fail to decode for none at all).
pub fn params_error(method: &str, params: Option<&Value>) -> Option<String> {
    use rmcp::model::{
        CallToolRequestParams, CompleteRequestParams, GetPromptRequestParams,
        InitializeRequestParams, PaginatedRequestParams, ReadResourceRequestParams,
    };
    fn check<T: serde::de::DeserializeOwned>(params: Option<&Value>) -> Option<String> {
        let params = params.cloned().unwrap_or(Value::Null);
        serde_path_to_error::deserialize::<_, T>(params)
            .err()
            .map(|e| match e.path().to_string().as_str() {
                "." => e.into_inner().to_string(),
                path => format!("`{path}`: {}", e.into_inner()),
            })
    }
    match method {
        "initialize" => check::<InitializeRequestParams>(params),
        "tools/call" => check::<CallToolRequestParams>(params),
        "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" => {
            check::<Option<PaginatedRequestParams>>(params)
        }
        "resources/read" => check::<ReadResourceRequestParams>(params),
        "prompts/get" => check::<GetPromptRequestParams>(params),
        "completion/complete" => check::<CompleteRequestParams>(params),
        _ => None,
    }
}
