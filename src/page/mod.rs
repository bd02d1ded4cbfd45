//! One budgeted, paged rendering for every list and diff the tools answer.
//!
//! A tool computes its whole answer, then this module cuts it into pages
//! whose JSON text fits a byte budget (`max_tokens` × 3 bytes). The text
//! block of a `tools/call` reply is the compact JSON of the page and
//! `structuredContent` is the same value, so the budget bounds both and one
//! message line stays under about three times the budget.
//!
//! Cutting happens in one place, [`Layout`], and is always said: every page
//! carries `page`, `pages` and `next_cursor`; a diff is split at file
//! boundaries, a file larger than a page at hunk boundaries and a hunk
//! larger than a page at line boundaries, with the file header repeated and
//! each part's hunk header recomputed ([`split_patch`]). A [`Cursor`] names a
//! page of one answer: it carries a fingerprint of that whole answer and a
//! keyed BLAKE3 tag, so a cursor over changes that moved, or one this server
//! did not issue, is refused instead of mixing two states.

use std::borrow::Cow;
use std::sync::OnceLock;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};

mod diff;

pub use diff::{line_counts, split_patch, split_text};

/// Tokens a page may hold when neither `max_tokens` nor `MAX_MCP_OUTPUT_TOKENS` says otherwise.
const DEFAULT_MAX_TOKENS: u64 = 20_000;
/// Smallest accepted `max_tokens`.
const MIN_MAX_TOKENS: u64 = 1_000;
/// Largest accepted `max_tokens` (30 MB of text: one page for nearly any change).
const MAX_MAX_TOKENS: u64 = 10_000_000;
/// Bytes counted per token: conservative, so a page never exceeds a client's token limit.
pub const BYTES_PER_TOKEN: u64 = 3;

/// What the tool descriptions and the server instructions say about pages.
pub const FOLLOW_CURSOR: &str = "Answers are paged to fit a token budget (`max_tokens`, default \
     20000): when the answer has a `next_cursor`, call the same tool again with the same \
     arguments plus `cursor` set to it, until `next_cursor` is absent; nothing is left out. A \
     diff of several pages lists every file on its first page with the page that holds it \
     (`plan`).";

/// The tools whose answers are paged.
const PAGED_TOOLS: [&str; 4] = [
    "list_affected_specs",
    "get_spec_diff",
    "get_changed_artifacts",
    "get_reconciliation_status",
];

/// The tool declarations with [`FOLLOW_CURSOR`] appended to the description
/// of each paged tool.
pub fn with_paging_notes(mut tools: Vec<rmcp::model::Tool>) -> Vec<rmcp::model::Tool> {
    for tool in &mut tools {
        if PAGED_TOOLS.contains(&tool.name.as_ref()) {
            let description = tool.description.as_deref().unwrap_or_default();
            tool.description = Some(format!("{description} {FOLLOW_CURSOR}").into());
        }
    }
    tools
}

/// The default budget in tokens: [`DEFAULT_MAX_TOKENS`], or four fifths of
/// `MAX_MCP_OUTPUT_TOKENS` when the client set it (Claude Code passes its
/// environment to the servers it spawns), within the accepted bounds.
fn default_max_tokens() -> u64 {
    default_from_env(std::env::var("MAX_MCP_OUTPUT_TOKENS").ok().as_deref())
}

fn default_from_env(value: Option<&str>) -> u64 {
    match value.and_then(|v| v.trim().parse::<u64>().ok()) {
        Some(limit) => (limit / 5 * 4).clamp(MIN_MAX_TOKENS, MAX_MAX_TOKENS),
        None => DEFAULT_MAX_TOKENS,
    }
}

/// The `max_tokens` parameter: an integer within [`MIN_MAX_TOKENS`]..=[`MAX_MAX_TOKENS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MaxTokens(pub u64);

impl MaxTokens {
    /// The page budget in bytes of JSON text for `max_tokens` (or the default).
    pub fn budget(given: Option<MaxTokens>) -> usize {
        let tokens = given.map_or_else(default_max_tokens, |m| m.0);
        (tokens * BYTES_PER_TOKEN) as usize
    }
}

impl<'de> Deserialize<'de> for MaxTokens {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        match value.as_u64() {
            Some(n) if (MIN_MAX_TOKENS..=MAX_MAX_TOKENS).contains(&n) => Ok(MaxTokens(n)),
            _ => Err(serde::de::Error::custom(format!(
                "must be an integer from {MIN_MAX_TOKENS} to {MAX_MAX_TOKENS} (tokens per page, \
                 counted as {BYTES_PER_TOKEN} bytes each), got {value}"
            ))),
        }
    }
}

impl JsonSchema for MaxTokens {
    fn schema_name() -> Cow<'static, str> {
        "MaxTokens".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "integer",
            "minimum": MIN_MAX_TOKENS,
            "maximum": MAX_MAX_TOKENS,
            "description": format!(
                "Budget of one page in tokens (counted as {BYTES_PER_TOKEN} bytes each), from \
                 {MIN_MAX_TOKENS} to {MAX_MAX_TOKENS}. Default {DEFAULT_MAX_TOKENS}, or 4/5 of \
                 MAX_MCP_OUTPUT_TOKENS when set."
            ),
        })
    }
}

// ------------------------------------------------------------------- cursors

/// Why a cursor was refused: the caller's input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CursorError {
    /// Not a cursor this server process issued for this tool.
    #[error(
        "cursor: not a cursor this server issued for this tool (forged, truncated, or \
         from another server process); call again without `cursor` to start from the \
         first page"
    )]
    Foreign,
    /// Issued here, but the answer it belongs to changed since.
    #[error(
        "cursor: the changes moved since this cursor was issued (work tree, index, base, \
         specs, cache or arguments differ); call again without `cursor` to start from \
         the first page"
    )]
    Moved,
}

impl crate::error::Diagnose for CursorError {
    fn kind(&self) -> crate::error::ErrorKind {
        crate::error::ErrorKind::InvalidInput
    }
}

/// A position in one answer: the page to serve and the fingerprint of the
/// whole answer it was cut from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    /// Which tool issued it.
    pub tool: u8,
    /// Zero-based page index.
    pub page: u32,
    /// First 16 bytes of the BLAKE3 hash of the arguments and the whole answer.
    pub fingerprint: [u8; 16],
}

const CURSOR_VERSION: u8 = 1;
const CURSOR_BODY: usize = 1 + 1 + 4 + 16;
const CURSOR_LEN: usize = CURSOR_BODY + 16;

/// The key of this server process's cursor tags: fresh per process, so a
/// cursor from another process (or forged) is refused.
fn cursor_key() -> &'static [u8; 32] {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    KEY.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        let mut h = blake3::Hasher::new();
        h.update(b"notarai cursor key");
        h.update(&std::process::id().to_le_bytes());
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        h.update(&now.as_nanos().to_le_bytes());
        // RandomState is seeded from the operating system's randomness.
        for _ in 0..4 {
            let mut s = std::collections::hash_map::RandomState::new().build_hasher();
            s.write_u8(0);
            h.update(&s.finish().to_le_bytes());
        }
        *h.finalize().as_bytes()
    })
}

impl Cursor {
    /// The opaque text form: hex of version, tool, page, fingerprint and tag.
    pub fn encode(&self) -> String {
        let mut bytes = Vec::with_capacity(CURSOR_LEN);
        bytes.push(CURSOR_VERSION);
        bytes.push(self.tool);
        bytes.extend_from_slice(&self.page.to_le_bytes());
        bytes.extend_from_slice(&self.fingerprint);
        let tag = blake3::keyed_hash(cursor_key(), &bytes);
        bytes.extend_from_slice(&tag.as_bytes()[..16]);
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Read a cursor issued by this process for `tool`.
    pub fn decode(text: &str, tool: u8) -> Result<Cursor, CursorError> {
        if text.len() != CURSOR_LEN * 2 || !text.is_ascii() {
            return Err(CursorError::Foreign);
        }
        let mut bytes = [0u8; CURSOR_LEN];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16)
                .map_err(|_| CursorError::Foreign)?;
        }
        let tag = blake3::keyed_hash(cursor_key(), &bytes[..CURSOR_BODY]);
        let tag_ok = tag.as_bytes()[..16]
            .iter()
            .zip(&bytes[CURSOR_BODY..])
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
        if !tag_ok || bytes[0] != CURSOR_VERSION || bytes[1] != tool {
            return Err(CursorError::Foreign);
        }
        let page = u32::from_le_bytes(bytes[2..6].try_into().expect("4 bytes"));
        let fingerprint = bytes[6..22].try_into().expect("16 bytes");
        Ok(Cursor {
            tool,
            page,
            fingerprint,
        })
    }
}

/// The fingerprint of an answer: BLAKE3 over the tool's arguments (without
/// the cursor) and the whole answer, serialized.
pub fn fingerprint(arguments: &impl Serialize, answer: &impl Serialize) -> [u8; 16] {
    let mut h = blake3::Hasher::new();
    let args = serde_json::to_vec(arguments).unwrap_or_default();
    h.update(&(args.len() as u64).to_le_bytes());
    h.update(&args);
    let _ = serde_json::to_writer(HashWriter(&mut h), answer);
    h.finalize().as_bytes()[..16].try_into().expect("16 bytes")
}

struct HashWriter<'a>(&'a mut blake3::Hasher);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Which page to serve: the first without a cursor; the cursor's page when
/// it was issued for this very answer and the answer has that page.
pub fn requested_page(
    cursor: Option<&str>,
    tool: u8,
    fingerprint: [u8; 16],
    pages: usize,
) -> Result<usize, CursorError> {
    let Some(text) = cursor else { return Ok(0) };
    let cursor = Cursor::decode(text, tool)?;
    if cursor.fingerprint != fingerprint || cursor.page as usize >= pages {
        return Err(CursorError::Moved);
    }
    Ok(cursor.page as usize)
}

/// The `next_cursor` of page `page` out of `pages`; `None` on the last.
pub fn next_cursor(tool: u8, page: usize, pages: usize, fingerprint: [u8; 16]) -> Option<String> {
    (page + 1 < pages).then(|| {
        Cursor {
            tool,
            page: (page + 1) as u32,
            fingerprint,
        }
        .encode()
    })
}

/// Longest `next_cursor` value as JSON (quotes included), for page overheads.
pub const CURSOR_JSON_LEN: usize = CURSOR_LEN * 2 + 2;

// -------------------------------------------------------------------- sizes

/// Bytes `s` takes inside a JSON string (serde_json's escaping, quotes excluded).
pub fn escaped_len(s: &str) -> usize {
    s.bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

/// Bytes of `value` as compact JSON.
pub fn json_len(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

// ------------------------------------------------------------------- layout

/// Pages being filled in order: each holds at most `cap` bytes of items.
#[derive(Debug, Clone)]
pub struct Layout {
    cap: usize,
    used: Vec<usize>,
}

impl Layout {
    /// An empty first page of capacity `cap`.
    pub fn new(cap: usize) -> Layout {
        Layout { cap, used: vec![0] }
    }

    /// Bytes one page holds.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Index of the page being filled.
    pub fn current(&self) -> usize {
        self.used.len() - 1
    }

    /// Bytes left on the page being filled.
    pub fn room(&self) -> usize {
        self.cap.saturating_sub(self.used[self.current()])
    }

    /// `true` when nothing was placed on the page being filled.
    pub fn is_fresh(&self) -> bool {
        self.used[self.current()] == 0
    }

    /// Start a new page.
    pub fn new_page(&mut self) {
        self.used.push(0);
    }

    /// Take `cost` bytes on the page being filled.
    pub fn consume(&mut self, cost: usize) {
        let i = self.current();
        self.used[i] += cost;
    }

    /// Place an item of `cost` bytes: on this page when it fits (or the
    /// page is fresh), else on a new one. Returns its page.
    pub fn place(&mut self, cost: usize) -> usize {
        if cost > self.room() && !self.is_fresh() {
            self.new_page();
        }
        self.consume(cost);
        self.current()
    }

    /// Number of pages so far.
    pub fn pages(&self) -> usize {
        self.used.len()
    }
}

#[cfg(test)]
mod tests;
