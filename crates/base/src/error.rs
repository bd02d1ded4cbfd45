//! What every error keeps on its way out: its kind (whose move it is) and,
//! when known, a hint (what to do). The floor under the layers: it imports
//! nothing of notarai, and every module may name it.
//!
//! Domain errors say what went wrong; the hint is said apart, so each face
//! shows it its own way: a tool error carries it in the JSON-RPC message and
//! in `data.hint`, the CLI prints it on a `hint:` line under `error:` (the
//! shape of jj's `CommandError`).
//!
//! Every domain error type derives `thiserror::Error` and implements
//! [`Diagnose`] (its kind and hint; both have defaults). Any `Diagnose`
//! error converts into the one edge type, [`Error`], with `?`: the CLI's
//! commands return [`Result`], the tools' errors are rendered through
//! [`Error`], so a hint set on any error type reaches both faces without a
//! list of the types that have one.

use std::fmt;

/// Whose move it is after an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller passed something wrong; the message says what and how to
    /// fix it (JSON-RPC `-32602`).
    InvalidInput,
    /// git, the file system or the cache failed (JSON-RPC `-32603`).
    Internal,
    /// The caller named something that does not exist (a spec): the
    /// caller's input like [`ErrorKind::InvalidInput`] (JSON-RPC `-32602`
    /// for a tool), and a resource's own `-32002` on the legacy revisions
    /// (`2024-11-05` to `2025-11-25`).
    NotFound,
}

/// What an error says beyond its message: whose move it is and what to do.
/// Every domain error type implements it; the defaults (internal, no hint)
/// fit an error that is nobody's input and has no advice.
pub trait Diagnose: std::error::Error + Send + Sync + 'static {
    /// Whose move it is.
    fn kind(&self) -> ErrorKind {
        ErrorKind::Internal
    }

    /// What to do about it, when known (and not already said in the message).
    fn hint(&self) -> Option<String> {
        None
    }
}

impl Diagnose for std::io::Error {}
impl Diagnose for std::fmt::Error {}
impl Diagnose for serde_json::Error {}

/// An error as the edges show it: its kind, its message (with its causes,
/// `outer: inner`) and its hint. Every [`Diagnose`] error converts into it
/// with `?`; the CLI's commands return it ([`Result`]) and the tools render
/// their errors through it ([`Error::rpc_message`]).
#[derive(Debug)]
pub struct Error {
    /// Whose move it is.
    pub kind: ErrorKind,
    /// What went wrong, for a person, with its causes.
    pub message: String,
    /// What to do about it, when known.
    pub hint: Option<String>,
    /// Whether a reader closed the pipe we were writing to (`notarai schema
    /// | head`): not a failure.
    broken_pipe: bool,
}

/// The result of a CLI command.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error of `kind` without a hint.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            hint: None,
            broken_pipe: false,
        }
    }

    /// The caller's mistake, said in `message`.
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::InvalidInput, message)
    }

    /// An internal failure, said in `message`.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Internal, message)
    }

    /// Something the caller named that does not exist, said in `message`.
    pub fn not_found(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::NotFound, message)
    }

    /// The same error with `hint` (a later hint replaces an earlier one).
    pub fn hinted(mut self, hint: impl Into<String>) -> Error {
        self.hint = Some(hint.into());
        self
    }

    /// The same error under `context`: `context: message`, kind and hint kept.
    pub fn context(mut self, context: impl fmt::Display) -> Error {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// Whether the error is a closed pipe on the way out, not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        self.broken_pipe
    }

    /// The CLI's rendering: `error: <message>`, then `hint: <hint>` when
    /// there is one.
    pub fn cli_message(&self) -> String {
        match &self.hint {
            Some(hint) => format!("error: {}\nhint: {hint}", self.message),
            None => format!("error: {}", self.message),
        }
    }

    /// The JSON-RPC error message: the message, then the hint on its own
    /// line, so a client that shows only the message still shows what to do.
    pub fn rpc_message(&self) -> String {
        match &self.hint {
            Some(hint) => format!("{}\nhint: {hint}", self.message),
            None => self.message.clone(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl<E: Diagnose> From<E> for Error {
    fn from(e: E) -> Error {
        let causes = std::iter::successors(Some(&e as &dyn std::error::Error), |e| e.source());
        let mut message = String::new();
        let mut broken_pipe = false;
        for cause in causes {
            // A cause its error already says (`path: <cause>`) is not said twice.
            let text = cause.to_string();
            if message.is_empty() {
                message = text;
            } else if !message.ends_with(&text) {
                message.push_str(": ");
                message.push_str(&text);
            }
            broken_pipe |= cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
        }
        Error {
            kind: e.kind(),
            message,
            hint: e.hint(),
            broken_pipe,
        }
    }
}

/// The few modules that still build `anyhow` errors (the server's start,
/// `init`'s file access): an [`Error`] inside keeps its kind and hint.
impl From<anyhow::Error> for Error {
    fn from(e: anyhow::Error) -> Error {
        let inner = e.chain().find_map(|c| c.downcast_ref::<Error>());
        Error {
            kind: inner.map_or(ErrorKind::Internal, |i| i.kind),
            message: format!("{e:#}"),
            hint: inner.and_then(|i| i.hint.clone()),
            broken_pipe: e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
                    || c.downcast_ref::<Error>().is_some_and(Error::is_broken_pipe)
            }),
        }
    }
}

/// `anyhow::Context` for [`Error`]: a failure said in the caller's words,
/// with the cause after a colon.
pub trait Context<T> {
    /// The error under `context`.
    fn context(self, context: impl fmt::Display) -> Result<T>;
    /// The error under the context `f` builds (only on failure).
    fn with_context<C: fmt::Display>(self, f: impl FnOnce() -> C) -> Result<T>;
}

impl<T, E: Into<Error>> Context<T> for std::result::Result<T, E> {
    fn context(self, context: impl fmt::Display) -> Result<T> {
        self.map_err(|e| e.into().context(context))
    }

    fn with_context<C: fmt::Display>(self, f: impl FnOnce() -> C) -> Result<T> {
        self.map_err(|e| e.into().context(f()))
    }
}

/// A missing value as an error said by `context` alone.
impl<T> Context<T> for Option<T> {
    fn context(self, context: impl fmt::Display) -> Result<T> {
        self.ok_or_else(|| Error::internal(context.to_string()))
    }

    fn with_context<C: fmt::Display>(self, f: impl FnOnce() -> C) -> Result<T> {
        self.ok_or_else(|| Error::internal(f().to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("outer")]
    struct Outer(#[source] std::io::Error);

    impl Diagnose for Outer {
        fn kind(&self) -> ErrorKind {
            ErrorKind::InvalidInput
        }
        fn hint(&self) -> Option<String> {
            Some("do this".into())
        }
    }

    #[test]
    fn a_hint_is_shown_on_its_own_line() {
        let e = Error::invalid("bad base").hinted("pass `main`");
        assert_eq!(e.to_string(), "bad base");
        assert_eq!(e.cli_message(), "error: bad base\nhint: pass `main`");
        assert_eq!(e.rpc_message(), "bad base\nhint: pass `main`");
        assert_eq!(Error::internal("x").rpc_message(), "x");
    }

    #[test]
    fn any_diagnosed_error_keeps_its_kind_hint_and_causes() {
        let io = std::io::Error::new(std::io::ErrorKind::BrokenPipe, "pipe");
        let e = Error::from(Outer(io)).context("writing");
        assert_eq!(e.kind, ErrorKind::InvalidInput);
        assert_eq!(e.message, "writing: outer: pipe");
        assert_eq!(e.hint.as_deref(), Some("do this"));
        assert!(e.is_broken_pipe());
        let through_anyhow = Error::from(anyhow::Error::new(e).context("top"));
        assert_eq!(through_anyhow.message, "top: writing: outer: pipe");
        assert_eq!(through_anyhow.hint.as_deref(), Some("do this"));
        assert_eq!(through_anyhow.kind, ErrorKind::InvalidInput);
        assert!(through_anyhow.is_broken_pipe());
    }
}
