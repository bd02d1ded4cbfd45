//! The `.gitignore` line that keeps notarai's cache out of git.

use super::fsio::line_ending;

/// The line `notarai init` adds.
pub const CACHE_LINE: &str = ".notarai/.cache/";

/// Lines that already ignore the cache folder, written another way.
const EQUIVALENT: &[&str] = &[
    ".notarai/.cache/",
    ".notarai/.cache",
    "/.notarai/.cache/",
    "/.notarai/.cache",
    ".notarai/.cache/*",
    ".notarai/.cache/**",
    "/.notarai/.cache/*",
    "/.notarai/.cache/**",
];

/// The `.gitignore` text with the cache line added once: `existing` unchanged
/// when a line already ignores the cache, else the line appended (after a
/// newline when the file does not end with one), in the file's line ending.
pub fn ensure_cache_ignored(existing: Option<&str>) -> String {
    let text = existing.unwrap_or("");
    if text.lines().any(|line| EQUIVALENT.contains(&line.trim())) {
        return text.to_string();
    }
    let eol = line_ending(text);
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(eol);
    }
    out.push_str(CACHE_LINE);
    out.push_str(eol);
    out
}

/// `.gitignore` text without the cache line `init` adds (the first line
/// exactly [`CACHE_LINE`]); deleted when nothing else is left.
pub fn remove_cache_line(text: &str) -> super::agents::merge::Change {
    super::agents::setup::remove_line(text, CACHE_LINE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_appends_and_keeps() {
        assert_eq!(ensure_cache_ignored(None), ".notarai/.cache/\n");
        assert_eq!(
            ensure_cache_ignored(Some("/target")),
            "/target\n.notarai/.cache/\n"
        );
        assert_eq!(
            ensure_cache_ignored(Some("a\r\nb\r\n")),
            "a\r\nb\r\n.notarai/.cache/\r\n"
        );
        let kept = "x\n/.notarai/.cache\n";
        assert_eq!(ensure_cache_ignored(Some(kept)), kept);
        let once = ensure_cache_ignored(Some("x\n"));
        assert_eq!(ensure_cache_ignored(Some(&once)), once);
    }
}
