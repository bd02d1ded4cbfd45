//! Line framing on stdio, in front of rmcp.
//!
//! rmcp's own stdio transport silently drops a line it cannot decode, and
//! ends the session on some malformed messages. JSON-RPC 2.0 and the notarai
//! contract want an answer instead, and the server must keep serving. So this
//! module reads stdin itself, one bounded line at a time, answers what rmcp
//! would not (`-32700` parse errors with `"id": null`, `-32600` invalid
//! requests, `-32601` unknown methods, `-32602` malformed parameters, and
//! requests sent before `initialize`), and hands rmcp only messages it can
//! decode, through an in-memory pipe. Everything written to stdout, by rmcp or
//! by this module, goes through one lock, one whole line at a time.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, mpsc};

use super::server::NotaraiServer;

/// The longest message accepted on one line. A longer line is discarded as
/// it streams in (memory stays bounded) and answered with an error.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// JSON-RPC error codes.
pub mod code {
    /// The line is not JSON.
    pub const PARSE_ERROR: i32 = -32700;
    /// JSON, but not a valid request.
    pub const INVALID_REQUEST: i32 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Missing or malformed parameters.
    pub const INVALID_PARAMS: i32 = -32602;
}

/// Methods a client may send that this server understands.
const KNOWN_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
];

type SharedOut<W> = Arc<Mutex<W>>;

/// Serve `server` on `input`/`output` until `input` ends.
pub async fn serve<R, W>(server: NotaraiServer, input: R, output: W) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let out: SharedOut<W> = Arc::new(Mutex::new(output));
    let (lines_tx, lines_rx) = mpsc::channel::<Vec<u8>>(64);
    let initialized = Arc::new(AtomicBool::new(false));
    let sessions = tokio::spawn(run_sessions(
        server,
        lines_rx,
        out.clone(),
        initialized.clone(),
    ));
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    loop {
        match read_bounded_line(&mut reader, &mut line, MAX_LINE).await {
            Ok(Line::Eof) => break,
            Ok(Line::TooLong) => {
                tracing::warn!("discarded a message longer than {MAX_LINE} bytes");
                let message =
                    format!("message longer than {MAX_LINE} bytes; send smaller requests");
                write_error(&out, Value::Null, code::INVALID_REQUEST, &message).await?;
            }
            Ok(Line::Complete) => {
                if let Some(forward) = screen(&line, &out, &initialized).await?
                    && lines_tx.send(forward).await.is_err()
                {
                    break;
                }
            }
            Err(e) => {
                tracing::warn!("stdin: {e}");
                break;
            }
        }
    }
    drop(lines_tx);
    sessions.await??;
    let mut out = out.lock().await;
    out.flush().await?;
    Ok(())
}

/// Check one line; answer it here when rmcp should not see it, else return
/// the bytes to forward.
async fn screen<W: AsyncWrite + Unpin>(
    line: &[u8],
    out: &SharedOut<W>,
    initialized: &AtomicBool,
) -> std::io::Result<Option<Vec<u8>>> {
    let text = match std::str::from_utf8(line) {
        Ok(text) => text.trim(),
        Err(_) => {
            write_error(
                out,
                Value::Null,
                code::PARSE_ERROR,
                "parse error: the message is not valid UTF-8",
            )
            .await?;
            return Ok(None);
        }
    };
    if text.is_empty() {
        return Ok(None);
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            write_error(
                out,
                Value::Null,
                code::PARSE_ERROR,
                &format!("parse error: {e}"),
            )
            .await?;
            return Ok(None);
        }
    };
    let Value::Object(object) = &value else {
        let what = if value.is_array() {
            "batches (JSON arrays) are not supported"
        } else {
            "not a JSON-RPC object"
        };
        write_error(
            out,
            Value::Null,
            code::INVALID_REQUEST,
            &format!("invalid request: {what}"),
        )
        .await?;
        return Ok(None);
    };
    // An id that is present must be a string or an integer.
    let id = match object.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(id @ Value::Number(n)) if n.is_i64() || n.is_u64() => Some(id.clone()),
        Some(_) => {
            write_error(
                out,
                Value::Null,
                code::INVALID_REQUEST,
                "invalid request: `id` must be a string or an integer",
            )
            .await?;
            return Ok(None);
        }
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        // JSON-RPC 2.0 answers every invalid request, `{}` included, with
        // `-32600`; only what looks like a response (`result` or `error`)
        // from the client is left unanswered, so two peers never trade
        // errors about each other's errors.
        let is_response = object.contains_key("result") || object.contains_key("error");
        if !is_response {
            write_error(
                out,
                reply_id,
                code::INVALID_REQUEST,
                "invalid request: `jsonrpc` must be \"2.0\"",
            )
            .await?;
        }
        return Ok(None);
    }
    let method = match object.get("method") {
        Some(Value::String(m)) => Some(m.as_str()),
        Some(_) => {
            write_error(
                out,
                reply_id,
                code::INVALID_REQUEST,
                "invalid request: `method` must be a string",
            )
            .await?;
            return Ok(None);
        }
        None => None,
    };
    let Some(method) = method else {
        // A response from the client: rmcp only wants those for its own
        // requests, which this server never sends. Anything else is invalid.
        if id.is_some() && (object.contains_key("result") || object.contains_key("error")) {
            tracing::debug!("ignoring a response from the client");
        } else {
            write_error(
                out,
                reply_id,
                code::INVALID_REQUEST,
                "invalid request: no `method`",
            )
            .await?;
        }
        return Ok(None);
    };
    let is_request = id.is_some();
    if !is_request {
        // Notifications never get an answer; forward only what rmcp decodes,
        // and nothing before the session exists.
        let decodes = serde_json::from_value::<ClientJsonRpcMessage>(value.clone()).is_ok();
        if decodes && initialized.load(Ordering::SeqCst) {
            return Ok(Some(line.to_vec()));
        }
        tracing::debug!("dropping notification `{method}`");
        return Ok(None);
    }
    if !KNOWN_METHODS.contains(&method) {
        let message = format!("method not found: `{}`", method.escape_debug());
        write_error(out, reply_id, code::METHOD_NOT_FOUND, &message).await?;
        return Ok(None);
    }
    if method.starts_with("notifications/") {
        let message = format!("`{method}` is a notification and must not carry an `id`");
        write_error(out, reply_id, code::INVALID_REQUEST, &message).await?;
        return Ok(None);
    }
    match serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        Err(e) => {
            let message = format!("invalid params for `{method}`: {e}");
            write_error(out, reply_id, code::INVALID_PARAMS, &message).await?;
            return Ok(None);
        }
        // rmcp reads a known method whose params do not fit its type as a
        // custom request, then answers `-32601` with the bare method name.
        // Say what is wrong with the params instead.
        Ok(ClientJsonRpcMessage::Request(request))
            if matches!(request.request, ClientRequest::CustomRequest(_)) =>
        {
            let why = params_error(method, object.get("params"))
                .unwrap_or_else(|| "the params do not fit this method".into());
            let message = format!("invalid params for `{method}`: {why}");
            write_error(out, reply_id, code::INVALID_PARAMS, &message).await?;
            return Ok(None);
        }
        Ok(_) => {}
    }
    if !initialized.load(Ordering::SeqCst) {
        match method {
            "initialize" => initialized.store(true, Ordering::SeqCst),
            "ping" => {}
            _ => {
                let message = format!("`{method}` before `initialize`: send `initialize` first");
                write_error(out, reply_id, code::INVALID_REQUEST, &message).await?;
                return Ok(None);
            }
        }
    }
    Ok(Some(line.to_vec()))
}

/// Why `params` do not decode as the params of `method`, for the methods
/// whose params have a type in rmcp.
fn params_error(method: &str, params: Option<&Value>) -> Option<String> {
    use rmcp::model::{CallToolRequestParams, InitializeRequestParams, PaginatedRequestParams};
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
        "tools/list" => check::<Option<PaginatedRequestParams>>(params),
        _ => None,
    }
}

/// Run rmcp sessions over in-memory pipes, feeding them the screened lines,
/// until the line channel closes. A session that ends early (it should not)
/// is replaced by a fresh one, so the server keeps serving.
async fn run_sessions<W>(
    server: NotaraiServer,
    mut lines: mpsc::Receiver<Vec<u8>>,
    out: SharedOut<W>,
    initialized: Arc<AtomicBool>,
) -> anyhow::Result<()>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    loop {
        let (mut to_rmcp, rmcp_in) = tokio::io::duplex(1 << 20);
        let (rmcp_out, from_rmcp) = tokio::io::duplex(1 << 20);
        let pump = tokio::spawn(pump_out(from_rmcp, out.clone()));
        let service = server.clone();
        let session = tokio::spawn(async move {
            match service.serve((rmcp_in, rmcp_out)).await {
                Ok(running) => {
                    let _ = running.waiting().await;
                }
                Err(e) => tracing::warn!("MCP session ended during the handshake: {e}"),
            }
        });
        let mut input_closed = true;
        while let Some(mut line) = lines.recv().await {
            line.push(b'\n');
            if to_rmcp.write_all(&line).await.is_err() {
                input_closed = false;
                break;
            }
            if session.is_finished() {
                input_closed = false;
                break;
            }
        }
        drop(to_rmcp);
        let _ = session.await;
        let _ = pump.await;
        if input_closed {
            return Ok(());
        }
        tracing::warn!("restarting the MCP session");
        initialized.store(false, Ordering::SeqCst);
    }
}

/// Copy rmcp's output to stdout, one whole line under the lock at a time.
async fn pump_out<R, W>(from_rmcp: R, out: SharedOut<W>) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(from_rmcp);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        if !line.ends_with(b"\n") {
            line.push(b'\n');
        }
        let mut out = out.lock().await;
        out.write_all(&line).await?;
        out.flush().await?;
    }
}

async fn write_error<W: AsyncWrite + Unpin>(
    out: &SharedOut<W>,
    id: Value,
    code: i32,
    message: &str,
) -> std::io::Result<()> {
    let mut line = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string();
    line.push('\n');
    let mut out = out.lock().await;
    out.write_all(line.as_bytes()).await?;
    out.flush().await
}

/// What [`read_bounded_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line (without its newline) is in the buffer.
    Complete,
    /// The line was longer than the limit and was discarded up to its newline.
    TooLong,
    /// The input ended.
    Eof,
}

/// Read one `\n`-terminated line into `buf` (cleared first), never holding
/// more than `max` bytes of it. A last line without a newline still counts.
pub async fn read_bounded_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (read_any, too_long) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong,
                (true, false) => Line::Complete,
            });
        }
        read_any = true;
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
                buf.shrink_to(64 * 1024);
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let consumed = done.unwrap_or(available.len());
        reader.consume(consumed);
        if done.is_some() {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bounded_lines() {
        let input = b"short\r\n0123456789abc\nlast".to_vec();
        let mut reader = BufReader::with_capacity(4, &input[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_bounded_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::Complete
        );
        assert_eq!(buf, b"short");
        assert_eq!(
            read_bounded_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::TooLong
        );
        assert_eq!(
            read_bounded_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::Complete
        );
        assert_eq!(buf, b"last");
        assert_eq!(
            read_bounded_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::Eof
        );
    }
}
