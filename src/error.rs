//! What every error keeps on its way out: its kind (whose move it is) and,
//! when known, a hint (what to do). A leaf module: it imports nothing of
//! notarai.
//!
//! Domain errors say what went wrong; the hint is said apart, so each face
//! shows it its own way: a tool error carries it in the JSON-RPC message and
//! in `data.hint`, the CLI prints it on a `hint:` line under `error:` (the
//! shape of jj's `CommandError`).

use std::fmt;

/// Whose move it is after an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller passed something wrong; the message says what and how to
    /// fix it (JSON-RPC `-32602`).
    InvalidInput,
    /// git, the file system or the cache failed (JSON-RPC `-32603`).
    Internal,
}

/// An error with its kind and an optional hint, for the places that have no
/// typed error of their own (the CLI's commands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hinted {
    /// Whose move it is.
    pub kind: ErrorKind,
    /// What went wrong, for a person.
    pub message: String,
    /// What to do about it, when known.
    pub hint: Option<String>,
}

impl Hinted {
    /// An error of `kind` without a hint.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Hinted {
        Hinted {
            kind,
            message: message.into(),
            hint: None,
        }
    }

    /// The same error with `hint`.
    pub fn hinted(mut self, hint: impl Into<String>) -> Hinted {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Hinted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Hinted {}

/// The CLI's rendering: `error: <message>`, then `hint: <hint>` when there
/// is one.
pub fn cli_message(message: &str, hint: Option<&str>) -> String {
    match hint {
        Some(hint) => format!("error: {message}\nhint: {hint}"),
        None => format!("error: {message}"),
    }
}

/// The JSON-RPC error message: the message, then the hint on its own line,
/// so a client that shows only the message still shows what to do.
pub fn rpc_message(message: &str, hint: Option<&str>) -> String {
    match hint {
        Some(hint) => format!("{message}\nhint: {hint}"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hint_is_shown_on_its_own_line() {
        let e = Hinted::new(ErrorKind::InvalidInput, "bad base").hinted("pass `main`");
        assert_eq!(e.to_string(), "bad base");
        assert_eq!(
            cli_message(&e.message, e.hint.as_deref()),
            "error: bad base\nhint: pass `main`"
        );
        assert_eq!(rpc_message("x", None), "x");
    }
}
