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
mod tests {
    use super::diff::{HunkRange, LineTooLong, parse_patch};
    use super::*;
    use proptest::prelude::*;

    /// The changed lines (`+`/`-` body lines) of a multi-file diff, in order.
    fn changed_lines(diff: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut in_hunk = false;
        for line in diff.split_inclusive('\n') {
            if line.starts_with("diff --git") {
                in_hunk = false;
            } else if line.starts_with("@@ -") {
                in_hunk = true;
            } else if in_hunk && (line.starts_with('+') || line.starts_with('-')) {
                out.push(line.to_string());
            }
        }
        out
    }

    /// Check every hunk header against its body, as `git apply` would count.
    fn check_headers(diff: &str) {
        let mut files: Vec<String> = Vec::new();
        for line in diff.split_inclusive('\n') {
            if line.starts_with("diff --git") || files.is_empty() {
                files.push(String::new());
            }
            files.last_mut().unwrap().push_str(line);
        }
        for file in &files {
            check_file_headers(file);
        }
    }

    fn check_file_headers(diff: &str) {
        let parsed = parse_patch(diff);
        for hunk in &parsed.hunks {
            let (mut olds, mut news) = (0, 0);
            for unit in &hunk.units {
                match unit.as_bytes()[0] {
                    b'-' => olds += 1,
                    b'+' => news += 1,
                    b' ' => {
                        olds += 1;
                        news += 1;
                    }
                    other => panic!("unexpected line start {other} in {diff}"),
                }
            }
            assert_eq!(hunk.range.old_count, olds, "{diff}");
            assert_eq!(hunk.range.new_count, news, "{diff}");
        }
    }

    fn sample_patch(lines: usize) -> String {
        let mut p = String::from(
            "diff --git a/f.txt b/f.txt\nindex 1111111..2222222 100644\n--- a/f.txt\n+++ b/f.txt\n",
        );
        p.push_str(&format!("@@ -10,{lines} +10,{lines} @@ fn main\n"));
        for i in 0..lines {
            p.push_str(&format!("-old {i}\n+new {i}\n"));
        }
        p
    }

    #[test]
    fn a_small_patch_stays_whole() {
        let p = sample_patch(3);
        let mut layout = Layout::new(10_000);
        let pieces = split_patch(&p, &mut layout).unwrap();
        assert_eq!(pieces, vec![(0, p)]);
    }

    #[test]
    fn a_large_hunk_is_cut_at_lines_with_recomputed_headers() {
        let p = sample_patch(200);
        let mut layout = Layout::new(600);
        let pieces = split_patch(&p, &mut layout).unwrap();
        assert!(pieces.len() > 5);
        let mut joined = String::new();
        for (i, (page, text)) in pieces.iter().enumerate() {
            assert_eq!(*page, i, "one piece per page");
            assert!(escaped_len(text) <= 600, "{}", escaped_len(text));
            assert!(text.starts_with("diff --git a/f.txt b/f.txt\n"));
            check_headers(text);
            joined.push_str(text);
        }
        assert_eq!(changed_lines(&joined), changed_lines(&p));
        // The second part starts where the first ended, in both files.
        let second = parse_patch(&pieces[1].1).hunks[0].range;
        let first = parse_patch(&pieces[0].1).hunks[0].range;
        assert_eq!(second.old_start, first.old_start + first.old_count);
        assert_eq!(second.new_start, first.new_start + first.new_count);
    }

    /// The sizes the binary tests used to send through the server (a hunk
    /// of 60,000 changed lines; a 5 MB new file with quotes and
    /// backslashes), laid out in process at the default budget.
    #[test]
    fn a_60000_line_hunk_and_a_5mb_file_are_cut_within_the_budget() {
        let cap = MaxTokens::budget(None);
        let hunk = sample_patch(60_000);
        let mut big = String::from(
            "diff --git a/big.md b/big.md\nnew file mode 100644\n--- /dev/null\n+++ b/big.md\n@@ -0,0 +1,110000 @@\n",
        );
        for i in 0..110_000 {
            big.push_str(&format!(
                "+{i:08} \"quoted\" \\ back\\slash {}\n",
                "x".repeat(14)
            ));
        }
        assert!(big.len() >= 5_000_000);
        for patch in [hunk, big] {
            let mut layout = Layout::new(cap);
            let pieces = split_patch(&patch, &mut layout).unwrap();
            assert!(pieces.len() > 10, "{} pieces", pieces.len());
            let header = patch.lines().next().unwrap();
            let mut joined = String::new();
            for (i, (page, text)) in pieces.iter().enumerate() {
                assert_eq!(*page, i, "one piece per page");
                assert!(escaped_len(text) <= cap, "{}", escaped_len(text));
                assert!(text.starts_with(header), "the file header on every page");
                check_headers(text);
                joined.push_str(text);
            }
            assert_eq!(changed_lines(&joined), changed_lines(&patch));
        }
    }

    #[test]
    fn only_additions_keep_zero_count_starts() {
        let mut p = String::from(
            "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1,50 @@\n",
        );
        for i in 0..50 {
            p.push_str(&format!("+line {i}\n"));
        }
        let mut layout = Layout::new(300);
        let pieces = split_patch(&p, &mut layout).unwrap();
        assert!(pieces.len() > 2);
        let ranges: Vec<HunkRange> = pieces
            .iter()
            .map(|(_, t)| parse_patch(t).hunks[0].range)
            .collect();
        assert_eq!(ranges[0].old_start, 0);
        assert_eq!(ranges[0].new_start, 1);
        assert_eq!(ranges[1].old_start, 0);
        assert_eq!(ranges[1].new_start, 1 + ranges[0].new_count);
    }

    #[test]
    fn no_newline_marker_stays_with_its_line() {
        let p = "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n";
        let parsed = parse_patch(p);
        assert_eq!(parsed.hunks[0].units.len(), 2);
        assert_eq!(line_counts(p), (1, 1));
        let mut layout = Layout::new(90);
        let pieces = split_patch(p, &mut layout).unwrap();
        assert_eq!(pieces.len(), 2);
        assert!(pieces[0].1.ends_with("-a\n\\ No newline at end of file\n"));
        assert!(pieces[1].1.contains("@@ -1,0 +1,1 @@"), "{}", pieces[1].1);
    }

    #[test]
    fn a_line_longer_than_a_page_is_reported() {
        let p = format!(
            "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+{}\n",
            "x".repeat(1000)
        );
        assert_eq!(split_patch(&p, &mut Layout::new(500)), Err(LineTooLong));
    }

    #[test]
    fn hunks_fill_the_page_before_moving_on() {
        let mut p = String::from("diff --git a/f b/f\n--- a/f\n+++ b/f\n");
        for h in 0..10 {
            p.push_str(&format!("@@ -{0},1 +{0},1 @@\n-a{h}\n+b{h}\n", h * 10 + 1));
        }
        let mut layout = Layout::new(120);
        layout.consume(30);
        let pieces = split_patch(&p, &mut layout).unwrap();
        let joined: String = pieces.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(changed_lines(&joined), changed_lines(&p));
        assert_eq!(pieces[0].0, 0, "the first hunk fits the rest of page 0");
        for (_, t) in &pieces {
            check_headers(t);
        }
    }

    #[test]
    fn cursors_round_trip_and_refuse_forgeries() {
        let c = Cursor {
            tool: 2,
            page: 7,
            fingerprint: [9; 16],
        };
        let text = c.encode();
        assert_eq!(Cursor::decode(&text, 2), Ok(c));
        assert_eq!(Cursor::decode(&text, 1), Err(CursorError::Foreign));
        assert_eq!(Cursor::decode(&text[1..], 2), Err(CursorError::Foreign));
        let mut forged = text.clone().into_bytes();
        forged[5] = if forged[5] == b'0' { b'1' } else { b'0' };
        let forged = String::from_utf8(forged).unwrap();
        assert_eq!(Cursor::decode(&forged, 2), Err(CursorError::Foreign));
        assert_eq!(Cursor::decode("é", 2), Err(CursorError::Foreign));
        assert_eq!(
            requested_page(Some(&text), 2, [8; 16], 10),
            Err(CursorError::Moved)
        );
        assert_eq!(requested_page(Some(&text), 2, [9; 16], 10), Ok(7));
        assert_eq!(
            requested_page(Some(&text), 2, [9; 16], 7),
            Err(CursorError::Moved)
        );
    }

    #[test]
    fn max_tokens_bounds_and_env_default() {
        let ok: MaxTokens = serde_json::from_value(serde_json::json!(5000)).unwrap();
        assert_eq!(MaxTokens::budget(Some(ok)), 15_000);
        for bad in [
            serde_json::json!(10),
            serde_json::json!(1.5),
            serde_json::json!("5000"),
            serde_json::json!(MAX_MAX_TOKENS + 1),
        ] {
            let err = serde_json::from_value::<MaxTokens>(bad).unwrap_err();
            assert!(err.to_string().contains("from 1000 to 10000000"), "{err}");
        }
        assert_eq!(default_from_env(None), DEFAULT_MAX_TOKENS);
        assert_eq!(default_from_env(Some("25000")), 20_000);
        assert_eq!(default_from_env(Some("100000")), 80_000);
        assert_eq!(default_from_env(Some("10")), MIN_MAX_TOKENS);
        assert_eq!(default_from_env(Some("lots")), DEFAULT_MAX_TOKENS);
    }

    #[test]
    fn escaped_len_matches_serde_json() {
        let s = "a\"b\\c\nd\te\u{1}f\u{7f}é\r\u{8}\u{c}";
        assert_eq!(escaped_len(s) + 2, serde_json::to_string(s).unwrap().len());
    }

    #[test]
    fn split_text_joins_back() {
        let text = "line one\nline two is longer\n\"quoted\"\n".repeat(20);
        let parts = split_text(&text, 10, 50);
        assert!(parts.iter().skip(1).all(|p| escaped_len(p) <= 50));
        assert_eq!(parts.concat(), text);
    }

    fn arb_patch() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            "[ -~\"\\\\]{0,30}".prop_map(|s| format!(" {s}\n")),
            "[ -~\"\\\\]{0,30}".prop_map(|s| format!("-{s}\n")),
            "[ -~\"\\\\]{0,30}".prop_map(|s| format!("+{s}\n")),
        ];
        proptest::collection::vec(proptest::collection::vec(line, 1..40), 1..5).prop_map(|hunks| {
            let mut p = String::from("diff --git a/x b/x\n--- a/x\n+++ b/x\n");
            let (mut old, mut new) = (1u64, 1u64);
            for body in hunks {
                let olds = body.iter().filter(|l| !l.starts_with('+')).count() as u64;
                let news = body.iter().filter(|l| !l.starts_with('-')).count() as u64;
                let os = if olds == 0 { old - 1 } else { old };
                let ns = if news == 0 { new - 1 } else { new };
                p.push_str(&format!("@@ -{os},{olds} +{ns},{news} @@\n"));
                p.push_str(&body.concat());
                old += olds + 3;
                new += news + 3;
            }
            p
        })
    }

    proptest! {
        #[test]
        fn pages_joined_hold_exactly_the_changed_lines(
            patches in proptest::collection::vec(arb_patch(), 1..4),
            cap in 200usize..2000,
            used in 0usize..200,
        ) {
            let mut layout = Layout::new(cap);
            layout.consume(used.min(cap));
            let mut pages: Vec<String> = Vec::new();
            for p in &patches {
                for (page, text) in split_patch(p, &mut layout).unwrap() {
                    if pages.len() <= page { pages.resize(page + 1, String::new()); }
                    pages[page].push_str(&text);
                }
            }
            let original: String = patches.concat();
            let joined: String = pages.concat();
            prop_assert_eq!(changed_lines(&joined), changed_lines(&original));
            for (i, page) in pages.iter().enumerate() {
                let limit = if i == 0 { cap - used.min(cap) } else { cap };
                prop_assert!(escaped_len(page) <= limit, "page {} has {} > {}", i, escaped_len(page), limit);
                check_headers(page);
            }
        }
    }
}
